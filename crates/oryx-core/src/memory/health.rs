//! Memory health (issue #15): what a reviewer should look at in an owner's entries — secrets,
//! personal data, duplicates, stale time-relative entries — and the prompt budget. Each finding
//! names its entries by id and suggests one curation operation that fixes it (undoable).
//!
//! The secret patterns follow the token formats gitleaks' default rule set documents for the
//! common providers (written here as regexes of our own); personal data checks validate what
//! has a checksum (Chinese resident ID numbers, bank cards by Luhn) so that order numbers and
//! timestamps are not reported.

use std::sync::OnceLock;

use chrono::NaiveDateTime;
use regex::Regex;
use serde::Serialize;

use super::entry::{Entry, Scope};
use super::service::MemoryView;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Check {
    Secrets,
    Pii,
    Duplicates,
    Stale,
    Budget,
}

impl Check {
    pub const ALL: [Check; 5] = [
        Check::Secrets,
        Check::Pii,
        Check::Duplicates,
        Check::Stale,
        Check::Budget,
    ];

    pub fn parse(s: &str) -> Option<Check> {
        Some(match s.trim() {
            "secrets" => Check::Secrets,
            "pii" => Check::Pii,
            "duplicates" => Check::Duplicates,
            "stale" => Check::Stale,
            "budget" => Check::Budget,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Check::Secrets => "secrets",
            Check::Pii => "pii",
            Check::Duplicates => "duplicates",
            Check::Stale => "stale",
            Check::Budget => "budget",
        }
    }
}

/// The curation operation that fixes a finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "op", rename_all = "lowercase")]
pub enum Fix {
    /// Delete these entries.
    Delete { ids: Vec<String> },
    /// Replace the entry's content (the secret or number masked).
    Edit { id: String, content: String },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    pub check: Check,
    /// What was found, for grouping (`openai_key`, `email`, `exact`, `tomorrow` …).
    pub kind: String,
    pub entry_ids: Vec<String>,
    pub reason: String,
    pub fix: Option<Fix>,
}

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

#[derive(Debug, Clone)]
pub struct Options {
    pub checks: Vec<Check>,
    /// Time-relative entries older than this are stale.
    pub stale_after_days: i64,
    pub now: NaiveDateTime,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            checks: Check::ALL.to_vec(),
            stale_after_days: 7,
            now: crate::timefmt::now_local(),
        }
    }
}

/// An entry as the checks see it.
pub struct Item<'a> {
    pub id: String,
    pub scope: Scope,
    pub entry: &'a Entry,
}

