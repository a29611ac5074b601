//! Poisoned-entry findings weighed by where their entries came from. The checks score an
//! entry's words alone; here the few entries found are looked up once ([`provenance`]) and
//! the score raised when the text came through a tool call or a turn of a session from an
//! outside channel (nobody at the console or the terminal saw it written), lowered when a
//! person typed it in the console. The weighed findings come strongest first; those left
//! below the report line (a person's preference typed in the console) are not shown.

use oryx_core::memory::health::{Check, POISONING_REPORT_FROM};
use oryx_core::names::Owner;
use oryx_core::provenance::{self, Provenance, Source};

use crate::error::ApiResult;
use crate::health::FindingDto;
use crate::services::Services;

/// Entries looked up at most: past this many findings (a file full of them) the rest keep
/// their text's score and say `unchecked`.
const MAX_LOOKUPS: usize = 200;

/// Channels a person at the machine writes through: the runtime's terminal (`cli`) and its
/// own admin console's chat (`admin`). Others — the web API (`web`), the scheduler
/// (`scheduler`, no person at all), any later channel — bring text from outside.
const LOCAL_CHANNELS: &[&str] = &["cli", "admin"];

/// What the origin adds to the text's score.
const OUTSIDE_TOOL_CALL: i32 = 30;
const OUTSIDE_TURN: i32 = 20;
const TYPED_IN_CONSOLE: i32 = -30;

/// The weight at or above which a finding is `high`, then `medium`; below, `low`.
const HIGH: i32 = 70;
const MEDIUM: i32 = 45;

/// Where an entry came from, as the weighing sees it.
struct Origin {
    /// `save_memory`, `footprint`, `console`, `summary`, `unknown`, `unchecked`.
    name: &'static str,
    channel: Option<String>,
    session_id: Option<String>,
    delta: i32,
    /// The English words the reason ends with.
    said: String,
}

/// Weighs the poisoning findings among `found` in place: params `weight`, `level`, `origin`
/// (and `channel`, `session_id` when known), the reason completed; drops those below the
/// report line and sorts the rest strongest first (the other findings keep their places).
pub(crate) fn weigh(rt: &Services, owner: &Owner, found: &mut Vec<FindingDto>) -> ApiResult<()> {
    let check = Check::Poisoning.as_str();
    let slots: Vec<usize> = (0..found.len())
        .filter(|&i| found[i].check == check)
        .collect();
    if slots.is_empty() {
        return Ok(());
    }
    let ids: Vec<&str> = slots
        .iter()
        .take(MAX_LOOKUPS)
        .map(|&i| found[i].entry_ids.first().map_or("", |id| id.as_str()))
        .collect();
    let looked = provenance::of_entries(&rt.memory, &rt.sessions, owner, &ids)?;
    let mut origins = looked.into_iter().map(|p| origin(rt, p.as_ref()));
    let mut weighed: Vec<(i32, FindingDto)> = Vec::with_capacity(slots.len());
    for &i in &slots {
        let mut f = found[i].clone();
        let score: i32 = f
            .params
            .get("score")
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        let o = origins.next().unwrap_or_else(unchecked);
        let weight = (score + o.delta).clamp(0, 100);
        let level = match weight {
            w if w >= HIGH => "high",
            w if w >= MEDIUM => "medium",
            _ => "low",
        };
        f.params.insert("weight".into(), weight.to_string());
        f.params.insert("level".into(), level.into());
        f.params.insert("origin".into(), o.name.into());
        if o.delta > 0 {
            f.params.insert("outside".into(), "true".into());
        }
        if let Some(c) = o.channel {
            f.params.insert("channel".into(), c);
        }
        if let Some(s) = o.session_id {
            f.params.insert("session_id".into(), s);
        }
        f.reason = format!("{} ({level}, weight {weight}: {})", f.reason, o.said);
        weighed.push((weight, f));
    }
    // Strongest first; equal weights in the order of the entries.
    weighed.sort_by_key(|(w, _)| std::cmp::Reverse(*w));
    let mut kept = weighed
        .into_iter()
        .filter(|(w, _)| *w >= POISONING_REPORT_FROM as i32)
        .map(|(_, f)| f);
    // The weighed findings take the places the poisoning findings had, in their new order.
    let mut out = Vec::with_capacity(found.len());
    for (i, f) in std::mem::take(found).into_iter().enumerate() {
        if slots.binary_search(&i).is_ok() {
            out.extend(kept.next());
        } else {
            out.push(f);
        }
    }
    *found = out;
    Ok(())
}

fn unchecked() -> Origin {
    Origin {
        name: "unchecked",
        channel: None,
        session_id: None,
        delta: 0,
        said: "origin not looked up".into(),
    }
}

/// The channel a session came in through: its row's, or the first part of its id
/// (`channel:user:agent`, how the runtime makes ids) when the row is gone.
fn channel_of(rt: &Services, session_id: &str) -> Option<String> {
    match rt.sessions.get(session_id) {
        Ok(s) => s.summary.channel,
        Err(_) => session_id
            .split(':')
            .next()
            .filter(|c| !c.is_empty())
            .map(str::to_string),
    }
}

fn is_outside(channel: Option<&str>) -> bool {
    !channel.is_some_and(|c| LOCAL_CHANNELS.contains(&c))
}

fn origin(rt: &Services, p: Option<&Provenance>) -> Origin {
    let Some(p) = p else {
        return Origin {
            name: "unknown",
            channel: None,
            session_id: None,
            delta: 0,
            said: "the entry changed since it was checked".into(),
        };
    };
    // A console change that only moved or restored the text: where it had come from counts.
    if p.source == Source::Console && p.change_op.as_deref() != Some("edit") {
        if let Some(e) = &p.earlier {
            return origin(rt, Some(e));
        }
    }
    if p.source == Source::Console
        && matches!(p.change_op.as_deref(), Some("summarize" | "auto_summary"))
    {
        return Origin {
            name: "summary",
            channel: None,
            session_id: None,
            delta: 0,
            said: "a summary the console wrote".into(),
        };
    }
    let session = p.session_id.clone();
    let channel = session.as_deref().and_then(|s| channel_of(rt, s));
    let outside = is_outside(channel.as_deref());
    let via = |what: &str| match &channel {
        Some(c) => format!("{what} in a session of the {c} channel"),
        None => what.to_string(),
    };
    let (name, delta, said) = match p.source {
        Source::SaveMemory if outside => (
            "save_memory",
            OUTSIDE_TOOL_CALL,
            via("written by a save_memory tool call") + ", from outside",
        ),
        Source::SaveMemory => ("save_memory", 0, via("written by a save_memory tool call")),
        Source::Footprint if outside => (
            "footprint",
            OUTSIDE_TURN,
            via("the footprint of a turn") + ", from outside",
        ),
        Source::Footprint => ("footprint", 0, via("the footprint of a turn")),
        Source::Console => (
            "console",
            TYPED_IN_CONSOLE,
            "typed by a person in the console".to_string(),
        ),
        Source::Summary => ("summary", 0, "a summary the console wrote".to_string()),
        Source::Unknown => ("unknown", 0, "no record of who wrote it".to_string()),
    };
    Origin {
        name,
        channel,
        session_id: session,
        delta,
        said,
    }
}
