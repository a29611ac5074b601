import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";

import { BackendProvider } from "../../backend/context";
import type { OpResult } from "../../backend/client";
import type { ForgetDto, ForgetReceiptDto, MemoryViewDto } from "../../backend/types";
import { I18nProvider, type Lang } from "../../i18n";
import { createRecordedBackend, recordedResult, type RecordedBackend } from "../../test/recorded";
import { renderApp } from "../../test/render";
import { ForgetDialog, type ForgetSubject } from "./ForgetDialog";

// The "notes" agent of the curation states (fixed ids in every recording).
const A2 = { id: "a2-a2d8b95d", content: "提醒：周五 10:00 续期 TLS 证书。" };
const TWO = ["a0-128f67ec", "a1-fd68ec8b"];

const rowOf = (id: string) => document.querySelector<HTMLElement>(`[data-testid="archival-row"][data-entry-id="${id}"]`);
const sent = (b: RecordedBackend, op: string) => b.calls.filter((c) => c.op === op).map((c) => c.args);

async function openNotes(state: Parameters<typeof renderApp>[1] = "curation") {
  const r = renderApp("#/agents/notes", state);
  await waitFor(() => expect(rowOf(TWO[0]!) ?? rowOf("a0-81aa30e9")).not.toBeNull());
  return r;
}

/** The forget's answers once started: the dry run's plan, running, then how it ended. */
function job(plan: ForgetDto, over: Partial<ForgetDto>): ForgetDto {
  return { ...plan, dry_run: false, state: "running", step: null, receipt: null, error: null, ...over };
}

/** Answers dry runs from the recording, and a started forget from `started` (a real forget's
 * progress cannot be recorded: it runs in the background). */
function stubForget(b: RecordedBackend, state: Parameters<typeof recordedResult>[0], started: ForgetDto) {
  b.stub("forget", (args) => {
    const a = args as { dry_run: boolean };
    if (a.dry_run) return recordedResult(state, "forget", a as Parameters<typeof recordedResult<"forget">>[2]);
    return started;
  });
}

function renderDialog(subject: ForgetSubject, lang: Lang = "en", state: Parameters<typeof createRecordedBackend>[0] = "demo") {
  const backend = createRecordedBackend(state);
  const client = new QueryClient({ defaultOptions: { queries: { retry: false, staleTime: 0 }, mutations: { retry: false } } });
  let closed: boolean | null = null;
  render(
    <BackendProvider backend={backend}>
      <QueryClientProvider client={client}>
        <I18nProvider lang={lang}>
          <ForgetDialog subject={subject} onClose={(ran) => (closed = ran)} />
        </I18nProvider>
      </QueryClientProvider>
    </BackendProvider>,
  );
  return { backend, closed: () => closed };
}

