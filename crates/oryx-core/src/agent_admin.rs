//! Managing agents on disk (CONTRACT §1): create and clone, AGENT.md edits that keep what the user
//! wrote, skills as relative links, archive and restore, and the user's bootstrap files.
//!
//! Every name is validated before it becomes a path, and no link is followed where the console
//! writes: an agent folder, `archive/` or `skills/` that is a link is refused.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use crate::embed::identity::fnv1a;
use crate::error::{CoreError, IoContext, Result};
use crate::names::{agent_dir, agents_dir, is_valid_agent_name, validate_agent_name};
use crate::{frontmatter, rooted_fs, yaml_edit};

/// Identifies one version of a file's text: an edit opened on it is saved only over it.
pub fn version_of(text: &str) -> String {
    format!("{:016x}", fnv1a(text.as_bytes()))
}

/// A problem with one front matter key (or the whole text: `key` empty).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FieldError {
    pub key: String,
    pub message: String,
}

/// What a new agent's AGENT.md holds.
#[derive(Debug, Clone, Default)]
pub struct NewAgent {
    pub name: String,
    pub description: Option<String>,
    pub identity_name: Option<String>,
    pub identity_prompt: Option<String>,
    pub provider: Option<String>,
    pub model: Option<String>,
    pub temperature: Option<f64>,
    pub tools: Vec<String>,
    pub bootstrap: Vec<String>,
    pub max_history_turns: Option<i64>,
    pub body: Option<String>,
    /// Start from this agent's AGENT.md (front matter and body; the fields above override).
    pub from: Option<String>,
    /// With `from`: copy its MEMORY.md too.
    pub with_memory: bool,
    /// Create it although an archived agent has this name (the user was asked).
    pub reuse_archived_name: bool,
    /// Write it although the runtime would not load it (a draft to finish later).
    pub draft: bool,
    /// The runtime's provider names (its registry); `None` when unknown: the provider's
    /// existence is then not checked and the default provider is the runtime's fallback.
    pub providers: Option<Vec<String>>,
}

/// An agent in `archive/`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Archived {
    /// The folder's name under `archive/` (see [`ArchiveForm`]).
    pub archived_name: String,
    pub name: String,
    /// Local time, `yyyy-MM-dd HH:mm:ss`: from the folder's name, or for `archive/<name>` the
    /// folder's modification time (empty when unknown).
    pub archived_at: String,
    pub form: ArchiveForm,
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> CoreError + '_ {
    move |e| CoreError::io(path, e)
}

/// A folder the console writes in must be a real folder, not a link (nor a file).
fn real_dir(path: &Path) -> Result<bool> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => Err(CoreError::OutsideRoot(path.to_path_buf())),
        Ok(m) if m.is_dir() => Ok(true),
        Ok(_) => Err(CoreError::InvalidInput(format!(
            "{} is not a folder",
            path.display()
        ))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(CoreError::io(path, e)),
    }
}

fn require_agent(root: &Path, name: &str) -> Result<PathBuf> {
    validate_agent_name(name)?;
    let dir = agent_dir(root, name);
    if !real_dir(&dir)? {
        return Err(CoreError::AgentNotFound {
            name: name.to_string(),
            dir,
        });
    }
    Ok(dir)
}

/// Writes `text` to `dir/name` atomically (temp file + rename), opened without following links.
fn write_file(file: &Path, text: &str) -> Result<()> {
    let (dir, name) = rooted_fs::memory_dir(file, false)?
        .ok_or_else(|| CoreError::io(file, std::io::ErrorKind::NotFound.into()))?;
    dir.replace(name, text.as_bytes(), || true)?;
    Ok(())
}

fn read_text(file: &Path) -> Result<Option<String>> {
    match rooted_fs::open_read(file)? {
        None => Ok(None),
        Some(mut f) => {
            use std::io::Read;
            let mut s = String::new();
            f.read_to_string(&mut s).at(file)?;
            Ok(Some(s))
        }
    }
}

fn yaml_value(v: &Value) -> Value {
    v.clone()
}

/// Checks the known keys' shapes (CONTRACT §1) as the runtime's profile loader reads them.
pub fn validate(text: &str, dir_name: &str) -> Vec<FieldError> {
    let err = |key: &str, message: String| FieldError {
        key: key.to_string(),
        message,
    };
    let (fm, _) = frontmatter::split(text);
    let Some(fm) = fm else {
        return Vec::new();
    };
    let v = match frontmatter::parse(fm) {
        Ok(v) => v,
        Err(e) => return vec![err("", format!("the front matter is not valid YAML: {e}"))],
    };
    let mut out = Vec::new();
    let is_str = |x: &Value| x.is_string();
    let check_str = |out: &mut Vec<FieldError>, key: &str, x: Option<&Value>| {
        if let Some(x) = x.filter(|x| !x.is_null() && !is_str(x)) {
            out.push(err(key, format!("{key} must be text, not {x}")));
        }
    };
    match v.get("name") {
        Some(Value::String(n)) if n != dir_name => out.push(err(
            "name",
            format!("name is {n:?} but the folder is {dir_name:?}: the runtime needs them equal"),
        )),
        x => check_str(&mut out, "name", x),
    }
    check_str(&mut out, "description", v.get("description"));
    for (parent, keys) in [
        ("identity", &["agent_name", "prompt"][..]),
        ("provider", &["name", "model"][..]),
    ] {
        match v.get(parent) {
            None | Some(Value::Null) => {}
            Some(Value::Object(m)) => {
                for k in keys {
                    check_str(&mut out, &format!("{parent}.{k}"), m.get(*k));
                }
            }
            Some(x) => out.push(err(parent, format!("{parent} must be a mapping, not {x}"))),
        }
    }
    if let Some(t) = v.get("provider").and_then(|p| p.get("temperature")) {
        match t.as_f64() {
            Some(x) if (0.0..=2.0).contains(&x) => {}
            Some(x) => out.push(err(
                "provider.temperature",
                format!("provider.temperature must be between 0 and 2, not {x}"),
            )),
            None if t.is_null() => {}
            None => out.push(err(
                "provider.temperature",
                format!("provider.temperature must be a number, not {t}"),
            )),
        }
    }
    for key in ["tools", "bootstrap"] {
        match v.get(key) {
            None | Some(Value::Null) => {}
            Some(Value::Array(a)) if a.iter().all(Value::is_string) => {}
            Some(x) => out.push(err(key, format!("{key} must be a list of names, not {x}"))),
        }
    }
    if let Some(m) = v.get("settings").and_then(|s| s.get("max_history_turns")) {
        if !m.is_i64() && !m.is_null() {
            out.push(err(
                "settings.max_history_turns",
                format!("settings.max_history_turns must be a whole number, not {m}"),
            ));
        }
    }
    if let Some(s) = v.get("schedules").filter(|s| !s.is_null()) {
        for w in crate::agents::parse_schedules(s).1 {
            out.push(err("schedules", w.message));
        }
    }
    out
}

