//! What the agent gets from `recall_memory`, and why: the runtime's engine as its install
//! configures it (fused routes, keyword only, or mem0's own search), each result with its place
//! in every route, the entries just below the cut, and a trial of other weights and top-k before
//! they are saved.

use serde::{Deserialize, Serialize};
#[cfg(feature = "specta")]
use specta::Type;

use oryx_core::memory::Backend;
use oryx_core::names::Owner;
use oryx_core::runtime::embedder::Configured;
use oryx_core::runtime::recall::{self as engine, Recalled, Settings};

use crate::services::Services;
use crate::{ApiError, ApiResult, Console};

/// The fusion's settings: the route weights and how many entries are kept.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
#[serde(rename_all = "camelCase")]
pub struct RecallSettingsDto {
    pub semantic: f64,
    pub keyword: f64,
    pub recency: f64,
    pub top_k: i32,
}

impl From<Settings> for RecallSettingsDto {
    fn from(s: Settings) -> Self {
        RecallSettingsDto {
            semantic: s.weights[0],
            keyword: s.weights[1],
            recency: s.weights[2],
            top_k: i32::try_from(s.top_k).unwrap_or(i32::MAX),
        }
    }
}

impl RecallSettingsDto {
    /// The values of these settings that differ from `from`, as values of the runtime's
    /// configuration for `set_runtime_values`.
    pub fn runtime_values_from(
        &self,
        from: &RecallSettingsDto,
    ) -> crate::runtime::SetRuntimeValuesArgs {
        use oryx_core::runtime::config as rc;
        let all = [
            (rc::WEIGHT_SEMANTIC, self.semantic, from.semantic),
            (rc::WEIGHT_KEYWORD, self.keyword, from.keyword),
            (rc::WEIGHT_RECENCY, self.recency, from.recency),
            (rc::TOP_K, f64::from(self.top_k), f64::from(from.top_k)),
        ];
        crate::runtime::SetRuntimeValuesArgs {
            values: all
                .into_iter()
                .filter(|(_, now, before)| now != before)
                .map(|(key, value, _)| crate::runtime::SetRuntimeValueArgs {
                    key: key.to_string(),
                    value: value.to_string(),
                })
                .collect(),
        }
    }
}

impl From<RecallSettingsDto> for Settings {
    fn from(d: RecallSettingsDto) -> Self {
        Settings {
            weights: [d.semantic, d.keyword, d.recency],
            top_k: i64::from(d.top_k),
        }
    }
}

#[derive(Debug, Clone, Default, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct AgentRecallArgs {
    #[serde(default)]
    pub agent: Option<String>,
    pub keyword: String,
    /// Settings to try instead of the runtime's (nothing is saved).
    #[serde(default)]
    pub trial: Option<RecallSettingsDto>,
}

/// Which engine answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
#[serde(rename_all = "snake_case")]
pub enum RecallEngineDto {
    /// Three routes fused (an embedding provider is configured).
    Fusion,
    /// The store's keyword search (no embedding provider, or no runtime).
    Keyword,
    /// The store's own search (mem0).
    Delegated,
}

