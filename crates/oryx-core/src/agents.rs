//! The agent catalog (CONTRACT §1): scan `agents/`, read AGENT.md front matter, skills and bootstrap
//! files. Problems with one agent become warnings on that agent, never a failed listing.

use std::fs;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use crate::error::{CoreError, IoContext, Result};
use crate::frontmatter;
use crate::names::{agent_dir, agents_dir, is_valid_agent_name, stays_inside};
use crate::warning::{Warning, WarningCode as W};

pub const DEFAULT_MAX_HISTORY_TURNS: i64 = 20;
/// AGENT.md and bootstrap files larger than this are not read (a guard against a runaway
/// file), nor written.
pub const MAX_AGENT_MD: u64 = 4 * 1024 * 1024;

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Skill {
    pub name: String,
    pub description: Option<String>,
    pub path: PathBuf,
    pub warnings: Vec<Warning>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Agent {
    pub name: String,
    pub dir: PathBuf,
    pub has_agent_md: bool,
    pub description: Option<String>,
    pub identity_name: Option<String>,
    pub identity_prompt: Option<String>,
    pub provider: Option<String>,
    pub model: Option<String>,
    pub temperature: Option<f64>,
    pub tools: Vec<String>,
    pub bootstrap: Vec<String>,
    pub max_history_turns: i64,
    pub schedules: Value,
    pub channels: Value,
    /// The whole front matter as parsed (unknown keys kept for display).
    pub front_matter: Value,
    pub body: String,
    pub skills: Vec<Skill>,
    pub warnings: Vec<Warning>,
    /// What the runtime's agent loader says of this folder (its provider registry aside:
    /// [`crate::runtime_load::Assessment::against`] adds it).
    pub runtime: crate::runtime_load::Assessment,
}

/// One `schedules` entry as the runtime's profile loader reads it.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Schedule {
    /// Unique within the agent; the runtime keys its schedule state by (agent, key).
    pub key: String,
    pub name: String,
    pub cron: Option<String>,
    pub zone: Option<String>,
    pub message: Option<String>,
}

impl Agent {
    /// The schedules the runtime would register (entries it refuses are left out; `warnings`
    /// says why).
    pub fn schedule_entries(&self) -> Vec<Schedule> {
        parse_schedules(&self.schedules).0
    }
}

/// The runtime's rules: `key` (or the legacy `id`, which then also names it) is required and
/// unique, `name` is required, and any violation makes it refuse the whole agent. Its cron is
/// Spring's six fields (second first).
pub fn parse_schedules(v: &Value) -> (Vec<Schedule>, Vec<Warning>) {
    let mut out = Vec::new();
    let mut warnings = Vec::new();
    let items = match v {
        Value::Null => return (out, warnings),
        Value::Array(items) => items,
        _ => {
            warnings.push(Warning::new(
                W::SchedulesNotList,
                "schedules is not a list; the runtime ignores it",
            ));
            return (out, warnings);
        }
    };
    let refused = "the runtime refuses to load this agent";
    for (i, item) in items.iter().enumerate() {
        if !item.is_object() {
            continue;
        }
        let text = |k: &str| frontmatter::get_str(item, &[k]);
        let legacy = text("id");
        if let (Some(k), Some(id)) = (text("key"), &legacy) {
            if &k != id {
                warnings.push(
                    Warning::new(
                        W::ScheduleIdKeyDiffer,
                        format!("schedules[{i}]: id {id:?} and key {k:?} differ; {refused}"),
                    )
                    .with("index", i)
                    .with("id", id)
                    .with("key", &k),
                );
                continue;
            }
        }
        let key = text("key").or_else(|| legacy.clone());
        let name = text("name").or_else(|| text("key").is_none().then(|| legacy.clone()).flatten());
        let Some(key) = key.filter(|k| !k.trim().is_empty()) else {
            warnings.push(
                Warning::new(
                    W::ScheduleNoKey,
                    format!("schedules[{i}] has no key; {refused}"),
                )
                .with("index", i),
            );
            continue;
        };
        let Some(name) = name.filter(|n| !n.trim().is_empty()) else {
            warnings.push(
                Warning::new(
                    W::ScheduleNoName,
                    format!("schedules[{i}] ({key}) has no name; {refused}"),
                )
                .with("index", i)
                .with("key", &key),
            );
            continue;
        };
        if out.iter().any(|s: &Schedule| s.key == key) {
            warnings.push(
                Warning::new(
                    W::ScheduleKeyDuplicate,
                    format!("schedules[{i}]: key {key:?} is used twice; {refused}"),
                )
                .with("index", i)
                .with("key", &key),
            );
            continue;
        }
        let cron = text("cron");
        if let Some(c) = &cron {
            let fields = c.split_whitespace().count();
            if fields != 6 {
                warnings.push(
                    Warning::new(
                        W::ScheduleCronFields,
                        format!(
                            "schedules[{i}] ({key}): cron {c:?} has {fields} fields; the runtime's cron has 6 (second minute hour day month weekday)"
                        ),
                    )
                    .with("index", i)
                    .with("key", &key)
                    .with("cron", c)
                    .with("fields", fields),
                );
            }
        }
        out.push(Schedule {
            key,
            name,
            cron,
            zone: text("zone"),
            message: text("message"),
        });
    }
    (out, warnings)
}

