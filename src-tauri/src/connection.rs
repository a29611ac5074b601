//! Which console the window shows: this computer's, or one `oryx serve` serves on another
//! machine. Addresses and fingerprints are remembered beside the settings,
//! tokens in the system's keyring.

use oryx_api::remote::{
    self, ConnectRequest, ConnectionDto, RememberedServer, RememberedServerDto, RemoteTarget,
    ServerList, ServerProbeDto, ServerUrl,
};
use oryx_api::ApiError;
use tauri::State;

use crate::commands::off_thread;
use crate::state::AppState;

fn servers(state: &AppState) -> ServerList {
    ServerList::beside(state.console().settings_path())
}

fn describe(state: &AppState) -> Result<ConnectionDto, ApiError> {
    let tokens = state.tokens();
    let servers = servers(state)
        .load()?
        .into_iter()
        .map(|s| {
            let host = ServerUrl::parse(&s.url)
                .map(|u| u.host())
                .unwrap_or_default();
            RememberedServerDto {
                has_token: tokens.get(&s.url).ok().flatten().is_some(),
                host,
                url: s.url,
                fingerprint: s.fingerprint,
                last_connected: s.last_connected,
            }
        })
        .collect();
    Ok(ConnectionDto {
        remote: state.remote_info(),
        servers,
        token_store: tokens.describe().to_string(),
    })
}

/// The console shown and the servers remembered.
#[tauri::command]
#[specta::specta]
pub async fn connection(state: State<'_, AppState>) -> Result<ConnectionDto, ApiError> {
    describe(&state)
}

/// What the server at `url` is (reachable, needs a token, its certificate's fingerprint),
/// asked without sending any token.
#[tauri::command]
#[specta::specta]
pub async fn probe_server(url: String) -> Result<ServerProbeDto, ApiError> {
    off_thread(move || remote::probe(&url)).await
}

/// Shows the console of the server `req` names. The token given, else the one remembered for
/// it; the fingerprint given, else the one trusted before. Nothing changes when it fails.
#[tauri::command]
#[specta::specta]
pub async fn connect_server(
    state: State<'_, AppState>,
    req: ConnectRequest,
) -> Result<ConnectionDto, ApiError> {
    let url = ServerUrl::parse(&req.url)?;
    let list = servers(&state);
    let remembered = list.get(url.as_str())?;
    let tokens = state.tokens();
    let typed = req.token.filter(|t| !t.trim().is_empty());
    let token = match &typed {
        Some(t) => Some(t.trim().to_string()),
        None => tokens.get(url.as_str())?,
    };
    let fingerprint = match req.fingerprint.filter(|f| !f.trim().is_empty()) {
        Some(f) => Some(remote::normalise_fingerprint(&f)?),
        None => remembered.as_ref().and_then(|s| s.fingerprint.clone()),
    };
    let target = RemoteTarget {
        url: url.clone(),
        token: token.clone(),
        fingerprint: fingerprint.clone(),
    };
    let (console, info) = off_thread(move || remote::connect(target)).await?;
    if req.remember || remembered.is_some() {
        if let (true, Some(t)) = (req.remember, &typed) {
            tokens.set(url.as_str(), t.trim())?;
        }
        list.remember(RememberedServer {
            url: url.as_str().to_string(),
            fingerprint,
            last_connected: Some(remote::now_rfc3339()),
        })?;
    }
    state.show(Some((console, info)));
    describe(&state)
}

/// Back to this computer's console.
#[tauri::command]
#[specta::specta]
pub async fn disconnect_server(state: State<'_, AppState>) -> Result<ConnectionDto, ApiError> {
    state.show(None);
    describe(&state)
}

/// Forgets a remembered server and its token (a connection to it stays open until closed).
#[tauri::command]
#[specta::specta]
pub async fn forget_server(
    state: State<'_, AppState>,
    url: String,
) -> Result<ConnectionDto, ApiError> {
    let url = ServerUrl::parse(&url)?;
    state.tokens().delete(url.as_str())?;
    servers(&state).forget(url.as_str())?;
    describe(&state)
}
