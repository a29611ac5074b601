// The summary proposal: the entries outside the prompt window that no summary covers yet, folded
// into one archival entry, editable before it is appended (optionally removing the originals in
// the same change). The rules' proposal comes at once; the LLM's is asked on demand (it takes
// seconds, can be cancelled here and can fail, saying why). What the summary says, what it
// covers and every count come from the console.
import { useEffect, useId, useRef, useState } from "react";

import { BackendError, useBackend } from "../../backend";
import type { ErrorCode, SummaryProposalDto } from "../../backend/types";
import { Icon } from "../../components/Icon";
import { errorHeadline, Loadable } from "../../components/States";
import { useI18n, type MessageKey } from "../../i18n";
import { useSettings } from "../../queries/hooks";
import { useOp } from "../../queries/ops";
import { href } from "../../router";
import { requestSettingsSection } from "../settings/section";
import type { Say } from "../memory/ChangeToast";
import { useLlmSummary, useOutsideWindow } from "./hooks";

/** What an LLM error means, by code; these come from the summariser's settings (or its
 * endpoint), so they link to Settings → Summaries. */
const LLM_ERRORS: Partial<Record<ErrorCode, MessageKey>> = {
  invalid_input: "summary.llm.error.invalid_input",
  backend_unavailable: "summary.llm.error.backend_unavailable",
  timeout: "summary.llm.error.timeout",
};

export function SummaryPanel({
  agent,
  refresh,
  say,
  focusRequest,
}: {
  agent: string | null;
  refresh: () => Promise<unknown>;
  say: Say;
  /** Grows each time a finding's "Summarise…" asks for the panel: it shows the rules' proposal,
   * comes into view and takes the focus. */
  focusRequest: number;
}) {
  const { t } = useI18n();
  const proposal = useOp("propose_summary", { agent });
  const llm = useLlmSummary(agent);
  const sectionRef = useRef<HTMLElement>(null);
  const { cancel } = llm;

  const r = llm.result;
  // Asked for by a finding's fix: the rules' proposal (not an LLM answer being waited for or
  // edited), then, once it is rendered, into view with the focus in its text.
  const wantFocus = useRef(false);
  useEffect(() => {
    if (focusRequest === 0) return;
    wantFocus.current = true;
    cancel();
  }, [focusRequest, cancel]);
  useEffect(() => {
    if (!wantFocus.current || r.state !== "idle") return;
    wantFocus.current = false;
    const section = sectionRef.current;
    section?.scrollIntoView?.({ block: "start", behavior: "smooth" });
    const target = section?.querySelector<HTMLElement>('[data-testid="summary-content"]') ?? section;
    target?.focus({ preventScroll: true });
  });

  const llmProposal = r.state === "done" ? r.proposal : null;

  return (
    <section ref={sectionRef} tabIndex={-1} className="card health-summary" data-testid="summary-panel" aria-labelledby="health-summary-title">
      <h2 id="health-summary-title">{t("summary.title")}</h2>
      <Loadable query={proposal} rows={3}>
        {(p) =>
          p === null ? (
            <NothingToSummarise agent={agent} />
          ) : (
            <>
              <div className="summary-source" data-testid="summary-source" data-source={llmProposal ? "llm" : "rules"}>
                {llmProposal ? (
                  <span className="tag tag-warn summary-llm-mark" data-testid="summary-llm-mark">
                    <Icon name="warning" size={12} /> {t("summary.llm.mark")}
                  </span>
                ) : (
                  <span className="muted small">{t("summary.byRules")}</span>
                )}
                <span className="spacer" />
                {llmProposal ? (
                  <button type="button" className="btn btn-small" onClick={cancel} data-testid="summary-rules">
                    {t("summary.backToRules")}
                  </button>
                ) : null}
                {r.state !== "waiting" ? (
                  <button type="button" className="btn btn-small" onClick={llm.ask} data-testid="summary-llm">
                    <Icon name="refresh" size={13} /> {llmProposal ? t("summary.llm.again") : t("summary.llm.ask")}
                  </button>
                ) : null}
              </div>
              {r.state === "waiting" ? <Waiting started={r.started} onCancel={cancel} /> : null}
              {r.state === "error" ? <LlmError error={r.error} onRetry={llm.ask} onClose={cancel} /> : null}
              {r.state === "done" && r.proposal === null ? (
                <p className="muted" role="status" data-testid="summary-llm-none">
                  {t("summary.llm.none")}
                </p>
              ) : null}
              {/* A new proposal (the entries changed, or the LLM answered) starts the editor again. */}
              <SummaryForm
                key={`${llmProposal ? "llm" : "rules"}|${(llmProposal ?? p).covered.join(",")}|${(llmProposal ?? p).content}`}
                agent={agent}
                proposal={llmProposal ?? p}
                refresh={refresh}
                say={say}
                onApplied={cancel}
              />
            </>
          )
        }
      </Loadable>
    </section>
  );
}

