// Settings → Summaries: the automatic mode (off / propose / apply) and its threshold, and the
// LLM summariser (an OpenAI-compatible chat endpoint; empty fields fall back to the agent's own
// provider). The API key is write-only like mem0's: never shown, "stored" when one is kept, an
// empty field keeps it. The console checks every value on save; a refused one shows at its field.
import type { ReactNode } from "react";

import type { SettingsDto } from "../../backend/types";
import { Icon } from "../../components/Icon";
import { useI18n, type MessageKey } from "../../i18n";
import { SECTION_IDS } from "./section";

type AutoSummaryDto = NonNullable<SettingsDto["summary_auto"]>;

/** The summary fields a refused save can be about. */
export type SummaryField = "threshold" | "llmUrl" | "llmTimeout";

const MODES: { key: AutoSummaryDto; label: MessageKey; hint: MessageKey }[] = [
  { key: "off", label: "settings.summary.auto.off", hint: "settings.summary.auto.offHint" },
  { key: "propose", label: "settings.summary.auto.propose", hint: "settings.summary.auto.proposeHint" },
  { key: "apply", label: "settings.summary.auto.apply", hint: "settings.summary.auto.applyHint" },
];

function describedBy(...ids: (string | false | null | undefined)[]): string | undefined {
  return ids.filter(Boolean).join(" ") || undefined;
}

