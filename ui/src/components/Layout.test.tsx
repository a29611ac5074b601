import { fireEvent, screen, waitFor } from "@testing-library/react";
import { describe, expect, it } from "vitest";

import { recordedResult } from "../test/recorded";
import { renderApp } from "../test/render";

describe("The memory backend cannot be reached", () => {
  it("shows a persistent banner with the URL and the console's reason, and Switch back… opens the backend choice", async () => {
    // mem0 at a closed port, after a call that failed to reach it (the recording listed agents first).
    renderApp("#/agents", "mem0_down");
    const problem = recordedResult("mem0_down", "get_settings", {}).effective.backend_problem!;
    expect(problem).toContain("Connection refused");
    const banner = await screen.findByTestId("backend-problem");
    expect(banner).toHaveAttribute("role", "alert");
    expect(screen.getByTestId("backend-problem-title")).toHaveTextContent(/^mem0 at http:\/\/127\.0\.0\.1:9 is unreachable$/);
    expect(screen.getByTestId("backend-problem-reason")).toHaveTextContent(problem);
    // Persistent: still there on another page.
    window.location.hash = "#/recall";
    await screen.findByTestId("recall-owner");
    expect(screen.getByTestId("backend-problem")).toBeInTheDocument();

    fireEvent.click(screen.getByTestId("backend-problem-switch"));
    const mem0 = await screen.findByTestId("settings-backend-mem0");
    expect(mem0).toBeChecked();
    await waitFor(() => expect(document.activeElement).toBe(mem0));
    // The focus request leaves the URL once done, so the button works again from Settings.
    await waitFor(() => expect(window.location.hash).toBe("#/settings"));
    expect(screen.getByTestId("backend-problem")).toBeInTheDocument();
  });

  it("asks for the settings again as soon as a call could not reach the backend", async () => {
    const { backend } = renderApp("#/agents/assistant", "mem0_down");
    expect(await screen.findByTestId("error-code")).toHaveTextContent("backend_unavailable");
    await waitFor(() => expect(backend.calls.filter((c) => c.op === "get_settings").length).toBeGreaterThanOrEqual(2));
    expect(screen.getByTestId("backend-problem")).toBeInTheDocument();
  });

  it("shows the banner in Chinese", async () => {
    renderApp("#/agents", "mem0_down_zh");
    expect(await screen.findByTestId("backend-problem-title")).toHaveTextContent("无法连接 http://127.0.0.1:9 的 mem0");
    expect(screen.getByTestId("backend-problem-switch")).toHaveTextContent("切换回去…");
  });

  it("shows no banner while the backend answers", async () => {
    renderApp("#/agents");
    await screen.findByTestId("agent-row-assistant");
    expect(screen.queryByTestId("backend-problem")).toBeNull();
  });
});

describe("Keyboard and screen reader (#18 item 21)", () => {
  it("'/' goes to the page's first field where there is no search, and the sidebar only promises it where it acts", async () => {
    renderApp("#/settings");
    const root = await screen.findByTestId("settings-root");
    expect(screen.getByTestId("slash-hint")).toHaveTextContent("Press / for the first field");
    fireEvent.keyDown(window, { key: "/" });
    expect(document.activeElement).toBe(root);

    window.location.hash = "#/agents";
    const filter = await screen.findByTestId("agents-filter");
    expect(screen.getByTestId("slash-hint")).toHaveTextContent("Press / to search");
    root.blur();
    fireEvent.keyDown(window, { key: "/" });
    expect(document.activeElement).toBe(filter);

    window.location.hash = "#/files";
    await screen.findByTestId("file-list");
    expect(screen.queryByTestId("slash-hint")).toBeNull();
  });

  it("names the header badges, not only their bare words", async () => {
    renderApp("#/agents");
    await screen.findByTestId("agent-row-assistant");
    expect(screen.getByTestId("backend-badge")).toHaveTextContent("Memory backend: markdown");
    expect(screen.getByTestId("transport-badge")).toHaveTextContent("Connected through: http");
  });
});