describe("Forget dialog", () => {
  it("dry run by place, confirm only once ticked, progress and cancel, then what was erased and left", async () => {
    const { backend } = await openNotes();
    const args = { agent: "notes", ids: [A2.id], dry_run: true };
    const plan = recordedResult("curation", "forget", args);
    const running = job(plan, {});
    stubForget(backend, "curation", running);
    let state: ForgetDto = job(plan, { step: { done: 1, of: 3, place: "history" } });
    backend.stub("forget_state", () => state);
    backend.stub("cancel_forget", () => {
      state = job(plan, {
        state: "cancelled",
        // The delete's own history record was erased too, counted apart from what was found.
        erased: plan.found.map((c) => (c.place === "memory" ? { ...c, own: 1 } : c)),
        left: [{ place: "runtime_sessions", path: "/home/linxiao/.oryxos/oryxos.db", count: 2, reason: "cancelled before this place", why: "cancelled", arg: null }],
        receipt: "forget-1",
      });
      return true;
    });

    fireEvent.click(within(rowOf(A2.id)!).getByTestId("row-forget"));
    const dialog = await screen.findByTestId("forget-dialog");
    expect(dialog).toHaveTextContent("Forget 1 entry everywhere");
    // The dry run, by place: a readable name, the count, the path.
    const place = await within(dialog).findByTestId("forget-place");
    expect(place).toHaveAttribute("data-place", "memory");
    expect(place).toHaveTextContent("Memory entries");
    expect(within(place).getByTestId("forget-place-count")).toHaveTextContent("1");
    expect(place).toHaveTextContent("/home/linxiao/.oryxos/agents/notes/MEMORY.md");
    expect(sent(backend, "forget")).toEqual([args]);
    // Said before confirming; the confirm waits for the tick, then takes the focus.
    expect(within(dialog).getByTestId("forget-warning")).toHaveTextContent("A forget cannot be undone");
    const confirm = within(dialog).getByTestId("forget-confirm");
    expect(confirm).toHaveTextContent("Forget 1 copy");
    expect(confirm).toBeDisabled();
    expect(document.activeElement).toBe(within(dialog).getByTestId("forget-understand"));
    fireEvent.click(within(dialog).getByTestId("forget-how-mask"));
    fireEvent.click(within(dialog).getByTestId("forget-understand"));
    expect(confirm).toBeEnabled();
    await waitFor(() => expect(document.activeElement).toBe(confirm));
    fireEvent.click(confirm);

    // Running: the place it is at, and Cancel; Escape does not close it.
    const progress = await within(dialog).findByTestId("forget-progress");
    expect(progress).toHaveTextContent("Place 1 of 3: The console's history");
    expect(sent(backend, "forget")[1]).toEqual({ agent: "notes", ids: [A2.id], mask: true, dry_run: false });
    fireEvent.keyDown(dialog, { key: "Escape" });
    expect(screen.getByTestId("forget-dialog")).toBeInTheDocument();
    fireEvent.click(within(dialog).getByTestId("forget-stop"));

    const result = await within(dialog).findByTestId("forget-result", undefined, { timeout: 4000 });
    expect(result).toHaveAttribute("data-state", "cancelled");
    expect(within(result).getByTestId("forget-state")).toHaveTextContent("Cancelled");
    expect(within(result).getByTestId("forget-erased")).toHaveTextContent("Memory entries");
    expect(within(result).getByTestId("forget-own")).toHaveTextContent("and 1 record its own delete wrote here");
    const left = within(result).getByTestId("forget-left");
    expect(left).toHaveTextContent("The runtime's sessions");
    expect(within(left).getByTestId("forget-reason")).toHaveTextContent("Cancelled before this place was reached: forget again to finish.");
    expect(within(result).getByTestId("forget-receipt")).toHaveTextContent("forget-1");

    // Closing asks every screen's data again.
    const before = sent(backend, "memory_overview").length;
    fireEvent.click(within(dialog).getByTestId("forget-close"));
    await waitFor(() => expect(screen.queryByTestId("forget-dialog")).toBeNull());
    await waitFor(() => expect(sent(backend, "memory_overview").length).toBeGreaterThan(before));
  });

  it("forgets a typed text across all agents; nothing found says so and offers no confirm", async () => {
    const { backend } = await openNotes();
    fireEvent.click(screen.getByTestId("forget-text-open"));
    const dialog = await screen.findByTestId("forget-dialog");
    expect(dialog).toHaveTextContent("Forget a text everywhere");
    expect(within(dialog).getByTestId("forget-find")).toBeDisabled();
    expect(within(dialog).getByTestId("forget-scope-owner").parentElement).toHaveTextContent("Only notes");
    fireEvent.change(within(dialog).getByTestId("forget-text"), { target: { value: "no such text anywhere" } });
    fireEvent.click(within(dialog).getByTestId("forget-scope-all"));
    fireEvent.click(within(dialog).getByTestId("forget-find"));
    expect(await within(dialog).findByTestId("forget-nothing")).toHaveTextContent("No copy found");
    expect(within(dialog).queryByTestId("forget-confirm")).toBeNull();
    expect(sent(backend, "forget")).toEqual([{ agent: null, all_agents: true, text: "no such text anywhere", dry_run: true }]);
    // Back to the text: this agent only.
    fireEvent.click(within(dialog).getByTestId("forget-change-text"));
    fireEvent.change(within(dialog).getByTestId("forget-text"), { target: { value: "Lin" } });
    fireEvent.click(within(dialog).getByTestId("forget-scope-owner"));
    fireEvent.submit(within(dialog).getByTestId("forget-text"));
    expect(await within(dialog).findByTestId("forget-place")).toHaveTextContent("2 copies");
    expect(sent(backend, "forget")[1]).toEqual({ agent: "notes", all_agents: false, text: "Lin", dry_run: true });
    fireEvent.keyDown(dialog, { key: "Escape" });
    await waitFor(() => expect(screen.queryByTestId("forget-dialog")).toBeNull());
    expect(sent(backend, "forget").length).toBe(2);
  });

  it("names the runtime's records it changes, in Chinese", async () => {
    const text = "用户更喜欢早上收到简报";
    renderDialog({ kind: "text", agent: "assistant", text }, "zh");
    const dialog = await screen.findByTestId("forget-dialog");
    expect(dialog).toHaveTextContent("彻底遗忘一段文字");
    expect(within(dialog).getByTestId("forget-text")).toHaveValue(text);
    fireEvent.click(within(dialog).getByTestId("forget-scope-all"));
    fireEvent.click(within(dialog).getByTestId("forget-find"));
    const records = await within(dialog).findByTestId("forget-runtime-records");
    expect(records).toHaveTextContent("此次遗忘会改动运行时的以下记录");
    expect(records).toHaveTextContent("tool_invocations.input_json");
    expect(records).toHaveTextContent("sessions.messages_json");
    const places = within(dialog).getAllByTestId("forget-place").map((p) => p.textContent);
    expect(places[0]).toContain("运行时的工具调用");
    expect(places[1]).toContain("运行时的会话");
    expect(within(dialog).getByTestId("forget-warning")).toHaveTextContent("遗忘无法撤销");
    expect(within(dialog).getByTestId("forget-understand").parentElement).toHaveTextContent("我明白此操作无法撤销");
    expect(within(dialog).getByTestId("forget-confirm")).toHaveTextContent("遗忘 16 处副本");
    expect(within(dialog).queryByTestId("forget-runtime-running")).toBeNull();
  });

  it("says what a running runtime keeps, and what is beyond reach with its reason", async () => {
    const { backend } = renderDialog({ kind: "entries", agent: "assistant", ids: ["c2-1"] });
    const plan: ForgetDto = {
      ...recordedResult("demo", "forget", { agent: null, all_agents: true, text: "周末不要安排会议", dry_run: true }),
      runtime_running: true,
      left: [{ place: "git", path: "/home/linxiao/.oryxos", count: 1, reason: "committed in 3f2a91c0d; …", why: "git", arg: "3f2a91c0d" }],
    };
    backend.stub("forget", () => plan);
    const dialog = await screen.findByTestId("forget-dialog");
    expect(await within(dialog).findByTestId("forget-runtime-running")).toHaveTextContent("sessions it may still write are left");
    const beyond = within(dialog).getByTestId("forget-beyond");
    expect(beyond).toHaveTextContent("Git history");
    expect(beyond).toHaveTextContent("git filter-repo");
    expect(beyond).toHaveTextContent("Committed in 1 commit (3f2a91c0d)");
    expect(within(dialog).getByTestId("forget-found")).toHaveTextContent("The console's write journal");
  });

  it("ends done, and a failed forget shows its error", async () => {
    const { backend } = renderDialog({ kind: "entries", agent: "assistant", ids: ["c2-1"] });
    const plan = recordedResult("demo", "forget", { agent: null, all_agents: true, text: "周末不要安排会议", dry_run: true });
    backend.stub("forget", (a) => ((a as { dry_run: boolean }).dry_run ? plan : job(plan, { state: "failed", error: "disk full" })));
    backend.stub("forget_state", () => job(plan, { state: "failed", error: "disk full" }));
    const dialog = await screen.findByTestId("forget-dialog");
    fireEvent.click(await within(dialog).findByTestId("forget-understand"));
    // Enter on the ticked box confirms.
    fireEvent.keyDown(within(dialog).getByTestId("forget-understand"), { key: "Enter" });
    const result = await within(dialog).findByTestId("forget-result");
    expect(result).toHaveAttribute("data-state", "failed");
    expect(within(result).getByTestId("forget-state")).toHaveTextContent("Failed");
    expect(within(result).getByTestId("forget-state")).toHaveTextContent("disk full");
  });
});