/// When an owner's MEMORY.md was last written (its modification time, local), whatever the
/// backend: the runtime's own file is part of an agent's activity.
pub fn memory_modified(root: &Path, owner: &crate::names::Owner) -> Option<chrono::NaiveDateTime> {
    crate::memory::FileVersion::of(&crate::names::memory_path(root, owner))?.modified_local()
}

/// Lists every directory under `agents/`, sorted by name.
pub fn list(root: &Path) -> Result<Vec<Agent>> {
    // A vanished root is an error, not an empty catalog.
    crate::root::require_root(root)?;
    let dir = agents_dir(root);
    let entries = match fs::read_dir(&dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(CoreError::io(&dir, e)),
    };
    let mut agents = Vec::new();
    for entry in entries {
        let entry = entry.at(&dir)?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let path = entry.path();
        if name.starts_with('.') || !path.is_dir() {
            continue;
        }
        agents.push(read_agent(root, &name));
    }
    agents.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(agents)
}

/// One agent by name; the caller has resolved the name strictly.
pub fn get(root: &Path, name: &str) -> Result<Agent> {
    crate::names::resolve_strict(root, Some(name))?;
    Ok(read_agent(root, name))
}

/// One agent as its AGENT.md was at `at` where the root's git history tells (the file was
/// written since): then the commit's id, else today's file and `None`.
pub fn get_as_of(
    root: &Path,
    name: &str,
    at: chrono::NaiveDateTime,
) -> Result<(Agent, Option<String>)> {
    crate::names::resolve_strict(root, Some(name))?;
    let dir = agent_dir(root, name);
    if stays_inside(root, &dir) {
        if let Some(c) = crate::portable::git::before_later_writes(root, &dir.join("AGENT.md"), at)?
        {
            let text = String::from_utf8_lossy(&c.bytes).into_owned();
            return Ok((
                agent_from(root, name, dir, &text, Vec::new()),
                Some(c.commit),
            ));
        }
    }
    Ok((read_agent(root, name), None))
}

