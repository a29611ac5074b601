//! One forget over every place, in the order that leaves no copy behind: the memory entries
//! first (their deletes become history records, and the console's index of a database copies
//! rows until they are gone), then the console's own files (those records become tombstones),
//! then the runtime's database (its compaction also takes the stale pages the entries' deletes
//! left), then archives; git history is only listed. A plan (the dry run) is the same search
//! with nothing changed.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use super::console_files::{self, ConsoleFiles, EntryText};
use super::memory_entries::{self, EntryHit};
use super::receipt::{Receipt, Receipts, State};
use super::{archives, git_history, runtime_db, Copies, Erased, Left, Needles, Place, Why};
use crate::config::Effective;
use crate::error::{CoreError, Result};
use crate::memory::MemoryService;
use crate::names::Owner;

/// What a forget can reach in one console.
pub struct Reach<'a> {
    pub effective: &'a Effective,
    pub memory: &'a MemoryService,
    /// The console's data directory (vector files, review marks, receipts, noted exports).
    pub index_dir: &'a Path,
    /// The console's folder of archives waiting to be fetched (the app's exports).
    pub transfer_dir: Option<&'a Path>,
    /// Whether the runtime's process runs now (it may write its sessions again).
    pub runtime_running: bool,
}

/// What to forget.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ask {
    /// These entries of one owner: their texts, wherever a copy is.
    Entries { owner: Owner, ids: Vec<String> },
    /// A literal text, in these owners' memory and everywhere else a copy is.
    Text { text: String, owners: Vec<Owner> },
}

/// What was asked, without the text: for receipts and for people, in their language.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct AskSummary {
    /// `entries` or `text`.
    pub kind: String,
    /// The owner's agent (`None`: the global memory, or every owner with `all_agents`).
    pub agent: Option<String>,
    pub all_agents: bool,
    /// Entries named (0 for a text).
    pub entries: usize,
}

impl AskSummary {
    fn of(ask: &Ask) -> AskSummary {
        match ask {
            Ask::Entries { owner, ids } => AskSummary {
                kind: "entries".into(),
                agent: owner.agent_name().map(str::to_string),
                all_agents: false,
                entries: ids.len(),
            },
            Ask::Text { owners, .. } => AskSummary {
                kind: "text".into(),
                agent: match owners.as_slice() {
                    [one] => one.agent_name().map(str::to_string),
                    _ => None,
                },
                all_agents: owners.len() > 1,
                entries: 0,
            },
        }
    }
}

/// The dry run: every copy found, by place.
#[derive(Debug, Clone)]
pub struct Plan {
    pub needles: Needles,
    /// What was asked, for people (and the receipt).
    pub scope: String,
    pub ask: AskSummary,
    pub owners: Vec<Owner>,
    pub hits: Vec<EntryHit>,
    pub found: Vec<Copies>,
    /// Copies beyond the console's reach (git history), listed before anything is changed.
    pub outside: Vec<Left>,
    pub searched: Vec<String>,
}

impl Plan {
    /// Whether any copy was found (in reach or not).
    pub fn is_empty(&self) -> bool {
        self.found.is_empty() && self.outside.is_empty()
    }

    /// The runtime's records the forget changes, for its confirmation: `table.column` each.
    pub fn runtime_records(&self) -> Vec<String> {
        self.found
            .iter()
            .filter(|c| {
                matches!(
                    c.place,
                    Place::RuntimeVectors
                        | Place::RuntimeToolCalls
                        | Place::RuntimeSessions
                        | Place::RuntimeOther
                )
            })
            .filter_map(|c| c.detail.clone())
            .collect()
    }
}

/// The places searched, in order (as [`Place`] names: the UI says them in the person's
/// language).
const SEARCHED: [Place; 12] = [
    Place::Memory,
    Place::History,
    Place::Journal,
    Place::ConsoleIndex,
    Place::ReviewMarks,
    Place::RuntimeVectors,
    Place::RuntimeToolCalls,
    Place::RuntimeSessions,
    Place::RuntimeOther,
    Place::DatabaseFreeSpace,
    Place::Archives,
    Place::Git,
];

fn db_of(reach: &Reach<'_>) -> Option<PathBuf> {
    let db = &reach.effective.db_path;
    db.is_file().then(|| db.clone())
}

fn console_files_of(reach: &Reach<'_>, plan_owners: &[Owner], hits: &[EntryHit]) -> ConsoleFiles {
    let mut files = ConsoleFiles::of(reach.effective, reach.index_dir, Some(plan_owners.to_vec()));
    files.db = db_of(reach);
    files.entries = hits
        .iter()
        .map(|h| EntryText {
            scope: h.scope,
            timestamp: h.timestamp,
            content: h.content.clone(),
        })
        .collect();
    files
}

