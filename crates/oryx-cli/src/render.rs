//! Text and JSON output. Text is for people; `--json` prints the DTO exactly as the API returns it.

// Output goes through these instead of std's macros, which panic when the reading end of a pipe
// has gone (`oryx sessions | head`). Textual macros shadow the prelude's in this module.
macro_rules! println {
    () => {
        out(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        out(format_args!("{}\n", format_args!($($arg)*)))
    };
}

macro_rules! print {
    ($($arg:tt)*) => {
        out(format_args!($($arg)*))
    };
}

/// Writes to stdout; a closed pipe means nobody reads the rest: stop quietly with success.
fn out(args: std::fmt::Arguments) {
    use std::io::Write;
    if let Err(e) = std::io::stdout().lock().write_fmt(args) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        let _ = writeln!(std::io::stderr(), "error[io]: cannot write the output: {e}");
        std::process::exit(1);
    }
}

use oryx_api::curation::{ChangeDto, ChangeOp, HistoryDto, ReviewDto};
use oryx_api::dto::*;
use oryx_api::run::{FootprintResult, ToolRunResult};
use serde::Serialize;
use std::io::IsTerminal;

fn print_json<T: Serialize>(v: &T) {
    println!(
        "{}",
        serde_json::to_string_pretty(v).expect("DTOs serialise")
    );
}

fn or_dash(s: &Option<String>) -> &str {
    s.as_deref().unwrap_or("-")
}

pub fn agents(list: &AgentList, json: bool) {
    if json {
        return print_json(list);
    }
    println!("root {}  backend {}", list.root, backend_name(list.backend));
    println!(
        "{:<20} {:>5} {:>8} {:<22} {:<19} description",
        "NAME", "CORE", "ARCHIVAL", "MODEL", "LAST ACTIVE"
    );
    for a in &list.agents {
        println!(
            "{:<20} {:>5} {:>8} {:<22} {:<19} {}",
            a.name,
            a.memory.core,
            a.memory.archival,
            or_dash(&a.model),
            or_dash(&a.last_activity),
            or_dash(&a.description)
        );
        if let Some(m) = &a.runtime.message {
            println!("  ! not loaded by the runtime: {m}");
        }
        for w in &a.warnings {
            println!("  ! {w}");
        }
        if let Some(e) = &a.memory.error {
            println!("  ! memory: {e}");
        }
    }
    println!(
        "{:<20} {:>5} {:>8}  (global memory)",
        "(global)", list.global_memory.core, list.global_memory.archival
    );
}

/// What the runtime does with an agent folder, when it is not simply "loads it".
fn runtime_line(r: &oryx_api::dto::RuntimeLoadDto) -> Option<String> {
    match (&r.message, r.provider_checked) {
        (Some(m), _) => Some(format!("not loaded by the runtime: {m}")),
        (None, false) => Some(
            "the runtime has no provider registry yet: whether it knows this provider is not checked"
                .into(),
        ),
        (None, true) => None,
    }
}

pub fn agent(a: &AgentDetail, json: bool) {
    if json {
        return print_json(a);
    }
    let s = &a.summary;
    println!("{}  ({})", s.name, a.dir);
    println!("description   {}", or_dash(&s.description));
    println!(
        "provider      {} / {}",
        or_dash(&s.provider),
        or_dash(&s.model)
    );
    println!(
        "runtime       {}",
        runtime_line(&s.runtime).unwrap_or_else(|| "loads this agent".into())
    );
    println!("tools         {}", s.tools.join(", "));
    println!("bootstrap     {}", a.bootstrap.join(", "));
    println!("history turns {}", a.max_history_turns);
    println!(
        "memory        {} core, {} archival",
        s.memory.core, s.memory.archival
    );
    for sk in &a.skills {
        println!("skill         {} — {}", sk.name, or_dash(&sk.description));
    }
    for w in &s.warnings {
        println!("warning       {w}");
    }
    if !a.body.trim().is_empty() {
        println!("\n{}", a.body.trim_end());
    }
}

pub fn memory(v: &MemoryViewDto, json: bool) {
    if json {
        return print_json(v);
    }
    println!(
        "{} — {} ({})",
        v.agent.as_deref().unwrap_or("global memory"),
        backend_name(v.backend),
        v.source
    );
    println!("\ncore ({})", v.core.len());
    for e in &v.core {
        println!(
            "  {}  {}  {}",
            e.id.as_deref().unwrap_or("-"),
            or_dash(&e.timestamp),
            e.content
        );
    }
    let w = &v.window;
    if let Some(why) = &v.paged_reason {
        println!("\nnote: {why}");
    }
    println!(
        "\narchival ({}; window {} chars: {} in, {} entries / {} characters outside)",
        w.in_window_entries + w.outside_entries,
        w.limit_chars,
        w.in_window_entries,
        w.outside_entries,
        w.outside_chars
    );
    for (i, e) in v.archival.iter().enumerate() {
        // A paged view lists only the window (its first entry is not at `first_in_window`).
        if v.paged_reason.is_none() && i as u32 == w.first_in_window && w.outside_entries > 0 {
            println!("  ---- prompt window starts here ----");
        }
        let mark = if e.in_window { ' ' } else { '·' };
        println!("{mark} {}  {}  {}", e.id, or_dash(&e.timestamp), e.content);
    }
}

