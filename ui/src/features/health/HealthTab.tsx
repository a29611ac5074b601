// The Health tab: findings grouped by check (each with its one-click fix and Dismiss), the budget,
// the summary proposal and the entries per day. Fixes are ordinary curation calls (edit_entry,
// delete_entries) with the usual Undo toast; a "summarize" fix opens the summary panel (its
// proposal is read and edited there before it is applied, never applied blindly).
import { useQueryClient } from "@tanstack/react-query";
import { useCallback, useState } from "react";

import { BackendError, useBackend } from "../../backend";
import type { BudgetDto, FindingDto, HealthDto } from "../../backend/types";
import { Icon } from "../../components/Icon";
import { Loadable } from "../../components/States";
import { useI18n, type MessageKey } from "../../i18n";
import { opKey, useOp } from "../../queries/ops";
import { ForgetDialog } from "../forget/ForgetDialog";
import { useCurate } from "../memory/curation";
import { ChangeToast, useChangeToast, type Say } from "../memory/ChangeToast";
import { groupByCheck, useEntriesById, type EntryInfo } from "./hooks";
import { LevelFilterBar, Marked, passes, PoisoningDetails, type LevelFilter } from "./Poisoning";
import { findingText, kindTag } from "./reason";
import { StatsPanel } from "./StatsPanel";
import { SummaryPanel } from "./SummaryPanel";
import "./health.css";
import { BrokenChecks } from "../recall/RecallChecks";

/** The fixes this screen carries out (FixDto.op). */
const FIX_OPS = ["edit", "delete", "summarize"];
/** Checks whose findings offer "Forget everywhere" beside their fix: a secret or personal data
 * may have been copied beyond the entry (history, journal, the runtime's rows). */
const FORGET_CHECKS = ["secrets", "pii"];
/** Findings a group shows before "Show all". */
const GROUP_PAGE = 10;
/** Groups of other checks with at most this many findings start open. */
const OPEN_UP_TO = 3;
/** Entries a finding lists before "and N more". */
const ENTRY_PAGE = 3;
/** How many more entries each "and N more" shows: a near group of a large archive can name
 * hundreds of thousands, which no list should draw at once. */
const ENTRY_STEP = 100;

const CHECK_KEYS: Record<string, MessageKey> = {
  secrets: "health.check.secrets",
  pii: "health.check.pii",
  duplicates: "health.check.duplicates",
  stale: "health.check.stale",
  budget: "health.check.budget",
  poisoning: "health.poisoning.check",
};
/** Checks whose groups start open whatever their size: what a person must see. */
const OPEN_CHECKS = ["secrets", "pii", "poisoning"];

export function HealthTab({ agent }: { agent: string | null }) {
  const { toast, say, report, close } = useChangeToast();
  const curate = useCurate(agent, report);
  // Each "Summarise…" fix asks the summary panel to show itself (a counter: every click counts).
  const [summaryFocus, setSummaryFocus] = useState(0);
  const openSummary = useCallback(() => setSummaryFocus((n) => n + 1), []);

  return (
    <div className="health" data-testid="health-tab">
      <FindingsSection agent={agent} curate={curate} say={say} openSummary={openSummary} />
      <SummaryPanel key={agent ?? ""} agent={agent} refresh={curate.refresh} say={say} focusRequest={summaryFocus} />
      <StatsPanel agent={agent} />
      <ChangeToast toast={toast} onClose={close} curate={curate} />
    </div>
  );
}

type Curate = ReturnType<typeof useCurate>;

function FindingsSection({ agent, curate, say, openSummary }: { agent: string | null; curate: Curate; say: Say; openSummary: () => void }) {
  const { t, num } = useI18n();
  const health = useOp("memory_health", { agent });
  return (
    <Loadable query={health} rows={6}>
      {(h) => (
        <>
          <BudgetPanel budget={h.budget} />
          <section className="card health-findings" aria-labelledby="health-findings-title">
            <div className="health-head">
              <h2 id="health-findings-title">{t("health.findings")}</h2>
              <span className="muted small" data-testid="health-total">
                {t("health.total", { n: num(h.findings.length) })}
              </span>
              {h.dismissed > 0 ? (
                <span className="muted small" data-testid="health-dismissed">
                  {t("health.dismissed", { n: num(h.dismissed) })}
                </span>
              ) : null}
            </div>
            {/* Broken checks are shown below with their changes and undo, not as a hint line. */}
            {h.hints.filter((hint) => hint.kind !== "broken_checks").map((hint) => (
              <div key={hint.kind} className="banner health-hint" role="note" data-testid="health-hint" data-kind={hint.kind}>
                <Icon name="history" />
                <span>{hint.kind === "never_read" ? t("reads.hint", { n: num(hint.entry_ids.length) }) : hint.reason}</span>
              </div>
            ))}
            <BrokenChecks agent={agent} />
            {h.findings.length === 0 ? (
              <p className="health-empty" data-testid="health-empty">
                {t("health.empty")}
              </p>
            ) : (
              <Findings agent={agent} health={h} curate={curate} say={say} openSummary={openSummary} />
            )}
          </section>
        </>
      )}
    </Loadable>
  );
}

