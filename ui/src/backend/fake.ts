// In-memory backend: used by the Vitest suite and by `?backend=fake` in a plain browser (demos,
// screenshots). Behaves like the Rust console: same validation, window rule, errors and events.
import { BackendError, type Backend, type ChangeEvent } from "./backend";
import { buildDemoRoot, buildTeamRoot, formatTs, type FakeAgent, type FakeEntry, type FakeMemory, type FakeRoot, type FakeSession } from "./fake-data";
import { ARCHIVAL_HEADING, CORE_HEADING, MEM0_LIST_LIMIT, charCount, computeWindow, estimateTokens, matchesKeyword, renderLine, sanitizeContent } from "./memory-rules";
import type {
  AgentDetail,
  AgentSummary,
  BackendDto,
  EntryDto,
  LanguageDto,
  Mem0Status,
  MemoryCounts,
  MemoryViewDto,
  MessageDto,
  MigrationReport,
  OwnerCounts,
  PromptDto,
  RootInspection,
  SessionSummaryDto,
  SettingsDto,
  SettingsView,
  ThemeDto,
} from "./types";

export type FakeOptions = {
  /** Artificial delay of every call, to see skeletons. */
  latencyMs?: number;
  /** No root chosen and the default root missing: the welcome screen. */
  firstRun?: boolean;
  language?: LanguageDto;
  theme?: ThemeDto;
  backend?: BackendDto;
  /** Archival entries of the `assistant` agent (100 000 for the scrolling check). */
  assistantArchival?: number;
  archivalLimit?: number;
  /** The fake clock. */
  now?: Date;
  /** Names of env vars or flags to report in effective.overridden_by. */
  overriddenBy?: string[];
  /** What the app repaired at startup (effective.notice), until settings are saved. */
  notice?: string;
  /** Why the configured root cannot be used (effective.root_problem): it vanished, say. */
  rootProblem?: string;
  /** Whether pickFolder answers (with the team root) or behaves as unsupported. */
  folderPicker?: boolean;
  /** The stored mem0 base URL (the fake mem0 server answers at FAKE_MEM0_URL only). */
  mem0Url?: string | null;
  /** The fake mem0 server is down from the start. */
  mem0Down?: boolean;
  /** The fake mem0 server goes down after accepting this many writes (a migration fails half-way). */
  mem0FailAfter?: number;
  /** The fake mem0 server holds this many archival entries of `assistant` (1000+ → possibly_more). */
  mem0Archival?: number;
  /** Delay per copied entry of a migration, to watch the progress bar (0: as fast as possible). */
  migrateDelayMs?: number;
  /** Report progress and honour cancel (true, as the desktop shell and `oryx serve` do) or not (false: a backend without progress or cancel). */
  migrationProgress?: boolean;
};

export const FAKE_HOME = "/home/linxiao";
export const FAKE_DEFAULT_ROOT = `${FAKE_HOME}/.oryxos`;
export const FAKE_TEAM_ROOT = "/srv/team/.oryxos";
/** Folders that exist but are not roots. */
const PLAIN_DIRS = new Set(["/", "/tmp", "/home", FAKE_HOME, `${FAKE_HOME}/Documents`, "/srv", "/srv/team"]);
const GLOBAL = "__global__";
const NAME_RE = /^[A-Za-z0-9_-]{1,64}$/;
/** Where the fake mem0 server answers; any other base URL is unreachable. */
export const FAKE_MEM0_URL = "http://127.0.0.1:8888";
export const MEM0_LOAD_LIMIT = MEM0_LIST_LIMIT;
/** Largest archival page (oryx-api dto.rs ARCHIVAL_PAGE_MAX). */
export const ARCHIVAL_PAGE_MAX = 1000;

type Store = BackendDto;
type Scoped = { scope: "core" | "archival"; e: FakeEntry };

export type FakeBackend = Backend & {
  /** Test hook: simulates a change made outside the console (another process, the runtime). */
  emit(e: ChangeEvent): void;
  /** Test hook: the calls made, by method name. */
  readonly calls: { method: string; args: unknown[] }[];
  /** Test hook: takes the fake mem0 server down or brings it back. */
  setMem0Down(down: boolean): void;
  /** Test hook: the entries a backend holds for an owner (null = global), bypassing the settings. */
  entriesIn(store: Store, agent: string | null): { core: number; archival: number };
};

function defaultSettings(o: FakeOptions): SettingsDto {
  return {
    root: o.firstRun ? null : FAKE_DEFAULT_ROOT,
    backend: o.backend ?? "markdown",
    db_path: null,
    archival_limit_chars: o.archivalLimit ?? 4000,
    footprint_enabled: true,
    mem0_base_url: o.mem0Url ?? null,
    mem0_user_id: "oryxos",
    mem0_api_key: null,
    mem0_api_key_set: false,
    mem0_timeout_ms: 10000,
    language: o.language ?? "system",
    theme: o.theme ?? "system",
  };
}

