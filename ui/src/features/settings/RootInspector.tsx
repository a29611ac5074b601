import { useState } from "react";

import type { RootInspection } from "../../backend/types";
import { FieldError } from "../../components/FieldError";
import { Icon } from "../../components/Icon";
import { WarningLine } from "../../components/Warnings";
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
  describedBy,
  invalid,
}: {
  value: string;
  onChange: (v: string) => void;
  onInspect: () => void;
  id: string;
  testId?: string;
  /** Ids of the hint, the inspection and any error, read with the field. */
  describedBy?: string;
  invalid?: boolean;
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
        aria-describedby={describedBy || undefined}
        aria-invalid={invalid || undefined}
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

/** How many agent names the inspection lists before "Show all". */
const AGENTS_SHOWN = 5;

type InspectionQuery = { data: RootInspection | undefined; error: unknown; isError: boolean; isFetching: boolean; refetch: () => unknown };

/** The inspection's headline says what was found: a folder (with or without warnings), nothing,
 * or a file. */
export function inspectionHeadline(r: RootInspection): { icon: "check" | "warning" | "error"; key: "settings.found" | "settings.inspectWarn" | "settings.inspectMissing" | "settings.inspectNotDir"; cls: string } {
  if (!r.exists) return { icon: "error", key: "settings.inspectMissing", cls: "bad" };
  if (!r.is_dir) return { icon: "error", key: "settings.inspectNotDir", cls: "bad" };
  return r.warnings.length ? { icon: "warning", key: "settings.inspectWarn", cls: "warn" } : { icon: "check", key: "settings.found", cls: "ok" };
}

/** What Inspect found under the root field; `id` is what the field's aria-describedby names. A
 * refused path (a relative one, say) is a field error, not a failure of the page. */
export function InspectionView({ q, id }: { q: InspectionQuery; id?: string }) {
  const { t, num } = useI18n();
  const [allAgents, setAllAgents] = useState(false);
  if (q.isError) return <FieldError id={id ?? "inspection"} error={q.error} override={{ invalid_input: "settings.inspectRefused" }} testId="inspection-error" />;
  const r = q.data;
  if (!r) return q.isFetching ? <div id={id} className="inspection muted">{t("common.loading")}</div> : null;
  const h = inspectionHeadline(r);
  const usable = r.exists && r.is_dir;
  const shown = allAgents ? r.agents : r.agents.slice(0, AGENTS_SHOWN);
  const more = r.agents.length - shown.length;
  return (
    <div id={id} className={`inspection ${h.cls}`} data-testid="inspection" data-usable={usable ? "true" : "false"} aria-live="polite">
      <div className="inspection-head" data-testid="inspection-head">
        <Icon name={h.icon} /> <strong>{t(h.key)}</strong> <code className="wrap">{r.path}</code>
      </div>
      {usable ? (
        <ul>
          <li data-testid="inspection-agents">
            {t("settings.foundAgents", { n: num(r.agents.length) })}
            {r.agents.length ? (
              <span className="muted">
                : {shown.join(", ")}
                {more > 0 ? ` ${t("settings.moreAgents", { n: num(more) })}` : null}
              </span>
            ) : null}
            {r.agents.length > AGENTS_SHOWN ? (
              <>
                {" "}
                <button type="button" className="link-btn" aria-expanded={allAgents} onClick={() => setAllAgents(!allAgents)} data-testid="inspection-agents-toggle">
                  {allAgents ? t("settings.showFewerAgents") : t("settings.showAllAgents", { n: num(r.agents.length) })}
                </button>
              </>
            ) : null}
          </li>
          <li data-testid="inspection-memory">{t("settings.foundMemory", { n: r.memory_files })}</li>
          <li data-testid="inspection-db">
            {t("settings.foundDb")}: <code>{r.db_path}</code> — {r.db_exists ? <span className="tag tag-ok">{t("settings.dbFound")}</span> : <span className="tag tag-muted">{t("settings.dbMissing")}</span>}
          </li>
          <li>
            {t("settings.foundBootstrap")}: {r.bootstrap_files.length ? r.bootstrap_files.join(", ") : t("common.none")}
          </li>
        </ul>
      ) : null}
      {r.warnings.length ? (
        <ul className="inspection-warnings" data-testid="inspection-warnings">
          {r.warnings.map((w, i) => (
            <li key={i}>
              <Icon name="warning" size={13} /> <WarningLine warning={w} />
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
