export type { Backend, BackendKind, ChangeEvent, ChangeKind, RemoteConnections } from "./backend";
export { BackendError } from "./backend";
export { BackendProvider, useBackend } from "./context";
