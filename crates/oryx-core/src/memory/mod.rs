//! Long-term memory: the entry model, the MEMORY.md format, the archival window, the stores and
//! the MemoryService facade.

pub mod change;
pub mod curation;
pub mod entry;
pub mod entry_id;
pub mod format;
pub mod health;
pub mod history;
pub mod journal;
pub mod llm_summary;
pub mod markdown;
pub mod mem0;
mod near_dup;
pub mod open;
pub mod review;
pub mod runtime_indexed;
pub mod scope;
pub mod semantic;
pub mod service;
pub mod sqlite;
pub mod store;
pub mod summary;
pub mod superseded;
pub mod window;

pub use entry::{sanitize_content, Entry, Scope, Sections};
pub use markdown::MarkdownMemoryStore;
pub use mem0::{Mem0Config, Mem0MemoryStore};
pub use open::{open_memory, open_store};
pub use semantic::{RecallConfig, RecallMode, SemanticIndex};
pub use service::{MemoryService, MemoryView, WindowStats};
pub use sqlite::SqliteMemoryStore;
pub use store::{
    Backend, EntryCounts, FileVersion, LongTermMemoryStore, Recalled, RuntimeEntry, Stamp,
};

/// in parallel); new code names [`entry_id`].
pub(crate) mod curate {
    pub(crate) use super::entry_id::MARKDOWN_ID_MAX;
    pub(crate) use super::entry_id::{line_hash, line_hashes, markdown_id, write_markdown_id};
}
