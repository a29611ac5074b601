//! PromptBuilder: the four parts an agent receives on every loop iteration (CONTRACT §9), as
//! structured data so the console can show each part and its size.

use std::path::Path;

use chrono::NaiveDateTime;
use serde::Serialize;

use crate::agents::{self, Agent};
use crate::error::Result;
use crate::memory::MemoryService;
use crate::names::Owner;
use crate::sessions::{last_turns, Message, Session};
use crate::tools;
use crate::warning::{Warning, WarningCode};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PartKind {
    System,
    Memory,
    History,
    Tools,
    /// Fragments of past sessions relevant to the current message (episodic memory; only
    /// when enabled in Settings).
    Episodic,
}

#[derive(Debug, Clone, Serialize)]
pub struct PromptPart {
    pub index: u8,
    pub kind: PartKind,
    pub text: String,
    pub chars: usize,
}

impl PromptPart {
    fn new(index: u8, kind: PartKind, text: String) -> Self {
        let chars = text.chars().count();
        PromptPart {
            index,
            kind,
            text,
            chars,
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Prompt {
    pub parts: Vec<PromptPart>,
    /// Parts [1] and [2] exactly as the runtime sends them in its one system message.
    pub system_prompt: String,
    pub history_turns: usize,
    pub history_messages: usize,
    pub max_history_turns: i64,
    pub bootstrap_loaded: Vec<String>,
    pub warnings: Vec<Warning>,
    /// A replay: the bootstrap files read as the root's git history had them then.
    pub from_git: Vec<String>,
}

pub const SKILLS_INTRO: &str = "你可以按需使用以下 Skill。仅在当前任务需要时，用 read_file 读取给出的 SKILL.md；其中的相对资源路径以该 SKILL.md 所在目录为基准并转换成绝对路径，不要猜测未读取的内容：\n";
pub const DATE_LINE_PREFIX: &str = "当前日期时间：";

/// A prompt as it was built at a past moment (prompt replay).
#[derive(Debug, Clone)]
pub struct Replay {
    /// The moment: the date line says it, and the memory block is as of it.
    pub at: NaiveDateTime,
    /// Part [2] as the memory stood then.
    pub memory_block: String,
    /// The session's messages up to and including this one make the history (the model
    /// answering that message); `None`: all of them.
    pub upto: Option<usize>,
}

/// `episodic`: the rendered episodic part ([`crate::episodic::render_part`]), empty when off
/// or when nothing relevant was found; it follows the memory block in the system message.
pub fn build(
    root: &Path,
    agent: &Agent,
    memory: &MemoryService,
    session: Option<&Session>,
    episodic: &str,
    replay: Option<&Replay>,
) -> Result<Prompt> {
    let mut warnings = Vec::new();
    let now = match replay {
        Some(r) => r.at,
        None => chrono::Local::now().naive_local(),
    };
    let mut from_git = Vec::new();
    let (system, loaded) = system_part(
        root,
        agent,
        &now,
        replay.map(|r| r.at),
        &mut from_git,
        &mut warnings,
    );
    let owner = Owner::Agent(agent.name.clone());
    let memory_text = match replay {
        Some(r) => r.memory_block.clone(),
        None => memory.build_context(&owner)?,
    };
    let history: &[Message] = match session {
        Some(s) => {
            if let Some(err) = &s.summary.error {
                warnings.push(
                    Warning::new(WarningCode::SessionMessagesUnreadable, err.clone())
                        .with("detail", err),
                );
            }
            let upto = replay
                .and_then(|r| r.upto)
                .map_or(s.messages.len(), |i| (i + 1).min(s.messages.len()));
            last_turns(&s.messages[..upto], agent.max_history_turns)
        }
        None => &[],
    };
    let tools_text = serde_json::to_string_pretty(&tool_part(agent)).expect("tool specs serialise");
    // The runtime sends [1] and [2] as one system message, the memory block followed by '\n'.
    let mut system_prompt = format!("{system}{memory_text}\n");
    let mut parts = vec![
        PromptPart::new(1, PartKind::System, system),
        PromptPart::new(2, PartKind::Memory, memory_text),
    ];
    if !episodic.is_empty() {
        system_prompt.push_str(episodic);
        system_prompt.push('\n');
        parts.push(PromptPart::new(5, PartKind::Episodic, episodic.to_string()));
    }
    parts.push(PromptPart::new(
        3,
        PartKind::History,
        render_history(history),
    ));
    parts.push(PromptPart::new(4, PartKind::Tools, tools_text));
    Ok(Prompt {
        parts,
        system_prompt,
        history_turns: crate::sessions::count_turns(history),
        history_messages: history.len(),
        max_history_turns: agent.max_history_turns,
        bootstrap_loaded: loaded,
        warnings,
        from_git,
    })
}

/// Part [1] in the runtime's order: identity prompt, AGENT.md body, the skills catalog, each
/// bootstrap file's raw content, then the current date and time. Each piece ends with '\n'.
fn system_part(
    root: &Path,
    agent: &Agent,
    now: &NaiveDateTime,
    files_at: Option<NaiveDateTime>,
    from_git: &mut Vec<String>,
    warnings: &mut Vec<Warning>,
) -> (String, Vec<String>) {
    let mut out = String::new();
    if let Some(identity) = &agent.identity_prompt {
        out.push_str(identity);
        out.push('\n');
    }
    let body = agent.body.trim();
    if !body.is_empty() {
        out.push_str(body);
        out.push('\n');
    }
    let mut skills: Vec<_> = agent
        .skills
        .iter()
        .filter(|s| s.warnings.is_empty())
        .collect();
    skills.sort_by(|a, b| a.name.cmp(&b.name));
    if !skills.is_empty() {
        out.push_str(SKILLS_INTRO);
        for s in skills {
            out.push_str(&format!(
                "- {}：{}\n  SKILL.md：{}\n",
                s.name,
                s.description.as_deref().unwrap_or(""),
                s.path.join("SKILL.md").display()
            ));
        }
    }
    let mut loaded = Vec::new();
    for name in &agent.bootstrap {
        let read = match files_at {
            Some(at) => agents::read_bootstrap_as_of(root, name, at).map(|(f, commit)| {
                if let Some(c) = commit {
                    from_git.push(format!("{name} (commit {c})"));
                }
                f
            }),
            None => agents::read_bootstrap(root, name),
        };
        match read {
            Ok(f) if f.exists => {
                out.push_str(&f.content);
                out.push('\n');
                loaded.push(f.name);
            }
            Ok(f) => warnings.push(
                Warning::new(
                    WarningCode::BootstrapMissing,
                    format!(
                        "bootstrap file {} does not exist; the runtime skips it",
                        f.name
                    ),
                )
                .with("file", &f.name),
            ),
            Err(e) => warnings.push(
                Warning::new(
                    WarningCode::BootstrapUnreadable,
                    format!("bootstrap file {name}: {e}"),
                )
                .with("file", name)
                .with("detail", &e),
            ),
        }
    }
    out.push_str(DATE_LINE_PREFIX);
    out.push_str(&now.format("%Y-%m-%d %H:%M").to_string());
    out.push('\n');
    (out, loaded)
}

/// The tools the agent declares, in its order: full schemas for the memory tools; other tools
/// are named (their schemas live in the runtime's registry).
fn tool_part(agent: &Agent) -> Vec<serde_json::Value> {
    let specs = tools::specs();
    agent
        .tools
        .iter()
        .map(|name| match specs.iter().find(|s| s.name == name) {
            Some(spec) => serde_json::to_value(spec).expect("tool spec serialises"),
            None => serde_json::json!({"name": name, "description": "(registered in the runtime; schema not known to the console)"}),
        })
        .collect()
}

/// One line per message, as the model sees the roles; tool calls listed under their message.
pub fn render_history(messages: &[Message]) -> String {
    let mut out = String::new();
    for m in messages {
        if !out.is_empty() {
            out.push('\n');
        }
        let role = match (m.role.as_str(), m.tool_name.as_deref()) {
            ("tool", Some(name)) => format!("tool({name})"),
            (r, _) => r.to_string(),
        };
        out.push_str(&format!("{role}: {}", m.content.as_deref().unwrap_or("")));
        for call in &m.tool_calls {
            out.push_str(&format!(
                "\n  → {}({})",
                call.name,
                call.arguments_json.as_deref().unwrap_or("")
            ));
        }
    }
    out
}
