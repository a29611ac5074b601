//! The servers the desktop remembers: `servers.json` beside the settings file. Addresses and
//! trusted fingerprints only; tokens live in the system's keyring, never in a file.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use oryx_core::config;

use super::ServerUrl;
use crate::error::ApiResult;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RememberedServer {
    pub url: String,
    #[serde(default)]
    pub fingerprint: Option<String>,
    #[serde(default)]
    pub last_connected: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
struct ServersFile {
    #[serde(default)]
    servers: Vec<RememberedServer>,
}

/// `servers.json` in the folder of `settings_path`.
pub struct ServerList {
    path: PathBuf,
}

impl ServerList {
    pub fn beside(settings_path: &Path) -> ServerList {
        let dir = settings_path.parent().unwrap_or(Path::new("."));
        ServerList {
            path: dir.join("servers.json"),
        }
    }

    /// Most recently connected first. A hand-broken file reads as an error naming it.
    pub fn load(&self) -> ApiResult<Vec<RememberedServer>> {
        let mut file: ServersFile = config::load_file(&self.path)?;
        // Entries a person broke by hand are left out rather than offered.
        file.servers.retain(|s| ServerUrl::parse(&s.url).is_ok());
        file.servers
            .sort_by(|a, b| b.last_connected.cmp(&a.last_connected));
        Ok(file.servers)
    }

    pub fn get(&self, url: &str) -> ApiResult<Option<RememberedServer>> {
        Ok(self.load()?.into_iter().find(|s| s.url == url))
    }

    /// Adds or updates one server (by its address).
    pub fn remember(&self, server: RememberedServer) -> ApiResult<()> {
        let mut servers = self.load()?;
        servers.retain(|s| s.url != server.url);
        servers.insert(0, server);
        self.save(servers)
    }

    /// Forgets one server; whether it was remembered.
    pub fn forget(&self, url: &str) -> ApiResult<bool> {
        let mut servers = self.load()?;
        let before = servers.len();
        servers.retain(|s| s.url != url);
        let gone = servers.len() != before;
        if gone {
            self.save(servers)?;
        }
        Ok(gone)
    }

    fn save(&self, servers: Vec<RememberedServer>) -> ApiResult<()> {
        Ok(config::save_file(&self.path, &ServersFile { servers })?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server(url: &str, at: &str) -> RememberedServer {
        RememberedServer {
            url: url.into(),
            fingerprint: None,
            last_connected: Some(at.into()),
        }
    }

    #[test]
    fn servers_are_remembered_newest_first_and_forgotten() {
        let dir = tempfile::tempdir().unwrap();
        let list = ServerList::beside(&dir.path().join("settings.json"));
        assert!(list.load().unwrap().is_empty());
        list.remember(server("https://a:1", "2026-12-01T00:00:00Z"))
            .unwrap();
        list.remember(server("https://b:1", "2026-12-02T00:00:00Z"))
            .unwrap();
        list.remember(server("https://a:1", "2026-12-03T00:00:00Z"))
            .unwrap();
        let urls: Vec<String> = list.load().unwrap().into_iter().map(|s| s.url).collect();
        assert_eq!(urls, ["https://a:1", "https://b:1"]);
        assert!(list.forget("https://a:1").unwrap());
        assert!(!list.forget("https://a:1").unwrap());
        assert_eq!(list.load().unwrap().len(), 1);
        let text = std::fs::read_to_string(dir.path().join("servers.json")).unwrap();
        assert!(!text.to_ascii_lowercase().contains("token"), "{text}");
    }

    #[test]
    fn a_broken_file_is_an_error_and_stays_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("servers.json"), "{not json").unwrap();
        let list = ServerList::beside(&dir.path().join("settings.json"));
        let e = list.load().unwrap_err();
        assert_eq!(e.code, crate::ErrorCode::Corrupt);
        assert!(list
            .remember(server("https://a:1", "2026-12-01T00:00:00Z"))
            .is_err());
        assert_eq!(
            std::fs::read_to_string(dir.path().join("servers.json")).unwrap(),
            "{not json"
        );
    }
}
