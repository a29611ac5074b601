//! Export, import and time travel. Export and import name files on this machine,
//! so they are CLI methods here and not registered operations (a host would need a download /
//! upload of its own rather than a path argument: not built yet). Memory as of a moment and the
//! diff between two moments are operations.

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::AtomicBool;

use chrono::NaiveDateTime;
use serde::{Deserialize, Serialize};
#[cfg(feature = "specta")]
use specta::Type;

use oryx_core::memory::Scope;
use oryx_core::names::Owner;
use oryx_core::portable::{asof, export, foreign, import};

use crate::console::Console;
use crate::dto::BackendDto;
use crate::error::{ApiError, ApiResult};

pub use oryx_core::portable::export::ExportReport;
pub use oryx_core::portable::foreign::{ForeignReport, Format as ForeignFormat};
pub use oryx_core::portable::import::{ImportReport, OwnerImport};
pub use oryx_core::portable::Progress;

/// `yyyy-MM-dd[ HH:mm[:ss]]`; a day alone means its end (memory "as of that day").
pub fn parse_moment(s: &str) -> ApiResult<NaiveDateTime> {
    let s = s.trim();
    let t = oryx_core::timefmt::parse_entry_ts(s).ok_or_else(|| {
        ApiError::invalid(format!(
            "{s:?} is not a moment: write yyyy-MM-dd, yyyy-MM-dd HH:mm or yyyy-MM-dd HH:mm:ss"
        ))
    })?;
    Ok(if s.len() <= 10 {
        t + chrono::Duration::seconds(86_399)
    } else {
        t
    })
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct AsOfArgs {
    #[serde(default)]
    pub agent: Option<String>,
    /// `yyyy-MM-dd[ HH:mm[:ss]]` (a day alone: its end).
    pub at: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct MemoryDiffArgs {
    #[serde(default)]
    pub agent: Option<String>,
    pub from: String,
    pub to: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct AsOfEntryDto {
    pub timestamp: Option<String>,
    pub content: String,
    /// Inside the prompt window as it was then (archival only).
    pub in_window: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct AsOfDto {
    pub agent: Option<String>,
    /// The moment, `yyyy-MM-dd HH:mm:ss`.
    pub at: String,
    pub core: Vec<AsOfEntryDto>,
    pub archival: Vec<AsOfEntryDto>,
    /// The memory block the prompt had then.
    pub context: String,
    /// What this view cannot know: changes made by hand in the file.
    pub note: String,
    /// The root is kept in git: the last commit by then, which told the changes made by hand.
    pub git: Option<GitSourceDto>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct GitSourceDto {
    /// The commit's short id.
    pub commit: String,
    /// When it was made, `yyyy-MM-dd HH:mm:ss`.
    pub at: String,
    /// Entries added, removed or changed by hand since that commit that the view took back.
    pub hand_changes: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct DiffItemDto {
    pub scope: String,
    pub timestamp: Option<String>,
    pub content: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct ChangedItemDto {
    pub before: DiffItemDto,
    pub after: DiffItemDto,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct MemoryDiffDto {
    pub agent: Option<String>,
    pub from: String,
    pub to: String,
    pub added: Vec<DiffItemDto>,
    pub removed: Vec<DiffItemDto>,
    pub changed: Vec<ChangedItemDto>,
}

fn ts(t: &Option<NaiveDateTime>) -> Option<String> {
    t.as_ref().map(oryx_core::timefmt::format_entry_ts)
}

fn item_dto(i: &asof::Item) -> DiffItemDto {
    DiffItemDto {
        scope: i.scope.as_str().to_string(),
        timestamp: ts(&i.timestamp),
        content: i.content.clone(),
    }
}

pub struct ExportArgs<'a> {
    /// Agents to export; empty with `all`: every agent and the global memory.
    pub agents: &'a [String],
    pub all: bool,
    pub sessions: bool,
    /// Also the console's history of changes (`--with-history`).
    pub include_history: bool,
    pub out: &'a Path,
}

/// `oryx import --from FORMAT FILE [--agent A] [--dry-run]`.
pub struct ForeignImportArgs<'a> {
    pub file: &'a Path,
    /// `openmemory`, `mem0`, `letta` or `lines`.
    pub from: &'a str,
    /// The agent whose memory receives the entries; `None`: the global memory.
    pub agent: Option<&'a str>,
    pub dry_run: bool,
}

pub struct ImportArgs<'a> {
    pub archive: &'a Path,
    pub dry_run: bool,
    pub into_backend: Option<BackendDto>,
    pub agent_map: HashMap<String, String>,
    pub overwrite_files: bool,
}

/// The owners an export names: every agent and the global memory with `all`, else the agents.
pub(crate) fn export_owners(
    rt: &crate::services::Services,
    agents: &[String],
    all: bool,
) -> ApiResult<Vec<Owner>> {
    let owners: Vec<Owner> = if all {
        let mut v: Vec<Owner> = oryx_core::agents::list(rt.root())?
            .into_iter()
            .filter(|x| oryx_core::names::validate_agent_name(&x.name).is_ok())
            .map(|x| Owner::Agent(x.name))
            .collect();
        v.push(Owner::Global);
        v
    } else {
        agents
            .iter()
            .map(|n| rt.owner(Some(n)))
            .collect::<ApiResult<_>>()?
    };
    if owners.is_empty() {
        return Err(ApiError::invalid(
            "name at least one agent to export (oryx export --agent A), or export all (--all)",
        ));
    }
    Ok(owners)
}

/// What an export carries besides the owners' memory.
pub(crate) struct ExportChoice {
    pub sessions: bool,
    pub include_history: bool,
}

/// Writes the owners' archive to `out` (the CLI's file, or the console's own for the app).
pub(crate) fn export_to(
    rt: &crate::services::Services,
    owners: Vec<Owner>,
    choice: &ExportChoice,
    out: &Path,
    cancel: &AtomicBool,
    progress: &mut dyn FnMut(&Progress),
) -> ApiResult<ExportReport> {
    Ok(export::export(
        rt.root(),
        rt.memory.store().as_ref(),
        Some(&rt.sessions),
        &export::ExportOptions {
            owners,
            sessions: choice.sessions,
            include_history: choice.include_history,
        },
        out,
        cancel,
        progress,
    )?)
}

/// An owner's memory at a moment, as the prompt would read it.
struct Block {
    core: Vec<oryx_core::memory::Entry>,
    archival: Vec<oryx_core::memory::Entry>,
    window: oryx_core::memory::window::Window,
    context: String,
}

impl Console {
    fn items_at(
        &self,
        agent: Option<&str>,
        t: NaiveDateTime,
    ) -> ApiResult<(Owner, Vec<asof::Item>)> {
        let (owner, items, _) = self.items_with_git(agent, t)?;
        Ok((owner, items))
    }

    /// The owner's entries at `t`, and the commit that corrected them for changes made by hand
    /// (a markdown root kept in git).
    fn items_with_git(
        &self,
        agent: Option<&str>,
        t: NaiveDateTime,
    ) -> ApiResult<(Owner, Vec<asof::Item>, Option<GitSourceDto>)> {
        let rt = self.services();
        let owner = rt.owner(agent)?;
        let now = rt.memory.store().load_all(&owner)?;
        let history = rt
            .memory
            .history(&owner, None)
            .map(|h| h.changes)
            .unwrap_or_default();
        if rt.memory.backend() != oryx_core::memory::Backend::Markdown {
            return Ok((owner, asof::as_of(&now, &history, t), None));
        }
        let file = oryx_core::names::memory_path(rt.root(), &owner);
        let (items, hand) = asof::as_of_file(rt.root(), &file, &now, &history, t)?;
        let git = hand.map(|h| GitSourceDto {
            commit: h.commit,
            at: oryx_core::timefmt::format_entry_ts(&h.at),
            hand_changes: h.count as u32,
        });
        Ok((owner, items, git))
    }

    /// Prompt part [2] as it stood at a moment.
    pub(crate) fn memory_block_at(
        &self,
        agent: Option<&str>,
        t: NaiveDateTime,
    ) -> ApiResult<String> {
        let (_, items) = self.items_at(agent, t)?;
        Ok(self.block_of(&items).context)
    }

    /// Core and archival of as-of items, and the memory block they make.
    fn block_of(&self, items: &[asof::Item]) -> Block {
        let entry = |i: &asof::Item| oryx_core::memory::Entry::new(i.timestamp, i.content.clone());
        let of = |scope| {
            items
                .iter()
                .filter(|i| i.scope == scope)
                .map(entry)
                .collect()
        };
        let (core, archival): (Vec<_>, Vec<_>) = (of(Scope::Core), of(Scope::Archival));
        // The rule in force: rebuilt entries are laid out as the runtime writes them (one per
        // line, joined by `\n`), so its markdown window is their last units of that text.
        let rule = self.services().memory.window_rule();
        let w = oryx_core::memory::window::apply(&archival, rule);
        let context = oryx_core::memory::service::render_block(&core, &w);
        Block {
            core,
            archival,
            window: w,
            context,
        }
    }

    /// The owner's memory as it stood at a moment: both tables and the prompt's memory block.
    pub fn memory_asof(&self, a: &AsOfArgs) -> ApiResult<AsOfDto> {
        let t = parse_moment(&a.at)?;
        let (owner, items, git) = self.items_with_git(a.agent.as_deref(), t)?;
        let Block {
            core,
            archival,
            window: w,
            context,
        } = self.block_of(&items);
        let dto = |e: &oryx_core::memory::Entry, in_window: bool| AsOfEntryDto {
            timestamp: ts(&e.timestamp),
            content: e.content.clone(),
            in_window,
        };
        Ok(AsOfDto {
            agent: owner.agent_name().map(str::to_string),
            at: oryx_core::timefmt::format_entry_ts(&t),
            core: core.iter().map(|e| dto(e, true)).collect(),
            archival: archival
                .iter()
                .enumerate()
                .map(|(i, e)| dto(e, w.is_in_window(i)))
                .collect(),
            context,
            note: match &git {
                None => "entries stamped after the moment are left out and the console's own \
                         changes since are taken back; changes made by hand in the file are not \
                         known (they are when the root is kept in git)"
                    .into(),
                Some(g) => format!(
                    "entries stamped after the moment are left out and the console's own changes \
                     since are taken back; the root's git commit {} of {} told {} change(s) made \
                     by hand since, taken back too (changes by hand after the moment and before \
                     the next commit cannot be dated)",
                    g.commit, g.at, g.hand_changes
                ),
            },
            git,
        })
    }

    /// What changed in the owner's memory between two moments.
    pub fn memory_diff(&self, a: &MemoryDiffArgs) -> ApiResult<MemoryDiffDto> {
        let (from, to) = (parse_moment(&a.from)?, parse_moment(&a.to)?);
        let (owner, before) = self.items_at(a.agent.as_deref(), from)?;
        let (_, after) = self.items_at(a.agent.as_deref(), to)?;
        let d = asof::diff(&before, &after);
        Ok(MemoryDiffDto {
            agent: owner.agent_name().map(str::to_string),
            from: oryx_core::timefmt::format_entry_ts(&from),
            to: oryx_core::timefmt::format_entry_ts(&to),
            added: d.added.iter().map(item_dto).collect(),
            removed: d.removed.iter().map(item_dto).collect(),
            changed: d
                .changed
                .iter()
                .map(|c| ChangedItemDto {
                    before: item_dto(&c.before),
                    after: item_dto(&c.after),
                })
                .collect(),
        })
    }

    /// Writes the archive (`oryx export`).
    pub fn export_archive(
        &self,
        a: &ExportArgs<'_>,
        cancel: &AtomicBool,
        progress: &mut dyn FnMut(&Progress),
    ) -> ApiResult<ExportReport> {
        let rt = self.services();
        let owners = export_owners(&rt, a.agents, a.all)?;
        let choice = ExportChoice {
            sessions: a.sessions,
            include_history: a.include_history,
        };
        let report = export_to(&rt, owners, &choice, a.out, cancel, progress)?;
        // A later forget lists the archives holding the text it forgets.
        oryx_core::forget::archives::record_export(&self.index_dir(), a.out);
        Ok(report)
    }

    /// Reads an archive into the root in effect, into its backend or another (`oryx import`).
    pub fn import_archive(
        &self,
        a: &ImportArgs<'_>,
        cancel: &AtomicBool,
        progress: &mut dyn FnMut(&Progress),
    ) -> ApiResult<ImportReport> {
        let rt = self.services();
        let store = self.store_of(&rt, a.into_backend)?;
        let report = import::import(
            a.archive,
            rt.root(),
            store.as_ref(),
            &import::ImportOptions {
                dry_run: a.dry_run,
                agent_map: a.agent_map.clone(),
                overwrite_files: a.overwrite_files,
            },
            cancel,
            progress,
        )?;
        crate::runtime_index::index_imported(&rt, store.as_ref(), &report);
        // The page cache needs nothing: its views are keyed by the stored files' stamps.
        Ok(report)
    }

    /// Reads another tool's memories into an owner's memory (`oryx import --from`): the file
    /// is checked whole first; entries already present are skipped; unmapped fields reported.
    pub fn import_foreign(
        &self,
        a: &ForeignImportArgs<'_>,
        cancel: &AtomicBool,
    ) -> ApiResult<ForeignReport> {
        let format = foreign::Format::parse(a.from)?;
        let rt = self.services();
        let owner = rt.owner(a.agent)?;
        Ok(foreign::import_foreign(
            format,
            a.file,
            rt.memory.store().as_ref(),
            &owner,
            a.dry_run,
            cancel,
        )?)
    }
}
