//! The services of one configuration (memory, sessions, indexes), built from the settings in
//! effect. A settings change builds new ones; the console swaps them in at once.

use std::path::Path;
use std::sync::Arc;

use oryx_core::config::{self, Effective, Overrides, Settings};
use oryx_core::memory::{LongTermMemoryStore, Mem0Config, MemoryService};
use oryx_core::names::{self, Owner};
use oryx_core::sessions::SessionStore;

use crate::error::ApiResult;
use crate::settings_file::{Preferences, SettingsFile};

/// Services for one configuration.
pub struct Services {
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

impl Services {
    /// `index_dir`: where the console keeps its indexes (beside the settings file).
    pub fn build(
        file: SettingsFile,
        overrides: &Overrides,
        index_dir: &Path,
    ) -> ApiResult<Services> {
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
        Ok(Services {
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

/// The mem0 settings in effect; a missing base URL is a clear error, not a silent default.
pub fn mem0_config(e: &Effective) -> ApiResult<Mem0Config> {
    Ok(oryx_core::memory::open::mem0_config(e)?)
}
