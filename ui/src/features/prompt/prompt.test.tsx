import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";

import { recordedResult } from "../../test/recorded";
import { renderApp } from "../../test/render";

describe("Prompt tab", () => {
  it("shows the four parts with their sizes and a proportional bar", async () => {
    renderApp("#/agents/assistant/prompt");
    const p = recordedResult("demo", "prompt_preview", { agent: "assistant", session_id: null });
    for (const part of p.parts) {
      const card = await screen.findByTestId(`prompt-part-${part.index}`);
      expect(card).toHaveTextContent(`${part.chars.toLocaleString("en-US")} chars`);
      expect(card).toHaveTextContent(`~${part.tokens_estimate.toLocaleString("en-US")} tokens`);
    }
    expect(screen.getByTestId("prompt-part-2")).toHaveTextContent("## 核心记忆");
    expect(screen.getByTestId("prompt-part-3")).toHaveTextContent("(empty)");
    const seg1 = screen.getByTestId("prompt-bar-1");
    const seg2 = screen.getByTestId("prompt-bar-2");
    const w = (el: HTMLElement) => parseFloat(el.style.width);
    expect(w(seg1) / w(seg2)).toBeCloseTo(p.parts[0]!.chars / p.parts[1]!.chars, 5);
    expect(screen.queryByTestId("prompt-bar-3")).toBeNull(); // an empty part has no segment
    // The runtime's one system message is parts [1] and [2]; each declared tool says its fate.
    expect(p.system_text).toBe(`${p.parts[0]!.text}${p.parts[1]!.text}\n`);
    const tools = screen.getByTestId("prompt-declared-tools");
    expect(within(tools).getAllByTestId("prompt-tool-builtin").map((x) => x.textContent)).toEqual(p.tools.map((x) => `${x.name} — offered`));
  });

  it("includes the history of the chosen session as part [3]", async () => {
    renderApp("#/agents/assistant/prompt");
    await screen.findByTestId("prompt-part-3");
    const select = screen.getByTestId("prompt-session");
    await waitFor(() => expect(select.querySelectorAll("option").length).toBeGreaterThan(1));
    fireEvent.change(select, { target: { value: "cli:linxiao:assistant" } });
    await waitFor(() => expect(screen.getByTestId("prompt-part-3")).toHaveTextContent("user: 帮我总结今天的日志"));
    expect(screen.getByTestId("prompt-part-3")).toHaveTextContent("→ recall_memory");
    expect(screen.getByTestId("prompt-bar-3")).toBeInTheDocument();
  });

  it("shows warnings, e.g. a missing bootstrap file", async () => {
    renderApp("#/agents/writer/prompt");
    expect(await screen.findByTestId("prompt-warnings")).toHaveTextContent("NOTES.md");
  });
});

