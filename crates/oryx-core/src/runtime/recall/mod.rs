//! `recall_memory` as the runtime answers it, with why each entry came back.
//!
//! With no embedding provider configured the answer is the store's keyword search, as it stands.
//! With one, three routes over the agent's archival entries (never core) are fused by weighted
//! reciprocal rank and the top k kept:
//! - semantic: the cosine between the query's vector and the agent's `memory_vectors` rows that
//!   are of the current model, of the query's dimension and whose entry still exists (a missing
//!   row is a missing candidate);
//! - keyword: the store's keyword hits, newest first (its stored order reversed); an entry saved
//!   twice is hit twice;
//! - recency: every entry once, newest first (no time = oldest; equal times: written later first).
//!
//! When the semantic route fails the answer is the other two with a last line saying so. On mem0
//! the runtime delegates to mem0's own search (not here: the mem0 store answers).

mod fusion;
pub mod tuning;

use std::collections::HashMap;
use std::path::Path;

use chrono::NaiveDateTime;
use serde::Serialize;

pub use fusion::{contribution, cosine, fuse, Candidate, Fused, RRF_K};

use super::config::{self, RuntimeConfig};
use super::embedder::Configured;
use super::memory_vectors::{self, VectorRow};
use crate::error::{CoreError, Result};
use crate::memory::service::recall_lines_text;
use crate::memory::{LongTermMemoryStore, RuntimeEntry};
use crate::names::Owner;

/// The line the runtime appends when the semantic route failed.
pub const DEGRADED_NOTICE: &str = "（语义检索暂不可用，已按关键词与时间返回）";

/// How many entries past the top k an explanation shows.
pub const NEAR_MISSES: usize = 5;

/// The routes, in the runtime's fusion order.
pub const ROUTES: [&str; 3] = ["semantic", "keyword", "recency"];

/// The fusion's settings: `memory.recall.weight.{semantic,keyword,recency}` and
/// `memory.recall.top-k`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Settings {
    pub weights: [f64; 3],
    pub top_k: i64,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            weights: [1.0, 1.0, 1.0],
            top_k: 20,
        }
    }
}

impl Settings {
    /// The settings the runtime starts with; an error names a value it would refuse to start
    /// with (not a number).
    pub fn of(cfg: &RuntimeConfig) -> std::result::Result<Settings, String> {
        let weight = |key: &str| {
            let v = cfg.value(key);
            parse_double(v).ok_or_else(|| format!("{key} = {v:?} is not a number"))
        };
        let top = cfg.value(config::TOP_K);
        Ok(Settings {
            weights: [
                weight(config::WEIGHT_SEMANTIC)?,
                weight(config::WEIGHT_KEYWORD)?,
                weight(config::WEIGHT_RECENCY)?,
            ],
            top_k: top
                .trim()
                .parse::<i32>()
                .map(i64::from)
                .map_err(|_| format!("{} = {top:?} is not a whole number", config::TOP_K))?,
        })
    }
}

/// A double as Java's `Double.valueOf` reads one (blanks around it allowed, an `f`/`d` suffix).
fn parse_double(v: &str) -> Option<f64> {
    let t = v.trim_matches(|c: char| c <= ' ');
    let t = t
        .strip_suffix(['d', 'D', 'f', 'F'])
        .filter(|s| !s.is_empty())
        .unwrap_or(t);
    match t {
        "NaN" => Some(f64::NAN),
        "Infinity" | "+Infinity" => Some(f64::INFINITY),
        "-Infinity" => Some(f64::NEG_INFINITY),
        _ if t.chars().all(|c| c.is_ascii_digit() || "+-.eE".contains(c)) => t.parse().ok(),
        _ => None,
    }
}

/// Which engine answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Engine {
    /// No embedding provider: the store's keyword search.
    Keyword,
    /// The three routes fused.
    Fusion,
}

/// Where an entry stood in the semantic route.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SemanticRank {
    /// From 1.
    pub rank: usize,
    pub score: f64,
}

