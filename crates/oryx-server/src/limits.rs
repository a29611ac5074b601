//! Bounds on what one client can hold: time per request, time to send headers and bodies,
//! connections, and threads doing console work.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::Response;
use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore};

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
    /// Console operations running at once on blocking threads. SQLite (unix) keeps the
    /// descriptor of each closed connection for reuse while another connection of the process
    /// holds a lock on the same file (the change watcher's, the sqlite memory store's: WAL
    /// readers keep a shared lock), so this also bounds the database handles a burst leaves.
    pub max_blocking: usize,
}

/// A timeout flag's value that is not a duration the server accepts.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DurationError {
    #[error("{0:?} is not a duration (e.g. 30, 30s or 500ms)")]
    NotADuration(String),
    #[error("{0:?}: a duration must be above 0 and at most a day")]
    OutOfRange(String),
}

/// `250ms`, `2s`, `1.5` (seconds): the timeout flags.
pub fn parse_duration(s: &str) -> Result<Duration, DurationError> {
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
        .map_err(|_| DurationError::NotADuration(s.to_string()))?;
    if !v.is_finite() || v <= 0.0 || v * scale > 86_400.0 {
        return Err(DurationError::OutOfRange(s.to_string()));
    }
    Ok(Duration::from_secs_f64(v * scale))
}

/// Routes whose answers take as long as they take: the event stream answers at once and then
/// streams, a migration runs until done or cancelled (POST migrate/cancel stops it), and a
/// summary proposal may wait for the LLM summariser, which has a timeout of its own (Settings →
/// Summaries; its error says what happened, where a 504 here would not).
pub fn untimed(path: &str) -> bool {
    path == "/api/v1/console/events"
        || path == "/api/v1/console/migrate"
        || path == "/api/v1/console/propose_summary"
        || path == "/api/v1/console/transfer/upload"
        || (path.starts_with("/api/v1/console/transfer/") && path.ends_with("/archive"))
}

