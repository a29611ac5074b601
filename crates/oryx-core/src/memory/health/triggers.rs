//! The literals without which no secret rule and no stale word can match, found in one pass
//! over an entry by one Aho-Corasick automaton. A 100 MB archive has ~900 000 entries and
//! almost none holds a trigger, so the regexes run only on the few that do; one automaton
//! instead of a regex per check, because a regex call per entry costs more in setup (its
//! cache pool) than the scan of ~100 bytes.
//!
//! Exactness: the old prefilters were case-insensitive regexes, which fold `ſ` (U+017F) to `s`
//! and `K` (U+212A) to `k`; an ASCII-case-insensitive automaton does not, so an entry holding
//! either is marked `folded` and its checks take the regex path as before.

use std::sync::OnceLock;

use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};

use super::STALE_ZH;

/// What the literals found in an entry say about it.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Triggers {
    /// A literal every secret rule needs (the case of case-sensitive ones checked).
    pub secret: bool,
    /// The first Chinese time word present, in the order of [`STALE_ZH`] (not of the text:
    /// the stale check reports the first word of its list that the entry holds).
    pub zh_word: Option<usize>,
    /// An English time word, case aside (word boundaries are the regex's to check).
    pub en_word: bool,
    /// `ſ` or `K`: letters case-insensitive regexes fold into ASCII ones.
    pub folded: bool,
}

#[derive(Clone, Copy)]
enum Kind {
    Secret { exact_case: bool },
    Zh(usize),
    En,
    Folded,
}

/// Secret literals, as the old single prefilter regex spelled them out:
/// `-----BEGIN|sk-|AKIA|ASIA|gh[pousr]_|github_pat_|xox[abposr]-|AIza|[sr]k_(?:live|test)_|eyJ|://`
/// (case-sensitive) and `(?i:passw|pwd)|密码|口令`.
const SECRET_EXACT: &[&str] = &[
    "-----BEGIN",
    "sk-",
    "AKIA",
    "ASIA",
    "ghp_",
    "gho_",
    "ghu_",
    "ghs_",
    "ghr_",
    "github_pat_",
    "xoxa-",
    "xoxb-",
    "xoxp-",
    "xoxo-",
    "xoxs-",
    "xoxr-",
    "AIza",
    "sk_live_",
    "sk_test_",
    "rk_live_",
    "rk_test_",
    "eyJ",
    "://",
    "密码",
    "口令",
];
const SECRET_ANY_CASE: &[&str] = &["passw", "pwd"];

/// The stale check's English words without their word boundaries (`(?:on )?` adds nothing to
/// whether one is present).
const EN_WORDS: &[&str] = &[
    "tomorrow",
    "tonight",
    "next week",
    "next month",
    "this week",
    "this afternoon",
    "this evening",
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
];

fn automaton() -> &'static (AhoCorasick, Vec<(Kind, &'static str)>) {
    static AC: OnceLock<(AhoCorasick, Vec<(Kind, &'static str)>)> = OnceLock::new();
    AC.get_or_init(|| {
        let mut patterns: Vec<(Kind, &'static str)> = Vec::new();
        patterns.extend(
            SECRET_EXACT
                .iter()
                .map(|p| (Kind::Secret { exact_case: true }, *p)),
        );
        patterns.extend(
            SECRET_ANY_CASE
                .iter()
                .map(|p| (Kind::Secret { exact_case: false }, *p)),
        );
        patterns.extend(STALE_ZH.iter().enumerate().map(|(i, w)| (Kind::Zh(i), *w)));
        patterns.extend(EN_WORDS.iter().map(|w| (Kind::En, *w)));
        patterns.extend(["\u{17f}", "\u{212a}"].map(|p| (Kind::Folded, p)));
        let ac = AhoCorasick::builder()
            // Overlapping matches: a literal inside another (下星期一: 下星期, 星期一) counts.
            .match_kind(MatchKind::Standard)
            .ascii_case_insensitive(true)
            .kind(Some(AhoCorasickKind::DFA))
            .prefilter(false)
            .build(patterns.iter().map(|p| p.1))
            .expect("valid literals");
        (ac, patterns)
    })
}

/// The triggers of one entry's text.
pub fn scan(text: &str) -> Triggers {
    let (ac, patterns) = automaton();
    let mut t = Triggers::default();
    for m in ac.find_overlapping_iter(text) {
        let (kind, literal) = patterns[m.pattern().as_usize()];
        match kind {
            Kind::Secret { exact_case } => {
                t.secret |= !exact_case || &text[m.start()..m.end()] == literal;
            }
            Kind::Zh(i) => t.zh_word = Some(t.zh_word.map_or(i, |j| j.min(i))),
            Kind::En => t.en_word = true,
            Kind::Folded => t.folded = true,
        }
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_s_and_k_have_non_ascii_case_folds() {
        // Why `ſ` and `K` are the only letters marked `folded`: no other character matches an
        // ASCII letter case-insensitively in the regex crate.
        for l in b'a'..=b'z' {
            let re = regex::Regex::new(&format!("(?i)^{}$", l as char)).unwrap();
            for c in (0x80..=0x10_ffffu32).filter_map(char::from_u32) {
                if re.is_match(c.encode_utf8(&mut [0; 4])) {
                    assert!(matches!(c, '\u{17f}' | '\u{212a}'), "{c:?} folds to {l}");
                }
            }
        }
    }

    #[test]
    fn literals_in_any_case_and_overlapping() {
        assert!(scan("my PassWord: x").secret);
        assert!(!scan("a task list").secret);
        assert!(
            scan("ask-me-later").secret,
            "sk- as the old prefilter saw it"
        );
        assert!(scan("key sk-abc").secret);
        assert!(!scan("akia asia").secret);
        assert!(!scan("eyj").secret);
        assert_eq!(
            scan("下星期一开会").zh_word,
            STALE_ZH.iter().position(|w| *w == "下星期")
        );
        assert!(scan("on MONDAY").en_word);
        assert!(scan("ſunday").folded);
        assert_eq!(scan("用户偏好简洁的回复"), Triggers::default());
    }
}
