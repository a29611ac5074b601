//! The OryxOS runtime the console manages, as the runtime itself sees it: its provider registry
//! (and, as they are added, its install layout, configuration and process).

pub mod config;
pub mod install;
pub mod process;
pub mod providers;
pub mod schema;
