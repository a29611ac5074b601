import type { Invoke } from "./client";
import type {
  AgentDetail,
  AgentFileDto,
  AgentList,
  AppendRequest,
  AppendResult,
  ArchivalPageDto,
  ArchivalPageQuery,
  ArchivedDto,
  AsOfDto,
  BootstrapFileDto,
  ChangeDto,
  CreateAgentArgs,
  EntryRef,
  EpisodicResultDto,
  ErrorCode,
  FieldErrorDto,
  HealthArgs,
  HealthDto,
  HistoryDto,
  ImpactDto,
  IndexJobDto,
  IndexStatusDto,
  Mem0Status,
  MemoryOverviewDto,
  MemoryStatsDto,
  MemoryDiffDto,
  MemoryLinkDto,
  AgentHealthDto,
  SessionDayDto,
  SessionPromptDto,
  MemoryViewDto,
  MigrateRequest,
  MigrationProgress,
  MigrationReport,
  PromptDto,
  ProvenanceDto,
  RecallModeDto,
  RecallResult,
  RemovalDto,
  ReviewDto,
  RootInspection,
  RootSkillDto,
  SanitizedPreview,
  SearchEverywhereDto,
  ScopeDto,
  SelectionActionDto,
  SessionDto,
  SessionPageDto,
  SessionQuery,
  SettingsDto,
  SettingsView,
  SummaryProposalDto,
  ToolInvocationDto,
  ExportRequest,
  ImportRequest,
  TransferDto,
  UploadDto,
  ConnectionDto,
  ConnectRequest,
  ServerProbeDto,
} from "./types";

/** memory: a MEMORY.md (agent = its agent, null = global or several); agents: an AGENT.md, skill or
 * bootstrap file; sessions: the database; settings: the settings (every view). */
export type ChangeKind = "memory" | "agents" | "sessions" | "settings";
export type ChangeEvent = { kind: ChangeKind; agent: string | null };
export type BackendKind = "tauri" | "http";

