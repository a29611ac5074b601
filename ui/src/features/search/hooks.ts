// The header's search box: the console searches every memory and every past session; this only asks.
import { useOp } from "../../queries/ops";

/** Every owner's memory and every agent's past session messages closest in meaning to `query`
 * (null: not asked). The first search embeds what is new, so it may take a while. */
export function useSearchEverywhere(query: string | null) {
  return useOp("search_everywhere", { query: query ?? "" }, {
    enabled: query !== null && query.trim() !== "",
    // A missing model is an answer to show, not a hiccup to retry.
    retry: false,
    staleTime: 30_000,
  });
}
