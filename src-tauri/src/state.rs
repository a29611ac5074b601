//! Managed state: the console (which swaps its runtime on a settings change, and whose change
//! stream follows it) and the window its changes are forwarded to.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use oryx_api::{ApiError, Console, ErrorCode};
use tauri::{AppHandle, Emitter};

pub const CHANGED_EVENT: &str = "oryx://changed";

/// Which system file dialog to show.
pub enum FileDialog {
    /// Save a file, suggesting this name.
    Save { name: String },
    /// Open an existing archive.
    Open,
}

/// Shows a system file dialog and answers the chosen path (`None`: closed without choosing).
pub type Chooser = dyn Fn(FileDialog) -> Result<Option<PathBuf>, ApiError> + Send + Sync;

/// Set by the desktop tests (which cannot drive the system's file dialog): the path the
/// "dialog" answers with, empty for "closed". The page can never set it; whoever starts the app
/// can.
pub const DIALOG_ANSWER_ENV: &str = "ORYX_TEST_FILE_DIALOG";

pub struct AppState {
    console: Arc<Console>,
    chooser: OnceLock<Arc<Chooser>>,
}

impl AppState {
    pub fn new(console: Console) -> Self {
        AppState {
            console: Arc::new(console),
            chooser: OnceLock::new(),
        }
    }

    /// The app's file dialog (set once the window exists).
    pub fn set_chooser(&self, chooser: Arc<Chooser>) {
        let _ = self.chooser.set(chooser);
    }

    /// The file dialog to use now: the tests' fixed answer, the system's, or none.
    pub fn chooser(&self) -> Arc<Chooser> {
        if let Some(answer) = std::env::var_os(DIALOG_ANSWER_ENV) {
            let answer = (!answer.is_empty()).then(|| PathBuf::from(answer));
            return Arc::new(move |_| Ok(answer.clone()));
        }
        match self.chooser.get() {
            Some(c) => c.clone(),
            None => Arc::new(|_| {
                Err(ApiError::new(
                    ErrorCode::Internal,
                    "this window cannot show a file dialog",
                ))
            }),
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
