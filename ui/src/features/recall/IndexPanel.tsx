import { useState } from "react";

import type { IndexJobDto, IndexStatusDto, OwnerIndexDto } from "../../backend/types";
import { Dialog } from "../../components/Dialog";
import { Icon } from "../../components/Icon";
import { ErrorState, Loadable } from "../../components/States";
import { useI18n } from "../../i18n";
import { href } from "../../router";
import { useIndexActions, useIndexJob, useIndexStatus } from "./hooks";

/** The semantic index: the model, the vector file, how much of each owner has vectors, and the
 * build (all owners or one) with progress, cancel and clear. mem0 keeps no index here. */
export function IndexPanel() {
  const { t } = useI18n();
  const q = useIndexStatus();
  const job = useIndexJob(q);
  return (
    <section className="section index-panel" data-testid="index-status">
      <div className="section-head">
        <h2>{t("index.title")}</h2>
        <span className="section-hint">{t("index.hint")}</span>
      </div>
      <Loadable query={q} rows={5}>
        {(s) => (s.native_search ? <NativeSearch /> : <IndexBody s={s} job={job} />)}
      </Loadable>
    </section>
  );
}

function NativeSearch() {
  const { t } = useI18n();
  return (
    <div className="banner" role="status" data-testid="index-native">
      <Icon name="search" />
      <div>
        <strong>{t("index.native")}</strong>
        <div className="banner-sub">{t("index.nativeSub")}</div>
      </div>
    </div>
  );
}

