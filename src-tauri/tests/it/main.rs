//! The desktop app's integration tests, one binary (each Tauri-linked test binary is a long
//! link and hundreds of MB): a module per subject, helpers in tests/common. remote.rs stays a
//! binary of its own: it sets environment variables that the whole process reads.

#[path = "../common/mod.rs"]
mod common;

mod bindings;
mod commands;
mod parity;
mod window_security;
