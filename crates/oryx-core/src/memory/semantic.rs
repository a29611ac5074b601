//! Recall by meaning: the recall mode the settings choose — `keyword` (the
//! runtime's substring match, unchanged), `semantic` (cosine over the entries' embeddings) or
//! `hybrid` (both: a keyword match lifts an entry's score) — over an owner's core and archival
//! entries. The vectors live in the console's own store per root ([`VectorStore`]), never in
//! MEMORY.md or the runtime's database, and follow the entries incrementally: only new or
//! changed lines are embedded, vectors of vanished lines are dropped. mem0 ranks with its own
//! search; the same acceptance rule applies to its scores.
//!
//! Acceptance: the floor decides whether a query has an answer at all — its best entry must
//! reach it, or the recall is "no match" (`没有找到相关记忆`). Once the best entry reaches the
//! floor, the entries scoring within [`NEAR_BEST`] of it come along even when they are a little
//! under the floor (a paraphrase's right entry is often second or third, just under the best).
//! The answer is a superset of the per-entry floor's, in the same order: recall@1 and the false
//! matches are the same at every floor, recall@5 can only rise (docs/BENCHMARKS.md).

use std::collections::HashMap;
use std::path::Path;
use std::str::FromStr;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};

use super::entry::{Entry, Scope};
use super::format::parse_entry;
pub use super::store::Recalled;
use super::store::{contains_ci, LongTermMemoryStore, Stamp};
use crate::embed::VectorIndex;
pub use crate::embed::{EmbedderSlot, IndexCounts, SyncReport};
use crate::error::{CoreError, Result};
use crate::names::Owner;

/// How `recall_memory` (and the console's recall) finds entries.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RecallMode {
    /// Archival entries containing the keyword, all of them, in stored order (the runtime's).
    #[default]
    Keyword,
    /// Core and archival entries closest in meaning, best first; nothing when the best is under
    /// the floor (see [`NEAR_BEST`] for the others).
    Semantic,
    /// Semantic ranking where a keyword match adds [`KEYWORD_BONUS`] and is kept under the floor.
    Hybrid,
}

impl RecallMode {
    pub fn as_str(self) -> &'static str {
        match self {
            RecallMode::Keyword => "keyword",
            RecallMode::Semantic => "semantic",
            RecallMode::Hybrid => "hybrid",
        }
    }
}

/// A recall mode name that is none of keyword, semantic or hybrid.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown recall mode {0:?}: use keyword, semantic or hybrid")]
pub struct UnknownRecallMode(pub String);

impl FromStr for RecallMode {
    type Err = UnknownRecallMode;
    fn from_str(s: &str) -> std::result::Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "keyword" => Ok(RecallMode::Keyword),
            "semantic" => Ok(RecallMode::Semantic),
            "hybrid" => Ok(RecallMode::Hybrid),
            other => Err(UnknownRecallMode(other.to_string())),
        }
    }
}

/// What a keyword match adds to a hybrid score: enough to put an exact mention above most
/// paraphrases, not above a near-identical sentence.
pub const KEYWORD_BONUS: f32 = 0.3;

/// Once a query's best entry reaches the floor, how far under that best score (cosine) another
/// entry may be and still be returned with it, even under the floor. On tests/embed/eval.json
/// this returns the right entry of about one paraphrase in twenty more at the default floor
/// (recall@5 0.62 → 0.67) without changing which queries get an answer; 0.15 keeps every entry
/// of the first five that helps there, while leaving out entries far below the best.
pub const NEAR_BEST: f32 = 0.15;

/// The recall settings in effect.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RecallConfig {
    pub mode: RecallMode,
    /// Cosine the best entry must reach for a semantic or hybrid recall to answer anything
    /// (entries within [`NEAR_BEST`] of that best come along).
    pub floor: f32,
    /// Most entries a semantic or hybrid recall returns (keyword returns every match).
    pub limit: usize,
}

impl Default for RecallConfig {
    fn default() -> Self {
        RecallConfig {
            mode: RecallMode::Keyword,
            floor: crate::embed::DEFAULT_FLOOR,
            limit: DEFAULT_RECALL_LIMIT,
        }
    }
}

pub const DEFAULT_RECALL_LIMIT: usize = 5;

