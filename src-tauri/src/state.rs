//! Managed state: the console (which swaps its runtime on a settings change, and whose change
//! stream follows it) and the window its changes are forwarded to.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock, RwLock};

use oryx_api::remote::{RemoteConsole, RemoteEvent, RemoteInfoDto};
use oryx_api::{ApiError, Console, ErrorCode};
use tauri::{AppHandle, Emitter, Runtime};

use crate::tokens::TokenStore;

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

/// Sends a change event to the window.
type Emit = dyn Fn(serde_json::Value) + Send + Sync;

/// The console a call goes to.
pub enum Shown {
    Local(Arc<Console>),
    Remote(RemoteConsole),
}

/// A remote console being shown, and the switch that stops following its events.
struct Connected {
    console: RemoteConsole,
    info: RemoteInfoDto,
    stop: Arc<AtomicBool>,
}

pub struct AppState {
    console: Arc<Console>,
    remote: Arc<RwLock<Option<Connected>>>,
    emit: OnceLock<Arc<Emit>>,
    chooser: OnceLock<Arc<Chooser>>,
    tokens: OnceLock<TokenStore>,
}

impl AppState {
    pub fn new(console: Console) -> Self {
        AppState {
            console: Arc::new(console),
            remote: Arc::new(RwLock::new(None)),
            emit: OnceLock::new(),
            chooser: OnceLock::new(),
            tokens: OnceLock::new(),
        }
    }

    /// Where remembered tokens go (asked once: the Secret Service may take a moment to answer).
    pub fn tokens(&self) -> TokenStore {
        *self.tokens.get_or_init(TokenStore::detect)
    }

    /// The console calls go to now.
    pub fn shown(&self) -> Shown {
        match &*self.remote.read().unwrap_or_else(|e| e.into_inner()) {
            Some(c) => Shown::Remote(c.console.clone()),
            None => Shown::Local(self.console.clone()),
        }
    }

    /// The remote console shown, if any.
    pub fn remote_info(&self) -> Option<RemoteInfoDto> {
        self.remote
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .as_ref()
            .map(|c| c.info.clone())
    }

    /// Shows `console` from now on (`None`: this computer's) and tells the window that
    /// everything changed.
    pub fn show(&self, console: Option<(RemoteConsole, RemoteInfoDto)>) {
        let connected = console.map(|(console, info)| {
            let stop = Arc::new(AtomicBool::new(false));
            if let Some(emit) = self.emit.get() {
                follow_remote(emit.clone(), console.clone(), stop.clone());
            }
            Connected {
                console,
                info,
                stop,
            }
        });
        let old = std::mem::replace(
            &mut *self.remote.write().unwrap_or_else(|e| e.into_inner()),
            connected,
        );
        if let Some(old) = old {
            old.stop.store(true, Ordering::Relaxed);
        }
        self.everything_changed();
    }

    fn everything_changed(&self) {
        if let Some(emit) = self.emit.get() {
            emit(everything());
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
    /// console's own writes, once each, as over REST — while this computer's console is shown.
    pub fn attach<R: Runtime>(&self, app: AppHandle<R>) {
        let emit: Arc<Emit> = Arc::new(move |change| {
            let _ = app.emit(CHANGED_EVENT, change);
        });
        let _ = self.emit.set(emit.clone());
        let changes = self.console.subscribe();
        let remote = self.remote.clone();
        std::thread::spawn(move || {
            for change in changes {
                if remote.read().unwrap_or_else(|e| e.into_inner()).is_none() {
                    if let Ok(v) = serde_json::to_value(change) {
                        emit(v);
                    }
                }
            }
        });
    }
}

/// The change event after which the window asks for everything again.
fn everything() -> serde_json::Value {
    serde_json::json!({"kind": "settings", "agent": null})
}

/// Forwards a remote console's change events to the window until `stop`; after each
/// (re)connection of the stream, everything (what changed meanwhile is unknown).
fn follow_remote(emit: Arc<Emit>, console: RemoteConsole, stop: Arc<AtomicBool>) {
    std::thread::spawn(move || {
        let mut first = true;
        console.follow_events(&stop, &mut |event| match event {
            RemoteEvent::Change(change) => emit(change),
            RemoteEvent::Subscribed if !first => emit(everything()),
            RemoteEvent::Subscribed => first = false,
            RemoteEvent::Migration(_) => {}
        });
    });
}
