//! A problem the console shows beside an agent, a skill, a prompt or a root, never a failure: a
//! stable code and the values its sentence needs (the UI says it in the user's language), and
//! the English sentence (the CLI prints it; it is also the technical detail).

use std::collections::BTreeMap;
use std::fmt;

use serde::Serialize;

/// Every warning the console can produce. Serialised snake_case; the UI has a sentence for each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum WarningCode {
    /// `name`: the directory name.
    AgentNameInvalid,
    AgentDirOutsideRoot,
    AgentMdMissing,
    /// `detail`: the read error.
    AgentMdUnreadable,
    AgentMdNotUtf8,
    /// `file` (AGENT.md or SKILL.md), `detail`: the parser's message.
    FrontMatterInvalid,
    /// `declared`, `name`: the name AGENT.md gives and the directory's.
    AgentNameMismatch,
    /// `value`, `default`.
    MaxHistoryTurnsInvalid,
    SchedulesNotList,
    /// `index`, `id`, `key`.
    ScheduleIdKeyDiffer,
    /// `index`.
    ScheduleNoKey,
    /// `index`, `key`.
    ScheduleNoName,
    /// `index`, `key`.
    ScheduleKeyDuplicate,
    /// `index`, `key`, `cron`, `fields`.
    ScheduleCronFields,
    SkillLinkBroken,
    SkillOutsideRoot,
    SkillMdMissing,
    /// `detail`: the read error.
    SkillMdUnreadable,
    /// `declared`: the name SKILL.md gives.
    SkillNameMismatch,
    /// `file`.
    BootstrapMissing,
    /// `file`, `detail`: the read error.
    BootstrapUnreadable,
    /// `detail`: why the session's messages cannot be read.
    SessionMessagesUnreadable,
    RootMissing,
    RootNotFolder,
    RootNoAgents,
}

/// One warning. Displays as its English `message`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Warning {
    pub code: WarningCode,
    /// The values the sentence names (`file`, `index`, `key`, `name`, `detail`, …). On an
    /// agent, a skill's warnings also carry `skill`.
    pub params: BTreeMap<String, String>,
    /// The English sentence.
    pub message: String,
}

impl Warning {
    pub fn new(code: WarningCode, message: impl Into<String>) -> Self {
        Self {
            code,
            params: BTreeMap::new(),
            message: message.into(),
        }
    }

    pub fn with(mut self, key: &str, value: impl fmt::Display) -> Self {
        self.params.insert(key.to_string(), value.to_string());
        self
    }

    /// `true` when the English sentence contains `s`.
    pub fn contains(&self, s: &str) -> bool {
        self.message.contains(s)
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}
