import {
  createColumnHelper,
  flexRender,
  getCoreRowModel,
  getFilteredRowModel,
  getSortedRowModel,
  useReactTable,
  type SortingState,
} from "@tanstack/react-table";
import { useMemo, useState } from "react";

import type { AgentList, AgentSummary } from "../../backend/types";
import { humanBytes } from "../../components/format";
import { onRowKeyDown } from "../../components/hooks";
import { Icon } from "../../components/Icon";
import { SortableHead, isNumColumn } from "../../components/SortableHead";
import { Empty, Loadable } from "../../components/States";
import { requestWarningsFocus, WarningBadge } from "../../components/Warnings";
import { useI18n, type TFunction } from "../../i18n";
import { useOp } from "../../queries/ops";
import { href, navigate } from "../../router";
import { HealthBadge, useFindingsByAgent } from "../dashboard/HealthBadge";
import { ExportDialog } from "../transfer/ExportDialog";
import { ImportDialog } from "../transfer/ImportDialog";
import { ArchivedSection } from "./ArchivedSection";
import { ArchiveToast } from "./ArchiveToast";
import { CreateAgentDialog } from "./CreateAgentDialog";
import { NotLoadedBadge } from "./RuntimeLoad";
import "./agents.css";

const col = createColumnHelper<AgentSummary>();

function columns(t: TFunction, num: (n: number) => string) {
  return [
    col.accessor("name", {
      header: t("agents.col.name"),
      cell: (c) => {
        const n = c.row.original.unreviewed;
        return (
          <>
            <span className="cell-name">{c.getValue()}</span>
            <NotLoadedBadge name={c.getValue()} runtime={c.row.original.runtime} />
            {n !== null && n > 0 ? (
              <span className="tag tag-new agent-new" title={t("agents.newTitle", { n: num(n) })} data-testid={`agent-new-${c.getValue()}`}>
                {t("agents.new", { n: num(n) })}
              </span>
            ) : null}
          </>
        );
      },
    }),
    col.accessor((a) => a.warnings.length + (a.memory.error ? 1 : 0), {
      id: "warnings",
      header: () => (
        <span title={t("agents.col.warnings")} aria-label={t("agents.col.warnings")}>
          <Icon name="warning" size={13} />
        </span>
      ),
      cell: (c) => {
        const a = c.row.original;
        const all = a.memory.error ? [...a.warnings, t("agents.countsError", { message: a.memory.error })] : a.warnings;
        // Activated: to the problem — the overview lists the agent's warnings; a memory that
        // could not be read is explained on the memory tab.
        const go = () => {
          if (a.warnings.length) {
            requestWarningsFocus();
            navigate({ page: "agent", name: a.name, tab: "overview" });
          } else navigate({ page: "agent", name: a.name, tab: "memory" });
        };
        return <WarningBadge warnings={all} testId={`agent-warnings-${a.name}`} onActivate={go} />;
      },
    }),
    col.accessor((a) => a.description ?? "", {
      id: "description",
      header: t("agents.col.description"),
      cell: (c) => <span className="cell-desc" title={c.getValue()}>{c.getValue() || t("common.none")}</span>,
    }),
    col.accessor((a) => a.model ?? "", {
      id: "model",
      header: t("agents.col.model"),
      cell: (c) =>
        c.getValue() ? (
          <code className="cell-code" title={[c.row.original.provider, c.row.original.model].filter(Boolean).join(" / ")}>
            {c.getValue()}
          </code>
        ) : (
          t("common.none")
        ),
    }),
    col.accessor((a) => a.skills.join(", "), {
      id: "skills",
      header: t("agents.col.skills"),
      cell: (c) =>
        c.row.original.skills.length ? (
          <span className="chips">
            {c.row.original.skills.map((s) => (
              <span key={s} className="chip">
                {s}
              </span>
            ))}
          </span>
        ) : (
          t("common.none")
        ),
      enableSorting: false,
    }),
    col.accessor((a) => a.memory.core, { id: "core", header: t("agents.col.core"), cell: (c) => <span className="num">{num(c.getValue())}</span>, meta: { num: true } }),
    col.accessor((a) => a.memory.archival, {
      id: "archival",
      header: t("agents.col.archival"),
      cell: (c) => <span className="num">{num(c.getValue())}</span>,
      meta: { num: true },
    }),
    col.accessor((a) => a.memory.bytes ?? -1, {
      id: "bytes",
      header: t("agents.col.size"),
      cell: (c) => <span className="num">{humanBytes(c.row.original.memory.bytes)}</span>,
      meta: { num: true },
    }),
    col.accessor((a) => a.last_activity ?? "", {
      id: "activity",
      header: t("agents.col.activity"),
      cell: (c) => (
        <span className="cell-time" title={c.getValue() || undefined}>
          {c.getValue() || t("common.none")}
        </span>
      ),
    }),
  ];
}

