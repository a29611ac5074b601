// "Where did this come from?": the console's answer for one entry, in the user's language, with a
// link to the session message that wrote it.
import type { ProvenanceDto } from "../../backend/types";
import { Dialog } from "../../components/Dialog";
import { Loadable } from "../../components/States";
import { useI18n, type MessageKey, type TFunction } from "../../i18n";
import { href } from "../../router";
import { useProvenance } from "./hooks";
import "./provenance.css";

export type ProvenanceSubject = { id: string; content: string; index: number };

const OPS: Record<string, MessageKey> = {
  edit: "provenance.op.edit",
  move: "provenance.op.move",
  restore: "provenance.op.restore",
  summarize: "provenance.op.summarize",
  auto_summary: "provenance.op.auto_summary",
};

/** One sentence for one record (the console's origin, said in the user's language). */
export function originSentence(t: TFunction, p: ProvenanceDto): string {
  const none = t("common.none");
  const session = p.session_id ?? none;
  const at = p.at ?? none;
  const n = p.message_index === null ? null : p.message_index + 1;
  switch (p.origin) {
    case "save_memory":
      return n === null ? t("provenance.save_memoryNoMessage", { session, at }) : t("provenance.save_memory", { session, at, n });
    case "footprint": {
      const trigger = p.trigger ?? none;
      return n === null ? t("provenance.footprintNoMessage", { session, trigger }) : t("provenance.footprint", { session, trigger, n });
    }
    case "summary":
      return p.at ? t("provenance.summary", { at }) : t("provenance.summaryNoTime");
    case "console": {
      const key = p.change_op ? OPS[p.change_op] : undefined;
      const op = key ? t(key) : t("provenance.op.other", { op: p.change_op ?? none });
      return t("provenance.console", { op, at });
    }
    case "unknown":
      return t("provenance.unknown");
  }
}

/** A record, and (for a console change) the records before it, each with its session link. */
function Record({ p, depth }: { p: ProvenanceDto; depth: number }) {
  const { t } = useI18n();
  const n = p.message_index === null ? null : p.message_index + 1;
  return (
    <div className="prov-record" data-testid="provenance-record" data-origin={p.origin} data-exact={p.exact ? "true" : "false"} data-depth={depth}>
      <p className="prov-sentence" data-testid="provenance-sentence">
        {originSentence(t, p)}
      </p>
      {!p.exact && p.origin !== "unknown" && p.origin !== "console" ? (
        <p className="prov-inexact" data-testid="provenance-inexact">
          {t("provenance.inexact")}
        </p>
      ) : null}
      {p.session_id ? (
        <a
          className="prov-link"
          href={href(p.message_index === null ? { page: "session", id: p.session_id } : { page: "session", id: p.session_id, m: p.message_index, why: "origin" })}
          data-testid="provenance-open"
        >
          {n === null ? t("provenance.openNoMessage", { session: p.session_id }) : t("provenance.open", { session: p.session_id, n })}
        </a>
      ) : null}
      {p.earlier ? (
        <div className="prov-earlier">
          <div className="field-label">{t("provenance.before")}</div>
          <Record p={p.earlier} depth={depth + 1} />
        </div>
      ) : null}
    </div>
  );
}

/** The panel for `subject` of `agent`'s memory (null: the global memory); closes with Escape. */
export function ProvenancePanel({ agent, subject, onClose }: { agent: string | null; subject: ProvenanceSubject; onClose: () => void }) {
  const { t } = useI18n();
  const q = useProvenance(agent, subject.id);
  return (
    <Dialog title={t("provenance.title")} onEscape={onClose} testId="provenance" close={{ label: t("provenance.close"), onClick: onClose }}>
      <div className="prov-entry">
        <span className="field-label">
          {t("provenance.entry")} #{subject.index + 1}
        </span>
        <blockquote className="prov-quote">{subject.content}</blockquote>
      </div>
      <div aria-live="polite">
        <Loadable query={q} rows={2}>
          {(p) => <Record p={p} depth={0} />}
        </Loadable>
      </div>
    </Dialog>
  );
}
