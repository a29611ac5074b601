//! Read receipts: which prompts reached each memory entry, which `recall_memory` calls returned
//! it, and when it was last read.
//!
//! A prompt reached an entry when the entry was in the memory block of the owner's memory as
//! it stood when the prompt was built: every core entry, and the archival entries of the
//! window the rule in force cuts (an entry the window cuts into counts as read). Memory at a
//! past moment is today's, less the entries stamped later, with the console's changes made
//! since taken back (the same reconstruction as the "as of" view; changes made by hand in the
//! file are not known). Rebuilding it for every prompt would cost the history once per prompt,
//! so the history is taken back once, to before any change, and then played forward with the
//! prompts and recalls in time order.
//!
//! Receipts are per entry id. An edit gives an entry a new id: the reads before the edit stay
//! with the id it had then (still listed, as an entry that no longer exists), those after go
//! to its new id.

pub mod timeline;

use std::collections::{HashMap, HashSet};

use chrono::{Duration, NaiveDateTime};
use serde::Serialize;

use crate::memory::change::EntrySnap;
use crate::memory::history::Listed;
use crate::memory::window::{self, WindowRule};
use crate::memory::{Entry, Scope, Sections};
use crate::timefmt::{epoch_ms_to_local, parse_entry_ts};
pub use timeline::{Recall, SessionReads, Timeline, Turn};

/// An entry (by id) and its reads.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Receipt {
    pub id: String,
    pub scope: Scope,
    pub timestamp: Option<NaiveDateTime>,
    pub content: String,
    /// The id names an entry of today's memory; else one since edited or deleted.
    pub exists_now: bool,
    /// Today's entry's position in its section (file order).
    pub index: Option<usize>,
    /// Prompts whose memory block held it.
    pub prompts: u64,
    /// `recall_memory` calls that returned it.
    pub recalls: u64,
    /// Sessions that read it either way.
    pub sessions: u64,
    pub first_read: Option<NaiveDateTime>,
    pub last_read: Option<NaiveDateTime>,
    pub last_prompt: Option<NaiveDateTime>,
    pub last_recall: Option<NaiveDateTime>,
}

impl Receipt {
    /// Not read by any prompt or recall within `days` before `now`.
    pub fn unread_for(&self, now: NaiveDateTime, days: i64) -> bool {
        self.last_read
            .is_none_or(|t| t < now - Duration::days(days))
    }
}

/// Every entry's receipts for one owner.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Receipts {
    /// Today's entries (core, then archival, in the table's order), then the ids of entries
    /// since edited or deleted that were read, most recently read first.
    pub entries: Vec<Receipt>,
    pub sessions: u64,
    pub prompts: u64,
    pub recalls: u64,
    /// Sessions without recorded model calls, whose prompt times are estimates.
    pub estimated_sessions: u64,
}

/// An entry as a turn read it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadEntry {
    pub id: String,
    pub scope: Scope,
    pub timestamp: Option<NaiveDateTime>,
    pub content: String,
    pub exists_now: bool,
    /// Only the end of its line reached the prompt.
    pub partial: bool,
}

/// One `recall_memory` call of a turn and the entries its result held.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RecallRead {
    pub invocation_id: i64,
    pub at: Option<NaiveDateTime>,
    pub keyword: Option<String>,
    pub entries: Vec<ReadEntry>,
    /// Lines of the result that name no entry known then (a line of a note, or an entry
    /// changed by hand).
    pub unmatched: Vec<String>,
}

/// What the agent read in one turn of a session.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnReads {
    pub turn: usize,
    pub user: Option<String>,
    /// When its first prompt was sent.
    pub at: Option<NaiveDateTime>,
    pub prompts: usize,
    pub estimated: bool,
    /// Entries of its prompts' memory blocks (core first, archival oldest first).
    pub window: Vec<ReadEntry>,
    pub recalls: Vec<RecallRead>,
}

/// The memory an owner has now and how it came to be.
pub struct Memory<'a> {
    pub now: &'a Sections,
    /// As the history lists it: newest first.
    pub history: &'a [Listed],
    pub rule: WindowRule,
}

