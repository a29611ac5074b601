// Curation: editing, deleting and moving entries, undo / redo / restore, review marks. Every rule
// (sanitising, ids, the window, what a change does) lives in the console; this file only calls it
// and refreshes what a change can affect.
import { useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useRef, useState } from "react";

import { BackendError, useBackend } from "../../backend";
import type { ChangeDto, EntryRef, ScopeDto, SelectionActionDto } from "../../backend/types";
import { invalidateFor, useOp } from "../../queries/ops";

/** Changes the History panel asks for at first ("Show more" adds as many again). */
export const HISTORY_PAGE = 50;

/** One selected entry: its id, the content the user saw (`expect`), where it is. */
export type Picked = { id: string; scope: ScopeDto; index: number; content: string };

/** Selection order for requests: core before archival, each in file order. */
export function orderPicked(list: Iterable<Picked>): Picked[] {
  return Array.from(list).sort((a, b) => (a.scope === b.scope ? a.index - b.index : a.scope === "core" ? -1 : 1));
}

export function refsOf(list: Picked[]): EntryRef[] {
  return list.map((p) => ({ id: p.id, expect: p.content }));
}

/** Entries new since the last "Mark all reviewed". `enabled` false when the owner is known to be
 * never reviewed (the agents list says `unreviewed: null`): then nothing is marked new. */
export function useReview(agent: string | null, enabled: boolean) {
  return useOp("review_status", { agent }, { enabled });
}

export function useHistory(agent: string | null, limit: number, enabled: boolean) {
  return useOp("memory_history", { agent, limit }, { enabled, placeholderData: (prev) => prev });
}

export function useSelectionImpact(agent: string | null, ids: string[], action: SelectionActionDto | null) {
  // Asked each time the confirmation opens; the change it confirms must not ask again.
  return useOp("selection_impact", { agent, ids, action: action ?? "delete" }, {
    enabled: action !== null && ids.length > 0,
    staleTime: 0,
    gcTime: 0,
    retry: false,
    followChanges: false,
  });
}

/** What the screen shows after a call: the change (with its undo) or the error. */
export type Outcome = { change: ChangeDto; error?: undefined } | { change?: undefined; error: BackendError };

/** Whether the data on screen is out of date after this error (refresh and say so). */
export function isStale(e: BackendError): boolean {
  return e.code === "conflict" || e.code === "not_found";
}

/**
 * The curation calls of one owner. Each one refreshes that owner's queries (overview, archival
 * pages, history, review, the agents list, prompt and recall) on success, and also after a
 * `conflict` or `not_found` (the entry changed or went elsewhere: the screen was out of date).
 * `report` gets every outcome (the screen's toast).
 */
export function useCurate(agent: string | null, report: (o: Outcome) => void) {
  const { call } = useBackend();
  const qc = useQueryClient();
  const [pending, setPending] = useState(0);
  const reportRef = useRef(report);
  useEffect(() => {
    reportRef.current = report;
  });

  const refresh = useCallback(() => invalidateFor(qc, { kind: "memory", agent }), [qc, agent]);

  const run = useCallback(
    async (call: () => Promise<ChangeDto>): Promise<Outcome> => {
      setPending((n) => n + 1);
      let outcome: Outcome;
      try {
        const change = await call();
        outcome = { change };
        await refresh();
      } catch (e) {
        const error = BackendError.from(e);
        outcome = { error };
        if (isStale(error)) await refresh();
      } finally {
        setPending((n) => n - 1);
      }
      reportRef.current(outcome);
      return outcome;
    },
    [refresh],
  );

  return {
    pending: pending > 0,
    refresh,
    edit: (id: string, expect: string, content: string, restamp: boolean) => run(() => call("edit_entry", { agent, id, expect, content, restamp })),
    remove: (picked: Picked[]) => run(() => call("delete_entries", { agent, entries: refsOf(picked) })),
    move: (picked: Picked[], to: ScopeDto) => run(() => call("move_entries", { agent, entries: refsOf(picked), to })),
    // Without a change id the console takes back the last change: the argument is left out.
    undo: (changeId?: string) => run(() => call("undo_change", { agent, change_id: changeId || undefined })),
    redo: () => run(() => call("redo_change", { agent })),
    restore: (changeId: string, entryId: string) => run(() => call("restore_entry", { agent, change_id: changeId, entry_id: entryId })),
    markReviewed: async (): Promise<BackendError | null> => {
      try {
        await call("mark_reviewed", { agent });
        await refresh();
        return null;
      } catch (e) {
        return BackendError.from(e);
      }
    },
  };
}

export type Curate = ReturnType<typeof useCurate>;