function mb(bytes: number | null): string {
  return bytes === null ? "—" : `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

function IndexBody({ s, job }: { s: IndexStatusDto; job: IndexJobDto | null }) {
  const { t, num } = useI18n();
  const actions = useIndexActions();
  const [confirm, setConfirm] = useState(false);
  const running = job?.running ?? false;
  const canBuild = s.model.present && !running && !actions.build.isPending;
  // The owner being indexed, as the build last reported it (the status's counts are read every
  // few seconds only).
  const owners = s.owners.map((o) =>
    running && job?.current === o.agent && job.current_indexed != null && !o.error
      ? { ...o, entries: job.current_entries ?? o.entries, indexed: job.current_indexed }
      : o,
  );
  const total = owners.reduce((a, o) => a + o.entries, 0);
  const indexed = owners.reduce((a, o) => a + Math.min(o.indexed, o.entries), 0);
  const actionError = actions.build.error ?? actions.cancel.error ?? actions.clear.error;

  return (
    <div className="index-body">
      <div className="card index-model" data-testid="index-model">
        <dl className="fields">
          <dt>{t("index.model")}</dt>
          <dd>
            <span className="index-model-name">{s.model.name}</span>{" "}
            <span data-testid="index-model-state">
              {s.model.present ? <span className="tag tag-ok">{t("index.present")}</span> : <span className="tag tag-err">{t("index.missing")}</span>}{" "}
              {s.model.present ? <span className={s.model.loaded ? "tag tag-ok" : "tag"}>{s.model.loaded ? t("index.loaded") : t("index.notLoaded")}</span> : null}
            </span>
          </dd>
          <dt>{t("index.folder")}</dt>
          <dd>
            <code data-testid="index-model-dir">{s.model.dir}</code>
          </dd>
          <dt>{t("index.size")}</dt>
          <dd data-testid="index-model-size">{s.model.present ? mb(s.model.size_bytes) : "—"}</dd>
          <dt>{t("index.store")}</dt>
          <dd>
            <code data-testid="index-store">{s.store_path}</code>
          </dd>
        </dl>
        {!s.model.present ? (
          <div className="banner banner-warn" role="status" data-testid="index-model-missing">
            <Icon name="warning" />
            <div>
              <strong>{t("index.missingTitle")}</strong>
              <div className="banner-sub">
                {t("index.missingHow")} <code>make model</code> {t("index.missingWhere", { dir: s.model.dir })}
              </div>
            </div>
          </div>
        ) : null}
      </div>

      <div className="toolbar">
        <button type="button" className="btn btn-primary" disabled={!canBuild} onClick={() => actions.build.mutate(null)} data-testid="index-build">
          <Icon name="refresh" /> {t("index.buildAll")}
        </button>
        <button type="button" className="btn" disabled={running || actions.clear.isPending} onClick={() => setConfirm(true)} data-testid="index-clear">
          <Icon name="trash" /> {t("index.clear")}
        </button>
        <span className="spacer" />
        <span className="toolbar-info" data-testid="index-total">
          {t("index.total", { indexed: num(indexed), n: num(total) })}
        </span>
      </div>
      {job ? <Job job={job} onCancel={() => actions.cancel.mutate()} cancelling={actions.cancel.isPending || actions.cancel.data === true} /> : null}
      {actionError ? <ErrorState error={actionError} compact /> : null}

      <div className="table-wrap">
        <table className="table index-table" data-testid="index-owners">
          <thead>
            <tr>
              <th>{t("index.col.owner")}</th>
              <th className="num">{t("index.col.indexed")}</th>
              <th className="index-bar-col" aria-hidden="true" />
              <th className="num">{t("index.col.stale")}</th>
              {s.episodic_enabled ? (
                <th className="num" title={t("index.col.fragmentsHint")}>
                  {t("index.col.fragments")}
                </th>
              ) : null}
              <th />
            </tr>
          </thead>
          <tbody>
            {owners.map((o) => (
              <OwnerRow
                key={o.agent ?? ""}
                o={o}
                episodic={s.episodic_enabled}
                current={running && job?.current === o.agent}
                disabled={!canBuild}
                onBuild={() => actions.build.mutate(o.agent)}
              />
            ))}
          </tbody>
        </table>
      </div>

      {confirm ? (
        <Dialog
          title={t("index.clearTitle")}
          onEscape={() => setConfirm(false)}
          testId="index-clear-dialog"
          footer={
            <>
              <button
                type="button"
                className="btn btn-warn-outline"
                data-autofocus
                disabled={actions.clear.isPending}
                data-testid="index-clear-confirm"
                onClick={() => actions.clear.mutate(undefined, { onSettled: () => setConfirm(false) })}
              >
                <Icon name="trash" /> {t("index.clearConfirm")}
              </button>
              <button type="button" className="btn" onClick={() => setConfirm(false)} data-testid="index-clear-cancel">
                {t("index.keep")}
              </button>
            </>
          }
        >
          <p className="modal-lead">{t("index.clearBody", { n: num(indexed) })}</p>
          <p className="muted small index-clear-path">
            <code>{s.store_path}</code>
          </p>
        </Dialog>
      ) : null}
    </div>
  );
}

function OwnerRow({ o, episodic, current, disabled, onBuild }: { o: OwnerIndexDto; episodic: boolean; current: boolean; disabled: boolean; onBuild: () => void }) {
  const { t, num } = useI18n();
  const name = o.agent ?? t("recall.global");
  const testOwner = o.agent ?? "global";
  const pct = o.entries > 0 ? (Math.min(o.indexed, o.entries) / o.entries) * 100 : 0;
  const complete = o.entries > 0 && o.indexed >= o.entries;
  const link = href(o.agent ? { page: "agent", name: o.agent, tab: "memory" } : { page: "global" });
  return (
    <tr data-testid={`index-owner-${testOwner}`} className={current ? "row-current" : undefined}>
      <td>
        <a className="cell-name plain-link" href={link}>
          {name}
        </a>
        {o.error ? (
          <div className="inline-error small" data-testid="index-owner-error">
            {o.error}
          </div>
        ) : null}
      </td>
      <td className="num" data-col="indexed">
        {o.error ? "—" : t("index.ofEntries", { indexed: num(o.indexed), entries: num(o.entries) })}
      </td>
      <td className="index-bar-col">
        {o.entries > 0 && !o.error ? (
          <span className="mini-bar" aria-hidden="true">
            <span className={complete ? "mini-fill complete" : "mini-fill"} style={{ width: `${pct}%` }} />
          </span>
        ) : null}
      </td>
      <td className="num" data-col="stale">
        {o.orphaned > 0 ? <span className="tag tag-warn">{num(o.orphaned)}</span> : <span className="muted">0</span>}
      </td>
      {episodic ? (
        <td className="num" data-col="fragments">
          {o.fragments === null ? <span className="muted">—</span> : t("index.ofEntries", { indexed: num(o.fragments_indexed ?? 0), entries: num(o.fragments) })}
        </td>
      ) : null}
      <td className="num">
        <button type="button" className="btn btn-small" disabled={disabled || o.entries === 0} onClick={onBuild} data-testid={`index-build-${testOwner}`}>
          {t("index.build")}
        </button>
      </td>
    </tr>
  );
}

/** The build in progress (bar, owner, Cancel) or how the last one ended. */
function Job({ job, onCancel, cancelling }: { job: IndexJobDto; onCancel: () => void; cancelling: boolean }) {
  const { t, num } = useI18n();
  const owner = job.current ?? t("recall.global");
  if (job.running) {
    const part = job.todo > 0 ? job.done / job.todo : 0;
    const frac = job.owners_total > 0 ? Math.min(1, (job.owners_done + part) / job.owners_total) : 0;
    return (
      <div className="progress-block index-job" data-testid="index-job" data-running="true">
        <div
          className="progress"
          role="progressbar"
          aria-label={t("index.building")}
          aria-valuemin={0}
          aria-valuemax={100}
          aria-valuenow={Math.round(frac * 100)}
          data-testid="index-progress"
        >
          <div className="progress-fill" style={{ width: `${frac * 100}%` }} />
        </div>
        <div className="progress-text">
          <span>
            {job.todo > 0
              ? t("index.progress", { owner, done: num(job.done), n: num(job.todo) })
              : t("index.progressOwner", { owner })}
            <span className="sep">·</span>
            <span className="muted">{t("index.progressOwners", { n: num(Math.min(job.owners_done + 1, job.owners_total)), total: num(job.owners_total) })}</span>
          </span>
          <span className="spacer" />
          <button type="button" className="btn btn-small" onClick={onCancel} disabled={cancelling} data-testid="index-cancel">
            <Icon name="stop" size={12} /> {cancelling ? t("index.cancelling") : t("index.cancel")}
          </button>
        </div>
      </div>
    );
  }
  if (job.error)
    return (
      <div className="banner banner-err" role="status" data-testid="index-job" data-outcome="failed">
        <Icon name="warning" />
        <div>
          <strong>{t("index.failed", { n: num(job.embedded_total) })}</strong>
          <div className="banner-sub">{job.error}</div>
        </div>
      </div>
    );
  return (
    <div className={job.cancelled ? "banner banner-warn" : "banner banner-ok"} role="status" data-testid="index-job" data-outcome={job.cancelled ? "cancelled" : "done"}>
      <Icon name={job.cancelled ? "warning" : "check"} />
      <div>
        {job.cancelled
          ? t("index.cancelled", { n: num(job.embedded_total) })
          : job.embedded_total === 0
            ? t("index.upToDate")
            : job.owners_total === 1
              ? t("index.doneOne", { n: num(job.embedded_total), owner })
              : t("index.done", { n: num(job.embedded_total), owners: num(job.owners_total) })}
      </div>
    </div>
  );
}
