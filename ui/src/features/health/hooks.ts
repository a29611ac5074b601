// Memory health, stats and the summary proposal of one owner. Every rule (what is a secret, a
// duplicate, a stale entry, what the summary says) lives in the console; the screen only asks.
import { useCallback, useEffect, useMemo, useRef, useState } from "react";

import { BackendError, useBackend } from "../../backend";
import type { SummaryProposalDto } from "../../backend/types";
import { useOp } from "../../queries/ops";

/** Entries outside the window, from the stats the tab has just read (no second request when it
 * is fresh; a memory change refreshes it like the stats). */
export function useOutsideWindow(agent: string | null) {
  return useOp("memory_stats", { agent }, { select: (s) => s.outside_window, staleTime: 10_000 });
}

/** Asking the LLM summariser: idle, waiting (since `started`, epoch ms), its proposal (null:
 * nothing left to summarise) or its error. */
export type LlmProposal =
  | { state: "idle" }
  | { state: "waiting"; started: number }
  | { state: "done"; proposal: SummaryProposalDto | null }
  | { state: "error"; error: BackendError };

/**
 * The LLM's proposal, asked on demand (it can take up to the configured timeout). `cancel`
 * abandons the request in the screen: its late answer is ignored (the console cannot be told to
 * stop it). Not cached: each ask is a new summary.
 */
export function useLlmSummary(agent: string | null) {
  const { call } = useBackend();
  const [result, setResult] = useState<LlmProposal>({ state: "idle" });
  // The request whose answer is awaited; an answer to any other is dropped.
  const current = useRef(0);
  useEffect(
    () => () => {
      current.current++;
    },
    [],
  );
  const ask = useCallback(() => {
    const id = ++current.current;
    setResult({ state: "waiting", started: Date.now() });
    call("propose_summary", { agent, llm: true }).then(
      (proposal) => {
        if (current.current === id) setResult({ state: "done", proposal });
      },
      (e: unknown) => {
        if (current.current === id) setResult({ state: "error", error: BackendError.from(e) });
      },
    );
  }, [call, agent]);
  const cancel = useCallback(() => {
    current.current++;
    setResult({ state: "idle" });
  }, []);
  return { result, ask, cancel };
}

/** Where an entry is and what it holds (the `expect` of a fix), by id, from the owner's view. */
export type EntryInfo = { id: string; scope: "core" | "archival"; index: number; content: string };

export function useEntriesById(agent: string | null): { byId: ReadonlyMap<string, EntryInfo>; loaded: boolean } {
  const view = useOp("memory_view", { agent });
  const v = view.data;
  const byId = useMemo(() => {
    const m = new Map<string, EntryInfo>();
    if (!v) return m;
    v.core.forEach((e, index) => {
      if (e.id) m.set(e.id, { id: e.id, scope: "core", index, content: e.content });
    });
    v.archival.forEach((e, index) => m.set(e.id, { id: e.id, scope: "archival", index, content: e.content }));
    return m;
  }, [v]);
  return { byId, loaded: v !== undefined };
}

/** The checks in the order the screen shows them (others the console may add come after). */
export const CHECK_ORDER = ["secrets", "poisoning", "pii", "duplicates", "stale", "budget"] as const;

export function groupByCheck<F extends { check: string }>(findings: F[]): [string, F[]][] {
  const groups = new Map<string, F[]>();
  for (const f of findings) {
    const g = groups.get(f.check);
    if (g) g.push(f);
    else groups.set(f.check, [f]);
  }
  const rank = (c: string) => {
    const i = (CHECK_ORDER as readonly string[]).indexOf(c);
    return i < 0 ? CHECK_ORDER.length : i;
  };
  return Array.from(groups.entries()).sort((a, b) => rank(a[0]) - rank(b[0]));
}
