import type { ReactNode } from "react";

import { BackendError } from "../backend";
import { useI18n } from "../i18n";
import { Icon } from "./Icon";

export function ErrorState({ error, onRetry, compact }: { error: unknown; onRetry?: () => void; compact?: boolean }) {
  const { t } = useI18n();
  const e = BackendError.from(error);
  return (
    <div className={compact ? "error-state compact" : "error-state"} role="alert" data-testid="error-state">
      <Icon name="error" className="error-icon" />
      <div className="error-body">
        <div className="error-title">
          {t("common.error")} <code className="error-code" data-testid="error-code">{e.code}</code>
        </div>
        <div className="error-message" data-testid="error-message">{e.message}</div>
      </div>
      {onRetry ? (
        <button type="button" className="btn" onClick={onRetry}>
          <Icon name="refresh" /> {t("common.retry")}
        </button>
      ) : null}
    </div>
  );
}

export function Skeleton({ rows = 6, label }: { rows?: number; label?: string }) {
  const { t } = useI18n();
  return (
    <div className="skeleton" aria-busy="true" aria-label={label ?? t("common.loading")} data-testid="skeleton">
      {Array.from({ length: rows }, (_, i) => (
        <div key={i} className="skeleton-line" style={{ width: `${60 + ((i * 37) % 40)}%` }} />
      ))}
    </div>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <div className="empty">{children}</div>;
}

type QueryLike<T> = { data: T | undefined; error: unknown; isPending: boolean; isError: boolean; refetch: () => unknown };

/** Skeleton while loading, error card with retry on failure, else the children. */
export function Loadable<T>({ query, rows, children }: { query: QueryLike<T>; rows?: number; children: (data: T) => ReactNode }) {
  if (query.isError && query.data === undefined) return <ErrorState error={query.error} onRetry={() => void query.refetch()} />;
  if (query.data === undefined) return <Skeleton rows={rows} />;
  if (query.isError)
    // A refetch failed: keep showing the last good data under the error.
    return (
      <>
        <ErrorState error={query.error} onRetry={() => void query.refetch()} compact />
        {children(query.data)}
      </>
    );
  return <>{children(query.data)}</>;
}
