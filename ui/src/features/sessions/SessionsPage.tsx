import { createColumnHelper, flexRender, getCoreRowModel, useReactTable } from "@tanstack/react-table";
import { useMemo, useState } from "react";

import type { SessionQuery, SessionStatusDto, SessionSummaryDto } from "../../backend/types";
import { useDebounced, onRowKeyDown } from "../../components/hooks";
import { Icon } from "../../components/Icon";
import { Empty, ErrorState, Skeleton } from "../../components/States";
import { WarningBadge } from "../../components/Warnings";
import { useI18n, type TFunction } from "../../i18n";
import { useAgents, useSessions } from "../../queries/hooks";
import { navigate } from "../../router";

const PAGE = 50;
const col = createColumnHelper<SessionSummaryDto>();

export function StatusTag({ status }: { status: string }) {
  const { t } = useI18n();
  const label = status === "active" ? t("sessions.active") : status === "archived" ? t("sessions.archived") : status;
  return <span className={`tag ${status === "active" ? "tag-ok" : "tag-muted"}`}>{label}</span>;
}

function columns(t: TFunction) {
  return [
    col.accessor("session_id", {
      header: t("sessions.col.id"),
      cell: (c) => (
        <span className="cell-code mono">
          {c.getValue()} {c.row.original.error ? <WarningBadge warnings={[c.row.original.error]} /> : null}
        </span>
      ),
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

export function SessionsPage() {
  const { t, num } = useI18n();
  const agents = useAgents();
  const [agent, setAgent] = useState<string | null>(null);
  const [status, setStatus] = useState<SessionStatusDto | null>(null);
  const [search, setSearch] = useState("");
  const [offset, setOffset] = useState(0);
  const debounced = useDebounced(search.trim(), 250);
  const query: SessionQuery = { agent, status, channel: null, search: debounced || null, limit: PAGE, offset };
  const q = useSessions(query);
  const cols = useMemo(() => columns(t), [t]);
  const table = useReactTable({ data: q.data?.items ?? [], columns: cols, getCoreRowModel: getCoreRowModel() });
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
            onChange={(e) => {
              setAgent(e.target.value || null);
              setOffset(0);
            }}
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
            onChange={(e) => {
              setStatus((e.target.value || null) as SessionStatusDto | null);
              setOffset(0);
            }}
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
            onChange={(e) => {
              setSearch(e.target.value);
              setOffset(0);
            }}
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
                const go = () => navigate({ page: "session", id });
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
