import type { EpisodicHitDto } from "../../backend/types";
import { Icon } from "../../components/Icon";
import { ErrorState, Skeleton } from "../../components/States";
import { useI18n } from "../../i18n";
import { useSettings } from "../../queries/hooks";
import { href } from "../../router";
import { useEpisodicSearch } from "./hooks";
import { Score } from "./Score";
import "./recall.css";

/** The recall page's "Past conversations": the messages of the agent's past sessions closest in
 * meaning to the same query (episodic memory), each opening its session at that message. */
export function PastConversations({ agent, q }: { agent: string; q: string }) {
  const { t, num } = useI18n();
  const r = useEpisodicSearch(agent, q);
  const settings = useSettings().data?.settings;
  const data = r.data;
  return (
    <section className="section episodic-panel" data-testid="episodic" aria-busy={r.isFetching}>
      <div className="section-head">
        <h2>{t("episodic.title")}</h2>
        {q && data ? (
          <span className="count" data-testid="episodic-count">
            {num(data.results.length)}
          </span>
        ) : null}
        <span className="section-hint">{t("episodic.hint", { agent })}</span>
      </div>
      <div className="card episodic-card">
        {q && data && data.results.length > 0 ? (
          <div className="recall-params" data-testid="episodic-params">
            {t("episodic.floor", { floor: data.floor?.toFixed(2) ?? "—" })}
          </div>
        ) : null}
        {!q ? (
          <div className="recall-idle">{t("recall.idle")}</div>
        ) : r.isError ? (
          <ErrorState error={r.error} onRetry={() => void r.refetch()} compact />
        ) : !data ? (
          <>
            <Skeleton rows={2} />
            <div className="muted small">{t("episodic.embedding")}</div>
          </>
        ) : data.results.length === 0 ? (
          <div className="episodic-empty" data-testid="episodic-empty">
            <Icon name="search" size={14} /> {t("episodic.empty", { floor: data.floor?.toFixed(2) ?? "—" })}
          </div>
        ) : (
          <EpisodicHitList hits={data.results} query={q} floor={data.floor} grid />
        )}
        {settings ? (
          <div className="episodic-state" data-testid="episodic-state" data-enabled={settings.episodic_enabled ? "true" : "false"}>
            <Icon name={settings.episodic_enabled ? "check" : "sessions"} size={13} />
            <span>
              {settings.episodic_enabled
                ? t("episodic.on", { n: settings.episodic_top_k, budget: num(settings.episodic_budget_chars) })
                : t("episodic.off")}
            </span>
            <a href={href({ page: "settings" })}>{t("recall.change")}</a>
          </div>
        ) : null}
      </div>
    </section>
  );
}

/** Past session messages, each a link to its session scrolled to that message (the query marked
 * in the URL): text (clamped), role, session id, the session's time and the score. */
export function EpisodicHitList({ hits, query, floor, grid }: { hits: EpisodicHitDto[]; query: string | null; floor: number | null; grid?: boolean }) {
  return (
    <ol className={grid ? "hits episodic-hits grid" : "hits episodic-hits"} data-testid="episodic-hits">
      {hits.map((h) => (
        <EpisodicHit key={`${h.session_id}#${h.message_index}`} hit={h} query={query} floor={floor} />
      ))}
    </ol>
  );
}

function EpisodicHit({ hit, query, floor }: { hit: EpisodicHitDto; query: string | null; floor: number | null }) {
  const { t } = useI18n();
  const role = hit.role === "user" || hit.role === "assistant" ? t(`session.role.${hit.role}`) : hit.role;
  return (
    <li>
      <a
        className="hit"
        href={href({ page: "session", id: hit.session_id, m: hit.message_index, q: query ?? undefined })}
        title={t("episodic.open", { session: hit.session_id, n: hit.message_index + 1 })}
        data-testid="episodic-hit"
        data-session={hit.session_id}
        data-index={hit.message_index}
      >
        <span className="hit-content clamp">{hit.text}</span>
        <span className="hit-meta">
          <span className={hit.role === "user" ? "tag tag-accent-soft" : "tag"} data-testid="episodic-role">
            {role}
          </span>
          <span className="mono episodic-session">{hit.session_id}</span>
          <span className="c-time">{hit.time ?? t("common.none")}</span>
          {hit.score !== null ? <Score score={hit.score} floor={floor} testId="episodic-score" /> : null}
        </span>
      </a>
    </li>
  );
}
