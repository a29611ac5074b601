import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";

import { MEM0_LIST_LIMIT } from "./limits";
import type { AppendResult, MemoryOverviewDto } from "../../backend/types";
import { useDebounced } from "../../components/hooks";
import { Icon } from "../../components/Icon";
import { Empty, ErrorState, Loadable, Skeleton } from "../../components/States";
import { useI18n } from "../../i18n";
import { useMemoryOverview, useRecall } from "../../queries/hooks";
import { qk } from "../../queries/keys";
import { AddEntryForm } from "./AddEntryForm";
import { shapeOf, useFilteredShape, type SortDir } from "./archival";
import { ArchivalList } from "./ArchivalList";
import { CoreTable } from "./CoreTable";
import { useNewestArchival } from "./hooks";
import { WindowBanner } from "./WindowBanner";

type Flash = { scope: "core" | "archival"; index: number; nonce: number };

/** The memory screen: the overview (core, counts, window) at once, the archival list in pages. */
export function MemoryTab({ agent }: { agent: string | null }) {
  const q = useMemoryOverview(agent);
  return (
    <Loadable query={q} rows={10}>
      {(view) => <MemoryContent agent={agent} view={view} />}
    </Loadable>
  );
}

function MemoryContent({ agent, view }: { agent: string | null; view: MemoryOverviewDto }) {
  const { t, num } = useI18n();
  const qc = useQueryClient();
  const newestArchival = useNewestArchival(agent);
  const [keyword, setKeyword] = useState("");
  const [dir, setDir] = useState<SortDir>("asc");
  const [flash, setFlash] = useState<Flash | null>(null);
  const typed = keyword.trim();
  const debounced = useDebounced(typed, 200);
  // The keyword the list applies (on the server, recall's rule); clearing applies at once.
  const applied = typed === "" ? "" : debounced;
  const recallKeyword = useDebounced(typed, 300);
  const recall = useRecall(agent, recallKeyword);
  const filtered = useFilteredShape(agent, applied, dir);
  const shape = applied ? filtered.shape : shapeOf(view, dir);
  const total = view.archival_total;

  useEffect(() => {
    if (!flash) return;
    const id = setTimeout(() => setFlash(null), 2500);
    return () => clearTimeout(id);
  }, [flash]);

  const onAdded = async (r: AppendResult) => {
    if (r.scope === "archival") setKeyword("");
    await qc.invalidateQueries({ queryKey: qk.memory(agent) });
    const fresh = qc.getQueryData<MemoryOverviewDto>(qk.memoryOverview(agent));
    if (!fresh) return;
    let index = -1;
    if (r.scope === "core") {
      for (let i = fresh.core.length - 1; i >= 0; i--) {
        if (fresh.core[i]!.line === r.entry.line) {
          index = i;
          break;
        }
      }
      if (index < 0) index = fresh.core.length - 1;
    } else {
      // The newest entries: the added one is normally the last (a store in time order may
      // place it before entries stamped later).
      const newest = await newestArchival(50).catch(() => null);
      index = newest?.items.find((e) => e.content === r.entry.content && e.timestamp === r.entry.timestamp)?.index ?? fresh.archival_total - 1;
    }
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
          <span className="count">{num(total)}</span>
          <span className="section-hint">{t("memory.archivalHint")}</span>
        </div>
        <WindowBanner w={view.window} total={total} />
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
          {typed ? (
            <span className="toolbar-info">
              <span data-testid="memory-match-count">
                {shape && applied === typed ? t("memory.matches", { n: num(shape.total), total: num(total) }) : t("memory.matchesPending")}
              </span>
              <span className="sep">·</span>
              <span data-testid="recall-count">
                {recall.data && recall.data.keyword === recallKeyword && recallKeyword === typed
                  ? t("memory.recallCount", { n: num(recall.data.entries.length) })
                  : t("memory.recallPending")}
              </span>
            </span>
          ) : null}
        </div>
        {total === 0 ? (
          <Empty>{t("memory.emptyArchival")}</Empty>
        ) : shape === null ? (
          filtered.error ? (
            <ErrorState error={filtered.error} compact />
          ) : (
            <Skeleton rows={6} />
          )
        ) : shape.total === 0 ? (
          <Empty>{t("memory.noMatches", { q: applied })}</Empty>
        ) : (
          <ArchivalList
            key={`${applied}|${dir}`}
            agent={agent}
            shape={shape}
            dir={dir}
            newestCut={view.window.newest_cut}
            newestIndex={total - 1}
            flash={flash?.scope === "archival" ? flash : null}
            keyword={applied}
          />
        )}
      </section>
    </div>
  );
}
