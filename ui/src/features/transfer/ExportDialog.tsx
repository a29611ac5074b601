// Export (#16 item 6): which agents (or all, with the global memory), with or without sessions →
// the console writes the archive with progress (Cancel stops it) → what it holds, and Save… (the
// desktop's save dialog, the browser's download).
import { useState } from "react";

import type { ExportDoneDto } from "../../backend/types";
import { Dialog } from "../../components/Dialog";
import { humanBytes } from "../../components/format";
import { Icon } from "../../components/Icon";
import { ErrorState } from "../../components/States";
import { useI18n } from "../../i18n";
import { useOp } from "../../queries/ops";
import { useTransfer, useTransferActions } from "./hooks";
import { ownerLabel, TransferEnded, TransferProgress } from "./TransferParts";
import "./transfer.css";

/** `agents`: the agents ticked when it opens ("all": every agent and the global memory). */
export function ExportDialog({ agents: initial, onClose }: { agents: string[] | "all"; onClose: () => void }) {
  const { t } = useI18n();
  const list = useOp("list_agents", {});
  const actions = useTransferActions();
  const [all, setAll] = useState(initial === "all");
  const [chosen, setChosen] = useState<string[]>(initial === "all" ? [] : initial);
  const [sessions, setSessions] = useState(false);
  // Off by default: the history keeps the text of entries that were deleted or rewritten.
  const [history, setHistory] = useState(false);
  const [jobId, setJobId] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const job = useTransfer(jobId).data;
  const names = list.data?.agents.map((a) => a.name) ?? [];

  const start = () => {
    setSaved(null);
    actions.save.reset();
    actions.startExport.mutate({ agents: all ? [] : chosen, all, sessions, include_history: history }, { onSuccess: (j) => setJobId(j.id) });
  };
  const cancel = () => {
    if (jobId) actions.cancel.mutate(jobId);
  };
  const save = () => {
    if (!jobId) return;
    actions.save.mutate(jobId, {
      onSuccess: (where) => {
        if (where === "downloaded") setSaved(job?.export?.file_name ?? "");
        else if (where !== null) setSaved(where);
      },
    });
  };
  const toggle = (name: string, on: boolean) => setChosen((c) => (on ? [...c, name] : c.filter((n) => n !== name)));
  const running = job?.state === "running";
  const onEscape = () => (running ? cancel() : onClose());
  const closeBtn = (
    <button type="button" className="btn" onClick={onClose} data-testid="export-close">
      {t("transfer.close")}
    </button>
  );

  let body;
  let footer;
  if (!jobId || !job) {
    const none = !all && chosen.length === 0;
    body = (
      <>
        <p className="modal-lead">{t("export.lead")}</p>
        <fieldset className="transfer-fieldset">
          <legend className="field-label-lg">{t("export.which")}</legend>
          <label className="check">
            <input type="radio" name="export-which" checked={all} onChange={() => setAll(true)} data-testid="export-all" />
            {t("export.all")}
          </label>
          <label className="check">
            <input type="radio" name="export-which" checked={!all} onChange={() => setAll(false)} data-testid="export-chosen" />
            {t("export.chosen")}
          </label>
          {!all ? (
            <ul className="list check-list transfer-agents" aria-label={t("export.chosen")} data-testid="export-agents">
              {names.map((n) => (
                <li key={n}>
                  <label className="check">
                    <input type="checkbox" checked={chosen.includes(n)} onChange={(e) => toggle(n, e.target.checked)} data-testid={`export-agent-${n}`} />
                    {n}
                  </label>
                </li>
              ))}
            </ul>
          ) : null}
        </fieldset>
        <label className="check transfer-option">
          <input type="checkbox" checked={sessions} onChange={(e) => setSessions(e.target.checked)} data-testid="export-sessions" />
          {t("export.sessions")}
        </label>
        <p className="field-hint">{t("export.sessionsHint")}</p>
        <label className="check transfer-option">
          <input type="checkbox" checked={history} onChange={(e) => setHistory(e.target.checked)} data-testid="export-history" />
          {t("export.history")}
        </label>
        <p className="field-hint">{t("export.historyHint")}</p>
        {none ? (
          <p className="field-hint" data-testid="export-none">
            {t("export.none")}
          </p>
        ) : null}
        {actions.startExport.isError ? <ErrorState error={actions.startExport.error} compact /> : null}
      </>
    );
    footer = (
      <>
        <span className="spacer" />
        {closeBtn}
        <button type="button" className="btn btn-primary" onClick={start} disabled={none || actions.startExport.isPending} data-autofocus data-testid="export-start">
          {t("export.start")}
        </button>
      </>
    );
  } else if (job.state === "running") {
    body = (
      <>
        <p className="modal-lead">{t("export.running")}</p>
        <TransferProgress job={job} onCancel={cancel} cancelling={actions.cancel.isPending || (actions.cancel.isSuccess && running)} label={t("export.running")} />
      </>
    );
    footer = null;
  } else if (job.state === "done" && job.export) {
    body = (
      <>
        <div className="banner banner-ok" role="status" data-testid="export-done">
          <Icon name="check" />
          <div>
            <strong>{t("export.doneTitle")}</strong>
            <div className="banner-sub mono">{job.export.file_name}</div>
          </div>
        </div>
        <ExportSummary summary={job.export} />
        {saved !== null ? (
          <p className="transfer-saved" role="status" data-testid="export-saved">
            <Icon name="check" size={13} /> {actions.save.data === "downloaded" ? t("export.downloaded", { name: saved }) : t("export.savedTo", { path: saved })}
          </p>
        ) : null}
        {actions.save.isError ? <ErrorState error={actions.save.error} compact /> : null}
      </>
    );
    footer = (
      <>
        <span className="spacer" />
        {closeBtn}
        <button type="button" className="btn btn-primary" onClick={save} disabled={actions.save.isPending} data-autofocus data-testid="export-save">
          {t("export.save")}
        </button>
      </>
    );
  } else {
    body = (
      <>
        <TransferEnded job={job} cancelledText={t("export.cancelledSub")} />
      </>
    );
    footer = (
      <>
        <span className="spacer" />
        {closeBtn}
        <button type="button" className="btn btn-primary" onClick={start} data-autofocus data-testid="export-again">
          {t("export.again")}
        </button>
      </>
    );
  }

  return (
    <Dialog title={t("export.title")} onEscape={onEscape} focusKey={job?.state ?? "options"} testId="export-dialog" wide footer={footer}>
      <div data-testid="export-body" data-state={job?.state ?? "options"} aria-busy={running}>
        {body}
      </div>
    </Dialog>
  );
}

