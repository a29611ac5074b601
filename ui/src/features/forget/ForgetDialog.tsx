// Forget for good: the dry run lists every copy of entries' texts (or of a text) by place, what
// the runtime's database loses and what stays beyond reach; after an explicit "cannot be undone"
// the forget runs in the background with progress and cancel, and ends with its receipt. Every
// figure, place and reason is the console's answer; this file only shows them.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useId, useState } from "react";

import { useBackend } from "../../backend";
import type { OpArgs } from "../../backend/client";
import type { CopiesDto, ForgetDto, LeftDto } from "../../backend/types";
import { Dialog } from "../../components/Dialog";
import { Icon } from "../../components/Icon";
import { ErrorState, Skeleton } from "../../components/States";
import { useI18n } from "../../i18n";
import { useOp } from "../../queries/ops";
import { askLabel, byPlace, placeName, total, whyLabel } from "./places";
import "./forget.css";

/** How often a running forget's progress is asked for. */
const POLL_MS = 500;

/** What is forgotten: entries of one owner (their texts, everywhere), or a text typed here. */
export type ForgetSubject = { kind: "entries"; agent: string | null; ids: string[] } | { kind: "text"; agent: string | null; text?: string };

type Args = OpArgs<"forget">;
type Scope = "owner" | "all";

function dryRunArgs(subject: ForgetSubject, text: string, scope: Scope): Args {
  if (subject.kind === "entries") return { agent: subject.agent, ids: subject.ids, dry_run: true };
  return { agent: scope === "all" ? null : subject.agent, all_agents: scope === "all", text, dry_run: true };
}