/// Where an entry stood in the keyword route.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct KeywordRank {
    /// From 1: its best place.
    pub rank: usize,
    /// Lines of the store that hit (more than one: the text is saved more than once, and each
    /// counts).
    pub hits: usize,
}

/// Where one answer came from.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Routes {
    pub semantic: Option<SemanticRank>,
    pub keyword: Option<KeywordRank>,
    /// From 1.
    pub recency: Option<usize>,
    /// What each route added to the fused score (semantic, keyword, recency).
    pub contributions: [f64; 3],
}

/// One entry of the answer (or just below it).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Recalled {
    /// The text the agent gets: MEMORY.md's raw line, or the row's content.
    pub text: String,
    pub time: Option<NaiveDateTime>,
    /// The fused score; `None` for a keyword-only answer.
    pub score: Option<f64>,
    pub routes: Routes,
}

/// The semantic route's inputs, for the explanation.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct SemanticSide {
    /// `provider/model` of the query vector.
    pub model: Option<String>,
    pub dim: Option<usize>,
    /// The agent's rows, and those the route could use.
    pub rows: usize,
    pub usable: usize,
}

/// `recall_memory`'s answer and its explanation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Answer {
    pub engine: Engine,
    /// Why the semantic route failed (the answer then ends with [`DEGRADED_NOTICE`]).
    pub degraded: Option<String>,
    /// What the agent gets, in its order.
    pub results: Vec<Recalled>,
    /// The entries ranked just below the top k.
    pub near_misses: Vec<Recalled>,
    pub settings: Settings,
    pub semantic: SemanticSide,
    /// Archival entries considered (once each).
    pub entries: usize,
    /// The tool's result string, byte for byte.
    pub text: String,
}

/// What the runtime configured by `cfg` answers `recall_memory` with for `owner`, reading its
/// vector rows from `db_path` (markdown and sqlite stores; mem0 answers from its own search).
pub fn recall(
    store: &dyn LongTermMemoryStore,
    owner: &Owner,
    keyword: &str,
    settings: Settings,
    embedding: &Configured,
    db_path: &Path,
) -> Result<Answer> {
    let hits: Vec<String> = store
        .recall(owner, keyword)?
        .into_iter()
        .map(|e| e.line)
        .collect();
    if matches!(embedding, Configured::Off) {
        return Ok(keyword_answer(hits, settings));
    }
    if settings.top_k < 0 {
        // The runtime's fusion cannot keep a negative number of entries: its call fails.
        return Err(CoreError::InvalidInput(format!(
            "{} is {}: the runtime's recall fails on a negative top-k",
            config::TOP_K,
            settings.top_k
        )));
    }
    let entries = store.runtime_archival(owner)?;
    let agent = owner.db_key();
    Ok(fused_answer(
        &entries,
        &hits,
        settings,
        |query| semantic_route(agent, query, embedding, db_path),
        keyword,
        agent,
    ))
}

fn keyword_answer(hits: Vec<String>, settings: Settings) -> Answer {
    let mut first: HashMap<&str, (usize, usize)> = HashMap::new();
    for (i, h) in hits.iter().enumerate() {
        first.entry(h.as_str()).or_insert((i + 1, 0)).1 += 1;
    }
    let results = hits
        .iter()
        .enumerate()
        .map(|(i, h)| Recalled {
            text: h.clone(),
            time: crate::memory::markdown::runtime_text::entry_time(h),
            score: None,
            routes: Routes {
                semantic: None,
                keyword: Some(KeywordRank {
                    rank: i + 1,
                    hits: first[h.as_str()].1,
                }),
                recency: None,
                contributions: [0.0; 3],
            },
        })
        .collect();
    let lines: Vec<&str> = hits.iter().map(String::as_str).collect();
    Answer {
        engine: Engine::Keyword,
        degraded: None,
        text: recall_lines_text(&lines),
        results,
        near_misses: Vec::new(),
        settings,
        semantic: SemanticSide::default(),
        entries: hits.len(),
    }
}

/// The semantic route's candidates by entry hash, best first, and what it read.
type SemanticHits = (Vec<(String, f64)>, SemanticSide);

