import { useMutation } from "@tanstack/react-query";
import { useState } from "react";

import { BackendError, useBackend } from "../../backend";
import type { ArchivedDto } from "../../backend/types";
import { Dialog } from "../../components/Dialog";
import { humanBytes } from "../../components/format";
import { Icon } from "../../components/Icon";
import { Empty, ErrorState, Skeleton } from "../../components/States";
import { useI18n } from "../../i18n";
import { useOp } from "../../queries/ops";
import { navigate } from "../../router";
import { NAME_HINT, isConflict, useInvalidateAgents } from "./manage";

/** The archived agents (agents/.archive), collapsed until opened: Restore and Delete. */
export function ArchivedSection() {
  const { t } = useI18n();
  const [open, setOpen] = useState(false);
  const q = useOp("list_archived", {}, { enabled: open });
  return (
    <section className="archived-section" data-testid="archived-section">
      <button type="button" className="btn btn-small archived-toggle" aria-expanded={open} onClick={() => setOpen(!open)} data-testid="archived-toggle">
        <span aria-hidden="true">{open ? "▾" : "▸"}</span> {t("archived.title")}
        {q.data ? <span className="tag tag-muted">{q.data.length}</span> : null}
      </button>
      {open ? (
        q.isPending ? (
          <Skeleton rows={2} />
        ) : q.isError ? (
          <ErrorState error={q.error} onRetry={() => void q.refetch()} />
        ) : q.data.length === 0 ? (
          <Empty>{t("archived.empty")}</Empty>
        ) : (
          <ul className="list archived-list" data-testid="archived-list">
            {q.data.map((a) => (
              <ArchivedRow key={a.archived_name} a={a} />
            ))}
          </ul>
        )
      ) : null}
    </section>
  );
}

function ArchivedRow({ a }: { a: ArchivedDto }) {
  const { t } = useI18n();
  const b = useBackend();
  const invalidate = useInvalidateAgents();
  const [asName, setAsName] = useState<string | null>(null);
  const [deleting, setDeleting] = useState(false);
  const restore = useMutation({
    mutationFn: (as: string | undefined) => b.call("restore_agent", { archived_name: a.archived_name, as_name: as || undefined }),
    onSuccess: async (d) => {
      await invalidate();
      navigate({ page: "agent", name: d.summary.name, tab: "overview" });
    },
    onError: (e) => {
      // The name is taken: ask for another one.
      if (isConflict(e) && asName === null) setAsName(`${a.name}-restored`);
    },
  });
  const err = restore.error ? BackendError.from(restore.error) : null;
  return (
    <li className="archived-row" data-testid={`archived-${a.archived_name}`}>
      <div className="archived-main">
        <strong>{a.name}</strong> <code className="muted">{a.archived_name}</code> <span className="cell-time">{a.archived_at}</span>
      </div>
      <div className="archived-actions">
        {asName === null ? (
          <button type="button" className="btn btn-small" onClick={() => restore.mutate(undefined)} disabled={restore.isPending} data-testid="archived-restore">
            {t("archived.restore")}
          </button>
        ) : (
          <form
            className="field-inline"
            onSubmit={(e) => {
              e.preventDefault();
              if (asName.trim()) restore.mutate(asName.trim());
            }}
          >
            <label className="field-label" htmlFor={`as-${a.archived_name}`}>
              {t("archived.restoreAs")}
            </label>
            <input id={`as-${a.archived_name}`} type="text" className="mono" value={asName} onChange={(e) => setAsName(e.target.value)} title={NAME_HINT} autoFocus data-testid="archived-as-name" />
            <button type="submit" className="btn btn-small btn-primary" disabled={restore.isPending || !asName.trim()} data-testid="archived-restore-as">
              {t("archived.restore")}
            </button>
            <button type="button" className="btn btn-small" onClick={() => (setAsName(null), restore.reset())}>
              {t("edit.cancel")}
            </button>
          </form>
        )}
        <button type="button" className="btn btn-small btn-danger" onClick={() => setDeleting(true)} data-testid="archived-delete">
          <Icon name="trash" size={13} /> {t("archived.delete")}
        </button>
      </div>
      {err ? (
        <div className="inline-error" role="alert" data-testid="archived-error">
          {err.code === "conflict" ? t("archived.nameTaken", { name: a.name }) : null} {err.message}
        </div>
      ) : null}
      {deleting ? <DeleteArchivedDialog a={a} onClose={() => setDeleting(false)} /> : null}
    </li>
  );
}

function DeleteArchivedDialog({ a, onClose }: { a: ArchivedDto; onClose: () => void }) {
  const { t, num } = useI18n();
  const b = useBackend();
  const invalidate = useInvalidateAgents();
  const removal = useOp("archived_removal", { archived_name: a.archived_name }, { gcTime: 0, staleTime: 0, followChanges: false });
  const del = useMutation({
    mutationFn: (files: number) => b.call("delete_archived", { archived_name: a.archived_name, expect_count: files }),
    onSuccess: async () => {
      await invalidate();
      onClose();
    },
    // Files were added or removed since the count shown: show the new count.
    onError: (e) => {
      if (isConflict(e)) void removal.refetch();
    },
  });
  const r = removal.data;
  return (
    <Dialog
      title={t("archived.deleteTitle", { name: a.name })}
      onEscape={onClose}
      testId="archived-delete-confirm"
      focusKey={r ? "ready" : "loading"}
      footer={
        <>
          <button type="button" className="btn" onClick={onClose}>
            {t("edit.cancel")}
          </button>
          <button type="button" className="btn btn-danger" disabled={!r || del.isPending} onClick={() => r && del.mutate(r.files)} data-autofocus data-testid="archived-delete-ok">
            {t("archived.deleteOk")}
          </button>
        </>
      }
    >
      {removal.isError ? <ErrorState error={removal.error} compact /> : null}
      {!r ? (
        removal.isPending ? <Skeleton rows={2} /> : null
      ) : (
        <>
          <p data-testid="archived-delete-summary">{t("archived.deleteSummary", { n: num(r.files), bytes: humanBytes(r.bytes) })}</p>
          <ul className="path-list mono" data-testid="archived-delete-paths">
            {r.paths.map((p) => (
              <li key={p}>{p}</li>
            ))}
          </ul>
        </>
      )}
      {del.error ? (
        <div className="inline-error" role="alert" data-testid="archived-delete-error">
          {BackendError.from(del.error).message}
        </div>
      ) : null}
    </Dialog>
  );
}
