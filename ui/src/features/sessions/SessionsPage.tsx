import { createColumnHelper, flexRender, getCoreRowModel, useReactTable, type RowData } from "@tanstack/react-table";
import { useEffect, useMemo, useState } from "react";

import type { SessionQuery, SessionStatusDto, SessionSummaryDto } from "../../backend/types";
import { useDebounced, onRowKeyDown } from "../../components/hooks";
import { Icon } from "../../components/Icon";
import { Empty, ErrorState, Skeleton } from "../../components/States";
import { WarningBadge } from "../../components/Warnings";
import { useI18n, type TFunction } from "../../i18n";
import { useOp } from "../../queries/ops";
import { navigate, parseRoute, replaceRoute, type SessionsFilter } from "../../router";
import "./sessions.css";

const PAGE = 50;
const col = createColumnHelper<SessionSummaryDto>();

declare module "@tanstack/react-table" {
  // eslint-disable-next-line @typescript-eslint/no-unused-vars
  interface TableMeta<TData extends RowData> {
    /** The text the sessions list was searched for, to mark in the match snippets. */
    term?: string;
  }
}

export function StatusTag({ status }: { status: string }) {
  const { t } = useI18n();
  const label = status === "active" ? t("sessions.active") : status === "archived" ? t("sessions.archived") : status;
  return <span className={`tag ${status === "active" ? "tag-ok" : "tag-muted"}`}>{label}</span>;
}

/** The snippet with the searched text marked (same ASCII-only case folding as the search). */
function Marked({ text, term }: { text: string; term: string }) {
  const at = term ? text.toLowerCase().indexOf(term.toLowerCase()) : -1;
  if (at < 0 || text.toLowerCase().length !== text.length) return <>{text}</>;
  return (
    <>
      {text.slice(0, at)}
      <mark>{text.slice(at, at + term.length)}</mark>
      {text.slice(at + term.length)}
    </>
  );
}

function roleLabel(t: TFunction, role: string): string {
  return role === "user" || role === "assistant" || role === "tool" ? t(`session.role.${role}`) : role;
}

function columns(t: TFunction) {
  return [
    col.accessor("session_id", {
      header: t("sessions.col.id"),
      cell: (c) => {
        const m = c.row.original.message_match;
        return (
          <>
            <span className="cell-code mono session-id-cell">
              <span className="session-id" title={c.getValue()}>
                {c.getValue()}
              </span>{" "}
              {c.row.original.error ? <WarningBadge warnings={[c.row.original.error]} /> : null}
            </span>
            {m ? (
              <span className="match-snippet" data-testid="session-match">
                <span className="muted">{t("sessions.matchIn", { n: m.index + 1, role: roleLabel(t, m.role) })}</span> <Marked text={m.snippet} term={c.table.options.meta?.term ?? ""} />
              </span>
            ) : null}
          </>
        );
      },
    }),
    col.accessor("agent", { header: t("sessions.col.agent"), cell: (c) => c.getValue() ?? t("common.none") }),
    col.accessor("channel", { header: t("sessions.col.channel"), cell: (c) => c.getValue() ?? t("common.none") }),
    col.accessor("status", { header: t("sessions.col.status"), cell: (c) => <StatusTag status={c.getValue()} /> }),
    col.accessor("message_count", {
      header: t("sessions.col.messages"),
      cell: (c) => (c.getValue() === null ? <span className="tag tag-err">{t("sessions.rowError")}</span> : c.getValue()),
      meta: { num: true },
    }),
    col.accessor("last_active_at", { header: t("sessions.col.lastActive"), cell: (c) => <span className="cell-time">{c.getValue() ?? t("common.none")}</span> }),
  ];
}

let lastFilter: SessionsFilter = {};

/** The list as it was last shown, for the session page's breadcrumb. */
export function lastSessionsFilter(): SessionsFilter {
  return lastFilter;
}

/** The list's filter and page live in the URL (the route), so Back, the breadcrumb and a reload
 * come back to the same rows; only the text being typed is local until it settles. */
