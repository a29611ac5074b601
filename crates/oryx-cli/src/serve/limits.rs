//! Bounds on what one client can hold: time per request, time to send headers and bodies,
//! connections, and threads doing console work.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::Response;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::envelope::rejection;
use super::log;

#[derive(Debug, Clone)]
pub struct Limits {
    /// Whole request, until the answer's head is ready (SSE and migration excluded).
    pub request: Duration,
    /// From connection open, or the end of the previous answer, to a complete request head:
    /// covers slow headers and idle kept-alive connections.
    pub header: Duration,
    /// Longest wait for the next piece of a request body.
    pub body: Duration,
    /// After SIGTERM or Ctrl-C: how long open requests may finish before the process exits.
    pub shutdown_grace: Duration,
    /// Open connections; more are answered 503 and closed.
    pub max_connections: usize,
    /// Console operations running at once on blocking threads. SQLite keeps the descriptors of
    /// closed connections while the memory store's connection holds its lock on the same file,
    /// so this also bounds the database handles a burst leaves behind.
    pub max_blocking: usize,
}

/// `250ms`, `2s`, `1.5` (seconds): the timeout flags.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    let (num, scale) = if let Some(n) = s.strip_suffix("ms") {
        (n, 0.001)
    } else if let Some(n) = s.strip_suffix('s') {
        (n, 1.0)
    } else {
        (s, 1.0)
    };
    let v: f64 = num
        .trim()
        .parse()
        .map_err(|_| format!("{s:?} is not a duration (e.g. 30, 30s or 500ms)"))?;
    if !v.is_finite() || v <= 0.0 || v * scale > 86_400.0 {
        return Err(format!(
            "{s:?}: a duration must be above 0 and at most a day"
        ));
    }
    Ok(Duration::from_secs_f64(v * scale))
}

/// Routes whose answers take as long as they take: the event stream answers at once and then
/// streams, a migration runs until done or cancelled (POST migrate/cancel stops it).
pub fn untimed(path: &str) -> bool {
    path == "/api/v1/console/events" || path == "/api/v1/console/migrate"
}

pub async fn request_timeout(State(limit): State<Duration>, req: Request, next: Next) -> Response {
    if untimed(req.uri().path()) {
        return next.run(req).await;
    }
    let what = format!("{} {}", req.method(), req.uri().path());
    match tokio::time::timeout(limit, next.run(req)).await {
        Ok(res) => res,
        Err(_) => {
            log(&format!(
                "{what} did not finish within {} s: answered 504 (work stuck on a file or the database keeps one worker busy until it returns)",
                limit.as_secs_f64()
            ));
            rejection(
                StatusCode::GATEWAY_TIMEOUT,
                format!(
                    "{what} did not finish within {} s (a file or the database did not answer); see the server log",
                    limit.as_secs_f64()
                ),
            )
        }
    }
}

/// Console work on blocking threads, at most `max_blocking` at once. Work that never returns
/// (a FIFO, a dead network mount) keeps its permit, so it can exhaust only this budget, never
/// tokio's blocking pool that the rest of the server needs.
#[derive(Clone)]
pub struct WorkPermits {
    sem: Arc<Semaphore>,
    size: usize,
    /// How long a request waits for a free slot before it is answered 503.
    wait: Duration,
}

impl WorkPermits {
    pub fn new(size: usize, wait: Duration) -> WorkPermits {
        WorkPermits {
            sem: Arc::new(Semaphore::new(size)),
            size,
            wait,
        }
    }

    pub async fn acquire(&self) -> Result<OwnedSemaphorePermit, String> {
        match tokio::time::timeout(self.wait, self.sem.clone().acquire_owned()).await {
            Ok(Ok(p)) => Ok(p),
            _ => Err(format!(
                "the server is busy: all {} console workers are still running earlier requests (some may be stuck on a file that does not answer); see the server log",
                self.size
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_in_seconds_or_milliseconds() {
        assert_eq!(parse_duration("30").unwrap(), Duration::from_secs(30));
        assert_eq!(parse_duration("2s").unwrap(), Duration::from_secs(2));
        assert_eq!(parse_duration("500ms").unwrap(), Duration::from_millis(500));
        assert_eq!(parse_duration("1.5").unwrap(), Duration::from_millis(1500));
        for bad in ["", "0", "-1", "abc", "1h", "nan", "100000"] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
    }

    #[tokio::test]
    async fn stuck_work_exhausts_only_its_own_budget() {
        let permits = WorkPermits::new(2, Duration::from_millis(50));
        let a = permits.acquire().await.unwrap();
        let _b = permits.acquire().await.unwrap();
        let err = permits.acquire().await.unwrap_err();
        assert!(err.contains("all 2 console workers"), "{err}");
        drop(a);
        assert!(permits.acquire().await.is_ok());
    }
}
