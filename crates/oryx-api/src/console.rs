//! The console: its settings file, the services built from the settings in effect, and the
//! state its jobs and subscribers share. Operations are `Console` methods in the modules named
//! after what they do; this module holds no operation.

use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use oryx_core::config::{self, Overrides, Settings};
use oryx_core::memory::{Backend, LongTermMemoryStore};
use oryx_core::CoreError;

use crate::error::ApiResult;
use crate::events::Events;
use crate::jobs::{IndexJobSlot, MigrationSlot};
use crate::services::{open_store, Services};
use crate::settings_file::SettingsFile;
use crate::transfer::jobs::Transfers;

impl Console {
    /// The store of `backend` over the root and database in effect (a migration's source or
    /// target, an import's target); `None`: the store in use.
    pub(crate) fn store_of(
        &self,
        rt: &Services,
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

pub struct Console {
    settings_path: PathBuf,
    overrides: Overrides,
    /// Shared with the recall checks' runner, which follows the services in effect.
    services: Arc<RwLock<Arc<Services>>>,
    notice: RwLock<Option<String>>,
    migration: MigrationSlot,
    index_job: Arc<IndexJobSlot>,
    runtime_fill: Arc<crate::runtime_index::RuntimeFillSlot>,
    forget: Arc<crate::forget::ForgetSlot>,
    transfers: Arc<Transfers>,
    events: Events,
}

impl Console {
    /// Opens with the settings file at `settings_path` (the default location when `None`).
    pub fn open(settings_path: Option<PathBuf>, overrides: Overrides) -> ApiResult<Console> {
        let settings_path = settings_path.unwrap_or_else(crate::config_dir::default_settings_path);
        let file = SettingsFile::load(&settings_path)?;
        let index_dir = crate::config_dir::index_dir_beside(&settings_path);
        let runtime = Services::build(file, &overrides, &index_dir)?;
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
        let runtime = match Services::build(file.clone(), &overrides, &index_dir) {
            Ok(rt) => rt,
            Err(e)
                if config::effective(&file.settings, &overrides).backend != Backend::Markdown =>
            {
                let wanted = config::effective(&file.settings, &overrides)
                    .backend
                    .as_str();
                notice = Some(format!(
                    "The {wanted} backend could not start ({}); showing the markdown backend. \
                     Fix it in Settings.",
                    e.message
                ));
                let fallback = SettingsFile {
                    settings: Settings {
                        backend: Backend::Markdown,
                        // An install's backend is the runtime's unless overridden.
                        backend_override: Some(Backend::Markdown),
                        ..file.settings
                    },
                    ..file
                };
                Services::build(fallback, &overrides, &index_dir)?
            }
            Err(e) => return Err(e),
        };
        Ok(Console::with(settings_path, overrides, runtime, notice))
    }

    fn with(
        settings_path: PathBuf,
        overrides: Overrides,
        runtime: Services,
        notice: Option<String>,
    ) -> Console {
        Console {
            settings_path,
            overrides,
            services: Arc::new(RwLock::new(Arc::new(runtime))),
            notice: RwLock::new(notice),
            migration: Default::default(),
            index_job: Default::default(),
            runtime_fill: Default::default(),
            forget: Default::default(),
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

    pub fn services(&self) -> Arc<Services> {
        self.services
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    pub(crate) fn migration_slot(&self) -> &MigrationSlot {
        &self.migration
    }

    pub(crate) fn index_job(&self) -> &Arc<IndexJobSlot> {
        &self.index_job
    }

    pub(crate) fn runtime_fill_slot(&self) -> &Arc<crate::runtime_index::RuntimeFillSlot> {
        &self.runtime_fill
    }

    pub(crate) fn forget_slot(&self) -> &Arc<crate::forget::ForgetSlot> {
        &self.forget
    }

    pub(crate) fn transfers(&self) -> &Arc<Transfers> {
        &self.transfers
    }

    pub(crate) fn events(&self) -> &Events {
        &self.events
    }

    pub(crate) fn services_handle(&self) -> std::sync::Weak<RwLock<Arc<Services>>> {
        Arc::downgrade(&self.services)
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

    /// Puts `services` in effect for every later call, and drops the notice of what
    /// `open_recovering` repaired (the settings were saved).
    pub(crate) fn swap_services(&self, services: Arc<Services>) {
        *self.services.write().unwrap_or_else(|p| p.into_inner()) = services;
        *self.notice.write().unwrap_or_else(|p| p.into_inner()) = None;
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
        assert_eq!(c.services().effective.backend, Backend::Markdown);
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
        assert_eq!(c.services().effective.backend, Backend::Markdown);
        assert!(c.notice().unwrap().contains("mem0"), "{:?}", c.notice());
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "{\"backend\": \"mem0\"}",
            "the stored choice is not rewritten behind the user's back"
        );
    }
}
