//! The store that the settings in effect select: which backend, and where it keeps its entries.

use std::path::Path;
use std::sync::Arc;

use crate::config::Effective;
use crate::error::{CoreError, Result};

use super::semantic::SemanticIndex;
use super::service::RuntimeSource;
use super::window::WindowRule;
use super::{
    Backend, LongTermMemoryStore, MarkdownMemoryStore, Mem0Config, Mem0MemoryStore, MemoryService,
    SqliteMemoryStore,
};
use crate::embed::{EmbedderSlot, VectorIndex};

/// `index_dir`: where the console keeps its indexes of the database (never inside it).
/// In a runtime install the store keeps the runtime's vector index of archival entries true
/// through the console's writes (see `runtime_indexed.rs`).
pub fn open_store(e: &Effective, index_dir: &Path) -> Result<Arc<dyn LongTermMemoryStore>> {
    let store = open_plain_store(e, index_dir)?;
    Ok(match crate::runtime::vector_index::RuntimeIndex::of(e) {
        Some(index) => Arc::new(super::runtime_indexed::RuntimeIndexedStore::new(
            store, index,
        )),
        None => store,
    })
}

fn open_plain_store(e: &Effective, index_dir: &Path) -> Result<Arc<dyn LongTermMemoryStore>> {
    Ok(match e.backend {
        Backend::Markdown => {
            Arc::new(MarkdownMemoryStore::new(&e.root).with_runtime_recall(e.runtime_windows))
        }
        Backend::Sqlite => Arc::new(
            SqliteMemoryStore::with_index_dir(&e.db_path, Some(index_dir.to_path_buf()))
                .with_runtime_order(e.runtime_windows),
        ),
        Backend::Mem0 => {
            Arc::new(Mem0MemoryStore::new(mem0_config(e)?).with_history_dir(index_dir))
        }
    })
}

/// The memory service the settings in effect describe: the store, the window, and recall in
/// the chosen mode with the console's vector index of these entries (in `index_dir`, one
/// file per root or database; opened only when a semantic recall first needs it).
pub fn open_memory(e: &Effective, index_dir: &Path) -> Result<MemoryService> {
    let store = open_store(e, index_dir)?;
    let entries_at = match e.backend {
        Backend::Sqlite => &e.db_path,
        Backend::Markdown | Backend::Mem0 => &e.root,
    };
    let vectors = VectorIndex::new(
        EmbedderSlot::shared(&crate::embed::default_model_dir()),
        crate::embed::store_path(index_dir, entries_at),
    );
    let index = SemanticIndex::new(Arc::new(vectors));
    let rule = WindowRule::select(e.backend, e.runtime_windows, e.archival_limit_chars);
    let runtime = e.runtime_config.as_ref().map(|config| RuntimeSource {
        config: config.clone(),
        db_path: e.db_path.clone(),
    });
    Ok(MemoryService::new(store, e.archival_limit_chars)
        .with_window_rule(rule)
        .with_recall(e.recall, Some(Arc::new(index)))
        .with_runtime(runtime))
}

/// The mem0 settings in effect; a missing base URL is a clear error, not a silent default.
pub fn mem0_config(e: &Effective) -> Result<Mem0Config> {
    let Some(base_url) = e.mem0_base_url.clone().filter(|u| !u.trim().is_empty()) else {
        return Err(CoreError::InvalidInput(
            "the mem0 backend needs a base URL: set it in Settings, with --mem0-url or MEM0_BASE_URL".into(),
        ));
    };
    Ok(Mem0Config {
        base_url,
        user_id: e.mem0_user_id.clone(),
        api_key: e.mem0_api_key.clone(),
        timeout: std::time::Duration::from_millis(e.mem0_timeout_ms),
    })
}
