import { useMutation } from "@tanstack/react-query";
import { useState } from "react";

import { BackendError, useBackend } from "../../backend";
import type { AgentDetail, AgentFileDto, FieldErrorDto } from "../../backend/types";
import { useDebounced } from "../../components/hooks";
import { ErrorState, Skeleton } from "../../components/States";
import { TextConflict, TextDiff } from "../../components/TextConflict";
import { useI18n, type MessageKey } from "../../i18n";
import { useOp } from "../../queries/ops";
import { errorsByKey, isConflict, useInvalidateAgents, yamlValue } from "./manage";

/** One form field: the front matter key it is saved to and how its value is written. */
type FieldDef = { key: string; label: MessageKey; kind: "string" | "number"; multiline?: boolean; initial: (a: AgentDetail) => string };

export const FIELDS: FieldDef[] = [
  { key: "description", label: "overview.description", kind: "string", initial: (a) => a.summary.description ?? "" },
  { key: "identity.agent_name", label: "edit.identityName", kind: "string", initial: (a) => a.identity_name ?? "" },
  { key: "identity.prompt", label: "edit.identityPrompt", kind: "string", multiline: true, initial: (a) => a.identity_prompt ?? "" },
  { key: "provider.name", label: "overview.provider", kind: "string", initial: (a) => a.summary.provider ?? "" },
  { key: "provider.model", label: "overview.model", kind: "string", initial: (a) => a.summary.model ?? "" },
  { key: "provider.temperature", label: "overview.temperature", kind: "number", initial: (a) => (a.temperature === null ? "" : String(a.temperature)) },
  { key: "settings.max_history_turns", label: "overview.maxHistory", kind: "number", initial: (a) => String(a.max_history_turns) },
];

const fieldId = (key: string) => `agent-field-${key.replace(/\./g, "-")}`;

export function AgentEditor({ a, onDone }: { a: AgentDetail; onDone: () => void }) {
  const { t } = useI18n();
  const name = a.summary.name;
  const file = useOp("agent_file", { name });
  const [tab, setTab] = useState<"form" | "raw">("form");
  return (
    <section className="card agent-editor" data-testid="agent-editor">
      <div className="part-head">
        <h2>{t("edit.title")}</h2>
        <div className="segmented" role="tablist" aria-label={t("edit.title")}>
          <button type="button" role="tab" className={tab === "form" ? "on" : ""} aria-selected={tab === "form"} onClick={() => setTab("form")} data-testid="edit-tab-form">
            {t("edit.form")}
          </button>
          <button type="button" role="tab" className={tab === "raw" ? "on" : ""} aria-selected={tab === "raw"} onClick={() => setTab("raw")} data-testid="edit-tab-raw">
            {t("edit.raw")}
          </button>
        </div>
        <span className="spacer" />
        <button type="button" className="btn btn-small" onClick={onDone} data-testid="edit-done">
          {t("edit.done")}
        </button>
      </div>
      {file.isPending ? (
        <Skeleton rows={6} />
      ) : file.isError ? (
        <ErrorState error={file.error} onRetry={() => void file.refetch()} compact />
      ) : tab === "form" ? (
        <FormEditor a={a} file={file.data} />
      ) : (
        // A new version on disk (a save, another program) starts the editor again from it.
        <RawEditor key={file.data.version} file={file.data} onDone={onDone} />
      )}
    </section>
  );
}

function ErrorList({ errors, testId }: { errors: readonly FieldErrorDto[]; testId: string }) {
  if (errors.length === 0) return null;
  return (
    <ul className="banner banner-err field-errors" role="alert" data-testid={testId}>
      {errors.map((e, i) => (
        <li key={i}>
          {/* The console's messages usually start with the key already. */}
          {e.key && !e.message.startsWith(e.key) ? <code>{e.key}</code> : null} {e.message}
        </li>
      ))}
    </ul>
  );
}

/** The console's field message without the key it starts with (the field already shows it). */
function fieldMessage(key: string, message: string): string {
  return message.startsWith(`${key}: `) ? message.slice(key.length + 2) : message;
}

