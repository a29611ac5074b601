// An agent's recall checks: questions kept with the entries that must answer them, run by the
// backend with the runtime's engine whenever what the answer depends on has changed (listing runs
// the due ones; a memory change event refreshes the list, so a check an edit broke shows at once).
// A broken check names the change made since it last passed, with its undo one click away.
import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";

import type { RecallCheckDto, RecallChecksDto } from "../../backend/types";
import { ErrorState, Skeleton } from "../../components/States";
import { useI18n } from "../../i18n";
import { opKey, useOp, useOpMutation } from "../../queries/ops";
import { href } from "../../router";
import { opLabel } from "../memory/HistoryPanel";
import { RecallProposal } from "./RecallProposal";

/** The list's query key (the same for the panel and for what add/remove answer). */
export function checksKey(agent: string | null) {
  return opKey("recall_checks", { agent, force: false });
}

export function RecallChecks({ agent }: { agent: string | null }) {
  const { t, num } = useI18n();
  const qc = useQueryClient();
  const list = useOp("recall_checks", { agent, force: false }, { retry: false });
  const run = useOpMutation("recall_checks", { onSuccess: (d) => qc.setQueryData(checksKey(agent), d) });
  const data = list.data;
  const [proposing, setProposing] = useState(false);
  return (
    <section className="card recall-checks" data-testid="recall-checks" aria-busy={list.isFetching || run.isPending}>
      <div className="recall-col-head">
        <h2>{t("checks.title")}</h2>
        {data && data.checks.length > 0 ? (
          <span className="muted small" data-testid="recall-checks-counts">
            {t("checks.counts", { passed: num(data.passed), failed: num(data.failed) })}
          </span>
        ) : null}
        <span className="spacer" />
        <button
          type="button"
          className="btn"
          disabled={!data || data.checks.length === 0}
          aria-expanded={proposing}
          data-testid="recall-checks-propose"
          onClick={() => setProposing((v) => !v)}
        >
          {t("checks.propose")}
        </button>
        <button
          type="button"
          className="btn"
          disabled={!data || data.checks.length === 0 || run.isPending}
          data-testid="recall-checks-run"
          onClick={() => run.mutate({ agent, force: true })}
        >
          {run.isPending ? t("checks.running") : t("checks.runAll")}
        </button>
      </div>
      <div className="recall-col-hint">{t("checks.hint")}</div>
      {proposing ? <RecallProposal agent={agent} onClose={() => setProposing(false)} /> : null}
      {list.isError ? (
        <ErrorState error={list.error} onRetry={() => void list.refetch()} compact />
      ) : run.isError ? (
        <ErrorState error={run.error} onRetry={() => run.mutate({ agent, force: true })} compact />
      ) : !data ? (
        <Skeleton rows={2} />
      ) : data.checks.length === 0 ? (
        <div className="recall-idle" data-testid="recall-checks-empty">
          {t("checks.empty")}
        </div>
      ) : (
        <ul className="recall-check-list">
          {data.checks.map((c) => (
            <Check key={c.id} c={c} agent={agent} onList={(d) => qc.setQueryData(checksKey(agent), d)} />
          ))}
        </ul>
      )}
    </section>
  );
}

function state(c: RecallCheckDto): "pass" | "fail" | "broken" | "never" {
  if (c.passed === null) return "never";
  if (c.passed) return "pass";
  return c.broken ? "broken" : "fail";
}

function Check({ c, agent, onList }: { c: RecallCheckDto; agent: string | null; onList: (d: RecallChecksDto) => void }) {
  const { t, num } = useI18n();
  const qc = useQueryClient();
  const remove = useOpMutation("remove_recall_check", { onSuccess: onList });
  const undo = useOpMutation("undo_change", {
    // The undo is a memory change: the list runs the check again with the entry back.
    onSuccess: () => void qc.invalidateQueries({ queryKey: checksKey(agent) }),
  });
  const [error, setError] = useState<string | null>(null);
  const s = state(c);
  const change = c.changes[0];
  const gone = new Set(c.gone);
  return (
    <li className={`recall-check recall-check-${s}`} data-testid="recall-check" data-state={s}>
      <div className="recall-check-head">
        <span className={s === "pass" ? "tag tag-ok" : s === "never" ? "tag" : "tag tag-warn"} data-testid="recall-check-state">
          {t(`checks.state.${s}`)}
        </span>
        <a className="recall-check-q" href={href({ page: "recall", agent: agent ?? undefined, q: c.question })}>
          {c.question}
        </a>
        <span className="spacer" />
        <span className="muted small">{c.ran ? t("checks.ran", { at: c.ran }) : null}</span>
        <button
          type="button"
          className="btn btn-ghost btn-small"
          aria-label={t("checks.remove", { q: c.question })}
          title={t("checks.remove", { q: c.question })}
          disabled={remove.isPending}
          data-testid="recall-check-remove"
          onClick={() => remove.mutate({ agent, id: c.id }, { onError: (e) => setError(e.message) })}
        >
          ×
        </button>
      </div>
      <div className="muted small">{t("checks.expects", { n: num(c.expected.length) })}</div>
      {c.missing.length > 0 ? (
        <div className="small" data-testid="recall-check-missing">
          {t("checks.missing")}{" "}
          {c.missing.map((m) => (
            <code key={m} className="recall-check-id">
              {m}
              {gone.has(m) ? ` (${t("checks.gone")})` : ""}
            </code>
          ))}
        </div>
      ) : null}
      {s === "broken" ? (
        <div className="banner banner-warn recall-check-cause" role="status" data-testid="recall-check-broken">
          {change ? (
            <>
              <span>{t("checks.brokenBy", { op: t(opLabel(change.op)).toLowerCase(), at: change.at })}</span>
              {change.undoable ? (
                <button
                  type="button"
                  className="btn btn-small"
                  disabled={undo.isPending}
                  data-testid="recall-check-undo"
                  onClick={() => undo.mutate({ agent, change_id: change.id }, { onError: (e) => setError(e.message) })}
                >
                  {t("checks.undo")}
                </button>
              ) : null}
            </>
          ) : (
            <span>{t("checks.brokenOutside")}</span>
          )}
        </div>
      ) : null}
      {error ? (
        <div className="field-error" role="alert">
          {error}
        </div>
      ) : null}
    </li>
  );
}

/** The agent's checks that passed before and fail now, for Memory health: each with the change
 * that broke it and its undo. Nothing when none broke. */
export function BrokenChecks({ agent }: { agent: string | null }) {
  const { t, num } = useI18n();
  const qc = useQueryClient();
  const list = useOp("recall_checks", { agent, force: false }, { retry: false });
  const broken = list.data?.checks.filter((c) => c.broken) ?? [];
  if (broken.length === 0) return null;
  return (
    <section className="health-broken-checks" data-testid="health-broken-checks">
      <h3 className="small">
        {t("checks.brokenTitle", { n: num(broken.length) })} ·{" "}
        <a href={href({ page: "recall", agent: agent ?? undefined })}>{t("checks.title")}</a>
      </h3>
      <ul className="recall-check-list">
        {broken.map((c) => (
          <Check key={c.id} c={c} agent={agent} onList={(d) => qc.setQueryData(checksKey(agent), d)} />
        ))}
      </ul>
    </section>
  );
}
