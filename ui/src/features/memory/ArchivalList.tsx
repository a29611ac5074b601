import { useVirtualizer } from "@tanstack/react-virtual";
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from "react";

import { Icon } from "../../components/Icon";
import { ErrorState } from "../../components/States";
import { useI18n } from "../../i18n";
import { displayCount, posOfRow, rowAt, rowOfIndex, useArchivalRows, type ListShape, type SortDir } from "./archival";

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
};

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
 * Home/End move between rows, Enter expands a long entry. The parent remounts the list (key) when
 * the order or the keyword changes, so each list opens at its cut line.
 */
export function ArchivalList({ agent, shape, dir, newestCut, newestIndex, flash, keyword }: Props) {
  const { t, num } = useI18n();
  const scrollRef = useRef<HTMLDivElement>(null);
  const [expanded, setExpanded] = useState<ReadonlySet<number>>(() => new Set());
  const [active, setActive] = useState(0);
  const pendingFocus = useRef<number | null>(null);
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
      return keyword ? `r${r}` : `e${dir === "asc" ? r : total - 1 - r}`;
    },
    [total, cutAt, keyword, dir],
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
  const rows = useArchivalRows(agent, keyword, dir, firstRow, lastRow, total);

  const activePos = Math.min(active, Math.max(0, count - 1));

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
    if (p === null) return;
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
    if (!flash || flashed.current === flash.nonce || keyword || flash.index >= total) return;
    const pos = posOfRow({ total, cutAt }, rowOfIndex(total, flash.index, dir));
    flashed.current = flash.nonce;
    setActive(pos);
    requestAnimationFrame(() => {
      virtualizer.scrollToIndex(pos, { align: "center" });
      // Then bring the row itself into the page's view (the list may be below the fold).
      requestAnimationFrame(() => scrollRef.current?.querySelector(`[data-pos="${pos}"]`)?.scrollIntoView?.({ block: "nearest" }));
    });
  }, [flash, total, cutAt, dir, keyword, virtualizer]);

  const onKeyDown = (e: React.KeyboardEvent) => {
    const page = Math.max(1, Math.floor((scrollRef.current?.clientHeight ?? 300) / ROW_HEIGHT) - 1);
    const moves: Record<string, number> = {
      ArrowDown: activePos + 1,
      ArrowUp: activePos - 1,
      PageDown: activePos + page,
      PageUp: activePos - page,
      Home: 0,
      End: count - 1,
    };
    if (e.key in moves) {
      e.preventDefault();
      focusPos(moves[e.key]!);
    }
  };

  const toggle = (index: number, pos: number) => {
    setExpanded((prev) => {
      const next = new Set(prev);
      if (next.has(index)) {
        next.delete(index);
        virtualizer.resizeItem(pos, ROW_HEIGHT);
      } else next.add(index);
      return next;
    });
  };

  return (
    <div className="vtable" role="table" aria-rowcount={count + 1} data-testid="archival-table">
      {rows.error ? <ErrorState error={rows.error} compact /> : null}
      <div className="vrow vhead" role="row">
        <span role="columnheader" className="c-idx">
          {t("memory.col.index")}
        </span>
        <span role="columnheader" className="c-time">
          {t("memory.col.time")}
        </span>
        <span role="columnheader" className="c-content">
          {t("memory.col.content")}
        </span>
        <span role="columnheader" className="c-chars">
          {t("memory.col.chars")}
        </span>
        <span role="columnheader" className="c-win">
          {t("memory.col.window")}
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
                  <span role="cell" className="cut-label">
                    <Icon name="scissors" size={13} />
                    {dir === "asc" ? t("memory.cutLine") : t("memory.cutLineDesc")}
                  </span>
                </div>
              );
            }
            const e = rows.get(r);
            if (!e) {
              // Its page is loading: the same element (same key) becomes the row, keeping focus.
              const known = keyword ? null : dir === "asc" ? r : total - 1 - r;
              return (
                <div
                  key={v.key}
                  role="row"
                  className={["vrow", "entry-row", "pending", v.index === activePos ? "active" : ""].filter(Boolean).join(" ")}
                  data-testid="archival-row-pending"
                  data-index={v.index}
                  data-pos={v.index}
                  tabIndex={v.index === activePos ? 0 : -1}
                  aria-busy="true"
                  style={{ transform: `translateY(${v.start}px)`, minHeight: ROW_HEIGHT }}
                  onFocus={() => setActive(v.index)}
                >
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
                </div>
              );
            }
            const it = e.index;
            const isExpanded = expanded.has(it);
            const cls = ["vrow", "entry-row", e.in_window ? "in-window" : "outside", isExpanded ? "expanded" : "", flash?.index === it ? "flash" : "", v.index === activePos ? "active" : ""]
              .filter(Boolean)
              .join(" ");
            return (
              <div
                key={v.key}
                ref={isExpanded ? virtualizer.measureElement : undefined}
                role="row"
                className={cls}
                data-testid="archival-row"
                data-in-window={e.in_window ? "true" : "false"}
                data-entry-index={it}
                data-index={v.index}
                data-pos={v.index}
                tabIndex={v.index === activePos ? 0 : -1}
                aria-expanded={isExpanded}
                style={{ transform: `translateY(${v.start}px)`, minHeight: ROW_HEIGHT }}
                onClick={() => {
                  setActive(v.index);
                  toggle(it, v.index);
                }}
                onFocus={() => setActive(v.index)}
                onKeyDown={(ev) => {
                  if (ev.key === "Enter" || ev.key === " ") {
                    ev.preventDefault();
                    toggle(it, v.index);
                  }
                }}
              >
                <span role="cell" className="c-idx">
                  {it + 1}
                </span>
                <span role="cell" className="c-time">
                  {e.timestamp ?? <span className="muted">{t("memory.noTime")}</span>}
                </span>
                <span role="cell" className="c-content" title={isExpanded ? undefined : e.content}>
                  <Highlighted text={e.content} keyword={keyword} />
                </span>
                <span role="cell" className="c-chars">
                  {num(e.chars)}
                </span>
                <span role="cell" className="c-win">
                  {e.in_window ? (
                    newestCut && it === newestIndex ? (
                      <span className="tag tag-warn">{t("memory.cutFromStart")}</span>
                    ) : (
                      <span className="tag tag-ok">{t("memory.inWindow")}</span>
                    )
                  ) : (
                    <span className="tag tag-out">{t("memory.outside")}</span>
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
