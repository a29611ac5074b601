//! `oryx-bench`: how the console's cost grows with its work.
//!
//! Generates (or reuses) data under `target/bench-data/<scale>`, measures every operation the
//! way a user triggers it (through `oryx_api::Console`), each as the median of several runs, and
//! writes `target/bench/core.json`. Figures with a relative goal are ratios against a baseline
//! measured in the same run, because this machine is shared and noisy.
//!
//! Usage: `oryx-bench [--scale full|quick] [--data DIR] [--out FILE]`.
//! `oryx-bench append-child ROOT WRITER COUNT` is the child side of the concurrency run.

#![forbid(unsafe_code)]

mod curation;
mod endpoint;
mod forget;
mod gen;
mod health;
mod poisoning;
mod portable;
mod recall;
mod runtime_index;
mod runtime_recall;
mod superseded;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use oryx_api::console::Console;
use oryx_api::dto::SessionQuery;
use oryx_core::config::Overrides;
use oryx_core::memory::{Backend, LongTermMemoryStore, MarkdownMemoryStore, MemoryService, Scope};
use oryx_core::names::Owner;
use serde_json::{json, Value};

use gen::{Data, Scale};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("append-child") {
        return append_child(&args[1..]);
    }
    if args.first().map(String::as_str) == Some("profile-agents") {
        let root = PathBuf::from(&args[1]);
        let db = root.join("oryxos.db");
        let sessions = oryx_core::sessions::SessionStore::new(&db);
        let t = median(5, || {
            sessions.last_active_by_agent().unwrap();
        });
        eprintln!("last_active_by_agent {}", fmt_ms(t));
        let t = median(5, || {
            oryx_core::agents::list(&root).unwrap();
        });
        eprintln!("agents::list {}", fmt_ms(t));
        let md = MarkdownMemoryStore::new(&root);
        let sq = oryx_core::memory::SqliteMemoryStore::new(&db);
        for a in gen::agent_names() {
            let o = Owner::Agent(a.clone());
            let t1 = median(3, || {
                md.count(&o).unwrap();
            });
            let t2 = median(3, || {
                sq.count(&o).unwrap();
            });
            eprintln!("{a}: md {} sqlite {}", fmt_ms(t1), fmt_ms(t2));
        }
        return;
    }
    if args.first().map(String::as_str) == Some("profile") {
        return profile(&args[1..]);
    }
    if args.first().map(String::as_str) == Some("sqlite-index") {
        return sqlite_index(&args[1..]);
    }
    let mut scale = Scale::full();
    let mut data_dir = PathBuf::from("target/bench-data");
    let mut out = PathBuf::from("target/bench/core.json");
    let mut only: Option<String> = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--scale" => {
                scale = match it.next().map(String::as_str) {
                    Some("quick") => Scale::quick(),
                    Some("full") => Scale::full(),
                    other => panic!("--scale full|quick, got {other:?}"),
                }
            }
            "--data" => data_dir = it.next().expect("--data DIR").into(),
            "--out" => out = it.next().expect("--out FILE").into(),
            // One group while working on it: the report then holds only that group's rows.
            "--only" => only = Some(it.next().expect("--only GROUP").clone()),
            other => panic!("unknown argument {other}"),
        }
    }
    let started = Instant::now();
    let gen_started = Instant::now();
    let (data, generated) = gen::ensure(&data_dir, &scale);
    let gen_time = gen_started.elapsed();
    eprintln!(
        "data in {} ({}, {:.1} s)",
        data.dir.display(),
        if generated { "generated" } else { "reused" },
        gen_time.as_secs_f64()
    );
    let mut b = Bench {
        scale: scale.clone(),
        data,
        rows: Vec::new(),
        notes: Vec::new(),
    };
    let groups: [(&str, Group); 15] = [
        ("markdown", Bench::markdown),
        ("sqlite", Bench::sqlite),
        ("sessions", Bench::sessions),
        ("agents", Bench::agents),
        ("concurrent", Bench::concurrent),
        ("recall", Bench::recall),
        ("endpoint", Bench::endpoint),
        ("curation", Bench::curation),
        ("health", Bench::health),
        ("poisoning", Bench::poisoning),
        ("portable", Bench::portable),
        ("runtime_index", Bench::runtime_index),
        ("runtime_recall", Bench::runtime_recall),
        ("forget", Bench::forget),
        ("superseded", Bench::superseded),
    ];
    if let Some(g) = &only {
        assert!(
            groups.iter().any(|(name, _)| name == g),
            "--only takes one of {:?}",
            groups.map(|(n, _)| n)
        );
    }
    for (name, run) in groups {
        if only.as_deref().is_none_or(|g| g == name) {
            run(&mut b);
        }
    }
    let report = json!({
        "rows": b.rows,
        "notes": b.notes,
        "machine": machine(),
        "when": chrono::Local::now().to_rfc3339(),
        "scale": scale.name,
        "data": if generated { format!("generated in {:.1} s", gen_time.as_secs_f64()) } else { "reused".to_string() },
        "elapsed_s": (started.elapsed().as_secs_f64() * 10.0).round() / 10.0,
    });
    if let Some(dir) = out.parent() {
        std::fs::create_dir_all(dir).unwrap();
    }
    std::fs::write(&out, serde_json::to_string_pretty(&report).unwrap() + "\n").unwrap();
    eprintln!(
        "wrote {} in {:.1} s",
        out.display(),
        started.elapsed().as_secs_f64()
    );
}

