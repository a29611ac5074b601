//! The shapes of the runtime's session data (CONTRACT §6) and of the console's queries over it.

use chrono::NaiveDateTime;
use serde::{Deserialize, Deserializer, Serialize};

pub use super::search::MessageMatch;

/// One entry of `sessions.messages_json`, in the runtime's camelCase JSON. Every field is
/// optional on the way in: older runtimes wrote fewer fields, newer ones may write more.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Message {
    pub role: String,
    pub content: Option<String>,
    pub tool_name: Option<String>,
    pub tool_call_id: Option<String>,
    #[serde(deserialize_with = "null_as_empty")]
    pub tool_calls: Vec<ToolCall>,
}

/// A tool call requested by an assistant message.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ToolCall {
    pub id: Option<String>,
    pub name: String,
    pub arguments_json: Option<String>,
}

/// The runtime writes `"toolCalls": null` for messages without calls.
fn null_as_empty<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<ToolCall>, D::Error> {
    Ok(Option::<Vec<ToolCall>>::deserialize(d)?.unwrap_or_default())
}

/// The two statuses the runtime knows. Summaries keep the raw string so that an unexpected
/// value is shown as it is instead of being hidden or rejected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SessionStatus {
    #[serde(alias = "ACTIVE", alias = "Active")]
    Active,
    #[serde(alias = "ARCHIVED", alias = "Archived")]
    Archived,
}

impl SessionStatus {
    /// Reads a status cell in any case; `None` for values the runtime does not write.
    pub fn parse(s: &str) -> Option<SessionStatus> {
        let s = s.trim();
        if s.eq_ignore_ascii_case("active") {
            Some(SessionStatus::Active)
        } else if s.eq_ignore_ascii_case("archived") {
            Some(SessionStatus::Archived)
        } else {
            None
        }
    }

    /// The lower-case spelling the runtime writes.
    pub fn as_str(self) -> &'static str {
        match self {
            SessionStatus::Active => "active",
            SessionStatus::Archived => "archived",
        }
    }
}

impl std::fmt::Display for SessionStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One row of `sessions` without its messages (cheap to list).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionSummary {
    pub session_id: String,
    /// `profile_name`: the agent that owns the session.
    pub agent: Option<String>,
    pub channel: Option<String>,
    pub user_id: Option<String>,
    /// As stored (usually `active` / `archived`); see [`SessionSummary::parsed_status`].
    pub status: String,
    pub created_at: Option<NaiveDateTime>,
    pub last_active_at: Option<NaiveDateTime>,
    pub archived_at: Option<NaiveDateTime>,
    /// `None` when `messages_json` is not a JSON array; `error` then says why.
    pub message_count: Option<u64>,
    pub error: Option<String>,
    /// With a text search: the first message whose content matched (none when the session id
    /// or user id matched).
    pub message_match: Option<MessageMatch>,
}

impl SessionSummary {
    pub fn parsed_status(&self) -> Option<SessionStatus> {
        SessionStatus::parse(&self.status)
    }
}

/// What to list. Every filter is optional; `query` is a case-insensitive substring of the
/// session id, the user id or a message's content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionFilter {
    pub agent: Option<String>,
    pub status: Option<SessionStatus>,
    pub channel: Option<String>,
    pub query: Option<String>,
    pub limit: usize,
    pub offset: usize,
}

impl SessionFilter {
    /// The text query, when it has anything but whitespace.
    pub fn text_query(&self) -> Option<&str> {
        self.query
            .as_deref()
            .map(str::trim)
            .filter(|q| !q.is_empty())
    }
}

pub const DEFAULT_PAGE_SIZE: usize = 50;

impl Default for SessionFilter {
    fn default() -> Self {
        SessionFilter {
            agent: None,
            status: None,
            channel: None,
            query: None,
            limit: DEFAULT_PAGE_SIZE,
            offset: 0,
        }
    }
}

/// One page of summaries; `total` counts every row matching the filter, not just this page.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SessionPage {
    pub total: u64,
    pub items: Vec<SessionSummary>,
}

/// A session with its messages. When `messages_json` cannot be read, `messages` is empty and
/// `summary.error` says why: a corrupt row is shown, never fatal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Session {
    pub summary: SessionSummary,
    pub messages: Vec<Message>,
}

/// One row of `tool_invocations`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolInvocation {
    pub id: i64,
    pub session_id: Option<String>,
    pub tool_name: String,
    /// The raw arguments as the model sent them.
    pub input_json: Option<String>,
    /// The tool's output JSON-encoded as a string; `None` when the call failed.
    pub result_json: Option<String>,
    pub success: bool,
    pub error_message: Option<String>,
    pub duration_ms: Option<i64>,
    pub created_at: Option<NaiveDateTime>,
}

/// A tool call to record. `session_id` is required because the runtime's column is NOT NULL;
/// `result_json` is `None` for a failed call, as the runtime records failures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NewInvocation {
    pub session_id: String,
    pub tool_name: String,
    pub input_json: String,
    pub result_json: Option<String>,
    pub success: bool,
    pub error_message: Option<String>,
    pub duration_ms: i64,
    /// When the call was made (epoch ms); `None`: now, as the runtime records its calls. The
    /// sample data dates its calls inside their sessions.
    pub created_at_ms: Option<i64>,
}

/// A session row for the demo and test fixture builders only: the console itself never
/// writes sessions. `messages_json` is stored verbatim.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NewSession {
    pub session_id: String,
    pub agent: Option<String>,
    pub channel: Option<String>,
    pub user_id: Option<String>,
    pub messages_json: String,
    pub status: String,
    pub created_at_ms: i64,
    pub last_active_at_ms: i64,
    pub archived_at_ms: Option<i64>,
}

/// Row counts by status; `total` also counts rows whose status is neither value.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionStats {
    pub active: u64,
    pub archived: u64,
    pub total: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_read_the_runtime_json_leniently() {
        let json = r#"[
            {"role":"user","content":"hi","extra":1},
            {"role":"assistant","content":null,"toolCalls":[{"id":"c1","name":"recall_memory","argumentsJson":"{}"}]},
            {"role":"tool","content":"ok","toolName":"recall_memory","toolCallId":"c1","toolCalls":null},
            {"role":"assistant"}
        ]"#;
        let msgs: Vec<Message> = serde_json::from_str(json).unwrap();
        assert_eq!(msgs.len(), 4);
        assert_eq!(msgs[0].content.as_deref(), Some("hi"));
        assert_eq!(msgs[1].content, None);
        assert_eq!(msgs[1].tool_calls[0].name, "recall_memory");
        assert_eq!(msgs[1].tool_calls[0].arguments_json.as_deref(), Some("{}"));
        assert_eq!(msgs[2].tool_call_id.as_deref(), Some("c1"));
        assert!(msgs[2].tool_calls.is_empty());
        assert!(msgs[3].tool_calls.is_empty() && msgs[3].content.is_none());
    }

    #[test]
    fn status_parses_in_any_case() {
        assert_eq!(SessionStatus::parse("ACTIVE"), Some(SessionStatus::Active));
        assert_eq!(
            SessionStatus::parse(" archived "),
            Some(SessionStatus::Archived)
        );
        assert_eq!(SessionStatus::parse("paused"), None);
        let s: SessionStatus = serde_json::from_str("\"ARCHIVED\"").unwrap();
        assert_eq!(s, SessionStatus::Archived);
        assert_eq!(SessionFilter::default().limit, 50);
    }
}
