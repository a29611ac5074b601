//! `POST /v1/embeddings` and `GET /v1/models`: the console's offline embedding model behind the
//! OpenAI embeddings wire format, so any OpenAI-compatible client (the runtime's Spring AI
//! `OpenAiApi`, the `openai` Python package) can use it as an embedding provider.
//!
//! These routes speak OpenAI's shapes, not the console's envelope: answers are
//! `{object: "list", data, model, usage}` and errors `{error: {message, type, param, code}}`.
//! They sit outside `/api/`, so the token check is done here: with `--token`, the bearer must be
//! it; without one (loopback only) any bearer, or none, is accepted — the runtime refuses a
//! blank api key, so it always sends one.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use oryx_api::local_embeddings::model::{
    default_model_dir, EmbedError, EmbedderSlot, DIM, MODEL_ID,
};
use serde::Serialize;
use serde_json::{json, Value};

use super::auth::{self, Credential};
use super::AppState;

/// The one model served: the name clients put in `model` (the runtime's `embedding.model`).
pub const MODEL: &str = MODEL_ID;

/// Inputs per request, as OpenAI's own limit: a bigger batch is refused, not cut.
pub const MAX_INPUTS: usize = 2048;

/// Bytes of one input. The forward pass holds a few KB per piece, so one huge text would take
/// hundreds of MB; a memory entry is one line, far below this.
pub const MAX_INPUT_BYTES: usize = 16 * 1024;

/// (method, path, summary) of the routes, for the OpenAPI document.
pub const ROUTES: &[(&str, &str, &str)] = &[
    (
        "post",
        "/v1/embeddings",
        "OpenAI embeddings wire format: {model, input: string | [string], encoding_format?: float|base64, dimensions?: 512, user?} -> {object: list, data: [{object: embedding, index, embedding}], model, usage: {prompt_tokens, total_tokens}}; the console's offline model (512-d unit vectors); errors as {error: {message, type, param, code}}",
    ),
    (
        "get",
        "/v1/models",
        "OpenAI model list: the one embedding model /v1/embeddings serves",
    ),
];

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/v1/embeddings", post(embeddings))
        .route("/v1/models", get(models))
}

/// An error in OpenAI's shape.
#[derive(Debug)]
pub(crate) struct OpenAiError {
    status: StatusCode,
    message: String,
    param: Option<&'static str>,
    code: &'static str,
}

impl OpenAiError {
    fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        OpenAiError {
            status,
            message: message.into(),
            param: None,
            code,
        }
    }

    fn bad(param: &'static str, message: impl Into<String>) -> Self {
        OpenAiError {
            param: Some(param),
            ..OpenAiError::new(StatusCode::BAD_REQUEST, "invalid_value", message)
        }
    }
}

impl IntoResponse for OpenAiError {
    fn into_response(self) -> Response {
        let kind = match self.status {
            StatusCode::UNAUTHORIZED => "authentication_error",
            StatusCode::TOO_MANY_REQUESTS => "rate_limit_error",
            s if s.is_server_error() => "server_error",
            _ => "invalid_request_error",
        };
        let body = json!({"error": {
            "message": self.message,
            "type": kind,
            "param": self.param,
            "code": self.code,
        }});
        (self.status, Json(body)).into_response()
    }
}

/// With `--token`, the bearer (or a login's cookie) must be valid; wrong ones are throttled per
/// address like on `/api/`. `Some`: the refusal to answer with.
fn refused(state: &AppState, req: &Request) -> Option<Response> {
    // Without a token (loopback only) any key is accepted.
    state.token.as_ref()?;
    let peer = auth::peer(req.extensions());
    if let Some(wait) = state.throttle.wait(peer) {
        let mut r = OpenAiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            "rate_limit_exceeded",
            format!(
                "too many wrong API keys from this address: try again in {} s",
                wait.as_secs().max(1)
            ),
        )
        .into_response();
        r.headers_mut().insert(
            header::RETRY_AFTER,
            HeaderValue::from(wait.as_secs().max(1)),
        );
        return Some(r);
    }
    match auth::credential(state, req.headers()) {
        Credential::Valid => None,
        found => {
            if found == Credential::Wrong {
                state.throttle.failed(peer);
            }
            Some(OpenAiError::new(
                StatusCode::UNAUTHORIZED,
                "invalid_api_key",
                "missing or wrong API key: send Authorization: Bearer <the token oryx serve was started with>",
            )
            .into_response())
        }
    }
}

