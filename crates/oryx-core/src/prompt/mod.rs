//! PromptBuilder: the four parts an agent receives on every loop iteration, as structured data
//! so the console can show each part and its size. Parts [1] and [2] are the runtime's one
//! system message, byte for byte where the console can know it; [4] is the tools the runtime
//! would offer.

pub mod bindings;
pub mod offered;

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
    /// The agent's declared tools, each with what the runtime does with it.
    pub tools: Vec<offered::DeclaredTool>,
    /// Skill and knowledge bindings the runtime leaves out of the prompt, and why.
    pub skipped_bindings: Vec<SkippedBinding>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SkippedBinding {
    pub kind: &'static str,
    pub name: String,
    pub reason: String,
}

pub const SKILLS_INTRO: &str = "你可以按需使用以下 Skill。仅在当前任务需要时，用 read_file 读取给出的 SKILL.md；其中的相对资源路径以该 SKILL.md 所在目录为基准并转换成绝对路径，不要猜测未读取的内容：\n";
pub const DATE_LINE_PREFIX: &str = "当前日期时间：";
pub const KNOWLEDGE_INTRO: &str = "你绑定了以下知识库。回答涉及其中内容时，先用 retrieve_knowledge 检索（结果带出处，回答时给出出处）；命中的片段只是入口，不足以回答时按结果里的 file 路径用 read_file 读取原文补充：\n";
/// The tool whose presence in `tools` brings the knowledge block.
pub const RETRIEVE_KNOWLEDGE: &str = "retrieve_knowledge";
/// Tools that write files: any of them in `tools` brings the output-directory line.
pub const FILE_WRITE_TOOLS: [&str; 5] = [
    "write_file",
    "append_file",
    "edit_file",
    "make_dir",
    "download_file",
];

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

/// The prompt the runtime would build for `agent` now (or at a replay's moment).
pub fn build(
    root: &Path,
    agent: &Agent,
    memory: &MemoryService,
    session: Option<&Session>,
    replay: Option<&Replay>,
) -> Result<Prompt> {
    let mut warnings = Vec::new();
    let mut skipped_bindings = Vec::new();
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
        &mut skipped_bindings,
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
    let tools = offered::classify(root, &agent.tools);
    let tools_text =
        serde_json::to_string_pretty(&tool_part(&tools)).expect("tool specs serialise");
    // The runtime sends [1] and [2] as one system message, the memory block followed by '\n'.
    let system_prompt = format!("{system}{memory_text}\n");
    let parts = vec![
        PromptPart::new(1, PartKind::System, system),
        PromptPart::new(2, PartKind::Memory, memory_text),
        PromptPart::new(3, PartKind::History, render_history(history)),
        PromptPart::new(4, PartKind::Tools, tools_text),
    ];
    Ok(Prompt {
        parts,
        system_prompt,
        history_turns: crate::sessions::count_turns(history),
        history_messages: history.len(),
        max_history_turns: agent.max_history_turns,
        bootstrap_loaded: loaded,
        warnings,
        from_git,
        tools,
        skipped_bindings,
    })
}

