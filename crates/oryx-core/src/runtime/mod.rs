//! The OryxOS runtime the console manages, as the runtime itself sees it: its provider registry
//! (and, as they are added, its install layout, configuration and process).

pub mod executions;
pub mod knowledge;
pub mod mcp;
pub mod notify;
pub mod providers;
pub mod sandbox;
pub mod schedules;
mod tables;
