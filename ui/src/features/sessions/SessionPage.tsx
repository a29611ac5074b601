import type { MemoryLinkDto, MessageDto, SessionDto, ToolInvocationDto } from "../../backend/types";
import { decodeResult, prettyJson } from "../../components/format";
import { onRowKeyDown } from "../../components/hooks";
import { Icon } from "../../components/Icon";
import { Empty, ErrorState, Loadable } from "../../components/States";
import { useI18n } from "../../i18n";
import { useOp } from "../../queries/ops";
import { href, replaceRoute } from "../../router";
import { useEffect, useMemo, useRef, useState } from "react";
import { useMemoryLinks } from "../provenance/hooks";
import { PromptReplay, replayMoment } from "../prompt/PromptReplay";
import { TurnReadsPanel } from "../reads/TurnReadsPanel";
import "../provenance/provenance.css";

import { lastSessionsFilter, StatusTag } from "./SessionsPage";
import "./sessions.css";

export function SessionPage({ id, focus, why }: { id: string; focus?: number; why?: "origin" }) {
  const { t } = useI18n();
  const q = useOp("get_session", { id });
  return (
    <div className="page">
      <div className="page-head">
        <a className="crumb" data-testid="crumb-sessions" href={href({ page: "sessions", ...lastSessionsFilter() })}>
          {t("nav.sessions")}
        </a>
        <span className="crumb-sep">/</span>
        <h1 className="mono session-title" title={id} data-testid="session-title">
          {id}
        </h1>
      </div>
      <Loadable query={q} rows={8}>
        {(s) => <SessionView s={s} focus={focus} why={why} />}
      </Loadable>
    </div>
  );
}

function SessionView({ s, focus, why }: { s: SessionDto; focus?: number; why?: "origin" }) {
  const { t } = useI18n();
  const sum = s.summary;
  const focused = useRef<HTMLDivElement>(null);
  // The entries the messages wrote (a badge each, linking to the entry in its memory).
  const links = useMemoryLinks(sum.session_id);
  const byMessage = useMemo(() => {
    const m = new Map<number, MemoryLinkDto[]>();
    for (const l of links.data ?? []) m.set(l.message_index, [...(m.get(l.message_index) ?? []), l]);
    return m;
  }, [links.data]);
  // Prompt replay of one user message (its index), in a dialog.
  const [replay, setReplay] = useState<number | null>(null);
  const agent = sum.agent;
  useEffect(() => {
    // The message a search matched: brought into view once, and focusable for the keyboard.
    focused.current?.scrollIntoView({ block: "center" });
    focused.current?.focus({ preventScroll: true });
  }, [focus]);
  return (
    <div className="session">
      <div className="card">
        <dl className="fields fields-row">
          <dt>{t("sessions.col.agent")}</dt>
          <dd>{sum.agent ? <a href={href({ page: "agent", name: sum.agent, tab: "memory" })}>{sum.agent}</a> : t("common.none")}</dd>
          <dt>{t("sessions.col.channel")}</dt>
          <dd>{sum.channel ?? t("common.none")}</dd>
          <dt>{t("session.user")}</dt>
          <dd>{sum.user_id ?? t("common.none")}</dd>
          <dt>{t("sessions.col.status")}</dt>
          <dd>
            <StatusTag status={sum.status} />
          </dd>
          <dt>{t("session.created")}</dt>
          <dd className="mono">{sum.created_at ?? t("common.none")}</dd>
          <dt>{t("session.lastActive")}</dt>
          <dd className="mono">{sum.last_active_at ?? t("common.none")}</dd>
          {sum.archived_at ? (
            <>
              <dt>{t("session.archivedAt")}</dt>
              <dd className="mono">{sum.archived_at}</dd>
            </>
          ) : null}
          <dt>{t("sessions.col.messages")}</dt>
          <dd>
            {sum.message_count ?? t("common.none")} · {t("session.turns", { n: s.turns })}
          </dd>
        </dl>
      </div>
      {sum.error ? (
        <div className="error-card" role="alert" data-testid="session-error">
          <Icon name="error" />
          <div>
            <strong>{t("session.errorTitle")}</strong>
            <div className="mono">{sum.error}</div>
          </div>
        </div>
      ) : null}
      <div className="session-grid">
        <section className="section">
          <div className="section-head">
            <h2>{t("session.conversation")}</h2>
            <span className="count">{s.messages.length}</span>
          </div>
          <div className="conversation" data-testid="conversation">
            {s.messages.length === 0 ? (
              <Empty>{t("session.noMessages")}</Empty>
            ) : (
              s.messages.map((m, i) => (
                <Message
                  key={i}
                  m={m}
                  index={i}
                  focusRef={i === focus ? focused : undefined}
                  why={why}
                  sessionId={sum.session_id}
                  links={byMessage.get(i)}
                  onReplay={agent && m.role === "user" ? () => setReplay(i) : undefined}
                />
              ))
            )}
          </div>
        </section>
        <Invocations sessionId={sum.session_id} />
      </div>
      <TurnReadsPanel sessionId={sum.session_id} agent={agent} />
      {replay !== null && agent ? <PromptReplay agent={agent} sessionId={sum.session_id} asof={replayMoment(sum)} index={replay} onClose={() => setReplay(null)} /> : null}
    </div>
  );
}

