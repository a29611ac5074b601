import { useQueryClient } from "@tanstack/react-query";
import { useVirtualizer } from "@tanstack/react-virtual";
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from "react";

import { useBackend } from "../../backend";
import type { ArchivalItemDto, BackendDto, EntryReadDto } from "../../backend/types";
import { Icon } from "../../components/Icon";
import { ErrorState } from "../../components/States";
import { useI18n } from "../../i18n";
import { ReadSpan } from "../reads/ReadCell";
import { displayCount, fetchArchivalRows, MAX_SELECT, posOfRow, rowAt, rowOfIndex, useArchivalRows, type ListShape, type SortDir } from "./archival";
import type { Picked } from "./curation";
import { CharsDescription, charsTip, EntryEditor, NewBadge, RowActions, SelectBox } from "./EntryParts";
import type { TableActions } from "./tableActions";

export const ROW_HEIGHT = 28;
const CUT_HEIGHT = 30;

type Props = {
  agent: string | null;
  /** The list's length and cut line: every entry, or those matching `keyword`. */
  shape: ListShape;
  dir: SortDir;
  newestCut: boolean;
  /** File index of the newest entry (its window tag says when it is cut). */
  newestIndex: number;
  /** Entry index to scroll to and flash (after an add). */
  flash: { index: number; nonce: number } | null;
  /** The applied search keyword (recall rule), marked in the content; "" = every entry. */
  keyword: string;
  /** The rows themselves instead of the server's pages ("new only"), in display order. */
  local?: ArchivalItemDto[];
  actions: TableActions;
  /** The overview's backend: what the Chars column counts (its header says). */
  memoryBackend: BackendDto;
  /** Read receipts by entry id: shown as a "Last read" column when given. */
  reads?: Map<string, EntryReadDto>;
};

function picked(e: ArchivalItemDto): Picked {
  return { id: e.id, scope: "archival", index: e.index, content: e.content };
}

function Highlighted({ text, keyword }: { text: string; keyword: string }) {
  const k = keyword.trim().toLowerCase();
  if (!k) return <>{text}</>;
  const lower = text.toLowerCase();
  const out: React.ReactNode[] = [];
  let at = 0;
  for (let i = lower.indexOf(k); i >= 0 && out.length < 40; i = lower.indexOf(k, at)) {
    if (i > at) out.push(text.slice(at, i));
    out.push(<mark key={i}>{text.slice(i, i + k.length)}</mark>);
    at = i + k.length;
  }
  out.push(text.slice(at));
  return <>{out}</>;
}

/**
 * The archival table, virtualised and paged: only the rows in view (plus a small overscan) are in
 * the DOM, and only the pages of 200 entries around them are fetched, so 100 000 entries open and
 * scroll as fast as 100. A row whose page is still loading is a placeholder. ↑/↓/PageUp/PageDown/
 * Home/End move between rows; on a row Enter or F2 edits it, Space selects it (Shift: the range
 * from the last one), Delete deletes it, →/← or a click expand and collapse a long entry, and
 * Ctrl/Cmd+A selects every row of the list. The parent remounts the list (key) when the order or
 * the keyword changes, so each list opens at its cut line.
 */
