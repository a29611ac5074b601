import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";

import { renderApp } from "../../test/render";

describe("Read receipts", () => {
  it("adds a Last read column to both tables and filters the entries never read", async () => {
    const r = renderApp("#/agents/assistant/memory");
    await screen.findByTestId("core-table");
    // Nothing is asked until the receipts are shown: they walk every session.
    expect(r.backend.calls.some((c) => c.op === "entry_reads")).toBe(false);
    expect(screen.queryByTestId("reads-head")).toBeNull();
    const toggle = screen.getByTestId("reads-toggle");
    expect(toggle).toHaveAttribute("aria-pressed", "false");
    fireEvent.click(toggle);
    await screen.findByTestId("reads-totals");
    expect(toggle).toHaveAttribute("aria-pressed", "true");
    expect(screen.getAllByTestId("reads-head").length).toBeGreaterThanOrEqual(1);
    const core = within(screen.getByTestId("core-table"));
    const cells = core.getAllByTestId("read-cell");
    expect(cells.length).toBe(screen.getAllByTestId("core-row").length);
    // The counts are in the tooltip and for screen readers.
    expect(cells[0]).toHaveAttribute("title", expect.stringMatching(/prompts, .* recalls, in .* sessions/));
    fireEvent.click(screen.getByTestId("reads-unread-only"));
    await waitFor(() => expect(screen.queryByTestId("archival-table")).toBeNull());
    // Every entry left is one the backend marked unread.
    for (const c of screen.queryAllByTestId("read-cell")) expect(c).toHaveAttribute("data-unread", "true");
  });

  it("exports the receipts as CSV", async () => {
    const r = renderApp("#/agents/assistant/memory");
    await screen.findByTestId("core-table");
    fireEvent.click(screen.getByTestId("reads-toggle"));
    await screen.findByTestId("reads-totals");
    fireEvent.click(screen.getByTestId("reads-export-csv"));
    expect(await screen.findByTestId("reads-saved")).toHaveTextContent("assistant-reads.csv");
    expect(r.backend.calls.filter((c) => c.op === "export_entry_reads").map((c) => c.args)).toEqual([{ agent: "assistant", format: "csv" }]);
  });

  it("says nothing when the desktop's save dialog is closed", async () => {
    const r = renderApp("#/agents/assistant/memory");
    let asked = 0;
    r.backend.saveReads = async () => {
      asked += 1;
      return null;
    };
    await screen.findByTestId("core-table");
    fireEvent.click(screen.getByTestId("reads-toggle"));
    await screen.findByTestId("reads-totals");
    fireEvent.click(screen.getByTestId("reads-export-json"));
    await waitFor(() => expect(asked).toBe(1));
    expect(screen.queryByTestId("reads-saved")).toBeNull();
  });

  it("shows per turn what the agent read, linking to the entries", async () => {
    renderApp("#/sessions/cli%3Alinxiao%3Aassistant");
    const panel = await screen.findByTestId("reads-panel");
    const toggle = within(panel).getByTestId("reads-panel-toggle");
    expect(toggle).toHaveAttribute("aria-expanded", "false");
    fireEvent.click(toggle);
    const turns = await within(panel).findAllByTestId("reads-turn");
    expect(turns.length).toBeGreaterThanOrEqual(1);
    const head = within(turns[0]!).getByRole("button");
    fireEvent.click(head);
    expect(head).toHaveAttribute("aria-expanded", "true");
    const read = within(turns[0]!).getAllByTestId("read-entry");
    expect(read.length).toBeGreaterThan(0);
    const link = read[0]!.querySelector("a");
    expect(link?.getAttribute("href")).toMatch(/^#\/agents\/assistant\?entry=[ac]\d+-/);
    // The sample session's recall_memory call returned an entry of then.
    expect(within(turns[0]!).getAllByTestId("reads-recall").length).toBe(1);
  });

  it("hints at the entries nothing reads in the health tab", async () => {
    const r = renderApp("#/agents/assistant/health");
    r.backend.stub("memory_health", () => ({
      agent: "assistant",
      findings: [],
      budget: null,
      dismissed: 0,
      hints: [{ kind: "never_read", entry_ids: ["a1-00000001", "a2-00000002"], reason: "2 entries never reached a prompt" }],
    }));
    r.backend.stub("memory_stats", () => ({ agent: "assistant", days: [], undated: 0, window_reach_days: null, in_window: 0, outside_window: 0, reach_back: [] }));
    r.backend.stub("propose_summary", () => null);
    const hint = await screen.findByTestId("health-hint");
    expect(hint).toHaveAttribute("data-kind", "never_read");
    expect(hint).toHaveTextContent("2 entries were never read");
  });

  it("says it in Chinese", async () => {
    renderApp("#/sessions/cli%3Alinxiao%3Aassistant", "demo_zh");
    const panel = await screen.findByTestId("reads-panel");
    expect(panel).toHaveTextContent("智能体读取了什么");
    fireEvent.click(within(panel).getByTestId("reads-panel-toggle"));
    const turns = await within(panel).findAllByTestId("reads-turn");
    expect(turns[0]).toHaveTextContent("第 1 轮");
  });
});
