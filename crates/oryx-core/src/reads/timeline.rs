//! When an owner's prompts were built and when its `recall_memory` calls ran, per session turn.
//!
//! The runtime builds the whole prompt, memory block included, before every model call of its
//! loop (several per user turn when the model calls tools), and records each call in
//! `llm_calls`; every successful call appends one assistant message. So a prompt is one model
//! call, dated by its `llm_calls` row. A session without rows there (older runtimes, sample
//! data) has one prompt per assistant message of a turn (at least one per turn), the turns
//! spread evenly between the session's creation and its last activity: such times are
//! estimates, and say so.

use chrono::NaiveDateTime;

use crate::error::Result;
use crate::sessions::{LlmCallRow, Message, Session, SessionStore, ToolInvocation};
use crate::timefmt::local_to_epoch_ms;

pub const RECALL_TOOL: &str = "recall_memory";

/// One user turn of a session: the user message and what followed up to the next one.
#[derive(Debug, Clone, PartialEq)]
pub struct Turn {
    /// 1-based, in the session's order.
    pub number: usize,
    /// When its prompts were sent (epoch ms), oldest first.
    pub prompts: Vec<i64>,
    /// The times were spread over the session's span, not recorded.
    pub estimated: bool,
    /// The first words of the user's message.
    pub user: Option<String>,
}

/// A `recall_memory` call and the lines it returned.
#[derive(Debug, Clone, PartialEq)]
pub struct Recall {
    pub invocation_id: i64,
    pub at_ms: i64,
    pub keyword: Option<String>,
    /// The result's lines; empty when nothing was found.
    pub lines: Vec<String>,
    /// Index into the session's turns, when one could be told.
    pub turn: Option<usize>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SessionReads {
    pub session_id: String,
    pub turns: Vec<Turn>,
    pub recalls: Vec<Recall>,
}

/// Every session of one owner, dated.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Timeline {
    pub sessions: Vec<SessionReads>,
}

impl Timeline {
    /// `sessions` with their model calls and `recall_memory` invocations (any order).
    pub fn build(
        sessions: &[Session],
        calls: &[LlmCallRow],
        invocations: &[ToolInvocation],
    ) -> Timeline {
        use std::collections::HashMap;
        let mut calls_of: HashMap<&str, Vec<&LlmCallRow>> = HashMap::new();
        for c in calls {
            calls_of.entry(&c.session_id).or_default().push(c);
        }
        let mut recalls_of: HashMap<&str, Vec<&ToolInvocation>> = HashMap::new();
        for i in invocations.iter().filter(|i| i.tool_name == RECALL_TOOL) {
            if let Some(s) = &i.session_id {
                recalls_of.entry(s).or_default().push(i);
            }
        }
        let sessions = sessions
            .iter()
            .map(|s| {
                let id = s.summary.session_id.as_str();
                let mut calls = calls_of.remove(id).unwrap_or_default();
                calls.sort_by_key(|c| c.sent_at_ms);
                let mut recalls = recalls_of.remove(id).unwrap_or_default();
                recalls.sort_by_key(|i| (i.created_at, i.id));
                session_reads(s, &calls, &recalls)
            })
            .collect();
        Timeline { sessions }
    }

    /// The sessions of `agent` as the runtime recorded them. The global memory is read by no
    /// agent's session: it has none.
    pub fn load(store: &SessionStore, agent: Option<&str>) -> Result<Timeline> {
        let Some(agent) = agent else {
            return Ok(Timeline::default());
        };
        let sessions = store.sessions_of_agent(agent)?;
        let calls = store.llm_calls_of_agent(Some(agent))?;
        let recalls = store.successful_calls_of(RECALL_TOOL, None, None)?;
        Ok(Timeline::build(&sessions, &calls, &recalls))
    }

    pub fn session(&self, id: &str) -> Option<&SessionReads> {
        self.sessions.iter().find(|s| s.session_id == id)
    }
}

/// What a turn's messages say: how many model calls answered and how many recalls they made.
struct Shape {
    assistants: usize,
    recall_calls: usize,
    user: Option<String>,
}

