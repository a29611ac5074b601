//! The archival window: which archival entries reach the prompt. Truncation is a view; nothing
//! is removed from storage. Which rule cuts depends on who reads the memory: a bare `.oryxos`
//! root keeps the console's own rule (the newest whole entries that fit in a number of
//! characters); a root the OryxOS runtime reads gets the runtime's rule for its backend (the
//! markdown store keeps the last 4000 UTF-16 code units of the archival text, cutting inside an
//! entry if need be; the sqlite and mem0 stores keep the newest 100 archival entries).

use serde::Serialize;

use super::entry::Entry;
use super::store::Backend;

pub const DEFAULT_ARCHIVAL_LIMIT: usize = 4000;
/// The runtime's markdown store keeps this many UTF-16 code units of the archival section.
pub const RUNTIME_ARCHIVAL_UNITS: usize = 4000;
/// The runtime's sqlite and mem0 stores keep this many of the newest archival entries.
pub const RUNTIME_ARCHIVAL_ROWS: usize = 100;
const CUT_MARK: char = '…';
/// What stands for half of a surrogate pair that the runtime's cut leaves at the window's start:
/// a Rust string cannot hold it, and an encoder cannot write it as UTF-8 either.
pub const LONE_SURROGATE: char = '\u{FFFD}';

/// How the archival window is cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum WindowRule {
    /// The newest whole entries whose lines, joined by `\n`, fit in `limit` characters (a newest
    /// entry longer than that alone is cut from its start and marked).
    WholeEntries { limit: usize },
    /// The last `units` UTF-16 code units of the archival lines joined by `\n`: the oldest entry
    /// reached may be cut anywhere, even inside a surrogate pair.
    TailUnits { units: usize },
    /// The newest `rows` archival entries, whole.
    NewestRows { rows: usize },
}

impl WindowRule {
    /// The rule in force: the runtime's own for `backend` when the runtime reads this memory,
    /// else the console's with `archival_limit` characters.
    pub fn select(backend: Backend, runtime_windows: bool, archival_limit: usize) -> WindowRule {
        match (runtime_windows, backend) {
            (false, _) => WindowRule::WholeEntries {
                limit: archival_limit,
            },
            (true, Backend::Markdown) => WindowRule::TailUnits {
                units: RUNTIME_ARCHIVAL_UNITS,
            },
            (true, Backend::Sqlite | Backend::Mem0) => WindowRule::NewestRows {
                rows: RUNTIME_ARCHIVAL_ROWS,
            },
        }
    }

    /// The rule's number: characters, code units or entries.
    pub fn limit(&self) -> usize {
        match *self {
            WindowRule::WholeEntries { limit } => limit,
            WindowRule::TailUnits { units } => units,
            WindowRule::NewestRows { rows } => rows,
        }
    }

    pub fn kind(&self) -> &'static str {
        match self {
            WindowRule::WholeEntries { .. } => "wholeEntries",
            WindowRule::TailUnits { .. } => "tailUnits",
            WindowRule::NewestRows { .. } => "newestRows",
        }
    }

    /// How much a store's prompt load must read from the newest end to cover the window:
    /// characters for the first two rules (a line has at least as many UTF-16 units as
    /// characters, so newest entries of more than `n` characters cover `n` units), entries for
    /// the last.
    pub fn reach(&self) -> usize {
        self.limit()
    }
}

/// A bare number is the console's own rule with that many characters.
impl From<usize> for WindowRule {
    fn from(limit: usize) -> WindowRule {
        WindowRule::WholeEntries { limit }
    }
}

/// An entry the window reaches only in part.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Partial {
    /// Its index (it is `first_in_window`).
    pub index: usize,
    /// The end of its line that reaches the prompt.
    pub kept: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Window {
    /// Index of the oldest entry inside the window, whole or in part; `entries.len()` when the
    /// window is empty.
    pub first_in_window: usize,
    /// One past the newest entry inside the window: `entries.len()`, except where the
    /// runtime's archival text ends before the console's archival entries do (a second
    /// archival heading ends it for the runtime).
    pub end_in_window: usize,
    /// The windowed archival text exactly as injected into the prompt.
    pub text: String,
    /// The newest entry alone exceeded the console's limit and was cut from its start.
    pub newest_cut: bool,
    /// The oldest entry reached, when only its end is in.
    pub partial: Option<Partial>,
}

