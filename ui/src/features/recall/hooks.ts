// The recall page's server calls: the recall tester (one query per mode) and the semantic index.
import { useMutation, useQueryClient, type UseQueryResult } from "@tanstack/react-query";
import { useEffect, useRef } from "react";

import { useBackend } from "../../backend";
import type { IndexJobDto, IndexStatusDto, RecallModeDto } from "../../backend/types";
import { opKey, useOp } from "../../queries/ops";

export const MODES: readonly RecallModeDto[] = ["keyword", "semantic", "hybrid"];

/** `keyword` recalled from `agent`'s memory (null: global) in `mode`, with the configured floor and
 * limit. Semantic and hybrid embed the owner's new entries first, so they may take a while. */
export function useRecallIn(agent: string | null, keyword: string, mode: RecallModeDto) {
  return useOp("recall_memory", { agent, keyword, mode }, {
    enabled: keyword.trim() !== "",
    // A missing model is an answer to show, not a hiccup to retry.
    retry: false,
  });
}

/** The messages of `agent`'s past sessions closest in meaning to `query` (episodic memory). The
 * first search embeds the agent's new session messages, so it may take a while. */
export function useEpisodicSearch(agent: string | null, query: string) {
  return useOp("episodic_search", { agent: agent ?? "", query }, {
    enabled: agent !== null && query.trim() !== "",
    // A missing model is an answer to show, not a hiccup to retry.
    retry: false,
  });
}

/** How often a running build's progress is asked for, and the owners' counts beside it (the
 * counts read every owner's entries: on a large root that is work, not a glance). */
const BUILD_POLL_MS = 500;
const COUNTS_POLL_MS = 5_000;

/** The model, the vector file and each owner's counts; refreshed every few seconds while a build
 * runs and when it ends (its progress: useIndexJob). */
export function useIndexStatus() {
  return useOp("index_status", {}, {
    refetchInterval: (q) => (q.state.data?.job?.running ? COUNTS_POLL_MS : false),
  });
}

/** The build shown beside `status`: polled alone every 500 ms while it runs; when it ends the
 * status is asked for again, for the counts it changed. Whichever answer is newer is shown. */
export function useIndexJob(status: UseQueryResult<IndexStatusDto>): IndexJobDto | null {
  const qc = useQueryClient();
  const build = useOp("index_build", {}, {
    enabled: status.data?.job?.running ?? false,
    refetchInterval: (q) => (q.state.data?.running === false ? false : BUILD_POLL_MS),
  });
  const polledRunning = build.data?.running ?? false;
  const wasRunning = useRef(false);
  useEffect(() => {
    if (wasRunning.current && !polledRunning) void qc.invalidateQueries({ queryKey: opKey("index_status", {}) });
    wasRunning.current = polledRunning;
  }, [polledRunning, qc]);
  const fromStatus = status.data?.job ?? null;
  return build.data !== undefined && build.dataUpdatedAt > status.dataUpdatedAt ? build.data : fromStatus;
}

/** Build (one owner, or every owner with null), cancel and clear the index. */
export function useIndexActions() {
  const { call } = useBackend();
  const qc = useQueryClient();
  const refresh = () => Promise.all([opKey("index_status", {}), opKey("index_build", {})].map((queryKey) => qc.invalidateQueries({ queryKey })));
  return {
    build: useMutation({ mutationFn: (agent: string | null) => call("build_index", { agent }), onSettled: refresh }),
    cancel: useMutation({ mutationFn: () => call("cancel_index_build", {}), onSettled: refresh }),
    clear: useMutation({
      mutationFn: () => call("clear_index", {}),
      onSuccess: (status: IndexStatusDto) => qc.setQueryData(opKey("index_status", {}), status),
    }),
  };
}
