import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";

import type { ArchivalPageDto, ArchivalPageQuery, MemoryLinkDto, PromptDto, ProvenanceDto } from "../../backend/types";
import { translate } from "../../i18n";
import { recordedResult, type RecordedBackend } from "../../test/recorded";
import { renderApp } from "../../test/render";
import { originSentence } from "./ProvenancePanel";

// entry_provenance, session_memory_links and the replayed prompt_preview are not in the recording
// yet: they are answered with literals shaped like `oryx serve`'s answers on a demo root (after
// `oryx tool save_memory … --session`), and each test checks what was sent. The other reads come
// from the recording.
const SESSION = "cli:linxiao:assistant";

const SAVED: ProvenanceDto = {
  origin: "save_memory",
  exact: true,
  session_id: SESSION,
  message_index: 5,
  invocation_id: 17,
  at: "2026-06-01 09:05:00",
  trigger: null,
  change_id: null,
  change_op: null,
  earlier: null,
};

const EDITED: ProvenanceDto = {
  origin: "console",
  exact: true,
  session_id: null,
  message_index: null,
  invocation_id: null,
  at: "2026-06-20 10:00:00",
  trigger: null,
  change_id: "change-1",
  change_op: "edit",
  earlier: { ...SAVED, origin: "footprint", exact: false, message_index: 0, invocation_id: null, trigger: "帮我总结今天的日志", at: "2026-06-01 09:07:00" },
};

const UNKNOWN: ProvenanceDto = { ...SAVED, origin: "unknown", exact: false, session_id: null, message_index: null, invocation_id: null, at: null };

function sent(b: RecordedBackend, op: string): unknown[] {
  return b.calls.filter((c) => c.op === op).map((c) => c.args);
}

describe("Provenance: entry → session", () => {
  it("a core row's action asks the console where the entry came from and links to the session message", async () => {
    const { backend } = renderApp("#/agents/assistant");
    backend.stub("entry_provenance", () => SAVED);
    const row = (await screen.findAllByTestId("core-row"))[0]!;
    const button = within(row).getByRole("button", { name: "Where did this come from?" });
    expect(button).toHaveAttribute("aria-haspopup", "dialog");
    fireEvent.click(button);
    const dialog = await screen.findByRole("dialog", { name: "Where this entry came from" });
    expect(await within(dialog).findByTestId("provenance-sentence")).toHaveTextContent(
      `Written by the agent's save_memory tool in session ${SESSION} at 2026-06-01 09:05:00 (message 6).`,
    );
    expect(within(dialog).queryByTestId("provenance-inexact")).toBeNull();
    const link = within(dialog).getByRole("link", { name: `Open session ${SESSION} at message 6` });
    expect(link).toHaveAttribute("href", `#/sessions/${encodeURIComponent(SESSION)}?m=5&why=origin`);
    expect(sent(backend, "entry_provenance")).toEqual([{ agent: "assistant", id: "c0-ffe5133d" }]);
    // Escape closes it.
    fireEvent.keyDown(dialog, { key: "Escape" });
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
  });

  it("a console change says what it was, then where the text before came from (by text only: probably)", async () => {
    const { backend } = renderApp("#/agents/assistant");
    backend.stub("entry_provenance", () => EDITED);
    await screen.findAllByTestId("archival-row");
    fireEvent.click(within(screen.getAllByTestId("archival-row")[0]!).getByTestId("row-origin"));
    const dialog = await screen.findByRole("dialog");
    const sentences = await within(dialog).findAllByTestId("provenance-sentence");
    expect(sentences.map((s) => s.textContent)).toEqual([
      "Edited in the console at 2026-06-20 10:00:00.",
      `The footprint of the turn “帮我总结今天的日志” in session ${SESSION} (message 1).`,
    ]);
    expect(within(dialog).getByText("And before that:")).toBeInTheDocument();
    expect(within(dialog).getByTestId("provenance-inexact")).toHaveTextContent("Probably — matched by text; the nearest record in time.");
    const [args] = sent(backend, "entry_provenance") as { agent: string; id: string }[];
    expect(args!.agent).toBe("assistant");
    expect(args!.id).toMatch(/^a\d+-[0-9a-f]{8}$/);
  });

  it("nothing on record (the global memory)", async () => {
    const { backend } = renderApp("#/global");
    backend.stub("entry_provenance", () => UNKNOWN);
    const row = (await screen.findAllByTestId("core-row"))[0]!;
    fireEvent.click(within(row).getByRole("button", { name: "Where did this come from?" }));
    const dialog = await screen.findByRole("dialog", { name: "Where this entry came from" });
    expect(await within(dialog).findByTestId("provenance-sentence")).toHaveTextContent(
      "Nothing on record: written by hand, imported, added in the console, or its session is gone.",
    );
    expect(within(dialog).queryByTestId("provenance-open")).toBeNull();
    expect((sent(backend, "entry_provenance")[0] as { agent: string | null }).agent).toBeNull();
  });

  it("says each origin in Chinese", () => {
    const zh = (k: Parameters<typeof translate>[1], v?: Parameters<typeof translate>[2]) => translate("zh", k, v);
    expect(originSentence(zh, SAVED)).toBe(`由智能体的 save_memory 工具在会话 ${SESSION} 中于 2026-06-01 09:05:00 写入（第 6 条消息）。`);
    expect(originSentence(zh, EDITED)).toBe("于 2026-06-20 10:00:00 在控制台中编辑。");
    expect(originSentence(zh, EDITED.earlier!)).toBe(`会话 ${SESSION} 中「帮我总结今天的日志」这一轮对话的足迹（第 1 条消息）。`);
    expect(originSentence(zh, UNKNOWN)).toBe("没有记录：手工写入、导入、在控制台中添加，或其会话已不存在。");
  });
});

