//! oryx-core's integration tests, one binary: a module per subject (linking one test binary
//! per file cost a link and ~40 MB of target/ each). A test that needs a process of its own
//! (process-wide memory figures, environment variables) gets its own file in tests/ instead.
//! Property-test regressions are in tests/proptest-regressions/<module>.txt, where proptest
//! looks for a source file under a directory with a main.rs.

#[path = "../common/mod.rs"]
mod common;

mod archive_export_faults;
mod archive_round_trip;
mod concurrent_writers;
mod curation;
mod curation_history_faults;
mod format_properties;
mod java_compat;
mod memory_append_faults;
mod read_receipts;
mod root_links_and_fifos;
mod runtime_install;
mod runtime_recall_answers;
mod runtime_reference_answers;
mod runtime_schema;
mod runtime_vector_index;
mod store_contract;
mod superseded_pairs;
mod vector_file_damage;
mod watch;