fn snap(s: &oryx_api::curation::SnapDto) -> String {
    let scope = match s.scope {
        ScopeDto::Core => "core",
        ScopeDto::Archival => "archival",
    };
    format!("[{scope}] {}  {}", s.id, s.line)
}

fn change_lines(c: &ChangeDto) {
    for d in &c.entries {
        match (&d.before, &d.after) {
            (Some(b), Some(a)) => {
                println!("    - {}", snap(b));
                println!("    + {}", snap(a));
            }
            (Some(b), None) => println!("    - {}", snap(b)),
            (None, Some(a)) => println!("    + {}", snap(a)),
            (None, None) => {}
        }
    }
}

fn op_name(op: ChangeOp) -> &'static str {
    match op {
        ChangeOp::Edit => "edit",
        ChangeOp::Delete => "delete",
        ChangeOp::Move => "move",
        ChangeOp::Restore => "restore",
        ChangeOp::Undo => "undo",
        ChangeOp::Redo => "redo",
        ChangeOp::Summarize => "summarize",
        ChangeOp::AutoSummary => "auto summary",
        ChangeOp::Append => "added (not by the console's curation)",
    }
}

pub fn change(c: &ChangeDto, json: bool) {
    if json {
        return print_json(c);
    }
    let n = c.entries.len();
    println!(
        "{} {}: {n} {} (change {})",
        op_name(c.op),
        c.agent.as_deref().unwrap_or("global memory"),
        if n == 1 { "entry" } else { "entries" },
        c.id
    );
    change_lines(c);
}

pub fn history(h: &HistoryDto, json: bool) {
    if json {
        return print_json(h);
    }
    if h.changes.is_empty() {
        println!("no changes made by the console yet");
        return;
    }
    for c in &h.changes {
        let mut notes = Vec::new();
        if c.undone {
            notes.push("undone".to_string());
        }
        if let Some(at) = &c.forgotten {
            notes.push(format!("forgotten {at}: no text kept, cannot be undone"));
        }
        if let Some(r) = &c.reverts {
            notes.push(format!("takes back {r}"));
        }
        let notes = match notes.is_empty() {
            true => String::new(),
            false => format!("  ({})", notes.join(", ")),
        };
        println!("{}  {}  {}{notes}", c.id, c.at, op_name(c.op));
        change_lines(c);
    }
    if h.total as usize > h.changes.len() {
        println!(
            "… {} older changes (--limit)",
            h.total as usize - h.changes.len()
        );
    }
}

pub fn superseded(d: &oryx_api::superseded::SupersededDto, json: bool) {
    if json {
        return print_json(d);
    }
    if d.pairs.is_empty() {
        println!("no superseded facts");
    }
    for p in &d.pairs {
        println!("[{}] score {:.2}", p.reason, p.score);
        println!(
            "    older {} {}  {}",
            p.older.id,
            or_dash(&p.older.timestamp),
            p.older.content
        );
        println!(
            "    newer {} {}  {}",
            p.newer.id,
            or_dash(&p.newer.timestamp),
            p.newer.content
        );
    }
    if d.kept > 0 {
        println!("({} kept both)", d.kept);
    }
}

pub fn resolved(r: &oryx_api::superseded::ResolvedDto, json: bool) {
    if json {
        return print_json(r);
    }
    match &r.change {
        Some(c) => change(c, false),
        None => println!("kept both"),
    }
}

pub fn health(h: &oryx_api::health::HealthDto, json: bool) {
    if json {
        return print_json(h);
    }
    if h.findings.is_empty() {
        println!("no findings");
    }
    for f in &h.findings {
        println!("[{}] {}: {}", f.check, f.entry_ids.join(" "), f.reason);
        if let Some(fix) = &f.fix {
            match &fix.content {
                Some(c) => println!("    fix: edit {} to {c:?}", fix.ids.join(" ")),
                None => println!("    fix: {} {}", fix.op, fix.ids.join(" ")),
            }
        }
    }
    if h.dismissed > 0 {
        println!("({} dismissed)", h.dismissed);
    }
    for hint in &h.hints {
        println!("hint [{}]: {}", hint.kind, hint.reason);
    }
    if let Some(b) = &h.budget {
        println!(
            "budget: prompt {} chars, core {} ({:.0}%), {} core entries added in 30 days, window reaches back {}",
            b.prompt_chars,
            b.core_chars,
            b.core_share * 100.0,
            b.core_added_30d,
            b.window_reach_days
                .map_or("-".to_string(), |d| format!("{d} days"))
        );
    }
}

pub fn stats(s: &oryx_api::health::MemoryStatsDto, json: bool) {
    if json {
        return print_json(s);
    }
    println!("DAY         CORE ARCHIVAL");
    for d in &s.days {
        println!("{}  {:>4} {:>8}", d.day, d.core, d.archival);
    }
    if s.undated > 0 {
        println!("(without a time: {})", s.undated);
    }
    println!(
        "window: {} entries in, {} outside; reaches back {}",
        s.in_window,
        s.outside_window,
        s.window_reach_days
            .map_or("-".to_string(), |d| format!("{d} days"))
    );
}

pub fn summary(p: &oryx_api::curation::SummaryProposalDto, json: bool) {
    if json {
        return print_json(p);
    }
    println!(
        "{} entries outside the window ({} to {}): {} characters become {} ({} saved)",
        p.covered.len(),
        p.from.as_deref().unwrap_or("-"),
        p.to.as_deref().unwrap_or("-"),
        p.chars_before,
        p.chars_after,
        p.chars_before.saturating_sub(p.chars_after)
    );
    println!("{}", p.content);
}

