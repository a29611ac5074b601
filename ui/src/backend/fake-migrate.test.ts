import { describe, expect, it } from "vitest";

import { createFakeBackend, FAKE_MEM0_URL, MEM0_LOAD_LIMIT } from "./fake";
import type { MigrationProgress } from "./types";

describe("fake backend migration (mirrors oryx-core migrate.rs)", () => {
  it("counts in a dry run, copies once with progress, and a second run adds nothing", async () => {
    const b = createFakeBackend();
    const before = b.entriesIn("sqlite", "assistant");
    const dry = await b.migrate({ from: "markdown", to: "sqlite", agent: null, dry_run: true }, () => {});
    const assistant = dry.owners.find((o) => o.owner === "assistant")!;
    expect(dry.owners.map((o) => o.owner)).toEqual(["assistant", "broken_yaml", "legacy-bot", "log_analyst", "researcher", "scheduler", "writer", "global"]);
    expect(assistant.target_before).toBe(before.core + before.archival);
    // The three newest markdown entries are already in the table.
    expect(assistant.skipped).toBe(3);
    expect(assistant.copied).toBe(assistant.found - 3);
    expect(b.entriesIn("sqlite", "assistant")).toEqual(before);

    const events: MigrationProgress[] = [];
    const run = await b.migrate({ from: "markdown", to: "sqlite", agent: null, dry_run: false }, (p) => events.push(p));
    expect(run.total.copied).toBe(dry.total.copied);
    expect(events.length).toBe(dry.total.found);
    expect(events.at(-1)).toEqual({ owner: "global", done: dry.total.found, total: dry.total.found });
    const again = await b.migrate({ from: "markdown", to: "sqlite", agent: null, dry_run: true }, () => {});
    expect(again.total.copied).toBe(0);
    expect(again.total.skipped).toBe(dry.total.found);
  });

  it("reports mem0 unreachable per owner, and a write failure stops that owner", async () => {
    const b = createFakeBackend({ mem0Url: FAKE_MEM0_URL, mem0FailAfter: 10 });
    const run = await b.migrate({ from: "markdown", to: "mem0", agent: null, dry_run: false }, () => {});
    const a = run.owners.find((o) => o.owner === "assistant")!;
    expect(a.copied).toBe(10);
    expect(a.failed).toBeGreaterThan(0);
    expect(a.error).toContain(`mem0 at ${FAKE_MEM0_URL} is unreachable (add a memory)`);
    const down = await b.migrate({ from: "markdown", to: "mem0", agent: null, dry_run: true }, () => {});
    expect(down.owners.every((o) => o.error?.includes("list memories"))).toBe(true);
    b.setMem0Down(false);
    const rest = await b.migrate({ from: "markdown", to: "mem0", agent: null, dry_run: true }, () => {});
    expect(rest.owners.find((o) => o.owner === "assistant")!.target_before).toBe(a.target_before + 10);
  });

  it("needs a mem0 base URL and two different backends", async () => {
    const b = createFakeBackend();
    await expect(b.migrate({ from: "markdown", to: "mem0", agent: null, dry_run: true }, () => {})).rejects.toMatchObject({ code: "invalid_input" });
    await expect(b.migrate({ from: "sqlite", to: "sqlite", agent: null, dry_run: true }, () => {})).rejects.toMatchObject({ code: "invalid_input" });
  });

  it("stops between entries when cancelled", async () => {
    const b = createFakeBackend({ migrateDelayMs: 1 });
    const p = b.migrate({ from: "markdown", to: "sqlite", agent: null, dry_run: false }, (e) => {
      if (e.done === 5) void b.cancelMigration();
    });
    const r = await p;
    expect(r.cancelled).toBe(true);
    expect(r.total.copied + r.total.skipped).toBe(5);
  });

  it("lists one mem0 page and says there may be more", async () => {
    const b = createFakeBackend({ backend: "mem0", mem0Url: FAKE_MEM0_URL, mem0Archival: 1200 });
    const v = await b.memoryView("assistant");
    expect(v.core.length + v.archival.length).toBe(MEM0_LOAD_LIMIT);
    expect(v.possibly_more).toBe(true);
    expect((await b.memoryView("writer")).possibly_more).toBe(false);
  });

  it("tests a mem0 connection without saving it", async () => {
    const b = createFakeBackend();
    const s = (await b.getSettings()).settings;
    expect(await b.testMem0({ ...s, mem0_base_url: FAKE_MEM0_URL })).toMatchObject({ ok: true, global_entries: 0 });
    const down = await b.testMem0({ ...s, mem0_base_url: "http://10.0.0.9:8000" });
    expect(down.ok).toBe(false);
    expect(down.message).toContain("unreachable");
    await expect(b.testMem0({ ...s, mem0_base_url: "ftp://x" })).rejects.toMatchObject({ code: "invalid_input" });
    expect((await b.getSettings()).settings.mem0_base_url).toBeNull();
  });

  it("keeps a stored API key when the field is left empty", async () => {
    const b = createFakeBackend();
    const s = (await b.getSettings()).settings;
    const v = await b.updateSettings({ ...s, mem0_api_key: "k-123" });
    expect(v.settings).toMatchObject({ mem0_api_key: null, mem0_api_key_set: true });
    expect((await b.updateSettings({ ...v.settings, mem0_api_key: null })).settings.mem0_api_key_set).toBe(true);
    expect((await b.updateSettings({ ...v.settings, mem0_api_key_set: false })).settings.mem0_api_key_set).toBe(false);
  });
});
