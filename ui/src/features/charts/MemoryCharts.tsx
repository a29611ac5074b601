// One agent's memory over time, drawn from what the console answers: entries added per day and
// the window's reach-back (memory_stats), and the prompt's parts per session (prompt_composition).
import { Bar, BarChart, CartesianGrid, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";

import type { DayCountDto, ReachDto, SessionPromptDto } from "../../backend/types";
import { useI18n } from "../../i18n";
import { AXIS, ChartFrame, ChartTooltip, CURSOR, GRID, shortDay, STATIC, useDays, type Series } from "./Chart";

const HEIGHT = 220;
/** Before the container is measured (and in tests, where nothing is). */
const INITIAL = { width: 640, height: HEIGHT };

type GrowthProps = {
  days: DayCountDto[];
  testId?: string;
  tableTestId?: string;
  title?: string;
  /** In a card whose heading names it (the Health tab's "Entries per day"). */
  bare?: boolean;
};

/** Core and archival entries by the day they were written (stacked bars). */
export function GrowthChart({ days, testId = "chart-growth", tableTestId, title, bare }: GrowthProps) {
  const { t, num } = useI18n();
  const series: Series<"core" | "archival">[] = [
    { key: "archival", label: t("charts.archival"), color: "var(--chart-archival)" },
    { key: "core", label: t("charts.core"), color: "var(--chart-core)" },
  ];
  const first = days[0]?.day ?? "";
  const last = days[days.length - 1]?.day ?? "";
  return (
    <ChartFrame
      title={title ?? t("charts.growth.title")}
      description={days.length ? t("charts.growth.desc", { n: num(days.length), from: first, to: last }) : t("charts.growth.descEmpty")}
      testId={testId}
      tableTestId={tableTestId}
      bare={bare}
      series={series}
      empty={days.length === 0 ? t("charts.growth.empty") : null}
      columns={[{ label: t("charts.day") }, { label: t("charts.core"), numeric: true }, { label: t("charts.archival"), numeric: true }, { label: t("charts.total"), numeric: true }]}
      rows={days.map((d) => ({ key: d.day, head: d.day, cells: [num(d.core), num(d.archival), num(d.core + d.archival)] }))}
    >
      <ResponsiveContainer width="100%" height={HEIGHT} initialDimension={INITIAL}>
        <BarChart data={days} margin={{ top: 8, right: 8, bottom: 0, left: -16 }} title={title ?? t("charts.growth.title")}>
          <CartesianGrid {...GRID} />
          <XAxis dataKey="day" tickFormatter={shortDay} {...AXIS} minTickGap={16} />
          <YAxis allowDecimals={false} {...AXIS} axisLine={false} />
          <Tooltip cursor={CURSOR} content={<ChartTooltip<DayCountDto> series={[...series].reverse()} heading={(d) => d.day} total />} />
          {series.map((s) => (
            <Bar key={s.key} dataKey={s.key} name={s.label} stackId="entries" fill={s.color} maxBarSize={28} {...STATIC} />
          ))}
        </BarChart>
      </ResponsiveContainer>
    </ChartFrame>
  );
}

/** How many days back the prompt window reached at the end of each day (a line). */
export function ReachChart({ reach, testId = "chart-reach" }: { reach: ReachDto[]; testId?: string }) {
  const { t, num } = useI18n();
  const days = useDays();
  const series: Series<"days">[] = [{ key: "days", label: t("charts.reach.days"), color: "var(--chart-reach)" }];
  const first = reach[0]?.day ?? "";
  const last = reach[reach.length - 1]?.day ?? "";
  const value = (d: ReachDto) => (d.days === null ? t("charts.reach.none") : t("charts.reach.value", { n: days(d.days) }));
  return (
    <ChartFrame
      title={t("charts.reach.title")}
      description={reach.length ? t("charts.reach.desc", { n: num(reach.length), from: first, to: last }) : t("charts.reach.descEmpty")}
      testId={testId}
      series={series}
      empty={reach.length === 0 ? t("charts.reach.empty") : null}
      columns={[{ label: t("charts.day") }, { label: t("charts.reach.days"), numeric: true }]}
      rows={reach.map((d) => ({ key: d.day, head: d.day, cells: [d.days === null ? t("common.none") : days(d.days)] }))}
    >
      <ResponsiveContainer width="100%" height={HEIGHT} initialDimension={INITIAL}>
        <LineChart data={reach} margin={{ top: 8, right: 12, bottom: 0, left: -16 }} title={t("charts.reach.title")}>
          <CartesianGrid {...GRID} />
          <XAxis dataKey="day" tickFormatter={shortDay} {...AXIS} minTickGap={16} />
          <YAxis {...AXIS} axisLine={false} />
          <Tooltip
            cursor={{ stroke: "var(--border-strong)" }}
            content={<ChartTooltip<ReachDto> series={series} heading={(d) => d.day} value={(d) => value(d)} />}
          />
          <Line
            type="monotone"
            dataKey="days"
            name={series[0]!.label}
            stroke={series[0]!.color}
            strokeWidth={2}
            dot={reach.length <= 40 ? { r: 2.5, fill: series[0]!.color, strokeWidth: 0 } : false}
            activeDot={{ r: 4 }}
            {...STATIC}
          />
        </LineChart>
      </ResponsiveContainer>
    </ChartFrame>
  );
}

type Part = "system" | "memory" | "history" | "tools";
const PARTS: readonly Part[] = ["system", "memory", "history", "tools"];

/** The characters of each prompt part per session, oldest first (stacked bars). */
export function CompositionChart({ sessions, testId = "chart-composition" }: { sessions: SessionPromptDto[]; testId?: string }) {
  const { t, num } = useI18n();
  const series: Series<Part>[] = PARTS.map((p) => ({ key: p, label: t(`charts.part.${p}`), color: `var(--seg-${p})` }));
  // A category per session (two sessions may share a time).
  const data = sessions.map((s, i) => ({ ...s, i: String(i) }));
  const when = (s: SessionPromptDto) => s.at ?? t("common.none");
  return (
    <ChartFrame
      title={t("charts.comp.title")}
      description={sessions.length ? t("charts.comp.desc", { n: num(sessions.length) }) : t("charts.comp.descEmpty")}
      testId={testId}
      series={series}
      empty={sessions.length === 0 ? t("charts.comp.empty") : null}
      columns={[
        { label: t("charts.session") },
        { label: t("charts.comp.at") },
        ...series.map((s) => ({ label: s.label, numeric: true })),
        { label: t("charts.total"), numeric: true },
      ]}
      rows={sessions.map((s, i) => ({
        key: `${s.session_id}-${i}`,
        head: <code>{s.session_id}</code>,
        cells: [when(s), ...PARTS.map((p) => num(s[p])), num(PARTS.reduce((a, p) => a + s[p], 0))],
      }))}
    >
      <ResponsiveContainer width="100%" height={HEIGHT} initialDimension={INITIAL}>
        <BarChart data={data} margin={{ top: 8, right: 8, bottom: 0, left: -4 }} title={t("charts.comp.title")}>
          <CartesianGrid {...GRID} />
          <XAxis dataKey="i" tickFormatter={(i: string) => shortDay(data[Number(i)]?.at ?? "")} {...AXIS} minTickGap={16} />
          <YAxis {...AXIS} axisLine={false} tickFormatter={(v: number) => num(v)} />
          <Tooltip
            cursor={CURSOR}
            content={<ChartTooltip<SessionPromptDto> series={[...series].reverse()} heading={(s) => when(s)} sub={(s) => s.session_id} total />}
          />
          {series.map((s) => (
            <Bar key={s.key} dataKey={s.key} name={s.label} stackId="prompt" fill={s.color} maxBarSize={36} {...STATIC} />
          ))}
        </BarChart>
      </ResponsiveContainer>
    </ChartFrame>
  );
}
