// Hash routing (no server routes: the desktop shell serves files from disk).
import { useSyncExternalStore } from "react";

export type AgentTab = "memory" | "prompt" | "overview" | "health" | "superseded";

/** The sessions list's filter and page, kept in the URL so Back and reload return to them. */
export type SessionsFilter = { agent?: string; status?: "active" | "archived"; q?: string; offset?: number };

/** The recall tester's owner (absent: the global memory) and query, kept in the URL. */
export type RecallFilter = { agent?: string; q?: string };

/** An entry the memory tab brings into view and marks (a session's "Saved to memory" badge, a
 * hit of the search box): `entry` its id, `find` its text (the archival list is searched for it
 * on the server to learn its position; alone when the entry has no id, then the entry with
 * exactly this text), `session` and `m` the message that wrote it (a way back). */
export type EntryTarget = { entry?: string; find?: string; session?: string; m?: number };

export type Route =
  | { page: "agents" }
  | ({ page: "agent"; name: string; tab: AgentTab } & EntryTarget)
  /** `tab`: the global memory's health (absent: its entries). */
  | ({ page: "global"; tab?: "health" } & EntryTarget)
  | ({ page: "sessions" } & SessionsFilter)
  /** `m`: the message a search matched (scrolled to and marked); `q`: the text searched;
   * `why`: "origin" when `m` is the message an entry came from (its provenance). */
  | { page: "session"; id: string; m?: number; q?: string; why?: "origin" }
  | { page: "files"; name: string | null }
  | ({ page: "recall" } & RecallFilter)
  /** Every agent's health and sessions; `days`: the sessions chart's period. */
  | { page: "dashboard"; days?: number }
  /** `focus`: the part of the form to bring into view (the banner's "Switch back…"). */
  | { page: "settings"; focus?: "backend" };

const TABS: readonly AgentTab[] = ["memory", "prompt", "overview", "health", "superseded"];

function dec(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

function sessionsFilter(p: URLSearchParams): SessionsFilter {
  const f: SessionsFilter = {};
  const agent = p.get("agent");
  if (agent) f.agent = agent;
  const status = p.get("status");
  if (status === "active" || status === "archived") f.status = status;
  const q = p.get("q");
  if (q) f.q = q;
  const offset = Number(p.get("offset"));
  if (Number.isInteger(offset) && offset > 0) f.offset = offset;
  return f;
}

function entryTarget(p: URLSearchParams): EntryTarget {
  const t: EntryTarget = {};
  const entry = p.get("entry");
  const find = p.get("find");
  // An entry without an id (a MEMORY.md line found by meaning) is aimed at by its text alone.
  if (!entry && !find) return t;
  if (entry) t.entry = entry;
  if (find) t.find = find;
  const session = p.get("session");
  if (session) t.session = session;
  const m = Number(p.get("m") ?? "x");
  if (session && Number.isInteger(m) && m >= 0) t.m = m;
  return t;
}

function query(pairs: Record<string, string | number | undefined>): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(pairs)) if (v !== undefined && v !== "") p.set(k, String(v));
  const s = p.toString();
  return s ? `?${s}` : "";
}

export function parseRoute(hash: string): Route {
  const [path, search] = hash.replace(/^#\/?/, "").split("?");
  const params = new URLSearchParams(search ?? "");
  const parts = path!.split("/").filter(Boolean);
  const [head, a, b] = parts;
  switch (head) {
    case "agents":
      if (!a) return { page: "agents" };
      {
        const tab = TABS.includes(b as AgentTab) ? (b as AgentTab) : "memory";
        return tab === "memory" ? { page: "agent", name: dec(a), tab, ...entryTarget(params) } : { page: "agent", name: dec(a), tab };
      }
    case "global":
      return a === "health" ? { page: "global", tab: "health" } : { page: "global", ...entryTarget(params) };
    case "sessions":
      if (!a) return { page: "sessions", ...sessionsFilter(params) };
      {
        const r: Extract<Route, { page: "session" }> = { page: "session", id: dec(a) };
        const m = Number(params.get("m") ?? "x");
        if (Number.isInteger(m) && m >= 0) r.m = m;
        const q = params.get("q");
        if (q) r.q = q;
        if (r.m !== undefined && params.get("why") === "origin") r.why = "origin";
        return r;
      }
    case "files":
      return { page: "files", name: a ? dec(a) : null };
    case "recall": {
      const r: Extract<Route, { page: "recall" }> = { page: "recall" };
      const agent = params.get("agent");
      if (agent) r.agent = agent;
      const q = params.get("q");
      if (q) r.q = q;
      return r;
    }
    case "dashboard": {
      const days = Number(params.get("days"));
      return Number.isInteger(days) && days > 0 ? { page: "dashboard", days } : { page: "dashboard" };
    }
    case "settings":
      return params.get("focus") === "backend" ? { page: "settings", focus: "backend" } : { page: "settings" };
    default:
      return { page: "agents" };
  }
}

function targetQuery(t: EntryTarget): string {
  return t.entry || t.find ? query({ entry: t.entry, find: t.find, session: t.session, m: t.session ? t.m : undefined }) : "";
}

export function href(r: Route): string {
  switch (r.page) {
    case "agents":
      return "#/agents";
    case "agent":
      return `#/agents/${encodeURIComponent(r.name)}${r.tab === "memory" ? targetQuery(r) : `/${r.tab}`}`;
    case "global":
      return r.tab === "health" ? "#/global/health" : `#/global${targetQuery(r)}`;
    case "sessions":
      return `#/sessions${query({ agent: r.agent, status: r.status, q: r.q, offset: r.offset })}`;
    case "session":
      return `#/sessions/${encodeURIComponent(r.id)}${query({ m: r.m, q: r.q, why: r.m !== undefined ? r.why : undefined })}`;
    case "files":
      return r.name ? `#/files/${encodeURIComponent(r.name)}` : "#/files";
    case "recall":
      return `#/recall${query({ agent: r.agent, q: r.q })}`;
    case "dashboard":
      return `#/dashboard${query({ days: r.days })}`;
    case "settings":
      return `#/settings${query({ focus: r.focus })}`;
  }
}

export function navigate(r: Route) {
  window.location.hash = href(r);
}

/** Changes the URL without a new history entry (typing in a filter is not a page visit). */
export function replaceRoute(r: Route) {
  const url = `${window.location.pathname}${window.location.search}${href(r)}`;
  window.location.replace(url);
}

function subscribe(cb: () => void) {
  window.addEventListener("hashchange", cb);
  return () => window.removeEventListener("hashchange", cb);
}

export function useRoute(): Route {
  const hash = useSyncExternalStore(subscribe, () => window.location.hash, () => "");
  return parseRoute(hash);
}
