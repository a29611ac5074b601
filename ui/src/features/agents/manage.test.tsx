import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";

import { BackendError } from "../../backend";
import { recordedResult } from "../../test/recorded";
import { renderApp } from "../../test/render";

// Agent management writes are answered with stubs (the recorded console's answers to reads stay
// real: the agents list, assistant's details, the bootstrap files); each test checks the
// requests as sent.
const ASSISTANT = () => recordedResult("demo", "get_agent", { name: "assistant" });
const FILE_TEXT = "---\nname: assistant\nprovider:\n  name: openai\n  model: gpt-4o-mini\n---\nBody.\n";

/** The runtime's registry as `new_agent_choices` answers it: none yet, unless a test says. */
const NO_REGISTRY = { providers: null, default_provider: "deepseek" };

const sent = (calls: { op: string; args: unknown }[], op: string) => calls.filter((c) => c.op === op).map((c) => c.args);

async function openOverview() {
  const r = renderApp("#/agents/assistant/overview");
  await screen.findByTestId("front-matter");
  return r;
}

async function openEditor() {
  const r = await openOverview();
  r.backend.stub("agent_file", () => ({ name: "assistant", text: FILE_TEXT, version: "v1", errors: [] }));
  fireEvent.click(screen.getByTestId("agent-edit"));
  await screen.findByTestId("agent-form");
  return r;
}

describe("New agent", () => {
  it("offers the runtime's providers, and sends a draft only when asked", async () => {
    const { backend } = renderApp("#/agents");
    backend.stub("new_agent_choices", () => ({ providers: ["deepseek", "mock"], default_provider: "deepseek" }));
    await screen.findByTestId("agent-row-assistant");
    let answer: () => unknown = () => {
      throw new BackendError("invalid_input", "the runtime would not load this agent (provider_model_empty: provider.model is empty: the runtime skips this agent); save it as a draft to write it anyway");
    };
    backend.stub("create_agent", () => answer());
    fireEvent.click(screen.getByTestId("agent-new"));
    const dialog = await screen.findByTestId("create-agent");
    await waitFor(() => expect(within(dialog).getByTestId("create-provider").tagName).toBe("SELECT"));
    const provider = within(dialog).getByTestId("create-provider");
    expect([...provider.querySelectorAll("option")].map((o) => o.textContent)).toEqual(["deepseek", "mock"]);
    expect(provider).toHaveValue("deepseek");
    expect(within(dialog).getByTestId("create-provider-hint")).toHaveTextContent("the runtime's default is deepseek");
    fireEvent.change(within(dialog).getByTestId("create-name"), { target: { value: "fresh" } });
    fireEvent.change(provider, { target: { value: "mock" } });
    fireEvent.click(within(dialog).getByTestId("create-submit"));
    expect(await within(dialog).findByTestId("create-error-message")).toHaveTextContent("provider_model_empty");
    answer = () => ({ ...ASSISTANT(), summary: { ...ASSISTANT().summary, name: "fresh" } });
    fireEvent.click(within(dialog).getByTestId("create-draft"));
    fireEvent.click(within(dialog).getByTestId("create-submit"));
    await waitFor(() => expect(window.location.hash).toBe("#/agents/fresh/overview"));
    expect(sent(backend.calls, "create_agent")).toEqual([
      { name: "fresh", provider: "mock" },
      { name: "fresh", provider: "mock", draft: true },
    ]);
  });


  it("sends what was filled in as create_agent's arguments and opens the new agent", async () => {
    const { backend } = renderApp("#/agents");
    backend.stub("new_agent_choices", () => NO_REGISTRY);
    await screen.findByTestId("agent-row-assistant");
    backend.stub("create_agent", () => ({ ...ASSISTANT(), summary: { ...ASSISTANT().summary, name: "helper" } }));
    fireEvent.click(screen.getByTestId("agent-new"));
    const dialog = await screen.findByTestId("create-agent");
    const name = within(dialog).getByTestId("create-name");
    expect(document.activeElement).toBe(name);
    fireEvent.change(name, { target: { value: "bad name" } });
    expect(within(dialog).getByTestId("create-name-hint")).toHaveTextContent("[A-Za-z0-9_-]{1,64}");
    expect(name).toHaveAttribute("aria-invalid", "true");
    fireEvent.change(name, { target: { value: "helper" } });
    expect(name).not.toHaveAttribute("aria-invalid");
    fireEvent.change(within(dialog).getByTestId("create-description"), { target: { value: "Helps" } });
    fireEvent.change(within(dialog).getByTestId("create-provider"), { target: { value: "openai" } });
    fireEvent.change(within(dialog).getByTestId("create-model"), { target: { value: "gpt-4o" } });
    fireEvent.change(within(dialog).getByTestId("create-temperature"), { target: { value: "0.5" } });
    fireEvent.change(within(dialog).getByTestId("create-max-history"), { target: { value: "12" } });
    fireEvent.change(within(dialog).getByTestId("create-tools"), { target: { value: "save_memory, recall_memory," } });
    fireEvent.click(await within(dialog).findByTestId("create-bootstrap-USER.md"));
    fireEvent.change(within(dialog).getByTestId("create-from"), { target: { value: "writer" } });
    fireEvent.click(within(dialog).getByTestId("create-with-memory"));
    // Enter in a field submits the form.
    fireEvent.submit(name.closest("form")!);
    await waitFor(() => expect(window.location.hash).toBe("#/agents/helper/overview"));
    expect(sent(backend.calls, "create_agent")).toEqual([
      {
        name: "helper",
        description: "Helps",
        provider: "openai",
        model: "gpt-4o",
        temperature: 0.5,
        max_history_turns: 12,
        tools: ["save_memory", "recall_memory"],
        bootstrap: ["USER.md"],
        from: "writer",
        with_memory: true,
      },
    ]);
    expect(screen.queryByTestId("create-agent")).toBeNull();
  });

  it("shows the console's conflict and creates anyway over an archived agent's name", async () => {
    const { backend } = renderApp("#/agents");
    backend.stub("new_agent_choices", () => NO_REGISTRY);
    await screen.findByTestId("agent-row-assistant");
    let n = 0;
    backend.stub("create_agent", () => {
      n += 1;
      if (n === 1) throw new BackendError("conflict", "an archived agent is named old-bot");
      return { ...ASSISTANT(), summary: { ...ASSISTANT().summary, name: "old-bot" } };
    });
    fireEvent.click(screen.getByTestId("agent-new"));
    const dialog = await screen.findByTestId("create-agent");
    fireEvent.change(within(dialog).getByTestId("create-name"), { target: { value: "old-bot" } });
    fireEvent.click(within(dialog).getByTestId("create-submit"));
    const err = await within(dialog).findByTestId("create-error");
    expect(err).toHaveTextContent("An archived agent is named old-bot.");
    expect(err).toHaveTextContent("an archived agent is named old-bot");
    fireEvent.click(within(dialog).getByTestId("create-anyway"));
    await waitFor(() => expect(window.location.hash).toBe("#/agents/old-bot/overview"));
    expect(sent(backend.calls, "create_agent")).toEqual([{ name: "old-bot" }, { name: "old-bot", reuse_archived_name: true }]);
  });

  it("closes on Escape without creating anything", async () => {
    const { backend } = renderApp("#/agents");
    backend.stub("new_agent_choices", () => NO_REGISTRY);
    await screen.findByTestId("agent-row-assistant");
    fireEvent.click(screen.getByTestId("agent-new"));
    const dialog = await screen.findByTestId("create-agent");
    fireEvent.keyDown(within(dialog).getByTestId("create-name"), { key: "Escape" });
    expect(screen.queryByTestId("create-agent")).toBeNull();
    expect(sent(backend.calls, "create_agent")).toEqual([]);
  });
});

