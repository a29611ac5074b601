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

    /// Writes the two key texts at the start of the buffers: their lengths in bytes and in
    /// characters.
    fn write(&mut self, text: &str, near_end: usize) -> [(usize, usize); 2] {
        key_texts(text, near_end, &mut self.exact, &mut self.near)
    }
}

/// What an ASCII byte is in a key text: a letter in lower case, a digit, or 0 (left out).
const ASCII_KEY: [u8; 128] = {
    let mut t = [0; 128];
    let mut b = 0;
    while b < 128 {
        let c = b as u8;
        if c.is_ascii_alphanumeric() {
            t[b] = c.to_ascii_lowercase();
        }
        b += 1;
    }
    t
};

/// The key texts, a character at a time: each letter or digit in lower case into `exact`, each
/// letter that starts before `near_end` into `near`. Both are written from their start (grown
/// when too short, never shortened: what is past the key text is left over); their lengths in
/// bytes and characters.
fn key_texts(
    text: &str,
    near_end: usize,
    exact: &mut Vec<u8>,
    near: &mut Vec<u8>,
) -> [(usize, usize); 2] {
    // A character's lower case takes at most 3 bytes for 2 (`İ`, `Ⱥ`).
    let room = text.len() * 2 + 4;
    for buf in [&mut *exact, &mut *near] {
        if buf.len() < room {
            buf.resize(room, 0);
        }
    }
    // Slices, so that their lengths stay in registers; every byte is written, whether kept or
    // not, and what is kept is counted in (no branch on the kind of character, which text
    // mixes unpredictably).
    let (e, n) = (&mut exact[..], &mut near[..]);
    let (mut ne, mut nn, mut ce, mut cn) = (0, 0, 0, 0);
    let bytes = text.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        let b = bytes[at];
        if b.is_ascii() {
            let l = ASCII_KEY[b as usize];
            let keep = usize::from(l != 0);
            let keep_near = usize::from(l >= b'a' && at < near_end);
            e[ne] = l;
            ne += keep;
            ce += keep;
            n[nn] = l;
            nn += keep_near;
            cn += keep_near;
            at += 1;
            continue;
        }
        // Another character, decoded from its bytes (the text is UTF-8).
        let here = at;
        if matches!(b, 0xe0..=0xef) {
            let u = u32::from(b & 0x0f) << 12 | cont(bytes[at + 1], 6) | cont(bytes[at + 2], 0);
            if (0x4e00..=0x9fff).contains(&u) {
                // CJK unified ideographs, most non-ASCII letters of an entry: letters without
                // case, their bytes as they are.
                let c = &bytes[here..here + 3];
                e[ne..ne + 3].copy_from_slice(c);
                ne += 3;
                ce += 1;
                n[nn..nn + 3].copy_from_slice(c);
                let keep_near = usize::from(here < near_end);
                nn += 3 * keep_near;
                cn += keep_near;
                at += 3;
                continue;
            }
        }
        let (len, u) = match b {
            0xc0..=0xdf => (2, u32::from(b & 0x1f) << 6 | cont(bytes[at + 1], 0)),
            0xe0..=0xef => (
                3,
                u32::from(b & 0x0f) << 12 | cont(bytes[at + 1], 6) | cont(bytes[at + 2], 0),
            ),
            _ => (
                4,
                u32::from(b & 0x07) << 18
                    | cont(bytes[at + 1], 12)
                    | cont(bytes[at + 2], 6)
                    | cont(bytes[at + 3], 0),
            ),
        };
        at += len;
        let c = char::from_u32(u).expect("a decoded character");
        let k = class_of(c);
        if k & ALNUM == 0 {
            continue;
        }
        let alpha = here < near_end && k & ALPHA != 0;
        let mut push = |l: &[u8]| {
            e[ne..ne + l.len()].copy_from_slice(l);
            ne += l.len();
            ce += 1;
            if alpha {
                n[nn..nn + l.len()].copy_from_slice(l);
                nn += l.len();
                cn += 1;
            }
        };
        if k & FOLDS == 0 {
            // Its own lower case: its bytes as they are.
            push(&bytes[here..at]);
            continue;
        }
        let mut buf = [0; 4];
        for l in c.to_lowercase() {
            push(l.encode_utf8(&mut buf).as_bytes());
        }
    }
    [(ne, ce), (nn, cn)]
}

/// The six bits a UTF-8 continuation byte holds, shifted into place.
fn cont(b: u8, shift: u32) -> u32 {
    u32::from(b & 0x3f) << shift
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
        e.truncate(lens[0].0);
        n.truncate(lens[1].0);
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
