//! Summaries before the window cuts (issue #15, the deterministic summariser): archival entries
//! outside the prompt window become one archival entry that keeps more in fewer characters —
//! repeated footprints (`触发「X」⇒ …` with the same request) as one item with a count, a date
//! range and the newest reply; other entries as they are, near duplicates once. The originals
//! stay unless the user removes them too (one undoable change).

use std::collections::HashMap;

use chrono::NaiveDateTime;
use serde::Serialize;

use super::curate::{Request, Step};
use super::curation::Target;
use super::entry::{sanitize_content, Entry, Scope};
use super::history::{new_change_id, Change, Op};
use super::service::{MemoryService, MemoryView};
use crate::error::{CoreError, Result};
use crate::names::Owner;
use crate::timefmt::{format_entry_ts, now_epoch_ms, now_local};

/// A summary the console proposes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Proposal {
    /// The entries it covers (ids), oldest first.
    pub covered: Vec<String>,
    pub from: Option<String>,
    pub to: Option<String>,
    /// The summary entry's content.
    pub content: String,
    /// Characters of the covered entries' lines, and of the summary's line.
    pub chars_before: usize,
    pub chars_after: usize,
}

const REPLY_CHARS: usize = 40;
const SINGLE_CHARS: usize = 80;

fn cut(s: &str, n: usize) -> String {
    let t: String = s.chars().take(n).collect();
    if t.chars().count() < s.chars().count() {
        format!("{t}…")
    } else {
        t
    }
}

fn day(t: &Option<NaiveDateTime>) -> String {
    t.map(|t| t.format("%m-%d").to_string()).unwrap_or_default()
}

/// `触发「X」⇒ Y` → (X, Y).
fn footprint(content: &str) -> Option<(&str, &str)> {
    let rest = content.strip_prefix("触发「")?;
    let (req, reply) = rest.split_once("」⇒")?;
    Some((req, reply.trim()))
}

fn near_key(text: &str) -> String {
    text.chars()
        .filter(|c| c.is_alphabetic())
        .flat_map(char::to_lowercase)
        .collect()
}

/// One line for `entries` (oldest first): what they said, in fewer characters.
pub fn summarise(entries: &[&Entry]) -> String {
    // Items in the order their first entry appears.
    let mut order: Vec<String> = Vec::new();
    let mut groups: HashMap<String, Vec<&Entry>> = HashMap::new();
    for e in entries {
        let key = match footprint(&e.content) {
            Some((req, _)) => format!("f\u{0}{}", near_key(req)),
            None => format!("t\u{0}{}", near_key(&e.content)),
        };
        if !groups.contains_key(&key) {
            order.push(key.clone());
        }
        groups.entry(key).or_default().push(e);
    }
    let mut parts = Vec::with_capacity(order.len());
    for key in &order {
        let g = &groups[key];
        let newest = g[g.len() - 1];
        let range = match (day(&g[0].timestamp), day(&newest.timestamp)) {
            (a, b) if a == b => a,
            (a, b) => format!("{a}～{b}"),
        };
        match footprint(&newest.content) {
            Some((req, reply)) if g.len() > 1 => parts.push(format!(
                "「{}」×{}（{range}，最近：{}）",
                cut(req, 30),
                g.len(),
                cut(reply, REPLY_CHARS)
            )),
            Some((req, reply)) => parts.push(format!(
                "「{}」⇒ {}（{range}）",
                cut(req, 30),
                cut(reply, REPLY_CHARS)
            )),
            None if g.len() > 1 => parts.push(format!(
                "{}（×{}，{range}）",
                cut(&newest.content, SINGLE_CHARS),
                g.len()
            )),
            None => parts.push(format!("{}（{range}）", cut(&newest.content, SINGLE_CHARS))),
        }
    }
    let first = entries.first().and_then(|e| e.timestamp);
    let last = entries.last().and_then(|e| e.timestamp);
    let period = match (first, last) {
        (Some(a), Some(b)) => format!("{}～{}", a.format("%Y-%m-%d"), b.format("%Y-%m-%d")),
        _ => String::new(),
    };
    format!(
        "〔摘要 {period}，{} 条〕{}",
        entries.len(),
        parts.join("；")
    )
}