pub fn review(r: &ReviewDto, json: bool) {
    if json {
        return print_json(r);
    }
    match &r.reviewed_at {
        Some(at) => println!(
            "{} unreviewed {} since {at}",
            r.unreviewed,
            if r.unreviewed == 1 {
                "entry"
            } else {
                "entries"
            }
        ),
        None => println!(
            "never reviewed: all {} entries are unreviewed (--mark marks them reviewed)",
            r.unreviewed
        ),
    }
    for id in &r.ids {
        println!("  {id}");
    }
}

pub fn archived(list: &[oryx_api::agent_admin::ArchivedDto], json: bool) {
    if json {
        return print_json(&list);
    }
    if list.is_empty() {
        println!("no archived agents");
    }
    for a in list {
        let at = match a.archived_at.as_str() {
            "" => "-",
            t => t,
        };
        println!("{:<40} {:<24} archived {at}", a.archived_name, a.name);
    }
}

pub fn archived_one(a: &oryx_api::agent_admin::ArchivedDto, json: bool) {
    if json {
        return print_json(a);
    }
    println!(
        "archived {} as archive/{} (oryx agent restore {} brings it back)",
        a.name, a.archived_name, a.archived_name
    );
}

pub fn agent_file(f: &oryx_api::agent_admin::AgentFileDto, json: bool) {
    if json {
        return print_json(f);
    }
    print!("{}", f.text);
    for e in &f.errors {
        eprintln!("warning: {}: {}", e.key, e.message);
    }
}

pub fn skills(a: &AgentDetail, json: bool) {
    if json {
        return print_json(&a.skills);
    }
    if a.skills.is_empty() {
        println!("{} has no skills", a.summary.name);
    }
    for s in &a.skills {
        println!("{}  {}", s.name, or_dash(&s.description));
    }
}

pub fn file(f: &BootstrapFileDto, json: bool) {
    if json {
        return print_json(f);
    }
    if !f.exists {
        eprintln!("{} does not exist", f.name);
        return;
    }
    print!("{}", f.content);
}

pub fn context(text: &str, json: bool) {
    if json {
        return print_json(&text);
    }
    // Exactly the block; a newline only for people at a terminal.
    print!("{text}");
    if std::io::stdout().is_terminal() {
        println!();
    }
}

pub fn appended(r: &AppendResult, json: bool) {
    if json {
        return print_json(r);
    }
    println!("{}", r.entry.line);
}

pub fn recall(r: &RecallResult, json: bool) {
    if json {
        return print_json(r);
    }
    println!("{}", r.text);
}

/// The agent's recall: its text, or with --json each result's place in every route.
pub fn agent_recall(r: &oryx_api::agent_recall::AgentRecallDto, json: bool) {
    if !json {
        println!("{}", r.text);
        if let Some(why) = &r.degraded {
            eprintln!("semantic recall unavailable: {why}");
        }
        return;
    }
    let item = |x: &oryx_api::agent_recall::AgentRecalledDto| {
        serde_json::json!({
            "id": x.id,
            "content": x.content,
            "timestamp": x.timestamp,
            "score": x.score,
            "routes": {
                "semantic": x.routes.semantic.map(|s| serde_json::json!({"rank": s.rank, "score": s.score})),
                "keyword": x.routes.keyword.map(|k| serde_json::json!({"rank": k.rank, "hits": k.hits})),
                "recency": x.routes.recency.map(|k| serde_json::json!({"rank": k.rank})),
            },
            "contributions": x.routes.contributions,
        })
    };
    print_json(&serde_json::json!({
        "mode": "runtime",
        "engine": r.engine,
        "degraded": r.degraded.is_some(),
        "degradedReason": r.degraded,
        "text": r.text,
        "settings": r.settings,
        "embedding": r.embedding,
        "results": r.results.iter().map(item).collect::<Vec<_>>(),
        "nearMisses": r.near_misses.iter().map(item).collect::<Vec<_>>(),
    }));
}

pub fn index_status(s: &IndexStatusDto, json: bool) {
    if json {
        return print_json(s);
    }
    let mb = s.model.size_bytes as f64 / 1e6;
    println!(
        "recall: {} (floor {:.2})",
        serde_json::to_value(s.mode)
            .unwrap_or_default()
            .as_str()
            .unwrap_or(""),
        s.floor
    );
    println!(
        "model: {} — {} ({mb:.1} MB{})",
        s.model.name,
        s.model.dir,
        if s.model.present {
            ""
        } else {
            ", MISSING: run `make model`"
        }
    );
    if s.native_search {
        println!("mem0 ranks with its own search: no console index");
        return;
    }
    println!("index: {}", s.store_path);
    for o in &s.owners {
        let who = o.agent.as_deref().unwrap_or("(global)");
        match &o.error {
            Some(e) => println!("  {who:24} error: {e}"),
            None => println!(
                "  {who:24} {}/{} indexed{}",
                o.indexed,
                o.entries,
                if o.orphaned > 0 {
                    format!(", {} stale vectors", o.orphaned)
                } else {
                    String::new()
                }
            ),
        }
    }
    if let Some(j) = &s.job {
        if j.running {
            println!("building: {}/{} owners", j.owners_done, j.owners_total);
        }
    }
    if let Some(r) = &s.runtime {
        runtime_index(r);
    }
}

