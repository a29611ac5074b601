//! The `poisoning` group: what the check for entries that read as instructions to the model
//! costs the default health run of the big MEMORY.md (all checks ÷ all but it, in one loop), how
//! well it tells the labelled lines of `crates/oryx-core/tests/poisoning_cases.json` apart, and
//! its false positives — findings per 1 000 entries — on the generated memories and the demo
//! root, where nobody planted an instruction (every finding there is a false one). The text's
//! score is counted as the console would show it with no origin on record (`unknown`: neither
//! raised nor lowered).

use std::time::Instant;

use oryx_core::memory::health::{self, poisoning, Check, Options};
use oryx_core::memory::{LongTermMemoryStore, MarkdownMemoryStore};
use oryx_core::names::Owner;
use serde_json::json;

use crate::{fmt_ms, gen, human, mb, Bench};

/// The most the poisoning check may add to the default health run of the big file.
const COST_GOAL: f64 = 1.05;

impl Bench {
    pub fn poisoning(&mut self) {
        let runs = self.scale.runs.clamp(3, 7);
        let big_file = self.data.memory(gen::BIG);
        let label = mb(std::fs::metadata(&big_file).unwrap().len());
        let all = Options::default();
        let without = Options {
            checks: Check::ALL
                .into_iter()
                .filter(|&c| c != Check::Poisoning)
                .collect(),
            ..Options::default()
        };
        let bytes = oryx_core::rooted_fs::read_memory(&big_file).unwrap();
        let (mut with_t, mut without_t) = (Vec::new(), Vec::new());
        let mut found = Vec::new();
        // Both in each round, which goes first taking turns (the first after a drop pays for
        // memory the other reuses), one round first unmeasured.
        for round in 0..=runs {
            drop(std::mem::take(&mut found));
            let time = |o: &Options| {
                let t = Instant::now();
                let f = health::run_markdown(&bytes, o).findings;
                (t.elapsed(), f)
            };
            let ((a, f), (b, other)) = match round % 2 {
                0 => {
                    let a = time(&all);
                    (a, time(&without))
                }
                _ => {
                    let b = time(&without);
                    (time(&all), b)
                }
            };
            found = f;
            drop(other);
            if round > 0 {
                with_t.push(a);
                without_t.push(b);
            }
        }
        with_t.sort();
        without_t.sort();
        let (a, b) = (with_t[runs / 2], without_t[runs / 2]);
        self.ratio_row(
            "poisoning_cost",
            format!(
                "health of a {label} MEMORY.md from its bytes with every check ÷ every check but \
                 poisoning"
            ),
            COST_GOAL,
            a,
            b,
            "",
        );
        let owner = Owner::Agent(gen::BIG.to_string());
        let store = MarkdownMemoryStore::new(self.data.root());
        let n = {
            let c = store.count(&owner).unwrap();
            c.core + c.archival
        };
        let big = poisoning_of(&found);
        drop(found);
        drop(bytes);

        // The other generated agents and the demo root's memories.
        let mut others = (0, Vec::new());
        for agent in (0..gen::OTHER_AGENTS).map(|i| format!("agent-{i}")) {
            let file = self.data.memory(&agent);
            let Ok(b) = std::fs::read(&file) else {
                continue;
            };
            let o = Owner::Agent(agent);
            let c = store.count(&o).unwrap();
            others.0 += c.core + c.archival;
            others
                .1
                .extend(poisoning_of(&health::run_markdown(&b, &all).findings));
        }
        let demo = self.data.dir.join("work-poisoning/demo");
        let _ = std::fs::remove_dir_all(&demo);
        oryx_core::demo::write_sample(&demo).unwrap();
        let mut demo_found = (0, Vec::new());
        let demo_store = MarkdownMemoryStore::new(&demo);
        for agent in std::fs::read_dir(demo.join("agents")).unwrap().flatten() {
            let o = Owner::Agent(agent.file_name().to_string_lossy().into_owned());
            let Ok(b) = std::fs::read(oryx_core::names::memory_path(&demo, &o)) else {
                continue;
            };
            let c = demo_store.count(&o).unwrap();
            demo_found.0 += c.core + c.archival;
            demo_found
                .1
                .extend(poisoning_of(&health::run_markdown(&b, &all).findings));
        }
        let per_k = |found: usize, n: usize| found as f64 * 1000.0 / n.max(1) as f64;
        let measured = format!(
            "big {label}: {} in {} entries ({:.3} per 1 000){}; other agents: {} in {} ({:.3} \
             per 1 000){}; demo root: {} in {} ({:.3} per 1 000){}",
            big.len(),
            human(n),
            per_k(big.len(), n),
            kinds(&big),
            others.1.len(),
            human(others.0),
            per_k(others.1.len(), others.0),
            kinds(&others.1),
            demo_found.1.len(),
            human(demo_found.0),
            per_k(demo_found.1.len(), demo_found.0),
            kinds(&demo_found.1),
        );
        eprintln!("poisoning_false_positives: {measured}");
        self.rows.push(json!({
            "id": "poisoning_false_positives",
            "what": "poisoning findings (shown with no origin on record) where no instruction was \
                     planted: the generated memories and the demo root",
            "goal": "≤ 1 per 1 000 entries",
            "measured": measured,
            "ratio": null,
            "pass": per_k(big.len() + others.1.len() + demo_found.1.len(), n + others.0 + demo_found.0) <= 1.0,
            "reproduce": self.reproduce(),
        }));

        // The labelled lines.
        let raw: serde_json::Value =
            serde_json::from_str(include_str!("../../oryx-core/tests/poisoning_cases.json"))
                .unwrap();
        let (mut tp, mut fp, mut fn_, mut tn) = (0, 0, 0, 0);
        let t = Instant::now();
        // Lines shown only when an outside channel brought them are left out: text alone here.
        for c in raw["cases"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| !c["outside_only"].as_bool().unwrap_or(false))
        {
            let text = c["text"].as_str().unwrap();
            let s = poisoning::signals(text);
            let found = poisoning::score(&s) >= poisoning::REPORT_FROM;
            match (c["poisoned"].as_bool().unwrap(), found) {
                (true, true) => tp += 1,
                (false, true) => fp += 1,
                (true, false) => fn_ += 1,
                (false, false) => tn += 1,
            }
        }
        let took = t.elapsed();
        let precision = tp as f64 / (tp + fp).max(1) as f64;
        let recall = tp as f64 / (tp + fn_).max(1) as f64;
        let measured = format!(
            "precision {precision:.2}, recall {recall:.2} ({tp} of {} poisoned lines found, {fp} \
             of {} look-alikes flagged; {} for all)",
            tp + fn_,
            fp + tn,
            fmt_ms(took)
        );
        eprintln!("poisoning_labelled: {measured}");
        self.rows.push(json!({
            "id": "poisoning_labelled",
            "what": "the poisoning check on crates/oryx-core/tests/poisoning_cases.json (zh, en \
                     and mixed lines: overrides, standing orders, role markers, hidden characters, \
                     base64; and preferences and notes written alike), text alone (orders naming no one, \
                     shown only from an outside channel, left out)",
            "goal": "precision 1.00, recall 1.00",
            "measured": measured,
            "ratio": null,
            "pass": precision >= 1.0 && recall >= 1.0,
            "reproduce": self.reproduce(),
        }));
    }
}

/// The poisoning findings a person would be shown with no origin on record.
fn poisoning_of(found: &[health::Finding]) -> Vec<(String, String)> {
    found
        .iter()
        .filter(|f| f.check == Check::Poisoning)
        .filter(|f| {
            f.params
                .get("score")
                .and_then(|s| s.parse::<u32>().ok())
                .is_some_and(|s| s >= poisoning::REPORT_FROM)
        })
        .map(|f| {
            (
                f.kind.clone(),
                f.params.get("excerpt").cloned().unwrap_or_default(),
            )
        })
        .collect()
}

/// The kinds found and a few of their excerpts, for the report.
fn kinds(found: &[(String, String)]) -> String {
    if found.is_empty() {
        return String::new();
    }
    let mut by: std::collections::BTreeMap<&str, usize> = Default::default();
    for (k, _) in found {
        *by.entry(k.as_str()).or_default() += 1;
    }
    let list: Vec<String> = by.iter().map(|(k, n)| format!("{k} {n}")).collect();
    let examples: Vec<String> = found
        .iter()
        .take(3)
        .map(|(_, e)| format!("{:?}", e.chars().take(80).collect::<String>()))
        .collect();
    format!(" [{}; e.g. {}]", list.join(", "), examples.join(", "))
}
