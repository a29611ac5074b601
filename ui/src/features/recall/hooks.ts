// The recall page's server calls: the recall tester (one query per mode) and the semantic index.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";

import { useBackend } from "../../backend";
import type { IndexStatusDto, RecallModeDto } from "../../backend/types";
import { qk } from "../../queries/keys";

export const MODES: readonly RecallModeDto[] = ["keyword", "semantic", "hybrid"];

/** `keyword` recalled from `agent`'s memory (null: global) in `mode`, with the configured floor and
 * limit. Semantic and hybrid embed the owner's new entries first, so they may take a while. */
export function useRecallIn(agent: string | null, keyword: string, mode: RecallModeDto) {
  const backend = useBackend();
  return useQuery({
    queryKey: qk.recallMode(agent, keyword, mode),
    queryFn: () => backend.recallMemory(agent, keyword, mode),
    enabled: keyword.trim() !== "",
    // A missing model is an answer to show, not a hiccup to retry.
    retry: false,
  });
}

/** The messages of `agent`'s past sessions closest in meaning to `query` (episodic memory). The
 * first search embeds the agent's new session messages, so it may take a while. */
export function useEpisodicSearch(agent: string | null, query: string) {
  const backend = useBackend();
  return useQuery({
    queryKey: qk.episodic(agent ?? "", query),
    queryFn: () => backend.episodicSearch(agent!, query),
    enabled: agent !== null && query.trim() !== "",
    // A missing model is an answer to show, not a hiccup to retry.
    retry: false,
  });
}

/** The model, the vector file and each owner's counts; polled every 500 ms while a build runs. */
export function useIndexStatus() {
  const backend = useBackend();
  return useQuery({
    queryKey: qk.indexStatus,
    queryFn: () => backend.indexStatus(),
    refetchInterval: (q) => (q.state.data?.job?.running ? 500 : false),
  });
}

/** Build (one owner, or every owner with null), cancel and clear the index. */
export function useIndexActions() {
  const backend = useBackend();
  const qc = useQueryClient();
  const refresh = () => qc.invalidateQueries({ queryKey: qk.indexStatus });
  return {
    build: useMutation({ mutationFn: (agent: string | null) => backend.buildIndex(agent), onSettled: refresh }),
    cancel: useMutation({ mutationFn: () => backend.cancelIndexBuild(), onSettled: refresh }),
    clear: useMutation({
      mutationFn: () => backend.clearIndex(),
      onSuccess: (status: IndexStatusDto) => qc.setQueryData(qk.indexStatus, status),
    }),
  };
}