fn shapes(messages: &[Message]) -> Vec<Shape> {
    let mut out: Vec<Shape> = Vec::new();
    for m in messages {
        if m.role.eq_ignore_ascii_case("user") {
            out.push(Shape {
                assistants: 0,
                recall_calls: 0,
                user: m.content.as_deref().map(|c| c.chars().take(80).collect()),
            });
        } else if let Some(t) = out.last_mut() {
            if m.role.eq_ignore_ascii_case("assistant") {
                t.assistants += 1;
                t.recall_calls += m
                    .tool_calls
                    .iter()
                    .filter(|c| c.name == RECALL_TOOL)
                    .count();
            }
        }
    }
    out
}

fn session_reads(s: &Session, calls: &[&LlmCallRow], recalls: &[&ToolInvocation]) -> SessionReads {
    let mut shapes = shapes(&s.messages);
    if shapes.is_empty() && !calls.is_empty() {
        shapes.push(Shape {
            assistants: calls.len(),
            recall_calls: 0,
            user: None,
        });
    }
    let turns = if calls.is_empty() {
        estimated_turns(s, &shapes)
    } else {
        recorded_turns(&shapes, calls)
    };
    let recalls = assign_recalls(&turns, &shapes, recalls);
    SessionReads {
        session_id: s.summary.session_id.clone(),
        turns,
        recalls,
    }
}

/// Calls in order: each successful one answered one assistant message of the turn; a failed
/// one ended its turn (the runtime's loop stops on an error).
fn recorded_turns(shapes: &[Shape], calls: &[&LlmCallRow]) -> Vec<Turn> {
    let mut next = 0usize;
    let last = shapes.len().saturating_sub(1);
    shapes
        .iter()
        .enumerate()
        .map(|(k, shape)| {
            let mut prompts = Vec::new();
            let mut answered = 0usize;
            while next < calls.len() {
                let c = calls[next];
                if k < last && answered == shape.assistants {
                    // The turn's answers are all matched: a failure right after is its end.
                    if !c.success && prompts.len() == answered {
                        prompts.push(c.sent_at_ms);
                        next += 1;
                    }
                    break;
                }
                prompts.push(c.sent_at_ms);
                answered += usize::from(c.success);
                next += 1;
            }
            Turn {
                number: k + 1,
                prompts,
                estimated: false,
                user: shape.user.clone(),
            }
        })
        .collect()
}

fn estimated_turns(s: &Session, shapes: &[Shape]) -> Vec<Turn> {
    let ms = |t: &Option<NaiveDateTime>| t.as_ref().map(local_to_epoch_ms);
    let (from, to) = match (ms(&s.summary.created_at), ms(&s.summary.last_active_at)) {
        (Some(a), Some(b)) => (a, b.max(a)),
        (Some(a), None) => (a, a),
        (None, Some(b)) => (b, b),
        (None, None) => return Vec::new(),
    };
    let n = shapes.len();
    shapes
        .iter()
        .enumerate()
        .map(|(k, shape)| {
            let at = if n <= 1 {
                from
            } else {
                from + (to - from) * k as i64 / (n as i64 - 1)
            };
            Turn {
                number: k + 1,
                prompts: vec![at; shape.assistants.max(1)],
                estimated: true,
                user: shape.user.clone(),
            }
        })
        .collect()
}

/// The k-th recall call of the session's messages is its k-th recorded invocation; when the
/// counts differ, an invocation goes to the last turn started by its time.
fn assign_recalls(turns: &[Turn], shapes: &[Shape], recalls: &[&ToolInvocation]) -> Vec<Recall> {
    let by_order: Vec<usize> = shapes
        .iter()
        .enumerate()
        .flat_map(|(k, s)| std::iter::repeat_n(k, s.recall_calls))
        .collect();
    let in_order = by_order.len() == recalls.len();
    recalls
        .iter()
        .enumerate()
        .filter(|(_, inv)| inv.success)
        .filter_map(|(k, inv)| {
            let at_ms = local_to_epoch_ms(inv.created_at.as_ref()?);
            let turn = if in_order {
                Some(by_order[k])
            } else {
                turns
                    .iter()
                    .rposition(|t| t.prompts.first().is_some_and(|&p| p <= at_ms))
                    .or_else(|| (!turns.is_empty()).then_some(0))
            };
            Some(Recall {
                invocation_id: inv.id,
                at_ms,
                keyword: keyword_of(inv.input_json.as_deref()),
                lines: result_lines(inv.result_json.as_deref()),
                turn,
            })
        })
        .collect()
}

