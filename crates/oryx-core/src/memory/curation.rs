//! The console's corrections to memory on every backend, each recorded and reversible:
//! edit, delete, move, restore, undo and redo (CONTRACT §13).

use super::change::{inverse, EntryDiff, Step};
use super::entry::{sanitize_content, Scope};
use super::history::{new_change_id, stacks, Change, Index, Listed, Op, Stacks};
use super::service::MemoryService;
use super::store::Request;
use crate::error::{CoreError, Result};
use crate::names::Owner;
use crate::timefmt::{now_epoch_ms, now_local};

/// An entry named by id, with the content the caller saw (`None`: whatever it holds now).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub id: String,
    pub expect: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// New content (sanitised like a write); `restamp`: the entry takes the current time.
    Edit {
        content: String,
        restamp: bool,
    },
    Delete,
    Move(Scope),
}

/// An owner's history, newest first, with what undo and redo would act on.
#[derive(Debug, Clone)]
pub struct HistoryView {
    pub changes: Vec<Listed>,
    pub stacks: Stacks,
    /// Changes in the history in all (the view may be limited).
    pub total: usize,
}

/// A console killed between a change's intent and its commit left it pending; after this
/// long it is settled by looking at the data (a live writer commits within moments).
const PENDING_GRACE_MS: i64 = 30_000;

fn head(owner: &Owner, op: Op, reverts: Option<String>) -> Change {
    Change {
        id: new_change_id(),
        at: now_epoch_ms(),
        op,
        owner: owner.db_key().to_string(),
        reverts,
        entries: Vec::new(),
        splices: Vec::new(),
        pid: std::process::id(),
        len_after: None,
        forgotten: None,
    }
}

fn swapped(diffs: &[EntryDiff]) -> Vec<EntryDiff> {
    diffs
        .iter()
        .map(|d| EntryDiff {
            before: d.after.clone(),
            after: d.before.clone(),
        })
        .collect()
}

impl MemoryService {
    fn history_of(&self, owner: &Owner) -> Result<super::history::History> {
        self.store().history(owner).ok_or_else(|| {
            CoreError::InvalidInput(format!(
                "the {} store keeps no history of changes",
                self.backend().as_str()
            ))
        })
    }

    /// Edits, deletes or moves entries as one change.
    pub fn change(&self, owner: &Owner, targets: &[Target], action: &Action) -> Result<Change> {
        if targets.is_empty() {
            return Err(CoreError::InvalidInput("name at least one entry".into()));
        }
        let expects = self.expectations(owner, targets)?;
        let (op, steps) = match action {
            Action::Edit { content, restamp } => {
                if targets.len() != 1 {
                    return Err(CoreError::InvalidInput(
                        "an edit names exactly one entry".into(),
                    ));
                }
                let content = sanitize_content(content)?;
                let step = Step::Replace {
                    id: targets[0].id.clone(),
                    expect: expects[0].clone(),
                    scope: None,
                    timestamp: restamp.then(|| Some(now_local())),
                    content,
                    line: None,
                    raw: None,
                };
                (Op::Edit, vec![step])
            }
            Action::Delete => (
                Op::Delete,
                targets
                    .iter()
                    .zip(&expects)
                    .map(|(t, e)| Step::Remove {
                        id: t.id.clone(),
                        expect: e.clone(),
                    })
                    .collect(),
            ),
            Action::Move(to) => (
                Op::Move,
                targets
                    .iter()
                    .zip(&expects)
                    .map(|(t, e)| Step::Replace {
                        id: t.id.clone(),
                        expect: e.clone(),
                        scope: Some(*to),
                        timestamp: None,
                        content: e.clone(),
                        line: None,
                        raw: None,
                    })
                    .collect(),
            ),
        };
        self.store().curate(
            owner,
            Request {
                head: head(owner, op, None),
                steps,
                exact: None,
            },
        )
    }

    /// The content each target is expected to hold: the caller's, or what it holds now.
    fn expectations(&self, owner: &Owner, targets: &[Target]) -> Result<Vec<String>> {
        if targets.iter().all(|t| t.expect.is_some()) {
            return Ok(targets.iter().filter_map(|t| t.expect.clone()).collect());
        }
        let all = self.store().load_all(owner)?;
        targets
            .iter()
            .map(|t| match &t.expect {
                Some(e) => Ok(e.clone()),
                None => match all.find(&t.id) {
                    Some((_, _, e)) => Ok(e.content.clone()),
                    None => Err(stale_or_unknown(&all, &t.id, owner)),
                },
            })
            .collect()
    }

    /// Puts back one entry a change removed (or changed), from the history.
    pub fn restore(&self, owner: &Owner, change_id: &str, entry_id: &str) -> Result<Change> {
        let (index, _, path) = self.settled_index(owner)?;
        let c = find(&index, change_id, &path)?;
        let before = c
            .entries
            .iter()
            .filter_map(|d| d.before.as_ref())
            .find(|b| b.id == entry_id)
            .ok_or_else(|| {
                CoreError::NotFound(format!(
                    "change {change_id} has no entry {entry_id} to restore"
                ))
            })?;
        let step = Step::Insert {
            id: Some(before.id.clone()),
            scope: before.scope,
            timestamp: before.time(),
            content: before.content.clone(),
            line: Some(before.line.clone()),
            raw: before.raw.clone(),
        };
        self.store().curate(
            owner,
            Request {
                head: head(owner, Op::Restore, Some(c.id.clone())),
                steps: vec![step],
                exact: None,
            },
        )
    }

