//! Managed state: the console (which swaps its runtime on a settings change) and the watcher
//! that tells the window when files change on disk.

use std::sync::{Arc, Mutex};

use oryx_api::watch::{ChangeEvent, Watcher};
use oryx_api::Console;
use tauri::{AppHandle, Emitter};

pub const CHANGED_EVENT: &str = "oryx://changed";

pub struct AppState {
    console: Arc<Console>,
    app: Mutex<Option<AppHandle>>,
    watcher: Mutex<Option<Watcher>>,
}

impl AppState {
    pub fn new(console: Console) -> Self {
        AppState {
            console: Arc::new(console),
            app: Mutex::new(None),
            watcher: Mutex::new(None),
        }
    }

    pub fn console(&self) -> Arc<Console> {
        self.console.clone()
    }

    pub fn attach(&self, app: AppHandle) {
        *self.app.lock().unwrap_or_else(|p| p.into_inner()) = Some(app);
        self.rewatch();
    }

    /// Tells the window what a console operation changed: the same event the watcher sends, at
    /// once; a settings change also re-points the watcher at the new root and database.
    pub fn announce(&self, change: ChangeEvent) {
        if change.kind == oryx_api::watch::ChangeKind::Settings {
            self.rewatch();
        }
        if let Some(app) = self.app.lock().unwrap_or_else(|p| p.into_inner()).as_ref() {
            let _ = app.emit(CHANGED_EVENT, change);
        }
    }

    /// Watches the current root and database; a folder that cannot be watched only loses live
    /// refresh, never the console.
    pub fn rewatch(&self) {
        let Some(app) = self.app.lock().unwrap_or_else(|p| p.into_inner()).clone() else {
            return;
        };
        let emitter = app.clone();
        let watcher = self
            .console
            .watch_current(move |changes: Vec<ChangeEvent>| {
                for c in changes {
                    let _ = emitter.emit(CHANGED_EVENT, c);
                }
            });
        let mut slot = self.watcher.lock().unwrap_or_else(|p| p.into_inner());
        match watcher {
            Ok(w) => *slot = Some(w),
            Err(e) => {
                eprintln!("live refresh disabled: {}", e.message);
                *slot = None;
            }
        }
    }
}
