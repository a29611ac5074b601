import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "react";

import type { AsOfDto, MemoryDiffDto, MemoryStatsDto } from "../../backend/types";
import { useDebounced } from "../../components/hooks";
import { Icon } from "../../components/Icon";
import { Empty, ErrorState, Skeleton } from "../../components/States";
import { useI18n, type MessageKey } from "../../i18n";
import { useOp } from "../../queries/ops";
import { dayRange, isDay, localDay, useAsOf, useMemoryDiff } from "./timeTravel";
import "./timeTravel.css";

/** How long the slider rests before the day is asked for (dragging sends one request, not one
 * per day passed). */
export const SLIDER_DEBOUNCE_MS = 250;
/** Rows of the archival table drawn at most (the newest, where the prompt window is). */
const MAX_ARCHIVAL_ROWS = 500;
/** Items of each diff list shown before "Show all". */
const LIST_STEP = 50;

/** The days the slider walks: from the oldest entry's day (memory_stats) to today. */
function sliderDays(stats: MemoryStatsDto, today: string): string[] {
  const oldest = stats.days[0]?.day;
  return oldest ? dayRange(oldest, today) : [today];
}

/**
 * The memory screen in time travel: a day slider (and a date field), the memory as it stood at
 * the end of that day (read-only, the prompt window marked), the prompt's memory block then, what
 * the view cannot know, and what changed from that day to today.
 */
export function TimeTravel({ agent, onExit }: { agent: string | null; onExit: () => void }) {
  const { t } = useI18n();
  const stats = useOp("memory_stats", { agent });
  return (
    <div className="memory time-travel" data-testid="time-travel">
      <div className="source-line memory-bar">
        <h2 className="tt-title">
          <Icon name="history" size={14} /> {t("timeTravel.title")}
        </h2>
        <span className="memory-bar-spacer" />
        <TimeTravelToggle on onClick={onExit} />
      </div>
      {stats.isError && stats.data === undefined ? (
        <ErrorState error={stats.error} onRetry={() => void stats.refetch()} />
      ) : stats.data === undefined ? (
        <Skeleton rows={6} />
      ) : (
        <Travel agent={agent} stats={stats.data} onExit={onExit} />
      )}
    </div>
  );
}

/** The button that opens and closes time travel (pressed while in it). */
export function TimeTravelToggle({ on, onClick }: { on: boolean; onClick: () => void }) {
  const { t } = useI18n();
  return (
    <button
      type="button"
      className={on ? "btn btn-small tt-toggle on" : "btn btn-small tt-toggle"}
      aria-pressed={on}
      onClick={onClick}
      title={t("timeTravel.toggleHint")}
      data-testid="time-travel-toggle"
    >
      <Icon name="history" size={14} /> {t("timeTravel.toggle")}
    </button>
  );
}