fn semantic_route(
    agent: &str,
    query: &str,
    embedding: &Configured,
    db_path: &Path,
) -> std::result::Result<SemanticHits, String> {
    let embedder = match embedding {
        Configured::Ready(e) => e,
        Configured::Broken { reason, .. } => return Err(reason.clone()),
        Configured::Off => return Err("no embedding provider".into()),
    };
    let vector = embedder.embed(query).map_err(|e| e.0)?;
    let rows = memory_vectors::rows(db_path, agent)
        .map_err(|e| e.to_string())?
        .unwrap_or_default();
    let model = embedder.model_id();
    let mut side = SemanticSide {
        model: Some(model.to_string()),
        dim: Some(vector.len()),
        rows: rows.len(),
        usable: 0,
    };
    let usable: Vec<&VectorRow> = rows
        .iter()
        .filter(|r| r.model == model && usize::try_from(r.dim).ok() == Some(vector.len()))
        .collect();
    side.usable = usable.len();
    let mut scored = Vec::with_capacity(usable.len());
    for r in usable {
        let score = cosine(&vector, &memory_vectors::decode(&r.embedding)).ok_or_else(|| {
            format!(
                "memory_vectors row {} holds {} floats, not {}",
                r.entry_hash,
                r.embedding.len() / 4,
                vector.len()
            )
        })?;
        scored.push((r.entry_hash.clone(), score));
    }
    Ok((scored, side))
}

/// The three routes of one query over the agent's entries, before they are weighted: what the
/// fusion ranks, and what a search over weights ranks again without asking the model twice.
#[derive(Debug, Clone)]
pub struct RouteLists<'a> {
    /// Each distinct text once, in the order first met; a candidate's id is its position here.
    pub unique: Vec<&'a RuntimeEntry>,
    pub semantic: Vec<Candidate>,
    pub keyword: Vec<Candidate>,
    pub recency: Vec<Candidate>,
    pub side: SemanticSide,
    /// Why the semantic route failed.
    pub degraded: Option<String>,
}

impl RouteLists<'_> {
    /// Every entry with its fused score under `weights`, best first.
    pub fn fuse(&self, weights: &[f64; 3]) -> Vec<Fused> {
        fuse(weights, &[&self.semantic, &self.keyword, &self.recency])
    }
}

/// The routes over `entries` (the store's archival entries, its order) and the keyword `hits`;
/// `semantic` gives the semantic route's rows by entry hash (an error degrades).
pub(crate) fn route_lists<'a>(
    entries: &'a [RuntimeEntry],
    hits: &[String],
    semantic: impl FnOnce(&str) -> std::result::Result<SemanticHits, String>,
    query: &str,
    agent: &str,
) -> RouteLists<'a> {
    let mut id_of: HashMap<&str, usize> = HashMap::with_capacity(entries.len());
    let mut unique: Vec<&RuntimeEntry> = Vec::new();
    for e in entries {
        id_of.entry(e.text.as_str()).or_insert_with(|| {
            unique.push(e);
            unique.len() - 1
        });
    }
    let keyword: Vec<Candidate> = hits
        .iter()
        .rev()
        .filter_map(|h| id_of.get(h.as_str()))
        .map(|&id| Candidate { id, score: 0.0 })
        .collect();
    let mut by_time: Vec<usize> = (0..unique.len()).collect();
    by_time.sort_by(|&a, &b| unique[b].time.cmp(&unique[a].time).then_with(|| b.cmp(&a)));
    let recency: Vec<Candidate> = by_time
        .into_iter()
        .map(|id| Candidate { id, score: 0.0 })
        .collect();

    let (semantic, side, degraded) = match semantic(query) {
        Ok((rows, side)) => {
            // Hashing every entry is only worth it when there are rows to match.
            let hash_id: HashMap<String, usize> = match rows.is_empty() {
                true => HashMap::new(),
                false => unique
                    .iter()
                    .enumerate()
                    .map(|(id, e)| (memory_vectors::entry_hash(agent, &e.text), id))
                    .collect(),
            };
            let mut route: Vec<Candidate> = rows
                .iter()
                .filter_map(|(h, score)| hash_id.get(h).map(|&id| Candidate { id, score: *score }))
                .collect();
            route.sort_by(|a, b| b.score.total_cmp(&a.score));
            (route, side, None)
        }
        Err(reason) => (Vec::new(), SemanticSide::default(), Some(reason)),
    };
    RouteLists {
        unique,
        semantic,
        keyword,
        recency,
        side,
        degraded,
    }
}