export function SummaryFields({
  draft,
  stored,
  edit,
  thresholdText,
  onThresholdText,
  timeoutText,
  onTimeoutText,
  errField,
  fieldError,
}: {
  draft: SettingsDto;
  stored: SettingsDto;
  edit: (patch: Partial<SettingsDto>) => void;
  thresholdText: string;
  onThresholdText: (v: string) => void;
  timeoutText: string;
  onTimeoutText: (v: string) => void;
  /** The field a refused save is about, if one of these. */
  errField: SummaryField | null;
  /** The refused save's error at `f` (null when it is not about `f`). */
  fieldError: (f: SummaryField) => ReactNode;
}) {
  const { t } = useI18n();
  const auto = draft.summary_auto ?? "off";
  const typedKey = !!draft.summary_llm_api_key;
  const storedKey = !!stored.summary_llm_api_key_set;
  const keyKept = storedKey && !!draft.summary_llm_api_key_set;
  return (
    <section className="card form-section" id={SECTION_IDS.summaries} tabIndex={-1} aria-labelledby="settings-summaries-title" data-testid="settings-summaries">
      <h2 id="settings-summaries-title" className="field-label-lg">
        {t("settings.summary")}
      </h2>
      <div className="field-hint">{t("settings.summary.hint")}</div>
      <fieldset>
        <legend className="subsection-title">{t("settings.summary.auto")}</legend>
        <div className="radio-cards">
          {MODES.map((m) => (
            <label key={m.key} className={`radio-card${auto === m.key ? " on" : ""}`}>
              <input
                type="radio"
                name="summary_auto"
                value={m.key}
                checked={auto === m.key}
                onChange={() => edit({ summary_auto: m.key })}
                data-testid={`settings-summary-auto-${m.key}`}
              />
              <span className="radio-title">{t(m.label)}</span>
              <span className="radio-hint">{t(m.hint)}</span>
            </label>
          ))}
        </div>
      </fieldset>
      <div className="form-grid">
        <label htmlFor="settings-summary-threshold">{t("settings.summary.threshold")}</label>
        <div>
          <input
            id="settings-summary-threshold"
            type="number"
            min={2}
            step={1}
            value={thresholdText}
            aria-invalid={errField === "threshold" || undefined}
            aria-describedby={describedBy(errField === "threshold" && "settings-summary-threshold-error", "settings-summary-threshold-hint")}
            onChange={(e) => onThresholdText(e.target.value)}
            data-testid="settings-summary-threshold"
          />
          {fieldError("threshold")}
          <div className="field-hint" id="settings-summary-threshold-hint">
            {t("settings.summary.thresholdHint")}
          </div>
        </div>
      </div>

      <div className="subsection" role="group" aria-labelledby="settings-summary-llm-title" data-testid="settings-summary-llm">
        <h3 id="settings-summary-llm-title" className="subsection-title">
          {t("settings.summary.llm")}
        </h3>
        <div className="field-hint">{t("settings.summary.llmHint")}</div>
        <div className="form-grid">
          <label htmlFor="settings-summary-url">{t("settings.summary.url")}</label>
          <div>
            <input
              id="settings-summary-url"
              type="text"
              inputMode="url"
              className="mono"
              spellCheck={false}
              autoComplete="off"
              placeholder="https://api.openai.com/v1"
              value={draft.summary_llm_base_url ?? ""}
              aria-invalid={errField === "llmUrl" || undefined}
              aria-describedby={describedBy(errField === "llmUrl" && "settings-summary-url-error", "settings-summary-url-hint")}
              onChange={(e) => edit({ summary_llm_base_url: e.target.value || null })}
              data-testid="settings-summary-url"
            />
            {fieldError("llmUrl")}
            <div className="field-hint" id="settings-summary-url-hint">
              {t("settings.summary.urlHint")}
            </div>
          </div>

          <label htmlFor="settings-summary-model">{t("settings.summary.model")}</label>
          <div>
            <input
              id="settings-summary-model"
              type="text"
              className="mono"
              spellCheck={false}
              autoComplete="off"
              value={draft.summary_llm_model ?? ""}
              aria-describedby="settings-summary-model-hint"
              onChange={(e) => edit({ summary_llm_model: e.target.value || null })}
              data-testid="settings-summary-model"
            />
            <div className="field-hint" id="settings-summary-model-hint">
              {t("settings.summary.modelHint")}
            </div>
          </div>

          <label htmlFor="settings-summary-key">{t("settings.summary.key")}</label>
          <div>
            <div className="path-field">
              <input
                id="settings-summary-key"
                type="password"
                className="mono"
                autoComplete="new-password"
                spellCheck={false}
                value={draft.summary_llm_api_key ?? ""}
                placeholder={keyKept ? t("settings.mem0.keyStoredPlaceholder") : ""}
                aria-describedby="settings-summary-key-hint settings-summary-key-env"
                onChange={(e) => edit({ summary_llm_api_key: e.target.value || null })}
                data-testid="settings-summary-key"
              />
              {keyKept && !typedKey ? (
                <span className="tag tag-ok" data-testid="settings-summary-key-stored">
                  <Icon name="check" size={12} /> {t("settings.mem0.keyStored")}
                </span>
              ) : null}
              {storedKey && !typedKey ? (
                draft.summary_llm_api_key_set ? (
                  <button type="button" className="btn btn-small" onClick={() => edit({ summary_llm_api_key_set: false })} data-testid="settings-summary-key-forget">
                    {t("settings.mem0.keyForget")}
                  </button>
                ) : (
                  <button type="button" className="btn btn-small" onClick={() => edit({ summary_llm_api_key_set: true })} data-testid="settings-summary-key-keep">
                    {t("settings.mem0.keyUndo")}
                  </button>
                )
              ) : null}
            </div>
            <div className="field-hint" id="settings-summary-key-hint" data-testid="settings-summary-key-hint">
              {storedKey && !draft.summary_llm_api_key_set && !typedKey ? t("settings.mem0.keyForgotten") : keyKept ? t("settings.mem0.keyStoredHint") : null}
            </div>
            <div className="field-hint" id="settings-summary-key-env">
              {t("settings.summary.keyEnv")}
            </div>
          </div>

          <label htmlFor="settings-summary-timeout">{t("settings.summary.timeout")}</label>
          <div>
            <input
              id="settings-summary-timeout"
              type="number"
              min={1}
              step={1000}
              value={timeoutText}
              aria-invalid={errField === "llmTimeout" || undefined}
              aria-describedby={describedBy(errField === "llmTimeout" && "settings-summary-timeout-error", "settings-summary-timeout-hint")}
              onChange={(e) => onTimeoutText(e.target.value)}
              data-testid="settings-summary-timeout"
            />
            {fieldError("llmTimeout")}
            <div className="field-hint" id="settings-summary-timeout-hint">
              {t("settings.summary.timeoutHint")}
            </div>
          </div>
        </div>
      </div>
    </section>
  );
}
