//! The literals without which no secret rule, no stale word and no poisoning signal but a
//! base64 run can match, found in one pass
//! over an entry by one Aho-Corasick automaton. A 100 MB archive has ~900 000 entries and
//! almost none holds a trigger, so the regexes run only on the few that do; one automaton
//! instead of a regex per check, because a regex call per entry costs more in setup (its
//! cache pool) than the scan of ~100 bytes. The automaton (aho-corasick's DFA) is copied into
//! one table of next states by byte class, stepped through four entries at once
//! ([`scan_each`]).
//!
//! Exactness: the old prefilters were case-insensitive regexes, which fold `ſ` (U+017F) to `s`
//! and `K` (U+212A) to `k`; an ASCII-case-insensitive automaton does not, so an entry holding
//! either is marked `folded` and its checks take the regex path as before.

use std::sync::OnceLock;

use aho_corasick::MatchKind;

use super::poisoning;
use super::stale::STALE_ZH;
use crate::interleaved_fold::fold_each;

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
    /// A literal of a poisoning signal or a hidden character ([`poisoning::LITERALS`],
    /// [`poisoning::HIDDEN_PREFIXES`]).
    pub poison: bool,
}

#[derive(Clone, Copy)]
enum Kind {
    Secret { exact_case: bool },
    Zh(usize),
    En,
    Folded,
    Poison,
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

/// The literals and what each says (bytes: a tag character is found by its first three).
fn patterns() -> Vec<(Kind, &'static [u8])> {
    let mut patterns: Vec<(Kind, &'static [u8])> = Vec::new();
    patterns.extend(
        SECRET_EXACT
            .iter()
            .map(|p| (Kind::Secret { exact_case: true }, p.as_bytes())),
    );
    patterns.extend(
        SECRET_ANY_CASE
            .iter()
            .map(|p| (Kind::Secret { exact_case: false }, p.as_bytes())),
    );
    patterns.extend(
        STALE_ZH
            .iter()
            .enumerate()
            .map(|(i, w)| (Kind::Zh(i), w.as_bytes())),
    );
    patterns.extend(EN_WORDS.iter().map(|w| (Kind::En, w.as_bytes())));
    patterns.extend(["\u{17f}", "\u{212a}"].map(|p| (Kind::Folded, p.as_bytes())));
    patterns.extend(
        poisoning::LITERALS
            .iter()
            .map(|w| (Kind::Poison, w.as_bytes())),
    );
    patterns.extend(
        poisoning::HIDDEN_PREFIXES
            .iter()
            .map(|p| (Kind::Poison, *p)),
    );
    patterns
}

/// What a match state says: its bits of [`Found`], and the case-sensitive literals that end
/// there (their case is checked in the text).
#[derive(Default)]
struct MatchInfo {
    bits: Found,
    exact: Vec<&'static [u8]>,
}

/// [`Triggers`] as bits while an entry is scanned: the Chinese words by their index in
/// [`STALE_ZH`] (the first one present is the lowest bit), then the others.
type Found = u32;
const POISON: Found = 1 << 28;
const EN: Found = 1 << 29;
const FOLDED: Found = 1 << 30;
const SECRET: Found = 1 << 31;
const _: () = assert!(STALE_ZH.len() < 28);

/// Aho-Corasick's automaton of the literals as one table of next states by byte class: a step
/// is one load, with what a match state says kept apart (out of the loop).
struct Table {
    class: [u8; 256],
    /// Next states, premultiplied by the number of classes; the match states come first, so
    /// a state is a match state when it is below `plain`.
    next: Vec<u16>,
    start: u32,
    plain: u32,
    classes: u32,
    /// By state (premultiplied id ÷ classes), for the match states.
    matches: Vec<MatchInfo>,
}

impl Table {
    /// What the match state `state` says, reached at the end of `text` (out of the loop: few
    /// bytes end a literal, and the loop keeps its states in registers without this code).
    #[cold]
    #[inline(never)]
    fn found(&self, state: u32, text: &[u8]) -> Found {
        let m = &self.matches[(state / self.classes) as usize];
        match m.exact.iter().any(|l| text.ends_with(l)) {
            true => m.bits | SECRET,
            false => m.bits,
        }
    }
}

fn table() -> &'static Table {
    use aho_corasick::automaton::Automaton;
    use aho_corasick::{dfa::DFA, Anchored, StartKind};
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| {
        let patterns = patterns();
        let dfa = DFA::builder()
            // Overlapping matches: a literal inside another (下星期一: 下星期, 星期一) counts.
            .match_kind(MatchKind::Standard)
            .ascii_case_insensitive(true)
            .start_kind(StartKind::Unanchored)
            .prefilter(false)
            .build(patterns.iter().map(|p| p.1))
            .expect("valid literals");
        let start = dfa.start_state(Anchored::No).expect("an unanchored start");
        // Every state reachable from the start, then numbered with the match states first.
        let mut seen = vec![start];
        let mut k = 0;
        while k < seen.len() {
            for b in 0..=255u8 {
                let to = dfa.next_state(Anchored::No, seen[k], b);
                if !seen.contains(&to) {
                    seen.push(to);
                }
            }
            k += 1;
        }
        seen.sort_by_key(|&s| !dfa.is_match(s));
        let index = |s| {
            seen.iter()
                .position(|&x| x == s)
                .expect("a reachable state")
        };
        // Bytes that lead every state to the same next state are one class.
        let mut columns: Vec<Vec<usize>> = Vec::new();
        let mut class = [0u8; 256];
        for b in 0..=255u8 {
            let column: Vec<usize> = seen
                .iter()
                .map(|&s| index(dfa.next_state(Anchored::No, s, b)))
                .collect();
            class[b as usize] = match columns.iter().position(|c| *c == column) {
                Some(c) => c,
                None => {
                    columns.push(column);
                    columns.len() - 1
                }
            } as u8;
        }
        let classes = columns.len();
        let mut next = vec![0u16; seen.len() * classes];
        for (c, column) in columns.iter().enumerate() {
            for (s, &to) in column.iter().enumerate() {
                next[s * classes + c] = u16::try_from(to * classes).expect("a small automaton");
            }
        }
        let matches = seen
            .iter()
            .take_while(|&&s| dfa.is_match(s))
            .map(|&s| {
                let mut m = MatchInfo::default();
                for k in 0..dfa.match_len(s) {
                    let (kind, literal) = patterns[dfa.match_pattern(s, k).as_usize()];
                    match kind {
                        Kind::Secret { exact_case: true } => m.exact.push(literal),
                        Kind::Secret { exact_case: false } => m.bits |= SECRET,
                        Kind::Zh(i) => m.bits |= 1 << i,
                        Kind::En => m.bits |= EN,
                        Kind::Folded => m.bits |= FOLDED,
                        Kind::Poison => m.bits |= POISON,
                    }
                }
                m
            })
            .collect::<Vec<_>>();
        Table {
            class,
            start: (index(start) * classes) as u32,
            plain: (matches.len() * classes) as u32,
            classes: classes as u32,
            next,
            matches,
        }
    })
}

