//! The runtime's recall weights and top-k proposed from an agent's recall checks: each check's
//! question is ranked by the runtime's routes once, then under every weight triple of the
//! core's grid. What would change (checks passing now and then, each check's place) is shown
//! before anything is saved; saving goes through `set_runtime_values`, one undoable change.

use serde::{Deserialize, Serialize};
#[cfg(feature = "specta")]
use specta::Type;

use oryx_core::memory::Backend;
use oryx_core::recall_checks as checks;
use oryx_core::runtime::embedder::Configured;
use oryx_core::runtime::recall::{self as engine, tuning};

use crate::agent_recall::{archival_texts, RecallSettingsDto};
use crate::recall_checks::checks_of;
use crate::{ApiError, ApiResult, Console};

#[derive(Debug, Clone, Default, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct ProposeRecallSettingsArgs {
    #[serde(default)]
    pub agent: Option<String>,
}

/// What the proposal concluded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
#[serde(rename_all = "snake_case")]
pub enum ProposalVerdictDto {
    /// Other settings answer more checks.
    Better,
    /// The configured settings answer every check.
    AllPass,
    /// No settings of the grid answer more checks than the configured ones.
    NoneBetter,
    /// The agent has no recall checks.
    NoChecks,
    /// No embedding provider: the runtime answers with its keyword search, which no weight moves.
    KeywordOnly,
}

/// One check under the configured settings and under the proposed ones.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct ProposalCheckDto {
    pub id: String,
    pub question: String,
    pub passes_now: bool,
    pub passes_proposed: bool,
    /// The smallest top-k holding every expected entry, under the configured weights and under
    /// the proposed ones (`None`: no top-k does — an expected entry is gone or no route finds it).
    pub needed_now: Option<u32>,
    pub needed_proposed: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct RecallProposalDto {
    pub agent: Option<String>,
    pub verdict: ProposalVerdictDto,
    /// The runtime's configured settings.
    pub current: RecallSettingsDto,
    /// The proposed settings (with `better` only).
    pub proposed: Option<RecallSettingsDto>,
    pub passed_now: u32,
    pub passed_proposed: u32,
    pub checks: Vec<ProposalCheckDto>,
    /// Weight triples ranked.
    pub tried: u32,
    /// The runtime would refuse its configured settings (the defaults were used).
    pub settings_problem: Option<String>,
    /// Why the semantic route failed (the proposal then ranks keyword and recency only).
    pub degraded: Option<String>,
}

fn u(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

impl Console {
    /// Proposes the runtime's recall weights and top-k from the agent's recall checks; nothing
    /// is saved.
    pub fn propose_recall_settings(
        &self,
        a: &ProposeRecallSettingsArgs,
    ) -> ApiResult<RecallProposalDto> {
        let rt = self.services();
        let owner = rt.owner(a.agent.as_deref().filter(|s| !s.is_empty()))?;
        let Some(src) = rt.memory.runtime_source() else {
            return Err(ApiError::invalid(
                "recall weights are the runtime's, and no runtime reads this root: open the \
                 install (the folder holding .oryxos and oryxos.db) instead",
            ));
        };
        if rt.memory.backend() == Backend::Mem0 {
            return Err(ApiError::invalid(
                "on mem0 the runtime hands recall to mem0's own search: its weights and top-k \
                 do not apply",
            ));
        }
        let (current, settings_problem, embedding) = rt.memory.runtime_engine(src);
        let (store, source) = checks_of(&self.index_dir(), &rt, &owner);
        let saved = store.load(&source)?;
        let dto = |verdict, checks: Vec<ProposalCheckDto>, proposed, tried, degraded| {
            let now = checks.iter().filter(|c| c.passes_now).count();
            let then = checks.iter().filter(|c| c.passes_proposed).count();
            RecallProposalDto {
                agent: owner.agent_name().map(str::to_string),
                verdict,
                current: current.into(),
                proposed,
                passed_now: u(now),
                passed_proposed: u(then),
                checks,
                tried,
                settings_problem: settings_problem.clone(),
                degraded,
            }
        };
        if saved.checks.is_empty() {
            return Ok(dto(ProposalVerdictDto::NoChecks, vec![], None, 0, None));
        }
        if matches!(embedding, Configured::Off) {
            return Ok(dto(ProposalVerdictDto::KeywordOnly, vec![], None, 0, None));
        }
        let texts = archival_texts(&rt, &owner)?;
        let live: Vec<String> = texts.iter().map(|(id, _)| id.clone()).collect();
        let entries = rt.memory.store().runtime_archival(&owner)?;
        let store = rt.memory.store();
        let mut routes = Vec::with_capacity(saved.checks.len());
        for c in &saved.checks {
            let r = engine::routes(
                store.as_ref(),
                &entries,
                &owner,
                &c.question,
                &embedding,
                &src.db_path,
            )?
            .ok_or_else(|| ApiError::invalid("no embedding provider"))?;
            routes.push(r);
        }
        let degraded = routes.iter().find_map(|r| r.degraded.clone());
        let cases: Vec<tuning::Case> = saved
            .checks
            .iter()
            .zip(&routes)
            .map(|(c, r)| {
                // An expected entry that is gone (or not followed to where it moved) makes the
                // check unanswerable: no expected ids at all.
                let mut expect = Vec::new();
                for e in &c.expect {
                    let id = checks::follow(e, &live).unwrap_or_else(|| e.clone());
                    let pos = texts
                        .iter()
                        .find(|(i, _)| *i == id)
                        .and_then(|(_, text)| r.unique.iter().position(|u| u.text == *text));
                    match pos {
                        Some(p) => expect.push(p),
                        None => {
                            return tuning::Case {
                                routes: r,
                                expect: vec![],
                            }
                        }
                    }
                }
                tuning::Case { routes: r, expect }
            })
            .collect();
        let p = tuning::propose(&cases, current);
        let k = |top_k: i64, n: Option<usize>| {
            n.is_some_and(|n| usize::try_from(top_k).is_ok_and(|k| n <= k))
        };
        let rows: Vec<ProposalCheckDto> = saved
            .checks
            .iter()
            .enumerate()
            .map(|(i, c)| ProposalCheckDto {
                id: c.id.clone(),
                question: c.question.clone(),
                passes_now: k(current.top_k, p.needed_now[i]),
                passes_proposed: k(p.settings.top_k, p.needed[i]),
                needed_now: p.needed_now[i].map(u),
                needed_proposed: p.needed[i].map(u),
            })
            .collect();
        let (now, then) = p.passed(current.top_k);
        let verdict = if now == rows.len() {
            ProposalVerdictDto::AllPass
        } else if then > now && p.settings != current {
            ProposalVerdictDto::Better
        } else {
            ProposalVerdictDto::NoneBetter
        };
        let mut rows = rows;
        if verdict != ProposalVerdictDto::Better {
            // Nothing proposed: "then" is "now".
            for r in &mut rows {
                r.passes_proposed = r.passes_now;
                r.needed_proposed = r.needed_now;
            }
        }
        let proposed = (verdict == ProposalVerdictDto::Better).then(|| p.settings.into());
        Ok(dto(verdict, rows, proposed, u(p.tried), degraded))
    }
}
