//! The progress bars and Ctrl-C handling of `oryx migrate` and `oryx index build`.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use indicatif::{ProgressBar, ProgressStyle};
use oryx_api::dto::IndexJobDto;
use oryx_api::migrate::{MigrateRequest, MigrationReport};
use oryx_api::{ApiResult, Console};

/// A flag Ctrl-C sets (the long run stops between entries or batches instead of dying).
fn ctrl_c() -> Arc<AtomicBool> {
    let cancel = Arc::new(AtomicBool::new(false));
    let flag = cancel.clone();
    // A second handler cannot be installed in one process; that only matters in tests.
    let _ = ctrlc::set_handler(move || flag.store(true, Ordering::Relaxed));
    cancel
}

/// The progress bar of a run over entries (hidden for --json and dry runs).
fn entries_bar(hidden: bool) -> ProgressBar {
    let bar = if hidden {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(0)
    };
    bar.set_style(
        ProgressStyle::with_template("{spinner} {msg:20} [{bar:40}] {pos}/{len} entries ({eta})")
            .expect("valid template")
            .progress_chars("=> "),
    );
    bar
}

pub fn run_migration(
    console: &Console,
    req: &MigrateRequest,
    json: bool,
) -> ApiResult<MigrationReport> {
    let cancel = ctrl_c();
    let bar = entries_bar(json || req.dry_run);
    let done = std::sync::atomic::AtomicBool::new(false);
    // The console's own run (its switch of backend included); Ctrl-C asks it to stop between
    // entries, as the app's Cancel does.
    let report = std::thread::scope(|s| {
        s.spawn(|| {
            while !done.load(Ordering::Relaxed) {
                if cancel.load(Ordering::Relaxed) {
                    console.cancel_migration();
                    break;
                }
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
        });
        let report = console.run_migration(req, &mut |p| {
            bar.set_length(p.total as u64);
            bar.set_position(p.done as u64);
            bar.set_message(p.owner);
        });
        done.store(true, Ordering::Relaxed);
        report
    });
    bar.finish_and_clear();
    report
}

/// Starts the console's index build and follows it to the end; Ctrl-C cancels it after its
/// current batch (what was embedded stays).
pub fn build_index(console: &Console, agent: Option<&str>, json: bool) -> ApiResult<IndexJobDto> {
    let cancel = ctrl_c();
    let bar = entries_bar(json);
    let mut job = console.build_index(agent)?;
    let mut asked = false;
    while job.running {
        if cancel.load(Ordering::Relaxed) && !asked {
            asked = console.cancel_index_build();
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
        // The job alone: index_status would recount every owner's entries ten times a second.
        job = match console.index_build_state() {
            Some(j) => j,
            None => break,
        };
        bar.set_length(job.todo as u64);
        bar.set_position(job.done as u64);
        bar.set_message(job.current.clone().unwrap_or_else(|| "global".into()));
    }
    bar.finish_and_clear();
    Ok(job)
}

/// Fills the runtime's index with a bar of the entries embedded; Ctrl-C stops it between
/// batches (what was written stays).
pub fn fill_runtime_index(
    console: &Console,
    dry_run: bool,
    json: bool,
) -> ApiResult<oryx_api::runtime_index::RuntimeFillDto> {
    let cancel = ctrl_c();
    let bar = entries_bar(json || dry_run);
    let args = oryx_api::runtime_index::FillRuntimeArgs { dry_run };
    let mut fill = console.fill_runtime_index(&args)?;
    let mut asked = false;
    while fill.running {
        if cancel.load(Ordering::Relaxed) && !asked {
            asked = console.cancel_runtime_fill();
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
        fill = match console.runtime_fill_state() {
            Some(f) => f,
            None => break,
        };
        bar.set_length(u64::from(fill.to_embed));
        bar.set_position(u64::from(fill.embedded));
        bar.set_message(fill.current.clone().unwrap_or_default());
    }
    bar.finish_and_clear();
    Ok(fill)
}

/// Runs an export or import with a bar of its units (members checked, entries written);
/// Ctrl-C stops it between units (an export then leaves no file; an import keeps what it added).
pub fn with_units<T>(
    json: bool,
    run: impl FnOnce(&AtomicBool, &mut dyn FnMut(&oryx_api::portable::Progress)) -> ApiResult<T>,
) -> ApiResult<T> {
    let cancel = ctrl_c();
    let bar = entries_bar(json);
    let out = run(&cancel, &mut |p| {
        bar.set_length(p.total);
        bar.set_position(p.done);
        bar.set_message(p.stage.clone());
    });
    bar.finish_and_clear();
    out
}

/// Forgets with a bar of the places done; Ctrl-C stops it before the next place.
pub fn forget(
    console: &Console,
    args: &oryx_api::forget::ForgetArgs,
    json: bool,
) -> ApiResult<oryx_api::forget::ForgetDto> {
    let cancel = ctrl_c();
    let bar = if json || args.dry_run {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(0)
    };
    bar.set_style(
        ProgressStyle::with_template("{spinner} [{bar:20}] {pos}/{len} places: {msg}")
            .expect("valid template")
            .progress_chars("=> "),
    );
    let out = console.forget_now(args, &cancel, &mut |s| {
        bar.set_length(s.of as u64);
        bar.set_position(s.done as u64);
        bar.set_message(s.place);
    });
    bar.finish_and_clear();
    out
}
