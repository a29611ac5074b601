//! Settings get/update with validation, root inspection, and the sample root.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use oryx_core::config::{self, Settings, ENV_DB, ENV_MEM0_KEY, ENV_MEM0_URL, ENV_ROOT};
use oryx_core::warning::{Warning, WarningCode};
use oryx_core::workspace;

use crate::console::Console;
use crate::dto::{EffectiveDto, Mem0Status, RootInspection, SettingsDto, SettingsView, WarningDto};
use crate::error::{ApiError, ApiResult};
use crate::events::{ChangeEvent, ChangeKind};
use crate::services::Services;

pub use crate::settings_file::{Language, Preferences, SettingsFile, Theme};

impl Console {
    /// Validates, builds the new services, saves atomically, then swaps: a failure changes
    /// nothing.
    pub fn replace_settings(&self, file: SettingsFile) -> ApiResult<Arc<Services>> {
        file.settings.validate()?;
        let services = Arc::new(Services::build(
            file.clone(),
            self.overrides(),
            &self.index_dir(),
        )?);
        file.save(self.settings_path())?;
        self.swap_services(services.clone());
        // Subscribers follow the new root and database from here on; then they refetch.
        self.events().follow(&services);
        self.events().publish(ChangeEvent {
            kind: ChangeKind::Settings,
            agent: None,
        });
        Ok(services)
    }

    pub fn get_settings(&self) -> ApiResult<SettingsView> {
        let rt = self.services();
        Ok(self.view(&rt.settings, &rt.preferences, &rt.effective))
    }

    /// Replaces the stored settings; an empty API key field keeps the stored key.
    pub fn update_settings(&self, dto: &SettingsDto) -> ApiResult<SettingsView> {
        let rt = self.services();
        let current = rt.settings.clone();
        let mut file = from_dto(dto, &current)?;
        // A value in effect only because a flag or an environment variable overrides it comes
        // back with the rest of the form: it is not the user's choice, so it is not stored.
        let env_set = |k: &str| std::env::var_os(k).is_some_and(|v| !v.is_empty());
        let o = self.overrides();
        if (o.root.is_some() || env_set(ENV_ROOT))
            && file.settings.root.as_deref() == Some(rt.effective.root.as_path())
        {
            file.settings.root = current.root.clone();
        }
        if (o.db_path.is_some() || env_set(ENV_DB))
            && file.settings.db_path.as_deref() == Some(rt.effective.db_path.as_path())
        {
            file.settings.db_path = current.db_path.clone();
        }
        if (o.mem0_url.is_some() || env_set(ENV_MEM0_URL))
            && file.settings.mem0.base_url.is_some()
            && file.settings.mem0.base_url == rt.effective.mem0_base_url
        {
            file.settings.mem0.base_url = current.mem0.base_url.clone();
        }
        drop(rt);
        crate::recall::check_mode(file.settings.recall.mode)?;
        if file.settings.episodic.enabled {
            crate::recall::check_model("episodic memory")?;
        }
        if let Some(root) = &file.settings.root {
            if !workspace::is_folder(root) {
                return Err(ApiError::invalid(format!(
                    "{} is not a folder; type the full path of an existing .oryxos root (Inspect \
                     shows what a folder holds)",
                    root.display()
                )));
            }
        }
        let rt = self.replace_settings(file)?;
        Ok(self.view(&rt.settings, &rt.preferences, &rt.effective))
    }

    fn view(&self, s: &Settings, p: &Preferences, e: &config::Effective) -> SettingsView {
        let o = self.overrides();
        let mut overridden_by = Vec::new();
        let env_set = |k: &str| std::env::var_os(k).is_some_and(|v| !v.is_empty());
        if o.root.is_some() {
            overridden_by.push("--root".to_string());
        } else if env_set(ENV_ROOT) {
            overridden_by.push(ENV_ROOT.to_string());
        }
        if o.db_path.is_some() {
            overridden_by.push("--db".to_string());
        } else if env_set(ENV_DB) {
            overridden_by.push(ENV_DB.to_string());
        }
        if o.backend.is_some() {
            overridden_by.push("--backend".to_string());
        }
        if o.mem0_url.is_some() {
            overridden_by.push("--mem0-url".to_string());
        } else if env_set(ENV_MEM0_URL) {
            overridden_by.push(ENV_MEM0_URL.to_string());
        }
        if env_set(ENV_MEM0_KEY) {
            overridden_by.push(ENV_MEM0_KEY.to_string());
        }
        let first_run = s.root.is_none()
            && o.root.is_none()
            && !env_set(ENV_ROOT)
            && !workspace::is_folder(&e.root);
        SettingsView {
            limits: crate::dto::SettingsLimitsDto {
                archival_limit_min: config::MIN_ARCHIVAL_LIMIT as u32,
                archival_limit_max: config::MAX_ARCHIVAL_LIMIT as u32,
                recall_limit_max: config::MAX_RECALL_LIMIT as u32,
            },
            settings: to_dto(s, p),
            effective: EffectiveDto {
                root: e.root.display().to_string(),
                db_path: e.db_path.display().to_string(),
                backend: e.backend.into(),
                settings_path: self.settings_path().display().to_string(),
                overridden_by,
                first_run,
                root_problem: oryx_core::rooted_fs::root_problem(&e.root),
                backend_problem: self.services().memory.store().problem(),
                mem0_base_url: e.mem0_base_url.clone(),
                notice: self.notice(),
                root_kind: e.root_kind.as_str().to_string(),
                install_dir: e.install_dir.as_ref().map(|d| d.display().to_string()),
                runtime_backend: e.runtime_backend.map(Into::into),
                backend_override: e.backend_override.clone(),
            },
        }
    }

