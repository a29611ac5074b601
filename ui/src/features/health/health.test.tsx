import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";

import type { ChangeDto, HealthDto, MemoryStatsDto, MemoryViewDto, SummaryProposalDto } from "../../backend/types";
import type { RecordedBackend } from "../../test/recorded";
import { renderApp } from "../../test/render";

// The console has no recording of health, stats or summaries: reads and writes are answered with
// stubs shaped like `oryx serve`'s answers on the demo root, and each test checks what was sent.
const SECRET = { id: "a140-15da47d1", content: "token ghp_abcdefghijklmnopqrstuvwxyz0123456789 for CI" };
const STALE = { id: "a1-222c9fc7", content: "触发「明天上午有什么安排」⇒ 10:00 架构评审（第 2 次）" };
const DUP = ["a0-2633a5d0", "a5-86f8fd8b", "a10-1eb25aaa", "a15-7fdfff2e"];

const VIEW: MemoryViewDto = {
  agent: "assistant",
  backend: "markdown",
  source: "/home/linxiao/.oryxos/agents/assistant/MEMORY.md",
  core: [{ id: "c0-11111111", timestamp: "2026-11-04 10:00:00", content: "The user is Lin.", line: "- The user is Lin." }],
  archival: [
    ...DUP.map((id, i) => ({ id, timestamp: null, content: `帮我总结今天的日志（第 ${i + 1} 次）`, line: "", in_window: false })),
    { id: STALE.id, timestamp: null, content: STALE.content, line: "", in_window: false },
    { id: SECRET.id, timestamp: null, content: SECRET.content, line: "", in_window: true },
  ],
  window: { limit: 4000, chars: 100, in_window: 1, outside: 5 } as unknown as MemoryViewDto["window"],
  context: "",
  possibly_more: false,
  paged_reason: null,
};

const HEALTH: HealthDto = {
  agent: "assistant",
  findings: [
    {
      check: "stale",
      kind: "relative_time",
      entry_ids: [STALE.id],
      reason: 'says "明天" but was written 29 days ago: it no longer means what it meant',
      fix: { op: "delete", ids: [STALE.id], content: null },
    },
    {
      check: "duplicates",
      kind: "near",
      entry_ids: DUP,
      reason: "4 entries differ only in numbers (a repeated footprint): a summary keeps them in one line",
      fix: null,
    },
    {
      check: "secrets",
      kind: "github_token",
      entry_ids: [SECRET.id],
      reason: "holds what looks like a secret (github_token): anyone who reads the prompt or the file sees it",
      fix: { op: "edit", ids: [SECRET.id], content: "token ghp_…[masked] for CI" },
    },
  ],
  budget: { prompt_chars: 4144, core_chars: 180, core_share: 0.043, core_added_30d: 3, window_reach_days: 15 },
  dismissed: 0,
};

const STATS: MemoryStatsDto = {
  agent: "assistant",
  days: [
    { day: "2026-11-04", core: 4, archival: 3 },
    { day: "2026-11-05", core: 0, archival: 6 },
  ],
  undated: 0,
  window_reach_days: 15,
  in_window: 51,
  outside_window: 90,
  reach_back: [
    { day: "2026-11-04", days: 0 },
    { day: "2026-11-05", days: 1.2 },
  ],
};

const PROPOSAL: SummaryProposalDto = {
  agent: "assistant",
  covered: DUP,
  from: "2026-11-04 14:01:49",
  to: "2026-11-19 10:01:49",
  content: "〔摘要 2026-11-04～2026-11-19，4 条〕「帮我总结今天的日志」×4",
  chars_before: 6795,
  chars_after: 390,
  by_llm: false,
};

function change(op: ChangeDto["op"], id = "ch-1"): ChangeDto {
  return { id, time: "2026-12-04 13:00:00", op, entries: [{ before: null, after: null }], undone: false } as unknown as ChangeDto;
}

const sent = (b: RecordedBackend, op: string) => b.calls.filter((c) => c.op === op).map((c) => c.args);

async function openHealth(health: HealthDto = HEALTH, proposal: SummaryProposalDto | null = PROPOSAL) {
  const r = renderApp("#/agents/assistant/health");
  r.backend.stub("memory_view", () => VIEW);
  r.backend.stub("memory_health", () => health);
  r.backend.stub("memory_stats", () => STATS);
  r.backend.stub("propose_summary", () => proposal);
  await screen.findByTestId("health-tab");
  await screen.findByTestId("health-group-secrets");
  return r;
}

