//! The archival window (CONTRACT §3): the longest run of the newest entries whose lines, joined by
//! `\n`, fit in the limit. Truncation is a view; nothing is removed from storage.

use super::entry::Entry;

pub const DEFAULT_ARCHIVAL_LIMIT: usize = 4000;
const CUT_MARK: char = '…';

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Window {
    /// Index of the oldest entry inside the window; `entries.len()` when the window is empty.
    pub first_in_window: usize,
    /// The windowed archival text exactly as injected into the prompt.
    pub text: String,
    /// The newest entry alone exceeded the limit and was cut from its start.
    pub newest_cut: bool,
}

impl Window {
    pub fn is_in_window(&self, index: usize) -> bool {
        index >= self.first_in_window
    }
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
            return Window {
                first_in_window: entries.len() - 1,
                text: cut_from_start(&newest.line, limit),
                newest_cut: true,
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
        text,
        newest_cut: false,
    }
}

/// How far back the window reached at the end of each day that has entries: for each day, the
/// window over the entries up to that day's last one, and the days between that entry and the
/// oldest one inside. `entries` in file (time) order; undated entries count for the window but
/// start no day. One pass: both ends only move forward.
pub fn reach_back_by_day(entries: &[Entry], limit: usize) -> Vec<(chrono::NaiveDate, f64)> {
    let mut out: Vec<(chrono::NaiveDate, f64)> = Vec::new();
    let mut first = 0usize;
    let mut used = 0usize;
    for (k, e) in entries.iter().enumerate() {
        used += e.line_chars() + usize::from(k > first);
        while used > limit && first < k {
            used -= entries[first].line_chars() + 1;
            first += 1;
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
    fn empty() {
        let w = compute(&[], 4000);
        assert_eq!(w.text, "");
        assert_eq!(w.first_in_window, 0);
    }
}
