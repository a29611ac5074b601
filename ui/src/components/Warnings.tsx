import { useEffect, useLayoutEffect, useRef, useState } from "react";
import { createPortal } from "react-dom";

import { useI18n } from "../i18n";
import { Icon } from "./Icon";

/** Set by a badge that leads to its warnings: the next WarningList to mount takes the focus. */
let focusListUntil = 0;

/** The next warnings list shown within 3 s (on the page a badge leads to) is scrolled to and
 * focused. */
export function requestWarningsFocus() {
  focusListUntil = Date.now() + 3000;
}

const GAP = 4;
const MARGIN = 8;

/**
 * A warning icon with the count; hovering or focusing it shows the list in a popover beside it
 * (in a portal, placed inside the window: never over the sidebar or clipped by a scrolling table;
 * it closes when the page scrolls). With `onActivate`, a click or Enter goes to the problem.
 */
export function WarningBadge({ warnings, testId, onActivate }: { warnings: string[]; testId?: string; onActivate?: () => void }) {
  const { t } = useI18n();
  const ref = useRef<HTMLSpanElement>(null);
  const popRef = useRef<HTMLDivElement>(null);
  const [anchor, setAnchor] = useState<DOMRect | null>(null);
  const [pos, setPos] = useState<{ top: number; left: number } | null>(null);

  // Placed once its size is known: below the badge (above when there is no room), its left edge
  // at the badge's, moved left only as far as needed to stay inside the window.
  useLayoutEffect(() => {
    const pop = popRef.current;
    if (!anchor || !pop) return;
    const w = pop.offsetWidth;
    const h = pop.offsetHeight;
    const left = Math.max(MARGIN, Math.min(anchor.left, window.innerWidth - w - MARGIN));
    const below = anchor.bottom + GAP;
    const top = below + h > window.innerHeight - MARGIN && anchor.top - GAP - h > MARGIN ? anchor.top - GAP - h : below;
    setPos({ top, left });
  }, [anchor]);

  useEffect(() => {
    if (!anchor) return;
    const hide = () => {
      setAnchor(null);
      setPos(null);
    };
    window.addEventListener("scroll", hide, true);
    window.addEventListener("resize", hide);
    return () => {
      window.removeEventListener("scroll", hide, true);
      window.removeEventListener("resize", hide);
    };
  }, [anchor]);

  if (warnings.length === 0) return null;
  const show = () => {
    const r = ref.current?.getBoundingClientRect();
    if (r) setAnchor(r);
  };
  const hide = () => {
    setAnchor(null);
    setPos(null);
  };
  const label = `${t("common.warnings")}: ${warnings.join("; ")}`;
  return (
    <span
      ref={ref}
      className={onActivate ? "warn-badge warn-badge-link" : "warn-badge"}
      tabIndex={0}
      role={onActivate ? "link" : undefined}
      aria-label={onActivate ? t("warnings.goTo", { label }) : label}
      data-testid={testId}
      onMouseEnter={show}
      onMouseLeave={hide}
      onFocus={show}
      onBlur={hide}
      onClick={(e) => {
        e.stopPropagation();
        if (onActivate) {
          hide();
          onActivate();
        }
      }}
      onKeyDown={(e) => {
        if (e.key === "Enter") {
          e.stopPropagation();
          if (onActivate) {
            e.preventDefault();
            hide();
            onActivate();
          }
        }
        if (e.key === "Escape") hide();
      }}
    >
      <Icon name="warning" size={14} />
      <span className="warn-count">{warnings.length}</span>
      {anchor
        ? createPortal(
            <div
              ref={popRef}
              className="warn-pop"
              role="tooltip"
              data-testid={testId ? `${testId}-pop` : undefined}
              style={{ display: "block", top: pos?.top ?? anchor.bottom + GAP, left: pos?.left ?? MARGIN, visibility: pos ? "visible" : "hidden" }}
            >
              <ul>
                {warnings.map((w, i) => (
                  <li key={i}>{w}</li>
                ))}
              </ul>
            </div>,
            document.body,
          )
        : null}
    </span>
  );
}

export function WarningList({ warnings, testId }: { warnings: string[]; testId?: string }) {
  const { t } = useI18n();
  const ref = useRef<HTMLDivElement>(null);
  const has = warnings.length > 0;
  useEffect(() => {
    if (!has || Date.now() > focusListUntil || !ref.current) return;
    focusListUntil = 0;
    ref.current.scrollIntoView?.({ block: "center" });
    ref.current.focus({ preventScroll: true });
  }, [has]);
  if (!has) return null;
  return (
    <div ref={ref} className="warning-list" role="status" tabIndex={-1} data-testid={testId}>
      <div className="warning-list-title">
        <Icon name="warning" size={14} /> {t("common.warnings")}
      </div>
      <ul>
        {warnings.map((w, i) => (
          <li key={i}>{w}</li>
        ))}
      </ul>
    </div>
  );
}
