//! The memory tools and the ToolExecutor that records every call in `tool_invocations` (CONTRACT §8).

use std::path::PathBuf;
use std::time::Instant;

use serde::Serialize;
use serde_json::{json, Value};

use crate::error::{CoreError, Result};
use crate::memory::{MemoryService, Scope};
use crate::names::{resolve_lenient, Owner};
use crate::sessions::{NewInvocation, SessionStore};

pub const SAVE_MEMORY: &str = "save_memory";
pub const RECALL_MEMORY: &str = "recall_memory";
pub const SAVED: &str = "已记住";

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ToolSpec {
    pub name: &'static str,
    pub description: &'static str,
    pub parameters: Value,
}

pub const SAVE_SCOPE_DESCRIPTION: &str = "记忆分区：core = 少量常驻事实（身份/偏好/硬约束，每轮对话都在场，不参与检索，务必精炼）；archival = 一般值得记住的事件与结论（按需检索找回）。不确定就填 archival";

/// The input schema in the shape the runtime's tool layer (Spring AI) generates: every
/// parameter required, no additional properties.
fn input_schema(params: &[(&str, &str)]) -> Value {
    let mut properties = serde_json::Map::new();
    for (name, description) in params {
        properties.insert(
            name.to_string(),
            json!({"type": "string", "description": description}),
        );
    }
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": properties,
        "required": params.iter().map(|(n, _)| *n).collect::<Vec<_>>(),
        "additionalProperties": false
    })
}

/// The memory tools as prompt part [4] lists them.
pub fn specs() -> Vec<ToolSpec> {
    vec![
        ToolSpec {
            name: SAVE_MEMORY,
            description: "记住一件值得长期记住的事",
            parameters: input_schema(&[
                ("content", "要记住的内容"),
                ("scope", SAVE_SCOPE_DESCRIPTION),
            ]),
        },
        ToolSpec {
            name: RECALL_MEMORY,
            description: "按关键词检索长期记忆",
            parameters: input_schema(&[("keyword", "检索关键词")]),
        },
    ]
}

pub const MISSING_KEYWORD: &str = "错误: 缺少 keyword 参数";

/// save_memory's scope as the runtime reads it: blank (Java's `isBlank`) is archival, anything
/// else must be `core` or `archival` in any case and without surrounding spaces (Java's
/// `toUpperCase(Locale.ROOT)` then `MemoryScope.valueOf`).
pub fn save_scope(raw: &str) -> Option<Scope> {
    if raw.chars().all(is_java_whitespace) {
        return Some(Scope::Archival);
    }
    match raw.to_uppercase().as_str() {
        "CORE" => Some(Scope::Core),
        "ARCHIVAL" => Some(Scope::Archival),
        _ => None,
    }
}

/// `Character.isWhitespace`: Unicode space separators except the no-break ones, and the ASCII
/// controls \t \n \u{b} \u{c} \r and \u{1c}–\u{1f}.
pub(crate) fn is_java_whitespace(c: char) -> bool {
    match c {
        '\u{a0}' | '\u{2007}' | '\u{202f}' => false,
        '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | '\u{1c}'..='\u{1f}' => true,
        ' '
        | '\u{1680}'
        | '\u{2000}'..='\u{200a}'
        | '\u{2028}'
        | '\u{2029}'
        | '\u{205f}'
        | '\u{3000}' => true,
        _ => false,
    }
}

pub fn bad_scope_message(scope: &str) -> String {
    format!("无法识别的记忆分区: {scope}（应为 core 或 archival）")
}

/// Who is calling: the running agent (may be invalid: then the global file) and its session.
#[derive(Debug, Clone, Default)]
pub struct ToolContext {
    pub agent: Option<String>,
    pub session_id: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    /// The model's call was wrong (unknown tool, bad JSON, bad scope, empty content).
    BadCall,
    /// The store failed (disk, database, mem0).
    Store,
}

#[derive(Debug, Clone, Serialize)]
pub struct ToolOutcome {
    pub tool: String,
    pub owner: String,
    /// The result string handed back to the model.
    pub output: String,
    pub success: bool,
    pub failure: Option<FailureKind>,
    pub duration_ms: i64,
    /// The `tool_invocations` row; `None` when recording the call failed (see `warning`).
    pub invocation_id: Option<i64>,
    /// Why the call could not be recorded (the call itself happened: its result stands), or
    /// why recall_memory answered by keyword in a semantic mode.
    pub warning: Option<String>,
}

pub struct ToolExecutor {
    root: PathBuf,
    memory: MemoryService,
    sessions: SessionStore,
}

impl ToolExecutor {
    pub fn new(root: impl Into<PathBuf>, memory: MemoryService, sessions: SessionStore) -> Self {
        ToolExecutor {
            root: root.into(),
            memory,
            sessions,
        }
    }

