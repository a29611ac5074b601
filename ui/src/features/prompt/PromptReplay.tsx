// Prompt replay (#16): the prompt as the console rebuilds it for a past moment of a session, beside
// today's prompt for the same session — characters per part, and the lines of the memory part
// that differ. The console builds both; this only lays them side by side.
import { useMemo } from "react";

import type { PartKindDto, PromptDto } from "../../backend/types";
import { Dialog } from "../../components/Dialog";
import { Icon } from "../../components/Icon";
import { ErrorState, Skeleton } from "../../components/States";
import { useI18n, type MessageKey } from "../../i18n";
import { usePromptReplay } from "../provenance/hooks";
import "../provenance/provenance.css";
import { diffLines, foldSame } from "./lineDiff";

const KINDS: readonly PartKindDto[] = ["system", "memory", "history", "tools"];
const PART_LABEL: Record<PartKindDto, MessageKey> = {
  system: "prompt.part.system",
  memory: "prompt.part.memory",
  history: "prompt.part.history",
  tools: "prompt.part.tools",
};

function chars(p: PromptDto, kind: PartKindDto): number | null {
  const parts = p.parts.filter((x) => x.kind === kind);
  return parts.length ? parts.reduce((s, x) => s + x.chars, 0) : null;
}

function text(p: PromptDto, kind: PartKindDto): string {
  return p.parts
    .filter((x) => x.kind === kind)
    .map((x) => x.text)
    .join("\n");
}

/** The moment a session's prompt is replayed as of: its last activity, else its creation. */
export function replayMoment(s: { last_active_at: string | null; created_at: string | null }): string | null {
  return s.last_active_at ?? s.created_at ?? null;
}

export function PromptReplay({ agent, sessionId, asof, index, onClose }: { agent: string; sessionId: string; asof: string | null; index: number; onClose: () => void }) {
  const { t } = useI18n();
  const { then, now } = usePromptReplay(agent, sessionId, asof, index);
  let body;
  if (asof === null) body = <p data-testid="replay-no-time">{t("replay.noTime")}</p>;
  else if (then.isError) body = <ErrorState error={then.error} onRetry={() => void then.refetch()} />;
  else if (now.isError) body = <ErrorState error={now.error} onRetry={() => void now.refetch()} />;
  else if (!then.data || !now.data) body = <Skeleton rows={6} />;
  else body = <Comparison then={then.data} now={now.data} index={index} />;
  return (
    <Dialog title={t("replay.title", { n: index + 1 })} onEscape={onClose} testId="replay" wide close={{ label: t("replay.close"), onClick: onClose }}>
      <div aria-live="polite">{body}</div>
    </Dialog>
  );
}

function Comparison({ then, now, index }: { then: PromptDto; now: PromptDto; index: number }) {
  const { t, num, lang } = useI18n();
  const rows = useMemo(() => foldSame(diffLines(text(then, "memory"), text(now, "memory"))), [then, now]);
  const added = rows.filter((r) => r.kind === "add").length;
  const removed = rows.filter((r) => r.kind === "del").length;
  const kinds = KINDS.filter((k) => chars(then, k) !== null || chars(now, k) !== null);
  const delta = (a: number, b: number) => {
    const d = b - a;
    if (d === 0) return <span className="muted">0</span>;
    return <span className={d > 0 ? "replay-delta-up" : "replay-delta-down"}>{d > 0 ? `+${num(d)}` : `−${num(-d)}`}</span>;
  };
  return (
    <>
      {then.asof_note ? (
        <div className="replay-note" role="note" data-testid="replay-note">
          <Icon name="warning" />
          <div>
            <strong>{t("replay.noteTitle")}</strong>
            {/* The console says it in English; the same words in the user's language. */}
            <span>
              {lang === "en"
                ? then.asof_note
                : then.asof_from_git.length
                  ? t("replay.noteGit", { files: then.asof_from_git.join("、") })
                  : t("replay.noteText")}
            </span>
          </div>
        </div>
      ) : null}
      <p className="replay-asof" data-testid="replay-asof">
        {t("replay.asof", { asof: then.asof ?? "", n: index + 1 })}
      </p>
      <section className="replay-section">
        <h3 id="replay-parts">{t("replay.parts")}</h3>
        <div className="table-wrap">
          <table className="table table-compact replay-table" aria-labelledby="replay-parts" data-testid="replay-parts">
            <thead>
              <tr>
                <th scope="col">{t("replay.col.part")}</th>
                <th scope="col" className="num">
                  {t("replay.col.then")}
                </th>
                <th scope="col" className="num">
                  {t("replay.col.now")}
                </th>
                <th scope="col" className="num">
                  {t("replay.col.change")}
                </th>
              </tr>
            </thead>
            <tbody>
              {kinds.map((k) => {
                const a = chars(then, k) ?? 0;
                const b = chars(now, k) ?? 0;
                return (
                  <tr key={k} data-testid="replay-part" data-kind={k}>
                    <th scope="row">
                      <span className={`swatch seg-${k}`} /> {t(PART_LABEL[k])}
                    </th>
                    <td className="num" data-testid="replay-then">
                      {num(a)}
                    </td>
                    <td className="num" data-testid="replay-now">
                      {num(b)}
                    </td>
                    <td className="num">{delta(a, b)}</td>
                  </tr>
                );
              })}
              <tr>
                <th scope="row">{t("replay.total")}</th>
                <td className="num" data-testid="replay-total-then">
                  {num(then.total_chars)}
                </td>
                <td className="num" data-testid="replay-total-now">
                  {num(now.total_chars)}
                </td>
                <td className="num">{delta(then.total_chars, now.total_chars)}</td>
              </tr>
            </tbody>
          </table>
        </div>
      </section>
      <section className="replay-section">
        <h3 id="replay-diff-title">
          {t("replay.memoryDiff")}{" "}
          {added + removed > 0 ? (
            <span className="muted small">
              {t("replay.removedCount", { n: removed })} · {t("replay.addedCount", { n: added })}
            </span>
          ) : null}
        </h3>
        {added + removed === 0 ? (
          <p className="muted" data-testid="replay-no-change">
            {t("replay.noChange")}
          </p>
        ) : (
          <ul className="replay-diff" aria-labelledby="replay-diff-title" data-testid="replay-diff">
            {rows.map((r, i) =>
              r.kind === "same" ? (
                <li key={i} className="diff-same">
                  {t("replay.same", { n: r.count })}
                </li>
              ) : (
                <li key={i} className={r.kind === "add" ? "diff-add" : "diff-del"} data-testid={r.kind === "add" ? "replay-added" : "replay-removed"}>
                  <span className="diff-sign" aria-hidden="true">
                    {r.kind === "add" ? "+" : "−"}
                  </span>
                  <span className="sr-only">{r.kind === "add" ? t("replay.added") : t("replay.removed")}: </span>
                  {r.line}
                </li>
              ),
            )}
          </ul>
        )}
      </section>
      <details className="replay-section replay-then">
        <summary>{t("replay.showThen")}</summary>
        {then.parts.map((x) => (
          <section key={x.index} className="part">
            <div className="part-head">
              <span className={`part-index seg-${x.kind}`}>[{x.index}]</span>
              <h4>{t(PART_LABEL[x.kind])}</h4>
              <span className="muted">{t("common.chars", { n: num(x.chars) })}</span>
            </div>
            {x.text ? <pre className="part-text">{x.text}</pre> : <div className="muted part-empty">{t("prompt.empty")}</div>}
          </section>
        ))}
      </details>
    </>
  );
}
