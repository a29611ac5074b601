//! Settings: a JSON file in the user's config directory holding only what differs from the
//! defaults; environment variables and CLI flags override it for one run.

use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::episodic::{EpisodicSettings, MAX_EPISODIC_BUDGET, MAX_EPISODIC_TOP_K};
use crate::error::{CoreError, IoContext, Result};
use crate::memory::semantic::{RecallConfig, RecallMode};
use crate::memory::window::DEFAULT_ARCHIVAL_LIMIT;
use crate::memory::Backend;
pub use crate::root::DB_FILE;
pub use crate::runtime::install::Kind;
use crate::runtime::install::{self, Install};

pub const ENV_ROOT: &str = "ORYXOS_ROOT";
pub const ENV_DB: &str = "ORYXOS_DB";
pub const ENV_MEM0_URL: &str = "MEM0_BASE_URL";
pub const ENV_MEM0_KEY: &str = "MEM0_API_KEY";
pub const MIN_ARCHIVAL_LIMIT: usize = 100;
pub const MAX_ARCHIVAL_LIMIT: usize = 1_000_000;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Mem0Settings {
    pub base_url: Option<String>,
    pub user_id: String,
    pub api_key: Option<String>,
    pub timeout_ms: u64,
}

impl Default for Mem0Settings {
    fn default() -> Self {
        Mem0Settings {
            base_url: None,
            user_id: "oryxos".into(),
            api_key: None,
            timeout_ms: 10_000,
        }
    }
}

/// How recall finds entries: the mode, the similarity floor and how many entries
/// a semantic recall returns.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct RecallSettings {
    pub mode: RecallMode,
    pub floor: f32,
    pub limit: usize,
}

impl Default for RecallSettings {
    fn default() -> Self {
        let d = RecallConfig::default();
        RecallSettings {
            mode: d.mode,
            floor: d.floor,
            limit: d.limit,
        }
    }
}

impl From<RecallSettings> for RecallConfig {
    fn from(r: RecallSettings) -> Self {
        RecallConfig {
            mode: r.mode,
            floor: r.floor,
            limit: r.limit,
        }
    }
}

pub const MAX_RECALL_LIMIT: usize = 100;

/// What the console does on its own when archival entries pile up outside the window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AutoSummary {
    #[default]
    Off,
    /// A health finding (and the agents list's badge) offers the summary.
    Propose,
    /// The console appends the deterministic summary itself (originals kept; undoable).
    Apply,
}

/// The optional LLM summariser: an OpenAI-compatible chat endpoint. Unset fields fall back to
/// the agent's own provider (its model; a known provider's base URL and API key variable).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct LlmSettings {
    pub base_url: Option<String>,
    pub model: Option<String>,
    pub api_key: Option<String>,
    pub timeout_ms: u64,
}

impl Default for LlmSettings {
    fn default() -> Self {
        LlmSettings {
            base_url: None,
            model: None,
            api_key: None,
            timeout_ms: 60_000,
        }
    }
}

/// Summaries before the window cuts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct SummarySettings {
    pub auto: AutoSummary,
    /// Unsummarised archival entries outside the window that set the automatic mode off.
    pub auto_threshold: usize,
    pub llm: LlmSettings,
}

impl Default for SummarySettings {
    fn default() -> Self {
        SummarySettings {
            auto: AutoSummary::Off,
            auto_threshold: 50,
            llm: LlmSettings::default(),
        }
    }
}

pub const MIN_AUTO_SUMMARY_THRESHOLD: usize = 2;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Settings {
    /// The `.oryxos` root; `None` means the default `~/.oryxos`.
    pub root: Option<PathBuf>,
    /// The backend of a bare root. An install's backend is the runtime's `memory.backend`.
    pub backend: Backend,
    /// For an install: view this backend instead of the one the runtime runs (the agents keep
    /// using the runtime's; the console says so).
    pub backend_override: Option<Backend>,
    /// The runtime's database; `None` means the one the install's `spring.datasource.url`
    /// names, or `<root>/oryxos.db` for a bare root.
    pub db_path: Option<PathBuf>,
    pub archival_limit_chars: usize,
    pub footprint_enabled: bool,
    pub mem0: Mem0Settings,
    /// A MEMORY.md larger than this is not parsed whole for the console: it shows the window
    /// and pages through the entries by streaming (memory per request stays bounded).
    pub memory_full_parse_max_bytes: u64,
    pub recall: RecallSettings,
    pub episodic: EpisodicSettings,
    pub summary: SummarySettings,
}

