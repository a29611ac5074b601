//! What export and import take and report, as the UI and the CLI see them.

use serde::{Deserialize, Serialize};
#[cfg(feature = "specta")]
use specta::Type;

use crate::dto::BackendDto;
use crate::error::ErrorCode;

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct ExportRequest {
    /// Agents to export; empty with `all`: every agent and the global memory.
    #[serde(default)]
    pub agents: Vec<String>,
    #[serde(default)]
    pub all: bool,
    /// Also the agents' sessions and tool invocations.
    #[serde(default)]
    pub sessions: bool,
    /// Also the console's history of changes (it keeps the text of deleted and rewritten
    /// entries); off unless asked.
    #[serde(default)]
    pub include_history: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct AgentMapDto {
    pub from: String,
    pub to: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct ImportRequest {
    /// What the host's upload (browser) or file dialog (desktop) answered.
    pub upload: String,
    #[serde(default)]
    pub dry_run: bool,
    /// Into another backend than the one in effect (same root).
    #[serde(default)]
    pub into_backend: Option<BackendDto>,
    /// Agents renamed on the way in.
    #[serde(default)]
    pub agent_map: Vec<AgentMapDto>,
    /// Replace AGENT.md, bootstrap and skill files the target has with the archive's.
    #[serde(default)]
    pub replace_existing: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
#[serde(rename_all = "lowercase")]
pub enum TransferKind {
    Export,
    Import,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
#[serde(rename_all = "lowercase")]
pub enum TransferState {
    Running,
    Done,
    Cancelled,
    Failed,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct OwnerCountDto {
    pub owner: String,
    pub core: u32,
    pub archival: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct ExportDoneDto {
    /// The archive's size.
    #[cfg_attr(feature = "specta", specta(type = f64))]
    pub bytes: u64,
    pub owners: Vec<OwnerCountDto>,
    pub files: u32,
    pub sessions: u32,
    /// Whether the console's history of changes is in the archive.
    pub history: bool,
    /// What to call the archive when it is saved.
    pub file_name: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct OwnerImportDto {
    pub owner: String,
    pub in_archive: u32,
    pub new: u32,
    pub present: u32,
    pub conflicting: u32,
    pub error: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct ImportDoneDto {
    pub dry_run: bool,
    pub source_backend: String,
    pub owners: Vec<OwnerImportDto>,
    pub files_written: Vec<String>,
    pub files_kept: Vec<String>,
    pub unknown: Vec<String>,
    pub sessions_not_imported: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct TransferErrorDto {
    pub code: ErrorCode,
    pub message: String,
}

/// An export or import job as the UI polls it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct TransferDto {
    pub id: String,
    pub kind: TransferKind,
    pub state: TransferState,
    /// What is being done now (`entries`, `files`, `sessions`, `checking`…).
    pub stage: String,
    #[cfg_attr(feature = "specta", specta(type = f64))]
    pub done: u64,
    #[cfg_attr(feature = "specta", specta(type = f64))]
    pub total: u64,
    pub export: Option<ExportDoneDto>,
    pub import: Option<ImportDoneDto>,
    pub error: Option<TransferErrorDto>,
}

/// A file a host received for an import.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct UploadDto {
    /// Pass as `upload` to `start_import`.
    pub upload: String,
    pub name: String,
    #[cfg_attr(feature = "specta", specta(type = f64))]
    pub bytes: u64,
}
