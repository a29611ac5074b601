// Switching the memory backend without losing memories: count what the new backend lacks (dry
// run), copy it with progress, count again to verify, and only then save the new backend.
import { useEffect, useRef, useState, type ReactNode } from "react";

import { BackendError, useBackend } from "../../backend";
import type { BackendDto, Mem0Status, MigrationProgress, MigrationReport, OwnerCounts, RuntimeChange, SettingsDto, SettingsView } from "../../backend/types";
import { Dialog } from "../../components/Dialog";
import { Icon } from "../../components/Icon";
import { ErrorState } from "../../components/States";
import { useI18n, type TFunction } from "../../i18n";
import { useMigration, useSettingsWrites } from "./hooks";

type Stage =
  | "counting" // the first dry run
  | "countFailed" // it rejected
  | "plan" // its numbers, with the choices
  | "copying"
  | "verifying" // the second dry run
  | "outcome" // cancelled, failed or not verified: nothing saved
  | "saving"
  | "saveFailed"
  | "done"; // verified and saved

export type MigrateDialogProps = {
  from: BackendDto;
  to: BackendDto;
  /** What to save once the entries are in `to` (its backend is `to`). */
  settings: SettingsDto;
  /** Other edits were saved before the dialog opened (with the backend unchanged). */
  presaved: boolean;
  /** A runtime install: the switch writes `memory.backend` into the runtime's configuration. */
  install?: boolean;
  onSaved: (v: SettingsView) => void | Promise<void>;
  onClose: () => void;
};

/** "Clean": every owner was read and written without an error. */
function clean(r: MigrationReport): boolean {
  return r.total.failed === 0 && r.owners.every((o) => !o.error);
}

function errorsOf(r: MigrationReport | null): { owner: string; message: string }[] {
  return (r?.owners ?? []).flatMap((o) => (o.error ? [{ owner: o.owner, message: o.error }] : []));
}

/** Owners the count could not read at all (the source or the target failed: no numbers). The
 * console's migrate skips them and copies the others. */
function unreadOf(r: MigrationReport | null): string[] {
  return (r?.owners ?? []).filter(isUnread).map((o) => o.owner);
}

function isUnread(o: OwnerCounts): boolean {
  return !!o.error && o.found === 0 && o.target_before === 0 && o.copied === 0 && o.skipped === 0;
}

/** Every error is an owner that could not be read, and some other owner could: copying the
 * readable owners is possible and leaves exactly the unread ones out. */
function onlyUnread(r: MigrationReport | null): boolean {
  const errors = errorsOf(r);
  return errors.length > 0 && errors.length === unreadOf(r).length && unreadOf(r).length < (r?.owners.length ?? 0);
}

/** "researcher, Global memory": owners as a sentence names them. */
function ownerList(t: TFunction, owners: string[]): string {
  return owners.map((o) => (o === "global" ? t("migrate.globalOwner") : o)).join(", ");
}

export function backendLabel(t: TFunction, b: BackendDto): string {
  return t(b === "markdown" ? "settings.backend.markdown" : b === "sqlite" ? "settings.backend.sqlite" : "settings.backend.mem0");
}

