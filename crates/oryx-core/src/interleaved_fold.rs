//! Folding many texts byte by byte, four at a time with their steps interleaved. Where each
//! byte's step waits for the last one (a load of an automaton's next state), one text keeps the
//! core waiting most of the time; four independent states stepped in turn let the CPU overlap
//! their chains of dependent loads. Used on the ~900 000 entries of a 100 MB file
//! (the health checks' trigger scan, the entries' line hashes).

const LANES: usize = 4;

/// What `step` leaves of `init` after each text's bytes, in the order of `texts`, written into
/// `out` (cleared first). `step(state, byte, text, end)`: `text` is the index of the text the
/// byte is of, `end` the offset just past the byte in it (for the rare step that must look back
/// at the text).
#[inline(always)]
pub(crate) fn fold_each<S: Copy>(
    texts: &[&[u8]],
    init: S,
    out: &mut Vec<S>,
    step: impl Fn(&mut S, u8, usize, usize),
) {
    out.clear();
    out.resize(texts.len(), init);
    let one = |out: &mut [S], i: usize, from: usize, mut s: S| {
        for (j, &b) in texts[i][from..].iter().enumerate() {
            step(&mut s, b, i, from + j + 1);
        }
        out[i] = s;
    };
    if texts.len() < LANES {
        for i in 0..texts.len() {
            one(out, i, 0, init);
        }
        return;
    }
    // Each lane: the text it folds, how far it is, its state so far.
    let mut idx: [usize; LANES] = std::array::from_fn(|k| k);
    let mut at = [0usize; LANES];
    let mut s = [init; LANES];
    let mut next = LANES;
    loop {
        let len: [usize; LANES] = std::array::from_fn(|k| texts[idx[k]].len() - at[k]);
        let n = *len.iter().min().expect("lanes");
        let [r0, r1, r2, r3] = std::array::from_fn(|k| &texts[idx[k]][at[k]..at[k] + n]);
        // Zipped, so that the loop has one bound and no check per byte.
        for (j, (((b0, b1), b2), b3)) in r0.iter().zip(r1).zip(r2).zip(r3).enumerate() {
            step(&mut s[0], *b0, idx[0], at[0] + j + 1);
            step(&mut s[1], *b1, idx[1], at[1] + j + 1);
            step(&mut s[2], *b2, idx[2], at[2] + j + 1);
            step(&mut s[3], *b3, idx[3], at[3] + j + 1);
        }
        let mut drained = false;
        for k in 0..LANES {
            at[k] += n;
            if len[k] == n {
                out[idx[k]] = s[k];
                match next < texts.len() {
                    true => {
                        (idx[k], at[k], s[k]) = (next, 0, init);
                        next += 1;
                    }
                    // A lane with no text left to take: its last one is done (at its end).
                    false => drained = true,
                }
            }
        }
        if drained {
            // The last texts: each lane finishes its own.
            for k in 0..LANES {
                if at[k] < texts[idx[k]].len() {
                    one(out, idx[k], at[k], s[k]);
                }
            }
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn four_at_a_time_is_one_at_a_time() {
        // A step that depends on every byte's place: the text, the offset and the order.
        let step = |s: &mut (u64, usize), b: u8, text: usize, end: usize| {
            s.0 = (s.0 ^ u64::from(b) ^ (end as u64) << 8 ^ (text as u64) << 32)
                .wrapping_mul(0x0100_0000_01b3);
            s.1 += 1;
        };
        let texts: Vec<String> = (0..1_000)
            .map(|i| "x·字".repeat(i * 7 % 41) + &i.to_string())
            .chain(["".to_string(), "".to_string()])
            .chain((0..9).map(|i| "y".repeat(i * 3)))
            .collect();
        let mut got = Vec::new();
        for n in [0, 1, 3, 4, 5, 7, 8, 9, 17, 1_000, texts.len()] {
            let bytes: Vec<&[u8]> = texts[..n].iter().map(|t| t.as_bytes()).collect();
            let want: Vec<(u64, usize)> = bytes
                .iter()
                .enumerate()
                .map(|(i, t)| {
                    let mut s = (7, 0);
                    for (j, &b) in t.iter().enumerate() {
                        step(&mut s, b, i, j + 1);
                    }
                    s
                })
                .collect();
            fold_each(&bytes, (7, 0), &mut got, step);
            assert_eq!(got, want, "{n} texts");
        }
    }
}
