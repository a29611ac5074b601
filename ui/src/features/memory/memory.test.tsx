import { act, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";

import { translate, type TFunction } from "../../i18n";
import { recordedResult } from "../../test/recorded";
import { renderApp } from "../../test/render";
import { ROW_HEIGHT } from "./ArchivalList";
import { ClampedText, isLongEntry } from "./CoreTable";
import { charsTip } from "./EntryParts";

describe("Memory tab", () => {
  it("shows the cut line between the last outside entry and the first in-window entry, and the banner", async () => {
    const { backend } = renderApp("#/agents/log_analyst", "window500");
    const w = recordedResult("window500", "memory_overview", { agent: "log_analyst" }).window;
    expect(w.outside_entries).toBeGreaterThan(0);
    const banner = await screen.findByTestId("window-banner");
    const n = (x: number) => x.toLocaleString("en-US");
    expect(banner).toHaveTextContent(`${n(w.outside_entries)} entries / ${n(w.outside_chars)} characters outside the window (limit 500)`);
    expect(banner).toHaveTextContent(`In window: ${n(w.in_window_entries)} entries / ${n(w.in_window_chars)} characters.`);

    const cut = screen.getByTestId("window-cut");
    // The rows arrive in pages after the overview.
    await waitFor(() => expect(cut.parentElement!.querySelector(`[data-entry-index="${w.first_in_window}"]`)).not.toBeNull());
    const before = cut.parentElement!.querySelector(`[data-entry-index="${w.first_in_window - 1}"]`)!;
    const after = cut.parentElement!.querySelector(`[data-entry-index="${w.first_in_window}"]`)!;
    expect(before).toHaveAttribute("data-in-window", "false");
    expect(after).toHaveAttribute("data-in-window", "true");
    expect(Number(cut.getAttribute("data-index"))).toBe(w.first_in_window);
    // Every row before the cut is outside, every row after it inside.
    const rows = screen.getAllByTestId("archival-row");
    for (const r of rows) {
      const i = Number(r.getAttribute("data-entry-index"));
      expect(r.getAttribute("data-in-window")).toBe(i >= w.first_in_window ? "true" : "false");
    }
    expect(within(rows.find((r) => r.getAttribute("data-in-window") === "false")!).getByText("outside")).toBeInTheDocument();
    // The screen pages: the overview and archival pages, never the whole list at once.
    expect(backend.calls.some((c) => c.op === "memory_overview")).toBe(true);
    expect(backend.calls.some((c) => c.op === "archival_page")).toBe(true);
    expect(backend.calls.some((c) => c.op === "memory_view")).toBe(false);
  });

  it("keeps the cut line in newest-first order", async () => {
    renderApp("#/agents/log_analyst", "window500");
    await screen.findByTestId("window-cut");
    fireEvent.click(screen.getByTestId("memory-sort"));
    await waitFor(() => expect(screen.getAllByTestId("archival-row")[0]).toHaveAttribute("data-entry-index", "23"));
    const rows = screen.getAllByTestId("archival-row");
    expect(rows[0]).toHaveAttribute("data-in-window", "true");
    expect(Number(rows[0]!.getAttribute("data-entry-index"))).toBe(23);
    const cut = screen.getByTestId("window-cut");
    expect(cut).toHaveTextContent("Prompt window ends here");
  });

  it("says when every entry fits in the window", async () => {
    renderApp("#/agents/log_analyst");
    expect(await screen.findByTestId("window-banner")).toHaveTextContent("All 24 archival entries fit in the window");
    expect(screen.queryByTestId("window-cut")).toBeNull();
  });

  it("search filters archival rows with the recall rule and shows the authoritative recall count", async () => {
    renderApp("#/agents/log_analyst");
    await screen.findByTestId("archival-table");
    fireEvent.change(screen.getByTestId("memory-search"), { target: { value: "GATEWAY" } });
    await waitFor(() => expect(screen.getAllByTestId("archival-row")).toHaveLength(12));
    for (const r of screen.getAllByTestId("archival-row")) expect(r.textContent?.toLowerCase()).toContain("gateway");
    const expected = recordedResult("demo", "recall_memory", { agent: "log_analyst", keyword: "GATEWAY" }).entries.length;
    await waitFor(() => expect(screen.getByTestId("recall-count")).toHaveTextContent(`recall_memory: ${expected} matches`), { timeout: 2000 });
    expect(screen.getByTestId("memory-match-count")).toHaveTextContent("12 of 24 shown");
    fireEvent.change(screen.getByTestId("memory-search"), { target: { value: "no-such-thing" } });
    expect(await screen.findByText(/No archival entry contains/)).toBeInTheDocument();
  });

  it("adds an entry: preview, appendMemory, refetch, new row highlighted", async () => {
    const { backend } = renderApp("#/agents/assistant");
    await screen.findByTestId("archival-table");
    const content = screen.getByTestId("add-content");
    fireEvent.change(content, { target: { value: "  line one\n## 核心记忆  x " } });
    await waitFor(() => expect(screen.getByTestId("add-preview")).toHaveTextContent("- [2026-07-01 09:00:00] line one 「核心记忆」 x"), { timeout: 2000 });
    expect(screen.getByTestId("add-preview")).toHaveTextContent("sanitised");
    fireEvent.keyDown(content, { key: "Enter", ctrlKey: true });
    await waitFor(() => expect(backend.calls.some((c) => c.op === "append_memory")).toBe(true));
    const call = backend.calls.find((c) => c.op === "append_memory")!;
    expect(call.args).toEqual({ agent: "assistant", scope: "archival", content: "  line one\n## 核心记忆  x " });
    const row = await screen.findByText("line one 「核心记忆」 x");
    const r = row.closest("[data-testid='archival-row']")!;
    expect(r).toHaveClass("flash");
    expect(r).toHaveAttribute("data-in-window", "true");
    expect(r).toHaveAttribute("data-entry-index", "140");
    expect(content).toHaveValue("");
  });

  it("adds a core entry to the core table", async () => {
    const { backend } = renderApp("#/agents/scheduler");
    await screen.findByTestId("core-table");
    fireEvent.change(screen.getByTestId("add-scope"), { target: { value: "core" } });
    fireEvent.change(screen.getByTestId("add-content"), { target: { value: "Runs at 09:00" } });
    fireEvent.click(screen.getByTestId("add-submit"));
    const cell = await within(screen.getByTestId("core-table")).findByText("Runs at 09:00");
    expect(cell.closest("tr")).toHaveClass("flash");
    expect(backend.calls.find((c) => c.op === "append_memory")!.args).toEqual({ agent: "scheduler", scope: "core", content: "Runs at 09:00" });
  });

  it("renders at most 200 rows for 100 000 archival entries", async () => {
    renderApp("#/agents/assistant", "long_archive");
    await screen.findByTestId("archival-table", undefined, { timeout: 8000 });
    const rows = screen.getAllByTestId("archival-row");
    expect(rows.length).toBeGreaterThan(10);
    expect(rows.length).toBeLessThanOrEqual(200);
    // Scrolling to the end swaps the rendered rows.
    const scroller = document.querySelector<HTMLElement>("[data-virtual-scroll]")!;
    // The list opens at the cut line, near the end of a long archive.
    await waitFor(() => expect(scroller.scrollTop).toBeGreaterThan(1_000_000));
    scroller.focus();
    fireEvent.keyDown(scroller, { key: "End" });
    await waitFor(() => expect(document.querySelector('[data-entry-index="100139"]')).not.toBeNull(), { timeout: 3000 });
    expect(screen.getAllByTestId("archival-row").length).toBeLessThanOrEqual(200);
  });

  it("PageDown moves down from the rows in view, and Tab lands on a row in view (#18 item 21)", async () => {
    renderApp("#/agents/assistant", "long_archive");
    await screen.findByTestId("archival-table", undefined, { timeout: 8000 });
    const scroller = document.querySelector<HTMLElement>("[data-virtual-scroll]")!;
    // The list opens at the cut line, near the end; nothing was focused yet.
    await waitFor(() => expect(scroller.scrollTop).toBeGreaterThan(1_000_000));
    await waitFor(() => expect(scroller.querySelector('[tabindex="0"]')).not.toBeNull());
    const inView = Math.floor(scroller.scrollTop / ROW_HEIGHT);
    const tabRow = scroller.querySelector<HTMLElement>('[tabindex="0"]')!;
    expect(Number(tabRow.dataset.pos)).toBeGreaterThanOrEqual(inView - 1);
    scroller.focus();
    fireEvent.keyDown(scroller, { key: "PageDown" });
    await waitFor(() => expect(Number((document.activeElement as HTMLElement).dataset.pos)).toBeGreaterThan(inView));
  });

  it("fetches only the pages around the visible rows, newest first when sorted so", async () => {
    const { backend } = renderApp("#/agents/assistant", "long_archive");
    await screen.findByTestId("archival-table", undefined, { timeout: 8000 });
    await waitFor(() => expect(screen.getAllByTestId("archival-row").length).toBeGreaterThan(10));
    const pages = () => backend.calls.filter((c) => c.op === "archival_page").map((c) => c.args as { offset: number; limit: number; newest_first: boolean });
    expect(pages().length).toBeLessThanOrEqual(4);
    for (const p of pages()) expect(p.limit).toBeLessThanOrEqual(200);
    fireEvent.click(screen.getByTestId("memory-sort"));
    await waitFor(() => expect(screen.getAllByTestId("archival-row")[0]).toHaveAttribute("data-entry-index", "100139"));
    expect(pages().some((p) => p.newest_first && p.offset === 0)).toBe(true);
  });

  it("refreshes when the backend reports a change made elsewhere", async () => {
    const { backend } = renderApp("#/agents/log_analyst");
    await screen.findByTestId("archival-table");
    act(() => backend.writeElsewhere("append_memory", { agent: "log_analyst", scope: "archival", content: "written by the runtime" }));
    expect(await screen.findByText("written by the runtime")).toBeInTheDocument();
  });

  it("shows the global memory page", async () => {
    renderApp("#/global");
    expect(await screen.findByTestId("memory-source")).toHaveTextContent("/home/linxiao/.oryxos/memory/MEMORY.md");
    expect(await within(screen.getByTestId("core-table")).findByText("全局：所有 Agent 共用的事实放在这里。")).toBeInTheDocument();
  });

  it("clamps a long core entry to a few lines with an accessible Show all (#18 item 15)", () => {
    // The case: one core entry of 10 000 characters (built from a recorded one).
    const one = recordedResult("demo", "memory_overview", { agent: "assistant" }).core[0]!.content;
    const long = one.repeat(Math.ceil(10_000 / one.length)).slice(0, 10_000);
    expect(isLongEntry(one)).toBe(false);
    const { getByTestId, queryByTestId } = render(<ClampedText text={long} index={2} />);
    const text = getByTestId("core-entry-text");
    expect(text).toHaveClass("clamped");
    const more = getByTestId("core-entry-more");
    expect(more).toHaveAttribute("aria-expanded", "false");
    expect(more).toHaveAttribute("aria-controls", text.id);
    expect(more).toHaveAccessibleName("Show all of entry 3");
    fireEvent.click(more);
    expect(text).not.toHaveClass("clamped");
    expect(more).toHaveAttribute("aria-expanded", "true");
    expect(more).toHaveAccessibleName("Show less of entry 3");
    const short = render(<ClampedText text={one} index={0} />);
    expect(short.container).toHaveTextContent(one);
    expect(short.container.querySelector("button")).toBeNull();
    expect(queryByTestId("core-entry-more")).toBe(more);
  });
});

describe("The Chars column (#18 item 14)", () => {
  const chars = (s: string) => Array.from(s).length.toLocaleString("en-US");

  it("on Markdown counts the line as the prompt shows it, time prefix included, and its header says so", async () => {
    renderApp("#/agents/assistant");
    const first = recordedResult("demo", "memory_overview", { agent: "assistant" }).core[0]!;
    const row = (await screen.findAllByTestId("core-row"))[0]!;
    // The cell counts what the window counts: the whole line, "[YYYY-MM-DD HH:MM:SS] " and all.
    expect(first.line).toContain(`[${first.timestamp}] `);
    expect(row.querySelectorAll("td")[4]).toHaveTextContent(chars(first.line));
    for (const id of ["core-chars-head", "archival-chars-head"]) {
      const head = await screen.findByTestId(id);
      expect(head).toHaveAccessibleName("Chars");
      expect(head).toHaveAccessibleDescription(/Characters this entry takes in the prompt window/);
      expect(head).toHaveAccessibleDescription(/On Markdown that is the line as written in MEMORY\.md, with its “\[YYYY-MM-DD HH:MM:SS\] ” time prefix, because the prompt shows the line as written\./);
      expect(head.getAttribute("title")).toBe(screen.getByText(head.getAttribute("title")!, { selector: `#${head.getAttribute("aria-describedby")}` }).textContent);
    }
  });

  it("on SQLite counts the prompt line without a prefix, and the header says why the numbers differ", async () => {
    renderApp("#/agents/assistant", "sqlite");
    const first = recordedResult("sqlite", "memory_overview", { agent: "assistant" }).core[0]!;
    const row = (await screen.findAllByTestId("core-row"))[0]!;
    expect(first.line).not.toContain(`[${first.timestamp}]`);
    expect(row.querySelectorAll("td")[4]).toHaveTextContent(chars(first.line));
    const head = screen.getByTestId("core-chars-head");
    expect(head).toHaveAccessibleDescription(/SQLite prompt lines have no time prefix, so the same entry counts fewer characters here than on Markdown/);
    expect(head).toHaveAttribute("title", expect.stringContaining("SQLite prompt lines have no time prefix"));
  });

  it("explains it in Chinese", () => {
    const zh: TFunction = (k, v) => translate("zh", k, v);
    expect(charsTip(zh, "markdown")).toMatch(/^该条目在提示词窗口中占用的字符数.*包括“\[YYYY-MM-DD HH:MM:SS\] ”时间前缀，因为提示词按原样显示这一行。$/);
    expect(charsTip(zh, "sqlite")).toMatch(/SQLite 的提示词行没有时间前缀/);
    expect(charsTip(zh, "mem0")).toMatch(/mem0 的提示词行没有时间前缀/);
  });
});

describe("Small windows (#18 item 16)", () => {
  it("folds the core table away and back with a toggle that says its state", async () => {
    renderApp("#/agents/assistant");
    const toggle = await screen.findByTestId("core-toggle");
    const body = document.getElementById(toggle.getAttribute("aria-controls")!)!;
    expect(toggle).toHaveAttribute("aria-expanded", "true");
    expect(toggle).toHaveAccessibleName("Hide Core memory");
    expect(body).toContainElement(screen.getByTestId("core-table"));
    expect(body).toBeVisible();
    fireEvent.click(toggle);
    expect(toggle).toHaveAttribute("aria-expanded", "false");
    expect(toggle).toHaveAccessibleName("Show Core memory");
    expect(body).not.toBeVisible();
    // The count stays in the head, and the archival list is still there.
    expect(toggle.closest(".section-head")).toHaveTextContent("Core memory4");
    expect(screen.getByTestId("archival-table")).toBeVisible();
    fireEvent.click(toggle);
    expect(body).toBeVisible();
  });

  it("keeps the whole cut line in its title when the list is too narrow for it", async () => {
    renderApp("#/agents/log_analyst", "window500");
    const cut = await screen.findByTestId("window-cut");
    expect(cut.querySelector(".cut-label")).toHaveAttribute("title", cut.textContent);
  });
});
