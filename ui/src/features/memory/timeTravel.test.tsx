import { act, fireEvent, screen, waitFor, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { BackendError } from "../../backend";
import type { AsOfDto, MemoryDiffDto, MemoryStatsDto } from "../../backend/types";
import type { RecordedBackend } from "../../test/recorded";
import { renderApp } from "../../test/render";
import { dayRange, isDay } from "./timeTravel";
import { SLIDER_DEBOUNCE_MS } from "./TimeTravel";

// memory_asof and memory_diff were never recorded: they are answered with stubs shaped like
// `oryx serve`'s answers on the demo root (`oryx demo`, then an edit, a delete and an add on
// 2026-12-04), and each test checks what was sent. Today is 2026-12-04 for these tests.
const NOTE = "entries stamped after the moment are left out and the console's own changes since are taken back; changes made by hand in the file are not known";

const CORE = [
  { timestamp: "2026-11-04 15:27:31", content: "用户偏好简洁的回复，不用列表。" },
  { timestamp: "2026-11-04 15:28:31", content: "用户的时区是 UTC+8（上海）。" },
  { timestamp: "2026-11-04 15:29:31", content: "周末不要安排会议。" },
  { timestamp: "2026-11-04 15:30:31", content: "User prefers Rust examples over Python." },
];
const TRIGGERS = [
  "触发「帮我总结今天的日志」⇒ 已总结 3 个错误：连接池耗尽、超时重试、磁盘告警",
  "触发「明天上午有什么安排」⇒ 10:00 架构评审，11:30 与产品对需求",
  "触发「Remind me to renew the TLS certificate」⇒ Reminder set for Friday 10:00",
  "触发「查一下 Rust 1.95 的发布说明」⇒ 已整理 5 条要点并保存到笔记",
  "触发「把周报草稿发给我」⇒ 已生成周报草稿，共 4 段",
];
// One archival entry every 12 hours from 2026-11-04 16:27:31.
const ARCHIVAL = Array.from({ length: 46 }, (_, i) => {
  const t = new Date(Date.UTC(2026, 10, 4, 16, 27, 31) + i * 12 * 3600_000).toISOString();
  return { timestamp: `${t.slice(0, 10)} ${t.slice(11, 19)}`, content: `${TRIGGERS[i % TRIGGERS.length]}（第 ${i + 1} 次）` };
});
/** The prompt window holds the newest archival entries up to this many. */
const WINDOW = 6;

/** The memory at the end of `at`, as memory_asof answers it. */
function asOf(at: string): AsOfDto {
  const end = `${at} 23:59:59`;
  const core = CORE.filter((e) => e.timestamp <= end).map((e) => ({ ...e, in_window: true }));
  const kept = ARCHIVAL.filter((e) => e.timestamp <= end);
  const archival = kept.map((e, i) => ({ ...e, in_window: i >= kept.length - WINDOW }));
  const line = (e: { timestamp: string; content: string }) => `- [${e.timestamp}] ${e.content}`;
  const context = ["## 核心记忆", ...core.map(line), "## 归档记忆", ...archival.filter((e) => e.in_window).map(line)].join("\n");
  return { agent: "assistant", at: end, core, archival, context, note: NOTE, git: null };
}

/** What changed from the end of `from` to today (the demo's edit, delete and add, and the entries written since). */
function diff(from: string, to: string): MemoryDiffDto {
  const end = `${from} 23:59:59`;
  return {
    agent: "assistant",
    from: end,
    to: `${to} 23:59:59`,
    added: [
      ...ARCHIVAL.filter((e) => e.timestamp > end).map((e) => ({ scope: "archival", ...e })),
      { scope: "core", timestamp: "2026-12-04 15:28:24", content: "用户下周三起休假一周。" },
    ],
    removed: [{ scope: "archival", timestamp: ARCHIVAL[1]!.timestamp, content: ARCHIVAL[1]!.content }],
    changed: [
      {
        before: { scope: "core", timestamp: "2026-11-04 15:30:31", content: "User prefers Rust examples over Python." },
        after: { scope: "core", timestamp: "2026-11-04 15:30:31", content: "User prefers Rust examples over Python, with tests." },
      },
    ],
  };
}

const STATS: MemoryStatsDto = {
  agent: "assistant",
  days: dayRange("2026-11-04", "2026-11-27").map((day) => ({ day, core: day === "2026-11-04" ? 4 : 0, archival: 2 })),
  undated: 0,
  window_reach_days: 3,
  in_window: WINDOW,
  outside_window: ARCHIVAL.length - WINDOW,
  reach_back: [],
};

const sent = (b: RecordedBackend, op: string) => b.calls.filter((c) => c.op === op).map((c) => c.args);

async function openTimeTravel(stubs: { asof?: (args: { at: string }) => unknown } = {}) {
  const r = renderApp("#/agents/assistant");
  r.backend.stub("memory_stats", () => STATS);
  r.backend.stub("memory_asof", (a) => (stubs.asof ?? ((x: { at: string }) => asOf(x.at)))(a as { at: string }));
  r.backend.stub("memory_diff", (a) => {
    const { from, to } = a as { from: string; to: string };
    return diff(from, to);
  });
  fireEvent.click(await screen.findByTestId("time-travel-toggle"));
  await screen.findByTestId("time-travel-slider");
  return r;
}

const slider = () => screen.getByTestId<HTMLInputElement>("time-travel-slider");
const dateField = () => screen.getByTestId<HTMLInputElement>("time-travel-date");

describe("Time travel", () => {
  beforeEach(() => {
    // Only the clock's date: timers stay real (the slider's debounce runs as in the app).
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date(2026, 11, 4, 16, 0, 0));
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("opens a week back, on a slider from the oldest entry's day to today, with the memory of that day", async () => {
    const { backend } = await openTimeTravel();
    // 2026-11-04 … 2026-12-04: 31 days; a week back is 2026-11-27.
    expect(slider()).toHaveAttribute("min", "0");
    expect(slider()).toHaveAttribute("max", "30");
    expect(slider()).toHaveValue("23");
    expect(slider()).toHaveAttribute("aria-valuetext", "2026-11-27");
    expect(slider()).toHaveFocus();
    expect(dateField()).toHaveValue("2026-11-27");
    expect(dateField()).toHaveAttribute("min", "2026-11-04");
    expect(dateField()).toHaveAttribute("max", "2026-12-04");
    expect(screen.getByTestId("time-travel-banner")).toHaveTextContent("You are looking at 2026-11-27, not today");

    await waitFor(() => expect(screen.getByTestId("time-travel-at")).toHaveTextContent("As of 2026-11-27 23:59:59"));
    expect(sent(backend, "memory_asof")).toEqual([{ agent: "assistant", at: "2026-11-27" }]);
    expect(sent(backend, "memory_stats")).toContainEqual({ agent: "assistant" });
    // The tables, read-only: no checkbox, no edit.
    const core = screen.getByTestId("time-travel-core");
    expect(within(core).getAllByTestId("time-travel-core-row")).toHaveLength(4);
    expect(within(core).queryByRole("checkbox")).toBeNull();
    expect(within(core).queryByRole("button")).toBeNull();
    const rows = screen.getAllByTestId("time-travel-archival-row");
    expect(rows).toHaveLength(46);
    expect(screen.getByTestId("time-travel-archival-count")).toHaveTextContent("46");
    expect(screen.getByTestId("time-travel-in-window")).toHaveTextContent("6 in the prompt window");
    // The window marked as the live table marks it: outside, the cut line, then in window.
    expect(rows[39]).toHaveAttribute("data-in-window", "false");
    expect(within(rows[39]!).getByText("outside")).toBeInTheDocument();
    expect(rows[40]).toHaveAttribute("data-in-window", "true");
    expect(within(rows[40]!).getByText("in window")).toBeInTheDocument();
    const cut = screen.getByTestId("time-travel-cut");
    expect(cut.compareDocumentPosition(rows[40]!) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    expect(cut.compareDocumentPosition(rows[39]!) & Node.DOCUMENT_POSITION_PRECEDING).toBeTruthy();
    // The memory block, collapsed until opened; the note.
    const context = screen.getByTestId("time-travel-context");
    expect(context.tagName).toBe("DETAILS");
    expect(context).not.toHaveAttribute("open");
    expect(context).toHaveTextContent("## 核心记忆");
    expect(context).toHaveTextContent("（第 46 次）");
    expect(screen.getByTestId("time-travel-note")).toHaveTextContent(`What this view cannot know: ${NOTE}`);
  });

  it("slider changes the day and the tables, one request after the drag (debounced)", async () => {
    const { backend } = await openTimeTravel();
    await waitFor(() => expect(screen.getByTestId("time-travel-at")).toHaveTextContent("2026-11-27"));
    // A drag over four days: the banner and the date field follow at once; one request at rest.
    for (const v of ["22", "20", "18", "15"]) fireEvent.change(slider(), { target: { value: v } });
    expect(dateField()).toHaveValue("2026-11-19");
    expect(screen.getByTestId("time-travel-banner")).toHaveTextContent("You are looking at 2026-11-19, not today");
    expect(screen.getByTestId("time-travel-updating")).toHaveTextContent("Updating…");
    await waitFor(() => expect(screen.getByTestId("time-travel-at")).toHaveTextContent("As of 2026-11-19 23:59:59"));
    expect(sent(backend, "memory_asof")).toEqual([
      { agent: "assistant", at: "2026-11-27" },
      { agent: "assistant", at: "2026-11-19" },
    ]);
    expect(sent(backend, "memory_diff").at(-1)).toEqual({ agent: "assistant", from: "2026-11-19", to: "2026-12-04" });
    // Entries stamped after 2026-11-19 are not there.
    expect(screen.getAllByTestId("time-travel-archival-row")).toHaveLength(31);
    expect(screen.getByTestId("time-travel-archival-count")).toHaveTextContent("31");
    expect(screen.getByTestId("time-travel-archival")).toHaveTextContent("第 31 次");
    expect(screen.getByTestId("time-travel-archival")).not.toHaveTextContent("第 32 次");
    expect(screen.getByTestId("time-travel-updating")).toHaveTextContent("");

    // The keyboard: an arrow key moves a day (the native range input); the date field jumps.
    fireEvent.change(dateField(), { target: { value: "2026-11-05" } });
    expect(slider()).toHaveValue("1");
    await waitFor(() => expect(screen.getByTestId("time-travel-at")).toHaveTextContent("As of 2026-11-05 23:59:59"));
    expect(screen.getAllByTestId("time-travel-archival-row")).toHaveLength(3);
    // A day outside the range (before the oldest entry) is not taken.
    fireEvent.change(dateField(), { target: { value: "2026-10-01" } });
    expect(slider()).toHaveValue("1");
    expect(dateField()).toHaveAttribute("aria-invalid", "true");
    expect(sent(backend, "memory_asof").map((a) => (a as { at: string }).at)).not.toContain("2026-10-01");
  });

  it("lists what changed from that day to today: added, removed, changed before → after", async () => {
    await openTimeTravel();
    fireEvent.change(slider(), { target: { value: "15" } });
    await waitFor(() => expect(screen.getByTestId("time-travel-diff")).toHaveTextContent("What changed from 2026-11-19 to today"));
    await waitFor(() => expect(screen.getByTestId("time-travel-added-count")).toHaveTextContent("+ 16 Added"));
    expect(screen.getByTestId("time-travel-removed-count")).toHaveTextContent("− 1 Removed");
    expect(screen.getByTestId("time-travel-changed-count")).toHaveTextContent("~ 1 Changed");
    const added = within(screen.getByTestId("time-travel-added")).getAllByTestId("time-travel-added-item");
    expect(added).toHaveLength(16);
    expect(added.at(-1)).toHaveTextContent("Core memory 2026-12-04 15:28:24用户下周三起休假一周。");
    expect(added[0]).toHaveTextContent("Archival memory 2026-11-20 04:27:31");
    const removed = within(screen.getByTestId("time-travel-removed")).getAllByTestId("time-travel-removed-item");
    expect(removed).toHaveLength(1);
    expect(removed[0]).toHaveTextContent("触发「明天上午有什么安排」⇒ 10:00 架构评审，11:30 与产品对需求（第 2 次）");
    const changed = within(screen.getByTestId("time-travel-changed")).getByTestId("time-travel-changed-item");
    expect(within(changed).getByTestId("time-travel-before")).toHaveTextContent("User prefers Rust examples over Python.");
    expect(within(changed).getByTestId("time-travel-after")).toHaveTextContent("User prefers Rust examples over Python, with tests.");
    expect(changed).toHaveTextContent("before: User prefers Rust examples over Python. → after: User prefers Rust examples over Python, with tests.");
  });

  it("back to today: the live, editable tables again, the focus on the toggle", async () => {
    await openTimeTravel();
    await waitFor(() => expect(screen.getByTestId("time-travel-at")).toHaveTextContent("2026-11-27"));
    fireEvent.click(screen.getByTestId("time-travel-back"));
    expect(screen.queryByTestId("time-travel")).toBeNull();
    expect(await screen.findByTestId("core-table")).toBeInTheDocument();
    await waitFor(() => expect(screen.getByTestId("time-travel-toggle")).toHaveFocus());
    expect(screen.getByTestId("time-travel-toggle")).toHaveAttribute("aria-pressed", "false");
    // At today's end of the slider the banner says so and still offers the way back.
    fireEvent.click(screen.getByTestId("time-travel-toggle"));
    await screen.findByTestId("time-travel-slider");
    fireEvent.change(slider(), { target: { value: "30" } });
    expect(screen.queryByTestId("time-travel-banner")).toBeNull();
    expect(screen.getByTestId("time-travel-today")).toHaveTextContent("This is today's memory");
    await act(() => new Promise((r) => setTimeout(r, SLIDER_DEBOUNCE_MS + 50)));
    fireEvent.click(screen.getByTestId("time-travel-back"));
    expect(await screen.findByTestId("core-table")).toBeInTheDocument();
  });

  it("says in the user's language when a day cannot be read", async () => {
    const r = await openTimeTravel({
      asof: () => {
        throw new BackendError("corrupt", "agents/assistant/MEMORY.md.oryx-history: line 3 is not a change");
      },
    });
    const err = await screen.findByTestId("time-travel-error");
    expect(err).toHaveTextContent("The memory of that day could not be read");
    expect(within(err).getByTestId("error-code")).toHaveTextContent("corrupt");
    expect(sent(r.backend, "memory_asof")).toHaveLength(1);
  });
});

describe("time travel days", () => {
  it("walks every calendar day, across months and leap days", () => {
    expect(dayRange("2028-02-27", "2028-03-01")).toEqual(["2028-02-27", "2028-02-28", "2028-02-29", "2028-03-01"]);
    expect(dayRange("2026-12-05", "2026-12-04")).toEqual(["2026-12-04"]);
    expect(isDay("2026-02-29")).toBe(false);
    expect(isDay("2026-11-19")).toBe(true);
    expect(isDay("2026-11-1")).toBe(false);
  });
});