/// The embedding provider as the runtime sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct EmbeddingStateDto {
    /// `off`, `ready` or `broken`.
    pub state: String,
    pub provider: String,
    /// `provider/model` of the vectors it makes.
    pub model: Option<String>,
    /// Why it cannot be built (`broken`).
    pub reason: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct SemanticPlaceDto {
    pub rank: u32,
    /// Cosine similarity to the query.
    pub score: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct KeywordPlaceDto {
    pub rank: u32,
    /// Lines that hit (a text saved twice counts twice).
    pub hits: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct RecencyPlaceDto {
    pub rank: u32,
}

/// Each route's place for one entry and what it added to the fused score.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct RecallRoutesDto {
    pub semantic: Option<SemanticPlaceDto>,
    pub keyword: Option<KeywordPlaceDto>,
    pub recency: Option<RecencyPlaceDto>,
    /// Weighted contributions: semantic, keyword, recency.
    pub contributions: Vec<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct AgentRecalledDto {
    /// The console's id of the entry (absent when no entry shows this text, e.g. a line the
    /// console does not read as an entry).
    pub id: Option<String>,
    /// The text the agent gets.
    pub content: String,
    pub timestamp: Option<String>,
    /// The fused score (absent for a keyword answer).
    pub score: Option<f64>,
    pub routes: RecallRoutesDto,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct AgentRecallDto {
    pub agent: Option<String>,
    pub keyword: String,
    pub engine: RecallEngineDto,
    /// Why the semantic route failed: the answer ends with the runtime's notice.
    pub degraded: Option<String>,
    /// The tool's result, byte for byte.
    pub text: String,
    pub results: Vec<AgentRecalledDto>,
    /// Ranked just below the top k.
    pub near_misses: Vec<AgentRecalledDto>,
    /// The settings this answer ran with, and the runtime's own.
    pub settings: RecallSettingsDto,
    pub configured: RecallSettingsDto,
    pub trial: bool,
    /// The runtime would refuse its configured settings (not a number).
    pub settings_problem: Option<String>,
    pub embedding: EmbeddingStateDto,
    /// Vector rows of the agent, those the semantic route could use, the query's dimension.
    pub vector_rows: u32,
    pub usable_rows: u32,
    pub query_dim: Option<u32>,
    /// Archival entries the routes ranked.
    pub entries: u32,
    /// No runtime reads this root: `text` is the console's own tool path's answer (the recall
    /// mode in Settings), with no explanation.
    pub bare_root: bool,
}

fn u(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

fn embedding_dto(c: &Configured) -> EmbeddingStateDto {
    match c {
        Configured::Off => EmbeddingStateDto {
            state: "off".into(),
            provider: String::new(),
            model: None,
            reason: None,
        },
        Configured::Broken { provider, reason } => EmbeddingStateDto {
            state: "broken".into(),
            provider: provider.clone(),
            model: None,
            reason: Some(reason.clone()),
        },
        Configured::Ready(e) => EmbeddingStateDto {
            state: "ready".into(),
            provider: c.provider().to_string(),
            model: Some(e.model_id().to_string()),
            reason: None,
        },
    }
}

/// The console's ids of the texts the agent gets: the first entry showing each text.
struct Ids {
    by_text: std::collections::HashMap<String, String>,
}

/// The owner's archival entries as (console id, the text the runtime's recall answers with):
/// MEMORY.md's raw line, or the row's content.
pub(crate) fn archival_texts(rt: &Services, owner: &Owner) -> ApiResult<Vec<(String, String)>> {
    let all = rt.memory.store().load_all(owner)?;
    let sqlite = rt.memory.backend() == Backend::Sqlite;
    Ok(all
        .archival
        .iter()
        .enumerate()
        .filter_map(|(i, e)| {
            let key = if sqlite { &e.content } else { &e.line };
            Some((all.id(oryx_core::memory::Scope::Archival, i)?, key.clone()))
        })
        .collect())
}

impl Ids {
    fn of(rt: &Services, owner: &Owner) -> Ids {
        let mut by_text = std::collections::HashMap::new();
        for (id, key) in archival_texts(rt, owner).unwrap_or_default() {
            by_text.entry(key).or_insert(id);
        }
        Ids { by_text }
    }

    fn dto(&self, r: &Recalled) -> AgentRecalledDto {
        AgentRecalledDto {
            id: self
                .by_text
                .get(&r.text)
                .or_else(|| self.by_text.get(r.text.trim_end()))
                .cloned(),
            content: r.text.clone(),
            timestamp: crate::dto::ts(&r.time),
            score: r.score,
            routes: RecallRoutesDto {
                semantic: r.routes.semantic.map(|s| SemanticPlaceDto {
                    rank: u(s.rank),
                    score: s.score,
                }),
                keyword: r.routes.keyword.map(|k| KeywordPlaceDto {
                    rank: u(k.rank),
                    hits: u(k.hits),
                }),
                recency: r.routes.recency.map(|r| RecencyPlaceDto { rank: u(r) }),
                contributions: r.routes.contributions.to_vec(),
            },
        }
    }
}

impl Console {
    /// What `recall_memory(keyword)` gives the agent, and why.
    pub fn agent_recall(
        &self,
        agent: Option<&str>,
        keyword: &str,
        trial: Option<RecallSettingsDto>,
    ) -> ApiResult<AgentRecallDto> {
        agent_recall_in(&self.services(), agent, keyword, trial)
    }
}

/// [`Console::agent_recall`] over the services given (a background run holds its own).
pub(crate) fn agent_recall_in(
    rt: &Services,
    agent: Option<&str>,
    keyword: &str,
    trial: Option<RecallSettingsDto>,
) -> ApiResult<AgentRecallDto> {
    let owner = rt.owner(agent)?;
    if let Some(t) = &trial {
        check_trial(t)?;
    }
    let agent = owner.agent_name().map(str::to_string);
    if rt.memory.backend() == Backend::Mem0 {
        // The runtime hands the query to mem0's search and answers in its order.
        let hits = match rt.memory.store().as_mem0() {
            Some(mem0) => mem0.agent_recall(&owner, keyword)?,
            None => Vec::new(),
        };
        let text = oryx_core::memory::service::recall_lines_text(
            &hits.iter().map(String::as_str).collect::<Vec<_>>(),
        );
        let results = hits
            .iter()
            .map(|h| AgentRecalledDto {
                id: None,
                content: h.clone(),
                timestamp: None,
                score: None,
                routes: RecallRoutesDto {
                    semantic: None,
                    keyword: None,
                    recency: None,
                    contributions: Vec::new(),
                },
            })
            .collect();
        return Ok(AgentRecallDto {
            agent,
            keyword: keyword.to_string(),
            engine: RecallEngineDto::Delegated,
            degraded: None,
            text,
            results,
            near_misses: Vec::new(),
            settings: Settings::default().into(),
            configured: Settings::default().into(),
            trial: false,
            settings_problem: None,
            embedding: embedding_dto(&Configured::Off),
            vector_rows: 0,
            usable_rows: 0,
            query_dim: None,
            entries: 0,
            bare_root: rt.memory.runtime_source().is_none(),
        });
    }
    let (recall, bare_root) =
        match rt
            .memory
            .runtime_recall(&owner, keyword, trial.map(Into::into))?
        {
            Some(r) => (r, false),
            None => {
                // No runtime reads this root: the console's own tool path answers (the
                // recall mode in Settings), without an explanation.
                let (text, _) = rt.memory.recall_answer(&owner, keyword)?;
                let answer = engine::Answer {
                    engine: engine::Engine::Keyword,
                    degraded: None,
                    results: Vec::new(),
                    near_misses: Vec::new(),
                    settings: Settings::default(),
                    semantic: Default::default(),
                    entries: 0,
                    text,
                };
                (
                    oryx_core::memory::service::RuntimeRecall {
                        answer,
                        configured: Settings::default(),
                        settings_problem: None,
                        embedding: Configured::Off,
                    },
                    true,
                )
            }
        };
    let a = &recall.answer;
    // The console's ids cost a read of every entry: only when there is something to name.
    let ids = match a.results.is_empty() && a.near_misses.is_empty() {
        true => Ids {
            by_text: Default::default(),
        },
        false => Ids::of(rt, &owner),
    };
    Ok(AgentRecallDto {
        agent,
        keyword: keyword.to_string(),
        engine: match a.engine {
            engine::Engine::Fusion => RecallEngineDto::Fusion,
            engine::Engine::Keyword => RecallEngineDto::Keyword,
        },
        degraded: a.degraded.clone(),
        text: a.text.clone(),
        results: a.results.iter().map(|r| ids.dto(r)).collect(),
        near_misses: a.near_misses.iter().map(|r| ids.dto(r)).collect(),
        settings: a.settings.into(),
        configured: recall.configured.into(),
        trial: trial.is_some(),
        settings_problem: recall.settings_problem.clone(),
        embedding: embedding_dto(&recall.embedding),
        vector_rows: u(a.semantic.rows),
        usable_rows: u(a.semantic.usable),
        query_dim: a.semantic.dim.map(u),
        entries: u(a.entries),
        bare_root,
    })
}

/// Trial settings the runtime could run with: finite weights, a top-k it can keep.
fn check_trial(t: &RecallSettingsDto) -> ApiResult<()> {
    for (name, w) in [
        ("semantic", t.semantic),
        ("keyword", t.keyword),
        ("recency", t.recency),
    ] {
        if !w.is_finite() || w < 0.0 {
            return Err(ApiError::invalid(format!(
                "the {name} weight must be a number of 0 or more, got {w}"
            )));
        }
    }
    if !(0..=1000).contains(&t.top_k) {
        return Err(ApiError::invalid(format!(
            "top-k must be between 0 and 1000, got {}",
            t.top_k
        )));
    }
    Ok(())
}
