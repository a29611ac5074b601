//! Summaries before the window cuts (the deterministic summariser): archival entries
//! outside the prompt window become one archival entry that keeps more in fewer characters —
//! repeated footprints (`触发「X」⇒ …` with the same request) as one item with a count, a date
//! range and the newest reply; other entries as they are, near duplicates once. The originals
//! stay unless the user removes them too (one undoable change).

use std::collections::HashMap;

use chrono::NaiveDateTime;
use serde::Serialize;

use super::change::Step;
use super::curation::Target;
use super::entry::{sanitize_content, Entry, Scope};
use super::history::{new_change_id, Change, Op};
use super::near_dup::{link, Groups, Text};
use super::service::{MemoryService, MemoryView};
use super::store::Request;
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

/// `entries` grouped by `key`, and the keys in the order their first entry appears.
fn grouped<'e>(
    entries: &[&'e Entry],
    key: &dyn Fn(&Entry) -> String,
) -> (Vec<String>, HashMap<String, Vec<&'e Entry>>) {
    let mut order: Vec<String> = Vec::new();
    let mut groups: HashMap<String, Vec<&Entry>> = HashMap::new();
    for e in entries {
        let k = key(e);
        if !groups.contains_key(&k) {
            order.push(k.clone());
        }
        groups.entry(k).or_default().push(e);
    }
    (order, groups)
}

/// One line for `entries` (oldest first): what they said, in fewer characters.
pub fn summarise(entries: &[&Entry]) -> String {
    summarise_within(entries, usize::MAX)
}