fn runtime_index(r: &oryx_api::runtime_index::RuntimeIndexDto) {
    use oryx_api::runtime_index::RuntimeIndexState;
    match r.state {
        RuntimeIndexState::Off => {
            println!("runtime index: off (no embedding.provider: keyword recall)")
        }
        RuntimeIndexState::Broken => println!(
            "runtime index: broken ({}): the runtime writes no row",
            r.reason.as_deref().unwrap_or("?")
        ),
        RuntimeIndexState::NoTable => {
            println!("runtime index: its database has no memory_vectors table")
        }
        RuntimeIndexState::Ready => {
            println!("runtime index: {}", r.model.as_deref().unwrap_or_default())
        }
    }
    for a in &r.agents {
        println!(
            "  {:24} {} indexed, {} missing, {} orphans, {} of another model",
            a.agent, a.indexed, a.missing, a.orphans, a.other_model
        );
    }
    println!(
        "  at its next start the runtime drops {} rows and embeds {} entries",
        r.next_start_drops, r.next_start_embeds
    );
}

pub fn episodic(r: &EpisodicResultDto, json: bool) {
    if json {
        return print_json(r);
    }
    if r.results.is_empty() {
        println!(
            "no past message of {} is close to {:?} (floor {:.2})",
            r.agent, r.query, r.floor
        );
    }
    for h in &r.results {
        println!(
            "{:.2}  {}  {} #{} {}: {}",
            h.score,
            h.time.as_deref().unwrap_or("?"),
            h.session_id,
            h.message_index,
            h.role,
            h.text
        );
    }
}

pub fn index_job(j: &IndexJobDto, json: bool) {
    if json {
        return print_json(j);
    }
    if j.cancelled {
        println!(
            "cancelled: {} entries embedded before the stop (kept)",
            j.embedded_total
        );
    } else if let Some(e) = &j.error {
        println!("failed after {} entries: {e}", j.embedded_total);
    } else {
        println!(
            "indexed {} owners: {} entries embedded",
            j.owners_total, j.embedded_total
        );
    }
}

pub fn runtime_fill(f: &oryx_api::runtime_index::RuntimeFillDto, json: bool) {
    if json {
        return print_json(f);
    }
    if f.dry_run {
        println!(
            "the runtime's index: {} rows to drop, {} entries to embed (nothing changed)",
            f.to_drop, f.to_embed
        );
    } else if f.cancelled {
        println!(
            "cancelled: {} rows dropped, {} entries embedded before the stop (kept)",
            f.dropped, f.embedded
        );
    } else if let Some(e) = &f.error {
        println!("failed after {} entries: {e}", f.embedded);
    } else {
        println!(
            "the runtime's index: {} rows dropped, {} entries embedded",
            f.dropped, f.embedded
        );
    }
    if let Some(w) = &f.warning {
        eprintln!("warning: {w}");
    }
}

pub fn sessions(p: &SessionPageDto, json: bool) {
    if json {
        return print_json(p);
    }
    if !p.db_exists {
        println!("no database at {}", p.db_path);
        return;
    }
    println!(
        "{} sessions (showing {}–{})",
        p.total,
        p.offset + 1.min(p.items.len() as u32),
        p.offset + p.items.len() as u32
    );
    println!(
        "{:<36} {:<14} {:<8} {:<9} {:>5} LAST ACTIVE",
        "SESSION", "AGENT", "CHANNEL", "STATUS", "MSGS"
    );
    for s in &p.items {
        let count = s.message_count.map_or("!".to_string(), |c| c.to_string());
        println!(
            "{:<36} {:<14} {:<8} {:<9} {:>5} {}",
            s.session_id,
            or_dash(&s.agent),
            or_dash(&s.channel),
            s.status,
            count,
            or_dash(&s.last_active_at)
        );
        if let Some(m) = &s.message_match {
            println!("  #{} {}: {}", m.index, m.role, m.snippet);
        }
        if let Some(e) = &s.error {
            println!("  ! {e}");
        }
    }
}

pub fn session(s: &SessionDto, calls: &[ToolInvocationDto], json: bool) {
    if json {
        #[derive(Serialize)]
        struct Out<'a> {
            session: &'a SessionDto,
            tool_invocations: &'a [ToolInvocationDto],
        }
        return print_json(&Out {
            session: s,
            tool_invocations: calls,
        });
    }
    let m = &s.summary;
    println!(
        "{}  agent {}  channel {}  {}  {} turns",
        m.session_id,
        or_dash(&m.agent),
        or_dash(&m.channel),
        m.status,
        s.turns
    );
    if let Some(e) = &m.error {
        println!("! {e}");
    }
    for msg in &s.messages {
        let who = match (&*msg.role, &msg.tool_name) {
            ("tool", Some(t)) => format!("tool {t}"),
            (r, _) => r.to_string(),
        };
        println!("\n[{who}] {}", msg.content.as_deref().unwrap_or(""));
        for c in &msg.tool_calls {
            println!(
                "  → {}({})",
                c.name,
                c.arguments_json.as_deref().unwrap_or("")
            );
        }
    }
    if !calls.is_empty() {
        println!("\ntool invocations");
        for c in calls {
            println!(
                "  {} {:<14} {:<5} {:>4} ms  {} → {}",
                or_dash(&c.created_at),
                c.tool_name,
                if c.success { "ok" } else { "FAIL" },
                c.duration_ms.unwrap_or(0),
                or_dash(&c.input_json),
                or_dash(&c.result_json)
            );
        }
    }
}

