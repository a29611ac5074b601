import { act, fireEvent, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";

import { BackendError } from "../../backend";
import type { TransferDto, UploadDto } from "../../backend/types";
import { renderApp } from "../../test/render";

// The console has no recording of export and import (jobs that run on their own thread): start,
// status and cancel are stubbed with answers shaped like `oryx serve`'s on the demo root, and each
// test checks what was sent.
const EXPORT_RUNNING: TransferDto = {
  id: "export-1",
  kind: "export",
  state: "running",
  stage: "memory of assistant",
  done: 60,
  total: 151,
  export: null,
  import: null,
  error: null,
};

const EXPORT_DONE: TransferDto = {
  ...EXPORT_RUNNING,
  state: "done",
  stage: "done",
  done: 151,
  export: {
    bytes: 8910,
    owners: [
      { owner: "assistant", core: 4, archival: 140 },
      { owner: "researcher", core: 1, archival: 6 },
    ],
    files: 12,
    sessions: 0,
    history: true,
    file_name: "oryx-2-agents-2026-12-04.oryx.zip",
  },
};

const UPLOAD: UploadDto = { upload: "upload-7", name: "oryx-assistant-2026-12-04.oryx.zip", bytes: 8123 };

function dryRun(state: TransferDto["state"], owners: { owner: string; new: number; present: number; conflicting?: number }[], dry = true): TransferDto {
  return {
    id: dry ? "import-dry" : "import-real",
    kind: "import",
    state,
    stage: state === "running" ? "checking agents/assistant/AGENT.md" : "done",
    done: 3,
    total: 9,
    export: null,
    import:
      state === "running"
        ? null
        : {
            dry_run: dry,
            source_backend: "markdown",
            owners: owners.map((o) => ({ owner: o.owner, in_archive: o.new + o.present, new: o.new, present: o.present, conflicting: o.conflicting ?? 0, error: null })),
            files_written: [],
            files_kept: ["agents/assistant/AGENT.md: the target's own differs; kept (overwrite to replace)"],
            unknown: [],
            sessions_not_imported: 0,
          },
    error: null,
  };
}

describe("export dialog", () => {
  it("exports the agents ticked: progress with the stage, then the summary and Save…", async () => {
    const { backend } = renderApp("#/agents");
    let status = EXPORT_RUNNING;
    backend.stub("start_export", () => EXPORT_RUNNING);
    backend.stub("transfer_status", () => status);
    fireEvent.click(await screen.findByTestId("agents-export"));
    const dialog = await screen.findByTestId("export-dialog");
    fireEvent.click(within(dialog).getByTestId("export-chosen"));
    expect(within(dialog).getByTestId("export-start")).toBeDisabled();
    fireEvent.click(within(dialog).getByTestId("export-agent-assistant"));
    fireEvent.click(within(dialog).getByTestId("export-agent-researcher"));
    fireEvent.click(within(dialog).getByTestId("export-sessions"));
    expect(within(dialog).getByTestId("export-history")).not.toBeChecked();
    fireEvent.click(within(dialog).getByTestId("export-history"));
    fireEvent.click(within(dialog).getByTestId("export-start"));
    expect(await within(dialog).findByTestId("transfer-stage")).toHaveTextContent("Memory of assistant");
    expect(within(dialog).getByTestId("transfer-count")).toHaveTextContent("60 of 151");
    expect(within(dialog).getByRole("progressbar")).toHaveAttribute("aria-valuenow", "60");
    expect(backend.calls.find((c) => c.op === "start_export")?.args).toEqual({ agents: ["assistant", "researcher"], all: false, sessions: true, include_history: true });

    status = EXPORT_DONE;
    await within(dialog).findByTestId("export-done", {}, { timeout: 3000 });
    const owners = within(dialog).getByTestId("export-owners");
    expect(within(owners).getByTestId("export-owner-assistant")).toHaveTextContent(/assistant\s*4\s*140/);
    expect(owners).toHaveTextContent(/Total\s*5\s*146/);
    expect(within(dialog).getByTestId("export-size")).toHaveTextContent("8.7 KB");
    expect(within(dialog).getByTestId("export-history-included")).toHaveTextContent(/^included$/);
    expect(dialog).toHaveTextContent("oryx-2-agents-2026-12-04.oryx.zip");
    fireEvent.click(within(dialog).getByTestId("export-save"));
    expect(await within(dialog).findByTestId("export-saved")).toHaveTextContent("Downloaded as oryx-2-agents-2026-12-04.oryx.zip");
    expect(backend.calls.filter((c) => c.op === "save_export").map((c) => c.args)).toEqual([{ id: "export-1" }]);
  });

  it("from an agent's page exports that agent; the desktop's dialog answers where it saved; Cancel stops a run", async () => {
    const { backend } = renderApp("#/agents/assistant");
    let status: TransferDto = EXPORT_RUNNING;
    backend.stub("start_export", () => EXPORT_RUNNING);
    backend.stub("transfer_status", () => status);
    backend.stub("cancel_transfer", () => {
      status = { ...EXPORT_RUNNING, state: "cancelled", error: { code: "cancelled", message: "cancelled" } };
      return EXPORT_RUNNING;
    });
    fireEvent.click(await screen.findByTestId("agent-export"));
    const dialog = await screen.findByTestId("export-dialog");
    expect(within(dialog).getByTestId("export-agent-assistant")).toBeChecked();
    expect(within(dialog).getByTestId("export-agent-researcher")).not.toBeChecked();
    fireEvent.click(within(dialog).getByTestId("export-start"));
    fireEvent.click(await within(dialog).findByTestId("transfer-cancel"));
    await within(dialog).findByTestId("transfer-cancelled", {}, { timeout: 3000 });
    expect(backend.calls.find((c) => c.op === "cancel_transfer")?.args).toEqual({ id: "export-1" });
    expect(backend.calls.find((c) => c.op === "start_export")?.args).toEqual({ agents: ["assistant"], all: false, sessions: false, include_history: false });

    // Again, to the end; the desktop saves where the person said.
    status = EXPORT_DONE;
    backend.saveExport = async () => "/home/lin/backup/oryx-assistant.oryx.zip";
    fireEvent.click(within(dialog).getByTestId("export-again"));
    fireEvent.click(await within(dialog).findByTestId("export-save", {}, { timeout: 3000 }));
    expect(await within(dialog).findByTestId("export-saved")).toHaveTextContent("Saved to /home/lin/backup/oryx-assistant.oryx.zip");
  });

  it("a failed export says why in the user's language, with the code", async () => {
    const { backend } = renderApp("#/agents");
    backend.stub("start_export", () => {
      throw new BackendError("conflict", "an export or import is already running: wait for it, or cancel it");
    });
    fireEvent.click(await screen.findByTestId("agents-export"));
    const dialog = await screen.findByTestId("export-dialog");
    expect(within(dialog).getByTestId("export-all")).toBeChecked();
    fireEvent.click(within(dialog).getByTestId("export-start"));
    expect(await within(dialog).findByTestId("error-headline")).toHaveTextContent("Something else is changing this at the same time");
    expect(within(dialog).getByTestId("error-code")).toHaveTextContent("conflict");
    expect(backend.calls.find((c) => c.op === "start_export")?.args).toEqual({ agents: [], all: true, sessions: false, include_history: false });
  });
});

describe("import dialog", () => {
  it("chooses an archive, dry-runs it at once, shows the report, imports the new entries and refreshes the views", async () => {
    const { backend, queryClient } = renderApp("#/agents");
    const started: unknown[] = [];
    let dry = dryRun("running", []);
    let real = dryRun("running", [], false);
    backend.chooseArchive = async () => UPLOAD;
    backend.stub("start_import", (args) => {
      started.push(args);
      return (args as { dry_run: boolean }).dry_run ? dry : real;
    });
    backend.stub("transfer_status", (args) => ((args as { id: string }).id === "import-dry" ? dry : real));
    fireEvent.click(await screen.findByTestId("agents-import"));
    const dialog = await screen.findByTestId("import-dialog");
    fireEvent.click(within(dialog).getByTestId("import-choose"));
    expect(await within(dialog).findByTestId("transfer-stage")).toHaveTextContent("Checking agents/assistant/AGENT.md");
    expect(started[0]).toEqual({ upload: "upload-7", dry_run: true, into_backend: null, agent_map: [], replace_existing: false });

    dry = dryRun("done", [
      { owner: "assistant", new: 5, present: 139, conflicting: 1 },
      { owner: "__global__", new: 0, present: 2 },
    ]);
    const table = await within(dialog).findByTestId("import-owners", {}, { timeout: 3000 });
    const row = within(table).getByTestId("import-owner-assistant");
    expect(within(row).getByTestId("in-archive")).toHaveTextContent("144");
    expect(within(row).getByTestId("new")).toHaveTextContent("5");
    expect(within(row).getByTestId("present")).toHaveTextContent("139");
    expect(within(row).getByTestId("conflicting")).toHaveTextContent("1");
    expect(within(table).getByTestId("import-owner-__global__")).toHaveTextContent("Global memory");
    expect(within(dialog).getByTestId("import-files-kept")).toHaveTextContent("agents/assistant/AGENT.md");
    expect(within(dialog).getByTestId("import-into")).toHaveValue("");
    expect(within(dialog).getByTestId("import-replace")).not.toBeChecked();
    expect(within(dialog).queryByTestId("import-replace-warning")).toBeNull();

    // The operations whose queries were refreshed.
    const invalidated: unknown[] = [];
    const original = queryClient.invalidateQueries.bind(queryClient);
    queryClient.invalidateQueries = ((f?: Parameters<typeof original>[0]) => {
      invalidated.push(...queryClient.getQueryCache().findAll(f).map((q) => q.queryKey[0]));
      return original(f);
    }) as typeof queryClient.invalidateQueries;
    fireEvent.click(within(dialog).getByTestId("import-run"));
    expect(within(dialog).getByTestId("import-run")).toHaveTextContent("Import 5 new entries");
    await within(dialog).findByTestId("transfer-progress");
    expect(started[1]).toEqual({ upload: "upload-7", dry_run: false, into_backend: null, agent_map: [], replace_existing: false });
    real = dryRun("done", [{ owner: "assistant", new: 5, present: 139, conflicting: 1 }], false);
    expect(await within(dialog).findByTestId("import-done", {}, { timeout: 3000 })).toHaveTextContent("Imported 5 new entries");
    await waitFor(() => expect(invalidated).toEqual(expect.arrayContaining(["list_agents"])));
  });

  it("a rename the console refuses is shown at its field; another backend and replacing files go with the next run", async () => {
    const { backend } = renderApp("#/agents");
    const started: { agent_map: unknown; into_backend: unknown; replace_existing: unknown; dry_run: boolean }[] = [];
    backend.chooseArchive = async () => UPLOAD;
    backend.stub("start_import", (args) => {
      const a = args as (typeof started)[number];
      if (JSON.stringify(a.agent_map).includes("bad name")) throw new BackendError("invalid_agent_name", `invalid agent name "bad name": use 1-64 letters, digits, '_' or '-'`);
      started.push(a);
      return dryRun("done", [{ owner: "assistant", new: 0, present: 144 }]);
    });
    backend.stub("transfer_status", () => dryRun("done", [{ owner: "assistant", new: 0, present: 144 }]));
    fireEvent.click(await screen.findByTestId("agents-import"));
    const dialog = await screen.findByTestId("import-dialog");
    fireEvent.click(within(dialog).getByTestId("import-choose"));
    // Imported twice: nothing new, so nothing to run.
    expect(await within(dialog).findByTestId("import-run")).toHaveTextContent("Nothing new to import");
    expect(within(dialog).getByTestId("import-run")).toBeDisabled();

    fireEvent.change(within(dialog).getByTestId("import-as-assistant"), { target: { value: "bad name" } });
    fireEvent.click(within(dialog).getByTestId("import-recheck"));
    const error = await within(dialog).findByTestId("import-as-error-assistant");
    expect(error).toHaveTextContent("This is not a valid agent name");
    expect(within(dialog).getByTestId("import-as-assistant")).toHaveAttribute("aria-invalid", "true");

    fireEvent.change(within(dialog).getByTestId("import-as-assistant"), { target: { value: "helper2" } });
    expect(within(dialog).queryByTestId("import-as-error-assistant")).toBeNull();
    fireEvent.change(within(dialog).getByTestId("import-into"), { target: { value: "sqlite" } });
    fireEvent.click(within(dialog).getByTestId("import-replace"));
    expect(within(dialog).getByTestId("import-replace-warning")).toHaveTextContent("cannot undo");
    await act(async () => fireEvent.click(within(dialog).getByTestId("import-recheck")));
    await waitFor(() => expect(started).toHaveLength(2));
    expect(started[1]).toEqual({ upload: "upload-7", dry_run: true, into_backend: "sqlite", agent_map: [{ from: "assistant", to: "helper2" }], replace_existing: true });
  });

  it("a damaged archive fails the dry run with its reason and code", async () => {
    const { backend } = renderApp("#/agents");
    backend.chooseArchive = async () => UPLOAD;
    const failed: TransferDto = { ...dryRun("running", []), state: "failed", error: { code: "corrupt", message: "not an oryx export: manifest.json is missing" } };
    backend.stub("start_import", () => failed);
    backend.stub("transfer_status", () => failed);
    fireEvent.click(await screen.findByTestId("agents-import"));
    const dialog = await screen.findByTestId("import-dialog");
    fireEvent.click(within(dialog).getByTestId("import-choose"));
    const err = await within(dialog).findByTestId("transfer-failed");
    expect(within(err).getByTestId("error-code")).toHaveTextContent("corrupt");
    expect(within(err).getByTestId("error-message")).toHaveTextContent("manifest.json is missing");
    expect(within(dialog).getByTestId("import-choose")).toHaveTextContent("Choose another archive…");
  });
});
