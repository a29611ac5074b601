import type { ArchivalEntryDto } from "../../backend/types";
import { matchesKeyword } from "../../backend/memory-rules";

/** A display row: an archival entry (by its file index) or the window cut line. */
export type DisplayItem = number | "cut";
export type SortDir = "asc" | "desc";

/**
 * Filters (recall rule), orders (file order = time order) and inserts the cut line between the
 * last entry outside the window and the first one inside it, when both are shown.
 */
export function displayItems(entries: ArchivalEntryDto[], keyword: string, dir: SortDir): DisplayItem[] {
  const k = keyword.trim();
  const idx: number[] = [];
  for (let i = 0; i < entries.length; i++) {
    if (!k || matchesKeyword(entries[i]!.content, k)) idx.push(i);
  }
  if (dir === "desc") idx.reverse();
  const out: DisplayItem[] = [];
  for (let p = 0; p < idx.length; p++) {
    const i = idx[p]!;
    if (p > 0) {
      const prev = entries[idx[p - 1]!]!;
      if (prev.in_window !== entries[i]!.in_window) out.push("cut");
    }
    out.push(i);
  }
  return out;
}
