import { useState } from "react";

import type { BackendError } from "../../backend";
import type { ReviewDto } from "../../backend/types";
import { Icon } from "../../components/Icon";
import { ErrorState } from "../../components/States";
import { useI18n } from "../../i18n";

/**
 * The review line of the memory screen: how many entries are new since the owner was last marked
 * reviewed, the "New only" filter and "Mark all reviewed" — or, for an owner never reviewed, the
 * hint that marking starts the tracking.
 */
export function ReviewBar({
  review,
  neverReviewed,
  newOnly,
  onNewOnly,
  onMark,
}: {
  review: ReviewDto | undefined;
  neverReviewed: boolean;
  newOnly: boolean;
  onNewOnly: (on: boolean) => void;
  onMark: () => Promise<BackendError | null>;
}) {
  const { t, num } = useI18n();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<BackendError | null>(null);
  const reviewedAt = neverReviewed ? null : (review?.reviewed_at ?? null);
  if (!neverReviewed && !review) return <div className="review-bar review-bar-pending" data-testid="review-bar" />;
  const mark = async () => {
    setBusy(true);
    const e = await onMark();
    setBusy(false);
    setError(e);
    if (!e) onNewOnly(false);
  };
  const n = review?.unreviewed ?? 0;
  return (
    <div className="review-bar" data-testid="review-bar" data-reviewed={reviewedAt ? "true" : "false"}>
      <Icon name="check" size={14} className="review-icon" />
      {reviewedAt === null ? (
        <span className="review-text" data-testid="review-hint">
          {t("memory.review.hint")}
        </span>
      ) : (
        <span className="review-text" data-testid="review-count">
          {n > 0 ? (
            <>
              <span className="tag tag-new">{t("memory.review.newCount", { n: num(n) })}</span> {t("memory.review.since", { at: reviewedAt })}
            </>
          ) : (
            t("memory.review.none", { at: reviewedAt })
          )}
        </span>
      )}
      {reviewedAt !== null && n > 0 ? (
        <label className="toggle" data-testid="review-new-only-label">
          <input type="checkbox" checked={newOnly} onChange={(e) => onNewOnly(e.target.checked)} data-testid="review-new-only" />
          <span>{t("memory.review.newOnly")}</span>
        </label>
      ) : null}
      <button type="button" className="btn btn-small" onClick={() => void mark()} disabled={busy || (reviewedAt !== null && n === 0)} data-testid="review-mark">
        {t("memory.review.mark")}
      </button>
      {error ? <ErrorState error={error} compact /> : null}
    </div>
  );
}
