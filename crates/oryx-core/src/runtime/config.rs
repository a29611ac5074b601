//! The runtime's configuration, read in the order its Spring Boot startup reads it: the jar's
//! defaults, then the install's `config/application.yml` (loaded through
//! `-Dspring.config.additional-location`, so it beats the jar's file), then environment
//! variables, then `-D` system properties of the running process. `${VAR:default}` placeholders
//! are resolved against all of those, as Spring does. Spring's relaxed binding is followed for
//! the keys the console reads: `top-k`, `topK` and `top_k` are one key, and the environment
//! variable `MEMORY_RECALL_TOPK` sets it.
//!
//! `--name=value` arguments after `serve` are not read: the runtime's serve command starts
//! Spring with an empty argument array, so they never reach its environment.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

/// The runtime version the defaults below were read from.
pub const RUNTIME_VERSION: &str = "a27474c";

/// The keys the console reads, in kebab case (the runtime's canonical spelling).
pub const BACKEND: &str = "memory.backend";
pub const TOP_K: &str = "memory.recall.top-k";
pub const WEIGHT_SEMANTIC: &str = "memory.recall.weight.semantic";
pub const WEIGHT_KEYWORD: &str = "memory.recall.weight.keyword";
pub const WEIGHT_RECENCY: &str = "memory.recall.weight.recency";
pub const MEM0_BASE_URL: &str = "memory.mem0.base-url";
pub const MEM0_USER_ID: &str = "memory.mem0.user-id";
pub const MEM0_API_KEY: &str = "memory.mem0.api-key";
pub const EMBEDDING_PROVIDER: &str = "embedding.provider";
pub const EMBEDDING_MODEL: &str = "embedding.model";
pub const ROOT: &str = "oryxos.root";
pub const DATASOURCE_URL: &str = "spring.datasource.url";

/// Each key with the runtime's default at a27474c. A default may itself be a placeholder, as the
/// runtime writes it. Sources: `oryxos-boot/src/main/resources/application.yml` (the jar's file)
/// where it sets the key, else the `@Value("${key:default}")` in
/// `oryxos-cli/src/main/java/io/oryxos/cli/OryxOsRuntime.java`.
pub const DEFAULTS: &[(&str, &str)] = &[
    // jar application.yml (the @Value default is the same: markdown)
    (BACKEND, "markdown"),
    // @Value in OryxOsRuntime.memoryService
    (TOP_K, "20"),
    (WEIGHT_SEMANTIC, "1.0"),
    (WEIGHT_KEYWORD, "1.0"),
    (WEIGHT_RECENCY, "1.0"),
    // jar application.yml
    (MEM0_BASE_URL, "${MEM0_BASE_URL:}"),
    (MEM0_USER_ID, "${MEM0_USER_ID:oryxos}"),
    // @Value in OryxOsRuntime.longTermMemoryStore
    (MEM0_API_KEY, ""),
    // @Value in OryxOsRuntime: the old knowledge.embedding.* keys are still read
    (EMBEDDING_PROVIDER, "${knowledge.embedding.provider:}"),
    (EMBEDDING_MODEL, "${knowledge.embedding.model:}"),
    // @Value in OryxOsRuntime.oryxosRootProp
    (ROOT, ".oryxos"),
    // jar application.yml
    (DATASOURCE_URL, "jdbc:sqlite:oryxos.db"),
];

/// The jar's `oryxos.providers` (name, api-key, base-url), used when the install's file has none.
pub const DEFAULT_PROVIDERS: &[(&str, &str, &str)] = &[(
    "deepseek",
    "${DEEPSEEK_API_KEY:}",
    "https://api.deepseek.com",
)];

/// The backends the runtime's `memory.backend` switch knows; anything else is markdown there.
pub const BACKENDS: &[&str] = &["markdown", "sqlite", "mem0"];

/// Where a value came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    Default,
    File,
    Env,
    Cmdline,
}