/// 64 MiB: a whole parse of that takes about 150 MB of memory.
pub const DEFAULT_FULL_PARSE_MAX_BYTES: u64 = 64 << 20;
pub const MIN_FULL_PARSE_MAX_BYTES: u64 = 1024;

impl Default for Settings {
    fn default() -> Self {
        Settings {
            root: None,
            backend: Backend::Markdown,
            backend_override: None,
            db_path: None,
            archival_limit_chars: DEFAULT_ARCHIVAL_LIMIT,
            footprint_enabled: false,
            mem0: Mem0Settings::default(),
            memory_full_parse_max_bytes: DEFAULT_FULL_PARSE_MAX_BYTES,
            recall: RecallSettings::default(),
            episodic: EpisodicSettings::default(),
            summary: SummarySettings::default(),
        }
    }
}

impl Settings {
    pub fn validate(&self) -> Result<()> {
        if !(MIN_ARCHIVAL_LIMIT..=MAX_ARCHIVAL_LIMIT).contains(&self.archival_limit_chars) {
            return Err(CoreError::InvalidInput(format!(
                "archival window must be between {MIN_ARCHIVAL_LIMIT} and {MAX_ARCHIVAL_LIMIT} characters, got {}",
                self.archival_limit_chars
            )));
        }
        if self.memory_full_parse_max_bytes < MIN_FULL_PARSE_MAX_BYTES {
            return Err(CoreError::InvalidInput(format!(
                "memoryFullParseMaxBytes must be at least {MIN_FULL_PARSE_MAX_BYTES} bytes, got {}",
                self.memory_full_parse_max_bytes
            )));
        }
        if !(0.0..=1.0).contains(&self.recall.floor) {
            return Err(CoreError::InvalidInput(format!(
                "the recall floor is a cosine similarity between 0 and 1, got {}",
                self.recall.floor
            )));
        }
        if !(1..=MAX_RECALL_LIMIT).contains(&self.recall.limit) {
            return Err(CoreError::InvalidInput(format!(
                "recall returns between 1 and {MAX_RECALL_LIMIT} entries, got {}",
                self.recall.limit
            )));
        }
        if !(1..=MAX_EPISODIC_TOP_K).contains(&self.episodic.top_k) {
            return Err(CoreError::InvalidInput(format!(
                "the episodic part holds between 1 and {MAX_EPISODIC_TOP_K} fragments, got {}",
                self.episodic.top_k
            )));
        }
        if !(100..=MAX_EPISODIC_BUDGET).contains(&self.episodic.budget_chars) {
            return Err(CoreError::InvalidInput(format!(
                "the episodic budget is between 100 and {MAX_EPISODIC_BUDGET} characters, got {}",
                self.episodic.budget_chars
            )));
        }
        for (what, p) in [
            ("the .oryxos root", &self.root),
            ("the database path", &self.db_path),
        ] {
            if p.as_ref()
                .is_some_and(|p| p.as_os_str().as_encoded_bytes().contains(&0))
            {
                return Err(CoreError::InvalidInput(format!(
                    "{what} must not contain a NUL character"
                )));
            }
        }
        if let Some(root) = &self.root {
            if !root.is_absolute() {
                return Err(CoreError::InvalidInput(format!(
                    "the .oryxos root must be an absolute path, got {}",
                    root.display()
                )));
            }
        }
        if let Some(db) = &self.db_path {
            if !db.is_absolute() {
                return Err(CoreError::InvalidInput(format!(
                    "the database path must be absolute, got {}",
                    db.display()
                )));
            }
            if db.is_dir() {
                return Err(CoreError::InvalidInput(format!(
                    "the database path {} is a directory; name the oryxos.db file",
                    db.display()
                )));
            }
        }
        if let Some(url) = &self.mem0.base_url {
            let u = url.trim();
            if !(u.starts_with("http://") || u.starts_with("https://")) {
                return Err(CoreError::InvalidInput(format!(
                    "mem0 base URL must start with http:// or https://, got {url:?}"
                )));
            }
        }
        if self.mem0.user_id.trim().is_empty() {
            return Err(CoreError::InvalidInput(
                "mem0 user id must not be empty".into(),
            ));
        }
        if self.mem0.timeout_ms == 0 {
            return Err(CoreError::InvalidInput(
                "mem0 timeout must be positive".into(),
            ));
        }
        if self.summary.auto_threshold < MIN_AUTO_SUMMARY_THRESHOLD {
            return Err(CoreError::InvalidInput(format!(
                "automatic summaries start at {MIN_AUTO_SUMMARY_THRESHOLD} or more entries outside the window, got {}",
                self.summary.auto_threshold
            )));
        }
        if let Some(url) = &self.summary.llm.base_url {
            let u = url.trim();
            if !(u.starts_with("http://") || u.starts_with("https://")) {
                return Err(CoreError::InvalidInput(format!(
                    "the summariser's base URL must start with http:// or https://, got {url:?}"
                )));
            }
        }
        if self.summary.llm.timeout_ms == 0 {
            return Err(CoreError::InvalidInput(
                "the summariser's timeout must be positive".into(),
            ));
        }
        Ok(())
    }
}

