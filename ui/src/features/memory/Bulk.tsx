// The selection's bar and the confirmation of a bulk delete or move, with what the console says
// it would do to the prompt (selection_impact).
import type { SelectionActionDto } from "../../backend/types";
import { Dialog } from "../../components/Dialog";
import { Icon } from "../../components/Icon";
import { ErrorState, Skeleton } from "../../components/States";
import { useI18n } from "../../i18n";
import { useSelectionImpact, type Picked } from "./curation";

export function BulkBar({
  picked,
  busy,
  onAction,
  onForget,
  onClear,
}: {
  picked: Picked[];
  busy: boolean;
  onAction: (a: SelectionActionDto) => void;
  /** "Forget everywhere…" for the selection. */
  onForget: () => void;
  onClear: () => void;
}) {
  const { t, num } = useI18n();
  const core = picked.filter((p) => p.scope === "core").length;
  const archival = picked.length - core;
  return (
    <div className="bulk-bar" role="toolbar" aria-label={t("memory.bulk.label")} data-testid="bulk-bar">
      <span className="bulk-count" data-testid="bulk-count">
        {t("memory.bulk.selected", { n: num(picked.length) })}
      </span>
      {core > 0 && archival > 0 ? <span className="bulk-split">{t("memory.bulk.split", { core: num(core), archival: num(archival) })}</span> : null}
      <span className="bulk-spacer" />
      <button type="button" className="btn btn-small" disabled={busy || archival === 0} onClick={() => onAction("core")} data-testid="bulk-to-core">
        <Icon name="arrowUp" size={14} /> {t("memory.bulk.toCore")}
      </button>
      <button type="button" className="btn btn-small" disabled={busy || core === 0} onClick={() => onAction("archival")} data-testid="bulk-to-archival">
        <Icon name="arrowDown" size={14} /> {t("memory.bulk.toArchival")}
      </button>
      <button type="button" className="btn btn-small btn-danger" disabled={busy} onClick={() => onAction("delete")} data-testid="bulk-delete">
        <Icon name="trash" size={14} /> {t("memory.bulk.delete")}
      </button>
      <button type="button" className="btn btn-small btn-danger" disabled={busy} onClick={onForget} aria-haspopup="dialog" data-testid="bulk-forget">
        <Icon name="forget" size={14} /> {t("forget.action")}
      </button>
      <button type="button" className="btn btn-small btn-ghost" onClick={onClear} data-testid="bulk-clear" title="Esc">
        {t("memory.bulk.clear")}
      </button>
    </div>
  );
}

const TITLES = { delete: "memory.confirm.deleteTitle", core: "memory.confirm.coreTitle", archival: "memory.confirm.archivalTitle" } as const;

/** "Delete 3 entries?" with the console's count of entries, characters and what leaves or enters
 * the prompt window; Confirm runs it (one change, one undo). */
export function ConfirmDialog({
  agent,
  action,
  picked,
  busy,
  onConfirm,
  onCancel,
}: {
  agent: string | null;
  action: SelectionActionDto;
  picked: Picked[];
  busy: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const { t, num } = useI18n();
  const ids = picked.map((p) => p.id);
  const impact = useSelectionImpact(agent, ids, action);
  const d = impact.data;
  const n = d ? d.entries : picked.length;
  const skipped = d ? picked.length - d.entries - d.missing.length : 0;
  const confirmLabel = action === "delete" ? t("memory.confirm.delete", { n: num(n) }) : t("memory.confirm.move", { n: num(n) });
  return (
    <Dialog
      title={t(TITLES[action], { n: num(picked.length) })}
      onEscape={onCancel}
      testId="bulk-confirm"
      focusKey={d ? "ready" : "counting"}
      footer={
        <>
          <button
            type="button"
            className={action === "delete" ? "btn btn-danger-solid" : "btn btn-primary"}
            disabled={!d || d.entries === 0 || busy}
            onClick={onConfirm}
            data-autofocus
            data-testid="bulk-confirm-ok"
          >
            {confirmLabel}
          </button>
          <button type="button" className="btn" onClick={onCancel} data-testid="bulk-confirm-cancel">
            {t("memory.confirm.cancel")}
          </button>
          <span className="modal-note">{t("memory.confirm.undoHint")}</span>
        </>
      }
    >
      {impact.isError ? (
        <ErrorState error={impact.error} compact />
      ) : !d ? (
        <Skeleton rows={2} label={t("memory.confirm.counting")} />
      ) : (
        <div className="impact" data-testid="bulk-impact">
          <p className="impact-size" data-testid="bulk-impact-size">
            {t("memory.confirm.size", { n: num(d.entries), m: num(d.chars) })}
          </p>
          <ul className="impact-prompt" data-testid="bulk-impact-prompt">
            {d.leaving_prompt_chars > 0 ? (
              <li className="impact-leave">
                <Icon name="arrowDown" size={14} /> {t("memory.confirm.leave", { n: num(d.leaving_prompt_chars) })}
              </li>
            ) : null}
            {d.entering_prompt_chars > 0 ? (
              <li className="impact-enter">
                <Icon name="arrowUp" size={14} /> {t("memory.confirm.enter", { n: num(d.entering_prompt_chars) })}
              </li>
            ) : null}
            {d.leaving_prompt_chars === 0 && d.entering_prompt_chars === 0 ? <li className="muted">{t("memory.confirm.noPromptChange")}</li> : null}
            <li className="muted">{t("memory.confirm.prompt", { before: num(d.prompt_chars_before), after: num(d.prompt_chars_after) })}</li>
          </ul>
          {skipped > 0 ? (
            <p className="field-hint" data-testid="bulk-impact-skipped">
              {t(action === "core" ? "memory.confirm.skippedCore" : "memory.confirm.skippedArchival", { n: skipped })}
            </p>
          ) : null}
          {d.missing.length > 0 ? (
            <div className="banner banner-warn" data-testid="bulk-impact-missing">
              <Icon name="warning" />
              <div>{t("memory.confirm.missing", { n: d.missing.length })}</div>
            </div>
          ) : null}
        </div>
      )}
    </Dialog>
  );
}
