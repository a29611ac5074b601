import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";

import { renderApp } from "../../test/render";
import { fakeRemote, renderRemote, takeRemoteMisses, type FakeRemote, type FakeServer } from "./fakeRemote";
import { fingerprintGroups, shortFingerprint } from "./fingerprint";

const FP = "3F:A9:0C:71:5E:22:D4:8B:19:C6:E0:4A:7D:93:B2:5F:08:E1:6C:AA:41:7B:D9:30:F2:0E:85:C3:9A:64:1D:B7";
const STUDIO: FakeServer = { host: "studio.local:8443", https: true, fingerprint: FP, trusted: false, token: "s3cret", root: "/home/linxiao/.oryxos", backend: "sqlite" };
const STUDIO_URL = "https://studio.local:8443";

afterEach(() => {
  expect(takeRemoteMisses()).toEqual([]);
});

const connectCalls = (r: FakeRemote) => r.calls.filter((c) => c.op === "connect_server").map((c) => c.args);

describe("Settings → Connect to a server (#11 item 8)", () => {
  it("checks the address, asks to compare the fingerprint, then connects with the token and remembers the server", async () => {
    const { remote } = renderRemote("#/settings", (emit) => fakeRemote({ [STUDIO_URL]: STUDIO }, { emit }));
    const section = await screen.findByTestId("remote-section");
    expect(within(section).getByRole("heading", { name: "Connect to a server" })).toBeInTheDocument();
    expect(await screen.findByTestId("remote-shown-local")).toHaveTextContent("This computer");
    expect(screen.queryByTestId("remote-banner")).toBeNull();
    expect(screen.getByTestId("remote-store-hint")).toHaveTextContent("the token in the system keyring");

    // Nothing to connect to before the address is checked; Enter in the address checks it.
    expect(screen.getByTestId("remote-connect")).toBeDisabled();
    const address = screen.getByTestId("remote-address");
    fireEvent.change(address, { target: { value: "studio.local:8443" } });
    fireEvent.keyDown(address, { key: "Enter" });
    const probe = await screen.findByTestId("remote-probe");
    expect(remote.calls.filter((c) => c.op === "probe_server").map((c) => c.args)).toEqual(["studio.local:8443"]);
    expect(screen.getByTestId("remote-probe-scheme")).toHaveTextContent("https");
    expect(screen.getByTestId("remote-probe-token")).toHaveTextContent("asks for a token");
    expect(probe).toHaveTextContent("No authority vouches for its certificate");
    // The fingerprint in groups of four bytes, the whole of it.
    const groups = Array.from(screen.getByTestId("remote-fingerprint").children).map((e) => e.textContent);
    expect(groups).toEqual(fingerprintGroups(FP));
    expect(groups).toHaveLength(8);
    expect(groups.join(":")).toBe(FP);

    // Connect waits for the comparison.
    const token = screen.getByTestId("remote-token");
    expect(token).toHaveAttribute("type", "password");
    fireEvent.change(token, { target: { value: "s3cret" } });
    expect(screen.getByTestId("remote-connect")).toBeDisabled();
    fireEvent.keyDown(token, { key: "Enter" });
    expect(connectCalls(remote)).toEqual([]);
    fireEvent.click(screen.getByTestId("remote-token-show"));
    expect(token).toHaveAttribute("type", "text");
    fireEvent.click(screen.getByTestId("remote-confirm"));
    expect(screen.getByTestId("remote-connect")).toBeEnabled();
    fireEvent.keyDown(token, { key: "Enter" });

    // Shown now: that machine's root, in Settings and in the banner.
    expect(await screen.findByTestId("remote-shown-remote")).toHaveTextContent("studio.local:8443—/home/linxiao/.oryxos");
    expect(connectCalls(remote)).toEqual([{ url: STUDIO_URL, token: "s3cret", fingerprint: FP, remember: true }]);
    expect(remote.tokens.get(STUDIO_URL)).toBe("s3cret");
    const banner = await screen.findByTestId("remote-banner");
    expect(banner).toHaveTextContent("Remote console — studio.local:8443 · /home/linxiao/.oryxos · sqlite");
    const row = within(screen.getByTestId("remote-servers")).getByTestId("remote-server");
    expect(row).toHaveTextContent("studio.local:8443");
    expect(within(row).getByTestId("remote-server-token")).toHaveTextContent("token saved");
    expect(within(row).getByTestId("remote-server-fingerprint")).toHaveTextContent(shortFingerprint(FP));
    expect(within(row).getByTestId("remote-server-fingerprint")).toHaveAttribute("title", FP);
    // The form is emptied: the token is not left on screen.
    expect(screen.getByTestId("remote-token")).toHaveValue("");
  });

  it("shows a refused token in the user's words with the server's message as the detail, and stays on this computer", async () => {
    const { remote } = renderRemote("#/settings", (emit) => fakeRemote({ [STUDIO_URL]: STUDIO }, { emit }));
    fireEvent.change(await screen.findByTestId("remote-address"), { target: { value: STUDIO_URL } });
    fireEvent.click(screen.getByTestId("remote-check"));
    await screen.findByTestId("remote-fingerprint");
    fireEvent.change(screen.getByTestId("remote-token"), { target: { value: "wrong" } });
    fireEvent.click(screen.getByTestId("remote-confirm"));
    fireEvent.click(screen.getByTestId("remote-connect"));

    const error = await screen.findByTestId("remote-connect-error");
    expect(error).toHaveAttribute("data-code", "unauthorized");
    expect(screen.getByTestId("remote-connect-error-text")).toHaveTextContent("The server refused the token.");
    expect(screen.getByTestId("remote-connect-error-detail")).toHaveTextContent("studio.local:8443 refused the token: unauthorized");
    expect(connectCalls(remote)).toHaveLength(1);
    expect(screen.getByTestId("remote-shown-local")).toBeInTheDocument();
    expect(screen.queryByTestId("remote-banner")).toBeNull();
    expect(screen.queryByTestId("remote-servers")).toBeNull();
    expect(remote.tokens.size).toBe(0);
    // Typing another token clears the error.
    fireEvent.change(screen.getByTestId("remote-token"), { target: { value: "s3cret" } });
    expect(screen.queryByTestId("remote-connect-error")).toBeNull();
  });

  it("refuses plain http to another machine at Check, in the user's words", async () => {
    const { remote } = renderRemote("#/settings", (emit) => fakeRemote({}, { emit }));
    fireEvent.change(await screen.findByTestId("remote-address"), { target: { value: "http://studio.local:8080" } });
    fireEvent.click(screen.getByTestId("remote-check"));
    expect(await screen.findByTestId("remote-probe-error-text")).toHaveTextContent("This address cannot be used.");
    expect(screen.getByTestId("remote-probe-error-detail")).toHaveTextContent("would send the token in clear text");
    expect(screen.getByTestId("remote-address")).toHaveAttribute("aria-invalid", "true");
    expect(screen.getByTestId("remote-connect")).toBeDisabled();
    expect(connectCalls(remote)).toEqual([]);
  });

  it("asks for no comparison when an authority vouches for the certificate, and says when a token is missing", async () => {
    const url = "https://console.example.org";
    const { remote } = renderRemote("#/settings", (emit) => fakeRemote({ [url]: { ...STUDIO, host: "console.example.org", trusted: true } }, { emit }));
    fireEvent.change(await screen.findByTestId("remote-address"), { target: { value: url } });
    fireEvent.click(screen.getByTestId("remote-check"));
    expect(await screen.findByTestId("remote-probe")).toHaveTextContent("An authority this computer trusts vouches for its certificate.");
    expect(screen.queryByTestId("remote-fingerprint")).toBeNull();
    expect(screen.queryByTestId("remote-confirm")).toBeNull();
    fireEvent.click(screen.getByTestId("remote-connect"));
    expect(await screen.findByTestId("remote-token-missing")).toHaveTextContent("This server asks for a token.");
    expect(document.activeElement).toBe(screen.getByTestId("remote-token"));
    expect(connectCalls(remote)).toEqual([]);
    fireEvent.change(screen.getByTestId("remote-token"), { target: { value: "s3cret" } });
    fireEvent.click(screen.getByTestId("remote-remember"));
    fireEvent.click(screen.getByTestId("remote-connect"));
    await screen.findByTestId("remote-banner");
    expect(connectCalls(remote)).toEqual([{ url, token: "s3cret", fingerprint: null, remember: false }]);
    expect(screen.queryByTestId("remote-servers")).toBeNull();
  });

  it("connects to a remembered server with a saved token in one click; Forget asks first", async () => {
    const { remote } = renderRemote("#/settings", (emit) =>
      fakeRemote(
        { [STUDIO_URL]: STUDIO },
        { emit, remembered: [{ url: STUDIO_URL, host: STUDIO.host, fingerprint: FP, has_token: true, last_connected: "2026-12-01T10:00:00Z" }], tokens: { [STUDIO_URL]: "s3cret" } },
      ),
    );
    const row = await screen.findByTestId("remote-server");
    expect(row).toHaveTextContent("last connected");
    fireEvent.click(within(row).getByTestId("remote-server-connect"));
    expect(await screen.findByTestId("remote-banner")).toHaveTextContent("studio.local:8443");
    expect(connectCalls(remote)).toEqual([{ url: STUDIO_URL, token: null, fingerprint: null, remember: true }]);
    expect(within(screen.getByTestId("remote-server")).getByTestId("remote-server-connect")).toBeDisabled();

    // Forget: a confirmation first; Cancel keeps it.
    fireEvent.click(within(screen.getByTestId("remote-server")).getByTestId("remote-server-forget"));
    expect(screen.getByTestId("remote-server")).toHaveTextContent("Forget studio.local:8443 and its saved token?");
    expect(remote.calls.some((c) => c.op === "forget_server")).toBe(false);
    fireEvent.click(screen.getByTestId("remote-server-forget-no"));
    expect(screen.getByTestId("remote-server")).toBeInTheDocument();
    fireEvent.click(within(screen.getByTestId("remote-server")).getByTestId("remote-server-forget"));
    expect(document.activeElement).toBe(screen.getByTestId("remote-server-forget-yes"));
    fireEvent.click(screen.getByTestId("remote-server-forget-yes"));
    await waitFor(() => expect(screen.queryByTestId("remote-servers")).toBeNull());
    expect(remote.calls.filter((c) => c.op === "forget_server").map((c) => c.args)).toEqual([STUDIO_URL]);
    expect(remote.tokens.size).toBe(0);
  });

  it("a remembered server whose certificate changed is not connected; one without a token is checked in the form", async () => {
    const renewed = { ...STUDIO, fingerprint: FP.replace("3F:A9", "00:11") };
    const { remote } = renderRemote("#/settings", (emit) =>
      fakeRemote({ [STUDIO_URL]: renewed }, { emit, remembered: [{ url: STUDIO_URL, host: STUDIO.host, fingerprint: FP, has_token: true, last_connected: null }], tokens: { [STUDIO_URL]: "s3cret" } }),
    );
    fireEvent.click(await screen.findByTestId("remote-server-connect"));
    expect(await screen.findByTestId("remote-server-error-text")).toHaveTextContent("The server's certificate is not the one you compared: not connected.");
    expect(screen.queryByTestId("remote-banner")).toBeNull();
    expect(connectCalls(remote)).toHaveLength(1);
    // Checking it again in the form says the fingerprint is not the remembered one.
    fireEvent.change(screen.getByTestId("remote-address"), { target: { value: STUDIO_URL } });
    fireEvent.click(screen.getByTestId("remote-check"));
    expect(await screen.findByTestId("remote-fingerprint-changed")).toHaveTextContent("This is not the fingerprint remembered for studio.local:8443");
  });

  it("fills the form in for a remembered server without a saved token", async () => {
    renderRemote("#/settings", (emit) =>
      fakeRemote({ [STUDIO_URL]: STUDIO }, { emit, remembered: [{ url: STUDIO_URL, host: STUDIO.host, fingerprint: FP, has_token: false, last_connected: null }] }),
    );
    const connect = await screen.findByTestId("remote-server-connect");
    expect(connect).toHaveTextContent("Connect…");
    fireEvent.click(connect);
    expect(screen.getByTestId("remote-address")).toHaveValue(STUDIO_URL);
    expect(await screen.findByTestId("remote-fingerprint")).toBeInTheDocument();
    expect(document.activeElement).toBe(screen.getByTestId("remote-token"));
  });

  it("says where a remembered token is kept, and turns remembering off without a keyring", async () => {
    renderRemote("#/settings", (emit) => fakeRemote({}, { emit, tokenStore: "kernel" }));
    expect(await screen.findByTestId("remote-store-hint")).toHaveTextContent("in the kernel keyring until this computer restarts (no keyring service is running)");
    expect(screen.getByTestId("remote-remember")).toBeChecked();
    expect(screen.getByTestId("remote-remember")).toBeEnabled();
  });

  it("cannot remember without a keyring and says why", async () => {
    renderRemote("#/settings", (emit) => fakeRemote({}, { emit, tokenStore: "none" }));
    expect(await screen.findByTestId("remote-store-hint")).toHaveTextContent("this computer has no keyring to keep a token in");
    expect(screen.getByTestId("remote-remember")).not.toBeChecked();
    expect(screen.getByTestId("remote-remember")).toBeDisabled();
  });

  it("is not there in the browser (no backend.remote)", async () => {
    const { backend } = renderApp("#/settings");
    expect(backend.remote).toBeUndefined();
    await screen.findByTestId("settings-root");
    expect(screen.queryByTestId("remote-section")).toBeNull();
    expect(screen.queryByText("Connect to a server")).toBeNull();
    expect(screen.queryByTestId("remote-banner")).toBeNull();
  });
});