    /// Runs one call and records it. Failures of the call itself are outcomes, and so is a
    /// failure to record it (a warning, as the runtime logs it): by then the tool has done its
    /// work, and hiding its result would invite the caller to repeat it.
    pub fn execute(&self, ctx: &ToolContext, tool: &str, input_json: &str) -> Result<ToolOutcome> {
        let started = Instant::now();
        let owner = resolve_lenient(&self.root, ctx.agent.as_deref());
        let result = self.run(&owner, tool, input_json);
        let duration_ms = started.elapsed().as_millis() as i64;
        // As the runtime records them: a tool that returned (even a complaint about its input,
        // like a bad scope) succeeded and its result is JSON-encoded; a failure has no result.
        let (output, success, failure, note) = match result {
            Ok((out, note)) => (out, true, None, note),
            Err(Failure::Answered(msg)) => (msg, true, Some(FailureKind::BadCall), None),
            Err(Failure::Failed(kind, msg)) => (msg, false, Some(kind), None),
        };
        let recorded = self.sessions.record_invocation(&NewInvocation {
            session_id: ctx
                .session_id
                .clone()
                .unwrap_or_else(|| default_session_id(&owner)),
            tool_name: tool.to_string(),
            input_json: input_json.to_string(),
            result_json: success
                .then(|| serde_json::to_string(&output).expect("string serialises")),
            success,
            error_message: (!success).then(|| output.clone()),
            duration_ms,
            created_at_ms: None,
        });
        let (invocation_id, not_recorded) = match recorded {
            Ok(id) => (Some(id), None),
            Err(e) => (
                None,
                Some(format!(
                    "the {tool} call was not recorded in tool_invocations: {e}"
                )),
            ),
        };
        let warning = [note, not_recorded]
            .into_iter()
            .flatten()
            .reduce(|a, b| format!("{a}; {b}"));
        Ok(ToolOutcome {
            tool: tool.to_string(),
            owner: owner.label(),
            output,
            success,
            failure,
            duration_ms,
            invocation_id,
            warning,
        })
    }

    fn run(
        &self,
        owner: &Owner,
        tool: &str,
        input_json: &str,
    ) -> std::result::Result<(String, Option<String>), Failure> {
        if tool != SAVE_MEMORY && tool != RECALL_MEMORY {
            return Err(Failure::Failed(
                FailureKind::BadCall,
                format!("未注册的工具: {tool}"),
            ));
        }
        let input: Value = serde_json::from_str(if input_json.trim().is_empty() {
            "{}"
        } else {
            input_json
        })
        .map_err(|e| {
            Failure::Failed(FailureKind::BadCall, format!("工具入参不是合法 JSON: {e}"))
        })?;
        let store_err = |e: CoreError| Failure::Failed(FailureKind::Store, e.to_string());
        match tool {
            SAVE_MEMORY => {
                let content = str_arg(&input, "content");
                let scope_raw = str_arg(&input, "scope");
                let scope = save_scope(&scope_raw)
                    .ok_or_else(|| Failure::Answered(bad_scope_message(&scope_raw)))?;
                if content.trim().is_empty() {
                    return Err(Failure::Failed(
                        FailureKind::BadCall,
                        "记忆内容不能为空".into(),
                    ));
                }
                match self.memory.store().as_mem0() {
                    // mem0 gets what the runtime sends it: archival saves are distilled there.
                    Some(mem0) => {
                        let content =
                            crate::memory::sanitize_content(&content).map_err(store_err)?;
                        mem0.agent_save(owner, scope, &content).map_err(store_err)?;
                    }
                    None => {
                        self.memory
                            .append(owner, scope, &content)
                            .map_err(store_err)?;
                    }
                }
                Ok((SAVED.to_string(), None))
            }
            RECALL_MEMORY => {
                // The runtime's recall fails on a missing keyword (an empty one matches all).
                if matches!(input.get("keyword"), None | Some(Value::Null)) {
                    return Err(Failure::Failed(
                        FailureKind::BadCall,
                        MISSING_KEYWORD.to_string(),
                    ));
                }
                let keyword = str_arg(&input, "keyword");
                match self.memory.store().as_mem0() {
                    // The runtime answers from mem0's own search, in mem0's order.
                    Some(mem0) => {
                        let hits = mem0.agent_recall(owner, &keyword).map_err(store_err)?;
                        let lines: Vec<&str> = hits.iter().map(String::as_str).collect();
                        Ok((crate::memory::service::recall_lines_text(&lines), None))
                    }
                    None => self
                        .memory
                        .recall_answer(owner, &keyword)
                        .map_err(store_err),
                }
            }
            _ => unreachable!("unknown tools are answered above"),
        }
    }
}

