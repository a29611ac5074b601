//! The `oryx` binary's integration tests, one binary: a module per subject, helpers in
//! tests/common. They run the real `oryx` (cargo builds it for this crate's tests).

#[path = "../common/mod.rs"]
mod common;

mod agent_commands;
mod broken_roots;
mod commands;
mod concurrent_writers;
mod curation_commands;
mod export_import_commands;
mod forget_commands;
mod health_poisoning;
mod local_embeddings;
mod mem0_unavailable;
mod memory_reads;
mod path_traversal;
mod recall_checks_commands;
mod recall_proposal_commands;
mod runtime_index_commands;
mod runtime_install;
mod runtime_schema;
mod serve_process;
mod serve_refusals;
mod superseded_commands;
mod ui_fixtures;
