//! Memory health: findings per owner with a one-operation fix, dismissals, and the
//! prompt budget.

use serde::{Deserialize, Serialize};
#[cfg(feature = "specta")]
use specta::Type;

use oryx_core::config::AutoSummary;
use oryx_core::memory::health::{self, Check, EntryId, Fix, Options};
use oryx_core::memory::review::{dismiss_key, entry_key, Reviewed, Reviews};
use oryx_core::memory::{summary, Backend, MarkdownMemoryStore, MemoryView, Scope};

use crate::console::Console;
use crate::error::{ApiError, ApiResult};
use crate::services::Services;

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct HealthArgs {
    #[serde(default)]
    pub agent: Option<String>,
    /// Some of secrets, pii, duplicates, stale, budget, poisoning (default: all).
    #[serde(default)]
    pub checks: Option<Vec<String>>,
    /// Time-relative entries older than this many days are stale (default 7).
    #[serde(default)]
    pub stale_after_days: Option<u32>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct DismissArgs {
    #[serde(default)]
    pub agent: Option<String>,
    pub check: String,
    pub entry_ids: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct FixDto {
    /// `delete` (of `ids`), `edit` (of `id`, to `content`) or `summarize` (`ids`: the entries
    /// a summary would cover; `propose_summary` then `apply_summary`).
    pub op: String,
    #[cfg_attr(feature = "specta", specta(type = Vec<String>))]
    pub ids: Vec<EntryId>,
    pub content: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct FindingDto {
    pub check: String,
    pub kind: String,
    // Held inline (see `EntryId`): a finding can name most of a large file's entries.
    #[cfg_attr(feature = "specta", specta(type = Vec<String>))]
    pub entry_ids: Vec<EntryId>,
    /// English; a UI in another language renders `check` + `kind` with `params`.
    pub reason: String,
    /// The values the reason is made of (`kinds`, `word`, `age_days`, `count`, `basis`,
    /// `similarity`, `request`; poisoning: `score`, `excerpt`, `visible`, and as weighed by the
    /// entry's origin `weight`, `level`, `origin`, `channel`, `session_id`, `outside`), so the
    /// reason can be said in the user's language.
    pub params: std::collections::BTreeMap<String, String>,
    pub fix: Option<FixDto>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct BudgetDto {
    pub prompt_chars: u32,
    pub core_chars: u32,
    pub core_share: f64,
    pub core_added_30d: u32,
    pub window_reach_days: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct HealthDto {
    pub agent: Option<String>,
    pub findings: Vec<FindingDto>,
    pub budget: Option<BudgetDto>,
    /// Findings left out because a person dismissed them.
    pub dismissed: u32,
    /// Hints: not findings (no badge counts them), things worth a look.
    pub hints: Vec<HintDto>,
}

/// A hint of the health view. `kind` is `never_read`: entries that no prompt held and no
/// recall returned, although prompts were built after they were written; or `broken_checks`:
/// recall checks that passed and fail now (as their last run left them), `entry_ids` the
/// expected entries their answers lack.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct HintDto {
    pub kind: String,
    pub entry_ids: Vec<String>,
    /// English; a UI in another language words `kind` with the number of entries.
    pub reason: String,
}

/// Whether the person dismissed the automatic summary's finding (the console's own, made from
/// the view: the checks match dismissals to the other findings themselves).
fn auto_hidden(view: &MemoryView, dismissed: Option<&Reviewed>, f: &FindingDto) -> bool {
    let Some(d) = dismissed else { return false };
    let named: std::collections::HashSet<&str> = f.entry_ids.iter().map(|id| id.as_str()).collect();
    let core = view
        .core
        .iter()
        .enumerate()
        .map(|(i, e)| (view.core_id(i), Scope::Core, e));
    let archival = view.archival.iter().enumerate().map(|(i, e)| {
        let id = view.archival_id(i + view.archival_offset, e);
        (id, Scope::Archival, e)
    });
    // Every entry it names found and dismissed (a key made only for those).
    let mut found = 0;
    for (id, scope, e) in core.chain(archival) {
        if named.contains(id.as_str()) {
            if !d.has(dismiss_key(&f.check, entry_key(scope, e))) {
                return false;
            }
            found += 1;
        }
    }
    found == named.len()
}

impl Console {
    pub fn memory_health(&self, a: &HealthArgs) -> ApiResult<HealthDto> {
        let rt = self.services();
        let owner = rt.owner(a.agent.as_deref())?;
        let checks = match &a.checks {
            None => Check::ALL.to_vec(),
            Some(list) => list
                .iter()
                .map(|c| {
                    Check::parse(c).ok_or_else(|| {
                        ApiError::invalid(format!(
                            "unknown check {c:?}: use secrets, pii, duplicates, stale, budget or poisoning"
                        ))
                    })
                })
                .collect::<ApiResult<_>>()?,
        };
        let dismissed = Reviews::dismissals(&self.index_dir())
            .load(&crate::curation::review_source(&rt, &owner))?
            .map(std::sync::Arc::new);
        let opts = Options {
            checks,
            stale_after_days: a.stale_after_days.map_or(7, i64::from),
            // The checks leave out (and count) what was dismissed, matching each entry only
            // for the findings that name it.
            dismissed: dismissed.clone(),
            ..Options::default()
        };
        // A MEMORY.md is checked from its bytes and its budget read as the prompt reads it (a
        // 100 MB file: a fraction of the time, and not every entry held in memory), unless the
        // owner's entries are needed for the automatic summary's finding.
        let (report, view) = if rt.memory.store().backend() == Backend::Markdown
            && rt.settings.summary.auto == AutoSummary::Off
        {
            let report = MarkdownMemoryStore::new(rt.root()).health(
                &owner,
                &opts,
                rt.memory.window_rule(),
            )?;
            (report, None)
        } else {
            let view = rt.memory.view(&owner)?;
            (health::run_view(&view, &opts), Some(view))
        };
        let health::Report {
            findings,
            dismissed: hidden,
            budget,
        } = report;
        let mut total = findings.len() + hidden;
        // Moved, not copied: a near group of a large archive names most of its entries.
        let mut shown: Vec<FindingDto> = findings
            .into_iter()
            .map(|f| FindingDto {
                check: f.check.as_str().to_string(),
                kind: f.kind,
                entry_ids: f.entry_ids,
                reason: f.reason,
                params: f.params,
                fix: f.fix.map(|x| match x {
                    Fix::Delete { ids } => FixDto {
                        op: "delete".into(),
                        ids,
                        content: None,
                    },
                    Fix::Edit { id, content } => FixDto {
                        op: "edit".into(),
                        ids: vec![id],
                        content: Some(content),
                    },
                }),
            })
            .collect();
        if opts.checks.contains(&Check::Poisoning) {
            // Weighed by where each entry came from; the few below the report line once
            // weighed are not shown (nor counted as dismissed).
            let before = shown.len();
            crate::poisoning::weigh(&rt, &owner, &mut shown)?;
            total -= before - shown.len();
        }
        if let (true, Some(view)) = (opts.checks.contains(&Check::Budget), &view) {
            if let Some(f) = auto_summary_finding(&rt, view) {
                total += 1;
                if !auto_hidden(view, dismissed.as_deref(), &f) {
                    shown.push(f);
                }
            }
        }
        // A hint: a session database it cannot read leaves it out, not the findings.
        let never_read = self.unread_entries(owner.agent_name()).unwrap_or_default();
        let hints = (!never_read.is_empty())
            .then(|| HintDto {
                kind: "never_read".into(),
                reason: format!(
                    "{} entr{} never reached a prompt nor a recall result, although prompts \
                     were built after they were written",
                    never_read.len(),
                    if never_read.len() == 1 { "y" } else { "ies" }
                ),
                entry_ids: never_read,
            })
            .into_iter()
            .chain(self.broken_checks_hint(&rt, &owner))
            .collect();
        Ok(HealthDto {
            agent: owner.agent_name().map(str::to_string),
            hints,
            dismissed: (total - shown.len()) as u32,
            findings: shown,
            budget: budget.map(|b| BudgetDto {
                prompt_chars: b.prompt_chars as u32,
                core_chars: b.core_chars as u32,
                core_share: b.core_share,
                core_added_30d: b.core_added_30d as u32,
                window_reach_days: b.window_reach_days,
            }),
        })
    }

    /// Hides a finding of `check` on these entries from now on (until an entry changes).
    pub fn dismiss_finding(&self, a: &DismissArgs) -> ApiResult<HealthDto> {
        let rt = self.services();
        let owner = rt.owner(a.agent.as_deref())?;
        Check::parse(&a.check)
            .ok_or_else(|| ApiError::invalid(format!("unknown check {:?}", a.check)))?;
        let view = rt.memory.view(&owner)?;
        let mut keys = Vec::new();
        for id in &a.entry_ids {
            let found = view
                .core
                .iter()
                .enumerate()
                .find(|(i, _)| view.core_id(*i) == *id)
                .map(|(_, e)| entry_key(Scope::Core, e))
                .or_else(|| {
                    view.archival
                        .iter()
                        .enumerate()
                        .find(|(i, e)| view.archival_id(i + view.archival_offset, e) == *id)
                        .map(|(_, e)| entry_key(Scope::Archival, e))
                });
            match found {
                Some(k) => keys.push(dismiss_key(&a.check, k)),
                None => {
                    return Err(ApiError::new(
                        crate::ErrorCode::NotFound,
                        format!("no memory entry with id {id:?}"),
                    ))
                }
            }
        }
        Reviews::dismissals(&self.index_dir())
            .add(&crate::curation::review_source(&rt, &owner), &keys)?;
        drop(rt);
        self.memory_health(&HealthArgs {
            agent: a.agent.clone(),
            ..HealthArgs::default()
        })
    }
}

/// Entries per day by section, for the growth charts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct DayCountDto {
    /// `yyyy-MM-dd`.
    pub day: String,
    pub core: u32,
    pub archival: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct MemoryStatsDto {
    pub agent: Option<String>,
    /// Days that have entries, oldest first (entries without a time are not counted).
    pub days: Vec<DayCountDto>,
    pub undated: u32,
    /// How far back the archival window reaches today, in days.
    pub window_reach_days: Option<f64>,
    /// Entries in the window, and outside it.
    pub in_window: u32,
    pub outside_window: u32,
    /// How far back the window reached at the end of each day with archival entries.
    pub reach_back: Vec<ReachDto>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct ReachDto {
    /// `yyyy-MM-dd`.
    pub day: String,
    pub days: f64,
}

impl Console {
    pub fn memory_stats(&self, agent: Option<&str>) -> ApiResult<MemoryStatsDto> {
        let rt = self.services();
        let owner = rt.owner(agent)?;
        let view = rt.memory.view(&owner)?;
        let mut days: std::collections::BTreeMap<String, (u32, u32)> = Default::default();
        let mut undated = 0;
        for (scope, list) in [(Scope::Core, &view.core), (Scope::Archival, &view.archival)] {
            for e in list.iter() {
                match e.timestamp {
                    Some(t) => {
                        let d = days.entry(t.format("%Y-%m-%d").to_string()).or_default();
                        match scope {
                            Scope::Core => d.0 += 1,
                            Scope::Archival => d.1 += 1,
                        }
                    }
                    None => undated += 1,
                }
            }
        }
        let opts = Options {
            checks: vec![Check::Budget],
            ..Options::default()
        };
        let budget = health::run(&[], Some(&view), &opts).budget;
        Ok(MemoryStatsDto {
            agent: owner.agent_name().map(str::to_string),
            days: days
                .into_iter()
                .map(|(day, (core, archival))| DayCountDto {
                    day,
                    core,
                    archival,
                })
                .collect(),
            undated,
            window_reach_days: budget.and_then(|b| b.window_reach_days),
            in_window: view.window.in_window_entries as u32,
            outside_window: view.window.outside_entries as u32,
            // A paged view holds only part of the archive: no series rather than a wrong one.
            reach_back: match view.paged_reason {
                Some(_) => Vec::new(),
                None => oryx_core::memory::window::reach_back_by_day_under(
                    &view.archival,
                    view.window.rule,
                )
                .into_iter()
                .map(|(d, days)| ReachDto {
                    day: d.format("%Y-%m-%d").to_string(),
                    days,
                })
                .collect(),
            },
        })
    }
}

/// The automatic summary's finding (its `propose` and `apply` modes) for `view`, when more
/// entries than its threshold have left the window unsummarised.
fn auto_summary_finding(rt: &Services, view: &MemoryView) -> Option<FindingDto> {
    let s = &rt.settings.summary;
    if s.auto == AutoSummary::Off {
        return None;
    }
    let picked = summary::candidates(view);
    if picked.len() <= s.auto_threshold {
        return None;
    }
    let ids: Vec<EntryId> = picked
        .iter()
        .map(|&i| {
            view.archival_id(i + view.archival_offset, &view.archival[i])
                .into()
        })
        .collect();
    Some(FindingDto {
        check: "budget".into(),
        kind: "unsummarised".into(),
        reason: format!(
            "{} archival entries have left the prompt window without a summary (more than {}): \
             a summary keeps what they said in the window",
            ids.len(),
            s.auto_threshold
        ),
        params: [
            ("count".to_string(), ids.len().to_string()),
            ("threshold".to_string(), s.auto_threshold.to_string()),
        ]
        .into(),
        fix: Some(FixDto {
            op: "summarize".into(),
            ids: ids.clone(),
            content: None,
        }),
        entry_ids: ids,
    })
}