fn read_agent(root: &Path, name: &str) -> Agent {
    let dir = agent_dir(root, name);
    let mut warnings = Vec::new();
    if !is_valid_agent_name(name) {
        warnings.push(
            Warning::new(
                W::AgentNameInvalid,
                format!(
                    "directory name {name:?} is not a valid agent name ([A-Za-z0-9_-], at most 64); the runtime will not load it"
                ),
            )
            .with("name", name),
        );
    }
    if !stays_inside(root, &dir) {
        warnings.push(Warning::new(
            W::AgentDirOutsideRoot,
            "agent directory is a link that points outside the root; its files are not read",
        ));
        let mut a = empty_agent(name, dir, warnings);
        a.runtime = crate::runtime_load::unreadable("the folder is a link out of the root");
        return a;
    }
    let md_path = dir.join("AGENT.md");
    let text = match read_limited(root, &md_path) {
        Ok(Some(t)) => t,
        Ok(None) => {
            warnings.push(Warning::new(W::AgentMdMissing, "AGENT.md is missing"));
            let mut a = empty_agent(name, dir.clone(), warnings);
            a.skills = read_skills(root, &dir, &mut a.warnings);
            a.runtime = crate::runtime_load::missing();
            return a;
        }
        Err(e) => {
            warnings.push(
                Warning::new(
                    W::AgentMdUnreadable,
                    format!("AGENT.md cannot be read: {e}"),
                )
                .with("detail", &e),
            );
            let mut a = empty_agent(name, dir, warnings);
            a.runtime = crate::runtime_load::unreadable(&e.to_string());
            return a;
        }
    };
    agent_from(root, name, dir, &text, warnings)
}

/// An agent from its AGENT.md text (skills as the folder holds them now).
fn agent_from(
    root: &Path,
    name: &str,
    dir: PathBuf,
    text: &str,
    mut warnings: Vec<Warning>,
) -> Agent {
    if text.contains(['\u{FFFD}', '\0']) {
        warnings.push(Warning::new(
            W::AgentMdNotUtf8,
            "AGENT.md is not plain UTF-8 text (binary or another encoding)",
        ));
    }
    let (fm_text, body) = frontmatter::split(text);
    let fm = match fm_text.map(frontmatter::parse) {
        Some(Ok(v)) => v,
        Some(Err(e)) => {
            warnings.push(
                Warning::new(
                    W::FrontMatterInvalid,
                    format!("AGENT.md front matter is not valid YAML: {e}"),
                )
                .with("file", "AGENT.md")
                .with("detail", &e),
            );
            Value::Object(Default::default())
        }
        None => Value::Object(Default::default()),
    };
    // The typed fields as the runtime reads them: `${VAR}` resolved. The whole front matter is
    // kept as written, so a secret a placeholder stands for is not shown.
    let raw_fm = fm;
    let fm = frontmatter::resolve_placeholders(&raw_fm, &frontmatter::process_env);
    if let Some(declared) = frontmatter::get_str(&fm, &["name"]) {
        if declared != name {
            warnings.push(
                Warning::new(
                    W::AgentNameMismatch,
                    format!("AGENT.md says name {declared:?} but the directory is {name:?}"),
                )
                .with("declared", &declared)
                .with("name", name),
            );
        }
    }
    let max_history_turns = match fm.get("settings").and_then(|s| s.get("max_history_turns")) {
        None => DEFAULT_MAX_HISTORY_TURNS,
        Some(v) => v.as_i64().unwrap_or_else(|| {
            warnings.push(
                Warning::new(
                    W::MaxHistoryTurnsInvalid,
                    format!(
                        "settings.max_history_turns is not a whole number ({v}); using {DEFAULT_MAX_HISTORY_TURNS}"
                    ),
                )
                .with("value", v)
                .with("default", DEFAULT_MAX_HISTORY_TURNS),
            );
            DEFAULT_MAX_HISTORY_TURNS
        }),
    };
    let schedules = fm.get("schedules").cloned().unwrap_or(Value::Null);
    warnings.extend(parse_schedules(&schedules).1);
    // The runtime loads only the files AGENT.md lists; there is no default set.
    let bootstrap = frontmatter::get_str_list(&fm, "bootstrap");
    let mut agent = Agent {
        name: name.to_string(),
        dir: dir.clone(),
        has_agent_md: true,
        description: frontmatter::get_str(&fm, &["description"]),
        identity_name: frontmatter::get_str(&fm, &["identity", "agent_name"]),
        identity_prompt: frontmatter::get_str(&fm, &["identity", "prompt"]),
        provider: frontmatter::get_str(&fm, &["provider", "name"]),
        model: frontmatter::get_str(&fm, &["provider", "model"]),
        temperature: frontmatter::get_f64(&fm, &["provider", "temperature"]),
        tools: frontmatter::get_str_list(&fm, "tools"),
        bootstrap,
        max_history_turns,
        schedules,
        channels: fm.get("channels").cloned().unwrap_or(Value::Null),
        front_matter: raw_fm,
        body: body.to_string(),
        skills: Vec::new(),
        warnings,
        runtime: crate::runtime_load::assess(text, name, &frontmatter::process_env),
    };
    agent.skills = read_skills(root, &dir, &mut agent.warnings);
    agent
}

