import { afterEach, describe, expect, it, vi } from "vitest";

import { BackendError } from "./backend";
import { createHttpBackend, readToken } from "./http";

function mockFetch(status: number, body: unknown) {
  const fn = vi.fn(async () => new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } }));
  vi.stubGlobal("fetch", fn);
  return fn;
}

afterEach(() => vi.unstubAllGlobals());

describe("http backend", () => {
  it("unwraps the envelope and posts each operation to /api/v1/console/<op>", async () => {
    const fn = mockFetch(200, { code: 0, message: "success", data: { total: 0, items: [] }, timestamp: 1 });
    const b = createHttpBackend();
    await expect(b.call("list_sessions", { agent: "assistant", status: "active", channel: null, search: null, limit: 50, offset: 0 })).resolves.toEqual({ total: 0, items: [] });
    const [url, init] = fn.mock.calls[0] as unknown as [string, RequestInit];
    expect(url).toBe("/api/v1/console/list_sessions");
    expect(init.method).toBe("POST");
    expect(JSON.parse(init.body as string)).toEqual({ agent: "assistant", status: "active", channel: null, search: null, limit: 50, offset: 0 });
  });

  it("posts JSON bodies", async () => {
    const fn = mockFetch(200, { code: 0, message: "success", data: { agent: null }, timestamp: 1 });
    await createHttpBackend().call("append_memory", { agent: null, scope: "core", content: "x" });
    const init = (fn.mock.calls[0] as unknown as [string, RequestInit])[1];
    expect(init.method).toBe("POST");
    expect(JSON.parse(init.body as string)).toEqual({ agent: null, scope: "core", content: "x" });
  });

  it("posts mem0 tests and migrations", async () => {
    const fn = mockFetch(200, { code: 0, message: "success", data: { cancelled: false }, timestamp: 1 });
    const b = createHttpBackend();
    expect(b.supportsMigrationProgress).toBe(true);
    const req = { from: "markdown", to: "mem0", agent: null, dry_run: true, switch: false } as const;
    await b.migrate(req, vi.fn());
    await b.call("test_mem0", { mem0_base_url: "http://m" } as never);
    const posts = fn.mock.calls.map((c) => c as unknown as [string, RequestInit]).filter(([, init]) => init.method === "POST");
    expect(posts.map(([url, init]) => [url, JSON.parse(init.body as string)])).toEqual([
      ["/api/v1/console/migrate", req],
      ["/api/v1/console/test_mem0", { mem0_base_url: "http://m" }],
    ]);
  });

  it("maps errors to BackendError codes", async () => {
    mockFetch(404, { code: 404, message: "agent \"x\" not found", data: null, timestamp: 1 });
    const err = await createHttpBackend().call("get_agent", { name: "x" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BackendError);
    expect((err as BackendError).code).toBe("agent_not_found");
    mockFetch(400, { code: 400, message: "bad", data: null, error_code: "invalid_agent_name" });
    expect(((await createHttpBackend().call("get_agent", { name: "a b" }).catch((e: unknown) => e)) as BackendError).code).toBe("invalid_agent_name");
  });

  it("reports an unreachable server as backend_unavailable", async () => {
    vi.stubGlobal("fetch", vi.fn(async () => Promise.reject(new TypeError("Failed to fetch"))));
    const err = (await createHttpBackend().call("list_agents", {}).catch((e: unknown) => e)) as BackendError;
    expect(err.code).toBe("backend_unavailable");
  });
});

describe("http backend auth and events", () => {
  it("sends the bearer token", async () => {
    const fn = mockFetch(200, { code: 0, message: "success", data: [], timestamp: 1 });
    await createHttpBackend("", "s3cret").call("bootstrap_files", {});
    const init = (fn.mock.calls[0] as unknown as [string, RequestInit])[1];
    expect((init.headers as Record<string, string>).Authorization).toBe("Bearer s3cret");
  });

  it("parses server-sent events split across chunks", async () => {
    const { readEventStream } = await import("./http");
    const enc = new TextEncoder();
    const chunks = ['data: {"kind":"memory",', '"agent":"a"}\n\n: keep-alive\n\ndata: {"kind":"settings","agent":null}\r\n\r\n'];
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        for (const ch of chunks) c.enqueue(enc.encode(ch));
        c.close();
      },
    });
    const got: string[] = [];
    await readEventStream(body, (d) => got.push(d));
    expect(got.map((d) => JSON.parse(d))).toEqual([
      { kind: "memory", agent: "a" },
      { kind: "settings", agent: null },
    ]);
  });
});

