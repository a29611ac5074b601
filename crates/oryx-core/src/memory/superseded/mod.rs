//! Superseded facts: pairs of one owner's entries that state different values for the same
//! thing ("用户住在北京" … later "用户搬到上海了"; "prefers tea" … "switched to coffee"), the
//! older one now likely wrong. Candidates come from the offline model's embeddings (the two
//! are on one topic); rules on the two texts decide that the slot is the same and the value
//! differs (numbers, phone numbers, e-mail addresses, dates, places, change words, negation),
//! and leave alone what only looks alike: two people's numbers, an addition ("coffee too"),
//! two meetings, a fact and its elaboration, a restatement.

mod candidates;
pub mod features;
mod lexicon;
pub mod rules;

pub use candidates::{candidates, NEIGHBOURS};
pub use rules::{judge, Reason, Thresholds, Verdict};

use crate::embed::Vector;

/// One superseded pair: indices into the entries as given (oldest first).
#[derive(Debug, Clone, PartialEq)]
pub struct Pair {
    pub older: usize,
    pub newer: usize,
    pub cosine: f32,
    pub verdict: Verdict,
}

/// The superseded pairs among `texts` (oldest first) with their `vectors`, best first. An
/// older entry is named by one pair at most: the one the rules are surest of (the newest on a
/// tie), so a fact restated three times is one item to review, not three.
pub fn find(texts: &[&str], vectors: &[Vector], t: &Thresholds) -> Vec<Pair> {
    assert_eq!(texts.len(), vectors.len(), "a vector per text");
    let feats: Vec<features::Features> = texts.iter().map(|s| features::features(s)).collect();
    let mut best: std::collections::HashMap<usize, Pair> = Default::default();
    for (i, j, c) in candidates(vectors, t.topic) {
        let Some(verdict) = rules::judge_features(texts[i], texts[j], &feats[i], &feats[j], c, t)
        else {
            continue;
        };
        let p = Pair {
            older: i,
            newer: j,
            cosine: c,
            verdict,
        };
        match best.get(&i) {
            Some(q) if (q.verdict.score, q.newer) >= (p.verdict.score, p.newer) => {}
            _ => {
                best.insert(i, p);
            }
        }
    }
    let mut out: Vec<Pair> = best.into_values().collect();
    out.sort_by(|a, b| {
        b.verdict
            .score
            .total_cmp(&a.verdict.score)
            .then(a.older.cmp(&b.older))
    });
    out
}

/// A "keep both" of the pair whose entries have the review keys `older` and `newer`
/// ([`crate::memory::review::entry_key`]): an edit of either makes the pair new again.
pub fn pair_key(older: u64, newer: u64) -> u64 {
    crate::embed::identity::fnv1a_parts(&[
        &older.to_le_bytes(),
        b"\0superseded\0",
        &newer.to_le_bytes(),
    ])
}
