//! The console's shared state: settings and the services built from them. A settings change
//! builds a new runtime and swaps it in, so every view switches at once without a restart.

use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use oryx_core::config::{self, Effective, Overrides, Settings};
use oryx_core::memory::{
    Backend, LongTermMemoryStore, MarkdownMemoryStore, Mem0Config, Mem0MemoryStore, MemoryService,
    SqliteMemoryStore,
};
use oryx_core::names::{self, Owner};
use oryx_core::sessions::SessionStore;
use oryx_core::CoreError;

use crate::error::ApiResult;

/// Services for one configuration.
pub struct Runtime {
    pub settings: Settings,
    pub effective: Effective,
    pub memory: MemoryService,
    pub sessions: SessionStore,
}

impl Runtime {
    pub fn build(settings: Settings, overrides: &Overrides) -> ApiResult<Runtime> {
        let effective = config::effective(&settings, overrides);
        let store = open_store(&effective)?;
        let memory = MemoryService::new(store, effective.archival_limit_chars);
        let sessions = SessionStore::new(&effective.db_path);
        Ok(Runtime {
            settings,
            effective,
            memory,
            sessions,
        })
    }

    pub fn root(&self) -> &Path {
        &self.effective.root
    }

    /// Console path: an invalid or unknown agent is an error.
    pub fn owner(&self, agent: Option<&str>) -> ApiResult<Owner> {
        Ok(names::resolve_strict(self.root(), agent)?)
    }

    /// Where an owner's entries are stored, for display.
    pub fn source(&self, owner: &Owner) -> String {
        match self.effective.backend {
            Backend::Markdown => names::memory_path(self.root(), owner).display().to_string(),
            Backend::Sqlite => format!(
                "{} (memory_entries, agent_name = {})",
                self.effective.db_path.display(),
                owner.db_key()
            ),
            Backend::Mem0 => self.effective.mem0_base_url.clone().unwrap_or_default(),
        }
    }
}

pub fn open_store(e: &Effective) -> ApiResult<Arc<dyn LongTermMemoryStore>> {
    Ok(match e.backend {
        Backend::Markdown => Arc::new(MarkdownMemoryStore::new(&e.root)),
        Backend::Sqlite => Arc::new(SqliteMemoryStore::new(&e.db_path)),
        Backend::Mem0 => Arc::new(Mem0MemoryStore::new(mem0_config(e)?)),
    })
}

/// The mem0 settings in effect; a missing base URL is a clear error, not a silent default.
pub fn mem0_config(e: &Effective) -> ApiResult<Mem0Config> {
    let Some(base_url) = e.mem0_base_url.clone().filter(|u| !u.trim().is_empty()) else {
        return Err(CoreError::InvalidInput(
            "the mem0 backend needs a base URL: set it in Settings, with --mem0-url or MEM0_BASE_URL".into(),
        )
        .into());
    };
    Ok(Mem0Config {
        base_url,
        user_id: e.mem0_user_id.clone(),
        api_key: e.mem0_api_key.clone(),
        timeout: std::time::Duration::from_millis(e.mem0_timeout_ms),
    })
}

pub struct Console {
    settings_path: PathBuf,
    overrides: Overrides,
    runtime: RwLock<Arc<Runtime>>,
}

impl Console {
    /// Opens with the settings file at `settings_path` (the default location when `None`).
    pub fn open(settings_path: Option<PathBuf>, overrides: Overrides) -> ApiResult<Console> {
        let settings_path = settings_path.unwrap_or_else(config::default_settings_path);
        let settings = config::load(&settings_path)?;
        let runtime = Runtime::build(settings, &overrides)?;
        Ok(Console {
            settings_path,
            overrides,
            runtime: RwLock::new(Arc::new(runtime)),
        })
    }

    pub fn runtime(&self) -> Arc<Runtime> {
        self.runtime
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    pub fn settings_path(&self) -> &Path {
        &self.settings_path
    }

    pub fn overrides(&self) -> &Overrides {
        &self.overrides
    }

    /// Validates, builds the new runtime, saves atomically, then swaps: a failure changes nothing.
    pub fn replace_settings(&self, settings: Settings) -> ApiResult<Arc<Runtime>> {
        settings.validate()?;
        let runtime = Arc::new(Runtime::build(settings.clone(), &self.overrides)?);
        config::save(&self.settings_path, &settings)?;
        *self.runtime.write().unwrap_or_else(|p| p.into_inner()) = runtime.clone();
        Ok(runtime)
    }
}