/** The filter rule of the agents list: name, description or model contains the text. */
function matches(a: AgentSummary, value: string): boolean {
  const v = value.trim().toLowerCase();
  return a.name.toLowerCase().includes(v) || (a.description ?? "").toLowerCase().includes(v) || (a.model ?? "").toLowerCase().includes(v);
}

export function AgentsPage() {
  const q = useOp("list_agents", {});
  const { t, num } = useI18n();
  const [creating, setCreating] = useState(false);
  const [transfer, setTransfer] = useState<"export" | "import" | null>(null);
  const [filter, setFilter] = useState("");
  const shown = q.data && filter.trim() ? q.data.agents.filter((a) => matches(a, filter)).length : null;
  return (
    <div className="page">
      <div className="page-head">
        <h1>{t("agents.title")}</h1>
        {q.data ? (
          <span className="page-sub" data-testid="agents-count" aria-live="polite">
            {shown === null
              ? t("agents.subtitle", { n: num(q.data.agents.length), root: q.data.root })
              : t("agents.subtitleFiltered", { shown: num(shown), n: num(q.data.agents.length), root: q.data.root })}
          </span>
        ) : null}
        <span className="spacer" />
        <button type="button" className="btn" onClick={() => setTransfer("import")} title={t("import.buttonTitle")} data-testid="agents-import">
          {t("import.button")}
        </button>
        <button type="button" className="btn" onClick={() => setTransfer("export")} title={t("export.buttonTitle")} data-testid="agents-export">
          {t("export.button")}
        </button>
        <button type="button" className="btn btn-primary" onClick={() => setCreating(true)} data-testid="agent-new">
          {t("create.button")}
        </button>
      </div>
      <Loadable query={q} rows={8}>
        {(data) => (
          <>
            <AgentsTable data={data} filter={filter} setFilter={setFilter} />
            <ArchivedSection />
          </>
        )}
      </Loadable>
      {creating ? <CreateAgentDialog onClose={() => setCreating(false)} /> : null}
      {transfer === "export" ? <ExportDialog agents={exportChoice(q.data?.agents ?? [], filter)} onClose={() => setTransfer(null)} /> : null}
      {transfer === "import" ? <ImportDialog onClose={() => setTransfer(null)} /> : null}
      <ArchiveToast />
    </div>
  );
}

/** What the export starts with: the agents the filter shows, or all when it shows them all. */
function exportChoice(agents: AgentSummary[], filter: string): string[] | "all" {
  if (!filter.trim()) return "all";
  return agents.filter((a) => matches(a, filter)).map((a) => a.name);
}

