import { useEffect, useId, useRef, type ReactNode } from "react";
import { createPortal } from "react-dom";

import { Icon } from "./Icon";

const FOCUSABLE = 'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

function focusables(root: HTMLElement): HTMLElement[] {
  return Array.from(root.querySelectorAll<HTMLElement>(FOCUSABLE)).filter((el) => !el.closest("[hidden]"));
}

/** A modal dialog: rendered over the page, keeps keyboard focus inside (Tab / Shift+Tab wrap),
 * Escape calls onEscape, and focus goes back to where it was when the dialog closes.
 * `variant="drawer"` shows it as a panel along the right edge; `close` adds a close button to
 * the head.
 * `focusKey` changes when the content changes enough to move focus: it goes to the element
 * marked `data-autofocus` (the primary button), else to the dialog itself. */
export function Dialog({
  title,
  children,
  footer,
  onEscape,
  focusKey,
  testId,
  wide,
  variant,
  close,
}: {
  title: ReactNode;
  children: ReactNode;
  footer?: ReactNode;
  onEscape: () => void;
  focusKey?: string;
  testId?: string;
  wide?: boolean;
  variant?: "drawer";
  close?: { label: string; onClick: () => void };
}) {
  const ref = useRef<HTMLDivElement>(null);
  const titleId = useId();
  const onEscapeRef = useRef(onEscape);
  useEffect(() => {
    onEscapeRef.current = onEscape;
  });

  // Remember what had focus, give it back on close.
  useEffect(() => {
    const previous = document.activeElement as HTMLElement | null;
    return () => {
      if (previous && document.contains(previous)) previous.focus();
    };
  }, []);

  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const target = el.querySelector<HTMLElement>("[data-autofocus]:not([disabled])");
    (target ?? el).focus();
  }, [focusKey]);

  // Focus that escapes (a click on the page behind, a screen reader) comes back.
  useEffect(() => {
    const onFocusIn = (e: FocusEvent) => {
      const el = ref.current;
      if (el && e.target instanceof Node && !el.contains(e.target)) el.focus();
    };
    document.addEventListener("focusin", onFocusIn);
    return () => document.removeEventListener("focusin", onFocusIn);
  }, []);

  const onKeyDown = (e: React.KeyboardEvent) => {
    if (e.key === "Escape") {
      e.preventDefault();
      e.stopPropagation();
      onEscapeRef.current();
      return;
    }
    if (e.key !== "Tab" || !ref.current) return;
    const list = focusables(ref.current);
    if (list.length === 0) {
      e.preventDefault();
      ref.current.focus();
      return;
    }
    const first = list[0]!;
    const last = list[list.length - 1]!;
    const active = document.activeElement;
    if (e.shiftKey && (active === first || active === ref.current)) {
      e.preventDefault();
      last.focus();
    } else if (!e.shiftKey && active === last) {
      e.preventDefault();
      first.focus();
    }
  };

  return createPortal(
    <div className={variant === "drawer" ? "modal-backdrop drawer-backdrop" : "modal-backdrop"}>
      <div
        ref={ref}
        className={["modal", wide ? "modal-wide" : "", variant === "drawer" ? "drawer" : ""].filter(Boolean).join(" ")}
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        tabIndex={-1}
        onKeyDown={onKeyDown}
        data-testid={testId}
      >
        <div className="modal-head">
          <h2 id={titleId}>{title}</h2>
          {close ? (
            <button type="button" className="icon-btn modal-close" onClick={close.onClick} aria-label={close.label} title={close.label} data-testid={testId ? `${testId}-close` : undefined}>
              <Icon name="close" />
            </button>
          ) : null}
        </div>
        <div className="modal-body">{children}</div>
        {footer ? <div className="modal-actions">{footer}</div> : null}
      </div>
    </div>,
    document.body,
  );
}
