//! Memory as it stood at a moment, and what changed between two moments. Archives only grow,
//! so entries stamped after the moment were not there yet; the console's history takes back
//! the edits, deletes, moves and summaries made since, newest first. Changes made by hand in
//! the file are known only where the root is kept in git: [`corrected`] takes them back using
//! the last commit made by then.

use chrono::{NaiveDateTime, Timelike};
use serde::Serialize;

use crate::memory::change::EntrySnap;
use crate::memory::history::Listed;
use crate::memory::{Entry, Scope, Sections};
use crate::timefmt::{local_to_epoch_ms, parse_entry_ts};

/// One entry as of a moment.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct Item {
    pub scope: Scope,
    pub timestamp: Option<NaiveDateTime>,
    pub content: String,
}

impl Item {
    fn of(scope: Scope, e: &Entry) -> Item {
        Item {
            scope,
            timestamp: e.timestamp,
            content: e.content.clone(),
        }
    }

    fn snap(s: &EntrySnap) -> Item {
        Item {
            scope: s.scope,
            timestamp: s.timestamp.as_deref().and_then(parse_entry_ts),
            content: s.content.clone(),
        }
    }
}

/// The owner's entries at `t`: core then archival, each in time order.
pub fn as_of(now: &Sections, history: &[Listed], t: NaiveDateTime) -> Vec<Item> {
    let mut items: Vec<Item> = now
        .core
        .iter()
        .map(|e| Item::of(Scope::Core, e))
        .chain(now.archival.iter().map(|e| Item::of(Scope::Archival, e)))
        .collect();
    // Moments have whole seconds: a change within `t`'s second was made by then.
    let t_end_ms = local_to_epoch_ms(&t.with_nanosecond(0).unwrap_or(t)) + 999;
    // `history` is newest first (as listed); take back every change made after `t`.
    for l in history
        .iter()
        .filter(|l| !l.pending && l.change.at > t_end_ms)
    {
        for d in l.change.entries.iter().rev() {
            let after = d.after.as_ref().map(Item::snap);
            let before = d.before.as_ref().map(Item::snap);
            if let Some(a) = &after {
                if let Some(i) = items.iter().rposition(|x| x == a) {
                    items.remove(i);
                }
            }
            if let Some(b) = before {
                items.push(b);
            }
        }
    }
    items.retain(|x| x.timestamp.is_none_or(|ts| ts <= t));
    // Stable: entries of one time keep their order; untimed ones stay where they were.
    items.sort_by_key(|x| (x.scope != Scope::Core, x.timestamp));
    items
}

/// The entries of a MEMORY.md as a commit holds it.
pub fn items_of(bytes: &[u8]) -> Vec<Item> {
    let s = crate::memory::format::parse(bytes).sections;
    s.core
        .iter()
        .map(|e| Item::of(Scope::Core, e))
        .chain(s.archival.iter().map(|e| Item::of(Scope::Archival, e)))
        .collect()
}

/// The moment's entries corrected by a commit made at `c` (at or before the moment), with the
/// number of changes made by hand that it revealed. What the commit held and the reconstruction
/// of `c` lacks was removed (or changed) by hand after `c`; what the reconstruction of `c` holds
/// and the commit lacks was added (or changed) by hand after `c`. No later commit says whether
/// that was before the moment, so both are taken back at the moment too.
pub fn corrected(at_t: Vec<Item>, at_c: &[Item], committed: &[Item]) -> (Vec<Item>, usize) {
    use std::collections::HashMap;
    // In order of first appearance, so that equal times keep a stable order.
    let mut slot: HashMap<&Item, usize> = HashMap::new();
    let mut counts: Vec<(&Item, i64)> = Vec::new();
    for (i, d) in committed
        .iter()
        .map(|i| (i, 1))
        .chain(at_c.iter().map(|i| (i, -1)))
    {
        let k = *slot.entry(i).or_insert_with(|| {
            counts.push((i, 0));
            counts.len() - 1
        });
        counts[k].1 += d;
    }
    let mut items = at_t;
    let mut revealed = 0;
    for (item, n) in counts {
        for _ in 0..n.unsigned_abs() {
            revealed += 1;
            if n > 0 {
                items.push(item.clone());
            } else if let Some(k) = items.iter().rposition(|x| x == item) {
                items.remove(k);
            }
        }
    }
    items.sort_by_key(|x| (x.scope != Scope::Core, x.timestamp));
    (items, revealed)
}

/// What a commit of the root told about changes made by hand.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HandChanges {
    pub commit: String,
    pub at: NaiveDateTime,
    /// Entries added, removed or changed by hand since the commit, taken back at the moment.
    pub count: usize,
}

