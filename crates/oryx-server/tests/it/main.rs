//! The REST server's integration tests, one binary: a module per subject, helpers in
//! tests/common. Each test starts the real server in this process (`serve_until` on a port of
//! its own) and talks to it over real TCP; what needs the `oryx serve` process itself (its
//! signals, log, exit codes, memory) is tested in oryx-cli.

#[path = "../common/mod.rs"]
mod common;

mod auth;
mod cross_origin;
mod embeddings;
mod error_envelope;
mod java_admin_routes;
mod java_admin_runtime_data;
mod limits;
mod mem0_unavailable;
mod migrate;
mod path_traversal;
mod routes;
mod settings_paths;
mod tls;
