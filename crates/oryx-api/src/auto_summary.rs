//! The automatic summary mode (off by default): when more than the threshold of an
//! owner's archival entries outside the window are not summarised yet, `propose` turns that
//! into a health finding (and the agents list's badge), and `apply` has the console append the
//! deterministic summary itself — originals kept, recorded as an `auto_summary` change that
//! one undo takes back. It reacts to what the runtime writes (the watcher), never to reads.

use oryx_core::config::AutoSummary;
use oryx_core::memory::history::Op;
use oryx_core::memory::summary;
use oryx_core::memory::Backend;
use oryx_core::names::Owner;
use oryx_core::watch::Change;

use crate::services::Services;

/// Appends the rules' summary for `owner` when the `apply` mode is on and the threshold passed.
/// Returns whether it wrote.
pub(crate) fn apply_if_due(rt: &Services, owner: &Owner) -> bool {
    let s = &rt.settings.summary;
    if s.auto != AutoSummary::Apply {
        return false;
    }
    let Ok(view) = rt.memory.view(owner) else {
        return false;
    };
    if summary::candidates(&view).len() <= s.auto_threshold || taken_back(rt, owner) {
        return false;
    }
    let Some(p) = summary::propose(&view) else {
        return false;
    };
    match rt.memory.apply_summary(owner, &p.content, &[], true) {
        Ok(_) => {
            rt.page_cache.forget(&rt.memory, owner);
            true
        }
        Err(e) => {
            eprintln!("automatic summary of {} failed: {e}", owner.db_key());
            false
        }
    }
}

/// A person undid the newest summary and it was an automatic one: the mode stays quiet for
/// this owner (the health finding still offers it) until a summary is applied by hand.
fn taken_back(rt: &Services, owner: &Owner) -> bool {
    let Ok(h) = rt.memory.history(owner, None) else {
        return true;
    };
    h.changes
        .iter()
        .find(|l| matches!(l.change.op, Op::Summarize | Op::AutoSummary))
        .is_some_and(|l| l.change.op == Op::AutoSummary && h.stacks.undone.contains(&l.change.id))
}

/// The owners the watcher's changes touched, summarised where due.
pub(crate) fn after_changes(rt: &Services, changes: &[Change]) -> Vec<Owner> {
    if rt.settings.summary.auto != AutoSummary::Apply {
        return Vec::new();
    }
    let mut touched: Vec<Owner> = Vec::new();
    for c in changes {
        match c {
            Change::Memory(Some(agent)) if rt.memory.backend() == Backend::Markdown => {
                touched.push(Owner::Agent(agent.clone()))
            }
            Change::Memory(None) if rt.memory.backend() == Backend::Markdown => {
                touched.push(Owner::Global)
            }
            Change::Database if rt.memory.backend() == Backend::Sqlite => {
                touched.extend(crate::recall::owners(rt).unwrap_or_default())
            }
            _ => {}
        }
    }
    touched.dedup();
    touched.retain(|o| apply_if_due(rt, o));
    touched
}
