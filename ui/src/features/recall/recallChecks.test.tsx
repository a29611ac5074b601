import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";

import type { AgentRecallDto, RecallCheckDto, RecallChecksDto, RecallProposalDto, RuntimeChange } from "../../backend/types";
import type { RecordedBackend } from "../../test/recorded";
import { recordedResult } from "../../test/recorded";
import { renderApp } from "../../test/render";

const Q = "用户喜欢什么样的回答风格";
const PAGE = `#/recall?agent=assistant&q=${encodeURIComponent(Q)}`;

const sent = (b: RecordedBackend, op: string) => b.calls.filter((c) => c.op === op).map((c) => c.args);

function list(checks: RecallCheckDto[]): RecallChecksDto {
  return {
    agent: "assistant",
    checks,
    passed: checks.filter((c) => c.passed === true).length,
    failed: checks.filter((c) => c.passed === false).length,
    ran: 0,
    settings: null,
  };
}

function check(over: Partial<RecallCheckDto>): RecallCheckDto {
  return {
    id: "chk-1",
    question: Q,
    expected: ["a3-0badcafe"],
    created: "2026-12-06 10:00:00",
    passed: true,
    ran: "2026-12-06 10:00:01",
    found: ["a3-0badcafe"],
    missing: [],
    gone: [],
    broken: false,
    just_broke: false,
    changes: [],
    ...over,
  };
}

