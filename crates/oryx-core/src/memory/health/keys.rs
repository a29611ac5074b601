//! What two entries must share to be duplicates: their letters and digits, case aside
//! (`exact`); near duplicates share their letters alone (a footprint repeated with another
//! count or time), and footprints (`触发「X」⇒ …`) the letters of their request X whatever the
//! reply. Each key is its text written out (the characters kept, in lower case, as UTF-8) and
//! hashed with XXH3-128, kept with its length in characters (which decides whether the entry
//! has a key worth comparing); 94 bits of the hash are what the sorts compare (see
//! `sort_key`).
//!
//! A 100 MB archive has ~900 000 entries, mostly ASCII with a few CJK characters and full-width
//! punctuation each: what each character of the Basic Multilingual Plane is to the keys is
//! looked up in one table made once, rather than asked of Unicode's tables per character.

use std::sync::OnceLock;

use super::super::near_dup;

#[derive(Clone, Copy)]
pub(super) struct DupKeys {
    pub exact: (u128, usize),
    pub near: (u128, usize),
    pub footprint: bool,
}

/// The key texts of one entry at a time, written into buffers kept between entries.
#[derive(Default)]
pub(super) struct KeyTexts {
    exact: Vec<u8>,
    near: Vec<u8>,
}

/// What a character is to the keys: a letter or digit (kept in `exact`), a letter (kept in
/// `near`), and whether its lower case is another character (ASCII aside).
const ALNUM: u8 = 1;
const ALPHA: u8 = 2;
const FOLDS: u8 = 4;

fn class(c: char) -> u8 {
    let (alnum, alpha) = if c.is_ascii() {
        (c.is_ascii_alphanumeric(), c.is_ascii_alphabetic())
    } else if ('\u{4e00}'..='\u{9fff}').contains(&c) {
        // CJK unified ideographs: letters, without case, assigned or not.
        (true, true)
    } else {
        (near_dup::is_alphanumeric(c), near_dup::is_alphabetic(c))
    };
    let folds = alnum && !c.is_ascii() && {
        let mut lower = c.to_lowercase();
        !(lower.next() == Some(c) && lower.next().is_none())
    };
    (u8::from(alnum) * ALNUM) | (u8::from(alpha) * ALPHA) | (u8::from(folds) * FOLDS)
}

/// [`class`] of every character of the Basic Multilingual Plane.
fn bmp_classes() -> &'static [u8] {
    static TABLE: OnceLock<Vec<u8>> = OnceLock::new();
    TABLE.get_or_init(|| {
        (0..=0xffffu32)
            .map(|u| char::from_u32(u).map_or(0, class))
            .collect()
    })
}

fn class_of(c: char) -> u8 {
    match bmp_classes().get(c as usize) {
        Some(&k) => k,
        None => class(c),
    }
}

impl KeyTexts {
    /// The keys of one entry.
    pub fn keys(&mut self, text: &str) -> DupKeys {
        // Bytes of `text` past which letters no longer count for `near` (a footprint's reply).
        let (near_end, footprint) = match footprint_request(text) {
            Some(req) => ("触发「".len() + req.len(), true),
            None => (text.len(), false),
        };
        let [exact, near] = self.write(text, near_end);
        DupKeys {
            exact: (xxhash_rust::xxh3::xxh3_128(&self.exact[..exact.0]), exact.1),
            near: (xxhash_rust::xxh3::xxh3_128(&self.near[..near.0]), near.1),
            footprint,
        }
    }

    /// Writes the two key texts: their lengths in bytes and in characters.
    fn write(&mut self, text: &str, near_end: usize) -> [(usize, usize); 2] {
        self.exact.clear();
        self.near.clear();
        key_texts(text, near_end, &mut self.exact, &mut self.near)
    }
}