export function ArchivalList({ agent, shape, dir, newestCut, newestIndex, flash, keyword, local, actions, memoryBackend, reads }: Props) {
  const { t, num } = useI18n();
  const backend = useBackend();
  const qc = useQueryClient();
  const scrollRef = useRef<HTMLDivElement>(null);
  const [expanded, setExpanded] = useState<ReadonlySet<number>>(() => new Set());
  const [editing, setEditing] = useState<string | null>(null);
  const [active, setActive] = useState(0);
  const pendingFocus = useRef<number | null>(null);
  const anchor = useRef<number | null>(null);
  const { total, cutAt } = shape;
  const count = displayCount(shape);

  // Stable callbacks: `getItemKey` is part of the virtualizer's measurement memo, so a new
  // function on every render (every scroll frame) would recompute the offsets of all entries.
  // Unfiltered rows are keyed by their entry (known without its page); filtered ones by position.
  const estimateSize = useCallback((pos: number) => (rowAt({ total, cutAt }, pos) === "cut" ? CUT_HEIGHT : ROW_HEIGHT), [total, cutAt]);
  const getItemKey = useCallback(
    (pos: number) => {
      const r = rowAt({ total, cutAt }, pos);
      if (r === "cut") return "cut";
      return keyword || local ? `r${r}` : `e${dir === "asc" ? r : total - 1 - r}`;
    },
    [total, cutAt, keyword, dir, local],
  );
  const getScrollElement = useCallback(() => scrollRef.current, []);
  const virtualizer = useVirtualizer({
    count,
    getScrollElement,
    estimateSize,
    getItemKey,
    overscan: 12,
  });
  const virtualItems = virtualizer.getVirtualItems();
  const firstRow = Math.max(0, (virtualItems[0]?.index ?? 0) - 1);
  const lastRow = virtualItems[virtualItems.length - 1]?.index ?? 0;
  const server = useArchivalRows(agent, keyword, dir, firstRow, lastRow, local ? 0 : total);
  const get = (row: number): ArchivalItemDto | undefined => (local ? local[row] : server.get(row));
  const rowsError = local ? null : server.error;

  const activePos = Math.min(active, Math.max(0, count - 1));
  /** The first entry row in view (the list opens at the cut line, far from row 0). */
  const firstInView = (): number => {
    const top = virtualizer.scrollOffset ?? 0;
    return virtualItems.find((v) => v.start + v.size > top && rowAt({ total, cutAt }, v.index) !== "cut")?.index ?? 0;
  };
  // The row Tab lands on: the active one while it is rendered, else the first in view.
  const tabPos = virtualItems.some((v) => v.index === activePos) ? activePos : firstInView();

  const focusPos = useCallback(
    (pos: number) => {
      let p = Math.max(0, Math.min(count - 1, pos));
      if (rowAt({ total, cutAt }, p) === "cut") p = p + (pos >= activePos ? 1 : -1);
      p = Math.max(0, Math.min(count - 1, p));
      setActive(p);
      pendingFocus.current = p;
      virtualizer.scrollToIndex(p, { align: "auto" });
    },
    [count, total, cutAt, activePos, virtualizer],
  );

  useLayoutEffect(() => {
    const p = pendingFocus.current;
    if (p === null || editing !== null) return;
    const el = scrollRef.current?.querySelector<HTMLElement>(`[data-pos="${p}"]`);
    if (el) {
      el.focus({ preventScroll: true });
      pendingFocus.current = null;
    }
  });

  // Open at the cut line (with a few outside entries above it): that is where the window starts.
  useEffect(() => {
    if (cutAt === null || cutAt <= 3) return;
    // Out of the commit phase: the virtualizer flushes synchronously on scroll.
    const id = requestAnimationFrame(() => virtualizer.scrollToIndex(cutAt - 3, { align: "start" }));
    return () => cancelAnimationFrame(id);
    // Only when the list first mounts.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  // Scroll once per flash request; the new entry may arrive with the next overview.
  const flashed = useRef<number | null>(null);
  useEffect(() => {
    if (!flash || flashed.current === flash.nonce || keyword || local || flash.index >= total) return;
    const pos = posOfRow({ total, cutAt }, rowOfIndex(total, flash.index, dir));
    flashed.current = flash.nonce;
    setActive(pos);
    requestAnimationFrame(() => {
      virtualizer.scrollToIndex(pos, { align: "center" });
      // Then bring the row itself into the page's view (the list may be below the fold).
      requestAnimationFrame(() => scrollRef.current?.querySelector(`[data-pos="${pos}"]`)?.scrollIntoView?.({ block: "nearest" }));
    });
  }, [flash, total, cutAt, dir, keyword, local, virtualizer]);

  /** The entries of rows `a..b` (either order), at most MAX_SELECT; null when there are more. */
  const entriesBetween = async (a: number, b: number): Promise<Picked[] | null> => {
    const [from, to] = a < b ? [a, b] : [b, a];
    if (to - from + 1 > MAX_SELECT) return null;
    const items = local ? local.slice(from, to + 1) : await fetchArchivalRows(qc, backend, { agent, keyword, dir }, from, to);
    return items.map(picked);
  };

  // The header box: checked once as many archival entries are selected as the list holds.
  let archivalSelected = 0;
  for (const p of actions.selected.values()) if (p.scope === "archival") archivalSelected++;
  const allSelected = total > 0 && archivalSelected >= total;
  const someSelected = archivalSelected > 0;

  const tooMany = () => actions.notice(t("memory.bulk.tooMany", { n: num(MAX_SELECT) }));

  const toggle = async (e: ArchivalItemDto, row: number, shift: boolean) => {
    const on = !actions.selected.has(e.id);
    const from = anchor.current;
    anchor.current = row;
    if (shift && from !== null && from !== row) {
      const range = await entriesBetween(from, row).catch(() => null);
      if (range) actions.select(range, on);
      else tooMany();
    } else actions.select([picked(e)], on);
  };

  const selectAll = async () => {
    if (total === 0) return;
    const all = await entriesBetween(0, total - 1).catch(() => null);
    if (!all) return tooMany();
    actions.select(all, !all.every((p) => actions.selected.has(p.id)));
  };

  // Rows are keyed by entry index (or position), so after a delete or move the focused row is
  // the same element showing the next entry. When it went (the list got shorter), the focus
  // goes to the row now at that position.
  const countRef = useRef(count);
  useEffect(() => {
    countRef.current = count;
  });
  const act = (pos: number, run: () => Promise<boolean>) => {
    void run().then((ok) => {
      if (!ok) return;
      setTimeout(() => {
        const box = scrollRef.current;
        if (box && (document.activeElement === null || document.activeElement === document.body)) focusPos(Math.min(pos, countRef.current - 1));
      }, 0);
    });
  };

  const onKeyDown = (e: React.KeyboardEvent) => {
    if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === "a") {
      e.preventDefault();
      void selectAll();
      return;
    }
    const page = Math.max(1, Math.floor((scrollRef.current?.clientHeight ?? 300) / ROW_HEIGHT) - 1);
    // From the focused row; when the keys reach the list itself (a focused scroller), from the
    // first row in view — not from a remembered row far above (PageDown went backwards).
    const onRow = (e.target as HTMLElement).closest?.("[data-pos]");
    const from = onRow ? Number(onRow.getAttribute("data-pos")) : firstInView();
    const moves: Record<string, number> = {
      ArrowDown: from + 1,
      ArrowUp: from - 1,
      PageDown: from + page,
      PageUp: from - page,
      Home: 0,
      End: count - 1,
    };
    if (e.key in moves) {
      e.preventDefault();
      focusPos(moves[e.key]!);
    }
  };

  const setExpandedAt = (index: number, pos: number, open: boolean) => {
    setExpanded((prev) => {
      if (prev.has(index) === open) return prev;
      const next = new Set(prev);
      if (open) next.add(index);
      else {
        next.delete(index);
        virtualizer.resizeItem(pos, ROW_HEIGHT);
      }
      return next;
    });
  };

  const stopEditing = (pos: number, isExpanded: boolean) => {
    setEditing(null);
    if (!isExpanded) virtualizer.resizeItem(pos, ROW_HEIGHT);
    setActive(pos);
    pendingFocus.current = pos;
  };

  return (
    <div className={reads ? "vtable vtable-entries with-reads" : "vtable vtable-entries"} role="table" aria-rowcount={count + 1} aria-multiselectable="true" data-testid="archival-table">
      {rowsError ? <ErrorState error={rowsError} compact /> : null}
      <div className="vrow vhead" role="row">
        <span role="columnheader" className="c-check">
          <input
            type="checkbox"
            className="row-check"
            checked={allSelected}
            ref={(el) => {
              if (el) el.indeterminate = someSelected && !allSelected;
            }}
            disabled={total === 0}
            aria-label={t("memory.selectAllArchival")}
            title={t("memory.selectAllArchival")}
            onChange={() => void selectAll()}
            data-testid="archival-select-all"
          />
        </span>
        <span role="columnheader" className="c-idx">
          {t("memory.col.index")}
        </span>
        <span role="columnheader" className="c-time">
          {t("memory.col.time")}
        </span>
        <span role="columnheader" className="c-content">
          {t("memory.col.content")}
        </span>
        <span role="columnheader" className="c-chars has-tip" title={charsTip(t, memoryBackend)} aria-describedby="archival-chars-desc" data-testid="archival-chars-head">
          {t("memory.col.chars")}
          <CharsDescription id="archival-chars-desc" backend={memoryBackend} />
        </span>
        <span role="columnheader" className="c-win">
          {t("memory.col.window")}
        </span>
        {reads ? (
          <span role="columnheader" className="c-read has-tip" title={t("reads.col.tip")} data-testid="reads-head">
            {t("reads.col.lastRead")}
          </span>
        ) : null}
        <span role="columnheader" className="c-actions">
          <span className="sr-only">{t("memory.col.actions")}</span>
        </span>
      </div>
      <div className="vscroll" ref={scrollRef} data-virtual-scroll onKeyDown={onKeyDown} role="rowgroup" style={{ height: virtualizer.getTotalSize() + 1 }}>
        <div className="vinner" style={{ height: virtualizer.getTotalSize() }}>
          {virtualItems.map((v) => {
            const r = rowAt(shape, v.index);
            if (r === "cut") {
              return (
                <div
                  key={v.key}
                  role="row"
                  className="vrow cut-row"
                  data-testid="window-cut"
                  data-index={v.index}
                  style={{ transform: `translateY(${v.start}px)`, height: CUT_HEIGHT }}
                >
                  <span role="cell" className="cut-label" title={dir === "asc" ? t("memory.cutLine") : t("memory.cutLineDesc")}>
                    <Icon name="scissors" size={13} />
                    <span className="cut-text">{dir === "asc" ? t("memory.cutLine") : t("memory.cutLineDesc")}</span>
                  </span>
                </div>
              );
            }
            const e = get(r);
            if (!e) {
              // Its page is loading: the same element (same key) becomes the row, keeping focus.
              const known = keyword ? null : dir === "asc" ? r : total - 1 - r;
              return (
                <div
                  key={v.key}
                  role="row"
                  className={["vrow", "entry-row", "pending", v.index === tabPos ? "active" : ""].filter(Boolean).join(" ")}
                  data-testid="archival-row-pending"
                  data-index={v.index}
                  data-pos={v.index}
                  tabIndex={v.index === tabPos ? 0 : -1}
                  aria-busy="true"
                  style={{ transform: `translateY(${v.start}px)`, minHeight: ROW_HEIGHT }}
                  onFocus={() => setActive(v.index)}
                >
                  <span role="cell" className="c-check" />
                  <span role="cell" className="c-idx">
                    {known !== null ? known + 1 : ""}
                  </span>
                  <span role="cell" className="c-time">
                    <span className="skeleton-line" style={{ display: "inline-block", width: "11em" }} />
                  </span>
                  <span role="cell" className="c-content">
                    <span className="skeleton-line" style={{ display: "inline-block", width: `${40 + ((r * 37) % 50)}%` }} />
                  </span>
                  <span role="cell" className="c-chars" />
                  <span role="cell" className="c-win" />
                  <span role="cell" className="c-actions" />
                </div>
              );
            }
            const it = e.index;
            const p = picked(e);
            const isExpanded = expanded.has(it);
            const isEditing = editing === e.id;
            const selected = actions.selected.has(e.id);
            const inner = v.index === tabPos ? 0 : -1;
            const cls = [
              "vrow",
              "entry-row",
              e.in_window ? "in-window" : "outside",
              isExpanded ? "expanded" : "",
              isEditing ? "editing" : "",
              selected ? "selected" : "",
              flash?.index === it ? "flash" : "",
              e.id === actions.target ? "entry-target" : "",
              v.index === tabPos ? "active" : "",
            ]
              .filter(Boolean)
              .join(" ");
            return (
              <div
                key={v.key}
                ref={isExpanded || isEditing ? virtualizer.measureElement : undefined}
                role="row"
                className={cls}
                data-testid="archival-row"
                data-in-window={e.in_window ? "true" : "false"}
                data-window-part={e.window_part != null ? "partial" : undefined}
                data-entry-index={it}
                data-entry-id={e.id}
                data-target={e.id === actions.target ? "true" : undefined}
                aria-current={e.id === actions.target ? "true" : undefined}
                data-index={v.index}
                data-pos={v.index}
                tabIndex={v.index === tabPos ? 0 : -1}
                aria-expanded={isExpanded}
                aria-selected={selected}
                style={{ transform: `translateY(${v.start}px)`, minHeight: ROW_HEIGHT }}
                onClick={() => {
                  if (isEditing) return;
                  setActive(v.index);
                  setExpandedAt(it, v.index, !isExpanded);
                }}
                onFocus={() => setActive(v.index)}
                onKeyDown={(ev) => {
                  if (ev.target !== ev.currentTarget) return;
                  if (ev.key === "Enter" || ev.key === "F2") {
                    ev.preventDefault();
                    setEditing(e.id);
                  } else if (ev.key === " ") {
                    ev.preventDefault();
                    void toggle(e, r, ev.shiftKey);
                  } else if (ev.key === "ArrowRight" || ev.key === "ArrowLeft") {
                    ev.preventDefault();
                    setExpandedAt(it, v.index, ev.key === "ArrowRight");
                  } else if (ev.key === "Delete") {
                    ev.preventDefault();
                    act(v.index, () => actions.remove(p));
                  }
                }}
              >
                <span role="cell" className="c-check">
                  <SelectBox checked={selected} label={t("memory.selectEntry", { n: it + 1 })} tabIndex={inner} onToggle={(shift) => void toggle(e, r, shift)} />
                </span>
                <span role="cell" className="c-idx">
                  {it + 1}
                </span>
                <span role="cell" className="c-time">
                  {e.timestamp ?? <span className="muted">{t("memory.noTime")}</span>}
                </span>
                {isEditing ? (
                  <span role="cell" className="c-edit">
                    <EntryEditor
                      initial={e.content}
                      label={t("memory.edit.label", { n: it + 1 })}
                      onCancel={() => stopEditing(v.index, isExpanded)}
                      onSave={async (content, restamp) => {
                        const err = await actions.save(p, content, restamp);
                        if (err === null) stopEditing(v.index, isExpanded);
                        return err;
                      }}
                    />
                  </span>
                ) : (
                  <>
                    <span role="cell" className="c-content" title={isExpanded ? undefined : e.content}>
                      {actions.isNew(e.id) ? <NewBadge /> : null}
                      <Highlighted text={e.content} keyword={keyword} />
                      {isExpanded && e.window_part != null ? (
                        <span className="window-part" data-testid="window-part">
                          <span className="muted">{t("memory.windowPartLabel")} </span>
                          <code>{e.window_part}</code>
                        </span>
                      ) : null}
                    </span>
                    <span role="cell" className="c-chars">
                      {num(e.chars)}
                    </span>
                    <span role="cell" className="c-win">
                      {e.in_window ? (
                        e.window_part != null && !(newestCut && it === newestIndex) ? (
                          <span className="tag tag-warn" title={t("memory.partlyInTitle", { part: e.window_part })}>
                            {t("memory.partlyIn")}
                          </span>
                        ) : newestCut && it === newestIndex ? (
                          <span className="tag tag-warn">{t("memory.cutFromStart")}</span>
                        ) : (
                          <span className="tag tag-ok">{t("memory.inWindow")}</span>
                        )
                      ) : (
                        <span className="tag tag-out">{t("memory.outside")}</span>
                      )}
                    </span>
                    {reads ? <ReadSpan r={reads.get(e.id)} /> : null}
                  </>
                )}
                <span role="cell" className="c-actions">
                  {isEditing ? null : (
                    <RowActions
                      scope="archival"
                      tabIndex={inner}
                      disabled={actions.busy}
                      onEdit={() => {
                        setActive(v.index);
                        setEditing(e.id);
                      }}
                      onMove={() => act(v.index, () => actions.move(p))}
                      onDelete={() => act(v.index, () => actions.remove(p))}
                      onOrigin={() => actions.origin(p)}
                      onForget={() => actions.forgetEverywhere(p)}
                    />
                  )}
                </span>
              </div>
            );
          })}
        </div>
      </div>
    </div>
  );
}
