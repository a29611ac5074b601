// Findings per agent, stacked by check: the agents with the most, at most TOP of them.
import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";

import type { AgentHealthDto } from "../../backend/types";
import { useI18n } from "../../i18n";
import { AXIS, ChartFrame, ChartTooltip, CURSOR, STATIC, type Series } from "../charts/Chart";

export const TOP = 20;
const CHECKS = ["secrets", "pii", "duplicates", "stale", "budget"] as const;
type Check = (typeof CHECKS)[number];

export function FindingsChart({ health }: { health: AgentHealthDto[] }) {
  const { t, num } = useI18n();
  const series: Series<Check>[] = CHECKS.map((c) => ({ key: c, label: t(`dashboard.col.${c}`), color: `var(--chart-${c})` }));
  // An agent that could not be checked has no counts to draw (the table says why).
  const top = health
    .filter((h) => !h.error && h.findings > 0)
    .sort((a, b) => b.findings - a.findings || a.agent.localeCompare(b.agent))
    .slice(0, TOP);
  const height = Math.max(120, top.length * 26 + 40);
  return (
    <ChartFrame
      title={t("charts.findings.title")}
      description={t("charts.findings.desc", { n: num(top.length) })}
      testId="chart-findings"
      series={series}
      empty={top.length === 0 ? t("charts.findings.empty") : null}
      columns={[{ label: t("dashboard.col.agent") }, { label: t("charts.findings.findings"), numeric: true }, ...series.map((s) => ({ label: s.label, numeric: true }))]}
      rows={top.map((h) => ({ key: h.agent, head: h.agent, cells: [num(h.findings), ...CHECKS.map((c) => num(h[c]))] }))}
    >
      <ResponsiveContainer width="100%" height={height} initialDimension={{ width: 640, height }}>
        <BarChart data={top} layout="vertical" margin={{ top: 4, right: 12, bottom: 0, left: 0 }} title={t("charts.findings.title")}>
          <CartesianGrid stroke="var(--border)" strokeDasharray="3 3" horizontal={false} />
          <XAxis type="number" allowDecimals={false} {...AXIS} />
          <YAxis type="category" dataKey="agent" width={110} {...AXIS} axisLine={false} interval={0} />
          <Tooltip cursor={CURSOR} content={<ChartTooltip<AgentHealthDto> series={series} heading={(h) => h.agent} total />} />
          {series.map((s) => (
            <Bar key={s.key} dataKey={s.key} name={s.label} stackId="findings" fill={s.color} maxBarSize={18} {...STATIC} />
          ))}
        </BarChart>
      </ResponsiveContainer>
    </ChartFrame>
  );
}
