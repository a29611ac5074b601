import { useState } from "react";

import type { DeclaredToolDto, EpisodicPreviewDto, PartKindDto, PromptDto, SkippedBindingDto, ToolOfferDto } from "../../backend/types";
import { CopyButton } from "../../components/CopyButton";
import { useDebounced } from "../../components/hooks";
import { Loadable } from "../../components/States";
import { WarningList } from "../../components/Warnings";
import { useI18n, type MessageKey } from "../../i18n";
import { useOp } from "../../queries/ops";
import { EpisodicHitList } from "../recall/Episodic";
import "./prompt.css";

const PART_LABEL: Record<PartKindDto, MessageKey> = {
  system: "prompt.part.system",
  memory: "prompt.part.memory",
  history: "prompt.part.history",
  tools: "prompt.part.tools",
};

const OFFER_LABEL: Record<ToolOfferDto, MessageKey> = {
  builtin: "prompt.toolBuiltin",
  if_mcp_provides: "prompt.toolIfMcp",
  dropped: "prompt.toolDropped",
};

/** All parts as one text, in order, as the agent receives them. */
export function joinParts(p: PromptDto): string {
  return p.parts.map((x) => x.text).join("\n\n");
}

export function PromptTab({ agent }: { agent: string }) {
  const { t } = useI18n();
  const [sessionId, setSessionId] = useState<string | null>(null);
  // The message the episodic part is chosen for, as typed (empty: the session's last user message).
  const [match, setMatch] = useState("");
  const query = useDebounced(match.trim(), 400) || null;
  const sessions = useOp("list_sessions", { agent, status: null, channel: null, search: null, limit: 200, offset: 0 }, { placeholderData: (prev) => prev });
  const q = useOp("prompt_preview", { agent, session_id: sessionId, query: query || undefined }, { placeholderData: (prev) => prev });
  return (
    <div className="prompt">
      <div className="toolbar">
        <label className="field-inline">
          <span className="field-label">{t("prompt.session")}</span>
          <select value={sessionId ?? ""} onChange={(e) => setSessionId(e.target.value || null)} data-testid="prompt-session">
            <option value="">{t("prompt.noSession")}</option>
            {(sessions.data?.items ?? []).map((s) => (
              <option key={s.session_id} value={s.session_id}>
                {s.session_id} · {s.last_active_at ?? ""}
              </option>
            ))}
          </select>
        </label>
        {q.data ? <CopyButton text={q.data.system_text} label={t("prompt.copySystem")} testId="prompt-copy-system" /> : null}
        {q.data ? <CopyButton text={joinParts(q.data)} label={t("prompt.copyAll")} testId="prompt-copy-all" /> : null}
      </div>
      <Loadable query={q} rows={10}>
        {(p) => <PromptView p={p} match={match} onMatch={setMatch} />}
      </Loadable>
    </div>
  );
}

function PromptView({ p, match, onMatch }: { p: PromptDto; match: string; onMatch: (v: string) => void }) {
  const { t, num } = useI18n();
  const total = Math.max(1, p.total_chars);
  return (
    <>
      <WarningList warnings={p.warnings} testId="prompt-warnings" />
      <div className="card">
        <div className="composition-head">
          <span className="field-label">{t("prompt.composition")}</span>
          <span data-testid="prompt-total">{t("prompt.total", { chars: num(p.total_chars), tokens: num(p.total_tokens_estimate) })}</span>
          {p.session_id ? (
            <span className="muted">{t("prompt.history", { turns: t("prompt.turns", { n: p.history_turns }), messages: t("prompt.messages", { n: p.history_messages }), max: p.max_history_turns })}</span>
          ) : null}
        </div>
        <div className="stackbar" data-testid="prompt-bar" role="img" aria-label={p.parts.map((x) => `[${x.index}] ${x.chars}`).join(", ")}>
          {p.parts.map((x) =>
            x.chars > 0 ? (
              <span
                key={x.index}
                className={`seg seg-${x.kind}`}
                style={{ width: `${(x.chars / total) * 100}%` }}
                title={`[${x.index}] ${t(PART_LABEL[x.kind])}: ${num(x.chars)}`}
                data-testid={`prompt-bar-${x.index}`}
                data-chars={x.chars}
              />
            ) : null,
          )}
        </div>
        <div className="legend">
          {p.parts.map((x) => (
            <span key={x.index} className="legend-item">
              <span className={`swatch seg-${x.kind}`} />[{x.index}] {t(PART_LABEL[x.kind])} · {((x.chars / total) * 100).toFixed(1)}%
            </span>
          ))}
        </div>
        {p.bootstrap_loaded.length ? <div className="muted small">{t("prompt.bootstrapLoaded", { files: p.bootstrap_loaded.join(", ") })}</div> : null}
      </div>
      <div className="muted small" data-testid="prompt-system-note">
        {t("prompt.systemText")}
      </div>
      {p.parts.map((x) => (
        <section key={x.index} className="card part" data-testid={`prompt-part-${x.index}`}>
          <div className="part-head">
            <span className={`part-index seg-${x.kind}`}>[{x.index}]</span>
            <h3>{t(PART_LABEL[x.kind])}</h3>
            <span className="muted">{t("common.chars", { n: num(x.chars) })}</span>
            <span className="muted">{t("common.tokens", { n: num(x.tokens_estimate) })}</span>
            <span className="spacer" />
            <CopyButton text={x.text} testId={`prompt-copy-${x.index}`} />
          </div>
          {x.kind === "system" && p.skipped_bindings.length ? <SkippedBindings items={p.skipped_bindings} /> : null}
          {x.kind === "tools" && p.tools.length ? <DeclaredTools tools={p.tools} /> : null}
          {x.text ? <pre className="part-text">{x.text}</pre> : <div className="muted part-empty">{t("prompt.empty")}</div>}
        </section>
      ))}
      {p.episodic ? <EpisodicMatch ep={p.episodic} match={match} onMatch={onMatch} /> : null}
    </>
  );
}

