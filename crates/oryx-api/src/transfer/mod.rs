//! Export and import from the console's screens. The work is an operation like any
//! other (start, status with progress, cancel; one job at a time per console, whatever the
//! host), run on its own thread into or out of a file the console owns. Only the bytes cross
//! differently: the browser downloads and uploads over REST, the desktop saves and opens through
//! the native file dialog — so no operation ever takes a path from the UI.

use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use oryx_core::portable::{export, import, staging, Progress};

use crate::console::Console;
use crate::error::{ApiError, ApiResult, ErrorCode};

mod dto;
pub(crate) mod jobs;

use crate::lock::lock;
pub use dto::*;
use jobs::{count, new_id, unknown_transfer, Upload};
pub use jobs::{Transfers, UPLOAD_LIMIT};

/// Runs `work` on its own thread, reporting progress and the outcome into the job `id`. A
/// panic in the work (a bug, or an input nobody planned for) ends the job as failed with its
/// message, so the one-job slot is released and `after` still runs.
fn spawn<R: Send + 'static>(
    transfers: Arc<Transfers>,
    id: String,
    cancel: Arc<AtomicBool>,
    work: impl FnOnce(&AtomicBool, &mut dyn FnMut(&Progress)) -> ApiResult<R> + Send + 'static,
    done: impl FnOnce(&mut TransferDto, R) + Send + 'static,
    after: impl FnOnce() + Send + 'static,
) -> ApiResult<()> {
    std::thread::Builder::new()
        .name("oryx-transfer".into())
        .spawn(move || {
            let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| {
                work(&cancel, &mut |p: &Progress| {
                    transfers.update(&id, |s| {
                        s.stage = p.stage.clone();
                        s.done = p.done;
                        s.total = p.total;
                    })
                })
            }));
            let cancelled = cancel.load(Ordering::Relaxed);
            let finished = std::panic::catch_unwind(AssertUnwindSafe(|| {
                transfers.update(&id, |s| match outcome {
                    Ok(outcome) => finish(s, outcome, cancelled, done),
                    Err(panic) => fail(s, ApiError::internal(panic_message(panic.as_ref()))),
                })
            }));
            if let Err(panic) = finished {
                transfers.update(&id, |s| {
                    fail(s, ApiError::internal(panic_message(panic.as_ref())))
                });
            }
            // The upload's bookkeeping: its own failure must not undo the job's outcome.
            let _ = std::panic::catch_unwind(AssertUnwindSafe(after));
        })
        .map_err(|e| ApiError::internal(format!("could not start the transfer: {e}")))?;
    Ok(())
}

/// The job's state once its work returned.
fn finish<R>(
    s: &mut TransferDto,
    outcome: ApiResult<R>,
    cancelled: bool,
    done: impl FnOnce(&mut TransferDto, R),
) {
    match outcome {
        Ok(r) => {
            done(s, r);
            if s.state == TransferState::Running {
                s.state = if cancelled {
                    TransferState::Cancelled
                } else {
                    TransferState::Done
                };
            }
        }
        Err(e) if cancelled => {
            s.state = TransferState::Cancelled;
            s.error = Some(TransferErrorDto {
                code: e.code,
                message: e.message,
            });
        }
        Err(e) => fail(s, e),
    }
}

fn fail(s: &mut TransferDto, e: ApiError) {
    s.state = TransferState::Failed;
    s.error = Some(TransferErrorDto {
        code: e.code,
        message: e.message,
    });
}

/// What a panic said, for the job's error (the server log has the rest).
fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    let what = panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "no message".into());
    format!("the transfer stopped on an internal error ({what}); nothing more was done")
}

fn export_done(r: &export::ExportReport, name: String) -> ExportDoneDto {
    ExportDoneDto {
        bytes: r.bytes,
        owners: r
            .owners
            .iter()
            .map(|o| OwnerCountDto {
                owner: o.owner.clone(),
                core: count(o.core),
                archival: count(o.archival),
            })
            .collect(),
        files: count(r.files),
        sessions: count(r.sessions),
        history: r.history,
        file_name: name,
    }
}