/** The UI's only door to data. Every method rejects with a BackendError. */
export interface Backend {
  readonly kind: BackendKind;
  /** Whether pickFolder can show a native dialog (false: the UI hides "Browse…"). */
  readonly supportsFolderPicker: boolean;
  /** Whether migrate reports progress and cancelMigration can stop it (both backends do: Tauri
   * over a Channel, REST over the /events stream; without it the UI shows an indeterminate bar
   * and no Cancel button). */
  readonly supportsMigrationProgress: boolean;
  /** Runs one console operation by name, as the registry declares it
   * (crates/oryx-api/src/ops.rs): its arguments and result are typed by the generated
   * `Operations`. Screens call it through useOp / useOpMutation (queries/ops.ts). */
  readonly call: Invoke;
  listAgents(): Promise<AgentList>;
  getAgent(name: string): Promise<AgentDetail>;
  /** Every entry at once (what `oryx memory show --json` prints); the memory screen pages instead. */
  memoryView(agent: string | null): Promise<MemoryViewDto>;
  /** The memory screen's header: core entries, the archival count, the window figures. */
  memoryOverview(agent: string | null): Promise<MemoryOverviewDto>;
  /** One page of the archival entries, in file order or newest first, optionally filtered by the
   * recall rule (`keyword`); items keep their file-order `index`. */
  archivalPage(q: ArchivalPageQuery): Promise<ArchivalPageDto>;
  appendMemory(req: AppendRequest): Promise<AppendResult>;
  /** Changes one entry's content (sanitised like an append); `expect` is the content the user
   * saw: the console refuses with `conflict` when the entry changed since. Time kept unless
   * `restamp`. */
  editEntry(agent: string | null, id: string, expect: string, content: string, restamp: boolean): Promise<ChangeDto>;
  /** Deletes entries as one change (one undo). */
  deleteEntries(agent: string | null, entries: EntryRef[]): Promise<ChangeDto>;
  /** Moves entries to core or archival as one change. */
  moveEntries(agent: string | null, entries: EntryRef[], to: ScopeDto): Promise<ChangeDto>;
  /** What deleting or moving the entries `ids` would do to the prompt (counted by the console). */
  selectionImpact(agent: string | null, ids: string[], action: SelectionActionDto): Promise<ImpactDto>;
  /** The console's changes to an owner's memory, newest first. */
  memoryHistory(agent: string | null, limit: number): Promise<HistoryDto>;
  /** Takes back `changeId` (absent: the last change not undone). */
  undoChange(agent: string | null, changeId?: string): Promise<ChangeDto>;
  /** Takes back the last undo. */
  redoChange(agent: string | null): Promise<ChangeDto>;
  /** Puts back entry `entryId` (a `before.id`) as change `changeId` had it before. */
  restoreEntry(agent: string | null, changeId: string, entryId: string): Promise<ChangeDto>;
  /** Entries new or changed since the owner was last marked reviewed. */
  reviewStatus(agent: string | null): Promise<ReviewDto>;
  markReviewed(agent: string | null): Promise<ReviewDto>;
  /** What a reviewer should not miss (secrets, personal data, duplicates, stale entries, the
   * budget); each finding names its entries and the curation operation that fixes it. */
  memoryHealth(args: HealthArgs): Promise<HealthDto>;
  /** Hides a finding until its entries change; answers the health again. */
  dismissFinding(agent: string | null, check: string, entryIds: string[]): Promise<HealthDto>;
  /** Entries per day by section, and how far back the archival window reaches. */
  memoryStats(agent: string | null): Promise<MemoryStatsDto>;
  /** The owner's memory as it stood at `at` (`yyyy-MM-dd[ HH:mm[:ss]]`, a day alone: its end), and entries added / removed / changed between two such moments. */
  memoryAsOf(agent: string | null, at: string): Promise<AsOfDto>;
  memoryDiff(agent: string | null, from: string, to: string): Promise<MemoryDiffDto>;
  /** Where entry `id` came from: the save_memory call or conversation turn that wrote it, the
   * console change that left it so (with where the text before came from), or nothing on record. */
  entryProvenance(agent: string | null, id: string): Promise<ProvenanceDto>;
  /** The entries a session's messages wrote (save_memory calls, footprints of its turns). */
  sessionMemoryLinks(sessionId: string): Promise<MemoryLinkDto[]>;
  /** Every agent's health at a glance (findings per check, counts, the window); an agent whose
   * memory could not be read has its `error` and the others are still checked. */
  agentsHealth(): Promise<AgentHealthDto[]>;
  /** Sessions per day and agent over the last `days` days (default 30). */
  sessionsPerDay(days?: number): Promise<SessionDayDto[]>;
  /** Characters of each prompt part for the agent's newest `limit` sessions (default 30), oldest first. */
  promptComposition(agent: string, limit?: number): Promise<SessionPromptDto[]>;
  /** One archival entry for the entries outside the window that no summary covers yet; null when
   * fewer than two are left. `llm`: written by the LLM summariser of Settings → Summaries (slow,
   * up to its timeout; rejects with backend_unavailable / timeout / invalid_input saying why). */
  proposeSummary(agent: string | null, llm?: boolean): Promise<SummaryProposalDto | null>;
  /** Appends the (edited) summary; with `removeOriginals` the covered entries go in the same
   * change (one undo). */
  applySummary(agent: string | null, content: string, covered: string[], removeOriginals: boolean): Promise<ChangeDto>;
  /** Recall as the agent's recall_memory tool does (the mode in Settings), or in `mode`. */
  recallMemory(agent: string | null, keyword: string, mode?: RecallModeDto): Promise<RecallResult>;
  /** The embedding model, the vector file, each owner's indexed entries and the build job. */
  indexStatus(): Promise<IndexStatusDto>;
  /** Starts indexing an owner (every owner with null) in the background; rejects with
   * `conflict` while a build runs. indexStatus follows it. */
  buildIndex(agent: string | null): Promise<IndexJobDto>;
  /** Asks the running build to stop after its current batch; false when none runs. */
  cancelIndexBuild(): Promise<boolean>;
  /** The build alone (running or the last one ended; null before any), cheap enough to poll:
   * indexStatus also counts every owner's entries. */
  indexBuild(): Promise<IndexJobDto | null>;
  /** Drops every vector of the current root; answers the status after. */
  clearIndex(): Promise<IndexStatusDto>;
  /** The messages of `agent`'s past sessions closest in meaning to `query` (episodic memory),
   * with the recall floor; `limit` defaults to the recall limit. Embeds new messages first. */
  episodicSearch(agent: string, query: string, limit?: number): Promise<EpisodicResultDto>;
  /** One question over every owner's memory and every agent's past sessions, by meaning, best
   * first per kind (`limit` each, default 10), with the floor applied; invalid_input without the
   * embedding model. */
  searchEverywhere(query: string, limit?: number): Promise<SearchEverywhereDto>;
  previewEntry(content: string): Promise<SanitizedPreview>;
  listSessions(q: SessionQuery): Promise<SessionPageDto>;
  getSession(id: string): Promise<SessionDto>;
  toolInvocations(sessionId: string | null, limit: number | null, offset: number | null): Promise<ToolInvocationDto[]>;
  /** The prompt as the agent receives it; `query` is the message the episodic part is chosen
   * for (absent: the session's last user message). */
  promptPreview(agent: string, sessionId: string | null, query?: string): Promise<PromptDto>;
  /** Prompt replay: the prompt as it was built at `asof` (`yyyy-MM-dd HH:mm:ss`: memory as it
   * stood then, the date line of then), with the session's history up to and including message
   * `messageIndex` (0-based); `asof_note` says what a replay cannot know. */
  promptReplay(agent: string, sessionId: string, asof: string, messageIndex: number): Promise<PromptDto>;
  bootstrapFiles(): Promise<BootstrapFileDto[]>;
  /** Writes a bootstrap file; `version` is the one it was read with (`conflict` when it changed since). */
  saveBootstrapFile(name: string, text: string, version: string | null): Promise<BootstrapFileDto>;
  /** Creates agents/<name>/AGENT.md (`invalid_agent_name`; `conflict` when the name is taken or
   * an archived agent has it — `reuse_archived_name` creates it anyway). */
  createAgent(args: CreateAgentArgs): Promise<AgentDetail>;
  /** An agent's AGENT.md text, its version and what is wrong with it. */
  agentFile(name: string): Promise<AgentFileDto>;
  /** What would be wrong with `text` as the agent's AGENT.md (nothing is written). */
  validateAgentFile(name: string, text: string): Promise<FieldErrorDto[]>;
  /** Writes the whole AGENT.md; `conflict` when the file changed since `version`. */
  saveAgentFile(name: string, text: string, version: string | null): Promise<AgentFileDto>;
  /** Sets one front matter key (dotted) to a YAML value (`null` removes it), keeping the rest of
   * the file byte for byte. */
  setAgentKey(name: string, key: string, value: string, version: string | null): Promise<AgentFileDto>;
  /** The skills under the root's skills/ folder. */
  rootSkills(): Promise<RootSkillDto[]>;
  setAgentSkills(name: string, add: string[], remove: string[]): Promise<AgentDetail>;
  archiveAgent(name: string): Promise<ArchivedDto>;
  listArchived(): Promise<ArchivedDto[]>;
  /** `conflict` when the name is taken: restore under `asName`. */
  restoreAgent(archivedName: string, asName?: string): Promise<AgentDetail>;
  /** What deleting an archived agent would remove. */
  archivedRemoval(archivedName: string): Promise<RemovalDto>;
  /** `expectFiles`: the count the confirmation showed (more files since refuses). */
  deleteArchived(archivedName: string, expectFiles: number): Promise<RemovalDto>;
  getSettings(): Promise<SettingsView>;
  updateSettings(s: SettingsDto): Promise<SettingsView>;
  inspectRoot(path: string, dbPath: string | null): Promise<RootInspection>;
  createSampleRoot(path: string): Promise<RootInspection>;
  /** Tries the mem0 settings being edited (nothing is saved). An unreachable server is an
   * answer with ok = false, not a rejection; invalid settings reject. */
  testMem0(settings: SettingsDto): Promise<Mem0Status>;
  /** Copies (or, with dry_run, counts) the entries of `req.from` missing in `req.to`, for the
   * stored root, database and mem0 settings. `onProgress` gets one event per entry handled
   * (only where supportsMigrationProgress). Entries already present are skipped, so running it
   * again completes an interrupted copy. */
  migrate(req: MigrateRequest, onProgress: (p: MigrationProgress) => void): Promise<MigrationReport>;
  /** Asks the running migration to stop between entries; it resolves with cancelled = true. */
  cancelMigration(): Promise<void>;
  /** A folder chosen in a native dialog; null when cancelled or unsupported. */
  pickFolder(): Promise<string | null>;
  /** Starts writing an archive of the agents named (or, with `all`, every agent and the global
   * memory) into the console's own folder; follow it with transferStatus. `conflict` while
   * another export or import runs. */
  startExport(req: ExportRequest): Promise<TransferDto>;
  /** Starts reading an archive chosen with chooseArchive (a dry run counts and writes nothing;
   * its upload stays for the real run). Renames are checked first (`invalid_agent_name`). */
  startImport(req: ImportRequest): Promise<TransferDto>;
  /** The job's state, stage and progress; the summary or report once it ends. */
  transferStatus(id: string): Promise<TransferDto>;
  /** Asks the running job to stop between entries (an export leaves no archive behind). */
  cancelTransfer(id: string): Promise<TransferDto>;
  /** Hands a finished export's archive to the user: the desktop's save dialog (the path saved
   * to, or null when the dialog was closed), the browser's download ("downloaded"). */
  saveExport(id: string): Promise<string | null | "downloaded">;
  /** An archive to import, chosen in the desktop's open dialog or the browser's file picker (then
   * uploaded); null when none was chosen. */
  chooseArchive(): Promise<UploadDto | null>;
  /** Subscribes to change notifications; returns the unsubscribe function. */
  onChange(cb: (e: ChangeEvent) => void): () => void;
  /** The desktop only (absent in the browser): which console the window shows — this computer's
   * or one `oryx serve` serves on another machine — and the servers it remembers. */
  readonly remote?: RemoteConnections;
}