impl Source {
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Default => "default",
            Source::File => "file",
            Source::Env => "env",
            Source::Cmdline => "cmdline",
        }
    }
}

/// One value the runtime sees, with placeholders resolved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Setting {
    pub value: String,
    /// The layer that set it, or a higher one a placeholder in it took its value from (an
    /// environment variable in `${MEM0_BASE_URL:}`: that variable is what to change).
    pub source: Source,
}

/// One entry of `oryxos.providers`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProviderConf {
    pub name: String,
    pub api_key: Option<String>,
    pub base_url: Option<String>,
}

/// What the runtime's environment holds besides its files: environment variables and `-D`
/// system properties (those of the running process when it is known).
#[derive(Debug, Clone, Default)]
pub struct Context {
    pub env: BTreeMap<String, String>,
    pub sysprops: BTreeMap<String, String>,
}

impl Context {
    /// The console's own environment, no system properties: what a runtime started from this
    /// shell would see.
    pub fn console() -> Context {
        Context {
            env: std::env::vars().collect(),
            sysprops: BTreeMap::new(),
        }
    }
}

/// The configuration as the runtime reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct RuntimeConfig {
    /// `config/application.yml` of the install (it may not exist).
    pub file: PathBuf,
    pub file_exists: bool,
    values: BTreeMap<&'static str, Setting>,
    pub providers: Vec<ProviderConf>,
    pub providers_source: Source,
    /// Problems the runtime would meet; never fatal for the console.
    pub warnings: Vec<String>,
}

impl RuntimeConfig {
    /// A known key's value (one of the constants above).
    pub fn get(&self, key: &str) -> &Setting {
        self.values
            .get(key)
            .unwrap_or_else(|| panic!("{key} is not a key the console reads"))
    }

    pub fn value(&self, key: &str) -> &str {
        &self.get(key).value
    }

    pub fn values(&self) -> impl Iterator<Item = (&'static str, &Setting)> {
        self.values.iter().map(|(k, v)| (*k, v))
    }

    /// The backend the runtime runs: its switch matches the exact text, anything else is
    /// markdown.
    pub fn backend(&self) -> &'static str {
        let v = self.value(BACKEND);
        BACKENDS
            .iter()
            .find(|b| **b == v)
            .copied()
            .unwrap_or("markdown")
    }

    /// The database file `spring.datasource.url` names, relative to the install dir (the
    /// runtime's working directory); `None` for a URL that names no file.
    pub fn database(&self, install_dir: &Path) -> Option<PathBuf> {
        database_of_url(self.value(DATASOURCE_URL), install_dir)
    }

    /// The workspace root `oryxos.root` names, relative to the install dir.
    pub fn root(&self, install_dir: &Path) -> PathBuf {
        install_dir.join(self.value(ROOT))
    }
}

/// `jdbc:sqlite:oryxos.db?x=y` → `<dir>/oryxos.db`; `None` for an in-memory database or a URL
/// that is not SQLite's.
pub fn database_of_url(url: &str, dir: &Path) -> Option<PathBuf> {
    let rest = url.trim().strip_prefix("jdbc:sqlite:")?;
    let rest = rest.split('?').next().unwrap_or_default();
    let rest = rest.strip_prefix("file:").unwrap_or(rest);
    if rest.is_empty() || rest == ":memory:" || rest.starts_with(":resource:") {
        return None;
    }
    Some(dir.join(rest))
}

/// Reads `<install_dir>/config/application.yml` (a missing file is the jar's defaults).
pub fn read(install_dir: &Path, ctx: &Context) -> RuntimeConfig {
    let file = install_dir.join("config").join("application.yml");
    let text = match std::fs::read(&file) {
        Ok(bytes) => Some(String::from_utf8_lossy(&bytes).into_owned()),
        Err(_) => None,
    };
    from_text(&file, text.as_deref(), ctx)
}

