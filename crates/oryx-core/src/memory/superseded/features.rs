//! What the rules read off one entry: its values (phone numbers, e-mail addresses, dates,
//! times, other numbers), the places it names, its markers (change, addition, negation, a
//! single-valued frame), and the words left once those are masked (its "residue": two entries
//! about the same slot have the same residue).

use std::collections::BTreeSet;
use std::sync::OnceLock;

use regex::Regex;

use super::lexicon::*;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ValueKind {
    Phone,
    Email,
    Date,
    Time,
    Number,
}

#[derive(Debug, Default, Clone)]
pub struct Features {
    /// Values by kind, normalised (digits only for a phone, lower case for an address).
    pub values: BTreeSet<(ValueKind, String)>,
    /// Place ids (see [`PLACES`]).
    pub places: BTreeSet<&'static str>,
    pub change: bool,
    pub additive: bool,
    pub negated: bool,
    /// A frame that holds one value at a time.
    pub single: bool,
    /// A preference frame (one choice at a time).
    pub prefer: bool,
    /// A frame whose date is one thing's (a birthday, a deadline), not an event's.
    pub single_date: bool,
    /// Words (English, lower case) and characters (Chinese) left after masking.
    pub residue: BTreeSet<String>,
    /// Whose fact it is when not the user's: a possessive name ("Alice's"), a role
    /// ("mother", "同事"), a nickname ("老王").
    pub holders: BTreeSet<String>,
    /// The newer state of a group of exclusive states (see [`STATES`]): (group, state).
    pub states: BTreeSet<(usize, &'static str)>,
    /// Says the state it names ended ("left", "不再").
    pub ended: bool,
    pub has_zh: bool,
    pub has_en: bool,
}

impl Features {
    pub fn kinds(&self) -> BTreeSet<ValueKind> {
        self.values.iter().map(|(k, _)| *k).collect()
    }