pub fn prompt(p: &PromptDto, json: bool) {
    if json {
        return print_json(p);
    }
    if let Some(at) = &p.asof {
        println!("prompt as built at {at}");
        if let Some(note) = &p.asof_note {
            println!("({note})");
        }
        println!();
    }
    for part in &p.parts {
        let name = match part.kind {
            PartKindDto::System => "system prompt",
            PartKindDto::Memory => "memory",
            PartKindDto::History => "conversation history",
            PartKindDto::Tools => "available tools",
        };
        println!(
            "===== [{}] {name} — {} chars, ~{} tokens =====",
            part.index, part.chars, part.tokens_estimate
        );
        println!("{}\n", part.text);
    }
    println!(
        "total {} chars, ~{} tokens",
        p.total_chars, p.total_tokens_estimate
    );
    for t in &p.tools {
        match t.offer {
            ToolOfferDto::Builtin => {}
            ToolOfferDto::IfMcpProvides => println!(
                "tool {}: offered only while a connected MCP server provides it (the runtime's live state; the console cannot see it)",
                t.name
            ),
            ToolOfferDto::Dropped => println!(
                "tool {}: not a runtime tool and no MCP server is configured; the runtime drops it",
                t.name
            ),
        }
    }
    for b in &p.skipped_bindings {
        println!("{} {} is not in the prompt: {}", b.kind, b.name, b.reason);
    }
    if let Some(ep) = &p.episodic {
        match &ep.query {
            Some(q) => {
                println!(
                    "\n===== the console's episodic suggestion (not sent by the runtime) — {} of at most {} fragments for {q:?}, budget {} chars =====",
                    ep.hits.len(),
                    ep.top_k,
                    ep.budget_chars
                );
                if !ep.text.is_empty() {
                    println!("{}", ep.text);
                }
            }
            None => println!(
                "episodic memory is on, but there is no message to match: give --session or --query"
            ),
        }
    }
    for w in &p.warnings {
        println!("warning: {w}");
    }
}

pub fn tool(r: &ToolRunResult, json: bool) {
    if json {
        return print_json(r);
    }
    println!("{}", r.output);
}

pub fn footprint(r: &FootprintResult, json: bool) {
    if json {
        return print_json(r);
    }
    match &r.entry {
        Some(e) => println!("{}", e.line),
        None => println!("footprints are switched off in settings; nothing written"),
    }
}

pub fn settings(v: &SettingsView, json: bool) {
    if json {
        return print_json(v);
    }
    let e = &v.effective;
    println!("settings file  {}", e.settings_path);
    println!("root           {}", e.root);
    println!("database       {}", e.db_path);
    println!("backend        {}", backend_name(e.backend));
    println!("archival limit {} chars", v.settings.archival_limit_chars);
    println!(
        "footprint      {}",
        if v.settings.footprint_enabled {
            "on"
        } else {
            "off"
        }
    );
    if !e.overridden_by.is_empty() {
        println!("overridden by  {}", e.overridden_by.join(", "));
    }
}

/// `install`: the install dir the sample root is in (`None`: a bare root).
pub fn demo(i: &RootInspection, install: Option<&str>, json: bool) {
    if json {
        return print_json(i);
    }
    match install {
        Some(dir) => {
            println!("sample install written to {dir}");
            println!("root: {}", i.path);
        }
        None => println!("sample root written to {}", i.path),
    }
    println!("agents: {}", i.agents.join(", "));
    println!("database: {}", i.db_path);
    println!("try: oryx --root {} agents", install.unwrap_or(&i.path));
}

pub fn runtime_info(r: &oryx_api::runtime::RuntimeInfo, json: bool) {
    if json {
        return print_json(r);
    }
    let source = |k: &str| r.sources.get(k).map(String::as_str).unwrap_or("default");
    match &r.install {
        Some(dir) => println!("install        {dir}"),
        None => println!("install        none (a bare .oryxos root)"),
    }
    println!("root           {}", r.root);
    if let Some(c) = &r.config {
        let state = if r.config_exists {
            ""
        } else {
            " (missing: the start script creates it from the example)"
        };
        println!("config         {c}{state}");
    }
    match &r.running {
        Some(p) => println!("running        pid {} on port {}", p.pid, p.port),
        None => println!("running        no"),
    }
    println!(
        "backend        {} ({})",
        r.backend,
        source("memory.backend")
    );
    if let Some(db) = &r.database {
        let state = if r.database_exists {
            ""
        } else {
            " (not created yet)"
        };
        println!("database       {db}{state}");
    }
    println!(
        "embedding      {} {} ({})",
        if r.embedding.provider.is_empty() {
            "none"
        } else {
            &r.embedding.provider
        },
        r.embedding.model,
        source("embedding.provider")
    );
    let n = |v: Option<f64>| v.map_or("?".to_string(), |v| v.to_string());
    println!(
        "recall         top-k {} weights semantic {} keyword {} recency {}",
        r.recall.top_k.map_or("?".to_string(), |k| k.to_string()),
        n(r.recall.weights.semantic),
        n(r.recall.weights.keyword),
        n(r.recall.weights.recency)
    );
    println!("mem0           {} user {}", r.mem0.base_url, r.mem0.user_id);
    println!("providers ({})", r.providers_from);
    for p in &r.providers {
        println!(
            "  {:<16} {} {}",
            p.name,
            p.base_url.as_deref().unwrap_or("-"),
            p.api_key
        );
    }
    for p in &r.pending {
        println!(
            "pending        {}: running {:?}, configured {:?} (restart the runtime to apply)",
            p.key, p.running, p.configured
        );
    }
    for w in &r.warnings {
        println!("warning        {w}");
    }
}

