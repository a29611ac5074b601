// Time travel: the owner's memory as it stood at the end of a day (memory_asof) and what changed
// from that day to today (memory_diff). What the memory was, which entries reached the prompt and
// what changed are the console's answers; the screen only picks the day.
import { keepPreviousData } from "@tanstack/react-query";

import { useOp } from "../../queries/ops";

/** A calendar day, `yyyy-MM-dd`, of the user's clock. */
export function localDay(d: Date): string {
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}`;
}

const DAY_RE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Whether `s` is a `yyyy-MM-dd` day that exists on the calendar. */
export function isDay(s: string): boolean {
  const m = DAY_RE.exec(s);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.toISOString().slice(0, 10) === s;
}

function utc(day: string): number {
  const [y, m, d] = day.split("-").map(Number);
  return Date.UTC(y!, m! - 1, d!);
}

/** Every calendar day from `from` to `to`, both included (just `to` when `from` is later). */
export function dayRange(from: string, to: string): string[] {
  const start = Math.min(utc(from), utc(to));
  const end = utc(to);
  const out: string[] = [];
  for (let t = start; t <= end; t += 86_400_000) out.push(new Date(t).toISOString().slice(0, 10));
  return out;
}

/** The memory at the end of `day` (null: not asked yet). While another day loads, the last one
 * stays on screen (`isPlaceholderData`), so dragging the slider does not blank the tables. */
export function useAsOf(agent: string | null, day: string | null) {
  return useOp("memory_asof", { agent, at: day ?? "" }, {
    enabled: day !== null,
    placeholderData: keepPreviousData,
  });
}

/** Entries added, removed and changed from the end of `from` to the end of `to`. */
export function useMemoryDiff(agent: string | null, from: string | null, to: string) {
  return useOp("memory_diff", { agent, from: from ?? "", to }, {
    enabled: from !== null,
    placeholderData: keepPreviousData,
  });
}
