//! Curation operations: edit, delete and move entries, the history with undo, redo and
//! restore, what a selection would do to the prompt, and review marks (CONTRACT §13).

use serde::{Deserialize, Serialize};
#[cfg(feature = "specta")]
use specta::Type;

use oryx_core::memory::change::{EntryDiff, EntrySnap};
use oryx_core::memory::curation::{Action, HistoryView, Target};
use oryx_core::memory::history::Change;
use oryx_core::memory::review::{entry_key, Reviews};
use oryx_core::memory::{service, window, Entry, Scope};
use oryx_core::names::Owner;

use crate::console::Console;
use crate::dto::ScopeDto;
use crate::error::ApiResult;
use crate::services::Services;

/// An entry named by its id and the content the caller saw.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct EntryRef {
    pub id: String,
    /// The content shown; absent: whatever the entry holds now (the CLI without `--expect`).
    #[serde(default)]
    pub expect: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct EditArgs {
    #[serde(default)]
    pub agent: Option<String>,
    pub id: String,
    #[serde(default)]
    pub expect: Option<String>,
    pub content: String,
    /// Give the entry the current time (default: it keeps its own).
    #[serde(default)]
    pub restamp: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct SelectionArgs {
    #[serde(default)]
    pub agent: Option<String>,
    pub entries: Vec<EntryRef>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct MoveArgs {
    #[serde(default)]
    pub agent: Option<String>,
    pub entries: Vec<EntryRef>,
    pub to: ScopeDto,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
#[serde(rename_all = "lowercase")]
pub enum SelectionAction {
    Delete,
    Core,
    Archival,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct ImpactArgs {
    #[serde(default)]
    pub agent: Option<String>,
    pub ids: Vec<String>,
    pub action: SelectionAction,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct HistoryArgs {
    #[serde(default)]
    pub agent: Option<String>,
    #[serde(default)]
    pub limit: Option<u32>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct UndoArgs {
    #[serde(default)]
    pub agent: Option<String>,
    /// Default: the last change not yet undone.
    #[serde(default)]
    pub change_id: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct RestoreArgs {
    #[serde(default)]
    pub agent: Option<String>,
    pub change_id: String,
    pub entry_id: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct SnapDto {
    pub id: String,
    pub scope: ScopeDto,
    pub timestamp: Option<String>,
    pub content: String,
    pub line: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct DiffDto {
    pub before: Option<SnapDto>,
    pub after: Option<SnapDto>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
#[serde(rename_all = "lowercase")]
pub enum ChangeOp {
    Edit,
    Delete,
    Move,
    Restore,
    Undo,
    Redo,
    Summarize,
    /// A summary the automatic mode appended.
    AutoSummary,
    /// Not a console change: entries added meanwhile (by the runtime or an append), shown in
    /// the timeline between the changes, by their time.
    Append,
}

/// One change of the history.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct ChangeDto {
    pub id: String,
    /// Local time, `yyyy-MM-dd HH:mm:ss`.
    pub at: String,
    pub op: ChangeOp,
    pub agent: Option<String>,
    /// An undo: the change it took back; a redo: the undo; a restore: the change the entry
    /// came from.
    pub reverts: Option<String>,
    pub entries: Vec<DiffDto>,
    /// Taken back by an undo that stands.
    pub undone: bool,
    /// Forgotten (local time): a tombstone without texts, which cannot be undone.
    pub forgotten: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct HistoryDto {
    pub agent: Option<String>,
    /// Changes in the history in all (`changes` may be limited).
    pub total: u32,
    /// Newest first.
    pub changes: Vec<ChangeDto>,
    /// What undo would take back now.
    pub can_undo: Option<String>,
    /// What redo would take back now.
    pub can_redo: Option<String>,
}

/// What a selection's delete or move would do to the prompt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct ImpactDto {
    /// Entries of the selection the action changes (a move skips those already there).
    pub entries: u32,
    /// Their characters, as lines.
    pub chars: u32,
    /// Prompt part [2]'s characters now and after the action.
    pub prompt_chars_before: u32,
    pub prompt_chars_after: u32,
    /// Characters of the selection in the prompt now that would leave it.
    pub leaving_prompt_chars: u32,
    /// Characters of the selection outside the prompt now that would enter it.
    pub entering_prompt_chars: u32,
    /// Ids named that are not entries of this owner now.
    pub missing: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct ReviewDto {
    pub agent: Option<String>,
    /// Local time of the last "mark all reviewed"; `None`: never reviewed.
    pub reviewed_at: Option<String>,
    /// Entries added or changed since (all entries when never reviewed).
    pub unreviewed: u32,
    /// Their ids (at most 10 000).
    pub ids: Vec<String>,
}

const REVIEW_IDS_MAX: usize = 10_000;

fn snap_dto(s: &EntrySnap) -> SnapDto {
    SnapDto {
        id: s.id.clone(),
        scope: s.scope.into(),
        timestamp: s.timestamp.clone(),
        content: s.content.clone(),
        line: s.line.clone(),
    }
}

fn diff_dto(d: &EntryDiff) -> DiffDto {
    DiffDto {
        before: d.before.as_ref().map(snap_dto),
        after: d.after.as_ref().map(snap_dto),
    }
}

fn op_dto(op: oryx_core::memory::history::Op) -> ChangeOp {
    use oryx_core::memory::history::Op;
    match op {
        Op::Edit => ChangeOp::Edit,
        Op::Delete => ChangeOp::Delete,
        Op::Move => ChangeOp::Move,
        Op::Restore => ChangeOp::Restore,
        Op::Undo => ChangeOp::Undo,
        Op::Redo => ChangeOp::Redo,
        Op::Summarize => ChangeOp::Summarize,
        Op::AutoSummary => ChangeOp::AutoSummary,
    }
}

pub(crate) fn local_time(ms: i64) -> String {
    oryx_core::timefmt::epoch_ms_to_local(ms)
        .map(|t| oryx_core::timefmt::format_entry_ts(&t))
        .unwrap_or_default()
}

pub(crate) fn change_dto(c: &Change, undone: bool) -> ChangeDto {
    ChangeDto {
        id: c.id.clone(),
        at: local_time(c.at),
        op: op_dto(c.op),
        agent: (c.owner != oryx_core::names::GLOBAL_DB_KEY).then(|| c.owner.clone()),
        reverts: c.reverts.clone(),
        entries: c.entries.iter().map(diff_dto).collect(),
        undone,
        forgotten: c.forgotten.as_ref().map(|f| local_time(f.at)),
    }
}

fn history_dto(owner: &Owner, v: &HistoryView) -> HistoryDto {
    HistoryDto {
        agent: owner.agent_name().map(str::to_string),
        total: v.total as u32,
        changes: v
            .changes
            .iter()
            .map(|l| change_dto(&l.change, v.stacks.undone.contains(&l.change.id)))
            .collect(),
        // A forgotten change cannot be taken back: undo is not offered for it.
        can_undo: v.stacks.undo.clone().filter(|id| {
            !v.changes
                .iter()
                .any(|l| &l.change.id == id && l.change.forgotten.is_some())
        }),
        can_redo: v.stacks.redo.clone(),
    }
}

fn targets(refs: &[EntryRef]) -> Vec<Target> {
    refs.iter()
        .map(|r| Target {
            id: r.id.clone(),
            expect: r.expect.clone(),
        })
        .collect()
}

/// Where an owner's entries live, as reviews are keyed.
pub(crate) fn review_source(rt: &Services, owner: &Owner) -> String {
    source_in(rt.memory.backend(), rt.memory.store().as_ref(), owner)
}

/// [`review_source`] for the store of `backend` (a migration's source or target).
pub(crate) fn source_in(
    backend: oryx_core::memory::Backend,
    store: &dyn oryx_core::memory::LongTermMemoryStore,
    owner: &Owner,
) -> String {
    format!(
        "{}\u{0}{}\u{0}{}",
        backend.as_str(),
        store.location(owner),
        owner.db_key()
    )
}

impl Console {
    fn finish(&self, rt: &Services, owner: &Owner, c: &Change) -> ChangeDto {
        rt.page_cache.forget(&rt.memory, owner);
        self.announce_write(rt, owner);
        change_dto(c, false)
    }

    pub fn edit_entry(&self, a: &EditArgs) -> ApiResult<ChangeDto> {
        let rt = self.services();
        let owner = rt.owner(a.agent.as_deref())?;
        let target = Target {
            id: a.id.clone(),
            expect: a.expect.clone(),
        };
        let action = Action::Edit {
            content: a.content.clone(),
            restamp: a.restamp,
        };
        let c = rt.memory.change(&owner, &[target], &action);
        rt.page_cache.forget(&rt.memory, &owner);
        Ok(self.finish(&rt, &owner, &c?))
    }

    pub fn delete_entries(&self, a: &SelectionArgs) -> ApiResult<ChangeDto> {
        let rt = self.services();
        let owner = rt.owner(a.agent.as_deref())?;
        let c = rt
            .memory
            .change(&owner, &targets(&a.entries), &Action::Delete);
        rt.page_cache.forget(&rt.memory, &owner);
        Ok(self.finish(&rt, &owner, &c?))
    }

    pub fn move_entries(&self, a: &MoveArgs) -> ApiResult<ChangeDto> {
        let rt = self.services();
        let owner = rt.owner(a.agent.as_deref())?;
        let c = rt.memory.change(
            &owner,
            &targets(&a.entries),
            &Action::Move(Scope::from(a.to)),
        );
        rt.page_cache.forget(&rt.memory, &owner);
        Ok(self.finish(&rt, &owner, &c?))
    }

    pub fn memory_history(&self, agent: Option<&str>, limit: Option<u32>) -> ApiResult<HistoryDto> {
        let rt = self.services();
        let owner = rt.owner(agent)?;
        let v = rt.memory.history(&owner, limit.map(|n| n as usize))?;
        let mut dto = history_dto(&owner, &v);
        self.add_appends(&rt, &owner, &mut dto)?;
        Ok(dto)
    }

    /// Puts the entries added since the oldest change shown (that no change shown wrote) into
    /// the timeline, one item per run of them between two changes.
    fn add_appends(&self, rt: &Services, owner: &Owner, dto: &mut HistoryDto) -> ApiResult<()> {
        let Some(oldest) = dto.changes.last().map(|c| c.at.clone()) else {
            return Ok(());
        };
        let snap = rt.page_cache.snapshot(
            &rt.memory,
            owner,
            rt.root(),
            rt.effective.memory_full_parse_max_bytes,
        )?;
        let view = &snap.view;
        let written: std::collections::HashSet<(ScopeDto, Option<String>, String)> = dto
            .changes
            .iter()
            .flat_map(|c| c.entries.iter().filter_map(|d| d.after.as_ref()))
            .map(|a| (a.scope, a.timestamp.clone(), a.content.clone()))
            .collect();
        let mut added: Vec<SnapDto> = Vec::new();
        let core = view
            .core
            .iter()
            .enumerate()
            .map(|(i, e)| (Scope::Core, view.core_id(i), e));
        let archival = view.archival.iter().enumerate().map(|(i, e)| {
            (
                Scope::Archival,
                view.archival_id(i + view.archival_offset, e),
                e,
            )
        });
        for (scope, id, e) in core.chain(archival) {
            let ts = crate::dto::ts(&e.timestamp);
            let Some(t) = ts.clone().filter(|t| *t >= oldest) else {
                continue;
            };
            if written.contains(&(ScopeDto::from(scope), Some(t), e.content.clone())) {
                continue;
            }
            added.push(SnapDto {
                id,
                scope: scope.into(),
                timestamp: ts,
                content: e.content.clone(),
                line: e.line.clone(),
            });
        }
        if added.is_empty() {
            return Ok(());
        }
        // Newest first, grouped by the changes they fall between.
        added.sort_by(|a, b| b.timestamp.cmp(&a.timestamp));
        let item = |run: Vec<SnapDto>| -> Option<ChangeDto> {
            let newest = run.first()?;
            Some(ChangeDto {
                id: format!("append-{}", newest.id),
                at: newest.timestamp.clone().unwrap_or_default(),
                op: ChangeOp::Append,
                agent: owner.agent_name().map(str::to_string),
                reverts: None,
                entries: run
                    .into_iter()
                    .map(|a| DiffDto {
                        before: None,
                        after: Some(a),
                    })
                    .collect(),
                undone: false,
                forgotten: None,
            })
        };
        let mut pending = added.into_iter().peekable();
        let mut out: Vec<ChangeDto> = Vec::with_capacity(dto.changes.len() + 4);
        for c in std::mem::take(&mut dto.changes) {
            let mut run = Vec::new();
            while let Some(a) =
                pending.next_if(|a| a.timestamp.as_deref().unwrap_or("") >= c.at.as_str())
            {
                run.push(a);
            }
            out.extend(item(run));
            out.push(c);
        }
        dto.changes = out;
        Ok(())
    }

    pub fn undo_change(
        &self,
        agent: Option<&str>,
        change_id: Option<&str>,
    ) -> ApiResult<ChangeDto> {
        let rt = self.services();
        let owner = rt.owner(agent)?;
        let c = rt.memory.undo(&owner, change_id);
        rt.page_cache.forget(&rt.memory, &owner);
        Ok(self.finish(&rt, &owner, &c?))
    }

    pub fn redo_change(&self, agent: Option<&str>) -> ApiResult<ChangeDto> {
        let rt = self.services();
        let owner = rt.owner(agent)?;
        let c = rt.memory.redo(&owner);
        rt.page_cache.forget(&rt.memory, &owner);
        Ok(self.finish(&rt, &owner, &c?))
    }

    pub fn restore_entry(&self, a: &RestoreArgs) -> ApiResult<ChangeDto> {
        let rt = self.services();
        let owner = rt.owner(a.agent.as_deref())?;
        let c = rt.memory.restore(&owner, &a.change_id, &a.entry_id);
        rt.page_cache.forget(&rt.memory, &owner);
        Ok(self.finish(&rt, &owner, &c?))
    }

    /// What deleting or moving the entries `ids` would do to the prompt, computed with the
    /// prompt's own window rule.
    pub fn selection_impact(&self, a: &ImpactArgs) -> ApiResult<ImpactDto> {
        let rt = self.services();
        let owner = rt.owner(a.agent.as_deref())?;
        let view = rt.memory.view(&owner)?;
        let rule = rt.memory.window_rule();
        // Every entry with its id, section and whether it is in the prompt now.
        struct Row<'a> {
            e: &'a Entry,
            id: String,
            scope: Scope,
            in_before: bool,
            picked: bool,
        }
        let mut rows: Vec<Row> = view
            .core
            .iter()
            .enumerate()
            .map(|(i, e)| Row {
                e,
                id: view.core_id(i),
                scope: Scope::Core,
                in_before: true,
                picked: false,
            })
            .chain(view.archival.iter().enumerate().map(|(i, e)| Row {
                e,
                id: view.archival_id(i + view.archival_offset, e),
                scope: Scope::Archival,
                in_before: view.window.is_in_window(i + view.archival_offset),
                picked: false,
            }))
            .collect();
        let mut missing = Vec::new();
        for id in &a.ids {
            if let Some(r) = rows.iter_mut().find(|r| r.id == *id) {
                r.picked = true;
                continue;
            }
            // A MEMORY.md id whose entry moved (something before it changed): its line.
            let moved = oryx_core::memory::entry_id::parse_markdown_id(id)
                .ok()
                .and_then(|(scope, _, hash)| {
                    let mut hits = rows.iter_mut().filter(|r| {
                        r.scope == scope
                            && oryx_core::memory::entry_id::line_hash(&r.e.line) == hash
                    });
                    match (hits.next(), hits.next()) {
                        (Some(r), None) => Some(r),
                        _ => None,
                    }
                });
            match moved {
                Some(r) => r.picked = true,
                None => missing.push(id.clone()),
            }
        }
        // The sections after the action, in time order as the stores keep them.
        let target = match a.action {
            SelectionAction::Delete => None,
            SelectionAction::Core => Some(Scope::Core),
            SelectionAction::Archival => Some(Scope::Archival),
        };
        let (mut entries, mut chars) = (0u32, 0u32);
        let mut after: Vec<(Scope, usize)> = Vec::new();
        for (i, r) in rows.iter().enumerate() {
            let acts = r.picked && target != Some(r.scope);
            if acts {
                entries += 1;
                chars += r.e.line_chars() as u32;
            }
            match (acts, target) {
                (true, None) => {}
                (true, Some(t)) => after.push((t, i)),
                (false, _) => after.push((r.scope, i)),
            }
        }
        let sorted = |scope: Scope| {
            let mut v: Vec<usize> = after
                .iter()
                .filter(|(s, _)| *s == scope)
                .map(|(_, i)| *i)
                .collect();
            v.sort_by_key(|i| (rows[*i].e.timestamp, *i));
            v
        };
        let new_core = sorted(Scope::Core);
        let new_arch = sorted(Scope::Archival);
        let arch_entries: Vec<Entry> = new_arch.iter().map(|i| rows[*i].e.clone()).collect();
        let w = window::apply(&arch_entries, rule);
        let core_entries: Vec<Entry> = new_core.iter().map(|i| rows[*i].e.clone()).collect();
        let prompt_after = service::render_block(&core_entries, &w);
        let mut in_after = vec![false; rows.len()];
        for i in &new_core {
            in_after[*i] = true;
        }
        for (k, i) in new_arch.iter().enumerate() {
            in_after[*i] = w.is_in_window(k);
        }
        let (mut leaving, mut entering) = (0u32, 0u32);
        for (i, r) in rows.iter().enumerate().filter(|(_, r)| r.picked) {
            match (r.in_before, in_after[i]) {
                (true, false) => leaving += r.e.line_chars() as u32,
                (false, true) => entering += r.e.line_chars() as u32,
                _ => {}
            }
        }
        Ok(ImpactDto {
            entries,
            chars,
            prompt_chars_before: view.context.chars().count() as u32,
            prompt_chars_after: prompt_after.chars().count() as u32,
            leaving_prompt_chars: leaving,
            entering_prompt_chars: entering,
            missing,
        })
    }

    /// Entries added or changed since the owner's last review.
    pub fn review_status(&self, agent: Option<&str>) -> ApiResult<ReviewDto> {
        let rt = self.services();
        let owner = rt.owner(agent)?;
        self.review_of(&rt, &owner)
    }

    fn review_of(&self, rt: &Services, owner: &Owner) -> ApiResult<ReviewDto> {
        let reviews = Reviews::new(&self.index_dir());
        let last = reviews.load(&review_source(rt, owner))?;
        let view = rt.memory.view(owner)?;
        let mut ids = Vec::new();
        let mut count = 0u32;
        let seen = |scope, e: &Entry| last.as_ref().is_some_and(|r| r.has(entry_key(scope, e)));
        for (i, e) in view.core.iter().enumerate() {
            if !seen(Scope::Core, e) {
                count += 1;
                if ids.len() < REVIEW_IDS_MAX {
                    ids.push(view.core_id(i));
                }
            }
        }
        for (i, e) in view.archival.iter().enumerate() {
            if !seen(Scope::Archival, e) {
                count += 1;
                if ids.len() < REVIEW_IDS_MAX {
                    ids.push(view.archival_id(i + view.archival_offset, e));
                }
            }
        }
        Ok(ReviewDto {
            agent: owner.agent_name().map(str::to_string),
            reviewed_at: last.map(|r| local_time(r.at)),
            unreviewed: count,
            ids,
        })
    }

    /// Marks every entry the owner has now as reviewed.
    pub fn mark_reviewed(&self, agent: Option<&str>) -> ApiResult<ReviewDto> {
        let rt = self.services();
        let owner = rt.owner(agent)?;
        let view = rt.memory.view(&owner)?;
        let keys = view
            .core
            .iter()
            .map(|e| entry_key(Scope::Core, e))
            .chain(view.archival.iter().map(|e| entry_key(Scope::Archival, e)))
            .collect();
        Reviews::new(&self.index_dir()).mark(&review_source(&rt, &owner), keys)?;
        self.review_of(&rt, &owner)
    }

    /// How many entries of an agent are unreviewed (the agents list's badge); `None` for an
    /// agent never reviewed (every entry would count) or whose memory cannot be read.
    pub(crate) fn unreviewed_count(&self, rt: &Services, agent: &str) -> Option<u32> {
        let owner = Owner::Agent(agent.to_string());
        let reviews = Reviews::new(&self.index_dir());
        reviews.load(&review_source(rt, &owner)).ok().flatten()?;
        self.review_of(rt, &owner).ok().map(|r| r.unreviewed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::demo_console as console;

    #[test]
    fn selection_impact_follows_the_prompt_window() {
        let (_d, c) = console();
        let view = c.memory_view(Some("assistant")).unwrap();
        let last = view.archival.last().unwrap();
        let first = &view.archival[0];
        assert!(last.in_window && !first.in_window);
        let ask = |ids: Vec<String>, action| {
            c.selection_impact(&ImpactArgs {
                agent: Some("assistant".into()),
                ids,
                action,
            })
            .unwrap()
        };
        // Deleting the newest entry: its characters leave the prompt (older ones may take
        // the room it frees: the sizes come from the window rule itself).
        let i = ask(vec![last.id.clone()], SelectionAction::Delete);
        let chars = last.line.chars().count() as u32;
        assert_eq!(
            (i.entries, i.chars, i.leaving_prompt_chars),
            (1, chars, chars)
        );
        assert_ne!(i.prompt_chars_after, i.prompt_chars_before);
        // An old entry moved to core enters the prompt.
        let i = ask(vec![first.id.clone()], SelectionAction::Core);
        assert_eq!(i.entering_prompt_chars, first.line.chars().count() as u32);
        assert_eq!(i.leaving_prompt_chars, 0);
        // Moving an entry where it already is changes nothing.
        let i = ask(vec![last.id.clone()], SelectionAction::Archival);
        assert_eq!(
            (i.entries, i.prompt_chars_after),
            (0, i.prompt_chars_before)
        );
        // An id from before something above it moved is found again by its line.
        let (scope, ord, _) = oryx_core::memory::entry_id::parse_markdown_id(&last.id).unwrap();
        assert_eq!(scope, Scope::Archival);
        let shifted = last
            .id
            .replacen(&format!("a{ord}-"), &format!("a{}-", ord + 1), 1);
        let i = ask(vec![shifted, "a0-00000000".into()], SelectionAction::Delete);
        assert_eq!(i.entries, 1);
        assert_eq!(i.missing, vec!["a0-00000000".to_string()]);
    }
}

/// A summary of the entries outside the prompt window, as proposed.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct SummaryProposalDto {
    pub agent: Option<String>,
    /// The entries it covers, oldest first.
    pub covered: Vec<String>,
    pub from: Option<String>,
    pub to: Option<String>,
    /// The summary entry's content (editable before applying).
    pub content: String,
    pub chars_before: u32,
    pub chars_after: u32,
    /// Written by the LLM summariser (read it before applying).
    pub by_llm: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct ApplySummaryArgs {
    #[serde(default)]
    pub agent: Option<String>,
    pub content: String,
    /// The proposal's `covered` ids: removed with the same change when `remove_originals`.
    #[serde(default)]
    pub covered: Vec<String>,
    #[serde(default)]
    pub remove_originals: bool,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct ProposeSummaryArgs {
    #[serde(default)]
    pub agent: Option<String>,
    /// Ask the LLM summariser of Settings → Summaries (default: the deterministic rules).
    #[serde(default)]
    pub llm: bool,
}

impl Console {
    /// A summary of the archival entries outside the window that no summary covers yet
    /// (`None`: fewer than two): by the deterministic rules, or by the configured LLM.
    pub fn propose_summary(&self, a: &ProposeSummaryArgs) -> ApiResult<Option<SummaryProposalDto>> {
        use oryx_core::memory::{llm_summary, summary};
        let rt = self.services();
        let owner = rt.owner(a.agent.as_deref())?;
        let view = rt.memory.view(&owner)?;
        let proposal = if a.llm {
            let hint = match owner.agent_name() {
                Some(name) => {
                    let agent = oryx_core::agents::get(rt.root(), name)?;
                    llm_summary::ProviderHint {
                        name: agent.provider,
                        model: agent.model,
                    }
                }
                None => llm_summary::ProviderHint::default(),
            };
            let cfg = llm_summary::resolve(&rt.settings.summary.llm, &hint)?;
            summary::propose_with(&view, llm_summary::MAX_INPUT_CHARS, |entries| {
                llm_summary::summarise(&cfg, entries)
            })?
        } else {
            summary::propose(&view)
        };
        Ok(proposal.map(|p| SummaryProposalDto {
            agent: owner.agent_name().map(str::to_string),
            covered: p.covered,
            from: p.from,
            to: p.to,
            content: p.content,
            chars_before: p.chars_before as u32,
            chars_after: p.chars_after as u32,
            by_llm: a.llm,
        }))
    }

    /// Appends a summary entry, and with `remove_originals` deletes the covered entries in the
    /// same change (one undo takes it back).
    pub fn apply_summary(&self, a: &ApplySummaryArgs) -> ApiResult<ChangeDto> {
        let rt = self.services();
        let owner = rt.owner(a.agent.as_deref())?;
        let mut remove = Vec::new();
        if a.remove_originals {
            let view = rt.memory.view(&owner)?;
            for id in &a.covered {
                let e = view
                    .archival
                    .iter()
                    .enumerate()
                    .find(|(i, e)| view.archival_id(i + view.archival_offset, e) == *id)
                    .map(|(_, e)| e.content.clone())
                    .ok_or_else(|| {
                        crate::ApiError::new(
                            crate::ErrorCode::Conflict,
                            format!(
                                "entry {id} changed since the summary was proposed; nothing was \
                                 changed, propose it again"
                            ),
                        )
                    })?;
                remove.push(Target {
                    id: id.clone(),
                    expect: Some(e),
                });
            }
        }
        let c = rt.memory.apply_summary(&owner, &a.content, &remove, false);
        rt.page_cache.forget(&rt.memory, &owner);
        Ok(self.finish(&rt, &owner, &c?))
    }
}
