//! Whether the runtime loads an agent folder, by the rules of its agent loader. The runtime scans
//! every folder under `agents/` and skips (logging an error, nothing else) a folder whose
//! AGENT.md is missing or whose front matter does not give, after `${VAR}` resolution:
//! a text `name` equal to the folder's name, a `provider` mapping with a non-empty `name` and
//! `model`, a provider its registry holds, and schedules with a key and a name each (unique
//! keys; a legacy `id` equal to the key). Tools it does not know, an invalid cron or zone only
//! cost a warning or that one schedule: the agent still loads.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;
use serde_json::Value;

use crate::error::Result;
use crate::frontmatter;
use crate::warning::WarningCode as W;

/// Why the runtime skips an agent folder. Serialised snake_case; the UI has a sentence for each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum Refusal {
    AgentMdMissing,
    /// `detail`: why the console could not read it.
    AgentMdUnreadable,
    /// `detail`: the parser's message.
    FrontMatterInvalid,
    NameMissing,
    ProviderMissing,
    ProviderNameEmpty,
    ProviderModelEmpty,
    /// `provider`, `known`: the registry's names, comma separated.
    ProviderUnknown,
    /// `index`, `detail`: the schedule's problem.
    ScheduleInvalid,
    /// `declared`, `name`.
    NameMismatch,
}

/// One broken rule: its code, the values its sentence names, and the English sentence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Reason {
    pub code: Refusal,
    pub params: BTreeMap<String, String>,
    pub message: String,
}

impl Reason {
    fn new(code: Refusal, message: impl Into<String>) -> Self {
        Self {
            code,
            params: BTreeMap::new(),
            message: message.into(),
        }
    }

    fn with(mut self, key: &str, value: impl std::fmt::Display) -> Self {
        self.params.insert(key.to_string(), value.to_string());
        self
    }
}

/// What the loader's rules say of one folder before its provider registry is asked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
pub struct Assessment {
    /// The rules it breaks, in the order the runtime checks them (the registry check apart).
    pub refusals: Vec<Reason>,
    /// The provider it names, when the provider section is complete.
    pub provider: Option<String>,
}

/// Whether the runtime loads the agent, and the first rule that stops it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RuntimeLoad {
    pub loads: bool,
    pub reason: Option<Reason>,
    /// False when neither the runtime's registry nor a list of its providers was known: the
    /// provider's existence was then not checked.
    pub provider_checked: bool,
}

impl Assessment {
    /// The verdict with the runtime's provider names (`None`: unknown, the check is skipped).
    pub fn against(&self, providers: Option<&[String]>) -> RuntimeLoad {
        let unknown = match (providers, &self.provider) {
            (Some(known), Some(p)) if !known.iter().any(|k| k == p) => Some(
                Reason::new(
                    Refusal::ProviderUnknown,
                    format!(
                        "provider {p:?} is not in the runtime's provider registry (it has: {})",
                        if known.is_empty() {
                            "none".to_string()
                        } else {
                            known.join(", ")
                        }
                    ),
                )
                .with("provider", p)
                .with("known", known.join(", ")),
            ),
            _ => None,
        };
        // The registry is asked right after the provider's own fields, before schedules and
        // the folder name.
        let reason = self
            .refusals
            .iter()
            .filter(|r| r.code < Refusal::ProviderUnknown)
            .chain(unknown.as_ref())
            .chain(
                self.refusals
                    .iter()
                    .filter(|r| r.code > Refusal::ProviderUnknown),
            )
            .next()
            .cloned();
        RuntimeLoad {
            loads: reason.is_none(),
            reason,
            provider_checked: providers.is_some(),
        }
    }
}

/// A folder without AGENT.md.
pub fn missing() -> Assessment {
    one(Reason::new(
        Refusal::AgentMdMissing,
        "AGENT.md is missing: the runtime skips this folder",
    ))
}

/// A folder whose AGENT.md the console could not read.
pub fn unreadable(detail: &str) -> Assessment {
    one(Reason::new(
        Refusal::AgentMdUnreadable,
        format!("AGENT.md cannot be read ({detail}): the runtime cannot load it either"),
    )
    .with("detail", detail))
}

fn one(r: Reason) -> Assessment {
    Assessment {
        refusals: vec![r],
        provider: None,
    }
}