/// Finds every copy; changes nothing.
pub fn plan(reach: &Reach<'_>, ask: &Ask) -> Result<Plan> {
    let (needles, owners, scope) = match ask {
        Ask::Entries { owner, ids } => {
            if ids.is_empty() {
                return Err(CoreError::InvalidInput(
                    "name at least one entry to forget".into(),
                ));
            }
            let all = reach.memory.store().load_all(owner)?;
            let mut texts = Vec::new();
            for id in ids {
                let (_, _, e) = all.find(id).ok_or_else(|| {
                    CoreError::NotFound(format!("no entry {id} in {}", owner.label()))
                })?;
                texts.push(e.content.clone());
            }
            let n = ids.len();
            let scope = format!(
                "{}, {n} {}",
                owner.label(),
                if n == 1 { "entry" } else { "entries" }
            );
            (Needles::new(texts), vec![owner.clone()], scope)
        }
        Ask::Text { text, owners } => {
            let needles = Needles::new([text.clone()]);
            if needles.is_empty() {
                return Err(CoreError::InvalidInput(
                    "the text to forget is empty".into(),
                ));
            }
            let scope = match owners.as_slice() {
                [one] => format!("{}, a text", one.label()),
                _ => "all agents and the global memory, a text".to_string(),
            };
            (needles, owners.clone(), scope)
        }
    };
    let (hits, found) = search(reach, &owners, &needles)?;
    let outside = git_history::left_in_git(&reach.effective.root, &needles)?;
    Ok(Plan {
        ask: AskSummary::of(ask),
        needles,
        scope,
        owners,
        hits,
        found,
        outside,
        searched: SEARCHED.iter().map(|p| p.name().to_string()).collect(),
    })
}

/// The entries of `owners` holding a needle, and every copy in reach, sorted by place.
fn search(
    reach: &Reach<'_>,
    owners: &[Owner],
    needles: &Needles,
) -> Result<(Vec<EntryHit>, Vec<Copies>)> {
    let hits = memory_entries::find(reach.memory, owners, needles)?;
    let db_path = reach.effective.db_path.clone();
    let mut found = memory_entries::copies(reach.memory, &reach.effective.root, &db_path, &hits);
    found.extend(console_files::find(
        &console_files_of(reach, owners, &hits),
        needles,
    )?);
    if let Some(db) = &db_of(reach) {
        // The sqlite backend's rows are the memory entries above.
        found.extend(
            runtime_db::find(db, needles)?
                .into_iter()
                .filter(|c| c.place != Place::Memory),
        );
    }
    found.extend(archives::find(
        reach.index_dir,
        reach.transfer_dir,
        needles,
    )?);
    found.sort_by(|a, b| a.place.cmp(&b.place).then_with(|| a.path.cmp(&b.path)));
    Ok((hits, found))
}

fn same_copies(a: &Copies, b: &Copies) -> bool {
    a.place == b.place && a.path == b.path && a.detail == b.detail
}

/// The receipt's erased and left from what the places said and a search after them: a copy
/// found before and not after was erased (a row the entries' delete already took is erased
/// too), a copy still found is left (with the place's reason, or said plainly).
fn settle(found: &[Copies], after: &[Copies], mut done: Erased) -> Erased {
    for f in found {
        let still = after.iter().any(|a| same_copies(a, f));
        if !still && !done.erased.iter().any(|e| same_copies(e, f)) {
            done.erased.push(f.clone());
        }
    }
    done.erased
        .retain(|e| !after.iter().any(|a| same_copies(a, e)));
    // No copy is left at an erased place, so what it erased is what was found there — some
    // perhaps taken by an earlier place (the entries' delete syncs the console's index of a
    // database). A delete also writes a history and a journal record holding the text, as every
    // delete does: erased too, but not there to find, so counted apart.
    for e in &mut done.erased {
        let before = found
            .iter()
            .find(|f| same_copies(f, e))
            .map_or(0, |f| f.count);
        e.own += e.count.saturating_sub(before);
        e.count = before;
    }
    for a in after {
        let said = done
            .left
            .iter()
            .any(|l| l.place == a.place && l.path == a.path);
        if !said {
            done.left.push(Left {
                place: a.place,
                path: a.path.clone(),
                count: a.count,
                reason: format!(
                    "still found after the forget{}; forget again, or see the other places left",
                    a.detail
                        .as_deref()
                        .map(|d| format!(" ({d})"))
                        .unwrap_or_default()
                ),
                why: Why::StillFound,
                arg: a.detail.clone(),
            });
        }
    }
    done.erased
        .sort_by(|a, b| a.place.cmp(&b.place).then_with(|| a.path.cmp(&b.path)));
    done
}

/// A step of a running forget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    pub done: usize,
    pub of: usize,
    pub place: &'static str,
}