    /// Makes the root in effect a root on purpose (`--create-root`): the folder and its
    /// `agents/`. Writes never create a missing root on their own.
    pub fn create_root(&self) -> ApiResult<RootInspection> {
        let rt = self.services();
        oryx_core::rooted_fs::create_root(rt.root())?;
        // A root that did not exist could not be watched: live refresh starts now.
        self.events().follow(&rt);
        Ok(inspect(rt.root(), &rt.effective.db_path))
    }

    /// Tries the mem0 settings being edited (before they are saved).
    pub fn test_mem0(&self, dto: &SettingsDto) -> ApiResult<Mem0Status> {
        let file = from_dto(dto, &self.services().settings)?;
        let e = config::effective(&file.settings, self.overrides());
        let cfg = crate::services::mem0_config(&e)?;
        let store = oryx_core::memory::Mem0MemoryStore::new(cfg.clone());
        Ok(match store.ping() {
            Ok(n) => Mem0Status {
                base_url: cfg.base_url,
                ok: true,
                global_entries: Some(n as u32),
                message: format!("connected; the global memory holds {n} entries"),
            },
            Err(err) => Mem0Status {
                base_url: cfg.base_url,
                ok: false,
                global_entries: None,
                message: err.to_string(),
            },
        })
    }

    /// What a folder holds, so Settings can show it before the user switches to it.
    pub fn inspect_root(&self, path: &str, db_path: Option<&str>) -> ApiResult<RootInspection> {
        let root = absolute_input(path, "root")?;
        // An install (or its .oryxos) is inspected as the console will open it: its root, and
        // the database its runtime's spring.datasource.url names.
        let located = oryx_core::runtime::install::locate(&root);
        let db = match db_path.filter(|d| !d.trim().is_empty()) {
            Some(d) => absolute_input(d, "database path")?,
            None => match &located.install_dir {
                Some(dir) => oryx_core::runtime::install::Install::read(dir)
                    .database()
                    .unwrap_or_else(|| dir.join(config::DB_FILE)),
                None => root.join(config::DB_FILE),
            },
        };
        Ok(inspect(&located.root, &db))
    }
}

/// Writes the sample root into an empty or new folder and returns what it holds. Needs no
/// settings, so the first-run screen and `oryx demo` can call it before anything is configured.
pub fn create_sample_root(path: &str) -> ApiResult<RootInspection> {
    let root = absolute_input(path, "sample root")?;
    oryx_core::demo::write_sample(&root)?;
    let root = workspace::canonical_or_same(root);
    Ok(inspect(&root, &root.join(config::DB_FILE)))
}

/// Writes a sample runtime install (`.oryxos/`, `oryxos.db` beside it, `config/`) into an empty
/// or new folder; the inspection is of its root and database.
pub fn create_sample_install(path: &str) -> ApiResult<RootInspection> {
    let dir = absolute_input(path, "sample install")?;
    oryx_core::demo::write_install(&dir)?;
    let dir = workspace::canonical_or_same(dir);
    Ok(inspect(&dir.join(".oryxos"), &dir.join(config::DB_FILE)))
}

fn absolute_input(path: &str, what: &str) -> ApiResult<PathBuf> {
    let p = path.trim();
    if p.is_empty() || p.contains('\0') {
        return Err(ApiError::invalid(format!("the {what} must not be empty")));
    }
    let p = PathBuf::from(config::expand_home(p));
    if !p.is_absolute() {
        return Err(ApiError::invalid(format!(
            "the {what} must be an absolute path (starting with / or ~/): a relative one would \
             mean another folder for the console and for the runtime; got {}",
            p.display()
        )));
    }
    Ok(p)
}

