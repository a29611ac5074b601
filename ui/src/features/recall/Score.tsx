import { useI18n } from "../../i18n";

/** The score with two decimals and a small bar (full at 1; the floor marked). */
export function Score({ score, floor, testId = "recall-score" }: { score: number; floor: number | null; testId?: string }) {
  const { t } = useI18n();
  const pct = Math.max(0, Math.min(1, score)) * 100;
  const title = floor === null ? t("recall.scoreTitle", { score: score.toFixed(3) }) : t("recall.scoreFloorTitle", { score: score.toFixed(3), floor: floor.toFixed(2) });
  return (
    <span className="score" title={title} data-testid={testId} data-score={score}>
      <span className="score-bar" aria-hidden="true">
        <span className="score-fill" style={{ width: `${pct}%` }} />
        {floor !== null ? <span className="score-floor" style={{ left: `${Math.max(0, Math.min(1, floor)) * 100}%` }} /> : null}
      </span>
      <span className="score-num">{score.toFixed(2)}</span>
    </span>
  );
}