const LINKS: MemoryLinkDto[] = [
  { message_index: 5, origin: "save_memory", agent: "assistant", scope: "core", entry_id: "c4-e9f6ebdd", content: "用户更喜欢早上收到简报", timestamp: "2026-06-01 09:05:00", exact: true },
  { message_index: 0, origin: "footprint", agent: "assistant", scope: "archival", entry_id: "a139-ed04f29a", content: "触发「帮我总结今天的日志」⇒ 已总结 3 个错误", timestamp: "2026-06-01 09:01:00", exact: false },
];

describe("Provenance: session → entries", () => {
  it("messages that wrote memory carry a badge linking to the entry in its memory tab", async () => {
    const { backend } = renderApp(`#/sessions/${encodeURIComponent(SESSION)}`);
    backend.stub("session_memory_links", () => LINKS);
    const badges = await screen.findAllByTestId("memory-badge");
    expect(badges.map((b) => [b.closest("[data-testid=message]")!.getAttribute("data-index"), b.textContent?.trim()])).toEqual([
      ["0", "Footprint in memory"],
      ["5", "Saved to memory"],
    ]);
    const saved = badges[1]!;
    expect(saved).toHaveAttribute(
      "href",
      `#/agents/assistant?entry=c4-e9f6ebdd&find=${encodeURIComponent("用户更喜欢早上收到简报")}&session=${encodeURIComponent(SESSION)}&m=5`,
    );
    expect(saved.getAttribute("title")).toContain("assistant's memory");
    expect(badges[0]!.getAttribute("title")).toContain("matched by text");
    expect(sent(backend, "session_memory_links")).toEqual([{ id: SESSION }]);
  });

  it("the message an entry came from is marked as such", async () => {
    renderApp(`#/sessions/${encodeURIComponent(SESSION)}?m=5&why=origin`);
    const mark = await screen.findByTestId("message-mark");
    expect(mark).toHaveTextContent("wrote the entry you came from");
    expect(mark.closest("[data-testid=message]")).toHaveAttribute("data-index", "5");
  });

  it("the memory tab finds a linked archival entry through the console's search, marks it and links back", async () => {
    const page0 = recordedResult("demo", "archival_page", { agent: "assistant", keyword: null, limit: 200, newest_first: false, offset: 0 });
    const entry = page0.items[100]!;
    const hash = `#/agents/assistant?entry=${entry.id}&find=${encodeURIComponent(entry.content)}&session=${encodeURIComponent(SESSION)}&m=0`;
    const { backend } = renderApp(hash);
    backend.stub("archival_page", (a) => {
      const q = a as ArchivalPageQuery;
      if (!q.keyword) return recordedResult("demo", "archival_page", q);
      const found: ArchivalPageDto = { agent: "assistant", total: 1, offset: 0, newest_first: true, keyword: q.keyword, cut_at: null, items: [entry] };
      return found;
    });
    const banner = await screen.findByTestId("entry-target-banner");
    expect(banner).toHaveTextContent(`The entry message 1 of session ${SESSION} wrote is marked below.`);
    expect(within(banner).getByRole("link", { name: "Back to the message" })).toHaveAttribute("href", `#/sessions/${encodeURIComponent(SESSION)}?m=0&why=origin`);
    const row = await waitFor(() => {
      const r = document.querySelector(`[data-testid="archival-row"][data-entry-id="${entry.id}"]`);
      expect(r).not.toBeNull();
      return r!;
    });
    expect(row).toHaveAttribute("data-target", "true");
    expect(row).toHaveAttribute("aria-current", "true");
    expect(sent(backend, "archival_page")).toContainEqual({ agent: "assistant", offset: 0, limit: 1000, newest_first: true, keyword: entry.content });
  });

  it("an entry changed since says so", async () => {
    const { backend } = renderApp("#/agents/assistant?entry=a5-00000000&find=gone");
    backend.stub("archival_page", (a) => {
      const q = a as ArchivalPageQuery;
      if (!q.keyword) return recordedResult("demo", "archival_page", q);
      return { agent: "assistant", total: 0, offset: 0, newest_first: true, keyword: q.keyword, cut_at: null, items: [] } satisfies ArchivalPageDto;
    });
    await waitFor(() => expect(screen.getByTestId("entry-target-banner")).toHaveTextContent("no longer in this memory"));
  });

  it("a core entry is found in the overview and marked", async () => {
    renderApp("#/agents/assistant?entry=c2-b8759a1e");
    await waitFor(() => expect(document.querySelector('[data-testid="core-row"][data-target="true"]')).toHaveAttribute("data-entry-id", "c2-b8759a1e"));
  });
});

