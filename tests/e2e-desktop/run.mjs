// Desktop end-to-end suite: the real app (target/debug/oryx-desktop) in a real WebKitGTK window
// under Xvfb, driven through tauri-driver + WebKitWebDriver, on fixture roots on disk.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeFixtures, repo, report, waitFor } from "../e2e/fixtures.mjs";
import { WebDriver } from "./webdriver.mjs";
import { runFlows } from "../e2e/flows.mjs";
import { remoteFlows } from "./remote.mjs";

const app = join(repo, "target/debug/oryx-desktop");
if (!existsSync(app)) throw new Error(`build the app first: ${app} is missing (make desktop)`);
const shots = process.env.SCREENSHOTS ? join(repo, process.env.SCREENSHOTS) : join(repo, "target/e2e-desktop");
mkdirSync(shots, { recursive: true });

const fx = makeFixtures();
const dialogFile = join(fx.base, "dialog-answer.oryx.zip");
const display = `:${90 + Math.floor(Math.random() * 9)}`;
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

async function stopAll() {
  // SIGTERM, never SIGKILL: a killed tauri-driver leaves WebKitWebDriver holding our pipes.
  for (const p of children.reverse()) {
    if (p.exitCode === null) p.kill("SIGTERM");
  }
  await new Promise((r) => setTimeout(r, 500));
}

const results = [];
const driver = new WebDriver("http://127.0.0.1:4444");
try {
  start("Xvfb", [display, "-screen", "0", "1280x800x24", "-nolisten", "tcp"]);
  await new Promise((r) => setTimeout(r, 800));
  // The system's file dialogs cannot be driven: the app answers every save and open dialog
  // with this path (the export is saved there, the import opens it).
  // Tokens of remote consoles: the kernel's keyring, never a developer's own Secret Service.
  const env = { DISPLAY: display, ORYXOS_CONFIG_DIR: fx.config, LANG: "en_US.UTF-8", NO_AT_BRIDGE: "1", ORYX_TEST_FILE_DIALOG: dialogFile, ORYX_TOKEN_STORE: "kernel" };
  const td = start("tauri-driver", ["--port", "4444"], env);
  await waitFor("tauri-driver", async () => (await fetch("http://127.0.0.1:4444/status")).ok, 15000).catch((e) => {
    throw new Error(`${e.message}\n${td.log()}`);
  });
  const started = Date.now();
  await driver.start(app);
  const ui = uiOver(driver);
  await ui.waitVisible('[data-testid^="agent-row-"]', 30000).catch(async (e) => {
    await ui.shot("FAILED-start").catch(() => {});
    const html = await driver.exec("return document.body.innerHTML.slice(0, 2000)").catch((x) => String(x));
    throw new Error(`${e.message}\npage: ${html}`);
  });
  console.log(`app interactive after ${Date.now() - started} ms`);
  results.push(...(await runFlows(ui, fx)));
  // The desktop alone can show a console served on another machine.
  results.push(...(await runFlows(ui, fx, remoteFlows)));
} catch (e) {
  results.push({ name: "start the desktop app", ok: false, error: e.stack || e.message });
} finally {
  await driver.quit();
  await stopAll();
}
report(results);

/** The UI actions the shared flows need, over WebDriver. */
function uiOver(d) {
  const ui = {
    async waitVisible(css, timeout = 15000) {
      return waitFor(css, async () => {
        const els = await d.findAll(css);
        return els.length ? els[0] : null;
      }, timeout);
    },
    async click(css) {
      const el = await ui.waitVisible(css);
      // WebKitWebDriver refuses clicks on some elements (table rows); a DOM click is what a
      // user's click does there.
      await d.click(el).catch(() =>
        d.exec("const e = document.querySelector(arguments[0]); e.scrollIntoView({block: 'center'}); e.click();", [css]),
      );
    },
    // WebDriver's clear does not go through React's onChange: a re-render between the clear and
    // the first keystroke (a refetch finishing, on a busy machine) puts the old value back and the
    // keys are appended to it. Check what the field holds and type again if so.
    async fill(css, text) {
      let value;
      for (let attempt = 0; attempt < 4; attempt++) {
        const el = await ui.waitVisible(css);
        await d.clear(el).catch(() => {});
        await d.type(el, text);
        value = await d.exec("return document.querySelector(arguments[0]).value", [css]);
        if (value === text) return;
      }
      throw new Error(`${css} holds ${JSON.stringify(value)} after typing ${JSON.stringify(text)}`);
    },
    async text(css) {
      await ui.waitVisible(css);
      return d.exec("const e = document.querySelector(arguments[0]); return e.innerText || e.textContent || ''", [css]);
    },
    async count(css) {
      return (await d.findAll(css)).length;
    },
    async attrs(css, name) {
      return d.exec("return Array.from(document.querySelectorAll(arguments[0])).map((e) => e.getAttribute(arguments[1]))", [css, name]);
    },
    async select(css, value) {
      await ui.waitVisible(css);
      await d.exec(
        "const el = document.querySelector(arguments[0]); const set = Object.getOwnPropertyDescriptor(HTMLSelectElement.prototype, 'value').set; set.call(el, arguments[1]); el.dispatchEvent(new Event('change', {bubbles: true}));",
        [css, value],
      );
    },
    async eval(script) {
      return d.exec(`return (${script})`);
    },
    async goto(hash) {
      await d.exec("window.location.hash = arguments[0]", [hash]);
    },
    async saveArchive(css) {
      await ui.click(css);
      return dialogFile;
    },
    async openArchive(css, path) {
      if (path !== dialogFile) throw new Error(`the desktop's open dialog answers ${dialogFile}, not ${path}`);
      await ui.click(css);
    },
    async shot(name) {
      const png = await d.screenshot();
      writeFileSync(join(shots, `${name}.png`), Buffer.from(png, "base64"));
    },
  };
  return ui;
}
