import type { SessionQuery } from "../backend/types";

const GLOBAL = "__global__";

/** Every TanStack Query key in one place, so change events can invalidate precisely. */
export const qk = {
  settings: ["settings"] as const,
  agents: ["agents"] as const,
  agent: (name: string) => ["agent", name] as const,
  /** Prefix of every agent detail query. */
  agentAll: ["agent"] as const,
  /** Prefix of every memory query of an owner (the full view, the overview and the pages). */
  memory: (agent: string | null) => ["memory", agent ?? GLOBAL] as const,
  memoryOverview: (agent: string | null) => ["memory", agent ?? GLOBAL, "overview"] as const,
  archivalPage: (agent: string | null, keyword: string, dir: "asc" | "desc", page: number) => ["memory", agent ?? GLOBAL, "archival", keyword, dir, page] as const,
  /** The owner's change history (under the owner's memory prefix: every change refreshes it). */
  history: (agent: string | null, limit: number) => ["memory", agent ?? GLOBAL, "history", limit] as const,
  /** Entries new since the owner's last review. */
  review: (agent: string | null) => ["memory", agent ?? GLOBAL, "review"] as const,
  /** What deleting or moving a selection would do to the prompt: asked each time the
   * confirmation opens, so outside the memory prefix (the change it confirms must not ask again). */
  impact: (agent: string | null, action: string, ids: readonly string[]) => ["impact", agent ?? GLOBAL, action, ...ids] as const,
  /** The archival entries among the owner's new ones ("new only"). */
  newArchival: (agent: string | null, ids: readonly string[]) => ["memory", agent ?? GLOBAL, "new", ids.join(",")] as const,
  /** Health, stats and the summary proposal follow the owner's entries (under its memory prefix). */
  health: (agent: string | null) => ["memory", agent ?? GLOBAL, "health"] as const,
  stats: (agent: string | null) => ["memory", agent ?? GLOBAL, "stats"] as const,
  /** Time travel: the owner's memory at a moment, and what changed between two (under its memory prefix: a change refreshes them). */
  asOf: (agent: string | null, at: string) => ["memory", agent ?? GLOBAL, "asof", at] as const,
  memoryDiff: (agent: string | null, from: string, to: string) => ["memory", agent ?? GLOBAL, "diff", from, to] as const,
  summary: (agent: string | null) => ["memory", agent ?? GLOBAL, "summary"] as const,
  /** Where an entry came from (under its owner's memory prefix: a change may change the answer). */
  provenance: (agent: string | null, id: string) => ["memory", agent ?? GLOBAL, "provenance", id] as const,
  /** Where entry `id` sits in the archival list, found by searching its text `find`. */
  locate: (agent: string | null, id: string, find: string) => ["memory", agent ?? GLOBAL, "locate", id, find] as const,
  /** Every agent's health at a glance (the dashboard, the agents list's badges): follows every
   * owner's entries, the agents and the settings (invalidated with them). */
  agentsHealth: ["agents-health"] as const,
  /** Characters per prompt part for an agent's recent sessions (under the agent's prompt prefix). */
  promptComposition: (agent: string, limit: number | null = null) => ["prompt", agent, "composition", limit] as const,
  /** Sessions per day and agent over the last `days` days (under the sessions prefix). */
  sessionsPerDay: (days: number | null = null) => ["sessions", "per-day", days] as const,
  recall: (agent: string | null, keyword: string) => ["recall", agent ?? GLOBAL, keyword] as const,
  recallAll: (agent: string | null) => ["recall", agent ?? GLOBAL] as const,
  /** The recall tester: one owner's query in one mode (under the owner's recall prefix). */
  recallMode: (agent: string | null, keyword: string, mode: string) => ["recall", agent ?? GLOBAL, keyword, "mode", mode] as const,
  /** Episodic search: an agent's past session messages closest to a query. */
  episodic: (agent: string, query: string) => ["episodic", agent, query] as const,
  /** Prefix of every episodic search (session changes add messages to search). */
  episodicAll: ["episodic"] as const,
  /** The header's search box: every memory and every past session for one query. */
  searchEverywhere: (query: string) => ["search-everywhere", query] as const,
  searchEverywhereAll: ["search-everywhere"] as const,
  /** The semantic index: model, vector file, per-owner counts and the build job. */
  indexStatus: ["index-status"] as const,
  /** The index build alone, polled while it runs. */
  indexBuild: ["index-build"] as const,
  /** Prefixes of every owner's memory and recall queries. */
  memoryAll: ["memory"] as const,
  recallEvery: ["recall"] as const,
  preview: (content: string) => ["preview", content] as const,
  sessions: (q?: SessionQuery) => (q ? (["sessions", q] as const) : (["sessions"] as const)),
  session: (id?: string) => (id ? (["session", id] as const) : (["session"] as const)),
  invocations: (sessionId?: string | null) => (sessionId === undefined ? (["invocations"] as const) : (["invocations", sessionId] as const)),
  /** The entries a session's messages wrote (under the session's prefix). */
  memoryLinks: (sessionId: string) => ["session", sessionId, "memory-links"] as const,
  /** Prompt replay: the prompt as built at `asof` up to message `index` (under the agent's prompt prefix). */
  promptReplay: (agent: string, sessionId: string, asof: string, index: number) => ["prompt", agent, "replay", sessionId, asof, index] as const,
  prompt: (agent?: string) => (agent ? (["prompt", agent] as const) : (["prompt"] as const)),
  /** One agent's prompt, with a session's history or without (null), its episodic part chosen
   * for `query` (null: the session's last user message). */
  promptWith: (agent: string, sessionId: string | null, query: string | null = null) => ["prompt", agent, sessionId, query] as const,
  files: ["files"] as const,
  /** An agent's AGENT.md as text with its version. */
  agentFile: (name: string) => ["agent-file", name] as const,
  agentFileAll: ["agent-file"] as const,
  archived: ["archived"] as const,
  rootSkills: ["root-skills"] as const,
  inspect: (path: string, dbPath: string | null) => ["inspect", path, dbPath] as const,
  /** An export or import job, polled while it runs. */
  transfer: (id: string) => ["transfer", id] as const,
  /** Which console the desktop window shows (this computer's or a server's) and the servers it
   * remembers (the desktop only). */
  connection: ["connection"] as const,
};