const sleep = (ms: number) => new Promise<void>((res) => setTimeout(res, ms));

function zeroCounts(owner: string): OwnerCounts {
  return { owner, found: 0, target_before: 0, copied: 0, skipped: 0, failed: 0, error: null };
}

/** The target's entries, matched as oryx-core does: same scope, content and time are the same
 * memory; a source entry without a time matches the same content at any time. Each target entry
 * matches once, so duplicates in the source are copied as often as they are missing. */
function presentOf(target: Scoped[]) {
  const exactKey = (scope: string, e: FakeEntry) => `${scope}\u0000${e.content}\u0000${e.ts ? formatTs(e.ts) : ""}`;
  const untimedKey = (scope: string, e: FakeEntry) => `${scope}\u0000${e.content}`;
  const exact = new Map<string, number>();
  const untimed = new Map<string, number>();
  const bump = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);
  const takeOne = (m: Map<string, number>, k: string) => {
    const n = m.get(k) ?? 0;
    if (n <= 0) return false;
    m.set(k, n - 1);
    return true;
  };
  for (const { scope, e } of target) {
    bump(exact, exactKey(scope, e));
    bump(untimed, untimedKey(scope, e));
  }
  return {
    take(scope: string, e: FakeEntry): boolean {
      const u = untimedKey(scope, e);
      const hit = e.ts ? takeOne(exact, exactKey(scope, e)) : (untimed.get(u) ?? 0) > 0;
      if (hit) takeOne(untimed, u);
      return hit;
    },
  };
}

