import { useMutation } from "@tanstack/react-query";
import { useId, useState } from "react";

import { BackendError, useBackend } from "../../backend";
import type { CreateAgentArgs } from "../../backend/types";
import { Dialog } from "../../components/Dialog";
import { useI18n } from "../../i18n";
import { useOp } from "../../queries/ops";
import { navigate } from "../../router";
import { NAME_HINT, NAME_RE, useInvalidateAgents } from "./manage";

type Form = {
  name: string;
  description: string;
  provider: string;
  model: string;
  temperature: string;
  maxHistory: string;
  tools: string;
  bootstrap: string[];
  body: string;
  from: string;
  withMemory: boolean;
  draft: boolean;
};

const EMPTY: Form = { name: "", description: "", provider: "", model: "", temperature: "", maxHistory: "", tools: "", bootstrap: [], body: "", from: "", withMemory: false, draft: false };

/** The `create_agent` arguments: only what the user filled in. */
export function createArgs(f: Form, reuseArchivedName: boolean): CreateAgentArgs {
  const a: CreateAgentArgs = { name: f.name.trim() };
  const text = (v: string) => (v.trim() === "" ? undefined : v.trim());
  const num = (v: string) => (v.trim() === "" ? undefined : Number(v.trim()));
  if (text(f.description)) a.description = text(f.description);
  if (text(f.provider)) a.provider = text(f.provider);
  if (text(f.model)) a.model = text(f.model);
  if (num(f.temperature) !== undefined) a.temperature = num(f.temperature);
  if (num(f.maxHistory) !== undefined) a.max_history_turns = num(f.maxHistory);
  const tools = f.tools
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  if (tools.length) a.tools = tools;
  if (f.bootstrap.length) a.bootstrap = f.bootstrap;
  if (f.body.trim() !== "") a.body = f.body;
  if (f.from) {
    a.from = f.from;
    if (f.withMemory) a.with_memory = true;
  }
  if (reuseArchivedName) a.reuse_archived_name = true;
  if (f.draft) a.draft = true;
  return a;
}

