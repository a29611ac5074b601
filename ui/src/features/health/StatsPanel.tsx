// Entries per day (stacked core / archival) as the charts' bar chart, with the same numbers as a table.
import type { MemoryStatsDto } from "../../backend/types";
import { Loadable } from "../../components/States";
import { useI18n } from "../../i18n";
import { GrowthChart } from "../charts/lazy";
import { useOp } from "../../queries/ops";

export function StatsPanel({ agent }: { agent: string | null }) {
  const { t } = useI18n();
  const stats = useOp("memory_stats", { agent });
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
        <GrowthChart days={stats.days} testId="stats-chart" tableTestId="stats-table" title={t("stats.title")} bare />
      )}
    </>
  );
}
