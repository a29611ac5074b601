import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";

import type { AgentDetail } from "../../backend/types";
import { recordedResult } from "../../test/recorded";
import { renderApp } from "../../test/render";

// broken_yaml is in the demo root's recorded list (and its charts' reads), but its details and
// file were never recorded: answered with what `oryx serve` says for the same AGENT.md (a tab in
// the front matter).
const TEXT = "---\nname: broken_yaml\ndescription: x\n\tprovider: openai\n---\nThis agent's front matter has a tab in it.\n";
const PARSE = "found a tab character that violates indentation at line 3 column 1, while scanning a plain scalar at line 2 column 14";
const BROKEN: AgentDetail = {
  summary: {
    ...recordedResult("demo", "get_agent", { name: "assistant" }).summary,
    name: "broken_yaml",
    description: null,
    provider: null,
    model: null,
    tools: [],
    skills: [],
    memory: { core: 0, archival: 0, bytes: null, error: null },
    last_activity: null,
    has_agent_md: true,
    warnings: [{ code: "front_matter_invalid", params: { file: "AGENT.md", detail: PARSE }, message: `AGENT.md front matter is not valid YAML: ${PARSE}` }],
    unreviewed: null,
  },
  identity_name: null,
  identity_prompt: null,
  temperature: null,
  bootstrap: [],
  max_history_turns: 20,
  schedules_yaml: null,
  channels_yaml: null,
  front_matter_yaml: "",
  body: "This agent's front matter has a tab in it.\n",
  skills: [],
  dir: "/home/linxiao/.oryxos/agents/broken_yaml",
};

const sent = (calls: { op: string; args: unknown }[], op: string) => calls.filter((c) => c.op === op).map((c) => c.args);

describe("Overview: all front matter", () => {
  it("shows AGENT.md as written and why its front matter could not be read, instead of —", async () => {
    const { backend } = renderApp("#/agents/broken_yaml/overview");
    backend.stub("get_agent", () => BROKEN);
    backend.stub("agent_file", () => ({ name: "broken_yaml", text: TEXT, version: "ca3f9fa577d5a3dc", errors: [{ key: "", message: `the front matter is not valid YAML: ${PARSE}` }] }));
    const raw = await screen.findByTestId("raw-front-matter");
    const errors = await within(raw).findByTestId("front-matter-errors");
    expect(errors).toHaveTextContent(`the front matter is not valid YAML: ${PARSE}`);
    expect(within(raw).getByText("All front matter (YAML)")).toBeInTheDocument();
    expect(raw.querySelector("summary")).toHaveTextContent("not valid YAML");
    expect(within(raw).getByTestId("front-matter-yaml").textContent).toBe(TEXT);
    fireEvent.click(raw.querySelector("summary")!);
    expect(sent(backend.calls, "agent_file")).toEqual([{ name: "broken_yaml" }]);
    // The recorded charts' reads: nothing to draw yet, and the charts say so. The charts are a
    // lazily loaded chunk: on a busy machine it takes longer than findBy's default second.
    const chunk = { timeout: 15_000 };
    expect(await screen.findByTestId("chart-growth-empty", {}, chunk)).toHaveTextContent("No dated entries.");
    expect(await screen.findByTestId("chart-composition-empty", {}, chunk)).toHaveTextContent("No sessions yet.");
  }, 30_000);

  it("shows the parsed front matter as YAML without reading the file", async () => {
    const { backend } = renderApp("#/agents/assistant/overview");
    const yaml = await screen.findByTestId("front-matter-yaml");
    expect(yaml).toHaveTextContent("bootstrap:");
    expect(screen.queryByTestId("front-matter-errors")).toBeNull();
    await screen.findByTestId("chart-composition", {}, { timeout: 15_000 });
    await waitFor(() => expect(sent(backend.calls, "get_agent")).toEqual([{ name: "assistant" }]));
    expect(sent(backend.calls, "agent_file")).toEqual([]);
  }, 30_000);
});
