// How a forget's places are named for people. The places themselves, their order and what is
// found in each come from the console; an unknown place (a newer console) shows its own name.
import type { CopiesDto, ForgetAskDto, LeftDto } from "../../backend/types";
import type { MessageKey, TFunction } from "../../i18n";

const PLACE_KEYS: Record<string, MessageKey> = {
  memory: "forget.place.memory",
  history: "forget.place.history",
  journal: "forget.place.journal",
  console_index: "forget.place.console_index",
  review_marks: "forget.place.review_marks",
  runtime_vectors: "forget.place.runtime_vectors",
  runtime_tool_calls: "forget.place.runtime_tool_calls",
  runtime_sessions: "forget.place.runtime_sessions",
  runtime_other: "forget.place.runtime_other",
  database_free_space: "forget.place.database_free_space",
  archives: "forget.place.archives",
  git: "forget.place.git",
};

export function placeName(t: TFunction, place: string): string {
  const key = PLACE_KEYS[place];
  return key ? t(key) : place;
}

/** Rows grouped by place, in the order the console gave the places. */
export function byPlace<T extends CopiesDto | LeftDto>(rows: T[]): [string, T[]][] {
  const groups = new Map<string, T[]>();
  for (const r of rows) {
    const list = groups.get(r.place);
    if (list) list.push(r);
    else groups.set(r.place, [r]);
  }
  return Array.from(groups.entries());
}

export function total(rows: { count: number }[]): number {
  return rows.reduce((n, r) => n + r.count, 0);
}

/** What a forget was asked, in the person's language; `fallback` (the console's English) for a
 * receipt written before the console kept it in parts. */
export function askLabel(t: TFunction, ask: ForgetAskDto | null | undefined, fallback: string): string {
  if (!ask) return fallback;
  const owner = ask.agent ?? t("forget.scope.global");
  if (ask.kind === "entries") return t("forget.ask.entries", { n: ask.entries, owner });
  return ask.all_agents ? t("forget.ask.textAll") : t("forget.ask.text", { owner });
}

const WHY_KEYS: Record<string, MessageKey> = {
  git: "forget.why.git",
  handed_over: "forget.why.handed_over",
  not_removed: "forget.why.not_removed",
  mem0_history: "forget.why.mem0_history",
  session_held: "forget.why.session_held",
  cancelled: "forget.why.cancelled",
  failed: "forget.why.failed",
  still_found: "forget.why.still_found",
  wal_partial: "forget.why.wal_partial",
  not_compacted: "forget.why.not_compacted",
  not_changed: "forget.why.not_changed",
  in_record_names: "forget.why.in_record_names",
  json_syntax: "forget.why.json_syntax",
  binary: "forget.why.binary",
  virtual_table: "forget.why.virtual_table",
};

/** Why copies were left, in the person's language; the console's English for an unknown code. */
export function whyLabel(t: TFunction, l: LeftDto): string {
  const key = WHY_KEYS[l.why];
  if (!key) return l.reason;
  // A session's status is a word of the console's: said in the person's language.
  const arg = l.why === "session_held" && (l.arg === "active" || l.arg === "archived") ? t(`sessions.${l.arg}`) : (l.arg ?? "");
  return t(key, { arg, n: l.count });
}
