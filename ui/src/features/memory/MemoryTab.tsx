import { useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";

import type { AppendResult, MemoryOverviewDto, SelectionActionDto } from "../../backend/types";
import { useDebounced } from "../../components/hooks";
import { Icon } from "../../components/Icon";
import { isTyping } from "../../components/shortcuts";
import { Empty, ErrorState, Loadable, Skeleton } from "../../components/States";
import { useI18n } from "../../i18n";
import { invalidateFor, opKey, useOp } from "../../queries/ops";
import { href, useRoute } from "../../router";
import { ForgetDialog, type ForgetSubject } from "../forget/ForgetDialog";
import { useLocateArchival } from "../provenance/hooks";
import { ProvenancePanel } from "../provenance/ProvenancePanel";
import { AddEntryForm } from "./AddEntryForm";
import { shapeOf, useFilteredShape, useNewArchival, type SortDir } from "./archival";
import { readsById, useEntryReads } from "../reads/hooks";
import { ReadsBar } from "../reads/ReadsBar";
import { UnreadList } from "../reads/UnreadList";
import { ArchivalList } from "./ArchivalList";
import { BulkBar, ConfirmDialog } from "./Bulk";
import { ChangeToast, useChangeToast } from "./ChangeToast";
import { CoreTable, type CoreRow } from "./CoreTable";
import { isStale, orderPicked, useCurate, useReview, type Picked } from "./curation";
import { HistoryPanel } from "./HistoryPanel";
import { useNewestArchival } from "./hooks";
import { ReviewBar } from "./ReviewBar";
import { TimeTravel, TimeTravelToggle } from "./TimeTravel";
import type { TableActions } from "./tableActions";
import { WindowBanner } from "./WindowBanner";
import "./memory.css";

type Flash = { scope: "core" | "archival"; index: number; nonce: number };

/** The memory screen: the overview (core, counts, window) at once, the archival list in pages. */
export function MemoryTab({ agent }: { agent: string | null }) {
  const q = useOp("memory_overview", { agent });
  // Time travel (read-only, the memory of an earlier day) replaces the live tables until the
  // user comes back to today; another owner opens live.
  const [travel, setTravel] = useState<{ agent: string | null } | null>(null);
  const traveling = travel !== null && travel.agent === agent;
  const refocus = useRef(false);
  useEffect(() => {
    if (traveling || !refocus.current) return;
    const toggle = document.querySelector<HTMLElement>('[data-testid="time-travel-toggle"]');
    if (!toggle) return;
    refocus.current = false;
    toggle.focus();
  });
  if (traveling)
    return (
      <TimeTravel
        agent={agent}
        onExit={() => {
          refocus.current = true;
          setTravel(null);
        }}
      />
    );
  return (
    <Loadable query={q} rows={10}>
      {(view) => <MemoryContent agent={agent} view={view} onTimeTravel={() => setTravel({ agent })} />}
    </Loadable>
  );
}

const NO_IDS: ReadonlySet<string> = new Set();

function MemoryContent({ agent, view, onTimeTravel }: { agent: string | null; view: MemoryOverviewDto; onTimeTravel: () => void }) {
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
  const recall = useOp("recall_memory", { agent, keyword: recallKeyword }, { enabled: recallKeyword.trim() !== "" });
  const filtered = useFilteredShape(agent, applied, dir);
  const total = view.archival_total;

  // Review: an agent the agents list reports as never reviewed has nothing marked new (and its
  // ids need not be fetched); otherwise the console says since when and which entries are new.
  const agents = useOp("list_agents", {});
  const summary = agent === null ? undefined : agents.data?.agents.find((a) => a.name === agent);
  const neverReviewed = summary !== undefined && summary.unreviewed === null;
  // (An agent's page waits for the agents list to know; the global memory always asks.)
  const review = useReview(agent, agent === null || ((agents.data !== undefined || agents.isError) && !neverReviewed));
  const reviewedAt = neverReviewed ? null : (review.data?.reviewed_at ?? null);
  const newIds = useMemo(() => (reviewedAt && review.data ? new Set(review.data.ids) : NO_IDS), [reviewedAt, review.data]);
  const [newOnlyChosen, setNewOnly] = useState(false);
  const newOnly = newOnlyChosen && newIds.size > 0;
  const coreIds = useMemo(() => new Set(view.core.map((e) => e.id)), [view.core]);
  const newArchivalIds = useMemo(() => Array.from(newIds).filter((id) => !coreIds.has(id)), [newIds, coreIds]);
  const newArchival = useNewArchival(agent, newArchivalIds, total, newOnly);

  const shape = applied ? filtered.shape : shapeOf(view, dir);

  // Read receipts: the "Last read" column and the "never read in N days" filter (the backend
  // marks what is unread).
  const [readsShown, setReadsShown] = useState(false);
  const [unreadChosen, setUnreadOnly] = useState(false);
  const entryReads = useEntryReads(agent, readsShown);
  const reads = useMemo(() => (readsShown && entryReads.data ? readsById(entryReads.data.entries) : undefined), [readsShown, entryReads.data]);
  const unreadOnly = unreadChosen && reads !== undefined && !newOnly;
  const unreadArchival = useMemo(
    () => (entryReads.data?.entries ?? []).filter((e) => e.existsNow && e.unread && e.scope === "archival"),
    [entryReads.data],
  );

  // The selection (both tables), the toast, the open dialogs.
  const [selection, setSelection] = useState<ReadonlyMap<string, Picked>>(() => new Map());
  const { toast, say, report, close: closeToast } = useChangeToast();
  const [confirm, setConfirm] = useState<SelectionActionDto | null>(null);
  const [historyOpen, setHistoryOpen] = useState(false);
  // The core table can be folded away (small windows: the archival list gets its room).
  const [coreOpen, setCoreOpen] = useState(true);
  const curate = useCurate(agent, report);
  const picked = useMemo(() => orderPicked(selection.values()), [selection]);
  // "Forget everywhere…" (entries or a text): its dialog.
  const [forgetting, setForgetting] = useState<ForgetSubject | null>(null);
  // "Where did this come from?" for one entry.
  const [originOf, setOriginOf] = useState<Picked | null>(null);

  // An entry a link points at (a session's "Saved to memory" badge): found in core, or placed in
  // the archival list by the server's search for its text; brought into view once and marked.
  const route = useRoute();
  // (The route of this owner only: while a link to another owner's entry opens, this tab may
  // still be on screen.)
  const target = (route.page === "agent" && route.name === agent) || (route.page === "global" && agent === null) ? route : null;
  const targetId = target?.entry ?? null;
  const targetFind = target?.find?.trim() ? target.find : null;
  // What the link aims at: an id, or (an entry found by meaning has none in MEMORY.md) a text.
  const targetKey = targetId ?? (targetFind !== null ? `find:${targetFind}` : null);
  const coreAt = targetId ? view.core.findIndex((e) => e.id === targetId) : targetFind !== null ? view.core.findIndex((e) => e.content === targetFind) : -1;
  const located = useLocateArchival(agent, targetId, targetFind, targetKey !== null && coreAt < 0);
  const archivalAt = coreAt < 0 && located.data ? located.data.index : null;
  // The row marked: the id asked for, or the one found by its text.
  const markedId = targetId ?? (coreAt >= 0 ? (view.core[coreAt]!.id ?? null) : (located.data?.id ?? null));
  const aimed = useRef<string | null>(null);
  useEffect(() => {
    if (!targetKey || aimed.current === targetKey) return;
    if (coreAt >= 0) {
      aimed.current = targetKey;
      setCoreOpen(true);
      setFlash({ scope: "core", index: coreAt, nonce: Date.now() });
    } else if (archivalAt !== null) {
      aimed.current = targetKey;
      setKeyword("");
      setNewOnly(false);
      setFlash({ scope: "archival", index: archivalAt, nonce: Date.now() });
    }
  }, [targetKey, coreAt, archivalAt]);
  const targetMissing = targetKey !== null && coreAt < 0 && (targetFind === null || located.data === null);

  const select = useCallback((items: Picked[], on: boolean) => {
    setSelection((prev) => {
      const next = new Map(prev);
      for (const p of items) {
        if (on) next.set(p.id, p);
        else next.delete(p.id);
      }
      return next;
    });
  }, []);
  const clearSelection = useCallback(() => setSelection(new Map()), []);
  const forget = useCallback((ids: string[]) => {
    setSelection((prev) => {
      if (!ids.some((id) => prev.has(id))) return prev;
      const next = new Map(prev);
      for (const id of ids) next.delete(id);
      return next;
    });
  }, []);

  const actions: TableActions = {
    busy: curate.pending,
    selected: selection,
    select,
    isNew: (id) => newIds.has(id),
    save: async (p, content, restamp) => {
      const o = await curate.edit(p.id, p.content, content, restamp);
      if (o.change) {
        forget([p.id]);
        return null;
      }
      return isStale(o.error) ? null : o.error;
    },
    remove: async (p) => {
      // A row of a larger selection: the whole selection, after the confirmation.
      if (selection.has(p.id) && selection.size > 1) {
        setConfirm("delete");
        return false;
      }
      const o = await curate.remove([p]);
      forget([p.id]);
      return o.change !== undefined;
    },
    move: async (p) => {
      const o = await curate.move([p], p.scope === "core" ? "archival" : "core");
      forget([p.id]);
      return o.change !== undefined;
    },
    notice: (text) => say({ kind: "note", text }),
    // A row of a larger selection forgets the whole selection, as its delete does.
    forgetEverywhere: (p) => setForgetting({ kind: "entries", agent, ids: selection.has(p.id) && selection.size > 1 ? picked.map((x) => x.id) : [p.id] }),
    origin: (p) => setOriginOf(p),
    target: markedId,
  };

  const runBulk = async () => {
    if (!confirm) return;
    const list = picked;
    const o = confirm === "delete" ? await curate.remove(list) : await curate.move(list, confirm);
    setConfirm(null);
    if (o.change || isStale(o.error)) {
      clearSelection();
      // The bar's button that opened the dialog is gone: the focus goes back to the list the
      // selection was in.
      const archival = list.some((p) => p.scope === "archival");
      requestAnimationFrame(() => {
        if (document.activeElement && document.activeElement !== document.body) return;
        const target = archival
          ? document.querySelector<HTMLElement>('[data-testid="archival-table"] [data-pos][tabindex="0"]')
          : document.querySelector<HTMLElement>('[data-testid="core-row"]');
        target?.focus();
      });
    }
  };

  // Ctrl/Cmd+Z undoes the last change, Shift+Ctrl/Cmd+Z (or Ctrl+Y) redoes, Escape clears the
  // selection — unless the focus is in a text field or a confirmation is open.
  const keys = useRef({ curate, clearSelection, busy: confirm !== null || forgetting !== null });
  useEffect(() => {
    keys.current = { curate, clearSelection, busy: confirm !== null || forgetting !== null };
  });
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (keys.current.busy || isTyping(document.activeElement)) return;
      const k = e.key.toLowerCase();
      const mod = e.ctrlKey || e.metaKey;
      if (mod && !e.altKey && (k === "z" || k === "y")) {
        e.preventDefault();
        if (keys.current.curate.pending) return;
        if (k === "y" || e.shiftKey) void keys.current.curate.redo();
        else void keys.current.curate.undo();
      } else if (e.key === "Escape" && !mod && !document.querySelector(".modal-backdrop")) {
        keys.current.clearSelection();
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);

  const coreRows = useMemo<CoreRow[]>(() => {
    const all = view.core.map((e, index) => ({ e, index }));
    if (unreadOnly) return all.filter((r) => r.e.id && reads?.get(r.e.id)?.unread);
    return newOnly ? all.filter((r) => r.e.id && newIds.has(r.e.id)) : all;
  }, [view.core, newOnly, newIds, unreadOnly, reads]);

  useEffect(() => {
    if (!flash) return;
    const id = setTimeout(() => setFlash(null), 2500);
    return () => clearTimeout(id);
  }, [flash]);

  const onAdded = async (r: AppendResult) => {
    if (r.scope === "archival") setKeyword("");
    else setCoreOpen(true);
    await invalidateFor(qc, { kind: "memory", agent });
    const fresh = qc.getQueryData<MemoryOverviewDto>(opKey("memory_overview", { agent }));
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
      <div className="source-line memory-bar">
        <span>
          <span className="field-label">{t("memory.source")}</span> <code data-testid="memory-source">{view.source}</code>
        </span>
        <span className="memory-bar-spacer" />
        <TimeTravelToggle on={false} onClick={onTimeTravel} />
        <button type="button" className="btn btn-small" onClick={() => setForgetting({ kind: "text", agent })} aria-haspopup="dialog" data-testid="forget-text-open">
          <Icon name="forget" size={14} /> {t("forget.actionText")}
        </button>
        <button type="button" className="btn btn-small" onClick={() => setHistoryOpen(true)} data-testid="history-open" title={t("history.shortcuts")}>
          <Icon name="history" size={14} /> {t("memory.history")}
        </button>
      </div>
      {targetKey ? (
        <div className={targetMissing ? "banner banner-warn target-banner" : "banner target-banner"} role="status" data-testid="entry-target-banner">
          <Icon name={targetMissing ? "warning" : "origin"} />
          <span>
            {targetMissing
              ? t("provenance.missing")
              : target?.session && target.m !== undefined
                ? t("provenance.target", { session: target.session, n: target.m + 1 })
                : t("provenance.targetNoSession")}
          </span>
          {target?.session ? (
            <a href={href(target.m !== undefined ? { page: "session", id: target.session, m: target.m, why: "origin" } : { page: "session", id: target.session })} data-testid="entry-target-back">
              {t("provenance.back")}
            </a>
          ) : null}
        </div>
      ) : null}
      <ReviewBar review={review.data} neverReviewed={neverReviewed} newOnly={newOnly} onNewOnly={setNewOnly} onMark={curate.markReviewed} />
      <ReadsBar
        agent={agent}
        shown={readsShown}
        onShown={setReadsShown}
        reads={readsShown ? entryReads.data : undefined}
        error={readsShown ? entryReads.error : null}
        unreadOnly={unreadOnly}
        onUnreadOnly={setUnreadOnly}
      />
      {review.isError && !neverReviewed ? <ErrorState error={review.error} compact /> : null}
      {view.possibly_more ? (
        <div className="banner banner-warn" role="status" data-testid="memory-possibly-more">
          <Icon name="warning" />
          <div>
            <strong>{t("memory.possiblyMore", { n: String(view.listing_limit) })}</strong>
            <div className="banner-sub">{t("memory.possiblyMoreSub")}</div>
          </div>
        </div>
      ) : null}

      <section className="section section-core" data-open={coreOpen}>
        <div className="section-head">
          <h2>{t("memory.core")}</h2>
          <span className="count">{num(view.core.length)}</span>
          <span className="section-hint">{t("memory.coreHint")}</span>
          <span className="memory-bar-spacer" />
          <button
            type="button"
            className="btn btn-small section-toggle"
            aria-expanded={coreOpen}
            aria-controls="memory-core-body"
            onClick={() => setCoreOpen((o) => !o)}
            data-testid="core-toggle"
          >
            <Icon name="chevron" size={13} className={coreOpen ? "chevron-open" : undefined} /> {coreOpen ? t("memory.coreHide") : t("memory.coreShow")}{" "}
            <span className="sr-only">{t("memory.core")}</span>
          </button>
        </div>
        <div id="memory-core-body" className="section-body" hidden={!coreOpen}>
          <CoreTable rows={coreRows} flash={flash?.scope === "core" ? flash : null} actions={actions} emptyText={unreadOnly ? t("reads.noUnreadCore", { days: num(entryReads.data?.unreadDays ?? 0) }) : newOnly ? t("memory.review.noNewCore") : undefined} memoryBackend={view.backend} reads={reads} />
        </div>
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
              placeholder={newOnly ? t("memory.review.searchOff") : t("memory.search")}
              aria-label={t("memory.search")}
              aria-describedby="memory-search-rule"
              title={t("memory.searchRule")}
              disabled={newOnly}
              data-testid="memory-search"
              data-search
            />
            <span id="memory-search-rule" className="sr-only">
              {t("memory.searchRule")}
            </span>
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
          {typed && !newOnly ? (
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
        {unreadOnly && entryReads.data ? (
          <UnreadList entries={unreadArchival} days={entryReads.data.unreadDays} entryHref={(id) => (agent ? href({ page: "agent", name: agent, tab: "memory", entry: id }) : href({ page: "global", entry: id }))} />
        ) : newOnly ? (
          <NewOnlyList agent={agent} view={view} dir={dir} found={newArchival} wanted={newArchivalIds.length} actions={actions} />
        ) : total === 0 ? (
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
            actions={actions}
            memoryBackend={view.backend}
            reads={reads}
          />
        )}
      </section>

      {picked.length > 0 ? <BulkBar picked={picked} busy={curate.pending} onAction={setConfirm} onForget={() => setForgetting({ kind: "entries", agent, ids: picked.map((p) => p.id) })} onClear={clearSelection} /> : null}
      {confirm ? <ConfirmDialog agent={agent} action={confirm} picked={picked} busy={curate.pending} onConfirm={() => void runBulk()} onCancel={() => setConfirm(null)} /> : null}
      {forgetting ? (
        <ForgetDialog
          subject={forgetting}
          onClose={(ran) => {
            setForgetting(null);
            if (ran) clearSelection();
          }}
        />
      ) : null}
      {originOf ? <ProvenancePanel agent={agent} subject={originOf} onClose={() => setOriginOf(null)} /> : null}
      {historyOpen ? <HistoryPanel agent={agent} curate={curate} onClose={() => setHistoryOpen(false)} /> : null}
      <ChangeToast toast={toast} onClose={closeToast} curate={curate} raised={picked.length > 0} />
    </div>
  );
}

/** "New only": the archival entries among the new ones, found newest first. */
function NewOnlyList({
  agent,
  view,
  dir,
  found,
  wanted,
  actions,
}: {
  agent: string | null;
  view: MemoryOverviewDto;
  dir: SortDir;
  found: ReturnType<typeof useNewArchival>;
  wanted: number;
  actions: TableActions;
}) {
  const { t, num } = useI18n();
  const items = useMemo(() => {
    const list = found.data?.items ?? [];
    return dir === "asc" ? list : [...list].reverse();
  }, [found.data, dir]);
  if (wanted === 0) return <Empty>{t("memory.review.noNewArchival")}</Empty>;
  if (found.isError) return <ErrorState error={found.error} compact />;
  if (!found.data) return <Skeleton rows={4} />;
  return (
    <>
      {!found.data.complete ? (
        <div className="field-hint" data-testid="new-only-partial">
          {t("memory.review.partial", { n: num(found.data.scanned), m: num(wanted - found.data.items.length) })}
        </div>
      ) : null}
      {items.length === 0 ? (
        <Empty>{t("memory.review.noNewArchival")}</Empty>
      ) : (
        <ArchivalList
          key={`new|${dir}`}
          agent={agent}
          shape={{ total: items.length, cutAt: null }}
          dir={dir}
          newestCut={view.window.newest_cut}
          newestIndex={view.archival_total - 1}
          flash={null}
          keyword=""
          local={items}
          actions={actions}
          memoryBackend={view.backend}
        />
      )}
    </>
  );
}
