// The browser implementation, for `oryx serve`: REST under /api/v1/console in the CONTRACT §10
// envelope {code, message, data, timestamp} (code 0 = success, else the HTTP status).
//
// Every console operation is POST /api/v1/console/<op> with its arguments as the JSON body (the
// registry in crates/oryx-api/src/ops.rs; names and types in the generated `Operations`), plus:
//   POST /api/v1/console/migrate           MigrateRequest    → MigrationReport (answers when the
//        run ends; cancelled = true when stopped, the copied part kept; 409 conflict while
//        another migration runs on the server)
//   POST /api/v1/console/migrate/cancel                      → null (stops the running migration
//        between entries; 409 conflict when none runs)
//   GET  /api/v1/console/transfer/{id}/archive  a finished export's zip (as an attachment; the
//        bearer header is needed, so it is fetched into a blob and saved through an <a download>)
//   POST /api/v1/console/transfer/upload?name=FILE  the zip to import as the raw body → UploadDto
//   GET  /api/v1/console/events            text/event-stream: change events as unnamed `data:`
//        {"kind","agent"}; the running migration's progress as `event: migration` with
//        `data:` {"owner","done","total"} (at most every 50 ms, and the last one)
// Errors: the envelope's `code` is the HTTP status; an optional `error_code` field (the
// ErrorCode string) lets the UI branch exactly; without it the status is mapped below.
// A server started with --token needs `Authorization: Bearer <token>`: open the UI once with
// `?token=<token>`; it is kept in sessionStorage (never in localStorage) for that tab.
import { BackendError, isErrorCode, type Backend, type ChangeEvent } from "./backend";
import { parseChange } from "./change-events";
import type { ErrorCode, MigrateRequest, MigrationProgress, MigrationReport, ReadsFileDto, ReadsFormat, UploadDto } from "./types";

type Envelope<T> = { code: number; message: string; data: T | null; timestamp?: number; error_code?: string };

const BASE = "/api/v1/console";

function statusCode(status: number, path: string): ErrorCode {
  switch (status) {
    case 400:
      return "invalid_input";
    case 404:
      if (/^\/(get_session|sessions)/.test(path)) return "session_not_found";
      return /^\/(agents|memory|prompt|get_agent|archival_page|append_memory|recall_memory)/.test(path) ? "agent_not_found" : "internal";
    case 401:
      return "unauthorized";
    case 403:
      return "invalid_input";
    case 409:
      return "conflict";
    case 503:
      return "backend_unavailable";
    case 504:
      return "timeout";
    default:
      return "internal";
  }
}

const TOKEN_KEY = "oryx.token";

/** The bearer token from `?token=` (remembered for the tab) or from an earlier visit in this tab.
 * The token leaves the address bar at once: it would otherwise stay in the history, in a
 * bookmark or a shared screenshot. */
export function readToken(win: Window | undefined = typeof window === "undefined" ? undefined : window): string | null {
  if (!win) return null;
  try {
    const params = new URLSearchParams(win.location.search);
    const fromUrl = params.get("token");
    if (params.has("token")) {
      if (fromUrl) win.sessionStorage.setItem(TOKEN_KEY, fromUrl);
      params.delete("token");
      const rest = params.toString();
      win.history.replaceState(win.history.state, "", `${win.location.pathname}${rest ? `?${rest}` : ""}${win.location.hash}`);
    }
    return fromUrl || win.sessionStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
}

/** The SSE event name of migration progress (change events have none). */
export const MIGRATION_EVENT = "migration";

function parseProgress(payload: unknown): MigrationProgress | null {
  if (typeof payload !== "object" || payload === null) return null;
  const { owner, done, total } = payload as { owner?: unknown; done?: unknown; total?: unknown };
  if (typeof owner !== "string" || typeof done !== "number" || typeof total !== "number") return null;
  return { owner, done, total };
}

/** Reads a text/event-stream body and calls `onData` with each event's data and name (null for
 * unnamed events). */
export async function readEventStream(body: ReadableStream<Uint8Array>, onData: (data: string, event: string | null) => void): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buf = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buf += decoder.decode(value, { stream: true }).replace(/\r\n?/g, "\n");
    let end: number;
    while ((end = buf.indexOf("\n\n")) >= 0) {
      const block = buf.slice(0, end);
      buf = buf.slice(end + 2);
      const lines = block.split("\n");
      const data = lines
        .filter((l) => l.startsWith("data:"))
        .map((l) => l.slice(5).replace(/^ /, ""))
        .join("\n");
      const name = lines.filter((l) => l.startsWith("event:")).map((l) => l.slice(6).trim()).at(-1);
      if (data) onData(data, name || null);
    }
  }
}