describe("Where a forget starts", () => {
  it("the selection's bar forgets the selected entries", async () => {
    const { backend } = await openNotes();
    fireEvent.click(within(rowOf(TWO[0]!)!).getByTestId("row-select"));
    fireEvent.click(within(rowOf(TWO[1]!)!).getByTestId("row-select"), { shiftKey: true });
    fireEvent.click(await screen.findByTestId("bulk-forget"));
    const dialog = await screen.findByTestId("forget-dialog");
    expect(dialog).toHaveTextContent("Forget 2 entries everywhere");
    expect(await within(dialog).findByTestId("forget-place")).toHaveTextContent("2 copies");
    expect(sent(backend, "forget")).toEqual([{ agent: "notes", ids: TWO, dry_run: true }]);
  });

  it("a secret found by Memory health offers Forget everywhere beside its masked edit", async () => {
    const secret = { id: "a140-15da47d1", content: "token ghp_abcdefghijklmnopqrstuvwxyz0123456789 for CI" };
    const r = renderApp("#/agents/assistant/health");
    const view = {
      agent: "assistant",
      backend: "markdown",
      source: "/home/linxiao/.oryxos/agents/assistant/MEMORY.md",
      core: [],
      archival: [{ id: secret.id, timestamp: null, content: secret.content, line: "", in_window: true }],
      window: { limit: 4000, chars: 100, in_window: 1, outside: 0 },
      context: "",
      possibly_more: false,
      paged_reason: null,
    } as unknown as MemoryViewDto;
    r.backend.stub("memory_view", () => view);
    r.backend.stub("memory_health", () => ({
      agent: "assistant",
      findings: [
        {
          check: "secrets",
          kind: "github_token",
          entry_ids: [secret.id],
          reason: "holds what looks like a secret (github_token)",
          params: { kinds: "github_token" },
          fix: { op: "edit", ids: [secret.id], content: "token ghp_…[masked] for CI" },
        },
      ],
      budget: null,
      dismissed: 0,
      hints: [],
    }));
    r.backend.stub("memory_stats", () => ({ agent: "assistant", days: [], undated: 0, window_reach_days: null, in_window: 0, outside_window: 0, reach_back: [] }));
    r.backend.stub("propose_summary", () => null);
    const plan = recordedResult("demo", "forget", { agent: null, all_agents: true, text: "周末不要安排会议", dry_run: true });
    r.backend.stub("forget", () => plan);
    const group = await screen.findByTestId("health-group-secrets");
    expect(within(group).getByTestId("finding-fix")).toHaveTextContent("Mask");
    fireEvent.click(within(group).getByTestId("finding-forget"));
    const dialog = await screen.findByTestId("forget-dialog");
    await within(dialog).findByTestId("forget-found");
    expect(sent(r.backend, "forget")).toEqual([{ agent: "assistant", ids: [secret.id], dry_run: true }]);
  });
});