fn refuse_invalid(text: &str, name: &str) -> Result<()> {
    let errors = validate(text, name);
    if errors.is_empty() {
        return Ok(());
    }
    Err(CoreError::InvalidInput(
        errors
            .iter()
            .map(
                |e| match e.key.is_empty() || e.message.starts_with(&e.key) {
                    true => e.message.clone(),
                    false => format!("{}: {}", e.key, e.message),
                },
            )
            .collect::<Vec<_>>()
            .join("; "),
    ))
}

/// The body of the runtime's AGENT.md scaffold.
const SCAFFOLD_BODY: &str = "在这里写这个 Agent 的任务指令（正文）。被触发时它会照做。
- 已绑定 Skill 的 name、description 与本地 SKILL.md 入口会自动列入提示；需要时再用 read_file 按需读正文；
- 参考资料放 REFERENCE.md，拿不准时用 read_file 读；
- 脚本放 scripts/，正文让 shell/python 跑，产出进上下文、代码不进；
- 任务产出的文件（研报 / 汇总 / 导出）用 write_file 写到本 Agent 的 output/ 目录，便于在管理台查看与下载。
";

/// The other files of the runtime's scaffold, by path inside the agent's folder.
const SCAFFOLD_FILES: [(&str, &str); 3] = [
    (
        "scripts/example.py",
        "#!/usr/bin/env python3
\"\"\"示例脚本：Agent 用 shell 跑它拿确定性数据；产出（stdout 的 JSON）进上下文、代码本身不进。\"\"\"
import json
import sys

json.dump({\"hello\": \"world\"}, sys.stdout, ensure_ascii=False)
",
    ),
    (
        "REFERENCE.md",
        "# 参考资料
把字段字典、已知边界、阈值、联系人放这里。Agent 拿不准某个细节时，用底座的 read_file 读它。
",
    ),
    (
        "output/README.md",
        "# 产出目录（output/）
这个 Agent 每次任务产出的文件（如每日研报、汇总、导出）用 write_file 写到本目录，
文件名建议带日期（如 report-2026-07-23.md），便于在管理台「输出」tab 查看与下载。
本说明文件可删。
",
    ),
];

/// The runtime's scaffold AGENT.md for a new agent: name, description, identity, provider and
/// model, tools `read_file`, `shell`, `notify`, bootstrap `AGENTS.md` and the default settings,
/// then the scaffold's body. An empty `model` is written empty (the runtime would write a
/// placeholder it then loads and sends to the provider).
pub fn scaffold_md(name: &str, description: Option<&str>, provider: &str, model: &str) -> String {
    // Each text as one YAML scalar (quoted where it must be), so no input can add a key.
    let q = |s: &str| {
        serde_yaml_ng::to_string(&s)
            .expect("text serialises")
            .trim_end()
            .to_string()
    };
    let description = description
        .filter(|d| !d.trim().is_empty())
        .unwrap_or("描述这个 Agent 做什么");
    format!(
        "---\nname: {}\ndescription: {}\nidentity:\n  agent_name: {}\n  prompt: {}\nprovider:\n  \
         name: {}\n  model: {}\ntools:\n  - read_file\n  - shell\n  - notify\nbootstrap:\n  - \
         AGENTS.md\nsettings:\n  max_iterations: 10\n  max_history_turns: {}\n---\n\n{SCAFFOLD_BODY}\n",
        q(name),
        q(description),
        q(name),
        q("你是一个乐于助人的助手。"),
        q(provider),
        q(model),
        crate::agents::DEFAULT_MAX_HISTORY_TURNS,
    )
}

/// The AGENT.md a new agent gets: the runtime's scaffold (or `base`, a clone's source) with
/// the fields `spec` gives.
fn new_agent_md(spec: &NewAgent, base: Option<&str>) -> Result<String> {
    let scaffold;
    let base_text = match base {
        Some(text) => text,
        None => {
            let provider = spec.provider.clone().unwrap_or_else(|| {
                crate::runtime_load::default_provider(spec.providers.as_deref())
            });
            scaffold = scaffold_md(
                &spec.name,
                spec.description.as_deref(),
                &provider,
                spec.model.as_deref().unwrap_or(""),
            );
            &scaffold
        }
    };
    let (fm, body) = frontmatter::split(base_text);
    let (fm, body) = (fm.unwrap_or("").to_string(), body.to_string());
    let mut fm = yaml_edit::set(&fm, &["name"], Some(&Value::String(spec.name.clone())))?;
    let mut set = |path: &[&str], v: Value| -> Result<()> {
        fm = yaml_edit::set(&fm, path, Some(&yaml_value(&v)))?;
        Ok(())
    };
    let s = |x: &Option<String>| x.clone().map(Value::String);
    if let Some(v) = s(&spec.description) {
        set(&["description"], v)?;
    }
    if let Some(v) = s(&spec.identity_name) {
        set(&["identity", "agent_name"], v)?;
    }
    if let Some(v) = s(&spec.identity_prompt) {
        set(&["identity", "prompt"], v)?;
    }
    if let Some(v) = s(&spec.provider) {
        set(&["provider", "name"], v)?;
    }
    if let Some(v) = s(&spec.model) {
        set(&["provider", "model"], v)?;
    }
    if let Some(t) = spec.temperature {
        set(&["provider", "temperature"], serde_json::json!(t))?;
    }
    if !spec.tools.is_empty() {
        set(&["tools"], serde_json::json!(spec.tools))?;
    }
    if !spec.bootstrap.is_empty() {
        set(&["bootstrap"], serde_json::json!(spec.bootstrap))?;
    }
    if let Some(n) = spec.max_history_turns {
        set(&["settings", "max_history_turns"], serde_json::json!(n))?;
    }
    let body = match &spec.body {
        Some(b) if !b.is_empty() && !b.ends_with('\n') => format!("{b}\n"),
        Some(b) => b.clone(),
        None => body,
    };
    let nl = if fm.ends_with('\n') { "" } else { "\n" };
    Ok(format!("---\n{fm}{nl}---\n{body}"))
}

/// What the runtime would say of the agent `spec` describes, were it written (the files a
/// create would write are not written).
pub fn runtime_load_of_new(
    root: &Path,
    spec: &NewAgent,
) -> Result<crate::runtime_load::RuntimeLoad> {
    let base = match &spec.from {
        Some(from) => {
            let src = require_agent(root, from)?;
            Some(read_text(&src.join("AGENT.md"))?.unwrap_or_default())
        }
        None => None,
    };
    let text = new_agent_md(spec, base.as_deref())?;
    Ok(
        crate::runtime_load::assess(&text, &spec.name, &frontmatter::process_env)
            .against(spec.providers.as_deref()),
    )
}

/// Creates `agents/<name>/`: the runtime's scaffold (AGENT.md, `scripts/example.py`,
/// `REFERENCE.md`, `output/README.md`), or with `spec.from` a copy of that agent's AGENT.md.
/// Refused when the runtime would not load it, unless `spec.draft`.
pub fn create(root: &Path, spec: &NewAgent) -> Result<()> {
    crate::root::require_root(root)?;
    validate_agent_name(&spec.name)?;
    let dir = agent_dir(root, &spec.name);
    if real_dir(&dir)? || std::fs::symlink_metadata(&dir).is_ok() {
        return Err(CoreError::Conflict(format!(
            "an agent called {:?} already exists",
            spec.name
        )));
    }
    if let Some(a) = list_archived(root)?
        .iter()
        .find(|a| a.name == spec.name && !spec.reuse_archived_name)
    {
        return Err(CoreError::Conflict(format!(
            "an archived agent is called {:?} ({}, archived {}): restore it, choose another \
             name, or create the new one anyway",
            spec.name, a.archived_name, a.archived_at
        )));
    }
    for b in &spec.bootstrap {
        crate::agents::read_bootstrap(root, b)?;
    }
    let base = match &spec.from {
        Some(from) => {
            let src = require_agent(root, from)?;
            Some(read_text(&src.join("AGENT.md"))?.unwrap_or_default())
        }
        None => None,
    };
    let text = new_agent_md(spec, base.as_deref())?;
    refuse_invalid(&text, &spec.name)?;
    let verdict = crate::runtime_load::assess(&text, &spec.name, &frontmatter::process_env)
        .against(spec.providers.as_deref());
    if let (Some(r), false) = (&verdict.reason, spec.draft) {
        return Err(CoreError::InvalidInput(format!(
            "the runtime would not load this agent ({}: {}); save it as a draft to write it \
             anyway",
            serde_json::to_value(r.code)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default(),
            r.message
        )));
    }
    let agents = agents_dir(root);
    if !real_dir(&agents)? {
        std::fs::create_dir(&agents).map_err(io(&agents))?;
    }
    // Built beside, then renamed in: a half-made agent is never seen.
    let staging = agents.join(format!(".{}.oryx-new", spec.name));
    let _ = std::fs::remove_dir_all(&staging);
    std::fs::create_dir(&staging).map_err(io(&staging))?;
    let made = (|| -> Result<()> {
        std::fs::write(staging.join("AGENT.md"), &text).map_err(io(&staging))?;
        if base.is_none() {
            for (rel, content) in SCAFFOLD_FILES {
                let path = staging.join(rel);
                if let Some(parent) = path.parent() {
                    std::fs::create_dir_all(parent).map_err(io(parent))?;
                }
                std::fs::write(&path, content).map_err(io(&path))?;
            }
        }
        if let (Some(from), true) = (&spec.from, spec.with_memory) {
            let mem = agent_dir(root, from).join("MEMORY.md");
            if real_file(&mem)? {
                std::fs::copy(&mem, staging.join("MEMORY.md")).map_err(io(&mem))?;
            }
        }
        std::fs::rename(&staging, &dir).map_err(io(&dir))
    })();
    if made.is_err() {
        let _ = std::fs::remove_dir_all(&staging);
    }
    made
}

fn real_file(path: &Path) -> Result<bool> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_file() => Ok(true),
        Ok(_) => Ok(false),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(CoreError::io(path, e)),
    }
}