/// An owner's entries, each once, as the index keys them: the section and the stored line
/// (a changed line is a new key; the same line twice is one entry).
fn keyed_entries(memory: &dyn LongTermMemoryStore, owner: &Owner) -> Result<Vec<(String, String)>> {
    let all = memory.load_all(owner)?;
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::with_capacity(all.core.len() + all.archival.len());
    for (scope, entries) in [(Scope::Core, &all.core), (Scope::Archival, &all.archival)] {
        for e in entries {
            let key = entry_key(scope, &e.line);
            if seen.insert(key.clone()) {
                out.push((key, e.content.clone()));
            }
        }
    }
    Ok(out)
}

fn entry_key(scope: Scope, line: &str) -> String {
    let tag = match scope {
        Scope::Core => 'c',
        Scope::Archival => 'a',
    };
    format!("{tag}:{line}")
}

/// The entry a key names, rebuilt from the line it holds.
fn entry_of_key(key: &str) -> Option<(Scope, Entry)> {
    let (tag, line) = key.split_once(':')?;
    let scope = match tag {
        "c" => Scope::Core,
        "a" => Scope::Archival,
        _ => return None,
    };
    Some((scope, parse_entry(line)))
}

fn owner_key(owner: &Owner) -> String {
    owner.agent_name().unwrap_or("__global__").to_string()
}

/// The vectors of one root's long-term memory entries, kept in step with them.
pub struct SemanticIndex {
    vectors: Arc<VectorIndex>,
    /// Each owner's last full sync: while the entries' stamp and the vector file's version
    /// (moved by another process's writes) are unchanged, nothing needs reading again.
    synced: Mutex<HashMap<String, Synced>>,
}

#[derive(Debug, Clone, PartialEq)]
struct Synced {
    stamp: Stamp,
    vectors_version: i64,
    /// Distinct entries the owner had, all of them with vectors.
    entries: usize,
}

impl SemanticIndex {
    pub fn new(vectors: Arc<VectorIndex>) -> Self {
        SemanticIndex {
            vectors,
            synced: Mutex::new(HashMap::new()),
        }
    }

    pub fn vectors(&self) -> &Arc<VectorIndex> {
        &self.vectors
    }

    pub fn embedder(&self) -> &Arc<EmbedderSlot> {
        self.vectors.embedder()
    }

    pub fn store_path(&self) -> &Path {
        self.vectors.store_path()
    }

    /// The owner's last sync, when nothing has changed since.
    fn fresh(&self, memory: &dyn LongTermMemoryStore, owner: &Owner) -> Option<Synced> {
        let stamp = memory.stamp(owner)?;
        let last = self
            .synced
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&owner_key(owner))
            .cloned()?;
        let version = self.vectors.version().ok()?;
        (last.stamp == stamp && last.vectors_version == version).then_some(last)
    }

    /// Brings the owner's vectors in line with its entries (see [`VectorIndex::sync`]).
    pub fn sync(
        &self,
        memory: &dyn LongTermMemoryStore,
        owner: &Owner,
        cancel: &AtomicBool,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<SyncReport> {
        let stamp = memory.stamp(owner);
        let entries = keyed_entries(memory, owner)?;
        let key = owner_key(owner);
        let report = self.vectors.sync(&key, &entries, cancel, progress)?;
        if let Some(stamp) = stamp {
            let synced = Synced {
                stamp,
                vectors_version: self.vectors.version()?,
                entries: entries.len(),
            };
            self.synced
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .insert(key, synced);
        }
        Ok(report)
    }

    /// How much of the owner's memory has vectors for its current text (embeds nothing; reads
    /// the entries only when they changed since the last sync — the UI polls this).
    pub fn counts(&self, memory: &dyn LongTermMemoryStore, owner: &Owner) -> Result<IndexCounts> {
        if let Some(last) = self.fresh(memory, owner) {
            return Ok(IndexCounts {
                entries: last.entries,
                indexed: last.entries,
                orphaned: 0,
            });
        }
        let entries = keyed_entries(memory, owner)?;
        self.vectors.counts(&owner_key(owner), &entries)
    }

    /// Drops every vector of this root (they are rebuilt on the next recall or build).
    pub fn clear(&self) -> Result<usize> {
        self.synced
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clear();
        self.vectors.clear()
    }

    /// The owner's entries scored against `query`, best first (after a sync when the entries
    /// changed since the last one).
    fn scored(
        &self,
        memory: &dyn LongTermMemoryStore,
        owner: &Owner,
        query: &str,
        k: usize,
        floor: f32,
    ) -> Result<Vec<Recalled>> {
        if self.fresh(memory, owner).is_none() {
            self.sync(memory, owner, &AtomicBool::new(false), &mut |_, _| {})?;
        }
        let before = self.vectors.version().ok();
        let mut hits = self.vectors.search(&owner_key(owner), query, k, floor)?;
        // Damaged vectors dropped while searching are embedded again and the search repeated.
        if self.vectors.version().ok() != before {
            self.sync(memory, owner, &AtomicBool::new(false), &mut |_, _| {})?;
            hits = self.vectors.search(&owner_key(owner), query, k, floor)?;
        }
        Ok(hits
            .into_iter()
            .filter_map(|h| {
                entry_of_key(&h.key).map(|(scope, entry)| Recalled {
                    id: None,
                    scope,
                    entry,
                    score: Some(h.score),
                })
            })
            .collect())
    }
}

