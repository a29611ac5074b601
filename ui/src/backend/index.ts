export type { Backend, BackendKind, ChangeEvent, ChangeKind } from "./backend";
export { BackendError } from "./backend";
export { BackendProvider, useBackend } from "./context";