describe("Health tab", () => {
  it("groups the findings by check with counts, reasons, entries, fixes; the budget and the stats", async () => {
    const { backend } = await openHealth();
    expect(screen.getByTestId("tab-health")).toHaveAttribute("aria-selected", "true");
    const groups = screen.getAllByTestId(/^health-group-(secrets|pii|duplicates|stale)$/).map((g) => g.dataset.testid);
    expect(groups).toEqual(["health-group-secrets", "health-group-duplicates", "health-group-stale"]);
    const secrets = screen.getByTestId("health-group-secrets");
    expect(within(secrets).getByTestId("health-group-count")).toHaveTextContent("1");
    expect(within(secrets).getByTestId("finding-reason")).toHaveTextContent("github_token");
    await waitFor(() => expect(within(secrets).getByTestId("finding-entry")).toHaveTextContent(SECRET.content));
    expect(within(secrets).getByTestId("finding-fix")).toHaveTextContent("Mask");
    expect(within(secrets).getByTestId("finding-fix-content")).toHaveTextContent("token ghp_…[masked] for CI");
    // Duplicates have no fix: only Dismiss; 3 of 4 entries listed.
    const dups = screen.getByTestId("health-group-duplicates");
    // Small groups start open; a toggle closes and opens them.
    fireEvent.click(within(dups).getByTestId("health-group-toggle"));
    expect(within(dups).getByTestId("health-group-toggle")).toHaveAttribute("aria-expanded", "false");
    expect(within(dups).queryByTestId("health-finding")).toBeNull();
    fireEvent.click(within(dups).getByTestId("health-group-toggle"));
    expect(within(dups).queryByTestId("finding-fix")).toBeNull();
    expect(within(dups).getAllByTestId("finding-entry")).toHaveLength(3);
    fireEvent.click(within(dups).getByTestId("finding-entries-more"));
    expect(within(dups).getAllByTestId("finding-entry")).toHaveLength(4);
    const stale = screen.getByTestId("health-group-stale");
    expect(within(stale).getByTestId("finding-fix")).toHaveTextContent("Delete 1");
    // The budget.
    expect(screen.getByTestId("budget-prompt-chars")).toHaveTextContent("4,144");
    expect(screen.getByTestId("budget-core-share")).toHaveTextContent("4.3%");
    expect(screen.getByTestId("budget-core-added")).toHaveTextContent("3");
    expect(screen.getByTestId("budget-window-reach")).toHaveTextContent("15 days");
    // The stats: bars and the table.
    await screen.findByTestId("stats-chart");
    expect(screen.getAllByTestId("stats-bar")).toHaveLength(2);
    expect(screen.getByTestId("stats-reach")).toHaveTextContent("The window reaches back 15 days.");
    expect(within(screen.getByTestId("stats-table")).getAllByRole("row")).toHaveLength(3);
    expect(sent(backend, "memory_health")).toEqual([{ agent: "assistant" }]);
  });

  it("says No findings when there are none", async () => {
    const r = renderApp("#/agents/assistant/health");
    r.backend.stub("memory_view", () => VIEW);
    r.backend.stub("memory_health", () => ({ ...HEALTH, findings: [], dismissed: 2 }));
    r.backend.stub("memory_stats", () => STATS);
    r.backend.stub("propose_summary", () => null);
    expect(await screen.findByTestId("health-empty")).toHaveTextContent("No findings");
    expect(screen.getByTestId("health-dismissed")).toHaveTextContent("2 dismissed");
    expect(await screen.findByTestId("summary-none")).toBeInTheDocument();
  });

  it("Mask sends edit_entry with the fix's content and offers Undo", async () => {
    const { backend } = await openHealth();
    backend.stub("edit_entry", () => change("edit", "ch-mask"));
    backend.stub("undo_change", () => change("undo", "ch-undo"));
    const secrets = screen.getByTestId("health-group-secrets");
    await waitFor(() => expect(within(secrets).getByTestId("finding-fix")).toBeEnabled());
    fireEvent.click(within(secrets).getByTestId("finding-fix"));
    await waitFor(() => expect(sent(backend, "edit_entry")).toHaveLength(1));
    expect(sent(backend, "edit_entry")[0]).toEqual({
      agent: "assistant",
      id: SECRET.id,
      expect: SECRET.content,
      content: "token ghp_…[masked] for CI",
      restamp: false,
    });
    const toast = await screen.findByTestId("toast");
    expect(within(toast).getByTestId("toast-message")).toHaveTextContent("Edited 1 entry");
    // The health is asked again after the change.
    await waitFor(() => expect(sent(backend, "memory_health").length).toBeGreaterThan(1));
    fireEvent.click(within(toast).getByTestId("toast-undo"));
    await waitFor(() => expect(sent(backend, "undo_change")).toEqual([{ agent: "assistant", change_id: "ch-mask" }]));
  });

  it("Delete sends delete_entries with what the entries hold", async () => {
    const { backend } = await openHealth();
    backend.stub("delete_entries", () => change("delete"));
    const stale = screen.getByTestId("health-group-stale");
    await waitFor(() => expect(within(stale).getByTestId("finding-fix")).toBeEnabled());
    fireEvent.click(within(stale).getByTestId("finding-fix"));
    await waitFor(() => expect(sent(backend, "delete_entries")).toEqual([{ agent: "assistant", entries: [{ id: STALE.id, expect: STALE.content }] }]));
    expect(await screen.findByTestId("toast-undo")).toBeInTheDocument();
  });

  it("Dismiss sends dismiss_finding and shows the health it answers", async () => {
    const { backend } = await openHealth();
    backend.stub("dismiss_finding", () => ({ ...HEALTH, findings: HEALTH.findings.filter((f) => f.check !== "duplicates"), dismissed: 1 }));
    fireEvent.click(within(screen.getByTestId("health-group-duplicates")).getByTestId("finding-dismiss"));
    await waitFor(() => expect(screen.queryByTestId("health-group-duplicates")).toBeNull());
    expect(sent(backend, "dismiss_finding")).toEqual([{ agent: "assistant", check: "duplicates", entry_ids: DUP }]);
    expect(screen.getByTestId("health-dismissed")).toHaveTextContent("1 dismissed");
  });

  it("applies the edited summary, removing the originals when asked", async () => {
    const { backend } = await openHealth();
    backend.stub("apply_summary", () => change("summarize", "ch-sum"));
    const panel = await screen.findByTestId("summary-panel");
    const line = await within(panel).findByTestId("summary-line");
    expect(line).toHaveTextContent("4 entries outside the window (2026-11-04 14:01:49 → 2026-11-19 10:01:49): 6,795 characters become 390");
    const text = within(panel).getByTestId("summary-content");
    expect(text).toHaveValue(PROPOSAL.content);
    fireEvent.change(text, { target: { value: "〔摘要〕日志总结 ×4" } });
    expect(within(panel).getByTestId("summary-remove").parentElement).toHaveTextContent("also remove the 4 originals");
    fireEvent.click(within(panel).getByTestId("summary-remove"));
    fireEvent.click(within(panel).getByTestId("summary-apply"));
    await waitFor(() =>
      expect(sent(backend, "apply_summary")).toEqual([{ agent: "assistant", content: "〔摘要〕日志总结 ×4", covered: DUP, remove_originals: true }]),
    );
    const toast = await screen.findByTestId("toast");
    expect(within(toast).getByTestId("toast-message")).toHaveTextContent("Replaced 4 entries with a summary");
    backend.stub("undo_change", () => change("undo", "ch-undo"));
    fireEvent.click(within(toast).getByTestId("toast-undo"));
    await waitFor(() => expect(sent(backend, "undo_change")).toEqual([{ agent: "assistant", change_id: "ch-sum" }]));
  });
});

describe("Global memory health", () => {
  it("has a Health tab that asks for the global memory's health", async () => {
    const r = renderApp("#/global/health");
    r.backend.stub("memory_view", () => ({ ...VIEW, agent: null, archival: [], core: [] }));
    r.backend.stub("memory_health", () => ({ ...HEALTH, agent: null, findings: [] }));
    r.backend.stub("memory_stats", () => ({ ...STATS, agent: null }));
    r.backend.stub("propose_summary", () => null);
    expect(await screen.findByTestId("health-empty")).toHaveTextContent("No findings");
    expect(screen.getByTestId("tab-health")).toHaveAttribute("aria-selected", "true");
    expect(sent(r.backend, "memory_health")).toEqual([{ agent: null }]);
    expect(sent(r.backend, "memory_stats")).toEqual([{ agent: null }]);
  });
});
