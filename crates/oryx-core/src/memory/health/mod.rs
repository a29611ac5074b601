//! Memory health (issue #15): what a reviewer should look at in an owner's entries — secrets,
//! personal data, duplicates, stale time-relative entries — and the prompt budget. Each finding
//! names its entries by id and suggests one curation operation that fixes it (undoable).
//!
//! The secret patterns follow the token formats gitleaks' default rule set documents for the
//! common providers (written here as regexes of our own); personal data checks validate what
//! has a checksum (Chinese resident ID numbers, bank cards by Luhn) so that order numbers and
//! timestamps are not reported.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use chrono::NaiveDateTime;
use regex::Regex;
use serde::Serialize;

use super::entry::{Entry, Scope};
use super::near_dup;
use super::review::{dismiss_key, entry_key_of, Reviewed};
use super::service::MemoryView;
use super::store::ContextEntries;

mod file;
mod keys;
mod triggers;

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

/// An entry's id as a finding names it, held inline when short (a MEMORY.md id such as
/// `a913891-0badcafe` is 16 bytes): a finding can name most of a large file's entries, and a
/// String each was ~900 000 allocations, their frees, and the next run's allocator merging
/// what they left.
pub type EntryId = compact_str::CompactString;

/// A MEMORY.md entry's id ([`super::curate::markdown_id`]) from its line's hash, as a finding
/// holds it.
fn markdown_entry_id(scope: Scope, ordinal: usize, hash: u32) -> EntryId {
    let mut buf = [0; super::curate::MARKDOWN_ID_MAX];
    EntryId::from(super::curate::write_markdown_id(
        scope, ordinal, hash, &mut buf,
    ))
}

/// The curation operation that fixes a finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "op", rename_all = "lowercase")]
pub enum Fix {
    /// Delete these entries.
    Delete { ids: Vec<EntryId> },
    /// Replace the entry's content (the secret or number masked).
    Edit { id: EntryId, content: String },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    pub check: Check,
    /// What was found, for grouping (`openai_key`, `email`, `exact`, `tomorrow` …).
    pub kind: String,
    pub entry_ids: Vec<EntryId>,
    /// The English reason, for logs and the CLI.
    pub reason: String,
    /// The values the reason is built from, so that it can be said in another language from
    /// `check`, `kind` and these: secrets and pii `kinds` (comma-separated, in order found);
    /// stale `word`, `age_days`; exact duplicates `count`; near duplicates `count`, `basis`
    /// (`numbers`: only digits differ; `request`: footprints of the same or a similar request,
    /// which is in `request`; `text`: n-gram similarity) and `similarity` (0.00–1.00, the
    /// lowest by which an entry joined the group).
    pub params: BTreeMap<String, String>,
    pub fix: Option<Fix>,
}

fn params<const N: usize>(pairs: [(&str, String); N]) -> BTreeMap<String, String> {
    pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
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
    /// What a person dismissed ([`super::review::dismiss_key`]s): a finding whose every entry
    /// was dismissed for its check is left out, and counted.
    pub dismissed: Option<std::sync::Arc<Reviewed>>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            checks: Check::ALL.to_vec(),
            stale_after_days: 7,
            now: crate::timefmt::now_local(),
            dismissed: None,
        }
    }
}

impl Options {
    /// Whether a finding of `check` on these entries was dismissed (each entry's key made
    /// only until one was not: a near group can name most of a file's entries).
    fn hides(&self, e: &(impl Entries + ?Sized), check: Check, idx: &[usize]) -> bool {
        self.dismissed.is_some() && idx.iter().all(|&i| self.hides_key(check, e.key(i)))
    }

    /// Whether a finding of `check` was dismissed on the entry whose review key is `key`.
    fn hides_key(&self, check: Check, key: u64) -> bool {
        self.dismissed
            .as_ref()
            .is_some_and(|d| d.has(dismiss_key(check.as_str(), key)))
    }
}

/// What the checks found: the findings, how many more a person dismissed, and the budget when
/// it was asked for and could be computed.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    pub findings: Vec<Finding>,
    pub dismissed: usize,
    pub budget: Option<Budget>,
}

/// An entry as the checks see it.
pub struct Item<'a> {
    pub id: String,
    pub scope: Scope,
    pub entry: &'a Entry,
}

/// What the checks read of entries: text, section and time by index. Ids are asked for only
/// for the entries a finding names (a 100 MB file has ~900 000 entries and few findings), and
/// the entries may be slices of one file's bytes ([`run_markdown`]) as well as parsed ones.
trait Entries: Sync {
    fn len(&self) -> usize;
    fn text(&self, i: usize) -> &str;
    fn is_core(&self, i: usize) -> bool;
    fn timestamp(&self, i: usize) -> Option<NaiveDateTime>;
    fn id(&self, i: usize) -> EntryId;
    /// The entry as a review remembers it ([`super::review::entry_key`]).
    fn key(&self, i: usize) -> u64 {
        let scope = match self.is_core(i) {
            true => Scope::Core,
            false => Scope::Archival,
        };
        entry_key_of(scope, self.timestamp(i), self.text(i))
    }
    /// The ids of the entries `idx`, handed to `put` in that order.
    fn ids_each(&self, idx: &[usize], mut put: impl FnMut(EntryId)) {
        idx.iter().for_each(|&i| put(self.id(i)));
    }
    fn ids(&self, idx: &[usize]) -> Vec<EntryId> {
        let mut out = Vec::with_capacity(idx.len());
        self.ids_each(idx, |id| out.push(id));
        out
    }
}

impl Entries for [Item<'_>] {
    fn len(&self) -> usize {
        <[Item<'_>]>::len(self)
    }
    fn text(&self, i: usize) -> &str {
        &self[i].entry.content
    }
    fn is_core(&self, i: usize) -> bool {
        self[i].scope == Scope::Core
    }
    fn timestamp(&self, i: usize) -> Option<NaiveDateTime> {
        self[i].entry.timestamp
    }
    fn id(&self, i: usize) -> EntryId {
        EntryId::from(self[i].id.as_str())
    }
}

/// An owner's view as the checks read it: core, then archival; ids made only when asked for
/// (an id per entry of a 100 MB file costs more than most of the checks).
struct ViewEntries<'a>(&'a MemoryView);

