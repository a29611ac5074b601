import { QueryClient } from "@tanstack/react-query";
import { fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";

import { AppRoot } from "../../App";
import { BackendError } from "../../backend/backend";
import { createFakeBackend, FAKE_MEM0_URL, type FakeBackend, type FakeOptions } from "../../backend/fake";
import { createHttpBackend } from "../../backend/http";
import type { SettingsDto } from "../../backend/types";
import { renderApp } from "../../test/render";

const LONG = { timeout: 8000 };

afterEach(() => vi.unstubAllGlobals());

const HTTP_STATUS: Partial<Record<string, number>> = { conflict: 409, cancelled: 409, agent_not_found: 404, session_not_found: 404, backend_unavailable: 503, timeout: 504, internal: 500 };

/** `oryx serve` in miniature over the fake backend, as a `fetch`: the envelope, /events (change
 * events unnamed, migration progress as `event: migration`), /migrate with one run at a time
 * and /migrate/cancel. */
type Args = Record<string, unknown>;
/** The registered operations the settings screen uses, as the fake answers them. */
const OPS: Record<string, (f: FakeBackend, a: Args) => Promise<unknown>> = {
  list_agents: (f) => f.listAgents(),
  get_agent: (f, a) => f.getAgent(a.name as string),
  memory_view: (f, a) => f.memoryView((a.agent as string) ?? null),
  memory_overview: (f, a) => f.memoryOverview((a.agent as string) ?? null),
  archival_page: (f, a) => f.archivalPage(a as never),
  recall_memory: (f, a) => f.recallMemory((a.agent as string) ?? null, a.keyword as string),
  append_memory: (f, a) => f.appendMemory(a as never),
  preview_entry: (f, a) => f.previewEntry(a.content as string),
  list_sessions: (f, a) => f.listSessions(a as never),
  get_session: (f, a) => f.getSession(a.id as string),
  tool_invocations: (f, a) => f.toolInvocations((a.session_id as string) ?? null, (a.limit as number) ?? null, (a.offset as number) ?? null),
  prompt_preview: (f, a) => f.promptPreview(a.agent as string, (a.session_id as string) ?? null),
  bootstrap_files: (f) => f.bootstrapFiles(),
  get_settings: (f) => f.getSettings(),
  update_settings: (f, a) => f.updateSettings(a as never),
  inspect_root: (f, a) => f.inspectRoot(a.path as string, (a.db_path as string) ?? null),
  create_sample_root: (f, a) => f.createSampleRoot(a.path as string),
  test_mem0: (f, a) => f.testMem0(a as never),
};

function restServer(fake: FakeBackend) {
  const enc = new TextEncoder();
  const streams = new Set<ReadableStreamDefaultController<Uint8Array>>();
  const send = (text: string) =>
    streams.forEach((c) => {
      try {
        c.enqueue(enc.encode(text));
      } catch {
        streams.delete(c);
      }
    });
  fake.onChange((e) => send(`data: ${JSON.stringify(e)}\n\n`));
  const state = { running: false, progressEvents: 0, requests: [] as string[] };
  const reply = (status: number, body: object) => new Response(JSON.stringify({ timestamp: Date.now(), ...body }), { status, headers: { "Content-Type": "application/json" } });
  const ok = (data: unknown) => reply(200, { code: 0, message: "success", data: data ?? null });
  const fail = (e: unknown) => {
    const err = BackendError.from(e);
    const status = HTTP_STATUS[err.code] ?? 400;
    return reply(status, { code: status, message: err.message, data: null, error_code: err.code });
  };
  const fetch = async (input: string, init: RequestInit = {}): Promise<Response> => {
    const url = new URL(input, "http://127.0.0.1");
    const path = url.pathname.replace(/^\/api\/v1\/console/, "");
    const method = init.method ?? "GET";
    const body = typeof init.body === "string" ? JSON.parse(init.body) : undefined;
    state.requests.push(`${method} ${path}`);
    if (path === "/events") {
      let ctl!: ReadableStreamDefaultController<Uint8Array>;
      const stream = new ReadableStream<Uint8Array>({ start: (c) => void (ctl = c) });
      streams.add(ctl);
      init.signal?.addEventListener("abort", () => {
        streams.delete(ctl);
        ctl.error(new DOMException("aborted", "AbortError"));
      });
      return new Response(stream, { status: 200, headers: { "Content-Type": "text/event-stream" } });
    }
    try {
      switch (`${method} ${path}`) {
        case "POST /migrate":
          if (state.running) return fail(new BackendError("conflict", "a migration is already running on this server"));
          state.running = true;
          try {
            return ok(
              await fake.migrate(body, (p) => {
                state.progressEvents += 1;
                send(`event: migration\ndata: ${JSON.stringify(p)}\n\n`);
              }),
            );
          } finally {
            state.running = false;
          }
        case "POST /migrate/cancel":
          if (!state.running) return fail(new BackendError("conflict", "no migration is running on this server"));
          await fake.cancelMigration();
          return ok(null);
      }
      // Every other operation: POST /<op> with its arguments, answered by the fake.
      const op = OPS[path.slice(1)];
      if (method === "POST" && op) return ok(await op(fake, body ?? {}));
      return reply(404, { code: 404, message: "no such API route", data: null });
    } catch (e) {
      return fail(e);
    }
  };
  return {
    fetch,
    get progressEvents() {
      return state.progressEvents;
    },
    requests: state.requests,
  };
}

/** Settings page, choose `to`, press Save: the dialog opens with the dry run. */
async function openSwitch(to: "sqlite" | "mem0" | "markdown", opts: FakeOptions = {}, beforeSave?: () => void) {
  const r = renderApp("#/settings", opts);
  fireEvent.click(await screen.findByTestId(`settings-backend-${to}`));
  beforeSave?.();
  fireEvent.click(screen.getByTestId("settings-save"));
  const dialog = await screen.findByTestId("migrate-dialog");
  return { ...r, dialog };
}

const methods = (b: { calls: { method: string }[] }) => b.calls.map((c) => c.method);
const updates = (b: { calls: { method: string; args: unknown[] }[] }) => b.calls.filter((c) => c.method === "updateSettings").map((c) => c.args[0] as SettingsDto);
const cell = (row: HTMLElement, col: string) => row.querySelector(`[data-col="${col}"]`)!.textContent;

describe("Switching the memory backend", () => {
  it("shows the dry run per owner: entries in the old backend, already in the new, missing", async () => {
    const expected = await createFakeBackend().migrate({ from: "markdown", to: "sqlite", agent: null, dry_run: true }, () => {});
    const { backend } = await openSwitch("sqlite");
    const row = await screen.findByTestId("migrate-row-assistant");
    const a = expected.owners.find((o) => o.owner === "assistant")!;
    const n = (x: number) => x.toLocaleString("en-US");
    expect(cell(row, "found")).toBe(n(a.found));
    expect(cell(row, "target_before")).toBe(n(a.target_before));
    expect(cell(row, "missing")).toBe(n(a.copied));
    expect(a.copied).toBe(a.found - 3); // three were copied in an earlier run
    expect(screen.getByTestId("migrate-row-global")).toHaveTextContent("Global memory");
    expect(cell(screen.getByTestId("migrate-row-total"), "missing")).toBe(n(expected.total.copied));
    expect(screen.getByTestId("migrate-copy")).toHaveTextContent(`Copy ${n(expected.total.copied)} missing entries and switch`);
    // Nothing saved yet: the dialog decides.
    expect(updates(backend)).toEqual([]);
    expect(screen.getByTestId("backend-badge")).toHaveTextContent("markdown");
    expect(backend.calls.find((c) => c.method === "migrate")!.args[0]).toEqual({ from: "markdown", to: "sqlite", agent: null, dry_run: true });
  });

  it("copies with a determinate progress bar, verifies 0 missing, then saves the new backend", async () => {
    const { backend } = await openSwitch("sqlite", { migrateDelayMs: 2 });
    const total = (await backend.migrate({ from: "markdown", to: "sqlite", agent: null, dry_run: true }, () => {})).total;
    fireEvent.click(await screen.findByTestId("migrate-copy"));
    const bar = await screen.findByTestId("migrate-progress");
    await waitFor(() => expect(Number(bar.getAttribute("data-done"))).toBeGreaterThan(0));
    expect(bar).toHaveAttribute("aria-valuemax", String(total.found));
    expect(screen.getByTestId("migrate-progress-text")).toHaveTextContent(new RegExp(`\\d+ of ${total.found.toLocaleString("en-US")} entries\\s*·\\s*assistant`));
    expect(updates(backend)).toEqual([]);

    const verified = await screen.findByTestId("migrate-verified", undefined, LONG);
    expect(verified).toHaveTextContent("Verified: all 8 owners have 0 entries missing in SQLite.");
    for (const row of within(screen.getByTestId("migrate-result")).getAllByRole("row").slice(1)) expect(cell(row, "still_missing")).toBe("0");
    expect(cell(screen.getByTestId("migrate-result-assistant"), "skipped")).toBe("3");
    await screen.findByTestId("migrate-switched");
    // Order: dry run, copy, dry run again, and only then the save.
    expect(methods(backend).filter((m) => m === "migrate" || m === "updateSettings").slice(-4)).toEqual(["migrate", "migrate", "migrate", "updateSettings"]);
    expect(updates(backend).map((u) => u.backend)).toEqual(["sqlite"]);
    expect(screen.getByTestId("backend-badge")).toHaveTextContent("sqlite");
    const md = backend.entriesIn("markdown", "assistant");
    expect(backend.entriesIn("sqlite", "assistant").archival).toBeGreaterThanOrEqual(md.archival);

    fireEvent.click(screen.getByTestId("migrate-done"));
    expect(screen.queryByTestId("migrate-dialog")).toBeNull();
    expect(screen.getByTestId("settings-saved")).toBeInTheDocument();
  });

  it("cancels mid-way: nothing saved, the copied part stays, copying again completes it", async () => {
    const { backend } = await openSwitch("sqlite", { migrateDelayMs: 4 });
    const count = () => {
      const n = backend.entriesIn("sqlite", "assistant");
      return n.core + n.archival;
    };
    const before = count();
    fireEvent.click(await screen.findByTestId("migrate-copy"));
    const bar = await screen.findByTestId("migrate-progress");
    await waitFor(() => expect(Number(bar.getAttribute("data-done"))).toBeGreaterThanOrEqual(5), LONG);
    fireEvent.click(screen.getByTestId("migrate-cancel"));
    expect(methods(backend)).toContain("cancelMigration");
    const outcome = await screen.findByTestId("migrate-outcome", undefined, LONG);
    expect(outcome).toHaveTextContent("Copy cancelled — still using Markdown");
    expect(outcome).toHaveTextContent(/The \d+ entries copied so far stay in SQLite\. Running the copy again skips them/);
    expect(updates(backend)).toEqual([]);
    expect(screen.getByTestId("backend-badge")).toHaveTextContent("markdown");
    const copied = count() - before;
    expect(copied).toBeGreaterThan(0);
    expect(cell(screen.getByTestId("migrate-result-assistant"), "copied")).toBe(String(copied));

    const again = screen.getByTestId("migrate-copy");
    expect(again).toHaveTextContent(/Copy the remaining \d+ entries and switch/);
    fireEvent.click(again);
    await screen.findByTestId("migrate-verified", undefined, LONG);
    await waitFor(() => expect(updates(backend).map((u) => u.backend)).toEqual(["sqlite"]));
  });

  it("shows a mem0 failure clearly and does not switch; after mem0 is back, a re-run completes it", async () => {
    const { backend } = await openSwitch("mem0", { mem0FailAfter: 20 }, () => {
      fireEvent.change(screen.getByTestId("settings-mem0-url"), { target: { value: FAKE_MEM0_URL } });
    });
    // The new URL had to be stored first (backend unchanged), because migrate reads the stored settings.
    expect(updates(backend)).toMatchObject([{ backend: "markdown", mem0_base_url: FAKE_MEM0_URL }]);
    expect(await screen.findByTestId("migrate-presaved")).toBeInTheDocument();
    const seeded = Number(cell(await screen.findByTestId("migrate-row-assistant"), "target_before"));
    expect(seeded).toBeGreaterThan(0); // an earlier test run left some entries on the server
    fireEvent.click(await screen.findByTestId("migrate-copy"));

    const outcome = await screen.findByTestId("migrate-outcome", undefined, LONG);
    expect(outcome).toHaveTextContent("The copy did not complete — still using Markdown");
    expect(outcome).toHaveTextContent("The 20 entries copied so far stay in mem0.");
    expect(screen.getByTestId("migrate-error")).toHaveTextContent(`mem0 at ${FAKE_MEM0_URL} is unreachable (add a memory): Connection refused`);
    expect(cell(screen.getByTestId("migrate-result-assistant"), "failed")).not.toBe("0");
    expect(updates(backend).map((u) => u.backend)).toEqual(["markdown"]);
    expect(screen.getByTestId("backend-badge")).toHaveTextContent("markdown");

    backend.setMem0Down(false);
    fireEvent.click(screen.getByTestId("migrate-recount"));
    const row = await screen.findByTestId("migrate-row-assistant");
    expect(Number(cell(row, "target_before"))).toBe(seeded + 20); // copied before the failure
    fireEvent.click(screen.getByTestId("migrate-copy"));
    await screen.findByTestId("migrate-verified", undefined, LONG);
    await waitFor(() => expect(updates(backend).map((u) => u.backend)).toEqual(["markdown", "mem0"]));
    expect(screen.getByTestId("backend-badge")).toHaveTextContent("mem0");
  });

  it("says what switching without copying means before it is pressed, and then saves directly", async () => {
    const { backend } = await openSwitch("sqlite");
    await screen.findByTestId("migrate-row-assistant");
    const warning = screen.getByTestId("migrate-skip-warning");
    const dry = await createFakeBackend().migrate({ from: "markdown", to: "sqlite", agent: null, dry_run: true }, () => {});
    expect(warning).toHaveTextContent(
      `If you switch without copying: SQLite will show only the ${dry.total.target_before} entries it already holds. The ${dry.total.copied} entries it is missing stay in Markdown, and the agents will not see them.`,
    );
    expect(warning).toHaveTextContent("Nothing is deleted: the old entries stay in Markdown.");
    expect(updates(backend)).toEqual([]);
    fireEvent.click(screen.getByTestId("migrate-skip"));
    await waitFor(() => expect(screen.queryByTestId("migrate-dialog")).toBeNull());
    expect(updates(backend).map((u) => u.backend)).toEqual(["sqlite"]);
    expect(backend.calls.filter((c) => c.method === "migrate").every((c) => (c.args[0] as { dry_run: boolean }).dry_run)).toBe(true);
    expect(screen.getByTestId("backend-badge")).toHaveTextContent("sqlite");
    expect(screen.getByTestId("settings-saved")).toBeInTheDocument();
  });

  it("offers a single Switch when nothing is missing", async () => {
    const { backend } = await openSwitch("markdown", { backend: "sqlite" }, () => {});
    // sqlite → markdown: the fake's markdown files lack sqlite's entries, so first fill them.
    fireEvent.keyDown(screen.getByTestId("migrate-dialog"), { key: "Escape" });
    await backend.migrate({ from: "sqlite", to: "markdown", agent: null, dry_run: false }, () => {});
    fireEvent.click(screen.getByTestId("settings-save"));
    expect(await screen.findByTestId("migrate-nothing")).toHaveTextContent("Markdown already holds every entry of SQLite");
    expect(screen.queryByTestId("migrate-copy")).toBeNull();
    expect(screen.queryByTestId("migrate-skip")).toBeNull();
    expect(screen.queryByTestId("migrate-skip-warning")).toBeNull();
    fireEvent.click(screen.getByTestId("migrate-switch"));
    await waitFor(() => expect(screen.queryByTestId("migrate-dialog")).toBeNull());
    expect(updates(backend).map((u) => u.backend)).toEqual(["markdown"]);
  });

  it("keeps focus inside, starts on the primary button, and Escape closes without saving", async () => {
    const { backend, dialog } = await openSwitch("sqlite");
    const copy = await screen.findByTestId("migrate-copy");
    await waitFor(() => expect(document.activeElement).toBe(copy));
    const buttons = within(dialog).getAllByRole("button");
    expect(buttons.at(-1)).toBe(copy);
    fireEvent.keyDown(copy, { key: "Tab" });
    expect(document.activeElement).toBe(buttons[0]);
    fireEvent.keyDown(buttons[0]!, { key: "Tab", shiftKey: true });
    expect(document.activeElement).toBe(copy);
    // Focus that leaves (a click behind the backdrop) comes back.
    screen.getByTestId("settings-root").focus();
    expect(dialog.contains(document.activeElement)).toBe(true);

    fireEvent.keyDown(dialog, { key: "Escape" });
    expect(screen.queryByTestId("migrate-dialog")).toBeNull();
    expect(updates(backend)).toEqual([]);
    expect(screen.getByTestId("settings-not-switched")).toHaveTextContent("Not switched: the memory backend is still Markdown.");
    expect(screen.getByTestId("settings-backend-sqlite")).toBeChecked();
  });

  it("says clearly when the dry run cannot read mem0, and offers no copy", async () => {
    await openSwitch("mem0", { mem0Url: FAKE_MEM0_URL, mem0Down: true });
    expect(await screen.findByTestId("migrate-error")).toHaveTextContent(`mem0 at ${FAKE_MEM0_URL} is unreachable (list memories)`);
    expect(screen.getByTestId("migrate-row-assistant")).toHaveTextContent("unreachable");
    expect(screen.queryByTestId("migrate-copy")).toBeNull();
    expect(screen.getByTestId("migrate-recount")).toBeInTheDocument();
    expect(screen.getByTestId("migrate-skip-warning")).toHaveTextContent("mem0 will show only what it already holds.");
  });

  it("over REST (oryx serve): a determinate bar fed by /events, Cancel stops it, copying again completes it", async () => {
    const fake = createFakeBackend({ language: "en", migrateDelayMs: 4 });
    const server = restServer(fake);
    vi.stubGlobal("fetch", server.fetch);
    window.location.hash = "#/settings";
    const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false, staleTime: 0, refetchOnWindowFocus: false }, mutations: { retry: false } } });
    render(<AppRoot backend={createHttpBackend("", null)} queryClient={queryClient} />);
    fireEvent.click(await screen.findByTestId("settings-backend-sqlite"));
    fireEvent.click(screen.getByTestId("settings-save"));
    await screen.findByTestId("migrate-dialog");
    fireEvent.click(await screen.findByTestId("migrate-copy"));

    const bar = await screen.findByTestId("migrate-progress");
    expect(bar).not.toHaveAttribute("data-indeterminate");
    await waitFor(() => expect(Number(bar.getAttribute("data-done"))).toBeGreaterThanOrEqual(5), LONG);
    expect(screen.getByTestId("migrate-progress-text")).toHaveTextContent(/\d+ of [\d,]+ entries/);
    expect(screen.queryByText(/reports no progress and cannot be cancelled/)).toBeNull();
    expect(server.progressEvents).toBeGreaterThanOrEqual(5);
    fireEvent.click(screen.getByTestId("migrate-cancel"));
    const outcome = await screen.findByTestId("migrate-outcome", undefined, LONG);
    expect(outcome).toHaveTextContent("Copy cancelled — still using Markdown");
    expect(server.requests).toContain("POST /migrate/cancel");
    expect(methods(fake)).toContain("cancelMigration");
    expect(updates(fake)).toEqual([]);

    fireEvent.click(screen.getByTestId("migrate-copy"));
    await screen.findByTestId("migrate-verified", undefined, LONG);
    await waitFor(() => expect(updates(fake).map((u) => u.backend)).toEqual(["sqlite"]));
  });

  it("shows the dialog in Chinese", async () => {
    await openSwitch("sqlite", { language: "zh" });
    expect(await screen.findByTestId("migrate-copy")).toHaveTextContent(/^复制缺少的 [\d,]+ 条并切换$/);
    expect(screen.getByTestId("migrate-dialog")).toHaveTextContent("切换记忆后端：Markdown → SQLite");
    expect(screen.getByTestId("migrate-row-global")).toHaveTextContent("全局记忆");
  });
});

