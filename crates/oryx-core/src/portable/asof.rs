//! Memory as it stood at a moment, and what changed between two moments. Archives only grow,
//! so entries stamped after the moment were not there yet; the console's history takes back
//! the edits, deletes, moves and summaries made since, newest first. Changes made by hand in
//! the file are not known here (a git history of the root would tell; not read yet).

use chrono::{NaiveDateTime, Timelike};
use serde::Serialize;

use crate::memory::curate::EntrySnap;
use crate::memory::history::Listed;
use crate::memory::{Entry, Scope, Sections};
use crate::timefmt::{local_to_epoch_ms, parse_entry_ts};

/// One entry as of a moment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
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
