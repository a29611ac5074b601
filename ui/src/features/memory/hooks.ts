// The memory screen's server calls outside the archival pages (archival.ts).
import { useMutation, useQuery } from "@tanstack/react-query";

import { useBackend } from "../../backend";
import type { AppendResult, ScopeDto } from "../../backend/types";
import { qk } from "../../queries/keys";

/** How the console would store `content` (sanitised, one line): the rule lives in Rust. */
export function usePreviewEntry(content: string) {
  const backend = useBackend();
  return useQuery({
    queryKey: qk.preview(content),
    queryFn: () => backend.previewEntry(content),
    enabled: content.trim() !== "",
    retry: false,
    staleTime: 60_000,
  });
}

export function useAppendMemory(agent: string | null, onSuccess: (r: AppendResult) => Promise<void> | void) {
  const backend = useBackend();
  return useMutation({
    mutationFn: ({ scope, content }: { scope: ScopeDto; content: string }) => backend.appendMemory({ agent, scope, content }),
    onSuccess,
  });
}

/** The newest archival entries of an owner, for finding the row just added. */
export function useNewestArchival(agent: string | null) {
  const backend = useBackend();
  return (limit: number) => backend.archivalPage({ agent, offset: 0, limit, newest_first: true, keyword: null });
}
