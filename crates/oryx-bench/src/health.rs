//! The `health` group: all health checks over the big MEMORY.md against one `grep`
//! pass over the same file; what the checks report on a generated archive that holds no secret
//! and no personal data (every secret or PII finding there is a false positive); and the
//! deterministic summariser on 10 000 generated entries — characters saved and how many days
//! the prompt window reaches back before and after. `ORYX_HEALTH_PROFILE=1` also times each
//! check alone.
//!
//! The big file is checked from its bytes (`health::run_markdown`, what the goal is measured
//! on), as the console does it (`MarkdownMemoryStore::health`: the same with the budget, and
//! again after a dismissal), over the owner's view (`health::run_view`, the console's way with
//! the automatic summary on) and over the store's parsed entries as items (`health::run`); all
//! must report the same findings, ids included.

use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use oryx_core::memory::entry::Entry;
use oryx_core::memory::health::{self, Item, Options};
use oryx_core::memory::review::{dismiss_key, entry_key, Reviewed};
use oryx_core::memory::{
    summary, window, LongTermMemoryStore, MarkdownMemoryStore, MemoryService, Scope,
};
use oryx_core::names::Owner;

use crate::{gen, human, mb, Bench};

/// The most the health checks of the big file may take, in grep passes over it.
const GOAL: f64 = 2.5;

/// What a secret scan with grep looks at: the providers' prefixes, e-mail and long digit runs.
const GREP_PATTERN: &str = "sk-|AKIA|ghp_|xox[abpr]-|AIza|BEGIN .*PRIVATE KEY|@|[0-9]{11}";

fn items(core: &[Entry], archival: &[Entry]) -> Vec<(String, Scope, usize)> {
    let mut out = Vec::with_capacity(core.len() + archival.len());
    out.extend((0..core.len()).map(|i| (format!("c{i}"), Scope::Core, i)));
    out.extend((0..archival.len()).map(|i| (format!("a{i}"), Scope::Archival, i)));
    out
}

/// The checks' view of the entries (ids in `ids`, as `items` names them).
fn item_list<'a>(
    core: &'a [Entry],
    archival: &'a [Entry],
    ids: &[(String, Scope, usize)],
) -> Vec<Item<'a>> {
    ids.iter()
        .map(|(id, scope, i)| Item {
            id: id.clone(),
            scope: *scope,
            entry: match scope {
                Scope::Core => &core[*i],
                Scope::Archival => &archival[*i],
            },
        })
        .collect()
}

fn run_checks(core: &[Entry], archival: &[Entry]) -> Vec<health::Finding> {
    let ids = items(core, archival);
    health::run(&item_list(core, archival, &ids), None, &Options::default()).findings
}

