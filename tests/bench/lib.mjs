// Shared helpers of the UI and desktop benchmarks (tests/bench/ui.mjs, tests/bench/desktop.mjs):
// fixture roots with a very large MEMORY.md, binaries, statistics, the target/bench/*.json rows.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, release, tmpdir, type } from "node:os";
import { join, resolve } from "node:path";

export const repo = resolve(new URL("../..", import.meta.url).pathname);
export const quick = process.argv.includes("--quick");
export const scale = quick ? "quick" : "full";

/** target/release/<name> when it exists (fairer for a user-facing figure), else target/debug. */
export function binary(name, { build } = {}) {
  for (const profile of ["release", "debug"]) {
    const p = join(repo, "target", profile, name);
    if (existsSync(p)) return { path: p, profile };
  }
  if (build) {
    console.error(`building ${build} (debug): ${name} is missing`);
    execFileSync("cargo", ["build", "-p", build], { cwd: repo, stdio: "inherit" });
    return { path: join(repo, "target/debug", name), profile: "debug" };
  }
  throw new Error(`${name} is missing in target/release and target/debug`);
}

// Realistic archival content: footprints (CONTRACT §5) and saved facts, Chinese with English terms.
const ASKS = [
  "帮我总结今天的日志",
  "明天上午有什么安排",
  "Remind me to renew the TLS certificate",
  "查一下 Rust 1.95 的发布说明",
  "把周报草稿发给我",
  "订一间周四下午的会议室",
  "What did the on-call rotation look like last week?",
  "比较一下 PostgreSQL 和 SQLite 的 WAL 模式",
  "翻译这段 release note 成中文",
  "整理 OKR 第三季度的进展",
  "Why is the p99 latency of /api/v1/agents so high?",
  "给产品经理回一封邮件，说需求评审推迟",
];
const REPLIES = [
  "已总结 3 个错误：连接池耗尽、超时重试、磁盘告警",
  "10:00 架构评审，11:30 与产品对需求",
  "Reminder set for Friday 10:00 (UTC+8)",
  "已整理 5 条要点并保存到笔记",
  "已生成周报草稿，共 4 段，约 600 字",
  "已预订 3 楼「长江」会议室 14:00–15:00",
  "Alice Mon–Wed, 王磊 Thu–Sun; two pages, both resolved in < 15 min",
  "WAL 下读写不互斥；SQLite 单写者，PostgreSQL 多写者，checkpoint 策略不同",
  "译文已完成，保留了 API 名称和版本号",
  "三个目标中两个按计划推进，“迁移到 sqlite 后端”延期两周",
  "The slow path is the AGENT.md front matter parse; caching it cuts p99 from 180 ms to 12 ms",
  "邮件已起草：评审改到下周二 10:00，附上新的议程",
];
const FACTS = [
  "用户偏好简洁的回复，不用列表。",
  "User prefers Rust examples over Python.",
  "生产环境日志在 /var/log/oryx/，按天滚动。",
  "项目代号「青鸟」，上线日期 2026-09-01。",
  "Error budget: 0.1% of requests per 30 days.",
  "用户的猫叫 Mochi，周末常带去公园。",
];

/** `count` archival lines of CONTRACT §3, one second apart, oldest first (deterministic). */
export function archivalLines(count, startMs = Date.UTC(2025, 0, 1, 1, 0, 0)) {
  const lines = new Array(count);
  const pad = (n) => String(n).padStart(2, "0");
  for (let i = 0; i < count; i++) {
    const d = new Date(startMs + i * 37_000);
    const ts = `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
    const content =
      i % 7 === 3
        ? `${FACTS[i % FACTS.length]} (#${i})`
        : `触发「${ASKS[(i * 5) % ASKS.length]}」⇒ ${REPLIES[(i * 7 + 3) % REPLIES.length]}；记录 #${i}`;
    lines[i] = `- [${ts}] ${content}`;
  }
  return lines;
}

function writeAgent(root, name, description, archivalCount) {
  const dir = join(root, "agents", name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "AGENT.md"),
    `---\nname: ${name}\ndescription: ${description}\ntools: [save_memory, recall_memory]\nbootstrap: [AGENTS.md]\n---\n# ${name}\n\nBenchmark agent.\n`,
  );
  const core = ["用户偏好简洁的回复，不用列表。", "用户的时区是 UTC+8（上海）。", "User prefers Rust examples over Python."];
  const text = [
    "## 核心记忆",
    ...core.map((c, i) => `- [2025-01-01 00:00:0${i}] ${c}`),
    "## 归档记忆",
    ...archivalLines(archivalCount),
    "",
  ].join("\n");
  writeFileSync(join(dir, "MEMORY.md"), text);
  return { name, entries: archivalCount, bytes: Buffer.byteLength(text) };
}

