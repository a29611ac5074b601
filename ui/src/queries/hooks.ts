import { useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";

import { BackendError } from "../backend";
import { opKey, useOp } from "./ops";

export function useSettings() {
  // Polled: a root deleted or unmounted while the console is open sends no change event (the
  // watcher goes with it), and the banner must still appear. While the memory backend cannot be
  // reached, more often: the banner goes as soon as a call reaches it again.
  return useOp("get_settings", {}, { refetchInterval: (q) => (q.state.data?.effective.backend_problem ? 5_000 : 15_000) });
}

/** A call that could not reach the memory backend (mem0 down) is what settings' backend_problem
 * then reports: asks for the settings again at once, so the banner does not wait for the poll. */
export function useBackendProblemRefresh() {
  const qc = useQueryClient();
  useEffect(() => {
    const unreachable = (e: unknown) => e instanceof BackendError && (e.code === "backend_unavailable" || e.code === "timeout");
    const settings = opKey("get_settings", {});
    const refresh = () => void qc.invalidateQueries({ queryKey: settings });
    const offQueries = qc.getQueryCache().subscribe((e) => {
      if (e.type === "updated" && e.action.type === "error" && e.query.queryKey[0] !== settings[0] && unreachable(e.action.error)) refresh();
    });
    const offMutations = qc.getMutationCache().subscribe((e) => {
      if (e.type === "updated" && e.action.type === "error" && unreachable(e.action.error)) refresh();
    });
    return () => {
      offQueries();
      offMutations();
    };
  }, [qc]);
}
