import { useRef, useState } from "react";

import { useI18n } from "../i18n";
import { Icon } from "./Icon";

/**
 * A warning icon with the count; hovering or focusing it shows the list in a popover placed with
 * fixed coordinates, so a scrolling table never clips it.
 */
export function WarningBadge({ warnings, testId }: { warnings: string[]; testId?: string }) {
  const { t } = useI18n();
  const ref = useRef<HTMLSpanElement>(null);
  const [pos, setPos] = useState<{ top: number; right: number } | null>(null);
  if (warnings.length === 0) return null;
  const show = () => {
    const r = ref.current?.getBoundingClientRect();
    if (r) setPos({ top: r.bottom + 4, right: Math.max(8, window.innerWidth - r.right) });
  };
  const hide = () => setPos(null);
  return (
    <span
      ref={ref}
      className="warn-badge"
      tabIndex={0}
      aria-label={`${t("common.warnings")}: ${warnings.join("; ")}`}
      data-testid={testId}
      onMouseEnter={show}
      onMouseLeave={hide}
      onFocus={show}
      onBlur={hide}
      onClick={(e) => e.stopPropagation()}
      onKeyDown={(e) => {
        if (e.key === "Enter") e.stopPropagation();
        if (e.key === "Escape") hide();
      }}
    >
      <Icon name="warning" size={14} />
      <span className="warn-count">{warnings.length}</span>
      <span className="warn-pop" role="tooltip" style={pos ? { display: "block", top: pos.top, right: pos.right } : undefined}>
        <ul>
          {warnings.map((w, i) => (
            <li key={i}>{w}</li>
          ))}
        </ul>
      </span>
    </span>
  );
}

export function WarningList({ warnings, testId }: { warnings: string[]; testId?: string }) {
  const { t } = useI18n();
  if (warnings.length === 0) return null;
  return (
    <div className="warning-list" role="status" data-testid={testId}>
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