/// The key texts, a character at a time: each letter or digit in lower case into `exact`, each
/// letter that starts before `near_end` into `near`. Their lengths in bytes and characters.
fn key_texts(
    text: &str,
    near_end: usize,
    exact: &mut Vec<u8>,
    near: &mut Vec<u8>,
) -> [(usize, usize); 2] {
    let (mut ce, mut cn) = (0, 0);
    let mut buf = [0; 4];
    let bytes = text.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        // ASCII, most of an entry, a byte at a time without decoding or the table.
        let b = bytes[at];
        if b.is_ascii() {
            if b.is_ascii_alphanumeric() {
                let l = b.to_ascii_lowercase();
                exact.push(l);
                ce += 1;
                if at < near_end && b.is_ascii_alphabetic() {
                    near.push(l);
                    cn += 1;
                }
            }
            at += 1;
            continue;
        }
        let c = text[at..]
            .chars()
            .next()
            .expect("a character at a boundary");
        let here = at;
        at += c.len_utf8();
        let k = class_of(c);
        if k & ALNUM == 0 {
            continue;
        }
        let alpha = here < near_end && k & ALPHA != 0;
        let mut push = |l: char| {
            let bytes = l.encode_utf8(&mut buf).as_bytes();
            exact.extend_from_slice(bytes);
            ce += 1;
            if alpha {
                near.extend_from_slice(bytes);
                cn += 1;
            }
        };
        match k & FOLDS {
            0 => push(c.to_ascii_lowercase()),
            _ => c.to_lowercase().for_each(push),
        }
    }
    [(exact.len(), ce), (near.len(), cn)]
}

