import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";

import type { AgentHealthDto } from "../../backend/types";
import { recordedResult } from "../../test/recorded";
import { renderApp } from "../../test/render";

// agents_health has no recording: answered with what `oryx serve` said on a demo root (with an
// agent whose memory could not be read added). sessions_per_day is the recorded answer.
const HEALTH: AgentHealthDto[] = [
  {
    agent: "assistant",
    findings: 58,
    secrets: 0,
    pii: 0,
    duplicates: 5,
    stale: 53,
    budget: 0,
    broken_checks: 0,
    core: 4,
    archival: 140,
    outside_window: 89,
    prompt_chars: 4126,
    window_reach_days: 15.1,
    error: null,
  },
  { agent: "broken_yaml", findings: 0, secrets: 0, pii: 0, duplicates: 0, stale: 0, budget: 0, broken_checks: 0, core: 0, archival: 0, outside_window: 0, prompt_chars: 17, window_reach_days: null, error: null },
  {
    agent: "legacy-bot",
    findings: 0,
    secrets: 0,
    pii: 0,
    duplicates: 0,
    stale: 0,
    budget: 0,
    broken_checks: 0,
    core: 0,
    archival: 0,
    outside_window: 0,
    prompt_chars: null,
    window_reach_days: null,
    error: "MEMORY.md could not be read: invalid UTF-8 at byte 812",
  },
  { agent: "log_analyst", findings: 4, secrets: 1, pii: 0, duplicates: 2, stale: 0, budget: 0, broken_checks: 1, core: 2, archival: 24, outside_window: 0, prompt_chars: 2539, window_reach_days: 30, error: null },
  { agent: "researcher", findings: 1, secrets: 0, pii: 1, duplicates: 0, stale: 0, budget: 0, broken_checks: 0, core: 1, archival: 6, outside_window: 0, prompt_chars: 732, window_reach_days: 30, error: null },
];

const sent = (calls: { op: string; args: unknown }[], op: string) => calls.filter((c) => c.op === op).map((c) => c.args);
const agentsIn = (table: HTMLElement) =>
  within(table)
    .getAllByRole("row")
    .slice(1)
    .map((r) => within(r).getByRole("rowheader").textContent);

async function openDashboard(hash = "#/dashboard?days=3650", health: AgentHealthDto[] = HEALTH) {
  const r = renderApp(hash);
  r.backend.stub("agents_health", () => health);
  const table = await screen.findByTestId("dashboard-table");
  return { ...r, table };
}

