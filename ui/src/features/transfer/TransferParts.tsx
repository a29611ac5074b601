// What the export and import dialogs share: the running job's progress with Cancel, how a job
// that did not finish ended, and owner names.
import type { TransferDto } from "../../backend/types";
import { Icon } from "../../components/Icon";
import { ErrorState } from "../../components/States";
import { useI18n, type TFunction } from "../../i18n";

/** The archive's and the reports' name of the global memory. */
export function isGlobalOwner(owner: string): boolean {
  return owner === "__global__" || owner === "global";
}

export function ownerLabel(t: TFunction, owner: string): string {
  return isGlobalOwner(owner) ? t("transfer.global") : owner;
}

/** The console's stage (`starting`, `memory of X`, `checking PATH`, `done`) in the user's language. */
export function stageText(t: TFunction, stage: string): string {
  if (stage === "starting") return t("transfer.stage.starting");
  if (stage === "done") return t("transfer.stage.done");
  const memory = /^memory of (.+)$/.exec(stage);
  if (memory) return t("transfer.stage.memory", { owner: ownerLabel(t, memory[1]!) });
  const checking = /^checking (.+)$/.exec(stage);
  if (checking) return t("transfer.stage.checking", { what: checking[1]! });
  return stage;
}

/** The running job: a bar (indeterminate until the console knows the total), the stage, done of
 * total, and Cancel. */
export function TransferProgress({ job, onCancel, cancelling, label }: { job: TransferDto; onCancel: () => void; cancelling: boolean; label: string }) {
  const { t, num } = useI18n();
  const total = job.total ?? 0;
  const done = job.done ?? 0;
  const known = total > 0;
  return (
    <div className="progress-block transfer-progress" data-testid="transfer-progress" data-stage={job.stage}>
      <div
        className={known ? "progress" : "progress indeterminate"}
        role="progressbar"
        aria-label={label}
        aria-valuemin={known ? 0 : undefined}
        aria-valuemax={known ? total : undefined}
        aria-valuenow={known ? done : undefined}
        aria-valuetext={known ? t("transfer.progress", { done: num(done), n: num(total) }) : stageText(t, job.stage)}
        data-done={done}
        data-total={total}
      >
        <div className="progress-fill" style={known ? { width: `${Math.min(100, (done / total) * 100)}%` } : undefined} />
      </div>
      <div className="progress-text transfer-progress-text">
        <span data-testid="transfer-stage">{stageText(t, job.stage)}</span>
        {known ? (
          <>
            <span className="sep">·</span>
            <span className="mono" data-testid="transfer-count">
              {t("transfer.progress", { done: num(done), n: num(total) })}
            </span>
          </>
        ) : null}
        <span className="spacer" />
        <button type="button" className="btn btn-small" onClick={onCancel} disabled={cancelling} data-testid="transfer-cancel">
          {cancelling ? t("transfer.cancelling") : t("transfer.cancel")}
        </button>
      </div>
    </div>
  );
}

/** A job that did not finish: cancelled (what is kept) or failed (the error, with its code). */
export function TransferEnded({ job, cancelledText }: { job: TransferDto; cancelledText: string }) {
  const { t } = useI18n();
  if (job.state === "cancelled")
    return (
      <div className="banner banner-warn" role="status" data-testid="transfer-cancelled">
        <Icon name="warning" />
        <div>
          <strong>{t("transfer.cancelledTitle")}</strong>
          <div className="banner-sub">{cancelledText}</div>
        </div>
      </div>
    );
  return (
    <div data-testid="transfer-failed">
      <ErrorState error={job.error ?? { code: "internal", message: "" }} />
    </div>
  );
}