async fn models(State(state): State<AppState>, req: Request) -> Response {
    if let Some(r) = refused(&state, &req) {
        return r;
    }
    Json(json!({
        "object": "list",
        "data": [{"id": MODEL, "object": "model", "created": 0, "owned_by": "oryx"}],
    }))
    .into_response()
}

/// What a request asks for, checked.
#[derive(Debug)]
struct Asked {
    texts: Vec<String>,
    base64: bool,
}

/// Reads the body as OpenAI documents it; unknown fields (`user`, a client's extras) are
/// ignored as OpenAI ignores them.
fn parse(body: &[u8]) -> Result<Asked, OpenAiError> {
    let v: Value = serde_json::from_slice(body).map_err(|e| {
        OpenAiError::new(
            StatusCode::BAD_REQUEST,
            "invalid_json",
            format!("the body is not JSON: {e}"),
        )
    })?;
    let Some(obj) = v.as_object() else {
        return Err(OpenAiError::new(
            StatusCode::BAD_REQUEST,
            "invalid_json",
            "the body must be a JSON object {model, input}",
        ));
    };
    match obj.get("model") {
        Some(Value::String(m)) if m == MODEL => {}
        Some(Value::String(m)) => {
            return Err(OpenAiError {
                param: Some("model"),
                ..OpenAiError::new(
                    StatusCode::NOT_FOUND,
                    "model_not_found",
                    format!(
                        "the model {m:?} does not exist here: this server embeds with {MODEL:?}"
                    ),
                )
            })
        }
        _ => {
            return Err(OpenAiError::bad(
                "model",
                format!("model is required: {MODEL:?}"),
            ))
        }
    }
    let base64 = match obj.get("encoding_format") {
        None | Some(Value::Null) => false,
        Some(Value::String(f)) if f == "float" => false,
        Some(Value::String(f)) if f == "base64" => true,
        Some(other) => {
            return Err(OpenAiError::bad(
                "encoding_format",
                format!("encoding_format is \"float\" or \"base64\", got {other}"),
            ))
        }
    };
    match obj.get("dimensions") {
        None | Some(Value::Null) => {}
        Some(d) if d.as_u64() == Some(DIM as u64) => {}
        Some(d) => {
            return Err(OpenAiError::bad(
                "dimensions",
                format!("{MODEL} gives {DIM} dimensions and cannot shorten them, got {d}"),
            ))
        }
    }
    let texts = match obj.get("input") {
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(items)) => {
            if items.is_empty() {
                return Err(OpenAiError::bad(
                    "input",
                    "input is an empty list: send at least one text",
                ));
            }
            if items.len() > MAX_INPUTS {
                return Err(OpenAiError {
                    param: Some("input"),
                    ..OpenAiError::new(
                        StatusCode::PAYLOAD_TOO_LARGE,
                        "too_many_inputs",
                        format!(
                            "{} inputs in one request; at most {MAX_INPUTS}: split the batch",
                            items.len()
                        ),
                    )
                });
            }
            items
                .iter()
                .map(|i| match i {
                    Value::String(s) => Ok(s.clone()),
                    Value::Number(_) | Value::Array(_) => Err(OpenAiError::bad(
                        "input",
                        "token arrays are not accepted: send the texts as strings",
                    )),
                    other => Err(OpenAiError::bad(
                        "input",
                        format!("each input is a string, got {other}"),
                    )),
                })
                .collect::<Result<_, _>>()?
        }
        None | Some(Value::Null) => {
            return Err(OpenAiError::bad(
                "input",
                "input is required: a string or a list of strings",
            ))
        }
        Some(other) => {
            return Err(OpenAiError::bad(
                "input",
                format!("input is a string or a list of strings, got {other}"),
            ))
        }
    };
    if let Some((i, t)) = texts
        .iter()
        .enumerate()
        .find(|(_, t)| t.len() > MAX_INPUT_BYTES)
    {
        return Err(OpenAiError {
            param: Some("input"),
            ..OpenAiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                "input_too_large",
                format!(
                    "input {i} has {} bytes; at most {MAX_INPUT_BYTES} per text",
                    t.len()
                ),
            )
        });
    }
    Ok(Asked { texts, base64 })
}

