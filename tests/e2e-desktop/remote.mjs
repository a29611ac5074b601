// The desktop's remote console (#11 item 8), in the real window: a real `oryx serve` over https
// with a self-signed certificate made for the run and a token, on another root; the person
// checks the address, compares the fingerprint the server printed, connects, sees the banner
// and that root's agents, writes nothing by mistake, and comes back to this computer.
import { execFileSync, spawn } from "node:child_process";
import { cpSync } from "node:fs";
import { join } from "node:path";
import { oryxBin, repo, waitFor } from "../e2e/fixtures.mjs";

/** Starts the remote server; resolves with its address, fingerprint and a stop function. */
async function startRemote(fx) {
  const root = join(fx.base, "remote-root");
  cpSync(join(repo, "tests/fixtures/java-root"), root, { recursive: true, verbatimSymlinks: true });
  // An agent only that machine has: earlier flows may have switched this computer to a copy of
  // the same Java root (and imported the assistant into it).
  cpSync(join(root, "agents/legacy"), join(root, "agents/far_away"), { recursive: true, verbatimSymlinks: true });
  const cert = join(fx.base, "remote.pem");
  const key = join(fx.base, "remote.key");
  execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out", cert], { stdio: "pipe" });
  const p = spawn(oryxBin, ["--root", root, "--config", join(fx.base, "remote-settings.json"), "serve", "--bind", "127.0.0.1:0", "--token", "e2e-remote-token", "--tls-cert", cert, "--tls-key", key], { stdio: ["ignore", "ignore", "pipe"] });
  let log = "";
  p.stderr.on("data", (d) => (log += d));
  const found = await waitFor("the remote server's address and fingerprint", async () => {
    const url = /(https:\/\/127\.0\.0\.1:\d+)/.exec(log)?.[1];
    const fp = /fingerprint: ([0-9A-F:]{95})/.exec(log)?.[1];
    return url && fp ? { url, fp } : null;
  }, 20000);
  return { ...found, root, stop: () => p.kill("SIGTERM") };
}

const hex = (s) => s.replace(/[^0-9A-Fa-f]/g, "").toUpperCase();

export const remoteFlows = [
  [
    "connects to a console on another machine over https (fingerprint compared, token), sees its root and agents under a banner, and comes back",
    async (ui, fx) => {
      const remote = await startRemote(fx);
      try {
        await ui.goto("#/settings");
        await ui.waitVisible('[data-testid="remote-section"]');
        await ui.waitVisible('[data-testid="remote-shown-local"]');
        await ui.fill('[data-testid="remote-address"]', remote.url);
        await ui.click('[data-testid="remote-check"]');
        await ui.waitVisible('[data-testid="remote-fingerprint"]', 20000);
        const shown = await ui.text('[data-testid="remote-fingerprint"]');
        if (hex(shown) !== hex(remote.fp)) throw new Error(`the console shows fingerprint ${shown}, the server printed ${remote.fp}`);
        await ui.shot("remote-check");
        await ui.click('[data-testid="remote-confirm"]');
        await ui.fill('[data-testid="remote-token"]', "e2e-remote-token");
        await ui.click('[data-testid="remote-connect"]');
        await ui.waitVisible('[data-testid="remote-banner"]', 20000);
        const root = await ui.text('[data-testid="remote-banner-root"]');
        const title = (await ui.attrs('[data-testid="remote-banner-root"]', "title"))[0] || "";
        if (!`${root} ${title}`.includes("remote-root")) throw new Error(`the banner names ${root} (${title}), not the remote root`);
        const host = await ui.text('[data-testid="remote-banner-host"]');
        if (!remote.url.endsWith(host.trim())) throw new Error(`the banner names ${host}, not ${remote.url}`);
        await ui.goto("#/agents");
        await ui.waitVisible('[data-testid="agent-row-far_away"]', 20000);
        if (await ui.count('[data-testid="agent-row-assistant"]')) throw new Error("this computer's agents are still listed while the remote console is shown");
        await ui.shot("remote-banner");
        await ui.click('[data-testid="remote-banner-disconnect"]');
        await waitFor("the banner to go", async () => (await ui.count('[data-testid="remote-banner"]')) === 0);
        await ui.waitVisible('[data-testid="agent-row-assistant"]', 20000);
        if (await ui.count('[data-testid="agent-row-far_away"]')) throw new Error("the other machine's agents are still listed after Disconnect");
      } finally {
        remote.stop();
      }
    },
  ],
];