/**
 * A demo root (`oryx demo`: agents, bootstrap files, database) plus two benchmark agents:
 * `bench_big` with `bigCount` archival entries and `bench_base` with `baseCount`.
 * Returns the root, a config dir whose settings.json points at it, and the agents.
 */
export function makeBenchRoot(oryx, bigCount, baseCount = 100) {
  const base = mkdtempSync(join(tmpdir(), "oryx-bench-"));
  const root = join(base, "root");
  execFileSync(oryx, ["demo", "--bare", root], { stdio: "pipe" });
  const big = writeAgent(root, "bench_big", `Benchmark: ${bigCount} archival entries`, bigCount);
  const small = writeAgent(root, "bench_base", `Benchmark baseline: ${baseCount} archival entries`, baseCount);
  const config = join(base, "config");
  mkdirSync(config, { recursive: true });
  writeFileSync(join(config, "settings.json"), JSON.stringify({ root, language: "en" }, null, 2));
  return { base, root, config, big, small };
}

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

export const round = (x, d = 0) => (x === null || x === undefined || Number.isNaN(x) ? null : Math.round(x * 10 ** d) / 10 ** d);
export const ratio = (a, b) => (b > 0 ? round(a / b, 2) : null);

export function machine() {
  const c = cpus();
  let mem = "";
  try {
    const kb = Number(/MemTotal:\s+(\d+)/.exec(readFileSync("/proc/meminfo", "utf8"))[1]);
    mem = `, ${Math.round(kb / 1024 / 1024)} GB RAM`;
  } catch {
    /* not Linux */
  }
  return `${type()} ${release()}, ${c.length} × ${c[0]?.model.trim() ?? "?"}${mem}`;
}

/** Writes target/bench/<name>.json and prints the rows as a table. */
export function writeReport(name, rows, extra = {}) {
  const dir = join(repo, "target/bench");
  mkdirSync(dir, { recursive: true });
  const out = { rows, machine: machine(), when: new Date().toISOString(), scale, ...extra };
  // The quick scale keeps its own file, so `make bench-quick` never replaces full-scale figures.
  const file = quick ? `${name}-quick.json` : `${name}.json`;
  writeFileSync(join(dir, file), JSON.stringify(out, null, 2) + "\n");
  const cols = ["id", "measured", "goal", "ratio", "pass"];
  const cell = (r, c) => (c === "pass" ? (r.pass === null ? "-" : r.pass ? "PASS" : "MISS") : String(r[c] ?? "-"));
  const w = cols.map((c) => Math.max(c.length, ...rows.map((r) => [...cell(r, c)].length)));
  const line = (vals) => vals.map((v, i) => v + " ".repeat(Math.max(0, w[i] - [...v].length))).join("  ");
  console.log(`\n${name} benchmark (${scale}) on ${out.machine}`);
  console.log(line(cols));
  console.log(line(w.map((n) => "-".repeat(n))));
  for (const r of rows) console.log(line(cols.map((c) => cell(r, c))));
  console.log(`→ ${join("target/bench", file)}`);
}

/** Polls `fn` until it returns a truthy value or the time is up. */
export async function waitFor(what, fn, timeoutMs = 15000, everyMs = 100) {
  const deadline = Date.now() + timeoutMs;
  let last;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${last.message}` : ""}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
