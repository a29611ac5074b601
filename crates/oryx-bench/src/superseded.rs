//! The `superseded` group: precision and recall of superseded-fact detection on the labelled
//! set (tests/superseded/pairs.json), on its tuning half (even positions, which the rules'
//! thresholds were chosen on) and its held-out half, per language; and the time to find the
//! pairs of an owner with ~2 000 entries (each entry embedded once, then the rules).

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use oryx_core::embed::{cosine, Embedder};
use oryx_core::memory::superseded::{self, judge, Thresholds};
use serde_json::Value;

use crate::{fmt_ms, Bench};

struct Labelled {
    lang: String,
    older: String,
    newer: String,
    want: bool,
}

fn labelled_set() -> Vec<Labelled> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/superseded/pairs.json");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    v["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| Labelled {
            lang: p["lang"].as_str().unwrap().to_string(),
            older: p["older"].as_str().unwrap().to_string(),
            newer: p["newer"].as_str().unwrap().to_string(),
            want: p["superseded"].as_bool().unwrap(),
        })
        .collect()
}

#[derive(Default, Clone, Copy)]
struct Counts {
    tp: usize,
    fp: usize,
    fn_: usize,
    n: usize,
}

impl Counts {
    fn cell(&self) -> String {
        let p = self.tp as f64 / (self.tp + self.fp).max(1) as f64;
        let r = self.tp as f64 / (self.tp + self.fn_).max(1) as f64;
        format!("P {p:.2} R {r:.2} (n {})", self.n)
    }
}

/// A memory of `n` entries like an agent's: facts of many slots, some restated with another
/// value later, many events and additions.
fn synthetic(n: usize) -> Vec<String> {
    let cities = [
        "北京", "上海", "深圳", "杭州", "Berlin", "Paris", "Tokyo", "Seattle",
    ];
    let drinks = ["tea", "coffee", "乌龙茶", "latte", "juice"];
    let people = ["Alice", "Bob", "老王", "小李", "Sarah", "David"];
    (0..n)
        .map(|i| {
            let c = cities[i % cities.len()];
            let d = drinks[i % drinks.len()];
            let p = people[i % people.len()];
            match i % 10 {
                0 => format!("用户住在{c}"),
                1 => format!("User prefers {d} in the morning"),
                2 => format!("{p}'s phone number is 555-{:03}-{:04}", i % 1000, i),
                3 => format!(
                    "第{i}次会议：周{}下午讨论项目进度",
                    ["一", "三", "五"][i % 3]
                ),
                4 => format!("User read chapter {i} of the Rust book"),
                5 => format!("用户搬到{c}了"),
                6 => format!("Meeting with {p} on ticket #{i}"),
                7 => format!("用户今天跑了{}公里", i % 13 + 1),
                8 => format!("User switched to {d}"),
                _ => format!("用户记录：第{i}条笔记，关于{c}的旅行计划"),
            }
        })
        .collect()
}

impl Bench {
    pub(crate) fn superseded(&mut self) {
        let embedder = Embedder::load(&oryx_core::embed::default_model_dir())
            .unwrap_or_else(|e| panic!("{e}"));
        let set = labelled_set();
        let texts: Vec<&str> = set
            .iter()
            .flat_map(|p| [p.older.as_str(), p.newer.as_str()])
            .collect();
        let vectors = embedder
            .embed_batch(&texts, &AtomicBool::new(false))
            .unwrap();
        let t = Thresholds::default();
        // [half][lang]: half 0 tuning, 1 held out; lang zh, en, mixed, all.
        let mut c = [[Counts::default(); 4]; 2];
        for (k, p) in set.iter().enumerate() {
            let cos = cosine(&vectors[2 * k], &vectors[2 * k + 1]);
            let got = judge(&p.older, &p.newer, cos, &t).is_some();
            let lang = match p.lang.as_str() {
                "zh" => 0,
                "en" => 1,
                _ => 2,
            };
            for l in [lang, 3] {
                let x = &mut c[k % 2][l];
                x.n += 1;
                match (got, p.want) {
                    (true, true) => x.tp += 1,
                    (true, false) => x.fp += 1,
                    (false, true) => x.fn_ += 1,
                    _ => {}
                }
            }
        }
        let negatives = set.iter().filter(|p| !p.want).count();
        for (half, name) in [(0, "tuning"), (1, "held_out")] {
            let q = &c[half];
            let measured = format!(
                "all {} · zh {} · en {} · mixed {}",
                q[3].cell(),
                q[0].cell(),
                q[1].cell(),
                q[2].cell()
            );
            self.info_row(
                &format!("superseded_quality_{name}"),
                format!(
                    "superseded facts, {} half of tests/superseded/pairs.json ({} pairs in all, \
                     {negatives} look-alike negatives; the thresholds were chosen on the \
                     tuning half)",
                    name.replace('_', "-"),
                    set.len()
                ),
                measured,
            );
        }
        // Time on an owner of 2 000 entries: embedding once, then candidates and rules.
        let n = 2000;
        let texts = synthetic(n);
        let started = Instant::now();
        let vectors = embedder
            .embed_batch(&texts, &AtomicBool::new(false))
            .unwrap();
        let embed = started.elapsed();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let mut found = 0;
        let rules = crate::median(3, || {
            found = superseded::find(&refs, &vectors, &t).len();
        });
        self.info_row(
            "superseded_time_2000",
            format!("superseded facts of one owner with {n} entries (synthetic, zh and en)"),
            format!(
                "embedding {} (once per entry; cached after) + pairs and rules {} ({found} pairs)",
                fmt_ms(embed),
                fmt_ms(rules)
            ),
        );
    }
}
