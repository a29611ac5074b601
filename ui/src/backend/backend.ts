import type { Invoke } from "./client";
import type { ConnectionDto, ConnectRequest, ErrorCode, MigrateRequest, MigrationProgress, MigrationReport, ReadsFormat, ServerProbeDto, UploadDto } from "./types";

/** memory: a MEMORY.md (agent = its agent, null = global or several); agents: an AGENT.md, skill or
 * bootstrap file; sessions: the database; settings: the settings (every view). */
export type ChangeKind = "memory" | "agents" | "sessions" | "settings" | "checks";
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
  /** Copies (or, with dry_run, counts) the entries of `req.from` missing in `req.to`, for the
   * stored root, database and mem0 settings. `onProgress` gets one event per entry handled
   * (only where supportsMigrationProgress). Entries already present are skipped, so running it
   * again completes an interrupted copy. */
  migrate(req: MigrateRequest, onProgress: (p: MigrationProgress) => void): Promise<MigrationReport>;
  /** Asks the running migration to stop between entries; it resolves with cancelled = true. */
  cancelMigration(): Promise<void>;
  /** A folder chosen in a native dialog; null when cancelled or unsupported. */
  pickFolder(): Promise<string | null>;
  /** Hands a finished export's archive (start_export, then transfer_status) to the user: the desktop's save dialog (the path saved
   * to, or null when the dialog was closed), the browser's download ("downloaded"). */
  saveExport(id: string): Promise<string | null | "downloaded">;
  /** Hands an owner's read receipts (export_entry_reads) to the user: the desktop's save dialog
   * (the path saved to, or null when closed), the browser's download (the file's name). */
  saveReads(agent: string | null, format: ReadsFormat): Promise<string | null>;
  /** An archive to import (start_import's upload), chosen in the desktop's open dialog or the
   * browser's file picker (then uploaded); null when none was chosen. */
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
