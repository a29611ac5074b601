// Export and import (#16): the server calls of the two dialogs. The job runs in the console;
// these start it, poll it while it runs, cancel it, and move the archive's bytes through the host
// (the desktop's file dialogs, the browser's download and upload).
import { useMutation, useQueryClient } from "@tanstack/react-query";

import { useBackend } from "../../backend";
import type { ExportRequest, ImportRequest, TransferDto } from "../../backend/types";
import { invalidateFor, opKey, useOp } from "../../queries/ops";

/** How often a running job is asked for its progress. */
export const POLL_MS = 250;

/** The job `id` (none: null), polled while it runs. */
export function useTransfer(id: string | null) {
  return useOp("transfer_status", { id: id ?? "" }, {
    enabled: id !== null,
    refetchInterval: (q) => (q.state.data?.state === "running" ? POLL_MS : false),
    retry: false,
  });
}

export function useTransferActions() {
  const backend = useBackend();
  const qc = useQueryClient();
  // The answer to start or cancel is the job's state: the poll starts from it.
  const seed = (t: TransferDto) => qc.setQueryData(opKey("transfer_status", { id: t.id }), t);
  return {
    startExport: useMutation({ mutationFn: (req: ExportRequest) => backend.call("start_export", req), onSuccess: seed }),
    startImport: useMutation({ mutationFn: (req: ImportRequest) => backend.call("start_import", req), onSuccess: seed }),
    cancel: useMutation({ mutationFn: (id: string) => backend.call("cancel_transfer", { id }), onSuccess: seed }),
    save: useMutation({ mutationFn: (id: string) => backend.saveExport(id) }),
    choose: useMutation({ mutationFn: () => backend.chooseArchive() }),
  };
}

/** After an import wrote into the root: every view of memory, agents and their files asks again. */
export function useRefreshAfterImport() {
  const qc = useQueryClient();
  return () => Promise.all([invalidateFor(qc, { kind: "memory", agent: undefined }), invalidateFor(qc, { kind: "agents", agent: null })]);
}
