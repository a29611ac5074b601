import { beforeEach, describe, expect, it, vi } from "vitest";

const invoke = vi.fn();
let handler: ((e: { payload: unknown }) => void) | null = null;
const unlisten = vi.fn();
class FakeChannel<T> {
  onmessage: (m: T) => void = () => {};
}
vi.mock("@tauri-apps/api/core", () => ({ invoke: (...a: unknown[]) => invoke(...a), Channel: FakeChannel }));
vi.mock("@tauri-apps/api/event", () => ({
  listen: vi.fn(async (name: string, h: (e: { payload: unknown }) => void) => {
    expect(name).toBe("oryx://changed");
    handler = h;
    return unlisten;
  }),
}));
vi.mock("@tauri-apps/plugin-dialog", () => ({ open: vi.fn(async () => "/picked/root") }));

// The test setup has loaded the app, and with it the generated bindings over the real Tauri API
// (the query hooks read OP_READS there): load them again over the mocks.
vi.resetModules();
const { createTauriBackend } = await import("./tauri");
const { BackendError } = await import("./backend");

beforeEach(() => invoke.mockReset());

describe("tauri backend", () => {
  it("sends every operation through the console command as {op, args}", async () => {
    invoke.mockResolvedValue({ ok: 1 });
    const b = createTauriBackend();
    await b.call("memory_view", { agent: null });
    await b.call("tool_invocations", { session_id: "s1", limit: 10, offset: 0 });
    await b.call("inspect_root", { path: "/r", db_path: null });
    expect(invoke.mock.calls).toEqual([
      ["console", { op: "memory_view", args: { agent: null } }],
      ["console", { op: "tool_invocations", args: { session_id: "s1", limit: 10, offset: 0 } }],
      ["console", { op: "inspect_root", args: { path: "/r", db_path: null } }],
    ]);
  });

  it("turns a command error into a BackendError with its code", async () => {
    invoke.mockImplementationOnce(async () => Promise.reject({ code: "agent_not_found", message: "agent \"x\" not found" }));
    const err = await createTauriBackend().call("get_agent", { name: "x" }).catch((e: unknown) => e);

    expect(err).toBeInstanceOf(BackendError);
    const e = err as InstanceType<typeof BackendError>;
    expect(e.code).toBe("agent_not_found");
    expect(e.message).toBe('agent "x" not found');
  });

  it("forwards change events and unsubscribes", async () => {
    const b = createTauriBackend();
    const cb = vi.fn();
    const off = b.onChange(cb);
    await vi.waitFor(() => expect(handler).not.toBeNull());
    handler!({ payload: { kind: "memory", agent: "assistant" } });
    handler!({ payload: { kind: "bogus" } });
    expect(cb).toHaveBeenCalledTimes(1);
    expect(cb).toHaveBeenCalledWith({ kind: "memory", agent: "assistant" });
    off();
    expect(unlisten).toHaveBeenCalled();
  });

  it("streams migration progress over a Channel and cancels by command", async () => {
    invoke.mockImplementation(async (cmd: string, args: { onProgress?: FakeChannel<unknown> }) => {
      if (cmd === "migrate") {
        args.onProgress!.onmessage({ owner: "assistant", done: 1, total: 2 });
        args.onProgress!.onmessage({ owner: "global", done: 2, total: 2 });
        return { cancelled: false };
      }
      return null;
    });
    const seen: unknown[] = [];
    const b = createTauriBackend();
    const req = { from: "markdown", to: "sqlite", agent: null, dry_run: false, switch: false } as const;
    await expect(b.migrate(req, (p) => seen.push(p))).resolves.toEqual({ cancelled: false });
    expect(invoke.mock.calls[0]![0]).toBe("migrate");
    expect(invoke.mock.calls[0]![1]).toMatchObject({ req });
    expect(invoke.mock.calls[0]![1].onProgress).toBeInstanceOf(FakeChannel);
    expect(seen).toEqual([
      { owner: "assistant", done: 1, total: 2 },
      { owner: "global", done: 2, total: 2 },
    ]);
    await b.cancelMigration();
    await b.call("test_mem0", { mem0_base_url: "http://m" } as never);
    expect(invoke.mock.calls.slice(1).map((c) => c[0])).toEqual(["cancel_migration", "console"]);
    expect(invoke.mock.calls[2]![1]).toEqual({ op: "test_mem0", args: { mem0_base_url: "http://m" } });
  });

  it("picks a folder with the dialog plugin", async () => {
    await expect(createTauriBackend().pickFolder()).resolves.toBe("/picked/root");
  });
});
