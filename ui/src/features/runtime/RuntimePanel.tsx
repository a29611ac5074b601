// The runtime the console manages, as its install configures it: where it lives, whether it is
// running, each value that decides what the agents get with where it came from, its provider
// registry, and the values changed since the running process started. Values the console manages
// are changed here, in config/application.yml, one at a time and undoably.
import { useState } from "react";

import type { LocalEmbeddingsPlan, RuntimeChange, RuntimeInfo } from "../../backend/types";
import { FieldError } from "../../components/FieldError";
import { Icon } from "../../components/Icon";
import { Loadable } from "../../components/States";
import { Toast } from "../../components/Toast";
import { useI18n, type MessageKey } from "../../i18n";
import { useOp, useOpMutation } from "../../queries/ops";
import { LocalEmbeddingsDialog } from "./LocalEmbeddingsDialog";
import "./runtime.css";

type Row = { key: string; value: string; settable: boolean };

/** The values shown, in the order a reader meets them: what decides memory first. */
function rows(info: RuntimeInfo): Row[] {
  const num = (n: number | null | undefined) => (n === null || n === undefined ? "" : String(n));
  return [
    { key: "memory.backend", value: info.backend, settable: false },
    { key: "spring.datasource.url", value: info.database ?? "", settable: false },
    { key: "embedding.provider", value: info.embedding.provider, settable: true },
    { key: "embedding.model", value: info.embedding.model, settable: true },
    { key: "memory.recall.top-k", value: num(info.recall.topK), settable: true },
    { key: "memory.recall.weight.semantic", value: num(info.recall.weights.semantic), settable: true },
    { key: "memory.recall.weight.keyword", value: num(info.recall.weights.keyword), settable: true },
    { key: "memory.recall.weight.recency", value: num(info.recall.weights.recency), settable: true },
    { key: "memory.mem0.base-url", value: info.mem0.baseUrl, settable: false },
    { key: "memory.mem0.user-id", value: info.mem0.userId, settable: false },
  ];
}

const SOURCE_LABEL: Record<string, MessageKey> = {
  default: "runtime.source.default",
  file: "runtime.source.file",
  env: "runtime.source.env",
  cmdline: "runtime.source.cmdline",
};

/** `compact`: the dashboard's summary (no editing, no provider table). */
export function RuntimePanel({ compact = false }: { compact?: boolean }) {
  const { t } = useI18n();
  // Polled: the runtime starts and stops, and its configuration is edited by hand, without a
  // change event the console could follow.
  const info = useOp("runtime_info", {}, { refetchInterval: 5_000 });
  return (
    <section className="card runtime-panel" aria-labelledby="runtime-title" data-testid="runtime-panel">
      <h2 id="runtime-title">{t("runtime.title")}</h2>
      <Loadable query={info} rows={4}>
        {(i) => (i.kind === "install" ? <InstallView info={i} compact={compact} /> : <BareRoot info={i} />)}
      </Loadable>
    </section>
  );
}

function BareRoot({ info }: { info: RuntimeInfo }) {
  const { t } = useI18n();
  return (
    <div data-testid="runtime-bare">
      <p>{t("runtime.bare", { root: info.root })}</p>
      <p className="field-hint">{t("runtime.bareHint")}</p>
    </div>
  );
}

/** What the panel's toast says: a value written (undoable), or undone. */
type Notice = { id: number; text: string; restart: boolean; undoable: boolean };

function InstallView({ info, compact }: { info: RuntimeInfo; compact: boolean }) {
  const { t } = useI18n();
  const [notice, setNotice] = useState<Notice | null>(null);
  const [localOpen, setLocalOpen] = useState(false);
  const undo = useOpMutation("undo_runtime_value", {
    onSuccess: (c) => setNotice({ id: Date.now(), text: changeText(t, c, true), restart: c.restartNeeded, undoable: false }),
  });
  const onChanged = (c: RuntimeChange) => setNotice({ id: Date.now(), text: changeText(t, c, false), restart: c.restartNeeded, undoable: true });
  const onLocal = (p: LocalEmbeddingsPlan) => {
    setLocalOpen(false);
    if (p.applied) setNotice({ id: Date.now(), text: t("runtime.local.applied", { provider: p.provider, url: p.url }), restart: p.restartNeeded, undoable: true });
  };
  return (
    <div className="runtime-install" data-testid="runtime-install" data-backend={info.backend}>
      <div className="runtime-facts">
        <div>
          <span className="runtime-fact-label">{t("runtime.install")}</span> <span className="mono wrap">{info.install}</span>
        </div>
        <div data-testid="runtime-running">
          {info.running ? (
            <>
              <span className="status-dot status-on" aria-hidden /> {t("runtime.running", { pid: String(info.running.pid), port: String(info.running.port) })}{" "}
              <a href={`http://localhost:${info.running.port}/admin/`} target="_blank" rel="noreferrer">
                {t("runtime.adminLink")}
              </a>
            </>
          ) : (
            <>
              <span className="status-dot" aria-hidden /> {t("runtime.stopped")}
            </>
          )}
        </div>
        {!info.configExists ? <div className="field-hint">{t("runtime.noConfig", { file: info.config ?? "config/application.yml" })}</div> : null}
        {info.database && !info.databaseExists ? <div className="field-hint">{t("runtime.noDatabase", { file: info.database })}</div> : null}
      </div>
      {info.pending.length ? (
        <div className="banner banner-warn" role="status" data-testid="runtime-pending">
          <Icon name="warning" />
          <div>
            <strong>{t("runtime.restart")}</strong>
            <ul className="runtime-pending">
              {info.pending.map((p) => (
                <li key={p.key}>
                  <span className="mono">{p.key}</span>: {t("runtime.pendingValue", { running: p.running || "∅", configured: p.configured || "∅" })}
                </li>
              ))}
            </ul>
          </div>
        </div>
      ) : null}
      {info.warnings.length ? (
        <ul className="runtime-warnings" data-testid="runtime-warnings">
          {info.warnings.map((w) => (
            <li key={w}>
              <Icon name="warning" /> {w}
            </li>
          ))}
        </ul>
      ) : null}
      <ValuesTable info={info} compact={compact} onChanged={onChanged} />
      {compact || !info.configExists ? null : (
        <div className="runtime-local-action">
          <button type="button" className="btn btn-small" onClick={() => setLocalOpen(true)} data-testid="runtime-use-local-embeddings">
            {t("runtime.local.button")}
          </button>
          <span className="field-hint">{t("runtime.local.hint")}</span>
        </div>
      )}
      {compact ? null : <Providers info={info} />}
      {localOpen ? <LocalEmbeddingsDialog onClose={() => setLocalOpen(false)} onApplied={onLocal} /> : null}
      {notice ? (
        <Toast
          id={notice.id}
          onClose={() => setNotice(null)}
          detail={notice.restart ? t("runtime.restart") : undefined}
          action={notice.undoable ? { label: t("toast.undoBtn"), onClick: () => undo.mutate({}), testId: "runtime-undo" } : undefined}
        >
          {notice.text}
        </Toast>
      ) : null}
    </div>
  );
}