/** Why there is no proposal: nothing outside the window, or everything there is summarised
 * already (or fewer than two entries are left). */
function NothingToSummarise({ agent }: { agent: string | null }) {
  const { t } = useI18n();
  const outside = useOutsideWindow(agent).data;
  return (
    <p className="muted" data-testid="summary-none" data-outside={outside ?? ""}>
      {outside === 0 ? t("summary.none") : t("summary.allCovered")}
    </p>
  );
}

/** Seconds since `started`, ticking. */
function useElapsed(started: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  return Math.max(0, Math.floor((now - started) / 1000));
}

function Waiting({ started, onCancel }: { started: number; onCancel: () => void }) {
  const { t, num } = useI18n();
  const settings = useSettings();
  const elapsed = useElapsed(started);
  const limitMs = settings.data?.settings.summary_llm_timeout_ms;
  const limit = limitMs ? Math.round(limitMs / 1000) : null;
  const text = limit ? t("summary.llm.waitingOf", { s: num(elapsed), max: num(limit) }) : t("summary.llm.waiting", { s: num(elapsed) });
  return (
    <div className="summary-waiting" data-testid="summary-llm-waiting">
      <div className="summary-waiting-row">
        <span className="spinner" aria-hidden="true" />
        <span role="status" aria-live="polite" aria-atomic="true">
          {t("summary.llm.asking")}{" "}
          <span className="muted" data-testid="summary-llm-elapsed" data-seconds={elapsed}>
            {text}
          </span>
        </span>
        <span className="spacer" />
        <button type="button" className="btn btn-small" onClick={onCancel} data-testid="summary-llm-cancel">
          {t("summary.llm.cancel")}
        </button>
      </div>
      {limit ? (
        <div
          className="progress"
          role="progressbar"
          aria-label={t("summary.llm.asking")}
          aria-valuemin={0}
          aria-valuemax={limit}
          aria-valuenow={Math.min(elapsed, limit)}
          aria-valuetext={text}
        >
          <div className="progress-fill" style={{ width: `${Math.min(100, (elapsed / limit) * 100)}%` }} />
        </div>
      ) : (
        <div className="progress indeterminate" role="progressbar" aria-label={t("summary.llm.asking")}>
          <div className="progress-fill" />
        </div>
      )}
      <p className="field-hint">{t("summary.llm.waitHint")}</p>
    </div>
  );
}

function LlmError({ error, onRetry, onClose }: { error: BackendError; onRetry: () => void; onClose: () => void }) {
  const { t } = useI18n();
  const key = LLM_ERRORS[error.code];
  return (
    <div className="banner banner-err summary-llm-error" role="alert" data-testid="summary-llm-error" data-code={error.code}>
      <Icon name="error" />
      <div className="summary-llm-error-body">
        <strong data-testid="summary-llm-error-text">{key ? t(key) : errorHeadline(t, error.code)}</strong>
        {error.message ? (
          <details className="error-details" open>
            <summary>{t("error.details")}</summary>
            <div className="error-message mono wrap" data-testid="summary-llm-error-detail">
              {error.message}
            </div>
          </details>
        ) : null}
        <div className="toolbar">
          {key ? (
            <a className="btn btn-small" href={href({ page: "settings" })} onClick={() => requestSettingsSection("summaries")} data-testid="summary-llm-settings">
              {t("summary.llm.openSettings")}
            </a>
          ) : null}
          <button type="button" className="btn btn-small" onClick={onRetry} data-testid="summary-llm-retry">
            {t("summary.llm.retry")}
          </button>
          <button type="button" className="btn btn-small btn-ghost" onClick={onClose} data-testid="summary-llm-dismiss">
            {t("summary.llm.useRules")}
          </button>
        </div>
      </div>
    </div>
  );
}

