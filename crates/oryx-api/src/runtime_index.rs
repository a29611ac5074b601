//! The runtime's vector index of archival memory (`memory_vectors`) as the console sees it: each
//! owner's rows against its entries, what the runtime's next start does to them, and a fill that
//! does it now (one at a time per console, with progress and cancel).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};

#[cfg(feature = "specta")]
use specta::Type;

use oryx_core::runtime::embedder::Configured;
use oryx_core::runtime::vector_index::{self, IndexState, RuntimeIndex};

use crate::console::Console;
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::lock::lock;
use crate::services::Services;

/// Why the runtime keeps no index, or that it does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
#[serde(rename_all = "camelCase")]
pub enum RuntimeIndexState {
    /// No `embedding.provider`: no index is kept.
    Off,
    /// The provider cannot be built (see `reason`): the runtime writes no row.
    Broken,
    /// The database has no `memory_vectors` table (a runtime older than its semantic recall, or
    /// one that never started).
    NoTable,
    Ready,
}

/// One owner the runtime reconciles: its distinct archival entries against its rows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
#[serde(rename_all = "camelCase")]
pub struct RuntimeAgentIndexDto {
    /// The agent, or `__global__` for the global memory.
    pub agent: String,
    pub indexed: u32,
    pub missing: u32,
    pub orphans: u32,
    pub other_model: u32,
}

/// The runtime's index of an install.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
#[serde(rename_all = "camelCase")]
pub struct RuntimeIndexDto {
    pub state: RuntimeIndexState,
    /// `provider/model` of the rows the runtime writes (`None` unless ready).
    pub model: Option<String>,
    /// Why the provider cannot be built (broken).
    pub reason: Option<String>,
    /// The agents the runtime loads, then `__global__`.
    pub agents: Vec<RuntimeAgentIndexDto>,
    /// What the runtime's next start does: rows it drops, entries it embeds.
    pub next_start_drops: u32,
    pub next_start_embeds: u32,
    /// The fill running or last run in this console.
    pub fill: Option<RuntimeFillDto>,
}

/// A fill of the runtime's index: its plan (a dry run) or its progress.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
#[serde(rename_all = "camelCase")]
pub struct RuntimeFillDto {
    pub running: bool,
    pub dry_run: bool,
    pub to_drop: u32,
    pub to_embed: u32,
    pub dropped: u32,
    pub embedded: u32,
    /// The owner being embedded now.
    pub current: Option<String>,
    pub cancelled: bool,
    pub error: Option<String>,
    /// The deleted rows' text may stay in the WAL until the runtime's next checkpoint.
    pub warning: Option<String>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct FillRuntimeArgs {
    /// Say what a fill would do, do nothing.
    #[serde(default)]
    pub dry_run: bool,
}

/// The fill of a console: its state for the status, its cancel flag.
#[derive(Default)]
pub struct RuntimeFillSlot(Mutex<Option<(RuntimeFillDto, Arc<AtomicBool>)>>);

impl RuntimeFillSlot {
    fn update(&self, f: impl FnOnce(&mut RuntimeFillDto)) {
        if let Some((s, _)) = lock(&self.0).as_mut() {
            f(s);
        }
    }

    fn state(&self) -> Option<RuntimeFillDto> {
        lock(&self.0).as_ref().map(|(s, _)| s.clone())
    }
}

fn n(x: usize) -> u32 {
    u32::try_from(x).unwrap_or(u32::MAX)
}

fn not_kept() -> ApiError {
    ApiError::invalid(
        "the runtime keeps a vector index only for an install's own markdown or sqlite memory",
    )
}

impl Console {
    /// `None` when the root is not an install's, or its memory is not the runtime's markdown or
    /// sqlite backend.
    pub fn runtime_index_status(&self) -> ApiResult<Option<RuntimeIndexDto>> {
        let rt = self.services();
        let Some(index) = RuntimeIndex::of(&rt.effective) else {
            return Ok(None);
        };
        let configured = index.embedding();
        let status = vector_index::status(
            &index.db,
            &configured,
            rt.memory.store().as_ref(),
            &index.owners()?,
        )?;
        let (state, model, reason) = match status.state {
            IndexState::Off => (RuntimeIndexState::Off, None, None),
            IndexState::Broken { reason } => (RuntimeIndexState::Broken, None, Some(reason)),
            IndexState::NoTable => (RuntimeIndexState::NoTable, None, None),
            IndexState::Ready { model } => (RuntimeIndexState::Ready, Some(model), None),
        };
        Ok(Some(RuntimeIndexDto {
            state,
            model,
            reason,
            agents: status
                .owners
                .into_iter()
                .map(|o| RuntimeAgentIndexDto {
                    agent: o.agent,
                    indexed: n(o.indexed),
                    missing: n(o.missing),
                    orphans: n(o.orphans),
                    other_model: n(o.other_model),
                })
                .collect(),
            next_start_drops: n(status.to_drop),
            next_start_embeds: n(status.to_embed),
            fill: self.runtime_fill_slot().state(),
        }))
    }