/// The routes of `keyword` as the runtime configured by `embedding` builds them; `None` when no
/// embedding provider is configured (the answer is then the store's keyword search, which no
/// weight moves).
pub fn routes<'a>(
    store: &dyn LongTermMemoryStore,
    entries: &'a [RuntimeEntry],
    owner: &Owner,
    keyword: &str,
    embedding: &Configured,
    db_path: &Path,
) -> Result<Option<RouteLists<'a>>> {
    if matches!(embedding, Configured::Off) {
        return Ok(None);
    }
    let hits: Vec<String> = store
        .recall(owner, keyword)?
        .into_iter()
        .map(|e| e.line)
        .collect();
    let agent = owner.db_key();
    Ok(Some(route_lists(
        entries,
        &hits,
        |query| semantic_route(agent, query, embedding, db_path),
        keyword,
        agent,
    )))
}

/// Fuses the routes over `entries` (the store's archival entries, its order) and the keyword
/// `hits`; `semantic` gives the semantic route's rows by entry hash (an error degrades).
pub(crate) fn fused_answer(
    entries: &[RuntimeEntry],
    hits: &[String],
    settings: Settings,
    semantic: impl FnOnce(&str) -> std::result::Result<SemanticHits, String>,
    query: &str,
    agent: &str,
) -> Answer {
    let RouteLists {
        unique,
        semantic: semantic_route,
        keyword,
        recency,
        side,
        degraded,
    } = route_lists(entries, hits, semantic, query, agent);
    let fused = fuse(&settings.weights, &[&semantic_route, &keyword, &recency]);
    let keep = usize::try_from(settings.top_k)
        .unwrap_or(0)
        .min(fused.len());
    let shown = &fused[..(keep + NEAR_MISSES).min(fused.len())];
    // Each shown entry's places, from one pass over every route.
    let mut places: HashMap<usize, Routes> =
        shown.iter().map(|f| (f.id, Routes::default())).collect();
    for (rank, c) in semantic_route.iter().enumerate() {
        if let Some(p) = places.get_mut(&c.id) {
            p.semantic = Some(SemanticRank {
                rank: rank + 1,
                score: c.score,
            });
            p.contributions[0] += contribution(settings.weights[0], rank);
        }
    }
    for (rank, c) in keyword.iter().enumerate() {
        if let Some(p) = places.get_mut(&c.id) {
            p.keyword
                .get_or_insert(KeywordRank {
                    rank: rank + 1,
                    hits: 0,
                })
                .hits += 1;
            p.contributions[1] += contribution(settings.weights[1], rank);
        }
    }
    for (rank, c) in recency.iter().enumerate() {
        if let Some(p) = places.get_mut(&c.id) {
            p.recency = Some(rank + 1);
            p.contributions[2] = contribution(settings.weights[2], rank);
        }
    }
    let explain = |f: &Fused| Recalled {
        text: unique[f.id].text.clone(),
        time: unique[f.id].time,
        score: Some(f.score),
        routes: places.remove(&f.id).unwrap_or_default(),
    };
    let mut explained = shown.iter().map(explain);
    let results: Vec<Recalled> = explained.by_ref().take(keep).collect();
    let near_misses: Vec<Recalled> = explained.collect();
    let mut lines: Vec<&str> = results.iter().map(|r| r.text.as_str()).collect();
    if degraded.is_some() {
        lines.push(DEGRADED_NOTICE);
    }
    Answer {
        engine: Engine::Fusion,
        text: recall_lines_text(&lines),
        degraded,
        results,
        near_misses,
        settings,
        semantic: side,
        entries: unique.len(),
    }
}

#[cfg(test)]
mod tests;