/// The proposal for an owner's view: the archival entries outside the window.
pub fn propose(view: &MemoryView) -> Option<Proposal> {
    let outside = view
        .window
        .first_in_window
        .saturating_sub(view.archival_offset);
    if outside < 2 || view.paged_reason.is_some() {
        return None;
    }
    let entries: Vec<&Entry> = view.archival[..outside].iter().collect();
    let content = sanitize_content(&summarise(&entries)).ok()?;
    let line = super::entry::render_line(Some(&now_local()), &content);
    Some(Proposal {
        covered: (0..outside)
            .map(|i| view.archival_id(i + view.archival_offset, &view.archival[i]))
            .collect(),
        from: entries[0].timestamp.as_ref().map(format_entry_ts),
        to: entries[entries.len() - 1]
            .timestamp
            .as_ref()
            .map(format_entry_ts),
        chars_before: entries.iter().map(|e| e.line_chars()).sum(),
        chars_after: line.chars().count(),
        content,
    })
}

impl MemoryService {
    /// Appends the summary `content` as one archival entry (now), and with `remove` deletes the
    /// covered entries in the same change: one undo takes it all back.
    pub fn apply_summary(&self, owner: &Owner, content: &str, remove: &[Target]) -> Result<Change> {
        let content = sanitize_content(content)?;
        if content.is_empty() {
            return Err(CoreError::InvalidInput("the summary is empty".into()));
        }
        let mut steps = vec![Step::Insert {
            id: None,
            scope: Scope::Archival,
            timestamp: Some(now_local()),
            content,
            line: None,
            raw: None,
        }];
        for t in remove {
            let expect = t.expect.clone().ok_or_else(|| {
                CoreError::InvalidInput(format!("entry {} is named without its content", t.id))
            })?;
            steps.push(Step::Remove {
                id: t.id.clone(),
                expect,
            });
        }
        self.store().curate(
            owner,
            Request {
                head: Change {
                    id: new_change_id(),
                    at: now_epoch_ms(),
                    op: Op::Summarize,
                    owner: owner.db_key().to_string(),
                    reverts: None,
                    entries: Vec::new(),
                    splices: Vec::new(),
                    pid: std::process::id(),
                    len_after: None,
                },
                steps,
                exact: None,
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn footprints_fold_into_counts_and_ranges() {
        let t = |s: &str| crate::timefmt::parse_entry_ts(s);
        let es = [
            Entry::new(
                t("2026-11-04 09:00:00"),
                "触发「帮我总结今天的日志」⇒ 已总结 3 个错误（第 1 次）",
            ),
            Entry::new(
                t("2026-11-05 09:00:00"),
                "触发「明天上午有什么安排」⇒ 10:00 架构评审",
            ),
            Entry::new(
                t("2026-11-06 09:00:00"),
                "触发「帮我总结今天的日志」⇒ 已总结 5 个错误（第 2 次）",
            ),
            Entry::new(t("2026-11-07 09:00:00"), "用户换了新手机"),
        ];
        let refs: Vec<&Entry> = es.iter().collect();
        let s = summarise(&refs);
        assert_eq!(
            s,
            "〔摘要 2026-11-04～2026-11-07，4 条〕「帮我总结今天的日志」×2（11-04～11-06，最近：已总结 5 个错误（第 2 次））；「明天上午有什么安排」⇒ 10:00 架构评审（11-05）；用户换了新手机（11-07）"
        );
        let before: usize = es.iter().map(Entry::line_chars).sum();
        assert!(s.chars().count() < before);
    }
}
