use std::path::{Path, PathBuf};

/// Every failure the memory system can report. Each variant says what went wrong in words a
/// person can act on; hosts map variants to their own codes (exit codes, HTTP statuses).
#[derive(Debug, thiserror::Error)]
pub enum CoreError {
    #[error("invalid agent name {0:?}: use 1-64 letters, digits, '_' or '-'")]
    InvalidAgentName(String),
    #[error("agent {name:?} not found (no directory {dir})")]
    AgentNotFound { name: String, dir: PathBuf },
    #[error("{0} resolves outside the .oryxos root; refusing to follow it")]
    OutsideRoot(PathBuf),
    #[error(
        "the .oryxos root {} does not exist; choose an existing root, or create one \
         (`oryx demo PATH`, or --create-root)", .0.display()
    )]
    RootMissing(PathBuf),
    #[error("{} is not a .oryxos root: {why}", path.display())]
    NotARoot { path: PathBuf, why: String },
    #[error("{} is a {kind}, not a regular file; refusing to open it", path.display())]
    NotRegularFile { path: PathBuf, kind: &'static str },
    #[error("session {0:?} not found")]
    SessionNotFound(String),
    #[error("{0}")]
    InvalidInput(String),
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("database {}: {source}", path.display())]
    Database {
        path: PathBuf,
        #[source]
        source: rusqlite::Error,
    },
    /// An id that names nothing (a memory entry, a change).
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    Corrupt(String),
    #[error("{0}")]
    BackendUnavailable(String),
    #[error("{0}")]
    Timeout(String),
    #[error("{0}")]
    Conflict(String),
    #[error("cancelled")]
    Cancelled,
    /// The change (its id) was forgotten for good: its texts are gone.
    #[error("change {0} was forgotten: it cannot be undone, redone or restored from")]
    Forgotten(String),
}

pub type Result<T, E = CoreError> = std::result::Result<T, E>;

impl CoreError {
    pub fn io(path: impl AsRef<Path>, source: std::io::Error) -> Self {
        CoreError::Io {
            path: path.as_ref().to_path_buf(),
            source,
        }
    }

    pub fn db(path: impl AsRef<Path>, source: rusqlite::Error) -> Self {
        CoreError::Database {
            path: path.as_ref().to_path_buf(),
            source,
        }
    }
}

/// Attaches a path to io errors without a closure at every call site.
pub trait IoContext<T> {
    fn at(self, path: impl AsRef<Path>) -> Result<T>;
}

impl<T> IoContext<T> for std::io::Result<T> {
    fn at(self, path: impl AsRef<Path>) -> Result<T> {
        self.map_err(|e| CoreError::io(path, e))
    }
}

/// Attaches the database path to rusqlite errors.
pub trait DbContext<T> {
    fn at_db(self, path: impl AsRef<Path>) -> Result<T>;
}

impl<T> DbContext<T> for rusqlite::Result<T> {
    fn at_db(self, path: impl AsRef<Path>) -> Result<T> {
        self.map_err(|e| CoreError::db(path, e))
    }
}
