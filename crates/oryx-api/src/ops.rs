//! The operation registry: every console operation is declared once here (name, arguments,
//! result, what it changes, and the `Console` method that runs it). The desktop's IPC command,
//! the REST route `POST /api/v1/console/<name>`, its OpenAPI entry, the TypeScript client's
//! types and which change events make a read's answer stale (`reads`) all come from this table,
//! so a new operation is one line here plus its method.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
#[cfg(feature = "specta")]
use specta::Type;

use crate::agent_admin::*;
use crate::agent_recall::{AgentRecallArgs, AgentRecallDto};
use crate::charts::*;
use crate::curation::*;
use crate::dto::*;
use crate::health::*;
use crate::local_embeddings::{LocalEmbeddingsPlan, UseLocalEmbeddingsArgs};
use crate::portable::{AsOfArgs, AsOfDto, MemoryDiffArgs, MemoryDiffDto};
use crate::provenance::*;
use crate::reads::*;
use crate::recall::{SearchEverywhereArgs, SearchEverywhereDto};
use crate::recall_checks::*;
use crate::recall_proposal::*;
use crate::runtime::{RuntimeChange, RuntimeInfo, SetRuntimeValueArgs, SetRuntimeValuesArgs};
use crate::transfer::*;
use crate::watch::{ChangeEvent, ChangeKind};
use crate::{ApiError, ApiResult, Console, ErrorCode};

/// One console operation, as every host sees it.
pub trait Operation: 'static {
    /// snake_case; the IPC operation name and the last segment of its REST path.
    const NAME: &'static str;
    /// One line for the OpenAPI document and the docs.
    const SUMMARY: &'static str;
    type Args: DeserializeOwned + Send + 'static;
    type Output: Serialize + Send + 'static;

    /// The changes that make an answer of this operation stale (empty for a write, and for a
    /// read that only a settings change affects). A settings change makes every answer stale
    /// (the root, the backend, the modes may all have changed), so `Settings` is never listed.
    const READS: &'static [Reads];

    fn run(console: &Console, args: Self::Args) -> ApiResult<Self::Output>;

    /// What a successful run changed, for the hosts' change stream (`None`: a read).
    fn changed(output: &Self::Output) -> Option<ChangeEvent>;
}

/// One kind of change a read's answer follows, and whose changes of that kind count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reads {
    pub kind: ChangeKind,
    /// `None`: a change of any agent (or of none). `Some(field)`: only a change of the agent the
    /// argument `field` names; an argument absent, null or empty names the global memory, which a
    /// change without an agent is.
    pub agent_arg: Option<&'static str>,
    /// With `agent_arg`: a change of the global memory counts too (it is part of every agent's
    /// prompt).
    pub global_too: bool,
}

/// Walks the registry; hosts use it to mount routes and list operations.
pub trait Visitor {
    fn visit<O: Operation>(&mut self);
}

/// What every operation's TypeScript signature looks like (`Operations[name]`).
#[cfg_attr(feature = "specta", derive(Type))]
pub struct Signature<A, R> {
    pub args: A,
    pub result: R,
}

/// An operation that takes nothing (`{}`).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct NoArgs {}

