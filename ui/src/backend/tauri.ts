// The desktop transport: every operation through the generated `console` command, migration
// progress over a Channel, the change event, the native folder picker and the file dialogs of
// an export or import.
import { Channel } from "@tauri-apps/api/core";
import { listen } from "@tauri-apps/api/event";
import { open } from "@tauri-apps/plugin-dialog";

import { BackendError, type Backend } from "./backend";
import { parseChange } from "./change-events";
import type { Invoke } from "./client";
import { commands, type ApiError, type MigrationProgress } from "./types";

/** What every generated command resolves to (tauri-specta's Result). */
type Result<T, E> = { status: "ok"; data: T } | { status: "error"; error: E };

/** Emitted by the shell after a write and when a watched MEMORY.md or the database changes. */
export const CHANGE_EVENT = "oryx://changed";

async function unwrap<T>(p: Promise<Result<T, ApiError>>): Promise<T> {
  let r: Result<T, ApiError>;
  try {
    r = await p;
  } catch (e) {
    throw BackendError.from(e);
  }
  if (r.status === "error") throw BackendError.from(r.error);
  return r.data;
}

const invoke: Invoke = (op, args) => unwrap(commands.console(op, args)) as never;

export function createTauriBackend(): Backend {
  return {
    kind: "tauri",
    supportsFolderPicker: true,
    supportsMigrationProgress: true,
    call: invoke,
    migrate(req, onProgress) {
      // One event per entry handled, streamed while the command runs.
      const channel = new Channel<MigrationProgress>();
      channel.onmessage = (p) => onProgress(p);
      return unwrap(commands.migrate(req, channel));
    },
    cancelMigration: async () => {
      await unwrap(commands.cancelMigration());
    },
    async pickFolder() {
      try {
        const picked = await open({ directory: true, multiple: false });
        return typeof picked === "string" ? picked : null;
      } catch {
        // The dialog plugin is not registered or not permitted: behave as "unsupported".
        return null;
      }
    },
    // The system's save and open dialogs are shown from Rust: no path comes from the page.
    saveExport: (id) => unwrap(commands.saveExport(id)),
    saveReads: (agent, format) => unwrap(commands.saveReads(agent, format)),
    chooseArchive: () => unwrap(commands.pickArchive()),
    remote: {
      connection: () => unwrap(commands.connection()),
      probeServer: (url) => unwrap(commands.probeServer(url)),
      connectServer: (req) => unwrap(commands.connectServer(req)),
      disconnectServer: () => unwrap(commands.disconnectServer()),
      forgetServer: (url) => unwrap(commands.forgetServer(url)),
    },
    onChange(cb) {
      let disposed = false;
      let unlisten: (() => void) | null = null;
      listen<unknown>(CHANGE_EVENT, (event) => {
        const change = parseChange(event.payload);
        if (change) cb(change);
      })
        .then((fn) => {
          if (disposed) fn();
          else unlisten = fn;
        })
        .catch(() => {
          /* no event system (e.g. a test webview): nothing to unsubscribe */
        });
      return () => {
        disposed = true;
        unlisten?.();
      };
    },
  };
}
