import type { Refusal, RuntimeLoadDto } from "../../backend/types";
import { useI18n, type MessageKey, type TFunction } from "../../i18n";

// Why the runtime skips an agent folder, in the user's language (one line per Refusal: a code
// added in Rust fails to compile here). Core's English sentence stays available as the detail.
const REASON_TEXT: Record<Refusal, MessageKey> = {
  agent_md_missing: "runtime.reason.agent_md_missing",
  agent_md_unreadable: "runtime.reason.agent_md_unreadable",
  front_matter_invalid: "runtime.reason.front_matter_invalid",
  name_missing: "runtime.reason.name_missing",
  provider_missing: "runtime.reason.provider_missing",
  provider_name_empty: "runtime.reason.provider_name_empty",
  provider_model_empty: "runtime.reason.provider_model_empty",
  provider_unknown: "runtime.reason.provider_unknown",
  schedule_invalid: "runtime.reason.schedule_invalid",
  name_mismatch: "runtime.reason.name_mismatch",
};

/** Why the runtime does not load the agent, in the user's language; null when it loads it. */
export function runtimeReasonText(t: TFunction, r: RuntimeLoadDto): string | null {
  if (r.loads || r.reason === null) return null;
  const vars: Record<string, string> = {};
  for (const [k, v] of Object.entries(r.params)) if (v !== undefined) vars[k] = v;
  if (r.reason === "provider_unknown" && !vars.known) vars.known = t("common.none");
  return t(REASON_TEXT[r.reason], vars);
}

/** The list's badge for an agent folder the runtime skips; its reason on hover. */
export function NotLoadedBadge({ name, runtime }: { name: string; runtime: RuntimeLoadDto }) {
  const { t } = useI18n();
  const reason = runtimeReasonText(t, runtime);
  if (reason === null) return null;
  return (
    <span className="tag tag-warn agent-not-loaded" title={reason} data-testid={`agent-not-loaded-${name}`}>
      {t("runtime.notLoaded")}
    </span>
  );
}

/** The overview's banner: the runtime skips this agent, and why (core's sentence as detail). */
export function RuntimeBanner({ runtime }: { runtime: RuntimeLoadDto }) {
  const { t } = useI18n();
  const reason = runtimeReasonText(t, runtime);
  if (reason === null) {
    return runtime.provider_checked ? null : (
      <div className="field-hint" data-testid="overview-runtime-unchecked">
        {t("runtime.providerUnchecked")}
      </div>
    );
  }
  return (
    <div className="banner banner-warn" role="status" data-testid="overview-not-loaded">
      <div>
        <strong>{t("runtime.notLoadedTitle")}</strong>
        <div className="banner-sub">{reason}</div>
        {runtime.message ? <div className="banner-sub muted">{runtime.message}</div> : null}
      </div>
    </div>
  );
}