/** A server for migrate: /events streams what `push` sends, /migrate answers when `finish` is called. */
function migrateServer() {
  const enc = new TextEncoder();
  const streams: ReadableStreamDefaultController<Uint8Array>[] = [];
  let finish: (status: number, body: unknown) => void = () => {};
  const answer = new Promise<Response>((resolve) => {
    finish = (status, body) => resolve(new Response(JSON.stringify(body), { status }));
  });
  const cancelStatus = { value: 200 };
  const fn = vi.fn(async (url: string, init: RequestInit) => {
    if (url.endsWith("/events")) {
      const body = new ReadableStream<Uint8Array>({ start: (c) => void streams.push(c) });
      init.signal?.addEventListener("abort", () => streams.splice(0).forEach((c) => c.error(new Error("aborted"))));
      return new Response(body, { status: 200, headers: { "Content-Type": "text/event-stream" } });
    }
    if (url.endsWith("/migrate/cancel")) {
      const ok = cancelStatus.value === 200;
      return new Response(JSON.stringify(ok ? { code: 0, message: "success", data: null } : { code: 409, message: "no migration is running", data: null, error_code: "conflict" }), { status: cancelStatus.value });
    }
    return answer;
  });
  vi.stubGlobal("fetch", fn);
  const push = (text: string) => streams.forEach((c) => c.enqueue(enc.encode(text)));
  return { fn, push, finish, cancelStatus, streams };
}

const flush = () => new Promise((r) => setTimeout(r, 0));

