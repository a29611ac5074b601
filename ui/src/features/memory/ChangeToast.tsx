// The toast after a memory change, shared by the Memory and Health tabs: what changed with Undo
// (Redo after an undo), or an error in the user's words with the console's message as detail (and,
// for a stale write, that the view was refreshed), or a plain note.
import { useCallback, useRef, useState } from "react";

import type { BackendError } from "../../backend";
import type { ChangeDto } from "../../backend/types";
import { errorHeadline } from "../../components/States";
import { Toast } from "../../components/Toast";
import { useI18n, type TFunction } from "../../i18n";
import { isStale, type Outcome } from "./curation";

/** What the toast says: a change (with Undo, or Redo after an undo; `text` replaces the usual
 * description), an error, or a note. */
export type ToastBody = { kind: "change"; change: ChangeDto; text?: string } | { kind: "error"; error: BackendError } | { kind: "note"; text: string };
type ToastState = { id: number } & ToastBody;

/** Shows a message in the change toast (a new one replaces the one on screen). */
export type Say = (s: ToastBody) => void;

/** "Deleted 3 entries", "Moved 1 entry to core", "Undid a change to 2 entries". */
export function describeChange(t: TFunction, num: (n: number) => string, c: ChangeDto): string {
  const n = num(c.entries.length);
  switch (c.op) {
    case "edit":
      return t("toast.edit", { n });
    case "delete":
      return t("toast.delete", { n });
    case "move":
      return c.entries[0]?.after?.scope === "core" ? t("toast.moveCore", { n }) : t("toast.moveArchival", { n });
    case "restore":
      return t("toast.restore", { n });
    case "undo":
      return t("toast.undo", { n });
    case "redo":
      return t("toast.redo", { n });
    case "summarize":
      return t("toast.summarize", { n });
    case "autosummary":
      return t("toast.autoSummary", { n });
    default:
      return t("toast.changed", { n });
  }
}

/** The toast's state: `say` shows a message, `report` a curation outcome (its change or error). */
export function useChangeToast() {
  const [toast, setToast] = useState<ToastState | null>(null);
  const toastId = useRef(0);
  const say = useCallback<Say>((s) => setToast({ ...s, id: ++toastId.current }), []);
  const report = useCallback((o: Outcome) => (o.change ? say({ kind: "change", change: o.change }) : say({ kind: "error", error: o.error })), [say]);
  // Closing an older toast (its timer) leaves a newer one alone.
  const close = useCallback((id: number) => setToast((cur) => (cur?.id === id ? null : cur)), []);
  return { toast, say, report, close };
}

/** Undo and redo of the owner's changes (the curation hook's). */
type UndoRedo = { undo: (changeId?: string) => unknown; redo: () => unknown };

export function ChangeToast({ toast, onClose, curate, raised }: { toast: ToastState | null; onClose: (id: number) => void; curate: UndoRedo; raised?: boolean }) {
  const { t, num } = useI18n();
  if (!toast) return null;
  const action =
    toast.kind !== "change"
      ? undefined
      : toast.change.op === "undo"
        ? { label: t("toast.redoBtn"), onClick: () => void curate.redo(), testId: "toast-redo" }
        : { label: t("toast.undoBtn"), onClick: () => void curate.undo(toast.change.id), testId: "toast-undo" };
  return (
    <Toast
      id={toast.id}
      tone={toast.kind === "error" ? "error" : "info"}
      onClose={() => onClose(toast.id)}
      action={action}
      detail={
        toast.kind === "error" ? (
          <>
            {toast.error.message}
            {isStale(toast.error) ? ` — ${t("toast.refreshed")}` : ""}
          </>
        ) : undefined
      }
      timeoutMs={toast.kind === "error" ? 12000 : 8000}
      raised={raised}
    >
      {toast.kind === "change" ? (toast.text ?? describeChange(t, num, toast.change)) : toast.kind === "error" ? errorHeadline(t, toast.error.code) : toast.text}
    </Toast>
  );
}
