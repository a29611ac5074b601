// Desktop benchmark: cold start to interactive under Xvfb, resident memory, .deb size.
//
//   node tests/bench/desktop.mjs [--quick] [--bundle]   → target/bench/desktop.json
//
// Start: POST /session to tauri-driver (which launches WebKitWebDriver, which launches the app)
// → the first agent row is in the DOM (polled every 20 ms over WebDriver). Baseline in the same
// run: WebKitGTK's own MiniBrowser through the same driver chain, until a one-element page is
// loaded. Memory: PSS and RSS of the app process plus every process it spawned (WebKitWebProcess,
// WebKitNetworkProcess, …), after the agents list and after the Memory tab of the big agent.
// --bundle runs `make bundle` first when no .deb exists (slow: a release build).
import { execFileSync, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { WebDriver } from "../e2e-desktop/webdriver.mjs";
import { binary, makeBenchRoot, median, quick, ratio, repo, round, sleep, waitFor, writeReport } from "./lib.mjs";

const REPS = quick ? 3 : 7;
const BIG = quick ? 20_000 : 100_000;
const bigLabel = BIG.toLocaleString("en-US").replace(/,/g, " ");
const reproduce = `node tests/bench/desktop.mjs${quick ? " --quick" : ""}`;
const MINIBROWSER = "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser";

const app = binary("oryx-desktop");
const oryx = binary("oryx", { build: "oryx-cli" });
const fx = makeBenchRoot(oryx.path, BIG, 100);
// Cold start and the agents-list memory on the plain demo root (5 agents, ~140 entries each);
// the big agent's root only for the Memory-tab figure (its agents list parses a 15 MB file).
const demoRoot = join(fx.base, "demo");
execFileSync(oryx.path, ["demo", "--bare", demoRoot], { stdio: "pipe" });
const useRoot = (root) => writeFileSync(join(fx.config, "settings.json"), JSON.stringify({ root, language: "en" }, null, 2));
console.error(`app: ${app.path} (${app.profile}); fixture ${fx.root} (${fx.big.name}: ${BIG} entries)`);

const freePort = () =>
  new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

const children = [];
function start(cmd, args, env) {
  const p = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let log = "";
  p.stdout.on("data", (d) => (log += d));
  p.stderr.on("data", (d) => (log += d));
  p.log = () => log;
  children.push(p);
  return p;
}

// ---- /proc: the process tree and its memory ----
function procs() {
  const out = new Map();
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, "utf8");
      const close = stat.lastIndexOf(")");
      const comm = stat.slice(stat.indexOf("(") + 1, close);
      const ppid = Number(stat.slice(close + 2).split(" ")[1]);
      out.set(Number(d), { pid: Number(d), ppid, comm });
    } catch {
      /* gone */
    }
  }
  return out;
}

function descendants(root, all = procs()) {
  const res = [];
  const stack = [root];
  while (stack.length) {
    const p = stack.pop();
    for (const q of all.values()) if (q.ppid === p) (res.push(q), stack.push(q.pid));
  }
  return res;
}

const kb = (text, key) => Number(new RegExp(`^${key}:\\s+(\\d+)`, "m").exec(text)?.[1] ?? 0);

/** The app's process (a descendant of tauri-driver running `exe`) and everything below it. */
function appTree(driverPid, exeName) {
  const all = procs();
  const top = descendants(driverPid, all).find((p) => {
    try {
      return readFileSync(`/proc/${p.pid}/cmdline`, "utf8").split("\0")[0].endsWith(exeName);
    } catch {
      return false;
    }
  });
  return top ? [top, ...descendants(top.pid, all)] : [];
}

function memoryOf(tree) {
  let rss = 0;
  let pss = 0;
  const parts = [];
  for (const p of tree) {
    try {
      const r = kb(readFileSync(`/proc/${p.pid}/status`, "utf8"), "VmRSS");
      const s = kb(readFileSync(`/proc/${p.pid}/smaps_rollup`, "utf8"), "Pss");
      rss += r;
      pss += s;
      parts.push({ comm: p.comm, rssMB: round(r / 1024, 1), pssMB: round(s / 1024, 1) });
    } catch {
      /* exited */
    }
  }
  return { rssMB: round(rss / 1024, 1), pssMB: round(pss / 1024, 1), parts };
}

