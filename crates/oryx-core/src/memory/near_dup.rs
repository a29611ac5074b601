//! Near-duplicate texts by character n-gram similarity (memory health), for when no
//! embedder is there: each text becomes a set of character shingles — bigrams where the
//! character is a CJK ideograph (a Chinese word is one or two characters), trigrams elsewhere —
//! over its letters in lower case, every run of other characters (spaces, punctuation, digits)
//! one boundary. Two texts are near duplicates when the Jaccard similarity of their sets is at
//! least [`THRESHOLD`], computed exactly; which pairs are compared comes from MinHash signatures
//! banded for locality-sensitive hashing, so the pass stays linear in the number of texts.

/// The lowest Jaccard similarity of two shingle sets that makes them near duplicates.
///
/// Measured on paraphrases and on pairs that merely share a subject (see the tests):
/// rewordings such as "用户偏好简洁的回复，不用列表。" / "用户偏好简洁的回复,不要用列表" score
/// 0.80 and "User prefers short answers without lists" / "The user prefers short answers, no
/// lists." 0.61; different facts in the same frame score 0.07–0.47 ("prefers short answers …"
/// vs "prefers long answers …" 0.36, "简洁…不用列表" vs "详细…多用列表" 0.44), with the
/// exception of one-word swaps in short sentences ("lives in Berlin" / "works in Berlin" 0.57),
/// which character statistics cannot tell apart. 0.6 keeps the paraphrases and leaves those out.
pub const THRESHOLD: f64 = 0.6;

/// Texts with fewer letters than this are not compared (a few characters say too little).
pub const MIN_LETTERS: usize = 8;

/// MinHash functions, read as `BANDS` bands of `ROWS`. A pair with similarity `s` shares a
/// band with probability 1 − (1 − s³)¹⁰: 0.91 at 0.6, 0.99 at 0.7, but 0.01 at 0.1, so
/// unrelated texts rarely meet and buckets stay small.
const ROWS: usize = 3;
const BANDS: usize = 10;
const HASHES: usize = ROWS * BANDS;

fn is_cjk(c: char) -> bool {
    ('\u{4e00}'..='\u{9fff}').contains(&c) || ('\u{3400}'..='\u{4dbf}').contains(&c)
}

/// `char::is_alphabetic` and `char::is_alphanumeric` for the Basic Multilingual Plane from a
/// table built once (the standard library's lookups cost tens of nanoseconds per character
/// outside ASCII, and memory entries are full of CJK punctuation); other planes ask it.
fn bmp_classes() -> &'static [u8] {
    static TABLE: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        (0..=0xffffu32)
            .map(|u| match char::from_u32(u) {
                Some(c) if c.is_alphabetic() => 3,
                Some(c) if c.is_alphanumeric() => 1,
                _ => 0,
            })
            .collect()
    })
}

pub fn is_alphabetic(c: char) -> bool {
    match bmp_classes().get(c as usize) {
        Some(&k) => k == 3,
        None => c.is_alphabetic(),
    }
}

pub fn is_alphanumeric(c: char) -> bool {
    match bmp_classes().get(c as usize) {
        Some(&k) => k != 0,
        None => c.is_alphanumeric(),
    }
}

fn mix64(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 33)
}