fn keyword_of(input: Option<&str>) -> Option<String> {
    let v: serde_json::Value = serde_json::from_str(input?).ok()?;
    v.get("keyword")?.as_str().map(str::to_string)
}

/// The lines of a recall result: the tool's text is recorded JSON-encoded; a row written by
/// someone else may hold it bare.
pub fn result_lines(result_json: Option<&str>) -> Vec<String> {
    let Some(raw) = result_json else {
        return Vec::new();
    };
    let text = serde_json::from_str::<String>(raw).unwrap_or_else(|_| raw.to_string());
    if text.trim() == crate::memory::service::RECALL_EMPTY {
        return Vec::new();
    }
    text.lines()
        .map(|l| l.trim().to_string())
        .filter(|l| !l.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sessions::{SessionSummary, ToolCall};
    use crate::timefmt::parse_entry_ts;

    fn msg(role: &str, calls: &[&str]) -> Message {
        Message {
            role: role.into(),
            content: Some(format!("{role} says")),
            tool_calls: calls
                .iter()
                .map(|n| ToolCall {
                    name: n.to_string(),
                    ..ToolCall::default()
                })
                .collect(),
            ..Message::default()
        }
    }

    fn session(messages: Vec<Message>) -> Session {
        Session {
            summary: SessionSummary {
                session_id: "s".into(),
                agent: Some("a".into()),
                channel: None,
                user_id: None,
                status: "active".into(),
                created_at: parse_entry_ts("2026-01-01 10:00:00"),
                last_active_at: parse_entry_ts("2026-01-01 10:10:00"),
                archived_at: None,
                message_count: Some(messages.len() as u64),
                error: None,
                message_match: None,
            },
            messages,
        }
    }

    fn call(at: i64, success: bool) -> LlmCallRow {
        LlmCallRow {
            session_id: "s".into(),
            sent_at_ms: at,
            success,
        }
    }

    fn two_turns() -> Vec<Message> {
        vec![
            msg("user", &[]),
            msg("assistant", &["recall_memory"]),
            msg("tool", &[]),
            msg("assistant", &[]),
            msg("user", &[]),
            msg("assistant", &[]),
        ]
    }

    #[test]
    fn recorded_calls_date_each_prompt_and_a_failure_ends_its_turn() {
        let s = session(two_turns());
        let calls = [call(1, true), call(2, true), call(3, false), call(4, true)];
        let t = Timeline::build(&[s], &calls, &[]);
        let turns = &t.sessions[0].turns;
        assert_eq!(turns[0].prompts, [1, 2, 3]);
        assert_eq!(turns[1].prompts, [4]);
        assert!(!turns[0].estimated);
    }

    #[test]
    fn without_calls_turns_spread_over_the_session() {
        let s = session(two_turns());
        let from = local_to_epoch_ms(&parse_entry_ts("2026-01-01 10:00:00").unwrap());
        let t = Timeline::build(&[s], &[], &[]);
        let turns = &t.sessions[0].turns;
        assert_eq!(turns[0].prompts, [from, from]);
        assert_eq!(turns[1].prompts, [from + 600_000]);
        assert!(turns[1].estimated);
    }

    #[test]
    fn recalls_follow_the_calls_in_the_messages() {
        let s = session(two_turns());
        let inv = ToolInvocation {
            id: 9,
            session_id: Some("s".into()),
            tool_name: RECALL_TOOL.into(),
            input_json: Some(r#"{"keyword":"茶"}"#.into()),
            result_json: Some(serde_json::to_string("- [2026-01-01 09:00:00] 绿茶\n- x").unwrap()),
            success: true,
            error_message: None,
            duration_ms: None,
            created_at: parse_entry_ts("2026-01-01 10:09:00"),
        };
        let t = Timeline::build(&[s], &[], &[inv]);
        let r = &t.sessions[0].recalls[0];
        assert_eq!(r.turn, Some(0));
        assert_eq!(r.keyword.as_deref(), Some("茶"));
        assert_eq!(r.lines, ["- [2026-01-01 09:00:00] 绿茶", "- x"]);
        assert!(result_lines(Some("\"没有找到相关记忆\"")).is_empty());
    }
}
