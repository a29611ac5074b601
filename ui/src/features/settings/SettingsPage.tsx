import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";

import type { BackendDto, LanguageDto, RecallModeDto, SettingsDto, SettingsLimitsDto, SettingsView, ThemeDto } from "../../backend/types";
import { BackendError } from "../../backend";
import { FieldError } from "../../components/FieldError";
import { Icon } from "../../components/Icon";
import { errorHeadline, Loadable } from "../../components/States";
import { useI18n, type MessageKey } from "../../i18n";
import { useSettings } from "../../queries/hooks";
import { opKey } from "../../queries/ops";
import { href, replaceRoute } from "../../router";
import { ConnectServer } from "../remote/ConnectServer";
import { RuntimePanel } from "../runtime/RuntimePanel";
import { useSettingsWrites } from "./hooks";
import { Mem0Fields, mem0Problems, parseTimeout } from "./Mem0Fields";
import { backendLabel, MigrateDialog, type MigrateDialogProps } from "./MigrateDialog";
import { InspectionView, RootField, useInspection } from "./RootInspector";
import { SECTION_IDS, takeSettingsSection } from "./section";
import { SummaryFields, type SummaryField } from "./SummaryFields";
import "./settings.css";

/** The typed window size when it is a whole number in the range the console accepts (its
 * settings answer carries the range). */
export function parseWindow(s: string, limits: SettingsLimitsDto): number | null {
  if (!/^\s*\d+\s*$/.test(s)) return null;
  const n = Number(s);
  return n >= limits.archival_limit_min && n <= limits.archival_limit_max ? n : null;
}

/** Whether saving `next` changes where a migration reads or writes (the root, the database or
 * the mem0 server): the console migrates with the stored settings, so these are saved first. */
export function changesMigrationSources(next: SettingsDto, stored: SettingsDto): boolean {
  return (
    (next.root ?? null) !== (stored.root ?? null) ||
    (next.db_path ?? null) !== (stored.db_path ?? null) ||
    (next.mem0_base_url ?? null) !== (stored.mem0_base_url ?? null) ||
    next.mem0_user_id !== stored.mem0_user_id ||
    !!next.mem0_api_key ||
    next.mem0_api_key_set !== stored.mem0_api_key_set ||
    next.mem0_timeout_ms !== stored.mem0_timeout_ms
  );
}

/** The fields whose value the console checks on save, with their input and label. */
type ValueField = "root" | "db" | "window" | "floor" | "limit" | "topK" | "budget" | SummaryField;
const FIELDS: Record<ValueField, { input: string; label: MessageKey }> = {
  root: { input: "settings-root", label: "settings.root" },
  db: { input: "settings-db", label: "settings.dbPath" },
  window: { input: "settings-window", label: "settings.window" },
  floor: { input: "settings-recall-floor", label: "settings.recall.floor" },
  limit: { input: "settings-recall-limit", label: "settings.recall.limit" },
  topK: { input: "settings-episodic-top-k", label: "settings.episodic.topK" },
  budget: { input: "settings-episodic-budget", label: "settings.episodic.budget" },
  threshold: { input: "settings-summary-threshold", label: "settings.summary.threshold" },
  llmUrl: { input: "settings-summary-url", label: "settings.summary.url" },
  llmTimeout: { input: "settings-summary-timeout", label: "settings.summary.timeout" },
};

/** Which value fields `next` changes from `stored`. The console's error names no field: when a
 * save that changed one value is refused, the error is shown at that value. */
export function changedValueFields(next: SettingsDto, stored: SettingsDto): ValueField[] {
  const same = (a: unknown, b: unknown) => (a ?? null) === (b ?? null) || (typeof a === "number" && typeof b === "number" && Number.isNaN(a) && Number.isNaN(b));
  const out: ValueField[] = [];
  if (!same(next.root, stored.root)) out.push("root");
  if (!same(next.db_path, stored.db_path)) out.push("db");
  if (!same(next.archival_limit_chars, stored.archival_limit_chars)) out.push("window");
  if (!same(next.recall_floor, stored.recall_floor)) out.push("floor");
  if (!same(next.recall_limit, stored.recall_limit)) out.push("limit");
  if (!same(next.episodic_top_k, stored.episodic_top_k)) out.push("topK");
  if (!same(next.episodic_budget_chars, stored.episodic_budget_chars)) out.push("budget");
  if (!same(next.summary_auto_threshold, stored.summary_auto_threshold)) out.push("threshold");
  if (!same(next.summary_llm_base_url, stored.summary_llm_base_url)) out.push("llmUrl");
  if (!same(next.summary_llm_timeout_ms, stored.summary_llm_timeout_ms)) out.push("llmTimeout");
  return out;
}