export function SessionsPage({ filter }: { filter: SessionsFilter }) {
  const { t, num } = useI18n();
  const agents = useOp("list_agents", {});
  const agent = filter.agent ?? null;
  const status: SessionStatusDto | null = filter.status ?? null;
  const offset = filter.offset ?? 0;
  const [search, setSearch] = useState(filter.q ?? "");
  const debounced = useDebounced(search.trim(), 250);
  // Changes start from the URL as it is now: two changes in one tick must not undo each other.
  const current = (): SessionsFilter => {
    const r = parseRoute(window.location.hash);
    return r.page === "sessions" ? r : filter;
  };
  const setFilter = (change: Partial<SessionsFilter>) => replaceRoute({ ...current(), ...change, page: "sessions" });
  const setOffset = (o: number) => setFilter({ offset: o || undefined });
  lastFilter = filter;
  useEffect(() => {
    if ((filter.q ?? "") !== search.trim()) setSearch(filter.q ?? "");
    // A URL change from outside (Back, a link) replaces what the box shows.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [filter.q]);
  useEffect(() => {
    if ((filter.q ?? "") !== debounced) setFilter({ q: debounced || undefined, offset: undefined });
    // Only a settled change of the typed text moves the URL.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [debounced]);
  const query: SessionQuery = { agent, status, channel: null, search: filter.q || null, limit: PAGE, offset };
  const q = useOp("list_sessions", query, { placeholderData: (prev) => prev });
  const cols = useMemo(() => columns(t), [t]);
  const table = useReactTable({ data: q.data?.items ?? [], columns: cols, getCoreRowModel: getCoreRowModel(), meta: { term: filter.q ?? "" } });
  const page = q.data;

  return (
    <div className="page">
      <div className="page-head">
        <h1>{t("sessions.title")}</h1>
        {page ? <span className="page-sub">{page.db_path}</span> : null}
      </div>
      <div className="toolbar">
        <label className="field-inline">
          <span className="field-label">{t("sessions.agent")}</span>
          <select
            value={agent ?? ""}
            data-testid="sessions-agent"
            onChange={(e) => setFilter({ agent: e.target.value || undefined, offset: undefined })}
          >
            <option value="">{t("sessions.allAgents")}</option>
            {(agents.data?.agents ?? []).map((a) => (
              <option key={a.name} value={a.name}>
                {a.name}
              </option>
            ))}
          </select>
        </label>
        <label className="field-inline">
          <span className="field-label">{t("sessions.status")}</span>
          <select
            value={status ?? ""}
            data-testid="sessions-status"
            onChange={(e) => setFilter({ status: (e.target.value || undefined) as SessionsFilter["status"], offset: undefined })}
          >
            <option value="">{t("sessions.allStatuses")}</option>
            <option value="active">{t("sessions.active")}</option>
            <option value="archived">{t("sessions.archived")}</option>
          </select>
        </label>
        <label className="search">
          <Icon name="search" />
          <input
            type="search"
            value={search}
            placeholder={t("sessions.search")}
            aria-label={t("sessions.search")}
            data-search
            data-testid="sessions-search"
            onChange={(e) => setSearch(e.target.value)}
          />
        </label>
        <span className="spacer" />
        {page && page.total > 0 ? (
          <span className="pager" data-testid="sessions-paging">
            <span>{t("sessions.paging", { from: num(page.offset + 1), to: num(Math.min(page.total, page.offset + page.items.length)), total: num(page.total) })}</span>
            <button type="button" className="btn btn-small" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE))}>
              {t("common.prev")}
            </button>
            <button type="button" className="btn btn-small" disabled={page.offset + page.items.length >= page.total} onClick={() => setOffset(offset + PAGE)}>
              {t("common.next")}
            </button>
          </span>
        ) : null}
      </div>
      {q.isError && !q.data ? (
        <ErrorState error={q.error} onRetry={() => void q.refetch()} />
      ) : !page ? (
        <Skeleton rows={8} />
      ) : (
        <div className="table-wrap">
          {q.isError ? <ErrorState error={q.error} onRetry={() => void q.refetch()} compact /> : null}
          <table className="table" data-testid="sessions-table">
            <thead>
              {table.getHeaderGroups().map((hg) => (
                <tr key={hg.id}>
                  {hg.headers.map((h) => (
                    <th key={h.id} className={(h.column.columnDef.meta as { num?: boolean } | undefined)?.num ? "num" : undefined}>
                      {flexRender(h.column.columnDef.header, h.getContext())}
                    </th>
                  ))}
                </tr>
              ))}
            </thead>
            <tbody onKeyDown={onRowKeyDown}>
              {table.getRowModel().rows.map((row) => {
                const id = row.original.session_id;
                const m = row.original.message_match;
                const go = () => navigate(m ? { page: "session", id, m: m.index, q: filter.q } : { page: "session", id });
                return (
                  <tr
                    key={id}
                    tabIndex={0}
                    data-row
                    className={row.original.error ? "row-link has-warnings" : "row-link"}
                    data-testid={`session-row-${id}`}
                    onClick={go}
                    onKeyDown={(e) => e.key === "Enter" && go()}
                  >
                    {row.getVisibleCells().map((cell) => (
                      <td key={cell.id} className={(cell.column.columnDef.meta as { num?: boolean } | undefined)?.num ? "num" : undefined}>
                        {flexRender(cell.column.columnDef.cell, cell.getContext())}
                      </td>
                    ))}
                  </tr>
                );
              })}
            </tbody>
          </table>
          {page.items.length === 0 ? <Empty>{page.db_exists ? t("sessions.empty") : t("sessions.noDb", { path: page.db_path })}</Empty> : null}
        </div>
      )}
    </div>
  );
}