pub fn inspect(root: &Path, db: &Path) -> RootInspection {
    let s = workspace::survey_root(root, db);
    let mut warnings = Vec::new();
    if !s.exists {
        warnings.push(Warning::new(
            WarningCode::RootMissing,
            "folder does not exist",
        ));
    } else if !s.is_dir {
        warnings.push(Warning::new(WarningCode::RootNotFolder, "not a folder"));
    } else if !s.agents_listed {
        warnings.push(Warning::new(
            WarningCode::RootNoAgents,
            "no agents/ folder: this does not look like a .oryxos root",
        ));
    }
    RootInspection {
        path: root.display().to_string(),
        exists: s.exists,
        is_dir: s.is_dir,
        agents: s.agents,
        memory_files: s.memory_files,
        has_global_memory: s.has_global_memory,
        bootstrap_files: s.bootstrap_files,
        db_path: db.display().to_string(),
        db_exists: s.db_exists,
        warnings: warnings.iter().map(WarningDto::from).collect(),
    }
}

fn to_dto(s: &Settings, p: &Preferences) -> SettingsDto {
    SettingsDto {
        root: s.root.as_ref().map(|p| p.display().to_string()),
        backend: s.backend.into(),
        backend_override: s.backend_override.map(Into::into),
        db_path: s.db_path.as_ref().map(|p| p.display().to_string()),
        archival_limit_chars: s.archival_limit_chars as u32,
        footprint_enabled: s.footprint_enabled,
        mem0_base_url: s.mem0.base_url.clone(),
        mem0_user_id: s.mem0.user_id.clone(),
        mem0_api_key: None,
        mem0_api_key_set: s.mem0.api_key.is_some(),
        mem0_timeout_ms: s.mem0.timeout_ms as u32,
        recall_mode: s.recall.mode.into(),
        recall_floor: crate::dto::score(s.recall.floor),
        recall_limit: s.recall.limit as u32,
        episodic_enabled: s.episodic.enabled,
        episodic_top_k: s.episodic.top_k as u32,
        episodic_budget_chars: s.episodic.budget_chars as u32,
        summary_auto: s.summary.auto.into(),
        summary_auto_threshold: s.summary.auto_threshold as u32,
        summary_llm_base_url: s.summary.llm.base_url.clone(),
        summary_llm_model: s.summary.llm.model.clone(),
        summary_llm_api_key: None,
        summary_llm_api_key_set: s.summary.llm.api_key.is_some(),
        summary_llm_timeout_ms: s.summary.llm.timeout_ms as u32,
        language: p.language.into(),
        theme: p.theme.into(),
    }
}

fn non_blank(s: &Option<String>) -> Option<String> {
    s.as_ref()
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty())
}