function changeText(t: ReturnType<typeof useI18n>["t"], c: RuntimeChange, undone: boolean): string {
  return t(undone ? "runtime.undone" : "runtime.saved", { key: c.key, value: c.value || "∅", file: c.file });
}

function ValuesTable({ info, compact, onChanged }: { info: RuntimeInfo; compact: boolean; onChanged: (c: RuntimeChange) => void }) {
  const { t } = useI18n();
  const [editing, setEditing] = useState<string | null>(null);
  const shown = compact ? rows(info).slice(0, 5) : rows(info);
  return (
    <>
      <table className="table runtime-values" data-testid="runtime-values">
        <thead>
          <tr>
            <th scope="col">{t("runtime.col.key")}</th>
            <th scope="col">{t("runtime.col.value")}</th>
            <th scope="col">{t("runtime.col.source")}</th>
            {compact ? null : <th scope="col" aria-label={t("runtime.col.actions")} />}
          </tr>
        </thead>
        <tbody>
          {shown.map((r) => (
            <tr key={r.key} data-testid={`runtime-value-${r.key}`}>
              <th scope="row" className="mono">
                {r.key}
              </th>
              <td className="mono wrap" data-testid="value">
                {editing === r.key ? (
                  <EditValue row={r} onDone={(c) => { setEditing(null); if (c) onChanged(c); }} />
                ) : r.value === "" ? (
                  <span className="muted">{t("runtime.unset")}</span>
                ) : (
                  r.value
                )}
              </td>
              <td data-testid="source">{sourceLabel(t, info.sources[r.key])}</td>
              {compact ? null : (
                <td>
                  {r.settable && editing !== r.key && info.configExists ? (
                    <button type="button" className="btn btn-small btn-ghost" onClick={() => setEditing(r.key)} data-testid="runtime-edit">
                      {t("runtime.edit")}
                    </button>
                  ) : null}
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

function sourceLabel(t: (k: MessageKey) => string, source: string | undefined): string {
  const key = source ? SOURCE_LABEL[source] : undefined;
  return key ? t(key) : (source ?? "");
}

function EditValue({ row, onDone }: { row: Row; onDone: (c: RuntimeChange | null) => void }) {
  const { t } = useI18n();
  const [value, setValue] = useState(row.value);
  const set = useOpMutation("set_runtime_value", { onSuccess: (c) => onDone(c) });
  return (
    <form
      className="runtime-edit"
      onSubmit={(e) => {
        e.preventDefault();
        set.mutate({ key: row.key, value: value.trim() });
      }}
    >
      <input
        className="input mono"
        value={value}
        autoFocus
        aria-label={row.key}
        onChange={(e) => setValue(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === "Escape") onDone(null);
        }}
        aria-invalid={set.isError}
        data-testid="runtime-edit-input"
      />
      <button type="submit" className="btn btn-small btn-primary" disabled={set.isPending} data-testid="runtime-edit-save">
        {t("memory.edit.save")}
      </button>
      <button type="button" className="btn btn-small btn-ghost" onClick={() => onDone(null)}>
        {t("memory.edit.cancel")}
      </button>
      {set.isError ? <FieldError id={`runtime-edit-error`} error={set.error} testId="runtime-edit-error" /> : null}
    </form>
  );
}

function Providers({ info }: { info: RuntimeInfo }) {
  const { t } = useI18n();
  return (
    <div className="runtime-providers" data-testid="runtime-providers">
      <h3 className="subsection-title">{t("runtime.providers")}</h3>
      <div className="field-hint">{t(info.providersFrom === "table" ? "runtime.providersTable" : "runtime.providersConfig")}</div>
      {info.providers.length === 0 ? (
        <p className="muted">{t("runtime.noProviders")}</p>
      ) : (
        <table className="table">
          <thead>
            <tr>
              <th scope="col">{t("runtime.col.name")}</th>
              <th scope="col">{t("runtime.col.baseUrl")}</th>
              <th scope="col">{t("runtime.col.apiKey")}</th>
            </tr>
          </thead>
          <tbody>
            {info.providers.map((p) => (
              <tr key={p.name} data-testid={`runtime-provider-${p.name}`}>
                <th scope="row">{p.name}</th>
                <td className="mono wrap">{p.baseUrl ?? ""}</td>
                <td className="mono">{p.apiKey || <span className="muted">{t("runtime.unset")}</span>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
