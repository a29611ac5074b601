// Indexing without freezing the window: the semantic index of a 100 000-entry
// MEMORY.md (quick: 20 000) is built by `oryx serve` while chromium scrolls that agent's archival
// virtual table. Same run, same scroll, before the build = the baseline.
//
//   node tests/bench/ui-indexing.mjs [--quick]   → target/bench/ui-indexing.json, ui-indexing.png
//
// The real UI path: Recall page → the owner's Build button (progress bar, Cancel), then the agent's
// Memory tab, scrolled by `scrollTop += 40` on every animation frame in windows of SECS seconds,
// frame intervals from requestAnimationFrame (performance.now deltas). Node reads index_status
// only at the start and end of each window (entries/s). The windows during the build alternate
// with experiments: the server's threads at nice 10, then at SCHED_IDLE (a low-priority build).
// After them, back on the Recall page, the progress must still be there and Cancel (pressed
// partway, the build would take minutes) must stop it and leave the UI idle. The embedder and
// chromium share the machine's cores (2 on the bench machine).
import { execFileSync, spawn } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { loadavg } from "node:os";
import { chromium } from "playwright-core";
import { binary, makeBenchRoot, median, quick, ratio, repo, round, sleep, waitFor, writeReport } from "./lib.mjs";

const BIG = quick ? 20_000 : 100_000;
const SECS = quick ? 5 : 10;
const WINDOWS = 3; // scroll windows per condition, pooled (the machine is shared: its load drifts)
const label = BIG.toLocaleString("en-US").replace(/,/g, " ");
const reproduce = `node tests/bench/ui-indexing.mjs${quick ? " --quick" : ""}`;
const load = loadavg().map((x) => x.toFixed(2)).join(", ");

const oryx = binary("oryx", { build: "oryx-cli" });
const fx = makeBenchRoot(oryx.path, BIG, 100);
const agent = fx.big.name;
console.error(`fixture ${fx.root}: ${agent} ${BIG} entries; oryx ${oryx.profile}; load ${load}`);

/** CPU seconds a process has used (utime + stime from /proc), with its descendants when `tree`. */
const statOf = (pid) => readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
const cpuOf = (pid, tree = false) => {
  let pids = [pid];
  if (tree) {
    const parent = new Map();
    for (const p of readdirSync("/proc").filter((d) => /^\d+$/.test(d)))
      try {
        parent.set(Number(p), Number(statOf(p)[1]));
      } catch {
        /* gone */
      }
    for (let i = 0; i < pids.length; i++) for (const [c, pp] of parent) if (pp === pids[i]) pids.push(c);
  }
  let sum = 0;
  for (const p of pids)
    try {
      const f = statOf(p);
      sum += (Number(f[11]) + Number(f[12])) / 100;
    } catch {
      /* gone */
    }
  return sum;
};
/** Puts every thread of `pid` at a scheduling priority: "normal", "nice 10" or "SCHED_IDLE"
 * (the experiments of what a lower-priority build thread would give). */
const prioritise = (pid, how) => {
  const tasks = readdirSync(`/proc/${pid}/task`);
  execFileSync("chrt", ["-a", how === "SCHED_IDLE" ? "--idle" : "--other", "-p", "0", String(pid)], { stdio: "ignore" });
  execFileSync("renice", ["-n", how === "nice 10" ? "10" : "0", "-p", ...tasks], { stdio: "ignore" });
};

/** Busy and total jiffies of the whole machine (/proc/stat). */
const machineCpu = () => {
  const v = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1).map(Number);
  return { busy: v[0] + v[1] + v[2] + v[5] + v[6] + v[7], total: v.reduce((a, b) => a + b, 0) };
};

/** Several scroll windows as one: their frame intervals pooled, CPU shares averaged. */
function pooled(ws) {
  const avg = (k) => round(ws.reduce((a, w) => a + w[k], 0) / ws.length, 2);
  const sum = (k) => ws.reduce((a, w) => a + w[k], 0);
  return { intervals: ws.flatMap((w) => w.intervals), elapsed: sum("elapsed"), scrolled: sum("scrolled"), blank: sum("blank"), fetches: sum("fetches"), cores: avg("cores"), serverCores: avg("serverCores"), chromiumCores: avg("chromiumCores") };
}

