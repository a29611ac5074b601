import { useEffect, useLayoutEffect, useRef, useState } from "react";

import type { BackendDto, EntryDto, EntryReadDto } from "../../backend/types";
import { onRowKeyDown } from "../../components/hooks";
import { Empty } from "../../components/States";
import { useI18n } from "../../i18n";
import { ReadCell, ReadHead } from "../reads/ReadCell";
import type { Picked } from "./curation";
import { CharsDescription, charsTip, EntryEditor, NewBadge, RowActions, SelectBox } from "./EntryParts";
import type { TableActions } from "./tableActions";

/** Longer than this (or with more lines) an entry starts clamped to a few lines. */
const CLAMP_CHARS = 280;
const CLAMP_LINES = 4;

export function isLongEntry(text: string): boolean {
  return text.length > CLAMP_CHARS || text.split("\n").length > CLAMP_LINES;
}

/** An entry's text, clamped to a few lines when long (so its # and time stay in view), with a
 * Show all / Show less button that says what it does and whether it is open. */
export function ClampedText({ text, index }: { text: string; index: number }) {
  const { t } = useI18n();
  const [open, setOpen] = useState(false);
  if (!isLongEntry(text)) return <>{text}</>;
  const id = `core-entry-text-${index}`;
  return (
    <>
      <div id={id} className={open ? "entry-text" : "entry-text clamped"} data-testid="core-entry-text">
        {text}
      </div>
      <button
        type="button"
        className="link-btn entry-more"
        aria-expanded={open}
        aria-controls={id}
        aria-label={open ? t("memory.showLessLabel", { n: index + 1 }) : t("memory.showMoreLabel", { n: index + 1 })}
        onClick={(ev) => {
          ev.stopPropagation();
          setOpen(!open);
        }}
        onKeyDown={(ev) => ev.stopPropagation()}
        data-testid="core-entry-more"
      >
        {open ? t("memory.showLess") : t("memory.showMore")}
      </button>
    </>
  );
}

/** A core entry with its position in the core section (0-based, file order). */
export type CoreRow = { e: EntryDto; index: number };

function picked(r: CoreRow): Picked | null {
  return r.e.id ? { id: r.e.id, scope: "core", index: r.index, content: r.e.content } : null;
}

/**
 * The core entries. Each row: a checkbox (Shift+click selects a range), the entry, and its
 * actions (edit, move to archival, delete). On a focused row: Enter or F2 edits, Space selects,
 * Delete deletes, Ctrl/Cmd+A selects every row.
 */