enum Failure {
    /// The tool answered with a complaint (the runtime returns it as the tool's result).
    Answered(String),
    /// The call failed; recorded with `success = false`.
    Failed(FailureKind, String),
}

/// `tool_invocations.session_id` is NOT NULL in the runtime's schema; calls made from the
/// console without a session get a session id in the runtime's `channel:user:agent` shape.
pub fn default_session_id(owner: &Owner) -> String {
    format!("console:oryx:{}", owner.db_key())
}

/// A string argument; numbers and booleans are accepted as their text, missing is empty.
/// What a save_memory call with these raw arguments stored: its section and content as the
/// tool wrote them (arguments read as [`ToolExecutor::execute`] reads them, content sanitised as
/// the store does). `None`: that call stored nothing (bad JSON, a bad scope, blank content).
pub fn saved_by(input_json: &str) -> Option<(Scope, String)> {
    let input: Value = serde_json::from_str(input_json).ok()?;
    let content = str_arg(&input, "content");
    let scope = save_scope(&str_arg(&input, "scope"))?;
    if content.trim().is_empty() {
        return None;
    }
    Some((scope, crate::memory::sanitize_content(&content).ok()?))
}

fn str_arg(input: &Value, key: &str) -> String {
    match input.get(key) {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => String::new(),
        Some(v) => v.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::MarkdownMemoryStore;
    use std::sync::Arc;

    fn executor(dir: &std::path::Path) -> ToolExecutor {
        std::fs::create_dir_all(dir.join("agents/a")).unwrap();
        let memory = MemoryService::new(Arc::new(MarkdownMemoryStore::new(dir)), 4000);
        ToolExecutor::new(dir, memory, SessionStore::new(dir.join("oryxos.db")))
    }

    /// A call by agent `a` in its CLI session.
    fn agent_a() -> ToolContext {
        ToolContext {
            agent: Some("a".into()),
            session_id: Some("cli:u:a".into()),
        }
    }

    #[test]
    fn save_and_recall_with_exact_strings() {
        let dir = tempfile::tempdir().unwrap();
        let ex = executor(dir.path());
        let ctx = agent_a();
        let out = ex
            .execute(&ctx, SAVE_MEMORY, r#"{"content":"用户偏好简洁的回复"}"#)
            .unwrap();
        assert_eq!(out.output, "已记住");
        let text = std::fs::read_to_string(dir.path().join("agents/a/MEMORY.md")).unwrap();
        assert!(
            text.contains("## 归档记忆\n- ["),
            "blank scope is archival: {text}"
        );
        let out = ex
            .execute(&ctx, SAVE_MEMORY, r#"{"content":"x","scope":"long"}"#)
            .unwrap();
        assert_eq!(
            out.output,
            "无法识别的记忆分区: long（应为 core 或 archival）"
        );
        assert_eq!(out.failure, Some(FailureKind::BadCall));
        let out = ex
            .execute(&ctx, RECALL_MEMORY, r#"{"keyword":"偏好"}"#)
            .unwrap();
        assert!(out.output.starts_with("- [") && out.output.ends_with("] 用户偏好简洁的回复"));
        let out = ex
            .execute(&ctx, RECALL_MEMORY, r#"{"keyword":"nothing"}"#)
            .unwrap();
        assert_eq!(out.output, "没有找到相关记忆");
        let out = ex.execute(&ctx, "rm_rf", "{}").unwrap();
        assert!(!out.success);
        let out = ex.execute(&ctx, SAVE_MEMORY, "{not json").unwrap();
        assert!(!out.success && out.output.starts_with("工具入参不是合法 JSON"));
        let rows = ex.sessions.tool_invocations(None, 100, 0).unwrap();
        assert_eq!(rows.len(), 6, "every call is recorded, failures included");
        let failed: Vec<_> = rows.iter().filter(|r| !r.success).collect();
        assert_eq!(
            failed.len(),
            2,
            "unknown tool and bad JSON fail; a bad scope is an answer"
        );
        assert!(failed
            .iter()
            .all(|r| r.result_json.is_none() && r.error_message.is_some()));
        assert!(rows
            .iter()
            .any(|r| r.error_message.as_deref() == Some("未注册的工具: rm_rf")));
        assert!(rows
            .iter()
            .all(|r| r.session_id.as_deref() == Some("cli:u:a")));
        let saved = rows
            .iter()
            .find(|r| r.result_json.as_deref() == Some("\"已记住\""))
            .unwrap();
        assert_eq!(
            saved.input_json.as_deref(),
            Some(r#"{"content":"用户偏好简洁的回复"}"#)
        );
    }

    #[test]
    fn an_invalid_agent_on_the_run_path_falls_back_to_global() {
        let dir = tempfile::tempdir().unwrap();
        let ex = executor(dir.path());
        let ctx = ToolContext {
            agent: Some("../../etc".into()),
            session_id: None,
        };
        let out = ex
            .execute(&ctx, SAVE_MEMORY, r#"{"content":"safe","scope":"CORE"}"#)
            .unwrap();
        assert!(out.success);
        assert_eq!(out.owner, "global");
        let rows = ex.sessions.tool_invocations(None, 10, 0).unwrap();
        assert_eq!(
            rows[0].session_id.as_deref(),
            Some("console:oryx:__global__")
        );
        assert!(dir.path().join("memory/MEMORY.md").exists());
    }

    #[test]
    fn a_scope_with_surrounding_spaces_is_refused_as_the_runtime_does() {
        let dir = tempfile::tempdir().unwrap();
        let ex = executor(dir.path());
        let ctx = agent_a();
        let out = ex
            .execute(&ctx, SAVE_MEMORY, r#"{"content":"x","scope":" core "}"#)
            .unwrap();
        assert_eq!(
            out.output,
            "无法识别的记忆分区:  core （应为 core 或 archival）"
        );
        assert!(
            out.success,
            "the runtime returns the complaint as the result"
        );
        assert!(
            !dir.path().join("agents/a/MEMORY.md").exists(),
            "nothing saved"
        );
        assert_eq!(save_scope("Core"), Some(Scope::Core));
        assert_eq!(save_scope("ARCHIVAL"), Some(Scope::Archival));
        assert_eq!(save_scope(" \t\u{3000}"), Some(Scope::Archival), "blank");
        assert_eq!(save_scope(""), Some(Scope::Archival));
        assert_eq!(
            save_scope("\u{a0}"),
            None,
            "Java's isBlank keeps no-break spaces"
        );
        assert_eq!(save_scope("core\n"), None);
        assert_eq!(
            save_scope("archıval"),
            Some(Scope::Archival),
            "Java upper-cases ı to I"
        );
    }

    #[test]
    fn recall_without_a_keyword_is_a_failed_call() {
        let dir = tempfile::tempdir().unwrap();
        let ex = executor(dir.path());
        let ctx = agent_a();
        ex.execute(&ctx, SAVE_MEMORY, r#"{"content":"something"}"#)
            .unwrap();
        for input in ["{}", r#"{"keyword":null}"#, ""] {
            let out = ex.execute(&ctx, RECALL_MEMORY, input).unwrap();
            assert!(!out.success, "{input}: {}", out.output);
            assert_eq!(out.output, MISSING_KEYWORD);
            assert_eq!(out.failure, Some(FailureKind::BadCall));
        }
        let out = ex
            .execute(&ctx, RECALL_MEMORY, r#"{"keyword":""}"#)
            .unwrap();
        assert!(
            out.success && out.output.ends_with("something"),
            "an empty keyword matches all"
        );
        let rows = ex.sessions.tool_invocations(None, 10, 0).unwrap();
        let failed: Vec<_> = rows.iter().filter(|r| !r.success).collect();
        assert_eq!(failed.len(), 3);
        assert!(failed.iter().all(
            |r| r.result_json.is_none() && r.error_message.as_deref() == Some(MISSING_KEYWORD)
        ));
    }

    #[test]
    fn a_call_that_cannot_be_recorded_keeps_its_result_with_a_warning() {
        let dir = tempfile::tempdir().unwrap();
        // An older runtime's tool_invocations without the columns the runtime writes today.
        rusqlite::Connection::open(dir.path().join("oryxos.db"))
            .unwrap()
            .execute_batch(
                "CREATE TABLE tool_invocations(id INTEGER PRIMARY KEY, session_id TEXT NOT NULL, \
                 tool_name TEXT NOT NULL, success BOOLEAN NOT NULL, created_at TIMESTAMP)",
            )
            .unwrap();
        let ex = executor(dir.path());
        let ctx = ToolContext {
            agent: Some("a".into()),
            session_id: None,
        };
        let out = ex
            .execute(&ctx, SAVE_MEMORY, r#"{"content":"kept","scope":"core"}"#)
            .unwrap();
        assert!(out.success);
        assert_eq!(out.output, SAVED);
        assert_eq!(out.invocation_id, None);
        let warning = out.warning.unwrap();
        assert!(
            warning.contains("not recorded") && warning.contains("oryxos.db"),
            "{warning}"
        );
        let text = std::fs::read_to_string(dir.path().join("agents/a/MEMORY.md")).unwrap();
        assert!(text.contains("] kept"), "the save stands: {text}");
    }
}