/// The shingles of `text` as 32-bit hashes, sorted and without repeats (into `out`), and the
/// number of letters the text has.
pub fn shingles(text: &str, out: &mut Vec<u32>) -> usize {
    out.clear();
    const BOUNDARY: char = ' ';
    // The last two characters of the normalised text ('\0': none yet).
    let (mut p2, mut p1) = ('\0', '\0');
    let mut letters = 0;
    let mut push = |c: char, p1: char, p2: char| {
        let packed = if is_cjk(c) {
            if p1 == '\0' {
                return;
            }
            (1 << 63) | (u64::from(p1) << 21) | u64::from(c)
        } else {
            if p2 == '\0' {
                return;
            }
            (u64::from(p2) << 42) | (u64::from(p1) << 21) | u64::from(c)
        };
        out.push((mix64(packed) >> 32) as u32);
    };
    for c in text.chars() {
        let c = if c.is_ascii() {
            if c.is_ascii_alphabetic() {
                c.to_ascii_lowercase()
            } else {
                BOUNDARY
            }
        } else if is_cjk(c) {
            c
        } else if is_alphabetic(c) {
            c.to_lowercase().next().unwrap_or(c)
        } else {
            BOUNDARY
        };
        if c == BOUNDARY {
            // Runs collapse into one; none at the start.
            if p1 == BOUNDARY || p1 == '\0' {
                continue;
            }
        } else {
            letters += 1;
        }
        push(c, p1, p2);
        (p2, p1) = (p1, c);
    }
    // A trailing boundary adds the end of the last word (as a space would).
    out.sort_unstable();
    out.dedup();
    letters
}

/// Jaccard similarity of two sorted sets without repeats.
pub fn jaccard(a: &[u32], b: &[u32]) -> f64 {
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    let (mut i, mut j, mut both) = (0, 0, 0usize);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                both += 1;
                i += 1;
                j += 1;
            }
        }
    }
    both as f64 / (a.len() + b.len() - both) as f64
}

/// The MinHash seeds as two arrays (xor, odd multiplier), padded to a multiple of 8 lanes so
/// that the loop over them in [`signature`] runs as vector instructions.
struct Seeds {
    xor: [u32; LANES],
    mul: [u32; LANES],
}

const LANES: usize = HASHES.div_ceil(8) * 8;

fn seeds() -> &'static Seeds {
    static SEEDS: std::sync::OnceLock<Seeds> = std::sync::OnceLock::new();
    SEEDS.get_or_init(|| {
        let mut s = Seeds {
            xor: [0; LANES],
            mul: [1; LANES],
        };
        for i in 0..HASHES {
            let r = mix64(0x9e37_79b9_7f4a_7c15 ^ (i as u64 + 1));
            (s.xor[i], s.mul[i]) = (r as u32, (r >> 32) as u32 | 1);
        }
        s
    })
}

/// The MinHash signature of a shingle set (`HASHES` independent-enough permutations: xor with
/// a seed, multiply by an odd number, fold the high bits down).
fn signature(set: &[u32]) -> [u32; HASHES] {
    let s = seeds();
    let mut lanes = [u32::MAX; LANES];
    for &h in set {
        for ((m, &a), &b) in lanes.iter_mut().zip(&s.xor).zip(&s.mul) {
            let x = (h ^ a).wrapping_mul(b);
            *m = (*m).min(x ^ (x >> 16));
        }
    }
    let mut sig = [0; HASHES];
    sig.copy_from_slice(&lanes[..HASHES]);
    sig
}

/// Union-find over texts, remembering each set's weakest link (the lowest similarity by which
/// one of its members joined).
pub struct Groups {
    parent: Vec<u32>,
    weakest: Vec<f64>,
}

impl Groups {
    pub fn new(n: usize) -> Self {
        Groups {
            parent: (0..n as u32).collect(),
            weakest: vec![1.0; n],
        }
    }

    pub fn find(&mut self, mut i: usize) -> usize {
        while self.parent[i] as usize != i {
            let up = self.parent[self.parent[i] as usize];
            self.parent[i] = up;
            i = up as usize;
        }
        i
    }

    pub fn union(&mut self, a: usize, b: usize, similarity: f64) {
        let (ra, rb) = (self.find(a), self.find(b));
        let w = self.weakest[ra].min(self.weakest[rb]).min(similarity);
        // The smaller index leads, so the result does not depend on which side came first.
        let (root, child) = if ra <= rb { (ra, rb) } else { (rb, ra) };
        self.parent[child] = root as u32;
        self.weakest[root] = w;
    }

    pub fn weakest(&mut self, i: usize) -> f64 {
        let r = self.find(i);
        self.weakest[r]
    }
}

