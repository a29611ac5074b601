//! The prompt budget: how much of the prompt core takes, how fast core grows, and how far back
//! the archival window reaches.

use serde::Serialize;

use super::options::Options;
use crate::memory::entry::Entry;
use crate::memory::service::{prompt_of, MemoryView};
use crate::memory::store::ContextEntries;
use crate::memory::window::WindowRule;

/// The prompt budget of an owner.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Budget {
    pub prompt_chars: usize,
    pub core_chars: usize,
    /// Core's share of prompt part [2], 0..1.
    pub core_share: f64,
    /// Core entries stamped within the last 30 days.
    pub core_added_30d: usize,
    /// How far back the archival window reaches today, in days (`None`: no stamped entry in it).
    pub window_reach_days: Option<f64>,
}

/// The budget of an owner's view: its prompt, core, and the archival entries in its window.
pub(super) fn budget(v: &MemoryView, opts: &Options) -> Budget {
    let first = v.window.first_in_window.saturating_sub(v.archival_offset);
    let end = v.window.end_in_window.saturating_sub(v.archival_offset);
    let first = first.min(v.archival.len());
    budget_of(
        &v.core,
        &v.context,
        &v.archival[first..end.clamp(first, v.archival.len())],
        opts,
    )
}

/// The budget from the prompt's own load (core and the newest archival entries, see
/// [`crate::memory::LongTermMemoryStore::load_context`]): the same as from the owner's whole view,
/// without reading every entry of a large file into memory.
pub fn budget_from_context(ctx: &ContextEntries, rule: WindowRule, opts: &Options) -> Budget {
    let (w, context) = prompt_of(ctx, rule);
    let n = ctx.archival_tail.len();
    let first = w.first_in_window.min(n);
    let end = w.end_in_window.clamp(first, n);
    budget_of(&ctx.core, &context, &ctx.archival_tail[first..end], opts)
}

/// The budget of a prompt (`context`) made of `core` and the archival entries `in_window`.
fn budget_of(core: &[Entry], context: &str, in_window: &[Entry], opts: &Options) -> Budget {
    let core_chars: usize = core.iter().map(|e| e.line_chars() + 1).sum();
    let prompt_chars = context.chars().count();
    let month = opts.now - chrono::Duration::days(30);
    let oldest_in = in_window.iter().find_map(|e| e.timestamp);
    Budget {
        prompt_chars,
        core_chars,
        core_share: if prompt_chars == 0 {
            0.0
        } else {
            (core_chars as f64 / prompt_chars as f64 * 1000.0).round() / 1000.0
        },
        core_added_30d: core
            .iter()
            .filter(|e| e.timestamp.is_some_and(|t| t >= month))
            .count(),
        window_reach_days: oldest_in
            .map(|t| ((opts.now - t).num_minutes() as f64 / 1440.0 * 10.0).round() / 10.0),
    }
}