impl Window {
    pub fn is_in_window(&self, index: usize) -> bool {
        index >= self.first_in_window && index < self.end_in_window
    }

    /// The same window over a list that holds `offset` more entries before these.
    pub fn shifted(mut self, offset: usize) -> Window {
        self.first_in_window += offset;
        self.end_in_window += offset;
        if let Some(p) = &mut self.partial {
            p.index += offset;
        }
        self
    }
}

/// The archival section as the runtime reads it (raw text, see
/// `memory/markdown/runtime_text.rs`) and where the console's archival entries stand in it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RawArchival {
    /// The stripped section text, or an end of it holding more than the window.
    pub text: String,
    /// For each of the console's archival entries: the byte range of its line (trimmed) in
    /// `text`; `None` for an entry outside the runtime's section (or before `text`).
    pub spans: Vec<Option<std::ops::Range<usize>>>,
}

/// The runtime's markdown window over raw text: its last `units` UTF-16 units, and which of
/// the console's entries reach into it, whole or in part.
pub fn cut_raw(raw: &RawArchival, units: usize) -> Window {
    let text = last_units(&raw.text, units);
    let lone = text.starts_with(LONE_SURROGATE) && !raw.text.ends_with(text.as_str());
    let body = if lone {
        &text[LONE_SURROGATE.len_utf8()..]
    } else {
        &text[..]
    };
    // Where the kept text starts in `raw.text`, and where the character it cuts starts.
    let kept_at = raw.text.len() - body.len();
    let cut_at = if lone {
        raw.text[..kept_at]
            .char_indices()
            .next_back()
            .map_or(0, |(i, _)| i)
    } else {
        kept_at
    };
    let inside: Vec<usize> = raw
        .spans
        .iter()
        .enumerate()
        .filter_map(|(i, s)| s.as_ref().filter(|s| s.end > cut_at).map(|_| i))
        .collect();
    let n = raw.spans.len();
    let (first, end) = match (inside.first(), inside.last()) {
        (Some(&f), Some(&l)) => (f, l + 1),
        _ => (n, n),
    };
    let partial = inside.first().and_then(|&i| {
        let span = raw.spans[i].clone()?;
        (span.start < kept_at || (lone && span.start <= cut_at)).then(|| {
            let mut kept = String::new();
            if lone {
                kept.push(LONE_SURROGATE);
            }
            kept.push_str(&raw.text[kept_at.max(span.start)..span.end]);
            Partial { index: i, kept }
        })
    });
    Window {
        first_in_window: first,
        end_in_window: end,
        text,
        newest_cut: false,
        partial,
    }
}

/// The window `rule` cuts from `entries` (oldest first).
pub fn apply(entries: &[Entry], rule: WindowRule) -> Window {
    match rule {
        WindowRule::WholeEntries { limit } => compute(entries, limit),
        WindowRule::TailUnits { units } => tail_units(entries, units),
        WindowRule::NewestRows { rows } => {
            let first = entries.len().saturating_sub(rows);
            Window {
                first_in_window: first,
                end_in_window: entries.len(),
                text: join_lines(&entries[first..]),
                newest_cut: false,
                partial: None,
            }
        }
    }
}

