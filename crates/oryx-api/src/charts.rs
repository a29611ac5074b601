//! What the charts and the dashboard draw: findings per agent (the agents list's
//! badges), sessions per day per agent, and the prompt's composition per session of one agent
//! with memory as it stood at each session's time (from the entries' timestamps).

use serde::{Deserialize, Serialize};
#[cfg(feature = "specta")]
use specta::Type;

use oryx_core::memory::entry::Entry;
use oryx_core::memory::service::render_block;
use oryx_core::memory::window;
use oryx_core::sessions::last_turns;

use crate::console::Console;
use crate::error::ApiResult;
use crate::health::HealthArgs;

/// One agent's health at a glance.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct AgentHealthDto {
    pub agent: String,
    /// Findings not dismissed, in all and per check.
    pub findings: u32,
    pub secrets: u32,
    pub pii: u32,
    pub duplicates: u32,
    pub stale: u32,
    pub budget: u32,
    /// Recall checks that passed once and fail now (counted in `findings` too).
    pub broken_checks: u32,
    pub core: u32,
    pub archival: u32,
    pub outside_window: u32,
    pub prompt_chars: Option<u32>,
    pub window_reach_days: Option<f64>,
    /// Why this agent's memory could not be checked (the other agents still are).
    pub error: Option<String>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct SessionsPerDayArgs {
    /// How many days back from today (default 30, at most 3660).
    #[serde(default)]
    pub days: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct SessionDayDto {
    /// `yyyy-MM-dd`.
    pub day: String,
    pub agent: String,
    pub sessions: u32,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct PromptCompositionArgs {
    pub agent: String,
    /// The newest sessions to show (default 30, at most 500).
    #[serde(default)]
    pub limit: Option<u32>,
}

/// The characters of each prompt part for one session, at the time of its last activity.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct SessionPromptDto {
    pub session_id: String,
    /// Local time of the session's last activity, `yyyy-MM-dd HH:mm:ss`.
    pub at: Option<String>,
    pub system: u32,
    /// The memory block as it stood then: entries stamped after it left out (edits and
    /// deletes made since are not undone).
    pub memory: u32,
    pub history: u32,
    pub tools: u32,
}

fn count(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

impl Console {
    /// Every agent's findings and window, for the agents list's badges and the dashboard.
    pub fn agents_health(&self) -> ApiResult<Vec<AgentHealthDto>> {
        let rt = self.services();
        let agents = oryx_core::agents::list(rt.root())?;
        drop(rt);
        let mut out = Vec::with_capacity(agents.len());
        for a in agents {
            let mut row = AgentHealthDto {
                agent: a.name.clone(),
                findings: 0,
                secrets: 0,
                pii: 0,
                duplicates: 0,
                stale: 0,
                budget: 0,
                broken_checks: 0,
                core: 0,
                archival: 0,
                outside_window: 0,
                prompt_chars: None,
                window_reach_days: None,
                error: None,
            };
            let health = self.memory_health(&HealthArgs {
                agent: Some(a.name.clone()),
                ..HealthArgs::default()
            });
            let stats = health.and_then(|h| self.memory_stats(Some(&a.name)).map(|s| (h, s)));
            match stats {
                Ok((h, s)) => {
                    row.findings = count(h.findings.len());
                    for f in &h.findings {
                        let slot = match f.check.as_str() {
                            "secrets" => &mut row.secrets,
                            "pii" => &mut row.pii,
                            "duplicates" => &mut row.duplicates,
                            "stale" => &mut row.stale,
                            "budget" => &mut row.budget,
                            // Counted in `findings` only: the row has no column for it.
                            _ => continue,
                        };
                        *slot += 1;
                    }
                    row.broken_checks = count(self.broken_checks(&a.name));
                    row.findings += row.broken_checks;
                    row.prompt_chars = h.budget.as_ref().map(|b| b.prompt_chars);
                    row.window_reach_days = s.window_reach_days;
                    row.core = s.days.iter().map(|d| d.core).sum();
                    row.archival = s.days.iter().map(|d| d.archival).sum::<u32>() + s.undated;
                    row.outside_window = s.outside_window;
                }
                Err(e) => row.error = Some(e.message),
            }
            out.push(row);
        }
        Ok(out)
    }

    /// Sessions started per day and agent over the last `days` days.
    pub fn sessions_per_day(&self, a: &SessionsPerDayArgs) -> ApiResult<Vec<SessionDayDto>> {
        let days = a.days.unwrap_or(30).clamp(1, 3660);
        let since =
            oryx_core::timefmt::now_local().date() - chrono::Duration::days(i64::from(days) - 1);
        let rt = self.services();
        Ok(rt
            .sessions
            .sessions_per_day(Some(since))?
            .into_iter()
            .map(|(day, agent, n)| SessionDayDto {
                day: day.format("%Y-%m-%d").to_string(),
                agent,
                sessions: count(n as usize),
            })
            .collect())
    }

    /// The prompt's parts per session of `agent`, newest sessions last.
    pub fn prompt_composition(
        &self,
        a: &PromptCompositionArgs,
    ) -> ApiResult<Vec<SessionPromptDto>> {
        let rt = self.services();
        let owner = rt.owner(Some(&a.agent))?;
        let limit = a.limit.unwrap_or(30).clamp(1, 500) as usize;
        let now = self.prompt_preview(&a.agent, None, None)?;
        let part = |k: crate::dto::PartKindDto| {
            now.parts
                .iter()
                .filter(|p| p.kind == k)
                .map(|p| p.chars)
                .sum::<u32>()
        };
        let (system, tools) = (
            part(crate::dto::PartKindDto::System),
            part(crate::dto::PartKindDto::Tools),
        );
        let profile = oryx_core::agents::get(rt.root(), &a.agent)?;
        let view = rt.memory.view(&owner)?;
        let rule = rt.memory.window_rule();
        let sessions = rt.sessions.sessions_of_agent(&a.agent)?;
        let skip = sessions.len().saturating_sub(limit);
        Ok(sessions[skip..]
            .iter()
            .map(|s| {
                let at = s.summary.last_active_at.or(s.summary.created_at);
                let then = |e: &&Entry| match (at, e.timestamp) {
                    (Some(at), Some(t)) => t <= at,
                    _ => true,
                };
                let core: Vec<Entry> = view.core.iter().filter(then).cloned().collect();
                let archival: Vec<Entry> = view.archival.iter().filter(then).cloned().collect();
                let w = window::apply(&archival, rule);
                let history = last_turns(&s.messages, profile.max_history_turns);
                SessionPromptDto {
                    session_id: s.summary.session_id.clone(),
                    at: at.map(|t| t.format("%Y-%m-%d %H:%M:%S").to_string()),
                    system,
                    memory: count(render_block(&core, &w).chars().count()),
                    history: count(oryx_core::prompt::render_history(history).chars().count()),
                    tools,
                }
            })
            .collect())
    }
}
