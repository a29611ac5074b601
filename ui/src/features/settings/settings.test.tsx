import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";

import { BackendError } from "../../backend";
import type { SettingsDto } from "../../backend/types";
import { recordedResult } from "../../test/recorded";
import { renderApp } from "../../test/render";
import { inspectionHeadline } from "./RootInspector";

/** The second root the recording makes beside the demo (two agents, no database). */
const TEAM_ROOT = "/home/linxiao/team";

describe("Settings", () => {
  it("inspects a root, saves it, invalidates every query and shows the new root everywhere", async () => {
    const { backend } = renderApp("#/agents");
    await screen.findByTestId("agent-row-assistant");
    fireEvent.click(screen.getByTestId("nav-settings"));
    window.location.hash = "#/settings";
    const root = await screen.findByTestId("settings-root");
    fireEvent.change(root, { target: { value: TEAM_ROOT } });
    fireEvent.click(screen.getByTestId("settings-inspect"));
    await waitFor(() => expect(screen.getByTestId("inspection-agents")).toHaveTextContent("2 agents: helpdesk, oncall"), { timeout: 2000 });
    expect(screen.getByTestId("inspection-db")).toHaveTextContent("not found");

    fireEvent.click(screen.getByTestId("settings-save"));
    expect(await screen.findByTestId("settings-saved")).toBeInTheDocument();
    expect(screen.getByTestId("root-label")).toHaveTextContent(TEAM_ROOT);
    const update = backend.calls.find((c) => c.op === "update_settings")!;
    expect((update.args as { root: string }).root).toBe(TEAM_ROOT);

    window.location.hash = "#/agents";
    expect(await screen.findByTestId("agent-row-helpdesk")).toBeInTheDocument();
    expect(screen.queryByTestId("agent-row-assistant")).toBeNull();
  });

  it("switches the memory backend: badge and memory follow", async () => {
    renderApp("#/settings");
    fireEvent.click(await screen.findByTestId("settings-backend-sqlite"));
    expect(screen.getByTestId("settings-backend-mem0")).toBeEnabled();
    fireEvent.click(screen.getByTestId("settings-save"));
    // Switching goes through the migration dialog; here: switch without copying.
    fireEvent.click(await screen.findByTestId("migrate-skip"));
    await screen.findByTestId("settings-saved");
    expect(screen.getByTestId("backend-badge")).toHaveTextContent("sqlite");
    window.location.hash = "#/agents/assistant";
    expect(await screen.findByTestId("memory-source")).toHaveTextContent("memory_entries");
    expect(screen.getAllByTestId("archival-row")[0]).toHaveTextContent("[sqlite]");
  });

  it("shows a refused save in the Save bar and at the field it is about, in the user's words (#18 items 5, 7)", async () => {
    renderApp("#/settings");
    const root = await screen.findByTestId("settings-root");
    fireEvent.change(root, { target: { value: "/nope/here" } });
    fireEvent.click(screen.getByTestId("settings-save"));
    const bar = await screen.findByTestId("settings-save-error");
    // In the sticky bar, beside Save, not below it.
    expect(bar.closest(".save-bar")).toContainElement(screen.getByTestId("settings-save"));
    expect(bar).toHaveTextContent("Not saved: “.oryxos root” was not accepted.");
    // At the field: what Settings can do, not "create the sample root" (the welcome screen's).
    const text = screen.getByTestId("settings-root-error-text");
    expect(text).toHaveTextContent("Type the full path of an existing .oryxos folder");
    expect(text.textContent).not.toMatch(/sample/);
    // The console's own message is the detail.
    expect(screen.getByTestId("settings-root-error-detail")).toHaveTextContent("/nope/here is not a folder");
    expect(root).toHaveAttribute("aria-invalid", "true");
    expect(root.getAttribute("aria-describedby")!.split(" ")).toContain("settings-root-error");
    fireEvent.click(screen.getByTestId("settings-save-error-go"));
    expect(document.activeElement).toBe(root);
    expect(screen.queryByTestId("settings-saved")).toBeNull();
    expect(screen.queryByTestId("error-state")).toBeNull();
    // Typing in the field takes its error away.
    fireEvent.change(root, { target: { value: "/home/linxiao/.oryxos" } });
    expect(screen.queryByTestId("settings-root-error")).toBeNull();
    expect(root).not.toHaveAttribute("aria-invalid");
  });

  it("lists a few of the root's agents, and all of them on request (#18 item 22)", async () => {
    renderApp("#/settings");
    const agents = await screen.findByTestId("inspection-agents", undefined, { timeout: 2000 });
    expect(agents).toHaveTextContent("7 agents: assistant, broken_yaml, legacy-bot, log_analyst, researcher and 2 more");
    const toggle = screen.getByTestId("inspection-agents-toggle");
    expect(toggle).toHaveAttribute("aria-expanded", "false");
    expect(toggle).toHaveTextContent("Show all 7");
    fireEvent.click(toggle);
    expect(agents).toHaveTextContent("7 agents: assistant, broken_yaml, legacy-bot, log_analyst, researcher, scheduler, writer");
    expect(toggle).toHaveAttribute("aria-expanded", "true");
    expect(screen.getByTestId("inspection-head")).toHaveTextContent("Found /home/linxiao/.oryxos");
    expect(screen.getByTestId("settings-root").getAttribute("aria-describedby")).toContain("settings-root-inspection");
  });

  it("headlines an inspection by what it found, not always Found (#18 item 6)", () => {
    const found = recordedResult("demo", "inspect_root", { path: "/home/linxiao/.oryxos", db_path: null });
    expect(inspectionHeadline(found).key).toBe("settings.found");
    // The flags the console sets for a path that does not exist, and for a file.
    expect(inspectionHeadline({ ...found, exists: false, is_dir: false }).key).toBe("settings.inspectMissing");
    expect(inspectionHeadline({ ...found, exists: true, is_dir: false }).key).toBe("settings.inspectNotDir");
    expect(inspectionHeadline({ ...found, warnings: [{ code: "root_no_agents", params: {}, message: "no agents/ folder: this does not look like a .oryxos root" }] }).key).toBe("settings.inspectWarn");
  });

  it("validates the archival window size before saving", async () => {
    renderApp("#/settings");
    const input = await screen.findByTestId("settings-window");
    fireEvent.change(input, { target: { value: "50" } });
    expect(screen.getByTestId("settings-save")).toBeDisabled();
    expect(screen.getByText(/between 100 and 1 000 000/)).toBeInTheDocument();
    fireEvent.change(input, { target: { value: "1000" } });
    expect(screen.getByTestId("settings-save")).toBeEnabled();
  });

  it("warns when environment variables or flags override the stored settings", async () => {
    renderApp("#/settings", "overridden");
    expect(await screen.findByTestId("settings-overridden")).toHaveTextContent("Overridden by --db");
  });

  it("says on every page when the root folder vanished, and points to Settings", async () => {
    renderApp("#/agents", "root_gone");
    const banner = await screen.findByTestId("root-problem");
    expect(banner).toHaveTextContent("The root folder cannot be used");
    expect(banner).toHaveTextContent("/home/linxiao/.oryxos");
    expect(within(banner).getByRole("link")).toHaveAttribute("href", "#/settings");
  });

  it("saves the recall mode, floor and limit", async () => {
    const { backend } = renderApp("#/settings");
    const keyword = await screen.findByTestId("settings-recall-keyword");
    expect(keyword).toBeChecked();
    expect(screen.getByTestId("settings-recall-floor")).toHaveValue(0.2);
    expect(screen.getByTestId("settings-recall-limit")).toHaveValue(5);
    expect(screen.getByTestId("settings-recall")).toHaveTextContent("Ranked by meaning, with a bonus for entries that also contain the text.");
    fireEvent.click(screen.getByTestId("settings-recall-hybrid"));
    fireEvent.change(screen.getByTestId("settings-recall-floor"), { target: { value: "0.4" } });
    fireEvent.change(screen.getByTestId("settings-recall-limit"), { target: { value: "8" } });
    fireEvent.click(screen.getByTestId("settings-save"));
    expect(await screen.findByTestId("settings-saved")).toBeInTheDocument();
    const update = backend.calls.find((c) => c.op === "update_settings")!.args as { recall_mode: string; recall_floor: number; recall_limit: number };
    expect([update.recall_mode, update.recall_floor, update.recall_limit]).toEqual(["hybrid", 0.4, 8]);
    // The form shows what the console stored.
    await waitFor(() => expect(screen.getByTestId("settings-recall-hybrid")).toBeChecked());
    expect(screen.getByTestId("settings-recall-floor")).toHaveValue(0.4);
    expect(screen.getByTestId("settings-recall-limit")).toHaveValue(8);
  });

  it("shows the console's answer to a recall floor out of range", async () => {
    renderApp("#/settings");
    fireEvent.change(await screen.findByTestId("settings-recall-floor"), { target: { value: "1.5" } });
    // No rule of its own: the request goes out and the console's error is shown.
    expect(screen.getByTestId("settings-save")).toBeEnabled();
    fireEvent.click(screen.getByTestId("settings-save"));
    const err = await screen.findByTestId("settings-recall-floor-error");
    expect(err).toHaveAttribute("data-code", "invalid_input");
    expect(screen.getByTestId("settings-recall-floor-error-text")).toHaveTextContent("This value was not accepted.");
    expect(screen.getByTestId("settings-recall-floor-error-detail")).toHaveTextContent("the recall floor is a cosine similarity between 0 and 1, got 1.5");
    expect(screen.getByTestId("settings-recall-floor").getAttribute("aria-describedby")).toBe("settings-recall-floor-error settings-recall-floor-hint");
    expect(screen.getByTestId("settings-save-error")).toHaveTextContent("Not saved: “Similarity floor” was not accepted.");
    expect(screen.queryByTestId("settings-saved")).toBeNull();
  });

  it("turns episodic memory on with its top-k and character budget", async () => {
    const { backend } = renderApp("#/settings");
    const section = await screen.findByTestId("settings-episodic");
    expect(section).toHaveTextContent("Episodic memory");
    expect(section).toHaveTextContent("shown beside the prompt; the runtime does not send them");
    const on = screen.getByTestId("settings-episodic-enabled");
    expect(on).not.toBeChecked();
    expect(screen.getByTestId("settings-episodic-top-k")).toHaveValue(3);
    expect(screen.getByTestId("settings-episodic-budget")).toHaveValue(1200);
    // The switch is labelled by its own line (click the text, Space on the box).
    fireEvent.click(within(section).getByText("Add relevant past conversations to the prompt"));
    expect(on).toBeChecked();
    fireEvent.change(screen.getByTestId("settings-episodic-top-k"), { target: { value: "5" } });
    fireEvent.change(screen.getByTestId("settings-episodic-budget"), { target: { value: "2000" } });
    fireEvent.click(screen.getByTestId("settings-save"));
    expect(await screen.findByTestId("settings-saved")).toBeInTheDocument();
    const update = backend.calls.find((c) => c.op === "update_settings")!.args as SettingsDto;
    expect([update.episodic_enabled, update.episodic_top_k, update.episodic_budget_chars]).toEqual([true, 5, 2000]);
    expect(backend.state).toBe("episodic");
    await waitFor(() => expect(screen.getByTestId("settings-episodic-enabled")).toBeChecked());
    expect(screen.getByTestId("settings-episodic-top-k")).toHaveValue(5);
    expect(screen.getByTestId("settings-episodic-budget")).toHaveValue(2000);
  });

  it("shows the console's answer to an episodic top-k out of range", async () => {
    renderApp("#/settings");
    fireEvent.click(await screen.findByTestId("settings-episodic-enabled"));
    fireEvent.change(screen.getByTestId("settings-episodic-top-k"), { target: { value: "0" } });
    expect(screen.getByTestId("settings-save")).toBeEnabled();
    fireEvent.click(screen.getByTestId("settings-save"));
    expect(await screen.findByTestId("settings-episodic-top-k-error")).toHaveAttribute("data-code", "invalid_input");
    expect(screen.getByTestId("settings-episodic-top-k-error-detail")).toHaveTextContent("the episodic part holds between 1 and 20 fragments, got 0");
    expect(screen.getByTestId("settings-episodic-top-k")).toHaveAttribute("aria-invalid", "true");
    expect(screen.queryByTestId("settings-saved")).toBeNull();
    expect(screen.getByTestId("settings-episodic-top-k")).toHaveValue(0);
  });

  it("switches the language and theme at once after saving", async () => {
    renderApp("#/settings");
    fireEvent.change(await screen.findByTestId("settings-language"), { target: { value: "zh" } });
    fireEvent.change(screen.getByTestId("settings-theme"), { target: { value: "dark" } });
    fireEvent.click(screen.getByTestId("settings-save"));
    expect(await screen.findByTestId("settings-saved")).toHaveTextContent("已保存");
    expect(screen.getByTestId("nav-agents")).toHaveTextContent("智能体");
    expect(document.documentElement.dataset.theme).toBe("dark");
  });
});

