import { act, fireEvent, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";

import type { ChangeDto } from "../../backend/types";
import { recordedResult, recordedWrite, type RecordedBackend } from "../../test/recorded";
import { translate } from "../../i18n";
import { renderApp } from "../../test/render";
import { describeChange } from "./ChangeToast";

// The "notes" agent of the curation states: 3 core and 8 archival entries with fixed times (its
// ids are the same in every recording).
const A3 = { id: "a3-d819e17b", content: "Booked the design review for Tuesday 10:00." };
const EDITED = "Booked the design review for\nWednesday  10:00.";
const THREE = ["a0-128f67ec", "a1-fd68ec8b", "a2-a2d8b95d"];

const rowOf = (id: string) => document.querySelector<HTMLElement>(`[data-testid="archival-row"][data-entry-id="${id}"]`);
const archivalText = () => screen.getByTestId("archival-table").textContent ?? "";

async function openNotes(state: Parameters<typeof renderApp>[1] = "curation") {
  const r = renderApp("#/agents/notes", state);
  await waitFor(() => expect(rowOf("a0-128f67ec") ?? rowOf("a3-eda6ab5a") ?? rowOf("a0-81aa30e9")).not.toBeNull());
  return r;
}

/** Selects a0..a2 (a click, then Shift+click) and deletes them through the confirmation. */
async function deleteThree(backend: RecordedBackend) {
  fireEvent.click(within(rowOf(THREE[0]!)!).getByTestId("row-select"));
  fireEvent.click(within(rowOf(THREE[2]!)!).getByTestId("row-select"), { shiftKey: true });
  await waitFor(() => expect(screen.getByTestId("bulk-count")).toHaveTextContent("3 entries selected"));
  for (const id of THREE) expect(rowOf(id)).toHaveAttribute("aria-selected", "true");
  fireEvent.click(screen.getByTestId("bulk-delete"));
  const dialog = await screen.findByTestId("bulk-confirm");
  expect(dialog).toHaveTextContent("Delete 3 entries?");
  const impact = recordedResult("curation", "selection_impact", { agent: "notes", ids: THREE, action: "delete" });
  const size = await within(dialog).findByTestId("bulk-impact-size");
  expect(size).toHaveTextContent(`3 entries, ${impact.chars} characters`);
  expect(impact.leaving_prompt_chars).toBeGreaterThan(0);
  expect(within(dialog).getByTestId("bulk-impact-prompt")).toHaveTextContent(`${impact.leaving_prompt_chars} characters leave the prompt`);
  expect(within(dialog).getByTestId("bulk-impact-prompt")).toHaveTextContent(`${impact.prompt_chars_before} → ${impact.prompt_chars_after} characters`);
  fireEvent.click(within(dialog).getByTestId("bulk-confirm-ok"));
  await waitFor(() => expect(backend.calls.some((c) => c.op === "delete_entries")).toBe(true));
  expect(backend.calls.find((c) => c.op === "delete_entries")!.args).toEqual({
    agent: "notes",
    entries: [
      { id: "a0-128f67ec", expect: "Drafted the weekly report (4 sections)." },
      { id: "a1-fd68ec8b", expect: "Summarised the gateway logs: 3 errors, pool exhausted." },
      { id: "a2-a2d8b95d", expect: "提醒：周五 10:00 续期 TLS 证书。" },
    ],
  });
  await waitFor(() => expect(archivalText()).not.toContain("Drafted the weekly report"));
  expect(screen.queryByTestId("bulk-confirm")).toBeNull();
  expect(screen.queryByTestId("bulk-bar")).toBeNull();
}

describe("Curating memory", () => {
  it("edits an entry inline: Esc cancels, Enter saves what was typed, the sanitised form shown first", async () => {
    const { backend } = await openNotes();
    const row = rowOf(A3.id)!;
    fireEvent.click(within(row).getByTestId("row-edit"));
    const input = within(rowOf(A3.id)!).getByTestId("entry-editor-input");
    expect(input).toHaveValue(A3.content);
    expect(document.activeElement).toBe(input);
    fireEvent.change(input, { target: { value: "something else" } });
    fireEvent.keyDown(input, { key: "Escape" });
    expect(screen.queryByTestId("entry-editor")).toBeNull();
    expect(rowOf(A3.id)).toHaveTextContent(A3.content);
    // Focus goes back to the row; Enter there opens the editor again.
    await waitFor(() => expect(document.activeElement).toBe(rowOf(A3.id)));
    fireEvent.keyDown(rowOf(A3.id)!, { key: "Enter" });
    const again = within(rowOf(A3.id)!).getByTestId("entry-editor-input");
    expect(again).toHaveValue(A3.content);
    fireEvent.change(again, { target: { value: EDITED } });
    // The console's sanitised form, before saving.
    const preview = await screen.findByTestId("entry-editor-preview", undefined, { timeout: 2000 });
    expect(preview).toHaveTextContent("Will be stored as: Booked the design review for Wednesday 10:00.");
    fireEvent.keyDown(again, { key: "Enter" });
    await waitFor(() => expect(backend.calls.some((c) => c.op === "edit_entry")).toBe(true));
    expect(backend.calls.filter((c) => c.op === "edit_entry").map((c) => c.args)).toEqual([
      { agent: "notes", id: A3.id, expect: A3.content, content: EDITED, restamp: false },
    ]);
    const edited = await waitFor(() => {
      const r = rowOf("a3-eda6ab5a");
      expect(r).not.toBeNull();
      return r!;
    });
    expect(edited).toHaveTextContent("Booked the design review for Wednesday 10:00.");
    expect(screen.queryByTestId("entry-editor")).toBeNull();
    expect(screen.getByTestId("toast")).toHaveTextContent("Edited 1 entry");
    expect(screen.getByTestId("toast-undo")).toBeInTheDocument();
  });

  it("deletes three entries with a Shift+click range after a confirmation that says what leaves the prompt", async () => {
    const { backend } = await openNotes();
    await deleteThree(backend);
    expect(screen.getByTestId("toast")).toHaveTextContent("Deleted 3 entries");
    expect(backend.state).toBe("curation_deleted");
  });

  it("Ctrl+Z undoes the last change, outside text fields", async () => {
    const { backend } = await openNotes();
    await deleteThree(backend);
    // Typing Ctrl+Z in a text field is the field's own undo.
    const search = screen.getByTestId("memory-search");
    search.focus();
    fireEvent.keyDown(search, { key: "z", ctrlKey: true });
    expect(backend.calls.some((c) => c.op === "undo_change")).toBe(false);
    search.blur();
    fireEvent.keyDown(document.body, { key: "z", ctrlKey: true });
    await waitFor(() => expect(backend.calls.some((c) => c.op === "undo_change")).toBe(true));
    expect(backend.calls.find((c) => c.op === "undo_change")!.args).toEqual({ agent: "notes" });
    await waitFor(() => expect(archivalText()).toContain("Drafted the weekly report"));
    expect(screen.getByTestId("toast")).toHaveTextContent("Undid a change to 3 entries");
    expect(screen.getByTestId("toast-redo")).toBeInTheDocument();
  });

  it("Undo in the toast takes back that change by its id", async () => {
    const { backend } = await openNotes();
    // The recording undid the last change (the delete); the toast names it.
    backend.rewrite("undo_change", (a) => ({ agent: (a as { agent: string }).agent }));
    await deleteThree(backend);
    expect(screen.getByTestId("toast")).toHaveTextContent("Deleted 3 entries · Undo");
    fireEvent.click(screen.getByTestId("toast-undo"));
    const deleted = recordedWrite("curation_deleted") as ChangeDto;
    await waitFor(() => expect(backend.calls.find((c) => c.op === "undo_change")?.args).toEqual({ agent: "notes", change_id: deleted.id }));
    await waitFor(() => expect(archivalText()).toContain("Drafted the weekly report"));
    expect(backend.state).toBe("curation_undone");
  });

  it("shows the history: word diff of an edit, struck deletions, Restore and Undo", async () => {
    const { backend } = await openNotes("curation_history");
    const history = recordedResult("curation_history", "memory_history", { agent: "notes", limit: 50 });
    const [del, edit] = history.changes;
    expect(del!.op).toBe("delete");
    expect(edit!.op).toBe("edit");
    backend.stub("restore_entry", (a) => {
      const { entry_id } = a as { entry_id: string };
      const before = del!.entries.find((d) => d.before?.id === entry_id)!.before!;
      return { ...del!, id: "restore-1", op: "restore", reverts: del!.id, entries: [{ before: null, after: before }] } satisfies ChangeDto;
    });
    screen.getByTestId("history-open").focus();
    fireEvent.click(screen.getByTestId("history-open"));
    const panel = await screen.findByTestId("history-panel");
    expect(panel).toHaveTextContent("History — notes");
    const changes = await within(panel).findAllByTestId("history-change");
    expect(changes.map((c) => c.getAttribute("data-op"))).toEqual(["delete", "edit"]);
    // The edit: only the changed word is struck and added.
    const editEl = changes[1]!;
    expect(Array.from(editEl.querySelectorAll("del")).map((e) => e.textContent)).toEqual(["Tuesday"]);
    expect(Array.from(editEl.querySelectorAll("ins")).map((e) => e.textContent)).toEqual(["Wednesday"]);
    // The deletion: each entry struck, with Restore.
    const delEl = changes[0]!;
    expect(Array.from(delEl.querySelectorAll("del.diff-del")).map((e) => e.textContent)).toEqual([
      "整理了本周的会议纪要，共 3 份。",
      "Lin prefers Rust examples over Python.",
    ]);
    expect(within(delEl).getAllByTestId("history-restore")).toHaveLength(2);
    expect(within(delEl).getByTestId("history-undo")).toBeInTheDocument();
    fireEvent.click(within(delEl).getAllByTestId("history-restore")[1]!);
    await waitFor(() => expect(backend.calls.find((c) => c.op === "restore_entry")?.args).toEqual({ agent: "notes", change_id: del!.id, entry_id: "a6-a46ffa09" }));
    expect(await screen.findByTestId("toast")).toHaveTextContent("Restored 1 entry");
    // Escape closes the panel and gives the focus back to its button.
    fireEvent.keyDown(panel, { key: "Escape" });
    expect(screen.queryByTestId("history-panel")).toBeNull();
    expect(document.activeElement).toBe(screen.getByTestId("history-open"));
  });

  it("marks an undone change and offers Redo", async () => {
    await openNotes("curation_undone");
    fireEvent.click(screen.getByTestId("history-open"));
    const panel = await screen.findByTestId("history-panel");
    const changes = await within(panel).findAllByTestId("history-change");
    expect(changes.map((c) => [c.getAttribute("data-op"), c.getAttribute("data-undone")])).toEqual([
      ["undo", "false"],
      ["delete", "true"],
    ]);
    expect(within(changes[1]!).getByTestId("history-undone")).toHaveTextContent("undone");
    expect(within(changes[1]!).queryByTestId("history-undo")).toBeNull();
    // Its entries are back: nothing to restore.
    expect(within(changes[1]!).queryByTestId("history-restore")).toBeNull();
    expect(within(changes[0]!).queryByTestId("history-undo")).toBeNull();
    expect(within(panel).getByTestId("history-redo")).toBeEnabled();
  });

  it("names automatic summaries in the history and the toast, and can undo them (#15)", async () => {
    const { backend } = await openNotes("curation_history");
    const recorded = recordedResult("curation_history", "memory_history", { agent: "notes", limit: 50 });
    // The shape of a recorded change; the op the console's automatic mode records (no recording
    // has one: the mode acts on the runtime's writes, in the background).
    const summaryEntry = { ...recorded.changes[0]!.entries[0]!.before!, id: "a8-5a1e0001", content: "〔摘要 2026-06-03～2026-06-09 10:00，3 条〕…" };
    const auto: ChangeDto = { ...recorded.changes[0]!, id: "auto-1", op: "autosummary", reverts: null, undone: false, entries: [{ before: null, after: summaryEntry }] };
    backend.stub("memory_history", () => ({ ...recorded, changes: [auto, ...recorded.changes], total: recorded.total + 1 }));
    backend.stub("undo_change", () => ({ ...auto, id: "undo-1", op: "undo", reverts: "auto-1", entries: [{ before: summaryEntry, after: null }] }) satisfies ChangeDto);
    fireEvent.click(screen.getByTestId("history-open"));
    const panel = await screen.findByTestId("history-panel");
    const [first] = await within(panel).findAllByTestId("history-change");
    expect(first).toHaveAttribute("data-op", "autosummary");
    expect(first).toHaveTextContent("Automatic summary");
    fireEvent.click(within(first!).getByTestId("history-undo"));
    await waitFor(() => expect(backend.calls.find((c) => c.op === "undo_change")?.args).toEqual({ agent: "notes", change_id: "auto-1" }));
    expect(describeChange((k, v) => translate("en", k, v), String, auto)).toBe("Automatic summary of 1 entry");
    expect(describeChange((k, v) => translate("zh", k, v), String, auto)).toBe("自动摘要了 1 条条目");
  });

  it("moves an entry to core from its row", async () => {
    const { backend } = await openNotes();
    fireEvent.click(within(rowOf("a6-a46ffa09")!).getByTestId("row-to-core"));
    await waitFor(() => expect(backend.state).toBe("curation_moved"));
    expect(await within(screen.getByTestId("core-table")).findByText("Lin prefers Rust examples over Python.")).toBeInTheDocument();
    expect(screen.getByTestId("toast")).toHaveTextContent("Moved 1 entry to core");
  });

  it("Ctrl+A selects every core entry; Escape clears the selection", async () => {
    await openNotes();
    const first = screen.getAllByTestId("core-row")[0]!;
    first.focus();
    fireEvent.keyDown(first, { key: "a", ctrlKey: true });
    expect(screen.getByTestId("bulk-count")).toHaveTextContent("3 entries selected");
    expect(screen.getByTestId("bulk-to-core")).toBeDisabled();
    expect(screen.getByTestId("bulk-to-archival")).toBeEnabled();
    fireEvent.keyDown(first, { key: "Escape" });
    expect(screen.queryByTestId("bulk-bar")).toBeNull();
  });
});

describe("Review", () => {
  it("asks to mark all reviewed before anything is marked new", async () => {
    const { backend } = await openNotes();
    expect(screen.getByTestId("review-hint")).toHaveTextContent("Mark all reviewed to track new entries");
    expect(screen.queryByTestId("new-badge")).toBeNull();
    // Never reviewed (the agents list says so): its ids are not even asked for.
    expect(backend.calls.some((c) => c.op === "review_status")).toBe(false);
    fireEvent.click(screen.getByTestId("review-mark"));
    await waitFor(() => expect(screen.getByTestId("review-count")).toHaveTextContent("No new entries since the review of 2026-07-01 09:00:00"));
    expect(backend.calls.find((c) => c.op === "mark_reviewed")!.args).toEqual({ agent: "notes" });
  });

  it("badges the entries new since the review, filters to them, and counts them in the agents list", async () => {
    const review = recordedResult("curation_new", "review_status", { agent: "notes" });
    expect(review.ids).toEqual(["a3-eda6ab5a"]);
    await openNotes("curation_new");
    await waitFor(() => expect(screen.getAllByTestId("new-badge")).toHaveLength(1));
    expect(rowOf("a3-eda6ab5a")).toContainElement(screen.getByTestId("new-badge"));
    expect(screen.getByTestId("review-count")).toHaveTextContent("1 new since the review of 2026-07-01 09:00:00");
    fireEvent.click(screen.getByTestId("review-new-only"));
    await waitFor(() => expect(screen.getAllByTestId("archival-row")).toHaveLength(1));
    expect(screen.getAllByTestId("archival-row")[0]).toHaveAttribute("data-entry-id", "a3-eda6ab5a");
    expect(screen.queryAllByTestId("core-row")).toHaveLength(0);
    expect(screen.getByText("No new core entries.")).toBeInTheDocument();
    act(() => {
      window.location.hash = "#/agents";
    });
    expect(await screen.findByTestId("agent-new-notes")).toHaveTextContent("1 new");
  });
});
