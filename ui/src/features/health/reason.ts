// A finding's reason in the user's language, said from what the console sends with it (check,
// kind and the values in `params`); the console decides what is found and why, this only words
// it. A kind or a value this screen does not know (a newer console) leaves the console's own
// English reason in place, so a finding is never shown without one.
import type { FindingDto } from "../../backend/types";
import type { Lang, MessageKey, TFunction } from "../../i18n";

/** Readable names of the secret and personal-data kinds (health.rs's SECRET_PATTERNS, pii_spans). */
const KIND_NAMES: Record<string, MessageKey> = {
  private_key: "health.kind.private_key",
  anthropic_key: "health.kind.anthropic_key",
  openai_key: "health.kind.openai_key",
  aws_access_key: "health.kind.aws_access_key",
  github_token: "health.kind.github_token",
  slack_token: "health.kind.slack_token",
  google_api_key: "health.kind.google_api_key",
  stripe_key: "health.kind.stripe_key",
  jwt: "health.kind.jwt",
  connection_string: "health.kind.connection_string",
  password: "health.kind.password",
  email: "health.kind.email",
  phone: "health.kind.phone",
  resident_id: "health.kind.resident_id",
  bank_card: "health.kind.bank_card",
};

/** Tags of the other checks' kinds. */
const KIND_TAGS: Record<string, MessageKey> = {
  "stale:relative_time": "health.tag.relative_time",
  "duplicates:exact": "health.tag.exact",
  "duplicates:near": "health.tag.near",
  "budget:unsummarised": "health.tag.unsummarised",
};

const NEAR_REASONS: Record<string, MessageKey> = {
  numbers: "health.reason.nearNumbers",
  text: "health.reason.nearText",
  request: "health.reason.nearRequest",
};

type Num = (n: number) => string;

/** A count the console sent as a string: a whole number, else null. */
function count(s: string | undefined): number | null {
  return s !== undefined && /^\d+$/.test(s) ? Number(s) : null;
}

/** The names of comma-separated kinds, or null when one of them is not known here. */
function kindNames(t: TFunction, kinds: string | undefined): string | null {
  if (!kinds) return null;
  const names: string[] = [];
  for (const k of kinds.split(",")) {
    const key = KIND_NAMES[k.trim()];
    if (!key) return null;
    names.push(t(key));
  }
  return names.join(t("health.kind.sep"));
}

/** The signals a poisoning finding names (poisoning.rs's kinds), strongest first. */
const POISONING_KINDS: Record<string, MessageKey> = {
  override: "health.poisoning.kind.override",
  role_marker: "health.poisoning.kind.role_marker",
  standing_order: "health.poisoning.kind.standing_order",
  hidden_unicode: "health.poisoning.kind.hidden_unicode",
  base64_blob: "health.poisoning.kind.base64_blob",
};

function poisoningKinds(t: TFunction, kinds: string | undefined): string | null {
  if (!kinds) return null;
  const names: string[] = [];
  for (const k of kinds.split(",")) {
    const key = POISONING_KINDS[k.trim()];
    if (!key) return null;
    names.push(t(key));
  }
  return names.join(t("health.kind.sep"));
}

/** The finding's reason in the user's language, or null when it cannot be said from its params
 * (then the console's English `reason` is shown). */
export function localReason(t: TFunction, num: Num, f: FindingDto): string | null {
  const p = f.params ?? {};
  switch (`${f.check}:${f.kind}`) {
    case "stale:relative_time": {
      const days = count(p.age_days);
      if (!p.word || days === null) return null;
      return t("health.reason.stale", { word: p.word, n: num(days) });
    }
    case "duplicates:exact": {
      const n = count(p.count);
      return n === null ? null : t("health.reason.exact", { n: num(n) });
    }
    case "duplicates:near": {
      const n = count(p.count);
      const key = p.basis ? NEAR_REASONS[p.basis] : undefined;
      if (n === null || !key) return null;
      const similarity = Number(p.similarity);
      if (p.similarity === undefined || !Number.isFinite(similarity) || similarity < 0 || similarity > 1) return null;
      const pct = num(Math.round(similarity * 100));
      if (p.basis === "request") {
        if (!p.request) return null;
        // One request (the same words, 1.00) or requests alike by their n-grams.
        const same = similarity >= 0.995;
        return t(same ? "health.reason.nearRequest" : "health.reason.nearRequestLike", { n: num(n), request: p.request, pct });
      }
      return t(key, { n: num(n), pct });
    }
    case "budget:unsummarised": {
      const n = count(p.count);
      const threshold = count(p.threshold);
      if (n === null || threshold === null) return null;
      return t("health.reason.unsummarised", { n: num(n), threshold: num(threshold) });
    }
  }
  if (f.check === "poisoning") {
    const names = poisoningKinds(t, p.kinds);
    return names === null ? null : t("health.poisoning.reason", { kinds: names });
  }
  if (f.check === "secrets" || f.check === "pii") {
    // The kinds are the finding's own (its `kind` is the first of them).
    if (!KIND_NAMES[f.kind]) return null;
    const names = kindNames(t, p.kinds);
    return names === null ? null : t(f.check === "secrets" ? "health.reason.secrets" : "health.reason.pii", { kinds: names });
  }
  return null;
}

/** The short tag before a reason: the kind's name, or the kind as sent when it is not known here. */
export function kindTag(t: TFunction, f: FindingDto): string {
  const key =
    f.check === "secrets" || f.check === "pii" ? KIND_NAMES[f.kind] : f.check === "poisoning" ? POISONING_KINDS[f.kind] : KIND_TAGS[`${f.check}:${f.kind}`];
  return key ? t(key) : f.kind;
}

/** What a finding item shows: its reason (localised when it can be), and the console's English
 * reason as detail when what is shown differs from it. */
export function findingText(t: TFunction, num: Num, lang: Lang, f: FindingDto): { text: string; localised: boolean; detail: string | null } {
  const local = localReason(t, num, f);
  if (local === null) return { text: f.reason, localised: false, detail: null };
  return { text: local, localised: true, detail: lang === "en" ? null : f.reason };
}