/// The triggers of each text, four texts stepped through the table at once
/// ([`fold_each`]): a step is a load that waits for the last one, and one text at a time
/// leaves the core waiting (the largest part of the per-entry checks on a large archive).
pub fn scan_each(texts: &[&str]) -> Vec<Triggers> {
    let t = table();
    let bytes: Vec<&[u8]> = texts.iter().map(|s| s.as_bytes()).collect();
    let mut found = Vec::with_capacity(texts.len());
    fold_each(
        &bytes,
        (t.start, 0),
        &mut found,
        |(state, found), b, i, end| {
            *state = u32::from(t.next[(*state + u32::from(t.class[b as usize])) as usize]);
            if *state < t.plain {
                *found |= t.found(*state, &bytes[i][..end]);
            }
        },
    );
    found.into_iter().map(|(_, f)| triggers(f)).collect()
}

/// The triggers of one entry's text.
#[cfg(test)]
pub fn scan(text: &str) -> Triggers {
    scan_each(&[text])[0]
}

fn triggers(found: Found) -> Triggers {
    Triggers {
        secret: found & SECRET != 0,
        zh_word: (found & (POISON - 1) != 0).then(|| found.trailing_zeros() as usize),
        en_word: found & EN != 0,
        folded: found & FOLDED != 0,
        poison: found & POISON != 0,
    }
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

    /// The triggers as Aho-Corasick's own overlapping search reports them.
    fn reference(text: &str) -> Triggers {
        static AC: OnceLock<aho_corasick::AhoCorasick> = OnceLock::new();
        let patterns = patterns();
        let ac = AC.get_or_init(|| {
            aho_corasick::AhoCorasick::builder()
                .match_kind(MatchKind::Standard)
                .ascii_case_insensitive(true)
                .build(patterns.iter().map(|p| p.1))
                .unwrap()
        });
        let mut t = Triggers::default();
        for m in ac.find_overlapping_iter(text) {
            let (kind, literal) = patterns[m.pattern().as_usize()];
            match kind {
                Kind::Secret { exact_case } => {
                    t.secret |= !exact_case || &text.as_bytes()[m.start()..m.end()] == literal;
                }
                Kind::Zh(i) => t.zh_word = Some(t.zh_word.map_or(i, |j| j.min(i))),
                Kind::En => t.en_word = true,
                Kind::Folded => t.folded = true,
                Kind::Poison => t.poison = true,
            }
        }
        t
    }

    #[test]
    fn the_table_finds_what_the_automaton_finds() {
        // Texts made of pieces of every literal, in any case, between Chinese and ASCII text.
        // (A tag character's first bytes are no text: whole tag characters stand for them.)
        let mut pieces: Vec<String> = patterns()
            .iter()
            .filter_map(|p| std::str::from_utf8(p.1).ok().map(str::to_string))
            .collect();
        pieces.extend(pieces.clone().iter().map(|p| p.to_uppercase()));
        pieces.extend(
            [
                "下",
                "星期",
                "周",
                "天",
                "sk",
                "-",
                "a",
                "用户",
                " ",
                "x",
                "\u{e0041}",
                "\u{e007f}",
                "\u{2060}",
            ]
            .map(String::from),
        );
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let texts: Vec<String> = (0..20_000)
            .map(|_| {
                let mut text = String::new();
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                for k in 0..(x % 9) {
                    let piece =
                        &pieces[(x.rotate_left(k as u32 * 7) % pieces.len() as u64) as usize];
                    // Now and then a piece cut short, so that literals start and are left.
                    let cut = piece
                        .char_indices()
                        .nth(1 + (k as usize % 3))
                        .map_or(piece.len(), |c| c.0);
                    text.push_str(if x >> (k + 40) & 1 == 0 {
                        piece
                    } else {
                        &piece[..cut]
                    });
                }
                text
            })
            .collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let got = scan_each(&refs);
        let mut found = [0usize; 5];
        for (text, t) in refs.iter().zip(&got) {
            assert_eq!(*t, reference(text), "{text:?}");
            found[0] += usize::from(t.secret);
            found[1] += usize::from(t.zh_word.is_some());
            found[2] += usize::from(t.en_word);
            found[3] += usize::from(t.folded);
            found[4] += usize::from(t.poison);
        }
        assert!(found.iter().all(|&n| n > 100), "{found:?}");
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
        assert!(scan("IGNORE previous").poison);
        assert!(scan("x\u{e0041}").poison);
        assert!(scan("a\u{202e}b").poison);
        assert!(!scan("\u{e0100}").poison, "a variation selector is no tag");
    }
}
