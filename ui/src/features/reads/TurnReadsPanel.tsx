// A session's "what the agent read" panel: per turn, the entries its prompts' memory blocks held
// (core, then the archival window of that moment) and what its recall_memory calls returned,
// each linking to the entry in its memory.
import { useState } from "react";

import type { ReadEntryDto, TurnReadsDto } from "../../backend/types";
import { Empty, Loadable } from "../../components/States";
import { useI18n } from "../../i18n";
import { href } from "../../router";
import { useSessionReads } from "./hooks";
import "./reads.css";

function entryLink(agent: string | null, id: string) {
  return agent ? href({ page: "agent", name: agent, tab: "memory", entry: id }) : href({ page: "global", entry: id });
}

function EntryItem({ e, agent }: { e: ReadEntryDto; agent: string | null }) {
  const { t } = useI18n();
  return (
    <li className="read-entry" data-testid="read-entry" data-entry-id={e.id}>
      <span className={`tag tag-${e.scope}`}>{e.scope === "core" ? t("memory.core") : t("memory.archival")}</span>{" "}
      {e.existsNow ? (
        <a href={entryLink(agent, e.id)}>{e.content}</a>
      ) : (
        <span>
          {e.content} <span className="muted small">({t("reads.gone")})</span>
        </span>
      )}
      {e.partial ? <span className="muted small"> · {t("reads.partial")}</span> : null}
    </li>
  );
}

function Turn({ turn, agent }: { turn: TurnReadsDto; agent: string | null }) {
  const { t, num } = useI18n();
  const [open, setOpen] = useState(false);
  const id = `reads-turn-${turn.turn}`;
  const recalled = turn.recalls.reduce((n, r) => n + r.entries.length, 0);
  return (
    <li className="reads-turn" data-testid="reads-turn">
      <button type="button" className="link-btn reads-turn-head" aria-expanded={open} aria-controls={id} onClick={() => setOpen(!open)}>
        {t("reads.turn", { n: num(turn.turn) })} · <span className="mono">{turn.at ?? t("common.none")}</span>
        {turn.estimated ? <span className="muted small"> ({t("reads.estimatedTime")})</span> : null} ·{" "}
        {t("reads.turnSummary", { prompts: num(turn.prompts), window: num(turn.window.length), recalled: num(recalled) })}
      </button>
      {turn.user ? <div className="muted small reads-user">“{turn.user}”</div> : null}
      <div id={id} hidden={!open}>
        <h4>{t("reads.inPrompt")}</h4>
        {turn.window.length === 0 ? <p className="muted small">{t("reads.nothing")}</p> : <ul className="read-list">{turn.window.map((e) => <EntryItem key={e.id} e={e} agent={agent} />)}</ul>}
        <h4>{t("reads.recalled")}</h4>
        {turn.recalls.length === 0 ? (
          <p className="muted small">{t("reads.noRecalls")}</p>
        ) : (
          turn.recalls.map((r) => (
            <div key={r.invocationId} className="reads-recall" data-testid="reads-recall">
              <div className="small">
                <code>recall_memory</code> {r.keyword ? <q>{r.keyword}</q> : null} <span className="mono muted">{r.at}</span>
              </div>
              {r.entries.length === 0 && r.unmatched.length === 0 ? <p className="muted small">{t("reads.nothing")}</p> : null}
              <ul className="read-list">
                {r.entries.map((e) => (
                  <EntryItem key={e.id} e={e} agent={agent} />
                ))}
                {r.unmatched.map((l, i) => (
                  <li key={`u${i}`} className="muted small">
                    {l} ({t("reads.unmatched")})
                  </li>
                ))}
              </ul>
            </div>
          ))
        )}
      </div>
    </li>
  );
}

export function TurnReadsPanel({ sessionId, agent }: { sessionId: string; agent: string | null }) {
  const { t } = useI18n();
  const [open, setOpen] = useState(false);
  const q = useSessionReads(sessionId, open);
  return (
    <section className="section reads-panel" data-testid="reads-panel">
      <div className="section-head">
        <h2>{t("reads.panelTitle")}</h2>
        <span className="section-hint">{t("reads.panelHint")}</span>
        <span className="memory-bar-spacer" />
        <button type="button" className="btn btn-small" aria-expanded={open} aria-controls="reads-panel-body" onClick={() => setOpen(!open)} data-testid="reads-panel-toggle">
          {open ? t("reads.hide") : t("reads.show")}
        </button>
      </div>
      <div id="reads-panel-body" hidden={!open}>
        {open ? (
          <Loadable query={q} rows={3}>
            {(d) =>
              d.turns.length === 0 ? (
                <Empty>{t("reads.noTurns")}</Empty>
              ) : (
                <ol className="reads-turns">
                  {d.turns.map((turn) => (
                    <Turn key={turn.turn} turn={turn} agent={agent} />
                  ))}
                </ol>
              )
            }
          </Loadable>
        ) : null}
      </div>
    </section>
  );
}
