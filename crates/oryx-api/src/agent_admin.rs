//! Managing agents and the user's files (CONTRACT §1): create, clone, edit AGENT.md,
//! skills, archive and restore, and bootstrap file edits.

use serde::{Deserialize, Serialize};
#[cfg(feature = "specta")]
use specta::Type;

use oryx_core::agent_admin::{self as admin, NewAgent};

use crate::console::Console;
use crate::dto::{AgentDetail, BootstrapFileDto};
use crate::error::ApiResult;

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct CreateAgentArgs {
    pub name: String,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub identity_name: Option<String>,
    #[serde(default)]
    pub identity_prompt: Option<String>,
    #[serde(default)]
    pub provider: Option<String>,
    #[serde(default)]
    pub model: Option<String>,
    #[serde(default)]
    pub temperature: Option<f64>,
    #[serde(default)]
    pub tools: Vec<String>,
    #[serde(default)]
    pub bootstrap: Vec<String>,
    #[serde(default)]
    pub max_history_turns: Option<i32>,
    #[serde(default)]
    pub body: Option<String>,
    /// Start from this agent (clone): its front matter and body.
    #[serde(default)]
    pub from: Option<String>,
    /// With `from`: copy its MEMORY.md too.
    #[serde(default)]
    pub with_memory: bool,
    /// Create it although an archived agent has this name (the user was asked).
    #[serde(default)]
    pub reuse_archived_name: bool,
    /// Write it although the runtime would not load it (a draft); otherwise such a create is
    /// refused with the runtime's reason.
    #[serde(default)]
    pub draft: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct FieldErrorDto {
    /// The front matter key (`provider.model`); empty for the whole text.
    pub key: String,
    pub message: String,
}

/// AGENT.md as the raw editor opens it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct AgentFileDto {
    pub name: String,
    pub text: String,
    /// Send it back when saving: a file changed since is refused (`conflict`).
    pub version: String,
    pub errors: Vec<FieldErrorDto>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct SaveAgentArgs {
    pub name: String,
    pub text: String,
    #[serde(default)]
    pub version: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct SetKeyArgs {
    pub name: String,
    /// Dotted: `provider.model`, `settings.max_history_turns`.
    pub key: String,
    /// A YAML value (`gpt-4o`, `0.3`, `[a, b]`); `null` removes the key.
    pub value: String,
    #[serde(default)]
    pub version: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct ValidateAgentArgs {
    pub name: String,
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct RootSkillDto {
    pub name: String,
    pub description: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct SkillsArgs {
    pub name: String,
    #[serde(default)]
    pub add: Vec<String>,
    #[serde(default)]
    pub remove: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct ArchivedDto {
    /// The folder under `archive/`: `<name>` or `<name>-<epochMillis>[-N]` (the runtime's
    /// forms), or `<name>.<yyyyMMdd-HHmmss>` (the console's before).
    pub archived_name: String,
    pub name: String,
    /// Local time, `yyyy-MM-dd HH:mm:ss`; for `archive/<name>` the folder's modification time.
    pub archived_at: String,
    /// `runtime`, `runtime_stamped` or `console`: which of the forms above.
    pub form: admin::ArchiveForm,
}

/// What a new agent is offered: the runtime's provider names and the one it picks by default.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct NewAgentChoicesDto {
    /// The registry's names, sorted; `None` while the runtime has no registry yet.
    pub providers: Option<Vec<String>>,
    /// The registry's first name, else `deepseek` (the runtime's own fallback).
    pub default_provider: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct ArchivedArgs {
    pub archived_name: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct RestoreAgentArgs {
    pub archived_name: String,
    /// Restore under another name (when the name is taken).
    #[serde(default)]
    pub as_name: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct DeleteArchivedArgs {
    pub archived_name: String,
    /// The file count `archived_removal` showed: anything added since refuses the delete.
    pub expect_count: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct RemovalDto {
    pub archived_name: String,
    pub files: u32,
    pub bytes: f64,
    pub paths: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct SaveFileArgs {
    pub name: String,
    pub text: String,
    #[serde(default)]
    pub version: Option<String>,
}

fn archived_dto(a: admin::Archived) -> ArchivedDto {
    ArchivedDto {
        archived_name: a.archived_name,
        name: a.name,
        archived_at: a.archived_at,
        form: a.form,
    }
}

fn removal_dto(r: admin::Removal) -> RemovalDto {
    RemovalDto {
        archived_name: r.archived_name,
        files: r.files as u32,
        bytes: r.bytes as f64,
        paths: r.paths,
    }
}

fn errors(text: &str, name: &str) -> Vec<FieldErrorDto> {
    admin::validate(text, name)
        .into_iter()
        .map(|e| FieldErrorDto {
            key: e.key,
            message: e.message,
        })
        .collect()
}

impl Console {
    pub fn create_agent(&self, a: &CreateAgentArgs) -> ApiResult<AgentDetail> {
        let rt = self.services();
        let spec = NewAgent {
            name: a.name.clone(),
            description: a.description.clone().filter(|s| !s.is_empty()),
            identity_name: a.identity_name.clone().filter(|s| !s.is_empty()),
            identity_prompt: a.identity_prompt.clone().filter(|s| !s.is_empty()),
            provider: a.provider.clone().filter(|s| !s.is_empty()),
            model: a.model.clone().filter(|s| !s.is_empty()),
            temperature: a.temperature,
            tools: a.tools.clone(),
            bootstrap: a.bootstrap.clone(),
            max_history_turns: a.max_history_turns.map(i64::from),
            body: a.body.clone(),
            from: a.from.clone().filter(|s| !s.is_empty()),
            with_memory: a.with_memory,
            reuse_archived_name: a.reuse_archived_name,
            draft: a.draft,
            providers: crate::agents::runtime_providers(&rt),
        };
        admin::create(rt.root(), &spec)?;
        if spec.from.is_some() && spec.with_memory {
            // The copied MEMORY.md bypassed the store: its entries get the runtime's rows now.
            crate::runtime_index::index_copied(
                &rt,
                &oryx_core::names::Owner::Agent(a.name.clone()),
            );
        }
        drop(rt);
        self.get_agent(&a.name)
    }

    /// The providers a new agent can name, as the runtime's registry holds them.
    pub fn new_agent_choices(&self) -> ApiResult<NewAgentChoicesDto> {
        let rt = self.services();
        let providers = crate::agents::runtime_providers(&rt);
        Ok(NewAgentChoicesDto {
            default_provider: oryx_core::runtime_load::default_provider(providers.as_deref()),
            providers,
        })
    }

    pub fn agent_file(&self, name: &str) -> ApiResult<AgentFileDto> {
        let rt = self.services();
        let (text, version) = admin::read_agent_md(rt.root(), name)?;
        Ok(AgentFileDto {
            name: name.to_string(),
            errors: errors(&text, name),
            text,
            version,
        })
    }

    pub fn save_agent_file(&self, a: &SaveAgentArgs) -> ApiResult<AgentFileDto> {
        let rt = self.services();
        admin::save_agent_md(rt.root(), &a.name, &a.text, a.version.as_deref())?;
        drop(rt);
        self.agent_file(&a.name)
    }

    pub fn set_agent_key(&self, a: &SetKeyArgs) -> ApiResult<AgentFileDto> {
        let rt = self.services();
        admin::set_key(rt.root(), &a.name, &a.key, &a.value, a.version.as_deref())?;
        drop(rt);
        self.agent_file(&a.name)
    }

    /// Problems the raw editor's text has, before saving.
    pub fn validate_agent_file(&self, a: &ValidateAgentArgs) -> ApiResult<Vec<FieldErrorDto>> {
        oryx_core::names::validate_agent_name(&a.name)?;
        Ok(errors(&a.text, &a.name))
    }

    pub fn skills_of_root(&self) -> ApiResult<Vec<RootSkillDto>> {
        let rt = self.services();
        Ok(admin::list_skills(rt.root())?
            .into_iter()
            .map(|s| RootSkillDto {
                name: s.name,
                description: s.description,
            })
            .collect())
    }

    pub fn set_agent_skills(&self, a: &SkillsArgs) -> ApiResult<AgentDetail> {
        let rt = self.services();
        for s in &a.remove {
            admin::detach_skill(rt.root(), &a.name, s)?;
        }
        for s in &a.add {
            admin::attach_skill(rt.root(), &a.name, s)?;
        }
        drop(rt);
        self.get_agent(&a.name)
    }

    pub fn archive_agent(&self, name: &str) -> ApiResult<ArchivedDto> {
        let rt = self.services();
        Ok(archived_dto(admin::archive(rt.root(), name)?))
    }

    pub fn list_archived(&self) -> ApiResult<Vec<ArchivedDto>> {
        let rt = self.services();
        Ok(admin::list_archived(rt.root())?
            .into_iter()
            .map(archived_dto)
            .collect())
    }

    pub fn restore_agent(&self, a: &RestoreAgentArgs) -> ApiResult<AgentDetail> {
        let rt = self.services();
        let name = admin::restore(rt.root(), &a.archived_name, a.as_name.as_deref())?;
        drop(rt);
        self.get_agent(&name)
    }

    pub fn archived_removal(&self, archived_name: &str) -> ApiResult<RemovalDto> {
        let rt = self.services();
        Ok(removal_dto(admin::removal_of(rt.root(), archived_name)?))
    }

    pub fn delete_archived(&self, a: &DeleteArchivedArgs) -> ApiResult<RemovalDto> {
        let rt = self.services();
        Ok(removal_dto(admin::delete_archived(
            rt.root(),
            &a.archived_name,
            u64::from(a.expect_count),
        )?))
    }

    pub fn save_bootstrap_file(&self, a: &SaveFileArgs) -> ApiResult<BootstrapFileDto> {
        let rt = self.services();
        admin::write_bootstrap(rt.root(), &a.name, &a.text, a.version.as_deref())?;
        drop(rt);
        self.bootstrap_file(&a.name)
    }
}