/// Recall in `cfg.mode` for `query`. Keyword mode is the store's own recall (every archival
/// match, stored order, no score); the others rank by meaning, at most `cfg.limit`, nothing
/// when the best cosine is under `cfg.floor`, else the entries at or above the floor and those
/// within [`NEAR_BEST`] of the best (a hybrid keyword match is kept whatever its cosine).
pub fn recall(
    memory: &dyn LongTermMemoryStore,
    index: Option<&SemanticIndex>,
    owner: &Owner,
    query: &str,
    cfg: &RecallConfig,
) -> Result<Vec<Recalled>> {
    if cfg.mode == RecallMode::Keyword {
        return Ok(memory
            .recall(owner, query)?
            .into_iter()
            .map(|entry| Recalled {
                id: None,
                scope: Scope::Archival,
                entry,
                score: None,
            })
            .collect());
    }
    if let Some(found) = memory.search(owner, query, cfg.limit.max(1) * 4)? {
        return Ok(rank(found, query, cfg));
    }
    let Some(index) = index else {
        return Err(CoreError::BackendUnavailable(
            "semantic recall needs the console's vector index, which this host did not set up"
                .into(),
        ));
    };
    let candidates = match cfg.mode {
        // Every entry, so that a keyword match under the floor can still rise.
        RecallMode::Hybrid => index.scored(memory, owner, query, usize::MAX, -1.0)?,
        // Nothing under floor - NEAR_BEST can be accepted, whatever the best is.
        _ => index.scored(memory, owner, query, cfg.limit, cfg.floor - NEAR_BEST)?,
    };
    Ok(rank(candidates, query, cfg))
}

/// The score an entry needs to be returned, given the best score of the query's candidates:
/// the floor when the best is under it (then nothing passes by its score), else the floor or
/// [`NEAR_BEST`] under the best, whichever is lower.
pub fn acceptance_bar(best: f32, floor: f32) -> f32 {
    if best >= floor {
        floor.min(best - NEAR_BEST)
    } else {
        floor
    }
}

