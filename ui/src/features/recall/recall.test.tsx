import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";

import type { IndexJobDto, IndexStatusDto } from "../../backend/types";
import { recordedResult } from "../../test/recorded";
import { renderApp } from "../../test/render";

const LONG = { timeout: 4000 };
const Q = "用户喜欢什么样的回答风格";
const PAGE = `#/recall?agent=assistant&q=${encodeURIComponent(Q)}`;

describe("Recall", () => {
  it("shows the three modes side by side: hits with section, time and score, the empty answer, floor and limit", async () => {
    const { backend } = renderApp(PAGE, "recall");
    const semantic = await screen.findByTestId("recall-col-semantic");
    await within(semantic).findAllByTestId("recall-hit", undefined, LONG);
    // Every hit the console answered, in its order: content, section, time, score to two decimals.
    const answer = recordedResult("recall", "recall_memory", { agent: "assistant", keyword: Q, mode: "semantic" });
    const hits = within(semantic).getAllByTestId("recall-hit");
    expect(hits).toHaveLength(answer.results.length);
    expect(answer.results.length).toBeGreaterThanOrEqual(2);
    answer.results.forEach((r, i) => {
      expect(hits[i]).toHaveTextContent(r.content);
      expect(hits[i]).toHaveAttribute("data-scope", r.scope);
      expect(hits[i]).toHaveTextContent(r.timestamp!);
      expect(within(hits[i]!).getByTestId("recall-score")).toHaveTextContent(r.score!.toFixed(2));
    });
    expect(hits[0]).toHaveTextContent("用户偏好简洁的回复，不用列表。");
    expect(hits[0]).toHaveTextContent("core");
    expect(hits[1]).toHaveTextContent("archival");
    expect(within(semantic).getByTestId("recall-col-count")).toHaveTextContent(String(answer.results.length));
    expect(within(semantic).getByTestId("recall-params")).toHaveTextContent("floor 0.20 · limit 5");

    const hybrid = screen.getByTestId("recall-col-hybrid");
    expect((await within(hybrid).findAllByTestId("recall-hit"))[0]).toHaveTextContent("用户偏好简洁的回复");

    // Keyword: no entry contains the question: the tool's own answer.
    const keyword = screen.getByTestId("recall-col-keyword");
    expect(await within(keyword).findByTestId("recall-empty")).toHaveTextContent("没有找到相关记忆");
    expect(within(keyword).queryByTestId("recall-hit")).toBeNull();
    // The configured mode (keyword in the demo) is the one marked as the tool's.
    expect(within(keyword).getByTestId("recall-configured")).toHaveTextContent("recall_memory uses this");
    expect(within(semantic).queryByTestId("recall-configured")).toBeNull();
    expect(screen.getByTestId("recall-configured-mode")).toHaveTextContent("The agent's recall_memory tool uses Keyword");

    const modes = backend.calls.filter((c) => c.op === "recall_memory").map((c) => (c.args as { mode: string }).mode);
    expect(modes.sort()).toEqual(["hybrid", "keyword", "semantic"]);
    expect(screen.getByTestId("recall-query")).toHaveValue(Q);
    expect(screen.getByTestId("recall-owner")).toHaveValue("assistant");
  });

  it("runs the query on Enter, keeps owner and query in the URL, and a hit opens the owner's memory", async () => {
    renderApp("#/recall", "recall");
    const owner = await screen.findByTestId("recall-owner");
    await within(owner).findByRole("option", { name: "assistant" });
    fireEvent.change(owner, { target: { value: "assistant" } });
    await waitFor(() => expect(window.location.hash).toBe("#/recall?agent=assistant"));
    const box = screen.getByTestId("recall-query");
    fireEvent.change(box, { target: { value: `  ${Q} ` } });
    fireEvent.submit(box.closest("form")!);
    await waitFor(() => expect(window.location.hash).toBe(PAGE));
    const [hit] = await within(screen.getByTestId("recall-col-semantic")).findAllByTestId("recall-hit", undefined, LONG);
    expect(hit).toHaveAttribute("href", "#/agents/assistant");
    fireEvent.click(hit!);
    await waitFor(() => expect(window.location.hash).toBe("#/agents/assistant"));
    expect(await screen.findByTestId("core-table")).toHaveTextContent("用户偏好简洁的回复，不用列表。");
  });

  it("answers 没有找到相关记忆 in every mode when nothing in the global memory is close", async () => {
    const { backend } = renderApp(`#/recall?q=${encodeURIComponent(Q)}`, "recall");
    for (const mode of ["keyword", "semantic", "hybrid"]) {
      const col = await screen.findByTestId(`recall-col-${mode}`);
      expect(await within(col).findByTestId("recall-empty", undefined, LONG)).toHaveTextContent("recall_memory answers没有找到相关记忆");
    }
    expect(screen.getByTestId("recall-owner")).toHaveValue("");
    // The global memory has no sessions: no past conversations, and no search for them.
    expect(screen.queryByTestId("episodic")).toBeNull();
    expect(backend.calls.some((c) => c.op === "episodic_search")).toBe(false);
  });

  it("shows the agent's past conversations for the same query: score, session, role, time, text, each opening its message", async () => {
    const EP = "证书续期";
    const { backend } = renderApp(`#/recall?agent=assistant&q=${encodeURIComponent(EP)}`, "recall");
    const panel = await screen.findByTestId("episodic");
    expect(panel).toHaveTextContent("Past conversations");
    const hits = await within(panel).findAllByTestId("episodic-hit", undefined, LONG);
    const answer = recordedResult("recall", "episodic_search", { agent: "assistant", query: EP });
    expect(hits).toHaveLength(answer.results.length);
    const [first] = answer.results;
    expect(first!.text).toBe("Remind me to renew the TLS certificate");
    const hit = hits[0]!;
    expect(hit).toHaveTextContent(first!.text);
    expect(within(hit).getByTestId("episodic-role")).toHaveTextContent("User");
    expect(hit).toHaveTextContent(first!.session_id);
    expect(hit).toHaveTextContent(first!.time!);
    expect(within(hit).getByTestId("episodic-score")).toHaveTextContent(first!.score!.toFixed(2));
    expect(within(panel).getByTestId("episodic-count")).toHaveTextContent(String(answer.results.length));
    expect(within(panel).getByTestId("episodic-params")).toHaveTextContent("similarity floor 0.20");
    // Episodic memory is off in this state: the panel says these do not reach the prompt.
    expect(within(panel).getByTestId("episodic-state")).toHaveTextContent("Episodic memory is off");
    expect(backend.calls.filter((c) => c.op === "episodic_search").map((c) => c.args)).toEqual([{ agent: "assistant", query: EP }]);

    // The link opens the session at that message, the query carried along.
    expect(hit).toHaveAttribute("href", `#/sessions/${encodeURIComponent(first!.session_id)}?m=${first!.message_index}&q=${encodeURIComponent(EP)}`);
    fireEvent.click(hit);
    await waitFor(() => expect(window.location.hash).toBe(hit.getAttribute("href")));
    const marked = await screen.findByTestId("conversation");
    await waitFor(() => expect(marked.querySelector('[aria-current="true"]')).toHaveTextContent(first!.text));
    expect(marked.querySelector('[aria-current="true"]')).toHaveAttribute("data-index", String(first!.message_index));
  });

  it("says so when no past message is close", async () => {
    renderApp(PAGE, "recall");
    const panel = await screen.findByTestId("episodic");
    expect(await within(panel).findByTestId("episodic-empty", undefined, LONG)).toHaveTextContent("No past message is close to this (similarity floor 0.20).");
    expect(within(panel).queryByTestId("episodic-hit")).toBeNull();
  });

  it("shows the model, the vector file and each owner's indexed entries", async () => {
    renderApp("#/recall", "recall");
    const status = recordedResult("recall", "index_status", {});
    const model = await screen.findByTestId("index-model");
    expect(model).toHaveTextContent(status.model.name);
    expect(screen.getByTestId("index-model-dir")).toHaveTextContent(status.model.dir);
    expect(screen.getByTestId("index-model-size")).toHaveTextContent(`${(status.model.size_bytes! / 1048576).toFixed(1)} MB`);
    expect(screen.getByTestId("index-model-state")).toHaveTextContent("installed");
    expect(screen.getByTestId("index-model-state")).toHaveTextContent("loaded");
    expect(screen.getByTestId("index-store")).toHaveTextContent(status.store_path);
    // The recording recalled from assistant first: its entries have vectors, log_analyst's not yet.
    expect(screen.getByTestId("index-owner-assistant").querySelector('[data-col="indexed"]')).toHaveTextContent("7 / 7");
    expect(screen.getByTestId("index-owner-log_analyst").querySelector('[data-col="indexed"]')).toHaveTextContent("0 / 26");
    expect(screen.getByTestId("index-owner-global")).toHaveTextContent("Global memory");
    expect(screen.queryByTestId("index-model-missing")).toBeNull();
    expect(screen.queryByTestId("index-native")).toBeNull();
    expect(screen.getByTestId("index-build")).toBeEnabled();
  });

  it("clears the index only after the confirmation", async () => {
    const { backend } = renderApp("#/recall", "recall");
    fireEvent.click(await screen.findByTestId("index-clear"));
    const dialog = await screen.findByTestId("index-clear-dialog");
    expect(dialog).toHaveTextContent("The memories themselves are not touched");
    fireEvent.click(within(dialog).getByTestId("index-clear-cancel"));
    await waitFor(() => expect(screen.queryByTestId("index-clear-dialog")).toBeNull());
    expect(backend.calls.some((c) => c.op === "clear_index")).toBe(false);

    fireEvent.click(screen.getByTestId("index-clear"));
    fireEvent.click(within(await screen.findByTestId("index-clear-dialog")).getByTestId("index-clear-confirm"));
    await waitFor(() => expect(screen.getByTestId("index-owner-assistant").querySelector('[data-col="indexed"]')).toHaveTextContent("0 / 7"));
    expect(screen.queryByTestId("index-clear-dialog")).toBeNull();
    expect(backend.state).toBe("index_cleared");
  });

  it("follows a running build by its progress alone, and reads the owners' counts again when it ends", async () => {
    const status = recordedResult("recall", "index_status", {}) as IndexStatusDto;
    const job = (done: number, running = true): IndexJobDto => ({
      running,
      current: "log_analyst",
      owners_done: 1,
      owners_total: 3,
      done,
      todo: 26,
      current_entries: 26,
      current_indexed: done,
      embedded_total: 7 + done,
      cancelled: false,
      error: null,
    });
    const { backend } = renderApp("#/recall", "recall");
    // The build runs when the page opens; the status's copy of it says 3 of 26.
    let counted = 0;
    backend.stub("index_status", () => {
      counted += 1;
      return counted === 1 ? { ...status, job: job(3) } : { ...status, job: job(26, false) };
    });
    const progress = [5, 12, 20];
    backend.stub("index_build", () => (progress.length > 0 ? job(progress.shift()!) : job(26, false)));
    const shown = await screen.findByTestId("index-job");
    expect(shown).toHaveTextContent("3 of 26");
    // Each poll's answer is shown, without asking for every owner's counts again.
    await waitFor(() => expect(screen.getByTestId("index-job")).toHaveTextContent("20 of 26"), LONG);
    expect(counted).toBe(1);
    // The owner's row and the total follow the build, not the status read when it started.
    expect(screen.getByTestId("index-owner-log_analyst").querySelector('[data-col="indexed"]')).toHaveTextContent("20 / 26");
    const others = status.owners.filter((o) => o.agent !== "log_analyst").reduce((a, o) => a + Math.min(o.indexed, o.entries), 0);
    expect(screen.getByTestId("index-total")).toHaveTextContent(`${others + 20} of`);
    expect(screen.getByTestId("index-build")).toBeDisabled();
    // The build ends: the status (and its counts) is asked for once more, and the outcome shown.
    await waitFor(() => expect(screen.getByTestId("index-job")).toHaveAttribute("data-outcome", "done"), LONG);
    await waitFor(() => expect(counted).toBe(2));
    expect(backend.calls.filter((c) => c.op === "index_build").length).toBe(4);
    expect(screen.getByTestId("index-build")).toBeEnabled();
  });

  it("is in the main navigation, in Chinese too", async () => {
    renderApp("#/recall", "demo_zh");
    const nav = await screen.findByTestId("nav-recall");
    await waitFor(() => expect(nav).toHaveTextContent("记忆检索"));
    expect(nav).toHaveAttribute("aria-current", "page");
  });
});