function Message({
  m,
  index,
  focusRef,
  why,
  sessionId,
  links,
  onReplay,
}: {
  m: MessageDto;
  index: number;
  focusRef?: React.Ref<HTMLDivElement>;
  why?: "origin";
  sessionId: string;
  links?: MemoryLinkDto[];
  onReplay?: () => void;
}) {
  const { t } = useI18n();
  const role = m.role === "user" || m.role === "assistant" || m.role === "tool" ? m.role : "other";
  const label = role === "other" ? m.role : t(`session.role.${role}`);
  return (
    <div
      className={`msg msg-${role}${focusRef ? " msg-match" : ""}`}
      data-testid="message"
      data-role={m.role}
      data-index={index}
      ref={focusRef}
      tabIndex={focusRef ? -1 : undefined}
      aria-current={focusRef ? "true" : undefined}
    >
      <div className="msg-head">
        <span className="msg-role">{label}</span>
        {focusRef ? (
          <span className="tag tag-warn" data-testid="message-mark">
            {why === "origin" ? t("session.origin") : t("session.matched")}
          </span>
        ) : null}
        {m.role === "tool" ? (
          <span className="muted">
            {t("session.toolResult")} · <code>{m.tool_name ?? "?"}</code>
            {m.tool_call_id ? <span className="mono"> #{m.tool_call_id}</span> : null}
          </span>
        ) : null}
        {onReplay ? (
          <span className="msg-actions">
            <button type="button" className="btn btn-small" onClick={onReplay} aria-label={t("replay.actionLabel", { n: index + 1 })} data-testid="message-replay">
              <Icon name="history" size={13} /> {t("replay.action")}
            </button>
          </span>
        ) : null}
      </div>
      {m.content ? m.role === "tool" ? <pre className="msg-body msg-pre">{m.content}</pre> : <div className="msg-body">{m.content}</div> : null}
      {m.tool_calls.map((c, i) => (
        <div key={c.id ?? i} className="tool-call" data-testid="tool-call">
          <div className="tool-call-head">
            <Icon name="tool" size={13} /> {t("session.toolCall")} <code>{c.name}</code>
            {c.id ? <span className="mono muted"> #{c.id}</span> : null}
          </div>
          <pre className="msg-pre">{prettyJson(c.arguments_json) || "{}"}</pre>
        </div>
      ))}
      {links?.length ? <MemoryBadges links={links} sessionId={sessionId} index={index} /> : null}
    </div>
  );
}

/** "Saved to memory" / "Footprint in memory": a link to each entry the message wrote, in its
 * memory tab. The session's place is kept first (Back returns to this message). */
function MemoryBadges({ links, sessionId, index }: { links: MemoryLinkDto[]; sessionId: string; index: number }) {
  const { t } = useI18n();
  return (
    <div className="msg-badges">
      {links.map((l) => {
        const target = { entry: l.entry_id, find: l.content, session: sessionId, m: index };
        const to = l.agent ? href({ page: "agent", name: l.agent, tab: "memory", ...target }) : href({ page: "global", ...target });
        const owner = l.agent ? t("provenance.agentMemory", { agent: l.agent }) : t("provenance.globalMemory");
        const label = l.origin === "save_memory" ? t("provenance.badge.save_memory") : l.origin === "footprint" ? t("provenance.badge.footprint") : t("provenance.badge.other");
        const title = `${t("provenance.badgeTitle", { owner, content: l.content })}${l.exact ? "" : ` ${t("provenance.badgeInexact")}`}`;
        return (
          <a
            key={l.entry_id}
            className="msg-badge"
            href={to}
            title={title}
            aria-label={`${label}: ${title}`}
            data-testid="memory-badge"
            data-origin={l.origin}
            data-entry-id={l.entry_id}
            onClick={() => replaceRoute({ page: "session", id: sessionId, m: index, why: "origin" })}
          >
            <Icon name="check" size={12} /> {label}
          </a>
        );
      })}
    </div>
  );
}

function Invocations({ sessionId }: { sessionId: string }) {
  const { t } = useI18n();
  const q = useOp("tool_invocations", { session_id: sessionId, limit: 500, offset: 0 });
  return (
    <section className="section">
      <div className="section-head">
        <h2>{t("session.invocations")}</h2>
        {q.data ? <span className="count">{q.data.length}</span> : null}
      </div>
      {q.isError ? (
        <ErrorState error={q.error} onRetry={() => void q.refetch()} />
      ) : (
        <Loadable query={q} rows={4}>
          {(rows) => (rows.length === 0 ? <Empty>{t("session.noInvocations")}</Empty> : <InvocationTable rows={rows} />)}
        </Loadable>
      )}
    </section>
  );
}

function InvocationTable({ rows }: { rows: ToolInvocationDto[] }) {
  const { t } = useI18n();
  return (
    <div className="table-wrap">
      <table className="table table-compact" data-testid="tool-invocations">
        <thead>
          <tr>
            <th>{t("session.col.time")}</th>
            <th>{t("session.col.tool")}</th>
            <th>{t("session.col.ok")}</th>
            <th className="num">{t("session.col.duration")}</th>
            <th>{t("session.col.input")}</th>
            <th>{t("session.col.result")}</th>
          </tr>
        </thead>
        <tbody onKeyDown={onRowKeyDown}>
          {rows.map((r, i) => (
            <tr key={r.id ?? `i${i}`} tabIndex={0} data-row data-testid="tool-invocation" className={r.success ? undefined : "row-fail"}>
              <td className="cell-time">{r.created_at ?? t("common.none")}</td>
              <td>
                <code>{r.tool_name}</code>
              </td>
              <td>{r.success ? <span className="tag tag-ok">{t("session.ok")}</span> : <span className="tag tag-err">{t("session.fail")}</span>}</td>
              <td className="num">{r.duration_ms === null ? t("common.none") : `${r.duration_ms} ms`}</td>
              <td>
                <pre className="cell-pre">{prettyJson(r.input_json)}</pre>
              </td>
              <td>
                <pre className="cell-pre">{r.error_message && !r.success ? r.error_message : decodeResult(r.result_json)}</pre>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