fn empty_agent(name: &str, dir: PathBuf, warnings: Vec<Warning>) -> Agent {
    Agent {
        name: name.to_string(),
        dir,
        has_agent_md: false,
        description: None,
        identity_name: None,
        identity_prompt: None,
        provider: None,
        model: None,
        temperature: None,
        tools: Vec::new(),
        bootstrap: Vec::new(),
        max_history_turns: DEFAULT_MAX_HISTORY_TURNS,
        schedules: Value::Null,
        channels: Value::Null,
        front_matter: Value::Object(Default::default()),
        body: String::new(),
        skills: Vec::new(),
        warnings,
        runtime: crate::runtime_load::missing(),
    }
}

/// A text file under the root, opened so that a FIFO cannot hang the read and a link swapped in
/// after the caller's checks cannot lead outside the root.
fn read_limited(root: &Path, path: &Path) -> Result<Option<String>> {
    use std::io::Read;
    let Some(file) = crate::rooted_fs::open_read_inside(root, path)? else {
        return Ok(None);
    };
    let len = file.metadata().at(path)?.len();
    if len > MAX_AGENT_MD {
        return Err(CoreError::io(
            path,
            std::io::Error::other(format!(
                "file is {len} bytes, larger than the {MAX_AGENT_MD} byte limit"
            )),
        ));
    }
    let mut bytes = Vec::new();
    // The limit again while reading: the file may grow after the size was taken.
    file.take(MAX_AGENT_MD + 1)
        .read_to_end(&mut bytes)
        .at(path)?;
    Ok(Some(String::from_utf8_lossy(&bytes).into_owned()))
}

/// Skills under `agents/<name>/skills/`, usually relative symlinks into `<root>/skills/`.
fn read_skills(root: &Path, dir: &Path, warnings: &mut Vec<Warning>) -> Vec<Skill> {
    let skills_dir = dir.join("skills");
    let Ok(entries) = fs::read_dir(&skills_dir) else {
        return Vec::new();
    };
    let mut skills: Vec<Skill> = entries
        .filter_map(|e| e.ok())
        .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
        .map(|e| read_skill(root, &e.path(), &e.file_name().to_string_lossy()))
        .collect();
    skills.sort_by(|a, b| a.name.cmp(&b.name));
    for s in &skills {
        for w in &s.warnings {
            // On the agent: the skill's own code, with the skill named.
            warnings.push(Warning {
                message: format!("skill {}: {w}", s.name),
                ..w.clone().with("skill", &s.name)
            });
        }
    }
    skills
}

