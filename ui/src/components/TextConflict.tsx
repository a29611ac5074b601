import { diffWords } from "../features/memory/diff";
import { useI18n } from "../i18n";

/** An unchanged run longer than a few lines keeps two lines of context on each side of the
 * changes around it; the rest is one "N unchanged lines" marker. */
export function foldSame(text: string, first: boolean, last: boolean): { head: string; hidden: number; tail: string } | null {
  const lines = text.split("\n");
  const head = first ? [] : lines.slice(0, 3);
  const tail = last ? [] : lines.slice(-3);
  const hidden = lines.length - head.length - tail.length;
  if (hidden < 3) return null;
  return { head: head.join("\n"), hidden, tail: tail.join("\n") };
}

/** What changed between two texts, words removed and added (presentation only). */
export function TextDiff({ before, after, testId }: { before: string; after: string; testId?: string }) {
  const { t } = useI18n();
  if (before === after) return <p className="muted" data-testid={testId}>{t("edit.noChanges")}</p>;
  const segs = diffWords(before, after);
  return (
    <pre className="part-text text-diff" data-testid={testId}>
      {segs.map((s, i) =>
        s.kind === "del" ? (
          <del key={i} className="diff-del">
            {s.text}
          </del>
        ) : s.kind === "ins" ? (
          <ins key={i} className="diff-ins">
            {s.text}
          </ins>
        ) : (
          <Same key={i} text={s.text} first={i === 0} last={i === segs.length - 1} />
        ),
      )}
    </pre>
  );
}

function Same({ text, first, last }: { text: string; first: boolean; last: boolean }) {
  const { t } = useI18n();
  const f = foldSame(text, first, last);
  if (!f) return <span>{text}</span>;
  return (
    <span>
      {f.head ? `${f.head}\n` : null}
      <span className="diff-fold">{t("edit.folded", { n: f.hidden })}</span>
      {f.tail ? `\n${f.tail}` : "\n"}
    </span>
  );
}

/** The file changed on disk since it was opened: both versions side by side; keep mine (saved
 * over the new version) or take the disk one. */
export function TextConflict({
  disk,
  mine,
  busy,
  onKeepMine,
  onTakeDisk,
  testId = "conflict",
}: {
  disk: string | null;
  mine: string;
  busy?: boolean;
  onKeepMine: () => void;
  onTakeDisk: () => void;
  testId?: string;
}) {
  const { t } = useI18n();
  return (
    <div className="banner banner-warn text-conflict" role="alert" data-testid={testId}>
      <div className="text-conflict-body">
        <strong>{t("edit.conflict")}</strong>
        <div className="banner-sub">{t("edit.conflictHint")}</div>
        <div className="text-conflict-cols">
          <div>
            <div className="field-label">{t("edit.diskVersion")}</div>
            <pre className="part-text" data-testid={`${testId}-disk`}>
              {disk ?? t("common.loading")}
            </pre>
          </div>
          <div>
            <div className="field-label">{t("edit.yourVersion")}</div>
            <pre className="part-text" data-testid={`${testId}-mine`}>
              {mine}
            </pre>
          </div>
        </div>
        <div className="text-conflict-actions">
          <button type="button" className="btn btn-primary btn-small" disabled={busy || disk === null} onClick={onKeepMine} data-testid={`${testId}-keep`}>
            {t("edit.keepMine")}
          </button>
          <button type="button" className="btn btn-small" disabled={busy || disk === null} onClick={onTakeDisk} data-testid={`${testId}-take`}>
            {t("edit.takeDisk")}
          </button>
        </div>
      </div>
    </div>
  );
}