/** Frame-interval statistics: median, p95, share of late frames, effective fps. Frames come on a
 * 16.7 ms clock with timer jitter (a fifth of the idle baseline's intervals are 16.7-17 ms), so a
 * frame counts as dropped over 25 ms (1.5 budgets), long over 50 ms. */
function frameStats(f) {
  const s = [...f.intervals].sort((a, b) => a - b);
  const over = (ms) => round((100 * s.filter((x) => x > ms).length) / s.length, 1);
  return {
    frames: s.length,
    median: round(median(s), 1),
    p95: round(s[Math.floor(s.length * 0.95)], 1),
    max: round(s[s.length - 1], 1),
    over16: over(16.7),
    over25: over(25),
    over50: over(50),
    fps: round((1000 * s.length) / f.elapsed, 1),
    scrolledPx: f.scrolled,
    blankChecks: f.blank,
    archivalFetches: f.fetches,
    cores: f.cores,
    serverCores: f.serverCores,
    chromiumCores: f.chromiumCores,
  };
}
/** "Stays at 60 fps": ≥ 95% of a 60 Hz display's frames (57 fps), p95 ≤ 20 ms, ≤ 0.5% over 50 ms. */
const GOAL60 = "≥ 57 fps (95% of 60 Hz), p95 ≤ 20 ms, ≤ 0.5% of frames over 50 ms";
const holds60 = (x) => x.fps >= 57 && x.p95 <= 20 && x.over50 <= 0.5;
const cpuFmt = (x) => `${x.cores} of 2 cores busy: oryx serve ${x.serverCores}, chromium ${x.chromiumCores}, the rest other processes`;
const fmt = (x) => `${x.fps} fps, median ${x.median} ms, p95 ${x.p95} ms, max ${x.max} ms, dropped (> 25 ms) ${x.over25}%, long (> 50 ms) ${x.over50}%`;