describe("Dashboard", () => {
  it("is in the sidebar and lists every agent's health, most findings first", async () => {
    const { backend, table } = await openDashboard();
    const nav = screen.getByTestId("nav-dashboard");
    expect(nav).toHaveAttribute("href", "#/dashboard");
    expect(nav).toHaveAttribute("aria-current", "page");
    expect(screen.getByRole("heading", { level: 1 })).toHaveTextContent("Dashboard");
    expect(within(table).getAllByRole("columnheader").map((h) => h.textContent?.replace(/[▲▼]/g, ""))).toEqual([
      "Agent",
      "Findings",
      "Secrets",
      "Personal data",
      "Duplicates",
      "Stale",
      "Budget",
      "Broken checks",
      "Core",
      "Archival",
      "Outside window",
      "Window reach (days)",
      "Prompt chars",
    ]);
    expect(agentsIn(table)).toEqual(["assistant", "log_analyst", "researcher", "broken_yaml", "legacy-bot"]);
    const row = screen.getByTestId("dashboard-row-assistant");
    expect(within(row).getAllByRole("cell").map((c) => c.textContent)).toEqual(["58", "0", "0", "5", "53", "0", "0", "4", "140", "89", "15.1", "4,126"]);
    // A broken recall check counts as a finding, in a column of its own.
    expect(within(screen.getByTestId("dashboard-row-log_analyst")).getAllByRole("cell").slice(0, 7).map((c) => c.textContent)).toEqual(["4", "1", "0", "2", "0", "0", "1"]);
    expect(within(screen.getByTestId("dashboard-row-broken_yaml")).getAllByRole("cell").at(-2)).toHaveTextContent("—");
    // An agent that could not be checked says why instead of its counts.
    expect(screen.getByTestId("dashboard-error-legacy-bot")).toHaveTextContent("Could not be checked: MEMORY.md could not be read: invalid UTF-8 at byte 812");
    expect(sent(backend.calls, "agents_health")).toEqual([{}]);
  });

  it("sorts by any column, and each agent links to its Health tab", async () => {
    const { table } = await openDashboard();
    const findings = within(table).getByRole("button", { name: /^Findings/ });
    expect(findings.closest("th")).toHaveAttribute("aria-sort", "descending");
    fireEvent.click(within(table).getByRole("button", { name: /^Prompt chars/ }));
    expect(within(table).getByRole("button", { name: /^Prompt chars/ }).closest("th")).toHaveAttribute("aria-sort", "descending");
    expect(findings.closest("th")).not.toHaveAttribute("aria-sort");
    // Agents without a figure come last; one that could not be checked after them.
    expect(agentsIn(table)).toEqual(["assistant", "log_analyst", "researcher", "broken_yaml", "legacy-bot"]);
    fireEvent.click(within(table).getByRole("button", { name: /^Prompt chars/ }));
    expect(agentsIn(table)).toEqual(["legacy-bot", "broken_yaml", "researcher", "log_analyst", "assistant"]);
    fireEvent.click(within(table).getByRole("button", { name: /^Agent/ }));
    expect(agentsIn(table)).toEqual(["assistant", "broken_yaml", "legacy-bot", "log_analyst", "researcher"]);
    const link = screen.getByTestId("dashboard-link-log_analyst");
    expect(link).toHaveAttribute("href", "#/agents/log_analyst/health");
    expect(link).toHaveAttribute("title", "Open the health of log_analyst");
  });

  it("charts findings per agent by check, the top 20, with the numbers in a table", async () => {
    const many: AgentHealthDto[] = Array.from({ length: 25 }, (_, i) => ({
      ...HEALTH[3]!,
      agent: `agent_${String(i).padStart(2, "0")}`,
      findings: i + 1,
      duplicates: i,
      secrets: 1,
    }));
    await openDashboard("#/dashboard?days=3650", many);
    // The chart is a lazy chunk: it can arrive after the table.
    const chart = await screen.findByTestId("chart-findings");
    expect(within(chart).getByRole("heading")).toHaveTextContent("Findings per agent");
    const rows = within(screen.getByTestId("chart-findings-table")).getAllByRole("row").slice(1);
    expect(rows).toHaveLength(20);
    expect(within(rows[0]!).getByRole("rowheader")).toHaveTextContent("agent_24");
    expect(within(rows[0]!).getAllByRole("cell").map((c) => c.textContent)).toEqual(["25", "1", "0", "24", "0", "0"]);
    expect(within(rows[19]!).getByRole("rowheader")).toHaveTextContent("agent_05");
    // One bar per agent and check with findings (secrets and duplicates).
    expect(chart.querySelectorAll(".recharts-bar-rectangle")).toHaveLength(40);
  });

  it("charts the recorded sessions per day stacked by agent, and changes the period in the URL", async () => {
    const { backend } = await openDashboard();
    const recorded = recordedResult("demo", "sessions_per_day", { days: 3650 });
    const chart = await screen.findByTestId("chart-sessions");
    const table = within(chart).getByTestId("chart-sessions-table");
    const agents = [...new Set(recorded.map((r) => r.agent))].sort();
    expect(within(table).getAllByRole("columnheader").map((h) => h.textContent)).toEqual(["Day", ...agents, "Total"]);
    const days = [...new Set(recorded.map((r) => r.day))].sort();
    const body = within(table).getAllByRole("row").slice(1);
    expect(body.map((r) => within(r).getByRole("rowheader").textContent)).toEqual(days);
    for (const [i, day] of days.entries()) {
      const counts = agents.map((a) => recorded.filter((r) => r.day === day && r.agent === a).reduce((n, r) => n + r.sessions, 0));
      expect(within(body[i]!).getAllByRole("cell").map((c) => c.textContent)).toEqual([...counts.map(String), String(counts.reduce((a, b) => a + b, 0))]);
    }
    expect(chart.querySelectorAll(".recharts-bar-rectangle")).toHaveLength(recorded.length);
    expect(sent(backend.calls, "sessions_per_day")).toEqual([{ days: 3650 }]);

    backend.stub("sessions_per_day", () => []);
    const range = within(chart).getByTestId("sessions-range");
    expect(range).toHaveValue("3650");
    fireEvent.change(range, { target: { value: "30" } });
    await waitFor(() => expect(window.location.hash).toBe("#/dashboard?days=30"));
    expect(await screen.findByTestId("chart-sessions-empty")).toHaveTextContent("No sessions in the last 30 days.");
    expect(sent(backend.calls, "sessions_per_day").at(-1)).toEqual({ days: 30 });
  });

  it("asks for the last 90 days when the URL names no period", async () => {
    const { backend } = renderApp("#/dashboard");
    backend.stub("sessions_per_day", () => []);
    expect(await screen.findByTestId("sessions-range")).toHaveValue("90");
    expect(sent(backend.calls, "sessions_per_day")).toEqual([{ days: 90 }]);
  });
});

describe("Agents list findings badges", () => {
  it("shows each agent's findings as a link to its Health tab, nothing for none or for an agent not checked", async () => {
    const { backend } = renderApp("#/agents");
    backend.stub("agents_health", () => HEALTH.map((h) => (h.agent === "log_analyst" ? { ...h, findings: 1 } : h)));
    const badge = await screen.findByTestId("agent-health-assistant");
    expect(badge).toHaveAccessibleName("58 health findings");
    expect(badge).toHaveAttribute("href", "#/agents/assistant/health");
    expect(badge).toHaveTextContent("58");
    expect(screen.getByTestId("agent-health-log_analyst")).toHaveAccessibleName("1 health finding");
    expect(screen.queryByTestId("agent-health-broken_yaml")).toBeNull();
    expect(screen.queryByTestId("agent-health-legacy-bot")).toBeNull();
    expect(screen.queryByTestId("agent-health-writer")).toBeNull();
    // Enter on the badge is the link's (to the health), not the row's (to the memory).
    fireEvent.keyDown(badge, { key: "Enter" });
    expect(window.location.hash).toBe("#/agents");
  });

  it("lists the agents without badges when the health cannot be had", async () => {
    const { backend } = renderApp("#/agents");
    backend.stub("agents_health", () => {
      throw new Error("health failed");
    });
    await screen.findByTestId("agent-row-assistant");
    await waitFor(() => expect(sent(backend.calls, "agents_health")).toHaveLength(1));
    expect(screen.queryByTestId(/^agent-health-/)).toBeNull();
  });
});
