// Import (#16 item 6): choose an archive → a dry run at once (nothing written) → per owner what
// the archive holds, what is new, already present or conflicting, with a name to import each
// agent under, the target backend and whether the target's own files may be replaced → "Import
// N new entries" with progress (Cancel stops it) → what was written. Every count and check is
// the console's; the dialog only asks again when an option changes.
import { useEffect, useId, useRef, useState } from "react";

import { BackendError } from "../../backend";
import type { AgentMapDto, BackendDto, ImportDoneDto, ImportRequest, TransferDto, UploadDto } from "../../backend/types";
import { Dialog } from "../../components/Dialog";
import { FieldError } from "../../components/FieldError";
import { humanBytes } from "../../components/format";
import { Icon } from "../../components/Icon";
import { ErrorState } from "../../components/States";
import { useI18n } from "../../i18n";
import { useOp } from "../../queries/ops";
import { useRefreshAfterImport, useTransfer, useTransferActions } from "./hooks";
import { isGlobalOwner, ownerLabel, TransferEnded, TransferProgress } from "./TransferParts";
import "./transfer.css";

const BACKENDS: readonly BackendDto[] = ["markdown", "sqlite", "mem0"];

type Options = { renames: Record<string, string>; into: BackendDto | null; replace: boolean };

function agentMap(renames: Record<string, string>): AgentMapDto[] {
  return Object.entries(renames)
    .map(([from, to]) => ({ from, to: to.trim() }))
    .filter((m) => m.to !== "" && m.to !== m.from);
}

function optionsKey(o: Options): string {
  return JSON.stringify([agentMap(o.renames), o.into, o.replace]);
}