let server;
let browser;
try {
  server = spawn(oryx.path, ["serve", "--bind", "127.0.0.1:0"], {
    env: { ...process.env, ORYXOS_CONFIG_DIR: fx.config, ORYXOS_ROOT: "", ORYX_EMBED_MODEL_DIR: join(repo, "target/model/usem3") },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let log = "";
  server.stderr.on("data", (d) => (log += d));
  const base = `http://${await waitFor("oryx serve to listen", () => log.match(/http:\/\/([\d.:]+)\//)?.[1], 20000)}`;
  const op = async (name, args = {}) => {
    const res = await fetch(`${base}/api/v1/console/${name}`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(args) });
    if (!res.ok) throw new Error(`${name}: ${res.status} ${await res.text()}`);
    return (await res.json()).data; // the envelope {code, message, data}
  };
  // The build alone (index_build: what the page polls while a build runs; index_status would
  // recount every owner's entries on each call).
  const job = async () => ({ at: Date.now(), ...(await op("index_build")) });

  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"],
  });
  // chromium's processes: node's descendants but node itself and oryx serve.
  const chromiumCpu = () => cpuOf(process.pid, true) - cpuOf(process.pid) - cpuOf(server.pid);
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: "en-US" });
  const page = await ctx.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  let statusPolls = 0;
  let buildPolls = 0;
  let archivalFetches = 0;
  page.on("request", (r) => {
    if (r.url().endsWith("/console/index_status")) statusPolls++;
    if (r.url().endsWith("/console/index_build")) buildPolls++;
    if (r.url().endsWith("/console/archival_page")) archivalFetches++;
  });

  const memoryTab = async () => {
    await page.goto(`${base}/#/agents/${agent}`); // the agent's Memory tab
    await page
      .locator('[data-testid="archival-row"]')
      .first()
      .waitFor({ timeout: 30000 })
      .catch(async (e) => {
        await page.screenshot({ path: join(repo, "target/bench/ui-indexing-failed.png") });
        throw e;
      });
    await page.waitForTimeout(300);
  };
  /** Scrolls the archival table by 40 px per frame for `secs` s; every frame's interval. */
  const scrollFor = async (secs) => {
    const before = archivalFetches;
    const m0 = machineCpu();
    const s0 = cpuOf(server.pid);
    const c0 = chromiumCpu();
    const f = await page.evaluate(async (ms) => {
      const sc = document.querySelector("[data-virtual-scroll]");
      const intervals = [];
      let blank = 0;
      let dir = 1;
      const start = performance.now();
      const top0 = sc.scrollTop;
      let scrolled = 0;
      await new Promise((done) => {
        let last = start;
        const frame = (now) => {
          intervals.push(now - last);
          last = now;
          if (sc.scrollTop + sc.clientHeight >= sc.scrollHeight - 1) dir = -1;
          if (sc.scrollTop <= 0) dir = 1;
          sc.scrollTop += 40 * dir;
          scrolled += 40;
          // Every 30th frame: are rows painted where the viewport is (no blank table)?
          if (intervals.length % 30 === 0) {
            const b = sc.getBoundingClientRect();
            const hit = document.elementFromPoint(b.left + 40, b.top + b.height / 2);
            if (!hit?.closest('[data-testid="archival-row"]')) blank++;
          }
          if (now - start < ms) requestAnimationFrame(frame);
          else done();
        };
        requestAnimationFrame(frame);
      });
      intervals.shift(); // start → first frame is not a frame interval
      return { intervals, elapsed: performance.now() - start, scrolled, blank, top0 };
    }, secs * 1000);
    const m1 = machineCpu();
    // Cores in use over the window (of 2): the whole machine, and oryx serve alone.
    const cores = round(((m1.busy - m0.busy) / (m1.total - m0.total)) * 2, 2);
    const serverCores = round((cpuOf(server.pid) - s0) / (f.elapsed / 1000), 2);
    const chromiumCores = round((chromiumCpu() - c0) / (f.elapsed / 1000), 2);
    return { ...f, fetches: archivalFetches - before, cores, serverCores, chromiumCores };
  };
  /** Frame intervals of a page left alone (the Recall page polling the build's progress). */
  const idleFrames = (secs) =>
    page.evaluate(async (ms) => {
      const intervals = [];
      const start = performance.now();
      await new Promise((done) => {
        let last = start;
        const frame = (now) => {
          intervals.push(now - last);
          last = now;
          if (now - start < ms) requestAnimationFrame(frame);
          else done();
        };
        requestAnimationFrame(frame);
      });
      intervals.shift();
      return { intervals, elapsed: performance.now() - start, scrolled: 0, blank: 0 };
    }, secs * 1000);
  const recallPage = async () => {
    await page.goto(`${base}/#/recall`);
    await page.locator(`[data-testid="index-owner-${agent}"]`).waitFor({ timeout: 30000 });
  };
  // The entries done as the progress block shows them ("Indexing bench_big: 1,216 of 100,003 entries").
  const shownDone = async () => Number((await page.locator('[data-testid="index-job"]').innerText()).match(/([\d,]+) of [\d,]+ entries/)?.[1].replace(/,/g, "") ?? NaN);

  // One index_status from node, no build running: what each progress poll costs the server.
  let t = performance.now();
  await op("index_status");
  const statusIdleMs = round(performance.now() - t);

  // ---- baseline: the same scroll before any build ----
  await memoryTab();
  await scrollFor(1); // warm-up
  const before = [];
  for (let i = 0; i < WINDOWS; i++) before.push(await scrollFor(SECS));
  const baseline = frameStats(pooled(before));
  console.error(`baseline: ${fmt(baseline)}; ${cpuFmt(baseline)}`);

  // ---- run 1: Build in the UI, progress on the Recall page, then scroll during the build ----
  await recallPage();
  const cpu0 = cpuOf(server.pid);
  const tBuild = Date.now();
  await page.locator(`[data-testid="index-build-${agent}"]`).click();
  await page.locator('[data-testid="index-progress"]').waitFor({ timeout: 30000 });
  await page.locator('[data-testid="index-job"]').getByText(/of [\d,]+ entries/).waitFor({ timeout: 60000 });
  const polls0 = buildPolls;
  const statusPolls0 = statusPolls;
  const shown0 = await shownDone();
  const onRecall = frameStats(await idleFrames(3));
  const shown1 = await shownDone();
  const pollsPerS = round((buildPolls - polls0) / 3, 1);
  const statusPerS = round((statusPolls - statusPolls0) / 3, 1);
  // How long one answer takes while the build runs: the progress poll, and the full status (it
  // counts every owner's entries) that the page asks for every 5 s beside it.
  const durations = (op) => page.evaluate((op) => performance.getEntriesByType("resource").filter((e) => e.name.endsWith(`/console/${op}`)).map((e) => e.duration), op);
  const buildMs = round(median(await durations("index_build")), 1);
  const statusMs = round(median(await durations("index_status")));
  const progressText = await page.locator('[data-testid="index-job"]').innerText();
  await page.screenshot({ path: join(repo, "target/bench/ui-indexing.png") });
  console.error(`recall page during build: ${fmt(onRecall)}; progress ${shown0} → ${shown1} in 3 s, ${pollsPerS} index_build/s (${buildMs} ms each), ${statusPerS} index_status/s (${statusMs} ms each, ${statusIdleMs} ms before the build); "${progressText.replace(/\s+/g, " ")}"`);

  // Scroll windows during the build, alternating with experiments: the same window with every
  // thread of oryx serve at a lower priority (what a low-priority build thread would give).
  await memoryTab();
  const conditions = ["normal", "nice 10", "SCHED_IDLE"].map((how) => ({ how, ws: [], embedded: 0, ms: 0, running: true }));
  const j0 = await job();
  for (let i = 0; i < WINDOWS; i++)
    for (const c of conditions) {
      prioritise(server.pid, c.how);
      const a = await job();
      c.ws.push(await scrollFor(SECS));
      const b = await job();
      Object.assign(c, { embedded: c.embedded + b.done - a.done, ms: c.ms + b.at - a.at, running: c.running && a.running && b.running });
    }
  prioritise(server.pid, "normal");
  const j1 = await job();
  for (const c of conditions) {
    Object.assign(c, { stats: frameStats(pooled(c.ws)), rate: round((c.embedded * 1000) / c.ms) });
    console.error(`during build, oryx serve ${c.how}: ${fmt(c.stats)}; ${c.rate} entries/s, running throughout: ${c.running}; ${cpuFmt(c.stats)}`);
  }
  const [plain] = conditions;
  const during = plain.stats;
  const duringRate = plain.rate;
  const wholeWindow = plain.running;

  // Back to the Recall page: the progress is still there; Cancel it partway.
  await recallPage();
  await page.locator('[data-testid="index-progress"]').waitFor({ timeout: 10000 });
  const stillShown = await page.locator('[data-testid="index-progress"]').isVisible();
  // The cached status shows first; wait (≤ 15 s) for a poll to move the count past where it was.
  const shownBack = await waitFor("the progress to move on", async () => ((await shownDone()) > shown1 ? shownDone() : null), 15000, 200).catch(() => shownDone());
  const cpuBuild = cpuOf(server.pid) - cpu0;
  const buildS = (Date.now() - tBuild) / 1000;
  const tCancel = Date.now();
  await page.locator('[data-testid="index-cancel"]').click();
  await page.locator('[data-testid="index-job"][data-outcome="cancelled"]').waitFor({ timeout: 30000 });
  const cancelMs = Date.now() - tCancel;
  const jc = await job();
  const kept = (await op("index_status")).owners.find((o) => o.agent === agent);
  const cancelText = await page.locator('[data-testid="index-job"]').innerText();
  // Idle after: no more polling, the server spends no CPU, the page draws at full rate.
  await sleep(500);
  const pollsAfter = statusPolls + buildPolls;
  const cpuA = cpuOf(server.pid);
  const idleAfter = frameStats(await idleFrames(2));
  const serverCpuAfter = round(((cpuOf(server.pid) - cpuA) / 2) * 100);
  const pollsIdle = statusPolls + buildPolls - pollsAfter;
  const buildEnabled = await page.locator(`[data-testid="index-build-${agent}"]`).isEnabled();
  console.error(`cancel: ${cancelMs} ms to the cancelled banner, job ${JSON.stringify(jc)}; after: ${pollsIdle} polls in 2 s, server CPU ${serverCpuAfter}%, ${fmt(idleAfter)}; Build enabled again: ${buildEnabled}`);

  // ---- figures ----
  const r = (a, b) => ratio(a, b);
  const holds = wholeWindow && holds60(during) && during.blankChecks === 0;
  const rows = [
    {
      id: `ui_indexing_scroll_${quick ? "20k" : "100k"}`,
      what: `archival virtual table, ${label} entries, scrolled 40 px per frame for ${WINDOWS} × ${SECS} s while the same ${label} entries are indexed (Build in the Recall page, then the Memory tab; the embedder and chromium share 2 cores)`,
      goal: `the UI stays at 60 fps in the virtual tables while ${label} entries are indexed: ${GOAL60}, no blank table (ratio: fps during / fps before)`,
      measured: `during the build: ${fmt(during)}, ${during.blankChecks} blank checks, ${cpuFmt(during)}; before it (baseline, same run, same scroll): ${fmt(baseline)}, ${cpuFmt(baseline)}; the build went on at ${duringRate} entries/s meanwhile (oryx ${oryx.profile} build); load average before the run ${load}`,
      ratio: r(during.fps, baseline.fps),
      pass: holds,
      reproduce,
    },
    {
      id: `ui_indexing_p95_${quick ? "20k" : "100k"}`,
      what: `the same: 95th-percentile frame interval during the build vs the baseline`,
      goal: "informational (ratio = p95 during / p95 before)",
      measured: `${during.p95} ms vs ${baseline.p95} ms; intervals > 16.7 ms (incl. timer jitter): ${during.over16}% vs ${baseline.over16}%`,
      ratio: r(during.p95, baseline.p95),
      pass: null,
      reproduce,
    },
    ...conditions.slice(1).map((c) => ({
      id: `ui_indexing_scroll_${c.how.replace(/\W+/g, "_").toLowerCase()}_${quick ? "20k" : "100k"}`,
      what: `experiment: the same scroll windows, alternating with those above, with every thread of oryx serve at ${c.how} (set from the bench; what a low-priority build thread would give)`,
      goal: "informational (ratio: fps / fps before the build)",
      measured: `${fmt(c.stats)}, ${c.stats.blankChecks} blank checks, ${cpuFmt(c.stats)}; the build went on at ${c.rate} entries/s`,
      ratio: r(c.stats.fps, baseline.fps),
      pass: null,
      reproduce,
    })),
    {
      id: `ui_indexing_progress_${quick ? "20k" : "100k"}`,
      what: `Recall page during the build: progress bar, index_build polled every 500 ms (index_status every 5 s), frames of the page left alone for 3 s`,
      goal: `progress visible and moving, the page at 60 fps (${GOAL60})`,
      measured: `progress shown ${shown0} → ${shown1} entries in 3 s (${pollsPerS} index_build/s, ${buildMs} ms each; ${statusPerS} index_status/s, ${statusMs} ms each while building, ${statusIdleMs} ms before), ${fmt(onRecall)}; back on the page ${round(buildS)} s after Build: still shown (${stillShown}) at ${shownBack}; oryx serve used ${round(cpuBuild / buildS, 2)} cores on average since Build`,
      ratio: null,
      pass: shown1 > shown0 && stillShown && shownBack > shown1 && holds60(onRecall),
      reproduce,
    },
    {
      id: `ui_indexing_cancel_${quick ? "20k" : "100k"}`,
      what: `Cancel pressed in the Recall page's progress block partway through the build`,
      goal: "the build stops, index_status says cancelled, the UI is idle again",
      measured: `${cancelMs} ms from the click to the "cancelled" banner; index_build: running ${jc.running}, cancelled ${jc.cancelled}, stopped at ${jc.done} of ${jc.todo} (${kept?.indexed} vectors kept; the job's embedded_total says ${jc.embedded_total}, which the banner shows); after: ${pollsIdle} index_build/index_status calls in 2 s, server CPU ${serverCpuAfter}%, page ${idleAfter.fps} fps (p95 ${idleAfter.p95} ms), Build enabled again: ${buildEnabled}`,
      ratio: null,
      pass: !jc.running && jc.cancelled && pollsIdle === 0 && serverCpuAfter < 10 && buildEnabled,
      reproduce,
    },
  ];
  const [, nice10, idle] = conditions;
  const brief = (c) => `${c.stats.fps} fps, ${c.stats.over50}% long, max ${c.stats.max} ms, ${c.rate} entries/s`;
  const notes = [
    `How: \`oryx serve\` (${oryx.profile} build) on a root with a ${label}-entry agent; chromium 1280×800. The Build button of that agent's row on the Recall page starts \`build_index\`; the Memory tab's archival table is then scrolled by \`scrollTop += 40\` in every requestAnimationFrame callback, whose performance.now() deltas are the frame intervals (${WINDOWS} windows of ${SECS} s per condition, pooled; the baseline is the same scroll before the build). Frames come on a 16.7 ms clock with timer jitter, so "dropped" counts intervals over 25 ms and "long" over 50 ms. Every 30th frame checks that a row is painted mid-viewport ("blank checks"). CPU shares are from /proc over each window.`,
    `What the frames compete with: 2 cores, shared with another user's work (load average ${load} before the run). During the build the embedder (\`oryx serve\`) takes ${during.serverCores} cores and chromium ${during.chromiumCores} (before it: chromium ${baseline.chromiumCores}). The page does no extra work during the build (archival fetches per window ${round(during.archivalFetches / WINDOWS, 1)} vs ${round(baseline.archivalFetches / WINDOWS, 1)} before; the Memory tab does not poll the index), and chromium's CPU share barely changes: the late frames come from sharing the 2 cores (of a VM) with the embedder.`,
    `Lower priority, set from the bench on every thread of \`oryx serve\` (windows alternating with the normal ones): normal ${brief(plain)}; nice 10 ${brief(nice10)}; SCHED_IDLE ${brief(idle)}. Between runs on this shared machine these vary by several fps either way, so a lower priority is no clear fix; the server is unchanged (crates/oryx-api/src/recall.rs spawns the build thread at normal priority).`,
    `The progress block polls \`index_build\` (the job alone) every 500 ms while a build runs: ${buildMs} ms per call, ${pollsPerS} answers/s; the owners' counts come from \`index_status\` every 5 s and when the build ends, which recounts every owner's entries and vectors: ${statusMs} ms per call during this build (${statusIdleMs} ms before it).`,
    `Cancel: the build stops after its current batch; \`index_build\` then says cancelled after ${jc.embedded_total} new vectors (the banner's figure), and the agent has ${kept?.indexed} vectors kept.`,
  ];
  writeReport("ui-indexing", rows, {
    notes,
    detail: { oryx: oryx.profile, load, buildMs, statusMs, statusIdleMs, pollsPerS, statusPerS, windows: WINDOWS, conditions: conditions.map((c) => ({ how: c.how, rate: c.rate, stats: c.stats, perWindow: c.ws.map(frameStats) })), beforePerWindow: before.map(frameStats), secs: SECS, baseline, during, onRecall, idleAfter, j0, j1, jc, kept, progressText, cancelText, pageErrors: errors },
  });
  if (errors.length) console.log(`page errors: ${errors.join("; ")}`);
} finally {
  await browser?.close();
  server?.kill("SIGTERM");
}