/// AGENT.md's text and version (empty text when it does not exist).
pub fn read_agent_md(root: &Path, name: &str) -> Result<(String, String)> {
    let dir = require_agent(root, name)?;
    let text = read_text(&dir.join("AGENT.md"))?.unwrap_or_default();
    let v = version_of(&text);
    Ok((text, v))
}

fn check_version(now: &str, expect: Option<&str>, what: &str) -> Result<()> {
    match expect {
        Some(v) if v != version_of(now) => Err(CoreError::Conflict(format!(
            "{what} changed on disk since it was opened; nothing was saved (reload to see both \
             versions)"
        ))),
        _ => Ok(()),
    }
}

/// Saves AGENT.md whole (the raw editor): validated, atomic, refused when the file changed
/// since `expect` was read. The new version.
pub fn save_agent_md(root: &Path, name: &str, text: &str, expect: Option<&str>) -> Result<String> {
    let (now, _) = read_agent_md(root, name)?;
    check_version(&now, expect, "AGENT.md")?;
    refuse_invalid(text, name)?;
    write_file(&agent_dir(root, name).join("AGENT.md"), text)?;
    Ok(version_of(text))
}

/// Sets one front matter key (dotted: `provider.model`) to a YAML value (`null`: removes
/// it), keeping every other byte. The new text and version.
pub fn set_key(
    root: &Path,
    name: &str,
    key: &str,
    yaml: &str,
    expect: Option<&str>,
) -> Result<(String, String)> {
    let (now, _) = read_agent_md(root, name)?;
    check_version(&now, expect, "AGENT.md")?;
    let value: Value = serde_yaml_ng::from_str(yaml).map_err(|e| {
        CoreError::InvalidInput(format!("{key}: {yaml:?} is not a YAML value: {e}"))
    })?;
    let path: Vec<&str> = key.split('.').collect();
    let text = with_key(&now, &path, (!value.is_null()).then_some(&value))?;
    refuse_invalid(&text, name)?;
    write_file(&agent_dir(root, name).join("AGENT.md"), &text)?;
    let v = version_of(&text);
    Ok((text, v))
}

