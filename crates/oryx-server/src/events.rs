//! Live refresh for browsers: the file watcher's change events as server-sent events, and the
//! progress of a running migration (`event: migration`, data `{owner, done, total}`).
//!
//! Change events are unnamed `data: {"kind","agent"}` lines as before; migration progress is a
//! named event whose data has no `kind`, so a client that ignores event names and parses every
//! `data:` line as a change event still skips it.

use std::convert::Infallible;
use std::sync::{Arc, Mutex};

use axum::extract::State;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::routing::get;
use axum::Router;
use futures_util::stream::Stream;
use oryx_api::migrate::MigrationProgress;
use oryx_api::watch::{ChangeEvent, ChangeKind, Watcher};
use oryx_api::Console;
use tokio::sync::broadcast;
use tokio_stream::wrappers::BroadcastStream;
use tokio_stream::StreamExt;

use super::AppState;

/// The SSE event name of migration progress.
pub const MIGRATION_EVENT: &str = "migration";

#[derive(Clone)]
enum Message {
    Change(ChangeEvent),
    Migration(MigrationProgress),
}

#[derive(Clone)]
pub struct Hub {
    tx: broadcast::Sender<Message>,
    console: Arc<Console>,
    watcher: Arc<Mutex<Option<Watcher>>>,
}

impl Hub {
    pub fn start(console: Arc<Console>) -> Hub {
        let (tx, _) = broadcast::channel(256);
        let hub = Hub {
            tx,
            console,
            watcher: Arc::new(Mutex::new(None)),
        };
        hub.rewatch();
        hub
    }

    /// Follows the current root and database (after a settings change too).
    pub fn rewatch(&self) {
        let tx = self.tx.clone();
        let w = self.console.watch_current(move |changes| {
            for c in changes {
                let _ = tx.send(Message::Change(c));
            }
        });
        let mut slot = self.watcher.lock().unwrap_or_else(|p| p.into_inner());
        *slot = match w {
            Ok(w) => Some(w),
            Err(e) => {
                super::log(&format!("live refresh disabled: {}", e.message));
                None
            }
        };
        let _ = self.tx.send(Message::Change(ChangeEvent {
            kind: ChangeKind::Settings,
            agent: None,
        }));
    }

    /// Our own writes are announced at once (the watcher may also report them).
    pub fn notify_memory(&self, agent: Option<String>) {
        let _ = self.tx.send(Message::Change(ChangeEvent {
            kind: ChangeKind::Memory,
            agent,
        }));
    }

    /// Progress of the running migration, to every connected browser (callers throttle).
    pub fn migration_progress(&self, p: MigrationProgress) {
        let _ = self.tx.send(Message::Migration(p));
    }
}

pub fn routes() -> Router<AppState> {
    Router::new().route("/api/v1/console/events", get(events))
}

async fn events(State(s): State<AppState>) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    // The stream never ends by itself: it must when the server stops, or shutdown would wait
    // for every open browser tab.
    let mut stopping = s.stopping.clone();
    let stopped = async move {
        let _ = stopping.wait_for(|s| *s).await;
    };
    let stream = BroadcastStream::new(s.events.tx.subscribe()).filter_map(|msg| {
        Some(Ok(match msg.ok()? {
            Message::Change(change) => Event::default().data(serde_json::to_string(&change).ok()?),
            Message::Migration(p) => Event::default()
                .event(MIGRATION_EVENT)
                .data(serde_json::to_string(&p).ok()?),
        }))
    });
    let stream = futures_util::StreamExt::take_until(stream, Box::pin(stopped));
    Sse::new(stream).keep_alive(KeepAlive::default())
}
