// Memory health, stats and the summary proposal of one owner. Every rule (what is a secret, a
// duplicate, a stale entry, what the summary says) lives in the console; the screen only asks.
import { useQuery } from "@tanstack/react-query";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";

import { BackendError, useBackend } from "../../backend";
import type { SummaryProposalDto } from "../../backend/types";
import { useMemoryView } from "../../queries/hooks";
import { qk } from "../../queries/keys";

export function useHealth(agent: string | null) {
  const b = useBackend();
  return useQuery({ queryKey: qk.health(agent), queryFn: () => b.memoryHealth({ agent }) });
}

export function useStats(agent: string | null) {
  const b = useBackend();
  return useQuery({ queryKey: qk.stats(agent), queryFn: () => b.memoryStats(agent) });
}

/** Entries outside the window, from the stats the tab has just read (no second request when it
 * is fresh; a memory change refreshes it like the stats). */
export function useOutsideWindow(agent: string | null) {
  const b = useBackend();
  return useQuery({ queryKey: qk.stats(agent), queryFn: () => b.memoryStats(agent), select: (s) => s.outside_window, staleTime: 10_000 });
}

export function useSummaryProposal(agent: string | null) {
  const b = useBackend();
  return useQuery({ queryKey: qk.summary(agent), queryFn: () => b.proposeSummary(agent) });
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
  const b = useBackend();
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
    b.proposeSummary(agent, true).then(
      (proposal) => {
        if (current.current === id) setResult({ state: "done", proposal });
      },
      (e: unknown) => {
        if (current.current === id) setResult({ state: "error", error: BackendError.from(e) });
      },
    );
  }, [b, agent]);
  const cancel = useCallback(() => {
    current.current++;
    setResult({ state: "idle" });
  }, []);
  return { result, ask, cancel };
}

/** Where an entry is and what it holds (the `expect` of a fix), by id, from the owner's view. */
export type EntryInfo = { id: string; scope: "core" | "archival"; index: number; content: string };

export function useEntriesById(agent: string | null): { byId: ReadonlyMap<string, EntryInfo>; loaded: boolean } {
  const view = useMemoryView(agent);
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
export const CHECK_ORDER = ["secrets", "pii", "duplicates", "stale", "budget"] as const;

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