describe("First run", () => {
  it("shows the welcome screen and creates the sample root", async () => {
    const { backend } = renderApp("#/agents", "first_run");
    expect(await screen.findByTestId("welcome")).toBeInTheDocument();
    const path = screen.getByTestId("welcome-sample-path");
    expect(path).toHaveValue("/home/linxiao/.oryxos");
    fireEvent.click(screen.getByTestId("welcome-sample"));
    expect(await screen.findByTestId("agent-row-assistant", undefined, { timeout: 3000 })).toBeInTheDocument();
    expect(backend.calls.map((c) => c.op)).toEqual(expect.arrayContaining(["create_sample_root", "update_settings"]));
    expect(screen.queryByTestId("welcome")).toBeNull();
  });

  it("opens an existing root after inspecting it", async () => {
    renderApp("#/agents", "first_run");
    const input = await screen.findByTestId("welcome-open-path");
    // Disabled with a reason, read with the button (#18 item 22).
    const openButton = screen.getByTestId("welcome-open");
    expect(openButton).toBeDisabled();
    expect(openButton).toHaveAttribute("aria-describedby", "welcome-open-why");
    expect(screen.getByTestId("welcome-open-why")).toHaveTextContent("it is checked as you type");
    fireEvent.change(input, { target: { value: TEAM_ROOT } });
    await waitFor(() => expect(screen.getByTestId("inspection-agents")).toHaveTextContent("2 agents"), { timeout: 2000 });
    expect(screen.queryByTestId("welcome-open-why")).toBeNull();
    expect(openButton).not.toHaveAttribute("aria-describedby");
    fireEvent.click(screen.getByTestId("welcome-open"));
    expect(await screen.findByTestId("agent-row-oncall")).toBeInTheDocument();
  });
});

