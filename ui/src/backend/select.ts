// Picks the implementation at startup: inside the desktop shell → tauri; otherwise the REST
// server that served this page (`oryx serve`).
import type { Backend } from "./backend";
import { createHttpBackend } from "./http";
import { createTauriBackend } from "./tauri";

export function selectBackend(win: Window = window): Backend {
  if ("__TAURI_INTERNALS__" in win) return createTauriBackend();
  return createHttpBackend();
}
