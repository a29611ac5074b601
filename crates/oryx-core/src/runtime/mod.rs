//! The OryxOS runtime the console manages, as the runtime itself sees it: its install layout,
//! configuration and process, and what its database and files hold (provider registry,
//! schedules and their runs, executions, knowledge bases, notify channels, sandbox whitelist,
//! MCP servers).

pub mod config;
pub mod embedder;
pub mod erase;
pub mod executions;
pub mod install;
pub mod knowledge;
pub mod mcp;
pub mod memory_vectors;
pub mod mock_embedding;
pub mod notify;
pub mod process;
pub mod provider_rows;
pub mod providers;
pub mod recall;
pub mod sandbox;
pub mod schedules;
pub mod schema;
mod tables;
pub mod vector_index;
