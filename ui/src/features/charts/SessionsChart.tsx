// Sessions per day, stacked by agent (sessions_per_day). Only the days that have sessions are
// drawn; the table lists the same days.
import { useMemo } from "react";
import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";

import type { SessionDayDto } from "../../backend/types";
import { useI18n } from "../../i18n";
import { agentColors, AXIS, ChartFrame, ChartTooltip, CURSOR, GRID, shortDay, STATIC, type Series } from "./Chart";

const HEIGHT = 240;

type Props = { rows: SessionDayDto[]; days: number; actions?: React.ReactNode; testId?: string };

export function SessionsChart({ rows, days, actions, testId = "chart-sessions" }: Props) {
  const { t, num } = useI18n();
  const { data, series } = useMemo(() => {
    const agents = Array.from(new Set(rows.map((r) => r.agent))).sort();
    const colors = agentColors(agents);
    const byDay = new Map<string, Record<string, number | string>>();
    for (const r of rows) {
      const d = byDay.get(r.day) ?? { day: r.day };
      // Keyed apart from `day` (an agent may be called "day").
      const k = `a:${r.agent}`;
      d[k] = ((d[k] as number | undefined) ?? 0) + r.sessions;
      byDay.set(r.day, d);
    }
    const data = Array.from(byDay.values()).sort((a, b) => String(a.day).localeCompare(String(b.day)));
    for (const d of data) for (const a of agents) d[`a:${a}`] ??= 0;
    const series: Series[] = agents.map((a) => ({ key: `a:${a}`, label: a, color: colors.get(a)! }));
    return { data, series };
  }, [rows]);
  const n = num(days);
  return (
    <ChartFrame
      title={t("charts.sessions.title")}
      description={t("charts.sessions.desc", { n })}
      testId={testId}
      series={series}
      actions={actions}
      empty={data.length === 0 ? t("charts.sessions.empty", { n }) : null}
      columns={[{ label: t("charts.day") }, ...series.map((s) => ({ label: s.label, numeric: true })), { label: t("charts.total"), numeric: true }]}
      rows={data.map((d) => ({
        key: String(d.day),
        head: String(d.day),
        cells: [...series.map((s) => num(d[s.key] as number)), num(series.reduce((a, s) => a + (d[s.key] as number), 0))],
      }))}
    >
      <ResponsiveContainer width="100%" height={HEIGHT} initialDimension={{ width: 640, height: HEIGHT }}>
        <BarChart data={data} margin={{ top: 8, right: 8, bottom: 0, left: -16 }} title={t("charts.sessions.title")}>
          <CartesianGrid {...GRID} />
          <XAxis dataKey="day" tickFormatter={shortDay} {...AXIS} minTickGap={16} />
          <YAxis allowDecimals={false} {...AXIS} axisLine={false} />
          <Tooltip cursor={CURSOR} content={<ChartTooltip<Record<string, unknown>> series={series} heading={(d) => String(d.day)} total />} />
          {series.map((s) => (
            <Bar key={s.key} dataKey={s.key} name={s.label} stackId="sessions" fill={s.color} maxBarSize={28} {...STATIC} />
          ))}
        </BarChart>
      </ResponsiveContainer>
    </ChartFrame>
  );
}