fn rx(cell: &'static OnceLock<Regex>, pattern: &str) -> &'static Regex {
    cell.get_or_init(|| Regex::new(pattern).expect("a valid pattern"))
}

/// (kind, pattern) of secrets, after gitleaks' documented token formats.
const SECRET_PATTERNS: &[(&str, &str)] = &[
    ("private_key", r"-----BEGIN[A-Z ]*PRIVATE KEY-----"),
    ("anthropic_key", r"\bsk-ant-[A-Za-z0-9_-]{20,}"),
    ("openai_key", r"\bsk-(?:proj-|svcacct-)?[A-Za-z0-9_-]{20,}"),
    ("aws_access_key", r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    (
        "github_token",
        r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{40,})",
    ),
    ("slack_token", r"\bxox[abposr]-[A-Za-z0-9-]{10,}"),
    ("google_api_key", r"\bAIza[0-9A-Za-z_-]{35}"),
    ("stripe_key", r"\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,}"),
    (
        "jwt",
        r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
    ),
    (
        "connection_string",
        r"\b[a-z][a-z0-9+.-]*://[^\s:/@]+:[^\s@/]+@[^\s/]+",
    ),
    (
        "password",
        r"(?i)(?:password|passwd|pwd|密码|口令)\s*(?:is|是|为)?\s*[:：=]\s*\S{4,}",
    ),
];

fn secret_rules() -> &'static [(&'static str, Regex)] {
    static RULES: OnceLock<Vec<(&'static str, Regex)>> = OnceLock::new();
    RULES.get_or_init(|| {
        SECRET_PATTERNS
            .iter()
            .map(|(k, p)| (*k, Regex::new(p).expect("a valid pattern")))
            .collect()
    })
}

/// Whether any secret rule could match: the literal every rule needs, found in one pass over
/// the text by a literal searcher (the rules then run only on the few entries that have one; a
/// 100 MB archive has ~900 000 entries).
fn may_hold_secret(text: &str) -> bool {
    static ANY: OnceLock<Regex> = OnceLock::new();
    rx(
        &ANY,
        r"-----BEGIN|sk-|AKIA|ASIA|gh[pousr]_|github_pat_|xox[abposr]-|AIza|[sr]k_(?:live|test)_|eyJ|://|(?i:passw|pwd)|密码|口令",
    )
    .is_match(text)
}

/// Whether personal data could be there: an e-mail needs `@`, an international number `+`,
/// a mainland mobile number 11 digits, an ID 17 and a card 13.
fn may_hold_pii(text: &str) -> bool {
    text.contains('@')
        || text.contains('+')
        || text.bytes().filter(u8::is_ascii_digit).count() >= 11
}

/// A copy of `text` with each match of a secret or number masked but its first characters.
fn masked(text: &str, spans: &[(usize, usize)]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut pos = 0;
    for &(a, b) in spans {
        if a < pos {
            continue;
        }
        out.push_str(&text[pos..a]);
        let shown: String = text[a..b].chars().take(4).collect();
        out.push_str(&shown);
        out.push_str("…[masked]");
        pos = b;
    }
    out.push_str(&text[pos..]);
    out
}

fn luhn(digits: &str) -> bool {
    let mut sum = 0;
    for (i, c) in digits.bytes().rev().enumerate() {
        let mut d = (c - b'0') as u32;
        if i % 2 == 1 {
            d *= 2;
            if d > 9 {
                d -= 9;
            }
        }
        sum += d;
    }
    sum % 10 == 0
}

/// GB 11643: the 18th character is the checksum of the first 17 digits.
fn resident_id_ok(id: &str) -> bool {
    const W: [u32; 17] = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
    const C: &[u8; 11] = b"10X98765432";
    let b = id.as_bytes();
    if b.len() != 18 || !b[..17].iter().all(u8::is_ascii_digit) {
        return false;
    }
    let sum: u32 = b[..17]
        .iter()
        .zip(W)
        .map(|(d, w)| (d - b'0') as u32 * w)
        .sum();
    C[(sum % 11) as usize] == b[17].to_ascii_uppercase()
}

fn pii_spans(text: &str) -> Vec<(&'static str, usize, usize)> {
    static EMAIL: OnceLock<Regex> = OnceLock::new();
    static PHONE_CN: OnceLock<Regex> = OnceLock::new();
    static PHONE_INTL: OnceLock<Regex> = OnceLock::new();
    static DIGITS: OnceLock<Regex> = OnceLock::new();
    let mut out = Vec::new();
    for m in rx(&EMAIL, r"[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}").find_iter(text) {
        out.push(("email", m.start(), m.end()));
    }
    for m in rx(
        &PHONE_CN,
        r"(?:^|[^0-9])(?:\+?86[- ]?)?(1[3-9][0-9]{9})(?:$|[^0-9])",
    )
    .captures_iter(text)
    {
        let g = m.get(1).expect("group");
        out.push(("phone", g.start(), g.end()));
    }
    for m in rx(
        &PHONE_INTL,
        r"\+[1-9][0-9]{0,2}[- ]?(?:\(?[0-9]{2,4}\)?[- ]?){2,4}[0-9]{2,4}",
    )
    .find_iter(text)
    {
        if !out.iter().any(|(_, a, b)| m.start() < *b && *a < m.end()) {
            out.push(("phone", m.start(), m.end()));
        }
    }
    // Runs of digits (spaces or dashes inside allowed for cards): IDs by checksum, cards by Luhn.
    for m in rx(&DIGITS, r"[0-9][0-9 -]{11,22}[0-9Xx]").find_iter(text) {
        let raw = m.as_str();
        let before = text[..m.start()].chars().next_back();
        let after = text[m.end()..].chars().next();
        if before.is_some_and(|c| c.is_ascii_alphanumeric())
            || after.is_some_and(|c| c.is_ascii_alphanumeric())
        {
            continue;
        }
        let compact: String = raw.chars().filter(|c| !matches!(c, ' ' | '-')).collect();
        if resident_id_ok(&compact) {
            out.push(("resident_id", m.start(), m.end()));
        } else if (13..=19).contains(&compact.len())
            && compact.bytes().all(|b| b.is_ascii_digit())
            && luhn(&compact)
            && !out.iter().any(|(_, a, b)| m.start() < *b && *a < m.end())
        {
            out.push(("bank_card", m.start(), m.end()));
        }
    }
    out.sort_by_key(|s| s.1);
    out
}

/// Words that say "relative to when this was written".
fn relative_time(text: &str) -> Option<&str> {
    static EN: OnceLock<Regex> = OnceLock::new();
    static ANY: OnceLock<Regex> = OnceLock::new();
    const ZH: &[&str] = &[
        "明天",
        "后天",
        "今晚",
        "今天下午",
        "今天上午",
        "下周",
        "下星期",
        "下个月",
        "本周",
        "这周",
        "周一",
        "周二",
        "周三",
        "周四",
        "周五",
        "周六",
        "周日",
        "星期一",
        "星期二",
        "星期三",
        "星期四",
        "星期五",
        "星期六",
        "星期日",
        "星期天",
    ];
    const EN_WORDS: &str = r"(?i)\b(tomorrow|tonight|next (?:week|month)|this (?:week|afternoon|evening)|(?:on )?(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday))\b";
    // One pass says whether any word is there (most entries have none); then which one.
    let any = ANY.get_or_init(|| {
        let zh: Vec<String> = ZH.iter().map(|w| regex::escape(w)).collect();
        let en = EN_WORDS.replace(r"\b", "");
        Regex::new(&format!("{}|(?:{en})", zh.join("|"))).expect("a valid pattern")
    });
    if !any.is_match(text) {
        return None;
    }
    if let Some(w) = ZH.iter().find(|w| text.contains(*w)) {
        return Some(*w);
    }
    rx(&EN, EN_WORDS).find(text).map(|m| m.as_str())
}

/// What two entries must share to be duplicates: their letters and digits, case aside
/// (`exact`); near duplicates share their letters alone (a footprint repeated with another
/// count or time). Each key is kept as a 128-bit hash and its length in characters, computed in
/// one pass without building the key (a String per entry and key for ~900 000 entries cost
/// seconds); two hashes of 64 bits with different bases make a false match as likely as
/// guessing a 128-bit number.
#[derive(Clone, Copy)]
struct DupKeys {
    exact: (u128, usize),
    near: (u128, usize),
}

struct KeyHasher {
    a: u64,
    b: u64,
    n: usize,
}

impl KeyHasher {
    fn new() -> Self {
        KeyHasher {
            a: 0xcbf2_9ce4_8422_2325,
            b: 0x8422_2325_cbf2_9ce4,
            n: 0,
        }
    }

    fn push(&mut self, c: char) {
        let v = u64::from(u32::from(c));
        self.a = (self.a ^ v).wrapping_mul(0x0000_0100_0000_01b3);
        self.b = (self.b ^ v.rotate_left(17)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        self.n += 1;
    }

    fn done(&self) -> (u128, usize) {
        ((u128::from(self.a) << 64) | u128::from(self.b), self.n)
    }
}

fn dup_keys(text: &str) -> DupKeys {
    let (mut exact, mut near) = (KeyHasher::new(), KeyHasher::new());
    for c in text.chars() {
        if c.is_ascii() {
            if c.is_ascii_alphanumeric() {
                let l = c.to_ascii_lowercase();
                exact.push(l);
                if c.is_ascii_alphabetic() {
                    near.push(l);
                }
            }
        } else if ('\u{4e00}'..='\u{9fff}').contains(&c) {
            // CJK unified ideographs: letters, without case (the Unicode tables cost ~30 ns).
            exact.push(c);
            near.push(c);
        } else if c.is_alphanumeric() {
            let alpha = c.is_alphabetic();
            for l in c.to_lowercase() {
                exact.push(l);
                if alpha {
                    near.push(l);
                }
            }
        }
    }
    DupKeys {
        exact: exact.done(),
        near: near.done(),
    }
}

/// Entries of one section with the same key (whose length passes `keep`), in groups of two or
/// more, each in item order.
fn groups_by(
    items: &[Item<'_>],
    keys: &[(u128, usize)],
    keep: fn(usize) -> bool,
) -> Vec<Vec<usize>> {
    let mut keyed: Vec<(bool, u128, usize)> = items
        .iter()
        .zip(keys)
        .enumerate()
        .filter(|(_, (_, k))| keep(k.1))
        .map(|(i, (it, k))| (it.scope == Scope::Core, k.0, i))
        .collect();
    keyed.sort_unstable();
    keyed
        .chunk_by(|a, b| a.0 == b.0 && a.1 == b.1)
        .filter(|run| run.len() > 1)
        .map(|run| run.iter().map(|r| r.2).collect())
        .collect()
}

pub fn run(
    items: &[Item<'_>],
    view: Option<&MemoryView>,
    opts: &Options,
) -> (Vec<Finding>, Option<Budget>) {
    let mut out = Vec::new();
    let on = |c: Check| opts.checks.contains(&c);
    for it in items {
        let text = &it.entry.content;
        let mut secret_spans: Vec<(usize, usize)> = Vec::new();
        if on(Check::Secrets) {
            let mut spans = Vec::new();
            let mut kinds = Vec::new();
            for (kind, re) in secret_rules().iter().filter(|_| may_hold_secret(text)) {
                for m in re.find_iter(text) {
                    if !spans.iter().any(|(a, b)| m.start() < *b && *a < m.end()) {
                        spans.push((m.start(), m.end()));
                        if !kinds.contains(kind) {
                            kinds.push(*kind);
                        }
                    }
                }
            }
            if !spans.is_empty() {
                spans.sort();
                secret_spans = spans.clone();
                out.push(Finding {
                    check: Check::Secrets,
                    kind: kinds[0].to_string(),
                    entry_ids: vec![it.id.clone()],
                    reason: format!(
                        "holds what looks like a secret ({}): anyone who reads the prompt or the \
                         file sees it",
                        kinds.join(", ")
                    ),
                    fix: None,
                });
            }
        }
        if on(Check::Pii) {
            // Inside a secret (the user part of a connection string) it is the secret's.
            let spans = match may_hold_pii(text) {
                true => pii_spans(text),
                false => Vec::new(),
            };
            let found: Vec<_> = spans
                .into_iter()
                .filter(|(_, a, b)| !secret_spans.iter().any(|(x, y)| a < y && x < b))
                .collect();
            if !found.is_empty() {
                let mut kinds: Vec<&str> = found.iter().map(|f| f.0).collect();
                kinds.dedup();
                out.push(Finding {
                    check: Check::Pii,
                    kind: kinds[0].to_string(),
                    entry_ids: vec![it.id.clone()],
                    reason: format!("holds personal data ({})", kinds.join(", ")),
                    fix: None,
                });
                secret_spans.extend(found.iter().map(|f| (f.1, f.2)));
            }
        }
        // One edit masks everything found in the entry, whichever finding it is applied from.
        if !secret_spans.is_empty() {
            secret_spans.sort();
            let fix = Fix::Edit {
                id: it.id.clone(),
                content: masked(text, &secret_spans),
            };
            for f in out
                .iter_mut()
                .rev()
                .take_while(|f| f.entry_ids == [it.id.clone()])
            {
                if matches!(f.check, Check::Secrets | Check::Pii) {
                    f.fix = Some(fix.clone());
                }
            }
        }
        if on(Check::Stale) {
            if let (Some(word), Some(ts)) = (relative_time(text), it.entry.timestamp) {
                let age = (opts.now - ts).num_days();
                if age > opts.stale_after_days {
                    out.push(Finding {
                        check: Check::Stale,
                        kind: "relative_time".into(),
                        entry_ids: vec![it.id.clone()],
                        reason: format!(
                            "says {word:?} but was written {age} days ago: it no longer means \
                             what it meant"
                        ),
                        fix: Some(Fix::Delete {
                            ids: vec![it.id.clone()],
                        }),
                    });
                }
            }
        }
    }
    if on(Check::Duplicates) {
        out.extend(duplicates(items));
    }
    let budget = (on(Check::Budget))
        .then(|| view.map(|v| budget(v, opts)))
        .flatten();
    (out, budget)
}

fn duplicates(items: &[Item<'_>]) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut in_exact = vec![false; items.len()];
    let keys: Vec<DupKeys> = items.iter().map(|it| dup_keys(&it.entry.content)).collect();
    let exact: Vec<(u128, usize)> = keys.iter().map(|k| k.exact).collect();
    let mut groups = groups_by(items, &exact, |n| n > 0);
    groups.sort();
    for g in groups {
        g.iter().for_each(|&i| in_exact[i] = true);
        out.push(Finding {
            check: Check::Duplicates,
            kind: "exact".into(),
            entry_ids: g.iter().map(|&i| items[i].id.clone()).collect(),
            reason: format!(
                "the same entry {} times; keeping the newest is enough",
                g.len()
            ),
            // Keep the newest (last in time order).
            fix: Some(Fix::Delete {
                ids: g[..g.len() - 1]
                    .iter()
                    .map(|&i| items[i].id.clone())
                    .collect(),
            }),
        });
    }
    let near: Vec<(u128, usize)> = keys.iter().map(|k| k.near).collect();
    let mut groups: Vec<Vec<usize>> = groups_by(items, &near, |n| n >= 4)
        .into_iter()
        .filter(|g| !g.iter().all(|&i| in_exact[i]))
        .collect();
    groups.sort();
    for g in groups {
        out.push(Finding {
            check: Check::Duplicates,
            kind: "near".into(),
            entry_ids: g.iter().map(|&i| items[i].id.clone()).collect(),
            reason: format!(
                "{} entries differ only in numbers (a repeated footprint): a summary keeps them \
                 in one line",
                g.len()
            ),
            fix: None,
        });
    }
    out
}

fn budget(v: &MemoryView, opts: &Options) -> Budget {
    let core_chars: usize = v.core.iter().map(|e| e.line_chars() + 1).sum();
    let prompt_chars = v.context.chars().count();
    let month = opts.now - chrono::Duration::days(30);
    let oldest_in = v
        .archival
        .iter()
        .enumerate()
        .filter(|(i, _)| i + v.archival_offset >= v.window.first_in_window)
        .find_map(|(_, e)| e.timestamp);
    Budget {
        prompt_chars,
        core_chars,
        core_share: if prompt_chars == 0 {
            0.0
        } else {
            (core_chars as f64 / prompt_chars as f64 * 1000.0).round() / 1000.0
        },
        core_added_30d: v
            .core
            .iter()
            .filter(|e| e.timestamp.is_some_and(|t| t >= month))
            .count(),
        window_reach_days: oldest_in
            .map(|t| ((opts.now - t).num_minutes() as f64 / 1440.0 * 10.0).round() / 10.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_secret_prefilter_lets_every_rule_through() {
        let samples = [
            "-----BEGIN RSA PRIVATE KEY-----",
            "key sk-ant-api03-abcdefghijklmnopqrstuvwxyz",
            "key sk-proj-abcdefghijklmnopqrstuvwxyz0123",
            "AKIAIOSFODNN7EXAMPLE",
            "ghp_abcdefghijklmnopqrstuvwxyz0123456789AB",
            "xoxb-1234567890-abcdef",
            "AIzaSyA1234567890abcdefghijklmnopqrstuv",
            "sk_live_abcdefghijklmnop1234",
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abcdefghijk",
            "postgres://admin:hunter22@db.example.com/app",
            "PassWord: hunter22",
            "数据库密码是：hunter22",
        ];
        for s in samples {
            let rules = secret_rules().iter().filter(|(_, r)| r.is_match(s)).count();
            assert!(rules > 0, "no rule matches the sample {s:?}");
            assert!(may_hold_secret(s), "the prefilter drops {s:?}");
        }
        assert!(!may_hold_secret("用户偏好简洁的回复，不用列表。"));
    }

    fn check(texts: &[&str]) -> Vec<Finding> {
        let entries: Vec<Entry> = texts
            .iter()
            .map(|t| Entry::new(crate::timefmt::parse_entry_ts("2026-01-01 10:00:00"), *t))
            .collect();
        let items: Vec<Item> = entries
            .iter()
            .enumerate()
            .map(|(i, e)| Item {
                id: format!("a{i}"),
                scope: Scope::Archival,
                entry: e,
            })
            .collect();
        let opts = Options {
            now: crate::timefmt::parse_entry_ts("2026-03-01 10:00:00").unwrap(),
            ..Options::default()
        };
        run(&items, None, &opts).0
    }

    fn kinds(f: &[Finding]) -> Vec<&str> {
        f.iter().map(|f| f.kind.as_str()).collect()
    }

    #[test]
    fn planted_secrets_are_found_and_masked() {
        let planted = [
            ("sk-proj-abcdefghijklmnopqrstuvwxyz0123", "openai_key"),
            ("sk-ant-api03-abcdefghijklmnopqrstuvwx", "anthropic_key"),
            ("AKIAIOSFODNN7EXAMPLE", "aws_access_key"),
            ("ghp_abcdefghijklmnopqrstuvwxyz0123456789", "github_token"),
            ("AIzaSyA-abcdefghijklmnopqrstuvwxyz01234", "google_api_key"),
            (
                "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N",
                "jwt",
            ),
            (
                "postgres://app:s3cret@db.internal:5432/prod",
                "connection_string",
            ),
            ("数据库密码：hunter22", "password"),
            ("-----BEGIN RSA PRIVATE KEY-----", "private_key"),
        ];
        for (text, kind) in planted {
            let f = check(&[&format!("用户给了 {text} 让我记住")]);
            assert_eq!(kinds(&f), [kind], "{text}");
            let Some(Fix::Edit { content, .. }) = &f[0].fix else {
                panic!("an edit fix")
            };
            assert!(!content.contains(&text[6..]), "{content}");
        }
        for clean in [
            "Reminder set for Friday 10:00 (skill: tasks)",
            "触发「rotate the API keys」⇒ rotated 3 keys",
            "see https://docs.rs/regex/latest/regex/",
            "ask-me-later-about-this-task",
        ] {
            let f = check(&[clean]);
            assert!(
                !f.iter().any(|f| f.check == Check::Secrets),
                "{clean}: {f:?}"
            );
        }
    }

    #[test]
    fn personal_data_with_checksums() {
        assert_eq!(kinds(&check(&["邮箱 lin.xiao@example.com"])), ["email"]);
        assert_eq!(kinds(&check(&["电话 13812345678 找我"])), ["phone"]);
        assert_eq!(kinds(&check(&["call +1 415-555-0100"])), ["phone"]);
        // A valid resident id and card; the same digits with a wrong checksum are not reported.
        assert_eq!(
            kinds(&check(&["身份证 11010519491231002X"])),
            ["resident_id"]
        );
        assert!(check(&["单号 110105194912310021"]).is_empty());
        assert_eq!(kinds(&check(&["card 4111 1111 1111 1111"])), ["bank_card"]);
        assert!(check(&["order 4111 1111 1111 1112"]).is_empty());
        assert!(check(&["2026-11-04 13:11:24 cache cleared: 1.3 GB freed"]).is_empty());
    }

    #[test]
    fn duplicates_exact_and_near_and_stale_words() {
        let f = check(&[
            "用户偏好简洁的回复。",
            "用户偏好简洁的回复",
            "触发「总结日志」⇒ 已总结 3 个错误（第 1 次）",
            "触发「总结日志」⇒ 已总结 5 个错误（第 2 次）",
        ]);
        let d: Vec<&Finding> = f.iter().filter(|f| f.check == Check::Duplicates).collect();
        assert_eq!(d.len(), 2, "{f:?}");
        assert_eq!(d[0].kind, "exact");
        assert_eq!(
            d[0].fix,
            Some(Fix::Delete {
                ids: vec!["a0".into()]
            })
        );
        assert_eq!(d[1].kind, "near");
        let f = check(&[
            "明天上午十点开会",
            "meeting tomorrow at 10",
            "用户喜欢周末爬山",
        ]);
        let stale: Vec<&str> = f
            .iter()
            .filter(|f| f.check == Check::Stale)
            .map(|f| f.entry_ids[0].as_str())
            .collect();
        assert_eq!(stale, ["a0", "a1"]);
    }
}
