import { useEffect, useRef, useState, type ReactNode } from "react";
import { createPortal } from "react-dom";

import { useI18n } from "../i18n";
import { Icon } from "./Icon";

export type ToastAction = { label: string; onClick: () => void; testId?: string };

/**
 * One short message at the bottom of the window ("Deleted 3 entries · Undo"). It goes after
 * `timeoutMs` unless the pointer or the focus is on it; a new message (another `id`) starts the
 * time again. It never takes the focus: the action is one Tab away, or its shortcut.
 */
export function Toast({
  id,
  tone = "info",
  children,
  detail,
  action,
  onClose,
  timeoutMs = 8000,
  raised,
}: {
  id: string | number;
  tone?: "info" | "error";
  children: ReactNode;
  detail?: ReactNode;
  action?: ToastAction;
  onClose: () => void;
  timeoutMs?: number;
  /** Above a bar fixed at the bottom of the page (the selection's). */
  raised?: boolean;
}) {
  const { t } = useI18n();
  const [held, setHeld] = useState(false);
  const onCloseRef = useRef(onClose);
  useEffect(() => {
    onCloseRef.current = onClose;
  });
  useEffect(() => {
    if (held) return;
    const timer = setTimeout(() => onCloseRef.current(), timeoutMs);
    return () => clearTimeout(timer);
  }, [id, held, timeoutMs]);

  return createPortal(
    <div className={raised ? "toast-host toast-host-raised" : "toast-host"}>
      <div
        className={tone === "error" ? "toast toast-error" : "toast"}
        role={tone === "error" ? "alert" : "status"}
        aria-live={tone === "error" ? "assertive" : "polite"}
        data-testid="toast"
        data-tone={tone}
        onMouseEnter={() => setHeld(true)}
        onMouseLeave={() => setHeld(false)}
        onFocus={() => setHeld(true)}
        onBlur={() => setHeld(false)}
      >
        {tone === "error" ? <Icon name="error" className="toast-icon" /> : null}
        <div className="toast-text">
          <span data-testid="toast-message">{children}</span>
          {detail ? <div className="toast-detail">{detail}</div> : null}
        </div>
        {action ? (
          <>
            <span className="toast-sep" aria-hidden="true">
              {" · "}
            </span>
            <button type="button" className="toast-action" onClick={action.onClick} data-testid={action.testId ?? "toast-action"}>
              {action.label}
            </button>
          </>
        ) : null}
        <button type="button" className="toast-close" onClick={onClose} aria-label={t("toast.close")} title={t("toast.close")} data-testid="toast-close">
          <Icon name="close" size={14} />
        </button>
      </div>
    </div>,
    document.body,
  );
}
