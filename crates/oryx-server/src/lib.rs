//! The console's REST server (`oryx serve`): the runtime's routes of CONTRACT §10, every registered
//! operation as `POST /api/v1/console/<op>`, and the built UI for a browser.
//!
//! Hosts call [`serve`] with an opened `Console` and [`ServeOptions`]; [`router`] is the same
//! application without a listener, for tests.

#![deny(unsafe_code)]

mod allocator;
mod auth;
mod compat;
mod connections;
mod embeddings;
mod envelope;
mod events;
mod host_guard;
mod limits;
mod openapi;
mod ops;
mod routes;
mod security_headers;
mod tls;
mod transfer;

#[cfg(test)]
mod rejections_tests;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{DefaultBodyLimit, Request};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Router;
use oryx_api::{ApiError, ApiResult, Console, ErrorCode};
use tokio::sync::watch;
use tower::ServiceExt;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::services::{ServeDir, ServeFile};
use tower_http::timeout::RequestBodyTimeoutLayer;

pub(crate) use envelope::{path_param, HttpError, Reply};
pub use limits::{parse_duration, DurationError, Limits};
pub use tls::{TlsError, TlsFiles};

/// Request bodies larger than this are refused with 413 (memory entries are one line).
pub(crate) const BODY_LIMIT: usize = 1024 * 1024;

#[derive(Clone)]
pub(crate) struct AppState {
    pub console: Arc<Console>,
    pub token: Option<Arc<String>>,
    pub events: events::Hub,
    pub work: limits::WorkPermits,
    /// Turns true when the server is stopping: long answers (the event stream) end.
    pub stopping: watch::Receiver<bool>,
    /// How long a request body may pause (named in the answer when it does).
    pub body_timeout: Duration,
    /// Sessions the admin UI's login opened (their ids are its cookie).
    pub logins: Arc<auth::logins::Logins>,
    /// Wrong credentials, per client address.
    pub throttle: Arc<auth::throttle::Throttle>,
    /// Served over TLS: cookies are `Secure`, HSTS is sent.
    pub tls: bool,
}

pub struct ServeOptions {
    pub bind: SocketAddr,
    pub token: Option<String>,
    pub ui_dir: Option<PathBuf>,
    /// `--allow-host`: more names the server answers to (behind a proxy, on a LAN name).
    pub allow_hosts: Vec<String>,
    pub limits: Limits,
    /// `--tls-cert/--tls-key`: serve HTTPS instead of HTTP.
    pub tls: Option<TlsFiles>,
}

/// One line on the server's stderr. Never panics: a closed stderr (the terminal went away)
/// must not take a request down with it.
pub fn log(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "oryx serve: {line}");
}

/// The UI: `--ui-dir`, else `ui/dist` of this source tree, else next to the binary.
fn find_ui_dir(explicit: Option<PathBuf>) -> Option<PathBuf> {
    if explicit.is_some() {
        return explicit;
    }
    let candidates = [
        Some(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../ui/dist")),
        std::env::current_exe()
            .ok()
            .and_then(|e| e.parent().map(|p| p.join("ui"))),
    ];
    candidates
        .into_iter()
        .flatten()
        .find(|p| p.join("index.html").is_file())
}

pub(crate) fn router(
    state: AppState,
    ui_dir: Option<PathBuf>,
    hosts: host_guard::AllowedHosts,
    limits: &Limits,
) -> Router {
    let ui = ui_dir.map(Arc::new);
    let body_timeout = state.body_timeout;
    // Layers run outside in, last added first: a panic is caught around everything, a foreign
    // Host is refused before any other work, then the clock starts.
    Router::new()
        .merge(compat::routes())
        .merge(routes::routes())
        .merge(ops::routes())
        .merge(events::routes())
        .merge(transfer::routes())
        .merge(embeddings::routes())
        .route(
            "/api/v1/openapi.json",
            axum::routing::get(openapi::document),
        )
        .method_not_allowed_fallback(|| async {
            envelope::rejection(
                StatusCode::METHOD_NOT_ALLOWED,
                "this route does not take that method",
            )
        })
        .fallback(move |req: Request| static_or_404(ui.clone(), req))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            auth::require_token,
        ))
        .layer(RequestBodyTimeoutLayer::new(body_timeout))
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .layer(axum::middleware::from_fn_with_state(
            limits.request,
            limits::request_timeout,
        ))
        .layer(axum::middleware::from_fn_with_state(
            Arc::new(hosts),
            host_guard::guard,
        ))
        .layer(CatchPanicLayer::custom(|_| {
            envelope::rejection(
                StatusCode::INTERNAL_SERVER_ERROR,
                "internal error; see the server log",
            )
        }))
        // Outermost: every answer carries them, a refusal or a caught panic too.
        .layer(axum::middleware::from_fn_with_state(
            state.tls,
            security_headers::add,
        ))
        .with_state(state)
}

