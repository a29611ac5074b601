// "Never read in 90 days": the archival entries the backend marked unread, in file order, each
// with its reads and a link that brings it into view in the full table.
import type { EntryReadDto } from "../../backend/types";
import { onRowKeyDown } from "../../components/hooks";
import { Empty } from "../../components/States";
import { useI18n } from "../../i18n";
import { ReadCell, ReadHead } from "./ReadCell";

export function UnreadList({ entries, days, entryHref }: { entries: EntryReadDto[]; days: number; entryHref: (id: string) => string }) {
  const { t, num } = useI18n();
  if (entries.length === 0) return <Empty>{t("reads.noUnread", { days: num(days) })}</Empty>;
  return (
    <div className="table-wrap">
      <table className="table table-compact table-entries" data-testid="reads-unread-table">
        <thead>
          <tr>
            <th className="c-idx">{t("memory.col.index")}</th>
            <th className="c-time">{t("memory.col.time")}</th>
            <th>{t("memory.col.content")}</th>
            <ReadHead />
          </tr>
        </thead>
        <tbody onKeyDown={onRowKeyDown}>
          {entries.map((e) => (
            <tr key={e.id} tabIndex={0} data-row data-testid="reads-unread-row" data-entry-id={e.id}>
              <td className="c-idx muted">{e.index === null ? "—" : e.index + 1}</td>
              <td className="c-time">{e.timestamp ?? <span className="muted">{t("memory.noTime")}</span>}</td>
              <td className="wrap c-content">
                <a href={entryHref(e.id)} tabIndex={-1}>
                  {e.content}
                </a>
              </td>
              <ReadCell r={e} />
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