describe("Recall checks", () => {
  it("keeps the query as a check expecting the ticked entries", async () => {
    const { backend } = renderApp(PAGE, "runtime_recall_mock");
    const answer = recordedResult("runtime_recall_mock", "agent_recall", { agent: "assistant", keyword: Q, trial: null }) as AgentRecallDto;
    const first = answer.results.find((r) => r.id)!;
    backend.stub("add_recall_check", () => list([check({ expected: [first.id!], found: [first.id!] })]));
    const card = await screen.findByTestId("agent-answer");
    const keep = await within(card).findByTestId("agent-keep-check");
    expect(keep).toBeDisabled();
    fireEvent.click(within(card).getAllByTestId("agent-answer-pick")[0]!);
    expect(keep).toBeEnabled();
    expect(keep).toHaveTextContent("Keep as a check (1)");
    fireEvent.click(keep);
    await waitFor(() => expect(sent(backend, "add_recall_check")).toEqual([{ agent: "assistant", question: Q, expect: [first.id] }]));
    expect(await within(card).findByTestId("agent-keep-said")).toHaveTextContent("Kept: it passes now.");
    // The panel shows it from the answer, without asking again.
    const panel = await screen.findByTestId("recall-checks");
    const row = await within(panel).findByTestId("recall-check");
    expect(row).toHaveAttribute("data-state", "pass");
    expect(row).toHaveTextContent(Q);
  });

  it("a broken check names the change that broke it, and its undo is one click away", async () => {
    const { backend } = renderApp(PAGE, "runtime_recall_mock");
    let current = list([
      check({
        passed: false,
        broken: true,
        found: [],
        missing: ["a3-0badcafe"],
        gone: ["a3-0badcafe"],
        changes: [{ id: "ch-del", at: "2026-12-06 11:00:00", op: "delete", undoable: true }],
      }),
    ]);
    backend.stub("recall_checks", () => current);
    backend.stub("undo_change", () => {
      current = list([check({})]);
      return recordedResult("runtime_recall_mock", "agent_recall", { agent: "assistant", keyword: Q, trial: null }) as never;
    });
    const panel = await screen.findByTestId("recall-checks");
    const row = await within(panel).findByTestId("recall-check");
    expect(row).toHaveAttribute("data-state", "broken");
    expect(within(row).getByTestId("recall-check-missing")).toHaveTextContent("a3-0badcafe (no longer an entry)");
    expect(within(row).getByTestId("recall-check-broken")).toHaveTextContent("Broken since: deleted at 2026-12-06 11:00:00");
    fireEvent.click(within(row).getByTestId("recall-check-undo"));
    await waitFor(() => expect(sent(backend, "undo_change")).toEqual([{ agent: "assistant", change_id: "ch-del" }]));
    await waitFor(() => expect(within(panel).getByTestId("recall-check")).toHaveAttribute("data-state", "pass"));
  });

  it("runs every check on demand and removes one", async () => {
    const { backend } = renderApp(PAGE, "runtime_recall_mock");
    backend.stub("recall_checks", (a) => ((a as { force: boolean }).force ? list([check({ ran: "2026-12-06 12:00:00" })]) : list([check({})])));
    backend.stub("remove_recall_check", () => list([]));
    const panel = await screen.findByTestId("recall-checks");
    await within(panel).findByTestId("recall-check");
    expect(within(panel).getByTestId("recall-checks-counts")).toHaveTextContent("1 pass · 0 fail");
    fireEvent.click(within(panel).getByTestId("recall-checks-run"));
    await waitFor(() => expect(within(panel).getByTestId("recall-check")).toHaveTextContent("ran 2026-12-06 12:00:00"));
    expect(sent(backend, "recall_checks").some((a) => (a as { force: boolean }).force)).toBe(true);
    fireEvent.click(within(panel).getByTestId("recall-check-remove"));
    await within(panel).findByTestId("recall-checks-empty");
    expect(sent(backend, "remove_recall_check")).toEqual([{ agent: "assistant", id: "chk-1" }]);
  });

  it("proposes weights from the checks, saves only what changes as one change, and undoes it", async () => {
    const { backend } = renderApp(PAGE, "runtime_recall_mock");
    backend.stub("recall_checks", () => list([check({ passed: false, found: [], missing: ["a3-0badcafe"] })]));
    const proposal: RecallProposalDto = {
      agent: "assistant",
      verdict: "better",
      current: { semantic: 1, keyword: 1, recency: 3, topK: 20 },
      proposed: { semantic: 1, keyword: 1, recency: 0.5, topK: 20 },
      passed_now: 0,
      passed_proposed: 1,
      checks: [{ id: "chk-1", question: Q, passes_now: false, passes_proposed: true, needed_now: 31, needed_proposed: 2 }],
      tried: 175,
      settings_problem: null,
      degraded: null,
    };
    backend.stub("propose_recall_settings", () => proposal);
    const change: RuntimeChange = {
      key: "memory.recall.weight.recency",
      previous: "3",
      value: "0.5",
      file: "/x/config/application.yml",
      restartNeeded: false,
      overriddenBy: null,
      message: 'memory.recall.weight.recency is now "0.5" in /x/config/application.yml',
    };
    backend.stub("set_runtime_values", () => [change]);
    backend.stub("undo_runtime_value", () => ({ ...change, value: "3" }));
    const panel = await screen.findByTestId("recall-checks");
    await within(panel).findByTestId("recall-check");
    fireEvent.click(within(panel).getByTestId("recall-checks-propose"));
    const box = await within(panel).findByTestId("recall-proposal");
    expect(await within(box).findByTestId("recall-proposal-verdict")).toHaveTextContent("These settings answer 1 of 1 checks; the runtime's settings answer 0 (175 settings tried).");
    expect(within(box).getByTestId("recall-proposal-recency")).toHaveClass("recall-proposal-changed");
    expect(within(box).getByTestId("recall-proposal-semantic")).not.toHaveClass("recall-proposal-changed");
    const row = within(box).getByTestId("recall-proposal-check");
    expect(row).toHaveAttribute("data-flip", "yes");
    expect(row).toHaveTextContent("needs top-k 31");
    expect(row).toHaveTextContent("needs top-k 2");
    fireEvent.click(within(box).getByTestId("recall-proposal-save"));
    await waitFor(() => expect(sent(backend, "set_runtime_values")).toEqual([{ values: [{ key: "memory.recall.weight.recency", value: "0.5" }] }]));
    expect(await within(box).findByTestId("recall-proposal-saved")).toHaveTextContent("is now \"0.5\"");
    fireEvent.click(within(box).getByTestId("recall-proposal-undo"));
    await waitFor(() => expect(sent(backend, "undo_runtime_value")).toHaveLength(1));
    await waitFor(() => expect(within(box).queryByTestId("recall-proposal-saved")).toBeNull());
  });

  it("says why nothing is proposed, in Chinese too", async () => {
    const { backend } = renderApp(PAGE, "runtime_recall_mock");
    const settings = recordedResult("runtime_recall_mock", "get_settings", {});
    backend.stub("get_settings", () => ({ ...settings, settings: { ...settings.settings, language: "zh" } }));
    backend.stub("recall_checks", () => list([check({})]));
    backend.stub("propose_recall_settings", () => ({
      agent: "assistant",
      verdict: "keyword_only",
      current: { semantic: 1, keyword: 1, recency: 1, topK: 20 },
      proposed: null,
      passed_now: 0,
      passed_proposed: 0,
      checks: [],
      tried: 0,
      settings_problem: null,
      degraded: null,
    }));
    const panel = await screen.findByTestId("recall-checks");
    await within(panel).findByTestId("recall-check");
    fireEvent.click(within(panel).getByTestId("recall-checks-propose"));
    expect(await within(panel).findByTestId("recall-proposal-verdict")).toHaveTextContent("运行时没有配置向量模型");
    expect(within(panel).queryByTestId("recall-proposal-save")).toBeNull();
    fireEvent.click(within(panel).getByTestId("recall-proposal-close"));
    expect(within(panel).queryByTestId("recall-proposal")).toBeNull();
  });

  it("tells when a change broke a check, once, with a way to it", async () => {
    const { backend } = renderApp("#/agents", "runtime_recall_mock");
    const broken = check({
      passed: false,
      broken: true,
      just_broke: true,
      found: [],
      missing: ["a3-0badcafe"],
      ran: "2026-12-06 13:00:00",
      changes: [{ id: "ch-del", at: "2026-12-06 12:59:59", op: "delete", undoable: true }],
    });
    backend.stub("recall_checks", () => list([broken]));
    await screen.findByRole("heading", { level: 1 });
    backend.announce({ kind: "checks", agent: "assistant" });
    const asked = () => sent(backend, "recall_checks").length;
    expect(await screen.findByTestId("broken-check-notice")).toHaveTextContent(`A change broke the recall check “${Q}” of assistant.`);
    expect(screen.getByTestId("broken-check-open")).toHaveTextContent("Open");
    fireEvent.click(screen.getByTestId("toast-close"));
    await waitFor(() => expect(screen.queryByTestId("broken-check-notice")).toBeNull());
    // The same break announced again (another run, still failing) is not told twice.
    const before = asked();
    backend.announce({ kind: "checks", agent: "assistant" });
    await waitFor(() => expect(asked()).toBeGreaterThan(before));
    expect(screen.queryByTestId("broken-check-notice")).toBeNull();
  });
});