function FormEditor({ a, file }: { a: AgentDetail; file: AgentFileDto }) {
  const { t } = useI18n();
  const b = useBackend();
  const invalidate = useInvalidateAgents();
  const initial = Object.fromEntries(FIELDS.map((f) => [f.key, f.initial(a)]));
  // Only fields the user typed in are theirs; the others follow the file (a save, another program).
  const [edits, setEdits] = useState<Record<string, string>>({});
  const values: Record<string, string> = { ...initial, ...edits };
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const [saved, setSaved] = useState(false);
  const changed = FIELDS.filter((f) => f.key in edits && edits[f.key] !== initial[f.key]);
  const fileErrors = errorsByKey(file.errors);
  const save = useMutation({
    // One set_agent_key per changed field, in order, each with the version the last one left.
    mutationFn: async () => {
      let version = file.version;
      const errs: Record<string, string> = {};
      let wrote = false;
      let conflict = false;
      for (const f of changed) {
        try {
          version = (await b.call("set_agent_key", { name: a.summary.name, key: f.key, value: yamlValue(values[f.key] ?? "", f.kind), version })).version;
          wrote = true;
        } catch (e) {
          const be = BackendError.from(e);
          conflict = be.code === "conflict";
          errs[f.key] = conflict ? t("edit.fieldConflict") : fieldMessage(f.key, be.message);
          break;
        }
      }
      return { errs, reload: wrote || conflict };
    },
    onSuccess: async ({ errs, reload }) => {
      setFieldErrors(errs);
      setSaved(Object.keys(errs).length === 0);
      if (reload) await invalidate();
    },
  });
  return (
    <form
      className="form-grid agent-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (changed.length) save.mutate();
      }}
      data-testid="agent-form"
    >
      {fileErrors.get("")?.length ? (
        <div className="form-grid-wide">
          <ErrorList errors={file.errors.filter((e) => e.key === "")} testId="agent-form-errors" />
        </div>
      ) : null}
      {FIELDS.map((f) => {
        const err = fieldErrors[f.key] ?? fileErrors.get(f.key)?.map((m) => fieldMessage(f.key, m)).join("; ");
        const props = {
          id: fieldId(f.key),
          value: values[f.key] ?? "",
          "aria-invalid": err ? true : undefined,
          "aria-describedby": err ? `${fieldId(f.key)}-err` : undefined,
          "data-testid": fieldId(f.key),
        };
        const onChange = (e: React.ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) => {
          setSaved(false);
          setEdits((v) => ({ ...v, [f.key]: e.target.value }));
        };
        return (
          <div key={f.key} className="form-row-pair">
            <label htmlFor={fieldId(f.key)}>
              {t(f.label)} <code className="field-key">{f.key}</code>
            </label>
            <div>
              {f.multiline ? <textarea rows={3} {...props} onChange={onChange} /> : <input type={f.kind === "number" ? "number" : "text"} step={f.kind === "number" ? "any" : undefined} {...props} onChange={onChange} />}
              {err ? (
                <div className="inline-error field-hint" id={`${fieldId(f.key)}-err`} data-testid={`${fieldId(f.key)}-error`}>
                  {err}
                </div>
              ) : null}
            </div>
          </div>
        );
      })}
      <div className="form-grid-wide form-actions">
        <button type="submit" className="btn btn-primary" disabled={changed.length === 0 || save.isPending} data-testid="agent-form-save">
          {save.isPending ? t("edit.saving") : t("edit.saveFields", { n: changed.length })}
        </button>
        <button type="button" className="btn" disabled={changed.length === 0 || save.isPending} onClick={() => (setEdits({}), setFieldErrors({}))} data-testid="agent-form-reset">
          {t("edit.cancel")}
        </button>
        {saved && changed.length === 0 ? (
          <span className="muted" role="status" data-testid="agent-form-saved">
            {t("edit.saved")}
          </span>
        ) : null}
      </div>
    </form>
  );
}

function RawEditor({ file, onDone }: { file: AgentFileDto; onDone: () => void }) {
  const { t } = useI18n();
  const b = useBackend();
  const invalidate = useInvalidateAgents();
  const [text, setText] = useState(file.text);
  const [version, setVersion] = useState(file.version);
  const [base, setBase] = useState(file.text);
  const [conflict, setConflict] = useState<{ text: string | null; version: string | null } | null>(null);
  const debounced = useDebounced(text, 300);
  const validation = useOp("validate_agent_file", { name: file.name, text: debounced }, {
    enabled: debounced !== file.text,
    placeholderData: (prev) => prev,
  });
  const errors = debounced === file.text ? file.errors : (validation.data ?? []);
  const save = useMutation({
    mutationFn: (v: string) => b.call("save_agent_file", { name: file.name, text, version: v }),
    onSuccess: async () => {
      setConflict(null);
      await invalidate();
    },
    onError: async (e) => {
      if (!isConflict(e)) return;
      setConflict({ text: null, version: null });
      try {
        const disk = await b.call("agent_file", { name: file.name });
        setConflict({ text: disk.text, version: disk.version });
      } catch {
        setConflict(null);
      }
    },
  });
  const dirty = text !== base;
  const err = save.error && !isConflict(save.error) ? BackendError.from(save.error) : null;
  return (
    <div className="raw-editor" data-testid="raw-editor">
      <ErrorList errors={errors} testId="raw-errors" />
      {conflict ? (
        <TextConflict
          disk={conflict.text}
          mine={text}
          busy={save.isPending}
          testId="raw-conflict"
          onKeepMine={() => conflict.version && save.mutate(conflict.version)}
          onTakeDisk={() => {
            if (conflict.text === null || conflict.version === null) return;
            setText(conflict.text);
            setBase(conflict.text);
            setVersion(conflict.version);
            setConflict(null);
            save.reset();
          }}
        />
      ) : null}
      <textarea
        className="mono raw-text"
        rows={18}
        spellCheck={false}
        value={text}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === "Escape") {
            e.preventDefault();
            onDone();
          }
        }}
        aria-label={t("edit.raw")}
        aria-invalid={errors.length ? true : undefined}
        data-testid="raw-text"
      />
      {dirty ? (
        <div className="raw-diff">
          <div className="field-label">{t("edit.diffTitle")}</div>
          <TextDiff before={base} after={text} testId="raw-diff" />
        </div>
      ) : null}
      {err ? (
        <div className="inline-error" role="alert" data-testid="raw-save-error">
          {err.message}
        </div>
      ) : null}
      <div className="form-actions">
        <button type="button" className="btn btn-primary" disabled={!dirty || save.isPending || conflict !== null} onClick={() => save.mutate(version)} data-testid="raw-save">
          {save.isPending ? t("edit.saving") : t("edit.save")}
        </button>
        <button
          type="button"
          className="btn"
          disabled={save.isPending}
          onClick={() => {
            setText(base);
            setConflict(null);
            save.reset();
          }}
          data-testid="raw-cancel"
        >
          {t("edit.cancel")}
        </button>
      </div>
    </div>
  );
}