/// Part [1] in the runtime's order: identity prompt, AGENT.md body, the skills catalog, the
/// knowledge bases (with `retrieve_knowledge`), the output directory (with a file-writing
/// tool), each bootstrap file's raw content, then the current date and time. Each piece ends
/// with '\n'.
fn system_part(
    root: &Path,
    agent: &Agent,
    now: &NaiveDateTime,
    files_at: Option<NaiveDateTime>,
    from_git: &mut Vec<String>,
    warnings: &mut Vec<Warning>,
    skipped: &mut Vec<SkippedBinding>,
) -> (String, Vec<String>) {
    let mut out = String::new();
    if let Some(identity) = &agent.identity_prompt {
        out.push_str(identity);
        out.push('\n');
    }
    let body = runtime_body(agent);
    if !body.is_empty() {
        out.push_str(&body);
        out.push('\n');
    }
    let skills = bindings::inspect(root, &agent.name, bindings::Kind::Skill);
    note_skipped(skipped, "skill", &skills);
    if !skills.bindings.is_empty() {
        out.push_str(SKILLS_INTRO);
        for s in &skills.bindings {
            out.push_str(&format!(
                "- {}：{}\n  SKILL.md：{}\n",
                s.name,
                s.description,
                s.link.join("SKILL.md").display()
            ));
        }
    }
    if agent.tools.iter().any(|t| t == RETRIEVE_KNOWLEDGE) {
        let kbs = bindings::inspect(root, &agent.name, bindings::Kind::Knowledge);
        note_skipped(skipped, "knowledge", &kbs);
        if !kbs.bindings.is_empty() {
            out.push_str(KNOWLEDGE_INTRO);
            for k in &kbs.bindings {
                out.push_str(&format!("- {}：{}\n", k.name, k.description));
            }
        }
    }
    if agent
        .tools
        .iter()
        .any(|t| FILE_WRITE_TOOLS.contains(&t.as_str()))
    {
        out.push_str(&output_dir_line(root, &agent.name));
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

/// The line telling an agent that writes files where its output goes: the root's `output/`,
/// absolute.
pub fn output_dir_line(root: &Path, agent: &str) -> String {
    let dir = bindings::absolute(&root.join("output"));
    format!(
        "你的文件产出目录（绝对路径，必须严格使用）：{}。需要落盘的报告 / 汇总 / 导出等，一律用 write_file 写到这个目录下，文件名带上你的名字与日期，如 {agent}_report_2026-07-23.md。不要写到 output/、./output 等相对路径（会被沙箱拒绝，且管理台看不到）。\n",
        dir.display()
    )
}

/// AGENT.md's body as the runtime injects it: stripped (Java's `strip`), and with its line
/// ends made `\n` when the file has front matter (the runtime rejoins those lines).
fn runtime_body(agent: &Agent) -> String {
    let body = bindings::java_strip(&agent.body);
    let has_front_matter = agent
        .front_matter
        .as_object()
        .is_some_and(|m| !m.is_empty());
    if has_front_matter {
        body.replace("\r\n", "\n").replace('\r', "\n")
    } else {
        body.to_string()
    }
}

fn note_skipped(out: &mut Vec<SkippedBinding>, kind: &'static str, i: &bindings::Inspection) {
    out.extend(i.skipped.iter().map(|(name, reason)| SkippedBinding {
        kind,
        name: name.clone(),
        reason: reason.clone(),
    }));
}

/// The tools the runtime offers, in the agent's order: full schemas for the memory tools;
/// other built-in tools are named (their schemas live in the runtime's registry). Names only
/// an MCP server could provide, and dropped names, are not in it ([`Prompt::tools`] has them).
fn tool_part(declared: &[offered::DeclaredTool]) -> Vec<serde_json::Value> {
    let specs = tools::specs();
    declared
        .iter()
        .filter(|t| t.offer == offered::Offer::Builtin)
        .map(|t| t.name.as_str())
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::os::unix::fs::symlink;

    fn agent(root: &Path, name: &str, tools: &str, body: &str) -> Agent {
        fs::create_dir_all(root.join("agents").join(name)).unwrap();
        fs::write(
            root.join("agents").join(name).join("AGENT.md"),
            format!(
                "---\nname: {name}\nprovider:\n  name: p\n  model: m\nidentity:\n  prompt: 你是{name}\ntools: {tools}\n---\n{body}\n"
            ),
        )
        .unwrap();
        agents::get(root, name).unwrap()
    }

    fn system_text(root: &Path, a: &Agent) -> (String, Vec<SkippedBinding>) {
        let now = crate::timefmt::parse_entry_ts("2026-07-22 09:30:00").unwrap();
        let mut skipped = Vec::new();
        let (text, _) = system_part(
            root,
            a,
            &now,
            None,
            &mut Vec::new(),
            &mut Vec::new(),
            &mut skipped,
        );
        (text, skipped)
    }

    fn bind_knowledge(root: &Path, agent: &str, kb: &str, description: &str) {
        let dir = root.join("knowledge").join(kb);
        fs::create_dir_all(&dir).unwrap();
        fs::write(
            dir.join("KNOWLEDGE.md"),
            format!("---\nname: {kb}\ndescription: {description}\n---\n"),
        )
        .unwrap();
        let links = root.join("agents").join(agent).join("knowledge");
        fs::create_dir_all(&links).unwrap();
        symlink(format!("../../../knowledge/{kb}"), links.join(kb)).unwrap();
    }

    #[test]
    fn knowledge_bindings_come_with_retrieve_knowledge() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path();
        let a = agent(
            root,
            "kb",
            "[retrieve_knowledge, save_memory]",
            "回答客户问题。",
        );
        bind_knowledge(root, "kb", "faq", "常见问题");
        bind_knowledge(root, "kb", "api", "接口文档");
        fs::create_dir_all(root.join("knowledge/broken")).unwrap();
        symlink(
            "../../../knowledge/broken",
            root.join("agents/kb/knowledge/broken"),
        )
        .unwrap();
        let (text, skipped) = system_text(root, &a);
        assert_eq!(
            text,
            "你是kb\n回答客户问题。\n你绑定了以下知识库。回答涉及其中内容时，先用 retrieve_knowledge 检索（结果带出处，回答时给出出处）；命中的片段只是入口，不足以回答时按结果里的 file 路径用 read_file 读取原文补充：\n- api：接口文档\n- faq：常见问题\n当前日期时间：2026-07-22 09:30\n"
        );
        assert_eq!(skipped.len(), 1);
        assert_eq!(
            (skipped[0].kind, skipped[0].name.as_str()),
            ("knowledge", "broken")
        );
        // Without the tool the bindings are not announced.
        let b = agent(root, "nokb", "[save_memory]", "x");
        bind_knowledge(root, "nokb", "faq2", "y");
        assert_eq!(
            system_text(root, &b).0,
            "你是nokb\nx\n当前日期时间：2026-07-22 09:30\n"
        );
    }

    #[test]
    fn a_file_writing_agent_is_told_its_output_directory() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path();
        let a = agent(root, "writer", "[read_file, edit_file]", "写周报。");
        let out = root.join("output");
        assert_eq!(
            system_text(root, &a).0,
            format!(
                "你是writer\n写周报。\n你的文件产出目录（绝对路径，必须严格使用）：{}。需要落盘的报告 / 汇总 / 导出等，一律用 write_file 写到这个目录下，文件名带上你的名字与日期，如 writer_report_2026-07-23.md。不要写到 output/、./output 等相对路径（会被沙箱拒绝，且管理台看不到）。\n当前日期时间：2026-07-22 09:30\n",
                out.display()
            )
        );
        let r = agent(root, "reader", "[read_file]", "读。");
        assert!(!system_text(root, &r).0.contains("产出目录"));
    }

    #[test]
    fn tools_the_runtime_drops_are_not_offered() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path();
        let a = agent(root, "t", "[calendar, recall_memory, shell]", "");
        let memory = MemoryService::new(
            std::sync::Arc::new(crate::memory::MarkdownMemoryStore::new(root)),
            4000,
        );
        let p = build(root, &a, &memory, None, None).unwrap();
        let offers: Vec<_> = p.tools.iter().map(|t| (t.name.as_str(), t.offer)).collect();
        assert_eq!(
            offers,
            [
                ("calendar", offered::Offer::Dropped),
                ("recall_memory", offered::Offer::Builtin),
                ("shell", offered::Offer::Builtin),
            ]
        );
        let listed: Vec<serde_json::Value> = serde_json::from_str(&p.parts[3].text).unwrap();
        let names: Vec<_> = listed.iter().map(|t| t["name"].as_str().unwrap()).collect();
        assert_eq!(names, ["recall_memory", "shell"]);
        assert_eq!(
            listed[0]["description"], "按关键词检索长期记忆",
            "the memory tools keep their full schema"
        );
        // [1] and [2] are the one system message; nothing else is in it.
        assert_eq!(
            p.system_prompt,
            format!("{}{}\n", p.parts[0].text, p.parts[1].text)
        );
        assert!(p.system_prompt.ends_with("## 核心记忆\n\n## 归档记忆\n\n"));
    }
}