fn read_skill(root: &Path, path: &Path, dir_name: &str) -> Skill {
    let mut skill = Skill {
        name: dir_name.to_string(),
        description: None,
        path: path.to_path_buf(),
        warnings: Vec::new(),
    };
    if !path.exists() {
        skill.warnings.push(Warning::new(
            W::SkillLinkBroken,
            "link is broken (its target does not exist)",
        ));
        return skill;
    }
    if !stays_inside(root, path) {
        skill.warnings.push(Warning::new(
            W::SkillOutsideRoot,
            "points outside the root; not read",
        ));
        return skill;
    }
    let md = path.join("SKILL.md");
    match read_limited(root, &md) {
        Ok(Some(text)) => {
            let (fm, _) = frontmatter::split(&text);
            match fm.map(frontmatter::parse) {
                Some(Ok(v)) => {
                    skill.description = frontmatter::get_str(&v, &["description"]);
                    if let Some(n) = frontmatter::get_str(&v, &["name"]) {
                        if n != dir_name {
                            skill.warnings.push(
                                Warning::new(
                                    W::SkillNameMismatch,
                                    format!("SKILL.md says name {n:?}"),
                                )
                                .with("declared", &n),
                            );
                        }
                    }
                }
                Some(Err(e)) => skill.warnings.push(skill_front_matter_invalid(&e)),
                None => {}
            }
        }
        Ok(None) => skill.warnings.push(skill_md_missing()),
        Err(e) => skill.warnings.push(
            Warning::new(
                W::SkillMdUnreadable,
                format!("SKILL.md cannot be read: {e}"),
            )
            .with("detail", &e),
        ),
    }
    skill
}

/// A SKILL.md whose front matter cannot be parsed.
pub fn skill_front_matter_invalid(e: &frontmatter::FrontMatterError) -> Warning {
    Warning::new(
        W::FrontMatterInvalid,
        format!("SKILL.md front matter is not valid YAML: {e}"),
    )
    .with("file", "SKILL.md")
    .with("detail", e)
}

/// A skill folder without SKILL.md.
pub fn skill_md_missing() -> Warning {
    Warning::new(W::SkillMdMissing, "SKILL.md is missing")
}

/// A root-relative bootstrap file (USER.md, AGENTS.md, …).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct BootstrapFile {
    pub name: String,
    pub exists: bool,
    pub content: String,
}

/// A bootstrap file as it was at `at` where the root's git history tells (the file was written
/// since): then the commit's id, else today's file and `None`.
pub fn read_bootstrap_as_of(
    root: &Path,
    name: &str,
    at: chrono::NaiveDateTime,
) -> Result<(BootstrapFile, Option<String>)> {
    let today = read_bootstrap(root, name)?;
    let path = root.join(name);
    if path.exists() && !stays_inside(root, &path) {
        return Ok((today, None));
    }
    match crate::portable::git::before_later_writes(root, &path, at)? {
        Some(c) => Ok((
            BootstrapFile {
                name: name.to_string(),
                exists: true,
                content: String::from_utf8_lossy(&c.bytes).into_owned(),
            },
            Some(c.commit),
        )),
        None => Ok((today, None)),
    }
}

/// Whether `name` can name a bootstrap file: a Markdown file (what the runtime's bootstrap files
/// are) by a plain path inside the root, no part of it hidden. The runtime's own files — its
/// database and journals, settings, dot-files — never qualify, whatever an agent lists.
pub fn is_bootstrap_name(name: &str) -> bool {
    let rel = Path::new(name);
    !name.is_empty()
        && !name.contains('\0')
        && rel.components().all(|c| match c {
            std::path::Component::Normal(part) => !part.as_encoded_bytes().starts_with(b"."),
            _ => false,
        })
        && rel
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("md"))
}

/// The bootstrap files of `root` the console may write: the runtime's standard ones and the
/// top-level ones some agent lists in `bootstrap` (the runtime loads those into its prompt).
pub fn writable_bootstrap_names(root: &Path) -> Result<Vec<String>> {
    let mut names: Vec<String> = crate::workspace::BOOTSTRAP_FILES
        .iter()
        .map(|s| s.to_string())
        .collect();
    for agent in list(root)? {
        for b in agent.bootstrap {
            if !b.contains('/') && is_bootstrap_name(&b) && !names.contains(&b) {
                names.push(b);
            }
        }
    }
    Ok(names)
}