    pub fn of_kind(&self, kind: ValueKind) -> BTreeSet<&str> {
        self.values
            .iter()
            .filter(|(k, _)| *k == kind)
            .map(|(_, v)| v.as_str())
            .collect()
    }
}

fn patterns() -> &'static [(ValueKind, Regex)] {
    static P: OnceLock<Vec<(ValueKind, Regex)>> = OnceLock::new();
    P.get_or_init(|| {
        let re = |s: &str| Regex::new(s).expect("a valid pattern");
        let month = "(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\\.?";
        vec![
            (ValueKind::Email, re(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")),
            (
                ValueKind::Date,
                re(&format!(
                    r"(?i)\d{{4}}[-/.年]\d{{1,2}}[-/.月]\d{{1,2}}[日号]?|\d{{1,2}}月\d{{1,2}}[日号]?|\d{{1,2}}月份?|(?-u:\b){month}\s+\d{{1,2}}(?:st|nd|rd|th)?(?-u:\b)|(?-u:\b)\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{month}|(?:周|星期|礼拜)[一二三四五六日天]|(?-u:\b)(?:mon|tues|wednes|thurs|fri|satur|sun)day(?-u:\b)|(?-u:\b)(?:january|february|march|april|june|july|august|september|october|november|december)(?-u:\b)"
                )),
            ),
            (
                ValueKind::Time,
                re(r"(?i)\d{1,2}:\d{2}|(?-u:\b)\d{1,2}\s?(?:am|pm)(?-u:\b)|[上下]午\s?[\d一二三四五六七八九十]{1,3}点(?:半|\d{1,2}分)?|[\d一二三四五六七八九十]{1,3}点(?:半|\d{1,2}分)?"),
            ),
            (ValueKind::Phone, re(r"\+?\d[\d\- ()]{5,}\d")),
            (ValueKind::Number, re(r"\d+(?:\.\d+)?")),
        ]
    })
}

fn normalise(kind: ValueKind, s: &str) -> Option<String> {
    match kind {
        ValueKind::Phone => {
            let digits: String = s.chars().filter(char::is_ascii_digit).collect();
            // Fewer digits is a number with separators, not a phone number.
            (digits.len() >= 7).then_some(digits)
        }
        ValueKind::Email => Some(s.to_lowercase()),
        _ => Some(
            s.to_lowercase()
                .chars()
                .filter(|c| !c.is_whitespace())
                .collect(),
        ),
    }
}

fn is_cjk(c: char) -> bool {
    ('\u{4e00}'..='\u{9fff}').contains(&c) || ('\u{3400}'..='\u{4dbf}').contains(&c)
}

/// `text` in lower case, every character but letters, digits and apostrophes a space, padded
/// with one space each side: a phrase is a word sequence when ` phrase ` occurs in it.
fn padded_words(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push(' ');
    for c in text.chars() {
        match c {
            '’' | '\'' => out.push('\''),
            c if c.is_alphanumeric() && !is_cjk(c) => out.extend(c.to_lowercase()),
            _ => out.push(' '),
        }
    }
    out.push(' ');
    // Collapse runs of spaces so that phrases match across punctuation.
    let mut collapsed = String::with_capacity(out.len());
    let mut last_space = false;
    for c in out.chars() {
        if c == ' ' && last_space {
            continue;
        }
        last_space = c == ' ';
        collapsed.push(c);
    }
    collapsed
}

fn has_phrase(words: &str, phrase: &str) -> bool {
    if phrase == "n't" {
        return words.contains("n't ");
    }
    words.contains(&format!(" {phrase} "))
}

fn any_zh(text: &str, list: &[&str]) -> bool {
    list.iter().any(|w| text.contains(w))
}

fn any_en(words: &str, list: &[&str]) -> bool {
    list.iter().any(|w| has_phrase(words, w))
}

/// Chinese negation: 不/没/别/无 that are not part of a word that means something else.
fn zh_negated(text: &str) -> bool {
    const NOT_NEGATION: &[&str] = &[
        "不错",
        "不少",
        "不久",
        "不同",
        "不过",
        "不断",
        "无论",
        "没关系",
        "不仅",
        "差不多",
        "不管",
        "不一定",
    ];
    let mut t = text.to_string();
    for w in NOT_NEGATION {
        t = t.replace(w, "");
    }
    NEGATION_ZH.iter().any(|w| t.contains(w))
}

pub fn features(text: &str) -> Features {
    let mut f = Features::default();
    // Word boundaries in the patterns are ASCII ones ((?-u:\b)): a Unicode boundary keeps the
    // regex engine off its fast path on Chinese text (features of 2 000 entries took 0.7 s).
    // Counters ("第 63 次", "#12") number repetitions of one thing, not values of it: masked
    // first, and not values (a repeated footprint is a near duplicate, not a change).
    let mut masked = counter().replace_all(text, " ").into_owned();
    // Values, masked as they are found (an e-mail's digits are not a phone number).
    for (kind, re) in patterns() {
        let mut spans = Vec::new();
        for m in re.find_iter(&masked) {
            if let Some(v) = normalise(*kind, m.as_str()) {
                f.values.insert((*kind, v));
                spans.push(m.range());
            }
        }
        for r in spans.into_iter().rev() {
            masked.replace_range(r, " ");
        }
    }
    // Places: Chinese names as substrings, other names as whole words.
    let lower = masked.to_lowercase();
    let mut words = padded_words(&masked);
    let mut zh_masked = masked.clone();
    for (id, names) in PLACES {
        for name in *names {
            if name.chars().any(is_cjk) {
                if zh_masked.contains(name) {
                    f.places.insert(id);
                    zh_masked = zh_masked.replace(name, " ");
                }
            } else if lower.contains(name) && has_phrase(&words, name) {
                f.places.insert(id);
                words = words.replace(&format!(" {name} "), " ");
            }
        }
    }
    f.change = any_zh(text, CHANGE_ZH) || any_en(&words, CHANGE_EN);
    f.additive = any_zh(text, ADDITIVE_ZH) || any_en(&words, ADDITIVE_EN);
    f.negated = zh_negated(text) || any_en(&words, NEGATION_EN);
    f.single = any_zh(text, SINGLE_ZH) || any_en(&words, SINGLE_EN);
    f.prefer = any_zh(text, PREFER_ZH) || any_en(&words, PREFER_EN);
    f.single_date = any_zh(text, SINGLE_DATE_ZH) || any_en(&words, SINGLE_DATE_EN);
    // Residue: Chinese characters of the masked text, English words of the masked words.
    for c in zh_masked.chars().filter(|c| is_cjk(*c)) {
        f.has_zh = true;
        if !STOP_ZH.contains(&c) {
            f.residue.insert(c.to_string());
        }
    }
    for w in words.split(' ').filter(|w| !w.is_empty()) {
        let w = w.trim_end_matches("'s").trim_matches('\'');
        if w.is_empty() || w.chars().all(|c| c.is_ascii_digit()) {
            continue;
        }
        f.has_en = true;
        if !STOP_EN.contains(&w) && !CHANGE_EN.contains(&w) && !ADDITIVE_EN.contains(&w) {
            f.residue.insert(stem(w));
        }
    }
    // Holders: possessive names, roles, nicknames.
    for w in padded_words_keep_case(&masked).split_whitespace() {
        let first = w.chars().next().unwrap_or(' ');
        let lw = w.to_lowercase();
        let bare = lw.trim_end_matches("'s");
        if w.ends_with("'s") && first.is_uppercase() && !STOP_EN.contains(&bare) {
            f.holders.insert(bare.to_string());
        }
    }
    for (id, names) in HOLDERS {
        if names.iter().any(|n| match n.chars().any(is_cjk) {
            true => text.contains(n),
            false => has_phrase(&words, n) || has_phrase(&words, &format!("{n}'s")),
        }) {
            f.holders.insert(id.to_string());
        }
    }
    for nick in nickname().find_iter(text) {
        f.holders.insert(nick.as_str().to_string());
    }
    for (g, group) in STATES.iter().enumerate() {
        for (state, names) in group.iter() {
            if any_zh(text, names) || any_en(&words, names) {
                f.states.insert((g, state));
            }
        }
    }
    f.ended = any_zh(text, ENDED_ZH) || any_en(&words, ENDED_EN);
    f
}

fn counter() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        Regex::new(r"(?i)第\s*\d+\s*[次条个回遍轮]|#\d+|(?-u:\b)no\.\s*\d+|(?-u:\b)(?:attempt|run|try|round|time)\s+\d+(?-u:\b)")
            .expect("a valid pattern")
    })
}