describe("Editing an agent", () => {
  it("saves each changed form field with set_agent_key, strings quoted, numbers as text", async () => {
    const { backend } = await openEditor();
    let version = 1;
    backend.stub("set_agent_key", (a) => {
      const { key } = a as { key: string };
      if (key === "settings.max_history_turns") throw new BackendError("invalid_input", "settings.max_history_turns: settings.max_history_turns must be a whole number, not 2.5");
      version += 1;
      return { name: "assistant", text: FILE_TEXT, version: `v${version}`, errors: [] };
    });
    const model = screen.getByTestId("agent-field-provider-model");
    expect(model).toHaveValue("gpt-4o-mini");
    fireEvent.change(model, { target: { value: 'gpt-4.1 "mini"' } });
    fireEvent.change(screen.getByTestId("agent-field-provider-temperature"), { target: { value: "0.7" } });
    fireEvent.change(screen.getByTestId("agent-field-description"), { target: { value: "" } });
    fireEvent.change(screen.getByTestId("agent-field-settings-max_history_turns"), { target: { value: "2.5" } });
    expect(screen.getByTestId("agent-form-save")).toHaveTextContent("Save 4 changed fields");
    fireEvent.click(screen.getByTestId("agent-form-save"));
    const err = await screen.findByTestId("agent-field-settings-max_history_turns-error");
    // The console's message, without the key it starts with (the field shows it).
    expect(err.textContent).toBe("settings.max_history_turns must be a whole number, not 2.5");
    expect(screen.getByTestId("agent-field-settings-max_history_turns")).toHaveAttribute("aria-invalid", "true");
    expect(sent(backend.calls, "set_agent_key")).toEqual([
      { name: "assistant", key: "description", value: "null", version: "v1" },
      { name: "assistant", key: "provider.model", value: '"gpt-4.1 \\"mini\\""', version: "v2" },
      { name: "assistant", key: "provider.temperature", value: "0.7", version: "v3" },
      { name: "assistant", key: "settings.max_history_turns", value: "2.5", version: "v4" },
    ]);
  });

  it("a form save refused as a conflict says so at the field and reads the file again", async () => {
    const { backend } = await openEditor();
    backend.stub("set_agent_key", () => {
      throw new BackendError("conflict", "AGENT.md changed on disk since it was opened; nothing was saved (reload to see both versions)");
    });
    const reads = () => backend.calls.filter((c) => c.op === "agent_file").length;
    const before = reads();
    fireEvent.change(screen.getByTestId("agent-field-provider-model"), { target: { value: "gpt-4.1" } });
    fireEvent.click(screen.getByTestId("agent-form-save"));
    expect(await screen.findByTestId("agent-field-provider-model-error")).toHaveTextContent("changed on disk since the form was opened");
    await waitFor(() => expect(reads()).toBeGreaterThan(before));
    // The user's value stays, ready to be saved again.
    expect(screen.getByTestId("agent-field-provider-model")).toHaveValue("gpt-4.1");
  });

  it("validates the raw text as it is typed and saves it with the version it was read with", async () => {
    const { backend } = await openEditor();
    backend.stub("validate_agent_file", (a) =>
      (a as { text: string }).text.includes("temperature: hot") ? [{ key: "provider.temperature", message: "provider.temperature must be a number" }] : [],
    );
    backend.stub("save_agent_file", (a) => ({ name: "assistant", text: (a as { text: string }).text, version: "v2", errors: [] }));
    fireEvent.click(screen.getByTestId("edit-tab-raw"));
    const text = await screen.findByTestId("raw-text");
    expect(text).toHaveValue(FILE_TEXT);
    expect(screen.getByTestId("raw-save")).toBeDisabled();
    const edited = FILE_TEXT.replace("gpt-4o-mini\n", "gpt-4o-mini\n  temperature: hot\n");
    fireEvent.change(text, { target: { value: edited } });
    const errors = await screen.findByTestId("raw-errors", undefined, { timeout: 2000 });
    expect(errors).toHaveTextContent("provider.temperature must be a number");
    expect(screen.getByTestId("raw-diff").querySelector("ins")).toHaveTextContent("temperature: hot");
    expect(sent(backend.calls, "validate_agent_file").at(-1)).toEqual({ name: "assistant", text: edited });
    fireEvent.click(screen.getByTestId("raw-save"));
    await waitFor(() => expect(sent(backend.calls, "save_agent_file")).toEqual([{ name: "assistant", text: edited, version: "v1" }]));
  });

  it("on a conflict shows the disk text beside the edited one; Keep mine saves with the new version", async () => {
    const { backend } = await openEditor();
    backend.stub("validate_agent_file", () => []);
    fireEvent.click(screen.getByTestId("edit-tab-raw"));
    const text = await screen.findByTestId("raw-text");
    const mine = FILE_TEXT.replace("Body.", "My body.");
    const disk = FILE_TEXT.replace("Body.", "Their body.");
    fireEvent.change(text, { target: { value: mine } });
    let saves = 0;
    backend.stub("save_agent_file", () => {
      saves += 1;
      if (saves === 1) throw new BackendError("conflict", "AGENT.md changed since it was read");
      return { name: "assistant", text: mine, version: "v3", errors: [] };
    });
    // What agent_file answers now: the file another program wrote.
    backend.stub("agent_file", () => ({ name: "assistant", text: disk, version: "v2", errors: [] }));
    fireEvent.click(screen.getByTestId("raw-save"));
    const conflict = await screen.findByTestId("raw-conflict");
    await waitFor(() => expect(within(conflict).getByTestId("raw-conflict-disk")).toHaveTextContent("Their body."));
    expect(within(conflict).getByTestId("raw-conflict-mine")).toHaveTextContent("My body.");
    fireEvent.click(within(conflict).getByTestId("raw-conflict-keep"));
    await waitFor(() => expect(saves).toBe(2));
    expect(sent(backend.calls, "save_agent_file")).toEqual([
      { name: "assistant", text: mine, version: "v1" },
      { name: "assistant", text: mine, version: "v2" },
    ]);
  });

  it("links and unlinks skills with one set_agent_skills", async () => {
    const { backend } = await openOverview();
    backend.stub("root_skills", () => [
      { name: "web-search", description: "Search the web" },
      { name: "pdf-reader", description: null },
    ]);
    backend.stub("set_agent_skills", () => ASSISTANT());
    const linked = ASSISTANT().skills.map((s) => s.name);
    expect(linked).toContain("web-search");
    fireEvent.click(screen.getByTestId("skills-edit"));
    const web = await screen.findByTestId("skill-check-web-search");
    expect(web).toBeChecked();
    fireEvent.click(web);
    fireEvent.click(screen.getByTestId("skill-check-pdf-reader"));
    fireEvent.click(screen.getByTestId("skills-save"));
    await waitFor(() => expect(sent(backend.calls, "set_agent_skills")).toEqual([{ name: "assistant", add: ["pdf-reader"], remove: ["web-search"] }]));
    await waitFor(() => expect(screen.queryByTestId("skills-picker")).toBeNull());
  });
});

