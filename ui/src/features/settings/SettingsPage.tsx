import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";

import { useBackend } from "../../backend";
import type { BackendDto, LanguageDto, SettingsDto, SettingsView, ThemeDto } from "../../backend/types";
import { Icon } from "../../components/Icon";
import { ErrorState, Loadable } from "../../components/States";
import { useI18n } from "../../i18n";
import { useSettings } from "../../queries/hooks";
import { InspectionView, RootField, useInspection } from "./RootInspector";

export const MIN_WINDOW = 100;
export const MAX_WINDOW = 1_000_000;

export function parseWindow(s: string): number | null {
  if (!/^\s*\d+\s*$/.test(s)) return null;
  const n = Number(s);
  return n >= MIN_WINDOW && n <= MAX_WINDOW ? n : null;
}

export function SettingsPage() {
  const { t } = useI18n();
  const q = useSettings();
  return (
    <div className="page">
      <div className="page-head">
        <h1>{t("settings.title")}</h1>
      </div>
      <Loadable query={q} rows={10}>
        {(view) => <SettingsForm view={view} />}
      </Loadable>
    </div>
  );
}

function SettingsForm({ view }: { view: SettingsView }) {
  const { t } = useI18n();
  const backend = useBackend();
  const qc = useQueryClient();
  const [draft, setDraft] = useState<SettingsDto>(view.settings);
  const [root, setRoot] = useState(view.settings.root ?? view.effective.root);
  const [windowText, setWindowText] = useState(String(view.settings.archival_limit_chars));
  const [saved, setSaved] = useState(false);
  const inspection = useInspection(root, draft.db_path);
  const windowValue = parseWindow(windowText);

  const edit = (patch: Partial<SettingsDto>) => {
    setDraft((d) => ({ ...d, ...patch }));
    setSaved(false);
  };

  const save = useMutation({
    mutationFn: () =>
      backend.updateSettings({
        ...draft,
        root: root.trim() || null,
        db_path: draft.db_path?.trim() || null,
        archival_limit_chars: windowValue ?? draft.archival_limit_chars,
      }),
    onSuccess: async (v) => {
      setDraft(v.settings);
      setRoot(v.settings.root ?? v.effective.root);
      setWindowText(String(v.settings.archival_limit_chars));
      qc.setQueryData(["settings"], v);
      // Every view switches at once: the root, backend or window changed under all of them.
      await qc.invalidateQueries();
      setSaved(true);
    },
  });

  const backends: { key: BackendDto; label: string; hint: string; disabled?: boolean }[] = [
    { key: "markdown", label: t("settings.backend.markdown"), hint: t("settings.backend.markdownHint") },
    { key: "sqlite", label: t("settings.backend.sqlite"), hint: t("settings.backend.sqliteHint") },
    { key: "mem0", label: t("settings.backend.mem0"), hint: t("settings.backend.mem0Hint"), disabled: true },
  ];
  const eff = view.effective;

  return (
    <form
      className="settings"
      onSubmit={(e) => {
        e.preventDefault();
        if (windowValue !== null) save.mutate();
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
        <div className="field-hint">{t("settings.rootHint")}</div>
        <RootField
          id="settings-root"
          value={root}
          onChange={(v) => {
            setRoot(v);
            setSaved(false);
          }}
          onInspect={() => void inspection.refetch()}
          testId="settings-root"
        />
        <InspectionView q={inspection} />
      </section>

      <section className="card form-section">
        <fieldset>
          <legend className="field-label-lg">{t("settings.backend")}</legend>
          <div className="radio-cards">
            {backends.map((b) => (
              <label key={b.key} className={`radio-card${draft.backend === b.key ? " on" : ""}${b.disabled ? " disabled" : ""}`}>
                <input
                  type="radio"
                  name="backend"
                  value={b.key}
                  checked={draft.backend === b.key}
                  disabled={b.disabled}
                  onChange={() => edit({ backend: b.key })}
                  data-testid={`settings-backend-${b.key}`}
                />
                <span className="radio-title">{b.label}</span>
                <span className="radio-hint">{b.hint}</span>
              </label>
            ))}
          </div>
        </fieldset>
        <div className="form-grid">
          <label htmlFor="settings-db">{t("settings.dbPath")}</label>
          <div>
            <input
              id="settings-db"
              type="text"
              className="mono"
              spellCheck={false}
              value={draft.db_path ?? ""}
              placeholder={`${root.trim() || eff.root}/oryxos.db`}
              onChange={(e) => edit({ db_path: e.target.value || null })}
              data-testid="settings-db"
            />
            <div className="field-hint">{t("settings.dbPathHint", { path: `${root.trim() || eff.root}/oryxos.db` })}</div>
          </div>
          <label htmlFor="settings-window">{t("settings.window")}</label>
          <div>
            <input
              id="settings-window"
              type="number"
              min={MIN_WINDOW}
              max={MAX_WINDOW}
              step={100}
              value={windowText}
              aria-invalid={windowValue === null}
              onChange={(e) => {
                setWindowText(e.target.value);
                setSaved(false);
              }}
              data-testid="settings-window"
            />
            <div className={windowValue === null ? "field-hint inline-error" : "field-hint"}>{windowValue === null ? t("settings.windowInvalid") : t("settings.windowHint")}</div>
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

      <div className="save-bar">
        <button type="submit" className="btn btn-primary" disabled={save.isPending || windowValue === null} data-testid="settings-save">
          {save.isPending ? t("settings.saving") : t("settings.save")}
        </button>
        {saved && !save.isPending ? (
          <span className="saved" role="status" data-testid="settings-saved">
            <Icon name="check" /> {t("settings.saved")}
          </span>
        ) : null}
        <span className="spacer" />
        <span className="muted small">
          {t("settings.settingsFile")}: <code>{eff.settings_path}</code>
        </span>
      </div>
      {save.isError ? <ErrorState error={save.error} compact /> : null}
    </form>
  );
}
