//! The accept loop: every connection served by hyper with a header-read deadline, at most
//! `max_connections` at once, and a shutdown that ends within the grace period whatever the
//! open requests are doing.

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Router;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpListener;
use tokio::sync::{watch, Semaphore};
use tokio::task::JoinSet;
use tokio_rustls::TlsAcceptor;

use super::envelope::{now_ms, Envelope};
use super::limits::Limits;
use super::log;

/// Serves until `stop` turns true, then lets open requests finish for the grace period.
pub async fn serve(
    listener: TcpListener,
    tls: Option<TlsAcceptor>,
    app: Router,
    limits: &Limits,
    mut stop: watch::Receiver<bool>,
) {
    let slots = Arc::new(Semaphore::new(limits.max_connections));
    let mut conns = JoinSet::new();
    let mut refused = 0usize;
    let mut last_refusal_log: Option<Instant> = None;
    loop {
        let accepted = tokio::select! {
            a = listener.accept() => a,
            _ = stopped(&mut stop) => break,
            // Reap finished connections so the set does not grow for the server's lifetime.
            Some(_) = conns.join_next(), if !conns.is_empty() => continue,
        };
        let (stream, peer) = match accepted {
            Ok(v) => v,
            Err(e) => {
                // Out of file descriptors and the like: wait instead of spinning.
                log(&format!("cannot accept a connection: {e}"));
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let Ok(slot) = slots.clone().try_acquire_owned() else {
            // One line a second at most: a flood must not flood the log too.
            refused += 1;
            if last_refusal_log.is_none_or(|t: Instant| t.elapsed() >= Duration::from_secs(1)) {
                log(&format!(
                    "refused {refused} connection(s), the last from {peer}: {} connections are open (the limit)",
                    limits.max_connections
                ));
                refused = 0;
                last_refusal_log = Some(Instant::now());
            }
            // Over TLS a plain-text answer would be noise: the connection just closes.
            if tls.is_none() {
                conns.spawn(refuse_busy(stream, limits.max_connections));
            }
            continue;
        };
        let _ = stream.set_nodelay(true);
        // The peer's address travels with each request (the login throttle counts by it).
        let service = TowerToHyperService::new(tower::ServiceExt::map_request(
            app.clone(),
            move |mut req: hyper::Request<hyper::body::Incoming>| {
                req.extensions_mut()
                    .insert(axum::extract::ConnectInfo(peer));
                req
            },
        ));
        let mut builder = http1::Builder::new();
        builder
            .timer(TokioTimer::new())
            .header_read_timeout(limits.header)
            .keep_alive(true);
        let mut stop = stop.clone();
        let tls = tls.clone();
        let handshake_limit = limits.header;
        conns.spawn(async move {
            match tls {
                None => serve_one(stream, builder, service, &mut stop).await,
                Some(acceptor) => {
                    // The handshake gets the same time as a request head: a silent client
                    // cannot hold a connection slot.
                    match tokio::time::timeout(handshake_limit, acceptor.accept(stream)).await {
                        Ok(Ok(stream)) => serve_one(stream, builder, service, &mut stop).await,
                        Ok(Err(e)) => log(&format!("TLS handshake with {peer} failed: {e}")),
                        Err(_) => log(&format!("TLS handshake with {peer} timed out")),
                    }
                }
            }
            drop(slot);
        });
    }
    drop(listener);
    let open = conns.len();
    if open > 0
        && tokio::time::timeout(limits.shutdown_grace, async {
            while conns.join_next().await.is_some() {}
        })
        .await
        .is_err()
    {
        log(&format!(
            "{} connection(s) still busy after {} s: stopping anyway",
            conns.len(),
            limits.shutdown_grace.as_secs_f64()
        ));
        conns.abort_all();
    }
}

/// One connection, plain or TLS, until it ends or the server stops.
async fn serve_one<S, A>(
    stream: S,
    builder: http1::Builder,
    service: TowerToHyperService<A>,
    stop: &mut watch::Receiver<bool>,
) where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
    A: tower::Service<hyper::Request<hyper::body::Incoming>, Response = axum::response::Response>
        + Clone
        + Send
        + 'static,
    A::Future: Send + 'static,
    A::Error: std::error::Error + Send + Sync + 'static,
{
    let conn = builder.serve_connection(TokioIo::new(stream), service);
    tokio::pin!(conn);
    tokio::select! {
        _ = conn.as_mut() => {}
        _ = stopped(stop) => {
            // Finish the request in progress, take no new one.
            conn.as_mut().graceful_shutdown();
            let _ = conn.as_mut().await;
        }
    }
}

async fn stopped(stop: &mut watch::Receiver<bool>) {
    // The guard `wait_for` returns must not live across an await (it is not Send).
    let _ = stop.wait_for(|s| *s).await;
}

/// One answer in the envelope and close: better than a reset the client cannot explain.
async fn refuse_busy(mut stream: tokio::net::TcpStream, max: usize) {
    let body = serde_json::to_string(&Envelope::<()> {
        code: 503,
        message: format!("the server has {max} connections open (its limit); try again shortly"),
        data: None,
        timestamp: now_ms(),
        error_code: Some(oryx_api::ErrorCode::BackendUnavailable),
    })
    .unwrap_or_default();
    let head = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\nretry-after: 1\r\n\r\n",
        body.len()
    );
    let _ = tokio::time::timeout(Duration::from_secs(1), async {
        stream.write_all(head.as_bytes()).await?;
        stream.write_all(body.as_bytes()).await?;
        stream.shutdown().await
    })
    .await;
}
