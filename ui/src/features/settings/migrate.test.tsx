import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";

import type { MigrationReport, SettingsDto } from "../../backend/types";
import { recordedResult, type RecordedBackend, type StateName } from "../../test/recorded";
import { renderApp } from "../../test/render";

const LONG = { timeout: 8000 };

/** What the real console answered to the dry run markdown → sqlite on the demo root. */
function dryRun(): MigrationReport {
  return recordedResult("demo", "migrate" as never, { from: "markdown", to: "sqlite", agent: null, dry_run: true, switch: false } as never) as unknown as MigrationReport;
}

/** Settings page, choose `to`, press Save: the dialog opens with the dry run. */
async function openSwitch(to: "sqlite" | "mem0" | "markdown", state: StateName = "demo") {
  const r = renderApp("#/settings", state);
  fireEvent.click(await screen.findByTestId(`settings-backend-${to}`));
  fireEvent.click(screen.getByTestId("settings-save"));
  const dialog = await screen.findByTestId("migrate-dialog");
  return { ...r, dialog };
}

/** What the console reports for an owner whose MEMORY.md it may not read (seen on a copy of the
 * demo root with `chmod 000 agents/researcher/MEMORY.md`, served by a user other than root). */
const DENIED = "/home/linxiao/.oryxos/agents/researcher/MEMORY.md: Permission denied (os error 13)";

/** The console's migrate with `owner`'s MEMORY.md unreadable: its every report (dry run, copy,
 * second count) has that owner's error and no numbers for it; the other owners as recorded. */
function unreadable(backend: RecordedBackend, owner: string) {
  const real = backend.migrate.bind(backend);
  backend.migrate = async (req, onProgress) => {
    const r = await real(req, onProgress);
    const o = r.owners.find((x) => x.owner === owner)!;
    const less = (k: "found" | "target_before" | "copied" | "skipped") => r.total[k] - o[k];
    return {
      ...r,
      owners: r.owners.map((x) => (x === o ? { ...x, found: 0, target_before: 0, copied: 0, skipped: 0, failed: 0, error: DENIED } : x)),
      total: { ...r.total, found: less("found"), target_before: less("target_before"), copied: less("copied"), skipped: less("skipped") },
    };
  };
}

const ops = (b: RecordedBackend) => b.calls.map((c) => c.op);
const updates = (b: RecordedBackend) => b.calls.filter((c) => c.op === "update_settings").map((c) => c.args as SettingsDto);
const cell = (row: HTMLElement, col: string) => row.querySelector(`[data-col="${col}"]`)!.textContent;

