//! Sessions over the Java runtime's SQLite tables `sessions` and `tool_invocations` (CONTRACT §2, §6).
//!
//! The sessions are the runtime's data: the console reads them and never rewrites
//! `messages_json`, because the runtime compares the stored string byte for byte. The only
//! writes here are tool invocations (the ToolExecutor records every call, as the runtime does)
//! and [`SessionStore::insert_session`] for demo and test fixtures.

mod invocations;
mod llm_calls;
mod model;
mod search;
mod sql;
mod store;
mod turns;

#[cfg(test)]
mod test_support;

use std::path::{Path, PathBuf};

use rusqlite::Connection;

use crate::db;
use crate::error::Result;

pub use llm_calls::LlmCallRow;
pub use model::{
    Message, MessageMatch, NewInvocation, NewSession, Session, SessionFilter, SessionPage,
    SessionStats, SessionStatus, SessionSummary, ToolCall, ToolInvocation, DEFAULT_PAGE_SIZE,
};
pub use turns::{count_turns, last_turns};

/// Reads sessions and tool invocations from one database file.
///
/// No connection is kept between calls: the database path can change from Settings, and an
/// idle console should hold no lock the runtime could wait on.
#[derive(Debug, Clone)]
pub struct SessionStore {
    path: PathBuf,
}

impl SessionStore {
    pub fn new(db_path: impl Into<PathBuf>) -> Self {
        SessionStore {
            path: db_path.into(),
        }
    }

    pub fn db_path(&self) -> &Path {
        &self.path
    }

    /// `Ok(None)` when the database file does not exist yet (an empty console).
    fn open_existing(&self) -> Result<Option<Connection>> {
        db::open_existing(&self.path)
    }
}