/// The loader's rules applied to AGENT.md's text in folder `dir_name`, placeholders resolved
/// with `lookup`.
pub fn assess(text: &str, dir_name: &str, lookup: &dyn Fn(&str) -> Option<String>) -> Assessment {
    let mut out = Assessment::default();
    let fm_text = split(text);
    let fm = match fm_text.as_deref().map(frontmatter::parse) {
        None => Value::Object(Default::default()),
        Some(Ok(v)) => v,
        // A document that is not a mapping reads as no front matter, so as no name.
        Some(Err(frontmatter::FrontMatterError::NotAMapping)) => Value::Object(Default::default()),
        Some(Err(e)) => {
            return one(Reason::new(
                Refusal::FrontMatterInvalid,
                format!("AGENT.md's front matter does not parse: {e}"),
            )
            .with("detail", e));
        }
    };
    let fm = frontmatter::resolve_placeholders(&fm, lookup);
    let name = match fm.get("name") {
        Some(Value::String(s))
            if !s.trim().is_empty()
                && !fm_text
                    .as_deref()
                    .and_then(|t| plain_scalar(t, "name"))
                    .is_some_and(|raw| yaml11_not_text(&raw)) =>
        {
            Some(s.clone())
        }
        _ => None,
    };
    let Some(name) = name else {
        out.refusals.push(Reason::new(
            Refusal::NameMissing,
            "AGENT.md's front matter has no text `name`: the runtime skips this folder",
        ));
        return out;
    };
    match fm.get("provider") {
        Some(Value::Object(p)) => {
            let pname = java_text(p.get("name"));
            let model = java_text(p.get("model"));
            if pname.as_deref().is_none_or(|s| s.trim().is_empty()) {
                out.refusals.push(Reason::new(
                    Refusal::ProviderNameEmpty,
                    "provider.name is empty: the runtime skips this agent",
                ));
            } else if model.as_deref().is_none_or(|s| s.trim().is_empty()) {
                out.refusals.push(Reason::new(
                    Refusal::ProviderModelEmpty,
                    "provider.model is empty: the runtime skips this agent",
                ));
            } else {
                out.provider = pname;
            }
        }
        _ => out.refusals.push(Reason::new(
            Refusal::ProviderMissing,
            "AGENT.md has no `provider` section (name and model): the runtime skips this agent",
        )),
    }
    if !out.refusals.is_empty() {
        return out;
    }
    let schedules = fm.get("schedules").cloned().unwrap_or(Value::Null);
    if let Some(w) = crate::agents::parse_schedules(&schedules)
        .1
        .into_iter()
        .find(|w| {
            matches!(
                w.code,
                W::ScheduleIdKeyDiffer
                    | W::ScheduleNoKey
                    | W::ScheduleNoName
                    | W::ScheduleKeyDuplicate
            )
        })
    {
        let index = w.params.get("index").cloned().unwrap_or_default();
        out.refusals.push(
            Reason::new(Refusal::ScheduleInvalid, w.message.clone())
                .with("index", index)
                .with("detail", &w.message),
        );
        return out;
    }
    if name != dir_name {
        out.refusals.push(
            Reason::new(
                Refusal::NameMismatch,
                format!(
                    "AGENT.md's name {name:?} is not the folder's {dir_name:?}: the runtime skips it"
                ),
            )
            .with("declared", &name)
            .with("name", dir_name),
        );
    }
    out
}

/// The front matter as the runtime's splitter finds it: the first line is `---` (surrounding
/// whitespace aside, but a byte-order mark is not whitespace to it), the next such line closes
/// it (`...` does not); otherwise there is none.
fn split(text: &str) -> Option<String> {
    let normalized = text.replace("\r\n", "\n").replace('\r', "\n");
    let lines: Vec<&str> = normalized.split('\n').collect();
    if lines.first().map(|l| l.trim()) != Some("---") {
        return None;
    }
    let close = lines.iter().skip(1).position(|l| l.trim() == "---")? + 1;
    Some(lines[1..close].join("\n"))
}

/// A scalar as the runtime turns it into text: missing or null is none, anything else its
/// written form (a list or a mapping included: it is not empty).
fn java_text(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        other => Some(other.to_string()),
    }
}

