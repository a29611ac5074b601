import { useEffect, useLayoutEffect, useRef, useState } from "react";
import { createPortal } from "react-dom";

import type { WarningCode, WarningDto } from "../backend/types";
import { useI18n, type MessageKey, type TFunction } from "../i18n";
import { Icon } from "./Icon";

// A warning in the user's language (one line per WarningCode: a code added in Rust fails to
// compile here). Core's English sentence stays available as the detail.
const WARNING_TEXT: Record<WarningCode, MessageKey> = {
  agent_name_invalid: "warning.agent_name_invalid",
  agent_dir_outside_root: "warning.agent_dir_outside_root",
  agent_md_missing: "warning.agent_md_missing",
  agent_md_unreadable: "warning.agent_md_unreadable",
  agent_md_not_utf8: "warning.agent_md_not_utf8",
  front_matter_invalid: "warning.front_matter_invalid",
  agent_name_mismatch: "warning.agent_name_mismatch",
  max_history_turns_invalid: "warning.max_history_turns_invalid",
  schedules_not_list: "warning.schedules_not_list",
  schedule_id_key_differ: "warning.schedule_id_key_differ",
  schedule_no_key: "warning.schedule_no_key",
  schedule_no_name: "warning.schedule_no_name",
  schedule_key_duplicate: "warning.schedule_key_duplicate",
  schedule_cron_fields: "warning.schedule_cron_fields",
  skill_link_broken: "warning.skill_link_broken",
  skill_outside_root: "warning.skill_outside_root",
  skill_md_missing: "warning.skill_md_missing",
  skill_md_unreadable: "warning.skill_md_unreadable",
  skill_name_mismatch: "warning.skill_name_mismatch",
  bootstrap_missing: "warning.bootstrap_missing",
  bootstrap_unreadable: "warning.bootstrap_unreadable",
  session_messages_unreadable: "warning.session_messages_unreadable",
  root_missing: "warning.root_missing",
  root_not_folder: "warning.root_not_folder",
  root_no_agents: "warning.root_no_agents",
};

/** A core warning, or a line the page has already worded (a memory or session error). */
export type WarningItem = WarningDto | string;

/** Whether the warning has a sentence of its own in the UI (else its English message is shown). */
function known(w: WarningDto): MessageKey | undefined {
  return (WARNING_TEXT as Partial<Record<string, MessageKey>>)[w.code];
}

/** The headline of a warning in the user's language; the English message for a code this UI
 * does not know. On an agent, a skill's warning names the skill. */
export function warningText(t: TFunction, w: WarningItem): string {
  if (typeof w === "string") return w;
  const key = known(w);
  if (!key) return w.message;
  const vars: Record<string, string> = {};
  for (const [k, v] of Object.entries(w.params)) if (v !== undefined) vars[k] = v;
  const text = t(key, vars);
  return vars.skill !== undefined ? t("warning.inSkill", { skill: vars.skill, text }) : text;
}

/** The technical detail behind a headline: core's English message, when it is not the headline. */
export function warningDetail(w: WarningItem): string | null {
  return typeof w === "string" || !known(w) ? null : w.message;
}

/** One warning: the headline in the user's language, core's message behind "Details". */
export function WarningLine({ warning, testId }: { warning: WarningItem; testId?: string }) {
  const { t } = useI18n();
  const detail = warningDetail(warning);
  return (
    <span className="warning-line" data-testid={testId} data-code={typeof warning === "string" ? undefined : warning.code}>
      <span className="warning-text">{warningText(t, warning)}</span>
      {detail ? (
        <details className="error-details">
          <summary>{t("error.details")}</summary>
          <div className="error-message mono wrap">{detail}</div>
        </details>
      ) : null}
    </span>
  );
}

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
export function WarningBadge({ warnings, testId, onActivate }: { warnings: WarningItem[]; testId?: string; onActivate?: () => void }) {
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
  const label = `${t("common.warnings")}: ${warnings.map((w) => warningText(t, w)).join("; ")}`;
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
                {/* A tooltip cannot hold a disclosure: the detail is the item's title. */}
                {warnings.map((w, i) => (
                  <li key={i} title={warningDetail(w) ?? undefined}>
                    {warningText(t, w)}
                  </li>
                ))}
              </ul>
            </div>,
            document.body,
          )
        : null}
    </span>
  );
}

export function WarningList({ warnings, testId }: { warnings: WarningItem[]; testId?: string }) {
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
          <li key={i}>
            <WarningLine warning={w} />
          </li>
        ))}
      </ul>
    </div>
  );
}
