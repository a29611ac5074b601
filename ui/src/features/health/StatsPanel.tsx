// Entries per day (stacked core / archival) as plain SVG bars, with the same numbers as a table.
import { useState } from "react";

import type { MemoryStatsDto } from "../../backend/types";
import { Loadable } from "../../components/States";
import { useI18n } from "../../i18n";
import { useStats } from "./hooks";

const BAR = 14;
const GAP = 4;
const HEIGHT = 120;

export function StatsPanel({ agent }: { agent: string | null }) {
  const { t } = useI18n();
  const stats = useStats(agent);
  return (
    <section className="card health-stats" data-testid="stats-panel" aria-labelledby="health-stats-title">
      <h2 id="health-stats-title">{t("stats.title")}</h2>
      <Loadable query={stats} rows={4}>
        {(s) => <Stats stats={s} />}
      </Loadable>
    </section>
  );
}

function Stats({ stats }: { stats: MemoryStatsDto }) {
  const { t, num } = useI18n();
  const [table, setTable] = useState(false);
  const max = Math.max(1, ...stats.days.map((d) => d.core + d.archival));
  // Room after the last bar for its date.
  const width = stats.days.length * (BAR + GAP) + 28;
  const y = (v: number) => (v / max) * HEIGHT;
  return (
    <>
      <p className="stats-line" data-testid="stats-reach">
        {stats.window_reach_days === null
          ? t("stats.reachNone")
          : t("stats.reach", { n: num(Math.round(stats.window_reach_days)) })}{" "}
        <span className="muted">
          {t("stats.inOut", { in: num(stats.in_window), out: num(stats.outside_window) })}
          {stats.undated > 0 ? ` · ${t("stats.undated", { n: num(stats.undated) })}` : ""}
        </span>
      </p>
      {stats.days.length === 0 ? (
        <p className="muted" data-testid="stats-empty">
          {t("stats.empty")}
        </p>
      ) : (
        <>
          <div className="stats-chart-wrap">
            <svg
              className="stats-chart"
              data-testid="stats-chart"
              role="img"
              aria-label={t("stats.chartLabel", { n: num(stats.days.length), from: stats.days[0]!.day, to: stats.days[stats.days.length - 1]!.day })}
              width={width}
              height={HEIGHT + 18}
              viewBox={`0 0 ${width} ${HEIGHT + 18}`}
            >
              {stats.days.map((d, i) => {
                const x = i * (BAR + GAP);
                const ha = y(d.archival);
                const hc = y(d.core);
                return (
                  <g key={d.day} data-testid="stats-bar" data-day={d.day}>
                    <title>{t("stats.barTitle", { day: d.day, core: num(d.core), archival: num(d.archival) })}</title>
                    <rect className="stats-archival" x={x} y={HEIGHT - ha} width={BAR} height={ha} />
                    <rect className="stats-core" x={x} y={HEIGHT - ha - hc} width={BAR} height={hc} />
                    {i === 0 || i === stats.days.length - 1 || i % 7 === 0 ? (
                      <text className="stats-tick" x={x} y={HEIGHT + 13}>
                        {d.day.slice(5)}
                      </text>
                    ) : null}
                  </g>
                );
              })}
            </svg>
          </div>
          <div className="legend">
            <span className="legend-item">
              <span className="swatch stats-core-swatch" /> {t("stats.core")}
            </span>
            <span className="legend-item">
              <span className="swatch stats-archival-swatch" /> {t("stats.archival")}
            </span>
            <span className="spacer" />
            <button type="button" className="btn btn-small btn-ghost" aria-expanded={table} onClick={() => setTable((v) => !v)} data-testid="stats-table-toggle">
              {table ? t("stats.hideTable") : t("stats.showTable")}
            </button>
          </div>
          <table className={table ? "stats-table" : "stats-table sr-only"} data-testid="stats-table">
            <caption className="sr-only">{t("stats.title")}</caption>
            <thead>
              <tr>
                <th scope="col">{t("stats.day")}</th>
                <th scope="col">{t("stats.core")}</th>
                <th scope="col">{t("stats.archival")}</th>
              </tr>
            </thead>
            <tbody>
              {stats.days.map((d) => (
                <tr key={d.day}>
                  <th scope="row">{d.day}</th>
                  <td>{num(d.core)}</td>
                  <td>{num(d.archival)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </>
  );
}