pub fn runtime_change(c: &oryx_api::runtime::RuntimeChange, json: bool) {
    if json {
        return print_json(c);
    }
    println!("{}", c.message);
}

pub fn local_embeddings(p: &oryx_api::local_embeddings::LocalEmbeddingsPlan, json: bool) {
    if json {
        return print_json(p);
    }
    if p.blocked.is_some() {
        println!("{}", p.message);
        return;
    }
    let head = if p.applied { "" } else { "(dry run) " };
    println!("{head}{}", p.message);
    let row = |r: &oryx_api::local_embeddings::ProviderRowDto| {
        format!(
            "name={} base_url={} api_key={}",
            r.name,
            r.base_url.as_deref().unwrap_or(""),
            r.api_key
        )
    };
    println!("providers row ({}):", p.row_action);
    if let Some(b) = &p.row_before {
        println!("  - {}", row(b));
    }
    println!(
        "  + {} (api key: {})",
        row(&p.row_after),
        match p.api_key_from.as_str() {
            "given" => "the server's token",
            "kept" => "the row's key, kept",
            _ => "a placeholder, not a secret",
        }
    );
    if let Some(f) = &p.config {
        println!("{f}:");
    }
    for l in &p.lines_before {
        println!("  - {l}");
    }
    for l in &p.lines_after {
        println!("  + {l}");
    }
    if p.lines_after.is_empty() && p.lines_before.is_empty() {
        println!("  (unchanged)");
    }
    println!(
        "memory_vectors rows of other models the runtime drops at its next start: {}",
        p.vectors_dropped
    );
    println!("server: {}", p.server.detail);
    for n in &p.notes {
        println!("note: {n}");
    }
}

fn backend_name(b: BackendDto) -> &'static str {
    match b {
        BackendDto::Markdown => "markdown",
        BackendDto::Sqlite => "sqlite",
        BackendDto::Mem0 => "mem0",
    }
}

pub fn migration(r: &oryx_api::migrate::MigrationReport, json: bool) {
    if json {
        return print_json(r);
    }
    let verb = if r.dry_run { "would copy" } else { "copied" };
    println!(
        "{} → {}{}",
        backend_name(r.from),
        backend_name(r.to),
        if r.dry_run {
            " (dry run: nothing written)"
        } else {
            ""
        }
    );
    println!(
        "{:<20} {:>6} {:>7} {:>7} {:>7}",
        "OWNER",
        "FOUND",
        verb.to_uppercase()
            .split(' ')
            .next_back()
            .unwrap_or("COPIED"),
        "SKIPPED",
        "FAILED"
    );
    for o in r.owners.iter().chain(std::iter::once(&r.total)) {
        println!(
            "{:<20} {:>6} {:>7} {:>7} {:>7}",
            o.owner, o.found, o.copied, o.skipped, o.failed
        );
        if let Some(e) = &o.error {
            println!("  ! {e}");
        }
    }
    if r.cancelled {
        println!("cancelled: entries copied so far stay copied; run again to finish");
    }
}

pub fn asof(a: &oryx_api::portable::AsOfDto, json: bool) {
    if json {
        return print_json(a);
    }
    println!("as of {} ({})", a.at, a.note);
    println!("## core ({})", a.core.len());
    for e in &a.core {
        println!("- [{}] {}", or_dash(&e.timestamp), e.content);
    }
    println!("## archival ({})", a.archival.len());
    for e in &a.archival {
        let mark = if e.in_window { " " } else { "·" };
        println!("{mark} [{}] {}", or_dash(&e.timestamp), e.content);
    }
}

pub fn origin(p: &oryx_api::provenance::ProvenanceDto, json: bool) {
    if json {
        return print_json(p);
    }
    print_origin(p, "");
}

fn print_origin(p: &oryx_api::provenance::ProvenanceDto, indent: &str) {
    use oryx_api::provenance::OriginDto;
    let how = if p.exact {
        ""
    } else {
        " (by text only: the nearest record in time)"
    };
    let at =
        p.at.as_deref()
            .map(|t| format!(" at {t}"))
            .unwrap_or_default();
    let place = match (&p.session_id, p.message_index) {
        (Some(s), Some(i)) => format!(" in session {s}, message {}", i + 1),
        (Some(s), None) => format!(" in session {s}"),
        _ => String::new(),
    };
    match p.origin {
        OriginDto::SaveMemory => println!("{indent}written by save_memory{place}{at}{how}"),
        OriginDto::Footprint => match &p.session_id {
            Some(_) => println!(
                "{indent}footprint of the turn \"{}\"{place}{how}",
                p.trigger.as_deref().unwrap_or_default()
            ),
            None => println!(
                "{indent}footprint of the turn \"{}\"; no session holds that message now",
                p.trigger.as_deref().unwrap_or_default()
            ),
        },
        OriginDto::Summary => println!("{indent}a summary the console wrote"),
        OriginDto::Console => {
            println!(
                "{indent}{} in the console{at} (change {})",
                p.change_op.as_deref().unwrap_or("changed"),
                p.change_id.as_deref().unwrap_or("?")
            );
            if let Some(e) = &p.earlier {
                print!("{indent}  before that: ");
                print_origin(e, "");
            }
        }
        OriginDto::Unknown => println!(
            "{indent}nothing on record: written by hand, imported, added in the console, or its session is gone"
        ),
    }
}

