//! What an import is asked to do and what it reports, per owner and in all.

use std::collections::HashMap;

use serde::Serialize;

#[derive(Debug, Clone, Default)]
pub struct ImportOptions {
    pub dry_run: bool,
    /// Agents imported under another name: `old → new`.
    pub agent_map: HashMap<String, String>,
    /// Replace files the target holds with the archive's (AGENT.md, bootstrap files, skills).
    pub overwrite_files: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct OwnerImport {
    /// The owner in the target (after `agent_map`).
    pub owner: String,
    pub in_archive: usize,
    /// Not in the target: added (or, in a dry run, would be).
    pub new: usize,
    /// Already in the target (same section, time and content): skipped.
    pub present: usize,
    /// New entries whose section and time the target already holds with other content: both
    /// are kept (nothing is overwritten).
    pub conflicting: usize,
    pub error: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ImportReport {
    pub dry_run: bool,
    pub source_backend: String,
    pub owners: Vec<OwnerImport>,
    /// Root files written (or that would be), relative to the root.
    pub files_written: Vec<String>,
    /// Root files left as the target has them, with why.
    pub files_kept: Vec<String>,
    /// Members of the archive the importer does not use (reported, never silently dropped).
    pub unknown: Vec<String>,
    pub sessions_not_imported: usize,
    pub cancelled: bool,
}
