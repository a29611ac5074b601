import { useEffect, useState } from "react";

import type { RecalledDto, RecallModeDto, RecallResult } from "../../backend/types";
import { Icon } from "../../components/Icon";
import { ErrorState, Skeleton } from "../../components/States";
import { useI18n } from "../../i18n";
import { useSettings } from "../../queries/hooks";
import { useOp } from "../../queries/ops";
import { href, replaceRoute, type RecallFilter, type Route } from "../../router";
import { AgentAnswer } from "./AgentAnswer";
import { MODES, useIndexStatus, useRecallIn } from "./hooks";
import { PastConversations } from "./Episodic";
import { IndexPanel } from "./IndexPanel";
import { RecallChecks } from "./RecallChecks";
import { RuntimeIndexPanel } from "./RuntimeIndexPanel";
import { Score } from "./Score";
import "./recall.css";

/** The recall tester: one query, the three modes side by side, then the semantic index. Owner and
 * query live in the URL; the query runs on Enter (semantic recall embeds, so not per keystroke). */
export function RecallPage({ filter }: { filter: RecallFilter }) {
  const { t } = useI18n();
  const agents = useOp("list_agents", {});
  const settings = useSettings();
  const agent = filter.agent ?? null;
  const q = filter.q ?? "";
  const [text, setText] = useState(q);
  useEffect(() => {
    // A URL change from outside (Back, a link) replaces what the box shows.
    setText(q);
  }, [q]);
  const go = (change: RecallFilter) => replaceRoute({ page: "recall", agent: filter.agent, q: filter.q, ...change });
  const configured = settings.data?.settings;
  // On an install the agents' recall is the runtime's (above); the columns are the console's own.
  const install = useOp("runtime_info", {}).data?.kind === "install";
  const known = agents.data?.agents.map((a) => a.name) ?? [];

  return (
    <div className="page page-recall">
      <div className="page-head">
        <h1>{t("recall.title")}</h1>
        <span className="page-sub">{t("recall.subtitle")}</span>
      </div>
      <form
        className="toolbar recall-form"
        onSubmit={(e) => {
          e.preventDefault();
          go({ q: text.trim() || undefined });
        }}
      >
        <label className="field-inline">
          <span className="field-label">{t("recall.owner")}</span>
          <select value={agent ?? ""} data-testid="recall-owner" onChange={(e) => go({ agent: e.target.value || undefined })}>
            <option value="">{t("recall.global")}</option>
            {agent && agents.data && !known.includes(agent) ? <option value={agent}>{agent}</option> : null}
            {known.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </label>
        <label className="search recall-search">
          <Icon name="search" />
          <input
            type="search"
            value={text}
            placeholder={t("recall.query")}
            aria-label={t("recall.query")}
            data-search
            data-testid="recall-query"
            onChange={(e) => setText(e.target.value)}
          />
        </label>
        <button type="submit" className="btn btn-primary" data-testid="recall-run" disabled={text.trim() === ""}>
          {t("recall.run")} <kbd>Enter</kbd>
        </button>
      </form>
      <AgentAnswer agent={agent} q={q} />
      {install ? <RecallChecks agent={agent} /> : null}
      {install ? (
        <div className="recall-console-head" data-testid="recall-console-head">
          <h2>{t("recall.console.title")}</h2>
          <span className="muted">{t("recall.console.hint")}</span>
        </div>
      ) : null}
      {configured && !install ? (
        <div className="recall-config" data-testid="recall-configured-mode">
          <Icon name="tool" size={14} />
          <span>
            {t("recall.configured")} <strong>{t(`recall.mode.${configured.recall_mode}`)}</strong>
          </span>
          <span className="sep">·</span>
          <span className="muted">{t("recall.floorLimit", { floor: configured.recall_floor?.toFixed(2) ?? "—", limit: configured.recall_limit })}</span>
          <span className="sep">·</span>
          <a href={href({ page: "settings" })}>{t("recall.change")}</a>
        </div>
      ) : null}
      <div className="recall-grid" data-testid="recall-columns">
        {MODES.map((mode) => (
          <RecallColumn key={mode} agent={agent} q={q} mode={mode} configured={!install && configured?.recall_mode === mode} />
        ))}
      </div>
      {agent ? <PastConversations agent={agent} q={q} /> : null}
      <RuntimeIndexPanel />
      <IndexPanel />
    </div>
  );
}

function RecallColumn({ agent, q, mode, configured }: { agent: string | null; q: string; mode: RecallModeDto; configured: boolean }) {
  const { t, num } = useI18n();
  const r = useRecallIn(agent, q, mode);
  const data = r.data;
  // The index panel's status (one shared query): says why semantic recall cannot run.
  const status = useIndexStatus();
  const modelMissing = mode !== "keyword" && status.data !== undefined && !status.data.native_search && !status.data.model.present;
  return (
    <section className={configured ? "card recall-col configured" : "card recall-col"} data-testid={`recall-col-${mode}`} data-mode={mode} aria-busy={r.isFetching}>
      <div className="recall-col-head">
        <h2>{t(`recall.mode.${mode}`)}</h2>
        {q && data ? (
          <span className="count" data-testid="recall-col-count">
            {num(data.results.length)}
          </span>
        ) : null}
        <span className="spacer" />
        {configured ? (
          <span className="tag tag-accent" title={t("recall.configuredHint")} data-testid="recall-configured">
            {t("recall.inUse")}
          </span>
        ) : null}
      </div>
      <div className="recall-col-hint">{t(`recall.mode.${mode}Hint`)}</div>
      {q && data ? <Params result={data} /> : null}
      <div className="recall-col-body">
        {!q ? (
          <div className="recall-idle">{t("recall.idle")}</div>
        ) : r.isError ? (
          <>
            <ErrorState error={r.error} onRetry={() => void r.refetch()} compact />
            {modelMissing ? (
              <div className="field-hint" data-testid="recall-model-missing">
                <Icon name="warning" size={13} /> {t("recall.modelMissing")}
              </div>
            ) : null}
          </>
        ) : !data ? (
          <>
            <Skeleton rows={3} />
            {mode !== "keyword" ? <div className="muted small">{t("recall.embedding")}</div> : null}
          </>
        ) : data.results.length === 0 ? (
          <div className="recall-empty" data-testid="recall-empty">
            <span className="field-label">{t("recall.toolAnswer")}</span>
            <code>{data.text}</code>
          </div>
        ) : (
          <ol className="hits">
            {data.results.map((hit, i) => (
              <Hit key={`${hit.scope}-${hit.line}-${i}`} hit={hit} owner={data.agent} floor={mode === "keyword" ? null : data.floor} />
            ))}
          </ol>
        )}
      </div>
    </section>
  );
}

/** The floor and the limit this answer was found with (keyword mode has neither). */
function Params({ result }: { result: RecallResult }) {
  const { t } = useI18n();
  return (
    <div className="recall-params" data-testid="recall-params">
      {result.mode === "keyword"
        ? t("recall.keywordParams")
        : t("recall.floorLimit", { floor: result.floor?.toFixed(2) ?? "—", limit: result.limit })}
    </div>
  );
}

function ownerRoute(owner: string | null): Route {
  return owner ? { page: "agent", name: owner, tab: "memory" } : { page: "global" };
}

function Hit({ hit, owner, floor }: { hit: RecalledDto; owner: string | null; floor: number | null }) {
  const { t } = useI18n();
  return (
    <li>
      <a className="hit" href={href(ownerRoute(owner))} data-testid="recall-hit" data-scope={hit.scope} title={t("recall.open", { owner: owner ?? t("recall.global") })}>
        <span className="hit-content">{hit.content}</span>
        <span className="hit-meta">
          <span className={hit.scope === "core" ? "tag tag-accent-soft" : "tag"}>{t(`recall.scope.${hit.scope}`)}</span>
          <span className="c-time">{hit.timestamp ?? t("memory.noTime")}</span>
          {hit.score !== null ? <Score score={hit.score} floor={floor} /> : null}
        </span>
      </a>
    </li>
  );
}
