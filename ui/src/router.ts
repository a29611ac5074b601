// Hash routing (no server routes: the desktop shell serves files from disk).
import { useSyncExternalStore } from "react";

export type AgentTab = "memory" | "prompt" | "overview";

export type Route =
  | { page: "agents" }
  | { page: "agent"; name: string; tab: AgentTab }
  | { page: "global" }
  | { page: "sessions" }
  | { page: "session"; id: string }
  | { page: "files"; name: string | null }
  | { page: "settings" };

const TABS: readonly AgentTab[] = ["memory", "prompt", "overview"];

function dec(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

export function parseRoute(hash: string): Route {
  const parts = hash.replace(/^#\/?/, "").split("?")[0]!.split("/").filter(Boolean);
  const [head, a, b] = parts;
  switch (head) {
    case "agents":
      if (!a) return { page: "agents" };
      return { page: "agent", name: dec(a), tab: TABS.includes(b as AgentTab) ? (b as AgentTab) : "memory" };
    case "global":
      return { page: "global" };
    case "sessions":
      return a ? { page: "session", id: dec(a) } : { page: "sessions" };
    case "files":
      return { page: "files", name: a ? dec(a) : null };
    case "settings":
      return { page: "settings" };
    default:
      return { page: "agents" };
  }
}

export function href(r: Route): string {
  switch (r.page) {
    case "agents":
      return "#/agents";
    case "agent":
      return `#/agents/${encodeURIComponent(r.name)}${r.tab === "memory" ? "" : `/${r.tab}`}`;
    case "global":
      return "#/global";
    case "sessions":
      return "#/sessions";
    case "session":
      return `#/sessions/${encodeURIComponent(r.id)}`;
    case "files":
      return r.name ? `#/files/${encodeURIComponent(r.name)}` : "#/files";
    case "settings":
      return "#/settings";
  }
}

export function navigate(r: Route) {
  window.location.hash = href(r);
}

function subscribe(cb: () => void) {
  window.addEventListener("hashchange", cb);
  return () => window.removeEventListener("hashchange", cb);
}

export function useRoute(): Route {
  const hash = useSyncExternalStore(subscribe, () => window.location.hash, () => "");
  return parseRoute(hash);
}