async function settle(tree) {
  // Memory right after load still moves (GC, lazy pages): wait until PSS is stable within 2 %.
  let last = memoryOf(tree());
  for (let i = 0; i < 10; i++) {
    await sleep(500);
    const now = memoryOf(tree());
    if (Math.abs(now.pssMB - last.pssMB) <= last.pssMB * 0.02) return now;
    last = now;
  }
  return last;
}

// ---- the run ----
const rows = [];
const detail = { app: app.profile, reps: REPS };
const display = `:${100 + Math.floor(Math.random() * 50)}`;
const driver = new WebDriver("");
try {
  start("Xvfb", [display, "-screen", "0", "1280x800x24", "-nolisten", "tcp"]);
  await sleep(800);
  const [port, nativePort] = [await freePort(), await freePort()];
  driver.base = `http://127.0.0.1:${port}`;
  const env = { DISPLAY: display, ORYXOS_CONFIG_DIR: fx.config, ORYXOS_ROOT: "", LANG: "en_US.UTF-8", NO_AT_BRIDGE: "1" };
  const td = start("tauri-driver", ["--port", String(port), "--native-port", String(nativePort)], env);
  await waitFor("tauri-driver", async () => (await fetch(`${driver.base}/status`)).ok, 15000).catch((e) => {
    throw new Error(`${e.message}\n${td.log()}`);
  });

  const session = async (application, args = []) => {
    const v = await driver.req("POST", "/session", { capabilities: { alwaysMatch: { "tauri:options": { application, args } } } });
    driver.session = v.sessionId;
  };
  const waitEl = (css, timeout = 30000) => waitFor(css, async () => (await driver.findAll(css)).length > 0, timeout, 20);
  const quitAndWait = async (exe) => {
    await driver.quit();
    await waitFor(`${exe} to exit`, () => appTree(td.pid, exe).length === 0, 15000, 100).catch(() => {});
  };

  /** One cold start of the app: session request → first agent row in the DOM. */
  async function startApp({ measure } = {}) {
    useRoot(demoRoot);
    const t = performance.now();
    await session(app.path);
    const tSession = performance.now() - t;
    await waitEl('[data-testid^="agent-row-"]');
    const tReady = performance.now() - t;
    const m = { session: tSession, interactive: tReady };
    if (measure) {
      const tree = () => appTree(td.pid, "oryx-desktop");
      m.memAgents = await settle(tree);
      await quitAndWait("oryx-desktop");
      useRoot(fx.root);
      await session(app.path);
      await waitEl('[data-testid^="agent-row-"]');
      // The Memory tab of the big agent, timed in page (the same rule as ui.mjs), then memory.
      await driver.exec(
        `window.__bench = null;
         const afterPaint = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
         const t0 = performance.now();
         const mo = new MutationObserver(() => {
           if (document.querySelector('[data-testid="archival-row"]')) {
             mo.disconnect();
             afterPaint().then(() => { window.__bench = performance.now() - t0; });
           }
         });
         mo.observe(document.body, { childList: true, subtree: true });
         window.location.hash = arguments[0];`,
        [`#/agents/${fx.big.name}`],
      );
      m.memoryTab = await waitFor("the archival rows", () => driver.exec("return window.__bench"), 60000, 50);
      m.memoryRows = await driver.exec(`return document.querySelectorAll('[data-testid="archival-table"] [role="row"]').length`);
      m.memBig = await settle(tree);
    }
    await quitAndWait("oryx-desktop");
    return m;
  }

  /** The baseline: MiniBrowser (WebKitGTK) through the same driver, a one-element page. */
  async function startBaseline({ measure } = {}) {
    const t = performance.now();
    await session(MINIBROWSER, ["--automation"]);
    const tSession = performance.now() - t;
    await driver.req("POST", driver.s("/url"), { url: `data:text/html,<div data-testid="agent-row-x">hello</div>` });
    await waitEl('[data-testid^="agent-row-"]');
    const m = { session: tSession, interactive: performance.now() - t };
    if (measure) m.mem = await settle(() => appTree(td.pid, "MiniBrowser"));
    await quitAndWait("MiniBrowser");
    return m;
  }

  // Warm-up of the page cache for both binaries (the first start of a 100+ MB debug binary
  // reads it from disk), then interleaved repetitions.
  detail.firstApp = await startApp();
  detail.firstBaseline = await startBaseline();
  const apps = [];
  const bases = [];
  for (let i = 0; i < REPS; i++) {
    bases.push(await startBaseline({ measure: i === 0 }));
    apps.push(await startApp({ measure: i === 0 }));
  }
  detail.apps = apps;
  detail.bases = bases;

  const A = median(apps.map((x) => x.interactive));
  const As = median(apps.map((x) => x.session));
  const Bb = median(bases.map((x) => x.interactive));
  rows.push({
    id: "desktop_cold_start",
    what: `cold start under Xvfb (${app.profile} build, demo root): session request → agents list in the DOM`,
    goal: "≤ 1 s",
    measured: `${round(A)} ms (webview + driver session ${round(As)} ms, then UI ${round(A - As)} ms) (baseline MiniBrowser + one-element page: ${round(Bb)} ms); first start ${round(detail.firstApp.interactive)} ms`,
    ratio: ratio(A, Bb),
    pass: A <= 1000,
    reproduce,
  });
  const m0 = apps[0];
  const bm = bases[0].mem;
  rows.push({
    id: "desktop_memory",
    what: `resident memory (${app.profile} build): app + WebKit processes, PSS (RSS), agents list of the demo root loaded`,
    goal: "≤ 150 MB",
    measured: `${m0.memAgents.pssMB} MB PSS (${m0.memAgents.rssMB} MB RSS) over ${m0.memAgents.parts.length} processes (baseline MiniBrowser: ${bm.pssMB} MB PSS, ${bm.rssMB} MB RSS)`,
    ratio: ratio(m0.memAgents.pssMB, bm.pssMB),
    pass: m0.memAgents.pssMB <= 150,
    reproduce,
  });
  rows.push({
    id: "desktop_memory_big",
    what: `resident memory (${app.profile} build) after opening the Memory tab of a ${bigLabel}-entry agent`,
    goal: "≤ 150 MB",
    measured: `${m0.memBig.pssMB} MB PSS (${m0.memBig.rssMB} MB RSS; app process ${m0.memBig.parts[0]?.pssMB} MB PSS); the tab took ${round(m0.memoryTab)} ms to first rows, ${m0.memoryRows} rows in the DOM (baseline MiniBrowser: ${bm.pssMB} MB PSS)`,
    ratio: ratio(m0.memBig.pssMB, bm.pssMB),
    pass: m0.memBig.pssMB <= 150,
    reproduce,
  });
} catch (e) {
  console.error(e.stack || e.message);
  process.exitCode = 1;
} finally {
  await driver.quit().catch(() => {});
  // SIGTERM, never SIGKILL: a killed tauri-driver leaves WebKitWebDriver holding our pipes.
  for (const p of children.reverse()) if (p.exitCode === null) p.kill("SIGTERM");
  await sleep(300);
}