describe("http backend migration progress and cancel", () => {
  it("subscribes to /events before posting and delivers `event: migration` to onProgress while the POST runs", async () => {
    const srv = migrateServer();
    const b = createHttpBackend("", "tok");
    const onProgress = vi.fn();
    const changes = vi.fn();
    const stopChanges = b.onChange(changes);
    const run = b.migrate({ from: "markdown", to: "sqlite", agent: null, dry_run: false, switch: false }, onProgress);
    await vi.waitFor(() => expect(srv.fn.mock.calls.some(([u]) => (u as string).endsWith("/migrate"))).toBe(true));
    const urls = srv.fn.mock.calls.map(([u]) => u as string);
    expect(urls.indexOf("/api/v1/console/events")).toBeLessThan(urls.indexOf("/api/v1/console/migrate"));
    for (const [, init] of srv.fn.mock.calls) expect((init.headers as Record<string, string>).Authorization).toBe("Bearer tok");

    srv.push('event: migration\ndata: {"owner":"assistant","done":5,"total":40}\n\n');
    srv.push('data: {"kind":"memory","agent":"assistant"}\n\n');
    srv.push('event: migration\ndata: {"owner":"global","done":40,"total":40}\n\nevent: migration\ndata: not json\n\n');
    await vi.waitFor(() => expect(onProgress).toHaveBeenCalledTimes(2));
    expect(onProgress.mock.calls.map((c) => c[0])).toEqual([
      { owner: "assistant", done: 5, total: 40 },
      { owner: "global", done: 40, total: 40 },
    ]);
    // The change listener sees only the change event; progress is not a change.
    await vi.waitFor(() => expect(changes).toHaveBeenCalled());
    expect(changes.mock.calls.map((c) => c[0])).toEqual([{ kind: "memory", agent: "assistant" }]);

    srv.finish(200, { code: 0, message: "success", data: { cancelled: false } });
    await expect(run).resolves.toEqual({ cancelled: false });
    stopChanges();
    // After the POST, migrate's stream is closed: later progress goes nowhere.
    srv.push('event: migration\ndata: {"owner":"x","done":1,"total":1}\n\n');
    await flush();
    expect(onProgress).toHaveBeenCalledTimes(2);
  });

  it("cancelMigration posts /migrate/cancel; nothing running (409) is not an error", async () => {
    const srv = migrateServer();
    const b = createHttpBackend();
    await b.cancelMigration();
    expect(srv.fn).toHaveBeenLastCalledWith("/api/v1/console/migrate/cancel", expect.objectContaining({ method: "POST" }));
    srv.cancelStatus.value = 409;
    await expect(b.cancelMigration()).resolves.toBeUndefined();
  });

  it("a cancel before the POST reached the server is repeated until it lands", async () => {
    const srv = migrateServer();
    srv.cancelStatus.value = 409;
    const b = createHttpBackend();
    const run = b.migrate({ from: "markdown", to: "sqlite", agent: null, dry_run: false, switch: false }, () => {});
    await vi.waitFor(() => expect(srv.fn.mock.calls.some(([u]) => (u as string).endsWith("/migrate"))).toBe(true));
    const cancel = b.cancelMigration();
    await new Promise((r) => setTimeout(r, 150));
    srv.cancelStatus.value = 200;
    await cancel;
    const cancels = srv.fn.mock.calls.filter(([u]) => (u as string).endsWith("/migrate/cancel")).length;
    expect(cancels).toBeGreaterThanOrEqual(2);
    srv.finish(200, { code: 0, message: "success", data: { cancelled: true } });
    await expect(run).resolves.toEqual({ cancelled: true });
  });

  it("a second migration on the server is a conflict error", async () => {
    const srv = migrateServer();
    const run = createHttpBackend().migrate({ from: "markdown", to: "sqlite", agent: null, dry_run: false, switch: false }, () => {});
    srv.finish(409, { code: 409, message: "a migration is already running on this server", data: null, error_code: "conflict" });
    const err = (await run.catch((e: unknown) => e)) as BackendError;
    expect(err).toBeInstanceOf(BackendError);
    expect(err.code).toBe("conflict");
  });

  it("reads event names", async () => {
    const { readEventStream } = await import("./http");
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new TextEncoder().encode('event: migration\ndata: {"done":1}\n\ndata: {"kind":"agents"}\n\n'));
        c.close();
      },
    });
    const got: [string, string | null][] = [];
    await readEventStream(body, (d, e) => got.push([d, e]));
    expect(got).toEqual([
      ['{"done":1}', "migration"],
      ['{"kind":"agents"}', null],
    ]);
  });

  it("takes the token out of the address bar and keeps it for the tab", () => {
    const store = new Map<string, string>();
    const replaceState = vi.fn();
    const win = {
      location: { search: "?lang=zh&token=s3cret", pathname: "/agents/a", hash: "#memory" },
      sessionStorage: { getItem: (k: string) => store.get(k) ?? null, setItem: (k: string, v: string) => void store.set(k, v) },
      history: { state: { k: 1 }, replaceState },
    } as unknown as Window;
    expect(readToken(win)).toBe("s3cret");
    expect(replaceState).toHaveBeenCalledWith({ k: 1 }, "", "/agents/a?lang=zh#memory");
    // Later loads of the tab (no ?token=) still have it, and leave the address alone.
    const later = { ...win, location: { search: "", pathname: "/", hash: "" } } as unknown as Window;
    replaceState.mockClear();
    expect(readToken(later)).toBe("s3cret");
    expect(replaceState).not.toHaveBeenCalled();
  });
});