function ExportSummary({ summary }: { summary: ExportDoneDto }) {
  const { t, num } = useI18n();
  const core = summary.owners.reduce((s, o) => s + o.core, 0);
  const archival = summary.owners.reduce((s, o) => s + o.archival, 0);
  return (
    <>
      <div className="table-wrap transfer-table-wrap">
        <table className="table table-compact" data-testid="export-owners">
          <thead>
            <tr>
              <th scope="col">{t("transfer.col.owner")}</th>
              <th scope="col" className="num">
                {t("transfer.col.core")}
              </th>
              <th scope="col" className="num">
                {t("transfer.col.archival")}
              </th>
            </tr>
          </thead>
          <tbody>
            {summary.owners.map((o) => (
              <tr key={o.owner} data-testid={`export-owner-${o.owner}`}>
                <th scope="row">{ownerLabel(t, o.owner)}</th>
                <td className="num">{num(o.core)}</td>
                <td className="num">{num(o.archival)}</td>
              </tr>
            ))}
          </tbody>
          {summary.owners.length > 1 ? (
            <tfoot>
              <tr>
                <th scope="row">{t("transfer.total")}</th>
                <td className="num">{num(core)}</td>
                <td className="num">{num(archival)}</td>
              </tr>
            </tfoot>
          ) : null}
        </table>
      </div>
      <dl className="fields transfer-facts" data-testid="export-facts">
        <dt>{t("export.files")}</dt>
        <dd>{num(summary.files)}</dd>
        <dt>{t("export.sessionsCount")}</dt>
        <dd>{num(summary.sessions)}</dd>
        <dt>{t("export.historyIncluded")}</dt>
        <dd data-testid="export-history-included">{summary.history ? t("export.historyYes") : t("export.historyNo")}</dd>
        <dt>{t("export.size")}</dt>
        <dd data-testid="export-size">{humanBytes(summary.bytes)}</dd>
      </dl>
    </>
  );
}
