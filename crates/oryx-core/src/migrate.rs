//! Copying memories between backends (CONTRACT §6, "Switching backends"): one implementation for
//! the CLI and the console. Timestamps and order are kept, entries already present are skipped
//! (running twice adds nothing), the source is only read, and progress is reported per entry.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};

use chrono::NaiveDateTime;
use serde::Serialize;

use crate::error::{CoreError, Result};
use crate::memory::{Entry, LongTermMemoryStore, Scope};
use crate::names::Owner;

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct OwnerReport {
    pub owner: String,
    /// Entries in the source.
    pub found: usize,
    /// Entries the target already held before this run.
    pub target_before: usize,
    pub copied: usize,
    pub skipped: usize,
    pub failed: usize,
    pub error: Option<String>,
    /// mem0 lists one page per owner: this owner's count may be short (a full page on either
    /// side), or after the copy the target holds a page or more, which a second count cannot
    /// confirm (and copying again could add what it cannot see).
    pub beyond_listing: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Report {
    pub dry_run: bool,
    pub owners: Vec<OwnerReport>,
    pub cancelled: bool,
}

impl Report {
    pub fn totals(&self) -> OwnerReport {
        let mut t = OwnerReport {
            owner: "total".into(),
            ..OwnerReport::default()
        };
        for o in &self.owners {
            t.found += o.found;
            t.target_before += o.target_before;
            t.copied += o.copied;
            t.skipped += o.skipped;
            t.failed += o.failed;
            t.beyond_listing |= o.beyond_listing;
        }
        t
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Progress {
    pub owner: String,
    /// Entries handled so far over all owners, and how many there are in all.
    pub done: usize,
    pub total: usize,
}

/// Entries with the same scope, content and time are the same memory; an entry without a time
/// (older MEMORY.md lines) matches the same content at any time.
type Key = (Scope, String, Option<NaiveDateTime>);

fn key(scope: Scope, e: &Entry) -> Key {
    (scope, e.content.clone(), e.timestamp)
}

struct Present {
    exact: HashMap<Key, usize>,
    untimed: HashMap<(Scope, String), usize>,
}

impl Present {
    fn of(entries: &[(Scope, Entry)]) -> Present {
        let mut p = Present {
            exact: HashMap::new(),
            untimed: HashMap::new(),
        };
        for (scope, e) in entries {
            *p.exact.entry(key(*scope, e)).or_default() += 1;
            *p.untimed.entry((*scope, e.content.clone())).or_default() += 1;
        }
        p
    }

    /// Consumes one matching target entry, so duplicates in the source are copied as often as
    /// they are missing.
    fn take(&mut self, scope: Scope, e: &Entry) -> bool {
        let untimed_key = (scope, e.content.clone());
        let hit = match e.timestamp {
            Some(_) => take_one(&mut self.exact, &key(scope, e)),
            None => self.untimed.get(&untimed_key).is_some_and(|n| *n > 0),
        };
        if hit {
            take_one(&mut self.untimed, &untimed_key);
        }
        hit
    }
}

fn take_one<K: std::hash::Hash + Eq>(m: &mut HashMap<K, usize>, k: &K) -> bool {
    match m.get_mut(k) {
        Some(n) if *n > 0 => {
            *n -= 1;
            true
        }
        _ => false,
    }
}

fn flatten(s: crate::memory::Sections) -> Vec<(Scope, Entry)> {
    let mut v: Vec<(Scope, Entry)> = s.core.into_iter().map(|e| (Scope::Core, e)).collect();
    v.extend(s.archival.into_iter().map(|e| (Scope::Archival, e)));
    v
}

/// Copies every owner's missing entries from `from` to `to`. A failing owner is reported and
/// the others go on; `cancel` stops between entries (what was copied stays copied).
pub fn migrate(
    from: &dyn LongTermMemoryStore,
    to: &dyn LongTermMemoryStore,
    owners: &[Owner],
    dry_run: bool,
    cancel: &AtomicBool,
    progress: &mut dyn FnMut(&Progress),
) -> Result<Report> {
    if from.backend() == to.backend() {
        return Err(CoreError::InvalidInput(format!(
            "source and target are both {}; choose two different backends",
            from.backend().as_str()
        )));
    }
    let mut plans = Vec::new();
    for owner in owners {
        let loaded = from.load_all(owner).and_then(|src| {
            let dst = to.load_all(owner)?;
            let partial = src.possibly_more || dst.possibly_more;
            Ok((flatten(src), flatten(dst), partial))
        });
        plans.push((owner, loaded));
    }
    let total: usize = plans
        .iter()
        .map(|(_, p)| p.as_ref().map_or(0, |(s, _, _)| s.len()))
        .sum();
    let mut report = Report {
        dry_run,
        ..Report::default()
    };
    let mut done = 0;
    for (owner, plan) in plans {
        let mut r = OwnerReport {
            owner: owner.label(),
            ..OwnerReport::default()
        };
        match plan {
            Err(e) => {
                r.error = Some(e.to_string());
            }
            Ok((source, target, partial)) => {
                r.found = source.len();
                r.target_before = target.len();
                if partial {
                    r.beyond_listing = true;
                    // mem0 has no cursor: a full page may hide more entries on either side.
                    r.error = Some(format!(
                        "mem0 listed {} entries, the most it returns at once: entries beyond them were not compared or copied",
                        crate::memory::mem0::LOAD_LIMIT
                    ));
                }
                let mut present = Present::of(&target);
                // Untimed entries get their predecessor's time so that time order is kept.
                let mut last_ts: Option<NaiveDateTime> = None;
                for (scope, e) in &source {
                    if cancel.load(Ordering::Relaxed) {
                        report.cancelled = true;
                        break;
                    }
                    let at = e.timestamp.or(last_ts);
                    last_ts = at.or(last_ts);
                    if present.take(*scope, e) {
                        r.skipped += 1;
                    } else if dry_run {
                        r.copied += 1;
                    } else {
                        match to.append(owner, *scope, &e.content, at) {
                            Ok(_) => r.copied += 1,
                            Err(err) => {
                                r.failed += 1;
                                r.error.get_or_insert_with(|| err.to_string());
                                // The target is failing (e.g. mem0 went down): stop this
                                // owner rather than fail every remaining entry slowly.
                                r.failed += source.len() - (r.copied + r.skipped + r.failed);
                                done += 1;
                                break;
                            }
                        }
                    }
                    done += 1;
                    progress(&Progress {
                        owner: r.owner.clone(),
                        done,
                        total,
                    });
                }
            }
        }
        let listing = crate::memory::mem0::LOAD_LIMIT;
        r.beyond_listing |= r.error.is_none()
            && to.backend() == crate::memory::Backend::Mem0
            && r.target_before + r.copied >= listing;
        report.owners.push(r);
        if report.cancelled {
            break;
        }
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::{MarkdownMemoryStore, SqliteMemoryStore};

    fn setup() -> (tempfile::TempDir, MarkdownMemoryStore, SqliteMemoryStore) {
        let dir = tempfile::tempdir().unwrap();
        let md = MarkdownMemoryStore::new(dir.path());
        let sql = SqliteMemoryStore::new(dir.path().join("oryxos.db"));
        (dir, md, sql)
    }

    #[test]
    fn copies_once_keeps_times_and_order_and_leaves_the_source() {
        let (dir, md, sql) = setup();
        let a = Owner::Agent("a".into());
        let t = |s: &str| crate::timefmt::parse_entry_ts(s);
        md.append(&a, Scope::Core, "core one", t("2026-01-01 00:00:00"))
            .unwrap();
        md.append(&a, Scope::Archival, "arch one", t("2026-01-02 00:00:00"))
            .unwrap();
        md.append(&a, Scope::Archival, "arch two", t("2026-01-03 00:00:00"))
            .unwrap();
        md.append(&a, Scope::Archival, "arch two", t("2026-01-03 00:00:00"))
            .unwrap();
        let before = std::fs::read(md.path(&a)).unwrap();
        let never = AtomicBool::new(false);
        let owners = [a.clone(), Owner::Global];
        let dry = migrate(&md, &sql, &owners, true, &never, &mut |_| {}).unwrap();
        assert_eq!(dry.totals().copied, 4);
        assert!(
            sql.load_all(&a).unwrap().archival.is_empty(),
            "a dry run writes nothing"
        );
        let mut seen = 0;
        let r = migrate(&md, &sql, &owners, false, &never, &mut |p| seen = p.done).unwrap();
        assert_eq!(
            (r.totals().found, r.totals().copied, r.totals().skipped),
            (4, 4, 0)
        );
        assert_eq!(seen, 4);
        let got = sql.load_all(&a).unwrap();
        let arch: Vec<_> = got
            .archival
            .iter()
            .map(|e| (e.content.as_str(), e.timestamp))
            .collect();
        assert_eq!(
            arch,
            vec![
                ("arch one", t("2026-01-02 00:00:00")),
                ("arch two", t("2026-01-03 00:00:00")),
                ("arch two", t("2026-01-03 00:00:00"))
            ]
        );
        let again = migrate(&md, &sql, &owners, false, &never, &mut |_| {}).unwrap();
        assert_eq!(
            (again.totals().copied, again.totals().skipped),
            (0, 4),
            "running twice adds nothing"
        );
        assert_eq!(
            std::fs::read(md.path(&a)).unwrap(),
            before,
            "the source is untouched"
        );
        drop(dir);
    }

    #[test]
    fn cancel_stops_between_entries() {
        let (_dir, md, sql) = setup();
        let a = Owner::Agent("a".into());
        for i in 0..5 {
            md.append(&a, Scope::Archival, &format!("e{i}"), None)
                .unwrap();
        }
        let cancel = AtomicBool::new(false);
        let r = migrate(
            &md,
            &sql,
            std::slice::from_ref(&a),
            false,
            &cancel,
            &mut |p| {
                if p.done == 2 {
                    cancel.store(true, Ordering::Relaxed);
                }
            },
        )
        .unwrap();
        assert!(r.cancelled);
        assert_eq!(r.owners[0].copied, 2);
        let r = migrate(&md, &sql, &[a], false, &AtomicBool::new(false), &mut |_| {}).unwrap();
        assert_eq!(
            (r.totals().copied, r.totals().skipped),
            (3, 2),
            "re-running completes it"
        );
    }

    /// A source that, like mem0 with a full page, says it may hold more than it listed.
    struct FullPage;

    impl LongTermMemoryStore for FullPage {
        fn backend(&self) -> crate::memory::Backend {
            crate::memory::Backend::Mem0
        }
        fn location(&self, _: &Owner) -> String {
            "a full page".into()
        }
        fn append(&self, _: &Owner, _: Scope, _: &str, _: Option<NaiveDateTime>) -> Result<Entry> {
            unreachable!("a source is only read")
        }
        fn load_all(&self, _: &Owner) -> Result<crate::memory::Sections> {
            Ok(crate::memory::Sections {
                archival: vec![Entry::new(None, "listed")],
                possibly_more: true,
                ..Default::default()
            })
        }
    }

    #[test]
    fn a_full_mem0_page_is_reported_not_hidden() {
        let (_dir, _md, sql) = setup();
        let r = migrate(
            &FullPage,
            &sql,
            &[Owner::Global],
            false,
            &AtomicBool::new(false),
            &mut |_| {},
        )
        .unwrap();
        assert_eq!(r.owners[0].copied, 1);
        assert!(
            r.owners[0].error.as_deref().unwrap().contains("1000"),
            "{:?}",
            r.owners[0]
        );
    }

    #[test]
    fn same_backend_is_refused() {
        let (dir, md, _) = setup();
        let md2 = MarkdownMemoryStore::new(dir.path());
        assert!(migrate(
            &md,
            &md2,
            &[Owner::Global],
            true,
            &AtomicBool::new(false),
            &mut |_| {}
        )
        .is_err());
    }

    /// mem0 as a migration sees it: one page of entries per owner (a fake of this layer's
    /// collaborator; the real service is exercised by the contract tests).
    struct PagedMem0(MarkdownMemoryStore);

    impl LongTermMemoryStore for PagedMem0 {
        fn backend(&self) -> crate::memory::Backend {
            crate::memory::Backend::Mem0
        }
        fn location(&self, owner: &Owner) -> String {
            self.0.location(owner)
        }
        fn append(
            &self,
            owner: &Owner,
            scope: Scope,
            content: &str,
            at: Option<NaiveDateTime>,
        ) -> Result<Entry> {
            self.0.append(owner, scope, content, at)
        }
        fn load_all(&self, owner: &Owner) -> Result<crate::memory::Sections> {
            let mut s = self.0.load_all(owner)?;
            let page = crate::memory::mem0::LOAD_LIMIT;
            s.possibly_more = s.core.len() + s.archival.len() >= page;
            s.archival.truncate(page.saturating_sub(s.core.len()));
            Ok(s)
        }
    }

    #[test]
    fn counts_that_mem0s_one_page_may_cut_short_are_marked() {
        let never = AtomicBool::new(false);
        let a = Owner::Agent("a".into());
        let page = crate::memory::mem0::LOAD_LIMIT;
        let root = |dir: &tempfile::TempDir, name: &str| {
            let r = dir.path().join(name);
            std::fs::create_dir_all(r.join("agents/a")).unwrap();
            MarkdownMemoryStore::new(r)
        };
        let with = |n: usize| {
            let dir = tempfile::tempdir().unwrap();
            let md = root(&dir, "md");
            for i in 0..n {
                md.append(&a, Scope::Archival, &format!("entry {i}"), None)
                    .unwrap();
            }
            (dir, md)
        };
        // Into mem0: a page or more afterwards cannot be confirmed by a second count.
        for (n, marked) in [(page - 1, false), (page, true)] {
            let (dir, md) = with(n);
            let mem0 = PagedMem0(root(&dir, "mem0"));
            let r = migrate(
                &md,
                &mem0,
                std::slice::from_ref(&a),
                false,
                &never,
                &mut |_| {},
            )
            .unwrap();
            assert_eq!(r.owners[0].copied, n);
            assert_eq!(r.owners[0].beyond_listing, marked, "{n} entries into mem0");
            assert_eq!(r.totals().beyond_listing, marked);
        }
        // Out of mem0: a full page may hide more.
        let (dir, md) = with(page);
        let from = PagedMem0(md);
        let to = root(&dir, "to");
        let r = migrate(
            &from,
            &to,
            std::slice::from_ref(&a),
            true,
            &never,
            &mut |_| {},
        )
        .unwrap();
        assert!(r.owners[0].beyond_listing);
        assert!(r.owners[0].error.is_some(), "and it is said");
    }
}