/// The unquoted value of a top-level `key:` line, when it is written plain on that line.
fn plain_scalar(fm: &str, key: &str) -> Option<String> {
    for line in fm.lines() {
        let Some(rest) = [key.to_string(), format!("\"{key}\""), format!("'{key}'")]
            .iter()
            .find_map(|k| line.strip_prefix(k.as_str()))
        else {
            continue;
        };
        let Some(value) = rest.trim_start().strip_prefix(':') else {
            continue;
        };
        let value = match value.find(" #") {
            Some(i) => &value[..i],
            None => value,
        }
        .trim();
        if value.is_empty() || value.starts_with(['"', '\'', '|', '>', '&', '!', '[', '{']) {
            return None;
        }
        return Some(value.to_string());
    }
    None
}

/// Whether the runtime's YAML parser (YAML 1.1 rules) reads a plain scalar as something other
/// than text: a boolean (`yes`, `on`, `off`, …), a number (`1_000`, `0x1f`, `1e3`), null or a
/// date. Such a `name` is refused although it looks like text here.
fn yaml11_not_text(raw: &str) -> bool {
    use std::sync::OnceLock;
    static RES: OnceLock<Vec<(&'static str, regex::Regex)>> = OnceLock::new();
    let res = RES.get_or_init(|| {
        [
            ("yYnNtTfFoO", r"^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$"),
            ("-+0123456789", r"^(?:[-+]?0b_*[0-1]+[0-1_]*|[-+]?0_*[0-7]+[0-7_]*|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x_*[0-9a-fA-F]+[0-9a-fA-F_]*|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$"),
            ("-+0123456789.", r"^(?:[-+]?(?:\.[0-9]+|[0-9_]+(?:\.[0-9_]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"),
            ("~nN", r"^(?:~|null|Null|NULL)$"),
            ("0123456789", r"^(?:[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]|[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?(?:[Tt]|[ \t]+)[0-9][0-9]?:[0-9][0-9]:[0-9][0-9](?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)$"),
        ]
        .into_iter()
        .map(|(first, re)| (first, regex::Regex::new(re).expect("a valid pattern")))
        .collect()
    });
    let Some(c) = raw.chars().next() else {
        return true;
    };
    res.iter()
        .any(|(first, re)| first.contains(c) && re.is_match(raw))
}

/// The provider names of the runtime's registry (the `providers` table of its database), sorted
/// as the runtime sorts them; `None` when the database has no registry yet.
pub fn registry_names(db_path: &Path) -> Result<Option<Vec<String>>> {
    Ok(crate::runtime::providers::registry(db_path)?.map(|rows| {
        let mut names: Vec<String> = rows.into_iter().map(|r| r.name).collect();
        names.sort();
        names
    }))
}

/// The provider the runtime writes into a new agent when none is chosen: the registry's first
/// name in sorted order (blank names aside), else `deepseek`, its own fallback.
pub fn default_provider(names: Option<&[String]>) -> String {
    names
        .into_iter()
        .flatten()
        .filter(|n| !n.trim().is_empty())
        .min()
        .cloned()
        .unwrap_or_else(|| "deepseek".to_string())
}

/// Whether the runtime loads agent `name` of `root`, its registry read from `db_path` (without
/// a registry the provider's existence is not checked). False for a folder that does not exist.
pub fn loads(root: &Path, db_path: &Path, name: &str) -> Result<bool> {
    let dir = crate::names::agent_dir(root, name);
    if crate::names::resolve_strict(root, Some(name)).is_err() || !dir.is_dir() {
        return Ok(false);
    }
    let names = registry_names(db_path)?;
    let agent = crate::agents::get(root, name)?;
    Ok(agent.runtime.against(names.as_deref()).loads)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_env(_: &str) -> Option<String> {
        None
    }

    fn code(text: &str, dir: &str, providers: Option<&[String]>) -> Option<Refusal> {
        assess(text, dir, &no_env)
            .against(providers)
            .reason
            .map(|r| r.code)
    }

    const OK: &str = "---\nname: a\nprovider:\n  name: openai\n  model: gpt-4o\n---\nbody\n";

    #[test]
    fn each_rule_has_its_reason() {
        let known = ["openai".to_string()];
        let k = Some(&known[..]);
        assert_eq!(code(OK, "a", k), None);
        assert_eq!(code(OK, "b", k), Some(Refusal::NameMismatch));
        assert_eq!(code("no front matter", "a", k), Some(Refusal::NameMissing));
        assert_eq!(code("---\nname: a\n", "a", k), Some(Refusal::NameMissing));
        assert_eq!(
            code("---\nname: [x\n---\n", "a", k),
            Some(Refusal::FrontMatterInvalid)
        );
        assert_eq!(code("---\n- a\n---\n", "a", k), Some(Refusal::NameMissing));
        assert_eq!(
            code("---\nname: a\n---\n", "a", k),
            Some(Refusal::ProviderMissing)
        );
        assert_eq!(
            code("---\nname: a\nprovider: openai\n---\n", "a", k),
            Some(Refusal::ProviderMissing)
        );
        assert_eq!(
            code("---\nname: a\nprovider:\n  model: m\n---\n", "a", k),
            Some(Refusal::ProviderNameEmpty)
        );
        assert_eq!(
            code(
                "---\nname: a\nprovider:\n  name: openai\n  model: ' '\n---\n",
                "a",
                k
            ),
            Some(Refusal::ProviderModelEmpty)
        );
        let other = "---\nname: a\nprovider:\n  name: other\n  model: m\n---\n";
        assert_eq!(code(other, "a", k), Some(Refusal::ProviderUnknown));
        // Without a registry the provider is not checked, and the verdict says so.
        let v = assess(other, "a", &no_env).against(None);
        assert!(v.loads && !v.provider_checked);
        let sched = "---\nname: a\nprovider:\n  name: openai\n  model: m\nschedules:\n  - key: k\n    cron: '0 0 9 * * *'\n---\n";
        assert_eq!(code(sched, "a", k), Some(Refusal::ScheduleInvalid));
        // A bad cron or an unknown tool does not stop the agent.
        let cron = "---\nname: a\nprovider:\n  name: openai\n  model: m\ntools: [nope]\nschedules:\n  - key: k\n    name: K\n    cron: 'every day'\n---\n";
        assert_eq!(code(cron, "a", k), None);
        // The registry comes before schedules and the folder's name, as the runtime checks.
        let both = "---\nname: b\nprovider:\n  name: other\n  model: m\n---\n";
        assert_eq!(code(both, "a", k), Some(Refusal::ProviderUnknown));
    }

    #[test]
    fn the_runtimes_yaml_and_splitter() {
        let k = Some(&["openai".to_string()][..]);
        let with_name =
            |n: &str| format!("---\nname: {n}\nprovider:\n  name: openai\n  model: m\n---\n");
        for n in ["yes", "on", "123", "1_000", "0x1f", "1e3", "2024-01-01"] {
            assert_eq!(code(&with_name(n), n, k), Some(Refusal::NameMissing), "{n}");
        }
        for n in ["\"yes\"", "'123'"] {
            assert_eq!(code(&with_name(n), &n[1..n.len() - 1], k), None, "{n}");
        }
        for n in ["y", "n", "_", "agent-1", "a1e3"] {
            assert_eq!(code(&with_name(n), n, k), None, "{n}");
        }
        // A byte-order mark and a `...` closing fence are not front matter to the runtime.
        assert_eq!(
            code(&format!("\u{feff}{OK}"), "a", k),
            Some(Refusal::NameMissing)
        );
        assert_eq!(
            code(&OK.replacen("---\nbody", "...\nbody", 1), "a", k),
            Some(Refusal::NameMissing)
        );
        assert_eq!(code(&OK.replace('\n', "\r\n"), "a", k), None);
    }

    #[test]
    fn placeholders_are_resolved_first() {
        let text =
            "---\nname: ${AGENT}\nprovider:\n  name: ${PROVIDER}\n  model: ${MODEL:gpt}\n---\n";
        let env = |v: &str| match v {
            "AGENT" => Some("a".to_string()),
            "PROVIDER" => Some("openai".to_string()),
            _ => None,
        };
        let a = assess(text, "a", &env);
        assert_eq!(a.provider.as_deref(), Some("openai"));
        assert!(a.against(Some(&["openai".into()])).loads);
        // Unresolved, the name stays `${AGENT}`: not the folder's.
        assert_eq!(
            assess(text, "a", &no_env)
                .against(None)
                .reason
                .unwrap()
                .code,
            Refusal::NameMismatch
        );
    }

    #[test]
    fn default_provider_is_the_first_name() {
        assert_eq!(default_provider(None), "deepseek");
        assert_eq!(default_provider(Some(&[])), "deepseek");
        assert_eq!(
            default_provider(Some(&["openai".into(), " ".into(), "mock".into()])),
            "mock"
        );
    }
}
