import { act, fireEvent, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";

import { BackendError } from "../../backend";
import type { SearchEverywhereDto } from "../../backend/types";
import { parseRoute } from "../../router";
import { renderApp } from "../../test/render";

// search_everywhere was never recorded: answers shaped like `oryx serve`'s on the demo root.
const RESULT: SearchEverywhereDto = {
  query: "用户喜欢什么样的回答风格",
  floor: 0.3,
  memory: [
    {
      agent: "assistant",
      hit: { id: null, timestamp: "2026-11-04 10:00:00", content: "用户偏好简洁的回答，先给结论", line: "- [2026-11-04 10:00:00] 用户偏好简洁的回答，先给结论", scope: "core", score: 0.6234 },
    },
    { agent: null, hit: { id: "m-42", timestamp: null, content: "Answers in Chinese unless asked otherwise", line: "- Answers in Chinese unless asked otherwise", scope: "archival", score: 0.41 } },
  ],
  sessions: [
    {
      agent: "assistant",
      hit: { session_id: "web:chen.wei:assistant", message_index: 3, role: "user", text: "以后回答短一点，先说结论", score: 0.5812, time: "2026-11-10 18:37:23" },
    },
  ],
};

function type(text: string) {
  const input = screen.getByTestId("search-everywhere-input");
  fireEvent.focus(input);
  fireEvent.change(input, { target: { value: text } });
  return input;
}

describe("Search everywhere (#14 item 4)", () => {
  it("Ctrl+K focuses the box; typing searches every memory and past conversation, grouped, with score, source and time", async () => {
    const r = renderApp("#/agents");
    r.backend.stub("search_everywhere", () => RESULT);
    await screen.findByTestId("agent-row-assistant");
    fireEvent.keyDown(window, { key: "k", ctrlKey: true });
    expect(document.activeElement).toBe(screen.getByTestId("search-everywhere-input"));

    type("用户喜欢什么样的回答风格");
    const memory = await screen.findByTestId("search-everywhere-memory", undefined, { timeout: 2000 });
    expect(r.backend.calls.filter((c) => c.op === "search_everywhere")).toEqual([{ op: "search_everywhere", args: { query: "用户喜欢什么样的回答风格" } }]);
    const mem = within(memory).getAllByTestId("search-everywhere-hit");
    expect(mem).toHaveLength(2);
    expect(mem[0]).toHaveTextContent("用户偏好简洁的回答，先给结论");
    expect(mem[0]).toHaveTextContent("assistant");
    expect(mem[0]).toHaveTextContent("core");
    expect(mem[0]).toHaveTextContent("2026-11-04 10:00:00");
    expect(within(mem[0]!).getByTestId("search-everywhere-score")).toHaveTextContent("0.62");
    expect(mem[1]).toHaveTextContent("Global memory");
    expect(mem[1]).toHaveTextContent("archival");
    const sessions = within(screen.getByTestId("search-everywhere-sessions")).getAllByTestId("search-everywhere-hit");
    expect(sessions[0]).toHaveTextContent("web:chen.wei:assistant");
    expect(sessions[0]).toHaveTextContent("0.58");
    expect(screen.getByText("Past conversations")).toBeInTheDocument();
  });

  it("arrow keys move and Enter opens: a memory hit without an id by its text, a session hit at its message", async () => {
    const r = renderApp("#/agents");
    r.backend.stub("search_everywhere", () => RESULT);
    // The memory tab looks the entry up by its text (not found here: the answers are made up).
    r.backend.stub("archival_page", (a) => ({ agent: null, total: 0, offset: 0, newest_first: true, keyword: (a as { keyword: string | null }).keyword, cut_at: null, items: [] }));
    await screen.findByTestId("agent-row-assistant");
    const input = type("回答风格");
    fireEvent.keyDown(input, { key: "Enter" });
    await screen.findByTestId("search-everywhere-memory");
    const options = screen.getAllByRole("option");
    expect(options[0]).toHaveAttribute("aria-selected", "true");
    expect(input).toHaveAttribute("aria-activedescendant", options[0]!.id);
    fireEvent.keyDown(input, { key: "Enter" });
    expect(parseRoute(window.location.hash)).toEqual({ page: "agent", name: "assistant", tab: "memory", find: "用户偏好简洁的回答，先给结论" });
    expect(screen.queryByTestId("search-everywhere-panel")).toBeNull();

    fireEvent.focus(input);
    await screen.findByTestId("search-everywhere-memory");
    fireEvent.keyDown(input, { key: "ArrowDown" });
    fireEvent.keyDown(input, { key: "Enter" });
    expect(parseRoute(window.location.hash)).toEqual({ page: "global", entry: "m-42", find: "Answers in Chinese unless asked otherwise" });

    fireEvent.focus(input);
    await screen.findByTestId("search-everywhere-memory");
    fireEvent.keyDown(input, { key: "ArrowUp" });
    expect(screen.getAllByRole("option")[2]).toHaveAttribute("aria-selected", "true");
    fireEvent.keyDown(input, { key: "Enter" });
    expect(parseRoute(window.location.hash)).toEqual({ page: "session", id: "web:chen.wei:assistant", m: 3, q: "用户喜欢什么样的回答风格" });

    fireEvent.focus(input);
    await screen.findByTestId("search-everywhere-panel");
    fireEvent.keyDown(input, { key: "Escape" });
    expect(screen.queryByTestId("search-everywhere-panel")).toBeNull();
  });

  it("says when nothing is close, and shows the console's message without the model", async () => {
    const r = renderApp("#/agents");
    r.backend.stub("search_everywhere", (args) => {
      const q = (args as { query: string }).query;
      if (q === "zzz") return { query: q, floor: 0.3, memory: [], sessions: [] } satisfies SearchEverywhereDto;
      throw new BackendError("invalid_input", "semantic search needs the embedding model: run `make model`");
    });
    await screen.findByTestId("agent-row-assistant");
    const input = type("zzz");
    expect(await screen.findByTestId("search-everywhere-empty", undefined, { timeout: 2000 })).toHaveTextContent("Nothing in memory or past conversations is close to “zzz” (similarity floor 0.30).");
    fireEvent.change(input, { target: { value: "renew certificate" } });
    expect(await screen.findByTestId("search-everywhere-error", undefined, { timeout: 2000 })).toHaveTextContent("run `make model`");
  });

  it("waits for 2 characters while typing, shows a spinner while asking, and leaves '/' to the page's own search", async () => {
    const r = renderApp("#/agents");
    let release: (v: SearchEverywhereDto) => void = () => {};
    r.backend.stub("search_everywhere", () => new Promise<SearchEverywhereDto>((res) => (release = res)));
    const filter = await screen.findByTestId("agents-filter");
    fireEvent.keyDown(window, { key: "/" });
    expect(document.activeElement).toBe(filter);

    type("a");
    expect(screen.getByTestId("search-everywhere-panel")).toHaveTextContent("Type at least 2 characters");
    await act(() => new Promise((res) => setTimeout(res, 400)));
    expect(r.backend.calls.some((c) => c.op === "search_everywhere")).toBe(false);
    fireEvent.keyDown(screen.getByTestId("search-everywhere-input"), { key: "Enter" });
    expect(await screen.findByTestId("search-everywhere-loading")).toBeInTheDocument();
    act(() => release(RESULT));
    await waitFor(() => expect(screen.queryByTestId("search-everywhere-loading")).toBeNull());
    expect(screen.getAllByTestId("search-everywhere-hit")).toHaveLength(3);
  });
});

describe("Entry links by text alone", () => {
  it("parses and writes a find without an entry id", () => {
    expect(parseRoute("#/agents/assistant?find=%E7%94%A8%E6%88%B7")).toEqual({ page: "agent", name: "assistant", tab: "memory", find: "用户" });
    expect(parseRoute("#/global?find=x")).toEqual({ page: "global", find: "x" });
  });
});
