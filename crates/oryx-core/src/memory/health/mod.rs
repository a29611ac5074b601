//! Memory health: what a reviewer should look at in an owner's entries — secrets,
//! personal data, duplicates, stale time-relative entries, entries that read as instructions
//! to the model — and the prompt budget. Each finding
//! names its entries by id and suggests one curation operation that fixes it (undoable).
//!
//! One pass over the entries, split into parts on the cores ([`parallel`]), runs the checks of
//! each entry ([`per_entry`]: [`secrets`], [`personal_data`], [`stale`] time words,
//! [`poisoning`] signals, their literals found first by [`triggers`]) and makes each entry's duplicate [`keys`]; the keys of
//! all parts are then sorted into [`duplicates`]. The entries are parsed items, an owner's view
//! ([`entries`]) or a MEMORY.md's bytes ([`file`]); the [`budget`] is computed apart.

use super::entry::Scope;
use super::service::MemoryView;

mod budget;
mod duplicates;
mod entries;
mod file;
mod finding;
mod keys;
mod options;
mod parallel;
mod per_entry;
mod personal_data;
pub mod poisoning;
mod secrets;
mod stale;
#[cfg(test)]
mod tests;
mod triggers;

pub use budget::{budget_from_context, Budget};
pub use entries::Item;
pub use finding::{Check, EntryId, Finding, Fix};
pub use options::Options;
pub use poisoning::REPORT_FROM as POISONING_REPORT_FROM;

use budget::budget;
use duplicates::{duplicates, DupSortKeys};
use entries::{Entries, ViewEntries};
use parallel::in_parts;
use per_entry::per_entry;

/// What the checks found: the findings, how many more a person dismissed, and the budget when
/// it was asked for and could be computed.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    pub findings: Vec<Finding>,
    pub dismissed: usize,
    pub budget: Option<Budget>,
}

/// The checks over an owner's view (its core, then the archival entries it holds), the same
/// findings as [`run`] over items made from it, without an id made for every entry first.
pub fn run_view(view: &MemoryView, opts: &Options) -> Report {
    let (findings, dismissed) = run_on(&ViewEntries(view), opts);
    let budget = opts
        .checks
        .contains(&Check::Budget)
        .then(|| budget(view, opts));
    Report {
        findings,
        dismissed,
        budget,
    }
}

/// The checks over entries as items (each with the id findings name it by); the budget from
/// the owner's view when one is given.
pub fn run(items: &[Item<'_>], view: Option<&MemoryView>, opts: &Options) -> Report {
    let (findings, dismissed) = run_on(items, opts);
    let budget = (opts.checks.contains(&Check::Budget))
        .then(|| view.map(|v| budget(v, opts)))
        .flatten();
    Report {
        findings,
        dismissed,
        budget,
    }
}

/// The findings of a MEMORY.md from its bytes, without parsing it into entries first: the
/// same findings, ids included, as [`run`] over the file's parsed sections (ids as the console
/// names MEMORY.md entries), in a fraction of the time on a large file. The budget needs the
/// owner's prompt and is not computed here.
pub fn run_markdown(bytes: &[u8], opts: &Options) -> Report {
    let (findings, dismissed) = match file::FileEntries::read(bytes) {
        Some(entries) => run_on(&entries, opts),
        // Not UTF-8: the parser's lossy reading decides what each entry says.
        None => {
            let sections = super::format::parse(bytes).sections;
            let items: Vec<Item<'_>> = [Scope::Core, Scope::Archival]
                .into_iter()
                .flat_map(|scope| {
                    let list = sections.of(scope);
                    list.iter().enumerate().map(move |(i, e)| Item {
                        id: super::curate::markdown_id(scope, i, &e.line),
                        scope,
                        entry: e,
                    })
                })
                .collect();
            run_on(&items[..], opts)
        }
    };
    Report {
        findings,
        dismissed,
        budget: None,
    }
}

/// Entries a pass over a part of the file takes at a time: each block's texts are read by the
/// per-entry checks, then by the duplicate keys, while they are still in the cache.
const BLOCK: usize = 2048;

/// The findings, and how many more were dismissed.
fn run_on(e: &(impl Entries + ?Sized), opts: &Options) -> (Vec<Finding>, usize) {
    let on = |c: Check| opts.checks.contains(&c);
    let per = [Check::Secrets, Check::Pii, Check::Stale, Check::Poisoning]
        .iter()
        .any(|&c| on(c));
    let dup = on(Check::Duplicates);
    // One pass on every core does both; each part's results kept apart (the keys of ~900 000
    // entries are tens of MB, not gathered into one list before the sorts).
    let parts = in_parts(e.len(), |range| {
        let (mut found, mut hidden, mut keys) = (Vec::new(), 0, DupSortKeys::default());
        if dup {
            keys.exact.reserve(range.len());
            keys.near.reserve(range.len());
        }
        for from in range.clone().step_by(BLOCK) {
            let block = from..(from + BLOCK).min(range.end);
            if per {
                hidden += per_entry(e, block.clone(), opts, &mut found);
            }
            if dup {
                keys.add(e, block);
            }
        }
        (found, hidden, keys)
    });
    let mut out = Vec::with_capacity(parts.iter().map(|p| p.0.len()).sum());
    let (mut hidden, mut keys) = (0, Vec::with_capacity(parts.len()));
    for (found, h, k) in parts {
        out.extend(found);
        hidden += h;
        keys.push(k);
    }
    if dup {
        let (found, h) = duplicates(e, keys, opts);
        out.extend(found);
        hidden += h;
    }
    (out, hidden)
}
