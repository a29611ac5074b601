//! The two sections of long-term memory: core (always in the prompt) and archival (in the
//! prompt's window, newest first).

use serde::{Deserialize, Serialize};

use crate::error::{CoreError, Result};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    Core,
    Archival,
}

impl Scope {
    /// Case-insensitive; blank means archival (the save_memory default).
    pub fn parse_lenient(s: &str) -> Option<Scope> {
        match s.trim().to_ascii_lowercase().as_str() {
            "" | "archival" => Some(Scope::Archival),
            "core" => Some(Scope::Core),
            _ => None,
        }
    }

    pub fn parse(s: &str) -> Result<Scope> {
        match s.trim().to_ascii_lowercase().as_str() {
            "archival" => Ok(Scope::Archival),
            "core" => Ok(Scope::Core),
            _ => Err(CoreError::InvalidInput(format!(
                "unknown memory scope {s:?}: use core or archival"
            ))),
        }
    }

    /// As the Java runtime writes it in `memory_entries.scope` and mem0 metadata.
    pub fn db_value(self) -> &'static str {
        match self {
            Scope::Core => "CORE",
            Scope::Archival => "ARCHIVAL",
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Core => "core",
            Scope::Archival => "archival",
        }
    }
}
