// "Use the console's offline embeddings": a preview of what registering `oryx serve`'s
// /v1/embeddings as the runtime's embedding provider would change (the providers row, the config
// lines, the memory vectors the runtime will rebuild, whether the console answers at the URL),
// then Apply. What it shows comes from the console's dry run; nothing is decided here.
import { useState } from "react";

import type { LocalEmbeddingsPlan } from "../../backend/types";
import { Dialog } from "../../components/Dialog";
import { FieldError } from "../../components/FieldError";
import { Icon } from "../../components/Icon";
import { Loadable } from "../../components/States";
import { useI18n } from "../../i18n";
import { useOp, useOpMutation } from "../../queries/ops";

/** Where `oryx serve` listens by default: the URL the dialog starts with. */
export const DEFAULT_URL = "http://127.0.0.1:7777";

export function LocalEmbeddingsDialog({ onClose, onApplied }: { onClose: () => void; onApplied: (p: LocalEmbeddingsPlan) => void }) {
  const { t } = useI18n();
  const [draft, setDraft] = useState(DEFAULT_URL);
  const [url, setUrl] = useState(DEFAULT_URL);
  const preview = useOp("use_local_embeddings", { url, dry_run: true }, { followChanges: false, staleTime: 0 });
  const apply = useOpMutation("use_local_embeddings", { onSuccess: (p) => onApplied(p) });
  const plan = preview.data;
  const canApply = !!plan && !plan.blocked && !(plan.rowAction === "unchanged" && plan.linesAfter.length === 0);
  return (
    <Dialog
      title={t("runtime.local.title")}
      onEscape={onClose}
      testId="local-embeddings-dialog"
      wide
      focusKey={plan ? "ready" : "loading"}
      footer={
        <>
          <button
            type="button"
            className="btn btn-primary"
            data-autofocus
            disabled={!canApply || apply.isPending || url !== draft.trim()}
            onClick={() => apply.mutate({ url, dry_run: false })}
            data-testid="local-embeddings-apply"
          >
            {t("runtime.local.apply")}
          </button>
          <button type="button" className="btn" onClick={onClose} data-testid="local-embeddings-cancel">
            {t("memory.edit.cancel")}
          </button>
        </>
      }
    >
      <p className="modal-lead">{t("runtime.local.lead")}</p>
      <form
        className="runtime-edit"
        onSubmit={(e) => {
          e.preventDefault();
          setUrl(draft.trim());
        }}
      >
        <label htmlFor="local-embeddings-url">{t("runtime.local.url")}</label>
        <input
          id="local-embeddings-url"
          className="input mono"
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          data-testid="local-embeddings-url"
        />
        <button type="submit" className="btn btn-small btn-ghost" data-testid="local-embeddings-check">
          {t("runtime.local.check")}
        </button>
      </form>
      <Loadable query={preview} rows={4}>
        {(p) => <Preview plan={p} />}
      </Loadable>
      {apply.isError ? <FieldError id="local-embeddings-error" error={apply.error} testId="local-embeddings-error" /> : null}
    </Dialog>
  );
}

function Preview({ plan }: { plan: LocalEmbeddingsPlan }) {
  const { t, num } = useI18n();
  if (plan.blocked) {
    return (
      <div className="banner banner-warn" role="status" data-testid="local-embeddings-blocked">
        <Icon name="warning" />
        <div>{plan.blocked}</div>
      </div>
    );
  }
  const keyFrom = plan.apiKeyFrom === "given" ? "runtime.local.keyGiven" : plan.apiKeyFrom === "kept" ? "runtime.local.keyKept" : "runtime.local.keyPlaceholder";
  return (
    <div className="local-embeddings" data-testid="local-embeddings-preview">
      <div className={`banner ${plan.server.ok ? "banner-ok" : "banner-warn"}`} role="status" data-testid="local-embeddings-server" data-ok={plan.server.ok}>
        <Icon name={plan.server.ok ? "check" : "warning"} />
        <div>
          <strong>{t(plan.server.ok ? "runtime.local.serverOk" : "runtime.local.serverDown")}</strong>
          <div className="small">{plan.server.detail}</div>
        </div>
      </div>
      <h3 className="subsection-title">{t("runtime.local.row", { action: t(`runtime.local.action.${plan.rowAction === "update" ? "update" : plan.rowAction === "unchanged" ? "unchanged" : "insert"}`) })}</h3>
      <table className="table" data-testid="local-embeddings-row">
        <thead>
          <tr>
            <th scope="col" />
            <th scope="col">{t("runtime.col.name")}</th>
            <th scope="col">{t("runtime.col.baseUrl")}</th>
            <th scope="col">{t("runtime.col.apiKey")}</th>
          </tr>
        </thead>
        <tbody>
          {plan.rowBefore ? (
            <tr className="diff-del">
              <td aria-label={t("runtime.local.before")}>−</td>
              <td>{plan.rowBefore.name}</td>
              <td className="mono wrap">{plan.rowBefore.baseUrl ?? ""}</td>
              <td className="mono">{plan.rowBefore.apiKey}</td>
            </tr>
          ) : null}
          <tr className="diff-add">
            <td aria-label={t("runtime.local.after")}>+</td>
            <td>{plan.rowAfter.name}</td>
            <td className="mono wrap">{plan.rowAfter.baseUrl ?? ""}</td>
            <td className="mono">{plan.rowAfter.apiKey}</td>
          </tr>
        </tbody>
      </table>
      <p className="field-hint">{t(keyFrom)}</p>
      <h3 className="subsection-title">{plan.config ?? "config/application.yml"}</h3>
      {plan.linesAfter.length === 0 && plan.linesBefore.length === 0 ? (
        <p className="muted">{t("runtime.local.configSame")}</p>
      ) : (
        <pre className="local-embeddings-diff mono" data-testid="local-embeddings-lines">
          {plan.linesBefore.map((l, i) => (
            <div key={`b${i}`} className="diff-del">
              - {l}
            </div>
          ))}
          {plan.linesAfter.map((l, i) => (
            <div key={`a${i}`} className="diff-add">
              + {l}
            </div>
          ))}
        </pre>
      )}
      <p data-testid="local-embeddings-vectors">{t("runtime.local.vectors", { n: num(plan.vectorsDropped), model: plan.vectorsModel })}</p>
      <p className="field-hint">{t(plan.restartNeeded ? "runtime.local.restart" : "runtime.local.nextStart")}</p>
      {plan.notes.length ? (
        <ul className="runtime-warnings" data-testid="local-embeddings-notes">
          {plan.notes.map((n) => (
            <li key={n}>{n}</li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
