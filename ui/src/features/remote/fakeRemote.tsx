// Tests only: `backend.remote` as a small fake of the desktop's connection layer (the Rust side
// is covered by its own tests; the rest of the app answers from the recorded console). Servers
// are described by what `oryx serve` there would answer; calls are kept for the tests to check.
import { QueryClient } from "@tanstack/react-query";
import { render } from "@testing-library/react";

import { AppRoot } from "../../App";
import { BackendError, type Backend, type ChangeEvent, type RemoteConnections } from "../../backend/backend";
import type { ConnectionDto, ConnectRequest, RememberedServerDto, ServerProbeDto } from "../../backend/types";
import { createRecordedBackend, type StateName } from "../../test/recorded";

export type FakeServer = {
  host: string;
  https: boolean;
  /** The certificate's SHA-256 (https only). */
  fingerprint: string | null;
  /** An authority vouches for the certificate. */
  trusted: boolean;
  /** The --token it was started with (null: none needed). */
  token: string | null;
  root: string;
  backend: string;
};

export type FakeRemote = RemoteConnections & {
  readonly calls: { op: string; args: unknown }[];
  /** The tokens kept in the "keyring", by server URL. */
  readonly tokens: Map<string, string>;
};

export const LAST_CONNECTED = "2026-12-03T08:15:00Z";

export function fakeRemote(
  servers: Record<string, FakeServer>,
  opts: { tokenStore?: string; remembered?: RememberedServerDto[]; tokens?: Record<string, string>; shown?: string | null; emit?: (e: ChangeEvent) => void } = {},
): FakeRemote {
  let shown: string | null = opts.shown ?? null;
  let remembered: RememberedServerDto[] = structuredClone(opts.remembered ?? []);
  const tokens = new Map(Object.entries(opts.tokens ?? {}));
  const calls: { op: string; args: unknown }[] = [];
  const emit = () => queueMicrotask(() => opts.emit?.({ kind: "settings", agent: null }));

  const describe = (): ConnectionDto => {
    const s = shown ? servers[shown]! : null;
    return {
      remote: s ? { url: shown!, host: s.host, root: s.root, backend: s.backend, fingerprint: s.fingerprint } : null,
      servers: remembered.map((r) => ({ ...r, has_token: tokens.has(r.url) })),
      token_store: opts.tokenStore ?? "secret_service",
    };
  };

  const normalise = (url: string): string => {
    const u = url.trim().replace(/\/+$/, "");
    const full = /^[a-z]+:\/\//i.test(u) ? u : `https://${u}`;
    if (full.startsWith("http://") && !/^http:\/\/(127\.0\.0\.1|localhost)(:|$)/.test(full))
      throw new BackendError("invalid_input", `${full} is plain http to another machine: it would send the token in clear text; serve https there (--tls-cert/--tls-key)`);
    return full;
  };

  const server = (url: string): FakeServer => {
    const s = servers[url];
    if (!s) throw new BackendError("backend_unavailable", `cannot reach ${url.replace(/^\w+:\/\//, "")}: Connection refused (os error 111)`);
    return s;
  };

  const remote: FakeRemote = {
    calls,
    tokens,
    async connection() {
      calls.push({ op: "connection", args: null });
      return describe();
    },
    async probeServer(url) {
      calls.push({ op: "probe_server", args: url });
      const u = normalise(url);
      const s = server(u);
      const probe: ServerProbeDto = { url: u, host: s.host, https: s.https, fingerprint: s.https ? s.fingerprint : null, trusted: s.trusted, needs_token: s.token !== null };
      return probe;
    },
    async connectServer(req: ConnectRequest) {
      calls.push({ op: "connect_server", args: req });
      const u = normalise(req.url);
      const s = server(u);
      const known = remembered.find((r) => r.url === u);
      const typed = req.token?.trim() || null;
      const token = typed ?? tokens.get(u) ?? null;
      const fp = req.fingerprint || known?.fingerprint || null;
      if (s.https && !s.trusted) {
        if (!fp) throw new BackendError("untrusted_certificate", `${s.host}'s certificate is not signed by an authority this computer trusts (invalid peer certificate: UnknownIssuer): check its fingerprint and trust it when you connect`);
        if (fp !== s.fingerprint) throw new BackendError("untrusted_certificate", `${s.host} is not the server you trusted: the certificate is not the trusted one. If its certificate was renewed on purpose, connect again and compare the new fingerprint with the one \`oryx serve\` prints.`);
      }
      if (s.token !== null && token !== s.token) throw new BackendError("unauthorized", `${s.host} refused the token${token === null ? " (none was given)" : ""}: unauthorized`);
      if (req.remember || known) {
        if (req.remember && typed) tokens.set(u, typed);
        remembered = [...remembered.filter((r) => r.url !== u), { url: u, host: s.host, fingerprint: fp, has_token: false, last_connected: LAST_CONNECTED }];
      }
      shown = u;
      emit();
      return describe();
    },
    async disconnectServer() {
      calls.push({ op: "disconnect_server", args: null });
      shown = null;
      emit();
      return describe();
    },
    async forgetServer(url) {
      calls.push({ op: "forget_server", args: url });
      remembered = remembered.filter((r) => r.url !== url);
      tokens.delete(url);
      return describe();
    },
  };
  return remote;
}

const rendered: { misses: string[] }[] = [];

/** The app at `hash` on the recorded console in `state`, its backend with `remote` as `make`
 * builds it (given the function that announces a change to the app). */
export function renderRemote(hash: string, make: (emit: (e: ChangeEvent) => void) => FakeRemote, state: StateName = "demo") {
  window.location.hash = hash;
  const { backend, recorded, remote } = recordedWithRemote(state, make);
  rendered.push(recorded);
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false, staleTime: 0, refetchOnWindowFocus: false }, mutations: { retry: false } } });
  render(<AppRoot backend={backend} queryClient={queryClient} />);
  return { remote, recorded };
}

/** The requests to the recorded console that were never recorded (each one a missing fixture). */
export function takeRemoteMisses(): string[] {
  const out = rendered.flatMap((r) => r.misses);
  rendered.length = 0;
  return out;
}

/** The recorded console with `remote` added, as the desktop's backend has it; change events the
 * fake announces reach the app like the console's own. */
export function recordedWithRemote(state: StateName, make: (emit: (e: ChangeEvent) => void) => FakeRemote) {
  const recorded = createRecordedBackend(state);
  recorded.stub("agents_health", () => []);
  recorded.stub("session_memory_links", () => []);
  const listeners = new Set<(e: ChangeEvent) => void>();
  const inner = recorded.onChange;
  const remote = make((e) => listeners.forEach((l) => l(e)));
  const backend: Backend = Object.assign(recorded, {
    remote,
    onChange(cb: (e: ChangeEvent) => void) {
      listeners.add(cb);
      const off = inner(cb);
      return () => {
        listeners.delete(cb);
        off();
      };
    },
  });
  return { backend, recorded, remote };
}
