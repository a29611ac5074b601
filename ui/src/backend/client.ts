// The one generic client: every console operation is `invoke(op, args)` over a transport (Tauri
// IPC or POST /api/v1/console/<op>). Operation names, arguments and results come from the Rust
// registry (crates/oryx-api/src/ops.rs) through the generated `Operations` type.
import type { Operations_Deserialize, Operations_Serialize } from "../bindings";
import type { Backend } from "./backend";

export type OpName = keyof Operations_Serialize;
/** What Rust accepts (optional fields may be left out). */
export type OpArgs<K extends OpName> = Operations_Deserialize[K]["args"];
/** What Rust sends (every field present). */
export type OpResult<K extends OpName> = Operations_Serialize[K]["result"];

/** Sends one operation and resolves with its result; rejects with a BackendError. */
export type Invoke = <K extends OpName>(op: K, args: OpArgs<K>) => Promise<OpResult<K>>;

/** The Backend methods that are plain operations (migration, the folder picker, change events and
 * an archive's bytes depend on the transport). */
export type OperationMethods = Omit<
  Backend,
  "kind" | "call" | "supportsFolderPicker" | "supportsMigrationProgress" | "migrate" | "cancelMigration" | "pickFolder" | "onChange" | "saveExport" | "chooseArchive" | "remote"
>;

export function operationMethods(invoke: Invoke): OperationMethods {
  return {
    listAgents: () => invoke("list_agents", {}),
    getAgent: (name) => invoke("get_agent", { name }),
    memoryView: (agent) => invoke("memory_view", { agent }),
    memoryOverview: (agent) => invoke("memory_overview", { agent }),
    archivalPage: (q) => invoke("archival_page", q),
    appendMemory: (req) => invoke("append_memory", req),
    editEntry: (agent, id, expect, content, restamp) => invoke("edit_entry", { agent, id, expect, content, restamp }),
    deleteEntries: (agent, entries) => invoke("delete_entries", { agent, entries }),
    moveEntries: (agent, entries, to) => invoke("move_entries", { agent, entries, to }),
    selectionImpact: (agent, ids, action) => invoke("selection_impact", { agent, ids, action }),
    memoryHistory: (agent, limit) => invoke("memory_history", { agent, limit }),
    // Without a change id the console takes back the last change: the argument is left out.
    undoChange: (agent, changeId) => invoke("undo_change", changeId ? { agent, change_id: changeId } : { agent }),
    redoChange: (agent) => invoke("redo_change", { agent }),
    restoreEntry: (agent, changeId, entryId) => invoke("restore_entry", { agent, change_id: changeId, entry_id: entryId }),
    reviewStatus: (agent) => invoke("review_status", { agent }),
    markReviewed: (agent) => invoke("mark_reviewed", { agent }),
    memoryHealth: (args) => invoke("memory_health", args),
    dismissFinding: (agent, check, entryIds) => invoke("dismiss_finding", { agent, check, entry_ids: entryIds }),
    memoryStats: (agent) => invoke("memory_stats", { agent }),
    memoryAsOf: (agent, at) => invoke("memory_asof", { agent, at }),
    memoryDiff: (agent, from, to) => invoke("memory_diff", { agent, from, to }),
    entryProvenance: (agent, id) => invoke("entry_provenance", { agent, id }),
    sessionMemoryLinks: (sessionId) => invoke("session_memory_links", { id: sessionId }),
    agentsHealth: () => invoke("agents_health", {}),
    // Without a count the console uses its default: the argument is left out.
    sessionsPerDay: (days) => invoke("sessions_per_day", days ? { days } : {}),
    promptComposition: (agent, limit) => invoke("prompt_composition", limit ? { agent, limit } : { agent }),
    // The rules' proposal leaves `llm` out (the console's default), as recorded.
    proposeSummary: (agent, llm) => invoke("propose_summary", llm ? { agent, llm: true } : { agent }),
    applySummary: (agent, content, covered, removeOriginals) => invoke("apply_summary", { agent, content, covered, remove_originals: removeOriginals }),
    // Without a mode the console uses the configured one: the argument is left out, not null.
    recallMemory: (agent, keyword, mode) => invoke("recall_memory", mode ? { agent, keyword, mode } : { agent, keyword }),
    indexStatus: () => invoke("index_status", {}),
    buildIndex: (agent) => invoke("build_index", { agent }),
    cancelIndexBuild: () => invoke("cancel_index_build", {}),
    indexBuild: () => invoke("index_build", {}),
    clearIndex: () => invoke("clear_index", {}),
    episodicSearch: (agent, query, limit) => invoke("episodic_search", limit ? { agent, query, limit } : { agent, query }),
    searchEverywhere: (query, limit) => invoke("search_everywhere", limit ? { query, limit } : { query }),
    previewEntry: (content) => invoke("preview_entry", { content }),
    listSessions: (q) => invoke("list_sessions", q),
    getSession: (id) => invoke("get_session", { id }),
    toolInvocations: (sessionId, limit, offset) => invoke("tool_invocations", { session_id: sessionId, limit, offset }),
    // Without a query the console matches the session's last user message: the argument is left out.
    promptPreview: (agent, sessionId, query) => invoke("prompt_preview", query ? { agent, session_id: sessionId, query } : { agent, session_id: sessionId }),
    promptReplay: (agent, sessionId, asof, messageIndex) => invoke("prompt_preview", { agent, session_id: sessionId, asof, message_index: messageIndex }),
    bootstrapFiles: () => invoke("bootstrap_files", {}),
    saveBootstrapFile: (name, text, version) => invoke("save_bootstrap_file", { name, text, version }),
    createAgent: (args) => invoke("create_agent", args),
    agentFile: (name) => invoke("agent_file", { name }),
    validateAgentFile: (name, text) => invoke("validate_agent_file", { name, text }),
    saveAgentFile: (name, text, version) => invoke("save_agent_file", { name, text, version }),
    setAgentKey: (name, key, value, version) => invoke("set_agent_key", { name, key, value, version }),
    rootSkills: () => invoke("root_skills", {}),
    setAgentSkills: (name, add, remove) => invoke("set_agent_skills", { name, add, remove }),
    archiveAgent: (name) => invoke("archive_agent", { name }),
    listArchived: () => invoke("list_archived", {}),
    // Without another name the agent comes back under its own: the argument is left out.
    restoreAgent: (archivedName, asName) => invoke("restore_agent", asName ? { archived_name: archivedName, as_name: asName } : { archived_name: archivedName }),
    archivedRemoval: (archivedName) => invoke("archived_removal", { archived_name: archivedName }),
    deleteArchived: (archivedName, expectFiles) => invoke("delete_archived", { archived_name: archivedName, expect_count: expectFiles }),
    getSettings: () => invoke("get_settings", {}),
    updateSettings: (s) => invoke("update_settings", s),
    inspectRoot: (path, dbPath) => invoke("inspect_root", { path, db_path: dbPath }),
    createSampleRoot: (path) => invoke("create_sample_root", { path }),
    testMem0: (s) => invoke("test_mem0", s),
    startExport: (req) => invoke("start_export", req),
    startImport: (req) => invoke("start_import", req),
    transferStatus: (id) => invoke("transfer_status", { id }),
    cancelTransfer: (id) => invoke("cancel_transfer", { id }),
  };
}
