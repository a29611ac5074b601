// The runtime's own vector index of archival memory (memory_vectors): per agent the rows it has
// against the entries, what the runtime does to it at its next start, and a fill that does it now.
import { useMutation, useQueryClient } from "@tanstack/react-query";

import { useBackend } from "../../backend";
import type { RuntimeAgentIndexDto, RuntimeFillDto, RuntimeIndexDto } from "../../backend/types";
import { Icon } from "../../components/Icon";
import { ErrorState, Loadable } from "../../components/States";
import { useI18n } from "../../i18n";
import { opKey, useOp } from "../../queries/ops";

/** How often a running fill's progress is asked for. */
const FILL_POLL_MS = 500;

/** The runtime's index of an install's markdown or sqlite memory; nothing elsewhere. */
export function RuntimeIndexPanel() {
  const { t } = useI18n();
  const q = useOp("index_status", {}, {
    refetchInterval: (s) => (s.state.data?.runtime?.fill?.running ? FILL_POLL_MS : false),
  });
  // Nothing until the status says there is a runtime index: a bare root never flashes the section.
  if (!q.isError && !q.data?.runtime) return null;
  return (
    <section className="section runtime-index-panel" data-testid="runtime-index">
      <div className="section-head">
        <h2>{t("runtimeIndex.title")}</h2>
        <span className="section-hint">{t("runtimeIndex.hint")}</span>
      </div>
      <Loadable query={q} rows={4}>
        {(s) => (s.runtime ? <Body r={s.runtime} /> : null)}
      </Loadable>
    </section>
  );
}

function Body({ r }: { r: RuntimeIndexDto }) {
  const { t, num } = useI18n();
  const { call } = useBackend();
  const qc = useQueryClient();
  const refresh = () => qc.invalidateQueries({ queryKey: opKey("index_status", {}) });
  const fill = useMutation({ mutationFn: () => call("fill_runtime_index", { dry_run: false }), onSettled: refresh });
  const cancel = useMutation({ mutationFn: () => call("cancel_runtime_fill", {}), onSettled: refresh });
  const running = r.fill?.running ?? false;
  const ready = r.state === "ready";
  const nothingToDo = r.nextStartDrops === 0 && r.nextStartEmbeds === 0;
  const error = fill.error ?? cancel.error;
  return (
    <div className="runtime-index-body">
      <div className="banner" role="status" data-testid="runtime-index-state" data-state={r.state}>
        <Icon name={ready ? "search" : "warning"} />
        <div>
          <strong>{ready ? t("runtimeIndex.model", { model: r.model ?? "" }) : t(`runtimeIndex.state.${r.state}`)}</strong>
          {r.reason ? <div className="banner-sub">{r.reason}</div> : null}
        </div>
      </div>

      <p data-testid="runtime-index-next-start">
        {ready && !nothingToDo
          ? t("runtimeIndex.nextStart", { drops: num(r.nextStartDrops), embeds: num(r.nextStartEmbeds) })
          : t("runtimeIndex.nextStartNothing")}
      </p>

      <div className="toolbar">
        <button
          type="button"
          className="btn btn-primary"
          disabled={!ready || running || nothingToDo || fill.isPending}
          onClick={() => fill.mutate()}
          data-testid="runtime-index-fill"
        >
          <Icon name="refresh" /> {t("runtimeIndex.fill")}
        </button>
        {running ? (
          <button type="button" className="btn" disabled={cancel.isPending || cancel.data === true} onClick={() => cancel.mutate()} data-testid="runtime-index-cancel">
            {t("runtimeIndex.cancel")}
          </button>
        ) : null}
      </div>
      {r.fill ? <Fill f={r.fill} /> : null}
      {error ? <ErrorState error={error} compact /> : null}

      <div className="table-wrap">
        <table className="table" data-testid="runtime-index-agents">
          <thead>
            <tr>
              <th>{t("runtimeIndex.col.agent")}</th>
              <th className="num">{t("runtimeIndex.col.indexed")}</th>
              <th className="num">{t("runtimeIndex.col.missing")}</th>
              <th className="num">{t("runtimeIndex.col.orphans")}</th>
              <th className="num">{t("runtimeIndex.col.otherModel")}</th>
            </tr>
          </thead>
          <tbody>
            {r.agents.map((a) => (
              <AgentRow key={a.agent} a={a} />
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}

function AgentRow({ a }: { a: RuntimeAgentIndexDto }) {
  const { t, num } = useI18n();
  const global = a.agent === "__global__";
  return (
    <tr data-testid={`runtime-index-agent-${global ? "global" : a.agent}`}>
      <td>{global ? t("recall.global") : a.agent}</td>
      <td className="num" data-col="indexed">
        {num(a.indexed)}
      </td>
      <td className="num" data-col="missing">
        {num(a.missing)}
      </td>
      <td className="num" data-col="orphans">
        {num(a.orphans)}
      </td>
      <td className="num" data-col="otherModel">
        {num(a.otherModel)}
      </td>
    </tr>
  );
}

function Fill({ f }: { f: RuntimeFillDto }) {
  const { t, num } = useI18n();
  const outcome = f.running ? "running" : f.error ? "error" : f.cancelled ? "cancelled" : "done";
  return (
    <div className="card" role="status" aria-live="polite" data-testid="runtime-index-job" data-outcome={outcome}>
      {f.running ? (
        <>
          <progress max={Math.max(f.toEmbed, 1)} value={f.embedded} aria-label={t("runtimeIndex.fill")} />{" "}
          {t("runtimeIndex.progress", { done: num(f.embedded), n: num(f.toEmbed), dropped: num(f.dropped) })}
        </>
      ) : f.error ? (
        <span className="inline-error">{f.error}</span>
      ) : f.cancelled ? (
        t("runtimeIndex.cancelled", { done: num(f.embedded) })
      ) : (
        t("runtimeIndex.done", { done: num(f.embedded), dropped: num(f.dropped) })
      )}
      {f.warning ? <div className="muted small">{f.warning}</div> : null}
    </div>
  );
}
