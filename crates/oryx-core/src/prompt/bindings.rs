//! An agent's skill and knowledge bindings as the runtime accepts them for its system prompt.
//!
//! A binding is a relative symlink `agents/<agent>/<kind>/<name>` whose target is exactly
//! `../../../<kind>/<name>`, resolving inside `<root>/<kind>/` to a directory of the same name
//! holding the manifest (SKILL.md or KNOWLEDGE.md) whose front matter names it and describes
//! it. Anything else is skipped by the runtime with a log line; here it is a reason in
//! [`Inspection::skipped`], so the console can say why a binding is not in the prompt.

use std::fs;
use std::path::{Component, Path, PathBuf};

use serde_json::Value;

use crate::tools::is_java_whitespace;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Skill,
    Knowledge,
}

impl Kind {
    /// The folder name, both under the agent and under the root.
    fn dir(self) -> &'static str {
        match self {
            Kind::Skill => "skills",
            Kind::Knowledge => "knowledge",
        }
    }

    fn manifest(self) -> &'static str {
        match self {
            Kind::Skill => "SKILL.md",
            Kind::Knowledge => "KNOWLEDGE.md",
        }
    }
}

/// One binding the runtime would put in the prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bound {
    pub name: String,
    pub description: String,
    /// The link as the runtime names it: absolute, lexically normalised, not resolved.
    pub link: PathBuf,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Inspection {
    /// Sorted by name, as the runtime lists them.
    pub bindings: Vec<Bound>,
    /// `(entry, why)` for every entry the runtime skips.
    pub skipped: Vec<(String, String)>,
}

/// The bindings of `agent` of one kind, read now (the runtime reads them on every prompt).
pub fn inspect(root: &Path, agent: &str, kind: Kind) -> Inspection {
    let root = absolute(root);
    let mut out = Inspection::default();
    let agent_dir = root.join("agents").join(agent);
    if !is_real_dir(&agent_dir) {
        return out;
    }
    let links = agent_dir.join(kind.dir());
    if !is_real_dir(&links) {
        return out;
    }
    if !agent_dir.join("AGENT.md").is_file() {
        out.skipped
            .push((kind.dir().to_string(), "the agent has no AGENT.md".into()));
        return out;
    }
    let mut entries: Vec<PathBuf> = match fs::read_dir(&links) {
        Ok(rd) => rd.filter_map(|e| e.ok()).map(|e| e.path()).collect(),
        Err(e) => {
            out.skipped
                .push((kind.dir().to_string(), format!("cannot be listed: {e}")));
            return out;
        }
    };
    entries.sort();
    let kind_root = root.join(kind.dir());
    for entry in entries {
        let name = entry
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        match check(&kind_root, &entry, &name, kind) {
            Ok(description) => out.bindings.push(Bound {
                name,
                description,
                link: entry,
            }),
            Err(why) => out.skipped.push((name, why)),
        }
    }
    out.bindings.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

/// The description of a valid binding, or why the runtime skips it.
fn check(
    kind_root: &Path,
    entry: &Path,
    name: &str,
    kind: Kind,
) -> std::result::Result<String, String> {
    let safe = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    let is_link = fs::symlink_metadata(entry).is_ok_and(|m| m.file_type().is_symlink());
    if !safe || !is_link {
        return Err("not a relative symlink with a safe name ([A-Za-z0-9_-])".into());
    }
    let raw = fs::read_link(entry).map_err(|e| format!("the link cannot be read: {e}"))?;
    if raw.is_absolute() {
        return Err("the link is absolute; the runtime needs a relative one".into());
    }
    let expected = format!("../../../{}/{name}", kind.dir());
    let lexical = normalize(&entry.parent().unwrap_or(Path::new("/")).join(&raw));
    let raw_text = raw.to_string_lossy();
    if !lexical.starts_with(kind_root) || raw_text.trim_end_matches('/') != expected {
        return Err(format!("the link's target is not {expected}"));
    }
    if !entry.exists() {
        return Err("the link's target does not exist".into());
    }
    let real = fs::canonicalize(entry).map_err(|e| format!("cannot be resolved: {e}"))?;
    let real_root = fs::canonicalize(kind_root).unwrap_or_else(|_| kind_root.to_path_buf());
    if !real.starts_with(&real_root) {
        return Err(format!("resolves outside {}/", kind.dir()));
    }
    let manifest = real.join(kind.manifest());
    if !real.is_dir() || !manifest.is_file() {
        return Err(format!(
            "the target is not a folder with {}",
            kind.manifest()
        ));
    }
    if real.file_name().map(|n| n.to_string_lossy()) != Some(name.into()) {
        return Err("the link's name differs from its folder's".into());
    }
    let text =
        fs::read(&manifest).map_err(|e| format!("{} cannot be read: {e}", kind.manifest()))?;
    let (fm, body_has_text) = manifest_parts(&String::from_utf8_lossy(&text))
        .ok_or_else(|| format!("{} has no closed front matter", kind.manifest()))?;
    if kind == Kind::Skill && !body_has_text {
        return Err("SKILL.md has no body".into());
    }
    let fm = crate::frontmatter::parse(&fm).map_err(|e| format!("front matter: {e}"))?;
    let declared = java_text(fm.get("name"));
    let description = java_text(fm.get("description"));
    if declared.is_empty() {
        return Err(format!("{} has no name", kind.manifest()));
    }
    if description.is_empty() {
        return Err(format!("{} has no description", kind.manifest()));
    }
    if declared != name {
        return Err(format!("{} names it {declared:?}", kind.manifest()));
    }
    Ok(description)
}

/// The runtime reads a manifest line by line: the first line must be exactly `---`, the front
/// matter runs to the next line that is `---` once stripped. Returns the front matter and
/// whether a non-blank line follows it.
fn manifest_parts(text: &str) -> Option<(String, bool)> {
    let mut lines = java_lines(text);
    if lines.next()? != "---" {
        return None;
    }
    let mut yaml = String::new();
    for line in lines.by_ref() {
        if java_strip(line) == "---" {
            let body = lines.any(|l| !l.chars().all(is_java_whitespace));
            return Some((yaml, body));
        }
        yaml.push_str(line);
        yaml.push('\n');
    }
    None
}

/// Lines as Java's `BufferedReader.readLine` splits them: at `\n`, `\r\n` or a lone `\r`.
fn java_lines(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = Some(text);
    std::iter::from_fn(move || {
        let s = rest?;
        if s.is_empty() {
            rest = None;
            return None;
        }
        match s.find(['\n', '\r']) {
            Some(i) => {
                let skip = if s[i..].starts_with("\r\n") { 2 } else { 1 };
                rest = Some(&s[i + skip..]);
                Some(&s[..i])
            }
            None => {
                rest = None;
                Some(s)
            }
        }
    })
}

/// Java's `String.strip`.
pub(crate) fn java_strip(s: &str) -> &str {
    s.trim_matches(is_java_whitespace)
}

/// `String.valueOf(value).strip()`, missing being empty.
fn java_text(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => java_strip(s).to_string(),
        Some(other) => java_strip(&other.to_string()).to_string(),
    }
}

