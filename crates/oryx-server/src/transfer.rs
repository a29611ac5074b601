//! The bytes of an export or import: the work itself is the registered operations
//! `start_export` / `start_import` / `transfer_status`; here the browser downloads the finished
//! archive and uploads one to import.

use axum::body::{Body, Bytes};
use axum::extract::rejection::QueryRejection;
use axum::extract::{Path, Query, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use futures_util::StreamExt;
use serde::Deserialize;
use tower::ServiceExt;
use tower_http::services::ServeFile;

use oryx_api::transfer::UploadDto;

use super::{blocking, AppState, HttpError, Reply};

/// Archives are bigger than any JSON request: a 100 MB memory exports to ~30 MB. The body is
/// streamed to the console's folder as it arrives, so this bounds disk, not memory.
pub(crate) const UPLOAD_LIMIT: u64 = oryx_api::transfer::UPLOAD_LIMIT;

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
        .route("/api/v1/console/transfer/upload", post(upload))
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
    headers: HeaderMap,
    body: Body,
) -> Reply<UploadDto> {
    let name = q.ok().and_then(|Query(q)| q.name).unwrap_or_default();
    let announced = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if announced.is_some_and(|n| n > UPLOAD_LIMIT) {
        return Reply(Err(too_large()));
    }
    // Chunks go to the console's blocking work as they arrive; a few in flight at most.
    let (tx, rx) = tokio::sync::mpsc::channel(4);
    let mut stream = body.into_data_stream();
    let pump = async move {
        let mut total = 0u64;
        while let Some(chunk) = stream.next().await {
            let item = match chunk {
                Ok(c) => {
                    total += c.len() as u64;
                    if total > UPLOAD_LIMIT {
                        let _ = tx.send(Err(Stop::TooLarge)).await;
                        return Some(Stop::TooLarge);
                    }
                    Ok(c)
                }
                Err(e) => {
                    let stop = if crate::routes::timed_out(&e) {
                        Stop::Stalled
                    } else {
                        Stop::Broken(e.to_string())
                    };
                    let _ = tx.send(Err(stop.clone())).await;
                    return Some(stop);
                }
            };
            if tx.send(item).await.is_err() {
                break; // the console stopped reading: its answer says why
            }
        }
        None
    };
    let work = blocking(&s, move |c| {
        c.receive_upload_from(
            &name,
            &mut ChunkReader {
                rx,
                chunk: Bytes::new(),
            },
        )
    });
    let (stopped, received) = tokio::join!(pump, work);
    Reply(match stopped {
        Some(Stop::TooLarge) => Err(too_large()),
        Some(Stop::Stalled) => Err(HttpError::new(
            StatusCode::REQUEST_TIMEOUT,
            "the upload stopped arriving before its announced length (Content-Length); send the whole archive",
        )),
        Some(Stop::Broken(why)) => Err(HttpError::new(
            StatusCode::BAD_REQUEST,
            format!("the upload broke off ({why}); nothing was kept: send the archive again"),
        )),
        None => received,
    })
}

fn too_large() -> HttpError {
    HttpError::new(
        StatusCode::PAYLOAD_TOO_LARGE,
        format!("an archive upload may have at most {UPLOAD_LIMIT} bytes"),
    )
}

/// Why the body ended before its end.
#[derive(Clone)]
enum Stop {
    TooLarge,
    Stalled,
    Broken(String),
}

impl std::fmt::Display for Stop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Stop::TooLarge => write!(f, "more than {UPLOAD_LIMIT} bytes"),
            Stop::Stalled => f.write_str("it stopped arriving"),
            Stop::Broken(why) => f.write_str(why),
        }
    }
}

/// The upload's chunks as a `Read`, for the console's blocking work.
struct ChunkReader {
    rx: tokio::sync::mpsc::Receiver<Result<Bytes, Stop>>,
    chunk: Bytes,
}

impl std::io::Read for ChunkReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while self.chunk.is_empty() {
            match self.rx.blocking_recv() {
                None => return Ok(0),
                Some(Ok(c)) => self.chunk = c,
                Some(Err(stop)) => {
                    return Err(std::io::Error::other(format!(
                        "the upload ended early: {stop}"
                    )))
                }
            }
        }
        let n = buf.len().min(self.chunk.len());
        buf[..n].copy_from_slice(&self.chunk.split_to(n));
        Ok(n)
    }
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
