import { afterEach, describe, expect, it, vi } from "vitest";

import { BackendError } from "./backend";
import { createHttpBackend } from "./http";

function mockFetch(status: number, body: unknown) {
  const fn = vi.fn(async () => new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } }));
  vi.stubGlobal("fetch", fn);
  return fn;
}

afterEach(() => vi.unstubAllGlobals());

describe("http backend", () => {
  it("unwraps the envelope and builds query strings", async () => {
    const fn = mockFetch(200, { code: 0, message: "success", data: { total: 0, items: [] }, timestamp: 1 });
    const b = createHttpBackend();
    await expect(b.listSessions({ agent: "assistant", status: "active", channel: null, search: null, limit: 50, offset: 0 })).resolves.toEqual({ total: 0, items: [] });
    expect(fn).toHaveBeenCalledWith("/api/v1/console/sessions?agent=assistant&status=active&limit=50&offset=0", expect.objectContaining({ method: "GET" }));
  });

  it("posts JSON bodies", async () => {
    const fn = mockFetch(200, { code: 0, message: "success", data: { agent: null }, timestamp: 1 });
    await createHttpBackend().appendMemory({ agent: null, scope: "core", content: "x" });
    const init = (fn.mock.calls[0] as unknown as [string, RequestInit])[1];
    expect(init.method).toBe("POST");
    expect(JSON.parse(init.body as string)).toEqual({ agent: null, scope: "core", content: "x" });
  });

  it("posts mem0 tests and migrations; no progress and no cancel over REST", async () => {
    const fn = mockFetch(200, { code: 0, message: "success", data: { cancelled: false }, timestamp: 1 });
    const b = createHttpBackend();
    expect(b.supportsMigrationProgress).toBe(false);
    const onProgress = vi.fn();
    const req = { from: "markdown", to: "mem0", agent: null, dry_run: true } as const;
    await b.migrate(req, onProgress);
    await b.testMem0({ mem0_base_url: "http://m" } as never);
    const [url, init] = fn.mock.calls[0] as unknown as [string, RequestInit];
    expect([url, init.method, JSON.parse(init.body as string)]).toEqual(["/api/v1/console/migrate", "POST", req]);
    expect((fn.mock.calls[1] as unknown as [string])[0]).toBe("/api/v1/console/mem0/test");
    expect(onProgress).not.toHaveBeenCalled();
    await expect(b.cancelMigration()).rejects.toBeInstanceOf(BackendError);
  });

  it("maps errors to BackendError codes", async () => {
    mockFetch(404, { code: 404, message: "agent \"x\" not found", data: null, timestamp: 1 });
    const err = await createHttpBackend().getAgent("x").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BackendError);
    expect((err as BackendError).code).toBe("agent_not_found");
    mockFetch(400, { code: 400, message: "bad", data: null, error_code: "invalid_agent_name" });
    expect(((await createHttpBackend().getAgent("a b").catch((e: unknown) => e)) as BackendError).code).toBe("invalid_agent_name");
  });

  it("reports an unreachable server as backend_unavailable", async () => {
    vi.stubGlobal("fetch", vi.fn(async () => Promise.reject(new TypeError("Failed to fetch"))));
    const err = (await createHttpBackend().listAgents().catch((e: unknown) => e)) as BackendError;
    expect(err.code).toBe("backend_unavailable");
  });
});

describe("http backend auth and events", () => {
  it("sends the bearer token", async () => {
    const fn = mockFetch(200, { code: 0, message: "success", data: [], timestamp: 1 });
    await createHttpBackend("", "s3cret").bootstrapFiles();
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
