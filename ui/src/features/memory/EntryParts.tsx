// Pieces both memory tables use: the inline editor, the row actions, the selection checkbox, the
// "new" badge and what the Chars column counts.
import { useEffect, useLayoutEffect, useRef, useState } from "react";

import type { BackendError } from "../../backend";
import type { BackendDto, ScopeDto } from "../../backend/types";
import { useDebounced } from "../../components/hooks";
import { Icon } from "../../components/Icon";
import { errorHeadline } from "../../components/States";
import { useI18n, type TFunction } from "../../i18n";
import { usePreviewEntry } from "./hooks";

/**
 * The content of one entry as a text field: Enter saves, Escape cancels (Shift+Enter is a line
 * break, which the console turns into a space like every write). Under the field, once the text
 * differs from what is stored, the console's sanitised form when it differs from the text typed.
 * `onSave` resolves with an error to show here, or null when the editor may close.
 */
export function EntryEditor({
  initial,
  label,
  onSave,
  onCancel,
}: {
  initial: string;
  label: string;
  onSave: (content: string, restamp: boolean) => Promise<BackendError | null>;
  onCancel: () => void;
}) {
  const { t } = useI18n();
  const [value, setValue] = useState(initial);
  const [restamp, setRestamp] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<BackendError | null>(null);
  const debounced = useDebounced(value, 250);
  const edited = value !== initial;
  const preview = usePreviewEntry(edited && debounced !== initial ? debounced : "");
  const ref = useRef<HTMLTextAreaElement>(null);
  const alive = useRef(true);

  useEffect(() => {
    const el = ref.current;
    if (el) {
      el.focus({ preventScroll: true });
      el.setSelectionRange(el.value.length, el.value.length);
    }
    return () => {
      alive.current = false;
    };
  }, []);

  // The field grows with its text (up to the CSS max-height), so a long entry is seen whole.
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    el.style.height = "auto";
    if (el.scrollHeight > 0) el.style.height = `${el.scrollHeight + 2}px`;
  }, [value]);

  const save = async () => {
    if (busy) return;
    if (!edited && !restamp) {
      onCancel();
      return;
    }
    setBusy(true);
    setError(null);
    const e = await onSave(value, restamp);
    if (!alive.current) return;
    setBusy(false);
    if (e) {
      setError(e);
      ref.current?.focus();
    }
  };

  const shown = edited && debounced === value && preview.data && preview.data.changed ? preview.data.content : null;
  return (
    <div className="entry-editor" data-testid="entry-editor" onClick={(e) => e.stopPropagation()}>
      <textarea
        ref={ref}
        value={value}
        rows={1}
        aria-label={label}
        data-testid="entry-editor-input"
        disabled={busy}
        onChange={(e) => setValue(e.target.value)}
        onKeyDown={(e) => {
          e.stopPropagation();
          if (e.key === "Escape") {
            e.preventDefault();
            onCancel();
          } else if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
            e.preventDefault();
            void save();
          }
        }}
      />
      {shown !== null ? (
        <div className="entry-editor-preview" data-testid="entry-editor-preview" aria-live="polite">
          <span className="field-label">{t("memory.edit.storedAs")}</span> <code className="preview-line">{shown}</code>
        </div>
      ) : null}
      {error ? (
        <div className="inline-error" role="alert" data-testid="entry-editor-error">
          {errorHeadline(t, error.code)}: {error.message}
        </div>
      ) : null}
      <div className="entry-editor-bar">
        <button type="button" className="btn btn-small btn-primary" onClick={() => void save()} disabled={busy} data-testid="entry-editor-save">
          {t("memory.edit.save")}
        </button>
        <button type="button" className="btn btn-small" onClick={onCancel} disabled={busy} data-testid="entry-editor-cancel">
          {t("memory.edit.cancel")}
        </button>
        <label className="field-inline entry-editor-restamp">
          <input type="checkbox" checked={restamp} onChange={(e) => setRestamp(e.target.checked)} data-testid="entry-editor-restamp" />
          <span>{t("memory.edit.restamp")}</span>
        </label>
        <span className="field-hint">{t("memory.edit.hint")}</span>
      </div>
    </div>
  );
}