    /// Does what the runtime's next start does to its index, now, in the background (`dry_run`:
    /// only says what it would do). Refused while a fill runs, or when there is no index to fill.
    pub fn fill_runtime_index(&self, args: &FillRuntimeArgs) -> ApiResult<RuntimeFillDto> {
        let rt = self.services();
        let index = RuntimeIndex::of(&rt.effective).ok_or_else(not_kept)?;
        let embedder = match index.embedding() {
            Configured::Ready(e) => e,
            Configured::Off => {
                return Err(ApiError::invalid(
                    "the runtime has no embedding.provider: it keeps no vector index to fill",
                ))
            }
            Configured::Broken { reason, .. } => {
                return Err(ApiError::invalid(format!(
                    "the runtime's embedding provider cannot be built: {reason}"
                )))
            }
        };
        if !vector_index::has_table(&index.db)? {
            return Err(ApiError::invalid(
                "the runtime's database has no memory_vectors table (a runtime older than its \
                 semantic recall, or one that never started): nothing to fill",
            ));
        }
        let owners = index.owners()?;
        let status = vector_index::status(
            &index.db,
            &Configured::Ready(embedder.clone()),
            rt.memory.store().as_ref(),
            &owners,
        )?;
        let plan = RuntimeFillDto {
            running: !args.dry_run,
            dry_run: args.dry_run,
            to_drop: n(status.to_drop),
            to_embed: n(status.to_embed),
            dropped: 0,
            embedded: 0,
            current: None,
            cancelled: false,
            error: None,
            warning: None,
        };
        if args.dry_run {
            return Ok(plan);
        }
        let cancel = Arc::new(AtomicBool::new(false));
        {
            let mut slot = lock(&self.runtime_fill_slot().0);
            if slot.as_ref().is_some_and(|(s, _)| s.running) {
                return Err(ApiError::new(
                    ErrorCode::Conflict,
                    "a fill of the runtime's index is already running: wait for it, or cancel it",
                ));
            }
            *slot = Some((plan.clone(), cancel.clone()));
        }
        let slot = self.runtime_fill_slot().clone();
        let index_dir = self.index_dir();
        let subscribers = Arc::downgrade(&self.events().subscribers);
        std::thread::Builder::new()
            .name("oryx-runtime-fill".into())
            .spawn(move || {
                run_fill(&rt, &index, embedder, &owners, &cancel, &slot);
                // New rows move the semantic route: the filled owners' checks run again.
                let agents = owners
                    .iter()
                    .map(|o| o.agent_name().map(str::to_string))
                    .collect();
                crate::check_runner::run_and_announce(&rt, &index_dir, agents, &subscribers);
            })
            .map_err(|e| ApiError::new(ErrorCode::Internal, e.to_string()))?;
        Ok(plan)
    }

    /// Asks the running fill to stop after its current batch; `false` when none runs.
    pub fn cancel_runtime_fill(&self) -> bool {
        match lock(&self.runtime_fill_slot().0).as_ref() {
            Some((s, flag)) if s.running => {
                flag.store(true, Ordering::Relaxed);
                true
            }
            _ => false,
        }
    }

    /// The running or last fill.
    pub fn runtime_fill_state(&self) -> Option<RuntimeFillDto> {
        self.runtime_fill_slot().state()
    }
}

fn run_fill(
    rt: &Services,
    index: &RuntimeIndex,
    embedder: Arc<dyn oryx_core::runtime::embedder::Embedder>,
    owners: &[oryx_core::names::Owner],
    cancel: &AtomicBool,
    slot: &RuntimeFillSlot,
) {
    let outcome = vector_index::fill(
        &index.db,
        embedder.as_ref(),
        rt.memory.store().as_ref(),
        owners,
        cancel,
        &mut |p| {
            slot.update(|s| {
                s.dropped = n(p.dropped);
                s.embedded = n(p.embedded);
                s.to_embed = n(p.to_embed);
                s.current = p.current.clone();
            })
        },
    );
    slot.update(|s| {
        s.running = false;
        s.current = None;
        match outcome {
            Ok(Some(f)) => {
                s.cancelled = f.cancelled;
                s.warning = f.removed.as_ref().and_then(vector_index::Removed::warning);
            }
            Ok(None) => s.error = Some("the memory_vectors table is gone".into()),
            Err(e) => s.error = Some(e.to_string()),
        }
    });
}

/// After an import into `store` (the backend in effect or `into`): entries it placed by copying a
/// whole MEMORY.md bypassed the store, so each imported owner's entries without a row get theirs
/// now. Problems are said, never fail the import (the runtime's next start embeds what is left).
pub(crate) fn index_imported(
    rt: &Services,
    store: &dyn oryx_core::memory::LongTermMemoryStore,
    report: &oryx_core::portable::import::ImportReport,
) {
    if report.dry_run || report.cancelled {
        return;
    }
    let mut e = rt.effective.clone();
    e.backend = store.backend();
    let Some(index) = RuntimeIndex::of(&e) else {
        return;
    };
    for o in &report.owners {
        let Ok(owner) = oryx_core::portable::owner_of(&o.owner) else {
            continue;
        };
        if let Err(err) = oryx_core::memory::runtime_indexed::index_owner(&index, store, &owner) {
            eprintln!(
                "oryx: the runtime's memory index has no rows yet for what was imported into {} \
                 (its next start embeds them): {err}",
                o.owner
            );
        }
    }
}

/// After a MEMORY.md was copied whole for `owner` (a new agent made from another with its
/// memory): its entries get their rows, as the runtime's next start would give them.
pub(crate) fn index_copied(rt: &Services, owner: &oryx_core::names::Owner) {
    let Some(index) = RuntimeIndex::of(&rt.effective) else {
        return;
    };
    let store = rt.memory.store();
    if let Err(err) = oryx_core::memory::runtime_indexed::index_owner(&index, store.as_ref(), owner)
    {
        eprintln!(
            "oryx: the runtime's memory index has no rows yet for {}'s copied memory (its next \
             start embeds them): {err}",
            owner.label()
        );
    }
}