/// [`read`] over the file's text (`None`: no file).
pub fn from_text(file: &Path, text: Option<&str>, ctx: &Context) -> RuntimeConfig {
    let mut warnings = Vec::new();
    let mut file_map = BTreeMap::new();
    let mut file_providers = None;
    if let Some(text) = text {
        match serde_yaml_ng::from_str::<serde_yaml_ng::Value>(text) {
            Ok(doc) => {
                flatten(&doc, "", &mut file_map);
                file_providers = providers_in(&doc);
            }
            Err(e) => {
                let at = e
                    .location()
                    .map(|l| format!(" at line {}", l.line()))
                    .unwrap_or_default();
                warnings.push(format!(
                    "{}{at} is not YAML the runtime can parse ({e}); the runtime would not start \
                     with it, and the console shows the runtime's defaults",
                    file.display()
                ));
            }
        }
    }
    let layers = Layers {
        file: file_map,
        ctx,
    };
    let mut values = BTreeMap::new();
    let mut unresolved = Vec::new();
    for (key, _) in DEFAULTS {
        let (raw, source) = layers.raw(key).expect("every key has a default");
        let mut via = Source::Default;
        let value = layers.resolve(&raw, 0, &mut unresolved, &mut via);
        let source = source.max(via);
        values.insert(*key, Setting { value, source });
    }
    let (providers, providers_source) = match file_providers {
        Some(list) => (list, Source::File),
        None => (
            DEFAULT_PROVIDERS
                .iter()
                .map(|(n, k, u)| ProviderConf {
                    name: n.to_string(),
                    api_key: Some(k.to_string()),
                    base_url: Some(u.to_string()),
                })
                .collect(),
            Source::Default,
        ),
    };
    let providers = providers
        .into_iter()
        .map(|p| {
            let mut ignore = Source::Default;
            let mut r = |s: Option<String>| {
                s.map(|s| layers.resolve(&s, 0, &mut unresolved, &mut ignore))
                    .filter(|s| !s.is_empty())
            };
            ProviderConf {
                name: p.name,
                api_key: r(p.api_key),
                base_url: r(p.base_url),
            }
        })
        .collect();
    unresolved.sort();
    unresolved.dedup();
    for name in unresolved {
        warnings.push(format!(
            "the placeholder ${{{name}}} has no value and no default: the runtime refuses to \
             start when a bean needs it"
        ));
    }
    let cfg = RuntimeConfig {
        file: file.to_path_buf(),
        file_exists: text.is_some(),
        values,
        providers,
        providers_source,
        warnings,
    };
    let mut cfg = cfg;
    let backend = cfg.value(BACKEND).to_string();
    if !BACKENDS.contains(&backend.as_str()) {
        cfg.warnings.push(format!(
            "memory.backend is {backend:?}, which the runtime does not know: it runs the \
             markdown backend"
        ));
    }
    cfg
}