/** `onClose(ran)`: `ran` when a forget ran (every screen's data may have changed). */
export function ForgetDialog({ subject, onClose }: { subject: ForgetSubject; onClose: (ran: boolean) => void }) {
  const { t, num } = useI18n();
  const { call } = useBackend();
  const qc = useQueryClient();
  const [text, setText] = useState(subject.kind === "text" ? (subject.text ?? "") : "");
  const [scope, setScope] = useState<Scope>("owner");
  const [asked, setAsked] = useState<Args | null>(() => (subject.kind === "entries" ? dryRunArgs(subject, "", "owner") : null));
  const [mask, setMask] = useState(false);
  const [understood, setUnderstood] = useState(false);
  const [started, setStarted] = useState<ForgetDto | null>(null);

  // The dry run: asked afresh each time, never refetched by the changes the forget makes.
  const plan = useOp("forget", asked ?? { dry_run: true }, { enabled: asked !== null && started === null, staleTime: 0, gcTime: 0, retry: false, followChanges: false });
  const start = useMutation({
    mutationFn: (a: Args) => call("forget", a),
    onSuccess: (d) => setStarted(d),
  });
  const job = useOp("forget_state", {}, {
    enabled: started !== null,
    staleTime: 0,
    gcTime: 0,
    followChanges: false,
    refetchInterval: (q) => (q.state.data?.state === "running" ? POLL_MS : false),
  });
  const cancel = useMutation({ mutationFn: () => call("cancel_forget", {}), onSettled: () => void job.refetch() });

  const current = started ? (job.data ?? started) : null;
  const phase = asked === null ? "ask" : current === null ? "plan" : current.state === "running" ? "running" : "result";
  const owner = subject.agent ?? t("forget.scope.global");

  const close = () => {
    if (phase === "running") return;
    if (started) {
      // A forget can touch every owner, the history, the runtime's sessions: everything is asked again.
      void qc.invalidateQueries();
      onClose(true);
    } else onClose(false);
  };

  const confirm = () => {
    if (!asked || !plan.data || !understood || start.isPending) return;
    start.mutate({ ...asked, mask, dry_run: false });
  };

  const title = subject.kind === "entries" ? t("forget.titleEntries", { n: num(subject.ids.length) }) : t("forget.titleText");
  const d = plan.data;
  const nothing = d !== undefined && d.found.length === 0 && d.left.length === 0;
  const formId = useId();

  let footer: React.ReactNode;
  if (phase === "ask") {
    footer = (
      <>
        <button type="submit" form={formId} className="btn btn-primary" disabled={text.trim() === ""} data-testid="forget-find">
          <Icon name="search" size={14} /> {t("forget.find")}
        </button>
        <button type="button" className="btn" onClick={close} data-testid="forget-cancel">
          {t("forget.cancel")}
        </button>
      </>
    );
  } else if (phase === "plan") {
    footer =
      nothing || plan.isError ? (
        <button type="button" className="btn" onClick={close} data-autofocus data-testid="forget-close">
          {t("forget.close")}
        </button>
      ) : (
        <>
          <button type="button" className="btn btn-forget" disabled={!d || !understood || start.isPending} onClick={confirm} data-autofocus data-testid="forget-confirm">
            {t("forget.confirm", { n: num(d ? total(d.found) : 0) })}
          </button>
          <button type="button" className="btn" onClick={close} data-testid="forget-cancel">
            {t("forget.cancel")}
          </button>
        </>
      );
  } else if (phase === "running") {
    footer = (
      <button type="button" className="btn" disabled={cancel.isPending || cancel.data === true} onClick={() => cancel.mutate()} data-autofocus data-testid="forget-stop">
        <Icon name="stop" size={14} /> {t("forget.stop")}
      </button>
    );
  } else {
    footer = (
      <button type="button" className="btn btn-primary" onClick={close} data-autofocus data-testid="forget-close">
        {t("forget.close")}
      </button>
    );
  }

  return (
    <Dialog
      title={title}
      onEscape={close}
      testId="forget-dialog"
      wide
      focusKey={`${phase}:${d ? "ready" : "asking"}:${understood ? "ticked" : ""}`}
      footer={footer}
      close={phase === "running" ? undefined : { label: t("forget.close"), onClick: close }}
    >
      <div className="forget" data-phase={phase}>
        {phase === "ask" ? (
          <form
            id={formId}
            className="forget-ask"
            onSubmit={(e) => {
              e.preventDefault();
              if (text.trim() !== "") setAsked(dryRunArgs(subject, text, scope));
            }}
          >
            <label className="field">
              <span className="field-label">{t("forget.text.label")}</span>
              <input type="text" className="input" value={text} onChange={(e) => setText(e.target.value)} data-autofocus data-testid="forget-text" />
              <span className="field-hint">{t("forget.text.hint")}</span>
            </label>
            <fieldset className="forget-choice">
              <legend className="field-label">{t("forget.scope.label")}</legend>
              <label className="field-inline">
                <input type="radio" name="forget-scope" checked={scope === "owner"} onChange={() => setScope("owner")} data-testid="forget-scope-owner" />
                <span>{t("forget.scope.owner", { owner })}</span>
              </label>
              <label className="field-inline">
                <input type="radio" name="forget-scope" checked={scope === "all"} onChange={() => setScope("all")} data-testid="forget-scope-all" />
                <span>{t("forget.scope.all")}</span>
              </label>
            </fieldset>
          </form>
        ) : null}

        {phase === "plan" ? (
          plan.isError ? (
            <ErrorState error={plan.error} compact />
          ) : !d ? (
            <Skeleton rows={4} label={t("forget.searching")} />
          ) : (
            <Plan
              d={d}
              nothing={nothing}
              onChangeText={subject.kind === "text" ? () => setAsked(null) : undefined}
              mask={mask}
              setMask={setMask}
              understood={understood}
              setUnderstood={setUnderstood}
              onConfirm={confirm}
            />
          )
        ) : null}
        {phase === "plan" && start.error ? <ErrorState error={start.error} compact /> : null}

        {phase === "running" && current ? <Running d={current} stopping={cancel.data === true} /> : null}
        {phase === "result" && current ? <Result d={current} /> : null}
        {job.isError ? <ErrorState error={job.error} compact /> : null}
      </div>
    </Dialog>
  );
}