/// Unknown API paths answer in the envelope; everything else is the UI (index.html for the
/// client-side routes).
async fn static_or_404(ui: Option<Arc<PathBuf>>, req: Request) -> Response {
    match ui {
        Some(dir) if !req.uri().path().starts_with("/api/") => {
            let index = dir.join("index.html");
            match ServeDir::new(dir.as_path())
                .fallback(ServeFile::new(index))
                .oneshot(req)
                .await
            {
                Ok(res) => res.into_response(),
                Err(e) => envelope::rejection(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    format!("cannot serve the UI: {e}"),
                ),
            }
        }
        _ => envelope::rejection(StatusCode::NOT_FOUND, "no such API route"),
    }
}

pub fn check_bind(bind: &SocketAddr, token: &Option<String>) -> ApiResult<()> {
    if !bind.ip().is_loopback() && token.as_deref().is_none_or(str::is_empty) {
        return Err(ApiError::new(
            ErrorCode::InvalidInput,
            format!("refusing to listen on {bind} without --token: only loopback addresses may be served without authentication"),
        ));
    }
    Ok(())
}

/// Serves until Ctrl-C or SIGTERM, then ends the process (see below).
pub fn serve(console: Console, opts: ServeOptions) -> ApiResult<()> {
    run(console, opts, None, None)
}

/// As [`serve`], on a listener the caller bound (`opts.bind` should be its address), until
/// `stop` resolves: for a host that runs the server inside a process of its own, such as
/// tests binding port 0 to learn the port first. No signal handler is installed and the
/// process is never ended.
pub fn serve_until(
    console: Console,
    opts: ServeOptions,
    listener: std::net::TcpListener,
    stop: impl std::future::Future<Output = ()> + Send + 'static,
) -> ApiResult<()> {
    run(console, opts, Some(listener), Some(Box::pin(stop)))
}

type StopFuture = std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>>;

