//! The bytes of an export or import (issue #16): the work itself is the registered operations
//! `start_export` / `start_import` / `transfer_status`; here the browser downloads the finished
//! archive and uploads one to import.

use axum::body::Bytes;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Path, Query, Request, State};
use axum::http::{header, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use serde::Deserialize;
use tower::ServiceExt;
use tower_http::services::ServeFile;

use oryx_api::transfer::UploadDto;

use super::{blocking, AppState, HttpError, Reply};

/// Archives are bigger than any JSON request: a 100 MB memory exports to ~30 MB.
pub(crate) const UPLOAD_LIMIT: usize = 2 * 1024 * 1024 * 1024;

pub const ROUTES: &[(&str, &str, &str)] = &[
    (
        "post",
        "/api/v1/console/transfer/upload",
        "Upload an archive to import (body: the .zip bytes; ?name= its file name) → {upload, name, bytes}; pass upload to start_import",
    ),
    (
        "get",
        "/api/v1/console/transfer/{id}/archive",
        "Download a finished export's archive (application/zip, as an attachment)",
    ),
];

pub fn routes() -> Router<AppState> {
    Router::new()
        .route(
            "/api/v1/console/transfer/upload",
            post(upload).layer(axum::extract::DefaultBodyLimit::max(UPLOAD_LIMIT)),
        )
        .route("/api/v1/console/transfer/{id}/archive", get(download))
}

#[derive(Deserialize)]
struct UploadQ {
    #[serde(default)]
    name: Option<String>,
}

async fn upload(
    State(s): State<AppState>,
    q: Result<Query<UploadQ>, QueryRejection>,
    body: Bytes,
) -> Reply<UploadDto> {
    let name = q.ok().and_then(|Query(q)| q.name).unwrap_or_default();
    if body.is_empty() {
        return Reply(Err(HttpError::from(oryx_api::ApiError::invalid(
            "the upload is empty: send the archive's bytes as the body",
        ))));
    }
    Reply(blocking(&s, move |c| c.receive_upload(&name, &body)).await)
}

async fn download(State(s): State<AppState>, Path(id): Path<String>, req: Request) -> Response {
    let found = blocking(&s, move |c| c.export_archive_file(&id)).await;
    let (file, name) = match found {
        Ok(x) => x,
        Err(e) => return Reply::<()>(Err(e)).into_response(),
    };
    let mut res = match ServeFile::new(&file).oneshot(req).await {
        Ok(r) => r.into_response(),
        Err(e) => {
            return Reply::<()>(Err(HttpError::from(oryx_api::ApiError::internal(format!(
                "cannot read the archive: {e}"
            )))))
            .into_response()
        }
    };
    // The name is ours (agent names and a date): plain ASCII or percent-encoded UTF-8.
    let encoded: String = name
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'.' | b'-' | b'_' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect();
    if let Ok(v) = HeaderValue::from_str(&format!(
        "attachment; filename=\"oryx-export.zip\"; filename*=UTF-8''{encoded}"
    )) {
        res.headers_mut().insert(header::CONTENT_DISPOSITION, v);
    }
    res.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/zip"),
    );
    res
}
