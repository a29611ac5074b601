//! The one boundary error: `{code, message}` with a closed set of codes the UI can branch on.

use oryx_core::CoreError;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    InvalidInput,
    InvalidAgentName,
    AgentNotFound,
    SessionNotFound,
    NotFound,
    OutsideRoot,
    Conflict,
    Corrupt,
    BackendUnavailable,
    Timeout,
    Cancelled,
    Io,
    Internal,
    /// A server refused the token (or needed one and got none).
    Unauthorized,
    /// A server's certificate is neither vouched for by an authority nor the one trusted for it.
    UntrustedCertificate,
}

impl ErrorCode {
    /// The HTTP status of CONTRACT §10 for this code.
    pub fn http_status(self) -> u16 {
        match self {
            ErrorCode::InvalidInput | ErrorCode::InvalidAgentName | ErrorCode::OutsideRoot => 400,
            ErrorCode::AgentNotFound | ErrorCode::SessionNotFound | ErrorCode::NotFound => 404,
            ErrorCode::Conflict | ErrorCode::Cancelled => 409,
            ErrorCode::BackendUnavailable => 503,
            ErrorCode::Unauthorized => 401,
            ErrorCode::UntrustedCertificate => 502,
            ErrorCode::Timeout => 504,
            ErrorCode::Corrupt | ErrorCode::Io | ErrorCode::Internal => 500,
        }
    }

    /// Whether the caller's input was at fault (CLI exit code 2).
    pub fn is_invalid_input(self) -> bool {
        matches!(
            self,
            ErrorCode::InvalidInput
                | ErrorCode::InvalidAgentName
                | ErrorCode::AgentNotFound
                | ErrorCode::NotFound
                | ErrorCode::OutsideRoot
                | ErrorCode::Unauthorized
        )
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidInput => "invalid_input",
            ErrorCode::InvalidAgentName => "invalid_agent_name",
            ErrorCode::AgentNotFound => "agent_not_found",
            ErrorCode::SessionNotFound => "session_not_found",
            ErrorCode::NotFound => "not_found",
            ErrorCode::OutsideRoot => "outside_root",
            ErrorCode::Conflict => "conflict",
            ErrorCode::Corrupt => "corrupt",
            ErrorCode::BackendUnavailable => "backend_unavailable",
            ErrorCode::Timeout => "timeout",
            ErrorCode::Cancelled => "cancelled",
            ErrorCode::Io => "io",
            ErrorCode::Internal => "internal",
            ErrorCode::Unauthorized => "unauthorized",
            ErrorCode::UntrustedCertificate => "untrusted_certificate",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[error("{message}")]
pub struct ApiError {
    pub code: ErrorCode,
    pub message: String,
}

impl ApiError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        ApiError {
            code,
            message: message.into(),
        }
    }

    pub fn invalid(message: impl Into<String>) -> Self {
        ApiError::new(ErrorCode::InvalidInput, message)
    }

    pub fn internal(message: impl Into<String>) -> Self {
        ApiError::new(ErrorCode::Internal, message)
    }
}

impl From<CoreError> for ApiError {
    fn from(e: CoreError) -> Self {
        let code = match &e {
            CoreError::InvalidAgentName(_) => ErrorCode::InvalidAgentName,
            CoreError::AgentNotFound { .. } => ErrorCode::AgentNotFound,
            CoreError::OutsideRoot(_) => ErrorCode::OutsideRoot,
            CoreError::RootMissing(_) | CoreError::NotARoot { .. } => ErrorCode::InvalidInput,
            CoreError::NotRegularFile { .. } => ErrorCode::Io,
            CoreError::SessionNotFound(_) => ErrorCode::SessionNotFound,
            CoreError::InvalidInput(_) => ErrorCode::InvalidInput,
            CoreError::NotFound(_) => ErrorCode::NotFound,
            CoreError::Io { .. } => ErrorCode::Io,
            CoreError::Database { source, .. } if is_busy(source) => ErrorCode::Conflict,
            CoreError::Database { .. } => ErrorCode::Io,
            CoreError::Corrupt(_) => ErrorCode::Corrupt,
            CoreError::BackendUnavailable(_) => ErrorCode::BackendUnavailable,
            CoreError::Timeout(_) => ErrorCode::Timeout,
            CoreError::Conflict(_) | CoreError::Forgotten(_) => ErrorCode::Conflict,
            CoreError::Cancelled => ErrorCode::Cancelled,
        };
        ApiError::new(code, e.to_string())
    }
}

fn is_busy(e: &oryx_core::db::SqlError) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(
            oryx_core::db::SqlErrorCode::DatabaseBusy | oryx_core::db::SqlErrorCode::DatabaseLocked
        )
    )
}

pub type ApiResult<T> = Result<T, ApiError>;