fn import_done(r: &import::ImportReport) -> ImportDoneDto {
    ImportDoneDto {
        dry_run: r.dry_run,
        source_backend: r.source_backend.clone(),
        owners: r
            .owners
            .iter()
            .map(|o| OwnerImportDto {
                owner: o.owner.clone(),
                in_archive: count(o.in_archive),
                new: count(o.new),
                present: count(o.present),
                conflicting: count(o.conflicting),
                error: o.error.clone(),
            })
            .collect(),
        files_written: r.files_written.clone(),
        files_kept: r.files_kept.clone(),
        unknown: r.unknown.clone(),
        sessions_not_imported: count(r.sessions_not_imported),
    }
}

impl Console {
    fn transfer_dir(&self) -> ApiResult<PathBuf> {
        let dir = staging::folder(&self.index_dir().with_file_name("transfers"))?;
        let t = self.transfers();
        if !t.swept.swap(true, Ordering::Relaxed) {
            t.sweep(&dir);
        }
        Ok(dir)
    }

    /// Starts writing an archive of the named agents (or all) into the console's own folder;
    /// poll `transfer_status`, then the host saves it where the user says.
    pub fn start_export(&self, req: &ExportRequest) -> ApiResult<TransferDto> {
        let day = chrono::Local::now().format("%Y-%m-%d");
        let name = match (req.all, req.agents.as_slice()) {
            (true, _) => format!("oryx-all-{day}.oryx.zip"),
            (false, [one]) => format!("oryx-{one}-{day}.oryx.zip"),
            (false, _) => format!("oryx-{}-agents-{day}.oryx.zip", req.agents.len()),
        };
        let dir = self.transfer_dir()?;
        let transfers = self.transfers().clone();
        let file = dir.join(new_id("archive") + ".zip");
        // Checked before the job exists: a bad name is an answer, not a failed job.
        for a in &req.agents {
            self.services().owner(Some(a))?;
        }
        let (id, cancel) = transfers.begin(TransferKind::Export, file.clone())?;
        let rt = self.services();
        let req = req.clone();
        let out = file.clone();
        let console_owners = crate::portable::export_owners(&rt, &req.agents, req.all);
        let (held, held_id) = (transfers.clone(), id.clone());
        spawn(
            transfers.clone(),
            id.clone(),
            cancel,
            move |cancel, progress| {
                let report = crate::portable::export_to(
                    &rt,
                    console_owners?,
                    &crate::portable::ExportChoice {
                        sessions: req.sessions,
                        include_history: req.include_history,
                    },
                    &out,
                    cancel,
                    progress,
                )?;
                held.hold(&held_id);
                Ok(report)
            },
            move |s, r| s.export = Some(export_done(&r, name)),
            || {},
        )?;
        transfers.status(&id)
    }

