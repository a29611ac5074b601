import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";

import { recordedResult } from "../../test/recorded";
import { renderApp } from "../../test/render";

describe("Agents table", () => {
  it("renders one row per agent with counts, model and the global memory row", async () => {
    renderApp("#/agents");
    const row = await screen.findByTestId("agent-row-assistant");
    expect(within(row).getByText("gpt-4o-mini", { exact: false })).toBeInTheDocument();
    expect(within(row).getByText("140")).toBeInTheDocument(); // archival entries
    expect(within(row).getByText("web-search")).toBeInTheDocument();
    for (const name of ["log_analyst", "researcher", "scheduler", "writer", "legacy-bot", "broken_yaml"]) {
      expect(screen.getByTestId(`agent-row-${name}`)).toBeInTheDocument();
    }
    expect(screen.getByTestId("global-memory-row")).toHaveTextContent("Global memory");
    expect(screen.getByTestId("root-label")).toHaveTextContent("/home/linxiao/.oryxos");
    expect(screen.getByTestId("backend-badge")).toHaveTextContent("markdown");
  });

  it("shows warnings for missing AGENT.md, bad front matter and a name mismatch", async () => {
    renderApp("#/agents");
    await screen.findByTestId("agent-row-assistant");
    // Read as the badge's name (the popover is only in the page while it shows).
    expect(screen.getByTestId("agent-warnings-legacy-bot")).toHaveAccessibleName(/AGENT.md is missing\./);
    expect(screen.getByTestId("agent-warnings-broken_yaml")).toHaveAccessibleName(/The front matter of AGENT.md is not valid YAML\./);
    expect(screen.getByTestId("agent-warnings-writer")).toHaveAccessibleName(/AGENT.md gives the name “author”, but the folder is “writer”\./);
    expect(screen.queryByTestId("agent-warnings-assistant")).toBeNull();
  });

  it("opens an agent on Enter and moves between rows with the arrow keys", async () => {
    renderApp("#/agents");
    const first = await screen.findByTestId("global-memory-row");
    first.focus();
    fireEvent.keyDown(first, { key: "ArrowDown" });
    expect(document.activeElement).toBe(screen.getByTestId("agent-row-assistant"));
    fireEvent.keyDown(document.activeElement!, { key: "Enter" });
    expect(window.location.hash).toBe("#/agents/assistant");
    expect(await screen.findByTestId("agent-title")).toHaveTextContent("assistant");
    // The row is gone: the focus goes to the new page's heading, not to <body> (#18 item 21).
    await waitFor(() => expect(document.activeElement).toBe(screen.getByTestId("agent-title")));
  });

  it("says when the filter matches nothing, with the count of what is shown (#18 item 18)", async () => {
    renderApp("#/agents");
    await screen.findByTestId("agent-row-assistant");
    expect(screen.getByTestId("agents-count")).toHaveTextContent("7 agents under /home/linxiao/.oryxos");
    fireEvent.change(screen.getByTestId("agents-filter"), { target: { value: "analyst" } });
    expect(screen.getByTestId("agents-count")).toHaveTextContent("1 of 7 agents under /home/linxiao/.oryxos");
    fireEvent.change(screen.getByTestId("agents-filter"), { target: { value: "no such agent" } });
    expect(screen.getByTestId("agents-count")).toHaveTextContent("0 of 7 agents");
    expect(screen.getByTestId("agents-no-match")).toHaveTextContent("No agent matches “no such agent”.");
    fireEvent.click(screen.getByTestId("agents-clear-filter"));
    expect(screen.getByTestId("agents-filter")).toHaveValue("");
    expect(screen.getAllByTestId(/^agent-row-/)).toHaveLength(7);
    expect(screen.queryByTestId("agents-no-match")).toBeNull();
  });

  it("shows in the row why a memory has no counts (#18 item 10)", async () => {
    renderApp("#/agents", "mem0_down");
    const cell = await screen.findByTestId("agent-memory-error-assistant");
    expect(cell).toHaveTextContent("Memory not read");
    expect(cell).toHaveTextContent("mem0 at http://127.0.0.1:9 is unreachable");
    expect(cell).toHaveAttribute("colspan", "3");
    // No made-up zeros beside it.
    const row = screen.getByTestId("agent-row-assistant");
    expect(within(row).queryByText("0")).toBeNull();
    expect(screen.getByTestId("global-memory-error")).toHaveTextContent("Memory not read");
  });

  it("shows a badge's warnings beside it, above everything, and goes to them when activated (#18 items 19, 20)", async () => {
    renderApp("#/agents");
    const badge = await screen.findByTestId("agent-warnings-researcher");
    fireEvent.mouseEnter(badge);
    const pop = await screen.findByTestId("agent-warnings-researcher-pop");
    // In a portal: no table, row or transformed ancestor can clip or move it.
    expect(pop.parentElement).toBe(document.body);
    expect(pop).toHaveTextContent("Skill pdf-reader: The link is broken: its target does not exist.");
    expect(Number.parseFloat(pop.style.left)).toBeGreaterThanOrEqual(8);
    fireEvent.mouseLeave(badge);
    expect(screen.queryByTestId("agent-warnings-researcher-pop")).toBeNull();
    expect(badge).toHaveAttribute("role", "link");
    fireEvent.keyDown(badge, { key: "Enter" });
    await waitFor(() => expect(window.location.hash).toBe("#/agents/researcher/overview"));
    const list = await screen.findByTestId("overview-warnings");
    await waitFor(() => expect(document.activeElement).toBe(list));
  });

  it("sorts by a column and filters by name", async () => {
    renderApp("#/agents");
    await screen.findByTestId("agent-row-assistant");
    fireEvent.click(screen.getByRole("button", { name: /Archival/ }));
    const names = () => screen.getAllByTestId(/^agent-row-/).map((r) => r.getAttribute("data-testid"));
    // TanStack sorts numbers descending first.
    expect(names()[0]).toBe("agent-row-assistant");
    fireEvent.change(screen.getByTestId("agents-filter"), { target: { value: "analyst" } });
    expect(names()).toEqual(["agent-row-log_analyst"]);
  });

  it("shows the error code and message with a retry button when listing fails", async () => {
    // The root folder was removed while the console runs: listing agents fails.
    renderApp("#/agents", "root_gone");
    expect(await screen.findByTestId("error-code")).toHaveTextContent(/^[a-z_]+$/);
    expect(screen.getByRole("button", { name: /Retry/ })).toBeInTheDocument();
  });
});