export function ImportDialog({ onClose }: { onClose: () => void }) {
  const { t, num } = useI18n();
  const actions = useTransferActions();
  const refresh = useRefreshAfterImport();
  const effective = useOp("list_agents", {}).data?.backend ?? null;
  const [upload, setUpload] = useState<UploadDto | null>(null);
  const [options, setOptions] = useState<Options>({ renames: {}, into: null, replace: false });
  // The options the last dry run counted with, and the archive's own owner names (its first run).
  const [checked, setChecked] = useState<string | null>(null);
  const [archiveOwners, setArchiveOwners] = useState<string[]>([]);
  const [dryId, setDryId] = useState<string | null>(null);
  const [runId, setRunId] = useState<string | null>(null);
  const [renameError, setRenameError] = useState<{ from: string; error: BackendError } | null>(null);
  const dry = useTransfer(dryId).data;
  const run = useTransfer(runId).data;

  // The archive's owners, from the first dry run (later runs name the renamed owners).
  useEffect(() => {
    if (dry?.state === "done" && dry.import && archiveOwners.length === 0) setArchiveOwners(dry.import.owners.map((o) => o.owner));
  }, [dry, archiveOwners.length]);

  // Once the real run has ended (done or cancelled part way), the views read the root again.
  const refreshed = useRef(false);
  useEffect(() => {
    if (run && run.state !== "running" && !refreshed.current) {
      refreshed.current = true;
      void refresh();
    }
  }, [run, refresh]);

  const request = (dryRun: boolean, up: UploadDto, o: Options): ImportRequest => ({
    upload: up.upload,
    dry_run: dryRun,
    into_backend: o.into,
    agent_map: agentMap(o.renames),
    replace_existing: o.replace,
  });

  const startDry = (up: UploadDto, o: Options) => {
    setRenameError(null);
    actions.startImport.mutate(request(true, up, o), {
      onSuccess: (j) => {
        setDryId(j.id);
        setChecked(optionsKey(o));
      },
      onError: (e) => {
        // A rename the console refuses is shown at its field.
        const err = BackendError.from(e);
        const bad = err.code === "invalid_agent_name" ? agentMap(o.renames).find((m) => err.message.includes(JSON.stringify(m.to))) : undefined;
        if (bad) {
          actions.startImport.reset();
          setRenameError({ from: bad.from, error: err });
        }
      },
    });
  };

  const choose = () => {
    actions.choose.mutate(undefined, {
      onSuccess: (up) => {
        if (!up) return;
        const fresh: Options = { renames: {}, into: options.into, replace: options.replace };
        setUpload(up);
        setOptions(fresh);
        setArchiveOwners([]);
        setDryId(null);
        setRunId(null);
        refreshed.current = false;
        startDry(up, fresh);
      },
    });
  };

  const importNow = () => {
    if (!upload) return;
    actions.startImport.mutate(request(false, upload, options), { onSuccess: (j) => setRunId(j.id) });
  };

  const cancel = (job: TransferDto) => actions.cancel.mutate(job.id);
  const current = run ?? dry;
  const running = current?.state === "running";
  const onEscape = () => (running && current ? cancel(current) : onClose());
  const cancelling = actions.cancel.isPending || (actions.cancel.isSuccess && running);
  const closeBtn = (label = t("transfer.close")) => (
    <button type="button" className="btn" onClick={onClose} data-testid="import-close">
      {label}
    </button>
  );
  const chooseBtn = (primary: boolean) => (
    <button type="button" className={primary ? "btn btn-primary" : "btn"} onClick={choose} data-autofocus={primary || undefined} data-testid="import-choose">
      {upload ? t("import.chooseOther") : t("import.choose")}
    </button>
  );
  const startError = actions.startImport.isError ? <ErrorState error={actions.startImport.error} compact /> : null;
  const chooseError = actions.choose.isError ? <ErrorState error={actions.choose.error} compact /> : null;

  let body;
  let footer;
  let phase: string;
  if (run) {
    phase = `run-${run.state}`;
    if (run.state === "running") {
      body = (
        <>
          <p className="modal-lead">{t("import.running")}</p>
          <TransferProgress job={run} onCancel={() => cancel(run)} cancelling={cancelling} label={t("import.running")} />
        </>
      );
      footer = null;
    } else {
      body = (
        <>
          {run.state === "done" ? (
            <div className="banner banner-ok" role="status" data-testid="import-done">
              <Icon name="check" />
              <div>
                <strong>{t("import.doneTitle", { n: num(sum(run.import, "new")) })}</strong>
                <div className="banner-sub">{t("import.doneSub")}</div>
              </div>
            </div>
          ) : (
            <TransferEnded job={run} cancelledText={t("import.cancelledSub")} />
          )}
          {run.import ? <ImportReport report={run.import} archiveOwners={archiveOwners} /> : null}
        </>
      );
      footer = (
        <>
          {chooseBtn(false)}
          <span className="spacer" />
          <button type="button" className="btn btn-primary" onClick={onClose} data-autofocus data-testid="import-close">
            {t("transfer.close")}
          </button>
        </>
      );
    }
  } else if (dry && dry.state === "running") {
    phase = "dry-running";
    body = (
      <>
        <p className="modal-lead">{t("import.checking", { name: upload?.name ?? "" })}</p>
        <TransferProgress job={dry} onCancel={() => cancel(dry)} cancelling={cancelling} label={t("import.checkingShort")} />
      </>
    );
    footer = null;
  } else if (dry && dry.state === "done" && dry.import && upload) {
    phase = "report";
    const dirty = checked !== optionsKey(options);
    const n = sum(dry.import, "new");
    const files = dry.import.files_written.length;
    body = (
      <>
        <p className="modal-lead" data-testid="import-source">
          {t("import.reportLead", { name: upload.name, size: humanBytes(upload.bytes), backend: dry.import.source_backend })}
        </p>
        <ImportReport
          report={dry.import}
          archiveOwners={archiveOwners}
          renames={options.renames}
          onRename={(from, to) => {
            if (renameError?.from === from) setRenameError(null);
            setOptions((o) => ({ ...o, renames: { ...o.renames, [from]: to } }));
          }}
          renameError={renameError}
        />
        <div className="transfer-options">
          <label className="field-inline">
            <span className="field-label-lg">{t("import.into")}</span>
            <select
              value={options.into ?? ""}
              onChange={(e) => setOptions((o) => ({ ...o, into: e.target.value === "" ? null : (e.target.value as BackendDto) }))}
              data-testid="import-into"
            >
              <option value="">{t("import.intoEffective", { backend: effective ?? "—" })}</option>
              {BACKENDS.filter((b) => b !== effective).map((b) => (
                <option key={b} value={b}>
                  {b}
                </option>
              ))}
            </select>
          </label>
          <label className="check transfer-option">
            <input type="checkbox" checked={options.replace} onChange={(e) => setOptions((o) => ({ ...o, replace: e.target.checked }))} data-testid="import-replace" />
            {t("import.replace")}
          </label>
          {options.replace ? (
            <div className="banner banner-warn" role="alert" data-testid="import-replace-warning">
              <Icon name="warning" />
              <div>{t("import.replaceWarning")}</div>
            </div>
          ) : (
            <p className="field-hint">{t("import.replaceHint")}</p>
          )}
        </div>
        {dirty ? (
          <p className="field-hint" role="status" data-testid="import-dirty">
            {t("import.dirty")}
          </p>
        ) : null}
        {startError}
        {chooseError}
      </>
    );
    footer = (
      <>
        {chooseBtn(false)}
        <span className="spacer" />
        {closeBtn()}
        {dirty ? (
          <button type="button" className="btn btn-primary" onClick={() => startDry(upload, options)} disabled={actions.startImport.isPending} data-autofocus data-testid="import-recheck">
            <Icon name="refresh" /> {t("import.recheck")}
          </button>
        ) : (
          <button
            type="button"
            className="btn btn-primary"
            onClick={importNow}
            disabled={actions.startImport.isPending || (n === 0 && files === 0)}
            data-autofocus
            data-testid="import-run"
          >
            {n === 0 && files === 0 ? t("import.nothing") : t("import.run", { n: num(n) })}
          </button>
        )}
      </>
    );
  } else {
    phase = dry ? `dry-${dry.state}` : "choose";
    body = (
      <>
        <p className="modal-lead">{t("import.lead")}</p>
        {upload ? (
          <p className="mono" data-testid="import-file">
            {upload.name} · {humanBytes(upload.bytes)}
          </p>
        ) : null}
        {dry && dry.state !== "done" ? <TransferEnded job={dry} cancelledText={t("import.dryCancelledSub")} /> : null}
        {startError}
        {chooseError}
      </>
    );
    footer = (
      <>
        <span className="spacer" />
        {closeBtn()}
        {chooseBtn(true)}
      </>
    );
  }

  return (
    <Dialog title={t("import.title")} onEscape={onEscape} focusKey={phase} testId="import-dialog" wide footer={footer}>
      <div data-testid="import-body" data-phase={phase} aria-busy={running}>
        {body}
      </div>
    </Dialog>
  );
}

