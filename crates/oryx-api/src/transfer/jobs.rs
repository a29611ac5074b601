//! The console's transfers: the running export or import, finished ones until the next
//! starts, and received uploads waiting for their import.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use oryx_core::portable::{export, staging};

use super::dto::{TransferDto, TransferKind, TransferState};
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::lock::lock;

pub(super) struct Job {
    pub(super) state: TransferDto,
    pub(super) cancel: Arc<AtomicBool>,
    /// The export's archive (the console's own file), or the import's input.
    pub(super) file: PathBuf,
    /// The finished archive held open and locked: another console's sweep of the folder
    /// leaves it (see [`staging::remove_if_unheld`]).
    pub(super) hold: Option<std::fs::File>,
}

pub(super) struct Upload {
    pub(super) path: PathBuf,
    /// Received into the console's folder (removed after use), or a file the user picked.
    pub(super) owned: bool,
    /// A received file held open and locked while it waits, as [`Job::hold`].
    pub(super) hold: Option<std::fs::File>,
    pub(super) received: Instant,
}

/// Received uploads waiting for their import, at most: the oldest goes when one more arrives
/// (a person picks again rather than importing; a dry run and its real run use one upload).
pub(super) const KEEP_UPLOADS: usize = 2;
/// A received upload not imported within this time is removed at the next upload.
pub(super) const UPLOAD_TTL: Duration = Duration::from_secs(6 * 3600);
/// The largest upload kept (the REST server refuses larger bodies with 413 before this).
pub const UPLOAD_LIMIT: u64 = 2 * 1024 * 1024 * 1024;

/// The console's transfers: at most one running; finished ones kept until the next starts.
#[derive(Default)]
pub struct Transfers {
    pub(super) jobs: Mutex<HashMap<String, Job>>,
    pub(super) uploads: Mutex<HashMap<String, Upload>>,
    /// The folder was cleared of what earlier runs left (once per console).
    pub(super) swept: AtomicBool,
}

pub(super) fn new_id(prefix: &str) -> String {
    format!("{prefix}-{}", oryx_core::memory::history::new_change_id())
}

pub(super) fn count(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

impl Transfers {
    pub(super) fn update(&self, id: &str, f: impl FnOnce(&mut TransferDto)) {
        if let Some(job) = lock(&self.jobs).get_mut(id) {
            f(&mut job.state);
        }
    }

    /// Registers a new job unless one runs; forgets (and removes the archives of) finished ones.
    pub(super) fn begin(
        &self,
        kind: TransferKind,
        file: PathBuf,
    ) -> ApiResult<(String, Arc<AtomicBool>)> {
        let mut jobs = lock(&self.jobs);
        if jobs
            .values()
            .any(|j| j.state.state == TransferState::Running)
        {
            return Err(ApiError::new(
                ErrorCode::Conflict,
                "an export or import is already running: wait for it, or cancel it",
            ));
        }
        for (_, old) in jobs.drain() {
            if old.state.kind == TransferKind::Export {
                drop(old.hold);
                staging::discard(&old.file);
            }
        }
        let id = new_id(match kind {
            TransferKind::Export => "export",
            TransferKind::Import => "import",
        });
        let cancel = Arc::new(AtomicBool::new(false));
        jobs.insert(
            id.clone(),
            Job {
                state: TransferDto {
                    id: id.clone(),
                    kind,
                    state: TransferState::Running,
                    stage: "starting".into(),
                    done: 0,
                    total: 0,
                    export: None,
                    import: None,
                    error: None,
                },
                cancel: cancel.clone(),
                file,
                hold: None,
            },
        );
        Ok((id, cancel))
    }

    /// Keeps the finished export's archive locked (see [`Job::hold`]).
    pub(super) fn hold(&self, id: &str) {
        if let Some(job) = lock(&self.jobs).get_mut(id) {
            job.hold = std::fs::File::open(&job.file)
                .ok()
                .filter(|f| f.try_lock().is_ok());
        }
    }

    /// Removes received uploads past their time or beyond the count kept (making room for
    /// one more), and every file of the console's folder that no console holds: uploads and
    /// archives of an earlier run, temporary files of a transfer that was killed.
    pub(super) fn sweep(&self, dir: &Path) {
        let mut uploads = lock(&self.uploads);
        let mut owned: Vec<(Instant, String)> = uploads
            .iter()
            .filter(|(_, u)| u.owned)
            .map(|(k, u)| (u.received, k.clone()))
            .collect();
        owned.sort();
        let excess = (owned.len() + 1).saturating_sub(KEEP_UPLOADS);
        for (i, (at, token)) in owned.iter().enumerate() {
            if i < excess || at.elapsed() > UPLOAD_TTL {
                if let Some(u) = uploads.remove(token) {
                    drop(u.hold);
                    staging::discard(&u.path);
                }
            }
        }
        let jobs = lock(&self.jobs);
        let known =
            |p: &Path| uploads.values().any(|u| u.path == p) || jobs.values().any(|j| j.file == p);
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        for e in rd.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let ours = name.starts_with("upload-")
                || name.starts_with("archive-")
                || name.starts_with(staging::UPLOAD_TEMP_PREFIX)
                || name.starts_with(export::TEMP_PREFIX);
            if ours && !known(&e.path()) {
                staging::remove_if_unheld(&e.path());
            }
        }
    }

    pub(super) fn status(&self, id: &str) -> ApiResult<TransferDto> {
        lock(&self.jobs)
            .get(id)
            .map(|j| j.state.clone())
            .ok_or_else(|| unknown_transfer(id))
    }
}

pub(super) fn unknown_transfer(id: &str) -> ApiError {
    ApiError::new(
        ErrorCode::NotFound,
        format!("no export or import {id:?} in this console (it ended before a newer one began, or the console restarted)"),
    )
}
