//! The console's settings file: the core's settings and the console's own preferences.

use std::path::Path;

use oryx_core::config::{self, Settings};
use serde::{Deserialize, Serialize};

use crate::error::ApiResult;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Theme {
    #[default]
    System,
    Light,
    Dark,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    #[default]
    System,
    Zh,
    En,
}

/// How the console looks: its own business, not the memory system's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Preferences {
    pub language: Language,
    pub theme: Theme,
}

/// The settings file: the core's settings and the console's preferences side by side in one
/// JSON object, keys in the order earlier versions wrote them, so existing files load and
/// saving writes the same bytes.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SettingsFile {
    #[serde(flatten)]
    pub settings: Settings,
    #[serde(flatten)]
    pub preferences: Preferences,
}

impl SettingsFile {
    pub fn load(path: &Path) -> ApiResult<SettingsFile> {
        Ok(config::load_file(path)?)
    }

    pub fn save(&self, path: &Path) -> ApiResult<()> {
        self.settings.validate()?;
        Ok(config::save_file(path, self)?)
    }
}
