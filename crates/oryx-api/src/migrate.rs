//! Backend migration for the CLI and the Settings flow: dry-run numbers, progress, verification.

use std::sync::atomic::AtomicBool;

use oryx_core::agents;
use oryx_core::migrate::{self, OwnerReport, Progress};
use oryx_core::names::{is_valid_agent_name, Owner};
use serde::{Deserialize, Serialize};

use crate::console::Console;
use crate::dto::BackendDto;
use crate::error::{ApiError, ApiResult};

#[cfg(feature = "specta")]
use specta::Type;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct MigrateRequest {
    pub from: BackendDto,
    pub to: BackendDto,
    /// One agent; `None` = every agent and the global memory.
    pub agent: Option<String>,
    pub dry_run: bool,
    /// After a copy with no failure, make `to` the backend in use: for a runtime install its
    /// `memory.backend` in config/application.yml (the agents switch on the runtime's next
    /// start), for a bare root the console's settings.
    #[serde(default)]
    pub switch: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct OwnerCounts {
    /// An agent name, or `global`.
    pub owner: String,
    pub found: u32,
    pub target_before: u32,
    pub copied: u32,
    pub skipped: u32,
    pub failed: u32,
    pub error: Option<String>,
    /// mem0 lists at most `listing_limit` entries per owner: this owner's numbers may be short,
    /// or a second count after a copy into mem0 cannot confirm them.
    pub beyond_listing: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct MigrationReport {
    pub from: BackendDto,
    pub to: BackendDto,
    pub dry_run: bool,
    pub cancelled: bool,
    pub owners: Vec<OwnerCounts>,
    pub total: OwnerCounts,
    /// The most entries mem0 lists per owner (what `beyond_listing` refers to).
    pub listing_limit: u32,
    /// With `switch` on an install: the runtime's configuration change.
    #[serde(default)]
    pub runtime_change: Option<crate::runtime::RuntimeChange>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct MigrationProgress {
    pub owner: String,
    pub done: u32,
    pub total: u32,
}

fn counts(o: &OwnerReport) -> OwnerCounts {
    OwnerCounts {
        owner: o.owner.clone(),
        found: o.found as u32,
        target_before: o.target_before as u32,
        copied: o.copied as u32,
        skipped: o.skipped as u32,
        failed: o.failed as u32,
        error: o.error.clone(),
        beyond_listing: o.beyond_listing,
    }
}

impl Console {
    /// Copies missing entries from one backend to another (or counts them with `dry_run`).
    pub fn migrate(
        &self,
        req: &MigrateRequest,
        cancel: &AtomicBool,
        on_progress: &mut dyn FnMut(MigrationProgress),
    ) -> ApiResult<MigrationReport> {
        let rt = self.services();
        let owners = match &req.agent {
            Some(name) => vec![rt.owner(Some(name))?],
            None => {
                let mut v: Vec<Owner> = agents::list(rt.root())?
                    .into_iter()
                    .filter(|a| is_valid_agent_name(&a.name))
                    .map(|a| Owner::Agent(a.name))
                    .collect();
                v.push(Owner::Global);
                v
            }
        };
        let store_for = |b: BackendDto| self.store_of(&rt, Some(b));
        if req.from == req.to {
            return Err(ApiError::invalid(
                "choose two different backends to copy between",
            ));
        }
        let (from, to) = (store_for(req.from)?, store_for(req.to)?);
        let report = migrate::migrate(
            from.as_ref(),
            to.as_ref(),
            &owners,
            req.dry_run,
            cancel,
            &mut |p: &Progress| {
                on_progress(MigrationProgress {
                    owner: p.owner.clone(),
                    done: p.done as u32,
                    total: p.total as u32,
                })
            },
        )?;
        if !report.dry_run && !report.cancelled {
            // The recall checks follow the entries into the target's ids.
            for owner in &owners {
                crate::recall_checks::carry_over(
                    &self.index_dir(),
                    (req.from.into(), from.as_ref()),
                    (req.to.into(), to.as_ref()),
                    owner,
                )?;
            }
        }
        Ok(MigrationReport {
            from: req.from,
            to: req.to,
            dry_run: report.dry_run,
            cancelled: report.cancelled,
            owners: report.owners.iter().map(counts).collect(),
            total: counts(&report.totals()),
            listing_limit: oryx_core::memory::mem0::LOAD_LIMIT as u32,
            runtime_change: None,
        })
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
        let (_running, flag) = self.migration_slot().begin()?;
        let mut report = self.migrate(req, &flag, on_progress)?;
        if req.switch && !report.dry_run && !report.cancelled && report.total.failed == 0 {
            report.runtime_change = self.switch_backend(req.to)?;
        }
        // Many owners may have changed: every memory view refetches.
        self.announce(crate::watch::ChangeEvent {
            kind: crate::watch::ChangeKind::Memory,
            agent: None,
        });
        Ok(report)
    }

    /// Makes `to` the backend in use after a migration: the runtime's for an install (the
    /// console follows it, dropping a settings override), the settings' for a bare root.
    fn switch_backend(&self, to: BackendDto) -> ApiResult<Option<crate::runtime::RuntimeChange>> {
        let rt = self.services();
        let mut file = crate::settings_file::SettingsFile {
            settings: rt.settings.clone(),
            preferences: rt.preferences,
        };
        let install = rt.effective.root_kind == oryx_core::config::Kind::Install;
        drop(rt);
        if install {
            let change = self.set_runtime_value(&crate::runtime::SetRuntimeValueArgs {
                key: oryx_core::runtime::config::BACKEND.into(),
                value: oryx_core::memory::Backend::from(to).as_str().into(),
            })?;
            if file.settings.backend_override.take().is_some() {
                self.replace_settings(file)?;
            }
            return Ok(Some(change));
        }
        file.settings.backend = to.into();
        self.replace_settings(file)?;
        Ok(None)
    }

    /// Asks the running migration to stop between entries; `false` when none runs.
    pub fn cancel_migration(&self) -> bool {
        self.migration_slot().cancel()
    }
}

#[cfg(test)]
mod slot_tests {
    use super::*;
    use crate::dto::BackendDto;
    use crate::ErrorCode;
    use std::sync::mpsc;
    use std::sync::Arc;

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
            switch: false,
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