function Plan({
  d,
  nothing,
  onChangeText,
  mask,
  setMask,
  understood,
  setUnderstood,
  onConfirm,
}: {
  d: ForgetDto;
  nothing: boolean;
  onChangeText?: () => void;
  mask: boolean;
  setMask: (v: boolean) => void;
  understood: boolean;
  setUnderstood: (v: boolean) => void;
  onConfirm: () => void;
}) {
  const { t } = useI18n();
  return (
    <>
      <p className="forget-scope-line" data-testid="forget-scope">
        <span className="muted">{t("forget.asked")}</span> {askLabel(t, d.ask, d.scope)}
        {onChangeText ? (
          <button type="button" className="btn btn-small btn-ghost" onClick={onChangeText} data-testid="forget-change-text">
            {t("forget.changeText")}
          </button>
        ) : null}
      </p>
      {nothing ? (
        <div className="banner" role="status" data-testid="forget-nothing">
          <Icon name="check" />
          <div>{t("forget.nothing")}</div>
        </div>
      ) : (
        <>
          <h3 className="forget-h">{t("forget.found")}</h3>
          {d.found.length === 0 ? <p className="muted">{t("forget.noneReachable")}</p> : <Copies rows={d.found} testId="forget-found" />}
          {d.runtime_records.length > 0 ? (
            <div className="forget-runtime" data-testid="forget-runtime-records">
              <span>{t("forget.runtimeRecords")}</span>{" "}
              {d.runtime_records.map((r) => (
                <code key={r} className="forget-record">
                  {r}
                </code>
              ))}
            </div>
          ) : null}
          {d.runtime_running ? (
            <div className="banner banner-warn" role="status" data-testid="forget-runtime-running">
              <Icon name="warning" />
              <div>{t("forget.runtimeRunning")}</div>
            </div>
          ) : null}
          {d.left.length > 0 ? (
            <>
              <h3 className="forget-h">{t("forget.beyond")}</h3>
              <Left rows={d.left} testId="forget-beyond" />
            </>
          ) : null}
          {d.found.length > 0 ? (
            <>
              <fieldset className="forget-choice" data-testid="forget-how">
                <legend className="field-label">{t("forget.how")}</legend>
                <label className="field-inline">
                  <input type="radio" name="forget-how" checked={!mask} onChange={() => setMask(false)} data-testid="forget-how-delete" />
                  <span>{t("forget.how.delete")}</span>
                </label>
                <label className="field-inline">
                  <input type="radio" name="forget-how" checked={mask} onChange={() => setMask(true)} data-testid="forget-how-mask" />
                  <span>{t("forget.how.mask")}</span>
                </label>
              </fieldset>
              <div className="banner banner-err forget-warning" role="note" data-testid="forget-warning">
                <Icon name="warning" />
                <div>{t("forget.warning")}</div>
              </div>
              <label className="field-inline forget-understand">
                <input
                  type="checkbox"
                  checked={understood}
                  onChange={(e) => setUnderstood(e.target.checked)}
                  onKeyDown={(e) => {
                    // Enter on the ticked box confirms, as Enter on the confirm button does.
                    if (e.key === "Enter" && understood) {
                      e.preventDefault();
                      onConfirm();
                    }
                  }}
                  data-autofocus={understood ? undefined : true}
                  data-testid="forget-understand"
                />
                <span>{t("forget.understand")}</span>
              </label>
            </>
          ) : null}
        </>
      )}
    </>
  );
}

function Copies({ rows, testId }: { rows: CopiesDto[]; testId: string }) {
  const { t, num } = useI18n();
  return (
    <div className="forget-places" data-testid={testId}>
      {byPlace(rows).map(([place, list]) => (
        <section key={place} className="forget-place" data-testid="forget-place" data-place={place}>
          <div className="forget-place-head">
            <span className="forget-place-name">{placeName(t, place)}</span>
            <span className="forget-count" data-testid="forget-place-count">
              {num(total(list))}
            </span>
          </div>
          <ul className="forget-paths">
            {list.map((c, i) => (
              <li key={i}>
                <code className="forget-path">{c.path}</code>
                {c.detail ? <span className="muted small"> · {c.detail}</span> : null}
                {c.count > 0 || c.own === 0 ? <span className="muted small forget-n"> · {t("forget.copies", { n: num(c.count) })}</span> : null}
                {c.own > 0 ? (
                  <div className="muted small" data-testid="forget-own">
                    {t("forget.own", { n: num(c.own) })}
                  </div>
                ) : null}
              </li>
            ))}
          </ul>
        </section>
      ))}
    </div>
  );
}