pub fn diff(d: &oryx_api::portable::MemoryDiffDto, json: bool) {
    if json {
        return print_json(d);
    }
    println!(
        "{} → {}: {} added, {} removed, {} changed",
        d.from,
        d.to,
        d.added.len(),
        d.removed.len(),
        d.changed.len()
    );
    for e in &d.added {
        println!("+ {} [{}] {}", e.scope, or_dash(&e.timestamp), e.content);
    }
    for e in &d.removed {
        println!("- {} [{}] {}", e.scope, or_dash(&e.timestamp), e.content);
    }
    for c in &d.changed {
        println!(
            "~ {} [{}] {}",
            c.before.scope,
            or_dash(&c.before.timestamp),
            c.before.content
        );
        println!("  → {} {}", c.after.scope, c.after.content);
    }
}

pub fn export(r: &oryx_api::portable::ExportReport, json: bool) {
    if json {
        return print_json(r);
    }
    let entries: usize = r.owners.iter().map(|o| o.core + o.archival).sum();
    println!(
        "wrote {} ({} bytes): {} owners, {entries} entries, {} files, {} sessions, {}",
        r.path,
        r.bytes,
        r.owners.len(),
        r.files,
        r.sessions,
        if r.history {
            "with the history of changes"
        } else {
            "without the history of changes (--with-history adds it)"
        }
    );
}

pub fn import(r: &oryx_api::portable::ImportReport, json: bool) {
    if json {
        return print_json(r);
    }
    let verb = if r.dry_run { "would add" } else { "added" };
    println!("OWNER                 IN ARCHIVE  NEW  PRESENT  CONFLICTING");
    for o in &r.owners {
        owner_import_row(o, 10);
    }
    let new: usize = r.owners.iter().map(|o| o.new).sum();
    println!(
        "{verb} {new} entries; files {}: {}",
        if r.dry_run { "to write" } else { "written" },
        r.files_written.len()
    );
    for f in &r.files_kept {
        println!("kept: {f}");
    }
    for u in &r.unknown {
        println!("not used: {u}");
    }
    if r.sessions_not_imported > 0 {
        println!(
            "{} session files not imported (the runtime owns its sessions)",
            r.sessions_not_imported
        );
    }
    if r.cancelled {
        println!("cancelled: what was added stays");
    }
}

pub fn import_foreign(r: &oryx_api::portable::ForeignReport, json: bool) {
    if json {
        return print_json(r);
    }
    let o = &r.owner;
    println!("OWNER                 IN FILE  NEW  PRESENT  CONFLICTING");
    owner_import_row(o, 7);
    println!(
        "{} {} entries from {}",
        if r.dry_run { "would add" } else { "added" },
        o.new,
        r.format
    );
    for s in &r.skipped {
        println!("skipped: {} ({})", s.name, s.count);
    }
    for u in &r.unknown_fields {
        println!("not imported: {} ({})", u.name, u.count);
    }
    if r.cancelled {
        println!("cancelled: what was added stays");
    }
}

/// One owner's line of an import's table; `width`: the first count's column.
fn owner_import_row(o: &oryx_api::portable::OwnerImport, width: usize) {
    println!(
        "{:<20}  {:>width$}  {:>3}  {:>7}  {:>11}{}",
        o.owner,
        o.in_archive,
        o.new,
        o.present,
        o.conflicting,
        o.error
            .as_ref()
            .map(|e| format!("  error: {e}"))
            .unwrap_or_default()
    );
}

/// A forget: its dry run by place, or what it erased and left, and its receipt. `--json` has the
/// shape `{found, erased, left, receipt}` (plus the rest of the answer).
pub fn forget(f: &oryx_api::forget::ForgetDto, json: bool) {
    if json {
        return print_json(f);
    }
    let line = |c: &oryx_api::forget::CopiesDto| {
        let detail = c
            .detail
            .as_deref()
            .map(|d| format!(" ({d})"))
            .unwrap_or_default();
        let own = if c.own > 0 {
            format!(" + {} written by the forget's own delete", c.own)
        } else {
            String::new()
        };
        println!("  {:<20} {:>6}  {}{detail}{own}", c.place, c.count, c.path);
    };
    if f.dry_run {
        if f.found.is_empty() && f.left.is_empty() {
            println!("{}: no copy found; nothing to forget", f.scope);
            return;
        }
        println!("{}: copies found", f.scope);
        f.found.iter().for_each(line);
        if !f.runtime_records.is_empty() {
            println!(
                "the runtime's records it changes: {}",
                f.runtime_records.join(", ")
            );
        }
    } else {
        println!(
            "{}: {} (receipt {})",
            f.scope,
            f.state.as_deref().unwrap_or("done"),
            f.receipt.as_deref().unwrap_or("-")
        );
        if !f.erased.is_empty() {
            println!("erased");
            f.erased.iter().for_each(line);
        }
    }
    if !f.left.is_empty() {
        println!(
            "{}",
            if f.dry_run {
                "beyond the console's reach"
            } else {
                "left"
            }
        );
        for l in &f.left {
            println!("  {:<20} {:>6}  {}: {}", l.place, l.count, l.path, l.reason);
        }
    }
    if f.dry_run {
        println!("a forget cannot be undone; run again without --dry-run to erase these copies");
    }
}