impl ViewEntries<'_> {
    /// Where entry `i` is: its section, its index in the view's list of that section, and its
    /// ordinal in the section (the view may hold only the newest archival entries).
    fn place(&self, i: usize) -> (Scope, usize, usize) {
        let v = self.0;
        match i.checked_sub(v.core.len()) {
            None => (Scope::Core, i, i),
            Some(j) => (Scope::Archival, j, j + v.archival_offset),
        }
    }

    fn entry(&self, i: usize) -> &Entry {
        match self.place(i) {
            (Scope::Core, j, _) => &self.0.core[j],
            (Scope::Archival, j, _) => &self.0.archival[j],
        }
    }
}

impl Entries for ViewEntries<'_> {
    fn len(&self) -> usize {
        self.0.core.len() + self.0.archival.len()
    }
    fn text(&self, i: usize) -> &str {
        &self.entry(i).content
    }
    fn is_core(&self, i: usize) -> bool {
        i < self.0.core.len()
    }
    fn timestamp(&self, i: usize) -> Option<NaiveDateTime> {
        self.entry(i).timestamp
    }
    fn id(&self, i: usize) -> EntryId {
        let v = self.0;
        EntryId::from(match self.place(i) {
            (Scope::Core, j, _) => v.core_id(j),
            (Scope::Archival, j, n) => v.archival_id(n, &v.archival[j]),
        })
    }
    /// Stored ids as they are; MEMORY.md ids from their lines' hashes made several at once
    /// (see [`super::curate::line_hashes`]): a near group can name most of the entries.
    fn ids_each(&self, idx: &[usize], mut put: impl FnMut(EntryId)) {
        let v = self.0;
        let stored = |i: usize| match self.place(i) {
            (Scope::Core, j, _) => v.core_ids.get(j),
            (Scope::Archival, j, _) => v.archival_ids.get(j),
        };
        let hashed: Vec<&[u8]> = idx
            .iter()
            .filter(|&&i| stored(i).is_none())
            .map(|&i| self.entry(i).line.as_bytes())
            .collect();
        let mut hashes = super::curate::line_hashes(&hashed).into_iter();
        for &i in idx {
            put(match stored(i) {
                Some(id) => EntryId::from(id.as_str()),
                None => {
                    let (scope, _, n) = self.place(i);
                    markdown_entry_id(scope, n, hashes.next().expect("a hash per line"))
                }
            });
        }
    }
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

/// Whether personal data could be there: what each pattern of [`pii_spans`] cannot match
/// without — an e-mail `@`, an international number `+`, or a run of digits, spaces and dashes
/// holding 11 digits or more (a mainland mobile number is 11 digits in a row; an ID number 17
/// digits and a card number 13, spaces and dashes between them allowed). A count of digits
/// alone let a footprint with a counter and a figure through (a tenth of a large archive), and
/// the four patterns cost microseconds an entry.
fn may_hold_pii(text: &str) -> bool {
    let b = text.as_bytes();
    memchr::memchr2(b'@', b'+', b).is_some() || has_digit_run(b)
}

/// The digits a run of digits, spaces and dashes must hold to be a number worth a look.
const RUN_DIGITS: usize = 11;

/// Whether a run of digits, spaces and dashes holds [`RUN_DIGITS`] digits. Such a run is at
/// least that long, so it covers one of every [`RUN_DIGITS`] positions: only those are looked
/// at, and the run around one that is in a run is measured (a byte-by-byte pass over ~900 000
/// entries of a large archive cost more than the rest of the check).
fn has_digit_run(b: &[u8]) -> bool {
    let in_run = |c: &u8| matches!(c, b'0'..=b'9' | b' ' | b'-');
    let mut p = RUN_DIGITS - 1;
    while p < b.len() {
        if !in_run(&b[p]) {
            p += RUN_DIGITS;
            continue;
        }
        let start = p - b[..p].iter().rev().take_while(|c| in_run(c)).count();
        let end = p + b[p..].iter().take_while(|c| in_run(c)).count();
        if b[start..end].iter().filter(|c| c.is_ascii_digit()).count() >= RUN_DIGITS {
            return true;
        }
        // The next run starts after `end`; the first position it must cover is this one.
        p = end + RUN_DIGITS;
    }
    false
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

/// Chinese words that say "relative to when this was written" (the first of them an entry
/// holds, in this order, is the one reported).
const STALE_ZH: &[&str] = &[
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

const STALE_EN: &str = r"(?i)\b(tomorrow|tonight|next (?:week|month)|this (?:week|afternoon|evening)|(?:on )?(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday))\b";

/// Words that say "relative to when this was written", by regexes alone (the path of entries
/// holding letters the trigger automaton does not fold, see [`triggers`]).
fn relative_time(text: &str) -> Option<&str> {
    static EN: OnceLock<Regex> = OnceLock::new();
    static ANY: OnceLock<Regex> = OnceLock::new();
    // One pass says whether any word is there (most entries have none); then which one.
    let any = ANY.get_or_init(|| {
        let zh: Vec<String> = STALE_ZH.iter().map(|w| regex::escape(w)).collect();
        let en = STALE_EN.replace(r"\b", "");
        Regex::new(&format!("{}|(?:{en})", zh.join("|"))).expect("a valid pattern")
    });
    if !any.is_match(text) {
        return None;
    }
    if let Some(w) = STALE_ZH.iter().find(|w| text.contains(*w)) {
        return Some(*w);
    }
    rx(&EN, STALE_EN).find(text).map(|m| m.as_str())
}

/// [`relative_time`] from the entry's triggers: the same word, with a regex only for English
/// words (their word boundaries) and entries with folding letters.
fn relative_time_of<'t>(text: &'t str, t: &triggers::Triggers) -> Option<&'t str> {
    static EN: OnceLock<Regex> = OnceLock::new();
    if t.folded {
        return relative_time(text);
    }
    match t.zh_word {
        Some(i) => Some(STALE_ZH[i]),
        None if t.en_word => rx(&EN, STALE_EN).find(text).map(|m| m.as_str()),
        None => None,
    }
}

