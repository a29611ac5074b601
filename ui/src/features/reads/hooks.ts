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

/** Saves the receipts the way the browser saves a file: a download of the text. */
export function useExportReads(agent: string | null) {
  const { call } = useBackend();
  return async (format: ReadsFormat) => {
    const f = await call("export_entry_reads", { agent, format });
    const url = URL.createObjectURL(new Blob([f.text], { type: f.mime }));
    const a = document.createElement("a");
    a.href = url;
    a.download = f.file_name;
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 0);
    return f.file_name;
  };
}
