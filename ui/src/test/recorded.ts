// The component tests' backend: answers from responses the real console gave (`oryx serve` on
// `oryx demo` roots, recorded by crates/oryx-cli/tests/ui_fixtures.rs into fixtures/recorded.json
// from the requests in fixtures/script.json). Nothing here computes an answer: a request either
// was recorded in the current state or fails the test, naming what to add to the script.
//
// States form a tree: a write recorded as a child state's `via` moves the backend into that
// child (whose reads were recorded after the write), and announces the change as the server's
// event stream would.
import { BackendError, type Backend, type ChangeEvent } from "../backend/backend";
import type { OpArgs, OpName, OpResult } from "../backend/client";
import type { ErrorCode, MigrateRequest, MigrationProgress, MigrationReport } from "../backend/types";
import recordedJson from "./fixtures/recorded.json";

type Exchange = { op: string; args: unknown; result?: unknown; error?: { code: ErrorCode; message: string } };
type RecordedState = { parent: string | null; via: Exchange | null; calls: Exchange[] };
const STATES = (recordedJson as unknown as { states: Record<string, RecordedState> }).states;

export type StateName = keyof typeof recordedJson.states;

/** One request the UI sent: the operation and its arguments, as the server received them. */
export type SentCall = { op: string; args: unknown };

/** JSON with sorted keys and without undefined fields: how two argument objects compare. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (v !== null && typeof v === "object") {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(v ?? null);
}

function answer(x: Exchange): unknown {
  if (x.error) throw new BackendError(x.error.code, x.error.message);
  // Each caller gets its own copy, as each HTTP response is parsed anew.
  return structuredClone(x.result);
}

/** What the server's event stream announces after a write (the registry's `changes`). */
const MEMORY_WRITES = ["append_memory", "edit_entry", "delete_entries", "move_entries", "undo_change", "redo_change", "restore_entry", "mark_reviewed"];

/** Agent management writes announce `agents` (the agent, or none for the archive and the files). */
const AGENT_WRITES = ["create_agent", "save_agent_file", "set_agent_key", "set_agent_skills", "archive_agent", "restore_agent"];

function changeOf(op: string, args: unknown): ChangeEvent | null {
  if (MEMORY_WRITES.includes(op)) return { kind: "memory", agent: (args as { agent?: string | null }).agent ?? null };
  if (AGENT_WRITES.includes(op)) return { kind: "agents", agent: (args as { name?: string; archived_name?: string }).name ?? null };
  if (op === "delete_archived" || op === "save_bootstrap_file") return { kind: "agents", agent: null };
  if (op === "update_settings") return { kind: "settings", agent: null };
  return null;
}

export type RecordedBackend = Backend & {
  /** Every request sent, in order. */
  readonly calls: SentCall[];
  /** The state the answers currently come from. */
  readonly state: string;
  /** Requests that were not recorded (the test fails on the first one). */
  readonly misses: string[];
  /** A recorded write made by another client (the runtime, the CLI): the UI only hears the event. */
  /** A change the backend announces on its own (the recall checks' runner): sent to the listeners. */
  announce(change: ChangeEvent): void;
  writeElsewhere(op: OpName, args: unknown): void;
  /** Makes the running migration's answer wait until `release` is called (progress is sent). */
  holdMigration(): { release: () => void };
  /** Answers `op` from the recording of `rewrite(args)`; `calls` keeps the request as sent. For
   * arguments the script cannot name in advance: a change id made during the recording (the
   * toast's undo names the change it takes back; the script records undo of the last change). */
  rewrite(op: OpName, rewrite: (args: unknown) => unknown): void;
  /** Answers `op` with `answer(args)` (announcing the change as the server would), for a write
   * the script cannot record at all (restore_entry names a change id made during the recording).
   * The state does not move: later reads come from the current state. The answer may be a
   * promise (an operation that takes a while: the test decides when it answers). */
  stub(op: OpName, answer: (args: unknown) => unknown): void;
};

export function recordedResult<K extends OpName>(state: StateName, op: K, args: OpArgs<K>): OpResult<K> {
  const key = canonical(args);
  const x = STATES[state]!.calls.find((c) => c.op === op && canonical(c.args) === key);
  if (!x) {
    console.error(`ORYX-MISS ${JSON.stringify({ state, call: [op, args] })}`);
    throw new Error(`no recorded ${op} ${key} in state ${state}`);
  }
  return answer(x) as OpResult<K>;
}