    /// Starts reading an uploaded archive into the root in effect (or a dry run of it).
    pub fn start_import(&self, req: &ImportRequest) -> ApiResult<TransferDto> {
        // Everything that can be refused is checked first: a refused rename keeps the upload
        // for the next try.
        let mut map = HashMap::new();
        for m in &req.agent_map {
            oryx_core::names::validate_agent_name(&m.to)?;
            map.insert(m.from.clone(), m.to.clone());
        }
        let rt = self.services();
        let store = self.store_of(&rt, req.into_backend)?;
        let upload = lock(&self.transfers().uploads)
            .remove(&req.upload)
            .ok_or_else(|| {
                ApiError::invalid(format!(
                    "no uploaded archive {:?}: upload or pick the file again",
                    req.upload
                ))
            })?;
        let transfers = self.transfers().clone();
        let path = upload.path.clone();
        let keep = upload;
        let (id, cancel) = match transfers.begin(TransferKind::Import, path.clone()) {
            Ok(x) => x,
            Err(e) => {
                // Still usable once the running job ends.
                lock(&transfers.uploads).insert(req.upload.clone(), keep);
                return Err(e);
            }
        };
        let options = import::ImportOptions {
            dry_run: req.dry_run,
            agent_map: map,
            overwrite_files: req.replace_existing,
        };
        let dry = req.dry_run;
        let token = req.upload.clone();
        let again = transfers.clone();
        spawn(
            transfers.clone(),
            id.clone(),
            cancel,
            move |cancel, progress| {
                let report =
                    import::import(&path, rt.root(), store.as_ref(), &options, cancel, progress)?;
                crate::runtime_index::index_imported(&rt, store.as_ref(), &report);
                Ok(report)
            },
            |s, r| {
                if r.cancelled {
                    s.state = TransferState::Cancelled;
                }
                s.import = Some(import_done(&r));
            },
            move || {
                // A dry run's file stays for the real run; a finished import's upload goes.
                if dry {
                    lock(&again.uploads).insert(token, keep);
                } else if keep.owned {
                    drop(keep.hold);
                    staging::discard(&keep.path);
                }
            },
        )?;
        transfers.status(&id)
    }

    pub fn transfer_status(&self, id: &str) -> ApiResult<TransferDto> {
        self.transfers().status(id)
    }

    /// Asks the running job to stop (between entries; an export leaves no archive behind).
    pub fn cancel_transfer(&self, id: &str) -> ApiResult<TransferDto> {
        let t = self.transfers();
        if let Some(job) = lock(&t.jobs).get(id) {
            job.cancel.store(true, Ordering::Relaxed);
        }
        t.status(id)
    }

    /// The finished export's archive and the name to save it under (for the host's download or
    /// save dialog).
    pub fn export_archive_file(&self, id: &str) -> ApiResult<(PathBuf, String)> {
        let jobs = lock(&self.transfers().jobs);
        let job = jobs.get(id).ok_or_else(|| unknown_transfer(id))?;
        match (&job.state.export, job.state.state) {
            (Some(done), TransferState::Done) if job.file.is_file() => {
                Ok((job.file.clone(), done.file_name.clone()))
            }
            _ => Err(ApiError::new(
                ErrorCode::Conflict,
                format!(
                    "export {id} has no finished archive (it is {:?})",
                    job.state.state
                ),
            )),
        }
    }

    /// An archive the host received as bytes: kept in the console's folder until imported.
    pub fn receive_upload(&self, name: &str, bytes: &[u8]) -> ApiResult<UploadDto> {
        self.receive_upload_from(name, &mut &bytes[..])
    }

    /// An archive the host receives as a stream (a browser upload), written to the console's
    /// folder as it arrives (never held whole in memory), at most [`UPLOAD_LIMIT`] bytes; kept
    /// until imported, replaced by later uploads beyond the few kept, or too old.
    pub fn receive_upload_from(
        &self,
        name: &str,
        body: &mut dyn std::io::Read,
    ) -> ApiResult<UploadDto> {
        let dir = self.transfer_dir()?;
        let t = self.transfers();
        t.sweep(&dir);
        let token = new_id("upload");
        let (path, bytes, hold) =
            staging::keep_stream(&dir, &format!("{token}.zip"), body, UPLOAD_LIMIT)?;
        if bytes == 0 {
            drop(hold);
            staging::discard(&path);
            return Err(ApiError::invalid(
                "the upload is empty: send the archive's bytes as the body",
            ));
        }
        lock(&t.uploads).insert(
            token.clone(),
            Upload {
                path,
                owned: true,
                hold: Some(hold),
                received: Instant::now(),
            },
        );
        Ok(UploadDto {
            upload: token,
            name: name.to_string(),
            bytes,
        })
    }

    /// Saves a finished export's archive (`export_archive_file`) where the person chose in the
    /// host's save dialog; an interrupted copy leaves nothing under that name.
    pub fn copy_export_to(&self, file: &Path, to: &Path) -> ApiResult<()> {
        staging::save_copy(file, to)?;
        oryx_core::forget::archives::record_export(&self.index_dir(), to);
        Ok(())
    }