fn run(
    console: Console,
    opts: ServeOptions,
    bound: Option<std::net::TcpListener>,
    stop: Option<StopFuture>,
) -> ApiResult<()> {
    check_bind(&opts.bind, &opts.token)?;
    // Bad certificate files stop the server before it listens.
    let (tls, fingerprint) = match opts.tls.as_ref().map(tls::acceptor).transpose()? {
        Some((acceptor, fp)) => (Some(acceptor), Some(fp)),
        None => (None, None),
    };
    allocator::tune_allocator();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        // Console work is capped by its permits; the rest (UI files) needs few threads.
        .max_blocking_threads(opts.limits.max_blocking + 32)
        .build()
        .map_err(|e| {
            ApiError::new(
                ErrorCode::Internal,
                format!("cannot start the server runtime: {e}"),
            )
        })?;
    let result = runtime.block_on(async move {
        let listener = match bound {
            Some(l) => l
                .set_nonblocking(true)
                .and_then(|()| tokio::net::TcpListener::from_std(l)),
            None => tokio::net::TcpListener::bind(opts.bind).await,
        }
        .map_err(|e| {
            ApiError::new(
                ErrorCode::Io,
                format!("cannot listen on {}: {e}", opts.bind),
            )
        })?;
        let addr = listener
            .local_addr()
            .map_err(|e| ApiError::new(ErrorCode::Io, e.to_string()))?;
        let ui = find_ui_dir(opts.ui_dir);
        let scheme = if tls.is_some() { "https" } else { "http" };
        // The address line comes first: scripts and tests read it from stderr.
        match &ui {
            Some(d) => log(&format!("{scheme}://{addr}/ (UI from {})", d.display())),
            None => log(&format!(
                "{scheme}://{addr}/api/v1/ (UI not built: run `make ui`)"
            )),
        }
        if let Some(fp) = &fingerprint {
            log(&format!("TLS certificate SHA-256 fingerprint: {fp}"));
        }
        let (stop_tx, stop_rx) = watch::channel(false);
        let console = Arc::new(console);
        let events = events::Hub::start(console.clone());
        let state = AppState {
            console,
            token: opts.token.filter(|t| !t.is_empty()).map(Arc::new),
            events,
            work: limits::WorkPermits::new(
                opts.limits.max_blocking,
                // Well inside the request's own limit, so a full budget answers 503, not 504.
                (opts.limits.request / 2).min(Duration::from_secs(5)),
            ),
            stopping: stop_rx.clone(),
            body_timeout: opts.limits.body,
            logins: Default::default(),
            throttle: Default::default(),
            tls: tls.is_some(),
        };
        let hosts = host_guard::AllowedHosts::new(addr, &opts.allow_hosts);
        let console_for_stop = state.console.clone();
        let app = router(state, ui, hosts, &opts.limits);
        let grace = opts.limits.shutdown_grace;
        tokio::spawn(async move {
            let signal = match stop {
                Some(stop) => {
                    stop.await;
                    None
                }
                None => {
                    let signal = stop_signal().await;
                    log(&format!("{signal}: stopping"));
                    Some(signal)
                }
            };
            let _ = stop_tx.send(true);
            // A running migration stops between entries, so the grace period ends it cleanly.
            console_for_stop.cancel_migration();
            if signal.is_none() {
                return;
            }
            // Whatever still holds the process (a thread stuck in a blocking call that a drop
            // waits for), it ends soon after the grace period.
            let deadline = grace + Duration::from_secs(2);
            std::thread::spawn(move || {
                std::thread::sleep(deadline);
                log("still not stopped: exiting now");
                std::process::exit(0);
            });
        });
        connections::serve(listener, tls, app, &opts.limits, stop_rx).await;
        Ok(())
    });
    // Work stuck in a blocking call (a FIFO, a dead mount) cannot be interrupted: leave it
    // behind rather than wait for it, so the process ends.
    runtime.shutdown_timeout(Duration::from_millis(500));
    result
}

/// Ctrl-C, or SIGTERM (service managers, `kill`).
async fn stop_signal() -> &'static str {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            return tokio::select! {
                _ = term.recv() => "SIGTERM",
                _ = tokio::signal::ctrl_c() => "Ctrl-C",
            };
        }
    }
    let _ = tokio::signal::ctrl_c().await;
    "Ctrl-C"
}

/// Runs blocking console work off the async threads, within the server's worker budget.
pub(crate) async fn blocking<T: Send + 'static>(
    state: &AppState,
    f: impl FnOnce(&Console) -> ApiResult<T> + Send + 'static,
) -> Result<T, HttpError> {
    let work = state
        .work
        .acquire()
        .await
        .map_err(|r| HttpError::new(r.status, r.message))?;
    let console = state.console.clone();
    tokio::task::spawn_blocking(move || {
        // Held until the work really ends, even when its request has given up.
        let _work = work;
        f(&console)
    })
    .await
    .map_err(|_| {
        HttpError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal error; see the server log",
        )
    })?
    .map_err(HttpError::from)
}