function Travel({ agent, stats, onExit }: { agent: string | null; stats: MemoryStatsDto; onExit: () => void }) {
  const { t } = useI18n();
  const today = useMemo(() => localDay(new Date()), []);
  const days = useMemo(() => sliderDays(stats, today), [stats, today]);
  const last = days.length - 1;
  // A week back to begin with (or the oldest day, when the memory is younger).
  const [pos, setPos] = useState(() => Math.max(0, last - 7));
  const at = Math.min(pos, last);
  const day = days[at]!;
  const asked = useDebounced(day, SLIDER_DEBOUNCE_MS);
  // The date field holds what is typed until it is a day in range.
  const [typed, setTyped] = useState<string | null>(null);
  const slider = useRef<HTMLInputElement>(null);
  useEffect(() => slider.current?.focus(), []);

  const asOf = useAsOf(agent, asked);
  const diff = useMemoryDiff(agent, asked, today);
  const isToday = day === today;

  const goTo = (d: string) => {
    setTyped(d);
    if (!isDay(d)) return;
    const i = days.indexOf(d);
    if (i >= 0) {
      setPos(i);
      setTyped(null);
    }
  };

  return (
    <>
      <div className="tt-controls" role="group" aria-label={t("timeTravel.title")}>
        <label className="tt-slider">
          <span className="field-label">{t("timeTravel.day")}</span>
          <input
            ref={slider}
            type="range"
            min={0}
            max={last}
            step={1}
            value={at}
            disabled={last === 0}
            onChange={(e) => {
              setPos(Number(e.target.value));
              setTyped(null);
            }}
            aria-valuetext={day}
            data-testid="time-travel-slider"
          />
        </label>
        <input
          type="date"
          className="tt-date"
          min={days[0]}
          max={today}
          value={typed ?? day}
          onChange={(e) => goTo(e.target.value)}
          onBlur={() => setTyped(null)}
          aria-label={t("timeTravel.dateField")}
          aria-invalid={typed !== null && !days.includes(typed)}
          data-testid="time-travel-date"
        />
        <span className="field-hint tt-range" data-testid="time-travel-range">
          {last === 0 && stats.days.length === 0 ? t("timeTravel.noDays") : t("timeTravel.range", { from: days[0]!, to: today })}
        </span>
      </div>

      {isToday ? (
        <div className="banner banner-ok tt-banner" role="status" data-testid="time-travel-today">
          <Icon name="check" />
          <div>{t("timeTravel.today")}</div>
          <span className="memory-bar-spacer" />
          <button type="button" className="btn btn-small" onClick={onExit} data-testid="time-travel-back">
            <Icon name="redo" size={14} /> {t("timeTravel.back")}
          </button>
        </div>
      ) : (
        <div className="banner banner-warn tt-banner" role="status" data-testid="time-travel-banner">
          <Icon name="history" />
          <div>
            <strong>{t("timeTravel.banner", { day })}</strong>
            <div className="banner-sub">{t("timeTravel.bannerSub")}</div>
          </div>
          <span className="memory-bar-spacer" />
          <button type="button" className="btn btn-small btn-primary" onClick={onExit} data-testid="time-travel-back">
            <Icon name="redo" size={14} /> {t("timeTravel.back")}
          </button>
        </div>
      )}

      <AsOfView q={asOf} waiting={day !== asked} />
      <DiffView q={diff} day={asked} waiting={day !== asked} />
    </>
  );
}

type Q<T> = { data: T | undefined; error: unknown; isError: boolean; isFetching: boolean; isPlaceholderData: boolean; refetch: () => unknown };

/** Loading and error states of one of the two answers, in the user's language. */
function Pending<T>({ q, title, rows, children }: { q: Q<T>; title: MessageKey; rows: number; children: (data: T) => React.ReactNode }) {
  const { t } = useI18n();
  if (q.isError && !q.isFetching)
    return (
      <div className="tt-error" data-testid="time-travel-error">
        <strong>{t(title)}</strong>
        <ErrorState error={q.error} onRetry={() => void q.refetch()} compact />
      </div>
    );
  if (q.data === undefined) return <Skeleton rows={rows} />;
  return <>{children(q.data)}</>;
}

function Updating({ on, testId }: { on: boolean; testId: string }) {
  const { t } = useI18n();
  return (
    <span className="tt-updating" aria-live="polite" data-testid={testId}>
      {on ? t("timeTravel.updating") : ""}
    </span>
  );
}

function AsOfView({ q, waiting }: { q: Q<AsOfDto>; waiting: boolean }) {
  const { t, num } = useI18n();
  return (
    <Pending q={q} title="timeTravel.loadError" rows={8}>
      {(v) => {
        const inWindow = v.archival.filter((e) => e.in_window).length;
        const busy = waiting || q.isFetching || q.isPlaceholderData;
        return (
          <div className={busy ? "tt-asof busy" : "tt-asof"} aria-busy={busy} data-testid="time-travel-asof" data-at={v.at}>
            <div className="field-hint">
              <span data-testid="time-travel-at">{t("timeTravel.asOf", { at: v.at })}</span> <Updating on={busy} testId="time-travel-updating" />
            </div>
            <section className="section">
              <div className="section-head">
                <h2>{t("timeTravel.core")}</h2>
                <span className="count" data-testid="time-travel-core-count">
                  {num(v.core.length)}
                </span>
              </div>
              <EntriesTable entries={v.core} kind="core" />
            </section>
            <section className="section">
              <div className="section-head">
                <h2>{t("timeTravel.archival")}</h2>
                <span className="count" data-testid="time-travel-archival-count">
                  {num(v.archival.length)}
                </span>
                <span className="section-hint" data-testid="time-travel-in-window">
                  {t("timeTravel.inWindow", { n: num(inWindow) })}
                </span>
              </div>
              <EntriesTable entries={v.archival} kind="archival" />
            </section>
            <details className="tt-context" data-testid="time-travel-context">
              <summary>{t("timeTravel.context", { n: num(Array.from(v.context).length) })}</summary>
              <pre className="tt-context-text">{v.context}</pre>
            </details>
            {v.note ? (
              <div className="tt-note" data-testid="time-travel-note">
                <Icon name="warning" size={14} />
                <span>
                  <span className="field-label">{t("timeTravel.note")}:</span> {v.note}
                </span>
              </div>
            ) : null}
          </div>
        );
      }}
    </Pending>
  );
}