/// `触发「X」⇒ Y` → X (the form the deterministic summariser folds by request).
fn footprint_request(text: &str) -> Option<&str> {
    // A searcher built once: `split_once` builds one per call, which cost more than the search
    // over ~900 000 footprints.
    static CLOSE: OnceLock<memchr::memmem::Finder<'static>> = OnceLock::new();
    let rest = text.strip_prefix("触发「")?;
    let at = CLOSE
        .get_or_init(|| memchr::memmem::Finder::new("」⇒"))
        .find(rest.as_bytes())?;
    Some(&rest[..at])
}

/// The text near duplicates are judged on: a footprint's request, or the whole entry.
fn near_text(text: &str) -> &str {
    footprint_request(text).unwrap_or(text)
}

/// A key's 94 bits (with two flags) and its entry's index, sorted as a tuple (see [`sort_key`]).
type SortKey = (u64, u32, u32);

/// A 128-bit key as 94 bits to sort by, with `flags` (up to two bits, such as the section) in
/// place of its two highest bits: 16 bytes a sorted entry with its index, where the whole key
/// took 24 and a tuple holding a `u128` and a `bool` 48 (the sorts move ~900 000 of them, and
/// write as many again). That two of a million different texts share 94 bits has a chance
/// below one in 10^16.
fn sort_key(h: u128, flags: u64, i: usize) -> SortKey {
    (
        (flags << 62) | ((h >> 64) as u64 >> 2),
        h as u32,
        u32::try_from(i).expect("fewer than 2^32 entries"),
    )
}

/// The keys of `parts` (each in index order) in order, as `sort_unstable` would put them:
/// first into buckets by their top 16 bits in one pass, straight from the parts (so a bucket of
/// one key is already sorted), then each bucket on its own. On ~900 000 keys a comparison sort
/// over the whole costs several times more: most of its passes move every key, and the buckets
/// fit in the cache.
fn sort_keys(parts: Vec<Vec<SortKey>>) -> Vec<SortKey> {
    const BITS: u32 = 16;
    let n = parts.iter().map(Vec::len).sum::<usize>();
    if n < 1 << BITS {
        let mut keys = parts.concat();
        keys.sort_unstable();
        return keys;
    }
    let bucket = |k: &SortKey| (k.0 >> (64 - BITS)) as usize;
    let mut starts = vec![0usize; (1 << BITS) + 1];
    for k in parts.iter().flatten() {
        starts[bucket(k) + 1] += 1;
    }
    for b in 1..starts.len() {
        starts[b] += starts[b - 1];
    }
    let mut at = starts.clone();
    let mut out = vec![(0, 0, 0); n];
    for k in parts.into_iter().flatten() {
        let b = bucket(&k);
        out[at[b]] = k;
        at[b] += 1;
    }
    for w in starts.windows(2) {
        out[w[0]..w[1]].sort_unstable();
    }
    out
}

/// The duplicate keys of entries as sort keys: exact keys of entries that have one, flagged by
/// section; near keys of entries with enough letters, flagged by section and by whether the
/// entry is a footprint (`space` in [`near_duplicates`]).
#[derive(Default)]
struct DupSortKeys {
    exact: Vec<SortKey>,
    near: Vec<SortKey>,
    texts: keys::KeyTexts,
}

impl DupSortKeys {
    fn add(&mut self, e: &(impl Entries + ?Sized), range: std::ops::Range<usize>) {
        for i in range {
            let k = self.texts.keys(e.text(i));
            let core = u64::from(e.is_core(i));
            if k.exact.1 > 0 {
                self.exact.push(sort_key(k.exact.0, core, i));
            }
            if k.near.1 >= 4 {
                self.near
                    .push(sort_key(k.near.0, core | u64::from(k.footprint) << 1, i));
            }
        }
    }
}

/// Runs of two or more equal keys in `sorted`: the entries of each, in item order.
fn runs_of(sorted: &[SortKey]) -> Vec<Vec<usize>> {
    sorted
        .chunk_by(|a, b| (a.0, a.1) == (b.0, b.1))
        .filter(|run| run.len() > 1)
        .map(|run| run.iter().map(|r| r.2 as usize).collect())
        .collect()
}

/// Below this many entries the checks run on one thread (starting more costs more than it saves).
const PARALLEL_FROM: usize = 20_000;

/// The indices `0..n` in consecutive ranges, one per core when there are many (one range, maybe
/// empty, otherwise).
fn part_ranges(n: usize) -> Vec<std::ops::Range<usize>> {
    let threads = match n < PARALLEL_FROM {
        true => 1,
        false => crate::cores::cores(),
    };
    if threads < 2 {
        return std::iter::once(0..n).collect();
    }
    let size = n.div_ceil(threads);
    (0..n)
        .step_by(size)
        .map(|from| from..(from + size).min(n))
        .collect()
}

/// `f` over the indices `0..n` in consecutive ranges, one per core when there are many: each
/// range's result, in index order.
fn in_parts<T: Send>(n: usize, f: impl Fn(std::ops::Range<usize>) -> T + Sync) -> Vec<T> {
    let parts = part_ranges(n).into_iter().map(|r| (r, ())).collect();
    each_part(parts, |r, ()| f(r))
}

