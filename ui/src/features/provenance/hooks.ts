// Provenance (where an entry came from, which entries a session wrote) and prompt replay: the
// console answers; these hooks only ask.
import { useQuery } from "@tanstack/react-query";

import { useBackend } from "../../backend";
import { derivedKey, useOp } from "../../queries/ops";

/** Where entry `id` of `agent` (null: the global memory) came from; asked only while `id` is set. */
export function useProvenance(agent: string | null, id: string | null) {
  return useOp("entry_provenance", { agent, id: id ?? "" }, { enabled: id !== null });
}

/** The entries the session's messages wrote, by message. */
export function useMemoryLinks(sessionId: string) {
  return useOp("session_memory_links", { id: sessionId });
}

/** Entries a located search reads at most (the server's page limit). */
const LOCATE_LIMIT = 1000;

/**
 * The file-order index and id of archival entry `id`, learnt from the server's own search for its
 * text `find` (recall's rule; the entry contains its own text); null when it is not among the hits
 * (changed or removed since, or in core). With `id` null (an entry found by meaning has no id in
 * MEMORY.md) the newest hit whose text is exactly `find`. Asked only while `on`.
 */
export function useLocateArchival(agent: string | null, id: string | null, find: string | null, on: boolean) {
  const { call } = useBackend();
  return useQuery({
    // Under archival_page of the owner: goes stale with its pages.
    queryKey: derivedKey("archival_page", { agent }, "locate", id ?? "", find ?? ""),
    enabled: on && find !== null && find.trim() !== "",
    queryFn: async () => {
      const page = await call("archival_page", { agent, offset: 0, limit: LOCATE_LIMIT, newest_first: true, keyword: find });
      const hit = page.items.find((e) => (id !== null ? e.id === id : e.content === find));
      return hit ? { index: hit.index, id: hit.id } : null;
    },
  });
}

/** Prompt replay and today's prompt for the same session, side by side. `asof` null: not asked. */
export function usePromptReplay(agent: string, sessionId: string, asof: string | null, index: number) {
  const then = useOp("prompt_preview", { agent, session_id: sessionId, asof: asof ?? "", message_index: index }, { enabled: asof !== null });
  const now = useOp("prompt_preview", { agent, session_id: sessionId });
  return { then, now };
}
