//! Live refresh for browsers: the file watcher's change events as server-sent events, and the
//! progress of a running migration (`event: migration`, data `{owner, done, total}`).
//!
//! Change events are unnamed `data: {"kind","agent"}` lines as before; migration progress is a
//! named event whose data has no `kind`, so a client that ignores event names and parses every
//! `data:` line as a change event still skips it.

use std::convert::Infallible;
use std::sync::Arc;

use axum::extract::State;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::routing::get;
use axum::Router;
use futures_util::stream::Stream;
use oryx_api::migrate::MigrationProgress;
use oryx_api::watch::ChangeEvent;
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
}

impl Hub {
    /// Forwards the console's change stream (the watcher and the console's own writes, once
    /// each, following the settings in effect) to every connected browser.
    pub fn start(console: Arc<Console>) -> Hub {
        let (tx, _) = broadcast::channel(256);
        let changes = console.subscribe();
        let forward = tx.clone();
        // Ends when the console is dropped (the stream's senders with it).
        std::thread::spawn(move || {
            for c in changes {
                let _ = forward.send(Message::Change(c));
            }
        });
        Hub { tx }
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
