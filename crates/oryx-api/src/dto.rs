//! What crosses to the UI, the REST clients and `oryx --json`. Times are local
//! `yyyy-MM-dd HH:mm:ss` strings (the MEMORY.md format); paths are strings.

use serde::{Deserialize, Serialize};

use crate::settings_file::{Language, Theme};
use oryx_core::memory::{Backend, Entry, RecallMode, Scope};
use oryx_core::timefmt::format_entry_ts;
use oryx_core::warning::Warning;
pub use oryx_core::warning::WarningCode;

#[cfg(feature = "specta")]
use specta::Type;

/// A similarity as JSON shows it: six decimals, so 0.3 reads 0.3 on every host (an f32 widened
/// to f64 would read 0.30000001192092896 through one serializer and 0.3 through another).
pub fn score(x: f32) -> f64 {
    (f64::from(x) * 1e6).round() / 1e6
}

pub fn ts(t: &Option<chrono::NaiveDateTime>) -> Option<String> {
    t.as_ref().map(format_entry_ts)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
#[serde(rename_all = "lowercase")]
pub enum ScopeDto {
    Core,
    Archival,
}

impl From<ScopeDto> for Scope {
    fn from(s: ScopeDto) -> Scope {
        match s {
            ScopeDto::Core => Scope::Core,
            ScopeDto::Archival => Scope::Archival,
        }
    }
}

impl From<Scope> for ScopeDto {
    fn from(s: Scope) -> ScopeDto {
        match s {
            Scope::Core => ScopeDto::Core,
            Scope::Archival => ScopeDto::Archival,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
#[serde(rename_all = "lowercase")]
pub enum BackendDto {
    Markdown,
    Sqlite,
    Mem0,
}

impl From<Backend> for BackendDto {
    fn from(b: Backend) -> Self {
        match b {
            Backend::Markdown => BackendDto::Markdown,
            Backend::Sqlite => BackendDto::Sqlite,
            Backend::Mem0 => BackendDto::Mem0,
        }
    }
}

impl From<BackendDto> for Backend {
    fn from(b: BackendDto) -> Self {
        match b {
            BackendDto::Markdown => Backend::Markdown,
            BackendDto::Sqlite => Backend::Sqlite,
            BackendDto::Mem0 => Backend::Mem0,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct EntryDto {
    /// Names the entry in curation operations (absent where the listing has no ids: recall).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    pub timestamp: Option<String>,
    pub content: String,
    /// The line as the prompt shows it.
    pub line: String,
}

impl From<&Entry> for EntryDto {
    fn from(e: &Entry) -> Self {
        EntryDto {
            id: None,
            timestamp: ts(&e.timestamp),
            content: e.content.clone(),
            line: e.line.clone(),
        }
    }
}

impl EntryDto {
    pub fn with_id(id: String, e: &Entry) -> Self {
        EntryDto {
            id: Some(id),
            ..EntryDto::from(e)
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct ArchivalEntryDto {
    pub id: String,
    pub timestamp: Option<String>,
    pub content: String,
    pub line: String,
    pub in_window: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct WindowDto {
    /// The rule that cuts the window: the console's own for a bare root, the runtime's for a
    /// root it reads.
    pub window_rule: WindowRuleDto,
    pub limit_chars: u32,
    /// Index of the oldest archival entry inside the window (the cut line sits above it).
    pub first_in_window: u32,
    pub in_window_entries: u32,
    pub in_window_chars: u32,
    pub outside_entries: u32,
    pub outside_chars: u32,
    pub newest_cut: bool,
    /// The entry at `first_in_window` is only partly in: the end of its line that reaches the
    /// prompt.
    pub partial_kept: Option<String>,
}

/// How the archival window is cut.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct WindowRuleDto {
    /// `wholeEntries` (newest whole entries within `limit` characters), `tailUnits` (the last
    /// `limit` UTF-16 code units of the archival text, which may cut an entry) or `newestRows`
    /// (the newest `limit` entries).
    pub kind: String,
    pub limit: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct MemoryViewDto {
    /// `None` for the global memory.
    pub agent: Option<String>,
    pub backend: BackendDto,
    /// The MEMORY.md file (markdown) or database (sqlite) the entries come from.
    pub source: String,
    pub core: Vec<EntryDto>,
    pub archival: Vec<ArchivalEntryDto>,
    pub window: WindowDto,
    /// Prompt part [2] exactly as built from these entries.
    pub context: String,
    /// mem0 returned a full page of 1000: there may be entries not shown.
    pub possibly_more: bool,
    /// Set when MEMORY.md is above the full-parse ceiling (`memoryFullParseMaxBytes`): says
    /// why only the prompt window's entries are listed here (the others come in pages).
    pub paged_reason: Option<String>,
}

/// The memory screen's header without the archival list (which comes in pages, see
/// [`ArchivalPageDto`]): core, the archival count and the window figures.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct MemoryOverviewDto {
    /// `None` for the global memory.
    pub agent: Option<String>,
    pub backend: BackendDto,
    /// The MEMORY.md file (markdown) or database (sqlite) the entries come from.
    pub source: String,
    pub core: Vec<EntryDto>,
    /// How many archival entries there are.
    pub archival_total: u32,
    pub window: WindowDto,
    /// Prompt part [2] exactly as built from these entries.
    pub context: String,
    /// mem0 returned a full page of `listing_limit`: there may be entries not shown.
    pub possibly_more: bool,
    /// The most entries mem0 lists per owner.
    pub listing_limit: u32,
    /// Set when MEMORY.md is above the full-parse ceiling (`memoryFullParseMaxBytes`): says
    /// why only the prompt window's entries are listed here (the others come in pages).
    pub paged_reason: Option<String>,
}

/// Largest `limit` of one archival page.
pub const ARCHIVAL_PAGE_MAX: u32 = 1000;

/// One page of the archival list, in file (= time) order or newest first, optionally only the
/// entries containing `keyword` (recall_memory's rule: case-insensitive substring of the content).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct ArchivalPageQuery {
    pub agent: Option<String>,
    pub offset: u32,
    /// 1 to 1000.
    pub limit: u32,
    pub newest_first: bool,
    /// Empty or `None`: every entry.
    pub keyword: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct ArchivalItemDto {
    /// Names the entry in curation operations.
    pub id: String,
    /// Position in file order (0 = oldest), whatever the page's order or filter.
    pub index: u32,
    pub timestamp: Option<String>,
    pub content: String,
    /// Characters of the line as the prompt shows it.
    pub chars: u32,
    pub in_window: bool,
    /// Only part of the entry reaches the prompt: that part (the end of its line).
    pub window_part: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct ArchivalPageDto {
    pub agent: Option<String>,
    /// Entries in the list being paged (all archival entries, or those matching the keyword).
    pub total: u32,
    pub offset: u32,
    pub newest_first: bool,
    /// The keyword applied (trimmed), `None` without one.
    pub keyword: Option<String>,
    /// Position in this list the window cut line sits before (between the entries outside the
    /// window and those inside it); `None` when the list does not have both.
    pub cut_at: Option<u32>,
    pub items: Vec<ArchivalItemDto>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct AppendRequest {
    pub agent: Option<String>,
    pub scope: ScopeDto,
    pub content: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct AppendResult {
    pub agent: Option<String>,
    pub scope: ScopeDto,
    pub entry: EntryDto,
}

/// How a text would be stored, before storing it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct SanitizedPreview {
    pub content: String,
    pub line: String,
    pub changed: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
#[serde(rename_all = "lowercase")]
pub enum RecallModeDto {
    Keyword,
    Semantic,
    Hybrid,
}

impl From<RecallMode> for RecallModeDto {
    fn from(m: RecallMode) -> Self {
        match m {
            RecallMode::Keyword => RecallModeDto::Keyword,
            RecallMode::Semantic => RecallModeDto::Semantic,
            RecallMode::Hybrid => RecallModeDto::Hybrid,
        }
    }
}

/// What the console does on its own when entries pile up outside the window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
#[serde(rename_all = "lowercase")]
pub enum AutoSummaryDto {
    #[default]
    Off,
    Propose,
    Apply,
}

impl From<oryx_core::config::AutoSummary> for AutoSummaryDto {
    fn from(m: oryx_core::config::AutoSummary) -> Self {
        use oryx_core::config::AutoSummary as A;
        match m {
            A::Off => AutoSummaryDto::Off,
            A::Propose => AutoSummaryDto::Propose,
            A::Apply => AutoSummaryDto::Apply,
        }
    }
}

impl From<AutoSummaryDto> for oryx_core::config::AutoSummary {
    fn from(m: AutoSummaryDto) -> Self {
        use oryx_core::config::AutoSummary as A;
        match m {
            AutoSummaryDto::Off => A::Off,
            AutoSummaryDto::Propose => A::Propose,
            AutoSummaryDto::Apply => A::Apply,
        }
    }
}

impl From<RecallModeDto> for RecallMode {
    fn from(m: RecallModeDto) -> Self {
        match m {
            RecallModeDto::Keyword => RecallMode::Keyword,
            RecallModeDto::Semantic => RecallMode::Semantic,
            RecallModeDto::Hybrid => RecallMode::Hybrid,
        }
    }
}

/// One recalled entry with where it lives and how well it matched.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct RecalledDto {
    /// The backend's id where it has one (mem0); `None` for lines of MEMORY.md and rows
    /// found by their text.
    pub id: Option<String>,
    pub timestamp: Option<String>,
    pub content: String,
    pub line: String,
    pub scope: ScopeDto,
    /// Cosine similarity (plus the keyword bonus in hybrid mode); `None` in keyword mode.
    pub score: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct RecallResult {
    pub agent: Option<String>,
    pub keyword: String,
    /// The mode this recall ran in (the configured one unless the caller chose).
    pub mode: RecallModeDto,
    /// The similarity floor applied (semantic and hybrid).
    pub floor: f64,
    /// Most entries returned in semantic and hybrid modes.
    pub limit: u32,
    pub results: Vec<RecalledDto>,
    pub entries: Vec<EntryDto>,
    /// The recall_memory tool's result string.
    pub text: String,
}

/// The embedding model the console recalls with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct EmbedModelDto {
    pub name: String,
    pub dir: String,
    /// Its files are there (`make model` puts them there; the .deb bundles them).
    pub present: bool,
    pub loaded: bool,
    /// Bytes of its files on disk.
    #[cfg_attr(feature = "specta", specta(type = f64))]
    pub size_bytes: u64,
}

/// How much of one owner's memory has vectors for its current text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct OwnerIndexDto {
    /// `None`: the global memory.
    pub agent: Option<String>,
    pub entries: u32,
    pub indexed: u32,
    /// Vectors of lines that are gone (dropped at the next sync).
    pub orphaned: u32,
    /// An agent's past-session fragments (user and assistant messages) and how many have
    /// vectors; `None` for the global memory.
    pub fragments: Option<u32>,
    pub fragments_indexed: Option<u32>,
    /// Why this owner could not be counted (an unreadable MEMORY.md …).
    pub error: Option<String>,
}

/// The index build running or last run in this console.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct IndexJobDto {
    pub running: bool,
    /// The owner being indexed now (`None`: global or none).
    pub current: Option<String>,
    pub owners_done: u32,
    pub owners_total: u32,
    /// Entries embedded so far and to embed for the current owner.
    pub done: u32,
    pub todo: u32,
    /// The current owner's entries and how many of them have vectors now (`None` until its
    /// count is known): the owners table follows the build with these between status reads.
    pub current_entries: Option<u32>,
    pub current_indexed: Option<u32>,
    pub embedded_total: u32,
    pub cancelled: bool,
    pub error: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct IndexStatusDto {
    pub mode: RecallModeDto,
    pub floor: f64,
    pub model: EmbedModelDto,
    /// Where the vectors of this root are kept (the console's own file).
    pub store_path: String,
    /// mem0 ranks with its own search: the console keeps no vectors for it.
    pub native_search: bool,
    pub owners: Vec<OwnerIndexDto>,
    pub job: Option<IndexJobDto>,
    pub episodic_enabled: bool,
    /// The runtime's own index (`memory_vectors`) of an install's markdown or sqlite memory;
    /// `None` elsewhere.
    pub runtime: Option<crate::runtime_index::RuntimeIndexDto>,
}

/// A problem shown beside an agent, a skill, a prompt or a root: the UI words `code` with
/// `params` in the user's language; `message` is the English sentence (the technical detail).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct WarningDto {
    pub code: WarningCode,
    /// The values the sentence names (`file`, `index`, `key`, `name`, `skill`, `detail`, …).
    pub params: std::collections::BTreeMap<String, String>,
    pub message: String,
}

impl From<&Warning> for WarningDto {
    fn from(w: &Warning) -> Self {
        Self {
            code: w.code,
            params: w.params.clone(),
            message: w.message.clone(),
        }
    }
}

impl std::fmt::Display for WarningDto {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// The DTOs of core's warnings.
pub fn warning_dtos(ws: &[Warning]) -> Vec<WarningDto> {
    ws.iter().map(WarningDto::from).collect()
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct SkillDto {
    pub name: String,
    pub description: Option<String>,
    pub warnings: Vec<WarningDto>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct MemoryCounts {
    pub core: u32,
    pub archival: u32,
    /// Size of MEMORY.md in bytes (markdown backend), else `None`.
    // Typed as a plain number in TypeScript (JSON carries the full value).
    #[cfg_attr(feature = "specta", specta(type = Option<u32>))]
    pub bytes: Option<u64>,
    /// Set when the counts could not be read (the agent still lists).
    pub error: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct AgentSummary {
    pub name: String,
    pub description: Option<String>,
    pub provider: Option<String>,
    pub model: Option<String>,
    pub tools: Vec<String>,
    pub skills: Vec<String>,
    pub memory: MemoryCounts,
    /// The newest of the agent's last session activity and its newest memory entry's time.
    pub last_activity: Option<String>,
    /// Which one `last_activity` is: `session` or `memory` (a file's modification time is not
    /// used: a migration or a copy touches every file at once).
    pub last_activity_from: Option<String>,
    pub has_agent_md: bool,
    pub warnings: Vec<WarningDto>,
    /// Entries added or changed since the agent's last review; `None`: never reviewed.
    pub unreviewed: Option<u32>,
    /// Whether the runtime loads this agent folder, by its loader's own rules.
    pub runtime: RuntimeLoadDto,
}

/// Whether the runtime's agent loader takes an agent folder (it skips any other, saying so
/// only in its log).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct RuntimeLoadDto {
    pub loads: bool,
    /// The first rule it breaks, as a stable code (`provider_unknown`, …); `None` when it loads.
    pub reason: Option<oryx_core::runtime_load::Refusal>,
    /// The English sentence for `reason`.
    pub message: Option<String>,
    /// The values the reason's sentence names (`provider`, `known`, `declared`, `index`, …).
    pub params: std::collections::BTreeMap<String, String>,
    /// False when the runtime's provider registry is not known yet (its database has no
    /// `providers` table): the provider's existence was not checked.
    pub provider_checked: bool,
}

impl From<oryx_core::runtime_load::RuntimeLoad> for RuntimeLoadDto {
    fn from(r: oryx_core::runtime_load::RuntimeLoad) -> Self {
        let (reason, message, params) = match r.reason {
            Some(x) => (Some(x.code), Some(x.message), x.params),
            None => (None, None, Default::default()),
        };
        Self {
            loads: r.loads,
            reason,
            message,
            params,
            provider_checked: r.provider_checked,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct AgentDetail {
    pub summary: AgentSummary,
    pub identity_name: Option<String>,
    pub identity_prompt: Option<String>,
    pub temperature: Option<f64>,
    pub bootstrap: Vec<String>,
    pub max_history_turns: i32,
    /// `schedules` and `channels` from the front matter, as YAML text.
    pub schedules_yaml: Option<String>,
    pub channels_yaml: Option<String>,
    /// Every front matter key, as YAML text (unknown keys included).
    pub front_matter_yaml: String,
    pub body: String,
    pub skills: Vec<SkillDto>,
    pub dir: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct AgentList {
    pub root: String,
    pub backend: BackendDto,
    pub agents: Vec<AgentSummary>,
    /// The global memory's counts (`memory/MEMORY.md`).
    pub global_memory: MemoryCounts,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
#[serde(rename_all = "lowercase")]
pub enum SessionStatusDto {
    Active,
    Archived,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct SessionQuery {
    pub agent: Option<String>,
    pub status: Option<SessionStatusDto>,
    pub channel: Option<String>,
    pub search: Option<String>,
    pub limit: Option<u32>,
    pub offset: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct SessionSummaryDto {
    pub session_id: String,
    pub agent: Option<String>,
    pub channel: Option<String>,
    pub user_id: Option<String>,
    pub status: String,
    pub created_at: Option<String>,
    pub last_active_at: Option<String>,
    pub archived_at: Option<String>,
    pub message_count: Option<u32>,
    /// Set when this session's messages cannot be read.
    pub error: Option<String>,
    /// With a search: the first message whose content matched (none when the id matched).
    pub message_match: Option<MessageMatchDto>,
}

/// Where a session search matched inside the messages.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct MessageMatchDto {
    /// The message's position, counted from 0 as the session view lists them.
    pub index: u32,
    pub role: String,
    /// The text around the match on one line, `…` where it was cut.
    pub snippet: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct SessionPageDto {
    pub total: u32,
    pub offset: u32,
    pub limit: u32,
    pub items: Vec<SessionSummaryDto>,
    /// The database read; absent file means an empty page.
    pub db_path: String,
    pub db_exists: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct SessionStatsDto {
    pub active: u32,
    pub archived: u32,
    pub total: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct ToolCallDto {
    pub id: Option<String>,
    pub name: String,
    pub arguments_json: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct MessageDto {
    pub role: String,
    pub content: Option<String>,
    pub tool_name: Option<String>,
    pub tool_call_id: Option<String>,
    pub tool_calls: Vec<ToolCallDto>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct SessionDto {
    pub summary: SessionSummaryDto,
    pub messages: Vec<MessageDto>,
    pub turns: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct ToolInvocationDto {
    // Typed as a plain number in TypeScript (JSON carries the full value).
    #[cfg_attr(feature = "specta", specta(type = u32))]
    pub id: i64,
    pub session_id: Option<String>,
    pub tool_name: String,
    pub input_json: Option<String>,
    pub result_json: Option<String>,
    pub success: bool,
    pub error_message: Option<String>,
    // Typed as a plain number in TypeScript (JSON carries the full value).
    #[cfg_attr(feature = "specta", specta(type = Option<u32>))]
    pub duration_ms: Option<i64>,
    pub created_at: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
#[serde(rename_all = "lowercase")]
pub enum PartKindDto {
    System,
    Memory,
    History,
    Tools,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct PromptPartDto {
    pub index: u8,
    pub kind: PartKindDto,
    pub text: String,
    pub chars: u32,
    pub tokens_estimate: u32,
}

/// One message of a past session found by meaning.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct EpisodicHitDto {
    pub session_id: String,
    /// Index of the message in the session (opens it at that message).
    pub message_index: u32,
    pub role: String,
    pub text: String,
    pub score: f64,
    /// The session's last activity.
    pub time: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct EpisodicResultDto {
    pub agent: String,
    pub query: String,
    pub floor: f64,
    pub results: Vec<EpisodicHitDto>,
}

/// What the prompt's episodic part was built from (when episodic memory is on).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct EpisodicPreviewDto {
    /// The message the fragments were chosen for: the given query, else the session's last
    /// user message; `None` when there was neither (then no part).
    pub query: Option<String>,
    pub top_k: u32,
    pub budget_chars: u32,
    pub hits: Vec<EpisodicHitDto>,
    /// The fragments as the console would add them to a prompt (empty: none found). The
    /// runtime never sends this: it is the console's suggestion, not part of the prompt.
    pub text: String,
    pub chars: u32,
    pub tokens_estimate: u32,
}

/// What the runtime does with one of an agent's declared tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
#[serde(rename_all = "snake_case")]
pub enum ToolOfferDto {
    /// A built-in tool: offered.
    Builtin,
    /// Offered only while a connected MCP server provides it (the runtime's live state).
    IfMcpProvides,
    /// Unknown to the runtime: dropped without a word to the model.
    Dropped,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct DeclaredToolDto {
    pub name: String,
    pub offer: ToolOfferDto,
}

/// A skill or knowledge binding the runtime leaves out of the prompt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct SkippedBindingDto {
    /// `skill` or `knowledge`.
    pub kind: String,
    pub name: String,
    pub reason: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct PromptDto {
    pub agent: String,
    pub session_id: Option<String>,
    pub parts: Vec<PromptPartDto>,
    pub total_chars: u32,
    pub total_tokens_estimate: u32,
    pub history_turns: u32,
    pub history_messages: u32,
    pub max_history_turns: i32,
    pub bootstrap_loaded: Vec<String>,
    pub warnings: Vec<WarningDto>,
    /// The runtime's one system message: parts [1] and [2] exactly as it sends them.
    pub system_text: String,
    /// The agent's declared tools in order, each with what the runtime does with it.
    pub tools: Vec<DeclaredToolDto>,
    pub skipped_bindings: Vec<SkippedBindingDto>,
    /// Set when episodic memory is on in Settings: the console's suggestion, not in the parts.
    pub episodic: Option<EpisodicPreviewDto>,
    /// For a prompt replay, the moment the prompt is built as of (`None`: now).
    pub asof: Option<String>,
    /// For a prompt replay, what it cannot know of that moment.
    pub asof_note: Option<String>,
    /// For a prompt replay, the files read as the root's git history had them then
    /// (`AGENT.md (commit 1a2b3c4d)`, …); empty: all of them are today's.
    pub asof_from_git: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct BootstrapFileDto {
    pub name: String,
    pub exists: bool,
    pub content: String,
    /// Send it back when saving an edit: a file changed since is refused (`conflict`).
    pub version: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
#[serde(rename_all = "lowercase")]
pub enum ThemeDto {
    System,
    Light,
    Dark,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
#[serde(rename_all = "lowercase")]
pub enum LanguageDto {
    System,
    Zh,
    En,
}

impl From<Theme> for ThemeDto {
    fn from(t: Theme) -> Self {
        match t {
            Theme::System => ThemeDto::System,
            Theme::Light => ThemeDto::Light,
            Theme::Dark => ThemeDto::Dark,
        }
    }
}

impl From<ThemeDto> for Theme {
    fn from(t: ThemeDto) -> Self {
        match t {
            ThemeDto::System => Theme::System,
            ThemeDto::Light => Theme::Light,
            ThemeDto::Dark => Theme::Dark,
        }
    }
}

impl From<Language> for LanguageDto {
    fn from(l: Language) -> Self {
        match l {
            Language::System => LanguageDto::System,
            Language::Zh => LanguageDto::Zh,
            Language::En => LanguageDto::En,
        }
    }
}

impl From<LanguageDto> for Language {
    fn from(l: LanguageDto) -> Self {
        match l {
            LanguageDto::System => Language::System,
            LanguageDto::Zh => Language::Zh,
            LanguageDto::En => Language::En,
        }
    }
}

/// The stored settings (what the user chose) — `None` fields mean "the default".
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct SettingsDto {
    pub root: Option<String>,
    /// The backend of a bare root (an install's is the runtime's `memory.backend`).
    pub backend: BackendDto,
    /// For an install: view this backend instead of the runtime's (null: the runtime's).
    #[serde(default)]
    pub backend_override: Option<BackendDto>,
    pub db_path: Option<String>,
    pub archival_limit_chars: u32,
    pub footprint_enabled: bool,
    pub mem0_base_url: Option<String>,
    pub mem0_user_id: String,
    /// Never sent back; `mem0_api_key_set` says whether one is stored.
    pub mem0_api_key: Option<String>,
    pub mem0_api_key_set: bool,
    pub mem0_timeout_ms: u32,
    pub recall_mode: RecallModeDto,
    /// Cosine similarity under which semantic recall answers "nothing found" (0–1).
    pub recall_floor: f64,
    /// Most entries a semantic or hybrid recall returns (1–100).
    pub recall_limit: u32,
    /// Episodic memory: past sessions' fragments relevant to the current message in the prompt.
    pub episodic_enabled: bool,
    pub episodic_top_k: u32,
    pub episodic_budget_chars: u32,
    /// Off, propose (a health finding) or apply (the console appends the rules' summary) when
    /// more than `summary_auto_threshold` entries outside the window are not summarised.
    #[serde(default)]
    pub summary_auto: AutoSummaryDto,
    #[serde(default = "default_auto_threshold")]
    pub summary_auto_threshold: u32,
    /// The LLM summariser's OpenAI-compatible base URL and model (empty: the agent's provider).
    #[serde(default)]
    pub summary_llm_base_url: Option<String>,
    #[serde(default)]
    pub summary_llm_model: Option<String>,
    /// Never sent back; `summary_llm_api_key_set` says whether one is stored.
    #[serde(default)]
    pub summary_llm_api_key: Option<String>,
    #[serde(default)]
    pub summary_llm_api_key_set: bool,
    #[serde(default = "default_llm_timeout")]
    pub summary_llm_timeout_ms: u32,
    pub language: LanguageDto,
    pub theme: ThemeDto,
}

fn default_auto_threshold() -> u32 {
    oryx_core::config::SummarySettings::default().auto_threshold as u32
}

fn default_llm_timeout() -> u32 {
    oryx_core::config::LlmSettings::default().timeout_ms as u32
}

/// What the services actually use after defaults, environment and flags.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct EffectiveDto {
    pub root: String,
    pub db_path: String,
    pub backend: BackendDto,
    pub settings_path: String,
    /// Environment variables or flags currently overriding the stored settings.
    pub overridden_by: Vec<String>,
    /// No root chosen yet and the default root does not exist: show the welcome screen.
    pub first_run: bool,
    /// Why the root in effect cannot take writes (it vanished, is not a folder, or is not a
    /// .oryxos root); `None` when it can. Cheap: the UI polls it for its "root missing" banner.
    pub root_problem: Option<String>,
    /// Why the last call to the memory backend could not reach it (mem0 unreachable), until
    /// one does; the UI shows a "switch back" banner. Cheap: no call of its own.
    pub backend_problem: Option<String>,
    /// The mem0 base URL in effect (settings, `MEM0_BASE_URL` or `--mem0-url`), when one is set.
    pub mem0_base_url: Option<String>,
    /// What the desktop app had to repair to open (a corrupt settings file set aside, a backend
    /// that could not start); shown until the settings are saved.
    pub notice: Option<String>,
    /// `install` (the runtime's configuration decides backend, database and mem0) or
    /// `bareRoot` (the settings decide).
    pub root_kind: String,
    /// The runtime's install dir, for an install.
    pub install_dir: Option<String>,
    /// The backend the runtime's agents use, for an install: when it differs from `backend`
    /// the UI says "the agents use X — you are viewing Y".
    pub runtime_backend: Option<BackendDto>,
    /// What made `backend` differ from the runtime's: `--backend` or `settings`.
    pub backend_override: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct SettingsView {
    pub settings: SettingsDto,
    pub effective: EffectiveDto,
    /// The ranges the settings accept (the form shows them; the console enforces them).
    pub limits: SettingsLimitsDto,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct SettingsLimitsDto {
    pub archival_limit_min: u32,
    pub archival_limit_max: u32,
    pub recall_limit_max: u32,
}

/// The answer of Settings' "test connection" for mem0.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct Mem0Status {
    pub base_url: String,
    pub ok: bool,
    /// Entries of the global memory (user id without an agent) when reachable.
    pub global_entries: Option<u32>,
    pub message: String,
}

/// What a candidate `.oryxos` root holds, shown before the user commits to it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct RootInspection {
    pub path: String,
    pub exists: bool,
    pub is_dir: bool,
    pub agents: Vec<String>,
    pub memory_files: u32,
    pub has_global_memory: bool,
    pub bootstrap_files: Vec<String>,
    pub db_path: String,
    pub db_exists: bool,
    /// Empty when the folder looks like a `.oryxos` root.
    pub warnings: Vec<WarningDto>,
}
