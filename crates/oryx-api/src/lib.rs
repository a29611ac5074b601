//! The console's operations over oryx-core, written once and exposed by every host: the Tauri
//! commands, the REST routes and the `oryx` CLI are thin adapters over `Console`'s methods.

#![forbid(unsafe_code)]

pub mod agent_admin;
pub mod agent_recall;
pub mod agents;
pub mod auto_summary;
pub mod charts;
mod check_runner;
pub mod compat_data;
pub mod config_dir;
pub mod console;
pub mod curation;
pub mod dto;
pub mod error;
pub mod events;
pub mod files;
pub mod forget;
pub mod health;
mod jobs;
pub mod local_embeddings;
mod lock;
pub mod memory;
pub mod memory_page;
pub mod migrate;
pub mod ops;
mod poisoning;
pub mod portable;
pub mod prompt;
pub mod provenance;
pub mod reads;
pub mod recall;
pub mod recall_checks;
pub mod recall_proposal;
pub mod remote;
pub mod run;
pub mod runtime;
pub mod runtime_index;
pub mod services;
pub mod sessions;
pub mod settings;
pub mod settings_file;
pub mod superseded;
#[cfg(test)]
mod test_support;
pub mod transfer;
mod view_cache;
pub mod watch;

pub use console::Console;
pub use error::{ApiError, ApiResult, ErrorCode};
pub use services::Services;

// What a host needs to open a console, so hosts depend on oryx-api alone.
pub use oryx_core::config::Overrides;
pub use oryx_core::embed::MODEL_DIR_ENV;
pub use oryx_core::memory::Backend;
