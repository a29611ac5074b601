//! The OryxOS memory system (SPEC §1–§9). No Tauri, no HTTP server, no UI.

pub mod db;
pub mod error;
pub mod memory;
pub mod names;
pub mod sessions;
pub mod timefmt;

pub use error::{CoreError, Result};