/** Skill and knowledge bindings the runtime leaves out, with its reason. */
function SkippedBindings({ items }: { items: SkippedBindingDto[] }) {
  const { t } = useI18n();
  return (
    <ul className="prompt-notes" data-testid="prompt-skipped-bindings">
      {items.map((b) => (
        <li key={`${b.kind}/${b.name}`} className="muted small">
          {t("prompt.skippedBinding", { kind: t(b.kind === "knowledge" ? "prompt.kind.knowledge" : "prompt.kind.skill"), name: b.name, reason: b.reason })}
        </li>
      ))}
    </ul>
  );
}

/** The agent's declared tools and what the runtime does with each. */
function DeclaredTools({ tools }: { tools: DeclaredToolDto[] }) {
  const { t } = useI18n();
  return (
    <div className="prompt-notes" data-testid="prompt-declared-tools">
      <span className="field-label">{t("prompt.toolsDeclared")}</span>
      <ul>
        {tools.map((x, i) => (
          <li key={`${x.name}-${i}`} className={x.offer === "builtin" ? "muted small" : "small"} data-testid={`prompt-tool-${x.offer}`}>
            <code>{x.name}</code> — {t(OFFER_LABEL[x.offer])}
          </li>
        ))}
      </ul>
    </div>
  );
}

/** With episodic memory on, beside the prompt (the runtime never sends it): the message the
 * console's suggestion is chosen for (typed, or the session's last user message), what was chosen
 * and the past messages it found. */
function EpisodicMatch({ ep, match, onMatch }: { ep: EpisodicPreviewDto; match: string; onMatch: (v: string) => void }) {
  const { t, num } = useI18n();
  return (
    <section className="card prompt-episodic" data-testid="prompt-episodic-card">
      <div className="part-head">
        <span className="part-index seg-episodic" aria-hidden="true" />
        <h3>{t("prompt.episodicSuggestion")}</h3>
        <span className="spacer" />
        {ep.text ? <CopyButton text={ep.text} testId="prompt-copy-episodic" /> : null}
      </div>
      <div className="muted small" data-testid="prompt-episodic-not-sent">
        {t("prompt.episodicNotSent")}
      </div>
      <label htmlFor="prompt-episodic-query" className="field-label">
        {t("prompt.episodicMatch")}
      </label>
      <input
        id="prompt-episodic-query"
        type="search"
        value={match}
        placeholder={t("prompt.episodicMatchPlaceholder")}
        onChange={(e) => onMatch(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === "Escape" && match) {
            e.preventDefault();
            onMatch("");
          }
        }}
        data-testid="prompt-episodic-query"
      />
      <div className="muted small" data-testid="prompt-episodic">
        {ep.query
          ? t("prompt.episodic", { n: ep.hits.length, k: ep.top_k, query: ep.query, budget: num(ep.budget_chars) })
          : t("prompt.episodicNoQuery")}
      </div>
      {ep.query ? (
        ep.hits.length ? (
          <EpisodicHitList hits={ep.hits} query={ep.query} floor={null} />
        ) : (
          <div className="episodic-empty" data-testid="prompt-episodic-empty">
            {t("prompt.episodicNone", { query: ep.query })}
          </div>
        )
      ) : null}
      {ep.text ? <pre className="part-text">{ep.text}</pre> : null}
    </section>
  );
}