describe("Switching the memory backend", () => {
  it("shows the dry run per owner: entries in the old backend, already in the new, missing", async () => {
    const expected = dryRun();
    const { backend } = await openSwitch("sqlite");
    const row = await screen.findByTestId("migrate-row-assistant");
    const a = expected.owners.find((o) => o.owner === "assistant")!;
    const n = (x: number) => x.toLocaleString("en-US");
    expect(cell(row, "found")).toBe(n(a.found));
    expect(cell(row, "target_before")).toBe(n(a.target_before));
    expect(cell(row, "missing")).toBe(n(a.copied));
    // #18 item 9: the row adds up — in the old backend = already in the new + missing; the new
    // backend's own entries (13 the demo's sqlite holds that markdown does not) are apart.
    expect(cell(row, "present")).toBe(n(a.skipped));
    for (const o of expected.owners.filter((x) => !x.error)) {
      const r = screen.getByTestId(`migrate-row-${o.owner}`);
      expect(Number(cell(r, "present")!.replace(/,/g, "")) + Number(cell(r, "missing")!.replace(/,/g, ""))).toBe(Number(cell(r, "found")!.replace(/,/g, "")));
    }
    const heads = within(screen.getByTestId("migrate-table")).getAllByRole("columnheader").map((h) => h.textContent);
    expect(heads).toEqual(["Owner", "In Markdown", "Of these, already in SQLite", "Of these, missing in SQLite", "All entries in SQLite now"]);
    expect(screen.getByTestId("migrate-row-global")).toHaveTextContent("Global memory");
    expect(cell(screen.getByTestId("migrate-row-total"), "missing")).toBe(n(expected.total.copied));
    expect(screen.getByTestId("migrate-copy")).toHaveTextContent(`Copy ${n(expected.total.copied)} missing entries and switch`);
    // Nothing saved yet: the dialog decides.
    expect(updates(backend)).toEqual([]);
    expect(screen.getByTestId("backend-badge")).toHaveTextContent("markdown");
    expect(backend.calls.find((c) => c.op === "migrate")!.args).toEqual({ from: "markdown", to: "sqlite", agent: null, dry_run: true, switch: false });
  });

  it("copies with a determinate progress bar, verifies 0 missing, then saves the new backend", async () => {
    const total = dryRun().total;
    const { backend } = await openSwitch("sqlite");
    const held = backend.holdMigration();
    fireEvent.click(await screen.findByTestId("migrate-copy"));
    const bar = await screen.findByTestId("migrate-progress");
    await waitFor(() => expect(Number(bar.getAttribute("data-done"))).toBeGreaterThan(0));
    expect(bar).toHaveAttribute("aria-valuemax", String(total.found));
    expect(screen.getByTestId("migrate-progress-text")).toHaveTextContent(new RegExp(`[\\d,]+ of ${total.found.toLocaleString("en-US")} entries`));
    expect(updates(backend)).toEqual([]);
    held.release();

    const verified = await screen.findByTestId("migrate-verified", undefined, LONG);
    expect(verified).toHaveTextContent(/Verified: all \d+ owners have 0 entries missing in SQLite\./);
    for (const row of within(screen.getByTestId("migrate-result")).getAllByRole("row").slice(1)) {
      expect(cell(row, "still_missing")).toBe("0");
      // In the old backend = copied + already there (skipped) + failed.
      const v = (c: string) => Number(cell(row, c)!.replace(/,/g, ""));
      expect(v("copied") + v("skipped") + v("failed")).toBe(v("found"));
    }
    await screen.findByTestId("migrate-switched");
    // Order: dry run, copy, dry run again, and only then the save.
    const steps = backend.calls.filter((c) => c.op === "migrate" || c.op === "update_settings").map((c) => (c.op === "migrate" ? `migrate dry_run=${String((c.args as { dry_run: boolean }).dry_run)}` : c.op));
    expect(steps).toEqual(["migrate dry_run=true", "migrate dry_run=false", "migrate dry_run=true", "update_settings"]);
    expect(updates(backend).map((u) => u.backend)).toEqual(["sqlite"]);
    expect(screen.getByTestId("backend-badge")).toHaveTextContent("sqlite");

    fireEvent.click(screen.getByTestId("migrate-done"));
    expect(screen.queryByTestId("migrate-dialog")).toBeNull();
    expect(screen.getByTestId("settings-saved")).toBeInTheDocument();
  });

  it("sends Cancel to the server while the copy runs", async () => {
    const { backend } = await openSwitch("sqlite");
    const held = backend.holdMigration();
    fireEvent.click(await screen.findByTestId("migrate-copy"));
    await screen.findByTestId("migrate-progress");
    fireEvent.click(screen.getByTestId("migrate-cancel"));
    expect(ops(backend)).toContain("migrate/cancel");
    expect(updates(backend)).toEqual([]);
    held.release();
    await screen.findByTestId("migrate-verified", undefined, LONG);
  });

  it("says what switching without copying means before it is pressed, and then saves directly", async () => {
    const dry = dryRun();
    const { backend } = await openSwitch("sqlite");
    await screen.findByTestId("migrate-row-assistant");
    const warning = screen.getByTestId("migrate-skip-warning");
    expect(warning).toHaveTextContent(
      `If you switch without copying: SQLite will show only the ${dry.total.target_before} entries it already holds. The ${dry.total.copied} entries it is missing stay in Markdown, and the agents will not see them.`,
    );
    expect(warning).toHaveTextContent("Nothing is deleted: the old entries stay in Markdown.");
    expect(updates(backend)).toEqual([]);
    fireEvent.click(screen.getByTestId("migrate-skip"));
    await waitFor(() => expect(screen.queryByTestId("migrate-dialog")).toBeNull());
    expect(updates(backend).map((u) => u.backend)).toEqual(["sqlite"]);
    expect(backend.calls.filter((c) => c.op === "migrate").every((c) => (c.args as { dry_run: boolean }).dry_run)).toBe(true);
    expect(screen.getByTestId("backend-badge")).toHaveTextContent("sqlite");
    expect(screen.getByTestId("settings-saved")).toBeInTheDocument();
  });

  it("offers a single Switch when nothing is missing", async () => {
    // After copies both ways (and a switch to sqlite), switching back finds nothing missing.
    const { backend } = await openSwitch("markdown", "synced_sqlite");
    expect(await screen.findByTestId("migrate-nothing")).toHaveTextContent("Markdown already holds every entry of SQLite");
    expect(screen.queryByTestId("migrate-copy")).toBeNull();
    expect(screen.queryByTestId("migrate-skip")).toBeNull();
    expect(screen.queryByTestId("migrate-skip-warning")).toBeNull();
    fireEvent.click(screen.getByTestId("migrate-switch"));
    await waitFor(() => expect(screen.queryByTestId("migrate-dialog")).toBeNull());
    expect(updates(backend).map((u) => u.backend)).toEqual(["markdown"]);
  });

  it("keeps focus inside, starts on the primary button, and Escape closes without saving", async () => {
    const { backend, dialog } = await openSwitch("sqlite");
    const copy = await screen.findByTestId("migrate-copy");
    await waitFor(() => expect(document.activeElement).toBe(copy));
    const buttons = within(dialog).getAllByRole("button");
    expect(buttons.at(-1)).toBe(copy);
    fireEvent.keyDown(copy, { key: "Tab" });
    expect(document.activeElement).toBe(buttons[0]);
    fireEvent.keyDown(buttons[0]!, { key: "Tab", shiftKey: true });
    expect(document.activeElement).toBe(copy);
    // Focus that leaves (a click behind the backdrop) comes back.
    screen.getByTestId("settings-root").focus();
    expect(dialog.contains(document.activeElement)).toBe(true);

    fireEvent.keyDown(dialog, { key: "Escape" });
    expect(screen.queryByTestId("migrate-dialog")).toBeNull();
    expect(updates(backend)).toEqual([]);
    expect(screen.getByTestId("settings-not-switched")).toHaveTextContent("Not switched: the memory backend is still Markdown.");
    expect(screen.getByTestId("settings-backend-sqlite")).toBeChecked();
  });

  it("does not offer a plain switch into a mem0 that does not answer: it takes an explicit confirmation", async () => {
    const { backend } = renderApp("#/settings");
    fireEvent.click(await screen.findByTestId("settings-backend-mem0"));
    // Nothing listens on port 9: the URL is saved first (backend unchanged), then the dialog counts.
    fireEvent.change(screen.getByTestId("settings-mem0-url"), { target: { value: "http://127.0.0.1:9" } });
    fireEvent.click(screen.getByTestId("settings-save"));
    const dialog = await screen.findByTestId("migrate-dialog");
    const banner = await within(dialog).findByTestId("migrate-unreachable");
    expect(banner).toHaveTextContent("mem0 at http://127.0.0.1:9 is unreachable: fix the URL or start the service");
    expect(banner).toHaveTextContent("Connection refused");
    expect(backend.calls.filter((c) => c.op === "test_mem0").map((c) => (c.args as SettingsDto).backend)).toEqual(["mem0"]);
    // Every owner failed to be read from mem0 (the console's dry run) and its test says it is down.
    const dry = recordedResult("mem0_url", "migrate" as never, { from: "markdown", to: "mem0", agent: null, dry_run: true, switch: false } as never) as unknown as MigrationReport;
    expect(dry.owners.every((o) => o.error)).toBe(true);

    // Not the usual "will show only what it already holds": what switching anyway really does.
    const warning = within(dialog).getByTestId("migrate-skip-warning");
    expect(warning).not.toHaveTextContent("will show only");
    expect(warning).toHaveTextContent("every memory view and memory tool fails until it answers");
    const skip = within(dialog).getByTestId("migrate-skip");
    expect(skip).toHaveTextContent("Switch anyway");
    expect(skip).toBeDisabled();
    expect(within(dialog).queryByTestId("migrate-copy")).toBeNull();
    // The primary action tries again; focus starts there, not on the switch.
    await waitFor(() => expect(document.activeElement).toBe(within(dialog).getByTestId("migrate-recount")));
    expect(within(dialog).getByTestId("migrate-recount")).toHaveTextContent("Try again");

    const confirm = within(dialog).getByTestId("migrate-unreachable-confirm");
    expect(confirm.closest("label")).toHaveTextContent("I understand the console will show errors until mem0 answers");
    fireEvent.click(confirm);
    expect(skip).toBeEnabled();
    expect(updates(backend).map((u) => u.backend)).toEqual(["markdown"]);
    fireEvent.click(skip);
    await waitFor(() => expect(screen.queryByTestId("migrate-dialog")).toBeNull());
    expect(updates(backend).map((u) => u.backend)).toEqual(["markdown", "mem0"]);
    expect(backend.state).toBe("mem0_down");
    // And the console says what the switch led to.
    expect(await screen.findByTestId("backend-problem")).toHaveTextContent("mem0 at http://127.0.0.1:9 is unreachable");
  });

  it("copies the owners that could be read when one cannot be, says which are left out, and lets the user decide about the switch (#18 item 8)", async () => {
    const { backend } = renderApp("#/settings");
    unreadable(backend, "researcher");
    fireEvent.click(await screen.findByTestId("settings-backend-sqlite"));
    fireEvent.click(screen.getByTestId("settings-save"));
    const dialog = await screen.findByTestId("migrate-dialog");
    const dry = dryRun();
    const missing = dry.total.copied - dry.owners.find((o) => o.owner === "researcher")!.copied;

    // The row says it briefly; the message is listed once, with the owner it concerns.
    const row = await within(dialog).findByTestId("migrate-row-researcher");
    expect(row).toHaveTextContent("Could not be read (see the errors)");
    expect(row).not.toHaveTextContent("Permission denied");
    expect(within(dialog).getByTestId("migrate-row-researcher-error")).toHaveAttribute("title", DENIED);
    const list = within(dialog).getByTestId("migrate-error");
    expect(list).toHaveTextContent("Some owners could not be read, so their numbers are unknown.");
    expect(list).toHaveTextContent(`${DENIED} — researcher`);
    expect(list).not.toHaveTextContent("Nothing has been copied");
    // What will not be copied, before anything is.
    expect(within(dialog).getByTestId("migrate-not-copied")).toHaveTextContent(
      "Not copied: researcher. They could not be read, so their entries stay only in Markdown, and after a switch the agents will not see them in SQLite.",
    );
    const copy = within(dialog).getByTestId("migrate-copy");
    expect(copy).toHaveTextContent(`Copy the ${missing} missing entries of the owners that could be read`);
    await waitFor(() => expect(document.activeElement).toBe(copy));
    expect(within(dialog).getByTestId("migrate-skip")).toHaveTextContent("Switch without copying");
    expect(within(dialog).getByTestId("migrate-recount")).toBeInTheDocument();

    fireEvent.click(copy);
    const outcome = await within(dialog).findByTestId("migrate-outcome", undefined, LONG);
    expect(outcome).toHaveAttribute("data-partial", "true");
    expect(outcome).toHaveTextContent("Copied what could be read — still using Markdown");
    expect(outcome).toHaveTextContent(`${missing} entries copied into SQLite; every owner that could be read now has 0 missing. Not copied: researcher.`);
    // The failed owner once, though both the copy and the second count reported it.
    const errors = within(dialog).getByTestId("migrate-error");
    expect(errors.querySelectorAll("li")).toHaveLength(1);
    expect(errors).toHaveTextContent(`${DENIED} — researcher`);
    // Its row in the result has no numbers (none were read), only the mark.
    expect(within(dialog).getByTestId("migrate-result-researcher")).toHaveTextContent("researcher Could not be read (see the errors)");
    expect(within(dialog).getByTestId("migrate-skip-warning")).toHaveTextContent(
      "If you switch now: SQLite holds the entries of every other owner. The entries of researcher stay only in Markdown, and the agents will not see them.",
    );
    // Not saved on its own: the user switches (or not).
    expect(updates(backend)).toEqual([]);
    const steps = backend.calls.filter((c) => c.op === "migrate").map((c) => (c.args as { dry_run: boolean }).dry_run);
    expect(steps).toEqual([true, false, true]);
    expect(within(dialog).getByTestId("migrate-recount")).toHaveTextContent("Count again");
    const skip = within(dialog).getByTestId("migrate-skip");
    expect(skip).toHaveTextContent("Switch to SQLite without them");
    fireEvent.click(skip);
    await waitFor(() => expect(screen.queryByTestId("migrate-dialog")).toBeNull());
    expect(updates(backend).map((u) => u.backend)).toEqual(["sqlite"]);
  });

  it("after such a copy, counting again leaves only the switch to decide", async () => {
    const { backend } = renderApp("#/settings");
    unreadable(backend, "researcher");
    fireEvent.click(await screen.findByTestId("settings-backend-sqlite"));
    fireEvent.click(screen.getByTestId("settings-save"));
    const dialog = await screen.findByTestId("migrate-dialog");
    fireEvent.click(await within(dialog).findByTestId("migrate-copy"));
    await within(dialog).findByTestId("migrate-outcome", undefined, LONG);
    // Every owner that can be read is now complete in SQLite; researcher still cannot be read.
    fireEvent.click(within(dialog).getByTestId("migrate-recount"));
    expect(await within(dialog).findByTestId("migrate-settled")).toHaveTextContent("Every owner that could be read already has all its entries in SQLite. Not copied: researcher.");
    // Not "will show only what it already holds": it holds everything but researcher's.
    const warning = within(dialog).getByTestId("migrate-skip-warning");
    expect(warning).not.toHaveTextContent("will show only");
    expect(warning).toHaveTextContent("The entries of researcher stay only in Markdown");
    expect(within(dialog).queryByTestId("migrate-copy")).toBeNull();
    await waitFor(() => expect(document.activeElement).toBe(within(dialog).getByTestId("migrate-recount")));
    fireEvent.click(within(dialog).getByTestId("migrate-skip"));
    await waitFor(() => expect(screen.queryByTestId("migrate-dialog")).toBeNull());
    expect(updates(backend).map((u) => u.backend)).toEqual(["sqlite"]);
  });

  it("offers the partial copy in Chinese", async () => {
    const { backend } = renderApp("#/settings", "demo_zh");
    unreadable(backend, "researcher");
    fireEvent.click(await screen.findByTestId("settings-backend-sqlite"));
    fireEvent.click(screen.getByTestId("settings-save"));
    const dialog = await screen.findByTestId("migrate-dialog");
    expect(await within(dialog).findByTestId("migrate-copy")).toHaveTextContent(/^复制可读取归属缺少的 [\d,]+ 条$/);
    expect(within(dialog).getByTestId("migrate-row-researcher")).toHaveTextContent("无法读取（见错误列表）");
    expect(within(dialog).getByTestId("migrate-not-copied")).toHaveTextContent("不会复制：researcher。它们无法读取，因此其条目只保留在 Markdown 中");
  });

  it("says an error every owner shares once, and marks the rows briefly (#18 item 8)", async () => {
    const { backend } = renderApp("#/settings");
    // mem0 as the source, down: the console fails every owner with the same message.
    const down = "mem0 at http://127.0.0.1:9 is unreachable (list memories): Connection refused (os error 111)";
    const real = backend.migrate.bind(backend);
    backend.migrate = async (req, onProgress) => {
      const r = await real(req, onProgress);
      return { ...r, owners: r.owners.map((o) => ({ ...o, found: 0, target_before: 0, copied: 0, skipped: 0, error: down })), total: { ...r.total, found: 0, target_before: 0, copied: 0, skipped: 0 } };
    };
    fireEvent.click(await screen.findByTestId("settings-backend-sqlite"));
    fireEvent.click(screen.getByTestId("settings-save"));
    const dialog = await screen.findByTestId("migrate-dialog");
    const table = await within(dialog).findByTestId("migrate-table");
    expect(table).not.toHaveTextContent("Connection refused");
    expect(within(table).getAllByText("Could not be read (see the errors)")).toHaveLength(dryRun().owners.length);
    const list = within(dialog).getByTestId("migrate-error");
    expect(list.querySelectorAll("li")).toHaveLength(1);
    expect(list).toHaveTextContent(`${down} — every owner`);
    // Nothing could be read: no partial copy, the existing choices.
    expect(within(dialog).queryByTestId("migrate-copy")).toBeNull();
    expect(within(dialog).queryByTestId("migrate-not-copied")).toBeNull();
    expect(within(dialog).getByTestId("migrate-recount")).toBeInTheDocument();
  });

  it("shows the dialog in Chinese", async () => {
    await openSwitch("sqlite", "demo_zh");
    expect(await screen.findByTestId("migrate-copy")).toHaveTextContent(/^复制缺少的 [\d,]+ 条并切换$/);
    expect(screen.getByTestId("migrate-dialog")).toHaveTextContent("切换记忆后端：Markdown → SQLite");
    expect(screen.getByTestId("migrate-row-global")).toHaveTextContent("全局记忆");
  });
});

