import { fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";

import { I18nProvider } from "../../i18n";
import { invalidateFor } from "../../queries/ops";
import { recordedResult } from "../../test/recorded";
import { renderApp } from "../../test/render";
import { lazyChart } from "./lazy";
import { CompositionChart, GrowthChart, ReachChart } from "./MemoryCharts";

// The charts draw what the real console answered on the demo root (recorded): assistant's
// memory_stats and prompt_composition. Each chart's table must hold the very same numbers.
const STATS = () => recordedResult("demo", "memory_stats", { agent: "assistant" });
const COMPOSITION = () => recordedResult("demo", "prompt_composition", { agent: "assistant" });

const sent = (calls: { op: string; args: unknown }[], op: string) => calls.filter((c) => c.op === op).map((c) => c.args);
const en = (n: number) => n.toLocaleString("en-US");

/** The table's body rows as [row header, ...cells] text. */
function tableRows(table: HTMLElement): string[][] {
  return within(table)
    .getAllByRole("row")
    .slice(1)
    .map((r) => [within(r).getByRole("rowheader").textContent ?? "", ...within(r).getAllByRole("cell").map((c) => c.textContent ?? "")]);
}

async function openCharts() {
  const r = renderApp("#/agents/assistant/overview");
  const section = await screen.findByTestId("overview-charts");
  await within(section).findByTestId("chart-growth");
  await within(section).findByTestId("chart-composition");
  await within(section).findByTestId("chart-reach");
  return { ...r, section };
}

describe("Overview charts", () => {
  it("draws entries per day as stacked bars, with the recorded numbers in its table", async () => {
    const { backend, section } = await openCharts();
    expect(within(section).getByRole("heading", { level: 2 })).toHaveTextContent("Charts");
    const stats = STATS();
    const chart = screen.getByTestId("chart-growth");
    expect(chart.tagName).toBe("FIGURE");
    expect(within(chart).getByRole("heading")).toHaveTextContent("Entries added per day");
    // A bar per day and section with entries (a day without core entries has no core bar).
    const bars = stats.days.reduce((n, d) => n + (d.core > 0 ? 1 : 0) + (d.archival > 0 ? 1 : 0), 0);
    expect(chart.querySelectorAll(".recharts-bar-rectangle")).toHaveLength(bars);
    // The bars are coloured by the theme's variables (light and dark define them).
    const fills = new Set(Array.from(chart.querySelectorAll("path.recharts-rectangle"), (p) => p.getAttribute("fill")));
    expect(fills).toEqual(new Set(["var(--chart-core)", "var(--chart-archival)"]));
    expect(within(chart).getByText("Show as table").tagName).toBe("SUMMARY");
    expect(tableRows(screen.getByTestId("chart-growth-table"))).toEqual(stats.days.map((d) => [d.day, en(d.core), en(d.archival), en(d.core + d.archival)]));
    expect(sent(backend.calls, "memory_stats")).toEqual([{ agent: "assistant" }]);
  });

  it("draws the window's reach-back as a line, with the days in its table", async () => {
    await openCharts();
    const stats = STATS();
    const chart = screen.getByTestId("chart-reach");
    expect(chart.querySelector(".recharts-line-curve")).not.toBeNull();
    expect(chart.querySelector(".recharts-line-curve")).toHaveAttribute("stroke", "var(--chart-reach)");
    const days = (d: number | null) => (d === null ? "—" : en(Math.round(d * 10) / 10));
    expect(tableRows(screen.getByTestId("chart-reach-table"))).toEqual(stats.reach_back.map((r) => [r.day, days(r.days)]));
  });

  it("draws the prompt per session stacked by part, with the characters in its table", async () => {
    const { backend } = await openCharts();
    const sessions = COMPOSITION();
    const chart = screen.getByTestId("chart-composition");
    const parts = ["system", "memory", "history", "tools"] as const;
    const bars = sessions.reduce((n, s) => n + parts.filter((p) => s[p] > 0).length, 0);
    expect(chart.querySelectorAll(".recharts-bar-rectangle")).toHaveLength(bars);
    const fills = new Set(Array.from(chart.querySelectorAll("path.recharts-rectangle"), (p) => p.getAttribute("fill")));
    expect(fills).toEqual(new Set(parts.map((p) => `var(--seg-${p})`)));
    const table = screen.getByTestId("chart-composition-table");
    expect(within(table).getAllByRole("columnheader").map((h) => h.textContent)).toEqual(["Session", "Last activity", "System", "Memory", "History", "Tools", "Total"]);
    expect(tableRows(table)).toEqual(
      sessions.map((s) => [s.session_id, s.at ?? "—", en(s.system), en(s.memory), en(s.history), en(s.tools), en(s.system + s.memory + s.history + s.tools)]),
    );
    expect(sent(backend.calls, "prompt_composition")).toEqual([{ agent: "assistant" }]);
  });

  it("shows a session's values in the tooltip when the keyboard moves over the bars", async () => {
    await openCharts();
    const [first, second] = COMPOSITION();
    const chart = screen.getByTestId("chart-composition");
    const svg = chart.querySelector("svg.recharts-surface")!;
    // The chart is one tab stop: focusing it shows the first session, the arrow keys move on.
    expect(svg).toHaveAttribute("tabindex", "0");
    fireEvent.focus(svg);
    const tip = await within(chart).findByTestId("chart-tooltip");
    expect(tip).toHaveTextContent(first!.session_id);
    expect(tip).toHaveTextContent(`Memory${en(first!.memory)}`);
    expect(tip).toHaveTextContent(`Total${en(first!.system + first!.memory + first!.history + first!.tools)}`);
    fireEvent.keyDown(svg, { key: "ArrowRight" });
    await waitFor(() => expect(within(chart).getByTestId("chart-tooltip")).toHaveTextContent(second!.session_id));
    expect(within(chart).getByTestId("chart-tooltip")).toHaveTextContent(`${second!.at}`);
  });

  it("asks again after a change to the agent's memory (the charts follow the entries)", async () => {
    const { backend, queryClient } = await openCharts();
    expect(sent(backend.calls, "memory_stats")).toHaveLength(1);
    await invalidateFor(queryClient, { kind: "memory", agent: "assistant" });
    await waitFor(() => expect(sent(backend.calls, "memory_stats").length).toBeGreaterThan(1));
    await waitFor(() => expect(sent(backend.calls, "prompt_composition").length).toBeGreaterThan(1));
  });
});

describe("Chart labels and empty states", () => {
  it("speaks Chinese where the console does", () => {
    render(
      <I18nProvider lang="zh">
        <GrowthChart days={STATS().days} />
        <ReachChart reach={[]} />
        <CompositionChart sessions={COMPOSITION()} />
      </I18nProvider>,
    );
    expect(within(screen.getByTestId("chart-growth")).getByRole("heading")).toHaveTextContent("每日新增条目");
    expect(within(screen.getByTestId("chart-growth-table")).getAllByRole("columnheader").map((h) => h.textContent)).toEqual(["日期", "核心", "归档", "合计"]);
    expect(screen.getAllByText("以表格显示")).toHaveLength(2);
    expect(screen.getByTestId("chart-reach-empty")).toHaveTextContent("没有带日期的归档条目。");
    expect(within(screen.getByTestId("chart-composition-table")).getAllByRole("columnheader").map((h) => h.textContent)).toEqual([
      "会话",
      "最后活动",
      "系统",
      "记忆",
      "历史",
      "工具",
      "合计",
    ]);
  });

  it("says there is nothing to draw instead of an empty chart and table", () => {
    render(
      <I18nProvider lang="en">
        <GrowthChart days={[]} />
        <CompositionChart sessions={[]} />
      </I18nProvider>,
    );
    expect(screen.getByTestId("chart-growth-empty")).toHaveTextContent("No dated entries.");
    expect(screen.getByTestId("chart-composition-empty")).toHaveTextContent("No sessions yet.");
    expect(screen.queryByRole("table")).toBeNull();
    expect(document.querySelector("svg.recharts-surface")).toBeNull();
  });

  it("shows an error with Retry in a chart's place when the chart's code cannot be loaded", async () => {
    let fail = true;
    const Hello = lazyChart(async () => {
      if (fail) throw new Error("Failed to fetch dynamically imported module");
      return function Hello({ who }: { who: string }) {
        return <p>hello {who}</p>;
      };
    });
    render(
      <I18nProvider lang="en">
        <Hello who="chart" />
        <p>the rest of the page</p>
      </I18nProvider>,
    );
    expect(await screen.findByTestId("error-state")).toBeInTheDocument();
    expect(screen.getByText("the rest of the page")).toBeInTheDocument();
    fail = false;
    fireEvent.click(screen.getByRole("button", { name: "Retry" }));
    expect(await screen.findByText("hello chart")).toBeInTheDocument();
    expect(screen.queryByTestId("error-state")).toBeNull();
  });
});
