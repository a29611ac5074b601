import { useQueries, useQuery, useQueryClient, type QueryClient } from "@tanstack/react-query";
import { useBackend } from "../../backend";
import type { ArchivalItemDto, MemoryOverviewDto } from "../../backend/types";
import { derivedKey, opKey } from "../../queries/ops";

export type SortDir = "asc" | "desc";

/** Entries per archival page request (the server allows up to 1000). */
export const PAGE_SIZE = 200;
/** Rows beyond the visible range whose pages are fetched too, so short scrolls find them loaded. */
const MARGIN = 60;

/** The list being shown: its length and where the window cut line sits (before that row). */
export type ListShape = { total: number; cutAt: number | null };

/**
 * The display list is the entries in the chosen order with the cut line inserted before row
 * `cutAt`: display positions map to rows (positions in the ordered list) or to the cut line.
 */
export function displayCount(s: ListShape): number {
  return s.total + (s.cutAt !== null ? 1 : 0);
}

export function rowAt(s: ListShape, pos: number): number | "cut" {
  if (s.cutAt === null || pos < s.cutAt) return pos;
  if (pos === s.cutAt) return "cut";
  return pos - 1;
}

export function posOfRow(s: ListShape, row: number): number {
  return s.cutAt !== null && row >= s.cutAt ? row + 1 : row;
}

/** The unfiltered list's shape from the overview (the server computes the same `cut_at`). */
export function shapeOf(o: Pick<MemoryOverviewDto, "archival_total" | "window">, dir: SortDir): ListShape {
  const total = o.archival_total;
  const outside = Math.min(o.window.first_in_window, total);
  const cut = outside > 0 && outside < total;
  return { total, cutAt: cut ? (dir === "asc" ? outside : total - outside) : null };
}

/** Row (position in the ordered, unfiltered list) of the entry with file index `index`. */
export function rowOfIndex(total: number, index: number, dir: SortDir): number {
  return dir === "asc" ? index : total - 1 - index;
}

export type Spec = { agent: string | null; keyword: string; dir: SortDir };

function pageQuery(backend: ReturnType<typeof useBackend>, s: Spec, page: number) {
  const args = { agent: s.agent, offset: page * PAGE_SIZE, limit: PAGE_SIZE, newest_first: s.dir === "desc", keyword: s.keyword || null };
  return { queryKey: opKey("archival_page", args), queryFn: () => backend.call("archival_page", args) };
}

/**
 * The shape of the filtered list (total and cut line), from its first page; `null` until that
 * page arrives. Without a keyword the overview already has it and nothing is fetched here.
 */
export function useFilteredShape(agent: string | null, keyword: string, dir: SortDir) {
  const backend = useBackend();
  const q = useQuery({ ...pageQuery(backend, { agent, keyword, dir }, 0), enabled: keyword !== "" });
  const d = keyword !== "" && q.data && q.data.keyword === keyword ? q.data : undefined;
  return { shape: d ? ({ total: d.total, cutAt: d.cut_at } satisfies ListShape) : null, error: q.error };
}

/**
 * The rows `first..last` (plus a margin) of the list, fetched a page at a time; `get(row)` is
 * undefined while its page loads (the table shows a placeholder there).
 */
export function useArchivalRows(agent: string | null, keyword: string, dir: SortDir, first: number, last: number, total: number) {
  const backend = useBackend();
  const spec = { agent, keyword, dir };
  const from = Math.max(0, Math.floor((first - MARGIN) / PAGE_SIZE));
  const to = Math.max(from, Math.floor(Math.min(total - 1, last + MARGIN) / PAGE_SIZE));
  const pages: number[] = [];
  for (let p = from; p <= to && total > 0; p++) pages.push(p);
  const results = useQueries({ queries: pages.map((p) => pageQuery(backend, spec, p)) });
  const error = results.find((r) => r.error)?.error ?? null;
  // A refetch after a change keeps each page's rows on screen until the new ones arrive.
  const byPage = new Map<number, ArchivalItemDto[]>();
  pages.forEach((p, i) => {
    const d = results[i]?.data;
    if (d && d.offset === p * PAGE_SIZE) byPage.set(p, d.items);
  });
  const get = (row: number): ArchivalItemDto | undefined => byPage.get(Math.floor(row / PAGE_SIZE))?.[row % PAGE_SIZE];
  return { get, error };
}

/** Most entries one selection gathers at once (select all, a Shift+click range): the requests
 * that follow name each entry with its content. */
export const MAX_SELECT = 2000;

/** Rows `from..to` (inclusive) of the list `s`, from the page cache or fetched. */
export async function fetchArchivalRows(qc: QueryClient, backend: ReturnType<typeof useBackend>, s: Spec, from: number, to: number): Promise<ArchivalItemDto[]> {
  const first = Math.floor(from / PAGE_SIZE);
  const last = Math.floor(to / PAGE_SIZE);
  const pages: number[] = [];
  for (let p = first; p <= last; p++) pages.push(p);
  const data = await Promise.all(pages.map((p) => qc.fetchQuery(pageQuery(backend, s, p))));
  const out: ArchivalItemDto[] = [];
  data.forEach((d, k) =>
    d.items.forEach((it, j) => {
      const row = (first + k) * PAGE_SIZE + j;
      if (row >= from && row <= to) out.push(it);
    }),
  );
  return out;
}

/** Pages searched, newest first, for the archival entries among the new ones. */
const NEW_SCAN_PAGES = 25;

/**
 * The archival entries whose ids are in `ids` ("new only"), in file order: found by reading the
 * list newest first (new entries are normally the newest), at most NEW_SCAN_PAGES pages;
 * `complete` false when some were not found there.
 */
export function useNewArchival(agent: string | null, ids: readonly string[], total: number, enabled: boolean) {
  const backend = useBackend();
  const qc = useQueryClient();
  return useQuery({
    // Under archival_page of the owner: goes stale with its pages.
    queryKey: derivedKey("archival_page", { agent }, "new", ids.join(",")),
    enabled: enabled && ids.length > 0,
    queryFn: async () => {
      const want = new Set(ids);
      const found: ArchivalItemDto[] = [];
      let scanned = 0;
      for (let p = 0; p < NEW_SCAN_PAGES && p * PAGE_SIZE < total && found.length < want.size; p++) {
        const d = await qc.fetchQuery(pageQuery(backend, { agent, keyword: "", dir: "desc" }, p));
        scanned += d.items.length;
        for (const it of d.items) if (want.has(it.id)) found.push(it);
      }
      found.sort((a, b) => a.index - b.index);
      return { items: found, scanned, complete: found.length === want.size };
    },
  });
}