/** `aria-describedby` from the ids that are present. */
function describedBy(...ids: (string | false | null | undefined)[]): string | undefined {
  return ids.filter(Boolean).join(" ") || undefined;
}

/** A number field as typed; the console checks the range (an empty or non-numeric field is sent as
 * NaN, which JSON carries as null, and the console refuses it). */
function typedNumber(text: string): number {
  return text.trim() === "" ? NaN : Number(text);
}

/** `focus="backend"`: opened from the "mem0 is unreachable" banner: the backend choice is brought
 * into view and focused. */
export function SettingsPage({ focus }: { focus?: "backend" }) {
  const { t } = useI18n();
  const q = useSettings();
  return (
    <div className="page">
      <div className="page-head">
        <h1>{t("settings.title")}</h1>
      </div>
      <RuntimePanel />
      <Loadable query={q} rows={10}>
        {(view) => <SettingsForm view={view} focus={focus} />}
      </Loadable>
      <ConnectServer />
    </div>
  );
}

function SettingsForm({ view, focus }: { view: SettingsView; focus?: "backend" }) {
  const { t } = useI18n();
  const writes = useSettingsWrites();
  const qc = useQueryClient();
  // For a runtime install the backend is the runtime's (memory.backend in its configuration):
  // the form starts from it, and a switch rewrites that value (the dialog does it).
  const install = view.effective.root_kind === "install";
  const currentBackend: BackendDto = install ? (view.effective.runtime_backend ?? view.effective.backend) : view.settings.backend;
  const [draft, setDraft] = useState<SettingsDto>({ ...view.settings, backend: currentBackend });
  const [root, setRoot] = useState(view.settings.root ?? view.effective.root);
  const [windowText, setWindowText] = useState(String(view.settings.archival_limit_chars));
  const [timeoutText, setTimeoutText] = useState(String(view.settings.mem0_timeout_ms));
  const [floorText, setFloorText] = useState(String(view.settings.recall_floor ?? ""));
  const [limitText, setLimitText] = useState(String(view.settings.recall_limit));
  const [topKText, setTopKText] = useState(String(view.settings.episodic_top_k));
  const [budgetText, setBudgetText] = useState(String(view.settings.episodic_budget_chars));
  const [thresholdText, setThresholdText] = useState(String(view.settings.summary_auto_threshold ?? ""));
  const [llmTimeoutText, setLlmTimeoutText] = useState(String(view.settings.summary_llm_timeout_ms ?? ""));
  const backendRef = useRef<HTMLFieldSetElement>(null);
  const [saved, setSaved] = useState(false);
  const [notSwitched, setNotSwitched] = useState(false);
  const [dialog, setDialog] = useState<Omit<MigrateDialogProps, "onSaved" | "onClose"> | null>(null);
  /** The field a refused save is about (the only value it changed), until that field is edited. */
  const [errField, setErrField] = useState<ValueField | null>(null);
  /** A save was tried: the mem0 fields show what is missing even if never touched. */
  const [submitted, setSubmitted] = useState(false);
  const inspection = useInspection(root, draft.db_path);
  const windowValue = parseWindow(windowText, view.limits);
  const timeoutValue = parseTimeout(timeoutText);
  const stored = view.settings;
  const mem0Invalid = draft.backend === "mem0" && mem0Problems(draft, timeoutValue).length > 0;
  const canSave = windowValue !== null;

  useEffect(() => {
    if (focus !== "backend") return;
    const box = backendRef.current;
    box?.scrollIntoView({ block: "center" });
    box?.querySelector<HTMLInputElement>("input:checked")?.focus({ preventScroll: true });
    // Done: the banner's button can bring it here again.
    replaceRoute({ page: "settings" });
  }, [focus]);

  // Sent here for a section (the Health tab's "Settings → Summaries"): bring it into view.
  useEffect(() => {
    const section = takeSettingsSection();
    if (!section) return;
    const el = document.getElementById(SECTION_IDS[section]);
    el?.scrollIntoView?.({ block: "start" });
    el?.focus({ preventScroll: true });
  }, []);

  const edit = (patch: Partial<SettingsDto>) => {
    setDraft((d) => ({ ...d, ...patch }));
    setSaved(false);
    setNotSwitched(false);
    if ("db_path" in patch && errField === "db") setErrField(null);
    if ("summary_llm_base_url" in patch && errField === "llmUrl") setErrField(null);
  };
  /** A text field was edited: its own error (if any) is no longer about what it shows. */
  const typed = (f: ValueField) => {
    setSaved(false);
    if (errField === f) setErrField(null);
  };
  const goToField = (f: ValueField) => {
    const el = document.getElementById(FIELDS[f].input);
    el?.scrollIntoView?.({ block: "center" });
    el?.focus({ preventScroll: true });
  };

  /** The form as a DTO: the API key only when typed (empty keeps the stored one). */
  const payload = (): SettingsDto => ({
    ...draft,
    root: root.trim() || null,
    db_path: draft.db_path?.trim() || null,
    archival_limit_chars: windowValue ?? draft.archival_limit_chars,
    mem0_base_url: draft.mem0_base_url?.trim() || null,
    mem0_user_id: draft.mem0_user_id.trim(),
    mem0_api_key: draft.mem0_api_key?.trim() || null,
    mem0_timeout_ms: timeoutValue ?? draft.mem0_timeout_ms,
    recall_floor: typedNumber(floorText),
    recall_limit: typedNumber(limitText),
    episodic_top_k: typedNumber(topKText),
    episodic_budget_chars: typedNumber(budgetText),
    summary_auto_threshold: typedNumber(thresholdText),
    summary_llm_base_url: draft.summary_llm_base_url?.trim() || null,
    summary_llm_model: draft.summary_llm_model?.trim() || null,
    summary_llm_api_key: draft.summary_llm_api_key?.trim() || null,
    summary_llm_timeout_ms: typedNumber(llmTimeoutText),
  });

  /** Shows what was saved; `keepBackend` keeps the radio on a backend not switched to yet. */
  const applySaved = async (v: SettingsView, keepBackend?: BackendDto) => {
    const agentsUse = v.effective.root_kind === "install" ? (v.effective.runtime_backend ?? v.effective.backend) : v.settings.backend;
    setDraft({ ...v.settings, backend: keepBackend ?? agentsUse });
    setRoot(v.settings.root ?? v.effective.root);
    setWindowText(String(v.settings.archival_limit_chars));
    setTimeoutText(String(v.settings.mem0_timeout_ms));
    setFloorText(String(v.settings.recall_floor ?? ""));
    setLimitText(String(v.settings.recall_limit));
    setTopKText(String(v.settings.episodic_top_k));
    setBudgetText(String(v.settings.episodic_budget_chars));
    setThresholdText(String(v.settings.summary_auto_threshold ?? ""));
    setLlmTimeoutText(String(v.settings.summary_llm_timeout_ms ?? ""));
    qc.setQueryData(opKey("get_settings", {}), v);
    // Every view switches at once: the root, backend or window changed under all of them.
    await qc.invalidateQueries();
  };

  const save = useMutation({
    mutationFn: async (next: SettingsDto) => {
      if (next.backend === currentBackend) return { view: await writes.updateSettings({ ...next, backend: stored.backend }), switching: null };
      // Switching backends: the memories stay behind unless copied, so the dialog decides. It
      // migrates with the stored settings: save the other changes first, backend unchanged.
      const presave = changesMigrationSources(next, stored);
      const base = presave ? await writes.updateSettings({ ...next, backend: stored.backend }) : null;
      // An install keeps its settings' backend (a bare root's) and drops a console override:
      // the agents' backend is what the runtime's configuration will say.
      const target = base ? { ...base.settings, backend: install ? stored.backend : next.backend } : { ...next, backend: install ? stored.backend : next.backend };
      if (install) target.backend_override = null;
      return { view: base, switching: { from: currentBackend, to: next.backend, settings: target, presaved: presave, install } };
    },
    onMutate: () => setErrField(null),
    onError: (_e, next) => {
      const changed = changedValueFields(next, stored);
      setErrField(changed.length === 1 ? changed[0]! : null);
    },
    onSuccess: async ({ view: v, switching }) => {
      setSubmitted(false);
      if (v) await applySaved(v, switching?.to);
      if (switching) setDialog(switching);
      else setSaved(true);
    },
  });

  /** The refused save's error at the field it is about. */
  const fieldError = (f: ValueField) =>
    errField === f && save.isError ? <FieldError id={`${FIELDS[f].input}-error`} error={save.error} testId={`${FIELDS[f].input}-error`} /> : null;

  const backends: { key: BackendDto; label: string; hint: string }[] = [
    { key: "markdown", label: t("settings.backend.markdown"), hint: t("settings.backend.markdownHint") },
    { key: "sqlite", label: t("settings.backend.sqlite"), hint: t("settings.backend.sqliteHint") },
    { key: "mem0", label: t("settings.backend.mem0"), hint: t("settings.backend.mem0Hint") },
  ];
  const eff = view.effective;
  const recallModes: { key: RecallModeDto; label: string; hint: string }[] = [
    { key: "keyword", label: t("settings.recall.keyword"), hint: t("recall.mode.keywordHint") },
    { key: "semantic", label: t("recall.mode.semantic"), hint: t("recall.mode.semanticHint") },
    { key: "hybrid", label: t("recall.mode.hybrid"), hint: t("recall.mode.hybridHint") },
  ];

  return (
    <>
    <form
      className="settings"
      // The fields are checked here (and by the console); the browser's own step/min checks
      // would block a save silently.
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        if (!canSave || save.isPending) return;
        if (mem0Invalid) {
          // Say what is missing where it is missing, and go there.
          setSubmitted(true);
          document.querySelector<HTMLElement>('[data-testid="settings-mem0"] [aria-invalid="true"]')?.focus();
          requestAnimationFrame(() => document.querySelector<HTMLElement>('[data-testid="settings-mem0"] [aria-invalid="true"]')?.focus());
          return;
        }
        save.mutate(payload());
      }}
    >
      {eff.overridden_by.length ? (
        <div className="banner banner-warn" data-testid="settings-overridden">
          <Icon name="warning" />
          <div>
            {t("settings.overridden", { names: eff.overridden_by.join(", ") })}
            <div className="banner-sub mono">
              {t("settings.effective")}: root = {eff.root} · db = {eff.db_path} · backend = {eff.backend}
            </div>
          </div>
        </div>
      ) : null}

      <section className="card form-section">
        <label className="field-label-lg" htmlFor="settings-root">
          {t("settings.root")}
        </label>
        <div className="field-hint" id="settings-root-hint">
          {t("settings.rootHint")}
        </div>
        <RootField
          id="settings-root"
          value={root}
          onChange={(v) => {
            setRoot(v);
            typed("root");
          }}
          onInspect={() => void inspection.refetch()}
          testId="settings-root"
          describedBy={describedBy("settings-root-hint", errField === "root" && "settings-root-error", "settings-root-inspection")}
          invalid={errField === "root" || inspection.isError || (inspection.data !== undefined && !(inspection.data.exists && inspection.data.is_dir))}
        />
        {errField === "root" && save.isError ? (
          <FieldError id="settings-root-error" error={save.error} override={{ invalid_input: "settings.rootRefused" }} testId="settings-root-error" />
        ) : null}
        <InspectionView q={inspection} id="settings-root-inspection" />
      </section>

      <section className="card form-section">
        <fieldset ref={backendRef} data-testid="settings-backend">
          <legend className="field-label-lg">{t("settings.backend")}</legend>
          <div className="radio-cards">
            {backends.map((b) => (
              <label key={b.key} className={`radio-card${draft.backend === b.key ? " on" : ""}`}>
                <input
                  type="radio"
                  name="backend"
                  value={b.key}
                  checked={draft.backend === b.key}
                  onChange={() => edit({ backend: b.key })}
                  data-testid={`settings-backend-${b.key}`}
                />
                <span className="radio-title">
                  {b.label}
                  {currentBackend === b.key ? <span className="tag tag-muted">{t(install ? "settings.backend.agentsUse" : "settings.backend.current")}</span> : null}
                </span>
                <span className="radio-hint">{b.hint}</span>
              </label>
            ))}
          </div>
          {install ? (
            <div className="field-hint" data-testid="settings-backend-runtime">
              {t("settings.backend.runtimeHint", { file: `${eff.install_dir ?? ""}/config/application.yml` })}
            </div>
          ) : null}
          {draft.backend !== currentBackend ? (
            <div className="field-hint" data-testid="settings-switch-hint">
              <Icon name="warning" size={13} /> {t(install ? "settings.switchHintRuntime" : "settings.switchHint", { from: backendLabel(t, currentBackend), to: backendLabel(t, draft.backend) })}
            </div>
          ) : null}
        </fieldset>
        {draft.backend === "mem0" ? (
          <Mem0Fields
            draft={draft}
            stored={stored}
            timeoutText={timeoutText}
            timeoutValue={timeoutValue}
            onTimeoutText={(v) => {
              setTimeoutText(v);
              setSaved(false);
            }}
            edit={edit}
            testPayload={payload}
            showProblems={submitted}
          />
        ) : null}
        <div className="form-grid">
          <label htmlFor="settings-db">{t("settings.dbPath")}</label>
          <div>
            <input
              id="settings-db"
              type="text"
              className="mono"
              spellCheck={false}
              value={draft.db_path ?? ""}
              placeholder={install ? eff.db_path : `${root.trim() || eff.root}/oryxos.db`}
              onChange={(e) => edit({ db_path: e.target.value || null })}
              aria-invalid={errField === "db" || undefined}
              aria-describedby={describedBy(errField === "db" && "settings-db-error", "settings-db-hint")}
              data-testid="settings-db"
            />
            {fieldError("db")}
            <div className="field-hint" id="settings-db-hint">
              {t("settings.dbPathHint", { path: install ? eff.db_path : `${root.trim() || eff.root}/oryxos.db` })}
            </div>
          </div>
          <label htmlFor="settings-window">{t("settings.window")}</label>
          <div>
            <input
              id="settings-window"
              type="number"
              min={view.limits.archival_limit_min}
              max={view.limits.archival_limit_max}
              step={100}
              value={windowText}
              aria-invalid={windowValue === null || errField === "window"}
              aria-describedby={describedBy(errField === "window" && "settings-window-error", "settings-window-hint")}
              onChange={(e) => {
                setWindowText(e.target.value);
                typed("window");
              }}
              data-testid="settings-window"
            />
            {fieldError("window")}
            <div id="settings-window-hint" className={windowValue === null ? "field-hint inline-error" : "field-hint"}>
              {windowValue === null ? t("settings.windowInvalid") : t("settings.windowHint")}
            </div>
          </div>
          <label htmlFor="settings-footprint">{t("settings.footprint")}</label>
          <div>
            <label className="switch">
              <input id="settings-footprint" type="checkbox" checked={draft.footprint_enabled} onChange={(e) => edit({ footprint_enabled: e.target.checked })} data-testid="settings-footprint" />
              <span>{t("settings.footprintHint")}</span>
            </label>
          </div>
        </div>
      </section>

      <section className="card form-section" data-testid="settings-recall">
        <fieldset>
          <legend className="field-label-lg">{t("settings.recall")}</legend>
          <div className="field-hint">
            {t("settings.recallHint")} <a href={href({ page: "recall" })}>{t("settings.recall.try")}</a>
          </div>
          <div className="radio-cards">
            {recallModes.map((m) => (
              <label key={m.key} className={`radio-card${draft.recall_mode === m.key ? " on" : ""}`}>
                <input
                  type="radio"
                  name="recall_mode"
                  value={m.key}
                  checked={draft.recall_mode === m.key}
                  onChange={() => edit({ recall_mode: m.key })}
                  data-testid={`settings-recall-${m.key}`}
                />
                <span className="radio-title">{m.label}</span>
                <span className="radio-hint">{m.hint}</span>
              </label>
            ))}
          </div>
        </fieldset>
        <div className="form-grid">
          <label htmlFor="settings-recall-floor">{t("settings.recall.floor")}</label>
          <div>
            <input
              id="settings-recall-floor"
              type="number"
              min={0}
              max={1}
              step={0.05}
              value={floorText}
              aria-invalid={errField === "floor" || undefined}
              aria-describedby={describedBy(errField === "floor" && "settings-recall-floor-error", "settings-recall-floor-hint")}
              onChange={(e) => {
                setFloorText(e.target.value);
                typed("floor");
              }}
              data-testid="settings-recall-floor"
            />
            {fieldError("floor")}
            <div className="field-hint" id="settings-recall-floor-hint">
              {t("settings.recall.floorHint")}
            </div>
          </div>
          <label htmlFor="settings-recall-limit">{t("settings.recall.limit")}</label>
          <div>
            <input
              id="settings-recall-limit"
              type="number"
              min={1}
              max={view.limits.recall_limit_max}
              step={1}
              value={limitText}
              aria-invalid={errField === "limit" || undefined}
              aria-describedby={describedBy(errField === "limit" && "settings-recall-limit-error", "settings-recall-limit-hint")}
              onChange={(e) => {
                setLimitText(e.target.value);
                typed("limit");
              }}
              data-testid="settings-recall-limit"
            />
            {fieldError("limit")}
            <div className="field-hint" id="settings-recall-limit-hint">
              {t("settings.recall.limitHint")}
            </div>
          </div>
        </div>
        <div className="subsection" role="group" aria-labelledby="settings-episodic-title" data-testid="settings-episodic">
          <h3 id="settings-episodic-title" className="subsection-title">
            {t("settings.episodic")}
          </h3>
          <label className="switch">
            <input
              type="checkbox"
              checked={draft.episodic_enabled}
              onChange={(e) => edit({ episodic_enabled: e.target.checked })}
              aria-describedby="settings-episodic-hint"
              data-testid="settings-episodic-enabled"
            />
            <span>{t("settings.episodic.enabled")}</span>
          </label>
          <div id="settings-episodic-hint" className="field-hint">
            {t("settings.episodic.hint")}
          </div>
          <div className="form-grid">
            <label htmlFor="settings-episodic-top-k">{t("settings.episodic.topK")}</label>
            <div>
              <input
                id="settings-episodic-top-k"
                type="number"
                min={1}
                max={20}
                step={1}
                value={topKText}
                aria-invalid={errField === "topK" || undefined}
                aria-describedby={describedBy(errField === "topK" && "settings-episodic-top-k-error", "settings-episodic-top-k-hint")}
                onChange={(e) => {
                  setTopKText(e.target.value);
                  typed("topK");
                }}
                data-testid="settings-episodic-top-k"
              />
              {fieldError("topK")}
              <div className="field-hint" id="settings-episodic-top-k-hint">
                {t("settings.episodic.topKHint")}
              </div>
            </div>
            <label htmlFor="settings-episodic-budget">{t("settings.episodic.budget")}</label>
            <div>
              <input
                id="settings-episodic-budget"
                type="number"
                min={100}
                max={20000}
                step={100}
                value={budgetText}
                aria-invalid={errField === "budget" || undefined}
                aria-describedby={describedBy(errField === "budget" && "settings-episodic-budget-error", "settings-episodic-budget-hint")}
                onChange={(e) => {
                  setBudgetText(e.target.value);
                  typed("budget");
                }}
                data-testid="settings-episodic-budget"
              />
              {fieldError("budget")}
              <div className="field-hint" id="settings-episodic-budget-hint">
                {t("settings.episodic.budgetHint")}
              </div>
            </div>
          </div>
        </div>
      </section>

      <SummaryFields
        draft={draft}
        stored={stored}
        edit={edit}
        thresholdText={thresholdText}
        onThresholdText={(v) => {
          setThresholdText(v);
          typed("threshold");
        }}
        timeoutText={llmTimeoutText}
        onTimeoutText={(v) => {
          setLlmTimeoutText(v);
          typed("llmTimeout");
        }}
        errField={errField === "threshold" || errField === "llmUrl" || errField === "llmTimeout" ? errField : null}
        fieldError={fieldError}
      />

      <section className="card form-section">
        <div className="form-grid">
          <label htmlFor="settings-language">{t("settings.language")}</label>
          <select id="settings-language" value={draft.language} onChange={(e) => edit({ language: e.target.value as LanguageDto })} data-testid="settings-language">
            <option value="system">{t("settings.system")}</option>
            <option value="zh">中文</option>
            <option value="en">English</option>
          </select>
          <label htmlFor="settings-theme">{t("settings.theme")}</label>
          <select id="settings-theme" value={draft.theme} onChange={(e) => edit({ theme: e.target.value as ThemeDto })} data-testid="settings-theme">
            <option value="system">{t("settings.system")}</option>
            <option value="light">{t("settings.light")}</option>
            <option value="dark">{t("settings.dark")}</option>
          </select>
        </div>
      </section>

      <div className={save.isError ? "save-bar has-error" : "save-bar"}>
        {save.isError && !save.isPending ? <SaveError error={save.error} field={errField} onGo={goToField} /> : null}
        <button type="submit" className="btn btn-primary" disabled={save.isPending || !canSave || dialog !== null} data-testid="settings-save">
          {save.isPending ? t("settings.saving") : t("settings.save")}
        </button>
        {saved && !save.isPending ? (
          <span className="saved" role="status" data-testid="settings-saved">
            <Icon name="check" /> {t("settings.saved")}
          </span>
        ) : null}
        {notSwitched && !saved && !save.isPending ? (
          <span className="muted" role="status" data-testid="settings-not-switched">
            {t("settings.notSwitched", { backend: backendLabel(t, currentBackend) })}
          </span>
        ) : null}
        <span className="spacer" />
        <span className="muted small">
          {t("settings.settingsFile")}: <code>{eff.settings_path}</code>
        </span>
      </div>
    </form>
    {dialog ? (
      <MigrateDialog
        {...dialog}
        onSaved={async (v) => {
          await applySaved(v);
          setSaved(true);
        }}
        onClose={() => {
          setDialog(null);
          // Closed before the switch: say so; the radio keeps the choice for another try.
          const after = qc.getQueryData<SettingsView>(opKey("get_settings", {}));
          const now = after ? (after.effective.root_kind === "install" ? after.effective.runtime_backend : after.settings.backend) : null;
          setNotSwitched(now !== dialog.to);
        }}
      />
    ) : null}
    </>
  );
}

/** In the sticky Save bar, where it is seen: what went wrong in the user's language, the field
 * it is about (with a way there) and the console's message as the detail. */
function SaveError({ error, field, onGo }: { error: unknown; field: ValueField | null; onGo: (f: ValueField) => void }) {
  const { t } = useI18n();
  const e = BackendError.from(error);
  return (
    <div className="save-error" role="alert" data-testid="settings-save-error" data-code={e.code}>
      <Icon name="error" size={14} />
      <span data-testid="settings-save-error-text">
        {field ? t("settings.saveFailedField", { field: t(FIELDS[field].label) }) : t("settings.saveFailed", { reason: errorHeadline(t, e.code) })}
      </span>
      {field ? (
        <button type="button" className="btn btn-small" onClick={() => onGo(field)} data-testid="settings-save-error-go">
          {t("settings.goToField")}
        </button>
      ) : e.message ? (
        <details className="error-details">
          <summary>{t("error.details")}</summary>
          <div className="error-message mono wrap" data-testid="settings-save-error-detail">
            {e.message}
          </div>
        </details>
      ) : null}
    </div>
  );
}