/// One property name compared as Spring's relaxed binding compares it: by element, lower case,
/// without dashes and underscores.
pub fn canonical(name: &str) -> String {
    name.split('.')
        .map(|e| {
            e.chars()
                .filter(|c| *c != '-' && *c != '_')
                .flat_map(char::to_lowercase)
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join(".")
}

/// The environment variables Spring maps to a property: `MEMORY_RECALL_TOPK` for
/// `memory.recall.top-k` (and the property's own spelling, which it also looks up).
fn env_names(name: &str) -> Vec<String> {
    let under = name.replace('.', "_");
    vec![
        name.to_string(),
        under.clone(),
        under.to_uppercase(),
        under.replace('-', "").to_uppercase(),
    ]
}

struct Layers<'a> {
    /// Canonical names → raw values of the install's file.
    file: BTreeMap<String, String>,
    ctx: &'a Context,
}

impl Layers<'_> {
    /// The raw value of a property and the layer it comes from, highest first.
    fn raw(&self, name: &str) -> Option<(String, Source)> {
        let c = canonical(name);
        if let Some(v) = self
            .ctx
            .sysprops
            .iter()
            .find(|(k, _)| canonical(k) == c)
            .map(|(_, v)| v)
        {
            return Some((v.clone(), Source::Cmdline));
        }
        // A property name with dots maps to an environment variable; a bare name (MEM0_BASE_URL
        // in a placeholder) is looked up as it is.
        if let Some(v) = env_names(name).iter().find_map(|n| self.ctx.env.get(n)) {
            return Some((v.clone(), Source::Env));
        }
        if let Some(v) = self.file.get(&c) {
            return Some((v.clone(), Source::File));
        }
        DEFAULTS
            .iter()
            .find(|(k, _)| canonical(k) == c)
            // A default that is only the alias is not a value of its own.
            .map(|(_, v)| (v.to_string(), Source::Default))
    }

    /// Resolves `${name:default}` placeholders (nested ones too) in `raw`.
    fn resolve(
        &self,
        raw: &str,
        depth: usize,
        unresolved: &mut Vec<String>,
        via: &mut Source,
    ) -> String {
        if depth > 16 {
            return raw.to_string(); // a cycle; Spring reports it at startup
        }
        let mut out = String::new();
        let mut rest = raw;
        while let Some(start) = rest.find("${") {
            out.push_str(&rest[..start]);
            let body_start = start + 2;
            let Some(end) = matching_brace(&rest[body_start..]) else {
                out.push_str(&rest[start..]);
                return out;
            };
            let body = &rest[body_start..body_start + end];
            let (name, default) = split_default(body);
            match self.raw(name) {
                Some((v, source)) => {
                    if source >= Source::Env {
                        *via = (*via).max(source);
                    }
                    out.push_str(&self.resolve(&v, depth + 1, unresolved, via));
                }
                None => match default {
                    Some(d) => out.push_str(&self.resolve(d, depth + 1, unresolved, via)),
                    None => {
                        unresolved.push(name.to_string());
                        out.push_str(&rest[start..body_start + end + 1]);
                    }
                },
            }
            rest = &rest[body_start + end + 1..];
        }
        out.push_str(rest);
        out
    }
}

/// The index of the `}` closing a placeholder body (nested `${…}` skipped).
fn matching_brace(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'$' && b.get(i + 1) == Some(&b'{') {
            depth += 1;
            i += 2;
            continue;
        }
        if b[i] == b'}' {
            if depth == 0 {
                return Some(i);
            }
            depth -= 1;
        }
        i += 1;
    }
    None
}

/// `name:default` at the first colon outside a nested placeholder.
fn split_default(body: &str) -> (&str, Option<&str>) {
    let b = body.as_bytes();
    let mut depth = 0usize;
    for i in 0..b.len() {
        match b[i] {
            b'{' if i > 0 && b[i - 1] == b'$' => depth += 1,
            b'}' if depth > 0 => depth -= 1,
            b':' if depth == 0 => return (&body[..i], Some(&body[i + 1..])),
            _ => {}
        }
    }
    (body, None)
}

fn scalar(v: &serde_yaml_ng::Value) -> Option<String> {
    use serde_yaml_ng::Value as Y;
    match v {
        Y::Null => Some(String::new()),
        Y::Bool(b) => Some(b.to_string()),
        Y::Number(n) => Some(n.to_string()),
        Y::String(s) => Some(s.clone()),
        _ => None,
    }
}

/// Dotted canonical names of every scalar (`a.b[0].c`).
fn flatten(v: &serde_yaml_ng::Value, prefix: &str, out: &mut BTreeMap<String, String>) {
    use serde_yaml_ng::Value as Y;
    match v {
        Y::Mapping(m) => {
            for (k, child) in m {
                let Some(k) = scalar(k) else { continue };
                let name = if prefix.is_empty() {
                    k
                } else {
                    format!("{prefix}.{k}")
                };
                flatten(child, &name, out);
            }
        }
        Y::Sequence(s) => {
            for (i, child) in s.iter().enumerate() {
                flatten(child, &format!("{prefix}[{i}]"), out);
            }
        }
        Y::Tagged(t) => flatten(&t.value, prefix, out),
        _ => {
            if let Some(s) = scalar(v) {
                out.insert(canonical(prefix), s);
            }
        }
    }
}

