import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";

import { fakeRemote, renderRemote, takeRemoteMisses, type FakeServer } from "./fakeRemote";

const URL = "https://studio.local:8443";
const ROOT = "/srv/oryx/team-with-a-rather-long-path/.oryxos";
const STUDIO: FakeServer = { host: "studio.local:8443", https: true, fingerprint: "AA:BB", trusted: false, token: "s3cret", root: ROOT, backend: "mem0" };

afterEach(() => {
  expect(takeRemoteMisses()).toEqual([]);
});

describe("The remote console banner (#11 item 8)", () => {
  it("says on every page whose root is shown, and Disconnect goes back to this computer and asks every view again", async () => {
    const { remote, recorded } = renderRemote("#/agents", (emit) => fakeRemote({ [URL]: STUDIO }, { emit, shown: URL }));
    const banner = await screen.findByTestId("remote-banner");
    expect(banner).toHaveAttribute("role", "status");
    expect(banner).toHaveTextContent(`Remote console — studio.local:8443 · ${ROOT} · mem0`);
    // The root gives way on a narrow window: the whole of it stays in its title.
    expect(screen.getByTestId("remote-banner-root")).toHaveAttribute("title", ROOT);
    // Above the header, outside the scrolling page: always in view.
    expect(banner.nextElementSibling).toHaveClass("header");
    expect(banner.closest("#content")).toBeNull();

    for (const page of ["sessions", "files", "settings"]) {
      window.location.hash = `#/${page}`;
      await waitFor(() => expect(screen.getByTestId(`nav-${page}`)).toHaveAttribute("aria-current", "page"));
      expect(screen.getByTestId("remote-banner")).toHaveTextContent("studio.local:8443");
    }
    expect(await screen.findByTestId("remote-shown-remote")).toHaveTextContent(ROOT);

    const settingsAsked = recorded.calls.filter((c) => c.op === "get_settings").length;
    fireEvent.click(within(banner).getByTestId("remote-banner-disconnect"));
    await waitFor(() => expect(screen.queryByTestId("remote-banner")).toBeNull());
    expect(remote.calls.filter((c) => c.op === "disconnect_server")).toHaveLength(1);
    expect(await screen.findByTestId("remote-shown-local")).toHaveTextContent("This computer");
    // The console announced a settings change: the views ask this computer's console again.
    await waitFor(() => expect(recorded.calls.filter((c) => c.op === "get_settings").length).toBeGreaterThan(settingsAsked));
  });

  it("hides Settings' folder picker while another machine's console is shown (a folder here means nothing there)", async () => {
    const { recorded } = renderRemote("#/settings", (emit) => fakeRemote({ [URL]: STUDIO }, { emit, shown: URL }));
    Object.assign(recorded, { supportsFolderPicker: true });
    await screen.findByTestId("remote-banner");
    await screen.findByTestId("remote-shown-remote");
    expect(screen.queryByTestId("settings-browse")).toBeNull();
    fireEvent.click(screen.getByTestId("remote-banner-disconnect"));
    await screen.findByTestId("remote-shown-local");
    expect(await screen.findByTestId("settings-browse")).toBeInTheDocument();
  });

  it("is not shown while this computer's console is", async () => {
    const { remote } = renderRemote("#/agents", (emit) => fakeRemote({ [URL]: STUDIO }, { emit }));
    await screen.findByTestId("agent-row-assistant");
    await waitFor(() => expect(remote.calls.some((c) => c.op === "connection")).toBe(true));
    expect(screen.queryByTestId("remote-banner")).toBeNull();
  });

  it("speaks Chinese", async () => {
    renderRemote("#/agents", (emit) => fakeRemote({ [URL]: STUDIO }, { emit, shown: URL }), "demo_zh");
    const banner = await screen.findByTestId("remote-banner");
    expect(banner).toHaveTextContent(`远程控制台 — studio.local:8443 · ${ROOT} · mem0`);
    expect(within(banner).getByTestId("remote-banner-disconnect")).toHaveTextContent("断开");
  });
});