/// One group of measurements, runnable alone with `--only`.
type Group = fn(&mut Bench);

struct Bench {
    scale: Scale,
    data: Data,
    rows: Vec<Value>,
    notes: Vec<String>,
}

/// Median wall time of `runs` calls after one warm-up call.
fn median(runs: usize, mut f: impl FnMut()) -> Duration {
    f();
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .collect();
    times.sort();
    times[times.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn fmt_ms(d: Duration) -> String {
    let v = ms(d);
    if v < 1.0 {
        format!("{v:.3} ms")
    } else if v < 100.0 {
        format!("{v:.2} ms")
    } else {
        format!("{v:.0} ms")
    }
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

fn mb(bytes: u64) -> String {
    if bytes >= 1024 * 1024 {
        format!("{} MB", bytes / (1024 * 1024))
    } else {
        format!("{} KB", bytes / 1024)
    }
}

fn human(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push('\u{202f}');
        }
        out.push(c);
    }
    out
}

fn console(root: &Path, db: &Path, backend: Backend) -> Console {
    let settings = root
        .join("..")
        .join(format!("settings-{}.json", backend.as_str()));
    Console::open(
        Some(settings),
        Overrides {
            root: Some(root.to_path_buf()),
            db_path: Some(db.to_path_buf()),
            backend: Some(backend),
            mem0_url: None,
        },
    )
    .unwrap()
}

/// `grep -F -i -c <keyword> <file>`: its median time and its count.
fn grep(args: &[&str], file: &Path, runs: usize) -> (Duration, usize) {
    let run = || {
        let out = Command::new("grep")
            .args(args)
            .arg(file)
            .env("LC_ALL", "C.UTF-8")
            .output()
            .expect("grep");
        String::from_utf8_lossy(&out.stdout)
            .trim()
            .parse::<usize>()
            .unwrap_or(0)
    };
    let mut count = 0;
    let t = median(runs, || count = run());
    (t, count)
}

impl Bench {
    fn reproduce(&self) -> &'static str {
        match self.scale.name {
            "quick" => "make bench-quick",
            _ => "make bench",
        }
    }

    fn ratio_row(
        &mut self,
        id: &str,
        what: String,
        goal: f64,
        a: Duration,
        b: Duration,
        extra: &str,
    ) {
        let ratio = ms(a) / ms(b);
        eprintln!("{id}: {} vs {} = {ratio:.2} {extra}", fmt_ms(a), fmt_ms(b));
        self.rows.push(json!({
            "id": id,
            "what": what,
            "goal": format!("≤ {goal}"),
            "measured": format!("{} vs {}{extra}", fmt_ms(a), fmt_ms(b)),
            "ratio": round3(ratio),
            "pass": ratio <= goal,
            "reproduce": self.reproduce(),
        }));
    }

    /// A measured figure with no goal (quality, counts, a timing to read beside others).
    fn info_row(&mut self, id: &str, what: String, measured: String) {
        eprintln!("{id}: {measured}");
        self.rows.push(json!({
            "id": id,
            "what": what,
            "goal": "—",
            "measured": measured,
            "ratio": null,
            "pass": null,
            "reproduce": self.reproduce(),
        }));
    }

    fn absolute_row(&mut self, id: &str, what: String, goal_ms: f64, t: Duration, extra: &str) {
        eprintln!("{id}: {} {extra}", fmt_ms(t));
        self.rows.push(json!({
            "id": id,
            "what": what,
            "goal": format!("≤ {goal_ms} ms"),
            "measured": format!("{}{extra}", fmt_ms(t)),
            "ratio": null,
            "pass": ms(t) <= goal_ms,
            "reproduce": self.reproduce(),
        }));
    }

    fn markdown(&mut self) {
        let runs = self.scale.runs;
        let root = self.data.root();
        let c = console(&root, &self.data.db(), Backend::Markdown);
        let big_file = self.data.memory(gen::BIG);
        let big_len = std::fs::metadata(&big_file).unwrap().len();
        let small_len = std::fs::metadata(self.data.memory(gen::SMALL))
            .unwrap()
            .len();
        let big_label = mb(big_len);

        // 1. The prompt's load (core whole + archival window).
        let big = median(runs * 2, || {
            c.memory_context(Some(gen::BIG)).unwrap();
        });
        let small = median(runs * 2, || {
            c.memory_context(Some(gen::SMALL)).unwrap();
        });
        self.ratio_row(
            "load_big_vs_small",
            format!(
                "load (window) on {big_label} MEMORY.md ÷ on {}",
                mb(small_len)
            ),
            2.0,
            big,
            small,
            "",
        );

        // 2. Archival append: a copy of the big file vs a file that starts empty.
        let work = self.data.dir.join("work");
        let _ = std::fs::remove_dir_all(&work);
        let big_root = work.join("big");
        let empty_root = work.join("empty");
        let copy = oryx_core::names::memory_path(&big_root, &Owner::Global);
        std::fs::create_dir_all(copy.parent().unwrap()).unwrap();
        std::fs::copy(&big_file, &copy).unwrap();
        std::fs::create_dir_all(&empty_root).unwrap();
        let svc_big = MemoryService::new(
            std::sync::Arc::new(MarkdownMemoryStore::new(&big_root)),
            4000,
        );
        let svc_empty = MemoryService::new(
            std::sync::Arc::new(MarkdownMemoryStore::new(&empty_root)),
            4000,
        );
        // The first append after a writer that does not take our lock (the Java runtime) reads
        // the file; measured on its own below.
        let t = Instant::now();
        svc_big
            .append(&Owner::Global, Scope::Archival, "first append, no hint")
            .unwrap();
        let cold = t.elapsed();
        let mut n = 0;
        let a_big = median(runs * 2, || {
            n += 1;
            svc_big
                .append(&Owner::Global, Scope::Archival, &format!("bench entry {n}"))
                .unwrap();
        });
        let a_empty = median(runs * 2, || {
            n += 1;
            svc_empty
                .append(&Owner::Global, Scope::Archival, &format!("bench entry {n}"))
                .unwrap();
        });
        self.ratio_row(
            "append_big_vs_empty",
            format!("archival append on {big_label} MEMORY.md ÷ on an empty one"),
            2.0,
            a_big,
            a_empty,
            "",
        );
        // Cold: the lock file's stamp no longer matches (another writer touched the file).
        let lock = oryx_core::memory::markdown::lock_path(&copy);
        let cold_med = median(runs.min(5), || {
            std::fs::write(&lock, "").unwrap();
            n += 1;
            svc_big
                .append(&Owner::Global, Scope::Archival, &format!("cold entry {n}"))
                .unwrap();
        });
        let (grep_all, _) = grep(&["-c", ""], &copy, runs.min(5));
        eprintln!("(first append in the process: {})", fmt_ms(cold));
        self.notes.push(format!(
            "The first archival append to the {big_label} copy (no lock-file stamp yet) took {}.",
            fmt_ms(cold)
        ));
        self.ratio_row(
            "append_after_foreign_write",
            format!("archival append on {big_label} right after another writer (no stamp) ÷ `grep -c ''` (one pass over the file)"),
            2.0,
            cold_med,
            grep_all,
            "",
        );

        // 3. Keyword recall over the whole archive vs grep on the same file.
        for (id, kw) in [
            ("recall_vs_grep_ascii", gen::RARE_ASCII),
            ("recall_vs_grep_cjk", gen::RARE_CJK),
        ] {
            let (g, g_count) = grep(&["-F", "-i", "-c", kw], &big_file, runs);
            let mut hits = 0;
            let r = median(runs, || {
                hits = c
                    .recall_memory(Some(gen::BIG), kw, None, None)
                    .unwrap()
                    .entries
                    .len();
            });
            assert_eq!(hits, g_count, "recall and grep disagree on {kw}");
            self.ratio_row(
                id,
                format!("keyword recall `{kw}` over {big_label} ÷ `grep -F -i -c`"),
                1.0,
                r,
                g,
                &format!(" ({} hits)", human(hits)),
            );
        }
    }

    fn sqlite(&mut self) {
        let runs = self.scale.runs;
        let rows = human(self.scale.memory_rows);
        let c = console(&self.data.root(), &self.data.db(), Backend::Sqlite);
        // Opening the store may build console indexes once; not part of a recall.
        let t = Instant::now();
        c.memory_context(Some(gen::SMALL)).unwrap();
        let open = t.elapsed();
        eprintln!("sqlite store opened in {}", fmt_ms(open));
        self.notes.push(format!(
            "The first sqlite operation of this run took {}: opening the store, plus, the first time the \
             console opens a database, building its indexes over the existing {rows} rows.",
            fmt_ms(open)
        ));
        for (id, kw) in [
            ("sqlite_recall_ascii", gen::RARE_ASCII),
            ("sqlite_recall_cjk", gen::RARE_CJK),
        ] {
            let mut hits = 0;
            let r = median(runs, || {
                hits = c
                    .recall_memory(Some(gen::BIG), kw, None, None)
                    .unwrap()
                    .entries
                    .len();
            });
            self.absolute_row(
                id,
                format!("sqlite recall `{kw}` over {rows} entries"),
                50.0,
                r,
                &format!(" ({} hits)", human(hits)),
            );
        }
        let mut hits = 0;
        let r = median(runs.min(5), || {
            hits = c
                .recall_memory(Some(gen::BIG), gen::SHORT_CJK, None, None)
                .unwrap()
                .entries
                .len();
        });
        self.absolute_row(
            "sqlite_recall_short",
            format!(
                "sqlite recall of a 2-character keyword `{}` over {rows} entries",
                gen::SHORT_CJK
            ),
            50.0,
            r,
            &format!(" ({} hits)", human(hits)),
        );
        let l = median(runs, || {
            c.memory_context(Some(gen::BIG)).unwrap();
        });
        self.absolute_row(
            "sqlite_load_window",
            format!(
                "sqlite load (window) of an agent with {} of {rows} entries",
                human(self.scale.memory_rows * 9 / 10)
            ),
            50.0,
            l,
            "",
        );
    }

    fn sessions(&mut self) {
        let runs = self.scale.runs;
        let c = console(&self.data.root(), &self.data.db(), Backend::Markdown);
        let n = human(self.scale.sessions + 1);
        let mut total = 0;
        let first = median(runs, || {
            total = c.list_sessions(&SessionQuery::default()).unwrap().total;
        });
        assert_eq!(total as usize, self.scale.sessions + 1);
        self.absolute_row(
            "sessions_first_page",
            format!("sessions list, first page of 50, at {n} sessions"),
            50.0,
            first,
            "",
        );
        let deep = median(runs, || {
            c.list_sessions(&SessionQuery {
                offset: Some((self.scale.sessions / 2) as u32),
                ..SessionQuery::default()
            })
            .unwrap();
        });
        self.absolute_row(
            "sessions_middle_page",
            format!("sessions list, a page in the middle, at {n} sessions"),
            50.0,
            deep,
            "",
        );
        let agent = median(runs, || {
            c.list_sessions(&SessionQuery {
                agent: Some("agent-3".into()),
                ..SessionQuery::default()
            })
            .unwrap();
        });
        self.absolute_row(
            "sessions_agent_page",
            format!("sessions list filtered by agent, at {n} sessions"),
            50.0,
            agent,
            "",
        );
        // Message search: what the sessions search box does, against SQLite scanning the raw
        // messages_json for the same text (the floor: every row's text must be read once).
        let db = rusqlite::Connection::open(self.data.db()).unwrap();
        for (id, what, needle) in [
            (
                "sessions_search_messages_hit",
                "a phrase in many messages",
                "会议纪要",
            ),
            (
                "sessions_search_messages_miss",
                "text in no session",
                "certificate-7f3a",
            ),
        ] {
            let mut found = 0;
            let ours = median(runs, || {
                let page = c
                    .list_sessions(&SessionQuery {
                        search: Some(needle.into()),
                        ..SessionQuery::default()
                    })
                    .unwrap();
                found = page.total;
                assert!(page.items.iter().all(|s| s.message_match.is_some()));
            });
            let mut raw_count: i64 = 0;
            let floor = median(runs, || {
                raw_count = db
                    .query_row(
                        "SELECT count(*) FROM sessions WHERE instr(messages_json, ?1) > 0",
                        [needle],
                        |r| r.get(0),
                    )
                    .unwrap();
            });
            assert_eq!(
                i64::from(found),
                raw_count,
                "{needle}: same sessions as a raw scan"
            );
            self.ratio_row(
                id,
                format!("sessions search in messages, {what}, at {n} sessions: page of 50 with where it matched, vs one raw SQL scan (which cannot tell content from JSON keys: the rows it finds are parsed)"),
                4.0,
                ours,
                floor,
                &format!(" ({} found)", human(found as usize)),
            );
        }
        let stats = median(runs, || {
            c.session_stats().unwrap();
        });
        self.absolute_row(
            "sessions_stats",
            format!("session counts by status, at {n} sessions"),
            50.0,
            stats,
            "",
        );
        let mut count = 0;
        let open = median(runs, || {
            let s = c.get_session(gen::HEAVY_SESSION).unwrap();
            count = s.messages.len();
            // What the UI receives: the DTO as JSON.
            std::hint::black_box(serde_json::to_string(&s).unwrap());
        });
        assert_eq!(count, self.scale.heavy_messages);
        self.absolute_row(
            "session_open_heavy",
            format!("open the {}-message session (as JSON)", human(count)),
            200.0,
            open,
            "",
        );
    }

    fn agents(&mut self) {
        let runs = self.scale.runs.min(7);
        let big_file = self.data.memory(gen::BIG);
        let big_label = mb(std::fs::metadata(&big_file).unwrap().len());
        let c = console(&self.data.root(), &self.data.db(), Backend::Markdown);
        let mut n = 0;
        let t = median(runs, || {
            let list = c.list_agents().unwrap();
            n = list.agents.len();
            assert!(list.agents.iter().all(|a| a.memory.error.is_none()));
        });
        let sessions = human(self.scale.sessions + 1);
        self.absolute_row(
            "agents_list_markdown",
            format!("agents list ({n} agents, one {big_label} MEMORY.md, {sessions} sessions) — the issue: not seconds"),
            1000.0,
            t,
            "",
        );
        // The part that grew with MEMORY.md: its core/archival counts, against one grep pass.
        let rt = c.services();
        let owner = Owner::Agent(gen::BIG.into());
        let counted = median(runs, || {
            rt.memory.store().count(&owner).unwrap();
        });
        let (g, _) = grep(&["-c", ""], &big_file, runs);
        self.ratio_row(
            "agents_list_counts",
            format!("the agents list's core/archival counts of the {big_label} MEMORY.md ÷ `grep -c ''` on it"),
            2.0,
            counted,
            g,
            "",
        );
        let c = console(&self.data.root(), &self.data.db(), Backend::Sqlite);
        let t = median(runs, || {
            c.list_agents().unwrap();
        });
        self.absolute_row(
            "agents_list_sqlite",
            format!(
                "agents list on the sqlite backend ({} entries, {} sessions) — the issue: not seconds",
                human(self.scale.memory_rows),
                human(self.scale.sessions + 1)
            ),
            1000.0,
            t,
            "",
        );
    }

    /// Several processes appending to one MEMORY.md (a copy of the big one) at once.
    fn concurrent(&mut self) {
        let root = self.data.dir.join("work").join("concurrent");
        let _ = std::fs::remove_dir_all(&root);
        let file = oryx_core::names::memory_path(&root, &Owner::Agent(gen::BIG.into()));
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::copy(self.data.memory(gen::BIG), &file).unwrap();
        let label = mb(std::fs::metadata(&file).unwrap().len());
        let store = MarkdownMemoryStore::new(&root);
        let owner = Owner::Agent(gen::BIG.into());
        let before = store.load_all(&owner).unwrap().archival.len();
        let (procs, each) = (self.scale.appenders, self.scale.appends_each);
        let exe = std::env::current_exe().unwrap();
        let t = Instant::now();
        let children: Vec<_> = (0..procs)
            .map(|w| {
                Command::new(&exe)
                    .args([
                        "append-child",
                        &root.display().to_string(),
                        &w.to_string(),
                        &each.to_string(),
                    ])
                    .spawn()
                    .unwrap()
            })
            .collect();
        for mut ch in children {
            assert!(ch.wait().unwrap().success(), "an appender failed");
        }
        let wall = t.elapsed();
        let all = store.load_all(&owner).unwrap().archival;
        let mut seen = std::collections::HashSet::new();
        for e in &all[before..] {
            seen.insert(e.content.clone());
        }
        let expected = procs * each;
        let lost = (0..procs)
            .flat_map(|w| (0..each).map(move |i| format!("writer {w} entry {i}")))
            .filter(|c| !seen.contains(c))
            .count();
        let rate = expected as f64 / wall.as_secs_f64();
        eprintln!("concurrent: {rate:.0} appends/s, {lost} lost");
        self.rows.push(json!({
            "id": "concurrent_appenders",
            "what": format!("{procs} processes × {each} archival appends to one {label} MEMORY.md"),
            "goal": "0 lost",
            "measured": format!("{rate:.0} appends/s, {lost} of {} lost ({} entries after, {} before)", human(expected), human(all.len()), human(before)),
            "ratio": null,
            "pass": lost == 0 && all.len() == before + expected,
            "reproduce": self.reproduce(),
        }));
    }
}

