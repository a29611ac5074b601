import { useEffect, useId, useMemo, useRef, useState, type KeyboardEvent } from "react";

import { BackendError } from "../../backend";
import type { MemoryHitDto, SessionHitDto } from "../../backend/types";
import { Icon } from "../../components/Icon";
import { useDebounced } from "../../components/hooks";
import { errorHeadline } from "../../components/States";
import { useI18n } from "../../i18n";
import { href, type Route } from "../../router";
import { Score } from "../recall/Score";
import { useSearchEverywhere } from "./hooks";
import "./search.css";

/** The id of the header's search field (Ctrl/Cmd+K focuses it). */
export const SEARCH_EVERYWHERE_ID = "search-everywhere-input";

const MIN_CHARS = 2;

type Row = { kind: "memory"; hit: MemoryHitDto; route: Route } | { kind: "session"; hit: SessionHitDto; route: Route };

/** Where a memory hit opens: its owner's Memory tab with the entry found and marked (by id, else
 * by its text: a MEMORY.md line found by meaning has no id). */
function memoryRoute(h: MemoryHitDto): Route {
  const target = { entry: h.hit.id ?? undefined, find: h.hit.content };
  return h.agent ? { page: "agent", name: h.agent, tab: "memory", ...target } : { page: "global", ...target };
}

const isMac = typeof navigator !== "undefined" && /Mac|iPhone|iPad/.test(navigator.platform);

/** One search box for every memory and every past conversation, by meaning: typing (debounced,
 * two characters at least) or Enter asks the console; the results drop down in two groups, ↑/↓
 * move, Enter opens the entry or the session message, Escape closes. */
