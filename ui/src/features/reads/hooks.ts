// Read receipts' server calls: each entry's reads (the memory tab's column and filter), what a
// session's turns read, and the receipts as a file to save.
import { useBackend } from "../../backend";
import type { EntryReadDto, ReadsFormat } from "../../backend/types";
import { useOp } from "../../queries/ops";

/** Each entry's reads; only fetched while the receipts are shown (they walk every session). */
export function useEntryReads(agent: string | null, enabled: boolean) {
  return useOp("entry_reads", { agent }, { enabled });
}

export function useSessionReads(sessionId: string, enabled: boolean) {
  return useOp("session_reads", { session_id: sessionId }, { enabled });
}

/** Today's entries' reads by id. */
export function readsById(entries: readonly EntryReadDto[] | undefined): Map<string, EntryReadDto> {
  const m = new Map<string, EntryReadDto>();
  for (const e of entries ?? []) if (e.existsNow) m.set(e.id, e);
  return m;
}

/** Saves the receipts through the host: the desktop's save dialog, the browser's download. */
export function useExportReads(agent: string | null) {
  const b = useBackend();
  /** The path saved to (desktop), the file's name (browser), or null: the dialog was closed. */
  return (format: ReadsFormat) => b.saveReads(agent, format);
}