describe("Settings → Summaries (#15)", () => {
  it("saves the automatic mode, its threshold and the LLM summariser; the key is write-only", async () => {
    const { backend } = renderApp("#/settings");
    const section = await screen.findByTestId("settings-summaries");
    const stored = recordedResult("demo", "get_settings", {});
    // The demo's settings: off, 50, the agent's provider, no key, 60 s.
    expect(within(section).getByTestId("settings-summary-auto-off")).toBeChecked();
    expect(within(section).getByTestId("settings-summary-auto-propose").closest("label")).toHaveTextContent("A Health finding offers the rules' summary");
    expect(within(section).getByTestId("settings-summary-auto-apply").closest("label")).toHaveTextContent("The console appends the rules' summary itself");
    expect(within(section).getByTestId("settings-summary-threshold")).toHaveValue(50);
    expect(within(section).getByTestId("settings-summary-url")).toHaveValue("");
    expect(within(section).getByTestId("settings-summary-timeout")).toHaveValue(60000);
    expect(within(section).queryByTestId("settings-summary-key-stored")).toBeNull();
    expect(section).toHaveTextContent("ORYX_SUMMARY_API_KEY");
    expect(section).toHaveTextContent("OPENAI_API_KEY, DEEPSEEK_API_KEY, DASHSCOPE_API_KEY, MOONSHOT_API_KEY, ZHIPUAI_API_KEY");

    const saved: SettingsDto = {
      ...stored.settings,
      summary_auto: "propose",
      summary_auto_threshold: 10,
      summary_llm_base_url: "http://127.0.0.1:18599/v1",
      summary_llm_model: "ok",
      summary_llm_api_key: null,
      summary_llm_api_key_set: true,
      summary_llm_timeout_ms: 30000,
    };
    // The console stores them and answers them from then on.
    backend.stub("update_settings", () => {
      backend.stub("get_settings", () => ({ ...stored, settings: saved }));
      return { ...stored, settings: saved };
    });
    fireEvent.click(within(section).getByTestId("settings-summary-auto-propose"));
    fireEvent.change(within(section).getByTestId("settings-summary-threshold"), { target: { value: "10" } });
    fireEvent.change(within(section).getByTestId("settings-summary-url"), { target: { value: " http://127.0.0.1:18599/v1 " } });
    fireEvent.change(within(section).getByTestId("settings-summary-model"), { target: { value: "ok" } });
    fireEvent.change(within(section).getByTestId("settings-summary-key"), { target: { value: "test-key" } });
    fireEvent.change(within(section).getByTestId("settings-summary-timeout"), { target: { value: "30000" } });
    fireEvent.click(screen.getByTestId("settings-save"));
    expect(await screen.findByTestId("settings-saved")).toBeInTheDocument();
    const sent = backend.calls.filter((c) => c.op === "update_settings").map((c) => c.args as SettingsDto);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({
      summary_auto: "propose",
      summary_auto_threshold: 10,
      summary_llm_base_url: "http://127.0.0.1:18599/v1",
      summary_llm_model: "ok",
      summary_llm_api_key: "test-key",
      summary_llm_timeout_ms: 30000,
    });
    // What the console keeps: the key is stored, never shown; an empty field keeps it.
    await waitFor(() => expect(within(section).getByTestId("settings-summary-key")).toHaveValue(""));
    expect(within(section).getByTestId("settings-summary-key-stored")).toHaveTextContent("stored");
    expect(within(section).getByTestId("settings-summary-key-hint")).toHaveTextContent("leave this empty to keep it");
    expect(within(section).getByTestId("settings-summary-auto-propose")).toBeChecked();
  });

  it("shows a refused threshold at its field, with the console's message", async () => {
    const { backend } = renderApp("#/settings");
    const section = await screen.findByTestId("settings-summaries");
    const message = "automatic summaries start at 2 or more entries outside the window, got 1";
    backend.stub("update_settings", () => {
      throw new BackendError("invalid_input", message);
    });
    const threshold = within(section).getByTestId("settings-summary-threshold");
    fireEvent.change(threshold, { target: { value: "1" } });
    fireEvent.click(screen.getByTestId("settings-save"));
    expect(await screen.findByTestId("settings-save-error")).toHaveTextContent("Not saved: “Threshold (entries)” was not accepted.");
    expect(within(section).getByTestId("settings-summary-threshold-error-text")).toHaveTextContent("This value was not accepted.");
    expect(within(section).getByTestId("settings-summary-threshold-error-detail")).toHaveTextContent(message);
    expect(threshold).toHaveAttribute("aria-invalid", "true");
    expect(threshold.getAttribute("aria-describedby")!.split(" ")).toContain("settings-summary-threshold-error");
    fireEvent.click(screen.getByTestId("settings-save-error-go"));
    expect(document.activeElement).toBe(threshold);
  });
});