export function SearchEverywhere() {
  const { t } = useI18n();
  const [text, setText] = useState("");
  const [forced, setForced] = useState<string | null>(null);
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);
  const typed = text.trim();
  const debounced = useDebounced(typed, 300);
  const query = forced ?? (debounced.length >= MIN_CHARS && debounced === typed ? debounced : null);
  const r = useSearchEverywhere(open ? query : null);
  const data = r.data;
  const inputRef = useRef<HTMLInputElement>(null);
  const boxRef = useRef<HTMLDivElement>(null);
  const listId = useId();

  const rows: Row[] = useMemo(
    () =>
      data
        ? [
            ...data.memory.map((hit): Row => ({ kind: "memory", hit, route: memoryRoute(hit) })),
            ...data.sessions.map((hit): Row => ({ kind: "session", hit, route: { page: "session", id: hit.hit.session_id, m: hit.hit.message_index, q: data.query } })),
          ]
        : [],
    [data],
  );
  // A new answer starts at its first row.
  useEffect(() => setActive(rows.length > 0 ? 0 : -1), [rows]);
  useEffect(() => {
    if (active < 0) return;
    document.getElementById(`${listId}-${active}`)?.scrollIntoView({ block: "nearest" });
  }, [active, listId]);

  const go = (row: Row) => {
    setOpen(false);
    window.location.hash = href(row.route);
    // The page opened takes the focus (its heading), so the keyboard continues there.
    inputRef.current?.blur();
  };

  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === "Escape") {
      e.preventDefault();
      if (open && typed !== "") setOpen(false);
      else {
        setText("");
        setForced(null);
        inputRef.current?.blur();
      }
    } else if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      e.preventDefault();
      if (!open) {
        setOpen(true);
        return;
      }
      if (rows.length === 0) return;
      const step = e.key === "ArrowDown" ? 1 : -1;
      setActive((a) => (a < 0 ? 0 : (a + step + rows.length) % rows.length));
    } else if (e.key === "Enter") {
      e.preventDefault();
      const row = active >= 0 ? rows[active] : undefined;
      if (open && row && query === typed) go(row);
      else if (typed !== "") {
        setForced(typed);
        setOpen(true);
      }
    }
  };

  const showPanel = open && typed !== "";
  const floor = data?.floor ?? null;
  const floorText = floor?.toFixed(2) ?? "—";
  let body;
  if (query === null) {
    body = <div className="se-note muted">{typed.length < MIN_CHARS ? t("search.minChars") : t("search.searching")}</div>;
  } else if (r.isError) {
    const err = BackendError.from(r.error);
    body = (
      <div className="se-error" role="alert" data-testid="search-everywhere-error">
        <Icon name="error" size={14} />
        <div>
          <strong>{errorHeadline(t, err.code)}</strong>
          <div className="se-error-message">{err.message}</div>
        </div>
      </div>
    );
  } else if (!data) {
    body = (
      <div className="se-note busy" data-testid="search-everywhere-loading">
        <span className="spinner" aria-hidden="true" /> {t("search.searching")}
      </div>
    );
  } else if (rows.length === 0) {
    body = (
      <div className="se-note" data-testid="search-everywhere-empty">
        <Icon name="search" size={14} /> {t("search.empty", { query: data.query, floor: floorText })}
      </div>
    );
  } else {
    const memoryRows = rows.filter((x) => x.kind === "memory");
    const sessionRows = rows.filter((x) => x.kind === "session");
    body = (
      <div role="listbox" id={listId} aria-label={t("search.label")} className="se-list">
        <Group title={t("search.memory")} count={memoryRows.length} testId="search-everywhere-memory">
          {memoryRows.map((row, i) => (
            <ResultRow key={`m${i}`} row={row} index={i} listId={listId} active={active === i} floor={floor} onOpen={go} onHover={setActive} />
          ))}
        </Group>
        <Group title={t("search.sessions")} count={sessionRows.length} testId="search-everywhere-sessions">
          {sessionRows.map((row, i) => {
            const index = memoryRows.length + i;
            return <ResultRow key={`s${i}`} row={row} index={index} listId={listId} active={active === index} floor={floor} onOpen={go} onHover={setActive} />;
          })}
        </Group>
      </div>
    );
  }

  return (
    <div
      className="search-everywhere"
      ref={boxRef}
      onBlur={(e) => {
        if (!boxRef.current?.contains(e.relatedTarget as Node | null)) setOpen(false);
      }}
      data-testid="search-everywhere"
    >
      <label className="se-field">
        <Icon name="search" size={14} />
        <span className="sr-only">{t("search.label")}</span>
        <input
          ref={inputRef}
          id={SEARCH_EVERYWHERE_ID}
          type="text"
          role="combobox"
          autoComplete="off"
          spellCheck={false}
          aria-expanded={showPanel}
          aria-controls={showPanel ? listId : undefined}
          aria-activedescendant={showPanel && active >= 0 && rows.length > 0 ? `${listId}-${active}` : undefined}
          aria-autocomplete="list"
          placeholder={t("search.placeholder")}
          value={text}
          onChange={(e) => {
            setText(e.target.value);
            setForced(null);
            setOpen(true);
          }}
          onFocus={() => setOpen(true)}
          onKeyDown={onKeyDown}
          data-testid="search-everywhere-input"
        />
        <kbd className="se-kbd" aria-hidden="true">
          {isMac ? "⌘K" : "Ctrl K"}
        </kbd>
      </label>
      {showPanel ? (
        <div className="se-panel" data-testid="search-everywhere-panel" aria-busy={r.isFetching}>
          {data && r.isFetching ? <span className="spinner se-refetch" aria-hidden="true" /> : null}
          {body}
          {rows.length > 0 && !r.isError ? (
            <div className="se-foot muted small">
              <span>{t("search.keys")}</span>
              <span>{t("search.floor", { floor: floorText })}</span>
            </div>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}

function Group({ title, count, testId, children }: { title: string; count: number; testId: string; children: React.ReactNode }) {
  const { t, num } = useI18n();
  return (
    <div role="group" aria-label={title} className="se-group" data-testid={testId}>
      <div className="se-group-head" aria-hidden="true">
        <span>{title}</span>
        <span className="count">{num(count)}</span>
      </div>
      {count === 0 ? <div className="se-note muted small">{t("search.groupEmpty")}</div> : children}
    </div>
  );
}

function ResultRow({ row, index, listId, active, floor, onOpen, onHover }: { row: Row; index: number; listId: string; active: boolean; floor: number | null; onOpen: (r: Row) => void; onHover: (i: number) => void }) {
  const { t } = useI18n();
  const common = {
    id: `${listId}-${index}`,
    role: "option",
    "aria-selected": active,
    className: active ? "se-row active" : "se-row",
    onMouseDown: (e: React.MouseEvent) => e.preventDefault(),
    onMouseMove: () => {
      if (!active) onHover(index);
    },
    onClick: () => onOpen(row),
    "data-href": href(row.route),
  };
  if (row.kind === "memory") {
    const h = row.hit.hit;
    return (
      <div {...common} data-testid="search-everywhere-hit" data-kind="memory" data-agent={row.hit.agent ?? ""}>
        <span className="se-text clamp">{h.content}</span>
        <span className="hit-meta">
          <span className={row.hit.agent ? "tag tag-accent-soft" : "tag"}>{row.hit.agent ?? t("recall.global")}</span>
          <span className="tag">{t(`recall.scope.${h.scope}`)}</span>
          <span className="c-time">{h.timestamp ?? t("common.none")}</span>
          {h.score !== null ? <Score score={h.score} floor={floor} testId="search-everywhere-score" /> : null}
        </span>
      </div>
    );
  }
  const h = row.hit.hit;
  const role = h.role === "user" || h.role === "assistant" ? t(`session.role.${h.role}`) : h.role;
  return (
    <div {...common} title={t("episodic.open", { session: h.session_id, n: h.message_index + 1 })} data-testid="search-everywhere-hit" data-kind="session" data-session={h.session_id} data-index={h.message_index}>
      <span className="se-text clamp">{h.text}</span>
      <span className="hit-meta">
        <span className="tag tag-accent-soft">{row.hit.agent}</span>
        <span className="tag">{role}</span>
        <span className="mono se-session">{h.session_id}</span>
        <span className="c-time">{h.time ?? t("common.none")}</span>
        {h.score !== null ? <Score score={h.score} floor={floor} testId="search-everywhere-score" /> : null}
      </span>
    </div>
  );
}