/// `oryx-bench profile FILE KEYWORD`: where a recall's time goes (for working on the scan).
fn profile(args: &[String]) {
    let [file, kw] = args else {
        panic!("profile FILE KEYWORD")
    };
    let file = Path::new(file);
    let read = median(9, || {
        let mut f = std::fs::File::open(file).unwrap();
        let mut buf = vec![0u8; 4 << 20];
        while std::io::Read::read(&mut f, &mut buf).unwrap() > 0 {}
    });
    let root = file.parent().unwrap().parent().unwrap();
    let store = MarkdownMemoryStore::new(root);
    let owner = Owner::Global;
    let mut n = 0;
    let recall = median(9, || n = store.recall(&owner, kw).unwrap().len());
    let count = median(9, || {
        store.count(&owner).unwrap();
    });
    let (g, gc) = grep(&["-F", "-i", "-c", kw], file, 9);
    eprintln!(
        "read {} recall {} ({n}) count {} grep {} ({gc})",
        fmt_ms(read),
        fmt_ms(recall),
        fmt_ms(count),
        fmt_ms(g)
    );
}

/// `sqlite-index [quick|full] [DATA DIR] [reuse]`: what the console's own index of the
/// runtime's database costs: building it (unless `reuse`), the check a new process makes, the
/// reads, and catching up after the runtime writes.
fn sqlite_index(args: &[String]) {
    let scale = match args.first().map(String::as_str) {
        Some("full") => Scale::full(),
        _ => Scale::quick(),
    };
    let base = args
        .get(1)
        .map_or_else(|| PathBuf::from("target/bench-data"), PathBuf::from);
    let (data, _) = gen::ensure(&base, &scale);
    let db = data.db();
    let index_dir = data.dir.join("sqlite-index");
    if args.get(2).map(String::as_str) != Some("reuse") {
        let _ = std::fs::remove_dir_all(&index_dir);
    }
    let store =
        || oryx_core::memory::SqliteMemoryStore::with_index_dir(&db, Some(index_dir.clone()));
    let big = Owner::Agent(gen::BIG.into());
    let small = Owner::Agent(gen::SMALL.into());
    let rows = human(scale.memory_rows);
    let t = Instant::now();
    store().count(&small).unwrap();
    eprintln!(
        "first read (builds the index over {rows} rows unless reused): {}",
        fmt_ms(t.elapsed())
    );
    let first = median(3, || {
        store().count(&small).unwrap();
    });
    eprintln!(
        "first read of a new process (checks every row): {}",
        fmt_ms(first)
    );
    let s = store();
    s.count(&small).unwrap();
    for kw in [gen::RARE_ASCII, gen::RARE_CJK, gen::SHORT_CJK] {
        let mut n = 0;
        let t = median(scale.runs, || n = s.recall(&big, kw).unwrap().len());
        eprintln!("recall `{kw}`: {} ({n} hits)", fmt_ms(t));
    }
    let t = median(scale.runs, || {
        s.load_context(&big, 4000).unwrap();
    });
    eprintln!("load (window) of {}: {}", gen::BIG, fmt_ms(t));
    let t = median(scale.runs, || {
        s.count(&big).unwrap();
    });
    eprintln!("count of {}: {}", gen::BIG, fmt_ms(t));
    let mut i = 0;
    let t = median(scale.runs, || {
        i += 1;
        s.append(&big, Scope::Archival, &format!("own append {i}"), None)
            .unwrap();
        s.recall(&big, gen::RARE_ASCII).unwrap();
    });
    eprintln!("own append, then recall: {}", fmt_ms(t));
    let runtime = rusqlite::Connection::open(&db).unwrap();
    let t = median(scale.runs.min(5), || {
        i += 1;
        runtime
            .execute(
                "INSERT INTO memory_entries(agent_name, scope, content, created_at) VALUES ('big', 'ARCHIVAL', ?1, 1)",
                [format!("runtime append {i}")],
            )
            .unwrap();
        s.recall(&big, gen::RARE_ASCII).unwrap();
    });
    eprintln!(
        "runtime append, then recall (checks every row): {}",
        fmt_ms(t)
    );
    runtime
        .execute(
            "DELETE FROM memory_entries WHERE content LIKE 'own append %' OR content LIKE 'runtime append %'",
            [],
        )
        .unwrap();
    let t = Instant::now();
    s.recall(&big, gen::RARE_ASCII).unwrap();
    eprintln!(
        "runtime deletes 2 x {} rows, then recall: {}",
        scale.runs,
        fmt_ms(t.elapsed())
    );
    let size = std::fs::read_dir(&index_dir)
        .unwrap()
        .flatten()
        .map(|e| e.metadata().unwrap().len())
        .sum::<u64>();
    eprintln!("index size on disk: {}", mb(size));
}

fn append_child(args: &[String]) {
    let [root, writer, count] = args else {
        panic!("append-child ROOT WRITER COUNT")
    };
    let svc = MemoryService::new(std::sync::Arc::new(MarkdownMemoryStore::new(root)), 4000);
    let owner = Owner::Agent(gen::BIG.into());
    for i in 0..count.parse::<usize>().unwrap() {
        svc.append(
            &owner,
            Scope::Archival,
            &format!("writer {writer} entry {i}"),
        )
        .unwrap();
    }
}

fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|s| s.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let mem = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .next()
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kb| kb.parse::<u64>().ok())
        })
        .map_or(String::new(), |kb| format!(", {} GB RAM", kb / 1024 / 1024));
    let grep = Command::new("grep")
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .next()
                .map(str::to_string)
        })
        .unwrap_or_default();
    format!(
        "{cpu}, {cores} cores{mem}; {grep}; SQLite {}",
        rusqlite::version()
    )
}
