import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";

import type { AgentRecallDto } from "../../backend/types";
import { recordedResult } from "../../test/recorded";
import { renderApp } from "../../test/render";

const Q = "用户喜欢什么样的回答风格";
const PAGE = `#/recall?agent=assistant&q=${encodeURIComponent(Q)}`;

describe("What the agent gets", () => {
  it("shows the runtime's fused answer first, each entry with its routes, then the near misses", async () => {
    renderApp(PAGE, "runtime_recall_mock");
    const answer = recordedResult("runtime_recall_mock", "agent_recall", { agent: "assistant", keyword: Q, trial: null }) as AgentRecallDto;
    expect(answer.engine).toBe("fusion");
    const card = await screen.findByTestId("agent-answer");
    // First on the page: before the console's own search (shown once the root is known to be an
    // install, which is another answer that may come later).
    const head = await screen.findByTestId("recall-console-head");
    expect(card.compareDocumentPosition(head) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    expect(await within(card).findByTestId("agent-answer-engine")).toHaveAttribute("data-engine", "fusion");
    const rows = within(card).getAllByTestId("agent-answer-row");
    expect(rows).toHaveLength(answer.results.length);
    expect(rows[0]).toHaveTextContent(answer.results[0]!.content);
    expect(rows[0]).toHaveTextContent(answer.results[0]!.score!.toFixed(5));
    expect(within(card).getAllByTestId("agent-answer-miss")).toHaveLength(answer.near_misses.length);
    expect(within(card).getByTestId("agent-answer-text").textContent).toBe(answer.text);
    // The console's columns no longer claim to be what recall_memory uses.
    expect(screen.queryByTestId("recall-configured")).toBeNull();
  });

  it("tries other weights on the query without saving them", async () => {
    const { backend } = renderApp(PAGE, "runtime_recall_mock");
    const card = await screen.findByTestId("agent-answer");
    await within(card).findAllByTestId("agent-answer-row");
    fireEvent.change(within(card).getByTestId("agent-try-semantic"), { target: { value: "3" } });
    fireEvent.change(within(card).getByTestId("agent-try-recency"), { target: { value: "0.5" } });
    fireEvent.change(within(card).getByTestId("agent-try-topK"), { target: { value: "5" } });
    fireEvent.click(within(card).getByTestId("agent-try-run"));
    await within(card).findByTestId("agent-answer-trial");
    const trial = recordedResult("runtime_recall_mock", "agent_recall", {
      agent: "assistant",
      keyword: Q,
      trial: { semantic: 3, keyword: 1, recency: 0.5, topK: 5 },
    }) as AgentRecallDto;
    await waitFor(() => expect(within(card).getAllByTestId("agent-answer-row")).toHaveLength(trial.results.length));
    expect(backend.calls.filter((c) => c.op === "set_runtime_value")).toHaveLength(0);
  });

  it("is not shown on a bare root, where the console's tool path answers", async () => {
    renderApp(PAGE, "recall");
    await screen.findByTestId("recall-columns");
    await screen.findByTestId("recall-configured");
    await waitFor(() => expect(screen.queryByTestId("agent-answer")).toBeNull());
  });
});