/// The whole AGENT.md `text` with one front matter key set (`None`: removed); every other byte
/// kept.
pub fn with_key(text: &str, path: &[&str], value: Option<&Value>) -> Result<String> {
    let (fm, body) = frontmatter::split(text);
    let new_fm = yaml_edit::set(fm.unwrap_or(""), path, value)?;
    Ok(match fm.is_some() {
        // Only the front matter's own span changes.
        true => {
            let start = text.len() - body.len() - fence_tail(text, body);
            let fm_start = text.find('\n').map_or(0, |i| i + 1);
            format!("{}{}{}", &text[..fm_start], new_fm, &text[start..])
        }
        false => format!("---\n{new_fm}---\n{text}"),
    })
}

/// The length of the closing fence line before `body`.
fn fence_tail(text: &str, body: &str) -> usize {
    let before = &text[..text.len() - body.len()];
    let trimmed = before.strip_suffix('\n').unwrap_or(before);
    let line_start = trimmed.rfind('\n').map_or(0, |i| i + 1);
    before.len() - line_start
}

/// A skill of the root: `skills/<s>/` with its SKILL.md description.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RootSkill {
    pub name: String,
    pub description: Option<String>,
}

pub fn list_skills(root: &Path) -> Result<Vec<RootSkill>> {
    let dir = root.join("skills");
    if !real_dir(&dir)? {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    for e in std::fs::read_dir(&dir).map_err(io(&dir))? {
        let e = e.map_err(io(&dir))?;
        let name = e.file_name().to_string_lossy().into_owned();
        if !is_valid_agent_name(&name) || !e.path().is_dir() {
            continue;
        }
        let description = read_text(&e.path().join("SKILL.md"))
            .ok()
            .flatten()
            .and_then(|t| {
                frontmatter::split(&t)
                    .0
                    .and_then(|fm| frontmatter::parse(fm).ok())
                    .and_then(|v| frontmatter::get_str(&v, &["description"]))
            });
        out.push(RootSkill { name, description });
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

fn skill_link(root: &Path, agent: &str, skill: &str) -> Result<PathBuf> {
    require_agent(root, agent)?;
    if !is_valid_agent_name(skill) {
        return Err(CoreError::InvalidInput(format!(
            "invalid skill name {skill:?}: use 1-64 letters, digits, '_' or '-'"
        )));
    }
    Ok(agent_dir(root, agent).join("skills").join(skill))
}

/// Links `skills/<skill>` into the agent as `agents/<n>/skills/<skill> -> ../../../skills/<skill>`.
pub fn attach_skill(root: &Path, agent: &str, skill: &str) -> Result<()> {
    let link = skill_link(root, agent, skill)?;
    if !real_dir(&root.join("skills").join(skill))? {
        return Err(CoreError::NotFound(format!(
            "the root has no skill {skill:?} (no folder skills/{skill})"
        )));
    }
    let parent = link.parent().expect("a link has a parent");
    if !real_dir(parent)? {
        std::fs::create_dir(parent).map_err(io(parent))?;
    }
    match std::fs::symlink_metadata(&link) {
        Ok(m) if m.file_type().is_symlink() => {
            // A broken or wrong link is replaced by the right one.
            std::fs::remove_file(&link).map_err(io(&link))?;
        }
        Ok(_) => {
            return Err(CoreError::Conflict(format!(
                "{} exists and is not a link; remove it by hand first",
                link.display()
            )))
        }
        Err(_) => {}
    }
    #[cfg(unix)]
    std::os::unix::fs::symlink(format!("../../../skills/{skill}"), &link).map_err(io(&link))?;
    #[cfg(not(unix))]
    return Err(CoreError::InvalidInput(
        "skills are links, which need a unix system".into(),
    ));
    Ok(())
}

/// Removes the agent's link to a skill (never the skill itself).
pub fn detach_skill(root: &Path, agent: &str, skill: &str) -> Result<()> {
    let link = skill_link(root, agent, skill)?;
    match std::fs::symlink_metadata(&link) {
        Ok(m) if m.file_type().is_symlink() => std::fs::remove_file(&link).map_err(io(&link)),
        Ok(_) => Err(CoreError::Conflict(format!(
            "{} is a folder of the agent's own, not a link; the console does not delete it",
            link.display()
        ))),
        Err(_) => Err(CoreError::NotFound(format!(
            "agent {agent:?} has no skill {skill:?}"
        ))),
    }
}

fn archive_dir(root: &Path) -> PathBuf {
    root.join("archive")
}

/// How an archived folder is named.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum ArchiveForm {
    /// `archive/<name>`: the runtime's, when the name was free.
    Runtime,
    /// `archive/<name>-<epochMillis>[-N]`: the runtime's when `archive/<name>` was taken.
    RuntimeStamped,
    /// `archive/<name>.<yyyyMMdd-HHmmss>`: the console's before it archived as the runtime does.
    Console,
}

/// The runtime keeps archived skills in `archive/skills/`: never an agent.
const SKILLS_NAMESPACE: &str = "skills";

/// The name and time a folder of `archive/` stands for, by its name's form; `declared` is the
/// name its AGENT.md gives (it tells `archive/a-1700000000000` archived directly from one
/// stamped `a`).
fn parse_archived_as(
    folder: &str,
    declared: Option<&str>,
    modified: Option<chrono::NaiveDateTime>,
) -> Option<Archived> {
    let mut forms: Vec<(String, Option<chrono::NaiveDateTime>, ArchiveForm)> = Vec::new();
    if let Some((name, stamp)) = folder.rsplit_once('.') {
        if let Ok(t) = chrono::NaiveDateTime::parse_from_str(stamp, "%Y%m%d-%H%M%S") {
            forms.push((name.to_string(), Some(t), ArchiveForm::Console));
        }
    }
    // `<name>-<millis>` or `<name>-<millis>-<N>` (N from 2).
    let parts: Vec<&str> = folder.rsplitn(3, '-').collect();
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let mut stamped = |name: &str, millis: &str| {
        if let Some(t) = millis
            .parse::<i64>()
            .ok()
            .filter(|_| millis.len() >= 10)
            .and_then(chrono::DateTime::from_timestamp_millis)
        {
            let local = t.with_timezone(&chrono::Local).naive_local();
            forms.push((name.to_string(), Some(local), ArchiveForm::RuntimeStamped));
        }
    };
    if parts.len() == 3 && digits(parts[0]) && digits(parts[1]) {
        stamped(parts[2], parts[1]);
    }
    if parts.len() >= 2 && digits(parts[0]) {
        if let Some((name, millis)) = folder.rsplit_once('-') {
            stamped(name, millis);
        }
    }
    if folder != SKILLS_NAMESPACE {
        forms.push((folder.to_string(), modified, ArchiveForm::Runtime));
    }
    forms.retain(|(name, _, _)| is_valid_agent_name(name));
    let pick = declared
        .and_then(|d| forms.iter().position(|(n, _, _)| n == d))
        .unwrap_or(0);
    let (name, at, form) = forms.into_iter().nth(pick)?;
    Some(Archived {
        archived_name: folder.to_string(),
        name,
        archived_at: at
            .map(|t| crate::timefmt::format_entry_ts(&t))
            .unwrap_or_default(),
        form,
    })
}

/// An archived folder as [`parse_archived_as`] reads it, its AGENT.md and time looked up.
fn read_archived(arch: &Path, folder: &str) -> Option<Archived> {
    let path = arch.join(folder);
    let declared = read_text(&path.join("AGENT.md"))
        .ok()
        .flatten()
        .and_then(|t| {
            let (fm, _) = frontmatter::split(&t);
            frontmatter::get_str(&frontmatter::parse(fm?).ok()?, &["name"])
        });
    let modified = std::fs::metadata(&path)
        .and_then(|m| m.modified())
        .ok()
        .map(|t| chrono::DateTime::<chrono::Local>::from(t).naive_local());
    parse_archived_as(folder, declared.as_deref(), modified)
}

/// Moves `agents/<name>` into `archive/` as the runtime does: `archive/<name>` when that is
/// free (and the name is not `skills`, the runtime's skill archive), else
/// `archive/<name>-<epochMillis>`, then `-2`, `-3`, … Its sessions and its sqlite or mem0
/// memory stay where they are.
pub fn archive(root: &Path, name: &str) -> Result<Archived> {
    let dir = require_agent(root, name)?;
    let arch = archive_dir(root);
    if !real_dir(&arch)? {
        std::fs::create_dir(&arch).map_err(io(&arch))?;
    }
    let free = |p: &Path| std::fs::symlink_metadata(p).is_err();
    let mut folder = name.to_string();
    if name == SKILLS_NAMESPACE || !free(&arch.join(&folder)) {
        let base = format!("{name}-{}", chrono::Utc::now().timestamp_millis());
        folder = base.clone();
        let mut n = 2;
        while !free(&arch.join(&folder)) {
            folder = format!("{base}-{n}");
            n += 1;
        }
    }
    let target = arch.join(&folder);
    std::fs::rename(&dir, &target).map_err(io(&dir))?;
    read_archived(&arch, &folder).ok_or_else(|| {
        CoreError::InvalidInput(format!("{folder} does not read back as an archived agent"))
    })
}

/// Archived agents (every form), newest first.
pub fn list_archived(root: &Path) -> Result<Vec<Archived>> {
    let arch = archive_dir(root);
    if !real_dir(&arch)? {
        return Ok(Vec::new());
    }
    let mut out: Vec<Archived> = std::fs::read_dir(&arch)
        .map_err(io(&arch))?
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .filter_map(|e| read_archived(&arch, &e.file_name().to_string_lossy()))
        .collect();
    out.sort_by(|a, b| {
        b.archived_at
            .cmp(&a.archived_at)
            .then(a.archived_name.cmp(&b.archived_name))
    });
    Ok(out)
}

fn require_archived(root: &Path, archived_name: &str) -> Result<(Archived, PathBuf)> {
    let gone = || CoreError::NotFound(format!("no archived agent {archived_name:?}"));
    if archived_name.is_empty()
        || archived_name.contains(['/', '\\', '\0'])
        || archived_name.starts_with('.')
    {
        return Err(gone());
    }
    let arch = archive_dir(root);
    let path = arch.join(archived_name);
    if !real_dir(&arch)? || !real_dir(&path)? {
        return Err(gone());
    }
    let a = read_archived(&arch, archived_name).ok_or_else(gone)?;
    Ok((a, path))
}

/// Moves an archived agent back to `agents/<as or its name>`; refused when that name is taken.
pub fn restore(root: &Path, archived_name: &str, as_name: Option<&str>) -> Result<String> {
    if let Some(n) = as_name {
        validate_agent_name(n)?;
        real_dir(&agent_dir(root, n))?;
    }
    let (a, path) = require_archived(root, archived_name)?;
    let name = as_name.unwrap_or(&a.name).to_string();
    validate_agent_name(&name)?;
    let target = agent_dir(root, &name);
    if real_dir(&target)? || std::fs::symlink_metadata(&target).is_ok() {
        return Err(CoreError::Conflict(format!(
            "an agent called {name:?} exists: restore this one under another name"
        )));
    }
    let agents = agents_dir(root);
    if !real_dir(&agents)? {
        std::fs::create_dir(&agents).map_err(io(&agents))?;
    }
    std::fs::rename(&path, &target).map_err(io(&path))?;
    // A restored copy under a new name says so in its front matter, as the runtime needs.
    if name != a.name {
        let md = target.join("AGENT.md");
        if let Some(text) = read_text(&md)? {
            if frontmatter::split(&text).0.is_some() {
                let _ = set_key(root, &name, "name", &name, None);
            }
        }
    }
    Ok(name)
}

/// What deleting an archived agent removes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Removal {
    pub archived_name: String,
    pub files: u64,
    pub bytes: u64,
    /// Root-relative paths, at most 50.
    pub paths: Vec<String>,
}

fn walk(dir: &Path, base: &Path, r: &mut Removal) -> Result<()> {
    for e in std::fs::read_dir(dir).map_err(io(dir))? {
        let e = e.map_err(io(dir))?;
        let m = std::fs::symlink_metadata(e.path()).map_err(io(dir))?;
        if m.is_dir() {
            walk(&e.path(), base, r)?;
        } else {
            r.files += 1;
            r.bytes += m.len();
            if r.paths.len() < 50 {
                if let Ok(p) = e.path().strip_prefix(base) {
                    r.paths.push(p.display().to_string());
                }
            }
        }
    }
    Ok(())
}

/// What [`delete_archived`] would remove.
pub fn removal_of(root: &Path, archived_name: &str) -> Result<Removal> {
    let (_, path) = require_archived(root, archived_name)?;
    let mut r = Removal {
        archived_name: archived_name.to_string(),
        files: 0,
        bytes: 0,
        paths: Vec::new(),
    };
    walk(&path, root, &mut r)?;
    Ok(r)
}

/// Deletes an archived agent for good (only from the archive); `expect_count` must be what
/// [`removal_of`] showed, so nothing added since is removed unseen.
pub fn delete_archived(root: &Path, archived_name: &str, expect_count: u64) -> Result<Removal> {
    let r = removal_of(root, archived_name)?;
    if r.files != expect_count {
        return Err(CoreError::Conflict(format!(
            "{archived_name} holds {} files, not the {expect_count} shown; nothing was deleted",
            r.files
        )));
    }
    let (_, path) = require_archived(root, archived_name)?;
    std::fs::remove_dir_all(&path).map_err(io(&path))?;
    Ok(r)
}

/// Writes a bootstrap file (USER.md, AGENTS.md, …) the user edited: atomic, refused when it
/// changed since `expect` was read. The new version.
pub fn write_bootstrap(
    root: &Path,
    file: &str,
    text: &str,
    expect: Option<&str>,
) -> Result<String> {
    crate::root::require_root(root)?;
    // An allow-list, not a check of the path's shape: any other top-level name (the runtime's
    // oryxos.db and its journals, settings, dot-files) is the runtime's, not the user's.
    let allowed = crate::agents::writable_bootstrap_names(root)?;
    if !allowed.iter().any(|n| n == file) {
        return Err(CoreError::InvalidInput(format!(
            "{file:?} is not a bootstrap file of this root; the console writes only {} \
             (and top-level Markdown files an agent lists in `bootstrap`)",
            allowed.join(", ")
        )));
    }
    if text.len() as u64 > crate::agents::MAX_AGENT_MD {
        return Err(CoreError::InvalidInput(format!(
            "{file}: {} bytes is more than the {} bytes a bootstrap file may hold",
            text.len(),
            crate::agents::MAX_AGENT_MD
        )));
    }
    let now = crate::agents::read_bootstrap(root, file)?;
    check_version(&now.content, expect, file)?;
    write_file(&root.join(file), text)?;
    Ok(version_of(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root() -> tempfile::TempDir {
        let d = tempfile::tempdir().unwrap();
        crate::demo::write_sample(d.path()).unwrap();
        d
    }

    #[test]
    fn create_clone_edit_archive_restore() {
        let d = root();
        let r = d.path();
        let spec = NewAgent {
            name: "helper".into(),
            description: Some("helps".into()),
            model: Some("gpt-4o".into()),
            provider: Some("openai".into()),
            tools: vec!["save_memory".into()],
            ..NewAgent::default()
        };
        create(r, &spec).unwrap();
        let a = crate::agents::get(r, "helper").unwrap();
        assert_eq!(a.model.as_deref(), Some("gpt-4o"));
        assert!(a.warnings.is_empty(), "{:?}", a.warnings);
        assert!(matches!(create(r, &spec), Err(CoreError::Conflict(_))));

        // Clone: front matter and body copied, the name its own.
        let clone = NewAgent {
            name: "helper2".into(),
            from: Some("assistant".into()),
            ..NewAgent::default()
        };
        create(r, &clone).unwrap();
        let (src, _) = read_agent_md(r, "assistant").unwrap();
        let (got, _) = read_agent_md(r, "helper2").unwrap();
        assert_eq!(got, src.replace("name: assistant", "name: helper2"));
        assert!(!agent_dir(r, "helper2").join("MEMORY.md").exists());

        // A key set keeps every other byte; a stale version is a conflict.
        let (text, v) = read_agent_md(r, "helper2").unwrap();
        let (new, v2) = set_key(r, "helper2", "provider.model", "gpt-4.1", Some(&v)).unwrap();
        assert_eq!(
            crate::agents::get(r, "helper2").unwrap().model.as_deref(),
            Some("gpt-4.1")
        );
        assert_eq!(new.lines().count(), text.lines().count());
        assert!(matches!(
            set_key(r, "helper2", "provider.model", "x", Some(&v)),
            Err(CoreError::Conflict(_))
        ));
        let e = save_agent_md(r, "helper2", "---\nname: other\n---\n", Some(&v2)).unwrap_err();
        assert!(e.to_string().contains("name"), "{e}");
        let e = set_key(r, "helper2", "settings.max_history_turns", "many", None).unwrap_err();
        assert!(e.to_string().contains("whole number"), "{e}");

        // Archive, refuse a second create under the name, restore.
        let a = archive(r, "helper2").unwrap();
        assert!(!agent_dir(r, "helper2").exists());
        assert_eq!(list_archived(r).unwrap()[0], a);
        assert!(matches!(create(r, &clone), Err(CoreError::Conflict(_))));
        assert_eq!(restore(r, &a.archived_name, None).unwrap(), "helper2");
        assert!(agent_dir(r, "helper2").join("AGENT.md").exists());
        let a = archive(r, "helper2").unwrap();
        let rm = removal_of(r, &a.archived_name).unwrap();
        assert!(rm.files >= 1);
        assert!(matches!(
            delete_archived(r, &a.archived_name, 0),
            Err(CoreError::Conflict(_))
        ));
        delete_archived(r, &a.archived_name, rm.files).unwrap();
        assert!(list_archived(r).unwrap().is_empty());
    }

    #[test]
    fn create_writes_the_runtimes_scaffold_and_refuses_what_it_would_not_load() {
        let d = root();
        let r = d.path();
        let known = Some(vec!["mock".to_string(), "deepseek".to_string()]);
        let spec = NewAgent {
            name: "scaf".into(),
            model: Some("deepseek-chat".into()),
            providers: known.clone(),
            ..NewAgent::default()
        };
        create(r, &spec).unwrap();
        let dir = agent_dir(r, "scaf");
        for f in [
            "AGENT.md",
            "scripts/example.py",
            "REFERENCE.md",
            "output/README.md",
        ] {
            assert!(dir.join(f).is_file(), "{f}");
        }
        let a = crate::agents::get(r, "scaf").unwrap();
        // The default provider is the registry's first name in sorted order.
        assert_eq!(a.provider.as_deref(), Some("deepseek"));
        assert_eq!(a.tools, ["read_file", "shell", "notify"]);
        assert_eq!(a.bootstrap, ["AGENTS.md"]);
        assert_eq!(a.front_matter["settings"]["max_iterations"], 10);
        assert_eq!(a.front_matter["identity"]["agent_name"], "scaf");
        assert!(a.runtime.against(known.as_deref()).loads);
        let text = std::fs::read_to_string(dir.join("AGENT.md")).unwrap();
        assert!(
            text.starts_with("---\nname: scaf\ndescription: 描述这个 Agent 做什么\n"),
            "{text}"
        );
        assert!(
            text.contains("---\n\n在这里写这个 Agent 的任务指令"),
            "{text}"
        );

        // No model, or a provider the registry lacks: refused with the reason, unless a draft.
        for (name, provider, model, code) in [
            ("nomodel", None, None, "provider_model_empty"),
            ("badprov", Some("openai"), Some("m"), "provider_unknown"),
        ] {
            let mut spec = NewAgent {
                name: name.into(),
                provider: provider.map(str::to_string),
                model: model.map(str::to_string),
                providers: known.clone(),
                ..NewAgent::default()
            };
            let e = create(r, &spec).unwrap_err().to_string();
            assert!(e.contains(code) && e.contains("draft"), "{e}");
            assert!(!agent_dir(r, name).exists());
            spec.draft = true;
            create(r, &spec).unwrap();
            let a = crate::agents::get(r, name).unwrap();
            assert!(!a.runtime.against(known.as_deref()).loads);
        }
        // A description cannot add keys.
        let spec = NewAgent {
            name: "inj".into(),
            description: Some("x\nschedules: []".into()),
            model: Some("m".into()),
            ..NewAgent::default()
        };
        create(r, &spec).unwrap();
        let a = crate::agents::get(r, "inj").unwrap();
        assert_eq!(a.description.as_deref(), Some("x\nschedules: []"));
        assert!(a.front_matter.get("schedules").is_none());
    }

    #[test]
    fn archives_in_the_runtimes_forms_and_lists_every_form() {
        let d = root();
        let r = d.path();
        let arch = r.join("archive");
        // Folders the runtime and the console made earlier.
        for (folder, name) in [
            ("old", "old"),
            ("old-1700000000000", "old"),
            ("old-1700000000000-2", "old"),
            ("my-agent-1700000001000", "my-agent"),
            ("legacy.20240102-030405", "legacy"),
            ("x-1700000000000", "x-1700000000000"),
        ] {
            std::fs::create_dir_all(arch.join(folder)).unwrap();
            std::fs::write(
                arch.join(folder).join("AGENT.md"),
                format!("---\nname: {name}\n---\n"),
            )
            .unwrap();
        }
        std::fs::create_dir_all(arch.join("skills/s-20240101")).unwrap();
        let list = list_archived(r).unwrap();
        let got: std::collections::BTreeMap<_, _> = list
            .iter()
            .map(|a| (a.archived_name.as_str(), (a.name.as_str(), a.form)))
            .collect();
        use ArchiveForm::*;
        assert_eq!(
            got,
            [
                ("legacy.20240102-030405", ("legacy", Console)),
                ("my-agent-1700000001000", ("my-agent", RuntimeStamped)),
                ("old", ("old", Runtime)),
                ("old-1700000000000", ("old", RuntimeStamped)),
                ("old-1700000000000-2", ("old", RuntimeStamped)),
                ("x-1700000000000", ("x-1700000000000", Runtime)),
            ]
            .into_iter()
            .collect()
        );
        let legacy = list.iter().find(|a| a.form == Console).unwrap();
        assert_eq!(legacy.archived_at, "2024-01-02 03:04:05");

        // The runtime's form: archive/<name> when free, else <name>-<millis>[-N].
        let a = archive(r, "researcher").unwrap();
        assert_eq!((a.archived_name.as_str(), a.form), ("researcher", Runtime));
        assert_eq!(restore(r, "researcher", None).unwrap(), "researcher");
        std::fs::create_dir_all(arch.join("researcher")).unwrap();
        let a = archive(r, "researcher").unwrap();
        assert_eq!((a.name.as_str(), a.form), ("researcher", RuntimeStamped));
        assert!(a.archived_name.starts_with("researcher-"), "{a:?}");

        // Every form restores.
        for folder in [
            "old-1700000000000-2",
            "legacy.20240102-030405",
            "my-agent-1700000001000",
        ] {
            let name = restore(r, folder, None).unwrap();
            assert!(agent_dir(r, &name).join("AGENT.md").is_file(), "{folder}");
        }
        assert_eq!(restore(r, "old", Some("old2")).unwrap(), "old2");
        assert!(restore(r, "skills", None).is_err());
        assert!(restore(r, ".", None).is_err());
    }

    #[test]
    fn skills_are_relative_links_and_names_cannot_escape() {
        let d = root();
        let r = d.path();
        let skills = list_skills(r).unwrap();
        let s = &skills[0].name;
        detach_skill(r, "assistant", s).ok();
        attach_skill(r, "assistant", s).unwrap();
        let link = agent_dir(r, "assistant").join("skills").join(s);
        assert_eq!(
            std::fs::read_link(&link).unwrap(),
            PathBuf::from(format!("../../../skills/{s}"))
        );
        assert!(link.join("SKILL.md").exists());
        detach_skill(r, "assistant", s).unwrap();
        assert!(r.join("skills").join(s).exists(), "the skill itself stays");
        for bad in ["../x", "a/b", "", ".."] {
            assert!(attach_skill(r, "assistant", bad).is_err(), "{bad}");
            assert!(archive(r, bad).is_err(), "{bad}");
            assert!(restore(r, bad, None).is_err(), "{bad}");
        }
        assert!(write_bootstrap(r, "../USER.md", "x", None).is_err());
        assert!(write_bootstrap(r, "sub/USER.md", "x", None).is_err());
        let now = crate::agents::read_bootstrap(r, "USER.md").unwrap();
        let v = write_bootstrap(r, "USER.md", "# me\n", Some(&version_of(&now.content))).unwrap();
        assert!(matches!(
            write_bootstrap(r, "USER.md", "again", Some(&version_of(&now.content))),
            Err(CoreError::Conflict(_))
        ));
        assert_eq!(v, version_of("# me\n"));
    }

    #[test]
    fn only_bootstrap_files_are_written_never_the_runtimes_own() {
        let d = root();
        let r = d.path();
        let db = r.join(crate::config::DB_FILE);
        std::fs::write(&db, b"SQLite format 3\0 the runtime's data").unwrap();
        std::fs::write(r.join("settings.json"), b"{}").unwrap();
        // An agent listing the database does not make it a bootstrap file.
        set_key(
            r,
            "log_analyst",
            "bootstrap",
            "[AGENTS.md, oryxos.db, TOOLS.md]",
            None,
        )
        .unwrap();
        for bad in [
            "oryxos.db",
            "oryxos.db-wal",
            "oryxos.db-shm",
            ".hidden",
            ".oryx-settings.md",
            "settings.json",
            "AGENT.md",
            "NOTES.md",
            "user.md",
        ] {
            match write_bootstrap(r, bad, "overwritten", None) {
                Err(CoreError::InvalidInput(m)) => {
                    assert!(
                        m.contains("USER.md, AGENTS.md, SOUL.md, TOOLS.md"),
                        "{bad}: {m}"
                    )
                }
                other => panic!("{bad}: {other:?}"),
            }
            assert!(
                !r.join(bad).exists() || bad == "oryxos.db" || bad == "settings.json",
                "{bad} made"
            );
        }
        assert_eq!(
            std::fs::read(&db).unwrap(),
            b"SQLite format 3\0 the runtime's data"
        );
        assert_eq!(std::fs::read(r.join("settings.json")).unwrap(), b"{}");
        // Reads do not serve the runtime's files as bootstrap files either.
        for bad in ["oryxos.db", "oryxos.db-wal", "settings.json", ".hidden.md"] {
            assert!(
                matches!(
                    crate::agents::read_bootstrap(r, bad),
                    Err(CoreError::InvalidInput(_))
                ),
                "{bad}"
            );
        }
        // The standard files and a top-level file an agent lists are written.
        write_bootstrap(r, "SOUL.md", "# soul\n", None).unwrap();
        write_bootstrap(r, "TOOLS.md", "# tools\n", None).unwrap();
        assert_eq!(
            std::fs::read_to_string(r.join("TOOLS.md")).unwrap(),
            "# tools\n"
        );
        let big = "x".repeat(crate::agents::MAX_AGENT_MD as usize + 1);
        assert!(matches!(
            write_bootstrap(r, "USER.md", &big, None),
            Err(CoreError::InvalidInput(_))
        ));
    }
}