export function CreateAgentDialog({ onClose }: { onClose: () => void }) {
  const { t } = useI18n();
  const b = useBackend();
  const agents = useOp("list_agents", {});
  const files = useOp("bootstrap_files", {});
  const choices = useOp("new_agent_choices", {});
  const registry = choices.data?.providers ?? null;
  const defaultProvider = choices.data?.default_provider ?? "";
  const invalidate = useInvalidateAgents();
  const formId = useId();
  const [f, setF] = useState<Form>(EMPTY);
  const set = <K extends keyof Form>(k: K, v: Form[K]) => setF((x) => ({ ...x, [k]: v }));
  const create = useMutation({
    mutationFn: (reuse: boolean) => b.call("create_agent", createArgs(f, reuse)),
    onSuccess: async (a) => {
      await invalidate();
      onClose();
      navigate({ page: "agent", name: a.summary.name, tab: "overview" });
    },
  });
  const name = f.name.trim();
  const localBad = name !== "" && !NAME_RE.test(name);
  const exists = agents.data?.agents.some((a) => a.name === name) ?? false;
  const err = create.error ? BackendError.from(create.error) : null;
  // A conflict on a name no live agent has: an archived agent has it.
  const archivedConflict = err?.code === "conflict" && !exists;
  const submit = (e?: React.FormEvent) => {
    e?.preventDefault();
    if (name === "" || create.isPending) return;
    create.mutate(false);
  };
  const bootstrapNames = files.data?.map((x) => x.name) ?? [];

  return (
    <Dialog
      title={t("create.title")}
      onEscape={onClose}
      testId="create-agent"
      wide
      footer={
        <>
          <button type="button" className="btn" onClick={onClose} data-testid="create-cancel">
            {t("edit.cancel")}
          </button>
          <button type="submit" form={formId} className="btn btn-primary" disabled={name === "" || create.isPending} data-testid="create-submit">
            {create.isPending ? t("create.creating") : t("create.submit")}
          </button>
        </>
      }
    >
      <form id={formId} className="form-grid create-form" onSubmit={submit}>
        <label htmlFor={`${formId}-name`}>{t("create.name")}</label>
        <div>
          <input
            id={`${formId}-name`}
            type="text"
            className="mono"
            value={f.name}
            onChange={(e) => {
              set("name", e.target.value);
              create.reset();
            }}
            aria-invalid={localBad || exists || err?.code === "invalid_agent_name" ? true : undefined}
            aria-describedby={`${formId}-name-hint`}
            autoComplete="off"
            data-autofocus
            data-testid="create-name"
          />
          <div className="field-hint" id={`${formId}-name-hint`} data-testid="create-name-hint">
            {localBad ? <span className="inline-error">{t("create.nameBad", { pattern: NAME_HINT })}</span> : exists ? <span className="inline-error">{t("create.nameTaken")}</span> : t("create.nameHint", { pattern: NAME_HINT })}
          </div>
        </div>
        <label htmlFor={`${formId}-desc`}>{t("overview.description")}</label>
        <input id={`${formId}-desc`} type="text" value={f.description} onChange={(e) => set("description", e.target.value)} data-testid="create-description" />
        <label htmlFor={`${formId}-provider`}>{t("overview.provider")}</label>
        <div>
          {registry !== null ? (
            <select id={`${formId}-provider`} value={f.provider || defaultProvider} onChange={(e) => set("provider", e.target.value)} data-testid="create-provider">
              {registry.length === 0 ? <option value={defaultProvider}>{defaultProvider}</option> : null}
              {registry.map((p) => (
                <option key={p} value={p}>
                  {p}
                </option>
              ))}
            </select>
          ) : (
            <input id={`${formId}-provider`} type="text" value={f.provider} placeholder={defaultProvider} onChange={(e) => set("provider", e.target.value)} data-testid="create-provider" />
          )}
          <div className="field-hint" data-testid="create-provider-hint">
            {registry !== null ? t("create.providerRegistry", { provider: defaultProvider }) : t("create.providerNoRegistry", { provider: defaultProvider })}
          </div>
        </div>
        <label htmlFor={`${formId}-model`}>{t("overview.model")}</label>
        <div>
          <input id={`${formId}-model`} type="text" value={f.model} onChange={(e) => set("model", e.target.value)} data-testid="create-model" />
          <div className="field-hint">{t("create.modelHint")}</div>
        </div>
        <label htmlFor={`${formId}-temp`}>{t("overview.temperature")}</label>
        <input id={`${formId}-temp`} type="number" step="0.1" min="0" max="2" value={f.temperature} onChange={(e) => set("temperature", e.target.value)} data-testid="create-temperature" />
        <label htmlFor={`${formId}-hist`}>{t("overview.maxHistory")}</label>
        <input id={`${formId}-hist`} type="number" min="0" step="1" value={f.maxHistory} onChange={(e) => set("maxHistory", e.target.value)} data-testid="create-max-history" />
        <label htmlFor={`${formId}-tools`}>{t("overview.tools")}</label>
        <div>
          <input id={`${formId}-tools`} type="text" value={f.tools} onChange={(e) => set("tools", e.target.value)} data-testid="create-tools" />
          <div className="field-hint">{t("create.toolsHint")}</div>
        </div>
        <span className="form-grid-label">{t("overview.bootstrap")}</span>
        <div className="check-list" role="group" aria-label={t("overview.bootstrap")} data-testid="create-bootstrap">
          {bootstrapNames.length === 0 ? <span className="muted">{t("common.none")}</span> : null}
          {bootstrapNames.map((n) => (
            <label key={n} className="check">
              <input
                type="checkbox"
                checked={f.bootstrap.includes(n)}
                onChange={(e) => set("bootstrap", e.target.checked ? [...f.bootstrap, n] : f.bootstrap.filter((x) => x !== n))}
                data-testid={`create-bootstrap-${n}`}
              />
              <span className="mono">{n}</span>
            </label>
          ))}
        </div>
        <label htmlFor={`${formId}-from`}>{t("create.from")}</label>
        <div>
          <select id={`${formId}-from`} value={f.from} onChange={(e) => set("from", e.target.value)} data-testid="create-from">
            <option value="">{t("create.fromNone")}</option>
            {agents.data?.agents.map((a) => (
              <option key={a.name} value={a.name}>
                {a.name}
              </option>
            ))}
          </select>
          {f.from ? (
            <label className="check create-with-memory">
              <input type="checkbox" checked={f.withMemory} onChange={(e) => set("withMemory", e.target.checked)} data-testid="create-with-memory" />
              {t("create.withMemory")}
            </label>
          ) : null}
          <div className="field-hint">{t("create.fromHint")}</div>
        </div>
        <label htmlFor={`${formId}-body`}>{t("create.body")}</label>
        <textarea id={`${formId}-body`} rows={5} className="mono" value={f.body} onChange={(e) => set("body", e.target.value)} data-testid="create-body" />
        <span className="form-grid-label" />
        <label className="check">
          <input
            type="checkbox"
            checked={f.draft}
            onChange={(e) => {
              set("draft", e.target.checked);
              create.reset();
            }}
            data-testid="create-draft"
          />
          {t("create.draft")}
        </label>
      </form>
      {err ? (
        <div className="banner banner-err" role="alert" data-testid="create-error">
          <div>
            <strong>{err.code === "conflict" ? (archivedConflict ? t("create.conflictArchived", { name }) : t("create.conflictTaken", { name })) : err.code === "invalid_agent_name" ? t("error.invalid_agent_name") : t("common.error")}</strong>
            <div className="banner-sub" data-testid="create-error-message">
              {err.message}
            </div>
          </div>
          {archivedConflict ? (
            <button type="button" className="btn btn-small" onClick={() => create.mutate(true)} disabled={create.isPending} data-testid="create-anyway">
              {t("create.anyway")}
            </button>
          ) : null}
        </div>
      ) : null}
    </Dialog>
  );
}
