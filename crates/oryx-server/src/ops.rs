//! Every registered operation (oryx_api::ops) as `POST /api/v1/console/<name>` with its JSON
//! arguments as the body: mounted by walking the registry, so a new operation needs no code here.

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::post;
use axum::Router;
use oryx_api::ops::{self, Operation, Visitor};
use serde_json::{json, Value};

use super::{blocking, AppState, HttpError, Reply};

pub const PREFIX: &str = "/api/v1/console/";

struct Mount(Option<Router<AppState>>);

impl Visitor for Mount {
    fn visit<O: Operation>(&mut self) {
        let router = self.0.take().unwrap_or_default();
        self.0 = Some(router.route(&format!("{PREFIX}{}", O::NAME), post(handle::<O>)));
    }
}

pub fn routes() -> Router<AppState> {
    let mut mount = Mount(Some(Router::new()));
    ops::visit(&mut mount);
    mount.0.unwrap_or_default()
}

/// An empty body is "no arguments"; anything else must be JSON.
fn args_of(body: &[u8]) -> Result<Value, HttpError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(Value::Null);
    }
    serde_json::from_slice(body)
        .map_err(|e| HttpError::rejected("the request body is not valid JSON", e))
}

/// A body over the limit stays 413 and one that stopped arriving is 408, both in the envelope
/// (axum's own answer would be plain text).
fn bytes_of(body: Result<Bytes, BytesRejection>) -> Result<Bytes, HttpError> {
    body.map_err(|e| {
        let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(&e);
        while let Some(c) = cause {
            if c.is::<tower_http::timeout::TimeoutError>() {
                return HttpError::new(
                    StatusCode::REQUEST_TIMEOUT,
                    "the request body stopped arriving before its announced length (Content-Length); send the whole body",
                );
            }
            cause = c.source();
        }
        match e.status() {
            StatusCode::PAYLOAD_TOO_LARGE => HttpError::new(e.status(), e.body_text()),
            _ => HttpError::rejected("the request body", e.body_text()),
        }
    })
}

async fn handle<O: Operation>(
    State(s): State<AppState>,
    body: Result<Bytes, BytesRejection>,
) -> Reply<O::Output> {
    let args = match bytes_of(body)
        .and_then(|b| args_of(&b))
        .and_then(|v| ops::parse_args::<O>(v).map_err(HttpError::from))
    {
        Ok(a) => a,
        Err(e) => return Reply(Err(e)),
    };
    // A write announces itself on the console's change stream (/events).
    Reply(blocking(&s, move |c| O::run(c, args)).await)
}

/// The registered operations' entries for the OpenAPI document.
pub fn openapi_paths() -> Vec<(String, Value)> {
    struct Paths(Vec<(String, Value)>);
    impl Visitor for Paths {
        fn visit<O: Operation>(&mut self) {
            self.0.push((
                format!("{PREFIX}{}", O::NAME),
                json!({"post": {
                    "summary": O::SUMMARY,
                    "operationId": O::NAME,
                    "requestBody": {"required": false, "content": {"application/json": {"schema": {"type": "object"}}}},
                    "responses": {
                        "200": {"description": "success", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Envelope"}}}},
                        "400": {"$ref": "#/components/responses/Error"},
                        "404": {"$ref": "#/components/responses/Error"},
                        "409": {"$ref": "#/components/responses/Error"},
                        "500": {"$ref": "#/components/responses/Error"},
                        "503": {"$ref": "#/components/responses/Error"}
                    }
                }}),
            ));
        }
    }
    let mut paths = Paths(Vec::new());
    ops::visit(&mut paths);
    paths.0
}
