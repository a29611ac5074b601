//! Recall checks of an agent: questions kept with the entries that must answer them, run with
//! the runtime's engine (`agent_recall`) whenever what the answer depends on changed since their
//! last run — the entries, the runtime's recall settings and model, the vector rows — and on
//! demand. A check that passed and fails now names the changes of the owner's history made in
//! between (the newest first, the one undo takes back), or says the change came from outside
//! the console's history.

use serde::{Deserialize, Serialize};
#[cfg(feature = "specta")]
use specta::Type;

use oryx_core::memory::Scope;
use oryx_core::recall_checks::{self as checks, RecallCheck, RecallChecks};

use std::path::Path;

use oryx_core::names::Owner;

use crate::agent_recall::{agent_recall_in, AgentRecallDto, RecallSettingsDto};
use crate::curation::{local_time, review_source};
use crate::services::Services;
use crate::{ApiError, ApiResult, Console};

#[derive(Debug, Clone, Default, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct RecallChecksArgs {
    #[serde(default)]
    pub agent: Option<String>,
    /// Run every check now, due or not.
    #[serde(default)]
    pub force: bool,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct AddRecallCheckArgs {
    #[serde(default)]
    pub agent: Option<String>,
    pub question: String,
    /// Archival entries (console ids) that must all be in the answer.
    pub expect: Vec<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct RemoveRecallCheckArgs {
    #[serde(default)]
    pub agent: Option<String>,
    pub id: String,
}

/// A change of the owner's history made between a check's last pass and its failure.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct CheckChangeDto {
    pub id: String,
    /// Local time, `yyyy-MM-dd HH:mm:ss`.
    pub at: String,
    /// `add`, `edit`, `delete`, `move`, `summary`, … as History names it.
    pub op: String,
    /// Undo takes this change back now (it is the newest that stands).
    pub undoable: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct RecallCheckDto {
    pub id: String,
    pub question: String,
    /// The entries that must all be in the answer.
    pub expected: Vec<String>,
    /// Local time.
    pub created: String,
    /// `None`: never run.
    pub passed: Option<bool>,
    /// Local time of the last run.
    pub ran: Option<String>,
    /// The answer's entries, best first.
    pub found: Vec<String>,
    /// Expected entries not in the answer.
    pub missing: Vec<String>,
    /// Expected entries the owner no longer has (edited, moved or deleted).
    pub gone: Vec<String>,
    /// Passed before, fails now.
    pub broken: bool,
    /// The last run is the one that broke it (the run before passed).
    pub just_broke: bool,
    /// For a broken check: the owner's changes since it last passed, newest first. Empty: what
    /// changed is outside the console's changes (entries appended since, the runtime's
    /// configuration, the vector index).
    pub changes: Vec<CheckChangeDto>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct RecallChecksDto {
    pub agent: Option<String>,
    pub checks: Vec<RecallCheckDto>,
    pub passed: u32,
    pub failed: u32,
    /// Checks run by this call (due ones, or all when forced).
    pub ran: u32,
    /// The settings they ran with (the runtime's).
    pub settings: Option<RecallSettingsDto>,
}

fn n(x: usize) -> u32 {
    u32::try_from(x).unwrap_or(u32::MAX)
}

/// What an answer depends on, for the checks' stamps: the owner's entries (ids in order), the
/// settings and model the engine used, and the vector rows it could use.
fn stamp(live: &[String], answer: &AgentRecallDto) -> u64 {
    let s = &answer.settings;
    let settings = format!(
        "{} {} {} {} {:?} {} {}",
        s.semantic,
        s.keyword,
        s.recency,
        s.top_k,
        answer.embedding.model,
        answer.vector_rows,
        answer.usable_rows
    );
    let mut parts: Vec<&str> = live.iter().map(String::as_str).collect();
    parts.push(&settings);
    checks::state_stamp(&parts)
}

impl Console {
    /// How many of the agent's checks are broken, as their last run left them (nothing runs).
    pub(crate) fn broken_checks(&self, agent: &str) -> usize {
        let rt = self.services();
        let Ok(owner) = rt.owner(Some(agent)) else {
            return 0;
        };
        self.broken_of(&rt, &owner).len()
    }

    fn broken_of(&self, rt: &Services, owner: &Owner) -> Vec<RecallCheck> {
        let (store, source) = checks_of(&self.index_dir(), rt, owner);
        store
            .load(&source)
            .map(|s| s.checks.into_iter().filter(RecallCheck::broken).collect())
            .unwrap_or_default()
    }

    /// Memory health's hint of the owner's broken checks (as their last run left them), naming
    /// the expected entries their answers lack.
    pub(crate) fn broken_checks_hint(
        &self,
        rt: &Services,
        owner: &Owner,
    ) -> Option<crate::health::HintDto> {
        let broken = self.broken_of(rt, owner);
        if broken.is_empty() {
            return None;
        }
        let questions: Vec<String> = broken.iter().map(|c| format!("{:?}", c.question)).collect();
        let mut seen = std::collections::HashSet::new();
        let missing: Vec<String> = broken
            .iter()
            .filter_map(|c| c.last.as_ref())
            .flat_map(|o| o.missing.iter().cloned())
            .filter(|id| seen.insert(id.clone()))
            .collect();
        Some(crate::health::HintDto {
            kind: "broken_checks".into(),
            entry_ids: missing,
            reason: format!(
                "{} recall check{} passed before and fail{} now: {} (`oryx checks list` names \
                 the change that broke {})",
                broken.len(),
                if broken.len() == 1 { "" } else { "s" },
                if broken.len() == 1 { "s" } else { "" },
                questions.join(", "),
                if broken.len() == 1 { "it" } else { "each" },
            ),
        })
    }

    /// Keeps a question with the entries that must answer it, and runs it once.
    pub fn add_recall_check(&self, a: &AddRecallCheckArgs) -> ApiResult<RecallChecksDto> {
        let agent = a.agent.as_deref().filter(|s| !s.is_empty());
        let question = a.question.trim();
        if question.is_empty() {
            return Err(ApiError::invalid("a check needs a question"));
        }
        if a.expect.is_empty() {
            return Err(ApiError::invalid(
                "name the entries that must answer the question",
            ));
        }
        let rt = self.services();
        if rt.memory.runtime_source().is_none() {
            return Err(ApiError::invalid(
                "recall checks run the runtime's recall engine, and no runtime reads this root: \
                 open the install (the folder holding .oryxos and oryxos.db) instead",
            ));
        }
        let owner = rt.owner(agent)?;
        let live = archival_ids(&rt, &owner)?;
        if let Some(bad) = a.expect.iter().find(|id| !live.contains(*id)) {
            return Err(ApiError::invalid(format!(
                "{bad} is not an archival entry of this memory (recall_memory never returns core \
                 entries)"
            )));
        }
        let (store, source) = checks_of(&self.index_dir(), &rt, &owner);
        let mut saved = store.load(&source)?;
        let created = oryx_core::timefmt::now_epoch_ms();
        let mut seen = std::collections::HashSet::new();
        let expect: Vec<String> = a
            .expect
            .iter()
            .filter(|e| seen.insert(*e))
            .cloned()
            .collect();
        saved.checks.push(RecallCheck {
            id: checks::new_id(question, &expect, created),
            question: question.to_string(),
            expect,
            created,
            last: None,
            last_passed: None,
        });
        store.save(&source, &saved)?;
        self.recall_checks(&RecallChecksArgs {
            agent: a.agent.clone(),
            force: false,
        })
    }

    pub fn remove_recall_check(&self, a: &RemoveRecallCheckArgs) -> ApiResult<RecallChecksDto> {
        let rt = self.services();
        let owner = rt.owner(a.agent.as_deref().filter(|s| !s.is_empty()))?;
        let (store, source) = checks_of(&self.index_dir(), &rt, &owner);
        let mut saved = store.load(&source)?;
        let before = saved.checks.len();
        saved.checks.retain(|c| c.id != a.id);
        if saved.checks.len() == before {
            return Err(ApiError::new(
                crate::ErrorCode::NotFound,
                format!("no recall check {}", a.id),
            ));
        }
        store.save(&source, &saved)?;
        self.recall_checks(&RecallChecksArgs {
            agent: a.agent.clone(),
            force: false,
        })
    }

    /// The agent's checks, each run first when what it depends on changed since its last run
    /// (all of them with `force`).
    pub fn recall_checks(&self, a: &RecallChecksArgs) -> ApiResult<RecallChecksDto> {
        let agent = a.agent.as_deref().filter(|s| !s.is_empty());
        let rt = self.services();
        let run = run_due(&rt, &self.index_dir(), agent, a.force)?;
        let history = if run.saved.checks.iter().any(RecallCheck::broken) {
            Some(self.memory_history(agent, Some(200))?)
        } else {
            None
        };
        let dtos: Vec<RecallCheckDto> = run
            .saved
            .checks
            .iter()
            .map(|c| check_dto(c, history.as_ref()))
            .collect();
        let passed = dtos.iter().filter(|c| c.passed == Some(true)).count();
        Ok(RecallChecksDto {
            agent: agent.map(str::to_string),
            passed: n(passed),
            failed: n(dtos.iter().filter(|c| c.passed == Some(false)).count()),
            checks: dtos,
            ran: n(run.ran),
            settings: run.settings,
        })
    }
}

/// What a run of an owner's checks did.
pub(crate) struct Run {
    pub saved: oryx_core::recall_checks::Saved,
    /// Checks run (the due ones, or all when forced).
    pub ran: usize,
    /// The settings they ran with.
    pub settings: Option<RecallSettingsDto>,
}

/// Runs `agent`'s checks whose answer may have moved since their last run (all with `force`)
/// and saves their outcomes.
pub(crate) fn run_due(
    rt: &Services,
    index_dir: &Path,
    agent: Option<&str>,
    force: bool,
) -> ApiResult<Run> {
    let owner = rt.owner(agent)?;
    let (store, source) = checks_of(index_dir, rt, &owner);
    let mut saved = store.load(&source)?;
    let mut ran = 0;
    let mut settings = None;
    if saved.checks.is_empty() {
        return Ok(Run {
            saved,
            ran,
            settings,
        });
    }
    let live = archival_ids(rt, &owner)?;
    let mut state = None;
    for c in &mut saved.checks {
        // One answer per check; the state comes with the first answer.
        let needs = match state {
            Some(s) => force || c.due(s),
            None => true,
        };
        if !needs {
            continue;
        }
        let answer = agent_recall_in(rt, agent, &c.question, None)?;
        let s = *state.get_or_insert_with(|| stamp(&live, &answer));
        settings = Some(answer.settings);
        if !force && !c.due(s) {
            continue;
        }
        // Expected entries a change above them moved are followed to where they are.
        for e in &mut c.expect {
            if let Some(now) = checks::follow(e, &live) {
                *e = now;
            }
        }
        let found: Vec<String> = answer.results.iter().filter_map(|r| r.id.clone()).collect();
        let outcome = checks::judge(
            &c.expect,
            found,
            &live,
            oryx_core::timefmt::now_epoch_ms(),
            s,
        );
        c.record(outcome);
        ran += 1;
    }
    if ran > 0 {
        store.save(&source, &saved)?;
    }
    Ok(Run {
        saved,
        ran,
        settings,
    })
}

/// The checks' store and the key of `owner`'s checks in it (the store its entries live in).
pub(crate) fn checks_of(index_dir: &Path, rt: &Services, owner: &Owner) -> (RecallChecks, String) {
    (RecallChecks::new(index_dir), review_source(rt, owner))
}

fn archival_ids(rt: &Services, owner: &Owner) -> ApiResult<Vec<String>> {
    let all = rt.memory.store().load_all(owner)?;
    Ok((0..all.archival.len())
        .filter_map(|i| all.id(Scope::Archival, i))
        .collect())
}

fn check_dto(c: &RecallCheck, history: Option<&crate::curation::HistoryDto>) -> RecallCheckDto {
    let last = c.last.as_ref();
    let mut changes = Vec::new();
    if let (true, Some(h), Some(pass), Some(fail)) =
        (c.broken(), history, c.last_passed.as_ref(), last)
    {
        let (from, to) = (local_time(pass.at), local_time(fail.at));
        for ch in &h.changes {
            // Entries appended meanwhile are shown in History between the changes, but are no
            // change of the console's: nothing to undo (the answer below says so).
            let appended = ch.op == crate::curation::ChangeOp::Append;
            if !appended
                && ch.at.as_str() >= from.as_str()
                && ch.at.as_str() <= to.as_str()
                && !ch.undone
            {
                changes.push(CheckChangeDto {
                    id: ch.id.clone(),
                    at: ch.at.clone(),
                    op: serde_json::to_value(ch.op)
                        .ok()
                        .and_then(|v| v.as_str().map(str::to_string))
                        .unwrap_or_default(),
                    undoable: h.can_undo.as_deref() == Some(ch.id.as_str()),
                });
            }
        }
    }
    RecallCheckDto {
        id: c.id.clone(),
        question: c.question.clone(),
        expected: c.expect.clone(),
        created: local_time(c.created),
        passed: last.map(|o| o.passed),
        ran: last.map(|o| local_time(o.at)),
        found: last.map(|o| o.found.clone()).unwrap_or_default(),
        missing: last.map(|o| o.missing.clone()).unwrap_or_default(),
        gone: last.map(|o| o.gone.clone()).unwrap_or_default(),
        broken: c.broken(),
        just_broke: last.is_some_and(|o| o.broke),
        changes,
    }
}

/// Carries `owner`'s checks from a migration's source store to its target: each expected entry
/// is found again in the target by its content, and the last outcomes are kept, so a check the
/// new backend answers otherwise shows as broken (by a change outside the console's history).
/// Checks whose entries are not all in the target, or already there, are left. Returns how many
/// were carried.
pub(crate) fn carry_over(
    index_dir: &Path,
    (from_backend, from): (
        oryx_core::memory::Backend,
        &dyn oryx_core::memory::LongTermMemoryStore,
    ),
    (to_backend, to): (
        oryx_core::memory::Backend,
        &dyn oryx_core::memory::LongTermMemoryStore,
    ),
    owner: &Owner,
) -> ApiResult<usize> {
    use crate::curation::source_in;
    let store = RecallChecks::new(index_dir);
    let from_source = source_in(from_backend, from, owner);
    let saved = store.load(&from_source)?;
    if saved.checks.is_empty() {
        return Ok(0);
    }
    let archival =
        |s: &dyn oryx_core::memory::LongTermMemoryStore| -> ApiResult<Vec<(String, String)>> {
            let all = s.load_all(owner)?;
            Ok(all
                .archival
                .iter()
                .enumerate()
                .filter_map(|(i, e)| Some((all.id(Scope::Archival, i)?, e.content.clone())))
                .collect())
        };
    let (old, new) = (archival(from)?, archival(to)?);
    let to_source = source_in(to_backend, to, owner);
    let mut target = store.load(&to_source)?;
    let mut carried = 0;
    for c in saved.checks {
        if target.checks.iter().any(|t| t.id == c.id) {
            continue;
        }
        let moved: Option<Vec<String>> = c
            .expect
            .iter()
            .map(|id| {
                let content = &old.iter().find(|(i, _)| i == id)?.1;
                Some(new.iter().find(|(_, t)| t == content)?.0.clone())
            })
            .collect();
        if let Some(expect) = moved {
            target.checks.push(RecallCheck { expect, ..c });
            carried += 1;
        }
    }
    if carried > 0 {
        store.save(&to_source, &target)?;
    }
    Ok(carried)
}
