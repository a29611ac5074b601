// The reason codes the console gives a superseded pair, as message keys (the console decides the
// reason; the screen only words it).
import type { MessageKey } from "../../i18n";

const REASONS: Record<string, MessageKey> = {
  phone: "superseded.reason.phone",
  email: "superseded.reason.email",
  date: "superseded.reason.date",
  number: "superseded.reason.number",
  place: "superseded.reason.place",
  change: "superseded.reason.change",
  negation: "superseded.reason.negation",
  preference: "superseded.reason.preference",
};

export function reasonKey(reason: string): MessageKey {
  return REASONS[reason] ?? "superseded.reason.other";
}