fn counts(findings: &[health::Finding]) -> String {
    let mut by: std::collections::BTreeMap<String, usize> = Default::default();
    for f in findings {
        *by.entry(format!("{}/{}", f.check.as_str(), f.kind))
            .or_default() += 1;
    }
    if by.is_empty() {
        return "none".into();
    }
    by.into_iter()
        .map(|(k, n)| format!("{k} {n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn reach_days(entries: &[Entry], limit: usize) -> f64 {
    window::reach_back_by_day(entries, limit)
        .last()
        .map_or(0.0, |r| r.1)
}

impl Bench {
    pub fn health(&mut self) {
        // Five rounds: each takes a second or two, and on a shared machine the median of three
        // moved by a tenth from one bench to the next.
        let runs = self.scale.runs.clamp(1, 5);
        let big_file = self.data.memory(gen::BIG);
        let label = mb(std::fs::metadata(&big_file).unwrap().len());
        let root = self.data.root();
        let store: Arc<dyn LongTermMemoryStore> = Arc::new(MarkdownMemoryStore::new(&root));
        let owner = Owner::Agent(gen::BIG.to_string());

        // Health of the big file (read, parse, every check) ÷ one grep pass over it, both in the
        // same loop so that the load of the machine weighs on both alike.
        let mut hs = Vec::new();
        let mut ps = Vec::new();
        let mut gs = Vec::new();
        let mut findings = Vec::new();
        let mut from_bytes = Vec::new();
        let (mut cs, mut from_console, mut console_budget, mut view_budget) =
            (Vec::new(), Vec::new(), None, None);
        let markdown = MarkdownMemoryStore::new(&root);
        let opts = Options::default();
        // The console after a person dismissed one finding (the first, a stale word): still
        // from the bytes, each entry a finding names matched against the dismissals.
        let first = markdown.health(&owner, &opts, 4000).unwrap().findings;
        let dismissed_one = {
            let f = &first[0];
            let (scope, i, _) =
                oryx_core::memory::entry_id::parse_markdown_id(&f.entry_ids[0]).unwrap();
            let all = store.load_all(&owner).unwrap();
            let e = match scope {
                Scope::Core => &all.core[i],
                Scope::Archival => &all.archival[i],
            };
            let key = dismiss_key(f.check.as_str(), entry_key(scope, e));
            Options {
                dismissed: Some(Arc::new(Reviewed {
                    at: 0,
                    keys: vec![key],
                })),
                ..opts.clone()
            }
        };
        drop(first);
        let mut ds = Vec::new();
        for _ in 0..runs {
            let t = Instant::now();
            let out = Command::new("grep")
                .args(["-c", "-E", GREP_PATTERN])
                .arg(&big_file)
                .output()
                .unwrap();
            gs.push(t.elapsed());
            assert!(out.status.code().is_some_and(|c| c <= 1), "grep failed");
            // The last run's findings are freed before the clock starts: assigned over inside
            // the timed part, their ~980 000 ids were freed there (~0.1 s, a tenth of a run).
            drop(std::mem::take(&mut from_bytes));
            drop(std::mem::take(&mut findings));
            let t = Instant::now();
            // Read as the console reads a memory file (in parts at once when it is large).
            let bytes = oryx_core::rooted_fs::read_memory(&big_file).unwrap();
            from_bytes = health::run_markdown(&bytes, &opts).findings;
            hs.push(t.elapsed());
            drop(bytes);
            // The console's path (memory_health of a MEMORY.md): the file checked from its
            // bytes, the budget from the prompt's own load.
            drop(std::mem::take(&mut from_console));
            let t = Instant::now();
            let report = markdown.health(&owner, &opts, 4000).unwrap();
            (from_console, console_budget) = (report.findings, report.budget);
            cs.push(t.elapsed());
            let t = Instant::now();
            let report = markdown.health(&owner, &dismissed_one, 4000).unwrap();
            ds.push(t.elapsed());
            assert_eq!(report.dismissed, 1, "the dismissed finding left out");
            assert_eq!(report.findings.len() + 1, from_console.len());
            drop(report);
            // With the automatic summary on (or another backend): the owner's view, then the
            // checks over it.
            let t = Instant::now();
            let view = MemoryService::new(store.clone(), 4000)
                .view(&owner)
                .unwrap();
            let parsed = t.elapsed();
            let report = health::run_view(&view, &opts);
            (findings, view_budget) = (report.findings, report.budget);
            ps.push(t.elapsed());
            drop(view);
            eprintln!(
                "health: view {:?}, checks {:?}",
                parsed,
                t.elapsed() - parsed
            );
            if std::env::var_os("ORYX_HEALTH_PROFILE").is_some() {
                let all = store.load_all(&owner).unwrap();
                let ids = items(&all.core, &all.archival);
                let list = item_list(&all.core, &all.archival, &ids);
                for c in health::Check::ALL {
                    let t = Instant::now();
                    let o = Options {
                        checks: vec![c],
                        ..Options::default()
                    };
                    let _ = health::run(&list, None, &o);
                    eprintln!("  {}: {:?}", c.as_str(), t.elapsed());
                }
            }
        }
        let med = |v: &mut Vec<Duration>| {
            v.sort();
            v[v.len() / 2]
        };
        let (h, c, p, g) = (med(&mut hs), med(&mut cs), med(&mut ps), med(&mut gs));
        let d = med(&mut ds);
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        self.ratio_row(
            "health_vs_grep",
            format!(
                "health checks of a {label} MEMORY.md (read, parse, all checks; from its bytes, \
                 {threads} threads) ÷ one grep -cE pass (1 thread)"
            ),
            GOAL,
            h,
            g,
            "",
        );
        self.ratio_row(
            "health_console_vs_grep",
            format!(
                "the same as the console runs it (memory_health): the file's findings from its \
                 bytes on {threads} threads and the budget from the prompt's own load ÷ one \
                 grep -cE pass"
            ),
            GOAL,
            c,
            g,
            "",
        );
        self.ratio_row(
            "health_dismissed_vs_grep",
            "the console's way after a finding was dismissed: the same, each entry a finding \
             names matched against the dismissals ÷ one grep -cE pass"
                .to_string(),
            GOAL,
            d,
            g,
            "",
        );
        self.ratio_row(
            "health_parsed_vs_grep",
            format!(
                "the console's way with the automatic summary on (or another backend's): the \
                 owner's view (the whole file parsed), then the checks over it on {threads} \
                 threads ÷ one grep -cE pass"
            ),
            GOAL,
            p,
            g,
            "",
        );
        let all = store.load_all(&owner).unwrap();
        // The two ways must agree: the ids the console gives the parsed entries, the same findings.
        let named: Vec<(String, Scope, usize)> = items(&all.core, &all.archival)
            .into_iter()
            .map(|(_, scope, i)| {
                let e = if scope == Scope::Core {
                    &all.core[i]
                } else {
                    &all.archival[i]
                };
                (
                    oryx_core::memory::entry_id::markdown_id(scope, i, &e.line),
                    scope,
                    i,
                )
            })
            .collect();
        let list = item_list(&all.core, &all.archival, &named);
        let parsed_findings = health::run(&list, None, &opts).findings;
        drop(list);
        assert!(
            parsed_findings == from_bytes,
            "health from the file's bytes differs from health over its parsed entries"
        );
        assert!(
            findings == from_bytes,
            "health over the owner's view differs from health from the file's bytes"
        );
        assert!(
            from_console == from_bytes,
            "the console's health of the file differs from health from its bytes"
        );
        assert_eq!(
            console_budget, view_budget,
            "the budget from the prompt's load differs from the owner's view's"
        );
        let n = all.core.len() + all.archival.len();
        self.notes.push(format!(
            "health: on the generated {label} archive ({} entries, no secret or personal data \
             planted) the checks report: {}",
            human(n),
            counts(&findings)
        ));

        // The near-duplicate pass where every entry is its own class (no two share their
        // letters): the archive's entries with each digit written as a letter, so that the
        // n-gram comparison, not the key, has to find the ~30 requests' footprints alike.
        let lettered: Vec<Entry> = all
            .archival
            .iter()
            .map(|e| {
                let text: String = e
                    .content
                    .chars()
                    .map(|c| match c.to_digit(10) {
                        Some(d) => char::from(b'a' + d as u8),
                        None => c,
                    })
                    .collect();
                Entry::new(e.timestamp, text)
            })
            .collect();
        let ids = items(&[], &lettered);
        let list = item_list(&[], &lettered, &ids);
        let t = Instant::now();
        let o = Options {
            checks: vec![health::Check::Duplicates],
            ..Options::default()
        };
        let near = health::run(&list, None, &o).findings;
        self.notes.push(format!(
            "health: duplicates alone on the same {} entries with every digit made a letter (no \
             two share their letters, so n-gram similarity must find them): {:.0} ms, {}",
            human(lettered.len()),
            t.elapsed().as_secs_f64() * 1000.0,
            counts(&near)
        ));
        drop(list);
        drop(lettered);

        // 10 000 entries: findings, and the deterministic summariser.
        let core = all.core.clone();
        let archival: Vec<Entry> = all
            .archival
            .iter()
            .take(10_000 - core.len())
            .cloned()
            .collect();
        drop(all);
        let ten = run_checks(&core, &archival);
        self.notes.push(format!(
            "health: on 10 000 generated entries the checks report: {} — every secrets/pii \
             finding there is a false positive",
            counts(&ten)
        ));
        let work = self.data.dir.join("work-health");
        let _ = std::fs::remove_dir_all(&work);
        let sroot = work.join("root");
        let file = oryx_core::names::memory_path(&sroot, &Owner::Global);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        let mut text = String::from("## 核心记忆\n");
        for e in &core {
            text.push_str(&e.line);
            text.push('\n');
        }
        text.push_str("## 归档记忆\n");
        for e in &archival {
            text.push_str(&e.line);
            text.push('\n');
        }
        std::fs::write(&file, text).unwrap();
        let svc = MemoryService::new(Arc::new(MarkdownMemoryStore::new(&sroot)), 4000);
        self.summary_note("10 000 generated entries", &svc, &Owner::Global);
        // The demo root's assistant: a month of footprints, as an agent writes them.
        let demo = work.join("demo");
        oryx_core::demo::write_sample(&demo).unwrap();
        let svc = MemoryService::new(Arc::new(MarkdownMemoryStore::new(&demo)), 4000);
        self.summary_note(
            "the demo root's assistant",
            &svc,
            &Owner::Agent("assistant".into()),
        );
    }

    /// Characters saved by the rules' summary of `owner`, and the window's reach-back in days
    /// before and after (originals removed, the summary appended after the newest entry).
    fn summary_note(&mut self, what: &str, svc: &MemoryService, owner: &Owner) {
        let view = svc.view(owner).unwrap();
        let t = Instant::now();
        let p = summary::propose(&view).expect("entries outside the window");
        let took = t.elapsed();
        let before = reach_days(&view.archival, 4000);
        // After: the originals removed, the summary appended (stamped after the newest entry).
        let first_in = view.window.first_in_window;
        let newest = view.archival.last().and_then(|e| e.timestamp);
        let mut after_entries: Vec<Entry> = view.archival[first_in..].to_vec();
        after_entries.push(Entry::new(newest, p.content.clone()));
        let w = window::compute(&after_entries, 4000);
        let from = p
            .from
            .as_deref()
            .and_then(oryx_core::timefmt::parse_entry_ts);
        let after = match (w.newest_cut, from, newest) {
            (false, Some(f), Some(n)) => (n - f).num_seconds() as f64 / 86_400.0,
            _ => before,
        };
        self.notes.push(format!(
            "summary (rules) of {what}: {} entries outside the window ({} characters) become \
             one line of {} characters ({:.1}% of them) in {:.0} ms; with the originals removed \
             the window reaches back {:.2} days instead of {:.2}{}",
            human(p.covered.len()),
            human(p.chars_before),
            human(p.chars_after),
            p.chars_after as f64 * 100.0 / p.chars_before.max(1) as f64,
            took.as_secs_f64() * 1000.0,
            after,
            before,
            if w.newest_cut {
                " (the summary alone is longer than the window: it is cut)"
            } else {
                ""
            }
        ));
    }
}
