import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";

import { BackendError } from "../../backend";
import type { ChangeDto, HealthDto, MemoryStatsDto, MemoryViewDto, SummaryProposalDto } from "../../backend/types";
import { translate } from "../../i18n";
import { recordedResult, type RecordedBackend } from "../../test/recorded";
import { renderApp } from "../../test/render";
import { localReason } from "./reason";

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
      params: { word: "明天", age_days: "29" },
      fix: { op: "delete", ids: [STALE.id], content: null },
    },
    {
      check: "duplicates",
      kind: "near",
      entry_ids: DUP,
      reason: "4 entries differ only in numbers (a repeated footprint): a summary keeps them in one line",
      params: { count: "4", basis: "numbers", similarity: "1.00" },
      fix: null,
    },
    {
      check: "secrets",
      kind: "github_token",
      entry_ids: [SECRET.id],
      reason: "holds what looks like a secret (github_token): anyone who reads the prompt or the file sees it",
      params: { kinds: "github_token" },
      fix: { op: "edit", ids: [SECRET.id], content: "token ghp_…[masked] for CI" },
    },
  ],
  budget: { prompt_chars: 4144, core_chars: 180, core_share: 0.043, core_added_30d: 3, window_reach_days: 15 },
  dismissed: 0,
  hints: [],
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
  it("lists a recall check that broke, with its undo", async () => {
    const r = renderApp("#/agents/assistant/health");
    r.backend.stub("memory_view", () => VIEW);
    r.backend.stub("memory_health", () => HEALTH);
    r.backend.stub("memory_stats", () => STATS);
    r.backend.stub("propose_summary", () => PROPOSAL);
    const check = { id: "chk-ok", question: "偏好", expected: ["a3-0badcafe"], created: "2026-12-06 10:00:00", passed: true, ran: "2026-12-06 10:00:01", found: ["a3-0badcafe"], missing: [], gone: [], broken: false, changes: [] };
    r.backend.stub("recall_checks", () => ({
      agent: "assistant",
      passed: 1,
      failed: 1,
      ran: 0,
      settings: null,
      checks: [
        check,
        { ...check, id: "chk-broke", question: "车牌号", passed: false, broken: true, found: [], missing: ["a3-0badcafe"], changes: [{ id: "ch-edit", at: "2026-12-06 11:00:00", op: "edit", undoable: true }] },
      ],
    }));
    const section = await screen.findByTestId("health-broken-checks");
    expect(section).toHaveTextContent("1 recall check broke");
    const rows = within(section).getAllByTestId("recall-check");
    expect(rows).toHaveLength(1);
    expect(rows[0]).toHaveTextContent("车牌号");
    expect(rows[0]).toHaveTextContent("Broken since: edited at 2026-12-06 11:00:00");
    expect(within(rows[0]!).getByTestId("recall-check-undo")).toBeEnabled();
  });

  it("lists a huge near group's entries a hundred more at a time, never all at once", async () => {
    // A footprint repeated all year: one near finding naming 250 entries (the 100 MB benchmark
    // file's names ~900 000).
    const ids = Array.from({ length: 250 }, (_, i) => `a${i}-0000${String(i).padStart(4, "0")}`);
    const near = { ...HEALTH.findings[1]!, entry_ids: ids, params: { ...HEALTH.findings[1]!.params, count: "250" } };
    await openHealth({ ...HEALTH, findings: [HEALTH.findings[2]!, near] });
    const dups = screen.getByTestId("health-group-duplicates");
    expect(within(dups).getAllByTestId("finding-entry")).toHaveLength(3);
    expect(within(dups).getByTestId("finding-entries-more")).toHaveTextContent("and 247 more entries");
    fireEvent.click(within(dups).getByTestId("finding-entries-more"));
    expect(within(dups).getAllByTestId("finding-entry")).toHaveLength(103);
    expect(within(dups).getByTestId("finding-entries-more")).toHaveTextContent("and 147 more entries");
    fireEvent.click(within(dups).getByTestId("finding-entries-more"));
    fireEvent.click(within(dups).getByTestId("finding-entries-more"));
    expect(within(dups).getAllByTestId("finding-entry")).toHaveLength(250);
    expect(within(dups).queryByTestId("finding-entries-more")).toBeNull();
  });

  it("groups the findings by check with counts, reasons, entries, fixes; the budget and the stats", async () => {
    const { backend } = await openHealth();
    expect(screen.getByTestId("tab-health")).toHaveAttribute("aria-selected", "true");
    const groups = screen.getAllByTestId(/^health-group-(secrets|pii|duplicates|stale)$/).map((g) => g.dataset.testid);
    expect(groups).toEqual(["health-group-secrets", "health-group-duplicates", "health-group-stale"]);
    const secrets = screen.getByTestId("health-group-secrets");
    expect(within(secrets).getByTestId("health-group-count")).toHaveTextContent("1");
    expect(within(secrets).getByTestId("finding-reason")).toHaveTextContent(
      "GitHub token Holds what looks like a secret (GitHub token): anyone who reads the prompt or the file sees it",
    );
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
    // The stats: the chart (a bar per day and section that has entries: 4 core and 3 archival,
    // then 6 archival) and the table with the same numbers.
    const chart = await screen.findByTestId("stats-chart");
    expect(chart.querySelectorAll(".recharts-bar-rectangle")).toHaveLength(3);
    const first = within(screen.getByTestId("stats-table")).getAllByRole("row")[1]!;
    expect(within(first).getByRole("rowheader")).toHaveTextContent("2026-11-04");
    expect(within(first).getAllByRole("cell").map((c) => c.textContent)).toEqual(["4", "3", "7"]);
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
    await within(panel).findByTestId("summary-line");
    // What the window holds before and after: the entries covered, when they were written, and
    // their characters against the summary's.
    expect(within(panel).getByTestId("summary-covered")).toHaveTextContent("4 entries outside the window");
    expect(within(panel).getByTestId("summary-period")).toHaveTextContent("2026-11-04 14:01:49 → 2026-11-19 10:01:49");
    expect(within(panel).getByTestId("summary-chars")).toHaveTextContent("6,795 in the entries → 390 in the summary");
    expect(within(panel).getByTestId("summary-source")).toHaveTextContent("Proposed by the console's rules");
    expect(within(panel).queryByTestId("summary-llm-mark")).toBeNull();
    const text = within(panel).getByTestId("summary-content");
    expect(text).toHaveValue(PROPOSAL.content);
    fireEvent.change(text, { target: { value: "〔摘要〕日志总结 ×4" } });
    expect(within(panel).getByTestId("summary-remove").parentElement).toHaveTextContent("also remove the 4 originals");
    fireEvent.click(within(panel).getByTestId("summary-remove"));
    expect(panel).toHaveTextContent("removes the 4 originals: one change, one Undo");
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

// The LLM's proposal for the same entries, as `oryx serve` answers with tests/llm/server.py's "ok"
// model behind it (by_llm, the marker the console adds, the text the model wrote).
const LLM_PROPOSAL: SummaryProposalDto = {
  ...PROPOSAL,
  content: "〔摘要 2026-11-04～2026-11-19 10:01，4 条〕用户四次请助手总结当天日志。",
  chars_after: 52,
  by_llm: true,
};

/** An answer the test gives when it wants to (a slow LLM). */
function later<T>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

describe("Summaries (#15)", () => {
  it("asks the LLM, marks its text, and applies what the user edited", async () => {
    const { backend } = await openHealth();
    backend.stub("propose_summary", (a) => ((a as { llm?: boolean }).llm ? LLM_PROPOSAL : PROPOSAL));
    backend.stub("apply_summary", () => change("summarize", "ch-llm"));
    const panel = await screen.findByTestId("summary-panel");
    await within(panel).findByTestId("summary-content");
    fireEvent.click(within(panel).getByTestId("summary-llm"));
    const mark = await within(panel).findByTestId("summary-llm-mark");
    expect(mark).toHaveTextContent("Written by the LLM — read it before applying");
    expect(sent(backend, "propose_summary")).toContainEqual({ agent: "assistant", llm: true });
    // The rules' proposal is asked without the flag (the console's default), as recorded.
    expect(sent(backend, "propose_summary")[0]).toEqual({ agent: "assistant" });
    const text = within(panel).getByTestId("summary-content");
    expect(text).toHaveValue(LLM_PROPOSAL.content);
    expect(text).toHaveAttribute("data-by-llm", "true");
    expect(within(panel).getByTestId("summary-chars")).toHaveTextContent("6,795 in the entries → 52 in the summary");
    fireEvent.change(text, { target: { value: "〔摘要〕用户每天请助手总结日志（4 次）。" } });
    expect(within(panel).getByTestId("summary-reset")).toBeInTheDocument();
    fireEvent.click(within(panel).getByTestId("summary-apply"));
    await waitFor(() =>
      expect(sent(backend, "apply_summary")).toEqual([{ agent: "assistant", content: "〔摘要〕用户每天请助手总结日志（4 次）。", covered: DUP, remove_originals: false }]),
    );
    expect(await screen.findByTestId("toast-message")).toHaveTextContent("Added a summary of 4 entries");
    // Applied: the panel is back on the rules' proposal (asked again after the change).
    await waitFor(() => expect(within(panel).queryByTestId("summary-llm-mark")).toBeNull());
  });

  it("shows an LLM error in the user's words with the console's message and a way to Settings → Summaries", async () => {
    const { backend } = await openHealth();
    const message = 'the summariser at http://127.0.0.1:18599/v1 has no chat completions endpoint or no model "gpt-x" (404 Not Found): model not found';
    backend.stub("propose_summary", (a) => {
      if ((a as { llm?: boolean }).llm) throw new BackendError("backend_unavailable", message);
      return PROPOSAL;
    });
    const panel = await screen.findByTestId("summary-panel");
    await within(panel).findByTestId("summary-content");
    fireEvent.click(within(panel).getByTestId("summary-llm"));
    const error = await within(panel).findByTestId("summary-llm-error");
    expect(error).toHaveAttribute("role", "alert");
    expect(within(error).getByTestId("summary-llm-error-text")).toHaveTextContent("The LLM gave no summary");
    expect(within(error).getByTestId("summary-llm-error-detail")).toHaveTextContent(message);
    // The rules' proposal is still there to use.
    expect(within(panel).getByTestId("summary-content")).toHaveValue(PROPOSAL.content);
    const link = within(error).getByTestId("summary-llm-settings");
    expect(link).toHaveAttribute("href", "#/settings");
    expect(link).toHaveTextContent("Settings → Summaries");
    fireEvent.click(link);
    window.location.hash = "#/settings";
    const section = await screen.findByTestId("settings-summaries");
    await waitFor(() => expect(document.activeElement).toBe(section));
  });

  it("names a summariser that is not set up, and a timeout", async () => {
    const { backend } = await openHealth();
    let answer: BackendError = new BackendError("invalid_input", "no summariser endpoint: set a base URL in Settings → Summaries");
    backend.stub("propose_summary", (a) => {
      if ((a as { llm?: boolean }).llm) throw answer;
      return PROPOSAL;
    });
    const panel = await screen.findByTestId("summary-panel");
    await within(panel).findByTestId("summary-content");
    fireEvent.click(within(panel).getByTestId("summary-llm"));
    expect(await within(panel).findByTestId("summary-llm-error-text")).toHaveTextContent("The LLM summariser is not set up");
    answer = new BackendError("timeout", "the summariser at http://127.0.0.1:18599/v1 did not answer within 2 s");
    fireEvent.click(within(panel).getByTestId("summary-llm-retry"));
    await waitFor(() => expect(within(panel).getByTestId("summary-llm-error-text")).toHaveTextContent("The LLM did not answer in time"));
    expect(within(panel).getByTestId("summary-llm-error-detail")).toHaveTextContent("did not answer within 2 s");
    fireEvent.click(within(panel).getByTestId("summary-llm-dismiss"));
    expect(within(panel).queryByTestId("summary-llm-error")).toBeNull();
  });

  it("waits with the seconds and a Cancel; an answer after Cancel is ignored", async () => {
    const { backend } = await openHealth();
    const slow = later<SummaryProposalDto>();
    backend.stub("propose_summary", (a) => ((a as { llm?: boolean }).llm ? slow.promise : PROPOSAL));
    const panel = await screen.findByTestId("summary-panel");
    await within(panel).findByTestId("summary-content");
    fireEvent.click(within(panel).getByTestId("summary-llm"));
    const waiting = await within(panel).findByTestId("summary-llm-waiting");
    expect(waiting).toHaveTextContent("Asking the LLM for a summary…");
    // The demo's settings: the default timeout of 60 s.
    await waitFor(() => expect(within(waiting).getByTestId("summary-llm-elapsed")).toHaveTextContent("0 s of at most 60 s"));
    expect(within(waiting).getByRole("progressbar")).toHaveAttribute("aria-valuemax", "60");
    // No second request while one is waited for.
    expect(within(panel).queryByTestId("summary-llm")).toBeNull();
    fireEvent.click(within(waiting).getByTestId("summary-llm-cancel"));
    expect(within(panel).queryByTestId("summary-llm-waiting")).toBeNull();
    slow.resolve(LLM_PROPOSAL);
    await slow.promise;
    await new Promise((r) => setTimeout(r, 20));
    expect(within(panel).queryByTestId("summary-llm-mark")).toBeNull();
    expect(within(panel).getByTestId("summary-content")).toHaveValue(PROPOSAL.content);
    expect(within(panel).getByTestId("summary-llm")).toBeInTheDocument();
  });

  it("offers the summarize fix of an unsummarised finding: it opens the rules' proposal, applying nothing", async () => {
    const finding: HealthDto["findings"][number] = {
      check: "budget",
      kind: "unsummarised",
      entry_ids: DUP,
      reason: "4 entries outside the window are not summarised (more than the threshold of 2): the agent no longer sees them",
      params: { count: "4", threshold: "2" },
      fix: { op: "summarize", ids: DUP, content: null },
    };
    const { backend } = await openHealth({ ...HEALTH, findings: [...HEALTH.findings, finding] });
    backend.stub("propose_summary", (a) => ((a as { llm?: boolean }).llm ? LLM_PROPOSAL : PROPOSAL));
    const group = screen.getByTestId("health-group-budget");
    expect(within(group).getByTestId("health-group-toggle")).toHaveTextContent("Budget");
    // The summary panel shows the LLM's text first: the fix brings back the rules' proposal.
    const panel = await screen.findByTestId("summary-panel");
    await within(panel).findByTestId("summary-content");
    fireEvent.click(within(panel).getByTestId("summary-llm"));
    await within(panel).findByTestId("summary-llm-mark");
    const fix = within(group).getByTestId("finding-fix");
    expect(fix).toHaveAttribute("data-op", "summarize");
    expect(fix).toHaveTextContent("Summarise 4…");
    fireEvent.click(fix);
    await waitFor(() => expect(document.activeElement).toBe(within(panel).getByTestId("summary-content")));
    expect(within(panel).getByTestId("summary-content")).toHaveValue(PROPOSAL.content);
    expect(within(panel).queryByTestId("summary-llm-mark")).toBeNull();
    expect(sent(backend, "apply_summary")).toEqual([]);
    expect(sent(backend, "delete_entries")).toEqual([]);
  });

  it("says why there is no proposal: all summarised already, or nothing outside the window", async () => {
    await openHealth(HEALTH, null);
    expect(await screen.findByTestId("summary-none")).toHaveTextContent("everything outside the window is summarised already, or fewer than two entries there are not");
    expect(screen.queryByTestId("summary-llm")).toBeNull();
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

// Reasons in the user's language (#15): said from check + kind + params; what this screen cannot
// say (a kind or a value it does not know) keeps the console's English reason.
type Finding = HealthDto["findings"][number];

const PHONE: Finding = {
  check: "pii",
  kind: "phone",
  entry_ids: ["a141-0badf00d"],
  reason: "holds personal data (phone, resident_id, bank_card)",
  params: { kinds: "phone,resident_id,bank_card" },
  fix: null,
};
// What a newer console might send: a secret kind and a near-duplicate basis this screen does not know.
const NEWER: Finding[] = [
  {
    check: "secrets",
    kind: "azure_key",
    entry_ids: ["a142-00c0ffee"],
    reason: "holds what looks like a secret (azure_key): anyone who reads the prompt or the file sees it",
    params: { kinds: "azure_key" },
    fix: null,
  },
  {
    check: "duplicates",
    kind: "near",
    entry_ids: ["a143-1", "a143-2"],
    reason: "2 entries mean the same (semantic similarity 0.91): a summary keeps them in one line",
    params: { count: "2", basis: "semantic", similarity: "0.91" },
    fix: null,
  },
];

async function openHealthIn(lang: "en" | "zh", health: HealthDto) {
  const r = renderApp("#/agents/assistant/health");
  const settings = recordedResult("demo", "get_settings", {});
  r.backend.stub("get_settings", () => ({ ...settings, settings: { ...settings.settings, language: lang } }));
  r.backend.stub("memory_view", () => VIEW);
  r.backend.stub("memory_health", () => health);
  r.backend.stub("memory_stats", () => STATS);
  r.backend.stub("propose_summary", () => null);
  await screen.findByTestId("health-group-secrets");
  return r;
}

const reasons = (group: string) => within(screen.getByTestId(`health-group-${group}`)).getAllByTestId("finding-reason");

describe("Finding reasons in the user's language", () => {
  it("says each reason in English from its params, with readable kinds", async () => {
    await openHealthIn("en", { ...HEALTH, findings: [...HEALTH.findings, PHONE] });
    expect(reasons("secrets")[0]).toHaveTextContent("Holds what looks like a secret (GitHub token): anyone who reads the prompt or the file sees it");
    expect(reasons("pii")[0]).toHaveTextContent("phone number Holds personal data (phone number, resident ID number, bank card number)");
    expect(reasons("duplicates")[0]).toHaveTextContent("near 4 entries differ only in numbers (a repeated footprint): a summary keeps them in one line");
    expect(reasons("stale")[0]).toHaveTextContent("relative time Says “明天” but was written 29 days ago: it no longer means what it meant");
    // English is what the console says already: no second copy as detail.
    expect(reasons("secrets")[0]).not.toHaveAttribute("title");
    expect(reasons("secrets")[0]).toHaveAttribute("data-localised", "true");
  });

  it("says each reason in Chinese, the console's English as detail", async () => {
    await openHealthIn("zh", { ...HEALTH, findings: [...HEALTH.findings, PHONE] });
    await waitFor(() => expect(screen.getByTestId("health-group-secrets")).toHaveTextContent("密钥"));
    const secret = reasons("secrets")[0]!;
    expect(secret).toHaveTextContent("GitHub 令牌 含有疑似密钥（GitHub 令牌）：读到提示词或该文件的人都能看到");
    expect(secret).toHaveAttribute("title", HEALTH.findings[2]!.reason);
    expect(reasons("pii")[0]).toHaveTextContent("电话号码 含有个人信息（电话号码、居民身份证号、银行卡号）");
    expect(reasons("duplicates")[0]).toHaveTextContent("相近 4 个条目只有数字不同（重复的足迹）：摘要可把它们合为一行");
    expect(reasons("stale")[0]).toHaveTextContent("相对时间 写着“明天”，却是 29 天前写的：它已不再是当时的意思");
    expect(screen.getByTestId("health-group-stale")).not.toHaveTextContent("written");
  });

  it("keeps the console's English reason for a kind or a value it does not know", async () => {
    await openHealthIn("zh", { ...HEALTH, findings: [...HEALTH.findings, ...NEWER] });
    await waitFor(() => expect(screen.getByTestId("health-group-secrets")).toHaveTextContent("密钥"));
    const [known, unknown] = reasons("secrets");
    expect(known).toHaveTextContent("含有疑似密钥（GitHub 令牌）");
    // The kind as sent for a tag, the English reason marked as English.
    expect(unknown).toHaveTextContent(`azure_key ${NEWER[0]!.reason}`);
    expect(unknown).toHaveAttribute("data-localised", "false");
    expect(unknown).not.toHaveAttribute("title");
    expect(within(unknown!).getByText(NEWER[0]!.reason)).toHaveAttribute("lang", "en");
    const near = reasons("duplicates");
    expect(near[0]).toHaveTextContent("4 个条目只有数字不同");
    expect(near[1]).toHaveTextContent(NEWER[1]!.reason);
    expect(near[1]).not.toHaveTextContent("undefined");
  });

  it("says every check and kind the console sends, in both languages, with English plurals", () => {
    const en = (f: Finding) => localReason((k, v) => translate("en", k, v), (n) => n.toLocaleString("en-US"), f);
    const zh = (f: Finding) => localReason((k, v) => translate("zh", k, v), (n) => n.toLocaleString("zh-CN"), f);
    const f = (check: string, kind: string, params: Record<string, string>): Finding => ({ check, kind, entry_ids: ["a0-1"], reason: "as sent", params, fix: null });

    const secret = f("secrets", "openai_key", { kinds: "openai_key,password,connection_string" });
    expect(en(secret)).toBe("Holds what looks like a secret (OpenAI API key, password, connection string with a password): anyone who reads the prompt or the file sees it");
    expect(zh(secret)).toBe("含有疑似密钥（OpenAI API 密钥、密码、带密码的连接字符串）：读到提示词或该文件的人都能看到");
    for (const k of ["private_key", "anthropic_key", "aws_access_key", "github_token", "slack_token", "google_api_key", "stripe_key", "jwt"]) {
      expect(en(f("secrets", k, { kinds: k })), k).not.toContain(k);
      expect(zh(f("secrets", k, { kinds: k })), k).toMatch(/^含有疑似密钥（/);
    }
    expect(zh(f("pii", "email", { kinds: "email,phone" }))).toBe("含有个人信息（电子邮件地址、电话号码）");
    expect(en(f("pii", "resident_id", { kinds: "resident_id" }))).toBe("Holds personal data (resident ID number)");

    expect(en(f("stale", "relative_time", { word: "tomorrow", age_days: "1" }))).toBe("Says “tomorrow” but was written 1 day ago: it no longer means what it meant");
    expect(en(f("stale", "relative_time", { word: "tomorrow", age_days: "1200" }))).toContain("written 1,200 days ago");
    expect(zh(f("stale", "relative_time", { word: "下周", age_days: "8" }))).toBe("写着“下周”，却是 8 天前写的：它已不再是当时的意思");

    expect(en(f("duplicates", "exact", { count: "3" }))).toBe("The same entry 3 times; keeping the newest is enough");
    expect(zh(f("duplicates", "exact", { count: "3" }))).toBe("同一条目出现了 3 次；保留最新的一条即可");
    const text = f("duplicates", "near", { count: "2", basis: "text", similarity: "0.72" });
    expect(en(text)).toBe("2 entries say nearly the same (72% of their character n-grams in common): a summary keeps them in one line");
    expect(zh(text)).toBe("2 个条目内容几乎相同（字符 n-gram 有 72% 相同）：摘要可把它们合为一行");
    const same = f("duplicates", "near", { count: "28", basis: "request", similarity: "1.00", request: "帮我总结今天的日志" });
    expect(en(same)).toBe("28 footprints of the same request “帮我总结今天的日志”: a summary keeps them in one line with a count");
    expect(zh(same)).toBe("同一请求“帮我总结今天的日志”的足迹有 28 条：摘要可把它们合为一行并计数");
    const alike = f("duplicates", "near", { count: "5", basis: "request", similarity: "0.81", request: "总结日志" });
    expect(en(alike)).toBe("5 footprints of nearly the same request (81% alike, the newest “总结日志”): a summary keeps them in one line with a count");
    expect(zh(alike)).toBe("几乎相同的请求的足迹有 5 条（相似度 81%，最新一条为“总结日志”）：摘要可把它们合为一行并计数");

    expect(en(f("budget", "unsummarised", { count: "120", threshold: "100" }))).toBe(
      "120 archival entries have left the prompt window without a summary (more than 100): a summary keeps what they said in the window",
    );
    expect(en(f("budget", "unsummarised", { count: "1", threshold: "0" }))).toBe(
      "1 archival entry has left the prompt window without a summary (more than 0): a summary keeps what it said in the window",
    );
    expect(zh(f("budget", "unsummarised", { count: "120", threshold: "100" }))).toBe("120 条归档条目已离开提示词窗口且没有摘要（超过 100 条）：摘要能把它们的内容留在窗口里");

    // Unknown kinds, bases, checks, or params missing or not numbers: null (the English reason stays).
    for (const x of [
      f("secrets", "openai_key", { kinds: "openai_key,azure_key" }),
      f("secrets", "openai_key", {}),
      f("pii", "passport", { kinds: "passport" }),
      f("stale", "relative_time", { word: "明天" }),
      f("stale", "relative_time", { word: "明天", age_days: "many" }),
      f("stale", "absolute_date", { word: "明天", age_days: "3" }),
      f("duplicates", "exact", {}),
      f("duplicates", "near", { count: "2", basis: "text" }),
      f("duplicates", "near", { count: "2", basis: "request", similarity: "1.00" }),
      f("duplicates", "semantic", { count: "2" }),
      f("budget", "unsummarised", { count: "4" }),
      f("budget", "core_share", { share: "0.4" }),
      f("licences", "gpl", {}),
    ])
      expect(en(x), JSON.stringify(x)).toBeNull();
  });
});