/// `agent`: an agent's name; absent, null or empty for the global memory.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct AgentArgs {
    #[serde(default)]
    pub agent: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct NameArgs {
    pub name: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct IdArgs {
    pub id: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct RecallArgs {
    #[serde(default)]
    pub agent: Option<String>,
    pub keyword: String,
    /// Absent: the mode in Settings (what the `recall_memory` tool uses).
    #[serde(default)]
    pub mode: Option<RecallModeDto>,
    /// Absent: the limit in Settings.
    #[serde(default)]
    pub limit: Option<u32>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct ContentArgs {
    pub content: String,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct InvocationsArgs {
    #[serde(default)]
    pub session_id: Option<String>,
    #[serde(default)]
    pub limit: Option<u32>,
    #[serde(default)]
    pub offset: Option<u32>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct PromptArgs {
    pub agent: String,
    #[serde(default)]
    pub session_id: Option<String>,
    /// The message the episodic part is chosen for (default: the session's last user message).
    #[serde(default)]
    pub query: Option<String>,
    /// For a prompt replay, the moment the prompt is built as of (a day, or a day and a time
    /// as entries show it), with memory as it stood then and the date line of then.
    #[serde(default)]
    pub asof: Option<String>,
    /// For a prompt replay, the last message of the history (the model answering it);
    /// without it, the whole session.
    #[serde(default)]
    pub message_index: Option<u32>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct EpisodicArgs {
    pub agent: String,
    pub query: String,
    #[serde(default)]
    pub limit: Option<u32>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct InspectArgs {
    pub path: String,
    #[serde(default)]
    pub db_path: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct PathArgs {
    pub path: String,
}

/// Empty means "not given", as a blank `?agent=` always has.
fn given(s: &Option<String>) -> Option<&str> {
    s.as_deref().filter(|s| !s.is_empty())
}

fn memory_changed(agent: &Option<String>) -> Option<ChangeEvent> {
    Some(ChangeEvent {
        kind: ChangeKind::Memory,
        agent: agent.clone(),
    })
}

fn agents_changed(agent: Option<&str>) -> Option<ChangeEvent> {
    Some(ChangeEvent {
        kind: ChangeKind::Agents,
        agent: agent.map(str::to_string),
    })
}

fn settings_changed() -> Option<ChangeEvent> {
    Some(ChangeEvent {
        kind: ChangeKind::Settings,
        agent: None,
    })
}

/// One `reads:` item: `Kind` (any agent's change), `Kind(field)` (the agent named by the
/// argument `field`), `Kind(field + global)` (that agent's or the global memory's).
macro_rules! reads {
    ($kind:ident) => {
        Reads {
            kind: ChangeKind::$kind,
            agent_arg: None,
            global_too: false,
        }
    };
    ($kind:ident($field:ident)) => {
        Reads {
            kind: ChangeKind::$kind,
            agent_arg: Some(stringify!($field)),
            global_too: false,
        }
    };
    ($kind:ident($field:ident + global)) => {
        Reads {
            kind: ChangeKind::$kind,
            agent_arg: Some(stringify!($field)),
            global_too: true,
        }
    };
}

/// Declares the operations: `name(Args) -> Output`, `reads: [..]` for a read whose answer
/// follows changes (see `reads!`), `changes: |output| event` for writes, then
/// `=> |console, args| body`.
macro_rules! operations {
    ($(
        #[doc = $summary:literal]
        $name:ident($args:ty) -> $out:ty
        $(, reads: [$($kind:ident $(($($scope:tt)+))?),+ $(,)?])?
        $(, changes: |$o:ident| $change:expr)?
        => |$c:ident, $a:pat_param| $body:expr;
    )*) => {
        /// The operations, one unit type each (`ops::list_agents` …).
        #[allow(non_camel_case_types)]
        pub mod op {
            use super::*;
            $(
                #[doc = $summary]
                pub struct $name;

                impl Operation for $name {
                    const NAME: &'static str = stringify!($name);
                    const SUMMARY: &'static str = $summary.trim_ascii();
                    type Args = $args;
                    type Output = $out;
                    const READS: &'static [Reads] = &[$($( reads!($kind $(($($scope)+))?) ),+)?];

                    fn run($c: &Console, $a: $args) -> ApiResult<$out> {
                        $body
                    }

                    #[allow(unused_variables)]
                    fn changed(output: &$out) -> Option<ChangeEvent> {
                        $( let $o = output; return $change; )?
                        #[allow(unreachable_code)]
                        None
                    }
                }
            )*
        }

        /// Every operation's arguments and result: exported to TypeScript as `Operations`, the
        /// generic client's type map.
        #[cfg_attr(feature = "specta", derive(Type))]
        pub struct Operations {
            $( pub $name: Signature<$args, $out>, )*
        }

        /// Visits every operation in declaration order.
        pub fn visit(v: &mut impl Visitor) {
            $( v.visit::<op::$name>(); )*
        }

        /// Every operation's name.
        pub const NAMES: &[&str] = &[$( stringify!($name) ),*];

        /// Runs the operation called `name` on JSON arguments: the one door for hosts that
        /// carry operations by name (the desktop's IPC command). A change event comes back
        /// with the result when the operation wrote something.
        pub fn call_json(
            console: &Console,
            name: &str,
            args: serde_json::Value,
        ) -> ApiResult<(serde_json::Value, Option<ChangeEvent>)> {
            match name {
                $( stringify!($name) => run_json::<op::$name>(console, args), )*
                other => Err(ApiError::new(
                    ErrorCode::InvalidInput,
                    format!("no console operation called {other:?}"),
                )),
            }
        }
    };
}

operations! {
    /// Agents with memory counts and warnings
    list_agents(NoArgs) -> AgentList, reads: [Memory, Agents, Sessions] => |c, _| c.list_agents();
    /// One agent: front matter, skills, bootstrap files
    get_agent(NameArgs) -> AgentDetail,
        reads: [Memory(name), Agents]
        => |c, a| c.get_agent(&a.name);
    /// The providers a new agent can name (the runtime's registry) and its default one
    new_agent_choices(NoArgs) -> NewAgentChoicesDto,
        reads: [Agents]
        => |c, _| c.new_agent_choices();
    /// Create an agent: the runtime's scaffold, or a clone with `from` (unloadable: only as a draft)
    create_agent(CreateAgentArgs) -> AgentDetail,
        changes: |out| agents_changed(Some(&out.summary.name))
        => |c, a| c.create_agent(&a);
    /// AGENT.md's text, version and problems (the raw editor)
    agent_file(NameArgs) -> AgentFileDto, reads: [Agents] => |c, a| c.agent_file(&a.name);
    /// Problems an AGENT.md text would have, without saving it
    validate_agent_file(ValidateAgentArgs) -> Vec<FieldErrorDto>
        => |c, a| c.validate_agent_file(&a);
    /// Save AGENT.md whole (validated; refused when it changed since `version`)
    save_agent_file(SaveAgentArgs) -> AgentFileDto,
        changes: |out| agents_changed(Some(&out.name))
        => |c, a| c.save_agent_file(&a);
    /// Set one front matter key, keeping every other byte of AGENT.md
    set_agent_key(SetKeyArgs) -> AgentFileDto,
        changes: |out| agents_changed(Some(&out.name))
        => |c, a| c.set_agent_key(&a);
    /// The root's skills (skills/<s>/SKILL.md)
    root_skills(NoArgs) -> Vec<RootSkillDto>, reads: [Agents] => |c, _| c.skills_of_root();
    /// Attach and detach skills (relative links; the skill itself is never removed)
    set_agent_skills(SkillsArgs) -> AgentDetail,
        changes: |out| agents_changed(Some(&out.summary.name))
        => |c, a| c.set_agent_skills(&a);
    /// Move an agent to archive/ (its sessions and database memory stay)
    archive_agent(NameArgs) -> ArchivedDto,
        changes: |out| agents_changed(Some(&out.name))
        => |c, a| c.archive_agent(&a.name);
    /// Archived agents, newest first
    list_archived(NoArgs) -> Vec<ArchivedDto>, reads: [Agents] => |c, _| c.list_archived();
    /// Move an archived agent back (refused when the name is taken; `as_name` renames)
    restore_agent(RestoreAgentArgs) -> AgentDetail,
        changes: |out| agents_changed(Some(&out.summary.name))
        => |c, a| c.restore_agent(&a);
    /// What deleting an archived agent would remove
    archived_removal(ArchivedArgs) -> RemovalDto,
        reads: [Agents]
        => |c, a| c.archived_removal(&a.archived_name);
    /// Delete an archived agent for good (against the file count shown)
    delete_archived(DeleteArchivedArgs) -> RemovalDto,
        changes: |_out| agents_changed(None)
        => |c, a| c.delete_archived(&a);
    /// Save a bootstrap file (USER.md, AGENTS.md, …) the user edited
    save_bootstrap_file(SaveFileArgs) -> BootstrapFileDto,
        changes: |_out| agents_changed(None)
        => |c, a| c.save_bootstrap_file(&a);
    /// Every entry of an owner (global without `agent`), with window flags
    memory_view(AgentArgs) -> MemoryViewDto,
        reads: [Memory(agent), Sessions]
        => |c, a| c.memory_view(given(&a.agent));
    /// Core entries, archival count, window figures and prompt part [2] of an owner
    memory_overview(AgentArgs) -> MemoryOverviewDto,
        reads: [Memory(agent), Sessions]
        => |c, a| c.memory_overview(given(&a.agent));
    /// One page of archival entries, in file order or newest first, optionally filtered by keyword
    archival_page(ArchivalPageQuery) -> ArchivalPageDto,
        reads: [Memory(agent), Sessions]
        => |c, a| c.archival_page(&a);
    /// Prompt part [2] of an owner, as text
    memory_context(AgentArgs) -> String,
        reads: [Memory(agent), Sessions]
        => |c, a| c.memory_context(given(&a.agent));
    /// Append one entry to core or archival
    append_memory(AppendRequest) -> AppendResult,
        changes: |out| memory_changed(&out.agent)
        => |c, a| c.append_memory(&a);
    /// Change one entry's content (sanitised like a write; its time kept unless `restamp`)
    edit_entry(EditArgs) -> ChangeDto,
        changes: |out| memory_changed(&out.agent)
        => |c, a| c.edit_entry(&a);
    /// Delete entries, as one change
    delete_entries(SelectionArgs) -> ChangeDto,
        changes: |out| memory_changed(&out.agent)
        => |c, a| c.delete_entries(&a);
    /// Move entries to core or archival (time and order by time kept), as one change
    move_entries(MoveArgs) -> ChangeDto,
        changes: |out| memory_changed(&out.agent)
        => |c, a| c.move_entries(&a);
    /// What deleting or moving a selection would do to the prompt
    selection_impact(ImpactArgs) -> ImpactDto,
        reads: [Memory(agent), Sessions]
        => |c, a| c.selection_impact(&a);
    /// The console's changes to an owner's memory, newest first, with what undo and redo would do
    memory_history(HistoryArgs) -> HistoryDto, reads: [Memory(agent), Sessions]
        => |c, a| c.memory_history(given(&a.agent), a.limit);
    /// Take back a change (default: the last one not undone)
    undo_change(UndoArgs) -> ChangeDto,
        changes: |out| memory_changed(&out.agent)
        => |c, a| c.undo_change(given(&a.agent), given(&a.change_id));
    /// Take back the last undo
    redo_change(AgentArgs) -> ChangeDto,
        changes: |out| memory_changed(&out.agent)
        => |c, a| c.redo_change(given(&a.agent));
    /// Put back one entry a change removed or changed
    restore_entry(RestoreArgs) -> ChangeDto,
        changes: |out| memory_changed(&out.agent)
        => |c, a| c.restore_entry(&a);
    /// Entries added or changed since the owner's last review
    review_status(AgentArgs) -> ReviewDto,
        reads: [Memory(agent), Sessions]
        => |c, a| c.review_status(given(&a.agent));
    /// Mark every entry of the owner as reviewed
    mark_reviewed(AgentArgs) -> ReviewDto,
        changes: |out| memory_changed(&out.agent)
        => |c, a| c.mark_reviewed(given(&a.agent));
    /// Health findings (secrets, personal data, duplicates, stale) and the prompt budget
    memory_health(HealthArgs) -> HealthDto,
        reads: [Memory(agent), Sessions, Checks(agent)]
        => |c, a| c.memory_health(&a);
    /// Hide a finding on these entries from now on
    dismiss_finding(DismissArgs) -> HealthDto => |c, a| c.dismiss_finding(&a);
    /// Pairs of entries where the newer states a different value for the same thing
    superseded(AgentArgs) -> crate::superseded::SupersededDto,
        reads: [Memory(agent), Sessions]
        => |c, a| c.superseded(given(&a.agent));
    /// How many superseded pairs each owner has, for the dashboard
    superseded_counts(NoArgs) -> Vec<crate::superseded::SupersededCountDto>,
        reads: [Memory, Agents, Sessions]
        => |c, _| c.superseded_counts();
    /// Keep the newer or the older entry of a pair (one change undo takes back), or both
    resolve_superseded(crate::superseded::ResolveSupersededArgs) -> crate::superseded::ResolvedDto,
        changes: |out| memory_changed(&out.agent)
        => |c, a| c.resolve_superseded(&a);
    /// Take back a keep-both: the pair is shown again
    superseded_unkeep(crate::superseded::UnkeepArgs) -> crate::superseded::ResolvedDto,
        changes: |out| memory_changed(&out.agent)
        => |c, a| c.superseded_unkeep(&a);
    /// Entries per day by section, and how far back the window reaches
    memory_stats(AgentArgs) -> MemoryStatsDto,
        reads: [Memory(agent), Sessions]
        => |c, a| c.memory_stats(given(&a.agent));
    /// An owner's memory as it stood at a moment (both tables, the window, the memory block)
    memory_asof(AsOfArgs) -> AsOfDto, reads: [Memory(agent), Sessions] => |c, a| c.memory_asof(&a);
    /// Each entry's read receipts: prompts that held it, recalls that returned it, last read
    entry_reads(EntryReadsArgs) -> EntryReadsDto,
        reads: [Memory(agent), Sessions]
        => |c, a| c.entry_reads(&a);
    /// The read receipts as a CSV or JSON file to save
    export_entry_reads(ExportReadsArgs) -> ReadsFileDto,
        reads: [Memory(agent), Sessions]
        => |c, a| c.export_entry_reads(&a);
    /// What each turn of a session read: its prompts' memory blocks and its recall results
    session_reads(SessionReadsArgs) -> SessionReadsDto,
        reads: [Memory, Sessions]
        => |c, a| c.session_reads(&a);
    /// Where an entry came from: the save_memory call or conversation turn, or a console change
    entry_provenance(ProvenanceArgs) -> ProvenanceDto,
        reads: [Memory(agent), Sessions]
        => |c, a| c.entry_provenance(&a);
    /// The entries a session's messages wrote (save_memory calls and footprints)
    session_memory_links(IdArgs) -> Vec<MemoryLinkDto>,
        reads: [Sessions]
        => |c, a| c.session_memory_links(&a.id);
    /// Entries added, removed and changed between two moments
    memory_diff(MemoryDiffArgs) -> MemoryDiffDto,
        reads: [Memory(agent), Sessions]
        => |c, a| c.memory_diff(&a);
    /// Every agent's findings (not dismissed) per check and its window, for badges and the dashboard
    agents_health(NoArgs) -> Vec<AgentHealthDto>,
        reads: [Memory, Agents, Sessions, Checks]
        => |c, _| c.agents_health();
    /// Sessions started per day and agent over the last days
    sessions_per_day(SessionsPerDayArgs) -> Vec<SessionDayDto>,
        reads: [Sessions]
        => |c, a| c.sessions_per_day(&a);
    /// Characters of each prompt part per session of an agent, memory as it stood then
    prompt_composition(PromptCompositionArgs) -> Vec<SessionPromptDto>,
        reads: [Memory(agent + global), Agents, Sessions]
        => |c, a| c.prompt_composition(&a);
    /// A summary of the archival entries outside the prompt window (rules or LLM)
    propose_summary(ProposeSummaryArgs) -> Option<SummaryProposalDto>,
        reads: [Memory(agent), Sessions]
        => |c, a| c.propose_summary(&a);
    /// Append a summary entry (and remove the entries it covers, when asked) as one change
    apply_summary(ApplySummaryArgs) -> ChangeDto,
        changes: |out| memory_changed(&out.agent)
        => |c, a| c.apply_summary(&a);
    /// What recall_memory gives the agent, as its runtime answers, and why; a trial of weights
    agent_recall(AgentRecallArgs) -> AgentRecallDto, reads: [Memory(agent), Sessions]
        => |c, a| c.agent_recall(given(&a.agent), &a.keyword, a.trial);
    /// An agent's recall checks, each run first when what its answer depends on changed
    recall_checks(RecallChecksArgs) -> RecallChecksDto,
        reads: [Memory(agent), Sessions, Checks(agent)]
        => |c, a| c.recall_checks(&a);
    /// Keep a question with the archival entries that must answer it (run at once)
    add_recall_check(AddRecallCheckArgs) -> RecallChecksDto => |c, a| c.add_recall_check(&a);
    /// Stop keeping a recall check
    remove_recall_check(RemoveRecallCheckArgs) -> RecallChecksDto
        => |c, a| c.remove_recall_check(&a);
    /// The runtime's recall weights and top-k that answer the most recall checks, with each check before and after (nothing saved)
    propose_recall_settings(ProposeRecallSettingsArgs) -> RecallProposalDto,
        reads: [Memory(agent), Sessions]
        => |c, a| c.propose_recall_settings(&a);
    /// Recall as the recall_memory tool does (the configured mode), or in a chosen mode
    recall_memory(RecallArgs) -> RecallResult, reads: [Memory(agent), Sessions]
        => |c, a| c.recall_memory(given(&a.agent), &a.keyword, a.mode, a.limit);
    /// The embedding model, the vector index per owner, and the index build in progress
    index_status(NoArgs) -> IndexStatusDto, reads: [Memory, Sessions] => |c, _| c.index_status();
    /// The index build in progress or the last one ended, without the per-owner counts
    index_build(NoArgs) -> Option<IndexJobDto> => |c, _| Ok(c.index_build_state());
    /// Start indexing an owner's entries (every owner without `agent`) in the background
    build_index(AgentArgs) -> IndexJobDto => |c, a| c.build_index(given(&a.agent));
    /// Stop the index build after its current batch (false when none runs)
    cancel_index_build(NoArgs) -> bool => |c, _| Ok(c.cancel_index_build());
    /// Drop every vector of the current root (rebuilt on the next semantic recall or build)
    clear_index(NoArgs) -> IndexStatusDto => |c, _| c.clear_index();
    /// Do what the runtime's next start does to its memory_vectors now (dry_run: the counts)
    fill_runtime_index(crate::runtime_index::FillRuntimeArgs) -> crate::runtime_index::RuntimeFillDto
        => |c, a| c.fill_runtime_index(&a);
    /// Stop the runtime index's fill after its current batch (false when none runs)
    cancel_runtime_fill(NoArgs) -> bool => |c, _| Ok(c.cancel_runtime_fill());
    /// Every copy of entries' texts or of a text, by place (dry_run), or forget them for good
    forget(crate::forget::ForgetArgs) -> crate::forget::ForgetDto => |c, a| c.forget(&a);
    /// The running or last forget: progress, then what was erased and left
    forget_state(NoArgs) -> Option<crate::forget::ForgetDto> => |c, _| Ok(c.forget_state());
    /// Stop the running forget before its next place (false when none runs)
    cancel_forget(NoArgs) -> bool => |c, _| Ok(c.cancel_forget());
    /// Every forget's receipt, newest first: places, counts and hashes, never the text
    forget_receipts(NoArgs) -> Vec<crate::forget::ForgetReceiptDto>, reads: [Memory]
        => |c, _| c.forget_receipts();
    /// Start writing an archive of agents (or all) for the host to save; poll transfer_status
    start_export(ExportRequest) -> TransferDto => |c, a| c.start_export(&a);
    /// Start importing an uploaded archive (or a dry run: counts per owner, nothing written)
    start_import(ImportRequest) -> TransferDto => |c, a| c.start_import(&a);
    /// An export or import: its progress, and its report when it ended
    transfer_status(IdArgs) -> TransferDto => |c, a| c.transfer_status(&a.id);
    /// Stop the running export or import between entries (an export leaves no archive)
    cancel_transfer(IdArgs) -> TransferDto => |c, a| c.cancel_transfer(&a.id);
    /// How a content would be stored (sanitised, one line)
    preview_entry(ContentArgs) -> SanitizedPreview => |c, a| c.preview_entry(&a.content);
    /// One page of sessions, filtered by agent, status, channel and search text
    list_sessions(SessionQuery) -> SessionPageDto, reads: [Sessions] => |c, a| c.list_sessions(&a);
    /// Session counts by status
    session_stats(NoArgs) -> SessionStatsDto, reads: [Sessions] => |c, _| c.session_stats();
    /// One session with its messages
    get_session(IdArgs) -> SessionDto, reads: [Sessions] => |c, a| c.get_session(&a.id);
    /// Tool invocations, of one session or all, newest first
    tool_invocations(InvocationsArgs) -> Vec<ToolInvocationDto>, reads: [Sessions]
        => |c, a| c.tool_invocations(given(&a.session_id), a.limit, a.offset);
    /// Prompt parts [1]-[4] of an agent, with a session's history when given
    prompt_preview(PromptArgs) -> PromptDto, reads: [Memory(agent + global), Agents, Sessions]
        => |c, a| c.prompt_at(&a);
    /// One question over every memory and every past session, by meaning
    search_everywhere(SearchEverywhereArgs) -> SearchEverywhereDto, reads: [Memory, Sessions]
        => |c, a| c.search_everywhere(&a);
    /// Messages of an agent's past sessions closest in meaning to a query (episodic memory)
    episodic_search(EpisodicArgs) -> EpisodicResultDto, reads: [Sessions]
        => |c, a| c.episodic_search(&a.agent, &a.query, a.limit);
    /// USER.md and the other bootstrap files of the root
    bootstrap_files(NoArgs) -> Vec<BootstrapFileDto>, reads: [Agents] => |c, _| c.bootstrap_files();
    /// Stored and effective settings
    get_settings(NoArgs) -> SettingsView => |c, _| c.get_settings();
    /// The runtime install in effect: its configuration with sources, process, database, providers
    runtime_info(NoArgs) -> RuntimeInfo => |c, _| c.runtime_info();
    /// Change one value of the runtime's config/application.yml in place (restart to apply)
    set_runtime_value(SetRuntimeValueArgs) -> RuntimeChange,
        changes: |_out| settings_changed()
        => |c, a| c.set_runtime_value(&a);
    /// Change several values of config/application.yml as one change (one undo)
    set_runtime_values(SetRuntimeValuesArgs) -> Vec<RuntimeChange>,
        changes: |_out| settings_changed()
        => |c, a| c.set_runtime_values(&a);
    /// Put back the runtime's configuration as it was before the last set_runtime_value
    undo_runtime_value(NoArgs) -> RuntimeChange,
        changes: |_out| settings_changed()
        => |c, _| c.undo_runtime_value();
    /// Make the console's offline /v1/embeddings (oryx serve) the runtime's embedding provider: a providers row and embedding.provider/model, applied at its next start (dry_run: only say what would change)
    use_local_embeddings(UseLocalEmbeddingsArgs) -> LocalEmbeddingsPlan,
        changes: |out| if out.applied { settings_changed() } else { None }
        => |c, a| c.use_local_embeddings(&a);
    /// Replace the settings (validated, saved atomically; a failure changes nothing)
    update_settings(SettingsDto) -> SettingsView,
        changes: |out| settings_changed()
        => |c, a| c.update_settings(&a);
    /// What a folder holds, before choosing it as the root
    inspect_root(InspectArgs) -> RootInspection
        => |c, a| c.inspect_root(&a.path, given(&a.db_path));
    /// Write the sample root into a new folder
    create_sample_root(PathArgs) -> RootInspection
        => |_c, a| crate::settings::create_sample_root(&a.path);
    /// Try mem0 settings without saving them
    test_mem0(SettingsDto) -> Mem0Status => |c, a| c.test_mem0(&a);
}

/// Arguments that do not fit the operation are the caller's mistake: `invalid_input`, naming it.
pub fn parse_args<O: Operation>(args: serde_json::Value) -> ApiResult<O::Args> {
    // `null` (or nothing) is "no arguments": an operation whose fields are all optional runs.
    let args = match args {
        serde_json::Value::Null => serde_json::Value::Object(Default::default()),
        v => v,
    };
    serde_json::from_value(args).map_err(|e| {
        ApiError::new(
            ErrorCode::InvalidInput,
            format!("invalid arguments for {}: {e}", O::NAME),
        )
    })
}

fn run_json<O: Operation>(
    console: &Console,
    args: serde_json::Value,
) -> ApiResult<(serde_json::Value, Option<ChangeEvent>)> {
    let out = O::run(console, parse_args::<O>(args)?)?;
    let change = O::changed(&out);
    let value = serde_json::to_value(&out).map_err(|e| {
        ApiError::new(
            ErrorCode::Internal,
            format!("cannot encode the result of {}: {e}", O::NAME),
        )
    })?;
    Ok((value, change))
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Names(Vec<&'static str>);
    impl Visitor for Names {
        fn visit<O: Operation>(&mut self) {
            self.0.push(O::NAME);
        }
    }

    #[test]
    fn visit_and_names_agree_and_names_are_unique() {
        let mut v = Names(Vec::new());
        visit(&mut v);
        assert_eq!(v.0, NAMES);
        let mut sorted = v.0.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), NAMES.len());
    }

    struct Reading(Vec<(&'static str, &'static [Reads])>);
    impl Visitor for Reading {
        fn visit<O: Operation>(&mut self) {
            self.0.push((O::NAME, O::READS));
        }
    }

    #[test]
    fn reads_name_no_settings_and_scope_only_memory_and_checks_by_agent() {
        let mut v = Reading(Vec::new());
        visit(&mut v);
        for (name, reads) in v.0 {
            for r in reads {
                assert_ne!(
                    r.kind,
                    ChangeKind::Settings,
                    "{name}: every answer follows settings"
                );
                if r.agent_arg.is_some() {
                    assert!(
                        matches!(r.kind, ChangeKind::Memory | ChangeKind::Checks),
                        "{name}: only memory and checks changes name an owner"
                    );
                }
                assert!(r.agent_arg.is_some() || !r.global_too, "{name}");
            }
        }
        assert_eq!(
            op::prompt_preview::READS[0],
            Reads {
                kind: ChangeKind::Memory,
                agent_arg: Some("agent"),
                global_too: true
            }
        );
    }

    use crate::test_support::demo_console as console;

    #[test]
    fn call_json_runs_the_method_and_reports_writes() {
        let (_d, c) = console();
        let (v, change) = call_json(&c, "list_agents", serde_json::Value::Null).unwrap();
        assert_eq!(v, serde_json::to_value(c.list_agents().unwrap()).unwrap());
        assert!(change.is_none());
        let (v, change) = call_json(
            &c,
            "append_memory",
            serde_json::json!({"agent": null, "scope": "archival", "content": "from the registry"}),
        )
        .unwrap();
        assert_eq!(v["agent"], serde_json::Value::Null);
        assert_eq!(
            change,
            Some(ChangeEvent {
                kind: ChangeKind::Memory,
                agent: None
            })
        );
        let view = c.memory_view(None).unwrap();
        assert!(view
            .archival
            .iter()
            .any(|e| e.content == "from the registry"));
    }

    #[test]
    fn unknown_operations_and_bad_arguments_are_invalid_input() {
        let (_d, c) = console();
        let e = call_json(&c, "drop_everything", serde_json::json!({})).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidInput);
        assert!(e.message.contains("drop_everything"), "{}", e.message);
        let e = call_json(&c, "get_agent", serde_json::json!({"nom": "x"})).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidInput);
        assert!(
            e.message.contains("get_agent") && e.message.contains("name"),
            "{}",
            e.message
        );
    }

    #[test]
    fn a_blank_agent_means_the_global_memory() {
        let (_d, c) = console();
        let (blank, _) = call_json(&c, "memory_context", serde_json::json!({"agent": ""})).unwrap();
        let (none, _) = call_json(&c, "memory_context", serde_json::json!({})).unwrap();
        assert_eq!(blank, none);
    }
}
