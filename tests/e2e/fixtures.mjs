// Fixture roots for the end-to-end suites, built by the real `oryx` binary.
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export const repo = resolve(new URL("../..", import.meta.url).pathname);
export const oryxBin = join(repo, "target/debug/oryx");

export function makeFixtures() {
  const base = mkdtempSync(join(tmpdir(), "oryx-e2e-"));
  // The sample runtime install (its .oryxos, oryxos.db beside it, config/application.yml): the
  // console is pointed at its .oryxos and finds the rest, as a user would point it.
  const install1 = join(base, "install1");
  execFileSync(oryxBin, ["demo", install1], { stdio: "pipe" });
  const root1 = join(install1, ".oryxos");
  // A second root in the Java runtime's dialect with different agents.
  const root2 = join(base, "root2");
  cpSync(join(repo, "tests/fixtures/java-root"), root2, { recursive: true, verbatimSymlinks: true });
  const config = join(base, "config");
  mkdirSync(config, { recursive: true });
  writeFileSync(join(config, "settings.json"), JSON.stringify({ root: root1, language: "en" }, null, 2));
  return { base, install1, root1, root2, config };
}

export function memoryFile(root, agent) {
  return readFileSync(join(root, "agents", agent, "MEMORY.md"), "utf8");
}

/** Polls `fn` until it returns a truthy value or the time is up. */
export async function waitFor(what, fn, timeoutMs = 15000, everyMs = 150) {
  const deadline = Date.now() + timeoutMs;
  let last;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}${last ? `: ${last.message}` : ""}`);
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** The plain "N passed, N failed" line that CI reads, then the exit code. */
export function report(results) {
  const failed = results.filter((r) => !r.ok);
  for (const r of results) console.log(`${r.ok ? "ok  " : "FAIL"} ${r.name}${r.ok ? "" : `: ${r.error}`}`);
  console.log(`${results.length - failed.length} passed, ${failed.length} failed`);
  process.exitCode = failed.length ? 1 : 0;
}
