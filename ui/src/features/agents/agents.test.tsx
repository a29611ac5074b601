import { fireEvent, screen, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";

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
    expect(screen.getByTestId("agent-warnings-legacy-bot")).toHaveTextContent("AGENT.md is missing");
    expect(screen.getByTestId("agent-warnings-broken_yaml")).toHaveTextContent("front matter is not valid YAML");
    expect(screen.getByTestId("agent-warnings-writer")).toHaveTextContent('AGENT.md says name "author"');
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
