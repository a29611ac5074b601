//! The response envelope of CONTRACT §10: `{code, message, data, timestamp}` for every answer.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use oryx_api::{ApiError, ErrorCode};
use serde::Serialize;

#[derive(Serialize)]
pub struct Envelope<T: Serialize> {
    pub code: u16,
    pub message: String,
    pub data: Option<T>,
    pub timestamp: i64,
    /// On every error: the closed `ErrorCode`, so our UI can branch exactly (the runtime's
    /// clients read `code` and ignore it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_code: Option<ErrorCode>,
}

pub fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

/// A handler's answer: data in a success envelope, or an error in an error envelope.
pub struct Reply<T: Serialize>(pub Result<T, HttpError>);

impl<T: Serialize> IntoResponse for Reply<T> {
    fn into_response(self) -> Response {
        match self.0 {
            Ok(data) => Json(Envelope {
                code: 0,
                message: "success".into(),
                data: Some(data),
                timestamp: now_ms(),
                error_code: None,
            })
            .into_response(),
            Err(e) => e.into_response(),
        }
    }
}

/// An HTTP error with a message a person understands; never a stack trace.
#[derive(Debug)]
pub struct HttpError {
    pub status: StatusCode,
    pub message: String,
    pub code: ErrorCode,
}

impl HttpError {
    /// An error the server itself raises (not a console operation's): its code follows from
    /// the status.
    pub fn new(status: StatusCode, message: impl Into<String>) -> Self {
        HttpError {
            status,
            message: message.into(),
            code: code_for(status),
        }
    }

    pub fn bad_request(message: impl Into<String>) -> Self {
        HttpError::new(StatusCode::BAD_REQUEST, message)
    }

    /// An extractor's rejection (bad JSON, a missing or mistyped field, a bad query string or
    /// path segment): always the caller's to fix, so 400 `invalid_input` whatever status axum
    /// would have chosen (422, 415, or 500 for a path that does not fit the route).
    pub fn rejected(what: &str, rejection: impl std::fmt::Display) -> Self {
        HttpError::bad_request(format!("{what}: {rejection}"))
    }
}

/// The `ErrorCode` of an answer the server makes without a console operation (a rejected
/// request, a full work budget, a timeout): 401 a token to fix, other 4xx the caller's input,
/// 503 means "not now".
pub fn code_for(status: StatusCode) -> ErrorCode {
    match status {
        StatusCode::REQUEST_TIMEOUT | StatusCode::GATEWAY_TIMEOUT => ErrorCode::Timeout,
        StatusCode::SERVICE_UNAVAILABLE => ErrorCode::BackendUnavailable,
        StatusCode::CONFLICT => ErrorCode::Conflict,
        StatusCode::UNAUTHORIZED => ErrorCode::Unauthorized,
        s if s.is_client_error() => ErrorCode::InvalidInput,
        _ => ErrorCode::Internal,
    }
}

impl From<ApiError> for HttpError {
    fn from(e: ApiError) -> Self {
        let status =
            StatusCode::from_u16(e.code.http_status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        // Internal details (paths of the server's own files) stay in the message only for
        // errors the caller can act on; an internal failure says so plainly.
        let message = if e.code == ErrorCode::Internal {
            "internal error; see the server log".to_string()
        } else {
            e.message
        };
        HttpError {
            status,
            message,
            code: e.code,
        }
    }
}

impl IntoResponse for HttpError {
    fn into_response(self) -> Response {
        let body = Envelope::<()> {
            code: self.status.as_u16(),
            message: self.message,
            data: None,
            timestamp: now_ms(),
            error_code: Some(self.code),
        };
        (self.status, Json(body)).into_response()
    }
}

/// A path parameter, or the extractor's rejection (bad percent-encoding, not UTF-8) as an
/// envelope instead of axum's plain-text answer.
pub fn path_param(
    p: Result<axum::extract::Path<String>, axum::extract::rejection::PathRejection>,
) -> Result<String, HttpError> {
    p.map(|axum::extract::Path(v)| v)
        .map_err(|e| HttpError::rejected("the path", e.body_text()))
}

/// A query string, or its rejection (a missing or mistyped parameter) as `invalid_input`.
pub fn query_param<T>(
    q: Result<axum::extract::Query<T>, axum::extract::rejection::QueryRejection>,
) -> Result<T, HttpError> {
    q.map(|axum::extract::Query(v)| v)
        .map_err(|e| HttpError::rejected("the query string", e.body_text()))
}

/// Answers requests the router or an extractor rejected (bad JSON, bad query, unknown route)
/// in the same envelope.
pub fn rejection(status: StatusCode, message: impl Into<String>) -> Response {
    HttpError::new(status, message).into_response()
}