export function CoreTable({
  rows,
  flash,
  actions,
  emptyText,
  memoryBackend,
  reads,
}: {
  rows: CoreRow[];
  flash: { index: number; nonce: number } | null;
  actions: TableActions;
  emptyText?: string;
  /** The overview's backend: what the Chars column counts (its header says). */
  memoryBackend: BackendDto;
  /** Read receipts by entry id: shown as a "Last read" column when given. */
  reads?: Map<string, EntryReadDto>;
}) {
  const { t, num } = useI18n();
  const ref = useRef<HTMLTableSectionElement>(null);
  const [editing, setEditing] = useState<string | null>(null);
  const [active, setActive] = useState(0);
  const anchor = useRef<number | null>(null);
  // After an edit or a cancel, the row at this position gets the focus back (rows are keyed by
  // position, so it is the same element when the entry under it changes).
  const refocus = useRef<number | null>(null);

  useEffect(() => {
    if (!flash) return;
    ref.current?.querySelector<HTMLElement>(`[data-entry-index="${flash.index}"]`)?.scrollIntoView?.({ block: "nearest" });
  }, [flash, rows.length]);

  const focusRow = (pos: number) => {
    const trs = ref.current?.querySelectorAll<HTMLElement>("tr[data-row]");
    if (trs && trs.length > 0) trs[Math.min(pos, trs.length - 1)]?.focus();
  };

  useLayoutEffect(() => {
    const p = refocus.current;
    if (p === null || editing !== null) return;
    refocus.current = null;
    focusRow(p);
  });

  /** Runs a delete or move; if the focused row went with it, the row now at `pos` gets the focus. */
  const act = (pos: number, run: () => Promise<boolean>) => {
    void run().then((ok) => {
      if (!ok) return;
      setTimeout(() => {
        if (ref.current && !ref.current.contains(document.activeElement) && document.activeElement === document.body) focusRow(pos);
      }, 0);
    });
  };

  const all = rows.map(picked).filter((p): p is Picked => p !== null);
  const allSelected = all.length > 0 && all.every((p) => actions.selected.has(p.id));

  const toggle = (pos: number, shift: boolean) => {
    const p = picked(rows[pos]!);
    if (!p) return;
    const on = !actions.selected.has(p.id);
    if (shift && anchor.current !== null) {
      const [a, b] = anchor.current < pos ? [anchor.current, pos] : [pos, anchor.current];
      actions.select(
        rows
          .slice(a, b + 1)
          .map(picked)
          .filter((x): x is Picked => x !== null),
        on,
      );
    } else actions.select([p], on);
    anchor.current = pos;
  };

  const onBodyKeyDown = (e: React.KeyboardEvent<HTMLTableSectionElement>) => {
    if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === "a") {
      e.preventDefault();
      actions.select(all, !allSelected);
      return;
    }
    onRowKeyDown(e);
  };

  return (
    <div className="table-wrap">
      <table className="table table-compact table-entries" data-testid="core-table">
        <thead>
          <tr>
            <th className="c-check">
              <input
                type="checkbox"
                className="row-check"
                checked={allSelected}
                disabled={all.length === 0}
                aria-label={t("memory.selectAllCore")}
                onChange={() => actions.select(all, !allSelected)}
                data-testid="core-select-all"
              />
            </th>
            <th className="c-idx">{t("memory.col.index")}</th>
            <th className="c-time">{t("memory.col.time")}</th>
            <th>{t("memory.col.content")}</th>
            <th className="num c-chars has-tip" title={charsTip(t, memoryBackend)} aria-describedby="core-chars-desc" data-testid="core-chars-head">
              {t("memory.col.chars")}
              <CharsDescription id="core-chars-desc" backend={memoryBackend} />
            </th>
            {reads ? <ReadHead /> : null}
            <th className="c-actions">
              <span className="sr-only">{t("memory.col.actions")}</span>
            </th>
          </tr>
        </thead>
        <tbody ref={ref} onKeyDown={onBodyKeyDown}>
          {rows.map((r, pos) => {
            const { e, index } = r;
            const p = picked(r);
            const isEditing = p !== null && editing === p.id;
            const selected = p !== null && actions.selected.has(p.id);
            const inner = pos === active ? 0 : -1;
            const isTarget = e.id !== undefined && e.id === actions.target;
            const cls = [flash?.index === index ? "flash" : "", selected ? "selected" : "", isEditing ? "editing" : "", isTarget ? "entry-target" : ""].filter(Boolean).join(" ") || undefined;
            return (
              <tr
                key={index}
                tabIndex={0}
                data-row
                data-testid="core-row"
                data-entry-index={index}
                data-entry-id={e.id}
                data-target={isTarget ? "true" : undefined}
                aria-current={isTarget ? "true" : undefined}
                aria-selected={selected}
                className={cls}
                onFocus={() => setActive(pos)}
                onKeyDown={(ev) => {
                  if (ev.target !== ev.currentTarget || !p) return;
                  if (ev.key === "Enter" || ev.key === "F2") {
                    ev.preventDefault();
                    setEditing(p.id);
                  } else if (ev.key === " ") {
                    ev.preventDefault();
                    toggle(pos, ev.shiftKey);
                  } else if (ev.key === "Delete") {
                    ev.preventDefault();
                    act(pos, () => actions.remove(p));
                  }
                }}
              >
                <td className="c-check">
                  {p ? <SelectBox checked={selected} label={t("memory.selectEntry", { n: index + 1 })} tabIndex={inner} onToggle={(shift) => toggle(pos, shift)} /> : null}
                </td>
                <td className="c-idx muted">{index + 1}</td>
                <td className="c-time">{e.timestamp ?? <span className="muted">{t("memory.noTime")}</span>}</td>
                <td className="wrap c-content">
                  {isEditing ? (
                    <EntryEditor
                      initial={e.content}
                      label={t("memory.edit.label", { n: index + 1 })}
                      onCancel={() => {
                        refocus.current = pos;
                        setEditing(null);
                      }}
                      onSave={async (content, restamp) => {
                        const err = await actions.save(p, content, restamp);
                        if (err === null) {
                          refocus.current = pos;
                          setEditing(null);
                        }
                        return err;
                      }}
                    />
                  ) : (
                    <>
                      {e.id && actions.isNew(e.id) ? <NewBadge /> : null}
                      <ClampedText text={e.content} index={index} />
                    </>
                  )}
                </td>
                <td className="num">{num(Array.from(e.line).length)}</td>
                {reads ? <ReadCell r={e.id ? reads.get(e.id) : undefined} /> : null}
                <td className="c-actions">
                  {p && !isEditing ? (
                    <RowActions
                      scope="core"
                      tabIndex={inner}
                      disabled={actions.busy}
                      onEdit={() => setEditing(p.id)}
                      onMove={() => act(pos, () => actions.move(p))}
                      onDelete={() => act(pos, () => actions.remove(p))}
                      onOrigin={() => actions.origin(p)}
                      onForget={() => actions.forgetEverywhere(p)}
                    />
                  ) : null}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {rows.length === 0 ? <Empty>{emptyText ?? t("memory.emptyCore")}</Empty> : null}
    </div>
  );
}
