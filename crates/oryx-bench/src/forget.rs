//! The `forget` group: forgetting one text across an install — the big MEMORY.md and its
//! history, and a runtime database of tool invocations (100 000 at full scale) with their
//! sessions — as `oryx memory forget` runs it (`Console::forget_now`): the dry run and the forget
//! itself, each against one `grep -r -F -c` pass over the same files. After each forget no byte
//! of the text may remain in the install's files (database and WAL included) except where its
//! receipt says it was left: a forget that leaves one fails the bench instead of being timed.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use oryx_api::console::Console;
use oryx_api::curation::{EditArgs, EntryRef, SelectionArgs};
use oryx_api::dto::{AppendRequest, ScopeDto};
use oryx_api::forget::{ForgetArgs, ForgetDto};
use oryx_core::config::Overrides;
use oryx_core::memory::Scope;
use oryx_core::names::Owner;
use rusqlite::params;
use serde_json::json;

use crate::gen::{self, Rng};
use crate::{fmt_ms, human, mb, median, ms, round3, Bench};

/// A made-up API key: the text forgotten.
const SECRET: &str = "sk-live-7Qf3aZ9c2E81d4B6";
/// The agent whose memory is the big MEMORY.md.
const AGENT: &str = "big";
/// Tool calls per session (each with its four messages).
const CALLS_PER_SESSION: usize = 10;
/// Bump when the install's content changes, so an old template is rebuilt.
const TEMPLATE_VERSION: u32 = 1;

/// The live entry holding the secret, as the agent's `save_memory` call wrote it.
fn secret_entry() -> String {
    format!("部署密钥是 {SECRET}，只用于 staging")
}

fn owner() -> Owner {
    Owner::Agent(AGENT.into())
}

fn console(install: &Path, settings_dir: &Path) -> Console {
    Console::open(
        Some(settings_dir.join("settings.json")),
        Overrides {
            root: Some(install.to_path_buf()),
            ..Overrides::default()
        },
    )
    .unwrap()
}

/// `cp -a`: the sample's skills are symlinks, kept as they are.
fn copy_tree(from: &Path, to: &Path) {
    let ok = Command::new("cp")
        .arg("-a")
        .arg(from)
        .arg(to)
        .status()
        .unwrap();
    assert!(ok.success(), "cp -a {}", from.display());
}

/// Local time text of the runtime's MEMORY.md lines, `minutes` after a fixed start.
fn stamp(minutes: u64) -> String {
    let base = chrono::NaiveDate::from_ymd_opt(2025, 3, 1)
        .unwrap()
        .and_hms_opt(9, 0, 0)
        .unwrap();
    (base + chrono::Duration::minutes(minutes as i64))
        .format("%Y-%m-%d %H:%M:%S")
        .to_string()
}

/// One tool call of a session: what the model asked (`argumentsJson`, compact JSON as the
/// model sends it) and what the tool answered (the text; `result_json` holds it as the JSON
/// string Spring AI's converter makes of a `String` result).
struct Call {
    tool: &'static str,
    arguments: String,
    result: String,
    ask: String,
    reply: String,
}

fn call(rng: &mut Rng, i: usize) -> Call {
    if i.is_multiple_of(2) {
        let content = gen::archival_content(rng, i as u64);
        Call {
            tool: "save_memory",
            arguments: json!({"content": content, "scope": "archival"}).to_string(),
            result: "已记住".into(),
            ask: format!("记住：{content}"),
            reply: "好的，已记住。".into(),
        }
    } else {
        let keyword = [gen::RARE_ASCII, gen::RARE_CJK, gen::SHORT_CJK, "周报"][rng.below(4)];
        let lines: Vec<String> = (0..1 + rng.below(5))
            .map(|k| {
                format!(
                    "- [{}] {}",
                    stamp((i * 7 + k) as u64),
                    gen::archival_content(rng, (i + k) as u64)
                )
            })
            .collect();
        Call {
            tool: "recall_memory",
            arguments: json!({ "keyword": keyword }).to_string(),
            result: lines.join("\n"),
            ask: format!("之前关于{keyword}的记录有哪些？"),
            reply: format!("找到 {} 条相关记忆。", lines.len()),
        }
    }
}

