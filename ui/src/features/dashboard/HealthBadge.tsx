// The agents list's findings badge: how many health findings an agent has (agents_health), a
// link to its Health tab. Nothing for none, nor for an agent whose memory could not be checked.
import { useMemo } from "react";

import { useI18n } from "../../i18n";
import { href, navigate } from "../../router";
import "../charts/charts.css";
import { useAgentsHealth } from "./hooks";

/** Findings by agent once agents_health has answered (empty until then, or when it failed). */
export function useFindingsByAgent(): ReadonlyMap<string, number> {
  const q = useAgentsHealth();
  return useMemo(() => new Map((q.data ?? []).filter((h) => !h.error).map((h) => [h.agent, h.findings])), [q.data]);
}

export function HealthBadge({ agent, findings }: { agent: string; findings: number | undefined }) {
  const { t, num } = useI18n();
  if (!findings) return null;
  const label = t("dashboard.badge", { n: num(findings) });
  const to = { page: "agent", name: agent, tab: "health" } as const;
  return (
    <a
      href={href(to)}
      className="health-badge"
      aria-label={label}
      title={label}
      data-testid={`agent-health-${agent}`}
      // The row goes to the memory tab on click and Enter: the badge goes to the health.
      onClick={(e) => {
        e.stopPropagation();
        e.preventDefault();
        navigate(to);
      }}
      onKeyDown={(e) => {
        if (e.key === "Enter") e.stopPropagation();
      }}
    >
      <span aria-hidden="true">{num(findings)}</span>
    </a>
  );
}