describe("Agents the runtime does not load", () => {
  it("badges them in the list and says why on the overview, in the user's language", async () => {
    const list = recordedResult("demo", "list_agents", {});
    const refused = {
      loads: false,
      reason: "provider_unknown" as const,
      message: 'provider "nope" is not in the runtime\'s provider registry (it has: openai)',
      params: { provider: "nope", known: "openai" },
      provider_checked: true,
    };
    const { backend } = renderApp("#/agents");
    backend.stub("list_agents", () => ({ ...list, agents: list.agents.map((a) => (a.name === "assistant" ? { ...a, runtime: refused } : a)) }));
    const badge = await screen.findByTestId("agent-not-loaded-assistant");
    expect(badge).toHaveTextContent("not loaded by the runtime");
    expect(badge).toHaveAttribute("title", "The provider “nope” is not in the runtime's provider registry (it has: openai).");
    expect(screen.queryByTestId("agent-not-loaded-researcher")).toBeNull();
    const detail = recordedResult("demo", "get_agent", { name: "assistant" });
    backend.stub("get_agent", () => ({ ...detail, summary: { ...detail.summary, runtime: refused } }));
    window.location.hash = "#/agents/assistant/overview";
    const banner = await screen.findByTestId("overview-not-loaded");
    expect(banner).toHaveTextContent("The runtime does not load this agent");
    expect(banner).toHaveTextContent("The provider “nope” is not in the runtime's provider registry");
  });
});
