//! oryx-core's integration tests, one binary: a module per subject (linking one test binary
//! per file cost a link and ~40 MB of target/ each). A test that needs a process of its own
//! (process-wide memory figures, environment variables) gets its own file in tests/ instead.
//! Property-test regressions are in tests/proptest-regressions/<module>.txt, where proptest
//! looks for a source file under a directory with a main.rs.

mod archive_export_faults;
mod archive_round_trip;
mod concurrent_writers;
mod curation;
mod curation_history_faults;
mod format_properties;
mod java_compat;
mod memory_append_faults;
mod root_links_and_fifos;
mod runtime_schema;
mod store_contract;
mod vector_file_damage;
mod watch;

/// The name the test harness gives test `f` of `module` (a `module_path!()`): the tests that
/// re-run this binary as a child process select one test with it, whatever module it is in.
fn test_name(module: &str, f: &str) -> String {
    match module.split_once("::") {
        Some((_crate, path)) => format!("{path}::{f}"),
        None => f.to_string(),
    }
}