function SummaryForm({
  agent,
  proposal,
  refresh,
  say,
  onApplied,
}: {
  agent: string | null;
  proposal: SummaryProposalDto;
  refresh: () => Promise<unknown>;
  say: Say;
  onApplied: () => void;
}) {
  const { t, num } = useI18n();
  const backend = useBackend();
  const [text, setText] = useState(proposal.content);
  const [removeOriginals, setRemove] = useState(false);
  const [busy, setBusy] = useState(false);
  const textId = useId();
  const hintId = useId();
  const n = proposal.covered.length;
  const edited = text !== proposal.content;

  const apply = async () => {
    setBusy(true);
    try {
      const change = await backend.call("apply_summary", { agent, content: text, covered: proposal.covered, remove_originals: removeOriginals });
      say({ kind: "change", change, text: t(removeOriginals ? "summary.appliedRemoved" : "summary.applied", { n: num(n) }) });
      onApplied();
      await refresh();
    } catch (e) {
      say({ kind: "error", error: BackendError.from(e) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <form
      className="summary-form"
      onSubmit={(e) => {
        e.preventDefault();
        void apply();
      }}
    >
      <dl className="summary-facts" data-testid="summary-line">
        <div>
          <dt className="muted small">{t("summary.fact.covers")}</dt>
          <dd data-testid="summary-covered">{t("summary.fact.entries", { n: num(n) })}</dd>
        </div>
        <div>
          <dt className="muted small">{t("summary.fact.period")}</dt>
          <dd data-testid="summary-period">
            <span className="nowrap">{proposal.from ?? "?"}</span> → <span className="nowrap">{proposal.to ?? "?"}</span>
          </dd>
        </div>
        <div>
          <dt className="muted small">{t("summary.fact.chars")}</dt>
          <dd data-testid="summary-chars">
            {t("summary.fact.charsValue", { before: num(proposal.chars_before), after: num(proposal.chars_after) })}
          </dd>
        </div>
      </dl>
      <p className="field-hint" id={hintId}>
        {t(removeOriginals ? "summary.effectRemoved" : "summary.effect", { n: num(n) })}
      </p>
      <label className="field-label" htmlFor={textId}>
        {proposal.by_llm ? t("summary.contentLlm") : t("summary.content")}
        {edited ? <span className="muted small"> · {t("summary.edited")}</span> : null}
      </label>
      <textarea
        id={textId}
        className={proposal.by_llm ? "summary-text by-llm" : "summary-text"}
        rows={proposal.by_llm ? 6 : 5}
        value={text}
        onChange={(e) => setText(e.target.value)}
        aria-describedby={hintId}
        data-testid="summary-content"
        data-by-llm={proposal.by_llm ? "true" : "false"}
      />
      <div className="toolbar">
        <label className="checkbox">
          <input type="checkbox" checked={removeOriginals} onChange={(e) => setRemove(e.target.checked)} data-testid="summary-remove" />{" "}
          {t("summary.removeOriginals", { n: num(n) })}
        </label>
        <span className="spacer" />
        {edited ? (
          <button type="button" className="btn btn-small btn-ghost" onClick={() => setText(proposal.content)} data-testid="summary-reset">
            {t("summary.reset")}
          </button>
        ) : null}
        <button type="submit" className="btn btn-primary" disabled={busy || text.trim() === ""} data-testid="summary-apply">
          {t("summary.apply")}
        </button>
      </div>
    </form>
  );
}
