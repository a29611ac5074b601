// The settings screens' server calls: every one goes through these hooks.
import { useMutation } from "@tanstack/react-query";

import { useBackend } from "../../backend";
import type { MigrateRequest, MigrationProgress, SettingsDto } from "../../backend/types";
import { useDebounced } from "../../components/hooks";
import { useOp } from "../../queries/ops";
import { useConnection } from "../remote/hooks";

/** What a folder holds (debounced as the path is typed). */
export function useInspection(path: string, dbPath: string | null) {
  const p = useDebounced(path.trim(), 400);
  const d = useDebounced(dbPath?.trim() || null, 400);
  return useOp("inspect_root", { path: p, db_path: d }, {
    enabled: p !== "",
    retry: false,
  });
}

/** Tries mem0 settings as typed (nothing is saved). */
export function useTestMem0() {
  const backend = useBackend();
  return useMutation({ mutationFn: (s: SettingsDto) => backend.call("test_mem0", s) });
}

/** The writes of Settings and the welcome screen, and the native folder picker (not while a
 * console on another machine is shown: a folder of this computer means nothing there). */
export function useSettingsWrites() {
  const backend = useBackend();
  const remote = useConnection().data?.remote;
  return {
    updateSettings: (s: SettingsDto) => backend.call("update_settings", s),
    createSampleRoot: (path: string) => backend.call("create_sample_root", { path }),
    supportsFolderPicker: backend.supportsFolderPicker && !remote,
    pickFolder: () => backend.pickFolder(),
  };
}

/** Counting, copying and cancelling a migration between memory backends. */
export function useMigration() {
  const backend = useBackend();
  return {
    migrate: (req: MigrateRequest, onProgress: (p: MigrationProgress) => void) => backend.migrate(req, onProgress),
    cancel: () => backend.cancelMigration(),
    /** Whether the target mem0 answers with these settings (an unreachable one is ok = false). */
    testMem0: (s: SettingsDto) => backend.call("test_mem0", s),
    supportsProgress: backend.supportsMigrationProgress,
  };
}
