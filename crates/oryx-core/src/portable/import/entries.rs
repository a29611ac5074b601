//! The archive's memory entries: which ones the target lacks, added in time order.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};

use super::report::OwnerImport;
use crate::memory::{Entry, LongTermMemoryStore, Scope, Sections};
use crate::names::Owner;
use crate::portable::{owner_key, EntryLine};
use crate::timefmt::parse_entry_ts;

/// Which entries the target lacks; counts per kind. An entry is present when the target holds
/// the same section, time and (sanitised) content; an entry without a time matches the same
/// section and content at any time (the store stamped it when it was added).
pub(crate) fn plan(archived: &[EntryLine], target: &Sections) -> (Vec<bool>, OwnerImport) {
    let fmt = |e: &Entry| e.timestamp.as_ref().map(crate::timefmt::format_entry_ts);
    // (section, content) → the times the target holds it at, one per entry.
    let mut present: HashMap<(Scope, String), Vec<Option<String>>> = HashMap::new();
    let mut slots: HashMap<(Scope, Option<String>), usize> = HashMap::new();
    for (scope, list) in [
        (Scope::Core, &target.core),
        (Scope::Archival, &target.archival),
    ] {
        for e in list {
            present
                .entry((scope, e.content.clone()))
                .or_default()
                .push(fmt(e));
            *slots.entry((scope, fmt(e))).or_default() += 1;
        }
    }
    let mut r = OwnerImport {
        in_archive: archived.len(),
        ..OwnerImport::default()
    };
    let mut take = Vec::with_capacity(archived.len());
    for e in archived {
        // Content is stored sanitised: compare what the target would hold.
        let content = crate::memory::entry::sanitize_content(&e.content).unwrap_or_default();
        let times = present.get_mut(&(e.scope, content));
        let hit = times.and_then(|t| {
            let i = t
                .iter()
                .position(|x| *x == e.timestamp)
                .or_else(|| (e.timestamp.is_none() && !t.is_empty()).then_some(0))?;
            Some(t.remove(i))
        });
        if hit.is_some() {
            r.present += 1;
            take.push(false);
        } else {
            r.new += 1;
            if e.timestamp.is_some() && slots.contains_key(&(e.scope, e.timestamp.clone())) {
                r.conflicting += 1;
            }
            take.push(true);
        }
    }
    (take, r)
}

/// Adds to `to` the entries `plan` finds missing in `target`, in the given order (oldest first,
/// so a store that appends keeps it); a dry run only counts. `tick` runs once per entry passed.
/// Returns the counts (with the first write error, which stops the owner) and whether `cancel`
/// stopped it.
pub(crate) fn add_planned(
    store: &dyn LongTermMemoryStore,
    to: &Owner,
    entries: &[EntryLine],
    target: &Sections,
    dry_run: bool,
    cancel: &AtomicBool,
    tick: &mut dyn FnMut(),
) -> (OwnerImport, bool) {
    let (take, mut r) = plan(entries, target);
    r.owner = owner_key(to);
    if dry_run {
        return (r, false);
    }
    // `new` ends as what was added, not what was planned (a store that fails part way).
    let planned = r.new;
    r.new = 0;
    for (e, t) in entries.iter().zip(take) {
        if cancel.load(Ordering::Relaxed) {
            return (r, true);
        }
        tick();
        if !t {
            continue;
        }
        let at = e.timestamp.as_deref().and_then(parse_entry_ts);
        let content = match crate::memory::entry::sanitize_content(&e.content) {
            Ok(c) if !c.is_empty() => c,
            _ => continue,
        };
        if let Err(err) = store.append(to, e.scope, &content, at) {
            r.error = Some(format!(
                "stopped after adding {} of {planned} new entries: {err}",
                r.new
            ));
            break;
        }
        r.new += 1;
    }
    (r, false)
}