/// The session where the person gave the agent its deploy key: saved, then recalled.
fn secret_calls() -> [Call; 2] {
    let line = format!("- [{}] {}", stamp(5), secret_entry());
    [
        Call {
            tool: "save_memory",
            arguments: json!({"content": secret_entry(), "scope": "archival"}).to_string(),
            result: "已记住".into(),
            ask: format!("记住我的部署密钥 {SECRET}，只在 staging 用"),
            reply: "好的，已记住。".into(),
        },
        Call {
            tool: "recall_memory",
            arguments: json!({"keyword": "部署密钥"}).to_string(),
            result: line,
            ask: "我的部署密钥是什么？".into(),
            reply: "在记忆里找到了一条。".into(),
        },
    ]
}

/// The runtime's rows: `calls` tool invocations of the big agent and their sessions (the
/// messages the runtime keeps: the ask, the assistant's tool call, the tool's answer, the reply),
/// one session holding the secret.
fn write_runtime_rows(db: &Path, calls: usize) {
    let mut conn = rusqlite::Connection::open(db).unwrap();
    let tx = conn.transaction().unwrap();
    let sessions = calls / CALLS_PER_SESSION;
    let t0: i64 = 1_740_000_000_000;
    {
        let mut inv = tx
            .prepare(
                "INSERT INTO tool_invocations(session_id, tool_name, input_json, result_json, \
                 success, error_message, duration_ms, created_at) VALUES (?1, ?2, ?3, ?4, 1, NULL, ?5, ?6)",
            )
            .unwrap();
        let mut ses = tx
            .prepare(
                "INSERT INTO sessions(session_id, profile_name, channel, user_id, messages_json, \
                 status, created_at, last_active_at, archived_at) \
                 VALUES (?1, ?2, 'web', ?3, ?4, ?5, ?6, ?7, ?8)",
            )
            .unwrap();
        let mut rng = Rng::new(23);
        let mut n = 0;
        for s in 0..sessions {
            let user = format!("u{s}");
            let id = format!("web:{user}:{AGENT}");
            let created = t0 + s as i64 * 600_000;
            let mut list: Vec<Call> = (0..CALLS_PER_SESSION)
                .map(|_| {
                    n += 1;
                    call(&mut rng, n)
                })
                .collect();
            if s == sessions / 2 {
                let [a, b] = secret_calls();
                list[3] = a;
                list[4] = b;
            }
            let mut messages = Vec::new();
            for (k, c) in list.iter().enumerate() {
                let call_id = format!("call_{s}_{k}");
                messages.push(json!({"role": "user", "content": c.ask}));
                messages.push(json!({"role": "assistant", "content": null, "toolCalls": [
                    {"id": call_id, "name": c.tool, "argumentsJson": c.arguments}]}));
                messages.push(
                    json!({"role": "tool", "content": c.result, "toolName": c.tool,
                    "toolCallId": call_id}),
                );
                messages.push(json!({"role": "assistant", "content": c.reply}));
                inv.execute(params![
                    id,
                    c.tool,
                    c.arguments,
                    serde_json::to_string(&c.result).unwrap(),
                    2 + rng.below(40) as i64,
                    created + k as i64 * 30_000
                ])
                .unwrap();
            }
            let archived = rng.chance(600);
            let last = created + CALLS_PER_SESSION as i64 * 30_000;
            ses.execute(params![
                id,
                AGENT,
                user,
                serde_json::to_string(&messages).unwrap(),
                if archived { "archived" } else { "active" },
                created,
                last,
                archived.then_some(last + 60_000)
            ])
            .unwrap();
        }
    }
    tx.commit().unwrap();
}