export function MigrateDialog({ from, to, settings, presaved, install = false, onSaved, onClose }: MigrateDialogProps) {
  const { t, num, lang } = useI18n();
  // Chinese sentences end in "。" and take no space after it.
  const gap = lang === "zh" ? "" : " ";
  const migration = useMigration();
  const writes = useSettingsWrites();
  const [stage, setStage] = useState<Stage>("counting");
  const [dry, setDry] = useState<MigrationReport | null>(null);
  const [run, setRun] = useState<MigrationReport | null>(null);
  const [verify, setVerify] = useState<MigrationReport | null>(null);
  const [progress, setProgress] = useState<MigrationProgress | null>(null);
  const [cancelling, setCancelling] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [runError, setRunError] = useState<unknown>(null);
  const [verifyError, setVerifyError] = useState<unknown>(null);
  const [closeAfterSave, setCloseAfterSave] = useState(false);
  const backend = useBackend();
  /** The runtime's configuration as the switch left it (an install only). */
  const [runtimeChange, setRuntimeChange] = useState<RuntimeChange | null>(null);
  // Switching into mem0: whether it answers at all (the console's connection test), and the
  // user's explicit "switch anyway" while it does not.
  const [reach, setReach] = useState<Mem0Status | null>(null);
  const [accepted, setAccepted] = useState(false);
  const started = useRef(false);

  const names = { from: backendLabel(t, from), to: backendLabel(t, to) };
  const dryRun = () => migration.migrate({ from, to, agent: null, dry_run: true, switch: false }, () => {});
  // A test that itself fails (invalid settings) says nothing about reachability.
  const testTarget = () => (to === "mem0" ? migration.testMem0(settings).catch(() => null) : Promise.resolve(null));

  const applyCount = (p: Promise<MigrationReport>) =>
    Promise.all([p, testTarget()]).then(
      ([r, status]) => {
        setReach(status);
        setDry(r);
        setStage("plan");
      },
      (e: unknown) => {
        void testTarget().then(setReach);
        setError(e);
        setStage("countFailed");
      },
    );

  useEffect(() => {
    // Once, also under StrictMode's double effects: a dry run only reads, but twice is noise.
    if (started.current) return;
    started.current = true;
    void applyCount(dryRun());
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  const recount = () => {
    setError(null);
    setAccepted(false);
    setStage("counting");
    void applyCount(dryRun());
  };

  const save = async (close: boolean) => {
    setCloseAfterSave(close);
    setError(null);
    setStage("saving");
    try {
      // An install: the agents follow memory.backend in the runtime's configuration. Written
      // first (recorded, undoable from Settings → Runtime); the settings then drop an override.
      if (install && !runtimeChange) setRuntimeChange(await backend.call("set_runtime_value", { key: "memory.backend", value: to }));
      const v = await writes.updateSettings(settings);
      await onSaved(v);
      // What the runtime must do next is said before the dialog goes.
      if (close && !install) onClose();
      else setStage("done");
    } catch (e) {
      setError(e);
      setStage("saveFailed");
    }
  };

  const copy = async () => {
    setStage("copying");
    setProgress(null);
    setCancelling(false);
    setRun(null);
    setRunError(null);
    setVerify(null);
    setVerifyError(null);
    let r: MigrationReport | null = null;
    try {
      r = await migration.migrate({ from, to, agent: null, dry_run: false, switch: false }, (p) => setProgress(p));
      setRun(r);
    } catch (e) {
      setRunError(e);
    }
    setStage("verifying");
    let v: MigrationReport | null = null;
    try {
      v = await dryRun();
      setVerify(v);
    } catch (e) {
      setVerifyError(e);
    }
    // The second count is the proof: nothing missing anywhere, and the user did not stop it.
    if (v && clean(v) && v.total.copied === 0 && !r?.cancelled) await save(false);
    else setStage("outcome");
  };

  const cancel = async () => {
    setCancelling(true);
    try {
      await migration.cancel();
    } catch (e) {
      setCancelling(false);
      setRunError(e);
    }
  };

  const onEscape = () => {
    if (stage === "copying") {
      if (migration.supportsProgress && !cancelling) void cancel();
      return;
    }
    if (stage === "verifying" || stage === "saving") return;
    onClose();
  };

  // mem0 does not answer and nothing could be read from it (every owner failed, or the count):
  // switching now only trades memories for errors, so it takes an explicit confirmation.
  const unreachable =
    reach !== null && !reach.ok && (stage === "countFailed" || (stage === "plan" && !!dry && dry.owners.length > 0 && dry.owners.every((o) => !!o.error)));

  // "Switch without copying" saves at once; its warning is on screen next to it.
  const skipBtn = unreachable ? (
    <button type="button" className="btn btn-warn-outline" onClick={() => void save(true)} disabled={!accepted} data-testid="migrate-skip">
      {t("migrate.skipAnyway")}
    </button>
  ) : (
    <button type="button" className="btn btn-warn-outline" onClick={() => void save(true)} data-testid="migrate-skip">
      {t("migrate.skip")}
    </button>
  );
  const unreachableBody = reach ? <Unreachable status={reach} from={from} accepted={accepted} onAccept={setAccepted} /> : null;

  const closeBtn = (label = t("migrate.cancel")) => (
    <button type="button" className="btn" onClick={onClose} data-testid="migrate-close">
      {label}
    </button>
  );

  let body: ReactNode;
  let footer: ReactNode;
  switch (stage) {
    case "counting":
      body = <Busy text={t("migrate.counting", names)} />;
      footer = closeBtn();
      break;
    case "countFailed":
      body = (
        <>
          <p>{t("migrate.countFailed", names)}</p>
          <ErrorState error={error} compact />
          {unreachable ? unreachableBody : <SkipWarning r={null} from={from} to={to} />}
        </>
      );
      footer = (
        <>
          {skipBtn}
          <span className="spacer" />
          {closeBtn()}
          <button type="button" className="btn btn-primary" onClick={recount} data-autofocus data-testid="migrate-recount">
            <Icon name="refresh" /> {unreachable ? t("migrate.tryAgain") : t("migrate.recount")}
          </button>
        </>
      );
      break;
    case "plan": {
      const r = dry!;
      const errors = errorsOf(r);
      const missing = r.total.copied;
      // Some owners could not be read, the others have entries to copy: copy those (the console
      // skips the unread owners), then the user decides about the switch.
      const partial = !unreachable && onlyUnread(r) && missing > 0;
      // Or they have nothing to copy any more (copied before): only the switch is left to decide.
      const settled = !unreachable && onlyUnread(r) && missing === 0;
      const unread = unreadOf(r);
      body = unreachable ? (
        <>
          {presaved ? (
            <p className="field-hint" data-testid="migrate-presaved">
              <Icon name="check" size={13} /> {t("migrate.presaved", names)}
            </p>
          ) : null}
          {unreachableBody}
        </>
      ) : (
        <>
          <p className="modal-lead">{t("migrate.intro", names)}</p>
          {presaved ? (
            <p className="field-hint" data-testid="migrate-presaved">
              <Icon name="check" size={13} /> {t("migrate.presaved", names)}
            </p>
          ) : null}
          <PlanTable r={r} from={from} to={to} />
          <LimitWarning r={r} />
          {errors.length ? (
            <ErrorList title={t("migrate.unreadable", names)} errors={errors} owners={r.owners.length} />
          ) : missing === 0 ? (
            <div className="banner banner-ok" role="status" data-testid="migrate-nothing">
              <Icon name="check" />
              <div>{t("migrate.nothingMissing", { ...names, n: num(r.total.found) })}</div>
            </div>
          ) : null}
          {partial ? (
            <div className="skip-warning" role="note" data-testid="migrate-not-copied">
              <Icon name="warning" />
              <div>
                <strong>{t("migrate.notCopiedTitle", { owners: ownerList(t, unread) })}</strong>
                {gap}
                {t("migrate.notCopied", names)}
              </div>
            </div>
          ) : null}
          {settled ? (
            <>
              <div className="banner banner-ok" role="status" data-testid="migrate-settled">
                <Icon name="check" />
                <div>{t("migrate.settled", { ...names, owners: ownerList(t, unread) })}</div>
              </div>
              <PartialSkipWarning owners={unread} from={from} to={to} />
            </>
          ) : errors.length || missing > 0 ? (
            <SkipWarning r={errors.length ? null : r} from={from} to={to} />
          ) : null}
        </>
      );
      footer = settled ? (
        <>
          <button type="button" className="btn btn-warn-outline" onClick={() => void save(true)} data-testid="migrate-skip">
            {t("migrate.switchWithout", names)}
          </button>
          <span className="spacer" />
          {closeBtn()}
          <button type="button" className="btn btn-primary" onClick={recount} data-autofocus data-testid="migrate-recount">
            <Icon name="refresh" /> {t("migrate.recount")}
          </button>
        </>
      ) : partial ? (
        <>
          {skipBtn}
          <span className="spacer" />
          {closeBtn()}
          <button type="button" className="btn" onClick={recount} data-testid="migrate-recount">
            <Icon name="refresh" /> {t("migrate.recount")}
          </button>
          <button type="button" className="btn btn-primary" onClick={() => void copy()} data-autofocus data-testid="migrate-copy">
            {t("migrate.copyReadable", { ...names, n: num(missing) })}
          </button>
        </>
      ) : errors.length ? (
        <>
          {skipBtn}
          <span className="spacer" />
          {closeBtn()}
          <button type="button" className="btn btn-primary" onClick={recount} data-autofocus data-testid="migrate-recount">
            <Icon name="refresh" /> {unreachable ? t("migrate.tryAgain") : t("migrate.recount")}
          </button>
        </>
      ) : missing === 0 ? (
        <>
          <span className="spacer" />
          {closeBtn()}
          <button type="button" className="btn btn-primary" onClick={() => void save(true)} data-autofocus data-testid="migrate-switch">
            {t("migrate.switch", names)}
          </button>
        </>
      ) : (
        <>
          {skipBtn}
          <span className="spacer" />
          {closeBtn()}
          <button type="button" className="btn btn-primary" onClick={() => void copy()} data-autofocus data-testid="migrate-copy">
            {t("migrate.copy", { ...names, n: num(missing) })}
          </button>
        </>
      );
      break;
    }
    case "copying":
    case "verifying":
      body = (
        <>
          <p className="modal-lead">{stage === "copying" ? t("migrate.copying", names) : t("migrate.verifying", names)}</p>
          <ProgressBar progress={progress} determinate={migration.supportsProgress} verifying={stage === "verifying"} />
          {!migration.supportsProgress ? <p className="field-hint">{t("migrate.noProgress")}</p> : null}
          {cancelling && stage === "copying" ? <p className="field-hint">{t("migrate.cancellingHint")}</p> : null}
        </>
      );
      footer = (
        <>
          <span className="spacer" />
          {migration.supportsProgress ? (
            <button type="button" className="btn" onClick={() => void cancel()} disabled={cancelling || stage !== "copying"} data-testid="migrate-cancel">
              {cancelling ? t("migrate.cancelling") : t("migrate.cancel")}
            </button>
          ) : null}
        </>
      );
      break;
    case "outcome": {
      const cancelled = !!run?.cancelled;
      const errors = [
        ...(runError ? [{ owner: "", message: BackendError.from(runError).message }] : []),
        ...errorsOf(run),
        ...(verifyError ? [{ owner: "", message: BackendError.from(verifyError).message }] : []),
        ...errorsOf(verify).filter((v) => !errorsOf(run).some((r) => r.owner === v.owner && r.message === v.message)),
      ];
      const remaining = verify && clean(verify) ? verify.total.copied : null;
      // The copy did all it could: the second count finds nothing missing except in the owners
      // that could not be read. The user decides whether to switch without them.
      const partial = !cancelled && !runError && !verifyError && !!verify && onlyUnread(verify) && verify.owners.every((o) => !!o.error || o.copied === 0);
      const unread = partial ? unreadOf(verify) : [];
      const owners = ownerList(t, unread);
      body = (
        <>
          {partial ? (
            <div className="banner banner-warn" role="alert" data-testid="migrate-outcome" data-partial="true">
              <Icon name="warning" />
              <div>
                <strong>{t("migrate.partialTitle", names)}</strong>
                <div className="banner-sub">{t("migrate.partialSub", { ...names, copied: t("migrate.entries", { n: num(run?.total.copied ?? 0) }), owners })}</div>
              </div>
            </div>
          ) : (
            <div className={cancelled && !errors.length ? "banner banner-warn" : "banner banner-err"} role="alert" data-testid="migrate-outcome">
              <Icon name={cancelled && !errors.length ? "warning" : "error"} />
              <div>
                <strong>{cancelled ? t("migrate.cancelledTitle", names) : t("migrate.failedTitle", names)}</strong>
                <div className="banner-sub">{t("migrate.keptHint", { ...names, n: num(run?.total.copied ?? 0) })}</div>
              </div>
            </div>
          )}
          {errors.length ? <ErrorList title={t("migrate.errors")} errors={errors} owners={(verify ?? run)?.owners.length ?? 0} /> : null}
          <ResultTable run={run} verify={verify} to={to} />
          {partial ? (
            <PartialSkipWarning owners={unread} from={from} to={to} />
          ) : (
            <SkipWarning r={verify && clean(verify) ? verify : null} from={from} to={to} />
          )}
        </>
      );
      footer = (
        <>
          {partial ? (
            <button type="button" className="btn btn-warn-outline" onClick={() => void save(true)} data-testid="migrate-skip">
              {t("migrate.switchWithout", names)}
            </button>
          ) : (
            skipBtn
          )}
          <span className="spacer" />
          {closeBtn(t("migrate.close"))}
          {remaining !== null && remaining > 0 ? (
            <button type="button" className="btn btn-primary" onClick={() => void copy()} data-autofocus data-testid="migrate-copy">
              {t("migrate.copyRest", { ...names, n: num(remaining) })}
            </button>
          ) : (
            <button type="button" className="btn btn-primary" onClick={recount} data-autofocus data-testid="migrate-recount">
              <Icon name="refresh" /> {t("migrate.recount")}
            </button>
          )}
        </>
      );
      break;
    }
    case "saving":
      body = (
        <>
          {verify ? <Verified verify={verify} run={run} to={to} /> : null}
          <Busy text={t("migrate.saving", names)} />
        </>
      );
      footer = null;
      break;
    case "saveFailed":
      body = (
        <>
          {verify ? <Verified verify={verify} run={run} to={to} /> : null}
          <p>{t("migrate.saveFailed", names)}</p>
          <ErrorState error={error} compact />
        </>
      );
      footer = (
        <>
          <span className="spacer" />
          {closeBtn(t("migrate.close"))}
          <button type="button" className="btn btn-primary" onClick={() => void save(closeAfterSave)} data-autofocus data-testid="migrate-save-retry">
            {t("migrate.saveRetry")}
          </button>
        </>
      );
      break;
    case "done":
      body = (
        <>
          {verify ? <Verified verify={verify} run={run} to={to} /> : null}
          <p className="saved" role="status" data-testid="migrate-switched">
            <Icon name="check" /> {t("migrate.switched", names)}
          </p>
          {runtimeChange ? (
            <p data-testid="migrate-runtime-change" data-restart={runtimeChange.restartNeeded ? "true" : "false"}>
              {t("migrate.runtimeWritten", { file: runtimeChange.file, to: runtimeChange.value })}{gap}
              {runtimeChange.restartNeeded ? <strong>{t("runtime.restart")}</strong> : t("migrate.runtimeNextStart")}
            </p>
          ) : null}
        </>
      );
      footer = (
        <>
          <span className="spacer" />
          <button type="button" className="btn btn-primary" onClick={onClose} data-autofocus data-testid="migrate-done">
            {t("migrate.done")}
          </button>
        </>
      );
      break;
  }

  return (
    <Dialog title={t(stage === "done" ? "migrate.titleDone" : "migrate.title", names)} footer={footer} onEscape={onEscape} focusKey={stage} testId="migrate-dialog" wide>
      <div data-stage={stage} className="migrate">
        {body}
      </div>
    </Dialog>
  );
}

/** What "Switch without copying" means, shown wherever that button is. */
function SkipWarning({ r, from, to }: { r: MigrationReport | null; from: BackendDto; to: BackendDto }) {
  const { t, num, lang } = useI18n();
  const names = { from: backendLabel(t, from), to: backendLabel(t, to) };
  // Chinese sentences end in "。" and take no space after it.
  const gap = lang === "zh" ? "" : " ";
  return (
    <div className="skip-warning" role="note" data-testid="migrate-skip-warning">
      <Icon name="warning" />
      <div>
        <strong>{t("migrate.skipTitle", names)}</strong>
        {gap}
        {r ? t("migrate.skipWarning", { ...names, holds: t("migrate.entries", { n: num(r.total.target_before) }), missing: t("migrate.entries", { n: num(r.total.copied) }) }) : t("migrate.skipWarningUncounted", names)}
        {gap}
        {t("migrate.skipKeep", names)}
      </div>
    </div>
  );
}

/** What switching means when some owners could not be read and every other one is copied. */
function PartialSkipWarning({ owners, from, to }: { owners: string[]; from: BackendDto; to: BackendDto }) {
  const { t, lang } = useI18n();
  // Chinese sentences end in "。" and take no space after it.
  const gap = lang === "zh" ? "" : " ";
  return (
    <div className="skip-warning" role="note" data-testid="migrate-skip-warning">
      <Icon name="warning" />
      <div>
        <strong>{t("migrate.partialSkipTitle")}</strong>
        {gap}
        {t("migrate.partialSkip", { from: backendLabel(t, from), to: backendLabel(t, to), owners: ownerList(t, owners) })}
      </div>
    </div>
  );
}

/** mem0 does not answer: where, the console's reason, what switching anyway means, and the
 * confirmation that makes "Switch anyway" possible. */
function Unreachable({ status, from, accepted, onAccept }: { status: Mem0Status; from: BackendDto; accepted: boolean; onAccept: (v: boolean) => void }) {
  const { t, lang } = useI18n();
  // Chinese sentences end in "。" and take no space after it.
  const gap = lang === "zh" ? "" : " ";
  const names = { from: backendLabel(t, from), url: status.base_url };
  return (
    <>
      <div className="banner banner-err" role="alert" data-testid="migrate-unreachable">
        <Icon name="error" />
        <div>
          <strong>{t("migrate.unreachable", names)}</strong>
          <div className="banner-sub mono wrap">{status.message}</div>
        </div>
      </div>
      <div className="skip-warning" role="note" data-testid="migrate-skip-warning">
        <Icon name="warning" />
        <div>
          <strong>{t("migrate.unreachableSkipTitle")}</strong>
          {gap}
          {t("migrate.unreachableSkip", names)}
          <label className="confirm-check">
            <input type="checkbox" checked={accepted} onChange={(e) => onAccept(e.target.checked)} data-testid="migrate-unreachable-confirm" />
            <span>{t("migrate.unreachableConfirm")}</span>
          </label>
        </div>
      </div>
    </>
  );
}

function Busy({ text }: { text: string }) {
  return (
    <div className="busy" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" /> {text}
    </div>
  );
}

function OwnerName({ owner }: { owner: string }) {
  const { t } = useI18n();
  return owner === "global" ? (
    <span>
      {t("migrate.globalOwner")} <span className="muted mono">global</span>
    </span>
  ) : (
    <span className="mono">{owner}</span>
  );
}

function PlanTable({ r, from, to }: { r: MigrationReport; from: BackendDto; to: BackendDto }) {
  const { t, num } = useI18n();
  const names = { from: backendLabel(t, from), to: backendLabel(t, to) };
  const row = (o: OwnerCounts, testId: string, total = false) => (
    <tr key={testId} data-testid={testId} className={total ? "row-total" : o.found === 0 && o.target_before === 0 && !o.error ? "row-empty" : undefined}>
      <th scope="row">
        {total ? t("migrate.total") : <OwnerName owner={o.owner} />}
        {o.error && !isUnread(o) ? (
          // Counted, with a note (mem0's page limit): the numbers stay, the note is below once.
          <span className="row-mark" title={o.error} data-testid={`${testId}-note`}>
            {" "}
            <Icon name="warning" size={12} />
            <span className="sr-only">{t("migrate.rowWarn")}</span>
          </span>
        ) : null}
      </th>
      {o.error && isUnread(o) ? (
        // The message itself is in the error list below, once for all the owners it concerns.
        <td colSpan={4} className="inline-error" title={o.error} data-testid={`${testId}-error`}>
          <Icon name="error" size={12} /> {t("migrate.rowUnread")}
        </td>
      ) : (
        <>
          <td className="num" data-col="found">{num(o.found)}</td>
          <td className="num" data-col="present">{num(o.skipped)}</td>
          <td className={o.copied > 0 ? "num missing" : "num"} data-col="missing">
            {num(o.copied)}
          </td>
          <td className="num muted" data-col="target_before">{num(o.target_before)}</td>
        </>
      )}
    </tr>
  );
  return (
    <div className="table-wrap modal-table">
      <table className="table table-compact" data-testid="migrate-table">
        <thead>
          <tr>
            <th>{t("migrate.col.owner")}</th>
            <th className="num">{t("migrate.col.found", names)}</th>
            <th className="num">{t("migrate.col.present", names)}</th>
            <th className="num">{t("migrate.col.missing", names)}</th>
            <th className="num col-secondary">{t("migrate.col.targetBefore", names)}</th>
          </tr>
        </thead>
        <tbody>{r.owners.map((o) => row(o, `migrate-row-${o.owner}`))}</tbody>
        <tfoot>{row(r.total, "migrate-row-total", true)}</tfoot>
      </table>
      <p className="field-hint table-note" data-testid="migrate-plan-note">
        {t("migrate.planNote", names)}
      </p>
    </div>
  );
}

/** Per owner: what the copy did, and what the second count found still missing. */
function ResultTable({ run, verify, to }: { run: MigrationReport | null; verify: MigrationReport | null; to: BackendDto }) {
  const { t, num } = useI18n();
  const names = { from: backendLabel(t, run?.from ?? verify?.from ?? to), to: backendLabel(t, to) };
  const owners = verify?.owners.map((o) => o.owner) ?? run?.owners.map((o) => o.owner) ?? [];
  if (!owners.length) return null;
  const runOf = (o: string) => run?.owners.find((x) => x.owner === o);
  const verOf = (o: string) => verify?.owners.find((x) => x.owner === o);
  return (
    <div className="table-wrap modal-table">
      <table className="table table-compact" data-testid="migrate-result">
        <thead>
          <tr>
            <th>{t("migrate.col.owner")}</th>
            <th className="num">{t("migrate.col.found", names)}</th>
            <th className="num">{t("migrate.col.copied")}</th>
            <th className="num">{t("migrate.col.skipped", names)}</th>
            <th className="num">{t("migrate.col.failed")}</th>
            <th className="num">{t("migrate.col.stillMissing", { to: backendLabel(t, to) })}</th>
          </tr>
        </thead>
        <tbody>
          {owners.map((o) => {
            const r = runOf(o);
            const v = verOf(o);
            const left = v && !v.error ? v.copied : null;
            // Not read by the copy nor by the second count: no numbers, the reason is listed above.
            const reason = r?.error ?? v?.error ?? null;
            const unread = reason !== null && (!r || isUnread(r)) && (!v || isUnread(v));
            return (
              <tr key={o} data-testid={`migrate-result-${o}`} className={r?.failed || r?.error || v?.error ? "row-bad" : undefined}>
                <th scope="row">
                  <OwnerName owner={o} />
                </th>
                {unread ? (
                  <td colSpan={5} className="inline-error" title={reason ?? undefined} data-testid={`migrate-result-${o}-error`}>
                    <Icon name="error" size={12} /> {t("migrate.rowUnread")}
                  </td>
                ) : (
                  <>
                    <td className="num" data-col="found">{r ? num(r.found) : "—"}</td>
                    <td className="num" data-col="copied">{r ? num(r.copied) : "—"}</td>
                    <td className="num" data-col="skipped">{r ? num(r.skipped) : "—"}</td>
                    <td className={r?.failed ? "num inline-error" : "num"} data-col="failed">
                      {r ? num(r.failed) : "—"}
                    </td>
                    <td className={left ? "num missing" : "num"} data-col="still_missing">
                      {left === null ? "?" : num(left)}
                    </td>
                  </>
                )}
              </tr>
            );
          })}
        </tbody>
      </table>
      <p className="field-hint table-note">{t("migrate.resultNote", names)}</p>
    </div>
  );
}

function Verified({ verify, run, to }: { verify: MigrationReport; run: MigrationReport | null; to: BackendDto }) {
  const { t, num } = useI18n();
  return (
    <>
      <div className="banner banner-ok" role="status" data-testid="migrate-verified">
        <Icon name="check" />
        <div>
          <strong>{t("migrate.verified", { to: backendLabel(t, to), n: num(verify.owners.length) })}</strong>
          <div className="banner-sub">{t("migrate.verifiedSub", { copied: t("migrate.verifiedCopied", { n: num(run?.total.copied ?? 0) }), found: t("migrate.verifiedFound", { n: num(verify.total.skipped), to: backendLabel(t, to) }) })}</div>
        </div>
      </div>
      <ResultTable run={run} verify={verify} to={to} />
    </>
  );
}

function ErrorList({ title, errors, owners: all }: { title: string; errors: { owner: string; message: string }[]; owners: number }) {
  const { t } = useI18n();
  // One line per distinct message: mem0 being down fails every owner the same way.
  const groups = new Map<string, string[]>();
  for (const e of errors) groups.set(e.message, [...(groups.get(e.message) ?? []), ...(e.owner ? [e.owner] : [])]);
  return (
    <div className="error-list" role="alert" data-testid="migrate-error">
      <div className="error-list-title">
        <Icon name="error" size={14} /> {title}
      </div>
      <ul>
        {[...groups].map(([message, owners]) => (
          <li key={message}>
            <code className="wrap">{message}</code>
            {owners.length ? <span className="muted"> — {all > 1 && new Set(owners).size >= all ? t("migrate.allOwners") : [...new Set(owners)].join(", ")}</span> : null}
          </li>
        ))}
      </ul>
    </div>
  );
}

function LimitWarning({ r }: { r: MigrationReport }) {
  const { t, num } = useI18n();
  // mem0 lists one page per owner: beyond it, counts are short and a copy into mem0 cannot be
  // verified (and copying again would add what it cannot see).
  const owners = r.owners.filter((o) => o.beyond_listing).map((o) => o.owner);
  if (!owners.length) return null;
  return (
    <div className="banner banner-warn" role="status" data-testid="migrate-limit">
      <Icon name="warning" />
      <div>{t("migrate.limit", { n: num(r.listing_limit), owners: owners.join(", ") })}</div>
    </div>
  );
}

function ProgressBar({ progress, determinate, verifying }: { progress: MigrationProgress | null; determinate: boolean; verifying: boolean }) {
  const { t, num } = useI18n();
  const total = progress?.total ?? 0;
  const done = progress?.done ?? 0;
  const pct = verifying ? 100 : total > 0 ? Math.min(100, (done / total) * 100) : 0;
  if (!determinate && !verifying)
    return (
      <div className="progress indeterminate" role="progressbar" aria-label={t("migrate.copyingShort")} data-testid="migrate-progress" data-indeterminate="true">
        <div className="progress-fill" />
      </div>
    );
  return (
    <div className="progress-block">
      <div
        className="progress"
        role="progressbar"
        aria-label={t("migrate.copyingShort")}
        aria-valuemin={0}
        aria-valuemax={total || 1}
        aria-valuenow={verifying ? total || 1 : done}
        data-testid="migrate-progress"
        data-done={done}
        data-total={total}
      >
        <div className="progress-fill" style={{ width: `${pct}%` }} />
      </div>
      <div className="progress-text" data-testid="migrate-progress-text">
        {progress ? (
          <>
            <span className="mono">{t("migrate.progress", { done: num(done), n: num(total) })}</span>
            <span className="sep">·</span>
            <OwnerName owner={progress.owner} />
          </>
        ) : (
          <span className="muted">{t("migrate.starting")}</span>
        )}
      </div>
    </div>
  );
}