/// Applies the mode's rule to scored candidates: the acceptance bar, the hybrid bonus, the
/// limit.
fn rank(mut found: Vec<Recalled>, query: &str, cfg: &RecallConfig) -> Vec<Recalled> {
    let needle = query.trim().to_lowercase();
    let best = found
        .iter()
        .map(|r| r.score.unwrap_or(0.0))
        .fold(f32::NEG_INFINITY, f32::max);
    let bar = acceptance_bar(best, cfg.floor);
    if cfg.mode == RecallMode::Hybrid {
        found.retain_mut(|r| {
            let cos = r.score.unwrap_or(0.0);
            let hit = !needle.is_empty() && contains_ci(&r.entry.content, &needle);
            r.score = Some(cos + if hit { KEYWORD_BONUS } else { 0.0 });
            hit || cos >= bar
        });
    } else {
        found.retain(|r| r.score.unwrap_or(0.0) >= bar);
    }
    found.sort_by(|a, b| {
        b.score
            .unwrap_or(0.0)
            .total_cmp(&a.score.unwrap_or(0.0))
            .then_with(|| a.entry.line.cmp(&b.entry.line))
    });
    found.truncate(cfg.limit);
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::MarkdownMemoryStore;

    fn slot() -> Arc<EmbedderSlot> {
        let s = EmbedderSlot::new(crate::embed::default_model_dir());
        assert!(
            s.present(),
            "the embedding model is missing at {}: run `make model`",
            s.dir().display()
        );
        Arc::new(s)
    }

    fn setup(lines: &[(Scope, &str)]) -> (tempfile::TempDir, MarkdownMemoryStore, SemanticIndex) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        std::fs::create_dir_all(root.join("memory")).unwrap();
        let store = MarkdownMemoryStore::new(&root);
        for (scope, text) in lines {
            store.append(&Owner::Global, *scope, text, None).unwrap();
        }
        let index = SemanticIndex::new(Arc::new(VectorIndex::new(slot(), dir.path().join("v.db"))));
        (dir, store, index)
    }

    fn cfg(mode: RecallMode) -> RecallConfig {
        RecallConfig {
            mode,
            ..RecallConfig::default()
        }
    }

    #[test]
    fn modes_parse_and_print() {
        for m in [
            RecallMode::Keyword,
            RecallMode::Semantic,
            RecallMode::Hybrid,
        ] {
            assert_eq!(m.as_str().parse::<RecallMode>().unwrap(), m);
        }
        assert_eq!(
            " Hybrid ".parse::<RecallMode>().unwrap(),
            RecallMode::Hybrid
        );
        assert!("fuzzy".parse::<RecallMode>().is_err());
    }

    #[test]
    fn semantic_recall_finds_a_paraphrase_in_core_and_across_languages() {
        let (_d, store, index) = setup(&[
            (Scope::Core, "用户偏好简洁的回复，不用列表。"),
            (
                Scope::Archival,
                "The user's cat is named Mochi and is three years old.",
            ),
            (
                Scope::Archival,
                "The deploy pipeline runs on GitHub Actions every night.",
            ),
        ]);
        let got = recall(
            &store,
            Some(&index),
            &Owner::Global,
            "用户喜欢什么样的回答风格",
            &cfg(RecallMode::Semantic),
        )
        .unwrap();
        assert_eq!(got[0].entry.content, "用户偏好简洁的回复，不用列表。");
        assert_eq!(got[0].scope, Scope::Core);
        let got = recall(
            &store,
            Some(&index),
            &Owner::Global,
            "用户的猫叫什么名字",
            &cfg(RecallMode::Semantic),
        )
        .unwrap();
        assert_eq!(
            got[0].entry.content,
            "The user's cat is named Mochi and is three years old."
        );
        assert!(
            got[0].entry.timestamp.is_some(),
            "an archival entry keeps its time"
        );
        // Keyword mode is the runtime's: nothing for a paraphrase.
        let got = recall(
            &store,
            Some(&index),
            &Owner::Global,
            "pet",
            &cfg(RecallMode::Keyword),
        )
        .unwrap();
        assert!(got.is_empty());
    }

    #[test]
    fn an_unrelated_query_finds_nothing_above_the_floor() {
        let (_d, store, index) = setup(&[
            (Scope::Archival, "用户的猫叫年糕，三岁。"),
            (
                Scope::Archival,
                "The deploy pipeline runs on GitHub Actions every night.",
            ),
        ]);
        let c = RecallConfig {
            mode: RecallMode::Semantic,
            floor: 0.45,
            limit: 5,
        };
        let got = recall(
            &store,
            Some(&index),
            &Owner::Global,
            "量子力学的薛定谔方程",
            &c,
        )
        .unwrap();
        assert!(got.is_empty(), "{got:?}");
    }

    #[test]
    fn hybrid_lifts_keyword_matches_and_keeps_them_under_the_floor() {
        let (_d, store, index) = setup(&[
            (
                Scope::Archival,
                "ticket ZX-4411 was closed by the on-call engineer",
            ),
            (Scope::Archival, "the user likes green tea in the afternoon"),
        ]);
        let c = RecallConfig {
            mode: RecallMode::Hybrid,
            floor: 0.99,
            limit: 5,
        };
        let got = recall(&store, Some(&index), &Owner::Global, "zx-4411", &c).unwrap();
        assert_eq!(got.len(), 1, "{got:?}");
        assert!(got[0].entry.content.starts_with("ticket ZX-4411"));
        assert!(got[0].score.unwrap() >= KEYWORD_BONUS);
    }

    #[test]
    fn the_index_follows_appends_and_a_runtime_rewrite() {
        let (_d, store, index) = setup(&[(Scope::Archival, "first entry about tea")]);
        let cancel = AtomicBool::new(false);
        let r = index
            .sync(&store, &Owner::Global, &cancel, &mut |_, _| {})
            .unwrap();
        assert_eq!((r.embedded, r.removed, r.total), (1, 0, 1));
        // Nothing changed: nothing embedded.
        let r = index
            .sync(&store, &Owner::Global, &cancel, &mut |_, _| {})
            .unwrap();
        assert_eq!(r.embedded, 0);
        store
            .append(
                &Owner::Global,
                Scope::Archival,
                "second entry about coffee",
                None,
            )
            .unwrap();
        let r = index
            .sync(&store, &Owner::Global, &cancel, &mut |_, _| {})
            .unwrap();
        assert_eq!((r.embedded, r.total), (1, 2));
        // A rewrite the way the runtime does it (temp file, rename) without the first entry.
        let path = store.path(&Owner::Global);
        let text = std::fs::read_to_string(&path).unwrap();
        let kept: String = text
            .lines()
            .filter(|l| !l.contains("first entry"))
            .map(|l| format!("{l}\n"))
            .collect();
        let tmp = path.with_extension("tmp");
        std::fs::write(&tmp, kept).unwrap();
        std::fs::rename(&tmp, &path).unwrap();
        let counts = index.counts(&store, &Owner::Global).unwrap();
        assert_eq!((counts.entries, counts.indexed, counts.orphaned), (1, 1, 1));
        let got = recall(
            &store,
            Some(&index),
            &Owner::Global,
            "tea",
            &cfg(RecallMode::Semantic),
        )
        .unwrap();
        assert!(
            got.iter().all(|r| !r.entry.content.contains("first")),
            "{got:?}"
        );
        let counts = index.counts(&store, &Owner::Global).unwrap();
        assert_eq!(counts.orphaned, 0, "the recall synced first");
        assert_eq!(index.clear().unwrap(), 1);
        assert_eq!(index.counts(&store, &Owner::Global).unwrap().indexed, 0);
    }

    #[test]
    fn a_cancelled_sync_keeps_nothing_half_done_and_can_resume() {
        let lines: Vec<String> = (0..150)
            .map(|i| format!("note number {i} about topic {}", i % 7))
            .collect();
        let refs: Vec<(Scope, &str)> = lines
            .iter()
            .map(|l| (Scope::Archival, l.as_str()))
            .collect();
        let (_d, store, index) = setup(&refs);
        let cancel = AtomicBool::new(false);
        let err = index
            .sync(&store, &Owner::Global, &cancel, &mut |done, _| {
                if done >= crate::embed::SYNC_STEP {
                    cancel.store(true, std::sync::atomic::Ordering::Relaxed);
                }
            })
            .unwrap_err();
        assert!(matches!(err, CoreError::Cancelled), "{err:?}");
        let counts = index.counts(&store, &Owner::Global).unwrap();
        assert_eq!(
            counts.indexed,
            crate::embed::SYNC_STEP,
            "the finished step is kept"
        );
        cancel.store(false, std::sync::atomic::Ordering::Relaxed);
        let r = index
            .sync(&store, &Owner::Global, &cancel, &mut |_, _| {})
            .unwrap();
        assert_eq!(r.embedded, 150 - crate::embed::SYNC_STEP);
    }

    #[test]
    fn counts_after_a_sync_need_no_reading_until_another_process_writes_vectors() {
        let (dir, store, index) = setup(&[(Scope::Archival, "the report goes out on Friday")]);
        let cancel = AtomicBool::new(false);
        index
            .sync(&store, &Owner::Global, &cancel, &mut |_, _| {})
            .unwrap();
        let c = index.counts(&store, &Owner::Global).unwrap();
        assert_eq!((c.entries, c.indexed), (1, 1));
        // Another console process (its own connection to the same file) clears the vectors.
        let other = VectorIndex::new(slot(), dir.path().join("v.db"));
        assert_eq!(other.clear().unwrap(), 1);
        let c = index.counts(&store, &Owner::Global).unwrap();
        assert_eq!((c.entries, c.indexed), (1, 0), "not the cached figure");
        let got = recall(
            &store,
            Some(&index),
            &Owner::Global,
            "when is the report sent?",
            &RecallConfig {
                mode: RecallMode::Semantic,
                floor: 0.0,
                limit: 5,
            },
        )
        .unwrap();
        assert_eq!(got.len(), 1, "the recall re-synced first");
    }

    fn scored_entry(text: &str, score: f32) -> Recalled {
        Recalled {
            id: None,
            scope: Scope::Archival,
            entry: parse_entry(&format!("- {text}")),
            score: Some(score),
        }
    }

    fn texts(found: &[Recalled]) -> Vec<&str> {
        found.iter().map(|r| r.entry.content.as_str()).collect()
    }

    #[test]
    fn the_floor_gates_the_best_entry_and_near_ones_come_along() {
        let c = RecallConfig {
            mode: RecallMode::Semantic,
            floor: 0.3,
            limit: 5,
        };
        let found = || {
            vec![
                scored_entry("far", 0.05),
                scored_entry("near", 0.22),
                scored_entry("best", 0.31),
                scored_entry("above", 0.30),
            ]
        };
        // The best reaches the floor: the one under it but within NEAR_BEST comes along, the
        // far one does not (a per-entry floor would drop "near" too).
        let got = rank(found(), "q", &c);
        assert_eq!(texts(&got), ["best", "above", "near"]);
        // The best under the floor: no answer at all.
        let got = rank(found(), "q", &RecallConfig { floor: 0.32, ..c });
        assert!(got.is_empty(), "{got:?}");
        // A high best does not lift the bar over the floor: everything above it stays.
        let got = rank(
            vec![scored_entry("top", 0.9), scored_entry("floor", 0.3)],
            "q",
            &c,
        );
        assert_eq!(texts(&got), ["top", "floor"]);
        assert_eq!(acceptance_bar(0.31, 0.3), 0.31 - NEAR_BEST);
        assert_eq!(acceptance_bar(0.9, 0.3), 0.3);
        assert_eq!(acceptance_bar(0.29, 0.3), 0.3);
    }

    #[test]
    fn hybrid_applies_the_same_gate_and_keeps_keyword_matches() {
        let c = RecallConfig {
            mode: RecallMode::Hybrid,
            floor: 0.3,
            limit: 5,
        };
        let found = || {
            vec![
                scored_entry("best", 0.31),
                scored_entry("near", 0.2),
                scored_entry("ticket zx-1 closed", 0.02),
                scored_entry("far", 0.1),
            ]
        };
        let got = rank(found(), "zx-1", &c);
        assert_eq!(texts(&got), ["ticket zx-1 closed", "best", "near"]);
        // Best under the floor: only the keyword match.
        let got = rank(found(), "zx-1", &RecallConfig { floor: 0.4, ..c });
        assert_eq!(texts(&got), ["ticket zx-1 closed"]);
    }

    #[test]
    fn an_entry_just_under_the_floor_comes_with_a_best_just_above_it() {
        let (_d, store, index) = setup(&[
            (Scope::Archival, "春天用户会花粉过敏，出门要带抗过敏药。"),
            (Scope::Archival, "用户对花生严重过敏。"),
            (
                Scope::Archival,
                "The deploy pipeline runs on GitHub Actions every night.",
            ),
        ]);
        // From the eval set: the right entry (peanuts) is second, a little under the best.
        let q = "Is there any food that could trigger an allergic reaction?";
        let all = recall(
            &store,
            Some(&index),
            &Owner::Global,
            q,
            &RecallConfig {
                mode: RecallMode::Semantic,
                floor: 0.0,
                limit: 5,
            },
        )
        .unwrap();
        let scores: Vec<f32> = all.iter().map(|r| r.score.unwrap()).collect();
        assert!(
            scores.len() >= 2 && scores[0] - scores[1] < NEAR_BEST,
            "{all:?}"
        );
        // A floor between the two best scores: both are returned, the second under the floor.
        let floor = (scores[0] + scores[1]) / 2.0;
        let c = RecallConfig {
            mode: RecallMode::Semantic,
            floor,
            limit: 5,
        };
        let got = recall(&store, Some(&index), &Owner::Global, q, &c).unwrap();
        assert_eq!(texts(&got)[..2], texts(&all)[..2], "{got:?}");
        assert!(got[1].score.unwrap() < floor);
        assert!(got
            .iter()
            .all(|r| r.score.unwrap() >= scores[0] - NEAR_BEST));
        // A floor over the best: no match.
        let c = RecallConfig {
            floor: scores[0] + 0.01,
            ..c
        };
        assert!(recall(&store, Some(&index), &Owner::Global, q, &c)
            .unwrap()
            .is_empty());
    }

    #[test]
    fn keys_round_trip_to_entries() {
        let e = parse_entry("- [2026-07-22 09:30:00] a: b");
        let (scope, back) = entry_of_key(&entry_key(Scope::Archival, &e.line)).unwrap();
        assert_eq!((scope, back), (Scope::Archival, e));
        assert!(entry_of_key("x:y").is_none());
    }
}
