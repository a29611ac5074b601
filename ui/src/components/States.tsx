import type { ReactNode } from "react";

import { BackendError } from "../backend";
import type { ErrorCode } from "../backend/types";
import { useI18n, type MessageKey, type TFunction } from "../i18n";
import { Icon } from "./Icon";

// One headline per ErrorCode: a code added in Rust (and the bindings) fails to compile here.
const HEADLINES: Record<ErrorCode, MessageKey> = {
  invalid_input: "error.invalid_input",
  invalid_agent_name: "error.invalid_agent_name",
  agent_not_found: "error.agent_not_found",
  session_not_found: "error.session_not_found",
  not_found: "error.not_found",
  outside_root: "error.outside_root",
  conflict: "error.conflict",
  corrupt: "error.corrupt",
  backend_unavailable: "error.backend_unavailable",
  timeout: "error.timeout",
  cancelled: "error.cancelled",
  io: "error.io",
  internal: "error.internal",
  unauthorized: "error.unauthorized",
  untrusted_certificate: "error.untrusted_certificate",
};

/** The headline of an error in the user's language. */
export function errorHeadline(t: TFunction, code: ErrorCode): string {
  return t(HEADLINES[code]);
}

/** An error as the user reads it: the localised headline and the code; the console's technical
 * message (English, naming the path or thing) behind "Details". */
export function ErrorState({ error, onRetry, compact }: { error: unknown; onRetry?: () => void; compact?: boolean }) {
  const { t } = useI18n();
  const e = BackendError.from(error);
  return (
    <div className={compact ? "error-state compact" : "error-state"} role="alert" data-testid="error-state">
      <Icon name="error" className="error-icon" />
      <div className="error-body">
        <div className="error-title">
          <span data-testid="error-headline">{errorHeadline(t, e.code)}</span> <code className="error-code" data-testid="error-code">{e.code}</code>
        </div>
        {e.message ? (
          <details className="error-details">
            <summary>{t("error.details")}</summary>
            <div className="error-message" data-testid="error-message">
              {e.message}
            </div>
          </details>
        ) : null}
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
