import { fireEvent, screen, waitFor } from "@testing-library/react";
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
    expect(skills).toHaveTextContent("link is broken");
  });
});
