//! Managed state: the console (which swaps its runtime on a settings change, and whose change
//! stream follows it) and the window its changes are forwarded to.

use std::sync::Arc;

use oryx_api::Console;
use tauri::{AppHandle, Emitter};

pub const CHANGED_EVENT: &str = "oryx://changed";

pub struct AppState {
    console: Arc<Console>,
}

impl AppState {
    pub fn new(console: Console) -> Self {
        AppState {
            console: Arc::new(console),
        }
    }

    pub fn console(&self) -> Arc<Console> {
        self.console.clone()
    }

    /// Forwards the console's change stream to the window: the watcher's reports and the
    /// console's own writes, once each, as over REST.
    pub fn attach(&self, app: AppHandle) {
        let changes = self.console.subscribe();
        std::thread::spawn(move || {
            for change in changes {
                let _ = app.emit(CHANGED_EVENT, change);
            }
        });
    }
}