describe("History after a forget", () => {
  const RECEIPTS: ForgetReceiptDto[] = [
    {
      id: "forget-2",
      at: "2026-12-06 10:00:00",
      ended: null,
      state: "interrupted",
      scope: "all agents and the global memory, a text",
      ask: { kind: "text", agent: null, all_agents: true, entries: 0 },
      mask: false,
      text_sha256: ["9f2c4e1a7b3d5f60718293a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4"],
      searched: ["memory", "history"],
      found: [{ place: "memory", path: "/home/linxiao/.oryxos/agents/notes/MEMORY.md", count: 2, detail: "notes", own: 0 }],
      erased: [],
      left: [],
    },
    {
      id: "forget-1",
      at: "2026-12-05 09:00:00",
      ended: "2026-12-05 09:00:02",
      state: "done",
      scope: "notes, 1 entry",
      ask: null,
      mask: true,
      text_sha256: ["0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"],
      searched: ["memory", "history", "git"],
      found: [
        { place: "memory", path: "/home/linxiao/.oryxos/agents/notes/MEMORY.md", count: 1, detail: "notes", own: 0 },
        { place: "history", path: "/home/linxiao/.oryxos/agents/notes/MEMORY.md.oryx-history", count: 2, detail: null, own: 0 },
      ],
      erased: [
        { place: "memory", path: "/home/linxiao/.oryxos/agents/notes/MEMORY.md", count: 1, detail: "notes", own: 0 },
        { place: "history", path: "/home/linxiao/.oryxos/agents/notes/MEMORY.md.oryx-history", count: 2, detail: null, own: 0 },
        { place: "journal", path: "/home/linxiao/.oryxos/agents/notes/MEMORY.md.oryx-journal", count: 0, detail: null, own: 1 },
      ],
      left: [{ place: "git", path: "/home/linxiao/.oryxos", count: 1, reason: "in git history: rewrite it to forget", why: "a-newer-code", arg: null }],
    },
  ];

  it("a forgotten change shows its tag, no text, no undo, no restore; the receipts list the forgets", async () => {
    const { backend } = await openNotes("curation_history");
    const recorded = recordedResult("curation_history", "memory_history", { agent: "notes", limit: 50 });
    const newest = recorded.changes[0]!;
    const history: OpResult<"memory_history"> = {
      ...recorded,
      changes: [{ ...newest, entries: [], forgotten: "2026-12-06 10:00:00" }, ...recorded.changes.slice(1)],
      can_undo: null,
    };
    backend.stub("memory_history", () => history);
    backend.stub("forget_receipts", () => RECEIPTS);
    fireEvent.click(screen.getByTestId("history-open"));
    const panel = await screen.findByTestId("history-panel");
    const changes = await within(panel).findAllByTestId("history-change");
    const forgotten = changes[0]!;
    expect(forgotten).toHaveAttribute("data-forgotten", "true");
    expect(within(forgotten).getByTestId("history-forgotten")).toHaveTextContent("forgotten 2026-12-06 10:00:00");
    expect(within(forgotten).queryByTestId("history-undo")).toBeNull();
    expect(within(forgotten).queryByTestId("history-restore")).toBeNull();
    expect(within(forgotten).queryByTestId("history-entry")).toBeNull();
    expect(within(panel).getByTestId("history-undo-last")).toBeDisabled();
    // The other changes keep their undo.
    expect(changes[1]).toHaveAttribute("data-forgotten", "false");

    const receipts = within(panel).getByTestId("forget-receipts");
    expect(receipts).toHaveTextContent("Forgets");
    const items = within(receipts).getAllByTestId("forget-receipt-item");
    expect(items).toHaveLength(2);
    // What was asked, in the person's words; an older receipt keeps the console's sentence.
    expect(items[0]).toHaveTextContent("a text across all agents and the global memory");
    expect(items[1]).toHaveTextContent("notes, 1 entry");
    expect(within(items[0]!).getByTestId("forget-receipt-state")).toHaveTextContent("Interrupted: forget the same text again to finish");
    expect(within(items[1]!).getByTestId("forget-receipt-state")).toHaveTextContent("Forgotten");
    expect(items[1]).toHaveTextContent("masked");
    expect(within(items[1]!).getByTestId("forget-receipt-counts")).toHaveTextContent("3 found · 3 erased · 1 left");
    expect(within(items[1]!).getByTestId("forget-receipt-hash")).toHaveTextContent("SHA-256 0123456789ab");
    expect(within(items[1]!).getByTestId("forget-receipt-hash")).not.toHaveTextContent("0123456789abc");
    const places = within(items[1]!).getByTestId("forget-receipt-places");
    expect(places).toHaveTextContent("The console's history 2 found, 2 erased");
    // A place with only the records the forget's own delete wrote is listed too, counted apart.
    expect(places).toHaveTextContent("The console's write journal 0 found, 0 erased · +1 its own delete wrote");
    // A code this UI does not know: the console's own sentence.
    expect(within(places).getByTestId("forget-receipt-left")).toHaveTextContent("in git history: rewrite it to forget");
  });
});
