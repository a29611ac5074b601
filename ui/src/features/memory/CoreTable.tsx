import { useEffect, useRef } from "react";

import type { EntryDto } from "../../backend/types";
import { onRowKeyDown } from "../../components/hooks";
import { Empty } from "../../components/States";
import { useI18n } from "../../i18n";

export function CoreTable({ entries, flash }: { entries: EntryDto[]; flash: { index: number; nonce: number } | null }) {
  const { t, num } = useI18n();
  const ref = useRef<HTMLTableSectionElement>(null);
  useEffect(() => {
    if (!flash) return;
    ref.current?.querySelector<HTMLElement>(`[data-entry-index="${flash.index}"]`)?.scrollIntoView?.({ block: "nearest" });
  }, [flash, entries.length]);
  return (
    <div className="table-wrap">
      <table className="table table-compact" data-testid="core-table">
        <thead>
          <tr>
            <th className="c-idx">{t("memory.col.index")}</th>
            <th className="c-time">{t("memory.col.time")}</th>
            <th>{t("memory.col.content")}</th>
            <th className="num c-chars">{t("memory.col.chars")}</th>
          </tr>
        </thead>
        <tbody ref={ref} onKeyDown={onRowKeyDown}>
          {entries.map((e, i) => (
            <tr key={i} tabIndex={0} data-row data-testid="core-row" data-entry-index={i} className={flash?.index === i ? "flash" : undefined}>
              <td className="c-idx muted">{i + 1}</td>
              <td className="c-time">{e.timestamp ?? <span className="muted">{t("memory.noTime")}</span>}</td>
              <td className="wrap">{e.content}</td>
              <td className="num">{num(Array.from(e.line).length)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {entries.length === 0 ? <Empty>{t("memory.emptyCore")}</Empty> : null}
    </div>
  );
}