function Findings({ agent, health, curate, say, openSummary }: { agent: string | null; health: HealthDto; curate: Curate; say: Say; openSummary: () => void }) {
  const entries = useEntriesById(agent);
  return (
    <>
      {groupByCheck(health.findings).map(([check, list]) => (
        <FindingGroup key={check} agent={agent} check={check} findings={list} entries={entries} curate={curate} say={say} openSummary={openSummary} />
      ))}
    </>
  );
}

function FindingGroup({
  agent,
  check,
  findings,
  entries,
  curate,
  say,
  openSummary,
}: {
  agent: string | null;
  check: string;
  findings: FindingDto[];
  entries: ReturnType<typeof useEntriesById>;
  curate: Curate;
  say: Say;
  openSummary: () => void;
}) {
  const { t, num } = useI18n();
  const [all, setAll] = useState(false);
  // Secrets, personal data and instructions to the model are open; long lists of duplicates or
  // stale entries start closed.
  const [open, setOpen] = useState(() => OPEN_CHECKS.includes(check) || findings.length <= OPEN_UP_TO);
  const [level, setLevel] = useState<LevelFilter>("all");
  const passing = check === "poisoning" ? findings.filter((f) => passes(level, f)) : findings;
  const shown = all ? passing : passing.slice(0, GROUP_PAGE);
  const titleId = `health-group-${check}-title`;
  const listId = `health-group-${check}-list`;
  return (
    <section className={`health-group health-group-${check}`} data-testid={`health-group-${check}`} aria-labelledby={titleId}>
      <h3 id={titleId} className="health-group-title">
        <button type="button" className="health-group-toggle" aria-expanded={open} aria-controls={listId} onClick={() => setOpen((v) => !v)} data-testid="health-group-toggle">
          <span className="health-caret" aria-hidden="true">
            {open ? "▾" : "▸"}
          </span>
          {CHECK_KEYS[check] ? t(CHECK_KEYS[check]) : check}{" "}
          <span className="count-badge" data-testid="health-group-count">
            {num(findings.length)}
          </span>
        </button>
      </h3>
      {open && check === "poisoning" ? <LevelFilterBar value={level} onChange={setLevel} hidden={findings.length - passing.length} /> : null}
      <ul className="health-list" id={listId} hidden={!open}>
        {open
          ? shown.map((f) => <FindingItem key={`${f.kind}:${f.entry_ids[0] ?? ""}:${f.entry_ids.length}`} agent={agent} finding={f} entries={entries} curate={curate} say={say} openSummary={openSummary} />)
          : null}
      </ul>
      {open && passing.length > shown.length ? (
        <button type="button" className="btn btn-small btn-ghost" onClick={() => setAll(true)} data-testid="health-more">
          {t("health.showAll", { n: num(passing.length) })}
        </button>
      ) : null}
    </section>
  );
}