describe("Archiving", () => {
  it("archives after a confirmation; Undo in the toast restores it by its archived name", async () => {
    const { backend } = await openOverview();
    const archived = { archived_name: "assistant-20260102-100000", name: "assistant", archived_at: "2026-01-02 10:00:00" };
    backend.stub("archive_agent", () => archived);
    backend.stub("restore_agent", () => ASSISTANT());
    fireEvent.click(screen.getByTestId("agent-archive"));
    const confirm = await screen.findByTestId("archive-confirm");
    expect(confirm).toHaveTextContent("Archive assistant?");
    fireEvent.click(within(confirm).getByTestId("archive-confirm-ok"));
    await waitFor(() => expect(window.location.hash).toBe("#/agents"));
    const toast = await screen.findByTestId("toast");
    expect(toast).toHaveTextContent("Archived assistant · Undo");
    expect(sent(backend.calls, "archive_agent")).toEqual([{ name: "assistant" }]);
    fireEvent.click(within(toast).getByTestId("toast-undo"));
    await waitFor(() => expect(sent(backend.calls, "restore_agent")).toEqual([{ archived_name: archived.archived_name }]));
    await waitFor(() => expect(window.location.hash).toBe("#/agents/assistant/overview"));
    expect(screen.queryByTestId("toast")).toBeNull();
  });

  it("lists archived agents; Restore asks for another name when the name is taken; Delete confirms what it removes", async () => {
    const { backend } = renderApp("#/agents");
    await screen.findByTestId("agent-row-assistant");
    const a = { archived_name: "writer-20260102-100000", name: "writer", archived_at: "2026-01-02 10:00:00" };
    backend.stub("list_archived", () => [a]);
    backend.stub("restore_agent", (x) => {
      if (!(x as { as_name?: string }).as_name) throw new BackendError("conflict", "agents/writer exists");
      return { ...ASSISTANT(), summary: { ...ASSISTANT().summary, name: "writer2" } };
    });
    backend.stub("archived_removal", () => ({ archived_name: a.archived_name, files: 2, bytes: 2048, paths: ["AGENT.md", "MEMORY.md"] }));
    backend.stub("delete_archived", (x) => ({ archived_name: a.archived_name, files: (x as { expect_count: number }).expect_count, bytes: 2048, paths: [] }));
    expect(backend.calls.some((c) => c.op === "list_archived")).toBe(false);
    fireEvent.click(screen.getByTestId("archived-toggle"));
    const row = await screen.findByTestId(`archived-${a.archived_name}`);
    fireEvent.click(within(row).getByTestId("archived-delete"));
    const confirm = await screen.findByTestId("archived-delete-confirm");
    expect(await within(confirm).findByTestId("archived-delete-summary")).toHaveTextContent("2 files (2.0 KB) will be deleted");
    expect(within(confirm).getByTestId("archived-delete-paths")).toHaveTextContent("MEMORY.md");
    fireEvent.click(within(confirm).getByTestId("archived-delete-ok"));
    await waitFor(() => expect(sent(backend.calls, "delete_archived")).toEqual([{ archived_name: a.archived_name, expect_count: 2 }]));
    fireEvent.click(within(row).getByTestId("archived-restore"));
    const as = await within(row).findByTestId("archived-as-name");
    expect(within(row).getByTestId("archived-error")).toHaveTextContent("agents/writer exists");
    fireEvent.change(as, { target: { value: "writer2" } });
    fireEvent.click(within(row).getByTestId("archived-restore-as"));
    await waitFor(() => expect(window.location.hash).toBe("#/agents/writer2/overview"));
    expect(sent(backend.calls, "restore_agent")).toEqual([{ archived_name: a.archived_name }, { archived_name: a.archived_name, as_name: "writer2" }]);
  });
});
