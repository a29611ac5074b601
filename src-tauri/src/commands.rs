//! The Tauri commands: `console` runs any registered operation of oryx_api::ops; migrate streams
//! progress over a Channel. Work runs on the blocking pool so a slow disk never freezes the window.

use std::sync::Arc;

use oryx_api::{ops, ApiError, Console, ErrorCode};
use tauri::State;

use crate::state::{AppState, FileDialog, Shown};

pub(crate) async fn off_thread<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    tauri::async_runtime::spawn_blocking(f)
        .await
        .map_err(|e| ApiError::new(ErrorCode::Internal, format!("background task failed: {e}")))?
}

async fn blocking<T: Send + 'static>(
    console: Arc<Console>,
    f: impl FnOnce(&Console) -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    off_thread(move || f(&console)).await
}

/// An operation's arguments or result as JSON; their exact types are in `Operations`.
#[derive(serde::Serialize, serde::Deserialize, specta::Type)]
#[serde(transparent)]
pub struct Json(#[specta(type = specta_typescript::Unknown)] pub serde_json::Value);

/// Runs any registered operation (`oryx_api::ops`) by name with its JSON arguments: the UI's
/// one generic client sends `{op, args}`. A write announces itself on the console's change
/// stream, which `AppState::attach` forwards to the window.
#[tauri::command]
#[specta::specta]
pub async fn console(state: State<'_, AppState>, op: String, args: Json) -> Result<Json, ApiError> {
    let value = match state.shown() {
        Shown::Local(console) => {
            blocking(console, move |c| ops::call_json(c, &op, args.0))
                .await?
                .0
        }
        Shown::Remote(remote) => off_thread(move || remote.call_json(&op, args.0)).await?,
    };
    Ok(Json(value))
}

/// Copies (or, with `dry_run`, counts) missing entries; progress streams over `on_progress`.
/// One migration at a time (a second one gets `conflict`, as over REST).
#[tauri::command]
#[specta::specta]
pub async fn migrate(
    state: State<'_, AppState>,
    req: oryx_api::migrate::MigrateRequest,
    on_progress: tauri::ipc::Channel<oryx_api::migrate::MigrationProgress>,
) -> Result<oryx_api::migrate::MigrationReport, ApiError> {
    let mut send = move |p| {
        let _ = on_progress.send(p);
    };
    match state.shown() {
        Shown::Local(console) => blocking(console, move |c| c.run_migration(&req, &mut send)).await,
        Shown::Remote(remote) => off_thread(move || remote.migrate(&req, &mut send)).await,
    }
}

/// Stops the running migration between entries (nothing to do when none runs).
#[tauri::command]
#[specta::specta]
pub async fn cancel_migration(state: State<'_, AppState>) -> Result<(), ApiError> {
    match state.shown() {
        Shown::Local(console) => {
            console.cancel_migration();
            Ok(())
        }
        Shown::Remote(remote) => off_thread(move || remote.cancel_migration()).await,
    }
}

/// Saves a finished export where the person says in the system's save dialog (the path never
/// comes from the page). `None`: they closed the dialog.
#[tauri::command]
#[specta::specta]
pub async fn save_export(
    state: State<'_, AppState>,
    id: String,
) -> Result<Option<String>, ApiError> {
    let shown = state.shown();
    let (file, name) = match &shown {
        Shown::Local(console) => {
            let (file, name) = console.export_archive_file(&id)?;
            (Some(file), name)
        }
        Shown::Remote(remote) => {
            let (remote, id) = (remote.clone(), id.clone());
            (
                None,
                off_thread(move || remote_archive_name(&remote, &id)).await?,
            )
        }
    };
    let chooser = state.chooser();
    let Some(target) = off_thread(move || chooser(FileDialog::Save { name })).await? else {
        return Ok(None);
    };
    off_thread(move || {
        match (shown, file) {
            (Shown::Local(console), Some(file)) => console.copy_export_to(&file, &target)?,
            (Shown::Remote(remote), _) => remote.download_export(&id, &target)?,
            (Shown::Local(_), None) => unreachable!("a local export has its file"),
        }
        Ok(Some(target.display().to_string()))
    })
    .await
}

/// Saves an owner's read receipts (`export_entry_reads`) where the person says in the system's
/// save dialog: the page names only the owner and the format, never a path or the text. `None`:
/// they closed the dialog.
#[tauri::command]
#[specta::specta]
pub async fn save_reads(
    state: State<'_, AppState>,
    agent: Option<String>,
    format: oryx_api::reads::ReadsFormat,
) -> Result<Option<String>, ApiError> {
    let shown = state.shown();
    let args = serde_json::json!({ "agent": agent, "format": format });
    let file = off_thread(move || match &shown {
        Shown::Local(console) => Ok(ops::call_json(console, "export_entry_reads", args)?.0),
        Shown::Remote(remote) => remote.call_json("export_entry_reads", args),
    })
    .await?;
    let (name, text) = match (file["file_name"].as_str(), file["text"].as_str()) {
        (Some(n), Some(t)) => (n.to_string(), t.to_string()),
        _ => {
            return Err(ApiError::new(
                ErrorCode::Internal,
                "export_entry_reads answered without a file",
            ))
        }
    };
    let chooser = state.chooser();
    let Some(target) = off_thread(move || chooser(FileDialog::Save { name })).await? else {
        return Ok(None);
    };
    off_thread(move || {
        std::fs::write(&target, text).map_err(|e| {
            ApiError::new(
                ErrorCode::Internal,
                format!("{} could not be written: {e}", target.display()),
            )
        })?;
        Ok(Some(target.display().to_string()))
    })
    .await
}

/// The file name a finished remote export suggests.
fn remote_archive_name(
    remote: &oryx_api::remote::RemoteConsole,
    id: &str,
) -> Result<String, ApiError> {
    let status = remote.call_json("transfer_status", serde_json::json!({ "id": id }))?;
    Ok(status["export"]["file_name"]
        .as_str()
        .map_or_else(|| format!("oryx-export-{id}.zip"), str::to_string))
}

/// Lets the person choose an archive to import in the system's open dialog; the answer is an
/// upload token for `start_import`. `None`: they closed the dialog.
#[tauri::command]
#[specta::specta]
pub async fn pick_archive(
    state: State<'_, AppState>,
) -> Result<Option<oryx_api::transfer::UploadDto>, ApiError> {
    let chooser = state.chooser();
    let picked = tauri::async_runtime::spawn_blocking(move || chooser(FileDialog::Open))
        .await
        .map_err(|e| ApiError::new(ErrorCode::Internal, format!("file dialog failed: {e}")))??;
    let Some(path) = picked else {
        return Ok(None);
    };
    match state.shown() {
        Shown::Local(console) => blocking(console, move |c| c.pick_upload(&path).map(Some)).await,
        Shown::Remote(remote) => off_thread(move || remote.upload_archive(&path).map(Some)).await,
    }
}