function part(index: number, kind: PromptDto["parts"][number]["kind"], text: string) {
  return { index, kind, text, chars: Array.from(text).length, tokens_estimate: 1 };
}

describe("Prompt replay", () => {
  it("replays a user message's prompt as of the session's last activity beside today's", async () => {
    const { backend } = renderApp(`#/sessions/${encodeURIComponent(SESSION)}`);
    const now: PromptDto = recordedResult("demo", "prompt_preview", { agent: "assistant", session_id: SESSION });
    backend.stub("prompt_preview", (a) => {
      const args = a as { asof?: string };
      if (!args.asof) return recordedResult("demo", "prompt_preview", a as { agent: string; session_id: string });
      const memNow = now.parts.find((p) => p.kind === "memory")!.text.split("\n");
      // Then: without the newest line of today, with one line since gone.
      const memThen = [...memNow.slice(0, -1), "- [2026-05-01 09:00:00] 旧的一条"].join("\n");
      const then: PromptDto = {
        ...now!,
        parts: now.parts.map((p) => (p.kind === "memory" ? part(p.index, "memory", memThen) : p.kind === "history" ? part(p.index, "history", "user: 帮我总结今天的日志") : p)),
        total_chars: 100,
        asof: "2026-06-01 09:07:00",
        asof_note: "AGENT.md, skills, bootstrap files and tools are today's",
      };
      return then;
    });
    const buttons = await screen.findAllByRole("button", { name: /^Replay the prompt as it was built for message/ });
    expect(buttons.map((b) => b.closest("[data-testid=message]")!.getAttribute("data-role"))).toEqual(["user", "user"]);
    fireEvent.click(buttons[1]!);
    const dialog = await screen.findByRole("dialog", { name: "Prompt replay · message 5" });
    expect(await within(dialog).findByTestId("replay-note")).toHaveTextContent("What this replay cannot know");
    expect(within(dialog).getByTestId("replay-note")).toHaveTextContent("AGENT.md, skills, bootstrap files and tools are today's");
    expect(within(dialog).getByTestId("replay-asof")).toHaveTextContent("2026-06-01 09:07:00");
    const rows = within(dialog).getAllByTestId("replay-part");
    expect(rows.map((r) => r.getAttribute("data-kind"))).toEqual(["system", "memory", "history", "tools"]);
    expect(within(dialog).getByTestId("replay-added").textContent).toContain(now.parts.find((p) => p.kind === "memory")!.text.split("\n").pop()!);
    expect(within(dialog).getByTestId("replay-removed")).toHaveTextContent("旧的一条");
    expect(sent(backend, "prompt_preview")).toContainEqual({ agent: "assistant", session_id: SESSION, asof: "2026-06-01 09:07:00", message_index: 4 });
    fireEvent.keyDown(dialog, { key: "Escape" });
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
  });
});
