import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";

import { BackendError, useBackend } from "../backend";
import type { ChangeEvent } from "../backend";
import type { SessionQuery } from "../backend/types";
import { qk } from "./keys";

export function useSettings() {
  const b = useBackend();
  // Polled: a root deleted or unmounted while the console is open sends no change event (the
  // watcher goes with it), and the banner must still appear. While the memory backend cannot be
  // reached, more often: the banner goes as soon as a call reaches it again.
  return useQuery({
    queryKey: qk.settings,
    queryFn: () => b.getSettings(),
    refetchInterval: (q) => (q.state.data?.effective.backend_problem ? 5_000 : 15_000),
  });
}

/** A call that could not reach the memory backend (mem0 down) is what settings' backend_problem
 * then reports: asks for the settings again at once, so the banner does not wait for the poll. */
export function useBackendProblemRefresh() {
  const qc = useQueryClient();
  useEffect(() => {
    const unreachable = (e: unknown) => e instanceof BackendError && (e.code === "backend_unavailable" || e.code === "timeout");
    const refresh = () => void qc.invalidateQueries({ queryKey: qk.settings });
    const offQueries = qc.getQueryCache().subscribe((e) => {
      if (e.type === "updated" && e.action.type === "error" && e.query.queryKey[0] !== qk.settings[0] && unreachable(e.action.error)) refresh();
    });
    const offMutations = qc.getMutationCache().subscribe((e) => {
      if (e.type === "updated" && e.action.type === "error" && unreachable(e.action.error)) refresh();
    });
    return () => {
      offQueries();
      offMutations();
    };
  }, [qc]);
}

export function useAgents() {
  const b = useBackend();
  return useQuery({ queryKey: qk.agents, queryFn: () => b.listAgents() });
}

export function useAgent(name: string) {
  const b = useBackend();
  return useQuery({ queryKey: qk.agent(name), queryFn: () => b.getAgent(name) });
}

export function useMemoryView(agent: string | null) {
  const b = useBackend();
  return useQuery({ queryKey: qk.memory(agent), queryFn: () => b.memoryView(agent) });
}

export function useMemoryOverview(agent: string | null) {
  const b = useBackend();
  return useQuery({ queryKey: qk.memoryOverview(agent), queryFn: () => b.memoryOverview(agent) });
}

export function useRecall(agent: string | null, keyword: string) {
  const b = useBackend();
  return useQuery({
    queryKey: qk.recall(agent, keyword),
    queryFn: () => b.recallMemory(agent, keyword),
    enabled: keyword.trim() !== "",
  });
}

export function useSessions(q: SessionQuery) {
  const b = useBackend();
  return useQuery({ queryKey: qk.sessions(q), queryFn: () => b.listSessions(q), placeholderData: (prev) => prev });
}

export function useSession(id: string) {
  const b = useBackend();
  return useQuery({ queryKey: qk.session(id), queryFn: () => b.getSession(id) });
}

export function useInvocations(sessionId: string) {
  const b = useBackend();
  return useQuery({ queryKey: qk.invocations(sessionId), queryFn: () => b.toolInvocations(sessionId, 500, 0) });
}

/** `query`: the message the episodic part is chosen for (null: the session's last user message). */
export function usePrompt(agent: string, sessionId: string | null, query: string | null = null) {
  const b = useBackend();
  return useQuery({
    queryKey: qk.promptWith(agent, sessionId, query),
    queryFn: () => b.promptPreview(agent, sessionId, query ?? undefined),
    placeholderData: (prev) => prev,
  });
}

export function useFiles() {
  const b = useBackend();
  return useQuery({ queryKey: qk.files, queryFn: () => b.bootstrapFiles() });
}

/** Live refresh: each change event invalidates the queries it can affect. */
export function useChangeEvents() {
  const b = useBackend();
  const qc = useQueryClient();
  useEffect(
    () =>
      b.onChange((e: ChangeEvent) => {
        void invalidateFor(qc, e);
      }),
    [b, qc],
  );
}

export async function invalidateFor(qc: ReturnType<typeof useQueryClient>, e: ChangeEvent) {
  switch (e.kind) {
    case "memory":
      await Promise.all([
        qc.invalidateQueries({ queryKey: qk.memory(e.agent) }),
        qc.invalidateQueries({ queryKey: qk.recallAll(e.agent) }),
        // The index counts follow the entries (indexed / entries, stale vectors).
        qc.invalidateQueries({ queryKey: qk.indexStatus }),
        qc.invalidateQueries({ queryKey: qk.agents }),
        qc.invalidateQueries({ queryKey: qk.agentsHealth }),
        e.agent ? qc.invalidateQueries({ queryKey: qk.agent(e.agent) }) : Promise.resolve(),
        e.agent ? qc.invalidateQueries({ queryKey: qk.prompt(e.agent) }) : qc.invalidateQueries({ queryKey: qk.prompt() }),
      ]);
      return;
    case "agents":
      await Promise.all(
        [qk.agents, qk.agentAll, qk.agentFileAll, qk.archived, qk.rootSkills, qk.prompt(), qk.files, qk.agentsHealth].map((queryKey) => qc.invalidateQueries({ queryKey })),
      );
      return;
    case "sessions":
      await Promise.all(
        // The database also holds the sqlite backend's memory_entries.
        [qk.sessions(), qk.session(), qk.invocations(), qk.prompt(), qk.agents, qk.memoryAll, qk.recallEvery, qk.indexStatus, qk.episodicAll, qk.searchEverywhereAll, qk.agentsHealth].map((queryKey) =>
          qc.invalidateQueries({ queryKey }),
        ),
      );
      return;
    case "settings":
      // Everything, the recall tester and the index status included: the root, the backend,
      // the recall mode, floor and limit may all have changed.
      await qc.invalidateQueries();
      return;
  }
}