/// Every entry's reads over the timeline.
pub fn receipts(mem: &Memory, timeline: &Timeline) -> Receipts {
    let mut walk = Walk::new(mem);
    walk.run(timeline, None);
    let estimated = timeline
        .sessions
        .iter()
        .filter(|s| s.turns.iter().any(|t| t.estimated))
        .count() as u64;
    let mut entries = Vec::new();
    for scope in [Scope::Core, Scope::Archival] {
        for i in 0..mem.now.of(scope).len() {
            if let Some(k) = mem.now.id(scope, i).and_then(|id| walk.keys.get(&id)) {
                entries.push(Receipt {
                    index: Some(i),
                    ..walk.accs[*k].receipt()
                });
            }
        }
    }
    let mut gone: Vec<Receipt> = walk
        .accs
        .iter()
        .filter(|a| !a.exists_now && a.prompts + a.recalls > 0)
        .map(Acc::receipt)
        .collect();
    gone.sort_by_key(|r| std::cmp::Reverse(r.last_read));
    entries.extend(gone);
    Receipts {
        entries,
        sessions: timeline.sessions.len() as u64,
        prompts: walk.prompts,
        recalls: walk.recalls,
        estimated_sessions: estimated,
    }
}

/// What each turn of one session read; `None` when the timeline has no such session.
pub fn turn_reads(mem: &Memory, timeline: &Timeline, session_id: &str) -> Option<Vec<TurnReads>> {
    let s = timeline.session(session_id)?;
    let mut walk = Walk::new(mem);
    let mut detail = Detail {
        turns: s.turns.iter().map(|_| TurnAcc::default()).collect(),
    };
    walk.run(timeline, Some((session_id, &mut detail)));
    let entry = |walk: &Walk, key: usize, partial: bool| {
        let a = &walk.accs[key];
        ReadEntry {
            id: a.id.clone(),
            scope: a.scope,
            timestamp: a.timestamp,
            content: a.content.clone(),
            exists_now: a.exists_now,
            partial,
        }
    };
    Some(
        s.turns
            .iter()
            .zip(detail.turns)
            .map(|(t, acc)| {
                let mut window: Vec<(usize, bool)> = acc.window.into_iter().collect();
                window.sort_by_key(|(k, _)| {
                    let a = &walk.accs[*k];
                    (a.scope != Scope::Core, a.timestamp, *k)
                });
                TurnReads {
                    turn: t.number,
                    user: t.user.clone(),
                    at: t.prompts.first().and_then(|&ms| epoch_ms_to_local(ms)),
                    prompts: t.prompts.len(),
                    estimated: t.estimated,
                    window: window
                        .into_iter()
                        .map(|(k, p)| entry(&walk, k, p))
                        .collect(),
                    recalls: acc
                        .recalls
                        .into_iter()
                        .map(|r| RecallRead {
                            invocation_id: r.invocation_id,
                            at: epoch_ms_to_local(r.at_ms),
                            keyword: r.keyword,
                            entries: r.keys.iter().map(|&k| entry(&walk, k, false)).collect(),
                            unmatched: r.unmatched,
                        })
                        .collect(),
                }
            })
            .collect(),
    )
}

struct Acc {
    id: String,
    scope: Scope,
    timestamp: Option<NaiveDateTime>,
    content: String,
    exists_now: bool,
    prompts: u64,
    recalls: u64,
    sessions: HashSet<u32>,
    first: Option<i64>,
    last_prompt: Option<i64>,
    last_recall: Option<i64>,
}

impl Acc {
    fn receipt(&self) -> Receipt {
        let t = |ms: Option<i64>| ms.and_then(epoch_ms_to_local);
        Receipt {
            id: self.id.clone(),
            scope: self.scope,
            timestamp: self.timestamp,
            content: self.content.clone(),
            exists_now: self.exists_now,
            index: None,
            prompts: self.prompts,
            recalls: self.recalls,
            sessions: self.sessions.len() as u64,
            first_read: t(self.first),
            last_read: t(self.last_prompt.max(self.last_recall)),
            last_prompt: t(self.last_prompt),
            last_recall: t(self.last_recall),
        }
    }
}

/// One section's entries at the walk's moment, in time order (untimed first), each with the
/// key of its receipt.
#[derive(Default)]
struct Column {
    entries: Vec<Entry>,
    keys: Vec<usize>,
}

impl Column {
    fn insert(&mut self, e: Entry, key: usize) {
        let at = self.entries.partition_point(|x| x.timestamp <= e.timestamp);
        self.entries.insert(at, e);
        self.keys.insert(at, key);
    }

