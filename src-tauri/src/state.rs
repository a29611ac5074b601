//! Managed state: the console (which swaps its runtime on a settings change) and the watcher
//! that tells the window when files change on disk.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use oryx_api::watch::{ChangeEvent, Watcher};
use oryx_api::Console;
use tauri::{AppHandle, Emitter};

pub const CHANGED_EVENT: &str = "oryx://changed";

pub struct AppState {
    console: Arc<Console>,
    app: Mutex<Option<AppHandle>>,
    watcher: Mutex<Option<Watcher>>,
    migration: Mutex<Arc<AtomicBool>>,
}

impl AppState {
    pub fn new(console: Console) -> Self {
        AppState {
            console: Arc::new(console),
            app: Mutex::new(None),
            watcher: Mutex::new(None),
            migration: Mutex::new(Arc::new(AtomicBool::new(false))),
        }
    }

    /// A fresh cancel flag for the migration about to start.
    pub fn new_migration(&self) -> Arc<AtomicBool> {
        let flag = Arc::new(AtomicBool::new(false));
        *self.migration.lock().unwrap_or_else(|p| p.into_inner()) = flag.clone();
        flag
    }

    pub fn cancel_migration(&self) {
        self.migration
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .store(true, Ordering::Relaxed);
    }

    pub fn console(&self) -> Arc<Console> {
        self.console.clone()
    }

    pub fn attach(&self, app: AppHandle) {
        *self.app.lock().unwrap_or_else(|p| p.into_inner()) = Some(app);
        self.rewatch();
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