    /// Takes back `change_id` (default: the last change not yet undone). Entries it wrote that
    /// changed since are a `Conflict`, and nothing is written.
    pub fn undo(&self, owner: &Owner, change_id: Option<&str>) -> Result<Change> {
        let (index, stacks, path) = self.settled_index(owner)?;
        let id = match change_id {
            Some(id) => id.to_string(),
            None => match (&stacks.undo, index.unreadable.first()) {
                (Some(id), _) => id.clone(),
                (None, Some(u)) => return Err(unreadable_last(&path, u.line)),
                (None, None) => {
                    return Err(CoreError::InvalidInput("there is nothing to undo".into()))
                }
            },
        };
        let c = find(&index, &id, &path)?;
        refuse_past_unreadable(&index, &id, &path)?;
        if c.op == Op::Undo {
            return Err(CoreError::InvalidInput(format!(
                "change {id} is an undo: use redo to take it back"
            )));
        }
        if stacks.undone.contains(&c.id) {
            return Err(CoreError::Conflict(format!(
                "change {id} is already undone"
            )));
        }
        // Byte for byte only for the newest change in effect: a later console change may have
        // moved what an older one wrote.
        let exact = (stacks.undo.as_deref() == Some(&c.id))
            .then(|| (c.splices.clone(), swapped(&c.entries)));
        self.store().curate(
            owner,
            Request {
                head: head(owner, Op::Undo, Some(c.id.clone())),
                steps: inverse(&c.entries),
                exact,
            },
        )
    }

    /// Takes back the newest undo (when no change was made since).
    pub fn redo(&self, owner: &Owner) -> Result<Change> {
        let (index, stacks, path) = self.settled_index(owner)?;
        let id = stacks
            .redo
            .clone()
            .ok_or_else(|| CoreError::InvalidInput("there is nothing to redo".into()))?;
        let u = find(&index, &id, &path)?;
        refuse_past_unreadable(&index, &id, &path)?;
        self.store().curate(
            owner,
            Request {
                head: head(owner, Op::Redo, Some(u.id.clone())),
                steps: inverse(&u.entries),
                exact: Some((u.splices.clone(), swapped(&u.entries))),
            },
        )
    }

    /// The owner's history index after settling changes a killed console left half-recorded;
    /// changes still in flight elsewhere are left out.
    fn settled_index(&self, owner: &Owner) -> Result<(Index, Stacks, std::path::PathBuf)> {
        let history = self.history_of(owner)?;
        let mut index = history.index(Some(owner.db_key()))?;
        let now = now_epoch_ms();
        let mut settled = false;
        for i in 0..index.heads.len() {
            let h = &index.heads[i];
            if !h.pending {
                continue;
            }
            let alive = super::history::writer_alive(h.pid);
            if alive && now - h.at < PENDING_GRACE_MS {
                continue;
            }
            let Some(l) = index.listed(i) else { continue };
            if self.store().holds(owner, &l.change)? {
                history.commit(&l.change.id)?;
            } else {
                history.abort(&l.change.id)?;
            }
            settled = true;
        }
        if settled {
            index = history.index(Some(owner.db_key()))?;
        }
        index.heads.retain(|h| !h.pending);
        let stacks = stacks(&index.heads);
        Ok((index, stacks, history.path().to_path_buf()))
    }

    /// The owner's changes, newest first (at most `limit`), with what undo and redo would do.
    pub fn history(&self, owner: &Owner, limit: Option<usize>) -> Result<HistoryView> {
        let (index, stacks, _) = self.settled_index(owner)?;
        let total = index.heads.len();
        let n = limit.unwrap_or(total).min(total);
        let changes = (0..total)
            .rev()
            .take(n)
            .filter_map(|i| index.listed(i))
            .collect();
        Ok(HistoryView {
            changes,
            stacks,
            total,
        })
    }
}

/// A MEMORY.md id whose position still holds an entry, but another one, names an entry that
/// changed (a conflict); any other id names nothing.
fn stale_or_unknown(all: &super::Sections, id: &str, owner: &Owner) -> CoreError {
    if let Ok((scope, ord, _)) = super::entry_id::parse_markdown_id(id) {
        if all.core_ids.is_empty() && all.archival_ids.is_empty() {
            if let Some(now) = all.of(scope).get(ord) {
                return super::change::changed_since(id, "(as listed)", Some(&now.content));
            }
        }
    }
    CoreError::NotFound(format!(
        "no memory entry with id {id:?} in the memory of {}",
        owner.label()
    ))
}

fn find(index: &Index, id: &str, path: &std::path::Path) -> Result<Change> {
    let i = index
        .position(id)
        .ok_or_else(|| CoreError::NotFound(format!("no change with id {id:?} in the history")))?;
    let change = index.decoded(i, path)?;
    // A tombstone keeps no text to write back: taking it back would write nothing, or the
    // wrong thing.
    change.refuse_if_forgotten()?;
    Ok(change)
}

/// An unreadable history record after the change to take back may have been a later change,
/// or the undo of this one: which change is "the last" is then unknown, and undo or redo would
/// act on a guess.
fn refuse_past_unreadable(index: &Index, id: &str, path: &std::path::Path) -> Result<()> {
    match index.position(id).and_then(|i| index.unreadable_after(i)) {
        Some(u) => Err(unreadable_last(path, u.line)),
        None => Ok(()),
    }
}

fn unreadable_last(path: &std::path::Path, line: usize) -> CoreError {
    CoreError::Corrupt(format!(
        "{}: line {line} cannot be read and may be the last change (or one that took an \
         earlier one back), so nothing was changed; fix or remove that line to undo or redo \
         again",
        path.display(),
    ))
}
