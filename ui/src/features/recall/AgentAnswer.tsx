// What the agent's recall_memory returns, as its runtime answers it, and why: each result's place in
// the semantic, keyword and recency routes with what each added to its fused score, and the entries
// just below the cut. Other weights and top-k can be tried on the query before they are saved into
// the runtime's configuration (one undoable change per value).
import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";

import type { AgentRecallDto, AgentRecalledDto, RecallSettingsDto } from "../../backend/types";
import { ErrorState, Skeleton } from "../../components/States";
import { Icon } from "../../components/Icon";
import { useI18n } from "../../i18n";
import { useOp, useOpMutation } from "../../queries/ops";
import { href, type Route } from "../../router";
import { checksKey } from "./RecallChecks";
import { changedRuntimeValues } from "./recallSettings";

function ownerRoute(owner: string | null): Route {
  return owner ? { page: "agent", name: owner, tab: "memory" } : { page: "global" };
}

export function AgentAnswer({ agent, q }: { agent: string | null; q: string }) {
  const { t } = useI18n();
  const [trial, setTrial] = useState<RecallSettingsDto | null>(null);
  const answer = useOp("agent_recall", { agent, keyword: q, trial }, { enabled: q.trim() !== "", retry: false });
  const data = answer.data;
  // A bare root has no runtime: its columns below say what the console's tool path uses.
  if (data?.bare_root) return null;
  return (
    <section className="card agent-answer" data-testid="agent-answer" aria-busy={answer.isFetching}>
      <div className="recall-col-head">
        <h2>{t("recall.agent.title")}</h2>
        {data ? <EngineTag data={data} /> : null}
        <span className="spacer" />
        {data?.trial ? (
          <span className="tag tag-warn" data-testid="agent-answer-trial">
            {t("recall.agent.trialTag")}
          </span>
        ) : null}
      </div>
      <div className="recall-col-hint">{t("recall.agent.hint")}</div>
      {!q ? (
        <div className="recall-idle">{t("recall.idle")}</div>
      ) : answer.isError ? (
        <ErrorState error={answer.error} onRetry={() => void answer.refetch()} compact />
      ) : !data ? (
        <Skeleton rows={4} />
      ) : (
        <>
          {data.degraded ? (
            <div className="banner banner-warn" role="status" data-testid="agent-answer-degraded">
              <Icon name="warning" size={14} /> {t("recall.agent.degraded", { why: data.degraded })}
            </div>
          ) : null}
          {data.settings_problem ? (
            <div className="banner banner-warn" role="status">
              <Icon name="warning" size={14} /> {t("recall.agent.settingsProblem", { why: data.settings_problem })}
            </div>
          ) : null}
          <Explanation data={data} />
          <details className="agent-answer-text">
            <summary>{t("recall.toolAnswer")}</summary>
            <pre data-testid="agent-answer-text">{data.text}</pre>
          </details>
          {data.engine === "fusion" ? <TrySettings data={data} onTry={setTrial} /> : null}
        </>
      )}
    </section>
  );
}

function EngineTag({ data }: { data: AgentRecallDto }) {
  const { t } = useI18n();
  const e = data.embedding;
  const title =
    data.engine === "fusion"
      ? t("recall.agent.fusionHint", { model: e.model ?? e.provider, rows: data.usable_rows, all: data.vector_rows })
      : data.engine === "delegated"
        ? t("recall.agent.delegatedHint")
        : e.state === "off"
          ? t("recall.agent.keywordHint")
          : "";
  return (
    <span className="tag tag-accent-soft" title={title} data-testid="agent-answer-engine" data-engine={data.engine}>
      {t(`recall.agent.engine.${data.engine}`)}
    </span>
  );
}

function Explanation({ data }: { data: AgentRecallDto }) {
  const { t } = useI18n();
  const [picked, setPicked] = useState<string[]>([]);
  useEffect(() => setPicked([]), [data.keyword, data.agent]);
  const toggle = (id: string) => setPicked((p) => (p.includes(id) ? p.filter((x) => x !== id) : [...p, id]));
  if (data.results.length === 0) {
    return (
      <div className="recall-empty" data-testid="agent-answer-empty">
        <span className="field-label">{t("recall.toolAnswer")}</span>
        <code>{data.text}</code>
      </div>
    );
  }
  const fusion = data.engine === "fusion";
  return (
    <div className="table-wrap">
      <table className="table agent-answer-table" data-testid="agent-answer-table">
        <thead>
          <tr>
            <th scope="col">
              <span className="sr-only">{t("checks.pick")}</span>
            </th>
            <th scope="col">#</th>
            <th scope="col">{t("recall.agent.col.entry")}</th>
            {fusion ? (
              <>
                <th scope="col" className="num">{t("recall.agent.col.score")}</th>
                <th scope="col" className="num">{t("recall.agent.col.semantic")}</th>
                <th scope="col" className="num">{t("recall.agent.col.keyword")}</th>
                <th scope="col" className="num">{t("recall.agent.col.recency")}</th>
              </>
            ) : null}
          </tr>
        </thead>
        <tbody>
          {data.results.map((r, i) => (
            <Row key={`r${i}`} r={r} i={i} owner={data.agent} fusion={fusion} picked={picked} onPick={toggle} />
          ))}
          {data.near_misses.length > 0 ? (
            <tr className="near-miss-head">
              <th colSpan={fusion ? 7 : 3} scope="rowgroup">
                {t("recall.agent.nearMisses", { k: data.settings.topK })}
              </th>
            </tr>
          ) : null}
          {data.near_misses.map((r, i) => (
            <Row key={`n${i}`} r={r} i={data.results.length + i} owner={data.agent} fusion={fusion} missed picked={picked} onPick={toggle} />
          ))}
        </tbody>
      </table>
      <KeepAsCheck data={data} picked={picked} onKept={() => setPicked([])} />
    </div>
  );
}