/// Erases what `plan` found, keeping its receipt up to date in `receipts` from before the first
/// change. `mask`: entries keep their place with the text replaced. Cancel stops between places;
/// a place that fails is listed as left with its error and the others still run.
pub fn run(
    reach: &Reach<'_>,
    plan: &Plan,
    mask: bool,
    receipts: &Receipts,
    cancel: &AtomicBool,
    progress: &mut dyn FnMut(Step),
) -> Result<Receipt> {
    let mut receipt = Receipt::new(&plan.needles, plan.scope.clone(), mask);
    receipt.ask = Some(plan.ask.clone());
    receipt.searched = plan.searched.clone();
    receipt.found = plan.found.clone();
    receipts.save(&receipt)?;
    if plan.is_empty() {
        // Nothing found: nothing is opened for writing, only the receipt says so.
        receipt.state = State::Done;
        receipt.ended = Some(crate::memory::journal::now_ms());
        receipts.save(&receipt)?;
        return Ok(receipt);
    }
    let db = db_of(reach);
    let db_path = reach.effective.db_path.clone();
    let root = reach.effective.root.clone();
    let mut done = Erased::default();
    let places: [(&'static str, Place); 4] = [
        ("memory entries", Place::Memory),
        ("the console's files", Place::History),
        ("the runtime's database", Place::RuntimeOther),
        ("archives", Place::Archives),
    ];
    for (i, (place, kind)) in places.iter().enumerate() {
        progress(Step {
            done: i,
            of: places.len(),
            place,
        });
        if cancel.load(Ordering::Relaxed) {
            receipt.state = State::Cancelled;
            for (rest, kind) in &places[i..] {
                done.left.push(Left {
                    place: *kind,
                    path: root.clone(),
                    count: 0,
                    reason: format!("cancelled before {rest} were reached; forget again to finish"),
                    why: Why::Cancelled,
                    arg: None,
                });
            }
            break;
        }
        let step: Result<Erased> = match i {
            0 => Ok(memory_entries::erase(
                reach.memory,
                &root,
                &db_path,
                &plan.hits,
                &plan.needles,
                mask,
            )),
            1 => console_files::erase(
                &console_files_of(reach, &plan.owners, &plan.hits),
                &plan.needles,
                cancel,
            ),
            2 => match &db {
                Some(db) => runtime_db::erase(
                    db,
                    &plan.needles,
                    &runtime_db::EraseOptions {
                        runtime_running: reach.runtime_running,
                    },
                    cancel,
                ),
                None => Ok(Erased::default()),
            },
            _ => archives::erase(reach.index_dir, reach.transfer_dir, &plan.needles),
        };
        match step {
            Ok(e) => done.merge(e),
            Err(e) => done.left.push(Left {
                place: *kind,
                path: root.clone(),
                count: 0,
                reason: format!("{place}: {e}; forget again to finish"),
                why: Why::Failed,
                arg: Some(e.to_string()),
            }),
        }
        receipt.erased = done.erased.clone();
        receipt.left = done.left.clone();
        receipts.save(&receipt)?;
    }
    progress(Step {
        done: places.len(),
        of: places.len(),
        place: "done",
    });
    let done = match search(reach, &plan.owners, &plan.needles) {
        Ok((_, after)) => settle(&plan.found, &after, done),
        Err(e) => {
            let mut d = done;
            d.left.push(Left {
                place: Place::Memory,
                path: root.clone(),
                count: 0,
                reason: format!("the search after the forget failed: {e}"),
                why: Why::Failed,
                arg: Some(e.to_string()),
            });
            d
        }
    };
    let mut done = done;
    done.left.extend(plan.outside.iter().cloned());
    receipt.erased = done.erased;
    receipt.left = done.left;
    if receipt.state == State::Started {
        receipt.state = State::Done;
    }
    receipt.ended = Some(crate::memory::journal::now_ms());
    receipts.save(&receipt)?;
    Ok(receipt)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(place: Place, path: &str, count: usize) -> Copies {
        Copies::new(place, PathBuf::from(path), count, None)
    }

    #[test]
    fn records_the_forgets_own_delete_wrote_are_counted_apart() {
        // Before: 2 history records held the text, the journal none. The delete added one
        // record to each, and the forget erased all four.
        let found = [at(Place::History, "h", 2), at(Place::Memory, "m", 1)];
        let done = Erased {
            erased: vec![
                at(Place::History, "h", 3),
                at(Place::Journal, "j", 1),
                at(Place::Memory, "m", 1),
            ],
            left: vec![],
        };
        let settled = settle(&found, &[], done);
        let by = |p: Place| settled.erased.iter().find(|c| c.place == p).unwrap();
        assert_eq!((by(Place::History).count, by(Place::History).own), (2, 1));
        assert_eq!((by(Place::Journal).count, by(Place::Journal).own), (0, 1));
        assert_eq!((by(Place::Memory).count, by(Place::Memory).own), (1, 0));
        let total: usize = settled.erased.iter().map(|c| c.count).sum();
        assert_eq!(total, 3, "erased counts what was found");
    }

    #[test]
    fn a_place_an_earlier_one_emptied_counts_what_was_found_there() {
        let found = [at(Place::ConsoleIndex, "i", 2)];
        let done = Erased {
            erased: vec![at(Place::ConsoleIndex, "i", 1)],
            left: vec![],
        };
        let settled = settle(&found, &[], done);
        assert_eq!((settled.erased[0].count, settled.erased[0].own), (2, 0));
    }

    #[test]
    fn a_copy_still_found_after_is_left_not_erased() {
        let found = [at(Place::Archives, "a", 1)];
        let settled = settle(&found, &found, Erased::default());
        assert!(settled.erased.is_empty());
        assert_eq!(settled.left.len(), 1);
        assert_eq!(settled.left[0].why, Why::StillFound);
    }
}
