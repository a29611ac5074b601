// An agent's superseded facts as a review queue: each pair side by side (older, newer, their
// times, the reason), and keep newer / keep older / keep both / edit, by button or key (j/k move,
// n/o/b/e act). Keep newer and keep older are one curation change each (the usual Undo toast);
// keep both is a dismissal whose toast takes it back.
import { useCallback, useEffect, useRef, useState } from "react";

import { BackendError, useBackend } from "../../backend";
import type { SupersededDto, SupersededPairDto } from "../../backend/types";
import { Loadable } from "../../components/States";
import { Toast } from "../../components/Toast";
import { useI18n } from "../../i18n";
import { useOp } from "../../queries/ops";
import { navigate } from "../../router";
import { ChangeToast, useChangeToast } from "../memory/ChangeToast";
import { useCurate } from "../memory/curation";
import { reasonKey } from "./reason";
import "./superseded.css";

type Keep = "newer" | "older" | "both";

export function SupersededTab({ agent }: { agent: string }) {
  const { t } = useI18n();
  const q = useOp("superseded", { agent });
  return (
    <section className="card superseded" data-testid="superseded-tab" aria-labelledby="superseded-title">
      <div className="superseded-head">
        <h2 id="superseded-title">{t("superseded.title")}</h2>
        <span className="muted small">{t("superseded.intro")}</span>
      </div>
      <Loadable query={q} rows={4}>
        {(d) => <Queue agent={agent} data={d} />}
      </Loadable>
    </section>
  );
}

function Queue({ agent, data }: { agent: string; data: SupersededDto }) {
  const { t, num } = useI18n();
  const { call } = useBackend();
  const { toast, say, report, close } = useChangeToast();
  const curate = useCurate(agent, report);
  const [at, setAt] = useState(0);
  const [kept, setKept] = useState<{ id: number; pair: SupersededPairDto } | null>(null);
  const [busy, setBusy] = useState(false);
  const items = useRef<(HTMLLIElement | null)[]>([]);
  const pairs = data.pairs;
  const current = Math.min(at, Math.max(pairs.length - 1, 0));

  const resolve = useCallback(
    async (p: SupersededPairDto, keep: Keep) => {
      setBusy(true);
      try {
        const r = await call("resolve_superseded", {
          agent,
          older: { id: p.older.id, expect: p.older.content },
          newer: { id: p.newer.id, expect: p.newer.content },
          keep,
        });
        await curate.refresh();
        if (r.change) say({ kind: "change", change: r.change });
        else setKept({ id: Date.now(), pair: p });
      } catch (e) {
        say({ kind: "error", error: BackendError.from(e) });
      } finally {
        setBusy(false);
      }
    },
    [call, agent, curate, say],
  );

  const unkeep = useCallback(
    async (p: SupersededPairDto) => {
      setKept(null);
      try {
        await call("superseded_unkeep", { agent, older: p.older.id, newer: p.newer.id });
        await curate.refresh();
      } catch (e) {
        say({ kind: "error", error: BackendError.from(e) });
      }
    },
    [call, agent, curate, say],
  );

  const edit = useCallback((p: SupersededPairDto) => navigate({ page: "agent", name: agent, tab: "memory", entry: p.newer.id }), [agent]);

  const move = useCallback(
    (to: number) => {
      const next = Math.max(0, Math.min(pairs.length - 1, to));
      setAt(next);
      items.current[next]?.focus();
    },
    [pairs.length],
  );

  const onKey = (e: React.KeyboardEvent) => {
    if (e.target instanceof HTMLInputElement || e.target instanceof HTMLTextAreaElement) return;
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const p = pairs[current];
    const act: Record<string, () => void> = {
      j: () => move(current + 1),
      ArrowDown: () => move(current + 1),
      k: () => move(current - 1),
      ArrowUp: () => move(current - 1),
      n: () => p && !busy && void resolve(p, "newer"),
      o: () => p && !busy && void resolve(p, "older"),
      b: () => p && !busy && void resolve(p, "both"),
      e: () => p && edit(p),
    };
    const f = act[e.key];
    if (f) {
      e.preventDefault();
      f();
    }
  };

  useEffect(() => {
    items.current.length = pairs.length;
  }, [pairs.length]);

  return (
    <>
      <div className="superseded-meta">
        <span className="muted small" data-testid="superseded-count">
          {t("superseded.count", { n: num(pairs.length) })}
        </span>
        {data.kept > 0 ? (
          <span className="muted small" data-testid="superseded-kept">
            {t("superseded.kept", { n: num(data.kept) })}
          </span>
        ) : null}
        {pairs.length > 0 ? <span className="muted small superseded-keys">{t("superseded.keys")}</span> : null}
      </div>
      {pairs.length === 0 ? (
        <p className="superseded-empty" data-testid="superseded-empty">
          {t("superseded.empty")}
        </p>
      ) : (
        <ul className="superseded-list" aria-label={t("superseded.title")} onKeyDown={onKey}>
          {pairs.map((p, i) => (
            <li
              key={`${p.older.id}/${p.newer.id}`}
              ref={(el) => {
                items.current[i] = el;
              }}
              className={i === current ? "superseded-pair current" : "superseded-pair"}
              tabIndex={i === current ? 0 : -1}
              aria-current={i === current ? "true" : undefined}
              onFocus={() => setAt(i)}
              data-testid="superseded-pair"
            >
              <div className="superseded-reason" data-testid="superseded-reason">
                <span className="tag">{t(reasonKey(p.reason))}</span>
                <span className="muted small">{t("superseded.score", { score: (p.score ?? 0).toFixed(2) })}</span>
              </div>
              <div className="superseded-sides">
                <Side label={t("superseded.older")} time={p.older.timestamp} content={p.older.content} testId="superseded-older" />
                <span className="superseded-arrow" aria-hidden="true">
                  →
                </span>
                <Side label={t("superseded.newer")} time={p.newer.timestamp} content={p.newer.content} testId="superseded-newer" />
              </div>
              <div className="superseded-actions">
                <button type="button" className="btn primary" disabled={busy} onClick={() => void resolve(p, "newer")} aria-keyshortcuts="n" data-testid="superseded-keep-newer">
                  {t("superseded.keepNewer")}
                </button>
                <button type="button" className="btn" disabled={busy} onClick={() => void resolve(p, "older")} aria-keyshortcuts="o" data-testid="superseded-keep-older">
                  {t("superseded.keepOlder")}
                </button>
                <button type="button" className="btn" disabled={busy} onClick={() => void resolve(p, "both")} aria-keyshortcuts="b" data-testid="superseded-keep-both">
                  {t("superseded.keepBoth")}
                </button>
                <button type="button" className="btn" onClick={() => edit(p)} aria-keyshortcuts="e" data-testid="superseded-edit">
                  {t("superseded.edit")}
                </button>
              </div>
            </li>
          ))}
        </ul>
      )}
      <ChangeToast toast={toast} onClose={close} curate={curate} />
      {kept ? (
        <Toast id={`kept-${kept.id}`} onClose={() => setKept(null)} action={{ label: t("toast.undoBtn"), onClick: () => void unkeep(kept.pair), testId: "superseded-unkeep" }}>
          {t("superseded.keptBoth")}
        </Toast>
      ) : null}
    </>
  );
}

function Side({ label, time, content, testId }: { label: string; time: string | null; content: string; testId: string }) {
  const { t } = useI18n();
  return (
    <div className="superseded-side" data-testid={testId}>
      <div className="muted small">
        {label} · <time>{time ?? t("superseded.noTime")}</time>
      </div>
      <div className="superseded-content">{content}</div>
    </div>
  );
}