export function createHttpBackend(origin = "", token: string | null = readToken()): Backend {
  const auth: Record<string, string> = token ? { Authorization: `Bearer ${token}` } : {};
  async function request<T>(method: "GET" | "POST", path: string, body?: unknown): Promise<T> {
    let res: Response;
    try {
      res = await fetch(`${origin}${BASE}${path}`, {
        method,
        headers:
          body === undefined
            ? { Accept: "application/json", ...auth }
            : { Accept: "application/json", "Content-Type": "application/json", ...auth },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (e) {
      throw new BackendError("backend_unavailable", `cannot reach the console server: ${e instanceof Error ? e.message : String(e)}`);
    }
    return unwrapEnvelope<T>(res, path);
  }

  /** The envelope's data, or its error as a BackendError. */
  async function unwrapEnvelope<T>(res: Response, path: string): Promise<T> {
    let env: Envelope<T>;
    try {
      env = (await res.json()) as Envelope<T>;
    } catch {
      throw new BackendError(
        "backend_unavailable",
        `${BASE}${path} answered HTTP ${res.status} without a JSON envelope: is this page served by \`oryx serve\`?`,
      );
    }
    if (!res.ok || env.code !== 0) {
      const code = isErrorCode(env.error_code) ? env.error_code : statusCode(res.status || env.code, path);
      throw new BackendError(code, env.message || `HTTP ${res.status}`);
    }
    return env.data as T;
  }

  /** Follows /events (fetch rather than EventSource, so the bearer token can be sent) and
   * reconnects after a drop; `onAttempt` after each connect attempt (true once subscribed).
   * Returns the stop function. */
  function subscribe(onEvent: (data: string, event: string | null) => void, onAttempt?: (subscribed: boolean) => void): () => void {
    if (typeof fetch === "undefined" || typeof AbortController === "undefined") return () => {};
    const abort = new AbortController();
    let retry: ReturnType<typeof setTimeout> | undefined;
    const connect = (delay: number) => {
      fetch(`${origin}${BASE}/events`, { headers: { Accept: "text/event-stream", ...auth }, signal: abort.signal })
        .then(async (res) => {
          if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}`);
          onAttempt?.(true);
          await readEventStream(res.body, onEvent);
          throw new Error("event stream ended");
        })
        .catch(() => {
          if (abort.signal.aborted) return;
          onAttempt?.(false);
          retry = setTimeout(() => connect(Math.min(delay * 2, 30_000)), delay);
        });
    };
    connect(1000);
    return () => {
      abort.abort();
      clearTimeout(retry);
    };
  }

  // Our migrate POST while it runs: cancelMigration waits for it to reach the server.
  let migrating: Promise<unknown> | null = null;

  async function migrate(req: MigrateRequest, onProgress: (p: MigrationProgress) => void): Promise<MigrationReport> {
    let opened: () => void = () => {};
    const open = new Promise<void>((resolve) => (opened = () => resolve()));
    const stop = subscribe((data, event) => {
      if (event !== MIGRATION_EVENT) return;
      try {
        const p = parseProgress(JSON.parse(data));
        if (p) onProgress(p);
      } catch {
        /* ignore malformed events */
      }
    }, opened);
    let wait: ReturnType<typeof setTimeout> | undefined;
    try {
      // Subscribed before the POST so that no progress is missed; without the stream (refused,
      // or a proxy that holds it back) the copy still runs, only without progress.
      await Promise.race([open, new Promise<void>((resolve) => (wait = setTimeout(resolve, 3000)))]);
      clearTimeout(wait);
      const run = request<MigrationReport>("POST", "/migrate", req);
      migrating = run;
      return await run;
    } finally {
      migrating = null;
      stop();
    }
  }

  async function cancelMigration(): Promise<void> {
    for (;;) {
      try {
        await request("POST", "/migrate/cancel");
        return;
      } catch (e) {
        // 409: none runs on the server. Ours has finished (nothing to stop, as on the desktop),
        // or its POST has not reached the server yet: then ask again shortly.
        if (!(e instanceof BackendError) || e.code !== "conflict") throw e;
        const run = migrating;
        if (!run) return;
        const settled = await Promise.race([
          run.then(
            () => true,
            () => true,
          ),
          new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 100)),
        ]);
        if (settled) return;
      }
    }
  }

  /** Downloads a finished export: fetched with the token into a blob, saved by the browser under
   * the name the server gives. */
  async function saveExport(id: string): Promise<"downloaded"> {
    const path = `/transfer/${encodeURIComponent(id)}/archive`;
    let res: Response;
    try {
      res = await fetch(`${origin}${BASE}${path}`, { headers: { Accept: "application/zip, application/json", ...auth } });
    } catch (e) {
      throw new BackendError("backend_unavailable", `cannot reach the console server: ${e instanceof Error ? e.message : String(e)}`);
    }
    if (!res.ok || !(res.headers.get("Content-Type") ?? "").includes("zip")) {
      await unwrapEnvelope(res, path);
      throw new BackendError("internal", `${BASE}${path} answered without an archive`);
    }
    const name = attachmentName(res.headers.get("Content-Disposition")) ?? "oryx-export.oryx.zip";
    const url = URL.createObjectURL(await res.blob());
    const a = document.createElement("a");
    a.href = url;
    a.download = name;
    a.hidden = true;
    document.body.appendChild(a);
    a.click();
    a.remove();
    // The download has its own copy once started.
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
    return "downloaded";
  }

  /** Downloads an owner's read receipts: the file export_entry_reads answers, saved by the
   * browser under its name. */
  async function saveReads(agent: string | null, format: ReadsFormat): Promise<string> {
    const f = (await request("POST", "/export_entry_reads", { agent, format })) as ReadsFileDto;
    const url = URL.createObjectURL(new Blob([f.text], { type: f.mime }));
    const a = document.createElement("a");
    a.href = url;
    a.download = f.file_name;
    a.hidden = true;
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
    return f.file_name;
  }

  async function upload(file: File): Promise<UploadDto> {
    const path = `/transfer/upload?name=${encodeURIComponent(file.name)}`;
    let res: Response;
    try {
      res = await fetch(`${origin}${BASE}${path}`, {
        method: "POST",
        headers: { Accept: "application/json", "Content-Type": "application/zip", ...auth },
        body: file,
      });
    } catch (e) {
      throw new BackendError("backend_unavailable", `cannot reach the console server: ${e instanceof Error ? e.message : String(e)}`);
    }
    return unwrapEnvelope<UploadDto>(res, path);
  }

  /** The browser's file picker (a hidden <input type=file>, kept in the page until answered so a
   * test can fill it), then the upload. Null when the picker was closed without a file. */
  function chooseArchive(): Promise<UploadDto | null> {
    document.querySelectorAll("input[data-oryx-archive-input]").forEach((old) => old.remove());
    const input = document.createElement("input");
    input.type = "file";
    input.accept = ".zip,application/zip";
    input.hidden = true;
    input.setAttribute("data-oryx-archive-input", "");
    input.setAttribute("data-testid", "archive-input");
    document.body.appendChild(input);
    return new Promise<UploadDto | null>((resolve, reject) => {
      input.addEventListener("change", () => {
        const file = input.files?.[0];
        input.remove();
        if (!file) resolve(null);
        else upload(file).then(resolve, reject);
      });
      input.addEventListener("cancel", () => {
        input.remove();
        resolve(null);
      });
      input.click();
    });
  }

  return {
    kind: "http",
    supportsFolderPicker: false,
    supportsMigrationProgress: true,
    call: (op, args) => request("POST", `/${op}`, args),
    migrate,
    cancelMigration,
    pickFolder: async () => null,
    saveExport,
    saveReads,
    chooseArchive,
    onChange(cb: (e: ChangeEvent) => void) {
      return subscribe((data, event) => {
        if (event !== null) return; // migration progress: for migrate's listener
        try {
          const change = parseChange(JSON.parse(data));
          if (change) cb(change);
        } catch {
          /* ignore malformed events */
        }
      });
    },
  };
}

/** The file name of a Content-Disposition attachment (`filename*=UTF-8''…` first). */
export function attachmentName(header: string | null): string | null {
  if (!header) return null;
  const star = /filename\*\s*=\s*UTF-8''([^;]+)/i.exec(header);
  if (star) {
    try {
      return decodeURIComponent(star[1]!.trim());
    } catch {
      /* fall back to the plain name */
    }
  }
  return /filename\s*=\s*"([^"]*)"/i.exec(header)?.[1] ?? null;
}