function sum(r: ImportDoneDto | null, key: "new" | "present" | "conflicting" | "in_archive"): number {
  return r ? r.owners.reduce((s, o) => s + o[key], 0) : 0;
}

/** Per owner: in the archive, new, already present, conflicting, error; with `onRename`, a name
 * to import each agent under. Then the files written (or that would be) and kept. */
function ImportReport({
  report,
  archiveOwners,
  renames,
  onRename,
  renameError,
}: {
  report: ImportDoneDto;
  archiveOwners: string[];
  renames?: Record<string, string>;
  onRename?: (from: string, to: string) => void;
  renameError?: { from: string; error: BackendError } | null;
}) {
  const { t, num } = useI18n();
  const id = useId();
  // The report names owners as they land (renamed); the inputs belong to the archive's names.
  const rows = report.owners.map((o, i) => ({ o, from: archiveOwners[i] ?? o.owner }));
  const multi = report.owners.length > 1;
  const errors = report.owners.some((o) => o.error);
  return (
    <>
      <div className="table-wrap transfer-table-wrap">
        <table className="table table-compact" data-testid="import-owners">
          <thead>
            <tr>
              <th scope="col">{t("transfer.col.owner")}</th>
              {onRename ? <th scope="col">{t("import.col.as")}</th> : null}
              <th scope="col" className="num">
                {t("import.col.inArchive")}
              </th>
              <th scope="col" className="num">
                {report.dry_run ? t("import.col.new") : t("import.col.added")}
              </th>
              <th scope="col" className="num">
                {t("import.col.present")}
              </th>
              <th scope="col" className="num" title={t("import.col.conflictingTitle")}>
                {t("import.col.conflicting")}
              </th>
              {errors ? <th scope="col">{t("import.col.error")}</th> : null}
            </tr>
          </thead>
          <tbody>
            {rows.map(({ o, from }) => {
              const errId = `${id}-${from}`;
              const bad = renameError?.from === from ? renameError.error : null;
              return (
                <tr key={from} data-testid={`import-owner-${from}`} className={o.error ? "has-warnings" : undefined}>
                  <th scope="row">{ownerLabel(t, from)}</th>
                  {onRename ? (
                    <td className="transfer-rename">
                      {isGlobalOwner(from) ? (
                        <span className="muted">{t("common.none")}</span>
                      ) : (
                        <>
                          <input
                            type="text"
                            value={renames?.[from] ?? ""}
                            placeholder={from}
                            onChange={(e) => onRename(from, e.target.value)}
                            aria-label={t("import.asLabel", { owner: from })}
                            aria-invalid={bad ? true : undefined}
                            aria-describedby={bad ? errId : undefined}
                            spellCheck={false}
                            data-testid={`import-as-${from}`}
                          />
                          {bad ? <FieldError id={errId} error={bad} testId={`import-as-error-${from}`} /> : null}
                        </>
                      )}
                    </td>
                  ) : null}
                  <td className="num" data-testid="in-archive">
                    {num(o.in_archive)}
                  </td>
                  <td className="num" data-testid="new">
                    {num(o.new)}
                  </td>
                  <td className="num" data-testid="present">
                    {num(o.present)}
                  </td>
                  <td className="num" data-testid="conflicting">
                    {o.conflicting ? <span className="warn-text">{num(o.conflicting)}</span> : num(0)}
                  </td>
                  {errors ? <td className="wrap">{o.error ? <span className="inline-error">{o.error}</span> : null}</td> : null}
                </tr>
              );
            })}
          </tbody>
          {multi ? (
            <tfoot>
              <tr data-testid="import-total">
                <th scope="row">{t("transfer.total")}</th>
                {onRename ? <td /> : null}
                <td className="num">{num(sum(report, "in_archive"))}</td>
                <td className="num" data-testid="new">
                  {num(sum(report, "new"))}
                </td>
                <td className="num" data-testid="present">
                  {num(sum(report, "present"))}
                </td>
                <td className="num">{num(sum(report, "conflicting"))}</td>
                {errors ? <td /> : null}
              </tr>
            </tfoot>
          ) : null}
        </table>
      </div>
      {sum(report, "conflicting") > 0 ? <p className="field-hint">{t("import.conflictingHint")}</p> : null}
      <FileList title={report.dry_run ? t("import.filesWouldWrite") : t("import.filesWritten")} files={report.files_written} testId="import-files-written" />
      <FileList title={t("import.filesKept")} files={report.files_kept} testId="import-files-kept" />
      <FileList title={t("import.unknown")} files={report.unknown} testId="import-unknown" />
      {report.sessions_not_imported > 0 ? (
        <p className="field-hint" data-testid="import-sessions">
          {t("import.sessionsNotImported", { n: num(report.sessions_not_imported) })}
        </p>
      ) : null}
    </>
  );
}

function FileList({ title, files, testId }: { title: string; files: string[]; testId: string }) {
  const { num } = useI18n();
  if (!files.length) return null;
  return (
    <details className="transfer-files" data-testid={testId}>
      <summary>
        {title} ({num(files.length)})
      </summary>
      <ul className="mono">
        {files.map((f) => (
          <li key={f}>{f}</li>
        ))}
      </ul>
    </details>
  );
}
