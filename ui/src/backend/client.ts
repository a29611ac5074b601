// The one generic client: every console operation is `call(op, args)` over a transport (Tauri
// IPC or POST /api/v1/console/<op>). Operation names, arguments and results come from the Rust
// registry (crates/oryx-api/src/ops.rs) through the generated `Operations` type.
import type { Operations_Deserialize, Operations_Serialize } from "../bindings";

export type OpName = keyof Operations_Serialize;
/** What Rust accepts (optional fields may be left out). */
export type OpArgs<K extends OpName> = Operations_Deserialize[K]["args"];
/** What Rust sends (every field present). */
export type OpResult<K extends OpName> = Operations_Serialize[K]["result"];

/** Sends one operation and resolves with its result; rejects with a BackendError. */
export type Invoke = <K extends OpName>(op: K, args: OpArgs<K>) => Promise<OpResult<K>>;