fn join_lines(entries: &[Entry]) -> String {
    entries
        .iter()
        .map(|e| e.line.as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

fn units_of(s: &str) -> usize {
    s.chars().map(char::len_utf16).sum()
}

/// The last `units` UTF-16 units of the lines joined by `\n`, as the runtime's
/// `substring(length - units)` takes them.
fn tail_units(entries: &[Entry], units: usize) -> Window {
    // Units of the newer entries and the breaks after each older one.
    let mut after = 0usize;
    let mut first = entries.len();
    for (i, e) in entries.iter().enumerate().rev() {
        let join = usize::from(i + 1 < entries.len());
        let cost = units_of(&e.line) + join;
        if after + cost > units {
            // `left` units reach back past the newer entries: the break after this entry
            // first, then the end of its line.
            let left = units - after;
            let rest = join_lines(&entries[i + 1..]);
            if left <= join {
                let text = if left == 1 { format!("\n{rest}") } else { rest };
                return Window {
                    first_in_window: i + 1,
                    end_in_window: entries.len(),
                    text,
                    newest_cut: false,
                    partial: None,
                };
            }
            let kept = last_units(&e.line, left - join);
            let text = if join == 1 {
                format!("{kept}\n{rest}")
            } else {
                kept.clone()
            };
            return Window {
                first_in_window: i,
                end_in_window: entries.len(),
                text,
                newest_cut: false,
                partial: Some(Partial { index: i, kept }),
            };
        }
        after += cost;
        first = i;
    }
    Window {
        first_in_window: first.min(entries.len()),
        end_in_window: entries.len(),
        text: join_lines(entries),
        newest_cut: false,
        partial: None,
    }
}

/// The last `n` UTF-16 units of `s`; half of a surrogate pair at the start is [`LONE_SURROGATE`].
pub fn last_units(s: &str, n: usize) -> String {
    let mut taken = 0usize;
    let mut start = s.len();
    let mut lone = false;
    for (at, c) in s.char_indices().rev() {
        let u = c.len_utf16();
        if taken + u > n {
            lone = taken < n;
            break;
        }
        taken += u;
        start = at;
    }
    let mut out = String::with_capacity(s.len() - start + 3);
    if lone {
        out.push(LONE_SURROGATE);
    }
    out.push_str(&s[start..]);
    out
}

pub fn compute(entries: &[Entry], limit: usize) -> Window {
    let mut used = 0usize;
    let mut first = entries.len();
    for (i, e) in entries.iter().enumerate().rev() {
        let join = usize::from(first != entries.len());
        let cost = e.line_chars() + join;
        if used + cost > limit {
            break;
        }
        used += cost;
        first = i;
    }
    if first == entries.len() {
        if let Some(newest) = entries.last().filter(|_| limit > 0) {
            let text = cut_from_start(&newest.line, limit);
            let kept = text.strip_prefix(CUT_MARK).unwrap_or(&text).to_string();
            return Window {
                first_in_window: entries.len() - 1,
                end_in_window: entries.len(),
                text,
                newest_cut: true,
                partial: Some(Partial {
                    index: entries.len() - 1,
                    kept,
                }),
            };
        }
    }
    let text = entries[first..]
        .iter()
        .map(|e| e.line.as_str())
        .collect::<Vec<_>>()
        .join("\n");
    Window {
        first_in_window: first,
        end_in_window: entries.len(),
        text,
        newest_cut: false,
        partial: None,
    }
}

/// How far back the window reached at the end of each day that has entries: for each day, the
/// window over the entries up to that day's last one, and the days between that entry and the
/// oldest one inside. `entries` in file (time) order; undated entries count for the window but
/// start no day. One pass: both ends only move forward.
pub fn reach_back_by_day(entries: &[Entry], limit: usize) -> Vec<(chrono::NaiveDate, f64)> {
    reach_back_by_day_under(entries, WindowRule::WholeEntries { limit })
}

/// [`reach_back_by_day`] under any rule; an entry partly in counts as reached.
pub fn reach_back_by_day_under(
    entries: &[Entry],
    rule: WindowRule,
) -> Vec<(chrono::NaiveDate, f64)> {
    let size = |e: &Entry| match rule {
        WindowRule::TailUnits { .. } => units_of(&e.line),
        _ => e.line_chars(),
    };
    let mut out: Vec<(chrono::NaiveDate, f64)> = Vec::new();
    let mut first = 0usize;
    let mut used = 0usize;
    for (k, e) in entries.iter().enumerate() {
        used += size(e) + usize::from(k > first);
        match rule {
            WindowRule::WholeEntries { limit } => {
                while used > limit && first < k {
                    used -= size(&entries[first]) + 1;
                    first += 1;
                }
            }
            // The oldest entry is reached while the newer ones and its break leave it a unit.
            WindowRule::TailUnits { units } => {
                while first < k && used - size(&entries[first]) >= units {
                    used -= size(&entries[first]) + 1;
                    first += 1;
                }
            }
            WindowRule::NewestRows { rows } => {
                first = first.max((k + 1).saturating_sub(rows));
            }
        }
        let Some(t) = e.timestamp else { continue };
        let last_of_day = entries[k + 1..]
            .iter()
            .find_map(|n| n.timestamp)
            .is_none_or(|n| n.date() != t.date());
        if !last_of_day {
            continue;
        }
        let oldest = entries[first..=k]
            .iter()
            .find_map(|x| x.timestamp)
            .unwrap_or(t);
        let days = (t - oldest).num_seconds().max(0) as f64 / 86_400.0;
        out.push((t.date(), (days * 100.0).round() / 100.0));
    }
    out
}

/// Keeps the last `limit - 1` characters and marks the cut, so the result is `limit` characters.
fn cut_from_start(line: &str, limit: usize) -> String {
    let total = line.chars().count();
    let keep = limit.saturating_sub(1);
    let skip = total.saturating_sub(keep);
    let mut out = String::with_capacity(keep * 4 + 3);
    out.push(CUT_MARK);
    out.extend(line.chars().skip(skip));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(s: &str) -> Entry {
        Entry {
            timestamp: None,
            content: s.into(),
            line: s.into(),
        }
    }

    #[test]
    fn reach_back_by_day_agrees_with_the_window_of_each_day() {
        let start = crate::timefmt::parse_entry_ts("2026-03-01 08:00:00").unwrap();
        // Entries of varying length, 0–3 a day, some undated; several limits.
        let mut entries = Vec::new();
        for i in 0..200u32 {
            let at = start + chrono::Duration::hours(i64::from(i * 7 % 13 + i * 9));
            let content = "x".repeat((i as usize * 37) % 90 + 1);
            entries.push(Entry::new((i % 17 != 5).then_some(at), content));
        }
        for limit in [50, 400, 4000] {
            let series = reach_back_by_day(&entries, limit);
            assert!(!series.is_empty());
            for (day, days) in &series {
                let k = entries
                    .iter()
                    .rposition(|e| e.timestamp.is_some_and(|t| t.date() == *day))
                    .unwrap();
                let w = compute(&entries[..=k], limit);
                let newest = entries[k].timestamp.unwrap();
                let oldest = entries[w.first_in_window..=k]
                    .iter()
                    .find_map(|e| e.timestamp)
                    .unwrap();
                let want =
                    ((newest - oldest).num_seconds() as f64 / 86_400.0 * 100.0).round() / 100.0;
                assert_eq!(*days, want, "limit {limit}, {day}");
            }
        }
    }

    #[test]
    fn keeps_the_newest_entries_that_fit() {
        let entries = vec![e("aaaa"), e("bbbb"), e("cccc")];
        // "bbbb\ncccc" is 9 characters.
        let w = compute(&entries, 9);
        assert_eq!(w.first_in_window, 1);
        assert_eq!(w.text, "bbbb\ncccc");
        let w = compute(&entries, 8);
        assert_eq!(w.first_in_window, 2);
        assert_eq!(w.text, "cccc");
        let w = compute(&entries, 14);
        assert_eq!(w.first_in_window, 0);
    }

    #[test]
    fn counts_unicode_scalars_not_bytes() {
        let entries = vec![e("记忆记忆"), e("归档归档")];
        let w = compute(&entries, 9);
        assert_eq!(w.first_in_window, 0);
        assert_eq!(w.text.chars().count(), 9);
        assert_eq!(compute(&entries, 8).first_in_window, 1);
    }

    #[test]
    fn a_newest_entry_longer_than_the_limit_is_cut_from_its_start() {
        let entries = vec![e("old"), e("0123456789")];
        let w = compute(&entries, 5);
        assert!(w.newest_cut);
        assert_eq!(w.text, "…6789");
        assert_eq!(w.text.chars().count(), 5);
        assert_eq!(w.first_in_window, 1);
    }

    #[test]
    fn tail_units_cut_inside_an_entry_and_a_surrogate_pair() {
        let entries = vec![e("aaaa"), e("b😀cd"), e("eeee")];
        // "b😀cd\neeee" is 10 units: all of the second entry and its break.
        let w = apply(&entries, WindowRule::TailUnits { units: 10 });
        assert_eq!((w.first_in_window, w.partial.as_ref()), (1, None));
        assert_eq!(w.text, "b😀cd\neeee");
        // 8 units reach the low half of the emoji.
        let w = apply(&entries, WindowRule::TailUnits { units: 8 });
        assert_eq!(w.text, "\u{FFFD}cd\neeee");
        assert_eq!(w.partial.unwrap().kept, "\u{FFFD}cd");
        // 5 units: only the break after the second entry.
        let w = apply(&entries, WindowRule::TailUnits { units: 5 });
        assert_eq!((w.first_in_window, w.text.as_str()), (2, "\neeee"));
        let w = apply(&entries, WindowRule::TailUnits { units: 3 });
        assert_eq!(w.text, "eee");
        assert_eq!(w.partial.unwrap().index, 2);
        let w = apply(&entries, WindowRule::TailUnits { units: 100 });
        assert_eq!((w.first_in_window, w.partial), (0, None));
    }

    #[test]
    fn the_raw_cut_says_which_entries_reach_in() {
        // Three entries, a blank line and a foreign heading between, and one out of reach.
        let text = "- aaaa  \n\n- b😀cd\n## Notes\n- eeee";
        let at = |s: &str| text.find(s).map(|i| i..i + s.len());
        let raw = RawArchival {
            text: text.into(),
            spans: vec![at("- aaaa"), at("- b😀cd"), at("- eeee"), None],
        };
        let w = cut_raw(&raw, 100);
        assert_eq!(
            (w.first_in_window, w.end_in_window, w.partial),
            (0, 3, None)
        );
        assert_eq!(w.text, text);
        // 19 units reach the low half of the emoji.
        let w = cut_raw(&raw, 19);
        assert_eq!(w.text, "\u{FFFD}cd\n## Notes\n- eeee");
        assert_eq!((w.first_in_window, w.end_in_window), (1, 3));
        assert_eq!(w.partial.unwrap().kept, "\u{FFFD}cd");
        // Trailing spaces after an entry reach in without it.
        let w = cut_raw(&raw, text.encode_utf16().count() - 6);
        assert!(!w.is_in_window(0) && !w.is_in_window(3));
        assert_eq!((w.first_in_window, w.partial), (1, None));
    }

    #[test]
    fn newest_rows() {
        let entries = vec![e("a"), e("b"), e("c")];
        let w = apply(&entries, WindowRule::NewestRows { rows: 2 });
        assert_eq!((w.first_in_window, w.text.as_str()), (1, "b\nc"));
        assert_eq!(
            apply(&entries, WindowRule::NewestRows { rows: 9 }).first_in_window,
            0
        );
    }

    #[test]
    fn reach_back_agrees_with_each_rule() {
        let start = crate::timefmt::parse_entry_ts("2026-03-01 08:00:00").unwrap();
        let mut entries = Vec::new();
        for i in 0..120u32 {
            let at = start + chrono::Duration::hours(i64::from(i * 5));
            entries.push(Entry::new(Some(at), "记😀x".repeat(i as usize % 9 + 1)));
        }
        for rule in [
            WindowRule::TailUnits { units: 60 },
            WindowRule::TailUnits { units: 4000 },
            WindowRule::NewestRows { rows: 7 },
        ] {
            for (day, days) in reach_back_by_day_under(&entries, rule) {
                let k = entries
                    .iter()
                    .rposition(|e| e.timestamp.unwrap().date() == day)
                    .unwrap();
                let w = apply(&entries[..=k], rule);
                let oldest = entries[w.first_in_window].timestamp.unwrap();
                let newest = entries[k].timestamp.unwrap();
                let want =
                    ((newest - oldest).num_seconds() as f64 / 86_400.0 * 100.0).round() / 100.0;
                assert_eq!(days, want, "{rule:?} {day}");
            }
        }
    }

    #[test]
    fn empty() {
        let w = compute(&[], 4000);
        assert_eq!(w.text, "");
        assert_eq!(w.first_in_window, 0);
    }
}
