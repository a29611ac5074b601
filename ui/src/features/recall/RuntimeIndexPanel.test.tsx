import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";

import { BackendProvider } from "../../backend/context";
import type { IndexStatusDto, RuntimeFillDto, RuntimeIndexDto } from "../../backend/types";
import { I18nProvider, type Lang } from "../../i18n";
import { createRecordedBackend, recordedResult } from "../../test/recorded";
import { RuntimeIndexPanel } from "./RuntimeIndexPanel";

const LONG = { timeout: 4000 };

const RUNTIME: RuntimeIndexDto = {
  state: "ready",
  model: "mock/deterministic",
  reason: null,
  agents: [
    { agent: "assistant", indexed: 140, missing: 2, orphans: 1, otherModel: 0 },
    { agent: "__global__", indexed: 1, missing: 0, orphans: 0, otherModel: 3 },
  ],
  nextStartDrops: 4,
  nextStartEmbeds: 2,
  fill: null,
};

function fill(embedded: number, running: boolean): RuntimeFillDto {
  return { running, dryRun: false, toDrop: 4, toEmbed: 2, dropped: 4, embedded, current: running ? "assistant" : null, cancelled: false, error: null, warning: null };
}

function renderPanel(runtime: () => RuntimeIndexDto | null, lang: Lang = "en") {
  const backend = createRecordedBackend("recall");
  const base = recordedResult("recall", "index_status", {}) as IndexStatusDto;
  backend.stub("index_status", () => ({ ...base, runtime: runtime() }));
  const client = new QueryClient({ defaultOptions: { queries: { retry: false, staleTime: 0 }, mutations: { retry: false } } });
  render(
    <BackendProvider backend={backend}>
      <QueryClientProvider client={client}>
        <I18nProvider lang={lang}>
          <RuntimeIndexPanel />
        </I18nProvider>
      </QueryClientProvider>
    </BackendProvider>,
  );
  return backend;
}

describe("RuntimeIndexPanel", () => {
  it("shows each agent's rows and what the runtime's next start does", async () => {
    renderPanel(() => RUNTIME);
    expect(await screen.findByTestId("runtime-index-state")).toHaveTextContent("Model mock/deterministic");
    expect(screen.getByTestId("runtime-index-next-start")).toHaveTextContent("drops 4 rows and embeds 2 entries");
    const assistant = screen.getByTestId("runtime-index-agent-assistant");
    expect(assistant.querySelector('[data-col="indexed"]')).toHaveTextContent("140");
    expect(assistant.querySelector('[data-col="missing"]')).toHaveTextContent("2");
    expect(assistant.querySelector('[data-col="orphans"]')).toHaveTextContent("1");
    expect(screen.getByTestId("runtime-index-agent-global").querySelector('[data-col="otherModel"]')).toHaveTextContent("3");
  });

  it("fills with progress and cancel, reachable from the keyboard", async () => {
    let state: RuntimeIndexDto = RUNTIME;
    const backend = renderPanel(() => state);
    const progress = [fill(0, true), fill(1, true), fill(2, false)];
    backend.stub("fill_runtime_index", () => {
      state = { ...RUNTIME, fill: progress[0]! };
      return progress[0];
    });
    backend.stub("cancel_runtime_fill", () => true);
    const button = await screen.findByTestId("runtime-index-fill");
    button.focus();
    expect(document.activeElement).toBe(button);
    fireEvent.click(button);
    const job = await screen.findByTestId("runtime-index-job");
    expect(job).toHaveAttribute("data-outcome", "running");
    fireEvent.click(within(document.body).getByTestId("runtime-index-cancel"));
    await waitFor(() => expect(backend.calls.some((c) => c.op === "cancel_runtime_fill")).toBe(true));
    expect(backend.calls.find((c) => c.op === "fill_runtime_index")?.args).toEqual({ dry_run: false });
    state = { ...RUNTIME, nextStartDrops: 0, nextStartEmbeds: 0, fill: progress[2]! };
    await waitFor(() => expect(screen.getByTestId("runtime-index-job")).toHaveAttribute("data-outcome", "done"), LONG);
    expect(screen.getByTestId("runtime-index-job")).toHaveTextContent("2 entries embedded, 4 rows dropped");
    expect(screen.getByTestId("runtime-index-fill")).toBeDisabled();
  });

  it("says why there is nothing to fill, in Chinese too", async () => {
    renderPanel(() => ({ ...RUNTIME, state: "off", model: null, nextStartDrops: 0, nextStartEmbeds: 0 }), "zh");
    expect(await screen.findByTestId("runtime-index-state")).toHaveTextContent("未配置 embedding.provider");
    expect(screen.getByTestId("runtime-index-next-start")).toHaveTextContent("不会改动");
    expect(screen.getByTestId("runtime-index-fill")).toBeDisabled();
  });

  it("shows nothing where the runtime keeps no index", async () => {
    const backend = renderPanel(() => null);
    await waitFor(() => expect(backend.calls.some((c) => c.op === "index_status")).toBe(true));
    expect(screen.queryByTestId("runtime-index")).toBeNull();
  });
});