export function createFakeBackend(opts: FakeOptions = {}): FakeBackend {
  const now = opts.now ?? new Date(2026, 6, 22, 9, 30, 0);
  const roots = new Map<string, FakeRoot>();
  if (!opts.firstRun) roots.set(FAKE_DEFAULT_ROOT, buildDemoRoot(FAKE_DEFAULT_ROOT, { now, assistantArchival: opts.assistantArchival }));
  roots.set(FAKE_TEAM_ROOT, buildTeamRoot(FAKE_TEAM_ROOT, now));
  let settings = defaultSettings(opts);
  let notice: string | null = opts.notice ?? null;
  let clock = now.getTime();
  const listeners = new Set<(e: ChangeEvent) => void>();
  const calls: { method: string; args: unknown[] }[] = [];
  // The fake mem0 server: memories by mem0 user id (`<user>` global, `<user>:<agent>` per agent),
  // independent of the root, as a real server is.
  const mem0Server = new Map<string, FakeMemory>();
  let mem0Down = !!opts.mem0Down;
  let mem0Writes = 0;
  let failAfter = opts.mem0FailAfter;
  let storedKey: string | null = null;
  let cancelRequested = false;
  const demo = roots.get(FAKE_DEFAULT_ROOT);
  const demoAssistant = demo?.agents.find((a) => a.name === "assistant");
  if (demoAssistant) {
    // An earlier test run of mem0 left the core entries and five archival ones on the server.
    const md = demoAssistant.memory.markdown;
    const archival =
      opts.mem0Archival !== undefined
        ? Array.from({ length: opts.mem0Archival }, (_, i) => ({ ts: new Date(now.getTime() - (opts.mem0Archival! - i) * 60_000), content: `mem0 条目 ${i + 1}` }))
        : md.archival.filter((e) => e.ts).slice(0, 5).map((e) => ({ ...e }));
    mem0Server.set("oryxos:assistant", { core: md.core.map((e) => ({ ...e })), archival });
  }

  const emit = (e: ChangeEvent) => {
    // Asynchronous, like an event from the shell.
    setTimeout(() => listeners.forEach((l) => l(e)), 0);
  };

  const effectiveRoot = () => settings.root ?? FAKE_DEFAULT_ROOT;
  const effectiveDb = () => settings.db_path ?? `${effectiveRoot()}/oryxos.db`;
  const fail = (code: BackendError["code"], message: string): never => {
    throw new BackendError(code, message);
  };
  const root = (): FakeRoot => {
    const r = roots.get(effectiveRoot());
    if (!r) return fail("io", `${effectiveRoot()}/agents: No such file or directory (os error 2)`);
    return r;
  };
  const memStore = (): Store => settings.backend;
  type Mem0Cfg = { url: string; user: string };
  const mem0Cfg = (s: SettingsDto): Mem0Cfg => {
    const url = s.mem0_base_url?.trim().replace(/\/+$/, "") ?? "";
    if (!url) fail("invalid_input", "the mem0 backend needs a base URL: set it in Settings, with --mem0-url or MEM0_BASE_URL");
    return { url, user: s.mem0_user_id.trim() };
  };
  const mem0Reach = (c: Mem0Cfg, action: string) => {
    if (c.url !== FAKE_MEM0_URL || mem0Down) fail("backend_unavailable", `mem0 at ${c.url} is unreachable (${action}): Connection refused (os error 111)`);
  };
  const mem0Memory = (c: Mem0Cfg, agent: string | null): FakeMemory => {
    mem0Reach(c, "list memories");
    const user = agent === null ? c.user : `${c.user}:${agent}`;
    let m = mem0Server.get(user);
    if (!m) mem0Server.set(user, (m = { core: [], archival: [] }));
    return m;
  };
  /** The entries of one store for an owner (agent names are checked against the root). */
  const memoryIn = (store: Store, agent: string | null): FakeMemory => {
    if (store === "mem0") {
      if (agent !== null) findAgent(agent);
      return mem0Memory(mem0Cfg(settings), agent);
    }
    return agent === null ? root().global[store] : findAgent(agent).memory[store];
  };
  /** What a listing returns: mem0 answers at most one page, core and archival together. */
  const listed = (store: Store, m: FakeMemory): { core: FakeEntry[]; archival: FakeEntry[]; full: boolean } => {
    if (store !== "mem0") return { core: m.core, archival: m.archival, full: false };
    const core = m.core.slice(0, MEM0_LOAD_LIMIT);
    const archival = m.archival.slice(0, MEM0_LOAD_LIMIT - core.length);
    return { core, archival, full: m.core.length + m.archival.length >= MEM0_LOAD_LIMIT };
  };
  const findAgent = (name: string): FakeAgent => {
    if (!NAME_RE.test(name)) fail("invalid_agent_name", `invalid agent name ${JSON.stringify(name)}: use letters, digits, _ and - (at most 64)`);
    const a = root().agents.find((x) => x.name === name);
    if (!a) return fail("agent_not_found", `agent ${JSON.stringify(name)} not found under ${effectiveRoot()}/agents`);
    return a;
  };
  const memoryOf = (agent: string | null): FakeMemory => memoryIn(memStore(), agent);
  const toEntry = (e: { ts: Date | null; content: string }): EntryDto => {
    const timestamp = e.ts ? formatTs(e.ts) : null;
    // mem0 items are shown as their raw text, as the runtime shows them.
    return { timestamp, content: e.content, line: memStore() === "mem0" ? e.content : renderLine(timestamp, e.content) };
  };
  const counts = (agent: string | null): MemoryCounts => {
    let m: FakeMemory;
    try {
      m = memoryOf(agent);
    } catch (e) {
      // As the console: the agent still lists, its counts carry the error.
      return { core: 0, archival: 0, bytes: null, error: e instanceof Error ? e.message : String(e) };
    }
    const l = listed(memStore(), m);
    const lines = [CORE_HEADING, ...l.core.map((e) => toEntry(e).line), ARCHIVAL_HEADING, ...l.archival.map((e) => toEntry(e).line)];
    return {
      core: l.core.length,
      archival: l.archival.length,
      bytes: settings.backend === "markdown" && (m.core.length || m.archival.length) ? new TextEncoder().encode(lines.join("\n") + "\n").length : null,
      error: null,
    };
  };
  const lastActivity = (r: FakeRoot, a: FakeAgent): string | null => {
    const times = r.sessions.filter((s) => s.agent === a.name).map((s) => s.last_active_at.getTime());
    const m = a.memory.markdown;
    const last = [...m.core, ...m.archival].reduce((t, e) => Math.max(t, e.ts?.getTime() ?? 0), 0);
    if (last) times.push(last);
    return times.length ? formatTs(new Date(Math.max(...times))) : null;
  };
  const summaryOf = (r: FakeRoot, a: FakeAgent): AgentSummary => ({
    name: a.name,
    description: a.detail.description,
    provider: a.detail.provider,
    model: a.detail.model,
    tools: a.detail.tools,
    skills: a.skills.map((s) => s.name),
    memory: counts(a.name),
    last_activity: lastActivity(r, a),
    has_agent_md: a.hasAgentMd,
    warnings: a.warnings,
  });
  const sessionSummary = (s: FakeSession): SessionSummaryDto => ({
    session_id: s.session_id,
    agent: s.agent,
    channel: s.channel,
    user_id: s.user_id,
    status: s.status,
    created_at: formatTs(s.created_at),
    last_active_at: formatTs(s.last_active_at),
    archived_at: s.archived_at ? formatTs(s.archived_at) : null,
    message_count: s.messages ? s.messages.length : null,
    error: s.error,
    message_match: null,
  });
  const view = (agent: string | null): MemoryViewDto => {
    const l = listed(memStore(), memoryOf(agent));
    const core = l.core.map(toEntry);
    const arch = l.archival.map(toEntry);
    const limit = settings.archival_limit_chars;
    const w = computeWindow(
      arch.map((e) => e.line),
      limit,
    );
    const outside = arch.slice(0, w.firstInWindow);
    const context = `${CORE_HEADING}\n${core.map((e) => e.line).join("\n")}\n${ARCHIVAL_HEADING}\n${w.text}`;
    const store = memStore();
    return {
      agent,
      backend: store,
      source:
        store === "markdown"
          ? `${effectiveRoot()}/${agent === null ? "memory" : `agents/${agent}`}/MEMORY.md`
          : store === "sqlite"
            ? `${effectiveDb()} (memory_entries, agent_name = ${agent ?? GLOBAL})`
            : mem0Cfg(settings).url,
      core,
      archival: arch.map((e, i) => ({ ...e, in_window: i >= w.firstInWindow })),
      window: {
        limit_chars: limit,
        first_in_window: w.firstInWindow,
        in_window_entries: arch.length - outside.length,
        in_window_chars: charCount(w.text),
        outside_entries: outside.length,
        outside_chars: outside.reduce((n, e) => n + charCount(e.line), 0),
        newest_cut: w.newestCut,
      },
      context,
      possibly_more: l.full,
    };
  };
  /** The view of one owner, kept while its entries and the settings it depends on stay the same
   * (entries are only ever added), as the console caches a parsed MEMORY.md between pages. */
  const viewMemo = new WeakMap<FakeMemory, { key: string; view: MemoryViewDto }>();
  const cachedView = (agent: string | null): MemoryViewDto => {
    const m = memoryOf(agent);
    const key = [memStore(), agent, settings.archival_limit_chars, effectiveRoot(), effectiveDb(), m.core.length, m.archival.length].join("|");
    const hit = viewMemo.get(m);
    if (hit && hit.key === key) return hit.view;
    const v = view(agent);
    viewMemo.set(m, { key, view: v });
    return v;
  };
  /** Writes one entry; sqlite and mem0 keep time order, MEMORY.md appends at the end. */
  const appendTo = (store: Store, agent: string | null, scope: "core" | "archival", e: FakeEntry) => {
    if (store === "mem0") {
      const c = mem0Cfg(settings);
      mem0Reach(c, "add a memory");
      if (failAfter !== undefined && mem0Writes >= failAfter) {
        // The server goes down once; setMem0Down(false) brings it back for good.
        failAfter = undefined;
        mem0Down = true;
        mem0Reach(c, "add a memory");
      }
      mem0Writes++;
    }
    const m = memoryIn(store, agent);
    const list = scope === "core" ? m.core : m.archival;
    if (store === "markdown" || !e.ts) list.push(e);
    else {
      const t = e.ts.getTime();
      let i = list.length;
      while (i > 0 && (list[i - 1]!.ts?.getTime() ?? 0) > t) i--;
      list.splice(i, 0, e);
    }
  };
  /** What a migration reads: every entry of the owner as the store lists them (mem0: one page). */
  const loadForMigration = (store: Store, agent: string | null): Scoped[] => {
    const l = listed(store, memoryIn(store, agent));
    return [...l.core.map((e) => ({ scope: "core" as const, e })), ...l.archival.map((e) => ({ scope: "archival" as const, e }))];
  };
  const inspect = (path: string, dbPath: string | null): RootInspection => {
    const p = path.trim().replace(/\/+$/, "") || "/";
    const r = roots.get(p);
    const db = dbPath?.trim() || `${p}/oryxos.db`;
    const isDir = !!r || PLAIN_DIRS.has(p);
    const warnings: string[] = [];
    if (!isDir) warnings.push("folder does not exist");
    else if (!r) warnings.push("no agents/ folder: this does not look like a .oryxos root");
    return {
      path: p,
      exists: isDir,
      is_dir: isDir,
      agents: r ? r.agents.map((a) => a.name).sort() : [],
      memory_files: r ? r.agents.filter((a) => a.memory.markdown.core.length + a.memory.markdown.archival.length > 0).length + (r.global.markdown.core.length ? 1 : 0) : 0,
      has_global_memory: !!r && r.global.markdown.core.length + r.global.markdown.archival.length > 0,
      bootstrap_files: r ? ["USER.md", "AGENTS.md", "SOUL.md"].filter((f) => f in r.files) : [],
      db_path: db,
      db_exists: !!r && r.hasDb && db === `${p}/oryxos.db`,
      warnings,
    };
  };
  const absolute = (p: string, what: string) => {
    const t = p.trim();
    if (!t) fail("invalid_input", `the ${what} must not be empty`);
    if (!t.startsWith("/") && !/^[A-Za-z]:[\\/]/.test(t)) fail("invalid_input", `the ${what} must be an absolute path, got ${t}`);
    return t.replace(/\/+$/, "") || "/";
  };
  const historyText = (messages: MessageDto[], maxTurns: number) => {
    if (maxTurns <= 0) return { text: "", turns: 0, count: 0 };
    const starts = messages.flatMap((m, i) => (m.role === "user" ? [i] : []));
    const from = starts.length > maxTurns ? starts[starts.length - maxTurns]! : 0;
    const kept = messages.slice(from);
    const text = kept
      .map((m) => {
        const role = m.role === "tool" && m.tool_name ? `tool(${m.tool_name})` : m.role;
        const callLines = m.tool_calls.map((c) => `\n  → ${c.name}(${c.arguments_json ?? ""})`).join("");
        return `${role}: ${m.content ?? ""}${callLines}`;
      })
      .join("\n");
    return { text, turns: Math.min(starts.length, maxTurns), count: kept.length };
  };

  const validateMem0 = (s: SettingsDto) => {
    const url = s.mem0_base_url?.trim();
    if (url && !/^https?:\/\//.test(url)) fail("invalid_input", `mem0 base URL must start with http:// or https://, got ${JSON.stringify(s.mem0_base_url)}`);
    if (!s.mem0_user_id.trim()) fail("invalid_input", "mem0 user id must not be empty");
    if (!(s.mem0_timeout_ms > 0)) fail("invalid_input", "mem0 timeout must be positive");
  };
  /** A typed key replaces the stored one; an empty field keeps it while mem0_api_key_set says so. */
  const keyOf = (s: SettingsDto): string | null => s.mem0_api_key?.trim() || (s.mem0_api_key_set ? storedKey : null);

  const impl: Omit<FakeBackend, "emit" | "calls" | "kind" | "supportsFolderPicker" | "supportsMigrationProgress" | "onChange" | "setMem0Down" | "entriesIn"> = {
    async listAgents() {
      const r = root();
      return {
        root: r.path,
        backend: memStore(),
        agents: r.agents.map((a) => summaryOf(r, a)).sort((a, b) => a.name.localeCompare(b.name)),
        global_memory: counts(null),
      };
    },
    async getAgent(name): Promise<AgentDetail> {
      const r = root();
      const a = findAgent(name);
      const { description: _d, provider: _p, model: _m, tools: _t, ...detail } = a.detail;
      return { ...detail, summary: summaryOf(r, a), skills: a.skills, dir: `${r.path}/agents/${a.name}` };
    },
    async memoryView(agent) {
      return view(agent);
    },
    async memoryOverview(agent) {
      const { archival, ...rest } = cachedView(agent);
      return { ...rest, archival_total: archival.length };
    },
    async archivalPage(q) {
      if (!Number.isInteger(q.limit) || q.limit < 1 || q.limit > ARCHIVAL_PAGE_MAX) fail("invalid_input", `limit must be between 1 and ${ARCHIVAL_PAGE_MAX}, got ${q.limit}`);
      const v = cachedView(q.agent);
      const all = v.archival;
      const first = v.window.first_in_window;
      const keyword = q.keyword?.trim() ?? "";
      let matches: number[] | null = null;
      if (keyword) {
        matches = [];
        for (let i = 0; i < all.length; i++) if (matchesKeyword(all[i]!.content, keyword)) matches.push(i);
      }
      const total = matches ? matches.length : all.length;
      const outside = matches ? matches.filter((i) => i < first).length : Math.min(first, all.length);
      const start = Math.min(q.offset, total);
      const end = Math.min(start + q.limit, total);
      const items = [];
      for (let pos = start; pos < end; pos++) {
        const p = q.newest_first ? total - 1 - pos : pos;
        const index = matches ? matches[p]! : p;
        const e = all[index]!;
        items.push({ index, timestamp: e.timestamp, content: e.content, chars: charCount(e.line), in_window: e.in_window });
      }
      return {
        agent: q.agent,
        total,
        offset: q.offset,
        newest_first: q.newest_first,
        keyword: keyword || null,
        cut_at: outside > 0 && outside < total ? (q.newest_first ? total - outside : outside) : null,
        items,
      };
    },
    async appendMemory(req) {
      const content = sanitizeContent(req.content);
      if (!content) fail("invalid_input", "memory content is empty after removing whitespace");
      clock += 1000;
      const e = { ts: new Date(clock), content };
      appendTo(memStore(), req.agent, req.scope, e);
      emit({ kind: "memory", agent: req.agent });
      return { agent: req.agent, scope: req.scope, entry: toEntry(e) };
    },
    async recallMemory(agent, keyword) {
      const hits = memoryOf(agent)
        .archival.filter((e) => matchesKeyword(e.content, keyword))
        .map(toEntry);
      return { agent, keyword, entries: hits, text: hits.length ? hits.map((e) => e.line).join("\n") : "没有找到相关记忆" };
    },
    async previewEntry(content) {
      const clean = sanitizeContent(content);
      if (!clean) fail("invalid_input", "memory content is empty after removing whitespace");
      return { content: clean, line: renderLine(formatTs(new Date(clock)), clean), changed: clean !== content };
    },
    async listSessions(q) {
      if (q.agent !== null && !NAME_RE.test(q.agent)) fail("invalid_agent_name", `invalid agent name ${JSON.stringify(q.agent)}`);
      const limit = q.limit ?? 50;
      if (limit < 1 || limit > 500) fail("invalid_input", `limit must be between 1 and 500, got ${limit}`);
      const offset = q.offset ?? 0;
      const r = root();
      const search = q.search?.trim().toLowerCase() ?? "";
      const all = r.sessions
        .filter((s) => (q.agent === null || s.agent === q.agent) && (q.status === null || s.status === q.status))
        .filter((s) => !q.channel || s.channel === q.channel)
        .filter((s) => !search || s.session_id.toLowerCase().includes(search) || (s.messages ?? []).some((m) => (m.content ?? "").toLowerCase().includes(search)))
        .sort((a, b) => b.last_active_at.getTime() - a.last_active_at.getTime());
      return {
        total: all.length,
        offset,
        limit,
        items: all.slice(offset, offset + limit).map(sessionSummary),
        db_path: effectiveDb(),
        db_exists: r.hasDb,
      };
    },
    async getSession(id) {
      const s = root().sessions.find((x) => x.session_id === id);
      if (!s) return fail("session_not_found", `session ${JSON.stringify(id)} not found`);
      const messages = s.messages ?? [];
      return { summary: sessionSummary(s), messages, turns: messages.filter((m) => m.role === "user").length };
    },
    async toolInvocations(sessionId, limit, offset) {
      const rows = root()
        .invocations.filter((t) => sessionId === null || t.session_id === sessionId)
        .sort((a, b) => (b.id ?? 0) - (a.id ?? 0));
      const l = Math.min(Math.max(limit ?? 100, 1), 500);
      return rows.slice(offset ?? 0, (offset ?? 0) + l);
    },
    async promptPreview(agent, sessionId): Promise<PromptDto> {
      const r = root();
      const a = findAgent(agent);
      const warnings: string[] = [];
      const loaded: string[] = [];
      let system = "";
      if (a.detail.identity_prompt) system += a.detail.identity_prompt + "\n";
      if (a.detail.body.trim()) system += a.detail.body.trim() + "\n";
      const skills = a.skills.filter((s) => s.warnings.length === 0).sort((x, y) => x.name.localeCompare(y.name));
      if (skills.length) {
        system += "你可以按需使用以下 Skill。仅在当前任务需要时，用 read_file 读取给出的 SKILL.md：\n";
        for (const s of skills) system += `- ${s.name}：${s.description ?? ""}\n  SKILL.md：${r.path}/skills/${s.name}/SKILL.md\n`;
      }
      for (const b of a.detail.bootstrap) {
        const f = r.files[b];
        if (f === undefined) warnings.push(`bootstrap file ${b} does not exist; the runtime skips it`);
        else {
          system += f + "\n";
          loaded.push(b);
        }
      }
      system += `当前日期时间：${formatTs(new Date(clock)).slice(0, 16)}\n`;
      let history = { text: "", turns: 0, count: 0 };
      if (sessionId !== null) {
        const s = r.sessions.find((x) => x.session_id === sessionId);
        if (!s) fail("session_not_found", `session ${JSON.stringify(sessionId)} not found`);
        if (s!.error) warnings.push(s!.error);
        history = historyText(s!.messages ?? [], a.detail.max_history_turns);
      }
      const schema = (props: [string, string][]) => ({
        type: "object",
        properties: Object.fromEntries(props.map(([k, d]) => [k, { type: "string", description: d }])),
        required: [props[0]![0]],
      });
      const tools = a.detail.tools.map((name) =>
        name === "save_memory"
          ? { name, description: "记住一件值得长期记住的事", parameters: schema([["content", "要记住的内容"], ["scope", "core（核心，每次都注入）或 archival（归档，默认）"]]) }
          : name === "recall_memory"
            ? { name, description: "按关键词检索长期记忆", parameters: schema([["keyword", "检索关键词"]]) }
            : { name, description: "(registered in the runtime; schema not known to the console)" },
      );
      const texts: [PromptDto["parts"][number]["kind"], string][] = [
        ["system", system],
        ["memory", view(agent).context],
        ["history", history.text],
        ["tools", JSON.stringify(tools, null, 2)],
      ];
      const parts = texts.map(([kind, text], i) => ({ index: i + 1, kind, text, chars: charCount(text), tokens_estimate: estimateTokens(text) }));
      return {
        agent,
        session_id: sessionId,
        parts,
        total_chars: parts.reduce((n, p) => n + p.chars, 0),
        total_tokens_estimate: parts.reduce((n, p) => n + p.tokens_estimate, 0),
        history_turns: history.turns,
        history_messages: history.count,
        max_history_turns: a.detail.max_history_turns,
        bootstrap_loaded: loaded,
        warnings,
      };
    },
    async bootstrapFiles() {
      const r = root();
      const names = ["USER.md", "AGENTS.md", "SOUL.md"];
      for (const a of r.agents) for (const b of a.detail.bootstrap) if (!names.includes(b)) names.push(b);
      return names.map((name) => ({ name, exists: name in r.files, content: r.files[name] ?? "" }));
    },
    async getSettings(): Promise<SettingsView> {
      return currentView();
    },
    async updateSettings(s) {
      if (s.archival_limit_chars < 100 || s.archival_limit_chars > 1_000_000)
        fail("invalid_input", `archival window must be between 100 and 1000000 characters, got ${s.archival_limit_chars}`);
      const rootPath = s.root?.trim() ? absolute(s.root, ".oryxos root") : null;
      if (rootPath && !roots.has(rootPath) && !PLAIN_DIRS.has(rootPath))
        fail("invalid_input", `${rootPath} is not a folder; pick an existing .oryxos root or create the sample root`);
      if (s.db_path?.trim()) absolute(s.db_path, "database path");
      validateMem0(s);
      storedKey = keyOf(s);
      notice = null;
      settings = {
        ...s,
        root: rootPath,
        db_path: s.db_path?.trim() || null,
        mem0_base_url: s.mem0_base_url?.trim() || null,
        mem0_user_id: s.mem0_user_id.trim(),
        mem0_api_key: null,
        mem0_api_key_set: storedKey !== null,
      };
      emit({ kind: "settings", agent: null });
      return currentView();
    },
    async testMem0(s): Promise<Mem0Status> {
      validateMem0(s);
      const c = mem0Cfg(s);
      try {
        mem0Reach(c, "list memories");
      } catch (e) {
        return { base_url: c.url, ok: false, global_entries: null, message: e instanceof Error ? e.message : String(e) };
      }
      const n = listed("mem0", mem0Memory(c, null));
      const total = n.core.length + n.archival.length;
      return { base_url: c.url, ok: true, global_entries: total, message: `connected; the global memory holds ${total} entries` };
    },
    async migrate(req, onProgress): Promise<MigrationReport> {
      // As crates/oryx-core migrate.rs: the same matching, counting, progress and cancel rules.
      cancelRequested = false;
      const r = root();
      for (const b of [req.from, req.to]) if (b === "mem0") mem0Cfg(settings);
      if (req.from === req.to) fail("invalid_input", "choose two different backends to copy between");
      const owners: (string | null)[] =
        req.agent !== null ? [findAgent(req.agent).name] : [...r.agents.map((a) => a.name).filter((n) => NAME_RE.test(n)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)), null];
      const plans = owners.map((owner) => {
        try {
          return { owner, source: loadForMigration(req.from, owner), target: loadForMigration(req.to, owner), error: null };
        } catch (e) {
          return { owner, source: [], target: [], error: e instanceof Error ? e.message : String(e) };
        }
      });
      const total = plans.reduce((n, p) => n + (p.error ? 0 : p.source.length), 0);
      const report: MigrationReport = { from: req.from, to: req.to, dry_run: req.dry_run, cancelled: false, owners: [], total: zeroCounts("total") };
      const delay = req.dry_run ? 0 : (opts.migrateDelayMs ?? 0);
      // Over REST nothing streams: the answer comes at the end.
      const progress = opts.migrationProgress === false ? () => {} : onProgress;
      let done = 0;
      for (const p of plans) {
        const c = zeroCounts(p.owner ?? "global");
        if (p.error) c.error = p.error;
        else {
          c.found = p.source.length;
          c.target_before = p.target.length;
          const present = presentOf(p.target);
          let lastTs: Date | null = null;
          for (const { scope, e } of p.source) {
            if (delay > 0) await sleep(delay);
            else if (done % 25 === 0) await sleep(0);
            if (cancelRequested) {
              report.cancelled = true;
              break;
            }
            const at: Date | null = e.ts ?? lastTs;
            lastTs = at ?? lastTs;
            if (present.take(scope, e)) c.skipped++;
            else if (req.dry_run) c.copied++;
            else {
              try {
                appendTo(req.to, p.owner, scope, { ts: at ? new Date(at.getTime()) : null, content: e.content });
                c.copied++;
              } catch (err) {
                c.failed++;
                c.error ??= err instanceof Error ? err.message : String(err);
                // The target is failing: the rest of this owner is not tried.
                c.failed += p.source.length - (c.copied + c.skipped + c.failed);
                done++;
                break;
              }
            }
            done++;
            progress({ owner: c.owner, done, total });
          }
        }
        report.owners.push(c);
        if (report.cancelled) break;
      }
      for (const c of report.owners) {
        report.total.found += c.found;
        report.total.target_before += c.target_before;
        report.total.copied += c.copied;
        report.total.skipped += c.skipped;
        report.total.failed += c.failed;
      }
      if (!req.dry_run) emit({ kind: "memory", agent: null });
      return report;
    },
    async cancelMigration() {
      if (opts.migrationProgress === false) fail("invalid_input", "a migration over REST cannot be cancelled: it runs to the end (what is copied stays copied)");
      cancelRequested = true;
    },
    async inspectRoot(path, dbPath) {
      return inspect(absolute(path, "root"), dbPath);
    },
    async createSampleRoot(path) {
      const p = absolute(path, "sample root");
      if (roots.has(p) || (PLAIN_DIRS.has(p) && p !== FAKE_DEFAULT_ROOT)) fail("invalid_input", `${p} is not empty; choose a new folder for the sample root`);
      roots.set(p, buildDemoRoot(p, { now: new Date(clock) }));
      return inspect(p, null);
    },
    async pickFolder() {
      return opts.folderPicker ? FAKE_TEAM_ROOT : null;
    },
  };

  function currentView(): SettingsView {
    const r = effectiveRoot();
    return {
      settings: { ...settings },
      effective: {
        root: r,
        db_path: effectiveDb(),
        backend: settings.backend,
        settings_path: `${FAKE_HOME}/.config/oryxos-console/settings.json`,
        overridden_by: opts.overriddenBy ?? [],
        first_run: settings.root === null && !roots.has(r),
        notice,
        root_problem: opts.rootProblem ?? null,
      },
    };
  }

  const latency = opts.latencyMs ?? 0;
  const wrapped = Object.fromEntries(
    Object.entries(impl).map(([method, fn]) => [
      method,
      async (...args: unknown[]) => {
        calls.push({ method, args });
        if (latency > 0) await new Promise((res) => setTimeout(res, latency));
        // A structured clone: callers must not be able to mutate the fake's state.
        return structuredClone(await (fn as (...a: unknown[]) => Promise<unknown>)(...args));
      },
    ]),
  ) as unknown as typeof impl;

  return {
    ...wrapped,
    kind: "fake",
    supportsFolderPicker: !!opts.folderPicker,
    supportsMigrationProgress: opts.migrationProgress ?? true,
    calls,
    emit,
    setMem0Down(down) {
      mem0Down = down;
    },
    entriesIn(store, agent) {
      const m = store === "mem0" ? (mem0Server.get(agent === null ? settings.mem0_user_id : `${settings.mem0_user_id}:${agent}`) ?? { core: [], archival: [] }) : memoryIn(store, agent);
      return { core: m.core.length, archival: m.archival.length };
    },
    onChange(cb) {
      listeners.add(cb);
      return () => listeners.delete(cb);
    },
  };
}

