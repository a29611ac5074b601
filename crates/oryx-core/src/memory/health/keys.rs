//! What two entries must share to be duplicates: their letters and digits, case aside
//! (`exact`); near duplicates share their letters alone (a footprint repeated with another
//! count or time), and footprints (`触发「X」⇒ …`) the letters of their request X whatever the
//! reply. Each key is its text written out (the characters kept, in lower case, as UTF-8) and
//! hashed with XXH3-128, kept with its length in characters (which decides whether the entry
//! has a key worth comparing); 94 bits of the hash are what the sorts compare (see
//! `sort_key`).
//!
//! A 100 MB archive has ~900 000 entries, mostly ASCII with a few CJK characters and full-width
//! punctuation each. Read a character at a time, each switch between ASCII and the rest was a
//! mispredicted branch (~180 ns an entry); the vector path ([`avx2`]) classifies 32 bytes at
//! once — ASCII by ranges, the ideographs U+5000–U+9FFF by their lead byte — and looks up only
//! the other characters one by one (~100 ns). [`key_texts`] is what it must equal.

use std::sync::OnceLock;

use super::super::near_dup;
use super::footprint_request;

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
        #[cfg(target_arch = "x86_64")]
        {
            if super::simd::detected() {
                // Room for the vector path's whole-word stores past what it keeps.
                let room = text.len() + avx2::SLACK;
                for buf in [&mut self.exact, &mut self.near] {
                    if buf.len() < room {
                        buf.resize(room, 0);
                    }
                }
                // SAFETY: the CPU has the features, both buffers have the room.
                let done = unsafe { avx2::write(text, near_end, &mut self.exact, &mut self.near) };
                if let Some(lens) = done {
                    return lens;
                }
            }
        }
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
    for (at, c) in text.char_indices() {
        let k = class_of(c);
        if k & ALNUM == 0 {
            continue;
        }
        let alpha = at < near_end && k & ALPHA != 0;
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

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    use super::super::simd::{bits, in_range, Chunks};
    use super::{bmp_classes, ALNUM, ALPHA, FOLDS};

    /// How many bytes past the kept ones a write may touch (an 8-byte store at the end; 8
    /// would do, 16 leaves room).
    pub const SLACK: usize = 16;

    /// For each 8-bit mask, the indices of its set bits in order (a `pshufb` control that
    /// gathers the kept bytes of eight to the front).
    const fn compress_table() -> [u64; 256] {
        let mut table = [0u64; 256];
        let mut m = 0;
        while m < 256 {
            let (mut v, mut k, mut b) = (0u64, 0, 0);
            while b < 8 {
                if (m >> b) & 1 == 1 {
                    v |= (b as u64) << (8 * k);
                    k += 1;
                }
                b += 1;
            }
            table[m] = v;
            m += 1;
        }
        table
    }
    static COMPRESS: [u64; 256] = compress_table();

    /// The bytes of `v` whose bits are set in `keep`, in order, written at `out`: how many.
    /// Writes up to 8 bytes past them.
    #[inline(always)]
    unsafe fn compress(v: __m256i, keep: u32, out: *mut u8) -> usize {
        let mut w = 0usize;
        let halves = [_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v)];
        for (k, half) in halves.into_iter().enumerate() {
            let m0 = (keep >> (16 * k)) & 0xff;
            let m1 = (keep >> (16 * k + 8)) & 0xff;
            let ctrl = _mm_set_epi64x(
                (COMPRESS[m1 as usize] + 0x0808_0808_0808_0808) as i64,
                COMPRESS[m0 as usize] as i64,
            );
            let r = _mm_shuffle_epi8(half, ctrl);
            _mm_storel_epi64(out.add(w).cast(), r);
            w += m0.count_ones() as usize;
            out.add(w)
                .cast::<u64>()
                .write_unaligned(_mm_extract_epi64::<1>(r) as u64);
            w += m1.count_ones() as usize;
        }
        w
    }

    /// [`super::key_texts`] into `exact` and `near` 32 bytes at a time, or `None` for a text
    /// with a letter whose lower case is another character outside ASCII, or a character
    /// outside the Basic Multilingual Plane (then the buffers hold nothing meaningful).
    ///
    /// # Safety
    /// The CPU has the features of [`super::super::simd::detected`]; `exact` and `near` hold at least
    /// `text.len() + SLACK` bytes.
    #[target_feature(enable = "avx2,popcnt,bmi1,sse4.1")]
    pub unsafe fn write(
        text: &str,
        near_end: usize,
        exact: &mut [u8],
        near: &mut [u8],
    ) -> Option<[(usize, usize); 2]> {
        let t = text.as_bytes();
        let n = t.len();
        assert!(exact.len() >= n + SLACK && near.len() >= n + SLACK);
        let classes = bmp_classes();
        let (mut we, mut wn, mut ce, mut cn) = (0usize, 0usize, 0usize, 0usize);
        // Bytes of the next chunk that belong to a character kept in this one.
        let (mut carry_e, mut carry_n) = (0u64, 0u64);
        let mut chunks = Chunks::new(t);
        while let Some(c) = chunks.next_chunk() {
            let (p, valid) = (c.ptr, c.valid);
            carry_e <<= c.at - c.base;
            carry_n <<= c.at - c.base;
            let v = c.load();
            let upper = in_range(v, b'A', b'Z');
            let alpha = _mm256_or_si256(upper, in_range(v, b'a', b'z'));
            let lower = _mm256_or_si256(v, _mm256_and_si256(upper, _mm256_set1_epi8(0x20)));
            let m_alpha = bits(alpha) & valid;
            let m_alnum = (m_alpha | bits(in_range(v, b'0', b'9'))) & valid;
            let m_cont = bits(in_range(v, 0x80, 0xbf)) & valid;
            // Lead bytes E5–E9: U+5000–U+9FFF, ideographs (letters without case).
            let m_cjk = bits(in_range(v, 0xe5, 0xe9)) & valid;
            let cjk = u64::from(m_cjk) * 0b111;
            let mut ke = u64::from(m_alnum) | cjk | carry_e;
            let mut kn = u64::from(m_alpha) | cjk | carry_n;
            // Every other character that is not ASCII, looked up one by one.
            let mut others = bits(v) & valid & !m_cont & !m_cjk;
            while others != 0 {
                let i = others.trailing_zeros() as usize;
                others &= others - 1;
                // A character starting in the chunk ends in the text: its bytes are read there.
                let b = |k: usize| u32::from(*p.add(i + k));
                let (cp, len) = match b(0) {
                    0xc0..=0xdf => (((b(0) & 0x1f) << 6) | (b(1) & 0x3f), 2),
                    0xe0..=0xef => (
                        ((b(0) & 0x0f) << 12) | ((b(1) & 0x3f) << 6) | (b(2) & 0x3f),
                        3,
                    ),
                    _ => return None,
                };
                let k = classes[cp as usize];
                if k & FOLDS != 0 {
                    return None;
                }
                let char_bits = ((1u64 << len) - 1) << i;
                if k & ALNUM != 0 {
                    ke |= char_bits;
                }
                if k & ALPHA != 0 {
                    kn |= char_bits;
                }
            }
            // Near letters are those before `near_end` (a character boundary).
            kn &= match near_end.saturating_sub(c.base) {
                d if d >= 32 => !0,
                d => (1u64 << d) - 1,
            };
            (carry_e, carry_n) = (ke >> 32, kn >> 32);
            let (ke, kn) = (ke as u32, kn as u32);
            we += compress(lower, ke, exact.as_mut_ptr().add(we));
            wn += compress(lower, kn, near.as_mut_ptr().add(wn));
            ce += (ke & !m_cont).count_ones() as usize;
            cn += (kn & !m_cont).count_ones() as usize;
        }
        Some([(we, ce), (wn, cn)])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Characters of every kind the two paths tell apart: ASCII of each class, ideographs of
    /// each lead byte (E4 and E5–E9), CJK and full-width punctuation, full-width letters and
    /// digits that do not fold, Latin without case, the footprint's own marks…
    const PLAIN: &[&str] = &[
        "a", "Z", "q", "0", "7", " ", "-", ":", "@", ".", "\t", "触", "发", "「", "」", "⇒", "第",
        "次", "（", "）", "，", "。", "、", "々", "〇", "〡", "㐀", "䷀", "丁", "鿿", "ｚ", "１",
        "ｦ", "é", "ß", "ª", "µ", "©", "ς", "ж", "ſ", "ⅻ", "²", "\u{300}",
    ];
    /// … and those it leaves to the other: letters that fold (Latin, Greek, Cyrillic,
    /// full-width, `İ` with two characters in lower case, Kelvin, roman numerals, circled),
    /// and characters of other planes (letters and emoji).
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

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_vector_path_writes_what_a_character_at_a_time_writes() {
        if !super::super::simd::detected() {
            return;
        }
        let mut k = KeyTexts::default();
        let check = |text: &str, near_end: usize| {
            let (mut e, mut n) = (Vec::new(), Vec::new());
            let want = key_texts(text, near_end, &mut e, &mut n);
            let room = text.len() + avx2::SLACK;
            let (mut ve, mut vn) = (vec![0xaa; room], vec![0xaa; room]);
            // SAFETY: detected above; the buffers have the room.
            let got = unsafe { avx2::write(text, near_end, &mut ve, &mut vn) };
            // It leaves exactly the folding letters and the other planes to the other path.
            let plain = text
                .chars()
                .all(|c| (c as u32) < 0x10000 && class_of(c) & FOLDS == 0);
            assert_eq!(got.is_some(), plain, "{text:?}");
            if let Some(got) = got {
                assert_eq!(got, want, "{text:?} {near_end}");
                let written = (&ve[..got[0].0], &vn[..got[1].0]);
                assert_eq!(written, (&e[..], &n[..]), "{text:?} {near_end}");
            }
            (want, e, n)
        };
        let all_chars: Vec<&str> = PLAIN.iter().chain(FOLDING).copied().collect();
        let mut many = texts(0x9e37_79b9_7f4a_7c15, 10_000, PLAIN);
        many.extend(texts(0x2545_f491_4f6c_dd1d, 10_000, &all_chars));
        for text in &many {
            let near_end = footprint_request(text).map_or(text.len(), |r| "触发「".len() + r.len());
            let (want, e, n) = check(text, near_end);
            let keys = k.keys(text);
            assert_eq!((keys.exact.1, keys.near.1), (want[0].1, want[1].1));
            assert_eq!(keys.exact.0, xxhash_rust::xxh3::xxh3_128(&e), "{text:?}");
            assert_eq!(keys.near.0, xxhash_rust::xxh3::xxh3_128(&n), "{text:?}");
        }
        // Every length across the chunk edges, a character of two or three bytes (kept or not)
        // at every place, and the near letters ending at every character boundary.
        for len in 0..80 {
            for at in 0..len {
                for c in ["字", "」", "é", "·"] {
                    let mut text = "x".repeat(len);
                    text.replace_range(at..=at, c);
                    for near_end in (0..=text.len()).filter(|&i| text.is_char_boundary(i)) {
                        check(&text, near_end);
                    }
                }
            }
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
