import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";

import type { SettingsView } from "../../backend/types";
import { ErrorState } from "../../components/States";
import { useI18n } from "../../i18n";
import { opKey } from "../../queries/ops";
import { href } from "../../router";
import { useSettingsWrites } from "./hooks";
import { InspectionView, RootField, useInspection } from "./RootInspector";
import "./settings.css";

/** First run: open an existing root or create the sample one, then save it as the root. */
export function WelcomePage({ view }: { view: SettingsView }) {
  const { t } = useI18n();
  const writes = useSettingsWrites();
  const qc = useQueryClient();
  const [openPath, setOpenPath] = useState("");
  const [samplePath, setSamplePath] = useState(view.effective.root);
  const inspection = useInspection(openPath, null);

  const applyRoot = async (root: string) => {
    const v = await writes.updateSettings({ ...view.settings, root });
    qc.setQueryData(opKey("get_settings", {}), v);
    await qc.invalidateQueries();
    window.location.hash = "#/agents";
  };
  const open = useMutation({ mutationFn: () => applyRoot(openPath.trim()) });
  const sample = useMutation({
    mutationFn: async () => {
      const r = await writes.createSampleRoot(samplePath.trim());
      await applyRoot(r.path);
    },
  });
  const usable = !!inspection.data && inspection.data.exists && inspection.data.is_dir;
  const canOpen = usable && !open.isPending;
  // Why "Open this root" waits: nothing inspected yet, or what was inspected is not a folder.
  const why = usable ? null : inspection.data ? t("welcome.openNotDir") : t("welcome.openNeedsInspect");

  return (
    <div className="welcome" data-testid="welcome">
      <div className="welcome-inner">
        <div className="brand brand-lg">
          <span className="brand-mark" aria-hidden="true">O</span>
          <h1>{t("welcome.title")}</h1>
        </div>
        <p className="muted">{t("welcome.subtitle")}</p>
        <div className="welcome-cards">
          <section className="card">
            <h2>{t("welcome.open")}</h2>
            <p className="field-hint" id="welcome-open-hint">
              {t("welcome.openHint")}
            </p>
            <RootField
              id="welcome-open"
              value={openPath}
              onChange={setOpenPath}
              onInspect={() => void inspection.refetch()}
              testId="welcome-open-path"
              describedBy="welcome-open-hint welcome-open-inspection"
              invalid={inspection.isError || (inspection.data !== undefined && !usable)}
            />
            <InspectionView q={inspection} id="welcome-open-inspection" />
            <button
              type="button"
              className="btn btn-primary"
              disabled={!canOpen}
              aria-describedby={why ? "welcome-open-why" : undefined}
              onClick={() => open.mutate()}
              data-testid="welcome-open"
            >
              {t("welcome.openButton")}
            </button>
            {why ? (
              <p className="field-hint" id="welcome-open-why" data-testid="welcome-open-why">
                {why}
              </p>
            ) : null}
            {open.isError ? <ErrorState error={open.error} compact /> : null}
          </section>
          <section className="card">
            <h2>{t("welcome.sample")}</h2>
            <p className="field-hint">{t("welcome.sampleHint")}</p>
            <input
              type="text"
              className="mono"
              value={samplePath}
              spellCheck={false}
              onChange={(e) => setSamplePath(e.target.value)}
              aria-label={t("welcome.sample")}
              data-testid="welcome-sample-path"
            />
            <button type="button" className="btn btn-primary" disabled={!samplePath.trim() || sample.isPending} onClick={() => sample.mutate()} data-testid="welcome-sample">
              {t("welcome.sampleButton")}
            </button>
            {sample.isError ? <ErrorState error={sample.error} compact /> : null}
          </section>
        </div>
        <a className="muted small" href={href({ page: "settings" })}>
          {t("welcome.skip")}
        </a>
      </div>
    </div>
  );
}