describe("mem0 settings", () => {
  it("has URL, user id (default oryxos), write-only key and timeout; tests the values as typed", async () => {
    const { backend } = renderApp("#/settings");
    expect(screen.queryByTestId("settings-mem0-url")).toBeNull();
    fireEvent.click(await screen.findByTestId("settings-backend-mem0"));
    expect(screen.getByTestId("settings-mem0-user")).toHaveValue("oryxos");
    expect(screen.getByTestId("settings-mem0-key")).toHaveAttribute("type", "password");
    expect(screen.getByTestId("settings-mem0-timeout")).toHaveValue(10000);
    // No URL yet: neither test nor save.
    expect(screen.getByText("Enter the mem0 base URL.")).toBeInTheDocument();
    expect(screen.getByTestId("settings-save")).toBeDisabled();
    expect(screen.getByTestId("settings-mem0-test")).toBeDisabled();

    fireEvent.change(screen.getByTestId("settings-mem0-url"), { target: { value: "http://10.0.0.9:8000" } });
    fireEvent.click(screen.getByTestId("settings-mem0-test"));
    const down = await screen.findByTestId("settings-mem0-status");
    expect(down).toHaveAttribute("data-ok", "false");
    expect(down).toHaveTextContent("Cannot use mem0 at http://10.0.0.9:8000");
    expect(down).toHaveTextContent("unreachable (list memories): Connection refused");

    fireEvent.change(screen.getByTestId("settings-mem0-url"), { target: { value: FAKE_MEM0_URL } });
    expect(screen.queryByTestId("settings-mem0-status")).toBeNull();
    fireEvent.change(screen.getByTestId("settings-mem0-key"), { target: { value: "sk-typed" } });
    fireEvent.click(screen.getByTestId("settings-mem0-test"));
    expect(await screen.findByTestId("settings-mem0-status")).toHaveTextContent(`Connected to ${FAKE_MEM0_URL}: the global memory holds 0 entries.`);
    const tested = backend.calls.filter((c) => c.method === "testMem0").at(-1)!.args[0] as SettingsDto;
    expect(tested).toMatchObject({ mem0_base_url: FAKE_MEM0_URL, mem0_api_key: "sk-typed", mem0_user_id: "oryxos", backend: "mem0" });
    expect(updates(backend)).toEqual([]);
  });

  it("sends the API key only when typed and keeps a stored one when left empty", async () => {
    const { backend } = renderApp("#/settings", { backend: "mem0", mem0Url: FAKE_MEM0_URL });
    fireEvent.change(await screen.findByTestId("settings-mem0-key"), { target: { value: "sk-1" } });
    fireEvent.click(screen.getByTestId("settings-save"));
    await screen.findByTestId("settings-saved");
    expect(updates(backend)[0]).toMatchObject({ mem0_api_key: "sk-1" });
    expect(screen.getByTestId("settings-mem0-key")).toHaveValue("");
    expect(screen.getByTestId("settings-mem0-key-stored")).toHaveTextContent("stored");

    fireEvent.change(screen.getByTestId("settings-mem0-timeout"), { target: { value: "5000" } });
    fireEvent.click(screen.getByTestId("settings-save"));
    await waitFor(() => expect(updates(backend)).toHaveLength(2));
    expect(updates(backend)[1]).toMatchObject({ mem0_api_key: null, mem0_api_key_set: true, mem0_timeout_ms: 5000 });
    await screen.findByTestId("settings-saved");
    expect(screen.getByTestId("settings-mem0-key-stored")).toBeInTheDocument();

    fireEvent.click(screen.getByTestId("settings-mem0-key-forget"));
    expect(screen.getByText("The stored key will be removed when you save.")).toBeInTheDocument();
    fireEvent.click(screen.getByTestId("settings-save"));
    await waitFor(() => expect(updates(backend)).toHaveLength(3));
    expect(updates(backend)[2]).toMatchObject({ mem0_api_key: null, mem0_api_key_set: false });
    await screen.findByTestId("settings-saved");
    expect(screen.queryByTestId("settings-mem0-key-stored")).toBeNull();
  });
});

describe("mem0 listing limit", () => {
  it("warns on the Memory tab when mem0 returned a full page", async () => {
    renderApp("#/agents/assistant", { backend: "mem0", mem0Url: FAKE_MEM0_URL, mem0Archival: 1200 });
    expect(await screen.findByTestId("memory-possibly-more")).toHaveTextContent("mem0 returned 1000 entries, the most it lists at once: there may be more");
    expect(screen.getByTestId("memory-source")).toHaveTextContent(FAKE_MEM0_URL);
  });

  it("shows no warning below the limit", async () => {
    renderApp("#/agents/assistant", { backend: "mem0", mem0Url: FAKE_MEM0_URL });
    await screen.findByTestId("memory-source");
    expect(screen.queryByTestId("memory-possibly-more")).toBeNull();
  });

  it("warns in Chinese", async () => {
    renderApp("#/agents/assistant", { backend: "mem0", mem0Url: FAKE_MEM0_URL, mem0Archival: 1000, language: "zh" });
    expect(await screen.findByTestId("memory-possibly-more")).toHaveTextContent("mem0 返回了 1000 条，这是它一次最多列出的数量：可能还有更多");
  });
});