/** Keeps the query as a recall check expecting the ticked entries (run at once by the backend). */
function KeepAsCheck({ data, picked, onKept }: { data: AgentRecallDto; picked: string[]; onKept: () => void }) {
  const { t } = useI18n();
  const qc = useQueryClient();
  const [said, setSaid] = useState<string | null>(null);
  const add = useOpMutation("add_recall_check", {
    onSuccess: (d) => {
      qc.setQueryData(checksKey(data.agent), d);
      const kept = d.checks[d.checks.length - 1];
      setSaid(kept?.passed ? t("checks.keptPasses") : t("checks.keptFails"));
      onKept();
    },
    onError: (e) => setSaid(e.message),
  });
  return (
    <div className="agent-keep" data-testid="agent-keep">
      <button
        type="button"
        className="btn"
        disabled={picked.length === 0 || add.isPending}
        data-testid="agent-keep-check"
        onClick={() => {
          setSaid(null);
          add.mutate({ agent: data.agent, question: data.keyword, expect: picked });
        }}
      >
        {t("checks.keep", { n: picked.length })}
      </button>
      <span className="muted small" role="status" data-testid="agent-keep-said">
        {said ?? (picked.length === 0 ? t("checks.keepHint") : null)}
      </span>
    </div>
  );
}

function Row({
  r,
  i,
  owner,
  fusion,
  missed,
  picked,
  onPick,
}: {
  r: AgentRecalledDto;
  i: number;
  owner: string | null;
  fusion: boolean;
  missed?: boolean;
  picked: string[];
  onPick: (id: string) => void;
}) {
  const { t, num } = useI18n();
  const c = r.routes.contributions;
  const share = (k: number) => (c[k] ? `+${c[k]!.toFixed(4)}` : "");
  const id = r.id;
  return (
    <tr className={missed ? "near-miss" : undefined} data-testid={missed ? "agent-answer-miss" : "agent-answer-row"}>
      <td>
        {id ? (
          <input
            type="checkbox"
            checked={picked.includes(id)}
            aria-label={t("checks.pickEntry", { n: i + 1 })}
            data-testid="agent-answer-pick"
            onChange={() => onPick(id)}
          />
        ) : null}
      </td>
      <td className="num muted">{num(i + 1)}</td>
      <td>
        <a href={href(ownerRoute(owner))} className="hit-content" title={t("recall.open", { owner: owner ?? t("recall.global") })}>
          {r.content}
        </a>
      </td>
      {fusion ? (
        <>
          <td className="num mono">{r.score?.toFixed(5) ?? "—"}</td>
          <td className="num" title={share(0)}>
            {r.routes.semantic ? t("recall.agent.semanticPlace", { rank: r.routes.semantic.rank, score: r.routes.semantic.score?.toFixed(3) ?? "—" }) : "—"}
          </td>
          <td className="num" title={share(1)}>
            {r.routes.keyword
              ? r.routes.keyword.hits > 1
                ? t("recall.agent.keywordTwice", { rank: r.routes.keyword.rank, hits: r.routes.keyword.hits })
                : `#${r.routes.keyword.rank}`
              : "—"}
          </td>
          <td className="num" title={share(2)}>
            {r.routes.recency ? `#${r.routes.recency.rank}` : "—"}
          </td>
        </>
      ) : null}
    </tr>
  );
}

/** Weights and top-k to try on this query; Save writes them into the runtime's configuration. */
function TrySettings({ data, onTry }: { data: AgentRecallDto; onTry: (s: RecallSettingsDto | null) => void }) {
  const { t } = useI18n();
  const [draft, setDraft] = useState<RecallSettingsDto>(data.settings);
  useEffect(() => setDraft(data.settings), [data.settings]);
  const set = useOpMutation("set_runtime_value");
  const [saved, setSaved] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const changed = changedRuntimeValues(draft, data.configured);
  const save = async () => {
    setError(null);
    try {
      for (const v of changed) await set.mutateAsync(v);
      setSaved(t("recall.agent.saved", { n: changed.length }));
      onTry(null);
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  };
  const field = (k: keyof RecallSettingsDto, step: string) => (
    <label className="field-inline">
      <span className="field-label">{t(`recall.agent.field.${k}`)}</span>
      <input
        type="number"
        className="input num"
        min={0}
        step={step}
        value={draft[k] ?? ""}
        data-testid={`agent-try-${k}`}
        onChange={(e) => setDraft({ ...draft, [k]: Number(e.target.value) })}
      />
    </label>
  );
  return (
    <form
      className="agent-try"
      onSubmit={(e) => {
        e.preventDefault();
        onTry(draft);
      }}
    >
      <span className="field-label">{t("recall.agent.try")}</span>
      {field("semantic", "0.1")}
      {field("keyword", "0.1")}
      {field("recency", "0.1")}
      {field("topK", "1")}
      <button type="submit" className="btn" data-testid="agent-try-run">
        {t("recall.agent.tryRun")}
      </button>
      <button type="button" className="btn btn-primary" disabled={changed.length === 0 || set.isPending} data-testid="agent-try-save" onClick={() => void save()}>
        {t("recall.agent.save")}
      </button>
      {data.trial ? (
        <button type="button" className="btn btn-ghost" onClick={() => onTry(null)} data-testid="agent-try-reset">
          {t("recall.agent.reset")}
        </button>
      ) : null}
      {saved ? (
        <span className="muted small" role="status" data-testid="agent-try-saved">
          {saved}
        </span>
      ) : null}
      {error ? (
        <span className="field-error" role="alert">
          {error}
        </span>
      ) : null}
    </form>
  );
}
