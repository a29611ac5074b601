//! The response envelope of SPEC §10: `{code, message, data, timestamp}` for every answer.

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
    /// On errors from a console operation: the closed `ErrorCode`, so our UI can branch exactly.
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
    pub code: Option<ErrorCode>,
}

impl HttpError {
    pub fn new(status: StatusCode, message: impl Into<String>) -> Self {
        HttpError {
            status,
            message: message.into(),
            code: None,
        }
    }

    pub fn bad_request(message: impl Into<String>) -> Self {
        HttpError::new(StatusCode::BAD_REQUEST, message)
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
            code: Some(e.code),
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
            error_code: self.code,
        };
        (self.status, Json(body)).into_response()
    }
}

/// A path parameter, or the extractor's rejection (bad percent-encoding, not UTF-8) as an
/// envelope instead of axum's plain-text answer.
pub fn path_param(
    p: Result<axum::extract::Path<String>, axum::extract::rejection::PathRejection>,
) -> Result<String, HttpError> {
    p.map(|axum::extract::Path(v)| v).map_err(|e| HttpError {
        status: e.status(),
        message: e.body_text(),
        code: Some(ErrorCode::InvalidInput),
    })
}

/// Answers requests the router or an extractor rejected (bad JSON, bad query, unknown route)
/// in the same envelope.
pub fn rejection(status: StatusCode, message: impl Into<String>) -> Response {
    HttpError::new(status, message).into_response()
}
