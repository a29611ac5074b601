//! USER.md and the other bootstrap files (edited in `agent_admin`).

use std::io::Read;
use std::path::Path;

use oryx_core::agents;

use crate::console::Console;
use crate::dto::BootstrapFileDto;
use crate::error::{ApiError, ApiResult};

/// The root's bootstrap files the console lists even when no agent names them.
pub const ROOT_FILES: &[&str] = oryx_core::workspace::BOOTSTRAP_FILES;

impl Console {
    pub fn bootstrap_file(&self, name: &str) -> ApiResult<BootstrapFileDto> {
        let rt = self.services();
        let f = agents::read_bootstrap(rt.root(), name)?;
        Ok(BootstrapFileDto {
            version: oryx_core::agent_admin::version_of(&f.content),
            name: f.name,
            exists: f.exists,
            content: f.content,
        })
    }

    /// The root's standard files plus every file an agent lists in `bootstrap`.
    pub fn bootstrap_files(&self) -> ApiResult<Vec<BootstrapFileDto>> {
        let rt = self.services();
        let mut names: Vec<String> = ROOT_FILES.iter().map(|s| s.to_string()).collect();
        for a in agents::list(rt.root())? {
            for b in a.bootstrap {
                if !names.contains(&b) {
                    names.push(b);
                }
            }
        }
        names
            .iter()
            .filter_map(|n| self.bootstrap_file(n).ok())
            .map(Ok)
            .collect()
    }
}

/// Most bytes of a bootstrap file, read or written.
pub const MAX_FILE_BYTES: u64 = agents::MAX_AGENT_MD;

/// The text of an input the user names (`--from`): standard input for `-`, else a regular
/// file ([`open_input`]); more than `max` bytes is an error either way.
pub fn read_input(path: &Path, max: u64) -> ApiResult<String> {
    let what = path.display();
    let mut bytes = Vec::new();
    let read = if path.as_os_str() == "-" {
        std::io::stdin()
            .lock()
            .take(max + 1)
            .read_to_end(&mut bytes)
    } else {
        open_input(path, max)?.take(max + 1).read_to_end(&mut bytes)
    };
    read.map_err(|e| ApiError::invalid(format!("cannot read {what}: {e}")))?;
    if bytes.len() as u64 > max {
        return Err(too_large(path, max));
    }
    String::from_utf8(bytes).map_err(|_| ApiError::invalid(format!("{what} is not UTF-8 text")))
}

/// `path` opened for reading when it is a regular file of at most `max` bytes: a FIFO, socket
/// or device is refused, never waited on or read without end.
pub fn open_input(path: &Path, max: u64) -> ApiResult<std::fs::File> {
    let file = oryx_core::rooted_fs::open_read(path)?.ok_or_else(|| {
        ApiError::invalid(format!("cannot read {}: no such file", path.display()))
    })?;
    let len = file
        .metadata()
        .map_err(|e| ApiError::invalid(format!("cannot read {}: {e}", path.display())))?
        .len();
    if len > max {
        return Err(too_large(path, max));
    }
    Ok(file)
}

fn too_large(path: &Path, max: u64) -> ApiError {
    ApiError::invalid(format!(
        "{} holds more than the {max} bytes this command reads",
        path.display()
    ))
}
