import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";

import type { ChangeDto, SupersededDto } from "../../backend/types";
import { type RecordedBackend } from "../../test/recorded";
import { renderApp } from "../../test/render";

// The console has no recording of superseded facts (they need the embedding model): answers are
// stubs shaped like `oryx serve`'s on the demo root with planted pairs; each test checks what was
// sent.
const MOVE = {
  older: { id: "a3-11111111", content: "用户住在杭州西湖区", scope: "archival", timestamp: "2026-11-02 09:00:00" },
  newer: { id: "a9-22222222", content: "用户搬到深圳南山区了", scope: "archival", timestamp: "2026-12-01 10:00:00" },
  score: 0.83,
  reason: "place",
  similarity: 0.61,
} as const;
const TEA = {
  older: { id: "c0-33333333", content: "User prefers tea", scope: "core", timestamp: null },
  newer: { id: "a12-44444444", content: "User switched to coffee", scope: "archival", timestamp: "2026-12-02 08:00:00" },
  score: 0.71,
  reason: "change",
  similarity: 0.52,
} as const;
const DATA: SupersededDto = { agent: "assistant", pairs: [MOVE, TEA], kept: 0 };

function change(id = "ch-1"): ChangeDto {
  return { id, at: "2026-12-06 13:00:00", op: "delete", agent: "assistant", reverts: null, entries: [{ before: null, after: null }], undone: false, forgotten: null } as unknown as ChangeDto;
}

const sent = (b: RecordedBackend, op: string) => b.calls.filter((c) => c.op === op).map((c) => c.args);

async function openQueue(data: SupersededDto = DATA) {
  const r = renderApp("#/agents/assistant/superseded");
  r.backend.stub("superseded", () => data);
  r.backend.stub("resolve_superseded", (args) => { const a = args as { keep: string }; return { agent: "assistant", keep: a.keep, change: a.keep === "both" ? null : change() }; });
  r.backend.stub("superseded_unkeep", () => ({ agent: "assistant", keep: "both", change: null }));
  r.backend.stub("undo_change", () => ({ ...change("ch-2"), op: "undo" }));
  await screen.findByTestId("superseded-tab");
  await screen.findAllByTestId("superseded-pair");
  return r;
}

describe("Superseded facts queue", () => {
  it("shows each pair side by side with times and the reason in words", async () => {
    await openQueue();
    expect(screen.getByTestId("tab-superseded")).toHaveAttribute("aria-selected", "true");
    const pairs = screen.getAllByTestId("superseded-pair");
    expect(pairs).toHaveLength(2);
    expect(within(pairs[0]!).getByTestId("superseded-older")).toHaveTextContent("2026-11-02 09:00:00");
    expect(within(pairs[0]!).getByTestId("superseded-older")).toHaveTextContent(MOVE.older.content);
    expect(within(pairs[0]!).getByTestId("superseded-newer")).toHaveTextContent(MOVE.newer.content);
    expect(within(pairs[0]!).getByTestId("superseded-reason")).toHaveTextContent("Another place");
    // A core entry has no time: said so.
    expect(within(pairs[1]!).getByTestId("superseded-older")).toHaveTextContent("no time (core)");
    expect(screen.getByTestId("superseded-count")).toHaveTextContent("2 pairs");
  });

  it("keeps the newer by button, one change with Undo", async () => {
    const { backend } = await openQueue();
    fireEvent.click(within(screen.getAllByTestId("superseded-pair")[0]!).getByTestId("superseded-keep-newer"));
    await waitFor(() => expect(sent(backend, "resolve_superseded")).toHaveLength(1));
    expect(sent(backend, "resolve_superseded")[0]).toEqual({
      agent: "assistant",
      older: { id: MOVE.older.id, expect: MOVE.older.content },
      newer: { id: MOVE.newer.id, expect: MOVE.newer.content },
      keep: "newer",
    });
    fireEvent.click(await screen.findByTestId("toast-undo"));
    await waitFor(() => expect(sent(backend, "undo_change")).toEqual([{ agent: "assistant", change_id: "ch-1" }]));
  });

  it("moves with j/k and acts with o and b; keep both is undone from its toast", async () => {
    const { backend } = await openQueue();
    const list = screen.getAllByTestId("superseded-pair");
    list[0]!.focus();
    fireEvent.keyDown(list[0]!, { key: "j" });
    expect(list[1]).toHaveAttribute("aria-current", "true");
    expect(document.activeElement).toBe(list[1]);
    fireEvent.keyDown(list[1]!, { key: "o" });
    await waitFor(() => expect(sent(backend, "resolve_superseded")).toHaveLength(1));
    expect(sent(backend, "resolve_superseded")[0]).toMatchObject({ keep: "older", newer: { id: TEA.newer.id } });
    fireEvent.keyDown(list[1]!, { key: "k" });
    expect(list[0]).toHaveAttribute("aria-current", "true");
    fireEvent.keyDown(list[0]!, { key: "b" });
    await waitFor(() => expect(sent(backend, "resolve_superseded")).toHaveLength(2));
    expect(sent(backend, "resolve_superseded")[1]).toMatchObject({ keep: "both", older: { id: MOVE.older.id } });
    fireEvent.click(await screen.findByTestId("superseded-unkeep"));
    await waitFor(() => expect(sent(backend, "superseded_unkeep")).toEqual([{ agent: "assistant", older: MOVE.older.id, newer: MOVE.newer.id }]));
  });

  it("says when there is nothing to review", async () => {
    const r = renderApp("#/agents/assistant/superseded");
    r.backend.stub("superseded", () => ({ agent: "assistant", pairs: [], kept: 2 }));
    expect(await screen.findByTestId("superseded-empty")).toHaveTextContent("No superseded facts");
    expect(screen.getByTestId("superseded-kept")).toHaveTextContent("2 kept both");
  });

  it("the dashboard card counts each agent's pairs and leads to its queue", async () => {
    const r = renderApp("#/dashboard");
    r.backend.stub("sessions_per_day", () => []);
    r.backend.stub("superseded_counts", () => [
      { agent: null, pairs: 1, error: null },
      { agent: "assistant", pairs: 2, error: null },
      { agent: "coder", pairs: 0, error: null },
    ]);
    const link = await screen.findByTestId("superseded-count-assistant");
    expect(link).toHaveTextContent("2 pairs");
    expect(link).toHaveAttribute("href", "#/agents/assistant/superseded");
    expect(screen.queryByTestId("superseded-count-coder")).toBeNull();
  });
});
