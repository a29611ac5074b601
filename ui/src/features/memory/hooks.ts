// The memory screen's server calls outside the archival pages (archival.ts).
import { useMutation } from "@tanstack/react-query";

import { useBackend } from "../../backend";
import type { AppendResult, ScopeDto } from "../../backend/types";
import { useOp } from "../../queries/ops";

/** How the console would store `content` (sanitised, one line): the rule lives in Rust. */
export function usePreviewEntry(content: string) {
  return useOp("preview_entry", { content }, {
    enabled: content.trim() !== "",
    retry: false,
    staleTime: 60_000,
  });
}

export function useAppendMemory(agent: string | null, onSuccess: (r: AppendResult) => Promise<void> | void) {
  const backend = useBackend();
  return useMutation({
    mutationFn: ({ scope, content }: { scope: ScopeDto; content: string }) => backend.call("append_memory", { agent, scope, content }),
    onSuccess,
  });
}

/** The newest archival entries of an owner, for finding the row just added. */
export function useNewestArchival(agent: string | null) {
  const backend = useBackend();
  return (limit: number) => backend.call("archival_page", { agent, offset: 0, limit, newest_first: true, keyword: null });
}