/** The checkbox of a row: a plain click toggles, Shift+click selects the range from the last one. */
export function SelectBox({ checked, label, onToggle, tabIndex }: { checked: boolean; label: string; onToggle: (shift: boolean) => void; tabIndex?: number }) {
  return (
    <input
      type="checkbox"
      className="row-check"
      checked={checked}
      aria-label={label}
      data-testid="row-select"
      tabIndex={tabIndex}
      onChange={() => {}}
      onClick={(e) => {
        e.stopPropagation();
        onToggle(e.shiftKey);
      }}
      onKeyDown={(e) => {
        // Space toggles the box itself; keep it from the row's own Space.
        if (e.key === " ") e.stopPropagation();
      }}
    />
  );
}

export function RowActions({
  scope,
  tabIndex,
  onEdit,
  onMove,
  onDelete,
  onOrigin,
  onForget,
  disabled,
}: {
  scope: ScopeDto;
  tabIndex?: number;
  onEdit: () => void;
  onMove: () => void;
  onDelete: () => void;
  /** "Where did this come from?" (a read: not disabled while a change runs). */
  onOrigin?: () => void;
  /** "Forget everywhere…": opens the forget's dry run for the entry. */
  onForget?: () => void;
  disabled?: boolean;
}) {
  const { t } = useI18n();
  const moveLabel = scope === "core" ? t("memory.action.toArchival") : t("memory.action.toCore");
  const stop = (f: () => void) => (e: React.MouseEvent) => {
    e.stopPropagation();
    f();
  };
  return (
    <span className="row-actions" onKeyDown={(e) => e.stopPropagation()}>
      {onOrigin ? (
        <button type="button" className="icon-btn" title={t("provenance.action")} aria-label={t("provenance.action")} aria-haspopup="dialog" tabIndex={tabIndex} onClick={stop(onOrigin)} data-testid="row-origin">
          <Icon name="origin" size={14} />
        </button>
      ) : null}
      <button type="button" className="icon-btn" title={`${t("memory.action.edit")} (Enter)`} aria-label={t("memory.action.edit")} tabIndex={tabIndex} onClick={stop(onEdit)} disabled={disabled} data-testid="row-edit">
        <Icon name="pencil" size={14} />
      </button>
      <button type="button" className="icon-btn" title={moveLabel} aria-label={moveLabel} tabIndex={tabIndex} onClick={stop(onMove)} disabled={disabled} data-testid={scope === "core" ? "row-to-archival" : "row-to-core"}>
        <Icon name={scope === "core" ? "arrowDown" : "arrowUp"} size={14} />
      </button>
      <button type="button" className="icon-btn icon-btn-danger" title={`${t("memory.action.delete")} (Delete)`} aria-label={t("memory.action.delete")} tabIndex={tabIndex} onClick={stop(onDelete)} disabled={disabled} data-testid="row-delete">
        <Icon name="trash" size={14} />
      </button>
      {onForget ? (
        <button type="button" className="icon-btn icon-btn-danger" title={t("forget.action")} aria-label={t("forget.action")} aria-haspopup="dialog" tabIndex={tabIndex} onClick={stop(onForget)} disabled={disabled} data-testid="row-forget">
          <Icon name="forget" size={14} />
        </button>
      ) : null}
    </span>
  );
}

export function NewBadge() {
  const { t } = useI18n();
  return (
    <span className="tag tag-new" title={t("memory.newTitle")} data-testid="new-badge">
      {t("memory.new")}
    </span>
  );
}

/**
 * The Chars column header's explanation (its `title`, and the description `aria-describedby`
 * points at): the characters the entry's line takes in the prompt window, as the console counts
 * them. Which words fit depends only on the backend the overview names: on Markdown the prompt
 * shows the MEMORY.md line as written, time prefix included; the others show no prefix.
 */
export function charsTip(t: TFunction, backend: BackendDto): string {
  if (backend === "markdown") return t("memory.col.charsTip");
  return t("memory.col.charsTipNoPrefix", { backend: t(backend === "sqlite" ? "settings.backend.sqlite" : "settings.backend.mem0") });
}

/** The Chars header's description: hidden, so not part of the header's name, and read as its
 * description through `aria-describedby` (the `title` shows it to the pointer). */
export function CharsDescription({ id, backend }: { id: string; backend: BackendDto }) {
  const { t } = useI18n();
  return (
    <span id={id} hidden data-testid="chars-description">
      {charsTip(t, backend)}
    </span>
  );
}