/// The install the forgets start from, written once per scale and reused: `oryx demo`'s
/// install (configuration, sample agents, the runtime's schema) with the big agent added — the
/// scale's big MEMORY.md, changes made through the console (so its history sidecar is the real
/// format), the runtime's tool invocations and sessions. The secret is in a live entry, a
/// history record, two tool invocations and a session.
fn template(b: &Bench) -> PathBuf {
    let dir = b.data.dir.join("forget");
    let install = dir.join("install");
    let stamp_path = dir.join("PARAMS");
    let calls = b.scale.sessions;
    let stamp = format!(
        "v{TEMPLATE_VERSION} memory={} calls={calls}\n",
        b.scale.big_bytes
    );
    if fs::read_to_string(&stamp_path).ok().as_deref() == Some(stamp.as_str()) {
        return install;
    }
    let t = Instant::now();
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    oryx_core::demo::write_install(&install).unwrap();
    let agent_dir = install.join(".oryxos/agents").join(AGENT);
    fs::create_dir_all(&agent_dir).unwrap();
    fs::write(
        agent_dir.join("AGENT.md"),
        format!("---\nname: {AGENT}\ndescription: an agent with years of memory\nprovider:\n  name: openai\n  model: gpt-4o\ntools: [save_memory, recall_memory]\n---\nYou are {AGENT}.\n"),
    )
    .unwrap();
    fs::copy(b.data.memory(gen::BIG), agent_dir.join("MEMORY.md")).unwrap();
    write_runtime_rows(&install.join("oryxos.db"), calls);

    let c = console(&install, &dir.join("setup"));
    let append = |content: String| {
        c.append_memory(&AppendRequest {
            agent: Some(AGENT.into()),
            scope: ScopeDto::Archival,
            content,
        })
        .unwrap();
    };
    append(secret_entry());
    // A note holding the secret, deleted: only the history keeps it.
    let note = format!("临时记下 token {SECRET}（已轮换）");
    append(note.clone());
    let all = c.services().memory.store().load_all(&owner()).unwrap();
    let id_of = |i: usize| EntryRef {
        id: all.id(Scope::Archival, i).unwrap(),
        expect: Some(all.archival[i].content.clone()),
    };
    let last = all.archival.len() - 1;
    assert_eq!(all.archival[last].content, note);
    let (third, half) = (all.archival.len() / 3, all.archival.len() / 2);
    let edit = id_of(third);
    let (gone, note_ref) = (id_of(half), id_of(last));
    drop(all);
    c.delete_entries(&SelectionArgs {
        agent: Some(AGENT.into()),
        entries: vec![note_ref],
    })
    .unwrap();
    // Changes without the secret: the history a curated memory has.
    c.edit_entry(&EditArgs {
        agent: Some(AGENT.into()),
        id: edit.id,
        expect: edit.expect,
        content: "触发「整理一下会议纪要」⇒ 已整理，共 4 条".into(),
        restamp: false,
    })
    .unwrap();
    c.delete_entries(&SelectionArgs {
        agent: Some(AGENT.into()),
        entries: vec![gone],
    })
    .unwrap();
    drop(c);
    // What the runtime leaves after a clean stop: no WAL.
    rusqlite::Connection::open(install.join("oryxos.db"))
        .unwrap()
        .execute_batch("PRAGMA wal_checkpoint(TRUNCATE);")
        .unwrap();
    fs::write(&stamp_path, stamp).unwrap();
    eprintln!(
        "forget: install written in {:.1} s",
        t.elapsed().as_secs_f64()
    );
    install
}

fn du(dir: &Path) -> u64 {
    let mut total = 0;
    for e in fs::read_dir(dir).unwrap().flatten() {
        let m = fs::symlink_metadata(e.path()).unwrap();
        if m.is_dir() {
            total += du(&e.path());
        } else if m.is_file() {
            total += m.len();
        }
    }
    total
}

/// `grep -r -F -c SECRET dir`: its time and the lines holding it, summed over the files.
fn grep_pass(dir: &Path) -> (Duration, usize) {
    let t = Instant::now();
    let out = Command::new("grep")
        .args(["-r", "-F", "-c", SECRET])
        .arg(dir)
        .env("LC_ALL", "C")
        .output()
        .expect("grep");
    let took = t.elapsed();
    let n = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.rsplit(':').next()?.parse::<usize>().ok())
        .sum();
    (took, n)
}