describe("mem0 settings", () => {
  it("has URL, user id (default oryxos), write-only key and timeout; tests the values as typed", async () => {
    const { backend } = renderApp("#/settings");
    expect(screen.queryByTestId("settings-mem0-url")).toBeNull();
    fireEvent.click(await screen.findByTestId("settings-backend-mem0"));
    expect(screen.getByTestId("settings-mem0-user")).toHaveValue("oryxos");
    expect(screen.getByTestId("settings-mem0-key")).toHaveAttribute("type", "password");
    expect(screen.getByTestId("settings-mem0-timeout")).toHaveValue(10000);
    // No URL yet: nothing to test, and no error before anything was typed (#18 item 22)…
    expect(screen.queryByText("Enter the mem0 base URL.")).toBeNull();
    expect(screen.getByTestId("settings-mem0-url")).not.toHaveAttribute("aria-invalid", "true");
    expect(screen.getByTestId("settings-mem0-test")).toBeDisabled();
    // …but Save says what is missing, at the field, and goes there; nothing is sent.
    fireEvent.click(screen.getByTestId("settings-save"));
    expect(await screen.findByText("Enter the mem0 base URL.")).toHaveAttribute("id", "settings-mem0-url-hint");
    await waitFor(() => expect(document.activeElement).toBe(screen.getByTestId("settings-mem0-url")));
    expect(screen.getByTestId("settings-mem0-url")).toHaveAttribute("aria-describedby", "settings-mem0-url-hint");
    expect(updates(backend)).toEqual([]);

    // Nothing listens on port 9 of this machine: the real client's answer for a server that is down.
    fireEvent.change(screen.getByTestId("settings-mem0-url"), { target: { value: "http://127.0.0.1:9" } });
    fireEvent.change(screen.getByTestId("settings-mem0-key"), { target: { value: "sk-typed" } });
    fireEvent.click(screen.getByTestId("settings-mem0-test"));
    const down = await screen.findByTestId("settings-mem0-status");
    expect(down).toHaveAttribute("data-ok", "false");
    expect(down).toHaveTextContent("Cannot use mem0 at http://127.0.0.1:9");
    expect(down).toHaveTextContent("unreachable");
    const tested = backend.calls.filter((c) => c.op === "test_mem0").at(-1)!.args as SettingsDto;
    expect(tested).toMatchObject({ mem0_base_url: "http://127.0.0.1:9", mem0_api_key: "sk-typed", mem0_user_id: "oryxos", backend: "mem0" });
    expect(updates(backend)).toEqual([]);
    fireEvent.change(screen.getByTestId("settings-mem0-url"), { target: { value: "http://127.0.0.1:8" } });
    expect(screen.queryByTestId("settings-mem0-status")).toBeNull();
  });
});