/// `触发「X」⇒ Y` → X (the form the deterministic summariser folds by request).
pub(super) fn footprint_request(text: &str) -> Option<&str> {
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
pub(super) fn near_text(text: &str) -> &str {
    footprint_request(text).unwrap_or(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Characters of every kind the class table tells apart: ASCII of each class, ideographs
    /// in and out of U+4E00–U+9FFF, CJK and full-width punctuation, full-width letters and
    /// digits that do not fold, Latin without case, the footprint's own marks…
    const PLAIN: &[&str] = &[
        "a", "Z", "q", "0", "7", " ", "-", ":", "@", ".", "\t", "触", "发", "「", "」", "⇒", "第",
        "次", "（", "）", "，", "。", "、", "々", "〇", "〡", "㐀", "䷀", "丁", "鿿", "ｚ", "１",
        "ｦ", "é", "ß", "ª", "µ", "©", "ς", "ж", "ſ", "ⅻ", "²", "\u{300}",
    ];
    /// … letters that fold (Latin, Greek, Cyrillic, full-width, `İ` with two characters in
    /// lower case, Kelvin, roman numerals, circled), and characters of other planes (letters
    /// and emoji), which the table does not hold.
    const FOLDING: &[&str] = &[
        "Ａ", "É", "Σ", "Ж", "İ", "K", "Ⅻ", "Ⓐ", "ǅ", "𝐀", "𠀀", "😀",
    ];

    fn texts(seed: u64, count: usize, alphabet: &[&str]) -> Vec<String> {
        let mut x = seed;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        (0..count)
            .map(|_| {
                let len = (next() % 90) as usize;
                let mut s = String::new();
                if next() % 3 == 0 {
                    s.push_str("触发「");
                }
                for _ in 0..len {
                    // Mostly ASCII, as memory entries are.
                    match next() % 4 {
                        0 => s.push_str(alphabet[(next() % alphabet.len() as u64) as usize]),
                        _ => s.push((b' ' + (next() % 95) as u8) as char),
                    }
                    if next() % 40 == 0 {
                        s.push_str("」⇒ ");
                    }
                }
                s
            })
            .collect()
    }

    fn reference(text: &str) -> ([(usize, usize); 2], Vec<u8>, Vec<u8>) {
        let near_end = footprint_request(text).map_or(text.len(), |r| "触发「".len() + r.len());
        let (mut e, mut n) = (Vec::new(), Vec::new());
        let lens = key_texts(text, near_end, &mut e, &mut n);
        (lens, e, n)
    }

    #[test]
    fn key_texts_keep_letters_and_digits_in_lower_case() {
        let (lens, e, n) = reference("触发「Deploy 第2次 ＡＰＩ」⇒ Done 3");
        assert_eq!(
            std::str::from_utf8(&e).unwrap(),
            "触发deploy第2次ａｐｉdone3"
        );
        assert_eq!(std::str::from_utf8(&n).unwrap(), "触发deploy第次ａｐｉ");
        assert_eq!(lens, [(e.len(), 19), (n.len(), 13)]);
        let (_, e, n) = reference("İstanbul – Ⅻ, ſ");
        assert_eq!(std::str::from_utf8(&e).unwrap(), "i\u{307}stanbulⅻſ");
        assert_eq!(std::str::from_utf8(&n).unwrap(), "i\u{307}stanbulⅻſ");
    }

    /// The key texts as their definition says, from Unicode's own answers character by
    /// character (no table, no shortcut for ASCII or characters without case).
    fn by_definition(text: &str) -> (String, String) {
        let near_end = footprint_request(text).map_or(text.len(), |r| "触发「".len() + r.len());
        let alnum = |c: char| match c.is_ascii() {
            true => c.is_ascii_alphanumeric(),
            false => ('\u{4e00}'..='\u{9fff}').contains(&c) || near_dup::is_alphanumeric(c),
        };
        let alpha = |c: char| match c.is_ascii() {
            true => c.is_ascii_alphabetic(),
            false => ('\u{4e00}'..='\u{9fff}').contains(&c) || near_dup::is_alphabetic(c),
        };
        let exact = text
            .chars()
            .filter(|&c| alnum(c))
            .flat_map(char::to_lowercase)
            .collect();
        let near = text
            .char_indices()
            .filter(|&(at, c)| at < near_end && alnum(c) && alpha(c))
            .flat_map(|(_, c)| c.to_lowercase())
            .collect();
        (exact, near)
    }

    #[test]
    fn keys_are_the_hashes_of_the_key_texts_by_definition() {
        let all_chars: Vec<&str> = PLAIN.iter().chain(FOLDING).copied().collect();
        let mut many = texts(0x9e37_79b9_7f4a_7c15, 10_000, PLAIN);
        many.extend(texts(0x2545_f491_4f6c_dd1d, 10_000, &all_chars));
        let mut k = KeyTexts::default();
        for text in &many {
            let (exact, near) = by_definition(text);
            let keys = k.keys(text);
            let want = |t: &str| (xxhash_rust::xxh3::xxh3_128(t.as_bytes()), t.chars().count());
            assert_eq!(keys.exact, want(&exact), "{text:?}");
            assert_eq!(keys.near, want(&near), "{text:?}");
            assert_eq!(keys.footprint, footprint_request(text).is_some());
        }
    }

    #[test]
    fn keys_are_equal_when_the_key_texts_are() {
        let mut k = KeyTexts::default();
        let pairs = [
            (
                "Deploy the API, 2 times",
                "deploy-the-api 2 TIMES!",
                true,
                true,
            ),
            (
                "Deploy the API, 2 times",
                "Deploy the API, 3 times",
                false,
                true,
            ),
            (
                "触发「查询天气（第 1 次）」⇒ 晴",
                "触发「查询天气（第 2 次）」⇒ 雨",
                false,
                true,
            ),
            ("ＡＢＣ", "ａｂｃ", true, true),
            ("abc", "ab c", true, true),
            ("abc", "abd", false, false),
        ];
        for (a, b, exact, near) in pairs {
            let (ka, kb) = (k.keys(a), k.keys(b));
            assert_eq!(ka.exact == kb.exact, exact, "{a:?} {b:?}");
            assert_eq!(ka.near == kb.near, near, "{a:?} {b:?}");
        }
    }
}
