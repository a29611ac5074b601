// The runtime's recall weights and top-k proposed from an agent's recall checks (the backend
// ranks every check under a grid of settings): the settings now and proposed, the checks each
// answers, and Save — one change of the runtime's configuration that Undo takes back.
import { useState } from "react";

import type { ProposalCheckDto, RecallProposalDto, RecallSettingsDto } from "../../backend/types";
import { ErrorState, Skeleton } from "../../components/States";
import { useI18n } from "../../i18n";
import { useOp, useOpMutation } from "../../queries/ops";
import { changedRuntimeValues, RECALL_SETTING_FIELDS } from "./recallSettings";

export function RecallProposal({ agent, onClose }: { agent: string | null; onClose: () => void }) {
  const { t, num } = useI18n();
  const proposal = useOp("propose_recall_settings", { agent }, { retry: false });
  const [saved, setSaved] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const save = useOpMutation("set_runtime_values", {
    onSuccess: (changes) => setSaved(changes.map((c) => c.message).join("; ")),
    onError: (e) => setError(e.message),
  });
  const undo = useOpMutation("undo_runtime_value", {
    onSuccess: () => setSaved(null),
    onError: (e) => setError(e.message),
  });
  const p = proposal.data;
  return (
    <section className="recall-proposal" data-testid="recall-proposal" aria-busy={proposal.isFetching} aria-labelledby="recall-proposal-title">
      <div className="recall-col-head">
        <h3 id="recall-proposal-title">{t("checks.propose.title")}</h3>
        <span className="spacer" />
        <button type="button" className="btn btn-ghost btn-small" onClick={onClose} aria-label={t("checks.propose.close")} data-testid="recall-proposal-close">
          ×
        </button>
      </div>
      {proposal.isError ? (
        <ErrorState error={proposal.error} onRetry={() => void proposal.refetch()} compact />
      ) : !p ? (
        <Skeleton rows={3} />
      ) : (
        <>
          <p className="small" role="status" data-testid="recall-proposal-verdict" data-verdict={p.verdict}>
            {t(`checks.propose.verdict.${p.verdict}`, {
              now: num(p.passed_now),
              then: num(p.passed_proposed),
              n: num(p.checks.length),
              tried: num(p.tried),
            })}
          </p>
          {p.settings_problem ? <p className="field-hint">{p.settings_problem}</p> : null}
          {p.degraded ? <p className="field-hint">{t("checks.propose.degraded", { why: p.degraded })}</p> : null}
          {p.checks.length > 0 ? <Settings p={p} /> : null}
          {p.checks.length > 0 ? <Checks rows={p.checks} proposed={p.proposed !== null} /> : null}
          {p.proposed ? (
            <div className="recall-proposal-actions">
              <button
                type="button"
                className="btn btn-primary"
                disabled={save.isPending || saved !== null}
                data-testid="recall-proposal-save"
                onClick={() => {
                  setError(null);
                  save.mutate({ values: changedRuntimeValues(p.proposed as RecallSettingsDto, p.current) });
                }}
              >
                {t("checks.propose.save")}
              </button>
              <span className="muted small">{t("checks.propose.saveHint")}</span>
            </div>
          ) : null}
          {saved ? (
            <div className="banner banner-ok" role="status" data-testid="recall-proposal-saved">
              <span>{saved}</span>
              <button type="button" className="btn btn-small" disabled={undo.isPending} data-testid="recall-proposal-undo" onClick={() => undo.mutate({})}>
                {t("checks.undo")}
              </button>
            </div>
          ) : null}
          {error ? (
            <div className="field-error" role="alert">
              {error}
            </div>
          ) : null}
        </>
      )}
    </section>
  );
}

function Settings({ p }: { p: RecallProposalDto }) {
  const { t } = useI18n();
  return (
    <table className="table table-compact recall-proposal-settings" data-testid="recall-proposal-settings">
      <thead>
        <tr>
          <th scope="col">{t("checks.propose.setting")}</th>
          <th scope="col" className="num">
            {t("checks.propose.now")}
          </th>
          {p.proposed ? (
            <th scope="col" className="num">
              {t("checks.propose.proposed")}
            </th>
          ) : null}
        </tr>
      </thead>
      <tbody>
        {RECALL_SETTING_FIELDS.map((k) => {
          const changed = p.proposed !== null && p.proposed[k] !== p.current[k];
          return (
            <tr key={k} className={changed ? "recall-proposal-changed" : undefined} data-testid={`recall-proposal-${k}`}>
              <th scope="row">{t(`recall.agent.field.${k}`)}</th>
              <td className="num">{p.current[k]}</td>
              {p.proposed ? <td className="num">{changed ? <strong>{p.proposed[k]}</strong> : p.proposed[k]}</td> : null}
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

function Checks({ rows, proposed }: { rows: ProposalCheckDto[]; proposed: boolean }) {
  const { t, num } = useI18n();
  const outcome = (passes: boolean, needed: number | null) => (
    <>
      <span className={passes ? "tag tag-ok" : "tag tag-warn"}>{t(passes ? "checks.state.pass" : "checks.state.fail")}</span>{" "}
      <span className="muted small">{needed === null ? t("checks.propose.unreachable") : t("checks.propose.needs", { k: num(needed) })}</span>
    </>
  );
  return (
    <table className="table table-compact" data-testid="recall-proposal-checks">
      <thead>
        <tr>
          <th scope="col">{t("checks.propose.question")}</th>
          <th scope="col">{t("checks.propose.now")}</th>
          {proposed ? <th scope="col">{t("checks.propose.proposed")}</th> : null}
        </tr>
      </thead>
      <tbody>
        {rows.map((c) => (
          <tr key={c.id} data-testid="recall-proposal-check" data-flip={c.passes_now !== c.passes_proposed ? "yes" : "no"}>
            <td>{c.question}</td>
            <td>{outcome(c.passes_now, c.needed_now)}</td>
            {proposed ? <td>{outcome(c.passes_proposed, c.needed_proposed)}</td> : null}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