/// One text to compare: `space` keeps texts that must not be compared apart (scope, footprint
/// or not); `text` is what is compared.
pub struct Text<'a> {
    pub space: u64,
    pub text: &'a str,
}

/// The shingle sets and band keys of consecutive texts.
struct Prepared {
    /// How many texts every part but the last holds (to find a text's part).
    len: usize,
    /// Every text's set, one after another (`at[i]..at[i + 1]`), for the exact comparisons.
    sets: Vec<u32>,
    at: Vec<usize>,
    /// 0 marks a text that takes no part.
    bands: Vec<[u64; BANDS]>,
}

fn prepare(texts: &[Text<'_>], len: usize) -> Prepared {
    let mut set = Vec::new();
    let mut p = Prepared {
        len,
        sets: Vec::new(),
        at: Vec::with_capacity(texts.len() + 1),
        bands: Vec::with_capacity(texts.len()),
    };
    for t in texts {
        let letters = shingles(t.text, &mut set);
        p.at.push(p.sets.len());
        if letters < MIN_LETTERS || set.is_empty() {
            p.bands.push([0; BANDS]);
            continue;
        }
        p.sets.extend_from_slice(&set);
        let sig = signature(&set);
        let mut keys = [0u64; BANDS];
        for (b, key) in keys.iter_mut().enumerate() {
            let mut k = mix64(t.space ^ (b as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15));
            for &v in &sig[b * ROWS..(b + 1) * ROWS] {
                k = mix64(k ^ u64::from(v));
            }
            *key = k | 1;
        }
        p.bands.push(keys);
    }
    p.at.push(p.sets.len());
    p
}

/// Below this many texts the sets are made on one thread.
const PARALLEL_FROM: usize = 20_000;

/// [`prepare`] over consecutive parts of `texts`, one per core when there are many: the
/// shingles and signatures are most of the pass when every text is its own class.
fn prepare_in_parts(texts: &[Text<'_>]) -> Vec<Prepared> {
    let threads = match texts.len() < PARALLEL_FROM {
        true => 1,
        false => crate::cores::cores(),
    };
    if threads < 2 {
        return vec![prepare(texts, texts.len().max(1))];
    }
    let size = texts.len().div_ceil(threads);
    std::thread::scope(|s| {
        let parts: Vec<_> = texts
            .chunks(size)
            .map(|chunk| s.spawn(move || prepare(chunk, size)))
            .collect();
        parts
            .into_iter()
            .map(|p| p.join().expect("a near-duplicate thread panicked"))
            .collect()
    })
}

/// Links the texts whose similarity is at least [`THRESHOLD`] into `groups` (indices as in
/// `texts`). Each band of each signature is bucketed in an open-addressing table that keeps the
/// first text of the bucket (texts in the order given); every later text of the bucket is
/// compared with it exactly, unless the two are already linked. Texts under
/// [`MIN_LETTERS`] take no part.
pub fn link(texts: &[Text<'_>], groups: &mut Groups) {
    let parts = prepare_in_parts(texts);
    let set_of = |i: usize| {
        let p = &parts[i / parts[0].len];
        let j = i % parts[0].len;
        &p.sets[p.at[j]..p.at[j + 1]]
    };
    let bands = parts.iter().flat_map(|p| &p.bands);
    let cap = (texts.len() * 2).next_power_of_two().max(16);
    let mut table: Vec<(u64, u32)> = vec![(0, 0); cap];
    for b in 0..BANDS {
        table.iter_mut().for_each(|slot| *slot = (0, 0));
        for (i, keys) in bands.clone().enumerate() {
            let key = keys[b];
            if key == 0 {
                continue;
            }
            let mut at = (key as usize) & (cap - 1);
            let leader = loop {
                match table[at] {
                    (0, _) => {
                        table[at] = (key, i as u32);
                        break None;
                    }
                    (k, l) if k == key => break Some(l as usize),
                    _ => at = (at + 1) & (cap - 1),
                }
            };
            let Some(l) = leader else { continue };
            if groups.find(l) == groups.find(i) {
                continue;
            }
            let s = jaccard(set_of(i), set_of(l));
            if s >= THRESHOLD {
                groups.union(l, i, s);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sim(a: &str, b: &str) -> f64 {
        let (mut x, mut y) = (Vec::new(), Vec::new());
        shingles(a, &mut x);
        shingles(b, &mut y);
        jaccard(&x, &y)
    }

    #[test]
    fn the_class_table_agrees_with_the_standard_library() {
        for c in (0..=0x10_ffffu32).filter_map(char::from_u32) {
            assert_eq!(is_alphabetic(c), c.is_alphabetic(), "{c:?}");
            assert_eq!(is_alphanumeric(c), c.is_alphanumeric(), "{c:?}");
        }
    }

    #[test]
    fn shingles_are_cjk_bigrams_and_latin_trigrams() {
        let mut s = Vec::new();
        // 用户 户好 → 2 bigrams; "ab c ": "ab ", "b c", " c " → 3 trigrams.
        assert_eq!(shingles("用户好", &mut s), 3);
        assert_eq!(s.len(), 2);
        assert_eq!(shingles("AB, c!!", &mut s), 3);
        assert_eq!(s.len(), 3);
        // Digits and punctuation are one boundary: only the letters count.
        assert_eq!(sim("第 837 次，已完成", "第 32761 次 已完成"), 1.0);
    }

    #[test]
    fn similarity_of_paraphrases_and_of_different_facts() {
        let near = [
            (
                "用户偏好简洁的回复，不用列表。",
                "用户偏好简洁的回复,不要用列表",
            ),
            (
                "User prefers short answers without lists",
                "The user prefers short answers, no lists.",
            ),
            (
                "用户住在上海浦东，养了一只猫",
                "用户住在上海浦东，养了一只猫叫咪咪",
            ),
            (
                "Prefers Python over Go for scripts",
                "User prefers Python over Go for scripting",
            ),
        ];
        for (a, b) in near {
            let s = sim(a, b);
            assert!(s >= THRESHOLD, "{a} / {b}: {s}");
        }
        let apart = [
            ("用户偏好简洁的回复", "用户喜欢周末爬山"),
            (
                "User prefers short answers without lists",
                "User prefers long answers with many examples",
            ),
            (
                "用户偏好简洁的回复，不用列表。",
                "用户偏好详细的回复，多用列表。",
            ),
            (
                "meeting with Alice about the budget",
                "meeting with Bob about the roadmap",
            ),
            ("用户在北京工作，负责支付系统", "用户在上海读书，喜欢打篮球"),
        ];
        for (a, b) in apart {
            let s = sim(a, b);
            assert!(s < THRESHOLD, "{a} / {b}: {s}");
        }
    }

    #[test]
    fn banding_finds_what_is_similar_and_nothing_else() {
        let texts = [
            "用户偏好简洁的回复，不用列表。",
            "User prefers short answers without lists",
            "用户偏好简洁的回复,不要用列表",
            "用户喜欢周末去香山爬山",
            "The user prefers short answers, no lists.",
            "Production deploys only on weekdays before 16:00.",
        ];
        let t: Vec<Text> = texts.iter().map(|t| Text { space: 0, text: t }).collect();
        let mut g = Groups::new(t.len());
        link(&t, &mut g);
        let roots: Vec<usize> = (0..t.len()).map(|i| g.find(i)).collect();
        assert_eq!(roots, [0, 1, 0, 3, 1, 5]);
        // Other spaces are not compared.
        let t = [
            Text {
                space: 1,
                text: texts[0],
            },
            Text {
                space: 2,
                text: texts[2],
            },
        ];
        let mut g = Groups::new(2);
        link(&t, &mut g);
        assert_ne!(g.find(0), g.find(1));
    }
}