function Left({ rows, testId }: { rows: LeftDto[]; testId: string }) {
  const { t, num } = useI18n();
  return (
    <div className="forget-places forget-left" data-testid={testId}>
      {byPlace(rows).map(([place, list]) => (
        <section key={place} className="forget-place" data-testid="forget-left-place" data-place={place}>
          <div className="forget-place-head">
            <span className="forget-place-name">{placeName(t, place)}</span>
            <span className="forget-count">{num(total(list))}</span>
          </div>
          <ul className="forget-paths">
            {list.map((l, i) => (
              <li key={i}>
                <code className="forget-path">{l.path}</code>
                <span className="muted small forget-n"> · {t("forget.copies", { n: num(l.count) })}</span>
                <div className="forget-reason" data-testid="forget-reason">
                  {whyLabel(t, l)}
                </div>
              </li>
            ))}
          </ul>
        </section>
      ))}
    </div>
  );
}

function Running({ d, stopping }: { d: ForgetDto; stopping: boolean }) {
  const { t, num } = useI18n();
  const step = d.step;
  return (
    <div className="forget-running" role="status" aria-live="polite" data-testid="forget-running">
      <p>
        <strong>{t("forget.running")}</strong> {askLabel(t, d.ask, d.scope)}
      </p>
      <progress max={Math.max(step?.of ?? 1, 1)} value={step?.done ?? 0} aria-label={t("forget.running")} />
      <p className="muted" data-testid="forget-progress">
        {step ? t("forget.progress", { done: num(step.done), of: num(step.of), place: placeName(t, step.place) }) : t("forget.starting")}
      </p>
      {stopping ? <p className="muted small">{t("forget.stopping")}</p> : null}
    </div>
  );
}

const RESULT_BANNER: Record<string, string> = { done: "banner banner-ok", cancelled: "banner banner-warn", failed: "banner banner-err" };

function Result({ d }: { d: ForgetDto }) {
  const { t } = useI18n();
  const state = d.state ?? "done";
  return (
    <div className="forget-result" data-testid="forget-result" data-state={state}>
      <div className={RESULT_BANNER[state] ?? "banner"} role="status" data-testid="forget-state">
        <Icon name={state === "done" ? "check" : state === "failed" ? "error" : "warning"} />
        <div>
          <strong>{stateLabel(t, state)}</strong> <span className="muted">{askLabel(t, d.ask, d.scope)}</span>
          {d.error ? <div className="banner-sub">{d.error}</div> : null}
        </div>
      </div>
      <h3 className="forget-h">{t("forget.erased")}</h3>
      {d.erased.length === 0 ? <p className="muted">{t("forget.nothingErased")}</p> : <Copies rows={d.erased} testId="forget-erased" />}
      {d.left.length > 0 ? (
        <>
          <h3 className="forget-h">{t("forget.left")}</h3>
          <Left rows={d.left} testId="forget-left" />
        </>
      ) : null}
      {d.receipt ? (
        <p className="forget-receipt" data-testid="forget-receipt">
          <span className="muted">{t("forget.receipt")}</span> <code>{d.receipt}</code> <span className="muted small">{t("forget.receiptHint")}</span>
        </p>
      ) : null}
    </div>
  );
}

export function stateLabel(t: ReturnType<typeof useI18n>["t"], state: string): string {
  switch (state) {
    case "done":
      return t("forget.state.done");
    case "cancelled":
      return t("forget.state.cancelled");
    case "failed":
      return t("forget.state.failed");
    case "running":
      return t("forget.state.running");
    case "interrupted":
      return t("forget.state.interrupted");
    default:
      return state;
  }
}
