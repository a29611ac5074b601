// Memory health, stats and the summary proposal of one owner. Every rule (what is a secret, a
// duplicate, a stale entry, what the summary says) lives in the console; the screen only asks.
import { useQuery } from "@tanstack/react-query";
import { useMemo } from "react";

import { useBackend } from "../../backend";
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

export function useSummaryProposal(agent: string | null) {
  const b = useBackend();
  return useQuery({ queryKey: qk.summary(agent), queryFn: () => b.proposeSummary(agent) });
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
export const CHECK_ORDER = ["secrets", "pii", "duplicates", "stale"] as const;

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
