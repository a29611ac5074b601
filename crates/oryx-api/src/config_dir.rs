//! The console's own folder: its settings file, the servers it remembers, its indexes of the
//! runtime's data. A console matter, not the memory system's (core takes the paths it is given).

use std::path::{Path, PathBuf};

/// Moves the folder (tests, a second profile): `$ORYXOS_CONFIG_DIR/settings.json`.
pub const ENV_CONFIG_DIR: &str = "ORYXOS_CONFIG_DIR";

/// The folder's name under the OS config directory (`~/.config` on Linux).
const FOLDER: &str = "oryxos-console";

/// Where settings live: `$ORYXOS_CONFIG_DIR/settings.json`, else `<OS config dir>/oryxos-console`.
pub fn default_settings_path() -> PathBuf {
    if let Some(dir) = std::env::var_os(ENV_CONFIG_DIR).filter(|d| !d.is_empty()) {
        return PathBuf::from(dir).join("settings.json");
    }
    dirs::config_dir()
        .unwrap_or_else(|| PathBuf::from("."))
        .join(FOLDER)
        .join("settings.json")
}

/// Where the console keeps its own indexes of runtime databases: beside the settings, so that
/// the runtime's database never holds anything of the console's (CONTRACT §12).
pub fn index_dir_beside(settings_path: &Path) -> PathBuf {
    settings_path
        .parent()
        .map_or_else(|| PathBuf::from("index"), |dir| dir.join("index"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_index_sits_beside_the_settings() {
        assert_eq!(
            index_dir_beside(Path::new("/c/settings.json")),
            Path::new("/c/index")
        );
        assert!(default_settings_path().ends_with("settings.json"));
    }
}