    fn remove(&mut self, timestamp: Option<NaiveDateTime>, content: &str) -> Option<usize> {
        let i = self
            .entries
            .iter()
            .rposition(|x| x.timestamp == timestamp && x.content == content)?;
        self.entries.remove(i);
        Some(self.keys.remove(i))
    }

    /// How many entries were there at `at`: those stamped by then.
    fn visible(&self, at: NaiveDateTime) -> usize {
        self.entries
            .partition_point(|x| x.timestamp.is_none_or(|t| t <= at))
    }
}

#[derive(Default)]
struct TurnAcc {
    /// Key and whether it was only ever partly in.
    window: HashMap<usize, bool>,
    recalls: Vec<RecallAcc>,
}

struct RecallAcc {
    invocation_id: i64,
    at_ms: i64,
    keyword: Option<String>,
    keys: Vec<usize>,
    unmatched: Vec<String>,
}

struct Detail {
    turns: Vec<TurnAcc>,
}

enum Event<'t> {
    /// Index into the changes, oldest first.
    Change(usize),
    Prompt {
        session: u32,
        turn: usize,
        at: i64,
    },
    Recall {
        session: u32,
        recall: &'t Recall,
    },
}

struct Walk<'m> {
    rule: WindowRule,
    keys: HashMap<String, usize>,
    accs: Vec<Acc>,
    core: Column,
    archival: Column,
    /// Settled changes, oldest first.
    changes: Vec<&'m Listed>,
    /// For each change and entry of it: the key of the entry its after-state was, when taking
    /// the change back found it.
    after_keys: Vec<Vec<Option<usize>>>,
    prompts: u64,
    recalls: u64,
}

fn entry_of(s: &EntrySnap) -> Entry {
    Entry {
        timestamp: s.timestamp.as_deref().and_then(parse_entry_ts),
        content: s.content.clone(),
        line: s.line.clone(),
    }
}