/// Sets the flag when the request is dropped (its client left, or it timed out), so the
/// embedding stops at its next micro-batch instead of running on for nobody.
struct CancelOnDrop(Arc<AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

#[derive(Serialize)]
struct Item {
    object: &'static str,
    index: usize,
    embedding: Value,
}

async fn embeddings(State(state): State<AppState>, req: Request) -> Response {
    if let Some(r) = refused(&state, &req) {
        return r;
    }
    let body = match axum::body::to_bytes(req.into_body(), super::BODY_LIMIT).await {
        Ok(b) => b,
        Err(e) => return body_error(e),
    };
    let asked = match parse(&body) {
        Ok(a) => a,
        Err(e) => return e.into_response(),
    };
    let slot = EmbedderSlot::shared(&default_model_dir());
    if !slot.present() {
        return OpenAiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "model_not_available",
            format!(
                "the embedding model is not installed at {} (run `make model`, or start the server with ORYX_EMBED_MODEL_DIR set)",
                slot.dir().display()
            ),
        )
        .into_response();
    }
    let work = match state.work.acquire().await {
        Ok(w) => w,
        Err(r) => return OpenAiError::new(r.status, "server_busy", r.message).into_response(),
    };
    let cancel = Arc::new(AtomicBool::new(false));
    let _cancel_on_drop = CancelOnDrop(cancel.clone());
    let base64 = asked.base64;
    let done = tokio::task::spawn_blocking(move || {
        // Held until the work really ends, even when its request has given up.
        let _work = work;
        let embedder = slot.get()?;
        let tokens: usize = asked.texts.iter().map(|t| embedder.tokenize(t).len()).sum();
        let vectors = embedder.embed_batch(&asked.texts, &cancel)?;
        Ok::<_, EmbedError>((vectors, tokens))
    })
    .await;
    let (vectors, tokens) = match done {
        Ok(Ok(v)) => v,
        Ok(Err(EmbedError::ModelMissing { path })) => {
            return OpenAiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "model_not_available",
                format!("the embedding model is missing: no {}", path.display()),
            )
            .into_response()
        }
        Ok(Err(e)) => {
            super::log(&format!("POST /v1/embeddings: {e}"));
            return OpenAiError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "embedding_failed",
                format!("embedding failed: {e}"),
            )
            .into_response();
        }
        Err(_) => {
            return OpenAiError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "internal_error",
                "internal error; see the server log",
            )
            .into_response()
        }
    };
    let data: Vec<Item> = vectors
        .iter()
        .enumerate()
        .map(|(index, v)| Item {
            object: "embedding",
            index,
            embedding: if base64 {
                Value::String(base64_f32(v))
            } else {
                json!(v.as_slice())
            },
        })
        .collect();
    let answer = json!({
        "object": "list",
        "data": data,
        "model": MODEL,
        "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
    });
    match serde_json::to_vec(&answer) {
        Ok(bytes) => Response::builder()
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from(bytes))
            .unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response()),
        Err(e) => OpenAiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal_error",
            e.to_string(),
        )
        .into_response(),
    }
}

/// A body that is too big (413) or stopped arriving (408), in OpenAI's shape.
fn body_error(e: axum::Error) -> Response {
    if super::routes::timed_out(&e) {
        return OpenAiError::new(
            StatusCode::REQUEST_TIMEOUT,
            "body_timeout",
            "the request body stopped arriving before its announced length; send the whole body",
        )
        .into_response();
    }
    OpenAiError::new(
        StatusCode::PAYLOAD_TOO_LARGE,
        "request_too_large",
        format!(
            "the request body is over {} bytes or could not be read ({e}): split the batch",
            super::BODY_LIMIT
        ),
    )
    .into_response()
}