/// [`as_of`] for a MEMORY.md, corrected by the root's git history where it has one: `None`
/// when there is nothing to correct (no repository, no commit by then, or the file was not
/// written after the moment, so it holds what it held then).
pub fn as_of_file(
    root: &std::path::Path,
    file: &std::path::Path,
    now: &Sections,
    history: &[Listed],
    t: NaiveDateTime,
) -> crate::error::Result<(Vec<Item>, Option<HandChanges>)> {
    let items = as_of(now, history, t);
    let Some(c) = super::git::before_later_writes(root, file, t)? else {
        return Ok((items, None));
    };
    let at_c = as_of(now, history, c.at);
    let (items, count) = corrected(items, &at_c, &items_of(&c.bytes));
    Ok((
        items,
        Some(HandChanges {
            commit: c.commit,
            at: c.at,
            count,
        }),
    ))
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Changed {
    pub before: Item,
    pub after: Item,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Diff {
    pub added: Vec<Item>,
    pub removed: Vec<Item>,
    /// The same entry (section and time) with other content, or moved between sections.
    pub changed: Vec<Changed>,
}

pub fn diff(from: &[Item], to: &[Item]) -> Diff {
    let mut left: Vec<Option<&Item>> = from.iter().map(Some).collect();
    let mut added: Vec<&Item> = Vec::new();
    for x in to {
        match left.iter().position(|l| *l == Some(x)) {
            Some(i) => left[i] = None,
            None => added.push(x),
        }
    }
    let mut removed: Vec<&Item> = left.into_iter().flatten().collect();
    let mut out = Diff::default();
    for a in added {
        let pair = a.timestamp.and_then(|ts| {
            removed.iter().position(|r| {
                r.timestamp == Some(ts) && (r.scope != a.scope || r.content != a.content)
            })
        });
        match pair {
            Some(i) => out.changed.push(Changed {
                before: removed.remove(i).clone(),
                after: a.clone(),
            }),
            None => out.added.push(a.clone()),
        }
    }
    out.removed = removed.into_iter().cloned().collect();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::curation::{Action, Target};
    use crate::memory::{LongTermMemoryStore, MarkdownMemoryStore, MemoryService};
    use crate::names::Owner;
    use std::sync::Arc;

    #[test]
    fn as_of_equals_the_file_kept_at_that_moment() {
        let dir = tempfile::tempdir().unwrap();
        let store: Arc<dyn LongTermMemoryStore> = Arc::new(MarkdownMemoryStore::new(dir.path()));
        let svc = MemoryService::new(store.clone(), 4000);
        let o = Owner::Global;
        let t = |s: &str| parse_entry_ts(s);
        store
            .append(&o, Scope::Core, "用户叫小林", t("2026-01-01 09:00:00"))
            .unwrap();
        store
            .append(&o, Scope::Archival, "第一条", t("2026-01-02 09:00:00"))
            .unwrap();
        store
            .append(&o, Scope::Archival, "第二条", t("2026-01-03 09:00:00"))
            .unwrap();
        // The moment (entry times have whole seconds; the history has milliseconds, and every
        // change below is made after it).
        let then = (crate::timefmt::now_local() - chrono::Duration::seconds(1))
            .with_nanosecond(0)
            .unwrap();
        let kept = store.load_all(&o).unwrap();
        // Afterwards: an edit, a delete, a move and an append (stamped after the moment).
        let all = store.load_all(&o).unwrap();
        let id = |s: Scope, i: usize| all.id(s, i).unwrap();
        svc.change(
            &o,
            &[Target {
                id: id(Scope::Archival, 0),
                expect: Some("第一条".into()),
            }],
            &Action::Edit {
                content: "第一条（改）".into(),
                restamp: false,
            },
        )
        .unwrap();
        let all = store.load_all(&o).unwrap();
        svc.change(
            &o,
            &[Target {
                id: all.id(Scope::Archival, 1).unwrap(),
                expect: Some("第二条".into()),
            }],
            &Action::Delete,
        )
        .unwrap();
        let all = store.load_all(&o).unwrap();
        svc.change(
            &o,
            &[Target {
                id: all.id(Scope::Core, 0).unwrap(),
                expect: Some("用户叫小林".into()),
            }],
            &Action::Move(Scope::Archival),
        )
        .unwrap();
        store
            .append(
                &o,
                Scope::Archival,
                "之后的",
                Some(then + chrono::Duration::seconds(1)),
            )
            .unwrap();
        let now = store.load_all(&o).unwrap();
        let history = svc.history(&o, None).unwrap().changes;
        let got = as_of(&now, &history, then);
        let want: Vec<Item> = kept
            .core
            .iter()
            .map(|e| Item::of(Scope::Core, e))
            .chain(kept.archival.iter().map(|e| Item::of(Scope::Archival, e)))
            .collect();
        assert_eq!(got, want);
        let today = as_of(
            &now,
            &history,
            crate::timefmt::now_local() + chrono::Duration::seconds(1),
        );
        let d = diff(&got, &today);
        assert_eq!(d.removed.len(), 1, "{d:?}");
        assert_eq!(d.removed[0].content, "第二条");
        assert_eq!(d.added.len(), 1);
        assert_eq!(d.added[0].content, "之后的");
        assert_eq!(d.changed.len(), 2, "{d:?}");
    }
}
