// The owner's history of changes made in the console, newest first: each change's diff, Undo on
// changes that stand, Restore on entries a change that stands removed or rewrote (an undone
// change's entries are back already).
import { useState } from "react";

import type { SnapDto } from "../../backend/types";
import { Dialog } from "../../components/Dialog";
import { Icon } from "../../components/Icon";
import { Empty, ErrorState, Skeleton } from "../../components/States";
import { useI18n, type MessageKey } from "../../i18n";
import { ForgetReceipts } from "../forget/ForgetReceipts";
import { HISTORY_PAGE, useHistory, type Curate } from "./curation";
import { diffWords } from "./diff";

// By the op's name: "append" (entries added meanwhile by the runtime or an append, shown
// between the changes) is no change of the console's and has nothing to undo or restore.
const OPS: Record<string, MessageKey> = {
  edit: "history.op.edit",
  delete: "history.op.delete",
  move: "history.op.move",
  restore: "history.op.restore",
  undo: "history.op.undo",
  redo: "history.op.redo",
  summarize: "history.op.summarize",
  // A summary the console's automatic mode appended (no one clicked).
  autosummary: "history.op.autoSummary",
  append: "history.op.append",
};
export const opLabel = (op: string): MessageKey => OPS[op] ?? "history.op.edit";
/** Changes the console made (and can take back). */
const CONSOLE_OPS = ["edit", "delete", "move", "restore", "undo", "redo", "summarize", "autosummary"];

function Words({ before, after }: { before: string; after: string }) {
  return (
    <>
      {diffWords(before, after).map((s, i) =>
        s.kind === "del" ? (
          <del key={i} className="diff-del">
            {s.text}
          </del>
        ) : s.kind === "ins" ? (
          <ins key={i} className="diff-ins">
            {s.text}
          </ins>
        ) : (
          <span key={i}>{s.text}</span>
        ),
      )}
    </>
  );
}

function Scope({ s }: { s: SnapDto }) {
  const { t } = useI18n();
  return <span className={s.scope === "core" ? "tag tag-accent-soft" : "tag"}>{s.scope === "core" ? t("memory.scope.core") : t("memory.scope.archival")}</span>;
}

/** One entry of a change: removed (struck, red), added (green), or the words that changed. */
function EntryDiff({ before, after }: { before: SnapDto | null; after: SnapDto | null }) {
  const { t } = useI18n();
  const moved = before && after && before.scope !== after.scope;
  const restamped = before && after && before.timestamp !== after.timestamp;
  const time = (after ?? before)!.timestamp;
  return (
    <div className="hist-entry" data-testid="history-entry" data-kind={before && after ? "changed" : before ? "removed" : "added"}>
      <div className="hist-entry-meta">
        {before ? <Scope s={before} /> : null}
        {moved ? (
          <>
            <Icon name="chevron" size={12} /> <Scope s={after} />
          </>
        ) : null}
        {!before && after ? <Scope s={after} /> : null}
        {restamped ? (
          <span className="mono">
            <del className="diff-del">{before.timestamp ?? t("memory.noTime")}</del> <ins className="diff-ins">{after.timestamp ?? t("memory.noTime")}</ins>
          </span>
        ) : (
          <span className="mono muted">{time ?? t("memory.noTime")}</span>
        )}
      </div>
      <div className="hist-entry-text">
        {before && after ? (
          <Words before={before.content} after={after.content} />
        ) : before ? (
          <del className="diff-del">{before.content}</del>
        ) : (
          <ins className="diff-ins">{after!.content}</ins>
        )}
      </div>
    </div>
  );
}