/// A vector as OpenAI's `encoding_format: "base64"` gives it: the little-endian bytes of each
/// `f32`, in standard base64 with padding.
fn base64_f32(v: &[f32]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let bytes: Vec<u8> = v.iter().flat_map(|f| f.to_le_bytes()).collect();
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for (i, shift) in [18, 12, 6, 0].into_iter().enumerate() {
            if i <= chunk.len() {
                out.push(ALPHABET[((n >> shift) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The OpenAPI entries of these routes: OpenAI's shapes, not the envelope.
pub fn openapi_paths() -> serde_json::Map<String, Value> {
    let error = json!({"description": "{error: {message, type, param, code}}", "content": {"application/json": {"schema": {"type": "object"}}}});
    let mut paths = serde_json::Map::new();
    for (method, path, summary) in ROUTES {
        let mut op = json!({
            "summary": summary,
            "security": [{"bearer": []}],
            "responses": {
                "200": {"description": "OpenAI's answer", "content": {"application/json": {"schema": {"type": "object"}}}},
                "401": error, "429": error, "500": error
            }
        });
        if *method == "post" {
            op["requestBody"] = json!({"required": true, "content": {"application/json": {"schema": {"type": "object", "required": ["model", "input"]}}}});
            for status in ["400", "404", "408", "413", "503"] {
                op["responses"][status] = error.clone();
            }
        }
        paths.insert(path.to_string(), json!({ *method: op }));
    }
    paths
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_is_the_standard_alphabet_with_padding() {
        // 1.0f32 = 00 00 80 3f; two floats = 8 bytes (one padding char).
        assert_eq!(base64_f32(&[1.0]), "AACAPw==");
        assert_eq!(base64_f32(&[1.0, -2.0]), "AACAPwAAAMA=");
        assert_eq!(base64_f32(&[]), "");
    }

    #[test]
    fn what_spring_ai_sends_is_accepted() {
        let a = parse(
            format!(
                r#"{{"input":["a","用户住在北京"],"model":"{MODEL}","encoding_format":"float"}}"#
            )
            .as_bytes(),
        )
        .unwrap();
        assert_eq!(a.texts, ["a", "用户住在北京"]);
        assert!(!a.base64);
        let a = parse(
            format!(r#"{{"input":"","model":"{MODEL}","dimensions":512,"user":"u"}}"#).as_bytes(),
        )
        .unwrap();
        assert_eq!(a.texts, [""]);
    }

    #[test]
    fn odd_requests_are_refused_with_their_parameter() {
        let cases: &[(&str, StatusCode, Option<&str>)] = &[
            ("[]", StatusCode::BAD_REQUEST, None),
            ("not json", StatusCode::BAD_REQUEST, None),
            (r#"{"input":"a"}"#, StatusCode::BAD_REQUEST, Some("model")),
            (
                r#"{"input":"a","model":"gpt"}"#,
                StatusCode::NOT_FOUND,
                Some("model"),
            ),
            (r#"{"model":"M"}"#, StatusCode::BAD_REQUEST, Some("input")),
            (
                r#"{"model":"M","input":[]}"#,
                StatusCode::BAD_REQUEST,
                Some("input"),
            ),
            (
                r#"{"model":"M","input":[[1,2]]}"#,
                StatusCode::BAD_REQUEST,
                Some("input"),
            ),
            (
                r#"{"model":"M","input":[1]}"#,
                StatusCode::BAD_REQUEST,
                Some("input"),
            ),
            (
                r#"{"model":"M","input":"a","encoding_format":"int8"}"#,
                StatusCode::BAD_REQUEST,
                Some("encoding_format"),
            ),
            (
                r#"{"model":"M","input":"a","dimensions":256}"#,
                StatusCode::BAD_REQUEST,
                Some("dimensions"),
            ),
        ];
        for (body, status, param) in cases {
            let body = body.replace("\"M\"", &format!("{MODEL:?}"));
            let e = parse(body.as_bytes()).unwrap_err();
            assert_eq!((e.status, e.param), (*status, *param), "{body}");
        }
        let many = json!({"model": MODEL, "input": vec![""; MAX_INPUTS + 1]}).to_string();
        assert_eq!(
            parse(many.as_bytes()).unwrap_err().status,
            StatusCode::PAYLOAD_TOO_LARGE
        );
        let long = json!({"model": MODEL, "input": "x".repeat(MAX_INPUT_BYTES + 1)}).to_string();
        assert_eq!(
            parse(long.as_bytes()).unwrap_err().status,
            StatusCode::PAYLOAD_TOO_LARGE
        );
    }
}