function FindingItem({
  agent,
  finding,
  entries,
  curate,
  say,
  openSummary,
}: {
  agent: string | null;
  finding: FindingDto;
  entries: ReturnType<typeof useEntriesById>;
  curate: Curate;
  say: Say;
  openSummary: () => void;
}) {
  const { t, num, lang } = useI18n();
  const backend = useBackend();
  const qc = useQueryClient();
  const [busy, setBusy] = useState(false);
  const [entryCount, setEntryCount] = useState(ENTRY_PAGE);
  const [forgetting, setForgetting] = useState(false);
  // A fix of an op this screen does not know (a newer console) is not offered.
  const fix = finding.fix && FIX_OPS.includes(finding.fix.op) ? finding.fix : null;
  const ids = finding.entry_ids;
  const listed = ids.slice(0, entryCount);
  const reason = findingText(t, num, lang, finding);
  const poisoning = finding.check === "poisoning";
  // The entry as the console shows it with its hidden characters drawn (poisoning findings).
  const visible = poisoning ? finding.params?.visible : undefined;

  const onFix = async () => {
    if (!fix) return;
    if (fix.op === "summarize") {
      // The summary panel shows the rules' proposal for these entries, to read and edit first.
      openSummary();
      return;
    }
    setBusy(true);
    try {
      if (fix.op === "edit") {
        const id = fix.ids[0]!;
        const info = entries.byId.get(id);
        await curate.edit(id, info?.content ?? "", fix.content ?? "", false);
      } else if (fix.op === "delete") {
        const picked: EntryInfo[] = fix.ids.map((id) => entries.byId.get(id) ?? { id, scope: "archival", index: 0, content: "" });
        await curate.remove(picked);
      }
    } finally {
      setBusy(false);
    }
  };

  const onDismiss = async () => {
    setBusy(true);
    try {
      const h = await backend.call("dismiss_finding", { agent, check: finding.check, entry_ids: ids });
      qc.setQueryData(opKey("memory_health", { agent }), h);
    } catch (e) {
      say({ kind: "error", error: BackendError.from(e) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <li className="health-finding" data-testid="health-finding" data-check={finding.check} data-kind={finding.kind}>
      <div className="health-finding-main">
        <p className="health-reason" data-testid="finding-reason" data-localised={reason.localised} title={reason.detail ?? undefined}>
          <span className="tag">{kindTag(t, finding)}</span>{" "}
          {/* The console's own words are English: said so, for a screen reader in another language. */}
          <span lang={reason.localised ? undefined : "en"}>{reason.text}</span>
        </p>
        <ul className="health-entries">
          {listed.map((id) => {
            const e = entries.byId.get(id);
            return (
              <li key={id} className="health-entry" data-testid="finding-entry" data-entry-id={id}>
                {e ? (
                  <span className="health-entry-text">{visible ? <Marked text={visible} /> : e.content}</span>
                ) : (
                  <span className="muted">{entries.loaded ? t("health.entryGone") : t("common.loading")}</span>
                )}
                {e ? <span className="muted small"> · {t(e.scope === "core" ? "health.scopeCore" : "health.scopeArchival")}</span> : null}
              </li>
            );
          })}
          {ids.length > listed.length ? (
            <li>
              <button type="button" className="btn btn-small btn-ghost" onClick={() => setEntryCount((n) => n + ENTRY_STEP)} data-testid="finding-entries-more">
                {t("health.moreEntries", { n: num(ids.length - listed.length) })}
              </button>
            </li>
          ) : null}
        </ul>
        {poisoning ? <PoisoningDetails finding={finding} /> : null}
        {fix?.op === "edit" && fix.content !== null ? (
          <p className="health-fix-preview" data-testid="finding-fix-content">
            <span className="muted small">{t(poisoning ? "health.poisoning.cleanTo" : "health.maskTo")}</span> <code>{fix.content}</code>
          </p>
        ) : null}
      </div>
      <div className="health-actions">
        {fix ? (
          <button
            type="button"
            className={fix.op === "delete" ? "btn btn-small btn-danger" : "btn btn-small btn-primary"}
            disabled={fix.op === "summarize" ? busy : busy || curate.pending || !entries.loaded}
            onClick={() => void onFix()}
            data-testid="finding-fix"
            data-op={fix.op}
          >
            {fix.op === "edit"
              ? t(poisoning ? "health.poisoning.fixClean" : "health.fixMask")
              : fix.op === "summarize"
                ? t("health.fixSummarize", { n: num(fix.ids.length) })
                : t("health.fixDelete", { n: num(fix.ids.length) })}
          </button>
        ) : null}
        {FORGET_CHECKS.includes(finding.check) && ids.length > 0 ? (
          <button type="button" className="btn btn-small btn-danger" disabled={busy} onClick={() => setForgetting(true)} aria-haspopup="dialog" data-testid="finding-forget">
            {t("forget.action")}
          </button>
        ) : null}
        <button type="button" className="btn btn-small" disabled={busy} onClick={() => void onDismiss()} data-testid="finding-dismiss">
          {t("health.dismiss")}
        </button>
      </div>
      {forgetting ? <ForgetDialog subject={{ kind: "entries", agent, ids }} onClose={() => setForgetting(false)} /> : null}
    </li>
  );
}

function BudgetPanel({ budget }: { budget: BudgetDto | null }) {
  const { t, num } = useI18n();
  if (!budget) return null;
  const share = budget.core_share === null ? t("common.none") : `${(budget.core_share * 100).toFixed(1)}%`;
  const reach = budget.window_reach_days === null ? t("common.none") : t("health.days", { n: num(Math.round(budget.window_reach_days)) });
  const items: [string, string, string][] = [
    ["budget-prompt-chars", t("health.budget.prompt"), num(budget.prompt_chars)],
    ["budget-core-share", t("health.budget.coreShare"), share],
    ["budget-core-added", t("health.budget.coreAdded"), num(budget.core_added_30d)],
    ["budget-window-reach", t("health.budget.reach"), reach],
  ];
  return (
    <section className="card health-budget" data-testid="health-budget" aria-labelledby="health-budget-title">
      <h2 id="health-budget-title">{t("health.budget.title")}</h2>
      <dl className="health-budget-grid">
        {items.map(([id, label, value]) => (
          <div key={id} className="health-budget-item">
            <dt className="muted small">{label}</dt>
            <dd data-testid={id}>{value}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}
