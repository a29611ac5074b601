//! USER.md and the other bootstrap files (edited in `agent_admin`).

use oryx_core::agents;

use crate::console::Console;
use crate::dto::BootstrapFileDto;
use crate::error::ApiResult;

/// The root's bootstrap files the console lists even when no agent names them.
pub const ROOT_FILES: &[&str] = oryx_core::workspace::BOOTSTRAP_FILES;

impl Console {
    pub fn bootstrap_file(&self, name: &str) -> ApiResult<BootstrapFileDto> {
        let rt = self.runtime();
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
        let rt = self.runtime();
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
