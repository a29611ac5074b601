// Picks the implementation at startup: inside the desktop shell → tauri; `?backend=fake` → the
// in-memory fake; otherwise the REST server that served this page (`oryx serve`).
import type { Backend } from "./backend";
import { createFakeBackend, fakeOptionsFromSearch } from "./fake";
import { createHttpBackend } from "./http";
import { createTauriBackend } from "./tauri";

export function selectBackend(win: Window = window): Backend {
  if ("__TAURI_INTERNALS__" in win) return createTauriBackend();
  const q = new URLSearchParams(win.location.search);
  if (q.get("backend") === "fake") return createFakeBackend(fakeOptionsFromSearch(win.location.search));
  return createHttpBackend();
}