/** Options from the page URL: `?backend=fake&lang=zh&theme=dark&first=1&rows=100000&latency=600&limit=4000&db=sqlite`,
 * and for mem0: `db=mem0`, `mem0=1` (stored URL = the fake server), `mem0down=1`, `mem0fail=N`,
 * `mem0rows=N`, `migrate_delay=ms` (default 10), `rest=1` (migration without progress or cancel, as before `oryx serve` had them). */
export function fakeOptionsFromSearch(search: string): FakeOptions {
  const q = new URLSearchParams(search);
  const lang = q.get("lang");
  const theme = q.get("theme");
  const db = q.get("db");
  const num = (k: string) => {
    const v = Number(q.get(k));
    return q.has(k) && Number.isFinite(v) ? v : undefined;
  };
  return {
    language: lang === "zh" || lang === "en" ? lang : undefined,
    theme: theme === "light" || theme === "dark" ? theme : undefined,
    backend: db === "sqlite" || db === "mem0" ? db : undefined,
    firstRun: q.get("first") === "1",
    assistantArchival: num("rows"),
    latencyMs: num("latency"),
    archivalLimit: num("limit"),
    overriddenBy: q.get("override")?.split(",").filter(Boolean),
    notice: q.get("notice") ?? undefined,
    rootProblem: q.get("rootproblem") ?? undefined,
    folderPicker: true,
    mem0Url: q.get("mem0") === "1" || db === "mem0" ? FAKE_MEM0_URL : undefined,
    mem0Down: q.get("mem0down") === "1",
    mem0FailAfter: num("mem0fail"),
    mem0Archival: num("mem0rows"),
    migrateDelayMs: num("migrate_delay") ?? 10,
    migrationProgress: q.get("rest") !== "1",
  };
}
