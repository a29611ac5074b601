// The frame every chart shares: a titled <figure>, the chart (recharts, SVG coloured by the theme's
// CSS variables), a legend, and the same numbers as a real <table> under a "Show as table"
// disclosure, so a screen reader or a keyboard user gets every value the tooltips show.
import { useCallback, useId, type ReactNode } from "react";
import type { TooltipContentProps } from "recharts";

import { useI18n } from "../../i18n";
import "./charts.css";

/** One drawn series: the datum's field, its label and its colour (a CSS variable). */
export type Series<K extends string = string> = { key: K; label: string; color: string };

/** What the axes, the grid and the cursor are drawn with: the theme's colours. */
export const AXIS = {
  stroke: "var(--border-strong)",
  tick: { fill: "var(--text-3)", fontSize: 11 },
  tickLine: false,
} as const;
export const GRID = { stroke: "var(--border)", strokeDasharray: "3 3", vertical: false } as const;
export const CURSOR = { fill: "var(--bg-hover)", fillOpacity: 0.6, stroke: "none" } as const;

/** Tests and screenshots want the final picture at once; animations add nothing to a count. */
export const STATIC = { isAnimationActive: false } as const;

/** The agents' colours: the same agent has the same colour in every chart of a page. */
export const AGENT_COLORS = Array.from({ length: 10 }, (_, i) => `var(--chart-${i + 1})`);

export function agentColors(agents: readonly string[]): Map<string, string> {
  return new Map([...agents].sort().map((a, i) => [a, AGENT_COLORS[i % AGENT_COLORS.length]!]));
}

/** Days with one decimal (the console answers fractions of a day). */
export function useDays() {
  const { num } = useI18n();
  return useCallback((d: number) => num(Math.round(d * 10) / 10), [num]);
}

/** `yyyy-MM-dd` → `MM-dd` for the axis (the tooltip and the table have the whole day). */
export const shortDay = (day: string) => (/^\d{4}-\d\d-\d\d/.test(day) ? day.slice(5, 10) : day);

export type Column = { label: string; numeric?: boolean };
export type Row = { key: string; head: ReactNode; cells: ReactNode[] };

type FrameProps = {
  title: string;
  /** One sentence on what is drawn (the chart's description for assistive technology too). */
  description: string;
  testId: string;
  series?: Series[];
  /** Controls beside the title (a period picker). */
  actions?: ReactNode;
  columns: Column[];
  rows: Row[];
  /** Shown instead of the chart and the table when there is nothing to draw. */
  empty?: string | null;
  tableTestId?: string;
  /** Inside a card whose heading already names the chart: no title or description shown (the
   * figure is named by `title` for assistive technology). */
  bare?: boolean;
  children: ReactNode;
};

export function ChartFrame({ title, description, testId, series, actions, columns, rows, empty, tableTestId, bare, children }: FrameProps) {
  const { t } = useI18n();
  const id = useId();
  return (
    <figure className="chart" data-testid={testId} aria-labelledby={`${id}-title`} aria-describedby={`${id}-desc`}>
      <div className={bare ? "sr-only" : "chart-head"}>
        <h3 id={`${id}-title`} className="chart-title">
          {title}
        </h3>
        <span className="spacer" />
        {actions}
      </div>
      <p id={`${id}-desc`} className={bare ? "sr-only" : "chart-desc muted"}>
        {description}
      </p>
      {empty ? (
        <p className="muted chart-empty" data-testid={`${testId}-empty`}>
          {empty}
        </p>
      ) : (
        <>
          {/* The SVG is a picture of the table below; its keyboard layer (arrows) moves the tooltip. */}
          <div className="chart-box">{children}</div>
          {series && series.length > 1 ? (
            <ul className="legend chart-legend" aria-hidden="true">
              {series.map((s) => (
                <li key={s.key} className="legend-item">
                  <span className="swatch" style={{ background: s.color }} /> {s.label}
                </li>
              ))}
            </ul>
          ) : null}
          <details className="chart-table">
            <summary data-testid={`${testId}-table-toggle`}>{t("charts.showTable")}</summary>
            <div className="chart-table-scroll">
              <table className="stats-table" data-testid={tableTestId ?? `${testId}-table`}>
                <caption className="sr-only">{title}</caption>
                <thead>
                  <tr>
                    {columns.map((c, i) => (
                      <th key={i} scope="col" className={c.numeric ? "num" : undefined}>
                        {c.label}
                      </th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {rows.map((r) => (
                    <tr key={r.key}>
                      <th scope="row">{r.head}</th>
                      {r.cells.map((c, i) => (
                        <td key={i}>{c}</td>
                      ))}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </details>
        </>
      )}
    </figure>
  );
}

type TipProps<T> = Partial<TooltipContentProps<number, string>> & {
  series: Series[];
  heading: (d: T) => ReactNode;
  /** A line under the heading (a session's id). */
  sub?: (d: T) => ReactNode;
  value?: (d: T, key: string) => ReactNode;
  /** The stack's sum, under the series. */
  total?: boolean;
};

/** The hover (and keyboard) tooltip: the datum's heading, each series' value, and the total. */
export function ChartTooltip<T extends object>({ active, payload, series, heading, sub, value, total }: TipProps<T>) {
  const { t, num } = useI18n();
  const d = payload?.[0]?.payload as T | undefined;
  if (!active || !d) return null;
  const rec = d as Record<string, unknown>;
  const n = (k: string) => (typeof rec[k] === "number" ? (rec[k] as number) : 0);
  const shown = value ? series : series.filter((s) => n(s.key) !== 0 || series.length <= 5);
  return (
    <div className="chart-tip" data-testid="chart-tooltip">
      <div className="chart-tip-head">{heading(d)}</div>
      {sub ? <div className="chart-tip-sub">{sub(d)}</div> : null}
      <ul>
        {shown.map((s) => (
          <li key={s.key}>
            <span className="swatch" style={{ background: s.color }} />
            <span className="chart-tip-label">{s.label}</span>
            <span className="chart-tip-value">{value ? value(d, s.key) : num(n(s.key))}</span>
          </li>
        ))}
        {total ? (
          <li className="chart-tip-total">
            <span className="swatch" />
            <span className="chart-tip-label">{t("charts.total")}</span>
            <span className="chart-tip-value">{num(series.reduce((a, s) => a + n(s.key), 0))}</span>
          </li>
        ) : null}
      </ul>
    </div>
  );
}
