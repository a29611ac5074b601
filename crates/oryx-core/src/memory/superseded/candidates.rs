//! Candidate pairs: entries of one owner on the same topic, by the cosine of their embeddings
//! (each entry embedded once), the newer one later in the list. Each newer entry keeps its few
//! closest older ones, so the rules run on a handful of pairs per entry.

use crate::embed::{cosine, Vector};

/// Older entries kept per newer one: a fact restated more often than this is rare, and the
/// closest restatements are the ones that matter.
pub const NEIGHBOURS: usize = 6;

/// (older, newer, cosine) of every entry's closest older entries at or above `floor`;
/// `vectors` oldest first.
pub fn candidates(vectors: &[Vector], floor: f32) -> Vec<(usize, usize, f32)> {
    let mut out = Vec::new();
    let mut near: Vec<(usize, f32)> = Vec::new();
    for (j, v) in vectors.iter().enumerate() {
        near.clear();
        for (i, u) in vectors[..j].iter().enumerate() {
            let c = cosine(u, v);
            if c >= floor {
                near.push((i, c));
            }
        }
        // The closest few without sorting them all (an owner's entries on one topic can be
        // hundreds).
        if near.len() > NEIGHBOURS {
            near.select_nth_unstable_by(NEIGHBOURS - 1, |x, y| y.1.total_cmp(&x.1));
            near.truncate(NEIGHBOURS);
        }
        out.extend(near.iter().map(|&(i, c)| (i, j, c)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(x: f32, y: f32) -> Vector {
        let mut v = [0.0; crate::embed::DIM];
        let n = (x * x + y * y).sqrt();
        (v[0], v[1]) = (x / n, y / n);
        v
    }

    #[test]
    fn only_close_older_entries_are_paired() {
        let v = [unit(1.0, 0.0), unit(0.0, 1.0), unit(1.0, 0.1)];
        let c = candidates(&v, 0.5);
        assert_eq!(c.len(), 1);
        assert_eq!((c[0].0, c[0].1), (0, 2));
    }
}