/// `~` and `~/…` as a shell would read them: people type them, and a file dialog is not always
/// at hand (the browser console).
pub fn expand_home(p: &str) -> String {
    let home = || dirs::home_dir().map(|h| h.display().to_string());
    match p {
        "~" => home().unwrap_or_else(|| p.to_string()),
        _ => match (p.strip_prefix("~/"), home()) {
            (Some(rest), Some(h)) => format!("{}/{rest}", h.trim_end_matches('/')),
            _ => p.to_string(),
        },
    }
}

pub fn default_root() -> PathBuf {
    dirs::home_dir()
        .unwrap_or_else(|| PathBuf::from("."))
        .join(".oryxos")
}

/// Reads settings; a missing file is the defaults, a corrupt one is an error naming the file.
pub fn load(path: &Path) -> Result<Settings> {
    load_file(path)
}

/// Reads a settings file into `T`, which may hold more than [`Settings`] (the console keeps its
/// own preferences in the same file); keys `T` does not know are ignored.
pub fn load_file<T: DeserializeOwned + Default>(path: &Path) -> Result<T> {
    use std::io::Read;
    // Non-blocking open: a FIFO in place of the file is an error, not a hang.
    let Some(mut file) = crate::rooted_fs::open_read(path)? else {
        return Ok(T::default());
    };
    let mut text = String::new();
    file.read_to_string(&mut text).at(path)?;
    // Editors on Windows save JSON with a byte order mark; it is not part of the document.
    let text = text.strip_prefix('\u{FEFF}').unwrap_or(&text);
    serde_json::from_str(text).map_err(|e| {
        CoreError::Corrupt(format!(
            "settings file {} is not valid JSON ({e}); fix or delete it",
            path.display()
        ))
    })
}

/// Renames a broken settings file to `<name>.corrupt-<local time>` so nothing in it is lost;
/// returns where it went.
pub fn set_aside(path: &Path) -> Result<PathBuf> {
    let stamp = chrono::Local::now().format("%Y%m%d-%H%M%S");
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".corrupt-{stamp}"));
    let kept = path.with_file_name(name);
    std::fs::rename(path, &kept).at(path)?;
    Ok(kept)
}

/// Writes only the keys that differ from the defaults, atomically, readable by the owner only
/// (it may hold the mem0 API key).
pub fn save(path: &Path, settings: &Settings) -> Result<()> {
    settings.validate()?;
    save_file(path, settings)
}

/// [`save`] for a `T` that holds more than [`Settings`]; the caller validates.
pub fn save_file<T: Serialize + Default>(path: &Path, settings: &T) -> Result<()> {
    let value = non_defaults(settings);
    let text = serde_json::to_string_pretty(&value).expect("settings serialise");
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).at(dir)?;
    let mut tmp = tempfile::Builder::new()
        .prefix(".settings.")
        .tempfile_in(dir)
        .at(dir)?;
    use std::io::Write;
    tmp.write_all(text.as_bytes()).at(path)?;
    tmp.write_all(b"\n").at(path)?;
    tmp.as_file().sync_all().at(path)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o600)).at(path)?;
    }
    tmp.persist(path)
        .map_err(|e| CoreError::io(path, e.error))?;
    Ok(())
}

