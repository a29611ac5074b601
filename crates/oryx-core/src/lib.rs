//! The OryxOS memory system (CONTRACT §1–§9). No Tauri, no HTTP server, no UI.

#![forbid(unsafe_code)]

pub mod agent_admin;
pub mod agents;
pub mod config;
mod cores;
pub mod db;
pub mod demo;
pub mod embed;
pub mod episodic;
pub mod error;
pub mod forget;
pub mod frontmatter;
mod interleaved_fold;
pub mod memory;
pub mod migrate;
pub mod names;
pub mod portable;
pub mod prompt;
pub mod provenance;
pub mod reads;
pub mod recall_checks;
pub mod root;
pub mod rooted_fs;
pub mod runtime;
pub mod runtime_load;
pub mod sessions;
pub mod timefmt;
pub mod tools;
pub mod warning;
pub mod watch;
pub mod workspace;
pub mod yaml_edit;

pub use error::{CoreError, Result};
