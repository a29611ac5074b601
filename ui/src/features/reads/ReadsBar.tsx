// The memory tab's read receipts bar: shows the "Last read" column, the "never read in 90 days"
// filter (the backend decides what is unread), totals and the CSV/JSON export.
import { useState } from "react";

import type { EntryReadsDto } from "../../backend/types";
import { Icon } from "../../components/Icon";
import { ErrorState } from "../../components/States";
import { useI18n } from "../../i18n";
import { useExportReads } from "./hooks";
import "./reads.css";

export function ReadsBar({
  agent,
  shown,
  onShown,
  reads,
  error,
  unreadOnly,
  onUnreadOnly,
}: {
  agent: string | null;
  shown: boolean;
  onShown: (on: boolean) => void;
  reads: EntryReadsDto | undefined;
  error: unknown;
  unreadOnly: boolean;
  onUnreadOnly: (on: boolean) => void;
}) {
  const { t, num } = useI18n();
  const save = useExportReads(agent);
  const [saved, setSaved] = useState<string | null>(null);
  const [failed, setFailed] = useState<unknown>(null);
  const run = (format: "csv" | "json") => {
    setFailed(null);
    // A closed dialog saves nothing and says nothing.
    save(format).then((where) => {
      if (where !== null) setSaved(where);
    }, setFailed);
  };
  return (
    <div className="reads-bar" data-testid="reads-bar">
      <button type="button" className="btn btn-small" aria-pressed={shown} onClick={() => onShown(!shown)} data-testid="reads-toggle">
        <Icon name="history" size={14} /> {t("reads.toggle")}
      </button>
      {shown && reads ? (
        <>
          <label className="check reads-filter">
            <input type="checkbox" checked={unreadOnly} onChange={(e) => onUnreadOnly(e.target.checked)} data-testid="reads-unread-only" />{" "}
            {t("reads.unreadOnly", { days: num(reads.unreadDays), n: num(reads.unread) })}
          </label>
          <span className="muted small" data-testid="reads-totals">
            {t("reads.totals", { sessions: num(reads.sessions), prompts: num(reads.prompts), recalls: num(reads.recalls) })}
            {reads.estimatedSessions > 0 ? ` · ${t("reads.estimated", { n: num(reads.estimatedSessions) })}` : null}
          </span>
          <span className="memory-bar-spacer" />
          <button type="button" className="btn btn-small" onClick={() => run("csv")} data-testid="reads-export-csv">
            {t("reads.exportCsv")}
          </button>
          <button type="button" className="btn btn-small" onClick={() => run("json")} data-testid="reads-export-json">
            {t("reads.exportJson")}
          </button>
          {saved ? (
            <span className="muted small" role="status" data-testid="reads-saved">
              {t("reads.saved", { name: saved })}
            </span>
          ) : null}
        </>
      ) : shown && !error ? (
        <span className="muted small" role="status">
          {t("reads.loading")}
        </span>
      ) : null}
      {shown && error ? <ErrorState error={error} compact /> : null}
      {failed ? <ErrorState error={failed} compact /> : null}
    </div>
  );
}
