//! The Tauri commands: each one adapts one `Console` operation. Work runs on the blocking pool
//! so a slow disk or a big file never freezes the window.

use std::sync::Arc;

use oryx_api::dto::*;
use oryx_api::{ApiError, Console, ErrorCode};
use tauri::State;

use crate::state::AppState;

async fn blocking<T: Send + 'static>(
    console: Arc<Console>,
    f: impl FnOnce(&Console) -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    tauri::async_runtime::spawn_blocking(move || f(&console))
        .await
        .map_err(|e| ApiError::new(ErrorCode::Internal, format!("background task failed: {e}")))?
}

#[tauri::command]
#[specta::specta]
pub async fn list_agents(state: State<'_, AppState>) -> Result<AgentList, ApiError> {
    blocking(state.console(), |c| c.list_agents()).await
}

#[tauri::command]
#[specta::specta]
pub async fn get_agent(state: State<'_, AppState>, name: String) -> Result<AgentDetail, ApiError> {
    blocking(state.console(), move |c| c.get_agent(&name)).await
}

#[tauri::command]
#[specta::specta]
pub async fn memory_view(
    state: State<'_, AppState>,
    agent: Option<String>,
) -> Result<MemoryViewDto, ApiError> {
    blocking(state.console(), move |c| c.memory_view(agent.as_deref())).await
}

#[tauri::command]
#[specta::specta]
pub async fn memory_overview(
    state: State<'_, AppState>,
    agent: Option<String>,
) -> Result<MemoryOverviewDto, ApiError> {
    blocking(state.console(), move |c| {
        c.memory_overview(agent.as_deref())
    })
    .await
}

#[tauri::command]
#[specta::specta]
pub async fn archival_page(
    state: State<'_, AppState>,
    query: ArchivalPageQuery,
) -> Result<ArchivalPageDto, ApiError> {
    blocking(state.console(), move |c| c.archival_page(&query)).await
}

#[tauri::command]
#[specta::specta]
pub async fn append_memory(
    state: State<'_, AppState>,
    req: AppendRequest,
) -> Result<AppendResult, ApiError> {
    blocking(state.console(), move |c| c.append_memory(&req)).await
}

#[tauri::command]
#[specta::specta]
pub async fn recall_memory(
    state: State<'_, AppState>,
    agent: Option<String>,
    keyword: String,
) -> Result<RecallResult, ApiError> {
    blocking(state.console(), move |c| {
        c.recall_memory(agent.as_deref(), &keyword)
    })
    .await
}

#[tauri::command]
#[specta::specta]
pub async fn preview_entry(
    state: State<'_, AppState>,
    content: String,
) -> Result<SanitizedPreview, ApiError> {
    blocking(state.console(), move |c| c.preview_entry(&content)).await
}

#[tauri::command]
#[specta::specta]
pub async fn list_sessions(
    state: State<'_, AppState>,
    query: SessionQuery,
) -> Result<SessionPageDto, ApiError> {
    blocking(state.console(), move |c| c.list_sessions(&query)).await
}

#[tauri::command]
#[specta::specta]
pub async fn get_session(state: State<'_, AppState>, id: String) -> Result<SessionDto, ApiError> {
    blocking(state.console(), move |c| c.get_session(&id)).await
}

#[tauri::command]
#[specta::specta]
pub async fn tool_invocations(
    state: State<'_, AppState>,
    session_id: Option<String>,
    limit: Option<u32>,
    offset: Option<u32>,
) -> Result<Vec<ToolInvocationDto>, ApiError> {
    blocking(state.console(), move |c| {
        c.tool_invocations(session_id.as_deref(), limit, offset)
    })
    .await
}

#[tauri::command]
#[specta::specta]
pub async fn prompt_preview(
    state: State<'_, AppState>,
    agent: String,
    session_id: Option<String>,
) -> Result<PromptDto, ApiError> {
    blocking(state.console(), move |c| {
        c.prompt_preview(&agent, session_id.as_deref())
    })
    .await
}

#[tauri::command]
#[specta::specta]
pub async fn bootstrap_files(
    state: State<'_, AppState>,
) -> Result<Vec<BootstrapFileDto>, ApiError> {
    blocking(state.console(), |c| c.bootstrap_files()).await
}

#[tauri::command]
#[specta::specta]
pub async fn get_settings(state: State<'_, AppState>) -> Result<SettingsView, ApiError> {
    blocking(state.console(), |c| c.get_settings()).await
}

/// Saves the settings, then re-points the file watcher at the (possibly new) root and database.
#[tauri::command]
#[specta::specta]
pub async fn update_settings(
    state: State<'_, AppState>,
    settings: SettingsDto,
) -> Result<SettingsView, ApiError> {
    let view = blocking(state.console(), move |c| c.update_settings(&settings)).await?;
    state.rewatch();
    Ok(view)
}

#[tauri::command]
#[specta::specta]
pub async fn inspect_root(
    state: State<'_, AppState>,
    path: String,
    db_path: Option<String>,
) -> Result<RootInspection, ApiError> {
    blocking(state.console(), move |c| {
        c.inspect_root(&path, db_path.as_deref())
    })
    .await
}

#[tauri::command]
#[specta::specta]
pub async fn create_sample_root(
    state: State<'_, AppState>,
    path: String,
) -> Result<RootInspection, ApiError> {
    blocking(state.console(), move |_| {
        oryx_api::settings::create_sample_root(&path)
    })
    .await
}

#[tauri::command]
#[specta::specta]
pub async fn test_mem0(
    state: State<'_, AppState>,
    settings: SettingsDto,
) -> Result<Mem0Status, ApiError> {
    blocking(state.console(), move |c| c.test_mem0(&settings)).await
}

/// Copies (or, with `dry_run`, counts) missing entries; progress streams over `on_progress`.
#[tauri::command]
#[specta::specta]
pub async fn migrate(
    state: State<'_, AppState>,
    req: oryx_api::migrate::MigrateRequest,
    on_progress: tauri::ipc::Channel<oryx_api::migrate::MigrationProgress>,
) -> Result<oryx_api::migrate::MigrationReport, ApiError> {
    let cancel = state.new_migration();
    blocking(state.console(), move |c| {
        c.migrate(&req, &cancel, &mut |p| {
            let _ = on_progress.send(p);
        })
    })
    .await
}

#[tauri::command]
#[specta::specta]
pub async fn cancel_migration(state: State<'_, AppState>) -> Result<(), ApiError> {
    state.cancel_migration();
    Ok(())
}
