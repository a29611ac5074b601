// Across agents: every agent's health (agents_health) as a sortable table whose rows lead to the
// agent's Health tab, findings per agent, and sessions per day by agent.
import {
  createColumnHelper,
  flexRender,
  getCoreRowModel,
  getSortedRowModel,
  useReactTable,
  type SortingState,
} from "@tanstack/react-table";
import { useMemo, useState } from "react";

import type { AgentHealthDto } from "../../backend/types";
import { SortableHead, isNumColumn } from "../../components/SortableHead";
import { Loadable } from "../../components/States";
import { useI18n, type MessageKey, type TFunction } from "../../i18n";
import { href, replaceRoute } from "../../router";
import { useSessionsPerDay } from "../charts/hooks";
import { RuntimePanel } from "../runtime/RuntimePanel";
import { SupersededCard } from "../superseded/SupersededCard";
import { useDays } from "../charts/Chart";
import { lazyChart, SessionsChart } from "../charts/lazy";
import "../charts/charts.css";
import { useAgentsHealth } from "./hooks";

const FindingsChart = lazyChart(() => import("./FindingsChart").then((m) => m.FindingsChart));

/** The periods the sessions chart offers; the first visit shows DEFAULT_DAYS. */
export const RANGES = [30, 90, 365, 3650] as const;
export const DEFAULT_DAYS = 90;

const col = createColumnHelper<AgentHealthDto>();
const COUNTS = ["findings", "secrets", "pii", "duplicates", "stale", "budget", "broken_checks", "core", "archival", "outside_window"] as const;
const COUNT_LABEL: Record<(typeof COUNTS)[number], MessageKey> = {
  findings: "dashboard.col.findings",
  secrets: "dashboard.col.secrets",
  pii: "dashboard.col.pii",
  duplicates: "dashboard.col.duplicates",
  stale: "dashboard.col.stale",
  budget: "dashboard.col.budget",
  broken_checks: "dashboard.col.brokenChecks",
  core: "dashboard.col.core",
  archival: "dashboard.col.archival",
  outside_window: "dashboard.col.outside",
};

function columns(t: TFunction, num: (n: number) => string, days: (d: number) => string) {
  const count = (k: (typeof COUNTS)[number]) =>
    col.accessor((h) => (h.error ? -1 : h[k]), {
      id: k,
      header: t(COUNT_LABEL[k]),
      cell: (c) => {
        const v = c.row.original[k];
        return <span className={v === 0 ? "zero" : undefined}>{num(v)}</span>;
      },
      sortDescFirst: true,
      meta: { num: true },
    });
  return [
    col.accessor("agent", {
      header: t("dashboard.col.agent"),
      cell: (c) => (
        <a href={href({ page: "agent", name: c.getValue(), tab: "health" })} title={t("dashboard.openHealth", { agent: c.getValue() })} data-testid={`dashboard-link-${c.getValue()}`}>
          {c.getValue()}
        </a>
      ),
    }),
    ...COUNTS.map(count),
    col.accessor((h) => (h.error ? -2 : (h.window_reach_days ?? -1)), {
      id: "reach",
      header: t("dashboard.col.reach"),
      cell: (c) => (c.row.original.window_reach_days === null ? t("common.none") : days(c.row.original.window_reach_days)),
      sortDescFirst: true,
      meta: { num: true },
    }),
    col.accessor((h) => (h.error ? -2 : (h.prompt_chars ?? -1)), {
      id: "prompt",
      header: t("dashboard.col.prompt"),
      cell: (c) => (c.row.original.prompt_chars === null ? t("common.none") : num(c.row.original.prompt_chars)),
      sortDescFirst: true,
      meta: { num: true },
    }),
  ];
}

export function DashboardPage({ days }: { days?: number }) {
  const { t } = useI18n();
  const health = useAgentsHealth();
  const period = days ?? DEFAULT_DAYS;
  return (
    <div className="page dashboard" data-testid="dashboard">
      <div className="page-head">
        <h1>{t("dashboard.title")}</h1>
        <span className="page-sub">{t("dashboard.subtitle")}</span>
      </div>
      <RuntimePanel compact />
      <section className="card" aria-labelledby="dashboard-health-title">
        <h2 id="dashboard-health-title">{t("dashboard.health.title")}</h2>
        <Loadable query={health} rows={6}>
          {(rows) => <HealthTable rows={rows} />}
        </Loadable>
      </section>
      <SupersededCard />
      <div className="dashboard-charts">
        <section className="card" aria-label={t("charts.findings.title")}>
          <Loadable query={health} rows={6}>
            {(rows) => <FindingsChart health={rows} />}
          </Loadable>
        </section>
        <section className="card" aria-label={t("charts.sessions.title")}>
          <SessionsPanel days={period} />
        </section>
      </div>
    </div>
  );
}

function SessionsPanel({ days }: { days: number }) {
  const { t } = useI18n();
  const q = useSessionsPerDay(days);
  const picker = (
    <label className="chart-range">
      {t("charts.sessions.range")}
      <select value={days} onChange={(e) => replaceRoute({ page: "dashboard", days: Number(e.target.value) })} data-testid="sessions-range">
        {(RANGES as readonly number[]).includes(days) ? null : <option value={days}>{days}</option>}
        {RANGES.map((r) => (
          <option key={r} value={r}>
            {t(`charts.range.${r}`)}
          </option>
        ))}
      </select>
    </label>
  );
  return (
    <Loadable query={q} rows={6}>
      {(rows) => <SessionsChart rows={rows} days={days} actions={picker} />}
    </Loadable>
  );
}

function HealthTable({ rows }: { rows: AgentHealthDto[] }) {
  const { t, num } = useI18n();
  const days = useDays();
  const [sorting, setSorting] = useState<SortingState>([{ id: "findings", desc: true }]);
  const cols = useMemo(() => columns(t, num, days), [t, num, days]);
  const table = useReactTable({
    data: rows,
    columns: cols,
    state: { sorting },
    onSortingChange: setSorting,
    getCoreRowModel: getCoreRowModel(),
    getSortedRowModel: getSortedRowModel(),
  });
  if (rows.length === 0) return <p className="muted">{t("dashboard.empty")}</p>;
  const span = cols.length - 1;
  return (
    <div className="table-wrap">
      <table className="table dashboard-table" data-testid="dashboard-table">
        <thead>
          {table.getHeaderGroups().map((hg) => (
            <tr key={hg.id}>
              {hg.headers.map((h) => (
                <SortableHead key={h.id} header={h} testId={`dashboard-sort-${h.column.id}`} />
              ))}
            </tr>
          ))}
        </thead>
        <tbody>
          {table.getRowModel().rows.map((row) => (
            <tr key={row.id} data-testid={`dashboard-row-${row.original.agent}`}>
              {row.original.error ? (
                <>
                  <th scope="row">{flexRender(row.getVisibleCells()[0]!.column.columnDef.cell, row.getVisibleCells()[0]!.getContext())}</th>
                  <td colSpan={span} className="cell-error" data-testid={`dashboard-error-${row.original.agent}`}>
                    {t("dashboard.error", { message: row.original.error })}
                  </td>
                </>
              ) : (
                row.getVisibleCells().map((cell, i) => {
                  const isNum = isNumColumn(cell.column);
                  const content = flexRender(cell.column.columnDef.cell, cell.getContext());
                  return i === 0 ? (
                    <th key={cell.id} scope="row">
                      {content}
                    </th>
                  ) : (
                    <td key={cell.id} className={isNum ? "num" : undefined}>
                      {content}
                    </td>
                  );
                })
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