/** Connecting the desktop to a console on another machine. Tokens stay in Rust (the system's
 * keyring); after connect/disconnect every view is asked again (a `settings` change event). */
export interface RemoteConnections {
  connection(): Promise<ConnectionDto>;
  /** What the server at `url` is, asked without sending a token: https or not, the certificate's
   * fingerprint and whether an authority vouches for it, whether it needs a token. */
  probeServer(url: string): Promise<ServerProbeDto>;
  /** Connects (nothing changes when it fails); `fingerprint` is the one the person compared. */
  connectServer(req: ConnectRequest): Promise<ConnectionDto>;
  disconnectServer(): Promise<ConnectionDto>;
  /** Forgets a remembered server and its token. */
  forgetServer(url: string): Promise<ConnectionDto>;
}

export class BackendError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string) {
    super(message);
    this.name = "BackendError";
    this.code = code;
  }

  static from(e: unknown): BackendError {
    if (e instanceof BackendError) return e;
    if (isApiError(e)) return new BackendError(e.code, e.message);
    if (e instanceof Error) return new BackendError("internal", e.message);
    return new BackendError("internal", String(e));
  }
}

const CODES: readonly ErrorCode[] = [
  "invalid_input",
  "invalid_agent_name",
  "agent_not_found",
  "session_not_found",
  "not_found",
  "outside_root",
  "conflict",
  "corrupt",
  "backend_unavailable",
  "timeout",
  "cancelled",
  "io",
  "internal",
  "unauthorized",
  "untrusted_certificate",
];

export function isErrorCode(v: unknown): v is ErrorCode {
  return typeof v === "string" && (CODES as readonly string[]).includes(v);
}

function isApiError(e: unknown): e is { code: ErrorCode; message: string } {
  return (
    typeof e === "object" &&
    e !== null &&
    isErrorCode((e as { code?: unknown }).code) &&
    typeof (e as { message?: unknown }).message === "string"
  );
}
