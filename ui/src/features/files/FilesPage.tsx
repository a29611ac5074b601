import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";

import { BackendError, useBackend } from "../../backend";
import type { BootstrapFileDto } from "../../backend/types";
import { CopyButton } from "../../components/CopyButton";
import { onRowKeyDown } from "../../components/hooks";
import { Icon } from "../../components/Icon";
import { Markdown } from "../../components/Markdown";
import { Empty, Loadable } from "../../components/States";
import { TextConflict, TextDiff } from "../../components/TextConflict";
import { useI18n } from "../../i18n";
import { invalidateFor, useOp } from "../../queries/ops";
import { href, navigate } from "../../router";
import "./files.css";

export function FilesPage({ name }: { name: string | null }) {
  const { t } = useI18n();
  const q = useOp("bootstrap_files", {});
  return (
    <div className="page">
      <div className="page-head">
        <h1>{t("files.title")}</h1>
        <span className="page-sub">{t("files.subtitle")}</span>
      </div>
      <Loadable query={q} rows={8}>
        {(files) => (files.length === 0 ? <Empty>{t("files.empty")}</Empty> : <Files files={files} name={name ?? files[0]!.name} />)}
      </Loadable>
    </div>
  );
}

function Files({ files, name }: { files: BootstrapFileDto[]; name: string }) {
  const { t } = useI18n();
  const [raw, setRaw] = useState(false);
  const [editing, setEditing] = useState<string | null>(null);
  const file = files.find((f) => f.name === name);
  return (
    <div className="files">
      <ul className="file-list" onKeyDown={onRowKeyDown} data-testid="file-list">
        {files.map((f) => (
          <li key={f.name}>
            <a
              href={href({ page: "files", name: f.name })}
              className={f.name === name ? "file-item active" : "file-item"}
              data-row
              data-testid={`file-${f.name}`}
              onKeyDown={(e) => e.key === "Enter" && navigate({ page: "files", name: f.name })}
            >
              <Icon name="files" size={14} />
              <span>{f.name}</span>
              {!f.exists ? <span className="tag tag-muted">{t("overview.missing")}</span> : null}
            </a>
          </li>
        ))}
      </ul>
      <section className="card file-view" data-testid="file-view">
        {!file ? (
          <Empty>{t("files.missing")}</Empty>
        ) : (
          <>
            <div className="part-head">
              <h3 className="mono">{file.name}</h3>
              <span className="spacer" />
              {editing !== file.name ? (
                <button type="button" className="btn btn-small" onClick={() => setEditing(file.name)} data-testid="file-edit">
                  <Icon name="pencil" size={13} /> {t("edit.button")}
                </button>
              ) : null}
              <div className="segmented" role="group">
                <button type="button" className={raw ? "" : "on"} aria-pressed={!raw} onClick={() => setRaw(false)} data-testid="file-rendered">
                  {t("common.rendered")}
                </button>
                <button type="button" className={raw ? "on" : ""} aria-pressed={raw} onClick={() => setRaw(true)} data-testid="file-raw">
                  {t("common.raw")}
                </button>
              </div>
              <CopyButton text={file.content} />
            </div>
            {editing === file.name ? (
              // A new version on disk starts the editor again from it.
              <FileEditor key={file.version} file={file} onDone={() => setEditing(null)} />
            ) : !file.exists ? (
              <Empty>{t("files.missing")}</Empty>
            ) : raw ? (
              <pre className="part-text" data-testid="file-raw-text">
                {file.content}
              </pre>
            ) : (
              <Markdown source={file.content} testId="file-markdown" />
            )}
          </>
        )}
      </section>
    </div>
  );
}

/** Edits one bootstrap file: Save sends the version it was read with; a file changed on disk
 * since shows both versions (keep mine: saved over the new version; or take the disk one). */
function FileEditor({ file, onDone }: { file: BootstrapFileDto; onDone: () => void }) {
  const { t } = useI18n();
  const b = useBackend();
  const qc = useQueryClient();
  const [text, setText] = useState(file.content);
  const [base, setBase] = useState(file.content);
  const [version, setVersion] = useState(file.version);
  const [conflict, setConflict] = useState<{ text: string | null; version: string | null } | null>(null);
  const save = useMutation({
    mutationFn: (v: string) => b.call("save_bootstrap_file", { name: file.name, text, version: v }),
    onSuccess: async () => {
      setConflict(null);
      onDone();
      await invalidateFor(qc, { kind: "agents", agent: null });
    },
    onError: async (e) => {
      if (!(e instanceof BackendError && e.code === "conflict")) return;
      setConflict({ text: null, version: null });
      try {
        const disk = (await b.call("bootstrap_files", {})).find((f) => f.name === file.name);
        setConflict(disk ? { text: disk.content, version: disk.version } : null);
      } catch {
        setConflict(null);
      }
    },
  });
  const err = save.error && !(save.error instanceof BackendError && save.error.code === "conflict") ? BackendError.from(save.error) : null;
  const dirty = text !== base;
  return (
    <div className="file-editor" data-testid="file-editor">
      {conflict ? (
        <TextConflict
          disk={conflict.text}
          mine={text}
          busy={save.isPending}
          testId="file-conflict"
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
        rows={20}
        spellCheck={false}
        value={text}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === "Escape") {
            e.preventDefault();
            onDone();
          }
        }}
        aria-label={file.name}
        autoFocus
        data-testid="file-text"
      />
      {dirty ? (
        <div className="raw-diff">
          <div className="field-label">{t("edit.diffTitle")}</div>
          <TextDiff before={base} after={text} testId="file-diff" />
        </div>
      ) : null}
      {err ? (
        <div className="inline-error" role="alert" data-testid="file-save-error">
          {err.message}
        </div>
      ) : null}
      <div className="form-actions">
        <button type="button" className="btn btn-primary" disabled={!dirty || save.isPending || conflict !== null} onClick={() => save.mutate(version)} data-testid="file-save">
          {save.isPending ? t("edit.saving") : t("edit.save")}
        </button>
        <button type="button" className="btn" disabled={save.isPending} onClick={onDone} data-testid="file-cancel">
          {t("edit.cancel")}
        </button>
      </div>
    </div>
  );
}
