//! Reading an entry 32 bytes at a time (AVX2, x86-64), for the per-entry passes over the
//! ~900 000 entries of a large archive: a byte-at-a-time pass over mixed ASCII and CJK text
//! spends its time on branches that the data mispredicts.

use std::arch::x86_64::*;
use std::sync::OnceLock;

/// Whether this CPU has what the vector passes use (checked once).
pub fn detected() -> bool {
    static HAS: OnceLock<bool> = OnceLock::new();
    *HAS.get_or_init(|| {
        is_x86_feature_detected!("avx2")
            && is_x86_feature_detected!("popcnt")
            && is_x86_feature_detected!("bmi1")
            && is_x86_feature_detected!("sse4.1")
    })
}

/// The 32-byte chunks of a text, in order. A text of 32 bytes or more is read in place: its
/// last chunk is its last 32 bytes, overlapping the one before, with the bytes already seen
/// left out of `valid`; a shorter text is read from a copy padded with zeros.
pub struct Chunks<'a> {
    text: &'a [u8],
    at: usize,
    pad: [u8; 32],
}

/// One chunk: 32 readable bytes from `ptr`, which is byte `base` of the text; bit `i` of
/// `valid` is set when byte `base + i` is one of the text's that no chunk before covered
/// (the first is byte `at`).
pub struct Chunk {
    pub ptr: *const u8,
    pub base: usize,
    pub at: usize,
    pub valid: u32,
}

impl<'a> Chunks<'a> {
    pub fn new(text: &'a [u8]) -> Self {
        Chunks {
            text,
            at: 0,
            pad: [0; 32],
        }
    }

    /// The next chunk. Its pointer stays valid while `self` is neither moved nor advanced.
    #[inline(always)]
    pub fn next_chunk(&mut self) -> Option<Chunk> {
        let (n, at) = (self.text.len(), self.at);
        if at >= n {
            return None;
        }
        let chunk = if n - at >= 32 {
            Chunk {
                ptr: self.text[at..].as_ptr(),
                base: at,
                at,
                valid: !0,
            }
        } else if n >= 32 {
            Chunk {
                ptr: self.text[n - 32..].as_ptr(),
                base: n - 32,
                at,
                valid: !0 << (32 - (n - at)),
            }
        } else {
            self.pad[..n].copy_from_slice(self.text);
            Chunk {
                ptr: self.pad.as_ptr(),
                base: 0,
                at,
                valid: (1 << n) - 1,
            }
        };
        self.at = chunk.base + 32;
        Some(chunk)
    }
}

impl Chunk {
    /// The chunk's bytes.
    ///
    /// # Safety
    /// The CPU has AVX2; the chunk's pointer is still valid (see [`Chunks::next_chunk`]).
    #[inline(always)]
    pub unsafe fn load(&self) -> __m256i {
        _mm256_loadu_si256(self.ptr.cast())
    }
}

/// Bytes of `v` within `lo..=hi`, read as unsigned bytes (all ones where they are).
///
/// # Safety
/// The CPU has AVX2.
#[inline(always)]
pub unsafe fn in_range(v: __m256i, lo: u8, hi: u8) -> __m256i {
    let x = _mm256_sub_epi8(v, _mm256_set1_epi8(lo as i8));
    _mm256_cmpeq_epi8(_mm256_min_epu8(x, _mm256_set1_epi8((hi - lo) as i8)), x)
}

/// Bytes of `v` equal to `b`.
///
/// # Safety
/// The CPU has AVX2.
#[inline(always)]
pub unsafe fn eq(v: __m256i, b: u8) -> __m256i {
    _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b as i8))
}

/// The top bit of each byte: bit `i` for byte `i`.
///
/// # Safety
/// The CPU has AVX2.
#[inline(always)]
pub unsafe fn bits(v: __m256i) -> u32 {
    _mm256_movemask_epi8(v) as u32
}

/// What the personal-data prefilter needs of a text: whether it holds `@` or `+`, and how
/// many ASCII digits.
///
/// # Safety
/// The CPU has the features of [`detected`].
#[target_feature(enable = "avx2,popcnt,bmi1,sse4.1")]
pub unsafe fn signs_and_digits(text: &[u8]) -> (bool, u32) {
    let (mut signs, mut digits) = (0u32, 0u32);
    let mut chunks = Chunks::new(text);
    while let Some(c) = chunks.next_chunk() {
        let v = c.load();
        signs |= bits(_mm256_or_si256(eq(v, b'@'), eq(v, b'+'))) & c.valid;
        digits += (bits(in_range(v, b'0', b'9')) & c.valid).count_ones();
    }
    (signs != 0, digits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_cover_each_byte_once() {
        for n in 0..140 {
            let text: Vec<u8> = (0..n).map(|i| i as u8).collect();
            let mut seen = Vec::new();
            let mut chunks = Chunks::new(&text);
            while let Some(c) = chunks.next_chunk() {
                assert_eq!(c.valid.trailing_zeros() as usize, c.at - c.base, "{n}");
                for i in 0..32 {
                    // SAFETY: a chunk has 32 readable bytes.
                    let b = unsafe { *c.ptr.add(i) };
                    if c.valid & (1 << i) != 0 {
                        assert_eq!(usize::from(b), c.base + i, "{n}");
                        seen.push(b);
                    } else if c.base + i >= n {
                        assert_eq!(b, 0, "padding {n}");
                    }
                }
            }
            assert_eq!(seen, text, "{n}");
        }
    }

    #[test]
    fn signs_and_digits_count_what_is_there() {
        if !detected() {
            return;
        }
        let texts = [
            "",
            "@",
            "no signs, 42 digits? no: 4 and 2",
            "电话+86 138-1234-5678",
            "邮箱 lin.xiao@example.com 第 12 次（共 345 次）",
        ];
        for base in texts {
            // At every offset across the chunk edges.
            for pre in 0..40 {
                let text = "x".repeat(pre) + base;
                let b = text.as_bytes();
                let want = (
                    b.iter().any(|&c| c == b'@' || c == b'+'),
                    b.iter().filter(|c| c.is_ascii_digit()).count() as u32,
                );
                // SAFETY: detected above.
                assert_eq!(unsafe { signs_and_digits(b) }, want, "{text:?}");
            }
        }
    }
}