/// `f` over each range with what is its own (`S`), on a thread each when there are several:
/// each result, in the order of `parts`.
fn each_part<S: Send, T: Send>(
    parts: Vec<(std::ops::Range<usize>, S)>,
    f: impl Fn(std::ops::Range<usize>, S) -> T + Sync,
) -> Vec<T> {
    if parts.len() < 2 {
        return parts.into_iter().map(|(r, own)| f(r, own)).collect();
    }
    std::thread::scope(|s| {
        let f = &f;
        let handles: Vec<_> = parts
            .into_iter()
            .map(|(r, own)| s.spawn(move || f(r, own)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a health check thread panicked"))
            .collect()
    })
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
    let per = [Check::Secrets, Check::Pii, Check::Stale]
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

/// The secrets of one entry: the spans found and their kinds, in rule order.
fn secrets_in(text: &str) -> (Vec<(usize, usize)>, Vec<&'static str>) {
    let mut spans = Vec::new();
    let mut kinds = Vec::new();
    for (kind, re) in secret_rules() {
        for m in re.find_iter(text) {
            if !spans.iter().any(|(a, b)| m.start() < *b && *a < m.end()) {
                spans.push((m.start(), m.end()));
                if !kinds.contains(kind) {
                    kinds.push(*kind);
                }
            }
        }
    }
    (spans, kinds)
}

/// The checks of one entry at a time (secrets, personal data, stale words), in index order;
/// how many findings were dismissed.
fn per_entry(
    e: &(impl Entries + ?Sized),
    range: std::ops::Range<usize>,
    opts: &Options,
    out: &mut Vec<Finding>,
) -> usize {
    let mut hidden = 0;
    let on = |c: Check| opts.checks.contains(&c);
    for i in range {
        let text = e.text(i);
        let t = triggers::scan(text);
        // Made once, and only for an entry something was found in.
        let mut id: Option<EntryId> = None;
        let mut id_of = || id.get_or_insert_with(|| e.id(i)).clone();
        let first = out.len();
        let mut secret_spans: Vec<(usize, usize)> = Vec::new();
        // The trigger literals are exactly the old prefilter's, but for folding letters.
        if on(Check::Secrets) && (t.secret || (t.folded && may_hold_secret(text))) {
            let (mut spans, kinds) = secrets_in(text);
            if !spans.is_empty() {
                spans.sort();
                secret_spans = spans.clone();
                out.push(Finding {
                    check: Check::Secrets,
                    kind: kinds[0].to_string(),
                    entry_ids: vec![id_of()],
                    reason: format!(
                        "holds what looks like a secret ({}): anyone who reads the prompt or the \
                         file sees it",
                        kinds.join(", ")
                    ),
                    params: params([("kinds", kinds.join(","))]),
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
                    entry_ids: vec![id_of()],
                    reason: format!("holds personal data ({})", kinds.join(", ")),
                    params: params([("kinds", kinds.join(","))]),
                    fix: None,
                });
                secret_spans.extend(found.iter().map(|f| (f.1, f.2)));
            }
        }
        // One edit masks everything found in the entry, whichever finding it is applied from.
        if !secret_spans.is_empty() {
            secret_spans.sort();
            let fix = Fix::Edit {
                id: id_of(),
                content: masked(text, &secret_spans),
            };
            for f in &mut out[first..] {
                f.fix = Some(fix.clone());
            }
        }
        if on(Check::Stale) {
            if let Some(word) = relative_time_of(text, &t) {
                if let Some(ts) = e.timestamp(i) {
                    let age = (opts.now - ts).num_days();
                    if age > opts.stale_after_days {
                        out.push(Finding {
                            check: Check::Stale,
                            kind: "relative_time".into(),
                            entry_ids: vec![id_of()],
                            reason: format!(
                                // The words are letters and spaces: quoted as `{:?}` would.
                                "says \"{word}\" but was written {age} days ago: it no longer \
                                 means what it meant"
                            ),
                            params: params([
                                ("word", word.to_string()),
                                ("age_days", age.to_string()),
                            ]),
                            fix: Some(Fix::Delete { ids: vec![id_of()] }),
                        });
                    }
                }
            }
        }
        // Dismissed findings go after all were made: a dismissed one still shares its masking
        // fix with the others of the entry.
        if opts.dismissed.is_some() && out.len() > first {
            let before = out.len();
            let key = e.key(i);
            let found: Vec<Finding> = out.drain(first..).collect();
            out.extend(found.into_iter().filter(|f| !opts.hides_key(f.check, key)));
            hidden += before - out.len();
        }
    }
    hidden
}

/// The ids of each group's entries (each group in index order, an entry in one group at
/// most), made at once on every core: a near group of a large archive can name most of its
/// entries (~900 000 ids in the 100 MB benchmark file). Each core makes the ids of its part of
/// the groups' entries in file order, where the entries' lines are read as they lie in memory
/// (a group's entries are spread over the whole file: hashed group by group, each group went
/// over all of it again), into lists of its own by group; a part's list of a group is one run
/// of that group's list, so the parts' lists are appended in order (dealing ~900 000 ids out
/// one by one on one core afterwards took half as long as making them).
fn ids_of_groups(e: &(impl Entries + ?Sized), groups: &[&[usize]]) -> Vec<Vec<EntryId>> {
    let mut group_of = vec![u32::MAX; e.len()];
    for (k, g) in groups.iter().enumerate() {
        for &i in *g {
            group_of[i] = k as u32;
        }
    }
    let members: Vec<usize> = (0..e.len()).filter(|&i| group_of[i] != u32::MAX).collect();
    let parts = part_ranges(members.len())
        .into_iter()
        .enumerate()
        .map(|(k, r)| (r, k == 0))
        .collect();
    let lists = each_part(parts, |range, first| {
        let mine = &members[range];
        // The first part's lists become the groups' (room for all of each group, so that the
        // other parts' are appended without a copy of what is there); the others' are sized
        // to what they hold.
        let mut lists: Vec<Vec<EntryId>> = match first {
            true => groups.iter().map(|g| Vec::with_capacity(g.len())).collect(),
            false => {
                let mut counts = vec![0usize; groups.len()];
                mine.iter().for_each(|&i| counts[group_of[i] as usize] += 1);
                counts.into_iter().map(Vec::with_capacity).collect()
            }
        };
        let mut entries = mine.iter();
        e.ids_each(mine, |id| {
            let k = group_of[*entries.next().expect("an id per entry")] as usize;
            lists[k].push(id);
        });
        lists
    });
    let mut lists = lists.into_iter();
    let mut out = lists.next().expect("one part at least");
    for part in lists {
        for (list, mut run) in out.iter_mut().zip(part) {
            list.append(&mut run);
        }
    }
    // Holds when no entry is in two groups (or twice in one).
    assert!(
        out.iter().zip(groups).all(|(l, g)| l.len() == g.len()),
        "groups share no entry"
    );
    out
}

/// Exact and near duplicates from the keys of every part of the entries (in index order),
/// and how many were dismissed.
fn duplicates(
    e: &(impl Entries + ?Sized),
    keys: Vec<DupSortKeys>,
    opts: &Options,
) -> (Vec<Finding>, usize) {
    let mut hidden = 0;
    let mut out = Vec::new();
    let (exact, near): (Vec<_>, Vec<_>) = keys.into_iter().map(|k| (k.exact, k.near)).unzip();
    // The two sorts at once, one per core when there are many entries.
    let (exact, near) = match e.len() < PARALLEL_FROM {
        true => (sort_keys(exact), sort_keys(near)),
        false => std::thread::scope(|s| {
            let near = s.spawn(|| sort_keys(near));
            let exact = sort_keys(exact);
            (exact, near.join().expect("a health check thread panicked"))
        }),
    };
    let mut groups = runs_of(&exact);
    drop(exact);
    groups.sort();
    // What the exact fix deletes takes no part in near groups: the newest copy stands for it.
    let mut deleted = vec![false; e.len()];
    for g in groups {
        g[..g.len() - 1].iter().for_each(|&i| deleted[i] = true);
        if opts.hides(e, Check::Duplicates, &g) {
            hidden += 1;
            continue;
        }
        let ids = e.ids(&g);
        out.push(Finding {
            check: Check::Duplicates,
            kind: "exact".into(),
            reason: format!(
                "the same entry {} times; keeping the newest is enough",
                g.len()
            ),
            params: params([("count", g.len().to_string())]),
            // Keep the newest (last in time order).
            fix: Some(Fix::Delete {
                ids: ids[..ids.len() - 1].to_vec(),
            }),
            entry_ids: ids,
        });
    }
    let (near, h) = near_duplicates(e, near, &deleted, opts);
    out.extend(near);
    (out, hidden + h)
}

/// Near duplicates: entries of one section with the same near key (a class), and classes
/// whose texts are alike by character n-grams ([`near_dup`]), one finding per group of two or
/// more entries. The fix is left to the summary: near duplicates differ, and deleting all but
/// one would lose what the others said.
fn near_duplicates(
    e: &(impl Entries + ?Sized),
    mut keyed: Vec<SortKey>,
    deleted: &[bool],
    opts: &Options,
) -> (Vec<Finding>, usize) {
    // Classes (entries with one key), in the order of their first entries, so that which
    // texts lead the comparisons does not depend on the key hash; each class is compared by
    // its first entry. `keyed` is the near keys of [`DupSortKeys`], sorted.
    keyed.retain(|k| !deleted[k.2 as usize]);
    let mut classes: Vec<&[SortKey]> = keyed.chunk_by(|a, b| (a.0, a.1) == (b.0, b.1)).collect();
    classes.sort_unstable_by_key(|c| c[0].2);
    let texts: Vec<near_dup::Text> = classes
        .iter()
        .map(|c| near_dup::Text {
            space: c[0].0 >> 62,
            text: near_text(e.text(c[0].2 as usize)),
        })
        .collect();
    let mut links = near_dup::Groups::new(classes.len());
    near_dup::link(&texts, &mut links);
    // Groups by their root class: the classes, then their entries in item order.
    let mut by_root: std::collections::HashMap<usize, Vec<usize>> = Default::default();
    for c in 0..classes.len() {
        let r = links.find(c);
        by_root.entry(r).or_default().push(c);
    }
    let mut groups: Vec<(Vec<usize>, usize, f64)> = by_root
        .into_iter()
        .filter_map(|(root, cs)| {
            let mut ids: Vec<usize> = cs
                .iter()
                .flat_map(|&c| classes[c].iter().map(|k| k.2 as usize))
                .collect();
            (ids.len() > 1).then(|| {
                // Each class's entries are in order already: a stable sort merges the runs.
                ids.sort();
                (ids, cs.len(), links.weakest(root))
            })
        })
        .collect();
    groups.sort_by(|a, b| a.0.cmp(&b.0));
    // Dismissed groups are left out before their ids are made.
    let before = groups.len();
    groups.retain(|g| !opts.hides(e, Check::Duplicates, &g.0));
    let hidden = before - groups.len();
    let ids = ids_of_groups(e, &groups.iter().map(|g| &g.0[..]).collect::<Vec<_>>());
    let found = groups
        .into_iter()
        .zip(ids)
        .map(|((g, n_classes, similarity), entry_ids)| {
            let n = g.len();
            let newest = e.text(g[n - 1]);
            let sim = format!("{similarity:.2}");
            let pct = (similarity * 100.0).round();
            let (basis, reason) = match footprint_request(newest) {
                Some(req) => (
                    "request",
                    if n_classes == 1 {
                        format!(
                            "{n} footprints of the same request {req:?}: a summary keeps them in \
                             one line with a count"
                        )
                    } else {
                        format!(
                            "{n} footprints of nearly the same request ({pct}% alike, the newest \
                             {req:?}): a summary keeps them in one line with a count"
                        )
                    },
                ),
                _ if n_classes == 1 => (
                    "numbers",
                    format!(
                        "{n} entries differ only in numbers (a repeated footprint): a summary \
                         keeps them in one line"
                    ),
                ),
                _ => (
                    "text",
                    format!(
                        "{n} entries say nearly the same ({pct}% of their character n-grams in \
                         common): a summary keeps them in one line"
                    ),
                ),
            };
            let mut p = params([
                ("count", n.to_string()),
                ("basis", basis.to_string()),
                ("similarity", sim),
            ]);
            if basis == "request" {
                p.insert("request".into(), near_text(newest).to_string());
            }
            Finding {
                check: Check::Duplicates,
                kind: "near".into(),
                entry_ids,
                reason,
                params: p,
                fix: None,
            }
        })
        .collect();
    (found, hidden)
}

fn budget(v: &MemoryView, opts: &Options) -> Budget {
    let first = v.window.first_in_window.saturating_sub(v.archival_offset);
    budget_of(
        &v.core,
        &v.context,
        &v.archival[first.min(v.archival.len())..],
        opts,
    )
}

/// The budget from the prompt's own load (core and the newest archival entries, see
/// [`super::LongTermMemoryStore::load_context`]): the same as from the owner's whole view,
/// without reading every entry of a large file into memory.
pub fn budget_from_context(ctx: &ContextEntries, archival_limit: usize, opts: &Options) -> Budget {
    let w = super::window::compute(&ctx.archival_tail, archival_limit);
    let context = super::service::render_block(&ctx.core, &w);
    let first = w.first_in_window.min(ctx.archival_tail.len());
    budget_of(&ctx.core, &context, &ctx.archival_tail[first..], opts)
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

    #[test]
    fn a_view_gives_the_findings_of_its_items() {
        use crate::memory::{LongTermMemoryStore, MarkdownMemoryStore, MemoryService};
        let dir = tempfile::tempdir().unwrap();
        let store = std::sync::Arc::new(MarkdownMemoryStore::new(dir.path()));
        let owner = crate::names::Owner::Agent("a".into());
        let mut text =
            String::from("## 核心记忆\n- [2026-01-01 10:00:00] 我的邮箱是 someone@example.com\n");
        text.push_str("- [2026-01-01 10:00:00] 用户偏好简洁的回复，不用列表。\n## 归档记忆\n");
        for i in 0..300 {
            let line = match i % 5 {
                0 => "明天下午三点开会".to_string(),
                1 => format!("触发「检查服务器磁盘状态（第 {i} 次）」⇒ 已完成"),
                2 => "key sk-proj-abcdefghijklmnopqrstuvwxyz0123".to_string(),
                _ => format!("entry number {i} says something of its own"),
            };
            text.push_str(&format!("- [2026-01-{:02} 10:00:00] {line}\n", 1 + i % 28));
        }
        std::fs::create_dir_all(dir.path().join("agents/a")).unwrap();
        std::fs::write(dir.path().join("agents/a/MEMORY.md"), &text).unwrap();
        assert!(store.count(&owner).unwrap().archival == 300);
        let view = MemoryService::new(store, 4000).view(&owner).unwrap();
        let mut items: Vec<Item> = Vec::new();
        for (i, e) in view.core.iter().enumerate() {
            let (id, scope) = (view.core_id(i), Scope::Core);
            items.push(Item {
                id,
                scope,
                entry: e,
            });
        }
        for (i, e) in view.archival.iter().enumerate() {
            let id = view.archival_id(i + view.archival_offset, e);
            items.push(Item {
                id,
                scope: Scope::Archival,
                entry: e,
            });
        }
        let opts = Options {
            now: crate::timefmt::parse_entry_ts("2026-03-01 10:00:00").unwrap(),
            ..Options::default()
        };
        let want = run(&items, Some(&view), &opts);
        let got = run_view(&view, &opts);
        assert_eq!(got, want);
        let checks: std::collections::BTreeSet<&str> =
            got.findings.iter().map(|f| f.check.as_str()).collect();
        assert_eq!(checks.len(), 4, "{checks:?}");
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
        run(&items, None, &opts).findings
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
    fn the_pii_prefilter_lets_every_pattern_through() {
        let found = [
            "邮箱 lin.xiao@example.com",
            "电话 13812345678 找我",
            "电话+86 138-1234-5678",
            "call +1 415-555-0100",
            "身份证 11010519491231002X",
            "card 4111-1111-1111-1111",
            "card 4111 1111 1111 1111",
        ];
        for text in found {
            assert!(!pii_spans(text).is_empty(), "{text}");
            assert!(may_hold_pii(text), "the prefilter drops {text:?}");
        }
        // A counter and a figure: eleven digits, but no run of them.
        for text in [
            "触发「检查服务器磁盘状态（第 123456 次）」⇒ 测试通过 128/128",
            "2026/11/04 13:11:24 cache cleared: 1.3 GB",
            "用户偏好简洁的回复",
        ] {
            assert!(!may_hold_pii(text), "{text}");
            assert!(pii_spans(text).is_empty(), "{text}");
        }
    }

    #[test]
    fn digit_runs_are_found_wherever_they_are() {
        // Random texts of these bytes (up to 39 long), against runs measured byte by byte.
        let alphabet = [b'1', b' ', b'-', b'x'];
        let naive = |b: &[u8]| {
            b.split(|c| !matches!(c, b'0'..=b'9' | b' ' | b'-'))
                .any(|run| run.iter().filter(|c| c.is_ascii_digit()).count() >= 11)
        };
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let len = (x % 40) as usize;
            let mut y = x;
            let text: Vec<u8> = (0..len)
                .map(|_| {
                    y = y.rotate_left(5).wrapping_mul(0x9e37_79b9_7f4a_7c15);
                    // Mostly digits, so that runs of 11 and more are common.
                    alphabet[[0, 0, 0, 1, 2, 3, 0, 3][(y >> 61) as usize]]
                })
                .collect();
            assert_eq!(
                has_digit_run(&text),
                naive(&text),
                "{:?}",
                String::from_utf8_lossy(&text)
            );
            // No `@` or `+` here: the prefilter says what the runs say.
            let text = String::from_utf8(text).expect("ASCII");
            assert_eq!(may_hold_pii(&text), naive(text.as_bytes()), "{text:?}");
        }
        assert!(has_digit_run(b"12345678901"));
        assert!(!has_digit_run(b"1234567890"));
        assert!(has_digit_run("号码 138 1234 5678。".as_bytes()));
        assert!(!has_digit_run(b"---------------- 123"));
    }

    #[test]
    fn bucketed_sort_is_a_sort() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        // Many distinct keys, and a few keys shared by many entries (footprints).
        let keys: Vec<SortKey> = (0..200_000u32)
            .map(|i| match i % 3 {
                0 => sort_key(u128::from(next() % 7), 1, i as usize),
                _ => (next(), next() as u32, i),
            })
            .collect();
        let parts = vec![keys[..70_000].to_vec(), vec![], keys[70_000..].to_vec()];
        assert_eq!(sort_keys(parts), want_of(&keys));
        assert_eq!(sort_keys(vec![keys[..500].to_vec()]), want_of(&keys[..500]));
    }

    fn want_of(keys: &[SortKey]) -> Vec<SortKey> {
        let mut v = keys.to_vec();
        v.sort_unstable();
        v
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

    fn near_groups(f: &[Finding]) -> Vec<Vec<&str>> {
        f.iter()
            .filter(|f| f.check == Check::Duplicates && f.kind == "near")
            .map(|f| f.entry_ids.iter().map(|id| id.as_str()).collect())
            .collect()
    }

    #[test]
    fn near_duplicates_by_ngrams_in_chinese_and_english() {
        let f = check(&[
            "用户偏好简洁的回复，不用列表。",
            "User prefers short answers without lists",
            "用户喜欢周末去香山爬山",
            "用户偏好简洁的回复,不要用列表",
            "The user prefers short answers, no lists.",
            "User prefers long answers with many examples",
            "用户偏好详细的回复，多用列表。",
            "短句",
            "短句！",
        ]);
        assert_eq!(
            near_groups(&f),
            [vec!["a0", "a3"], vec!["a1", "a4"]],
            "{f:?}"
        );
        let near: Vec<&Finding> = f.iter().filter(|f| f.kind == "near").collect();
        assert_eq!(near[0].params["basis"], "text");
        assert_eq!(near[0].params["count"], "2");
        let s: f64 = near[1].params["similarity"].parse().unwrap();
        assert!((near_dup::THRESHOLD..1.0).contains(&s), "{s}");
        assert_eq!(near[0].fix, None);
        // "短句" / "短句！" are the same entry (exact), not near.
        assert!(f.iter().any(|f| f.kind == "exact"));
    }

    #[test]
    fn footprints_of_one_request_group_whatever_the_reply() {
        let f = check(&[
            "触发「总结日志」⇒ 已总结 3 个错误（第 1 次）",
            "触发「查询明天北京的天气」⇒ 邮件已发送给 5 位收件人",
            "触发「总结日志」⇒ no issues found",
            "触发「审查这个合并请求」⇒ 邮件已发送给 5 位收件人",
            "触发「总结日志」⇒ 已总结 5 个错误（第 2 次）",
        ]);
        assert_eq!(near_groups(&f), [vec!["a0", "a2", "a4"]], "{f:?}");
        let near = f.iter().find(|f| f.kind == "near").unwrap();
        assert_eq!(near.params["basis"], "request");
        assert_eq!(near.params["request"], "总结日志");
        // Numbers only, outside footprints: as before.
        let f = check(&["cache cleared: 1.3 GB freed", "cache cleared: 2.7 GB freed"]);
        assert_eq!(near_groups(&f), [vec!["a0", "a1"]]);
        assert_eq!(f[0].params["basis"], "numbers");
        assert_eq!(f[0].params["similarity"], "1.00");
    }

    #[test]
    fn dismissed_findings_are_left_out_and_counted_from_the_bytes_as_from_entries() {
        use crate::memory::review::entry_key;
        // Enough entries for several threads: footprints of one request (a near group across
        // the parts), a stale word, a phone number, a secret, an exact duplicate.
        let mut text =
            String::from("## 核心记忆\n- [2026-01-01 10:00:00] 用户偏好简洁的回复\n## 归档记忆\n");
        let planted = [
            "明天上午十点开会",
            "电话 13812345678",
            "key sk-proj-abcdefghijklmnopqrstuvwxyz0123",
            "the build is green",
            "The build is green!",
            "the build is green.",
        ];
        for (i, p) in planted.iter().enumerate() {
            text.push_str(&format!("- [2026-01-0{} 09:00:00] {p}\n", i + 1));
        }
        for i in 0..PARALLEL_FROM + 3_000 {
            text.push_str(&format!(
                "- [2026-02-01 10:00:00] 触发「总结日志」⇒ 已总结 {i} 个错误\n"
            ));
        }
        let opts = Options {
            now: crate::timefmt::parse_entry_ts("2026-03-01 10:00:00").unwrap(),
            ..Options::default()
        };
        let all = run_markdown(text.as_bytes(), &opts);
        assert_eq!(all.dismissed, 0);
        let kinds: Vec<&str> = all.findings.iter().map(|f| f.kind.as_str()).collect();
        assert_eq!(
            kinds,
            ["relative_time", "phone", "openai_key", "exact", "near"]
        );
        // Each entry's key by its id, as the console remembers a dismissal.
        let sections = crate::memory::format::parse(text.as_bytes()).sections;
        let mut key_of = std::collections::HashMap::new();
        for scope in [Scope::Core, Scope::Archival] {
            for (i, e) in sections.of(scope).iter().enumerate() {
                key_of.insert(
                    super::super::curate::markdown_id(scope, i, &e.line),
                    entry_key(scope, e),
                );
            }
        }
        let dismiss = |f: &Finding, ids: &[EntryId]| -> Vec<u64> {
            ids.iter()
                .map(|id| dismiss_key(f.check.as_str(), key_of[id.as_str()]))
                .collect()
        };
        // Dismissed: the stale word, the phone number, the near group; of the exact
        // duplicates, all but one entry (so that finding stays); the secret, for another check.
        let f = &all.findings;
        let mut keys = Vec::new();
        for k in [0, 1, 4] {
            keys.extend(dismiss(&f[k], &f[k].entry_ids));
        }
        keys.extend(dismiss(&f[3], &f[3].entry_ids[1..]));
        keys.extend(
            f[2].entry_ids
                .iter()
                .map(|id| dismiss_key("pii", key_of[id.as_str()])),
        );
        keys.sort_unstable();
        let opts = Options {
            dismissed: Some(std::sync::Arc::new(Reviewed { at: 0, keys })),
            ..opts
        };
        let shown = run_markdown(text.as_bytes(), &opts);
        assert_eq!(shown.dismissed, 3);
        assert_eq!(shown.findings, [f[2].clone(), f[3].clone()]);
        // The same over the parsed entries (the console's other way).
        let items: Vec<Item> = [Scope::Core, Scope::Archival]
            .into_iter()
            .flat_map(|scope| {
                sections
                    .of(scope)
                    .iter()
                    .enumerate()
                    .map(move |(i, e)| Item {
                        id: super::super::curate::markdown_id(scope, i, &e.line),
                        scope,
                        entry: e,
                    })
            })
            .collect();
        assert_eq!(run(&items, None, &opts), shown);
    }

    #[test]
    fn params_carry_what_each_reason_says() {
        let f = check(&[
            "密码：hunter22 邮箱 lin.xiao@example.com",
            "明天上午十点开会",
        ]);
        let by: Vec<(&str, &BTreeMap<String, String>)> =
            f.iter().map(|f| (f.check.as_str(), &f.params)).collect();
        assert_eq!(by[0].0, "secrets");
        assert_eq!(by[0].1["kinds"], "password");
        assert_eq!(by[1].0, "pii");
        assert_eq!(by[1].1["kinds"], "email");
        assert_eq!(by[2].0, "stale");
        assert_eq!(by[2].1["word"], "明天");
        assert_eq!(by[2].1["age_days"], "59");
        let f = check(&["same thing", "Same thing!"]);
        assert_eq!(f[0].params["count"], "2");
        let json = serde_json::to_value(&f[0]).unwrap();
        assert_eq!(json["params"]["count"], "2");
    }

    #[test]
    fn many_entries_are_checked_on_several_threads_in_item_order() {
        let mut texts: Vec<String> = (0..PARALLEL_FROM + 5_000)
            .map(|i| format!("note {i}: the build took {} seconds", i % 97))
            .collect();
        // At the ends of the threads' parts and of the blocks a part is read in.
        let planted = [0, BLOCK - 1, BLOCK, 12_499, 12_500, texts.len() - 1];
        for &i in &planted {
            texts[i] = format!("key sk-proj-abcdefghijklmnopqrstuvwxyz{i:06}");
        }
        let t: Vec<&str> = texts.iter().map(String::as_str).collect();
        let f = check(&t);
        let secrets: Vec<String> = f
            .iter()
            .filter(|f| f.check == Check::Secrets)
            .map(|f| f.entry_ids[0].to_string())
            .collect();
        let want: Vec<String> = planted.iter().map(|i| format!("a{i}")).collect();
        assert_eq!(secrets, want);
        // The notes differ only in numbers, and so do the planted keys: two near groups, their
        // ids made on each thread for its part and each in its place.
        let notes: Vec<String> = (0..texts.len())
            .filter(|i| !planted.contains(i))
            .map(|i| format!("a{i}"))
            .collect();
        let groups: Vec<Vec<String>> = near_groups(&f)
            .iter()
            .map(|g| g.iter().map(|id| id.to_string()).collect())
            .collect();
        assert_eq!(groups, [want, notes]);
    }

    #[test]
    fn near_groups_do_not_depend_on_entry_order() {
        let texts: Vec<String> = (0..60)
            .map(|i| match i % 6 {
                0 => format!("用户偏好简洁的回复，不用列表（{i}）"),
                1 => "The user prefers short answers, no lists.".to_string() + &"!".repeat(i),
                2 => format!("触发「整理会议纪要」⇒ 第 {i} 份已归档"),
                3 => format!("deploy number {i} finished without errors"),
                4 => format!(
                    "用户的第{i}个兴趣是{}",
                    ["爬山", "游泳", "围棋", "摄影"][i % 4]
                ),
                _ => format!(
                    "unrelated note {} about {}",
                    i * 7919 % 1000,
                    ["cats", "tea", "rust"][i % 3]
                ),
            })
            .collect();
        let sets = |order: &[usize]| {
            let t: Vec<&str> = order.iter().map(|&i| texts[i].as_str()).collect();
            let f = check(&t);
            // Back to the original indices, as sorted sets.
            let mut g: Vec<Vec<usize>> = near_groups(&f)
                .into_iter()
                .map(|g| {
                    let mut g: Vec<usize> = g
                        .iter()
                        .map(|id| order[id[1..].parse::<usize>().unwrap()])
                        .collect();
                    g.sort();
                    g
                })
                .collect();
            g.sort();
            g
        };
        let straight: Vec<usize> = (0..texts.len()).collect();
        let expected = sets(&straight);
        assert!(expected.len() >= 4, "{expected:?}");
        let mut order = straight.clone();
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..20 {
            // Fisher–Yates with a fixed xorshift, so a failure repeats.
            for i in (1..order.len()).rev() {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                order.swap(i, (seed % (i as u64 + 1)) as usize);
            }
            assert_eq!(sets(&order), expected, "order {order:?}");
        }
    }
}