/// The proposed recall settings: the verdict, the settings now and proposed, each check before
/// and after, and what `--apply` wrote.
pub fn recall_proposal(
    p: &oryx_api::recall_proposal::RecallProposalDto,
    applied: &[oryx_api::runtime::RuntimeChange],
    json: bool,
) {
    use oryx_api::recall_proposal::ProposalVerdictDto as V;
    if json {
        return print_json(&serde_json::json!({ "proposal": p, "applied": applied }));
    }
    let show = |s: &oryx_api::agent_recall::RecallSettingsDto| {
        format!(
            "semantic {} / keyword {} / recency {}, top-k {}",
            s.semantic, s.keyword, s.recency, s.top_k
        )
    };
    println!("now:      {}", show(&p.current));
    match p.verdict {
        V::NoChecks => {
            println!("no recall checks to propose from; keep one with `oryx checks add`");
            return;
        }
        V::KeywordOnly => {
            println!(
                "the runtime has no embedding provider: recall_memory answers with its keyword \
                 search, which no weight moves"
            );
            return;
        }
        V::AllPass => println!(
            "the current settings answer every check ({}/{}); nothing to propose",
            p.passed_now,
            p.checks.len()
        ),
        V::NoneBetter => println!(
            "no settings of the {} tried answer more than the {}/{} checks answered now",
            p.tried,
            p.passed_now,
            p.checks.len()
        ),
        V::Better => {
            if let Some(s) = &p.proposed {
                println!("proposed: {}", show(s));
            }
            println!(
                "checks answered: {} -> {} of {} ({} settings tried)",
                p.passed_now,
                p.passed_proposed,
                p.checks.len(),
                p.tried
            );
        }
    }
    let place = |n: Option<u32>| n.map_or("-".to_string(), |n| n.to_string());
    for c in &p.checks {
        let mark = |b: bool| if b { "pass" } else { "fail" };
        println!(
            "  {:<4} -> {:<4}  needs top-k {} -> {}  {}",
            mark(c.passes_now),
            mark(c.passes_proposed),
            place(c.needed_now),
            place(c.needed_proposed),
            c.question
        );
    }
    if let Some(why) = &p.degraded {
        println!("the semantic route failed ({why}): ranked by keyword and recency only");
    }
    if applied.is_empty() {
        if p.verdict == V::Better {
            println!("nothing saved; `--apply` writes these into the runtime's configuration");
        }
    } else {
        for c in applied {
            println!("{}", c.message);
        }
        println!("one change: `oryx runtime undo` puts the previous values back");
    }
}

/// Recall checks: each with its outcome, and for a broken one the changes since it passed.
/// `--json`: `{checks: [{id, question, passed, found, expected, …}], passed, failed, …}`.
pub fn recall_checks(c: &oryx_api::recall_checks::RecallChecksDto, json: bool) {
    if json {
        return print_json(c);
    }
    if c.checks.is_empty() {
        println!("no recall checks; keep one with `oryx checks add --question Q --expect ID...`");
        return;
    }
    for k in &c.checks {
        let state = match (k.passed, k.broken) {
            (None, _) => "not run",
            (Some(true), _) => "pass",
            (Some(false), true) => "BROKEN",
            (Some(false), false) => "fail",
        };
        println!("{:<7} {}  {}", state, k.id, k.question);
        if !k.missing.is_empty() {
            let gone: Vec<&str> = k.gone.iter().map(String::as_str).collect();
            let missing: Vec<String> = k
                .missing
                .iter()
                .map(|m| {
                    if gone.contains(&m.as_str()) {
                        format!("{m} (no longer an entry)")
                    } else {
                        m.clone()
                    }
                })
                .collect();
            println!("        missing from the answer: {}", missing.join(", "));
        }
        if k.broken {
            match k.changes.first() {
                Some(ch) => println!(
                    "        broken since {} {} at {}{}",
                    ch.op,
                    ch.id,
                    ch.at,
                    if ch.undoable {
                        " (oryx memory undo takes it back)"
                    } else {
                        ""
                    }
                ),
                None => println!(
                    "        broken by entries appended since, or a change outside the console's \
                     history (the runtime's configuration or index)"
                ),
            }
        }
    }
    println!("{} passed, {} failed", c.passed, c.failed);
}

pub fn reads(r: &oryx_api::reads::EntryReadsDto, json: bool) {
    if json {
        return print_json(r);
    }
    println!(
        "{} sessions, {} prompts, {} recalls; {} of today's entries not read in {} days",
        r.sessions, r.prompts, r.recalls, r.unread, r.unread_days
    );
    if r.estimated_sessions > 0 {
        println!(
            "{} session(s) have no recorded model calls: their prompt times are estimated",
            r.estimated_sessions
        );
    }
    println!(
        "{:<16} {:>7} {:>7} {:<19} content",
        "ID", "PROMPTS", "RECALLS", "LAST READ"
    );
    for e in &r.entries {
        let mark = match (e.exists_now, e.unread) {
            (false, _) => " (earlier version)",
            (true, true) => " (unread)",
            _ => "",
        };
        println!(
            "{:<16} {:>7} {:>7} {:<19} {}{mark}",
            e.id,
            e.prompts,
            e.recalls,
            or_dash(&e.last_read),
            e.content.chars().take(60).collect::<String>()
        );
    }
}
