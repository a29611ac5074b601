//! oryx-api's integration tests, one binary: a module per subject, helpers in tests/common.

#[path = "../common/mod.rs"]
mod common;

mod auto_summary;
mod check_runner;
mod damaged_files;
mod events;
mod health_paths;
mod local_embeddings;