describe("Prompt tab with episodic memory on", () => {
  it("has no episodic match box while episodic memory is off", async () => {
    renderApp("#/agents/assistant/prompt");
    await screen.findByTestId("prompt-part-4");
    expect(screen.queryByTestId("prompt-episodic-query")).toBeNull();
    expect(screen.queryByTestId("prompt-episodic")).toBeNull();
  });

  it("matches past conversations for a typed message (debounced) and lists what was found", async () => {
    const { backend } = renderApp("#/agents/assistant/prompt", "episodic");
    const box = await screen.findByTestId("prompt-episodic-query");
    expect(box).toHaveValue("");
    expect(box).toHaveAttribute("placeholder", "Empty: the session's last user message");
    // No session and nothing typed: nothing to match.
    expect(screen.getByTestId("prompt-episodic")).toHaveTextContent("there is no user message to match");
    expect(screen.queryByTestId("prompt-part-5")).toBeNull();

    fireEvent.change(box, { target: { value: "证书" } });
    fireEvent.change(box, { target: { value: " 证书续期 " } });
    const expected = recordedResult("episodic", "prompt_preview", { agent: "assistant", session_id: null, query: "证书续期" });
    await waitFor(() => expect(screen.getByTestId("prompt-episodic")).toHaveTextContent(`Episodic memory: 1 of at most 5 past messages for “证书续期” (2,000 characters at most)`));
    // One request for the settled text, none per keystroke.
    expect(backend.calls.filter((c) => c.op === "prompt_preview").map((c) => (c.args as { query?: string }).query)).toEqual([undefined, "证书续期"]);
    const [hit] = within(screen.getByTestId("prompt-episodic-card")).getAllByTestId("episodic-hit");
    const h = expected.episodic!.hits[0]!;
    expect(hit).toHaveTextContent("Remind me to renew the TLS certificate");
    expect(hit).toHaveTextContent(h.session_id);
    expect(within(hit!).getByTestId("episodic-score")).toHaveTextContent(h.score!.toFixed(2));
    expect(hit).toHaveAttribute("href", `#/sessions/${encodeURIComponent(h.session_id)}?m=${h.message_index}&q=${encodeURIComponent("证书续期")}`);
    // The fragments are the console's suggestion, beside the prompt: never one of its parts.
    const card = screen.getByTestId("prompt-episodic-card");
    expect(card).toHaveTextContent("The console's suggestion: relevant past conversations");
    expect(screen.getByTestId("prompt-episodic-not-sent")).toHaveTextContent("the runtime never sends this");
    expect(card.querySelector("pre")).toHaveTextContent("Remind me to renew the TLS certificate");
    expect(expected.parts.map((x) => x.index)).toEqual([1, 2, 3, 4]);
    expect(expected.system_text).not.toContain("相关历史对话");
    expect(screen.queryByTestId("prompt-part-5")).toBeNull();

    // Escape empties the box: back to the session's last user message (none here).
    fireEvent.keyDown(box, { key: "Escape" });
    expect(box).toHaveValue("");
    await waitFor(() => expect(screen.getByTestId("prompt-episodic")).toHaveTextContent("there is no user message to match"));
  });

  it("matches the session's last user message when nothing is typed", async () => {
    renderApp("#/agents/assistant/prompt", "episodic");
    await screen.findByTestId("prompt-episodic-query");
    const select = screen.getByTestId("prompt-session");
    await waitFor(() => expect(select.querySelectorAll("option").length).toBeGreaterThan(1));
    fireEvent.change(select, { target: { value: "cli:linxiao:assistant" } });
    const p = recordedResult("episodic", "prompt_preview", { agent: "assistant", session_id: "cli:linxiao:assistant" });
    expect(p.episodic!.query).toBe("谢谢，记住我更喜欢早上收到简报");
    await waitFor(() => expect(screen.getByTestId("prompt-episodic")).toHaveTextContent(`${p.episodic!.hits.length} of at most 5 past messages for “谢谢，记住我更喜欢早上收到简报”`));
    expect(within(screen.getByTestId("prompt-episodic-card")).getAllByTestId("episodic-hit")).toHaveLength(p.episodic!.hits.length);
    expect(screen.getByTestId("prompt-episodic-query")).toHaveValue("");
  });
});

describe("Overview tab", () => {
  it("shows front matter fields, the rendered body and skills with warnings", async () => {
    renderApp("#/agents/assistant/overview");
    const fm = await screen.findByTestId("front-matter");
    expect(fm).toHaveTextContent("gpt-4o-mini");
    expect(fm).toHaveTextContent("0.3");
    expect(fm).toHaveTextContent("早间简报");
    const body = screen.getByTestId("agent-body");
    expect(body.querySelector("h2")).toHaveTextContent("小O");
    expect(body.querySelector("p")).toHaveTextContent("你帮助林晓管理日程、提醒和资料。");
  });

  it("lists a broken skill with its warning", async () => {
    renderApp("#/agents/researcher/overview");
    const skills = await screen.findByTestId("skills");
    expect(skills).toHaveTextContent("pdf-reader");
    // The badge's name has the warning (its popover is in the page only while shown).
    expect(skills.querySelector(".warn-badge")).toHaveAttribute("aria-label", expect.stringContaining("link is broken"));
  });
});
