import { useQueryClient } from "@tanstack/react-query";
import { useDeferredValue, useEffect, useMemo, useState } from "react";

import { MEM0_LIST_LIMIT } from "../../backend/memory-rules";
import type { AppendResult, MemoryViewDto } from "../../backend/types";
import { useDebounced } from "../../components/hooks";
import { Icon } from "../../components/Icon";
import { Empty, Loadable } from "../../components/States";
import { useI18n } from "../../i18n";
import { useMemoryView, useRecall } from "../../queries/hooks";
import { qk } from "../../queries/keys";
import { AddEntryForm } from "./AddEntryForm";
import { displayItems, type SortDir } from "./archival";
import { ArchivalList } from "./ArchivalList";
import { CoreTable } from "./CoreTable";
import { WindowBanner } from "./WindowBanner";

type Flash = { scope: "core" | "archival"; index: number; nonce: number };

export function MemoryTab({ agent }: { agent: string | null }) {
  const q = useMemoryView(agent);
  return (
    <Loadable query={q} rows={10}>
      {(view) => <MemoryContent agent={agent} view={view} />}
    </Loadable>
  );
}

function MemoryContent({ agent, view }: { agent: string | null; view: MemoryViewDto }) {
  const { t, num } = useI18n();
  const qc = useQueryClient();
  const [keyword, setKeyword] = useState("");
  const [dir, setDir] = useState<SortDir>("asc");
  const [flash, setFlash] = useState<Flash | null>(null);
  const deferred = useDeferredValue(keyword);
  const recallKeyword = useDebounced(keyword.trim(), 300);
  const recall = useRecall(agent, recallKeyword);
  const items = useMemo(() => displayItems(view.archival, deferred, dir), [view.archival, deferred, dir]);
  const shown = deferred.trim() ? items.filter((i) => i !== "cut").length : view.archival.length;

  useEffect(() => {
    if (!flash) return;
    const id = setTimeout(() => setFlash(null), 2500);
    return () => clearTimeout(id);
  }, [flash]);

  const onAdded = async (r: AppendResult) => {
    if (r.scope === "archival") setKeyword("");
    await qc.invalidateQueries({ queryKey: qk.memory(agent) });
    const fresh = qc.getQueryData<MemoryViewDto>(qk.memory(agent));
    if (!fresh) return;
    const list = r.scope === "core" ? fresh.core : fresh.archival;
    let index = -1;
    for (let i = list.length - 1; i >= 0; i--) {
      if (list[i]!.line === r.entry.line) {
        index = i;
        break;
      }
    }
    if (index < 0) index = list.length - 1;
    setFlash({ scope: r.scope, index, nonce: Date.now() });
  };

  return (
    <div className="memory">
      <AddEntryForm agent={agent} onAdded={onAdded} />
      <div className="source-line">
        <span className="field-label">{t("memory.source")}</span> <code data-testid="memory-source">{view.source}</code>
      </div>
      {view.possibly_more ? (
        <div className="banner banner-warn" role="status" data-testid="memory-possibly-more">
          <Icon name="warning" />
          <div>
            <strong>{t("memory.possiblyMore", { n: String(MEM0_LIST_LIMIT) })}</strong>
            <div className="banner-sub">{t("memory.possiblyMoreSub")}</div>
          </div>
        </div>
      ) : null}

      <section className="section">
        <div className="section-head">
          <h2>{t("memory.core")}</h2>
          <span className="count">{num(view.core.length)}</span>
          <span className="section-hint">{t("memory.coreHint")}</span>
        </div>
        <CoreTable entries={view.core} flash={flash?.scope === "core" ? flash : null} />
      </section>

      <section className="section section-archival">
        <div className="section-head">
          <h2>{t("memory.archival")}</h2>
          <span className="count">{num(view.archival.length)}</span>
          <span className="section-hint">{t("memory.archivalHint")}</span>
        </div>
        <WindowBanner w={view.window} total={view.archival.length} />
        <div className="toolbar">
          <label className="search">
            <Icon name="search" />
            <input
              type="search"
              value={keyword}
              onChange={(e) => setKeyword(e.target.value)}
              placeholder={t("memory.search")}
              aria-label={t("memory.search")}
              data-testid="memory-search"
              data-search
            />
          </label>
          <button
            type="button"
            className="btn"
            onClick={() => setDir((d) => (d === "asc" ? "desc" : "asc"))}
            data-testid="memory-sort"
            aria-label={dir === "asc" ? t("memory.sortAsc") : t("memory.sortDesc")}
          >
            <Icon name="sort" /> {dir === "asc" ? t("memory.sortAsc") : t("memory.sortDesc")}
          </button>
          {keyword.trim() ? (
            <span className="toolbar-info">
              <span data-testid="memory-match-count">{t("memory.matches", { n: num(shown), total: num(view.archival.length) })}</span>
              <span className="sep">·</span>
              <span data-testid="recall-count">
                {recall.data && recall.data.keyword === recallKeyword && recallKeyword === keyword.trim()
                  ? t("memory.recallCount", { n: num(recall.data.entries.length) })
                  : t("memory.recallPending")}
              </span>
            </span>
          ) : null}
        </div>
        {view.archival.length === 0 ? (
          <Empty>{t("memory.emptyArchival")}</Empty>
        ) : items.length === 0 ? (
          <Empty>{t("memory.noMatches", { q: deferred.trim() })}</Empty>
        ) : (
          <ArchivalList entries={view.archival} items={items} dir={dir} newestCut={view.window.newest_cut} flash={flash?.scope === "archival" ? flash : null} keyword={deferred} />
        )}
      </section>
    </div>
  );
}
