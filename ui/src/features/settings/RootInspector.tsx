import type { RootInspection } from "../../backend/types";
import { Icon } from "../../components/Icon";
import { ErrorState } from "../../components/States";
import { useI18n } from "../../i18n";
import { useSettingsWrites } from "./hooks";

export { useInspection } from "./hooks";

/** Path field + Browse… + Inspect, as used by Settings and the welcome screen. */
export function RootField({
  value,
  onChange,
  onInspect,
  id,
  testId,
}: {
  value: string;
  onChange: (v: string) => void;
  onInspect: () => void;
  id: string;
  testId?: string;
}) {
  const { t } = useI18n();
  const writes = useSettingsWrites();
  return (
    <div className="path-field">
      <input
        id={id}
        type="text"
        className="mono"
        value={value}
        spellCheck={false}
        placeholder="/home/you/.oryxos"
        onChange={(e) => onChange(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === "Enter") {
            e.preventDefault();
            onInspect();
          }
        }}
        data-testid={testId}
      />
      {writes.supportsFolderPicker ? (
        <button
          type="button"
          className="btn"
          data-testid="settings-browse"
          onClick={() =>
            void writes.pickFolder().then((p) => {
              if (p) onChange(p);
            })
          }
        >
          <Icon name="folder" /> {t("settings.browse")}
        </button>
      ) : null}
      <button type="button" className="btn" onClick={onInspect} data-testid="settings-inspect">
        <Icon name="search" /> {t("settings.inspect")}
      </button>
    </div>
  );
}

export function InspectionView({ q }: { q: { data: RootInspection | undefined; error: unknown; isError: boolean; isFetching: boolean; refetch: () => unknown } }) {
  const { t } = useI18n();
  if (q.isError) return <ErrorState error={q.error} compact onRetry={() => void q.refetch()} />;
  const r = q.data;
  if (!r) return q.isFetching ? <div className="inspection muted">{t("common.loading")}</div> : null;
  const ok = r.warnings.length === 0;
  return (
    <div className={ok ? "inspection ok" : "inspection warn"} data-testid="inspection" aria-live="polite">
      <div className="inspection-head">
        <Icon name={ok ? "check" : "warning"} /> <strong>{t("settings.found")}</strong> <code>{r.path}</code>
      </div>
      <ul>
        <li data-testid="inspection-agents">
          {t("settings.foundAgents", { n: r.agents.length })}
          {r.agents.length ? <span className="muted">: {r.agents.join(", ")}</span> : null}
        </li>
        <li data-testid="inspection-memory">{t("settings.foundMemory", { n: r.memory_files })}</li>
        <li data-testid="inspection-db">
          {t("settings.foundDb")}: <code>{r.db_path}</code> — {r.db_exists ? <span className="tag tag-ok">{t("settings.dbFound")}</span> : <span className="tag tag-muted">{t("settings.dbMissing")}</span>}
        </li>
        <li>
          {t("settings.foundBootstrap")}: {r.bootstrap_files.length ? r.bootstrap_files.join(", ") : t("common.none")}
        </li>
      </ul>
      {r.warnings.length ? (
        <ul className="inspection-warnings" data-testid="inspection-warnings">
          {r.warnings.map((w, i) => (
            <li key={i}>
              <Icon name="warning" size={13} /> {w}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