/** A read-only table of the entries then: archival rows carry the window tag (and the cut line
 * before the first one in the window), as the live table does; the archival table scrolls in
 * its own box and opens at the cut line. */
function EntriesTable({ entries, kind }: { entries: AsOfDto["core"]; kind: "core" | "archival" }) {
  const { t, num } = useI18n();
  const box = useRef<HTMLDivElement>(null);
  const archival = kind === "archival";
  const skip = archival ? Math.max(0, entries.length - MAX_ARCHIVAL_ROWS) : 0;
  const shown = archival ? entries.slice(skip) : entries;
  const firstIn = archival ? shown.findIndex((e) => e.in_window) : -1;
  const cutAt = firstIn > 0 || (firstIn === 0 && skip > 0) ? firstIn : -1;
  useLayoutEffect(() => {
    const el = box.current;
    const cut = el?.querySelector<HTMLElement>('[data-testid="time-travel-cut"]');
    if (el && cut) el.scrollTop = Math.max(0, cut.offsetTop - 3 * 28 - 30);
  }, [entries]);
  if (entries.length === 0) return <Empty>{archival ? t("timeTravel.emptyArchival") : t("timeTravel.emptyCore")}</Empty>;
  return (
    <>
      {skip > 0 ? <div className="field-hint">{t("timeTravel.newestOnly", { shown: num(shown.length), n: num(entries.length) })}</div> : null}
      <div
        ref={box}
        className={archival ? "table-wrap tt-scroll" : "table-wrap"}
        tabIndex={archival ? 0 : undefined}
        role={archival ? "region" : undefined}
        aria-label={archival ? t("timeTravel.archival") : undefined}
      >
        <table className="table table-compact table-entries tt-table" data-testid={`time-travel-${kind}`}>
          <thead>
            <tr>
              <th className="c-idx">{t("memory.col.index")}</th>
              <th className="c-time">{t("memory.col.time")}</th>
              <th>{t("memory.col.content")}</th>
              {archival ? <th className="c-win">{t("memory.col.window")}</th> : null}
            </tr>
          </thead>
          <tbody>
            {shown.map((e, i) => (
              <Row key={skip + i} e={e} index={skip + i} archival={archival} cutBefore={i === cutAt} />
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

function Row({ e, index, archival, cutBefore }: { e: AsOfDto["core"][number]; index: number; archival: boolean; cutBefore: boolean }) {
  const { t } = useI18n();
  return (
    <>
      {cutBefore ? (
        <tr className="tt-cut" data-testid="time-travel-cut">
          <td colSpan={4}>
            <Icon name="scissors" size={13} /> {t("memory.cutLine")}
          </td>
        </tr>
      ) : null}
      <tr
        className={archival ? (e.in_window ? "in-window" : "outside") : undefined}
        data-testid={archival ? "time-travel-archival-row" : "time-travel-core-row"}
        data-in-window={archival ? String(e.in_window) : undefined}
      >
        <td className="c-idx muted">{index + 1}</td>
        <td className="c-time">{e.timestamp ?? <span className="muted">{t("memory.noTime")}</span>}</td>
        <td className="wrap c-content">{e.content}</td>
        {archival ? (
          <td className="c-win">{e.in_window ? <span className="tag tag-ok">{t("memory.inWindow")}</span> : <span className="tag tag-out">{t("memory.outside")}</span>}</td>
        ) : null}
      </tr>
    </>
  );
}

function DiffView({ q, day, waiting }: { q: Q<MemoryDiffDto>; day: string; waiting: boolean }) {
  const { t, num } = useI18n();
  return (
    <section className="section tt-diff" data-testid="time-travel-diff">
      <div className="section-head">
        <h2>{t("timeTravel.diff", { day })}</h2>
        <Updating on={waiting || q.isFetching || q.isPlaceholderData} testId="time-travel-diff-updating" />
      </div>
      <Pending q={q} title="timeTravel.diffError" rows={4}>
        {(d) => (
          <>
            <div className="tt-counts" data-testid="time-travel-diff-counts">
              <span className="tag tag-ok" data-testid="time-travel-added-count">
                + {num(d.added.length)} {t("timeTravel.added")}
              </span>
              <span className="tag tag-err" data-testid="time-travel-removed-count">
                − {num(d.removed.length)} {t("timeTravel.removed")}
              </span>
              <span className="tag tag-warn" data-testid="time-travel-changed-count">
                ~ {num(d.changed.length)} {t("timeTravel.changed")}
              </span>
            </div>
            {d.added.length + d.removed.length + d.changed.length === 0 ? (
              <Empty>{t("timeTravel.noChanges")}</Empty>
            ) : (
              <div className="tt-lists">
                <DiffList title={t("timeTravel.added")} kind="added" items={d.added.map((x) => ({ scope: x.scope, time: x.timestamp, body: x.content }))} />
                <DiffList title={t("timeTravel.removed")} kind="removed" items={d.removed.map((x) => ({ scope: x.scope, time: x.timestamp, body: x.content }))} />
                <DiffList
                  title={t("timeTravel.changed")}
                  kind="changed"
                  items={d.changed.map((c) => ({
                    scope: c.after.scope,
                    time: c.after.timestamp,
                    body: <Changed before={c.before} after={c.after} />,
                  }))}
                />
              </div>
            )}
          </>
        )}
      </Pending>
    </section>
  );
}

type Item = { scope: string; time: string | null; body: React.ReactNode };

function scopeLabel(t: ReturnType<typeof useI18n>["t"], scope: string): string {
  return scope === "core" ? t("memory.core") : scope === "archival" ? t("memory.archival") : scope;
}

function DiffList({ title, kind, items }: { title: string; kind: "added" | "removed" | "changed"; items: Item[] }) {
  const { t, num } = useI18n();
  const [limit, setLimit] = useState(LIST_STEP);
  const id = `tt-${kind}`;
  return (
    <div className={`tt-list tt-list-${kind}`} data-testid={`time-travel-${kind}`}>
      <h3 id={id}>
        {title} <span className="count">{num(items.length)}</span>
      </h3>
      {items.length === 0 ? (
        <div className="muted">{t("timeTravel.noneOfKind")}</div>
      ) : (
        <ul aria-labelledby={id}>
          {items.slice(0, limit).map((it, i) => (
            <li key={i} data-testid={`time-travel-${kind}-item`}>
              <span className="tag">{scopeLabel(t, it.scope)}</span> <span className="c-time">{it.time ?? t("memory.noTime")}</span>
              <div className="tt-item-body">{it.body}</div>
            </li>
          ))}
        </ul>
      )}
      {items.length > limit ? (
        <button type="button" className="link-btn" onClick={() => setLimit(items.length)} data-testid={`time-travel-${kind}-more`}>
          {t("timeTravel.showAll", { n: num(items.length) })}
        </button>
      ) : null}
    </div>
  );
}

function Changed({ before, after }: { before: MemoryDiffDto["changed"][number]["before"]; after: MemoryDiffDto["changed"][number]["after"] }) {
  const { t } = useI18n();
  const moved = before.scope !== after.scope;
  const restamped = before.timestamp !== after.timestamp;
  return (
    <span className="tt-change">
      <span className="sr-only">{t("timeTravel.before")}: </span>
      <del className="diff-del" data-testid="time-travel-before">
        {moved || restamped ? `[${scopeLabel(t, before.scope)} ${before.timestamp ?? t("memory.noTime")}] ` : ""}
        {before.content}
      </del>
      <span className="tt-arrow" aria-hidden="true">
        {" → "}
      </span>
      <span className="sr-only">{t("timeTravel.after")}: </span>
      <ins className="diff-ins" data-testid="time-travel-after">
        {after.content}
      </ins>
    </span>
  );
}