/** The History side panel of one owner; Escape or Close closes it. */
export function HistoryPanel({ agent, curate, onClose }: { agent: string | null; curate: Curate; onClose: () => void }) {
  const { t, num } = useI18n();
  const [limit, setLimit] = useState(HISTORY_PAGE);
  const q = useHistory(agent, limit, true);
  const h = q.data;
  const owner = agent ?? t("history.global");
  // The change an undo or redo took back, to name it ("takes back Deleted, 10:04").
  const byId = new Map(h?.changes.map((c) => [c.id, c]) ?? []);
  return (
    <Dialog
      title={t("history.title", { owner })}
      onEscape={onClose}
      testId="history-panel"
      variant="drawer"
      close={{ label: t("history.close"), onClick: onClose }}
    >
      <div className="hist-toolbar">
        <button type="button" className="btn btn-small" disabled={!h?.can_undo || curate.pending} onClick={() => void curate.undo()} data-testid="history-undo-last">
          <Icon name="undo" size={14} /> {t("history.undoLast")}
        </button>
        <button type="button" className="btn btn-small" disabled={!h?.can_redo || curate.pending} onClick={() => void curate.redo()} data-testid="history-redo">
          <Icon name="redo" size={14} /> {t("history.redo")}
        </button>
        <span className="field-hint">{t("history.shortcuts")}</span>
      </div>
      <ForgetReceipts />
      {q.isError && !h ? (
        <ErrorState error={q.error} onRetry={() => void q.refetch()} compact />
      ) : !h ? (
        <Skeleton rows={6} />
      ) : h.changes.length === 0 ? (
        <Empty>{t("history.empty")}</Empty>
      ) : (
        <ol className="hist-list" data-testid="history-list">
          {h.changes.map((c) => {
            const reverted = c.reverts ? byId.get(c.reverts) : undefined;
            // A forgotten change keeps no text and cannot be taken back: no undo, no restore.
            const forgotten = c.forgotten !== null && c.forgotten !== undefined;
            const ours = CONSOLE_OPS.includes(c.op) && !forgotten;
            const canUndo = ours && !c.undone && c.op !== "undo";
            return (
              <li key={c.id} className={c.undone ? "hist-change undone" : "hist-change"} data-testid="history-change" data-op={c.op} data-undone={c.undone ? "true" : "false"} data-forgotten={forgotten ? "true" : "false"}>
                <div className="hist-head">
                  <span className={`hist-op hist-op-${c.op}`}>{t(opLabel(c.op))}</span>
                  {forgotten ? null : <span className="hist-count">{t("history.entries", { n: num(c.entries.length) })}</span>}
                  <time className="mono muted">{c.at}</time>
                  {c.undone ? <span className="tag tag-muted" data-testid="history-undone">{t("history.undone")}</span> : null}
                  {forgotten ? (
                    <span className="tag tag-err" data-testid="history-forgotten">
                      {t("history.forgotten", { at: c.forgotten! })}
                    </span>
                  ) : null}
                  <span className="hist-spacer" />
                  {canUndo ? (
                    <button type="button" className="btn btn-small" disabled={curate.pending} onClick={() => void curate.undo(c.id)} data-testid="history-undo">
                      <Icon name="undo" size={14} /> {t("history.undo")}
                    </button>
                  ) : null}
                </div>
                {reverted ? <div className="hist-reverts">{t(c.op === "restore" ? "history.restoredFrom" : "history.reverts", { op: t(opLabel(reverted.op)).toLowerCase(), at: reverted.at })}</div> : null}
                {forgotten ? <div className="hist-forgotten-note">{t("history.forgottenNote")}</div> : null}
                <div className="hist-entries">
                  {(forgotten ? [] : c.entries).map((d, i) => (
                    <div key={i} className="hist-entry-row">
                      <EntryDiff before={d.before} after={d.after} />
                      {d.before && ours && !c.undone && c.op !== "undo" && !(d.after && d.after.content === d.before.content && d.after.timestamp === d.before.timestamp) ? (
                        <button
                          type="button"
                          className="btn btn-small"
                          disabled={curate.pending}
                          onClick={() => void curate.restore(c.id, d.before!.id)}
                          title={d.after ? t("history.restoreVersionHint") : t("history.restoreHint")}
                          data-testid="history-restore"
                        >
                          {t("history.restore")}
                        </button>
                      ) : null}
                    </div>
                  ))}
                </div>
              </li>
            );
          })}
        </ol>
      )}
      {h && h.total > h.changes.length ? (
        <button type="button" className="btn btn-small hist-more" onClick={() => setLimit((l) => l + HISTORY_PAGE)} data-testid="history-more">
          {t("history.more", { n: num(h.changes.length), total: num(h.total) })}
        </button>
      ) : null}
    </Dialog>
  );
}
