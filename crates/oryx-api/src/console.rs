//! The console's shared state: settings and the services built from them. A settings change
//! builds a new runtime and swaps it in, so every view switches at once without a restart.

use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use oryx_core::config::{self, Effective, Overrides, Settings};
use oryx_core::memory::{Backend, LongTermMemoryStore, Mem0Config, MemoryService};
use oryx_core::names::{self, Owner};
use oryx_core::sessions::SessionStore;
use oryx_core::CoreError;

use crate::error::ApiResult;
use crate::settings::{Preferences, SettingsFile};

/// Services for one configuration.
pub struct Runtime {
    pub settings: Settings,
    pub preferences: Preferences,
    pub effective: Effective,
    pub memory: MemoryService,
    pub sessions: SessionStore,
    /// Past sessions' fragments by meaning, in the same vector file as the memory entries.
    pub episodic: Option<Arc<oryx_core::episodic::EpisodicIndex>>,
    /// Parsed memory views for the paged memory screen.
    pub page_cache: crate::view_cache::PageCache,
}

impl Runtime {
    /// `index_dir`: where the console keeps its indexes (beside the settings file).
    pub fn build(
        file: SettingsFile,
        overrides: &Overrides,
        index_dir: &Path,
    ) -> ApiResult<Runtime> {
        let SettingsFile {
            settings,
            preferences,
        } = file;
        let effective = config::effective(&settings, overrides);
        let memory = oryx_core::memory::open_memory(&effective, index_dir)?;
        let sessions = SessionStore::new(&effective.db_path);
        let episodic = memory
            .semantic_index()
            .map(|i| Arc::new(oryx_core::episodic::EpisodicIndex::new(i.vectors().clone())));
        Ok(Runtime {
            episodic,
            settings,
            preferences,
            effective,
            memory,
            sessions,
            page_cache: Default::default(),
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
        self.memory.store().location(owner)
    }
}

pub fn open_store(e: &Effective, index_dir: &Path) -> ApiResult<Arc<dyn LongTermMemoryStore>> {
    Ok(oryx_core::memory::open_store(e, index_dir)?)
}

impl Console {
    /// The store of `backend` over the root and database in effect (a migration's source or
    /// target, an import's target); `None`: the store in use.
    pub(crate) fn store_of(
        &self,
        rt: &Runtime,
        backend: Option<crate::dto::BackendDto>,
    ) -> ApiResult<Arc<dyn LongTermMemoryStore>> {
        match backend {
            Some(b) => {
                let mut e = config::effective(&rt.settings, self.overrides());
                e.backend = b.into();
                open_store(&e, &self.index_dir())
            }
            None => Ok(rt.memory.store().clone()),
        }
    }
}

/// The mem0 settings in effect; a missing base URL is a clear error, not a silent default.
pub fn mem0_config(e: &Effective) -> ApiResult<Mem0Config> {
    Ok(oryx_core::memory::open::mem0_config(e)?)
}

pub struct Console {
    settings_path: PathBuf,
    overrides: Overrides,
    runtime: RwLock<Arc<Runtime>>,
    notice: RwLock<Option<String>>,
    migration: crate::exclusive::MigrationSlot,
    index_job: Arc<crate::recall::IndexJobSlot>,
    transfers: Arc<crate::transfer::Transfers>,
    events: crate::watch::Events,
}

impl Console {
    /// Opens with the settings file at `settings_path` (the default location when `None`).
    pub fn open(settings_path: Option<PathBuf>, overrides: Overrides) -> ApiResult<Console> {
        let settings_path = settings_path.unwrap_or_else(crate::config_dir::default_settings_path);
        let file = SettingsFile::load(&settings_path)?;
        let index_dir = crate::config_dir::index_dir_beside(&settings_path);
        let runtime = Runtime::build(file, &overrides, &index_dir)?;
        Ok(Console::with(settings_path, overrides, runtime, None))
    }

    /// For the desktop app, which has no terminal to print an error to and must open on
    /// whatever it finds: a settings file that is not valid JSON is set aside (renamed, never
    /// deleted) and the defaults are used; settings whose backend cannot start (mem0 without a
    /// URL) open on the markdown backend. The notice says what happened, for the UI to show.
    pub fn open_recovering(
        settings_path: Option<PathBuf>,
        overrides: Overrides,
    ) -> ApiResult<Console> {
        let settings_path = settings_path.unwrap_or_else(crate::config_dir::default_settings_path);
        let (file, mut notice) = match config::load_file::<SettingsFile>(&settings_path) {
            Ok(s) => (s, None),
            Err(CoreError::Corrupt(why)) => {
                let kept = config::set_aside(&settings_path)?;
                let notice = format!(
                    "{why}. It was kept as {} and the defaults are in use until you save Settings.",
                    kept.display()
                );
                (SettingsFile::default(), Some(notice))
            }
            Err(e) => return Err(e.into()),
        };
        let index_dir = crate::config_dir::index_dir_beside(&settings_path);
        let runtime = match Runtime::build(file.clone(), &overrides, &index_dir) {
            Ok(rt) => rt,
            Err(e) if file.settings.backend != Backend::Markdown => {
                let wanted = file.settings.backend.as_str();
                notice = Some(format!(
                    "The {wanted} backend could not start ({}); showing the markdown backend. \
                     Fix it in Settings.",
                    e.message
                ));
                let fallback = SettingsFile {
                    settings: Settings {
                        backend: Backend::Markdown,
                        ..file.settings
                    },
                    ..file
                };
                Runtime::build(fallback, &overrides, &index_dir)?
            }
            Err(e) => return Err(e),
        };
        Ok(Console::with(settings_path, overrides, runtime, notice))
    }

    fn with(
        settings_path: PathBuf,
        overrides: Overrides,
        runtime: Runtime,
        notice: Option<String>,
    ) -> Console {
        Console {
            settings_path,
            overrides,
            runtime: RwLock::new(Arc::new(runtime)),
            notice: RwLock::new(notice),
            migration: Default::default(),
            index_job: Default::default(),
            transfers: Default::default(),
            events: Default::default(),
        }
    }

    /// What `open_recovering` repaired, until the settings are next saved.
    pub fn notice(&self) -> Option<String> {
        self.notice
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    pub fn runtime(&self) -> Arc<Runtime> {
        self.runtime
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    pub(crate) fn migration_slot(&self) -> &crate::exclusive::MigrationSlot {
        &self.migration
    }

    pub(crate) fn index_job(&self) -> &Arc<crate::recall::IndexJobSlot> {
        &self.index_job
    }

    pub(crate) fn transfers(&self) -> &Arc<crate::transfer::Transfers> {
        &self.transfers
    }

    pub(crate) fn events(&self) -> &crate::watch::Events {
        &self.events
    }

    pub fn settings_path(&self) -> &Path {
        &self.settings_path
    }

    /// Where the console keeps its own indexes: beside the settings file.
    pub fn index_dir(&self) -> PathBuf {
        crate::config_dir::index_dir_beside(&self.settings_path)
    }

    pub fn overrides(&self) -> &Overrides {
        &self.overrides
    }

    /// Validates, builds the new runtime, saves atomically, then swaps: a failure changes nothing.
    pub fn replace_settings(&self, file: SettingsFile) -> ApiResult<Arc<Runtime>> {
        file.settings.validate()?;
        let runtime = Arc::new(Runtime::build(
            file.clone(),
            &self.overrides,
            &self.index_dir(),
        )?);
        file.save(&self.settings_path)?;
        *self.runtime.write().unwrap_or_else(|p| p.into_inner()) = runtime.clone();
        *self.notice.write().unwrap_or_else(|p| p.into_inner()) = None;
        // Subscribers follow the new root and database from here on; then they refetch.
        self.events.follow(&runtime);
        self.events.publish(crate::watch::ChangeEvent {
            kind: crate::watch::ChangeKind::Settings,
            agent: None,
        });
        Ok(runtime)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn overrides(root: &Path) -> Overrides {
        Overrides {
            root: Some(root.to_path_buf()),
            ..Overrides::default()
        }
    }

    #[test]
    fn a_corrupt_settings_file_is_kept_aside_and_the_console_opens() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        std::fs::write(&path, "{\"backend\": \"sqlite\",").unwrap();
        assert!(Console::open(Some(path.clone()), overrides(dir.path())).is_err());
        let c = Console::open_recovering(Some(path.clone()), overrides(dir.path())).unwrap();
        let notice = c.notice().unwrap();
        assert!(
            notice.contains("not valid JSON") && notice.contains(".corrupt-"),
            "{notice}"
        );
        let kept: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .filter(|e| {
                e.file_name()
                    .to_string_lossy()
                    .starts_with("settings.json.corrupt-")
            })
            .collect();
        assert_eq!(kept.len(), 1);
        assert_eq!(
            std::fs::read_to_string(kept[0].path()).unwrap(),
            "{\"backend\": \"sqlite\","
        );
        assert_eq!(c.runtime().effective.backend, Backend::Markdown);
        c.replace_settings(SettingsFile::default()).unwrap();
        assert_eq!(c.notice(), None, "saving settings clears the notice");
        assert!(path.exists());
    }

    #[test]
    fn a_backend_that_cannot_start_opens_on_markdown_with_a_notice() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        std::fs::write(&path, "{\"backend\": \"mem0\"}").unwrap();
        if std::env::var_os(config::ENV_MEM0_URL).is_some() {
            return; // a URL from the environment lets mem0 start
        }
        let c = Console::open_recovering(Some(path.clone()), overrides(dir.path())).unwrap();
        assert_eq!(c.runtime().effective.backend, Backend::Markdown);
        assert!(c.notice().unwrap().contains("mem0"), "{:?}", c.notice());
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "{\"backend\": \"mem0\"}",
            "the stored choice is not rewritten behind the user's back"
        );
    }
}
