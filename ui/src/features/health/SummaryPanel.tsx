// The summary proposal: everything outside the prompt window folded into one archival entry,
// editable before it is appended (optionally removing the originals in the same change).
import { useId, useState } from "react";

import { BackendError, useBackend } from "../../backend";
import type { SummaryProposalDto } from "../../backend/types";
import { Loadable } from "../../components/States";
import { useI18n } from "../../i18n";
import type { Say } from "./HealthTab";
import { useSummaryProposal } from "./hooks";

export function SummaryPanel({ agent, refresh, say }: { agent: string | null; refresh: () => Promise<unknown>; say: Say }) {
  const { t } = useI18n();
  const proposal = useSummaryProposal(agent);
  return (
    <section className="card health-summary" data-testid="summary-panel" aria-labelledby="health-summary-title">
      <h2 id="health-summary-title">{t("summary.title")}</h2>
      <Loadable query={proposal} rows={3}>
        {(p) =>
          p === null ? (
            <p className="muted" data-testid="summary-none">
              {t("summary.none")}
            </p>
          ) : (
            // A new proposal (the entries changed) starts the editor again.
            <SummaryForm key={`${p.covered.join(",")}|${p.content}`} agent={agent} proposal={p} refresh={refresh} say={say} />
          )
        }
      </Loadable>
    </section>
  );
}

function SummaryForm({ agent, proposal, refresh, say }: { agent: string | null; proposal: SummaryProposalDto; refresh: () => Promise<unknown>; say: Say }) {
  const { t, num } = useI18n();
  const backend = useBackend();
  const [text, setText] = useState(proposal.content);
  const [removeOriginals, setRemove] = useState(false);
  const [busy, setBusy] = useState(false);
  const textId = useId();
  const n = proposal.covered.length;

  const apply = async () => {
    setBusy(true);
    try {
      const change = await backend.applySummary(agent, text, proposal.covered, removeOriginals);
      say({ kind: "change", change, text: t(removeOriginals ? "summary.appliedRemoved" : "summary.applied", { n: num(n) }) });
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
      <p data-testid="summary-line">
        {t("summary.line", {
          n: num(n),
          from: proposal.from ?? "?",
          to: proposal.to ?? "?",
          before: num(proposal.chars_before),
          after: num(proposal.chars_after),
        })}
      </p>
      <label className="field-label" htmlFor={textId}>
        {t("summary.content")}
      </label>
      <textarea
        id={textId}
        className="summary-text"
        rows={5}
        value={text}
        onChange={(e) => setText(e.target.value)}
        data-testid="summary-content"
      />
      <div className="toolbar">
        <label className="checkbox">
          <input type="checkbox" checked={removeOriginals} onChange={(e) => setRemove(e.target.checked)} data-testid="summary-remove" />{" "}
          {t("summary.removeOriginals", { n: num(n) })}
        </label>
        <span className="spacer" />
        <button type="submit" className="btn btn-primary" disabled={busy || text.trim() === ""} data-testid="summary-apply">
          {t("summary.apply")}
        </button>
      </div>
    </form>
  );
}
