import { BackendError } from "../backend";
import type { ErrorCode } from "../backend/types";
import { useI18n, type MessageKey, type TFunction } from "../i18n";
import { Icon } from "./Icon";

// What an error means for the value in one field, in the user's language (one line per
// ErrorCode: a code added in Rust fails to compile here). The console's own message (English,
// technical) stays available behind "Details".
const FIELD_TEXT: Record<ErrorCode, MessageKey> = {
  invalid_input: "field.error.invalid_input",
  invalid_agent_name: "field.error.invalid_agent_name",
  agent_not_found: "field.error.agent_not_found",
  session_not_found: "field.error.session_not_found",
  not_found: "field.error.not_found",
  outside_root: "field.error.outside_root",
  conflict: "field.error.conflict",
  corrupt: "field.error.corrupt",
  backend_unavailable: "field.error.backend_unavailable",
  timeout: "field.error.timeout",
  cancelled: "field.error.cancelled",
  io: "field.error.io",
  internal: "field.error.internal",
  unauthorized: "field.error.unauthorized",
  untrusted_certificate: "field.error.untrusted_certificate",
};

/** The line a field shows for an error: `override` (a field's own wording for a code) first. */
export function fieldErrorText(t: TFunction, code: ErrorCode, override?: Partial<Record<ErrorCode, MessageKey>>): string {
  return t(override?.[code] ?? FIELD_TEXT[code]);
}

/**
 * An error shown at the field it is about: give the input `aria-invalid` and
 * `aria-describedby={id}`. The headline is in the user's language; the console's message is the
 * detail.
 */
export function FieldError({
  id,
  error,
  override,
  testId,
}: {
  id: string;
  error: unknown;
  override?: Partial<Record<ErrorCode, MessageKey>>;
  testId?: string;
}) {
  const { t } = useI18n();
  const e = BackendError.from(error);
  return (
    <div id={id} className="field-error" role="alert" data-testid={testId} data-code={e.code}>
      <Icon name="error" size={13} />
      <div>
        <span className="field-error-text" data-testid={testId ? `${testId}-text` : undefined}>
          {fieldErrorText(t, e.code, override)}
        </span>
        {e.message ? (
          <details className="error-details">
            <summary>{t("error.details")}</summary>
            <div className="error-message mono wrap" data-testid={testId ? `${testId}-detail` : undefined}>
              {e.message}
            </div>
          </details>
        ) : null}
      </div>
    </div>
  );
}
