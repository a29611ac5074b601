//! The embedding model of a process, loaded once on first use.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::embedder::Embedder;
use super::error::EmbedError;

/// The model, loaded on first use and then kept: one per console, shared by every runtime a
/// settings change builds (loading takes about half a second and 100 MB).
pub struct EmbedderSlot {
    dir: PathBuf,
    loaded: Mutex<Option<Arc<Embedder>>>,
}

impl EmbedderSlot {
    pub fn new(dir: PathBuf) -> Self {
        EmbedderSlot {
            dir,
            loaded: Mutex::new(None),
        }
    }

    /// The one slot of the model in `dir` for this process: every console and runtime that
    /// recalls with it shares one loaded copy.
    pub fn shared(dir: &Path) -> Arc<EmbedderSlot> {
        static SLOTS: std::sync::OnceLock<Mutex<HashMap<PathBuf, Arc<EmbedderSlot>>>> =
            std::sync::OnceLock::new();
        let mut slots = SLOTS
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        Arc::clone(
            slots
                .entry(dir.to_path_buf())
                .or_insert_with(|| Arc::new(EmbedderSlot::new(dir.to_path_buf()))),
        )
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Whether the model's files are where they should be (without loading them).
    pub fn present(&self) -> bool {
        self.dir.join("weights.npz").is_file() && self.dir.join("sp.model").is_file()
    }

    /// Bytes the model's files take on disk.
    pub fn size_bytes(&self) -> u64 {
        ["weights.npz", "sp.model"]
            .iter()
            .filter_map(|f| std::fs::metadata(self.dir.join(f)).ok())
            .map(|m| m.len())
            .sum()
    }

    pub fn is_loaded(&self) -> bool {
        self.loaded
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .is_some()
    }

    pub fn get(&self) -> std::result::Result<Arc<Embedder>, EmbedError> {
        let mut slot = self.loaded.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(e) = slot.as_ref() {
            return Ok(Arc::clone(e));
        }
        let e = Arc::new(Embedder::load(&self.dir)?);
        *slot = Some(Arc::clone(&e));
        Ok(e)
    }
}