/** The answer to the write that led into `state` (its `via`). */
export function recordedWrite(state: StateName): unknown {
  const via = STATES[state]!.via;
  if (!via) throw new Error(`state ${state} has no write`);
  return answer(via);
}

export function createRecordedBackend(start: StateName = "demo"): RecordedBackend {
  let state: string = start;
  const calls: SentCall[] = [];
  const misses: string[] = [];
  const listeners = new Set<(e: ChangeEvent) => void>();
  let hold: Promise<void> | null = null;

  function transition(op: string, args: unknown): Exchange | null {
    const key = canonical(args);
    for (const [name, s] of Object.entries(STATES)) {
      if (s.parent === state && s.via && s.via.op === op && canonical(s.via.args) === key) {
        // A write that failed changes nothing.
        if (!s.via.error) state = name;
        return s.via;
      }
    }
    return null;
  }

  function lookup(op: string, args: unknown): unknown {
    const key = canonical(args);
    const read = STATES[state]!.calls.find((c) => c.op === op && canonical(c.args) === key);
    if (read) return answer(read);
    const write = transition(op, args);
    if (write) {
      const out = answer(write);
      const change = changeOf(op, args);
      if (change) queueMicrotask(() => listeners.forEach((l) => l(change)));
      return out;
    }
    const miss = `["${op}", ${key}] in state ${state}`;
    misses.push(miss);
    // One line per miss, for the script's maintainer (the DOM shows it with whitespace collapsed).
    console.error(`ORYX-MISS ${JSON.stringify({ state, call: [op, args] })}`);
    throw new BackendError("internal", `no recorded response for ${miss}: add it to ui/src/test/fixtures/script.json`);
  }

  const rewrites = new Map<string, (args: unknown) => unknown>();
  const stubs = new Map<string, (args: unknown) => unknown>();

  const invoke = async <K extends OpName>(op: K, args: OpArgs<K>): Promise<OpResult<K>> => {
    calls.push({ op, args });
    await Promise.resolve();
    const stub = stubs.get(op);
    if (stub) {
      // A stub may answer later (a promise: a slow operation the test releases).
      const out = structuredClone(await stub(args));
      const change = changeOf(op, args);
      if (change) queueMicrotask(() => listeners.forEach((l) => l(change)));
      return out as OpResult<K>;
    }
    const rewrite = rewrites.get(op);
    return lookup(op, rewrite ? rewrite(args) : args) as OpResult<K>;
  };

  return {
    kind: "http",
    supportsFolderPicker: false,
    supportsMigrationProgress: true,
    call: invoke,
    get calls() {
      return calls;
    },
    get state() {
      return state;
    },
    get misses() {
      return misses;
    },
    async migrate(req: MigrateRequest, onProgress: (p: MigrationProgress) => void): Promise<MigrationReport> {
      calls.push({ op: "migrate", args: req });
      const report = lookup("migrate", req) as MigrationReport;
      // The server's progress stream: one event per owner as its entries are handled.
      let done = 0;
      for (const o of report.owners) {
        await Promise.resolve();
        done += o.found;
        if (!req.dry_run && o.found > 0) onProgress({ owner: o.owner, done, total: report.total.found });
      }
      if (hold) await hold;
      return report;
    },
    async cancelMigration() {
      calls.push({ op: "migrate/cancel", args: null });
    },
    async pickFolder() {
      return null;
    },
    // The host's file dialogs (a test replaces them to answer otherwise): the archive "downloads",
    // no archive is chosen.
    async saveExport(id: string) {
      calls.push({ op: "save_export", args: { id } });
      return "downloaded" as const;
    },
    // The read receipts go through the recorded export_entry_reads, then "download".
    async saveReads(agent, format) {
      return (await invoke("export_entry_reads", { agent, format })).file_name;
    },
    async chooseArchive() {
      calls.push({ op: "pick_archive", args: null });
      return null;
    },
    onChange(cb) {
      listeners.add(cb);
      return () => listeners.delete(cb);
    },
    announce(change) {
      listeners.forEach((l) => l(change));
    },
    writeElsewhere(op, args) {
      const x = transition(op, args);
      if (!x) throw new Error(`no recorded write ${op} ${canonical(args)} from state ${state}`);
      const change = changeOf(op, args);
      if (change) listeners.forEach((l) => l(change));
    },
    rewrite(op, fn) {
      rewrites.set(op, fn);
    },
    stub(op, fn) {
      stubs.set(op, fn);
    },
    holdMigration() {
      let release!: () => void;
      hold = new Promise<void>((r) => (release = r));
      return {
        release: () => {
          hold = null;
          release();
        },
      };
    },
  };
}