function AgentsTable({ data, filter, setFilter }: { data: AgentList; filter: string; setFilter: (f: string) => void }) {
  const { t, num } = useI18n();
  // Asked apart from the list (the checks read every memory): the badges come when it answers.
  const findings = useFindingsByAgent();
  const [sorting, setSorting] = useState<SortingState>([]);
  const cols = useMemo(() => columns(t, num), [t, num]);
  const table = useReactTable({
    data: data.agents,
    columns: cols,
    state: { sorting, globalFilter: filter },
    onSortingChange: setSorting,
    onGlobalFilterChange: setFilter,
    globalFilterFn: (row, _id, value: string) => matches(row.original, value),
    getCoreRowModel: getCoreRowModel(),
    getSortedRowModel: getSortedRowModel(),
    getFilteredRowModel: getFilteredRowModel(),
  });
  const g = data.global_memory;
  const rows = table.getRowModel().rows;
  const noMatch = data.agents.length > 0 && rows.length === 0;
  return (
    <>
      <div className="toolbar">
        <label className="search">
          <Icon name="search" />
          <input
            type="search"
            value={filter}
            onChange={(e) => setFilter(e.target.value)}
            placeholder={t("agents.filter")}
            aria-label={t("agents.filter")}
            data-search
            data-testid="agents-filter"
          />
        </label>
      </div>
      <div className="table-wrap agents-table-wrap">
        <table className="table" data-testid="agents-table">
          <thead>
            {table.getHeaderGroups().map((hg) => (
              <tr key={hg.id}>
                {hg.headers.map((h) => (
                  <SortableHead key={h.id} header={h} className={`col-${h.column.id}`} />
                ))}
              </tr>
            ))}
          </thead>
          <tbody onKeyDown={onRowKeyDown}>
            <tr
              className="row-link row-global"
              tabIndex={0}
              data-row
              data-testid="global-memory-row"
              onClick={() => navigate({ page: "global" })}
              onKeyDown={(e) => e.key === "Enter" && navigate({ page: "global" })}
            >
              <td>
                <span className="cell-name">
                  <Icon name="globe" size={13} /> {t("agents.globalRow")}
                </span>
              </td>
              <td className="col-warnings">{g.error ? <WarningBadge warnings={[g.error]} /> : null}</td>
              <td className="col-description">
                <span className="cell-desc muted">{t("agents.globalHint")}</span>
              </td>
              <td className="col-model" />
              <td className="col-skills" />
              {g.error ? (
                <MemoryErrorCell message={g.error} testId="global-memory-error" />
              ) : (
                <>
                  <td className="num">{num(g.core)}</td>
                  <td className="num">{num(g.archival)}</td>
                  <td className="num">{humanBytes(g.bytes)}</td>
                </>
              )}
              <td />
            </tr>
            {rows.map((row) => {
              const name = row.original.name;
              const go = () => navigate({ page: "agent", name, tab: "memory" });
              return (
                <tr
                  key={row.id}
                  className={row.original.warnings.length ? "row-link has-warnings" : "row-link"}
                  tabIndex={0}
                  data-row
                  data-testid={`agent-row-${name}`}
                  onClick={go}
                  onKeyDown={(e) => e.key === "Enter" && go()}
                  aria-label={name}
                >
                  {row.getVisibleCells().map((cell) => {
                    // A memory that could not be read has no counts: its reason takes their place.
                    const memError = row.original.memory.error;
                    if (memError && cell.column.id === "core") return <MemoryErrorCell key={cell.id} message={memError} testId={`agent-memory-error-${name}`} />;
                    if (memError && (cell.column.id === "archival" || cell.column.id === "bytes")) return null;
                    const isNum = isNumColumn(cell.column);
                    return (
                      <td key={cell.id} className={`col-${cell.column.id}${isNum ? " num" : ""}`}>
                        {cell.column.id === "name" ? (
                          <>
                            <a href={href({ page: "agent", name, tab: "memory" })} tabIndex={-1} className="plain-link" onClick={(e) => e.stopPropagation()}>
                              {flexRender(cell.column.columnDef.cell, cell.getContext())}
                            </a>
                            <HealthBadge agent={name} findings={findings.get(name)} />
                          </>
                        ) : (
                          flexRender(cell.column.columnDef.cell, cell.getContext())
                        )}
                      </td>
                    );
                  })}
                </tr>
              );
            })}
          </tbody>
        </table>
        {data.agents.length === 0 ? <Empty>{t("agents.empty")}</Empty> : null}
        {noMatch ? (
          <div className="empty" role="status" data-testid="agents-no-match">
            {t("agents.noMatch", { q: filter.trim() })}{" "}
            <button type="button" className="link-btn" onClick={() => setFilter("")} data-testid="agents-clear-filter">
              {t("agents.clearFilter")}
            </button>
          </div>
        ) : null}
      </div>
    </>
  );
}

/** The core, archival and size cells of a memory that could not be read: the reason, visible in
 * the row (in full on hover and to screen readers). */
function MemoryErrorCell({ message, testId }: { message: string; testId: string }) {
  const { t } = useI18n();
  const full = t("agents.countsUnreadableTitle", { message });
  return (
    <td colSpan={3} className="cell-mem-error" data-testid={testId}>
      <span className="mem-error" title={full}>
        <Icon name="error" size={13} />
        <strong>{t("agents.countsUnreadable")}</strong>
        <span className="sr-only">: </span>
        <span className="mem-error-text">{message}</span>
      </span>
    </td>
  );
}
