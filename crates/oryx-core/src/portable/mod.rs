//! Portability: one archive that carries agents and their memory between machines,
//! roots and backends, and memory as it stood at any moment.
//!
//! The archive is a zip (`*.oryx.zip`):
//! - `manifest.json` — format `oryx-export`, version, when, the source backend, per owner the
//!   entry counts, and every other member's size and SHA-256;
//! - `entries/<owner>.jsonl` — one JSON object per entry, oldest first per section:
//!   `{"owner", "scope", "timestamp", "content"}` (owner: the agent's name or `__global__`);
//! - `files/…` — the root's files as they are: `agents/<n>/AGENT.md`, `agents/<n>/MEMORY.md`
//!   byte for byte, the bootstrap files the agents name, the skills they link (with the links
//!   in the manifest), `memory/MEMORY.md`, and (only when asked, `history: true` in the
//!   manifest) the console's history sidecars;
//! - `sessions/<agent>.jsonl` (with `--sessions`) — each session with its messages, for
//!   reading: the console never writes the runtime's sessions.

pub mod asof;
pub mod export;
pub mod foreign;
pub mod git;
pub mod import;
pub mod staging;

use serde::{Deserialize, Serialize};

use crate::error::{CoreError, Result};
use crate::memory::Scope;
use crate::names::Owner;

pub const FORMAT: &str = "oryx-export";
pub const VERSION: u32 = 1;
pub const GLOBAL_KEY: &str = "__global__";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub format: String,
    pub version: u32,
    /// Local time of the export, `yyyy-MM-dd HH:mm:ss`.
    pub created: String,
    pub source_backend: String,
    pub owners: Vec<OwnerManifest>,
    pub files: Vec<FileManifest>,
    /// Skill links of the agents: `agents/<n>/skills/<s>` → its relative target.
    #[serde(default)]
    pub links: Vec<LinkManifest>,
    pub sessions: bool,
    /// The console's history sidecars are in `files/` (only when the export asked for them).
    #[serde(default)]
    pub history: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OwnerManifest {
    /// The agent's name, or `__global__`.
    pub owner: String,
    pub core: usize,
    pub archival: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileManifest {
    /// The member's name in the archive.
    pub path: String,
    pub bytes: u64,
    pub sha256: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LinkManifest {
    pub path: String,
    pub target: String,
}

/// One line of `entries/<owner>.jsonl`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EntryLine {
    pub owner: String,
    pub scope: Scope,
    pub timestamp: Option<String>,
    pub content: String,
}

/// Progress of a long export or import: units done of all.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Progress {
    pub stage: String,
    pub done: u64,
    pub total: u64,
}

pub fn owner_key(o: &Owner) -> String {
    match o {
        Owner::Global => GLOBAL_KEY.to_string(),
        Owner::Agent(a) => a.clone(),
    }
}

/// An owner named in an archive: `__global__` or a valid agent name.
pub fn owner_of(key: &str) -> Result<Owner> {
    if key == GLOBAL_KEY {
        return Ok(Owner::Global);
    }
    crate::names::validate_agent_name(key)
        .map_err(|_| CoreError::Corrupt(format!("the archive names an invalid agent {key:?}")))?;
    Ok(Owner::Agent(key.to_string()))
}

/// One component of a path an archive may carry below `files/`: a plain visible name (no dot
/// first: the console's sidecars and temp files are dot-files or `.oryx-*`, and a skill needs
/// none), no control character or backslash, and nothing a database leaves beside itself
/// (`*.db*`, `*.sqlite*`, `-wal`, `-shm`, `-journal`).
pub fn is_plain_member_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    !name.is_empty()
        && name.len() <= 255
        && !name.starts_with('.')
        && !name
            .chars()
            .any(|c| c.is_control() || c == '\\' || c == '/')
        && !lower.contains(".oryx-")
        && !lower.contains(".db")
        && !lower.contains(".sqlite")
        && !["-wal", "-shm", "-journal"]
            .iter()
            .any(|s| lower.ends_with(s))
}

/// Names a file below `skills/<s>/` may have in an archive (folders, then the file's name).
const MAX_SKILL_DEPTH: usize = 8;

/// The path below `skills/<s>/` of a skill file an archive may carry: plain names, not too deep.
/// Export writes only these (a `.gitignore` or `.DS_Store` stays home), import accepts only these.
pub fn is_skill_member(rest: &[&str]) -> bool {
    !rest.is_empty()
        && rest.len() <= MAX_SKILL_DEPTH
        && rest.iter().all(|r| is_plain_member_name(r))
}

/// A bootstrap file an archive may carry at the top of the root: a plain markdown name (what
/// the runtime puts into a prompt, CONTRACT §9), so never a database, sidecar or folder of the root.
pub fn is_bootstrap_name(name: &str) -> bool {
    is_plain_member_name(name) && name.to_ascii_lowercase().ends_with(".md")
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    let d = sha2::Sha256::digest(bytes);
    d.iter().map(|b| format!("{b:02x}")).collect()
}