    /// A file the user chose in the host's own file dialog (the desktop): read where it is.
    pub fn pick_upload(&self, path: &Path) -> ApiResult<UploadDto> {
        let bytes = staging::picked_size(path)?;
        let token = new_id("upload");
        lock(&self.transfers().uploads).insert(
            token.clone(),
            Upload {
                path: path.to_path_buf(),
                owned: false,
                hold: None,
                received: Instant::now(),
            },
        );
        Ok(UploadDto {
            upload: token,
            name: path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            bytes,
        })
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::jobs::KEEP_UPLOADS;

    use super::*;

    fn wait(c: &Console, id: &str) -> TransferDto {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let s = c.transfer_status(id).unwrap();
            if s.state != TransferState::Running {
                return s;
            }
            assert!(
                Instant::now() < deadline,
                "transfer {id} still running: {s:?}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn console_on(dir: &Path, name: &str) -> Console {
        let root = dir.join(name);
        oryx_core::demo::write_sample(&root).unwrap();
        Console::open(
            Some(dir.join(format!("{name}-settings.json"))),
            oryx_core::config::Overrides {
                root: Some(root),
                ..Default::default()
            },
        )
        .unwrap()
    }

    #[test]
    fn an_export_is_uploaded_into_another_root_dry_run_first_then_for_real_and_not_twice() {
        let dir = tempfile::tempdir().unwrap();
        let src = console_on(dir.path(), "src");
        let started = src
            .start_export(&ExportRequest {
                agents: vec!["assistant".into()],
                all: false,
                sessions: false,
                include_history: false,
            })
            .unwrap();
        assert_eq!(started.kind, TransferKind::Export);
        let done = wait(&src, &started.id);
        assert_eq!(done.state, TransferState::Done, "{done:?}");
        let summary = done.export.unwrap();
        assert!(summary.file_name.starts_with("oryx-assistant-"));
        let (file, _) = src.export_archive_file(&started.id).unwrap();
        let bytes = std::fs::read(&file).unwrap();
        assert_eq!(bytes.len() as u64, summary.bytes);

        // Another root that lacks the agent's entries: the dry run counts, writes nothing.
        let dst_dir = dir.path().join("dst");
        std::fs::create_dir_all(dst_dir.join("agents")).unwrap();
        let dst = Console::open(
            Some(dir.path().join("dst-settings.json")),
            oryx_core::config::Overrides {
                root: Some(dst_dir.clone()),
                ..Default::default()
            },
        )
        .unwrap();
        let up = dst.receive_upload("a.zip", &bytes).unwrap();
        let dry = dst
            .start_import(&ImportRequest {
                upload: up.upload.clone(),
                dry_run: true,
                into_backend: None,
                agent_map: vec![],
                replace_existing: false,
            })
            .unwrap();
        let dry = wait(&dst, &dry.id);
        let report = dry.import.unwrap();
        assert!(report.dry_run);
        let want: u32 = summary.owners.iter().map(|o| o.core + o.archival).sum();
        assert_eq!(report.owners.iter().map(|o| o.new).sum::<u32>(), want);
        assert!(!dst_dir.join("agents/assistant/MEMORY.md").exists());
        // A refused rename keeps the upload for the next try.
        let refused = dst
            .start_import(&ImportRequest {
                upload: up.upload.clone(),
                dry_run: false,
                into_backend: None,
                agent_map: vec![AgentMapDto {
                    from: "assistant".into(),
                    to: "sched uler".into(),
                }],
                replace_existing: false,
            })
            .unwrap_err();
        assert_eq!(refused.code, ErrorCode::InvalidAgentName);
        // The same upload serves the real run after its dry run; then it is used up.
        let real = dst
            .start_import(&ImportRequest {
                upload: up.upload.clone(),
                dry_run: false,
                into_backend: None,
                agent_map: vec![],
                replace_existing: false,
            })
            .unwrap();
        let real = wait(&dst, &real.id);
        assert_eq!(real.state, TransferState::Done, "{real:?}");
        assert_eq!(
            std::fs::read(dst_dir.join("agents/assistant/MEMORY.md")).unwrap(),
            std::fs::read(dir.path().join("src/agents/assistant/MEMORY.md")).unwrap()
        );
        let gone = dst
            .start_import(&ImportRequest {
                upload: up.upload,
                dry_run: false,
                into_backend: None,
                agent_map: vec![],
                replace_existing: false,
            })
            .unwrap_err();
        assert_eq!(gone.code, ErrorCode::InvalidInput);
        // Running it again from a fresh upload adds nothing.
        let again = dst.receive_upload("a.zip", &bytes).unwrap();
        let again = dst
            .start_import(&ImportRequest {
                upload: again.upload,
                dry_run: false,
                into_backend: None,
                agent_map: vec![],
                replace_existing: false,
            })
            .unwrap();
        let again = wait(&dst, &again.id).import.unwrap();
        assert_eq!(again.owners.iter().map(|o| o.new).sum::<u32>(), 0);
    }

    #[test]
    fn a_damaged_upload_fails_with_its_reason_and_a_second_job_waits_its_turn() {
        let dir = tempfile::tempdir().unwrap();
        let c = console_on(dir.path(), "root");
        let up = c.receive_upload("x.zip", b"not a zip at all").unwrap();
        let job = c
            .start_import(&ImportRequest {
                upload: up.upload,
                dry_run: true,
                into_backend: None,
                agent_map: vec![],
                replace_existing: false,
            })
            .unwrap();
        let failed = wait(&c, &job.id);
        assert_eq!(failed.state, TransferState::Failed);
        assert!(failed.error.is_some(), "{failed:?}");
        assert_eq!(
            c.export_archive_file(&job.id).unwrap_err().code,
            ErrorCode::Conflict
        );
        assert_eq!(
            c.transfer_status("export-nope").unwrap_err().code,
            ErrorCode::NotFound
        );
        let bad = c
            .start_export(&ExportRequest {
                agents: vec!["../x".into()],
                all: false,
                sessions: false,
                include_history: false,
            })
            .unwrap_err();
        assert_eq!(bad.code, ErrorCode::InvalidAgentName);
    }

    fn staged(c: &Console) -> Vec<String> {
        let dir = c.index_dir().with_file_name("transfers");
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn uploads_not_imported_do_not_pile_up_in_the_console_folder() {
        let dir = tempfile::tempdir().unwrap();
        let c = console_on(dir.path(), "root");
        // What a killed earlier run left: an upload, an archive and a half-received upload.
        let folder = c.index_dir().with_file_name("transfers");
        std::fs::create_dir_all(&folder).unwrap();
        for left in ["upload-old.zip", "archive-old.zip", ".oryx-upload-half"] {
            std::fs::write(folder.join(left), b"PK").unwrap();
        }
        // A person's own file in the folder is not the console's to remove.
        std::fs::write(folder.join("mine.txt"), b"x").unwrap();
        let mut tokens = Vec::new();
        for _ in 0..5 {
            tokens.push(c.receive_upload("a.zip", b"PK..").unwrap().upload);
        }
        let kept = staged(&c);
        let uploads: Vec<_> = kept.iter().filter(|n| n.starts_with("upload-")).collect();
        assert_eq!(uploads.len(), KEEP_UPLOADS, "{kept:?}");
        assert!(
            !kept.iter().any(|n| n.contains("old") || n.contains("half")),
            "{kept:?}"
        );
        assert!(kept.contains(&"mine.txt".to_string()));
        // The newest are the ones kept; an evicted one is refused with a reason.
        assert!(uploads.iter().any(|n| n.starts_with(&tokens[4])));
        let gone = c
            .start_import(&ImportRequest {
                upload: tokens[0].clone(),
                dry_run: true,
                into_backend: None,
                agent_map: vec![],
                replace_existing: false,
            })
            .unwrap_err();
        assert_eq!(gone.code, ErrorCode::InvalidInput);
        // An empty upload keeps nothing.
        assert_eq!(
            c.receive_upload("e.zip", b"").unwrap_err().code,
            ErrorCode::InvalidInput
        );
        // An import (even a failed one) removes its upload.
        let job = c
            .start_import(&ImportRequest {
                upload: tokens[4].clone(),
                dry_run: false,
                into_backend: None,
                agent_map: vec![],
                replace_existing: false,
            })
            .unwrap();
        assert_eq!(wait(&c, &job.id).state, TransferState::Failed);
        let left = staged(&c);
        assert!(!left.iter().any(|n| n.starts_with(&tokens[4])), "{left:?}");
        assert!(!left.iter().any(|n| n.starts_with(".oryx-")), "{left:?}");
    }

    fn settled(t: &Transfers, id: &str) -> TransferDto {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let s = t.status(id).unwrap();
            if s.state != TransferState::Running {
                return s;
            }
            assert!(Instant::now() < deadline, "transfer {id} still running");
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    #[test]
    fn a_panic_in_the_work_fails_the_job_and_frees_the_slot() {
        let t = Arc::new(Transfers::default());
        let (id, cancel) = t.begin(TransferKind::Import, "u.zip".into()).unwrap();
        let after_ran = Arc::new(AtomicBool::new(false));
        let flag = after_ran.clone();
        spawn(
            t.clone(),
            id.clone(),
            cancel,
            |_, progress| -> ApiResult<()> {
                progress(&Progress {
                    stage: "entries".into(),
                    done: 1,
                    total: 2,
                });
                panic!("capacity overflow")
            },
            |_, ()| {},
            move || flag.store(true, Ordering::Relaxed),
        )
        .unwrap();
        let failed = settled(&t, &id);
        assert_eq!(failed.state, TransferState::Failed, "{failed:?}");
        let error = failed.error.unwrap();
        assert_eq!(error.code, ErrorCode::Internal);
        assert!(error.message.contains("capacity overflow"), "{error:?}");
        // `after` ran; a cancel now answers the failed job; the next job may start.
        assert!(after_ran.load(Ordering::Relaxed));
        let (next, cancel) = t.begin(TransferKind::Export, "a.zip".into()).unwrap();
        // A job that panics after being cancelled still ends (as failed: the panic is news).
        spawn(
            t.clone(),
            next.clone(),
            cancel.clone(),
            |cancel, _| -> ApiResult<()> {
                while !cancel.load(Ordering::Relaxed) {
                    std::thread::yield_now();
                }
                panic!("after the cancel")
            },
            |_, ()| {},
            || {},
        )
        .unwrap();
        cancel.store(true, Ordering::Relaxed);
        assert_eq!(settled(&t, &next).state, TransferState::Failed);
        t.begin(TransferKind::Import, "b.zip".into()).unwrap();
    }

    #[test]
    fn one_job_at_a_time_and_a_cancel_reaches_the_running_one() {
        let t = Transfers::default();
        let (first, cancel) = t.begin(TransferKind::Export, "a.zip".into()).unwrap();
        let second = t.begin(TransferKind::Import, "b.zip".into()).unwrap_err();
        assert_eq!(second.code, ErrorCode::Conflict);
        if let Some(job) = lock(&t.jobs).get(&first) {
            job.cancel.store(true, Ordering::Relaxed);
        }
        assert!(cancel.load(Ordering::Relaxed));
        t.update(&first, |s| s.state = TransferState::Cancelled);
        let (next, _) = t.begin(TransferKind::Import, "b.zip".into()).unwrap();
        assert_eq!(t.status(&first).unwrap_err().code, ErrorCode::NotFound);
        assert_eq!(t.status(&next).unwrap().state, TransferState::Running);
    }
}
