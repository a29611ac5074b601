//! The console's jobs that run one at a time, whatever the host (desktop window, REST clients,
//! both at once): a migration (a second one is refused with `conflict` instead of copying the
//! same entries twice) and the semantic index's build.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use crate::dto::IndexJobDto;
use crate::lock::lock;
use crate::{ApiError, ApiResult, ErrorCode};

/// The cancel flag of the migration in progress, if any.
#[derive(Default)]
pub struct MigrationSlot(Mutex<Option<Arc<AtomicBool>>>);

impl MigrationSlot {
    fn lock(&self) -> MutexGuard<'_, Option<Arc<AtomicBool>>> {
        lock(&self.0)
    }

    /// Takes the slot, unless another migration of this console is running (then `conflict`):
    /// its cancel flag, and a guard that frees the slot when the run ends, however it ends.
    pub(crate) fn begin(&self) -> ApiResult<(Running<'_>, Arc<AtomicBool>)> {
        let mut running = self.lock();
        if running.is_some() {
            return Err(ApiError::new(
                ErrorCode::Conflict,
                "a migration is already running: wait for it to finish, or cancel it",
            ));
        }
        let flag = Arc::new(AtomicBool::new(false));
        *running = Some(flag.clone());
        Ok((Running(self), flag))
    }

    /// Asks the running migration to stop between entries; `false` when none runs.
    pub(crate) fn cancel(&self) -> bool {
        match self.lock().as_ref() {
            Some(flag) => {
                flag.store(true, Ordering::Relaxed);
                true
            }
            None => false,
        }
    }
}

/// Frees the slot when the run ends, however it ends.
pub(crate) struct Running<'a>(&'a MigrationSlot);

impl Drop for Running<'_> {
    fn drop(&mut self) {
        *self.0.lock() = None;
    }
}

/// The index build of a console: its progress for `index_status`, its cancel flag.
#[derive(Default)]
pub struct IndexJobSlot(Mutex<Option<IndexJob>>);

pub(crate) struct IndexJob {
    pub(crate) state: IndexJobDto,
    pub(crate) cancel: Arc<AtomicBool>,
}

impl IndexJobSlot {
    pub(crate) fn lock(&self) -> MutexGuard<'_, Option<IndexJob>> {
        lock(&self.0)
    }

    pub(crate) fn update(&self, f: impl FnOnce(&mut IndexJobDto)) {
        if let Some(job) = self.lock().as_mut() {
            f(&mut job.state);
        }
    }
}