fn is_real_dir(p: &Path) -> bool {
    fs::symlink_metadata(p).is_ok_and(|m| m.is_dir())
}

/// `toAbsolutePath().normalize()`: made absolute and `.`/`..` folded, links not followed.
pub(crate) fn absolute(p: &Path) -> PathBuf {
    normalize(&std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf()))
}

fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            c => out.push(c.as_os_str()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn kb(root: &Path, name: &str, manifest: &str) {
        fs::create_dir_all(root.join("knowledge").join(name)).unwrap();
        fs::write(
            root.join("knowledge").join(name).join("KNOWLEDGE.md"),
            manifest,
        )
        .unwrap();
    }

    #[test]
    fn only_fixed_relative_links_to_valid_manifests_count() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path();
        fs::create_dir_all(root.join("agents/a/knowledge")).unwrap();
        fs::write(root.join("agents/a/AGENT.md"), "---\nname: a\n---\n").unwrap();
        kb(
            root,
            "faq",
            "---\r\nname: faq\r\ndescription: 常见问题 \r\n---\r\n",
        );
        kb(
            root,
            "docs",
            "---\nname: docs\ndescription: 产品文档\n---\n正文不读\n",
        );
        kb(root, "nodesc", "---\nname: nodesc\n---\n");
        kb(root, "other", "---\nname: renamed\ndescription: x\n---\n");
        let links = root.join("agents/a/knowledge");
        symlink("../../../knowledge/faq", links.join("faq")).unwrap();
        symlink("../../../knowledge/docs", links.join("docs")).unwrap();
        symlink("../../../knowledge/nodesc", links.join("nodesc")).unwrap();
        symlink("../../../knowledge/other", links.join("other")).unwrap();
        symlink(root.join("knowledge/faq"), links.join("abs")).unwrap();
        symlink("../../../knowledge/gone", links.join("gone")).unwrap();
        symlink("../../../knowledge/docs", links.join("alias")).unwrap();
        let i = inspect(root, "a", Kind::Knowledge);
        let names: Vec<_> = i.bindings.iter().map(|b| b.name.as_str()).collect();
        assert_eq!(names, ["docs", "faq"]);
        assert_eq!(i.bindings[1].description, "常见问题");
        let skipped: Vec<_> = i.skipped.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(skipped, ["abs", "alias", "gone", "nodesc", "other"]);
        assert!(inspect(root, "b", Kind::Knowledge).bindings.is_empty());
    }

    #[test]
    fn a_skill_needs_a_body() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path();
        fs::create_dir_all(root.join("agents/a/skills")).unwrap();
        fs::write(root.join("agents/a/AGENT.md"), "x").unwrap();
        for (name, text) in [
            ("full", "---\nname: full\ndescription: d\n---\n\n  body\n"),
            ("empty", "---\nname: empty\ndescription: d\n---\n \n"),
        ] {
            fs::create_dir_all(root.join("skills").join(name)).unwrap();
            fs::write(root.join("skills").join(name).join("SKILL.md"), text).unwrap();
            symlink(
                format!("../../../skills/{name}"),
                root.join("agents/a/skills").join(name),
            )
            .unwrap();
        }
        let i = inspect(root, "a", Kind::Skill);
        assert_eq!(i.bindings.len(), 1);
        assert_eq!(
            i.bindings[0].link,
            absolute(&root.join("agents/a/skills/full"))
        );
        assert_eq!(i.skipped[0].1, "SKILL.md has no body");
    }
}
