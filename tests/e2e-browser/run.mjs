// Browser end-to-end suite: Debian's chromium (driven by playwright-core) against `oryx serve`
// on a fixture root, running the same flows as the desktop suite, plus screenshots.
import { spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { makeFixtures, oryxBin, repo, report, waitFor } from "../e2e/fixtures.mjs";
import { runFlows } from "../e2e/flows.mjs";

const shots = process.env.SCREENSHOTS ? join(repo, process.env.SCREENSHOTS) : join(repo, "target/e2e-browser");
mkdirSync(shots, { recursive: true });
const fx = makeFixtures();
const results = [];
let server;
let browser;

async function startServer() {
  server = spawn(oryxBin, ["serve", "--bind", "127.0.0.1:0"], {
    env: { ...process.env, ORYXOS_CONFIG_DIR: fx.config, ORYXOS_ROOT: "" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let log = "";
  server.stderr.on("data", (d) => (log += d));
  if (process.env.E2E_SERVER_LOG) server.stderr.on("data", (d) => process.stderr.write(d));
  const addr = await waitFor("oryx serve to listen", () => log.match(/http:\/\/([\d.:]+)\//)?.[1], 15000);
  return `http://${addr}`;
}

try {
  const base = await startServer();
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"],
  });
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, locale: "en-US", acceptDownloads: true });
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(`${base}/#/agents`);
  const ui = uiOver(page, fx);
  results.push(...(await runFlows(ui, fx)));
  results.push({ name: "no uncaught page errors", ok: errors.length === 0, error: errors.join("; ") });
} catch (e) {
  results.push({ name: "start oryx serve and chromium", ok: false, error: e.stack || e.message });
} finally {
  await browser?.close();
  server?.kill("SIGTERM");
}
report(results);

function uiOver(page, fx) {
  const ui = {
    async waitVisible(css, timeout = 15000) {
      await page.locator(css).first().waitFor({ state: "visible", timeout });
      return true;
    },
    async click(css) {
      await page.locator(css).first().click();
    },
    async fill(css, text) {
      await page.locator(css).first().fill(text);
    },
    async text(css) {
      await ui.waitVisible(css);
      return page.locator(css).first().innerText();
    },
    async count(css) {
      return page.locator(css).count();
    },
    async attrs(css, name) {
      return page.locator(css).evaluateAll((els, n) => els.map((e) => e.getAttribute(n)), name);
    },
    async select(css, value) {
      await page.locator(css).first().selectOption(value);
    },
    async eval(script) {
      return page.evaluate(script);
    },
    async goto(hash) {
      await page.evaluate((h) => (window.location.hash = h), hash);
    },
    async shot(name) {
      await page.screenshot({ path: join(shots, `${name}.png`) });
    },
    // The export's download (fetched with the token, saved through an <a download>).
    async saveArchive(css) {
      const [download] = await Promise.all([page.waitForEvent("download"), page.locator(css).first().click()]);
      const path = join(fx.base, download.suggestedFilename());
      await download.saveAs(path);
      return path;
    },
    // The file picker the page opens (a hidden <input type=file>), answered with `path`.
    async openArchive(css, path) {
      const [chooser] = await Promise.all([page.waitForEvent("filechooser"), page.locator(css).first().click()]);
      await chooser.setFiles(path);
    },
  };
  return ui;
}