pub async fn request_timeout(State(limit): State<Duration>, req: Request, next: Next) -> Response {
    if untimed(req.uri().path()) {
        return next.run(req).await;
    }
    let what = format!("{} {}", req.method(), req.uri().path());
    // Reads are named by their URI, so work stuck for one of them is not started again.
    let tag = (req.method() == axum::http::Method::GET).then(|| ReadTag {
        uri: req.uri().to_string(),
        gave_up: Arc::new(AtomicBool::new(false)),
    });
    let gave_up = tag.as_ref().map(|t| t.gave_up.clone());
    let run = next.run(req);
    let run = async move {
        match tag {
            Some(t) => READ.scope(t, run).await,
            None => run.await,
        }
    };
    match tokio::time::timeout(limit, run).await {
        Ok(res) => res,
        Err(_) => {
            if let Some(g) = gave_up {
                g.store(true, Ordering::Relaxed);
            }
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

/// The GET request whose handler runs (none for writes).
#[derive(Clone)]
struct ReadTag {
    uri: String,
    /// Set when the request was answered 504: work still running for it is stuck.
    gave_up: Arc<AtomicBool>,
}

tokio::task_local! {
    static READ: ReadTag;
}

/// Console work on blocking threads, at most `size` at once. Work that never returns (a FIFO,
/// a dead network mount) keeps its permit, so it can exhaust only this budget, never tokio's
/// blocking pool that the rest of the server needs; and the same read is not started again
/// while an earlier run of it is stuck, so a client that retries does not use up the budget.
#[derive(Clone)]
pub struct WorkPermits {
    sem: Arc<Semaphore>,
    size: usize,
    /// How long a request waits for a free slot before it is answered 503.
    wait: Duration,
    running: Arc<Running>,
    idle: Arc<Notify>,
}

#[derive(Default)]
struct Running {
    next_id: AtomicU64,
    /// GET URI -> each run still working: (id, start, its request gave up).
    by_key: Mutex<HashMap<String, Vec<RunEntry>>>,
}

type RunEntry = (u64, Instant, Arc<AtomicBool>);

impl Running {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Vec<RunEntry>>> {
        self.by_key.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// A slot for one piece of console work; give it to the blocking closure so it is released
/// only when the work really ends.
pub struct Work {
    _permit: OwnedSemaphorePermit,
    _run: Option<RunGuard>,
    permits: Arc<Semaphore>,
    size: usize,
    idle: Arc<Notify>,
}

impl Drop for Work {
    fn drop(&mut self) {
        if self.permits.available_permits() + 1 == self.size {
            self.idle.notify_one();
        }
    }
}

/// After the last work of a burst, once the workers have stayed idle a moment: hand back the
/// memory their allocator arenas kept.
async fn trim_when_idle(permits: Arc<Semaphore>, size: usize, idle: Arc<Notify>) {
    loop {
        idle.notified().await;
        tokio::time::sleep(Duration::from_millis(500)).await;
        if permits.available_permits() == size {
            let _ = tokio::task::spawn_blocking(crate::allocator::trim_heap).await;
        }
    }
}

struct RunGuard {
    running: Arc<Running>,
    key: String,
    id: u64,
}

impl Drop for RunGuard {
    fn drop(&mut self) {
        let mut map = self.running.lock();
        if let Some(runs) = map.get_mut(&self.key) {
            runs.retain(|(id, _, _)| *id != self.id);
            if runs.is_empty() {
                map.remove(&self.key);
            }
        }
    }
}

/// Why no work was started: the status and message of the answer.
pub struct Refused {
    pub status: StatusCode,
    pub message: String,
}

impl WorkPermits {
    /// Call within the runtime: it starts the task that trims the heap after bursts.
    pub fn new(size: usize, wait: Duration) -> WorkPermits {
        let sem = Arc::new(Semaphore::new(size));
        let idle = Arc::new(Notify::new());
        tokio::spawn(trim_when_idle(sem.clone(), size, idle.clone()));
        WorkPermits {
            sem,
            size,
            wait,
            running: Arc::default(),
            idle,
        }
    }

    pub async fn acquire(&self) -> Result<Work, Refused> {
        let tag = READ.try_with(ReadTag::clone).ok();
        if let Some(t) = &tag {
            let k = &t.uri;
            let stuck_for = self.running.lock().get(k).and_then(|runs| {
                runs.iter()
                    .filter(|(_, _, gave_up)| gave_up.load(Ordering::Relaxed))
                    .map(|(_, start, _)| start.elapsed())
                    .max()
            });
            if let Some(age) = stuck_for {
                return Err(Refused {
                    status: StatusCode::GATEWAY_TIMEOUT,
                    message: format!(
                        "GET {k} is still running from an earlier request, for {} s now (stuck on a file or the database?); see the server log",
                        age.as_secs()
                    ),
                });
            }
        }
        let permit = match tokio::time::timeout(self.wait, self.sem.clone().acquire_owned()).await
        {
            Ok(Ok(p)) => p,
            _ => {
                return Err(Refused {
                    status: StatusCode::SERVICE_UNAVAILABLE,
                    message: format!(
                        "the server is busy: all {} console workers are still running earlier requests (some may be stuck on a file that does not answer); see the server log",
                        self.size
                    ),
                })
            }
        };
        let run = tag.map(|t| {
            let id = self.running.next_id.fetch_add(1, Ordering::Relaxed);
            self.running.lock().entry(t.uri.clone()).or_default().push((
                id,
                Instant::now(),
                t.gave_up,
            ));
            RunGuard {
                running: self.running.clone(),
                key: t.uri,
                id,
            }
        });
        Ok(Work {
            _permit: permit,
            _run: run,
            permits: self.sem.clone(),
            size: self.size,
            idle: self.idle.clone(),
        })
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
        for bad in ["", "abc", "1h"] {
            assert_eq!(
                parse_duration(bad),
                Err(DurationError::NotADuration(bad.to_string())),
                "{bad}"
            );
        }
        for bad in ["0", "-1", "nan", "100000"] {
            assert_eq!(
                parse_duration(bad),
                Err(DurationError::OutOfRange(bad.to_string())),
                "{bad}"
            );
        }
    }

    #[tokio::test]
    async fn stuck_work_exhausts_only_its_own_budget() {
        let permits = WorkPermits::new(2, Duration::from_millis(50));
        let a = permits.acquire().await.ok().unwrap();
        let _b = permits.acquire().await.ok().unwrap();
        let err = permits.acquire().await.err().unwrap();
        assert_eq!(err.status, StatusCode::SERVICE_UNAVAILABLE);
        assert!(
            err.message.contains("all 2 console workers"),
            "{}",
            err.message
        );
        drop(a);
        assert!(permits.acquire().await.is_ok());
    }

    #[tokio::test]
    async fn a_read_whose_request_gave_up_is_not_started_again() {
        let permits = WorkPermits::new(4, Duration::from_millis(50));
        let tag = |uri: &str| ReadTag {
            uri: uri.into(),
            gave_up: Arc::new(AtomicBool::new(false)),
        };
        let first = tag("/api/v1/agents");
        let stuck = READ
            .scope(first.clone(), permits.acquire())
            .await
            .ok()
            .unwrap();
        // Still within its time: a second identical read may run alongside.
        let alongside = READ.scope(tag("/api/v1/agents"), permits.acquire()).await;
        assert!(alongside.is_ok());
        drop(alongside);
        first.gave_up.store(true, Ordering::Relaxed);
        let again = READ.scope(tag("/api/v1/agents"), permits.acquire()).await;
        let err = again.err().unwrap();
        assert_eq!(err.status, StatusCode::GATEWAY_TIMEOUT);
        assert!(err.message.contains("still running"), "{}", err.message);
        // Another read, and writes (no tag), still get a worker.
        assert!(READ
            .scope(tag("/api/v1/sessions"), permits.acquire())
            .await
            .is_ok());
        assert!(permits.acquire().await.is_ok());
        drop(stuck);
        assert!(READ
            .scope(tag("/api/v1/agents"), permits.acquire())
            .await
            .is_ok());
    }
}
