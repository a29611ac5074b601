// The memory tables' "Last read" cell: when the entry was last read, and how (prompts, recalls)
// in its tooltip and for screen readers.
import type { EntryReadDto } from "../../backend/types";
import { useI18n } from "../../i18n";
import "./reads.css";

export function ReadHead() {
  const { t } = useI18n();
  return (
    <th className="c-read has-tip" title={t("reads.col.tip")} data-testid="reads-head">
      {t("reads.col.lastRead")}
    </th>
  );
}

function ReadBody({ r }: { r: EntryReadDto }) {
  const { t, num } = useI18n();
  const how = t("reads.col.how", { prompts: num(r.prompts), recalls: num(r.recalls), sessions: num(r.sessions) });
  return (
    <>
      <span className="mono">{r.lastRead ?? t("reads.never")}</span>
      <span className="read-counts muted">
        {" "}
        <span aria-hidden="true">
          {num(r.prompts)}/{num(r.recalls)}
        </span>
        <span className="sr-only">{how}</span>
      </span>
    </>
  );
}

function tip(t: ReturnType<typeof useI18n>["t"], num: (n: number) => string, r: EntryReadDto) {
  return t("reads.col.how", { prompts: num(r.prompts), recalls: num(r.recalls), sessions: num(r.sessions) });
}

/** A table cell. */
export function ReadCell({ r }: { r: EntryReadDto | undefined }) {
  const { t, num } = useI18n();
  if (!r) return <td className="c-read muted">—</td>;
  return (
    <td className={r.unread ? "c-read read-unread" : "c-read"} title={tip(t, num, r)} data-testid="read-cell" data-unread={r.unread ? "true" : undefined}>
      <ReadBody r={r} />
    </td>
  );
}

/** The same in a grid row (the archival list). */
export function ReadSpan({ r }: { r: EntryReadDto | undefined }) {
  const { t, num } = useI18n();
  if (!r)
    return (
      <span role="cell" className="c-read muted">
        —
      </span>
    );
  return (
    <span role="cell" className={r.unread ? "c-read read-unread" : "c-read"} title={tip(t, num, r)} data-testid="read-cell" data-unread={r.unread ? "true" : undefined}>
      <ReadBody r={r} />
    </span>
  );
}