/// `oryxos.providers` of a parsed file, when it has the key.
fn providers_in(doc: &serde_yaml_ng::Value) -> Option<Vec<ProviderConf>> {
    let oryxos = child(doc, "oryxos")?;
    let list = child(oryxos, "providers")?;
    let items = list.as_sequence().cloned().unwrap_or_default();
    Some(
        items
            .iter()
            .filter_map(|item| {
                let get = |k: &str| child(item, k).and_then(scalar).filter(|s| !s.is_empty());
                Some(ProviderConf {
                    name: get("name")?,
                    api_key: get("api-key"),
                    base_url: get("base-url"),
                })
            })
            .collect(),
    )
}

/// A mapping's child by relaxed name.
fn child<'v>(v: &'v serde_yaml_ng::Value, name: &str) -> Option<&'v serde_yaml_ng::Value> {
    let want = canonical(name);
    v.as_mapping()?
        .iter()
        .find(|(k, _)| scalar(k).is_some_and(|k| canonical(&k) == want))
        .map(|(_, v)| v)
}

/// Atomic replace that keeps the file's permissions (it holds API keys).
pub fn write_file(path: &Path, text: &str) -> crate::error::Result<()> {
    use std::io::Write;
    let dir = path.parent().unwrap_or(Path::new("."));
    let perms = std::fs::metadata(path).ok().map(|m| m.permissions());
    let mut tmp = tempfile::Builder::new()
        .prefix(".application.yml.")
        .tempfile_in(dir)
        .map_err(|e| crate::error::CoreError::io(dir, e))?;
    tmp.write_all(text.as_bytes())
        .and_then(|_| tmp.as_file().sync_all())
        .map_err(|e| crate::error::CoreError::io(path, e))?;
    if let Some(p) = perms {
        std::fs::set_permissions(tmp.path(), p)
            .map_err(|e| crate::error::CoreError::io(path, e))?;
    }
    tmp.persist(path)
        .map_err(|e| crate::error::CoreError::io(path, e.error))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx(env: &[(&str, &str)], sys: &[(&str, &str)]) -> Context {
        Context {
            env: env
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            sysprops: sys
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        }
    }

    fn cfg(text: Option<&str>, c: &Context) -> RuntimeConfig {
        from_text(Path::new("/i/config/application.yml"), text, c)
    }

    #[test]
    fn no_file_is_the_jars_defaults() {
        let c = cfg(None, &ctx(&[], &[]));
        assert_eq!(c.get(BACKEND).value, "markdown");
        assert_eq!(c.get(BACKEND).source, Source::Default);
        assert_eq!(c.value(TOP_K), "20");
        assert_eq!(c.value(MEM0_USER_ID), "oryxos");
        assert_eq!(c.value(MEM0_BASE_URL), "");
        assert_eq!(c.value(EMBEDDING_PROVIDER), "");
        assert_eq!(c.value(ROOT), ".oryxos");
        assert_eq!(
            c.database(Path::new("/i")),
            Some(PathBuf::from("/i/oryxos.db"))
        );
        assert_eq!(c.providers_source, Source::Default);
        assert_eq!(c.providers[0].name, "deepseek");
        assert_eq!(c.providers[0].api_key, None);
        assert!(c.warnings.is_empty(), "{:?}", c.warnings);
    }

    #[test]
    fn the_file_then_env_then_system_properties() {
        let yaml = "memory:\n  backend: sqlite\n  recall:\n    topK: 7\n    weight:\n      semantic: 2.5\n";
        let c = cfg(Some(yaml), &ctx(&[], &[]));
        assert_eq!(c.get(BACKEND).source, Source::File);
        assert_eq!(c.backend(), "sqlite");
        assert_eq!(c.value(TOP_K), "7");
        assert_eq!(c.value(WEIGHT_SEMANTIC), "2.5");
        let c = cfg(
            Some(yaml),
            &ctx(
                &[("MEMORY_BACKEND", "mem0"), ("MEMORY_RECALL_TOPK", "3")],
                &[],
            ),
        );
        assert_eq!(c.get(BACKEND).value, "mem0");
        assert_eq!(c.get(BACKEND).source, Source::Env);
        assert_eq!(c.get(TOP_K).value, "3");
        let c = cfg(
            Some(yaml),
            &ctx(
                &[("MEMORY_BACKEND", "mem0")],
                &[("memory.backend", "markdown")],
            ),
        );
        assert_eq!(c.get(BACKEND).source, Source::Cmdline);
        assert_eq!(c.backend(), "markdown");
    }

    #[test]
    fn placeholders_resolve_from_env_keys_and_defaults() {
        let yaml = "memory:\n  mem0:\n    base-url: ${MEM0_BASE_URL:}\n    user-id: ${MEM0_USER_ID:oryxos}\n    api-key: ${NOPE}\nknowledge:\n  embedding:\n    provider: zhipu\n";
        let c = cfg(Some(yaml), &ctx(&[("MEM0_BASE_URL", "http://m:8888")], &[]));
        assert_eq!(c.get(MEM0_BASE_URL).value, "http://m:8888");
        assert_eq!(c.get(MEM0_BASE_URL).source, Source::Env);
        assert_eq!(c.get(MEM0_USER_ID).value, "oryxos");
        assert_eq!(c.get(MEM0_USER_ID).source, Source::File);
        // The old knowledge.embedding.* key through the runtime's nested default.
        assert_eq!(c.value(EMBEDDING_PROVIDER), "zhipu");
        assert_eq!(c.value(MEM0_API_KEY), "${NOPE}");
        assert!(
            c.warnings.iter().any(|w| w.contains("${NOPE}")),
            "{:?}",
            c.warnings
        );
    }

    #[test]
    fn broken_yaml_and_unknown_backends_are_warnings() {
        let c = cfg(Some("memory:\n  backend: [\n"), &ctx(&[], &[]));
        assert!(c.warnings[0].contains("line"), "{:?}", c.warnings);
        assert_eq!(c.backend(), "markdown");
        let c = cfg(Some("memory:\n  backend: SQLite\n"), &ctx(&[], &[]));
        assert_eq!(c.backend(), "markdown");
        assert!(c.warnings[0].contains("markdown"), "{:?}", c.warnings);
    }

    #[test]
    fn providers_of_the_file_replace_the_jars_list() {
        let yaml = "oryxos:\n  providers:\n    - name: deepseek\n      api-key: ${K:sk-abc}\n      base-url: https://x\n    - name: mock\n";
        let c = cfg(Some(yaml), &ctx(&[], &[]));
        assert_eq!(c.providers_source, Source::File);
        assert_eq!(c.providers.len(), 2);
        assert_eq!(c.providers[0].api_key.as_deref(), Some("sk-abc"));
        assert_eq!(c.providers[1].name, "mock");
    }

    #[test]
    fn datasource_urls() {
        let d = Path::new("/i");
        assert_eq!(
            database_of_url("jdbc:sqlite:data/x.db?journal_mode=WAL", d),
            Some(PathBuf::from("/i/data/x.db"))
        );
        assert_eq!(
            database_of_url("jdbc:sqlite:/abs/x.db", d),
            Some(PathBuf::from("/abs/x.db"))
        );
        assert_eq!(database_of_url("jdbc:sqlite::memory:", d), None);
        assert_eq!(database_of_url("jdbc:h2:mem", d), None);
    }
}