fn from_dto(d: &SettingsDto, current: &Settings) -> ApiResult<SettingsFile> {
    let api_key = match non_blank(&d.mem0_api_key) {
        Some(k) => Some(k),
        None if d.mem0_api_key_set => current.mem0.api_key.clone(),
        None => None,
    };
    let s = Settings {
        root: non_blank(&d.root).map(|p| PathBuf::from(config::expand_home(&p))),
        backend: d.backend.into(),
        backend_override: d.backend_override.map(Into::into),
        db_path: non_blank(&d.db_path).map(|p| PathBuf::from(config::expand_home(&p))),
        archival_limit_chars: d.archival_limit_chars as usize,
        footprint_enabled: d.footprint_enabled,
        mem0: config::Mem0Settings {
            base_url: non_blank(&d.mem0_base_url),
            user_id: d.mem0_user_id.trim().to_string(),
            api_key,
            timeout_ms: d.mem0_timeout_ms as u64,
        },
        // Not on the settings screen: kept as the settings file has it.
        memory_full_parse_max_bytes: current.memory_full_parse_max_bytes,
        recall: config::RecallSettings {
            mode: d.recall_mode.into(),
            floor: d.recall_floor as f32,
            limit: d.recall_limit as usize,
        },
        episodic: oryx_core::episodic::EpisodicSettings {
            enabled: d.episodic_enabled,
            top_k: d.episodic_top_k as usize,
            budget_chars: d.episodic_budget_chars as usize,
        },
        summary: config::SummarySettings {
            auto: d.summary_auto.into(),
            auto_threshold: d.summary_auto_threshold as usize,
            llm: config::LlmSettings {
                base_url: non_blank(&d.summary_llm_base_url),
                model: non_blank(&d.summary_llm_model),
                api_key: match non_blank(&d.summary_llm_api_key) {
                    Some(k) => Some(k),
                    None if d.summary_llm_api_key_set => current.summary.llm.api_key.clone(),
                    None => None,
                },
                timeout_ms: d.summary_llm_timeout_ms as u64,
            },
        },
    };
    s.validate()?;
    Ok(SettingsFile {
        settings: s,
        preferences: Preferences {
            language: d.language.into(),
            theme: d.theme.into(),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use oryx_core::memory::Backend;

    #[test]
    fn an_inspected_root_says_what_is_wrong_with_a_code() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("file");
        std::fs::write(&file, "x").unwrap();
        let db = dir.path().join("oryxos.db");
        let seen = |p: &Path| {
            inspect(p, &db)
                .warnings
                .into_iter()
                .map(|w| (w.code, w.message))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            seen(&dir.path().join("nope")),
            [(WarningCode::RootMissing, "folder does not exist".into())]
        );
        assert_eq!(
            seen(&file),
            [(WarningCode::RootNotFolder, "not a folder".into())]
        );
        assert_eq!(
            seen(dir.path()),
            [(
                WarningCode::RootNoAgents,
                "no agents/ folder: this does not look like a .oryxos root".into()
            )]
        );
        std::fs::create_dir(dir.path().join("agents")).unwrap();
        assert!(seen(dir.path()).is_empty());
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
        let s = SettingsFile::load(&path).unwrap();
        assert_eq!(s.settings.backend, Backend::Sqlite);
        assert_eq!(s.preferences.theme, Theme::Dark);
    }

    #[test]
    fn a_settings_file_of_earlier_versions_loads_and_saves_to_the_same_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        // What the console wrote when the preferences were part of the core's settings (keys
        // sorted: the file is written from a `serde_json::Value`, whose maps are ordered).
        let before = "{\n  \"archivalLimitChars\": 8000,\n  \"backend\": \"sqlite\",\n  \
                      \"language\": \"zh\",\n  \"mem0\": {\n    \"userId\": \"me\"\n  },\n  \
                      \"root\": \"/data/.oryxos\",\n  \"theme\": \"dark\"\n}\n";
        std::fs::write(&path, before).unwrap();
        let file = SettingsFile::load(&path).unwrap();
        assert_eq!(file.settings.backend, Backend::Sqlite);
        assert_eq!(file.settings.archival_limit_chars, 8000);
        assert_eq!(file.settings.mem0.user_id, "me");
        assert_eq!(
            file.preferences,
            Preferences {
                language: Language::Zh,
                theme: Theme::Dark
            }
        );
        std::fs::remove_file(&path).unwrap();
        file.save(&path).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), before);
        // The core alone reads the same file and ignores the preferences.
        assert_eq!(config::load(&path).unwrap(), file.settings);
    }

    #[test]
    fn an_overridden_root_sent_back_with_the_form_is_not_stored() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        oryx_core::demo::write_sample(&root).unwrap();
        let path = dir.path().join("settings.json");
        let c = Console::open(
            Some(path.clone()),
            oryx_core::config::Overrides {
                root: Some(root.clone()),
                ..Default::default()
            },
        )
        .unwrap();
        let view = c.get_settings().unwrap();
        assert_eq!(view.effective.overridden_by, vec!["--root".to_string()]);
        // What the form sends when only the backend changed: the root it shows, in effect.
        let mut dto = view.settings;
        dto.root = Some(view.effective.root.clone());
        dto.backend = crate::dto::BackendDto::Sqlite;
        c.update_settings(&dto).unwrap();
        let stored: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(stored["backend"], "sqlite");
        assert!(stored.get("root").is_none_or(|r| r.is_null()), "{stored}");
        // A root the user types is stored.
        let other = dir.path().join("other");
        std::fs::create_dir_all(&other).unwrap();
        dto.root = Some(other.display().to_string());
        c.update_settings(&dto).unwrap();
        let stored: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(stored["root"], other.display().to_string());
    }

    #[test]
    fn a_path_typed_with_a_tilde_is_read_from_home_and_a_relative_one_says_why_not() {
        let home = dirs_home();
        assert_eq!(config::expand_home("~"), home);
        assert_eq!(config::expand_home("~/x/y"), format!("{home}/x/y"));
        assert_eq!(config::expand_home("a/~/b"), "a/~/b");
        let (_d, c) = crate::test_support::demo_console();
        assert_eq!(c.inspect_root("~", None).unwrap().path, home);
        let e = c.inspect_root("relative/root", None).unwrap_err();
        assert_eq!(e.code, crate::ErrorCode::InvalidInput);
        assert!(
            e.message.contains("absolute path (starting with / or ~/)"),
            "{}",
            e.message
        );
    }

    fn dirs_home() -> String {
        std::env::var("HOME")
            .unwrap()
            .trim_end_matches('/')
            .to_string()
    }
}
