// UI benchmark: the archival table of a 100 000-entry MEMORY.md (quick: 20 000) in
// Debian's chromium against `oryx serve`, against a 100-entry baseline agent in the same run.
//
//   node tests/bench/ui.mjs [--quick]      → target/bench/ui.json, target/bench/ui-100k.png
//
// "Renders" = from the user's click on the Memory tab to the frame after the first archival rows
// are in the DOM (rAF + a task: that frame has been painted), in page time. It includes the
// route change, the REST fetches the screen makes (the memory overview and the first page of the
// archival list), JSON parsing and React's render. The fetch part (click → last response end,
// from Resource Timing) and the rest are reported separately. "Cold" opens change the file's
// modification time first, so the server parses the whole file again (its cache is keyed by
// size and mtime): the first open after the runtime wrote.
import { spawn, execFileSync } from "node:child_process";
import { existsSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { binary, makeBenchRoot, median, quick, ratio, repo, round, waitFor, writeReport } from "./lib.mjs";

const BIG = quick ? 20_000 : 100_000;
const REPS = quick ? 3 : 7;
const bigLabel = BIG.toLocaleString("en-US").replace(/,/g, " ");
const idBig = quick ? "ui_archival_20k" : "ui_archival_100k";
const reproduce = `node tests/bench/ui.mjs${quick ? " --quick" : ""}`;

const oryx = binary("oryx", { build: "oryx-cli" });
if (!existsSync(join(repo, "ui/dist/index.html"))) {
  console.error("building the UI (ui/dist is missing)");
  execFileSync("npm", ["run", "build"], { cwd: join(repo, "ui"), stdio: "inherit" });
}
const t0 = Date.now();
const fx = makeBenchRoot(oryx.path, BIG, 100);
console.error(`fixture: ${fx.root} (${fx.big.name}: ${BIG} entries, ${(fx.big.bytes / 1e6).toFixed(1)} MB MEMORY.md) in ${Date.now() - t0} ms; oryx: ${oryx.profile}`);

let server;
let browser;
try {
  // ORYX_UI_DIR: serve another build of the UI (to compare a change against the committed one).
  const uiDir = process.env.ORYX_UI_DIR ? ["--ui-dir", process.env.ORYX_UI_DIR] : [];
  server = spawn(oryx.path, ["serve", "--bind", "127.0.0.1:0", ...uiDir], {
    env: { ...process.env, ORYXOS_CONFIG_DIR: fx.config, ORYXOS_ROOT: "" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let log = "";
  server.stderr.on("data", (d) => (log += d));
  const addr = await waitFor("oryx serve to listen", () => log.match(/http:\/\/([\d.:]+)\//)?.[1], 20000);
  const base = `http://${addr}`;

  // The REST routes alone, from node: server time + transfer, and the payload size of what the
  // memory screen asks for first (overview + one page of 200 rows).
  // The operations the screen posts (POST /api/v1/console/<op>, JSON arguments).
  const screenCalls = (agent) => [
    ["memory_overview", { agent }],
    ["archival_page", { agent, offset: 0, limit: 200, newest_first: false, keyword: null }],
  ];
  const post = (url, args) => fetch(url, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(args) });
  const route = async (agent) => {
    const s = performance.now();
    let bytes = 0;
    let ok = true;
    for (const [op, args] of screenCalls(agent)) {
      const res = await post(`${base}/api/v1/console/${op}`, args);
      bytes += (await res.arrayBuffer()).byteLength;
      ok &&= res.ok;
    }
    return { ms: performance.now() - s, bytes, ok };
  };
  let tick = 0;
  // A new modification time (size unchanged): the server's parsed-file cache misses.
  const touchBig = () => {
    const t = new Date(Date.now() + ++tick * 1000);
    utimesSync(join(fx.root, "agents", fx.big.name, "MEMORY.md"), t, t);
  };
  await route(fx.small.name);
  await route(fx.big.name);
  const rest = { big: [], small: [] };
  for (let i = 0; i < REPS; i++) {
    rest.big.push(await route(fx.big.name));
    rest.small.push(await route(fx.small.name));
  }

  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"],
  });
  const errors = [];

  /** One cold open of the Memory tab in a fresh browser context (no HTTP or query cache). */
  async function openMemory(agent, count, { keep, noLive, cold } = {}) {
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: "en-US" });
    // noLive: the live-refresh stream is refused, so no change event can trigger refetches.
    if (noLive) await ctx.route("**/api/v1/console/events", (r) => r.abort());
    const page = await ctx.newPage();
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(`${base}/#/agents/${agent}/overview`);
    await page.locator('[data-testid="front-matter"]').first().waitFor({ state: "visible", timeout: 20000 });
    await page.waitForTimeout(150);
    if (cold) {
      touchBig();
      await page.waitForTimeout(600); // let the change event pass before the click
    }
    const m = await page.evaluate(async (agent) => {
      const afterPaint = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
      performance.clearResourceTimings();
      let tDom = null;
      const found = new Promise((resolve) => {
        const mo = new MutationObserver(() => {
          if (document.querySelector('[data-testid="archival-row"]')) {
            tDom = performance.now();
            mo.disconnect();
            resolve();
          }
        });
        mo.observe(document.body, { childList: true, subtree: true });
      });
      const start = performance.now();
      document.querySelector('[data-testid="tab-memory"]').click();
      await found;
      await afterPaint();
      const painted = performance.now();
      const hits = performance
        .getEntriesByType("resource")
        .filter((e) => /\/console\/memory\/(overview|archival)\?/.test(e.name) && e.name.includes(`agent=${agent}`) && e.startTime >= start - 1);
      const res = hits.length
        ? { responseEnd: Math.max(...hits.map((e) => e.responseEnd)), encodedBodySize: hits.reduce((n, e) => n + (e.encodedBodySize || e.transferSize || 0), 0) }
        : null;
      const rows = document.querySelectorAll('[data-testid="archival-table"] [role="row"]').length;
      const entryRows = document.querySelectorAll('[data-testid="archival-row"]').length;
      const allRows = document.querySelectorAll('tr, [role="row"]').length;
      return {
        total: painted - start,
        dom: tDom - start,
        fetch: res ? res.responseEnd - start : null,
        bytes: res ? res.encodedBodySize || res.transferSize : null,
        rows,
        entryRows,
        allRows,
      };
    }, agent);
    if (!keep) {
      await ctx.close();
      return m;
    }
    return { ...m, page, ctx, count };
  }

  const big = [];
  const small = [];
  const bigQuiet = [];
  const smallQuiet = [];
  const bigCold = [];
  await openMemory(fx.small.name, fx.small.entries); // warm chromium's code caches once
  for (let i = 0; i < REPS; i++) {
    small.push(await openMemory(fx.small.name, fx.small.entries));
    big.push(await openMemory(fx.big.name, BIG));
    smallQuiet.push(await openMemory(fx.small.name, fx.small.entries, { noLive: true }));
    bigQuiet.push(await openMemory(fx.big.name, BIG, { noLive: true }));
    bigCold.push(await openMemory(fx.big.name, BIG, { noLive: true, cold: true }));
  }

  // Scrolling: one more open of the big agent, then jumps top → end, a sweep, and the End key.
  const s = await openMemory(fx.big.name, BIG, { keep: true });
  const page = s.page;
  await page.waitForTimeout(300);
  await page.screenshot({ path: join(repo, "target/bench", quick ? "ui-20k.png" : "ui-100k.png"), fullPage: true });
  const scroll = await page.evaluate(async (n) => {
    const afterPaint = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
    const sc = document.querySelector("[data-virtual-scroll]");
    const rowsNow = () => document.querySelectorAll('[data-testid="archival-table"] [role="row"]').length;
    const until = async (sel) => {
      for (let i = 0; i < 600 && !document.querySelector(sel); i++) await afterPaint();
      await afterPaint();
      return document.querySelector(sel);
    };
    const visible = (el) => {
      if (!el) return false;
      const a = el.getBoundingClientRect();
      const b = sc.getBoundingClientRect();
      return a.height > 0 && a.top >= b.top - 1 && a.bottom <= b.bottom + 1;
    };
    let maxRows = rowsNow();
    // Jump to the top.
    let t = performance.now();
    sc.scrollTop = 0;
    const first = await until('[data-testid="archival-row"][data-entry-index="0"]');
    const toTop = performance.now() - t;
    maxRows = Math.max(maxRows, rowsNow());
    // Jump to the end.
    t = performance.now();
    sc.scrollTop = sc.scrollHeight;
    const lastSel = `[data-testid="archival-row"][data-entry-index="${n - 1}"]`;
    const last = await until(lastSel);
    const toEnd = performance.now() - t;
    const endRows = rowsNow();
    const lastVisible = visible(last);
    maxRows = Math.max(maxRows, endRows);
    // A sweep through the whole list in 20 steps.
    const sweep = [];
    for (let i = 0; i <= 20; i++) {
      const ts = performance.now();
      sc.scrollTop = ((sc.scrollHeight - sc.clientHeight) * i) / 20;
      await afterPaint();
      sweep.push(performance.now() - ts);
      maxRows = Math.max(maxRows, rowsNow());
    }
    return {
      toTop,
      firstFound: !!first,
      toEnd,
      endRows,
      lastVisible,
      lastText: last?.innerText.replace(/\s+/g, " ").slice(0, 80) ?? null,
      sweepMedian: sweep.sort((a, b) => a - b)[sweep.length >> 1],
      sweepMax: Math.max(...sweep),
      maxRows,
      scrollHeight: sc.scrollHeight,
    };
  }, BIG);
  // The keyboard: click the first row (focus), then a real End key press; timed in page from keydown.
  await page.evaluate(() => (document.querySelector("[data-virtual-scroll]").scrollTop = 0));
  await page.locator('[data-testid="archival-row"][data-entry-index="0"]').waitFor();
  await page.locator('[data-testid="archival-row"][data-entry-index="0"]').focus();
  await page.evaluate((n) => {
    const afterPaint = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
    window.__endKey = new Promise((resolve) => {
      addEventListener(
        "keydown",
        async () => {
          const t = performance.now();
          const sel = `[data-testid="archival-row"][data-entry-index="${n - 1}"]`;
          for (let i = 0; i < 300 && !document.querySelector(sel); i++) await afterPaint();
          await afterPaint();
          const el = document.querySelector(sel);
          const sc = document.querySelector("[data-virtual-scroll]");
          const a = el?.getBoundingClientRect();
          const b = sc.getBoundingClientRect();
          resolve({
            ms: performance.now() - t,
            focused: document.activeElement === el && a.top >= b.top - 1 && a.bottom <= b.bottom + 1,
            rows: document.querySelectorAll('[data-testid="archival-table"] [role="row"]').length,
          });
        },
        { capture: true, once: true },
      );
    });
  }, BIG);
  await page.keyboard.press("End");
  const endKey = await page.evaluate(() => window.__endKey);
  Object.assign(scroll, { endKey: endKey.ms, keyFocused: endKey.focused, keyRows: endKey.rows });
  await page.screenshot({ path: join(repo, "target/bench", quick ? "ui-20k-end.png" : "ui-100k-end.png"), fullPage: true });

  console.error(`scrolling done; main thread: ${await page.evaluate(() => new Promise((r) => { let n = 0; const s = performance.now(); const f = () => (++n, performance.now() - s < 500 ? setTimeout(f, 0) : r(n)); f(); }))} timeouts in 500 ms`);
  await s.ctx.close();
  // In-page split of the big payload: transfer vs JSON.parse (what the query function does),
  // on a page that shows no memory and has no live refresh.
  const qctx = await browser.newContext();
  await qctx.route("**/api/v1/console/events", (r) => r.abort());
  const qpage = await qctx.newPage();
  await qpage.goto(`${base}/#/settings`);
  await qpage.waitForTimeout(500);
  const split = await qpage.evaluate(async (agent) => {
    const out = [];
    for (let i = 0; i < 3; i++) {
      const a = performance.now();
      const texts = [];
      for (const [op, args] of [
        ["memory_overview", { agent }],
        ["archival_page", { agent, offset: 0, limit: 200, newest_first: false, keyword: null }],
      ])
        texts.push(await (await fetch(`/api/v1/console/${op}`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(args) })).text());
      const text = texts.join("");
      const b = performance.now();
      for (const t of texts) JSON.parse(t);
      out.push({ fetchText: b - a, parse: performance.now() - b, chars: text.length });
    }
    return out;
  }, fx.big.name);
  await qctx.close();

  // ---- figures ----
  const med = (xs, k) => median(xs.map((x) => x[k]).filter((v) => v !== null));
  const B = { total: med(big, "total"), fetch: med(big, "fetch"), dom: med(big, "dom"), rows: Math.max(...big.map((x) => x.rows)) };
  const S = { total: med(small, "total"), fetch: med(small, "fetch"), rows: Math.max(...small.map((x) => x.rows)) };
  const Q = { total: med(bigQuiet, "total"), fetch: med(bigQuiet, "fetch"), rows: Math.max(...bigQuiet.map((x) => x.rows)) };
  const QS = { total: med(smallQuiet, "total"), fetch: med(smallQuiet, "fetch"), rows: Math.max(...smallQuiet.map((x) => x.rows)) };
  const C = { total: med(bigCold, "total"), fetch: med(bigCold, "fetch"), rows: Math.max(...bigCold.map((x) => x.rows)) };
  const restBig = median(rest.big.map((r) => r.ms));
  const restSmall = median(rest.small.map((r) => r.ms));
  const parseMed = median(split.map((x) => x.parse));
  const rows = [
    {
      id: idBig,
      what: `archival table, ${bigLabel} entries: click on the Memory tab → first rows painted (fetch included)`,
      goal: "≤ 300 ms, ≤ 200 DOM rows",
      measured: `${round(B.total)} ms (fetch ${round(B.fetch)} ms + parse/render ${round(B.total - B.fetch)} ms), ${B.rows} rows in the DOM (baseline 100 entries: ${round(S.total)} ms, ${S.rows} rows)`,
      ratio: ratio(B.total, S.total),
      pass: B.total <= 300 && B.rows <= 200,
      reproduce,
    },
    {
      id: `${idBig}_no_live_refresh`,
      what: `the same, with the live-refresh event stream refused (no change event can trigger a refetch)`,
      goal: "≤ 300 ms, ≤ 200 DOM rows",
      measured: `${round(Q.total)} ms (fetch ${round(Q.fetch)} ms + parse/render ${round(Q.total - Q.fetch)} ms), ${Q.rows} rows in the DOM (baseline 100 entries: ${round(QS.total)} ms, ${QS.rows} rows)`,
      ratio: ratio(Q.total, QS.total),
      pass: Q.total <= 300 && Q.rows <= 200,
      reproduce,
    },
    {
      id: `${idBig}_cold`,
      what: `the same, first open after the file changed (the server parses all ${bigLabel} entries again)`,
      goal: "≤ 300 ms, ≤ 200 DOM rows",
      measured: `${round(C.total)} ms (fetch ${round(C.fetch)} ms + parse/render ${round(C.total - C.fetch)} ms), ${C.rows} rows in the DOM (warm, same run: ${round(Q.total)} ms)`,
      ratio: ratio(C.total, QS.total),
      pass: C.total <= 300 && C.rows <= 200,
      reproduce,
    },
    {
      id: `${idBig}_scroll_end`,
      what: `archival table, ${bigLabel} entries: scrollTop = scrollHeight → last entry painted and visible`,
      goal: "last entry visible, ≤ 200 DOM rows at the end and throughout a 20-step sweep",
      measured: `${round(scroll.toEnd)} ms, last entry visible: ${scroll.lastVisible}, ${scroll.endRows} rows at the end, max ${scroll.maxRows} rows over the sweep (sweep step median ${round(scroll.sweepMedian)} ms, max ${round(scroll.sweepMax)} ms); End key: ${round(scroll.endKey)} ms, last entry focused: ${scroll.keyFocused}`,
      ratio: null,
      pass: scroll.lastVisible && scroll.keyFocused && Math.max(scroll.maxRows, scroll.keyRows) <= 200,
      reproduce,
    },
    {
      id: `${idBig}_rest`,
      what: `GET memory/overview + the first archival page (200 rows) from node (server + transfer, warm), ${bigLabel} entries`,
      goal: "informational (part of the 300 ms)",
      measured: `${round(restBig, 1)} ms, ${(rest.big[0].bytes / 1e3).toFixed(0)} KB JSON (baseline 100 entries: ${round(restSmall, 1)} ms, ${(rest.small[0].bytes / 1e3).toFixed(0)} KB); JSON.parse in chromium ${round(parseMed)} ms`,
      ratio: ratio(restBig, restSmall),
      pass: null,
      reproduce,
    },
  ];
  writeReport("ui", rows, {
    detail: { oryx: oryx.profile, reps: REPS, big, small, bigQuiet, smallQuiet, bigCold, rest, scroll, split, fixtureBytes: fx.big.bytes, pageErrors: errors },
  });
  if (errors.length) console.log(`page errors: ${errors.join("; ")}`);
} finally {
  await browser?.close();
  server?.kill("SIGTERM");
}
