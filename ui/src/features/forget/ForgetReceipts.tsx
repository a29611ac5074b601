// The receipts of every forget, newest first, as History lists them: when, how it ended, what was
// asked, the counts by place with reasons, and the text's SHA-256 — never the text.
import type { ForgetReceiptDto } from "../../backend/types";
import { ErrorState } from "../../components/States";
import { useI18n } from "../../i18n";
import { useOp } from "../../queries/ops";
import { stateLabel } from "./ForgetDialog";
import { askLabel, byPlace, placeName, total, whyLabel } from "./places";
import "./forget.css";

/** The first characters of a hash: enough to compare two receipts by eye. */
const SHORT_HASH = 12;

const STATE_TAG: Record<string, string> = { done: "tag tag-ok", cancelled: "tag tag-warn", interrupted: "tag tag-warn", running: "tag tag-accent-soft" };

export function ForgetReceipts() {
  const { t, num } = useI18n();
  // Not refetched by change events (no op announces a forget): the History panel asks each time it opens.
  const q = useOp("forget_receipts", {}, { staleTime: 0 });
  if (q.isError) return <ErrorState error={q.error} compact />;
  const list = q.data;
  if (!list || list.length === 0) return null;
  return (
    <details className="forget-receipts" data-testid="forget-receipts">
      <summary>
        {t("forget.receipts.title")} <span className="forget-count">{num(list.length)}</span>
      </summary>
      <ol className="forget-receipts-list">
        {list.map((r) => (
          <Receipt key={r.id} r={r} />
        ))}
      </ol>
    </details>
  );
}

function Receipt({ r }: { r: ForgetReceiptDto }) {
  const { t, num } = useI18n();
  return (
    <li className="forget-receipt-item" data-testid="forget-receipt-item" data-state={r.state}>
      <div className="forget-receipt-head">
        <time className="mono muted">{r.at}</time>
        <span className={STATE_TAG[r.state] ?? "tag"} data-testid="forget-receipt-state">
          {stateLabel(t, r.state)}
        </span>
        {r.mask ? <span className="tag tag-muted">{t("forget.receipts.masked")}</span> : null}
        <span>{askLabel(t, r.ask, r.scope)}</span>
      </div>
      <div className="small" data-testid="forget-receipt-counts">
        {t("forget.receipts.counts", { found: num(total(r.found)), erased: num(total(r.erased)), left: num(total(r.left)) })}
      </div>
      <div className="small muted" data-testid="forget-receipt-hash">
        SHA-256{" "}
        {r.text_sha256.map((h) => (
          <code key={h} title={h}>
            {h.slice(0, SHORT_HASH)}
          </code>
        ))}
      </div>
      {r.found.length + r.erased.length + r.left.length > 0 ? (
        <details data-testid="forget-receipt-places">
          <summary>{t("forget.receipts.places")}</summary>
          <div className="forget-places">
            {/* A place may only have records the forget's own delete wrote (counted apart). */}
            {byPlace([...r.found, ...r.erased]).map(([place]) => {
              const found = total(r.found.filter((c) => c.place === place));
              const erased = total(r.erased.filter((c) => c.place === place));
              const own = r.erased.filter((c) => c.place === place).reduce((n, c) => n + c.own, 0);
              return (
                <div key={place} className="small" data-testid="forget-receipt-place" data-place={place}>
                  <strong>{placeName(t, place)}</strong> {t("forget.receipts.placeCounts", { found: num(found), erased: num(erased) })}
                  {own > 0 ? <span className="muted"> · {t("forget.receipts.own", { n: num(own) })}</span> : null}
                </div>
              );
            })}
            {r.left.map((l, i) => (
              <div key={`left-${i}`} className="small" data-testid="forget-receipt-left">
                <strong>{placeName(t, l.place)}</strong> {t("forget.copies", { n: num(l.count) })} · <code className="forget-path">{l.path}</code>
                <div className="forget-reason">{whyLabel(t, l)}</div>
              </div>
            ))}
            {r.searched.length > 0 ? (
              <div className="small muted">{t("forget.receipts.searched", { places: r.searched.map((p) => placeName(t, p)).join(", ") })}</div>
            ) : null}
          </div>
        </details>
      ) : null}
    </li>
  );
}