fn non_defaults<T: Serialize + Default>(settings: &T) -> serde_json::Value {
    let defaults = serde_json::to_value(T::default()).expect("defaults serialise");
    let mut value = serde_json::to_value(settings).expect("settings serialise");
    prune(&mut value, &defaults);
    value
}

fn prune(value: &mut serde_json::Value, defaults: &serde_json::Value) {
    if let (Some(map), Some(def)) = (value.as_object_mut(), defaults.as_object()) {
        map.retain(|k, v| {
            if let Some(d) = def.get(k) {
                prune(v, d);
                v != d && !(v.is_object() && v.as_object().is_some_and(|o| o.is_empty()))
            } else {
                true
            }
        });
    }
}

/// Overrides for one run (CLI flags), applied on top of the environment.
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    pub root: Option<PathBuf>,
    pub db_path: Option<PathBuf>,
    pub backend: Option<Backend>,
    pub mem0_url: Option<String>,
}

/// Settings with every default and override applied: what the services actually use.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Effective {
    pub root: PathBuf,
    pub db_path: PathBuf,
    pub backend: Backend,
    /// An install (the runtime's configuration decides) or a bare root (the settings decide).
    pub root_kind: Kind,
    /// The install dir holding the root, its database and `config/`.
    pub install_dir: Option<PathBuf>,
    /// The backend the runtime's agents use (an install only); `backend` differs from it when
    /// the console was told to view another one.
    pub runtime_backend: Option<Backend>,
    /// What made `backend` differ from the runtime's: `--backend` or `settings`.
    pub backend_override: Option<String>,
    pub archival_limit_chars: usize,
    pub footprint_enabled: bool,
    pub mem0_base_url: Option<String>,
    pub mem0_user_id: String,
    #[serde(skip)]
    pub mem0_api_key: Option<String>,
    pub mem0_timeout_ms: u64,
    pub memory_full_parse_max_bytes: u64,
    /// The OryxOS runtime reads this root: windows are cut by the runtime's rule for the
    /// backend, not by `archival_limit_chars`.
    pub runtime_windows: bool,
    /// The install's configuration as the runtime reads it (its recall engine's settings and
    /// embedding provider); `None` for a bare root.
    #[serde(skip)]
    pub runtime_config: Option<std::sync::Arc<crate::runtime::config::RuntimeConfig>>,
    #[serde(skip)]
    pub recall: RecallConfig,
    #[serde(skip)]
    pub episodic: EpisodicSettings,
}

