import type { ChangeEvent, ChangeKind } from "./backend";

// Shared by the tauri event listener and the http event stream: {kind, agent}.
const KINDS: readonly ChangeKind[] = ["memory", "agents", "sessions", "settings", "checks"];

export function parseChange(payload: unknown): ChangeEvent | null {
  if (typeof payload !== "object" || payload === null) return null;
  const { kind, agent } = payload as { kind?: unknown; agent?: unknown };
  if (typeof kind !== "string" || !(KINDS as readonly string[]).includes(kind)) return null;
  return { kind: kind as ChangeKind, agent: typeof agent === "string" ? agent : null };
}