/// Files under `dirs` holding a byte of the secret (binary files too).
fn files_holding(dirs: &[&Path]) -> Vec<PathBuf> {
    let out = Command::new("grep")
        .args(["-r", "-F", "-l", "-a", SECRET])
        .args(dirs)
        .env("LC_ALL", "C")
        .output()
        .expect("grep");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(PathBuf::from)
        .collect()
}

/// Every planted copy is found, by place.
fn check_found(dto: &ForgetDto) {
    let count = |place: &str, detail: Option<&str>| -> u32 {
        dto.found
            .iter()
            .filter(|c| c.place == place && detail.is_none_or(|d| c.detail.as_deref() == Some(d)))
            .map(|c| c.count)
            .sum()
    };
    assert_eq!(count("memory", None), 1, "the live entry: {:?}", dto.found);
    assert!(
        count("history", None) >= 1,
        "the history record: {:?}",
        dto.found
    );
    assert_eq!(
        count("runtime_tool_calls", Some("tool_invocations.input_json")),
        1,
        "{:?}",
        dto.found
    );
    assert_eq!(
        count("runtime_tool_calls", Some("tool_invocations.result_json")),
        1,
        "{:?}",
        dto.found
    );
    assert_eq!(
        count("runtime_sessions", Some("sessions.messages_json")),
        1,
        "{:?}",
        dto.found
    );
}