fn env_path(name: &str) -> Option<PathBuf> {
    std::env::var_os(name)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

fn env_string(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

/// Relative paths from a flag or the environment are taken from the working directory, and
/// `.` parts dropped: `--root .` names the same owners (review marks, checks, indexes are keyed
/// by the path) as the folder's full path.
fn absolute(p: PathBuf) -> PathBuf {
    let p = if p.is_absolute() {
        p
    } else {
        std::env::current_dir().map(|d| d.join(&p)).unwrap_or(p)
    };
    p.components().collect()
}

/// For an install, the backend, the database and mem0 follow the runtime's configuration; a
/// `--backend` flag or the settings' `backendOverride` views another backend and says so.
pub fn effective(settings: &Settings, over: &Overrides) -> Effective {
    let given = over
        .root
        .clone()
        .or_else(|| env_path(ENV_ROOT))
        .map(absolute)
        .or_else(|| settings.root.clone())
        .unwrap_or_else(default_root);
    let located = install::locate(&given);
    let runtime = located.install_dir.as_deref().map(Install::read);
    let root = located.root;
    let db_path = over
        .db_path
        .clone()
        .or_else(|| env_path(ENV_DB))
        .map(absolute)
        .or_else(|| settings.db_path.clone())
        .or_else(|| {
            runtime
                .as_ref()
                .map(|i| i.database().unwrap_or_else(|| i.dir.join(DB_FILE)))
        })
        .unwrap_or_else(|| root.join(DB_FILE));
    let runtime_backend = runtime
        .as_ref()
        .map(|i| Backend::parse_lenient(i.config.backend()));
    let (backend, backend_override) = match (over.backend, runtime_backend) {
        (Some(b), _) => (b, Some("--backend".to_string())),
        (None, Some(rb)) => match settings.backend_override {
            Some(b) => (b, Some("settings".to_string())),
            None => (rb, None),
        },
        (None, None) => (settings.backend, None),
    };
    // The runtime's mem0 values where it has them; the settings' fill what it leaves empty.
    let rt_value = |key: &str| {
        runtime
            .as_ref()
            .map(|i| i.config.value(key).trim().to_string())
            .filter(|v| !v.is_empty())
    };
    use crate::runtime::config as rc;
    Effective {
        db_path,
        backend,
        root_kind: located.kind,
        install_dir: located.install_dir,
        runtime_backend,
        backend_override,
        archival_limit_chars: settings.archival_limit_chars,
        footprint_enabled: settings.footprint_enabled,
        mem0_base_url: over
            .mem0_url
            .clone()
            .or_else(|| rt_value(rc::MEM0_BASE_URL))
            .or_else(|| env_string(ENV_MEM0_URL))
            .or_else(|| settings.mem0.base_url.clone()),
        mem0_user_id: rt_value(rc::MEM0_USER_ID).unwrap_or_else(|| settings.mem0.user_id.clone()),
        mem0_api_key: rt_value(rc::MEM0_API_KEY)
            .or_else(|| env_string(ENV_MEM0_KEY))
            .or_else(|| settings.mem0.api_key.clone()),
        mem0_timeout_ms: settings.mem0.timeout_ms,
        memory_full_parse_max_bytes: settings.memory_full_parse_max_bytes,
        runtime_windows: located.kind == Kind::Install,
        runtime_config: runtime.map(|i| std::sync::Arc::new(i.config)),
        recall: settings.recall.into(),
        episodic: settings.episodic,
        root,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_root_given_with_dots_is_the_same_folder_as_its_full_path() {
        let dir = tempfile::tempdir().unwrap();
        let dotted = dir.path().join(".").join("x").join(".");
        assert_eq!(absolute(dotted), dir.path().join("x"));
    }

    #[test]
    fn only_non_defaults_are_stored_and_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cfg/settings.json");
        assert_eq!(load(&path).unwrap(), Settings::default());
        let s = Settings {
            backend: Backend::Sqlite,
            root: Some(dir.path().to_path_buf()),
            ..Settings::default()
        };
        save(&path, &s).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains("\"backend\": \"sqlite\""));
        assert!(!text.contains("archivalLimitChars"));
        assert!(!text.contains("mem0"));
        assert_eq!(load(&path).unwrap(), s);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600);
        }
    }

    /// Settings files written before the full-parse ceiling existed load with its default.
    #[test]
    fn the_full_parse_ceiling_defaults_and_is_validated() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        std::fs::write(&path, r#"{"backend": "markdown"}"#).unwrap();
        let s = load(&path).unwrap();
        assert_eq!(s.memory_full_parse_max_bytes, DEFAULT_FULL_PARSE_MAX_BYTES);
        std::fs::write(&path, r#"{"memoryFullParseMaxBytes": 4096}"#).unwrap();
        let s = load(&path).unwrap();
        assert_eq!(s.memory_full_parse_max_bytes, 4096);
        assert_eq!(
            effective(&s, &Overrides::default()).memory_full_parse_max_bytes,
            4096
        );
        let bad = Settings {
            memory_full_parse_max_bytes: 10,
            ..Settings::default()
        };
        let err = bad.validate().unwrap_err().to_string();
        assert!(err.contains("memoryFullParseMaxBytes"), "{err}");
    }

    #[test]
    fn corrupt_and_invalid_settings_are_clear_errors() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        std::fs::write(&path, "{ not json").unwrap();
        let err = load(&path).unwrap_err().to_string();
        assert!(err.contains("not valid JSON"), "{err}");
        let bad = Settings {
            archival_limit_chars: 5,
            ..Settings::default()
        };
        assert!(save(&path, &bad).is_err());
        let bad = Settings {
            root: Some(PathBuf::from("relative/root")),
            ..Settings::default()
        };
        assert!(bad.validate().is_err());
        let bad = Settings {
            db_path: Some(PathBuf::from("/tmp/a\0b.db")),
            ..Settings::default()
        };
        assert!(bad.validate().unwrap_err().to_string().contains("NUL"));
    }

    #[test]
    fn a_byte_order_mark_before_the_json_is_accepted() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        std::fs::write(
            &path,
            "\u{FEFF}{\"backend\": \"sqlite\", \"theme\": \"dark\"}\n",
        )
        .unwrap();
        let s = load(&path).unwrap();
        assert_eq!(s.backend, Backend::Sqlite);
        // The theme is the console's (oryx-api reads it from the same file).
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_in_place_of_the_settings_file_is_an_error_not_a_hang() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        crate::rooted_fs::test_support::mkfifo(&path);
        let err = crate::rooted_fs::test_support::within_deadline(move || load(&path)).unwrap_err();
        assert!(
            matches!(err, CoreError::NotRegularFile { kind, .. } if kind.contains("FIFO")),
            "{err}"
        );
    }

    #[test]
    fn overrides_win() {
        let s = Settings {
            root: Some(PathBuf::from("/from/settings")),
            ..Settings::default()
        };
        let e = effective(
            &s,
            &Overrides {
                root: Some(PathBuf::from("/flag/root")),
                ..Overrides::default()
            },
        );
        assert_eq!(e.root, PathBuf::from("/flag/root"));
        assert_eq!(e.db_path, PathBuf::from("/flag/root/oryxos.db"));
    }

    /// An install's database and backend are the runtime's; an override is reported.
    #[test]
    fn an_install_follows_the_runtime() {
        let dir = tempfile::tempdir().unwrap();
        let inst = dir.path();
        std::fs::create_dir_all(inst.join(".oryxos/agents")).unwrap();
        std::fs::create_dir_all(inst.join("config")).unwrap();
        std::fs::write(
            inst.join("config/application.yml"),
            "memory:\n  backend: sqlite\n  mem0:\n    user-id: team\n",
        )
        .unwrap();
        for given in [inst.to_path_buf(), inst.join(".oryxos")] {
            let s = Settings {
                root: Some(given),
                backend: Backend::Mem0,
                ..Settings::default()
            };
            let e = effective(&s, &Overrides::default());
            assert_eq!(e.root_kind, Kind::Install);
            assert_eq!(e.root, inst.join(".oryxos"));
            assert_eq!(e.db_path, inst.join("oryxos.db"));
            assert_eq!(e.backend, Backend::Sqlite);
            assert_eq!(e.runtime_backend, Some(Backend::Sqlite));
            assert_eq!(e.backend_override, None);
            assert_eq!(e.mem0_user_id, "team");
        }
        let s = Settings {
            root: Some(inst.to_path_buf()),
            backend_override: Some(Backend::Markdown),
            ..Settings::default()
        };
        let e = effective(&s, &Overrides::default());
        assert_eq!(e.backend, Backend::Markdown);
        assert_eq!(e.backend_override.as_deref(), Some("settings"));
        let e = effective(
            &s,
            &Overrides {
                backend: Some(Backend::Mem0),
                db_path: Some(inst.join("other.db")),
                ..Overrides::default()
            },
        );
        assert_eq!(e.backend, Backend::Mem0);
        assert_eq!(e.backend_override.as_deref(), Some("--backend"));
        assert_eq!(e.db_path, inst.join("other.db"));
    }

    #[test]
    fn a_set_aside_file_keeps_its_bytes_beside_the_original_name() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        std::fs::write(&path, "{\"backend\": \"sqlite\",").unwrap();
        let kept = set_aside(&path).unwrap();
        assert!(!path.exists());
        assert_eq!(kept.parent(), path.parent());
        let name = kept.file_name().unwrap().to_string_lossy().into_owned();
        assert!(name.starts_with("settings.json.corrupt-"), "{name}");
        assert_eq!(
            std::fs::read_to_string(&kept).unwrap(),
            "{\"backend\": \"sqlite\","
        );
        assert!(matches!(
            set_aside(&path).unwrap_err(),
            CoreError::Io { .. }
        ));
    }
}