/// "老王", "小李": a person called by a nickname.
fn nickname() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| Regex::new(r"[老小][\p{Han}](?:的|说|家)").expect("a valid pattern"))
}

fn padded_words_keep_case(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '’' => '\'',
            c if c.is_alphanumeric() && !is_cjk(c) || c == '\'' => c,
            _ => ' ',
        })
        .collect()
}

/// A crude English stem (plural and verb endings) so that "meetings" and "meeting" match.
fn stem(w: &str) -> String {
    for suffix in ["ing", "ies", "es", "ed", "s"] {
        if w.len() > suffix.len() + 3 {
            if let Some(s) = w.strip_suffix(suffix) {
                return s.to_string();
            }
        }
    }
    w.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_places_and_markers_are_read() {
        let f = features("用户的手机号换成 139-1234-5678 了，邮箱 a.b@x.com");
        assert!(f.values.contains(&(ValueKind::Phone, "13912345678".into())));
        assert!(f.values.contains(&(ValueKind::Email, "a.b@x.com".into())));
        assert!(f.change);
        let f = features("The user moved to New York in March");
        assert!(f.places.contains("newyork"));
        assert!(f.change);
        assert!(f.values.iter().any(|(k, _)| *k == ValueKind::Date));
        let f = features("用户住在北京");
        assert!(f.places.contains("beijing") && f.single && !f.change);
        let f = features("The user does not drink coffee");
        assert!(f.negated);
        let f = features("用户觉得这家店不错");
        assert!(!f.negated);
        let f = features("触发「明天」⇒ 10:00 架构评审（第 63 次）");
        assert!(!f.values.iter().any(|(k, _)| *k == ValueKind::Number));
    }

    #[test]
    fn residue_leaves_out_values_places_and_stop_words() {
        let a = features("User lives in Berlin");
        let b = features("The user now lives in Paris");
        assert_eq!(a.residue, b.residue);
        let a = features("Alice's phone number is 555-123-4567");
        let b = features("Bob's phone number is 555-987-6543");
        assert_ne!(a.residue, b.residue);
        assert_ne!(a.holders, b.holders);
        assert!(features("用户的妈妈住在成都").holders.contains("mother"));
        assert!(features("老王的电话").holders.contains("老王的"));
    }
}
