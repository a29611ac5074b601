//! `oryx migrate`'s progress bar and Ctrl-C handling.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use indicatif::{ProgressBar, ProgressStyle};
use oryx_api::migrate::{MigrateRequest, MigrationReport};
use oryx_api::{ApiResult, Console};

pub fn run_migration(
    console: &Console,
    req: &MigrateRequest,
    json: bool,
) -> ApiResult<MigrationReport> {
    let cancel = Arc::new(AtomicBool::new(false));
    let flag = cancel.clone();
    // A second handler cannot be installed in one process; that only matters in tests.
    let _ = ctrlc::set_handler(move || flag.store(true, Ordering::Relaxed));
    let bar = if json || req.dry_run {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(0)
    };
    bar.set_style(
        ProgressStyle::with_template("{spinner} {msg:20} [{bar:40}] {pos}/{len} entries ({eta})")
            .expect("valid template")
            .progress_chars("=> "),
    );
    let report = console.migrate(req, &cancel, &mut |p| {
        bar.set_length(p.total as u64);
        bar.set_position(p.done as u64);
        bar.set_message(p.owner);
    });
    bar.finish_and_clear();
    report
}