// ---- .deb ----
const debDir = join(repo, "target/release/bundle/deb");
const debs = () => (existsSync(debDir) ? readdirSync(debDir).filter((f) => f.endsWith(".deb")) : []);
if (!debs().length && process.argv.includes("--bundle")) {
  console.error("make bundle (release build, several minutes)");
  execFileSync("make", ["bundle"], { cwd: repo, stdio: "inherit" });
}
const deb = debs()
  .map((f) => ({ f, ...statSync(join(debDir, f)) }))
  .sort((a, b) => b.mtimeMs - a.mtimeMs)[0];
const rel = join(repo, "target/release/oryx-desktop");
rows.push({
  id: "desktop_deb_size",
  what: "the .deb package (make bundle)",
  goal: "≤ 15 MB",
  measured: deb
    ? `${(deb.size / 1e6).toFixed(1)} MB (${deb.f}, built ${new Date(deb.mtimeMs).toISOString().slice(0, 16)}Z)${existsSync(rel) ? `; release binary ${(statSync(rel).size / 1e6).toFixed(1)} MB` : ""}`
    : "not built (run with --bundle, or make bundle)",
  ratio: null,
  pass: deb ? deb.size <= 15e6 : null,
  reproduce: "make bundle && node tests/bench/desktop.mjs",
});
writeReport("desktop", rows, { detail });