/// Where a forget's time went: the search before, each place, the search after.
#[derive(Default, Clone)]
struct Split {
    parts: Vec<(&'static str, Duration)>,
}

/// One forget on a fresh copy of `template`; panics unless it left no byte of the secret
/// outside what its receipt names.
fn forget_once(template: &Path, work: &Path) -> (Duration, Split, usize) {
    let _ = fs::remove_dir_all(work);
    fs::create_dir_all(work).unwrap();
    let install = work.join("install");
    copy_tree(template, &install);
    let c = console(&install, &work.join("console"));
    let args = ForgetArgs {
        agent: Some(AGENT.into()),
        text: Some(SECRET.into()),
        ..ForgetArgs::default()
    };
    let mut marks: Vec<(&'static str, Instant)> = Vec::new();
    let started = Instant::now();
    let dto = c
        .forget_now(&args, &AtomicBool::new(false), &mut |s| {
            marks.push((s.place, Instant::now()))
        })
        .unwrap();
    let took = started.elapsed();
    let ended = started + took;
    assert_eq!(dto.state.as_deref(), Some("done"), "{dto:?}");
    check_found(&dto);
    let mut split = Split::default();
    let mut from = ("the search before (the plan)", started);
    for (place, at) in &marks {
        split.parts.push((from.0, *at - from.1));
        from = (
            if *place == "done" {
                "the search after"
            } else {
                place
            },
            *at,
        );
    }
    split.parts.push((from.0, ended - from.1));
    let left: Vec<&str> = dto.left.iter().map(|l| l.path.as_str()).collect();
    let index = work.join("console");
    for f in files_holding(&[&install, &index]) {
        let said = left.iter().any(|p| f.to_string_lossy().starts_with(p));
        assert!(
            said,
            "the secret is still in {} after the forget (left: {:?})",
            f.display(),
            dto.left
        );
    }
    (took, split, dto.left.len())
}

impl Bench {
    pub fn forget(&mut self) {
        let template = template(self);
        let work = self.data.dir.join("work-forget");
        let install_bytes = du(&template);
        let md = template
            .join(".oryxos/agents")
            .join(AGENT)
            .join("MEMORY.md");
        let md_label = mb(fs::metadata(&md).unwrap().len());
        let calls = human(self.scale.sessions);
        let label = format!(
            "{md_label} MEMORY.md, its history and {calls} tool invocations ({} install)",
            mb(install_bytes)
        );

        // The dry run and the grep pass, on one fresh copy (neither changes a byte).
        let _ = fs::remove_dir_all(&work);
        fs::create_dir_all(&work).unwrap();
        let install = work.join("install");
        copy_tree(&template, &install);
        let runs = self.scale.runs.min(5);
        let mut lines = 0;
        let grep = median(runs, || lines = grep_pass(&install).1);
        assert!(lines >= 5, "the secret is planted ({lines} lines)");
        let args = ForgetArgs {
            agent: Some(AGENT.into()),
            text: Some(SECRET.into()),
            dry_run: true,
            ..ForgetArgs::default()
        };
        // Each in a console opened for it (not timed), as each `oryx memory forget --dry-run`
        // is a new process: nothing parsed by the run before is reused.
        let mut found = Vec::new();
        let mut times: Vec<Duration> = (0..=runs)
            .map(|_| {
                let c = console(&install, &work.join("console"));
                let t = Instant::now();
                let dto = c
                    .forget_now(&args, &AtomicBool::new(false), &mut |_| {})
                    .unwrap();
                let took = t.elapsed();
                check_found(&dto);
                found = dto.found;
                took
            })
            .collect();
        times.remove(0);
        times.sort();
        let dry = times[times.len() / 2];
        let copies: u32 = found.iter().map(|f| f.count).sum();
        let by_place = found
            .iter()
            .map(|f| match &f.detail {
                Some(d) if f.place != "memory" => format!("{} ({d}) {}", f.place, f.count),
                _ => format!("{} {}", f.place, f.count),
            })
            .collect::<Vec<_>>()
            .join(", ");
        self.reported_ratio_row(
            "forget.dry_run_vs_grep",
            format!("forget's dry run (every copy, by place) over {label} ÷ one `grep -r -F -c` pass over the same files"),
            dry,
            grep,
            &format!(" ({copies} copies found)"),
        );

        // The forget itself: each on a fresh copy, the copy not timed.
        let forget_runs = if self.scale.name == "full" { 3 } else { 5 };
        let mut runs_done: Vec<(Duration, Split, usize)> = (0..forget_runs)
            .map(|_| forget_once(&template, &work))
            .collect();
        runs_done.sort_by_key(|(t, _, _)| *t);
        let (forget, split, left) = runs_done[runs_done.len() / 2].clone();
        self.reported_ratio_row(
            "forget.forget_vs_grep",
            format!("forget for good (memory entry, history, runtime rows, SQLite pages and WAL) over {label}, on a fresh copy each run ÷ one `grep -r -F -c` pass"),
            forget,
            grep,
            &format!(" ({left} places left by its receipt; no other file holds a byte of the text: checked)"),
        );
        let parts = split
            .parts
            .iter()
            .map(|(p, d)| format!("{p} {}", fmt_ms(*d)))
            .collect::<Vec<_>>()
            .join(", ");
        eprintln!("forget: where the time goes: {parts}");
        self.rows.push(json!({
            "id": "forget.breakdown",
            "what": "where the forget's time goes (its median run), by place",
            "goal": "—",
            "measured": parts,
            "ratio": null,
            "pass": null,
            "reproduce": self.reproduce(),
        }));
        self.notes.push(format!(
            "forget: {label}; the secret planted in a live entry, a history record, a save_memory \
             call's input, a recall_memory call's result and a session; after every forget no \
             file of the install (database and WAL included) nor the console's data holds a byte \
             of it. The dry run finds: {by_place}."
        ));
        let _ = fs::remove_dir_all(&work);
    }

    /// A ratio reported without a goal of its own.
    fn reported_ratio_row(
        &mut self,
        id: &str,
        what: String,
        a: Duration,
        b: Duration,
        extra: &str,
    ) {
        let ratio = ms(a) / ms(b);
        eprintln!("{id}: {} vs {} = {ratio:.2}{extra}", fmt_ms(a), fmt_ms(b));
        self.rows.push(json!({
            "id": id,
            "what": what,
            "goal": "— (reported)",
            "measured": format!("{} vs {}{extra}", fmt_ms(a), fmt_ms(b)),
            "ratio": round3(ratio),
            "pass": null,
            "reproduce": self.reproduce(),
        }));
    }
}