impl<'m> Walk<'m> {
    /// Today's memory with every change of the history taken back.
    fn new(mem: &Memory<'m>) -> Walk<'m> {
        let mut w = Walk {
            rule: mem.rule,
            keys: HashMap::new(),
            accs: Vec::new(),
            core: Column::default(),
            archival: Column::default(),
            changes: mem.history.iter().rev().filter(|l| !l.pending).collect(),
            after_keys: Vec::new(),
            prompts: 0,
            recalls: 0,
        };
        for scope in [Scope::Core, Scope::Archival] {
            for (i, e) in mem.now.of(scope).iter().enumerate() {
                let id = mem.now.id(scope, i).unwrap_or_default();
                let key = w.key_for(&id, scope, e, true);
                w.column(scope).insert(e.clone(), key);
            }
        }
        w.after_keys = w
            .changes
            .iter()
            .map(|l| vec![None; l.change.entries.len()])
            .collect();
        for ci in (0..w.changes.len()).rev() {
            let change = w.changes[ci];
            for (di, d) in change.change.entries.iter().enumerate().rev() {
                if let Some(a) = &d.after {
                    let ts = a.timestamp.as_deref().and_then(parse_entry_ts);
                    w.after_keys[ci][di] = w.column(a.scope).remove(ts, &a.content);
                }
                if let Some(b) = &d.before {
                    let e = entry_of(b);
                    let key = w.key_for(&b.id, b.scope, &e, false);
                    w.column(b.scope).insert(e, key);
                }
            }
        }
        w
    }

    fn column(&mut self, scope: Scope) -> &mut Column {
        match scope {
            Scope::Core => &mut self.core,
            Scope::Archival => &mut self.archival,
        }
    }

    fn key_for(&mut self, id: &str, scope: Scope, e: &Entry, exists_now: bool) -> usize {
        if let Some(&k) = self.keys.get(id) {
            return k;
        }
        self.accs.push(Acc {
            id: id.to_string(),
            scope,
            timestamp: e.timestamp,
            content: e.content.clone(),
            exists_now,
            prompts: 0,
            recalls: 0,
            sessions: HashSet::new(),
            first: None,
            last_prompt: None,
            last_recall: None,
        });
        self.keys.insert(id.to_string(), self.accs.len() - 1);
        self.accs.len() - 1
    }

    fn redo(&mut self, ci: usize) {
        let change = self.changes[ci];
        for (di, d) in change.change.entries.iter().enumerate() {
            if let Some(b) = &d.before {
                let ts = b.timestamp.as_deref().and_then(parse_entry_ts);
                self.column(b.scope).remove(ts, &b.content);
            }
            if let Some(a) = &d.after {
                let e = entry_of(a);
                let key = match self.after_keys[ci][di] {
                    Some(k) => k,
                    None => self.key_for(&a.id, a.scope, &e, false),
                };
                self.column(a.scope).insert(e, key);
            }
        }
    }

    fn credit(&mut self, key: usize, at: i64, session: u32, recall: bool) {
        let a = &mut self.accs[key];
        if recall {
            a.recalls += 1;
            a.last_recall = a.last_recall.max(Some(at));
        } else {
            a.prompts += 1;
            a.last_prompt = a.last_prompt.max(Some(at));
        }
        a.first = Some(a.first.map_or(at, |f| f.min(at)));
        a.sessions.insert(session);
    }

    fn run(&mut self, timeline: &Timeline, mut detail: Option<(&str, &mut Detail)>) {
        let only = detail.as_ref().map(|(id, _)| *id);
        let mut events: Vec<(i64, u8, Event)> = Vec::new();
        for (ci, l) in self.changes.iter().enumerate() {
            // Moments have whole seconds: a change made within a second counts from its start.
            events.push((l.change.at.div_euclid(1000) * 1000, 0, Event::Change(ci)));
        }
        for (si, s) in timeline.sessions.iter().enumerate() {
            if only.is_some_and(|id| id != s.session_id) {
                continue;
            }
            let session = si as u32;
            for (ti, t) in s.turns.iter().enumerate() {
                for &at in &t.prompts {
                    let turn = ti;
                    events.push((at, 1, Event::Prompt { session, turn, at }));
                }
            }
            for r in &s.recalls {
                events.push((r.at_ms, 1, Event::Recall { session, recall: r }));
            }
        }
        events.sort_by_key(|(at, order, _)| (*at, *order));
        for (at_ms, _, ev) in events {
            match ev {
                Event::Change(ci) => self.redo(ci),
                Event::Prompt { session, turn, at } => {
                    let Some(t) = epoch_ms_to_local(at) else {
                        continue;
                    };
                    self.prompts += 1;
                    let core_n = self.core.visible(t);
                    let arch_n = self.archival.visible(t);
                    let w = window::apply(&self.archival.entries[..arch_n], self.rule);
                    let mut read: Vec<(usize, bool)> = self.core.keys[..core_n]
                        .iter()
                        .map(|&k| (k, false))
                        .collect();
                    read.extend((w.first_in_window..w.end_in_window).map(|i| {
                        let partial = w.partial.as_ref().is_some_and(|p| p.index == i);
                        (self.archival.keys[i], partial)
                    }));
                    for &(k, partial) in &read {
                        self.credit(k, at, session, false);
                        if let Some((_, d)) = detail.as_mut() {
                            let slot = d.turns[turn].window.entry(k).or_insert(partial);
                            *slot &= partial;
                        }
                    }
                }
                Event::Recall { session, recall } => {
                    let Some(t) = epoch_ms_to_local(at_ms) else {
                        continue;
                    };
                    self.recalls += 1;
                    let mut keys = Vec::new();
                    let mut unmatched = Vec::new();
                    for line in &recall.lines {
                        match self.find_line(line, t) {
                            Some(k) => {
                                if !keys.contains(&k) {
                                    self.credit(k, at_ms, session, true);
                                    keys.push(k);
                                }
                            }
                            None => unmatched.push(line.clone()),
                        }
                    }
                    if let (Some((_, d)), Some(turn)) = (detail.as_mut(), recall.turn) {
                        if let Some(slot) = d.turns.get_mut(turn) {
                            slot.recalls.push(RecallAcc {
                                invocation_id: recall.invocation_id,
                                at_ms,
                                keyword: recall.keyword.clone(),
                                keys,
                                unmatched,
                            });
                        }
                    }
                }
            }
        }
    }

    /// The entry (there at `t`) a result line names: by its stored line (MEMORY.md) or its
    /// content (a row's text), newest first.
    fn find_line(&self, line: &str, t: NaiveDateTime) -> Option<usize> {
        for col in [&self.archival, &self.core] {
            let n = col.visible(t);
            let hit = col.entries[..n]
                .iter()
                .rposition(|e| e.line.trim() == line || e.content.trim() == line);
            if let Some(i) = hit {
                return Some(col.keys[i]);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests;
