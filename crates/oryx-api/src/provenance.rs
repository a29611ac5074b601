//! Where an entry came from, and which entries a session wrote.

use serde::{Deserialize, Serialize};
#[cfg(feature = "specta")]
use specta::Type;

use oryx_core::memory::Scope;
use oryx_core::provenance::{self, MemoryLink, Provenance, Source};

use crate::console::Console;
use crate::dto::{ts, ScopeDto};
use crate::error::ApiResult;

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct ProvenanceArgs {
    #[serde(default)]
    pub agent: Option<String>,
    /// The entry's id, as listed.
    pub id: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
#[serde(rename_all = "snake_case")]
pub enum OriginDto {
    /// Written by the agent's `save_memory` tool.
    SaveMemory,
    /// The runtime's footprint of one conversation turn.
    Footprint,
    /// A summary line the console's summariser wrote.
    Summary,
    /// Last written by a console change.
    Console,
    /// Nothing on record (by hand, an import, a console append, or a session since gone).
    Unknown,
}

impl From<Source> for OriginDto {
    fn from(s: Source) -> Self {
        match s {
            Source::SaveMemory => OriginDto::SaveMemory,
            Source::Footprint => OriginDto::Footprint,
            Source::Summary => OriginDto::Summary,
            Source::Console => OriginDto::Console,
            Source::Unknown => OriginDto::Unknown,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct ProvenanceDto {
    pub origin: OriginDto,
    /// The record agrees with the entry in text and time (within two minutes); `false`: in
    /// text only — the record nearest in time is named — or there is none.
    pub exact: bool,
    pub session_id: Option<String>,
    /// Position in the session's messages: the `save_memory` call or the turn's user message.
    pub message_index: Option<u32>,
    #[cfg_attr(feature = "specta", specta(type = Option<u32>))]
    pub invocation_id: Option<i64>,
    /// When the record was made (`yyyy-MM-dd HH:mm:ss`).
    pub at: Option<String>,
    /// A footprint's user message, as the footprint holds it.
    pub trigger: Option<String>,
    pub change_id: Option<String>,
    /// `edit`, `move`, `restore`, `summarize`, `auto_summary`.
    pub change_op: Option<String>,
    /// A console change: where the text it replaced came from.
    pub earlier: Option<Box<ProvenanceDto>>,
}

impl From<Provenance> for ProvenanceDto {
    fn from(p: Provenance) -> Self {
        ProvenanceDto {
            origin: p.source.into(),
            exact: p.exact,
            session_id: p.session_id,
            message_index: p.message_index.map(|i| i as u32),
            invocation_id: p.invocation_id,
            at: ts(&p.at),
            trigger: p.trigger,
            change_id: p.change_id,
            change_op: p.change_op,
            earlier: p.earlier.map(|e| Box::new((*e).into())),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct MemoryLinkDto {
    pub message_index: u32,
    pub origin: OriginDto,
    /// The memory the entry is in: the session's agent, `None` for the global memory.
    pub agent: Option<String>,
    pub scope: ScopeDto,
    pub entry_id: String,
    pub content: String,
    pub timestamp: Option<String>,
    /// Stamped within the session's activity.
    pub exact: bool,
}

impl Console {
    pub fn entry_provenance(&self, a: &ProvenanceArgs) -> ApiResult<ProvenanceDto> {
        let rt = self.services();
        let owner = rt.owner(a.agent.as_deref())?;
        Ok(provenance::of_entry(&rt.memory, &rt.sessions, &owner, &a.id)?.into())
    }

    pub fn session_memory_links(&self, session_id: &str) -> ApiResult<Vec<MemoryLinkDto>> {
        let rt = self.services();
        let (owner, links) = provenance::links_of_session(&rt.memory, &rt.sessions, session_id)?;
        let agent = owner.agent_name().map(str::to_string);
        Ok(links
            .into_iter()
            .map(|l: MemoryLink| MemoryLinkDto {
                message_index: l.message_index as u32,
                origin: l.source.into(),
                agent: agent.clone(),
                scope: match l.scope {
                    Scope::Core => ScopeDto::Core,
                    Scope::Archival => ScopeDto::Archival,
                },
                entry_id: l.entry_id,
                content: l.content,
                timestamp: ts(&l.timestamp),
                exact: l.exact,
            })
            .collect())
    }
}
