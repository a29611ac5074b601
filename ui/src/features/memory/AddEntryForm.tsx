import { useState } from "react";

import type { AppendResult, ScopeDto } from "../../backend/types";
import { useDebounced } from "../../components/hooks";
import { ErrorState } from "../../components/States";
import { useI18n } from "../../i18n";
import { useAppendMemory, usePreviewEntry } from "./hooks";

export function AddEntryForm({ agent, onAdded }: { agent: string | null; onAdded: (r: AppendResult) => Promise<void> | void }) {
  const { t } = useI18n();
  const [scope, setScope] = useState<ScopeDto>("archival");
  const [content, setContent] = useState("");
  const debounced = useDebounced(content, 250);
  const preview = usePreviewEntry(debounced);
  const add = useAppendMemory(agent, async (r) => {
    setContent("");
    await onAdded(r);
  });
  const canSubmit = content.trim() !== "" && !add.isPending;
  const submit = () => {
    if (canSubmit) add.mutate({ scope, content });
  };
  const showPreview = content.trim() !== "" && debounced === content;
  return (
    <form
      className="card add-form"
      data-testid="add-form"
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
    >
      <div className="add-row">
        <label className="field-inline">
          <span className="field-label">{t("memory.add.scope")}</span>
          <select value={scope} onChange={(e) => setScope(e.target.value as ScopeDto)} data-testid="add-scope" aria-label={t("memory.add.scope")}>
            <option value="archival">{t("memory.add.archival")}</option>
            <option value="core">{t("memory.add.core")}</option>
          </select>
        </label>
        <textarea
          value={content}
          rows={2}
          placeholder={t("memory.add.placeholder")}
          aria-label={t("memory.add.title")}
          data-testid="add-content"
          onChange={(e) => setContent(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
              e.preventDefault();
              submit();
            }
          }}
        />
        <button type="submit" className="btn btn-primary" disabled={!canSubmit} data-testid="add-submit" title={t("memory.add.submitHint")}>
          {t("memory.add.submit")}
          <kbd>{t("memory.add.submitHint")}</kbd>
        </button>
      </div>
      <div className={showPreview ? "add-preview" : "add-preview add-preview-idle"} data-testid="add-preview" aria-live="polite">
        {showPreview && preview.data ? (
          <>
            <span className="field-label">{t("memory.add.storedAs")}</span> <code className="preview-line">{preview.data.line}</code>
            {preview.data.changed ? <span className="tag tag-warn">{t("memory.add.changed")}</span> : null}
          </>
        ) : showPreview && preview.isError ? (
          <ErrorState error={preview.error} compact />
        ) : (
          <span className="muted">{t("memory.add.storedAs")} …</span>
        )}
      </div>
      {add.isError ? <ErrorState error={add.error} compact /> : null}
    </form>
  );
}
