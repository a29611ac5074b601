//! Read receipts: for each memory entry, the prompts that held it and the `recall_memory` calls
//! that returned it; for a session, what each turn read. Exported as CSV or JSON.

use serde::{Deserialize, Serialize};
#[cfg(feature = "specta")]
use specta::Type;

use oryx_core::memory::Scope;
use oryx_core::reads::{self, Memory, ReadEntry, Receipt, Receipts, Timeline};
use oryx_core::timefmt::{format_entry_ts, now_local};

use crate::console::Console;
use crate::dto::{ts, ScopeDto};
use crate::error::{ApiError, ApiResult, ErrorCode};

/// Entries not read within this many days are "unread" unless the caller says otherwise.
pub const UNREAD_DAYS: u32 = 90;

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct EntryReadsArgs {
    #[serde(default)]
    pub agent: Option<String>,
    /// Only these entries (ids of today's entries or of earlier versions); absent or empty: all.
    #[serde(default)]
    pub ids: Option<Vec<String>>,
    /// An entry not read within this many days before now is `unread` (default 90).
    #[serde(default)]
    pub unread_days: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
#[serde(rename_all = "camelCase")]
pub struct EntryReadDto {
    pub id: String,
    pub scope: ScopeDto,
    pub timestamp: Option<String>,
    pub content: String,
    /// False for an id of an entry since edited or deleted (its reads before that).
    pub exists_now: bool,
    /// Today's entry's position in its section (file order).
    pub index: Option<u32>,
    /// Prompts whose memory block held the entry.
    pub prompts: u32,
    /// `recall_memory` calls whose result held it.
    pub recalls: u32,
    pub sessions: u32,
    pub first_read: Option<String>,
    pub last_read: Option<String>,
    pub last_prompt: Option<String>,
    pub last_recall: Option<String>,
    /// Not read within `unreadDays` before now.
    pub unread: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
#[serde(rename_all = "camelCase")]
pub struct EntryReadsDto {
    pub agent: Option<String>,
    pub entries: Vec<EntryReadDto>,
    pub sessions: u32,
    pub prompts: u32,
    pub recalls: u32,
    /// Sessions without recorded model calls: their prompt times are estimated from the
    /// session's start and last activity.
    pub estimated_sessions: u32,
    pub unread_days: u32,
    /// Today's entries not read within `unreadDays`.
    pub unread: u32,
    /// Now, as the unread rule saw it (`yyyy-MM-dd HH:mm:ss`).
    pub now: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct SessionReadsArgs {
    pub session_id: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
#[serde(rename_all = "camelCase")]
pub struct ReadEntryDto {
    pub id: String,
    pub scope: ScopeDto,
    pub timestamp: Option<String>,
    pub content: String,
    pub exists_now: bool,
    /// Only the end of its line reached the prompt (the window cut into it).
    pub partial: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
#[serde(rename_all = "camelCase")]
pub struct RecallReadDto {
    pub invocation_id: f64,
    pub at: Option<String>,
    pub keyword: Option<String>,
    pub entries: Vec<ReadEntryDto>,
    /// Result lines that name no entry known then.
    pub unmatched: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
#[serde(rename_all = "camelCase")]
pub struct TurnReadsDto {
    /// 1-based.
    pub turn: u32,
    /// The first words of the user's message.
    pub user: Option<String>,
    pub at: Option<String>,
    /// Prompts sent in the turn (one per model call).
    pub prompts: u32,
    /// The times were spread over the session, not recorded.
    pub estimated: bool,
    pub window: Vec<ReadEntryDto>,
    pub recalls: Vec<RecallReadDto>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
#[serde(rename_all = "camelCase")]
pub struct SessionReadsDto {
    pub session_id: String,
    pub agent: Option<String>,
    pub turns: Vec<TurnReadsDto>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
#[serde(rename_all = "lowercase")]
pub enum ReadsFormat {
    Csv,
    Json,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct ExportReadsArgs {
    #[serde(default)]
    pub agent: Option<String>,
    pub format: ReadsFormat,
    #[serde(default)]
    pub unread_days: Option<u32>,
}

/// A file to save: its suggested name, type and text.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct ReadsFileDto {
    pub file_name: String,
    pub mime: String,
    pub text: String,
}

fn count(n: u64) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

fn read_entry_dto(e: &ReadEntry) -> ReadEntryDto {
    ReadEntryDto {
        id: e.id.clone(),
        scope: e.scope.into(),
        timestamp: ts(&e.timestamp),
        content: e.content.clone(),
        exists_now: e.exists_now,
        partial: e.partial,
    }
}

fn receipt_dto(r: &Receipt, now: chrono::NaiveDateTime, days: u32) -> EntryReadDto {
    EntryReadDto {
        id: r.id.clone(),
        scope: r.scope.into(),
        timestamp: ts(&r.timestamp),
        content: r.content.clone(),
        exists_now: r.exists_now,
        index: r.index.map(|i| i as u32),
        prompts: count(r.prompts),
        recalls: count(r.recalls),
        sessions: count(r.sessions),
        first_read: ts(&r.first_read),
        last_read: ts(&r.last_read),
        last_prompt: ts(&r.last_prompt),
        last_recall: ts(&r.last_recall),
        unread: r.unread_for(now, i64::from(days)),
    }
}

/// CSV with a header, fields quoted where they hold a comma, quote or line break.
pub fn to_csv(dto: &EntryReadsDto) -> String {
    fn field(s: &str) -> String {
        if s.contains([',', '"', '\n', '\r']) {
            format!("\"{}\"", s.replace('"', "\"\""))
        } else {
            s.to_string()
        }
    }
    let mut out = String::from(
        "id,scope,timestamp,content,exists_now,prompts,recalls,sessions,first_read,last_read,\
         last_prompt,last_recall,unread\n",
    );
    for e in &dto.entries {
        let opt = |o: &Option<String>| o.as_deref().map(field).unwrap_or_default();
        let scope = match e.scope {
            ScopeDto::Core => "core",
            ScopeDto::Archival => "archival",
        };
        out.push_str(&format!(
            "{},{scope},{},{},{},{},{},{},{},{},{},{},{}\n",
            field(&e.id),
            opt(&e.timestamp),
            field(&e.content),
            e.exists_now,
            e.prompts,
            e.recalls,
            e.sessions,
            opt(&e.first_read),
            opt(&e.last_read),
            opt(&e.last_prompt),
            opt(&e.last_recall),
            e.unread
        ));
    }
    out
}

impl Console {
    fn receipts_of(&self, agent: Option<&str>) -> ApiResult<(Option<String>, Receipts)> {
        let rt = self.services();
        let owner = rt.owner(agent)?;
        let now = rt.memory.store().load_all(&owner)?;
        // A store without a history (mem0) has only today's entries to go by.
        let history = rt
            .memory
            .history(&owner, None)
            .map(|h| h.changes)
            .unwrap_or_default();
        let timeline = Timeline::load(&rt.sessions, owner.agent_name())?;
        let mem = Memory {
            now: &now,
            history: &history,
            rule: rt.memory.window_rule(),
        };
        Ok((
            owner.agent_name().map(str::to_string),
            reads::receipts(&mem, &timeline),
        ))
    }

    /// Each entry's prompts, recalls and last read (all entries, or those `ids` name).
    pub fn entry_reads(&self, a: &EntryReadsArgs) -> ApiResult<EntryReadsDto> {
        let (agent, r) = self.receipts_of(a.agent.as_deref().filter(|s| !s.is_empty()))?;
        let days = a.unread_days.unwrap_or(UNREAD_DAYS);
        let now = now_local();
        let wanted = a.ids.as_ref().filter(|ids| !ids.is_empty());
        if let Some(ids) = wanted {
            if let Some(unknown) = ids
                .iter()
                .find(|id| !r.entries.iter().any(|e| &e.id == *id))
            {
                return Err(ApiError::new(
                    ErrorCode::NotFound,
                    format!("no memory entry with id {unknown:?} (nor any read of one)"),
                ));
            }
        }
        let entries: Vec<EntryReadDto> = r
            .entries
            .iter()
            .filter(|e| wanted.is_none_or(|ids| ids.contains(&e.id)))
            .map(|e| receipt_dto(e, now, days))
            .collect();
        Ok(EntryReadsDto {
            agent,
            unread: count(entries.iter().filter(|e| e.exists_now && e.unread).count() as u64),
            entries,
            sessions: count(r.sessions),
            prompts: count(r.prompts),
            recalls: count(r.recalls),
            estimated_sessions: count(r.estimated_sessions),
            unread_days: days,
            now: format_entry_ts(&now),
        })
    }

    /// The receipts as a file to save.
    pub fn export_entry_reads(&self, a: &ExportReadsArgs) -> ApiResult<ReadsFileDto> {
        let dto = self.entry_reads(&EntryReadsArgs {
            agent: a.agent.clone(),
            ids: None,
            unread_days: a.unread_days,
        })?;
        let who = dto.agent.clone().unwrap_or_else(|| "global".into());
        Ok(match a.format {
            ReadsFormat::Csv => ReadsFileDto {
                file_name: format!("{who}-reads.csv"),
                mime: "text/csv".into(),
                text: to_csv(&dto),
            },
            ReadsFormat::Json => ReadsFileDto {
                file_name: format!("{who}-reads.json"),
                mime: "application/json".into(),
                text: serde_json::to_string_pretty(&dto)
                    .map_err(|e| ApiError::invalid(e.to_string()))?,
            },
        })
    }

    /// What each turn of a session read: its prompts' memory blocks and its recall results.
    pub fn session_reads(&self, a: &SessionReadsArgs) -> ApiResult<SessionReadsDto> {
        let rt = self.services();
        let session = rt.sessions.get(&a.session_id)?;
        let agent = session.summary.agent.clone().filter(|s| !s.is_empty());
        let owner = rt.owner(agent.as_deref())?;
        let now = rt.memory.store().load_all(&owner)?;
        let history = rt
            .memory
            .history(&owner, None)
            .map(|h| h.changes)
            .unwrap_or_default();
        let timeline = match owner.agent_name() {
            Some(_) => Timeline::load(&rt.sessions, owner.agent_name())?,
            None => Timeline::default(),
        };
        let mem = Memory {
            now: &now,
            history: &history,
            rule: rt.memory.window_rule(),
        };
        let turns = reads::turn_reads(&mem, &timeline, &a.session_id).unwrap_or_default();
        Ok(SessionReadsDto {
            session_id: a.session_id.clone(),
            agent,
            turns: turns
                .iter()
                .map(|t| TurnReadsDto {
                    turn: t.turn as u32,
                    user: t.user.clone(),
                    at: ts(&t.at),
                    prompts: t.prompts as u32,
                    estimated: t.estimated,
                    window: t.window.iter().map(read_entry_dto).collect(),
                    recalls: t
                        .recalls
                        .iter()
                        .map(|r| RecallReadDto {
                            invocation_id: r.invocation_id as f64,
                            at: ts(&r.at),
                            keyword: r.keyword.clone(),
                            entries: r.entries.iter().map(read_entry_dto).collect(),
                            unmatched: r.unmatched.clone(),
                        })
                        .collect(),
                })
                .collect(),
        })
    }

    /// Today's entries that no prompt or recall ever read although prompts came after them:
    /// for the health view's hint.
    pub(crate) fn unread_entries(&self, agent: Option<&str>) -> ApiResult<Vec<String>> {
        let (_, r) = self.receipts_of(agent)?;
        let Some(last) = r.entries.iter().filter_map(|e| e.last_prompt).max() else {
            return Ok(Vec::new());
        };
        Ok(r.entries
            .iter()
            .filter(|e| e.exists_now && e.prompts + e.recalls == 0)
            .filter(|e| e.scope == Scope::Archival || e.timestamp.is_some())
            .filter(|e| e.timestamp.is_none_or(|t| t < last))
            .map(|e| e.id.clone())
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_quotes_what_needs_it() {
        let dto = EntryReadsDto {
            agent: None,
            entries: vec![EntryReadDto {
                id: "a0-00000000".into(),
                scope: ScopeDto::Archival,
                timestamp: None,
                content: "说 \"你好\", 然后".into(),
                exists_now: true,
                index: Some(0),
                prompts: 2,
                recalls: 0,
                sessions: 1,
                first_read: Some("2026-01-01 10:00:00".into()),
                last_read: Some("2026-01-01 10:00:00".into()),
                last_prompt: Some("2026-01-01 10:00:00".into()),
                last_recall: None,
                unread: false,
            }],
            sessions: 1,
            prompts: 2,
            recalls: 0,
            estimated_sessions: 0,
            unread_days: 90,
            unread: 0,
            now: "2026-01-02 00:00:00".into(),
        };
        let csv = to_csv(&dto);
        assert_eq!(
            csv.lines().nth(1).unwrap(),
            "a0-00000000,archival,,\"说 \"\"你好\"\", 然后\",true,2,0,1,2026-01-01 10:00:00,\
             2026-01-01 10:00:00,2026-01-01 10:00:00,,false"
        );
    }
}
