// The user flows both end-to-end suites run (desktop window and browser), over a small `ui`
// driver interface: waitVisible, click, fill, text, count, attrs, select, goto, eval, shot, and
// the host's file dialogs: saveArchive (click → the saved archive's path) and openArchive (click →
// the archive chosen).
import { appendFileSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execFileSync, spawn } from "node:child_process";
import { memoryFile, oryxBin, waitFor } from "./fixtures.mjs";

const unique = `e2e entry ${Date.now().toString(36)}`;
/** Lets a panel or toast finish sliding in before a screenshot. */
const settle = () => new Promise((r) => setTimeout(r, 400));

export const flows = [
  [
    "lists agents",
    async (ui) => {
      await ui.goto("#/agents");
      for (const name of ["assistant", "log_analyst", "researcher", "scheduler"]) {
        await ui.waitVisible(`[data-testid="agent-row-${name}"]`);
      }
      await ui.shot("agents");
    },
  ],
  [
    "opens an agent: core and archival rows and the window cut",
    async (ui) => {
      await ui.click('[data-testid="agent-row-assistant"]');
      await ui.waitVisible('[data-testid="core-table"]');
      const core = await ui.text('[data-testid="core-table"]');
      if (!core.includes("用户偏好简洁的回复")) throw new Error(`core table lacks the core entry: ${core.slice(0, 200)}`);
      await ui.waitVisible('[data-testid="archival-row"]');
      const banner = await ui.text('[data-testid="window-banner"]');
      if (!/\d/.test(banner)) throw new Error(`window banner has no figures: ${banner}`);
      await ui.waitVisible('[data-testid="window-cut"]');
      const flags = await waitFor("rows on both sides of the cut", async () => {
        const f = await ui.attrs('[data-testid="archival-row"]', "data-in-window");
        return f.includes("true") && f.includes("false") ? f : null;
      });
      if (!flags.length) throw new Error("no archival rows");
      await ui.shot("memory");
    },
  ],
  [
    "adds an archival entry and finds it in MEMORY.md on disk",
    async (ui, fx, { memoryFile }) => {
      await ui.goto("#/agents/assistant");
      await ui.select('[data-testid="add-scope"]', "archival");
      // Runs of spaces collapse when stored (a newline would too, but WebDriver's keys drop it).
      await ui.fill('[data-testid="add-content"]', `${unique}   spaced    out`);
      await ui.waitVisible('[data-testid="add-preview"]');
      await ui.click('[data-testid="add-submit"]');
      const expected = `${unique} spaced out`;
      await waitFor("the entry on disk", () => memoryFile(fx.root1, "assistant").includes(`] ${expected}\n`));
      await waitFor("the entry in the table", async () => (await ui.text('[data-testid="archival-table"]')).includes(expected));
    },
  ],
  [
    "curates memory: an inline edit, three entries deleted through the selection and its confirmation, Undo in the toast — MEMORY.md on disk follows each step",
    async (ui, fx, { memoryFile }) => {
      await ui.goto("#/agents/assistant");
      await ui.waitVisible('[data-testid="archival-row"]');
      // The rows in view (the list opens at the window's cut line): file index, id, time, content.
      const rowsInView = () =>
        ui.eval(
          `Array.from(document.querySelectorAll('[data-testid="archival-row"]')).map((r) => ({ index: Number(r.getAttribute("data-entry-index")), id: r.getAttribute("data-entry-id"), time: r.querySelector(".c-time").textContent, content: r.querySelector(".c-content").getAttribute("title") }))`,
        );
      const line = (r) => `- [${r.time}] ${r.content}`;
      let rows = await waitFor("a dozen rows in view", async () => {
        const r = await rowsInView();
        return r.length >= 12 && r.every((x) => x.content) ? r : null;
      });
      // 1. Inline edit: the row's Edit action, new text, Save.
      const target = rows[3];
      const edited = `${target.content} (curated ${unique})`;
      if (!memoryFile(fx.root1, "assistant").includes(`${line(target)}\n`)) throw new Error(`MEMORY.md lacks ${line(target)}`);
      await ui.click(`[data-testid="archival-row"][data-entry-id="${target.id}"] [data-testid="row-edit"]`);
      await ui.fill('[data-testid="entry-editor-input"]', edited);
      await ui.click('[data-testid="entry-editor-save"]');
      await waitFor("the edited line on disk", () => {
        const text = memoryFile(fx.root1, "assistant");
        return text.includes(`- [${target.time}] ${edited}\n`) && !text.includes(`${line(target)}\n`);
      });
      await waitFor("the edited row", async () => (await ui.text('[data-testid="archival-table"]')).includes(edited));
      const toastEdit = await ui.text('[data-testid="toast"]');
      if (!toastEdit.includes("Edited 1 entry")) throw new Error(`the toast says ${toastEdit}`);
      await ui.click('[data-testid="toast-close"]');
      // 2. Three other rows selected with their boxes, deleted after the confirmation.
      rows = await waitFor("the rows after the edit", async () => {
        const r = await rowsInView();
        return r.some((x) => x.content === edited) ? r : null;
      });
      const three = rows.filter((r) => r.content !== edited).slice(6, 9);
      const before = memoryFile(fx.root1, "assistant");
      for (const r of three) {
        if (!before.includes(`${line(r)}\n`)) throw new Error(`MEMORY.md lacks ${line(r)}`);
        await ui.click(`[data-testid="archival-row"][data-entry-id="${r.id}"] [data-testid="row-select"]`);
      }
      await waitFor("3 selected", async () => (await ui.text('[data-testid="bulk-count"]')).includes("3 entries selected"));
      await settle();
      await ui.shot("curation-selection");
      await ui.click('[data-testid="bulk-delete"]');
      const impact = await ui.text('[data-testid="bulk-impact-size"]');
      if (!/^3 entries, [\d,]+ characters$/.test(impact.trim())) throw new Error(`the confirmation says ${impact}`);
      await ui.click('[data-testid="bulk-confirm-ok"]');
      await waitFor("three lines gone from disk", () => {
        const text = memoryFile(fx.root1, "assistant");
        return three.every((r) => !text.includes(`${line(r)}\n`)) && text.split("\n").length === before.split("\n").length - 3;
      });
      const toast = await ui.text('[data-testid="toast"]');
      if (!toast.includes("Deleted 3 entries")) throw new Error(`the toast says ${toast}`);
      await settle();
      await ui.shot("curation-undo");
      // 3. Undo in the toast puts the file back as it was.
      await ui.click('[data-testid="toast-undo"]');
      await waitFor("the three lines back on disk", () => memoryFile(fx.root1, "assistant") === before);
      await waitFor("the rows back", async () => {
        const text = await ui.text('[data-testid="archival-table"]');
        return three.every((r) => text.includes(r.content));
      });
      // The History panel lists the three changes, newest first (and, between them, entries
      // appended meanwhile: the earlier flow's, when it was written in the same second).
      const changes = '[data-testid="history-change"]:not([data-op="append"])';
      await ui.click('[data-testid="toast-close"]').catch(() => {});
      await ui.click('[data-testid="history-open"]');
      await waitFor("three changes in the history", async () => (await ui.count(changes)) === 3);
      const ops = await ui.attrs(changes, "data-op");
      if (ops.join() !== "undo,delete,edit") throw new Error(`the history lists ${ops.join()}`);
      await settle();
      await ui.shot("curation-history");
      await ui.click('[data-testid="history-panel-close"]');
    },
  ],
  [
    "live refresh: a write by another process shows up",
    async (ui, fx) => {
      await ui.goto("#/agents/log_analyst");
      await ui.waitVisible('[data-testid="archival-table"]');
      const line = `external writer ${unique}`;
      const file = join(fx.root1, "agents", "log_analyst", "MEMORY.md");
      // Search first: only the change event can bring the new row in afterwards.
      await ui.fill('[data-testid="memory-search"]', "external writer");
      const started = Date.now();
      appendFileSync(file, `- [2026-12-01 00:00:00] ${line}\n`);
      await waitFor("the external entry", async () => (await ui.text('[data-testid="archival-table"]')).includes(line), 10000, 50);
      console.log(`live refresh: external write visible after ${Date.now() - started} ms`);
    },
  ],
  [
    "opens a session as a conversation",
    async (ui) => {
      await ui.click('[data-testid="nav-sessions"]');
      await ui.click('[data-testid^="session-row-"]');
      await ui.waitVisible('[data-testid="message"]');
      if ((await ui.count('[data-testid="message"]')) < 2) throw new Error("fewer than 2 messages");
      await ui.waitVisible('[data-testid="tool-invocations"]');
      await ui.shot("session");
    },
  ],
  [
    "searches what was said in sessions, opens the matching message, comes back to the same list",
    async (ui) => {
      await ui.goto("#/sessions");
      await ui.fill('[data-testid="sessions-search"]', "certificate");
      await waitFor("one matching session", async () => (await ui.count('[data-testid^="session-row-"]')) === 1);
      const snippet = await ui.text('[data-testid="session-match"]');
      if (!/certificate/i.test(snippet)) throw new Error(`the match snippet is ${snippet}`);
      await ui.shot("sessions-search");
      await ui.click('[data-testid^="session-row-"]');
      const marked = '[data-testid="message"][aria-current="true"]';
      const said = await ui.text(marked);
      if (!/certificate/i.test(said)) throw new Error(`the marked message is ${said}`);
      const hash = await ui.eval("window.location.hash");
      if (!/[?&]m=\d+/.test(hash)) throw new Error(`the session URL does not name the message: ${hash}`);
      await ui.click('[data-testid="crumb-sessions"]');
      await waitFor("the list with the same search", async () => {
        const box = await ui.eval('document.querySelector(\'[data-testid="sessions-search"]\')?.value');
        return box === "certificate" && (await ui.count('[data-testid^="session-row-"]')) === 1;
      });
      await ui.eval("history.back()");
      await ui.waitVisible(marked);
      await ui.eval("history.back()");
      await waitFor("Back returns to the filtered list", async () => (await ui.eval("window.location.hash")).includes("q=certificate"));
    },
  ],
  [
    "prompt preview shows the four parts",
    async (ui) => {
      await ui.goto("#/agents/assistant/prompt");
      for (const n of [1, 2, 3, 4]) await ui.waitVisible(`[data-testid="prompt-part-${n}"]`);
      await ui.shot("prompt");
    },
  ],
  [
    "recall tester: a question finds the entry by meaning, and the hit opens the agent's memory",
    async (ui) => {
      const entry = "用户偏好简洁的回复，不用列表。";
      const semanticHits = '[data-testid="recall-col-semantic"] [data-testid="recall-hit"]';
      await ui.click('[data-testid="nav-recall"]');
      await waitFor("the agents in the owner picker", async () => (await ui.count('[data-testid="recall-owner"] option[value="assistant"]')) > 0);
      await ui.select('[data-testid="recall-owner"]', "assistant");
      // Index the assistant first (a background build, followed by polling): the first semantic
      // recall would otherwise embed 144 entries inside one request, slow in a debug build.
      await ui.click('[data-testid="index-build-assistant"]');
      await ui.waitVisible('[data-testid="index-job"][data-outcome="done"]', 240000);
      // The job's end is polled apart from the per-owner counts, which refresh after it.
      await waitFor("the assistant fully indexed", async () => {
        const row = await ui.text('[data-testid="index-owner-assistant"]');
        const [indexed, entries] = (row.match(/(\d+) \/ (\d+)/) ?? []).slice(1);
        return entries && indexed === entries;
      }, 30000);
      await ui.fill('[data-testid="recall-query"]', "用户喜欢什么样的回答风格");
      await ui.click('[data-testid="recall-run"]');
      await ui.waitVisible(semanticHits, 60000);
      await waitFor("the entry in the semantic column", async () => (await ui.text('[data-testid="recall-col-semantic"]')).includes(entry), 30000);
      const keyword = await ui.text('[data-testid="recall-col-keyword"]');
      if (!keyword.includes("没有找到相关记忆")) throw new Error(`the keyword column does not give the tool's empty answer: ${keyword}`);
      const hash = await ui.eval("window.location.hash");
      if (!hash.includes("agent=assistant") || !hash.includes("q=")) throw new Error(`the recall URL lacks owner or query: ${hash}`);
      await ui.shot("recall");
      const at = await ui.eval(
        `Array.from(document.querySelectorAll('${semanticHits}')).findIndex((e) => e.textContent.includes(${JSON.stringify(entry)}))`,
      );
      await ui.click(`[data-testid="recall-col-semantic"] li:nth-child(${at + 1}) [data-testid="recall-hit"]`);
      await waitFor("the assistant's memory", async () => (await ui.eval("window.location.hash")) === "#/agents/assistant");
      await waitFor("the core entry", async () => (await ui.text('[data-testid="core-table"]')).includes(entry));
    },
  ],
  [
    "the agent's recall: the runtime's fused answer explained, its index filled, a deleted entry's memory_vectors row gone with its bytes",
    async (ui, fx, { memoryFile }) => {
      // The sample install's runtime recalls with the mock embedder (a providers row): an entry
      // the console adds gets its memory_vectors row at once, as the runtime's own append would.
      const secret = `e2e-runtime-secret-${Date.now().toString(36)}`;
      const db = join(fx.install1, "oryxos.db");
      const dbBytesHold = (text) => [db, `${db}-wal`].some((f) => existsSync(f) && readFileSync(f).includes(text));
      await ui.goto("#/agents/assistant");
      await ui.select('[data-testid="add-scope"]', "archival");
      await ui.fill('[data-testid="add-content"]', `the deploy key is ${secret}`);
      await ui.waitVisible('[data-testid="add-preview"]');
      await ui.click('[data-testid="add-submit"]');
      await waitFor("the entry on disk", () => memoryFile(fx.root1, "assistant").includes(secret));
      await waitFor("its memory_vectors row in oryxos.db", () => dbBytesHold(secret));

      // What the agent gets for the query, and why: a fused answer whose first line is the entry,
      // found by the keyword route and the semantic route.
      await ui.goto(`#/recall?agent=assistant&q=${encodeURIComponent(secret)}`);
      await ui.waitVisible('[data-testid="agent-answer-engine"][data-engine="fusion"]', 60000);
      const first = '[data-testid="agent-answer-row"]:first-child';
      await waitFor("the entry first in the agent's answer", async () => (await ui.text(first)).includes(secret), 30000);
      const cells = await ui.eval(`Array.from(document.querySelectorAll('${first} td')).map((c) => c.textContent.trim())`);
      // Cells: the check box (keep as a recall check), #, entry, score, semantic, keyword, recency.
      if (cells[5] !== "#1") throw new Error(`the keyword route's cell says ${cells[5]} (row: ${cells.join(" | ")})`);
      if (!/\d/.test(cells[4] ?? "")) throw new Error(`the semantic route's cell says ${cells[4]} (row: ${cells.join(" | ")})`);
      // The tool's exact text sits folded under the table.
      const text = await ui.eval(`document.querySelector('[data-testid="agent-answer-text"]').textContent`);
      if (!text.includes(secret)) throw new Error(`the tool's text lacks the entry: ${text.slice(0, 200)}`);

      // The runtime's index: the demo's other entries have no row yet; the fill does what the
      // runtime's next start would, and leaves nothing missing.
      await ui.waitVisible('[data-testid="runtime-index-agent-assistant"]', 30000);
      const missing = async () => Number((await ui.text('[data-testid="runtime-index-agent-assistant"] [data-col="missing"]')).replace(/[^\d]/g, ""));
      if ((await missing()) === 0) throw new Error("the sample install's assistant has no entry left to index");
      await ui.click('[data-testid="runtime-index-fill"]');
      await ui.waitVisible('[data-testid="runtime-index-job"][data-outcome="done"]', 120000);
      await waitFor("nothing missing after the fill", async () => (await missing()) === 0, 30000);
      await settle();
      await ui.shot("recall-agent");
      const indexedCell = '[data-testid="runtime-index-agent-assistant"] [data-col="indexed"]';
      const indexed = Number((await ui.text(indexedCell)).replace(/[^\d]/g, ""));

      // Deleting the entry in the console takes its row out of the runtime's index, and its
      // bytes out of the database file and its WAL.
      await ui.goto("#/agents/assistant");
      await ui.fill('[data-testid="memory-search"]', secret);
      const row = await waitFor("the entry's row", async () => {
        const ids = await ui.attrs('[data-testid="archival-row"]', "data-entry-id");
        return ids.length === 1 ? ids[0] : null;
      });
      await ui.click(`[data-testid="archival-row"][data-entry-id="${row}"] [data-testid="row-delete"]`);
      await waitFor("the entry gone from MEMORY.md", () => !memoryFile(fx.root1, "assistant").includes(secret));
      await waitFor("its bytes gone from oryxos.db and its WAL", () => !dbBytesHold(secret));
      await ui.click('[data-testid="toast-close"]').catch(() => {});
      await ui.goto("#/recall?agent=assistant");
      await waitFor(
        "one row fewer in the runtime's index",
        async () => Number((await ui.text(indexedCell)).replace(/[^\d]/g, "")) === indexed - 1,
        30000,
      );
    },
  ],
  [
    "recall checks: the answer's entry kept as a check, a delete breaks it and a notice says so, the check's undo mends it, the weights proposal agrees",
    async (ui, fx, { memoryFile }) => {
      const token = `e2e-check-${Date.now().toString(36)}`;
      await ui.goto("#/agents/assistant");
      await ui.select('[data-testid="add-scope"]', "archival");
      await ui.fill('[data-testid="add-content"]', `the parking spot is ${token}`);
      await ui.waitVisible('[data-testid="add-preview"]');
      await ui.click('[data-testid="add-submit"]');
      await waitFor("the entry on disk", () => memoryFile(fx.root1, "assistant").includes(token));

      // Keep the question with the answer's first entry.
      await ui.goto(`#/recall?agent=assistant&q=${encodeURIComponent(token)}`);
      const first = '[data-testid="agent-answer-row"]:first-child';
      await waitFor("the entry first in the agent's answer", async () => (await ui.text(first)).includes(token), 60000);
      await ui.click(`${first} [data-testid="agent-answer-pick"]`);
      await ui.click('[data-testid="agent-keep-check"]');
      await ui.waitVisible('[data-testid="agent-keep-said"]');
      await ui.waitVisible('[data-testid="recall-check"][data-state="pass"]', 30000);

      // A delete on the memory page: the checks run in the background and a notice tells.
      await ui.goto("#/agents/assistant");
      await ui.fill('[data-testid="memory-search"]', token);
      const row = await waitFor("the entry's row", async () => {
        const ids = await ui.attrs('[data-testid="archival-row"]', "data-entry-id");
        return ids.length === 1 ? ids[0] : null;
      });
      await ui.click(`[data-testid="archival-row"][data-entry-id="${row}"] [data-testid="row-delete"]`);
      await waitFor("the entry gone from MEMORY.md", () => !memoryFile(fx.root1, "assistant").includes(token));
      await ui.waitVisible('[data-testid="broken-check-notice"]', 30000);
      const said = await ui.text('[data-testid="broken-check-notice"]');
      if (!said.includes(token)) throw new Error(`the notice does not name the check: ${said}`);
      await settle();
      await ui.shot("recall-check-notice");
      await ui.click('[data-testid="broken-check-open"]');

      // The broken check names the delete; its undo brings the entry back and the check passes.
      await ui.waitVisible('[data-testid="recall-check"][data-state="broken"]', 30000);
      await ui.click('[data-testid="recall-check"][data-state="broken"] [data-testid="recall-check-undo"]');
      await waitFor("the entry back in MEMORY.md", () => memoryFile(fx.root1, "assistant").includes(token));
      await ui.waitVisible('[data-testid="recall-check"][data-state="pass"]', 30000);

      // Every check passes: the proposal has nothing to change.
      await ui.click('[data-testid="recall-checks-propose"]');
      await ui.waitVisible('[data-testid="recall-proposal-verdict"][data-verdict="all_pass"]', 30000);
      await ui.click('[data-testid="recall-proposal-close"]');
      await ui.click('[data-testid="recall-check-remove"]');
      await ui.waitVisible('[data-testid="recall-checks-empty"]');
    },
  ],
  [
    "exports the read receipts as CSV: the file saved holds a row per entry with its reads",
    async (ui, fx) => {
      await ui.goto("#/agents/assistant");
      await ui.click('[data-testid="reads-toggle"]');
      await ui.waitVisible('[data-testid="reads-totals"]', 30000);
      const path = await ui.saveArchive('[data-testid="reads-export-csv"]');
      const text = await waitFor("the CSV saved", () => (existsSync(path) ? readFileSync(path, "utf8") : null), 30000);
      const lines = text.trim().split(/\r?\n/);
      if (!/^id,/.test(lines[0] ?? "")) throw new Error(`the CSV's header is ${lines[0]}`);
      if (lines.length < 10) throw new Error(`the CSV has ${lines.length} lines`);
      await ui.waitVisible('[data-testid="reads-saved"]');
    },
  ],
  [
    "forgets a secret everywhere: the dry run by place, the confirmation, no byte left in MEMORY.md, its sidecars or oryxos.db",
    async (ui, fx, { memoryFile }) => {
      const secret = `sk-live-e2e-${Date.now().toString(36)}`;
      const memory = join(fx.root1, "agents", "assistant", "MEMORY.md");
      const db = join(fx.install1, "oryxos.db");
      const places = [memory, `${memory}.oryx-history`, `${memory}.oryx-journal`, db, `${db}-wal`];
      const holding = () => places.filter((f) => existsSync(f) && readFileSync(f).includes(secret));
      await ui.goto("#/agents/assistant");
      await ui.select('[data-testid="add-scope"]', "archival");
      await ui.fill('[data-testid="add-content"]', `the api key is ${secret}`);
      await ui.waitVisible('[data-testid="add-preview"]');
      await ui.click('[data-testid="add-submit"]');
      await waitFor("the entry on disk", () => memoryFile(fx.root1, "assistant").includes(secret));
      await waitFor("its copies in the journal and the runtime's index", () => holding().length >= 3);
      await ui.fill('[data-testid="memory-search"]', secret);
      const row = await waitFor("the entry's row", async () => {
        const ids = await ui.attrs('[data-testid="archival-row"]', "data-entry-id");
        return ids.length === 1 ? ids[0] : null;
      });
      await ui.click(`[data-testid="archival-row"][data-entry-id="${row}"] [data-testid="row-forget"]`);
      await ui.waitVisible('[data-testid="forget-found"]', 60000);
      const found = await ui.text('[data-testid="forget-found"]');
      for (const place of ["Memory entries", "The runtime's vector index"]) {
        if (!found.includes(place)) throw new Error(`the dry run does not list ${place}: ${found}`);
      }
      const warning = await ui.text('[data-testid="forget-warning"]');
      if (!/cannot be undone/.test(warning)) throw new Error(`the dialog does not say a forget cannot be undone: ${warning}`);
      await settle();
      await ui.shot("forget-dry-run");
      await ui.click('[data-testid="forget-understand"]');
      await ui.click('[data-testid="forget-confirm"]');
      await ui.waitVisible('[data-testid="forget-result"]', 120000);
      const state = await ui.text('[data-testid="forget-state"]');
      if (!state.includes("Forgotten")) throw new Error(`the forget ended as ${state}`);
      // The delete's own history and journal records are erased too, and said apart from what was found.
      await ui.waitVisible('[data-testid="forget-own"]');
      await settle();
      await ui.shot("forget-done");
      await ui.click('[data-testid="forget-close"]');
      await waitFor("no byte of the secret left", () => holding().length === 0, 30000);
      // The search for the secret now finds no row.
      await waitFor("the row gone", async () => (await ui.count('[data-testid="archival-row"]')) === 0);
    },
  ],
  [
    "searches everywhere from the header: a paraphrase finds the core entry, which opens marked in the agent's memory",
    async (ui) => {
      const entry = "用户偏好简洁的回复，不用列表。";
      const hit = '[data-testid="search-everywhere-hit"][data-kind="memory"]';
      await ui.goto("#/agents");
      await ui.fill('[data-testid="search-everywhere-input"]', "用户喜欢什么样的回答风格");
      await ui.waitVisible(hit, 60000);
      await waitFor("the entry among the hits", async () => (await ui.text('[data-testid="search-everywhere-panel"]')).includes(entry), 30000);
      const opened = await ui.eval(
        `(() => { const h = Array.from(document.querySelectorAll('${hit}')).find((e) => e.textContent.includes(${JSON.stringify(entry)})); if (h) h.click(); return !!h; })()`,
      );
      if (!opened) throw new Error("no hit to open");
      await waitFor("the assistant's memory", async () => (await ui.eval("window.location.hash")).startsWith("#/agents/assistant"));
      await ui.waitVisible('[data-testid="core-row"][data-target="true"]', 30000);
      const marked = await ui.text('[data-testid="core-row"][data-target="true"]');
      if (!marked.includes(entry)) throw new Error(`the marked row is ${marked}`);
    },
  ],
  [
    "past conversations: a question finds a past session message by meaning, and it opens that session at the message",
    async (ui) => {
      const said = "Remind me to renew the TLS certificate";
      const hits = '[data-testid="episodic"] [data-testid="episodic-hit"]';
      await ui.goto(`#/recall?agent=assistant&q=${encodeURIComponent("证书续期")}`);
      // The first episodic search embeds the assistant's session messages inside the request.
      await ui.waitVisible(hits, 120000);
      await waitFor("the past message", async () => (await ui.text('[data-testid="episodic"]')).includes(said), 30000);
      await ui.shot("recall-episodic");
      const at = await ui.eval(`Array.from(document.querySelectorAll('${hits}')).findIndex((e) => e.textContent.includes(${JSON.stringify(said)}))`);
      if (at < 0) throw new Error("no past-conversation hit holds the message");
      await ui.click(`[data-testid="episodic"] li:nth-child(${at + 1}) [data-testid="episodic-hit"]`);
      await waitFor("the session page at the message", async () => /^#\/sessions\/[^?]+\?m=\d+/.test(await ui.eval("window.location.hash")));
      const marked = await ui.text('[data-testid="message"][aria-current="true"]');
      if (!marked.includes(said)) throw new Error(`the highlighted message is ${marked}`);
      await ui.shot("session-from-episodic");
    },
  ],
  [
    "manages an agent: creates e2e-helper, changes its model in the form, attaches a skill, archives and restores it — AGENT.md on disk after each step",
    async (ui, fx) => {
      const dir = join(fx.root1, "agents", "e2e-helper");
      const agentMd = () => readFileSync(join(dir, "AGENT.md"), "utf8");
      await ui.goto("#/agents");
      await ui.click('[data-testid="agent-new"]');
      await ui.waitVisible('[data-testid="create-agent"]');
      await ui.fill('[data-testid="create-name"]', "e2e-helper");
      await ui.fill('[data-testid="create-description"]', "Helps the e2e suite");
      await ui.fill('[data-testid="create-model"]', "gpt-4o");
      await ui.click('[data-testid="create-submit"]');
      await waitFor("the new agent's page", async () => (await ui.eval("window.location.hash")) === "#/agents/e2e-helper/overview");
      let text = await waitFor("AGENT.md on disk", () => existsSync(join(dir, "AGENT.md")) && agentMd());
      if (!/^name: e2e-helper$/m.test(text) || !/^\s+model: gpt-4o$/m.test(text) || !text.includes("description: Helps the e2e suite")) {
        throw new Error(`AGENT.md after create_agent: ${text}`);
      }
      // The form: one field changed, one set_agent_key; the rest of the file stays as it was.
      await ui.click('[data-testid="agent-edit"]');
      await ui.waitVisible('[data-testid="agent-form"]');
      await ui.fill('[data-testid="agent-field-provider-model"]', "gpt-4.1-mini");
      await ui.click('[data-testid="agent-form-save"]');
      const before = text;
      text = await waitFor("the new model on disk", () => /^\s+model: gpt-4\.1-mini$/m.test(agentMd()) && agentMd());
      if (text !== before.replace(/^(\s+model:) gpt-4o$/m, "$1 gpt-4.1-mini")) throw new Error(`set_agent_key changed more than the model:\n${before}\n→\n${text}`);
      await ui.click('[data-testid="edit-done"]');
      // A skill: a link under the agent's skills/, AGENT.md untouched.
      await ui.click('[data-testid="skills-edit"]');
      await ui.click('[data-testid="skill-check-calendar"]');
      await ui.click('[data-testid="skills-save"]');
      await waitFor("the skill link", () => existsSync(join(dir, "skills", "calendar")) && lstatSync(join(dir, "skills", "calendar")).isSymbolicLink());
      await ui.waitVisible('[data-testid="skills"]');
      if (agentMd() !== text) throw new Error(`AGENT.md changed when a skill was attached: ${agentMd()}`);
      // Archive: the folder moves under archive/; the list says so with an Undo.
      await ui.click('[data-testid="agent-archive"]');
      await ui.click('[data-testid="archive-confirm-ok"]');
      await waitFor("the agents list", async () => (await ui.eval("window.location.hash")) === "#/agents");
      await ui.waitVisible('[data-testid="toast-undo"]');
      await waitFor("the folder gone", () => !existsSync(dir));
      const archived = readdirSync(join(fx.root1, "archive")).filter((n) => n.startsWith("e2e-helper"));
      if (archived.length !== 1 || readFileSync(join(fx.root1, "archive", archived[0], "AGENT.md"), "utf8") !== text) {
        throw new Error(`archive holds ${archived.join(", ")}`);
      }
      // Restore from the Archived agents section.
      await ui.click('[data-testid="toast-close"]');
      await ui.click('[data-testid="archived-toggle"]');
      await ui.click(`[data-testid="archived-${archived[0]}"] [data-testid="archived-restore"]`);
      await waitFor("the restored agent's page", async () => (await ui.eval("window.location.hash")) === "#/agents/e2e-helper/overview");
      await waitFor("AGENT.md back", () => existsSync(join(dir, "AGENT.md")) && agentMd() === text);
      if (!existsSync(join(dir, "skills", "calendar"))) throw new Error("the skill link did not come back");
      await ui.waitVisible('[data-testid="front-matter"]');
      if (!(await ui.text('[data-testid="front-matter"]')).includes("gpt-4.1-mini")) throw new Error("the overview does not show the restored model");
    },
  ],
  [
    "provenance: an entry save_memory wrote in a session opens that message, and the message's badge leads back to the entry",
    async (ui, fx) => {
      // The runtime's save_memory call, recorded with a demo session whose message 6 (index 5)
      // is a save_memory call with exactly this content.
      const session = "feishu:oncall:assistant";
      const content = "用户更喜欢早上收到简报";
      execFileSync(oryxBin, ["tool", "save_memory", "--root", fx.root1, "--input", JSON.stringify({ content, scope: "core" }), "--agent", "assistant", "--session", session], {
        env: { ...process.env, ORYXOS_CONFIG_DIR: fx.config, ORYXOS_ROOT: "" },
        stdio: "pipe",
      });
      await ui.goto("#/agents/assistant");
      const id = await waitFor("the saved entry in the core table", () =>
        ui.eval(
          `(Array.from(document.querySelectorAll('[data-testid="core-row"]')).find((r) => r.textContent.includes(${JSON.stringify(content)})) || { getAttribute: () => null }).getAttribute("data-entry-id")`,
        ),
      );
      await ui.click(`[data-testid="core-row"][data-entry-id="${id}"] [data-testid="row-origin"]`);
      const sentence = await ui.text('[data-testid="provenance-sentence"]');
      if (!sentence.includes("save_memory") || !sentence.includes(session) || !sentence.includes("(message 6)")) throw new Error(`the panel says ${sentence}`);
      if (await ui.count('[data-testid="provenance-inexact"]')) throw new Error("the match is said to be by text only");
      await settle();
      await ui.shot("provenance");
      await ui.click('[data-testid="provenance-open"]');
      await ui.waitVisible('[data-testid="message"][data-index="5"][aria-current="true"] [data-testid="message-mark"]');
      const hash = await ui.eval("window.location.hash");
      if (!hash.includes("m=5")) throw new Error(`the session opened at ${hash}`);
      const badge = `[data-testid="message"][data-index="5"] [data-testid="memory-badge"][data-entry-id="${id}"]`;
      await ui.waitVisible(badge);
      if (!(await ui.text(badge)).includes("Saved to memory")) throw new Error(`the badge says ${await ui.text(badge)}`);
      await settle();
      await ui.shot("provenance-session");
      await ui.click(badge);
      await ui.waitVisible(`[data-testid="core-row"][data-entry-id="${id}"][data-target="true"]`);
      const [back] = await ui.attrs('[data-testid="entry-target-back"]', "href");
      if (!back || !back.includes("m=5")) throw new Error(`the way back is ${back}`);
      await ui.click('[data-testid="entry-target-back"]');
      await ui.waitVisible('[data-testid="message"][data-index="5"][aria-current="true"]');
    },
  ],
  [
    "exports the assistant, then imports the archive into the same root: the dry run finds nothing new, every entry present",
    async (ui, fx) => {
      const count = async (css) => Number((await ui.text(css)).replace(/[^\d]/g, ""));
      await ui.goto("#/agents/assistant");
      await ui.click('[data-testid="agent-export"]');
      await ui.waitVisible('[data-testid="export-dialog"]');
      await ui.click('[data-testid="export-start"]');
      await ui.waitVisible('[data-testid="export-done"]', 60000);
      const owners = await ui.text('[data-testid="export-owners"]');
      const [core, archival] = (owners.match(/assistant\s+([\d,]+)\s+([\d,]+)/) ?? []).slice(1).map((n) => Number(n.replace(/,/g, "")));
      if (!(core > 0 && archival > 0)) throw new Error(`the export summary says ${owners}`);
      // The browser downloads it; the desktop's save dialog answers the path the suite gave it.
      const file = await ui.saveArchive('[data-testid="export-save"]');
      await ui.waitVisible('[data-testid="export-saved"]');
      if (!existsSync(file) || statSync(file).size < 100) throw new Error(`no archive at ${file}`);
      exported = { file, core, archival, text: memoryFile(fx.root1, "assistant") };
      await ui.click('[data-testid="export-close"]');
      await ui.goto("#/agents");
      await ui.click('[data-testid="agents-import"]');
      await ui.waitVisible('[data-testid="import-dialog"]');
      await ui.openArchive('[data-testid="import-choose"]', file);
      await ui.waitVisible('[data-testid="import-owner-assistant"]', 60000);
      const row = '[data-testid="import-owner-assistant"]';
      const fresh = await count(`${row} [data-testid="new"]`);
      const present = await count(`${row} [data-testid="present"]`);
      if (fresh !== 0 || present !== core + archival) throw new Error(`the dry run says new ${fresh}, present ${present} (archive: ${core} core + ${archival} archival)`);
      const run = await ui.text('[data-testid="import-run"]');
      if (!run.includes("Nothing new")) throw new Error(`the import button says ${run}`);
      await ui.shot("import-dry-run-again");
      await ui.click('[data-testid="import-close"]');
    },
  ],
  [
    "the Runtime panel shows the install's configuration: the YAML's backend, its source and the registry",
    async (ui) => {
      await ui.goto("#/settings");
      await ui.waitVisible('[data-testid="runtime-install"]');
      const row = '[data-testid="runtime-value-memory.backend"]';
      const value = await ui.text(`${row} [data-testid="value"]`);
      if (value.trim() !== "markdown") throw new Error(`the panel says the backend is ${value}`);
      const source = await ui.text(`${row} [data-testid="source"]`);
      if (!source.includes("config/application.yml")) throw new Error(`the backend's source is ${source}`);
      await ui.waitVisible('[data-testid="runtime-provider-openai"]');
      const running = await ui.text('[data-testid="runtime-running"]');
      if (!/not running/i.test(running)) throw new Error(`the panel says ${running}`);
      await ui.shot("runtime-panel");
      await ui.goto("#/dashboard");
      await ui.waitVisible('[data-testid="runtime-panel"] [data-testid="runtime-install"]');
    },
  ],
  [
    "an agent the runtime would not load says why, in the list and on its page",
    async (ui, fx) => {
      const dir = join(fx.root1, "agents", "no-provider");
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, "AGENT.md"), "---\nname: no-provider\ndescription: has no provider section\n---\nAn agent without a provider.\n");
      try {
        await ui.goto("#/agents");
        const badge = '[data-testid="agent-not-loaded-no-provider"]';
        await ui.waitVisible(badge);
        const [why] = await ui.attrs(badge, "title");
        if (!/provider/i.test(why ?? "")) throw new Error(`the badge's reason is ${why}`);
        await ui.goto("#/agents/no-provider/overview");
        await ui.waitVisible('[data-testid="overview-not-loaded"]');
        const banner = await ui.text('[data-testid="overview-not-loaded"]');
        if (!/provider/i.test(banner)) throw new Error(`the overview says ${banner}`);
        await ui.shot("agent-not-loaded");
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
      await ui.goto("#/agents");
      await waitFor("the folder's row gone", async () => (await ui.count('[data-testid="agent-row-no-provider"]')) === 0);
    },
  ],
  [
    "switches the backend to sqlite, copying the missing memories first",
    async (ui, fx) => {
      // A runtime that is running (as bin/start.sh leaves it: a java process naming the oryxos
      // jar, its pid in bin/oryxos.pid): the switch applies at its next start, and the console says so.
      const runtime = spawn("perl", ["-e", "sleep 900", "--", "-jar", "oryxos-boot-e2e.jar", "serve", "--port", "18080"], { argv0: "java", stdio: "ignore" });
      const pidFile = join(fx.install1, "bin", "oryxos.pid");
      writeFileSync(pidFile, `${runtime.pid}\n`);
      try {
        await ui.click('[data-testid="nav-settings"]');
        await waitFor("the running runtime", async () => /18080/.test(await ui.text('[data-testid="runtime-running"]')));
        await ui.click('[data-testid="settings-backend-sqlite"]');
        await ui.click('[data-testid="settings-save"]');
        await ui.waitVisible('[data-testid="migrate-dialog"]');
        await ui.waitVisible('[data-testid="migrate-row-assistant"]');
        await ui.shot("migrate-dry-run");
        await ui.click('[data-testid="migrate-copy"]');
        await ui.waitVisible('[data-testid="migrate-verified"]', 60000);
        await ui.waitVisible('[data-testid="migrate-runtime-change"]', 30000);
        const [restart] = await ui.attrs('[data-testid="migrate-runtime-change"]', "data-restart");
        if (restart !== "true") throw new Error("the switch did not ask for a restart of the running runtime");
        await ui.shot("migrate-verified");
        await ui.waitVisible('[data-testid="settings-saved"]', 30000);
        const yml = readFileSync(join(fx.install1, "config", "application.yml"), "utf8");
        if (!/^ {2}backend: sqlite {2,}#/m.test(yml)) throw new Error(`config/application.yml does not say backend: sqlite (its comment kept):\n${yml}`);
        await ui.click('[data-testid="migrate-done"]');
        await ui.waitVisible('[data-testid="runtime-pending"]');
        const pending = await ui.text('[data-testid="runtime-pending"]');
        if (!pending.includes("memory.backend")) throw new Error(`the Runtime panel's pending list says ${pending}`);
        await ui.shot("runtime-restart");
      } finally {
        runtime.kill();
        rmSync(pidFile, { force: true });
      }
      await ui.goto("#/agents/assistant");
      await ui.waitVisible('[data-testid="archival-table"]');
      // The list opens at the cut line; search brings the sqlite-only rows into view.
      await ui.fill('[data-testid="memory-search"]', "[sqlite]");
      await waitFor("sqlite memory", async () => (await ui.text('[data-testid="archival-table"]')).includes("[sqlite]"));
      const badge = await ui.text('[data-testid="backend-badge"]');
      if (!/sqlite/i.test(badge)) throw new Error(`backend badge says ${badge}`);
      // The entry added on the markdown backend earlier was copied over.
      await ui.fill('[data-testid="memory-search"]', unique);
      await waitFor("the copied entry", async () => (await ui.text('[data-testid="archival-table"]')).includes(unique));
      const core = await ui.text('[data-testid="core-table"]');
      if (!core.includes("用户偏好简洁的回复，不用列表。")) throw new Error("core entries were not copied");
    },
  ],
  [
    "switches the root and sees the other root's agents",
    async (ui, fx) => {
      await ui.click('[data-testid="nav-settings"]');
      await ui.click('[data-testid="settings-backend-markdown"]');
      await ui.click('[data-testid="settings-save"]');
      // Back to markdown without copying the sqlite-only rows (after the warning).
      await ui.click('[data-testid="migrate-skip"]');
      await ui.waitVisible('[data-testid="settings-saved"]');
      // The runtime's configuration follows (no runtime running now: no restart to ask for).
      await ui.waitVisible('[data-testid="migrate-runtime-change"]');
      const yml = readFileSync(join(fx.install1, "config", "application.yml"), "utf8");
      if (!/^ {2}backend: markdown {2,}#/m.test(yml)) throw new Error(`config/application.yml does not say backend: markdown:\n${yml}`);
      await ui.click('[data-testid="migrate-done"]');
      await ui.fill('[data-testid="settings-root"]', fx.root2);
      await ui.click('[data-testid="settings-inspect"]').catch(() => {});
      await ui.click('[data-testid="settings-save"]');
      await ui.waitVisible('[data-testid="settings-saved"]');
      await ui.click('[data-testid="nav-agents"]');
      await ui.waitVisible('[data-testid="agent-row-helper"]');
      await ui.waitVisible('[data-testid="agent-row-legacy"]');
      if (await ui.count('[data-testid="agent-row-assistant"]')) throw new Error("the old root's agents are still listed");
      const root = await ui.text('[data-testid="root-label"]');
      if (!root.includes("root2")) throw new Error(`root label says ${root}`);
    },
  ],
  [
    "imports the exported assistant into the other root: every entry arrives, MEMORY.md byte for byte",
    async (ui, fx) => {
      if (!exported) throw new Error("the export flow left no archive");
      const count = async (css) => Number((await ui.text(css)).replace(/[^\d]/g, ""));
      await ui.goto("#/agents");
      await ui.click('[data-testid="agents-import"]');
      await ui.waitVisible('[data-testid="import-dialog"]');
      await ui.openArchive('[data-testid="import-choose"]', exported.file);
      const row = '[data-testid="import-owner-assistant"]';
      await ui.waitVisible(row, 60000);
      const fresh = await count(`${row} [data-testid="new"]`);
      if (fresh !== exported.core + exported.archival) throw new Error(`the dry run says ${fresh} new (archive: ${exported.core} + ${exported.archival})`);
      await ui.click('[data-testid="import-run"]');
      await ui.waitVisible('[data-testid="import-done"]', 60000);
      await ui.click('[data-testid="import-close"]');
      await ui.waitVisible('[data-testid="agent-row-assistant"]');
      await waitFor("the assistant's MEMORY.md in the other root", () => {
        try {
          return memoryFile(fx.root2, "assistant") === exported.text;
        } catch {
          return false;
        }
      });
    },
  ],
];

/** The archive the export flow saved, for the import into the other root. */
let exported = null;

/** Runs every flow in order (the shared ones unless `list` is given); a failing flow is recorded
 * with a screenshot and the next one runs. */
export async function runFlows(ui, fx, list = flows) {
  const results = [];
  // E2E_FLOWS=<text>: only the flows whose name contains it (one flow while working on it).
  const only = process.env.E2E_FLOWS;
  for (const [name, fn] of list) {
    if (only && !name.includes(only)) continue;
    try {
      await fn(ui, fx, { memoryFile });
      results.push({ name, ok: true });
    } catch (e) {
      results.push({ name, ok: false, error: e.message });
      await ui.shot(`FAILED-${name.replace(/\W+/g, "_")}`).catch(() => {});
    }
  }
  return results;
}
