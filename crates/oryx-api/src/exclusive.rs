//! One migration at a time per console, whatever the host (desktop window, REST clients, both
//! at once): a second one is refused with `conflict` instead of copying the same entries twice.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use crate::migrate::{MigrateRequest, MigrationProgress, MigrationReport};
use crate::{ApiError, ApiResult, Console, ErrorCode};

/// The cancel flag of the migration in progress, if any.
#[derive(Default)]
pub struct MigrationSlot(Mutex<Option<Arc<AtomicBool>>>);

impl MigrationSlot {
    fn lock(&self) -> MutexGuard<'_, Option<Arc<AtomicBool>>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Frees the slot when the run ends, however it ends.
struct Running<'a>(&'a MigrationSlot);

impl Drop for Running<'_> {
    fn drop(&mut self) {
        *self.0.lock() = None;
    }
}

impl Console {
    /// `migrate`, unless another migration of this console is running (then `conflict`);
    /// `cancel_migration` stops it between entries.
    pub fn run_migration(
        &self,
        req: &MigrateRequest,
        on_progress: &mut dyn FnMut(MigrationProgress),
    ) -> ApiResult<MigrationReport> {
        let slot = self.migration_slot();
        let flag = {
            let mut running = slot.lock();
            if running.is_some() {
                return Err(ApiError::new(
                    ErrorCode::Conflict,
                    "a migration is already running: wait for it to finish, or cancel it",
                ));
            }
            let flag = Arc::new(AtomicBool::new(false));
            *running = Some(flag.clone());
            flag
        };
        let _running = Running(slot);
        let report = self.migrate(req, &flag, on_progress)?;
        // Many owners may have changed: every memory view refetches.
        self.announce(crate::watch::ChangeEvent {
            kind: crate::watch::ChangeKind::Memory,
            agent: None,
        });
        Ok(report)
    }

    /// Asks the running migration to stop between entries; `false` when none runs.
    pub fn cancel_migration(&self) -> bool {
        match self.migration_slot().lock().as_ref() {
            Some(flag) => {
                flag.store(true, Ordering::Relaxed);
                true
            }
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dto::BackendDto;
    use std::sync::mpsc;

    #[test]
    fn a_second_migration_is_a_conflict_and_cancel_stops_the_first() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        oryx_core::demo::write_sample(&root).unwrap();
        let console = Arc::new(
            Console::open(
                Some(dir.path().join("settings.json")),
                oryx_core::config::Overrides {
                    root: Some(root),
                    ..Default::default()
                },
            )
            .unwrap(),
        );
        assert!(!console.cancel_migration(), "nothing runs yet");
        let req = MigrateRequest {
            from: BackendDto::Markdown,
            to: BackendDto::Sqlite,
            agent: None,
            dry_run: false,
        };
        // The first run waits in its progress callback until the second has been refused.
        let (at_first_entry, first_waits) = mpsc::channel::<()>();
        let (release, released) = mpsc::channel::<()>();
        let c = console.clone();
        let r = req.clone();
        let first = std::thread::spawn(move || {
            let mut once = Some((at_first_entry, released));
            c.run_migration(&r, &mut |_| {
                if let Some((tell, wait)) = once.take() {
                    tell.send(()).unwrap();
                    wait.recv().unwrap();
                }
            })
        });
        first_waits.recv().unwrap();
        let second = console.run_migration(&req, &mut |_| {}).unwrap_err();
        assert_eq!(second.code, ErrorCode::Conflict);
        assert!(console.cancel_migration());
        release.send(()).unwrap();
        let report = first.join().unwrap().unwrap();
        assert!(report.cancelled, "{report:?}");
        assert!(!console.cancel_migration(), "the slot is free again");
        console
            .run_migration(&req, &mut |_| {})
            .expect("a new run starts after the first ended");
    }
}