/// As [`summarise`], at most about `max_chars` long: a summary longer than the window would be
/// cut in the prompt, so when the items do not all fit, the most repeated ones are kept (in
/// their order) and the rest are counted.
pub fn summarise_within(entries: &[&Entry], max_chars: usize) -> String {
    // Items in the order their first entry appears.
    let key_of = |e: &Entry| match footprint(&e.content) {
        Some((req, _)) => format!("f\u{0}{}", near_key(req)),
        None => format!("t\u{0}{}", near_key(&e.content)),
    };
    let (mut order, mut groups) = grouped(entries, &key_of);
    // Entries that say the same in other words (the health check's character n-gram measure)
    // are one item too; footprints are already one item per request.
    let roots: Vec<usize> = {
        let texts: Vec<Text<'_>> = order
            .iter()
            .enumerate()
            .map(|(i, k)| Text {
                space: if k.starts_with('t') { 0 } else { i as u64 + 1 },
                text: &groups[k][groups[k].len() - 1].content,
            })
            .collect();
        let mut links = Groups::new(order.len());
        link(&texts, &mut links);
        (0..order.len()).map(|i| links.find(i)).collect()
    };
    if roots.iter().enumerate().any(|(i, r)| i != *r) {
        let index: HashMap<String, usize> = order
            .iter()
            .enumerate()
            .map(|(i, k)| (k.clone(), i))
            .collect();
        let merged = |e: &Entry| order[roots[index[&key_of(e)]]].clone();
        let (o, g) = grouped(entries, &merged);
        (order, groups) = (o, g);
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
    let head = marker(entries);
    let total: usize =
        head.chars().count() + parts.iter().map(|p| p.chars().count() + 1).sum::<usize>();
    if total > max_chars {
        // Keep the biggest groups that fit, in their order; say how many were left out.
        let mut by_size: Vec<usize> = (0..order.len()).collect();
        by_size.sort_by_key(|&i| std::cmp::Reverse(groups[&order[i]].len()));
        let room = max_chars.saturating_sub(head.chars().count() + 16);
        let mut used = 0;
        let mut keep = vec![false; order.len()];
        for i in by_size {
            let n = parts[i].chars().count() + 1;
            if used + n <= room {
                used += n;
                keep[i] = true;
            }
        }
        let left = keep.iter().filter(|k| !**k).count();
        let mut kept: Vec<String> = parts
            .into_iter()
            .zip(keep)
            .filter_map(|(p, k)| k.then_some(p))
            .collect();
        kept.push(format!("另有 {left} 项未列出"));
        return format!("{head}{}", kept.join("；"));
    }
    format!("{head}{}", parts.join("；"))
}

/// What starts every summary entry: `〔摘要 <first day>～<last entry's time>，<n> 条〕`. The exact
/// end tells later proposals which entries this summary already covers.
pub fn marker(entries: &[&Entry]) -> String {
    let first = entries.first().and_then(|e| e.timestamp);
    let last = entries.iter().rev().find_map(|e| e.timestamp);
    let period = match (first, last) {
        (Some(a), Some(b)) => format!("{}～{}", a.format("%Y-%m-%d"), format_entry_ts(&b)),
        (None, Some(b)) => format!("～{}", format_entry_ts(&b)),
        _ => String::new(),
    };
    format!("{MARKER}{period}，{} 条〕", entries.len())
}

const MARKER: &str = "〔摘要 ";

/// Whether an entry is a summary the console wrote.
pub fn is_summary(e: &Entry) -> bool {
    is_summary_text(&e.content)
}

pub fn is_summary_text(content: &str) -> bool {
    content.starts_with(MARKER)
}

/// The newest time an existing summary covers (entries up to it are summarised already).
pub fn covered_until(archival: &[Entry]) -> Option<NaiveDateTime> {
    archival
        .iter()
        .filter(|e| is_summary(e))
        .filter_map(|e| {
            let head = e.content[MARKER.len()..].split('，').next()?;
            let end = head.rsplit('～').next()?.trim();
            let t = crate::timefmt::parse_entry_ts(end)?;
            // A date alone (summaries of earlier versions) covers its whole day.
            Some(if end.len() <= 10 {
                t + chrono::Duration::seconds(86_399)
            } else {
                t
            })
        })
        .max()
}

/// Positions (in `view.archival`) of the entries outside the window that no summary covers yet.
pub fn candidates(view: &MemoryView) -> Vec<usize> {
    if view.paged_reason.is_some() {
        return Vec::new();
    }
    let outside = view
        .window
        .first_in_window
        .saturating_sub(view.archival_offset)
        .min(view.archival.len());
    let until = covered_until(&view.archival);
    (0..outside)
        .filter(|&i| {
            let e = &view.archival[i];
            !is_summary(e)
                && match (until, e.timestamp) {
                    (Some(u), Some(t)) => t > u,
                    (Some(_), None) => false,
                    (None, _) => true,
                }
        })
        .collect()
}

/// The proposal for an owner's view: the archival entries outside the window that no summary
/// covers yet, summarised by the rules above.
pub fn propose(view: &MemoryView) -> Option<Proposal> {
    // Half the window at most: the summary shares it with the newest entries.
    let budget = (view.window.limit_chars / 2).max(200);
    propose_with(view, usize::MAX, |entries| {
        Ok(summarise_within(entries, budget))
    })
    .ok()
    .flatten()
}

/// The proposal with another summariser (the LLM's): `summarise` writes the text after the
/// marker for the entries it is given, which are the newest candidates that fit in
/// `max_input_chars` (all of them for the rules).
pub fn propose_with(
    view: &MemoryView,
    max_input_chars: usize,
    summarise: impl FnOnce(&[&Entry]) -> Result<String>,
) -> Result<Option<Proposal>> {
    let mut picked = candidates(view);
    if picked.len() < 2 {
        return Ok(None);
    }
    let mut budget = max_input_chars;
    let mut keep = 0;
    for &i in picked.iter().rev() {
        let n = view.archival[i].line_chars();
        if n > budget && keep >= 2 {
            break;
        }
        budget = budget.saturating_sub(n);
        keep += 1;
    }
    picked.drain(..picked.len() - keep);
    let entries: Vec<&Entry> = picked.iter().map(|&i| &view.archival[i]).collect();
    let mut text = summarise(&entries)?;
    if !text.starts_with(MARKER) {
        text = format!("{}{}", marker(&entries), text.trim());
    }
    let content = sanitize_content(&text)?;
    let line = super::entry::render_line(Some(&now_local()), &content);
    Ok(Some(Proposal {
        covered: picked
            .iter()
            .map(|&i| view.archival_id(i + view.archival_offset, &view.archival[i]))
            .collect(),
        from: entries[0].timestamp.as_ref().map(format_entry_ts),
        to: entries[entries.len() - 1]
            .timestamp
            .as_ref()
            .map(format_entry_ts),
        chars_before: entries.iter().map(|e| e.line_chars()).sum(),
        chars_after: line.chars().count(),
        content,
    }))
}

impl MemoryService {
    /// Appends the summary `content` as one archival entry (now), and with `remove` deletes the
    /// covered entries in the same change: one undo takes it all back.
    /// `auto`: appended by the automatic mode, not by a person (the history says so).
    pub fn apply_summary(
        &self,
        owner: &Owner,
        content: &str,
        remove: &[Target],
        auto: bool,
    ) -> Result<Change> {
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
                    op: if auto { Op::AutoSummary } else { Op::Summarize },
                    owner: owner.db_key().to_string(),
                    reverts: None,
                    entries: Vec::new(),
                    splices: Vec::new(),
                    pid: std::process::id(),
                    len_after: None,
                    forgotten: None,
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
            "〔摘要 2026-11-04～2026-11-07 09:00:00，4 条〕「帮我总结今天的日志」×2（11-04～11-06，最近：已总结 5 个错误（第 2 次））；「明天上午有什么安排」⇒ 10:00 架构评审（11-05）；用户换了新手机（11-07）"
        );
        let before: usize = es.iter().map(Entry::line_chars).sum();
        assert!(s.chars().count() < before);
    }

    #[test]
    fn the_same_said_in_other_words_is_one_item() {
        let t = |s: &str| crate::timefmt::parse_entry_ts(s);
        let es = [
            Entry::new(t("2026-11-01 09:00:00"), "用户偏好简洁的回复，不用列表。"),
            Entry::new(
                t("2026-11-02 09:00:00"),
                "Invoices go to finance@example.org",
            ),
            Entry::new(t("2026-11-03 09:00:00"), "用户偏好简洁的回复,不要用列表"),
        ];
        let refs: Vec<&Entry> = es.iter().collect();
        let s = summarise(&refs);
        assert!(
            s.ends_with("用户偏好简洁的回复,不要用列表（×2，11-01～11-03）；Invoices go to finance@example.org（11-02）"),
            "{s}"
        );
    }

    #[test]
    fn a_summary_over_its_budget_keeps_the_most_repeated_items_and_counts_the_rest() {
        let t = |d: u32| crate::timefmt::parse_entry_ts(&format!("2026-11-{d:02} 09:00:00"));
        let mut es = Vec::new();
        // Twenty facts that share no wording (so neither a key nor the n-gram measure folds them).
        let facts = [
            "用户住在杭州西湖区，步行上班",
            "Maria prefers meetings after lunch",
            "周报草稿每周五下午发给团队",
            "The staging database password rotates monthly",
            "林晓对花生过敏，订餐时注意",
            "Deploys freeze on Thursdays before releases",
            "常用的航空公司是东方航空",
            "Quarterly planning starts in early March",
            "孩子的钢琴课在周三傍晚",
            "Invoices go to finance@example.org",
            "喜欢在豆瓣上记录读过的书",
            "The office Wi-Fi name changed to Orion",
            "车辆年检在十一月底到期",
            "Prefers dark mode in every editor",
            "每天早上七点跑步五公里",
            "Backup tapes are stored offsite in Leeds",
            "家里的猫叫团子，三岁",
            "Slack reminders are muted on weekends",
            "护照在明年六月过期需要续签",
            "Coffee order: flat white, oat milk",
        ];
        for (d, fact) in (1..=20).zip(facts) {
            es.push(Entry::new(
                t(d),
                format!("{fact}（{}）", "记".repeat(d as usize)),
            ));
            es.push(Entry::new(t(d), "触发「查天气」⇒ 晴"));
        }
        let refs: Vec<&Entry> = es.iter().collect();
        let full = summarise(&refs);
        let s = summarise_within(&refs, 300);
        assert!(full.chars().count() > 600, "{full}");
        assert!(s.chars().count() <= 300, "{} chars: {s}", s.chars().count());
        assert!(s.contains("「查天气」×20"), "{s}");
        assert!(s.ends_with("项未列出"), "{s}");
        assert!(
            s.starts_with("〔摘要 2026-11-01～2026-11-20 09:00:00，40 条〕"),
            "{s}"
        );
    }
}