/// Reads a bootstrap file by its root-relative name; refuses names that leave the root or
/// cannot be a bootstrap file ([`is_bootstrap_name`]).
pub fn read_bootstrap(root: &Path, name: &str) -> Result<BootstrapFile> {
    if !is_bootstrap_name(name) {
        return Err(CoreError::InvalidInput(format!(
            "bootstrap file {name:?} must be a Markdown file inside the root, like USER.md \
             (not hidden, not the runtime's database or settings)"
        )));
    }
    let rel = Path::new(name);
    let path = root.join(rel);
    if path.exists() && !stays_inside(root, &path) {
        return Err(CoreError::OutsideRoot(path));
    }
    match read_limited(root, &path)? {
        Some(content) => Ok(BootstrapFile {
            name: name.to_string(),
            exists: true,
            content,
        }),
        None => Ok(BootstrapFile {
            name: name.to_string(),
            exists: false,
            content: String::new(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Path, rel: &str, text: &str) {
        let p = root.join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, text).unwrap();
    }

    #[test]
    fn catalog_with_warnings() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write(root, "agents/good/AGENT.md", "---\nname: good\ndescription: Helps\nprovider:\n  name: openai\n  model: gpt-4o\ntools: [save_memory]\nsettings:\n  max_history_turns: 5\nextra_key: kept\n---\nYou are good.\n");
        write(
            root,
            "agents/bad_yaml/AGENT.md",
            "---\nname: [oops\n---\nbody\n",
        );
        write(root, "agents/renamed/AGENT.md", "---\nname: other\n---\n");
        fs::create_dir_all(root.join("agents/no_md")).unwrap();
        write(
            root,
            "skills/search/SKILL.md",
            "---\nname: search\ndescription: Finds things\n---\n",
        );
        #[cfg(unix)]
        {
            fs::create_dir_all(root.join("agents/good/skills")).unwrap();
            std::os::unix::fs::symlink(
                "../../../skills/search",
                root.join("agents/good/skills/search"),
            )
            .unwrap();
            std::os::unix::fs::symlink(
                "../../../skills/gone",
                root.join("agents/good/skills/gone"),
            )
            .unwrap();
        }
        let agents = list(root).unwrap();
        let names: Vec<_> = agents.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(names, vec!["bad_yaml", "good", "no_md", "renamed"]);
        let good = &agents[1];
        assert_eq!(good.model.as_deref(), Some("gpt-4o"));
        assert_eq!(good.max_history_turns, 5);
        assert_eq!(good.body, "You are good.\n");
        assert_eq!(good.front_matter["extra_key"], "kept");
        #[cfg(unix)]
        {
            assert_eq!(good.skills.len(), 2);
            assert_eq!(good.skills[1].description.as_deref(), Some("Finds things"));
            assert!(good
                .warnings
                .iter()
                .any(|w| w.contains("gone") && w.contains("broken")));
        }
        assert!(agents[0].warnings[0].contains("not valid YAML"));
        assert!(agents[2].warnings[0].contains("missing"));
        assert!(agents[3].warnings[0].contains("\"other\""));
        // Each with its code and the values its sentence needs; the message is the detail.
        let w = &agents[0].warnings[0];
        assert_eq!(w.code, W::FrontMatterInvalid);
        assert_eq!(w.params["file"], "AGENT.md");
        assert!(w.message.ends_with(&w.params["detail"]), "{w:?}");
        assert_eq!(agents[2].warnings[0].code, W::AgentMdMissing);
        let w = &agents[3].warnings[0];
        assert_eq!(w.code, W::AgentNameMismatch);
        assert_eq!(
            (w.params["declared"].as_str(), w.params["name"].as_str()),
            ("other", "renamed")
        );
        #[cfg(unix)]
        {
            // A skill's warning on the agent keeps its code and names the skill.
            let w = good
                .warnings
                .iter()
                .find(|w| w.code == W::SkillLinkBroken)
                .unwrap();
            assert_eq!(w.params["skill"], "gone");
            assert_eq!(
                w.message,
                "skill gone: link is broken (its target does not exist)"
            );
            assert_eq!(good.skills[0].warnings[0].code, W::SkillLinkBroken);
            assert!(!good.skills[0].warnings[0].params.contains_key("skill"));
        }
        // Serialised snake_case, as the UI's translation keys are.
        assert_eq!(
            serde_json::to_value(&agents[2].warnings[0]).unwrap(),
            serde_json::json!({"code": "agent_md_missing", "params": {}, "message": "AGENT.md is missing"})
        );
    }

    #[test]
    fn schedules_the_runtime_refuses_are_warned_about() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write(root, "agents/a/AGENT.md", "---\nname: a\nschedules:\n  - cron: \"0 9 * * 1-5\"\n    prompt: old shape\n  - key: k\n    cron: \"0 0 9 * * *\"\n  - id: legacy\n    cron: \"0 0 1 * * *\"\n    zone: UTC\n    message: hi\n  - key: legacy\n    name: dup\n  - key: x\n    id: y\n    name: Z\n---\n");
        let a = get(root, "a").unwrap();
        let w = a
            .warnings
            .iter()
            .map(|w| w.message.as_str())
            .collect::<Vec<_>>()
            .join("\n");
        assert!(w.contains("schedules[0] has no key"), "{w}");
        let codes: Vec<_> = a
            .warnings
            .iter()
            .map(|w| (w.code, w.params.clone()))
            .collect();
        let p = |kv: &[(&str, &str)]| {
            kv.iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect::<std::collections::BTreeMap<_, _>>()
        };
        assert_eq!(
            codes,
            vec![
                (W::ScheduleNoKey, p(&[("index", "0")])),
                (W::ScheduleNoName, p(&[("index", "1"), ("key", "k")])),
                (
                    W::ScheduleKeyDuplicate,
                    p(&[("index", "3"), ("key", "legacy")])
                ),
                (
                    W::ScheduleIdKeyDiffer,
                    p(&[("index", "4"), ("id", "y"), ("key", "x")])
                ),
            ]
        );
        assert!(w.contains("schedules[0]") && w.contains("refuses"), "{w}");
        assert!(w.contains("schedules[1] (k) has no name"), "{w}");
        assert!(w.contains("\"legacy\" is used twice"), "{w}");
        assert!(
            w.contains("schedules[4]: id \"y\" and key \"x\" differ"),
            "{w}"
        );
        assert!(!w.contains("schedules[2]"), "{w}");
        assert_eq!(
            a.schedule_entries(),
            vec![Schedule {
                key: "legacy".into(),
                name: "legacy".into(),
                cron: Some("0 0 1 * * *".into()),
                zone: Some("UTC".into()),
                message: Some("hi".into()),
            }]
        );
        write(
            root,
            "agents/b/AGENT.md",
            "---\nname: b\nschedules:\n  - key: m\n    name: M\n    cron: \"0 9 * * 1-5\"\n---\n",
        );
        let b = get(root, "b").unwrap();
        assert_eq!(b.schedule_entries().len(), 1);
        assert!(
            b.warnings.iter().any(|w| w.contains("has 5 fields")),
            "{:?}",
            b.warnings
        );
    }

    #[test]
    fn bootstrap_files_stay_inside_the_root() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "USER.md", "I like tea");
        assert_eq!(
            read_bootstrap(dir.path(), "USER.md").unwrap().content,
            "I like tea"
        );
        assert!(!read_bootstrap(dir.path(), "SOUL.md").unwrap().exists);
        for bad in ["../etc/passwd", "/etc/passwd", "", "a/../../b"] {
            assert!(read_bootstrap(dir.path(), bad).is_err(), "{bad}");
        }
    }
}
