//! Weights and top-k for the runtime's fusion, proposed from questions whose answers are known
//! (an agent's recall checks): each question's routes are built once, then ranked again under
//! every weight triple of a small grid, since only the fusion depends on the weights.
//!
//! The proposal answers as many questions as possible at the configured top-k; it raises top-k
//! only when a larger one answers more (never past [`MAX_TOP_K`] unless the configuration is
//! already there), and never lowers it: a smaller top-k would drop entries from the answers to
//! questions nobody wrote a check for. Among equally good weights it takes those that rank the
//! expected entries highest, then those nearest the configured ones.

use super::{RouteLists, Settings};

/// The weights tried for each route. The fusion only compares ratios, so a coarse grid with a
/// zero per route covers the shapes that matter (one route alone, one route leading, equal).
const SEMANTIC: [f64; 7] = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0];
const KEYWORD: [f64; 5] = [0.0, 0.5, 1.0, 2.0, 3.0];
const RECENCY: [f64; 5] = [0.0, 0.25, 0.5, 1.0, 2.0];

/// The largest top-k a proposal raises to.
pub const MAX_TOP_K: i64 = 50;

/// One question: its routes and the entries (ids in `routes.unique`) that must all be in the
/// answer. An empty `expect` is a question that cannot pass (its entries are gone).
pub struct Case<'a> {
    pub routes: &'a RouteLists<'a>,
    pub expect: Vec<usize>,
}

/// The proposal, and each question's smallest passing top-k under the configured weights and
/// under the proposed ones (`None`: no top-k answers it).
#[derive(Debug, Clone, PartialEq)]
pub struct Proposal {
    pub settings: Settings,
    pub needed_now: Vec<Option<usize>>,
    pub needed: Vec<Option<usize>>,
    /// Weight triples ranked.
    pub tried: usize,
}

impl Proposal {
    /// Questions answered at `top_k` by the configured weights and by the proposed ones.
    pub fn passed(&self, current_top_k: i64) -> (usize, usize) {
        (
            count(&self.needed_now, current_top_k),
            count(&self.needed, self.settings.top_k),
        )
    }
}

/// The smallest top-k whose answer holds every expected entry.
pub fn needed_top_k(routes: &RouteLists, weights: &[f64; 3], expect: &[usize]) -> Option<usize> {
    if expect.is_empty() {
        return None;
    }
    let fused = routes.fuse(weights);
    let mut worst = 0;
    for want in expect {
        worst = worst.max(fused.iter().position(|f| f.id == *want)? + 1);
    }
    Some(worst)
}

fn count(needed: &[Option<usize>], top_k: i64) -> usize {
    let k = usize::try_from(top_k).unwrap_or(0);
    needed.iter().filter(|n| n.is_some_and(|n| n <= k)).count()
}

/// The weights and top-k that answer the most of `cases`, starting from `current`.
pub fn propose(cases: &[Case], current: Settings) -> Proposal {
    let mut grid: Vec<[f64; 3]> = vec![current.weights];
    for s in SEMANTIC {
        for k in KEYWORD {
            for r in RECENCY {
                if [s, k, r] != current.weights {
                    grid.push([s, k, r]);
                }
            }
        }
    }
    let needed: Vec<Vec<Option<usize>>> = grid
        .iter()
        .map(|w| {
            cases
                .iter()
                .map(|c| needed_top_k(c.routes, w, &c.expect))
                .collect()
        })
        .collect();
    let start = current.top_k.max(0);
    let cap = start.max(MAX_TOP_K);
    let best_at = |k: i64| needed.iter().map(|n| count(n, k)).max().unwrap_or(0);
    let most = best_at(cap);
    // The smallest top-k, from the configured one up, that answers as many as any can.
    let top_k = (start..=cap).find(|&k| best_at(k) == most).unwrap_or(start);
    // How high the expected entries rank, summed (an unanswerable question counts past the cap).
    let depth = |n: &[Option<usize>]| -> usize {
        let past = usize::try_from(cap).unwrap_or(usize::MAX - 1) + 1;
        n.iter().map(|x| x.unwrap_or(past).min(past)).sum()
    };
    let distance = |w: &[f64; 3]| -> f64 {
        w.iter()
            .zip(current.weights)
            .map(|(a, b)| (a - b).abs())
            .sum()
    };
    let best = (0..grid.len())
        .filter(|&i| count(&needed[i], top_k) == most)
        .min_by(|&a, &b| {
            depth(&needed[a])
                .cmp(&depth(&needed[b]))
                .then(distance(&grid[a]).total_cmp(&distance(&grid[b])))
        })
        .unwrap_or(0);
    Proposal {
        settings: Settings {
            weights: grid[best],
            top_k,
        },
        needed_now: needed[0].clone(),
        needed: needed[best].clone(),
        tried: grid.len(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::RuntimeEntry;
    use crate::runtime::recall::{route_lists, SemanticSide};

    fn entries(n: usize) -> Vec<RuntimeEntry> {
        (0..n)
            .map(|i| RuntimeEntry {
                text: format!("entry {i}"),
                // Later entries are newer: recency ranks them first.
                time: chrono::NaiveDate::from_ymd_opt(2026, 1, 1)
                    .and_then(|d| d.and_hms_opt(0, 0, 0))
                    .map(|t| t + chrono::Duration::minutes(i as i64)),
            })
            .collect()
    }

    /// Routes whose semantic side puts `best` first and the rest newest first (as recency does).
    fn routes<'a>(all: &'a [RuntimeEntry], best: usize) -> RouteLists<'a> {
        route_lists(
            all,
            &[],
            |_| {
                let mut rows: Vec<(String, f64)> = all
                    .iter()
                    .enumerate()
                    .map(|(i, e)| {
                        let score = if i == best {
                            0.99
                        } else {
                            0.5 + i as f64 * 0.001
                        };
                        (
                            crate::runtime::memory_vectors::entry_hash("a", &e.text),
                            score,
                        )
                    })
                    .collect();
                rows.sort_by(|a, b| b.1.total_cmp(&a.1));
                Ok((rows, SemanticSide::default()))
            },
            "q",
            "a",
        )
    }

    #[test]
    fn an_old_entry_the_model_finds_needs_the_semantic_route_to_lead() {
        // 40 entries; the expected one is the oldest, first for the model, last for recency.
        let all = entries(40);
        let r = routes(&all, 0);
        let current = Settings {
            weights: [1.0, 1.0, 1.0],
            top_k: 5,
        };
        let cases = [Case {
            routes: &r,
            expect: vec![0],
        }];
        assert!(needed_top_k(&r, &current.weights, &[0]).unwrap() > 5);
        let p = propose(&cases, current);
        assert_eq!(p.passed(5), (0, 1));
        assert_eq!(p.settings.top_k, 5, "no need to raise top-k");
        assert!(p.settings.weights[0] > p.settings.weights[2], "{p:?}");
        assert_eq!(p.needed, [Some(1)]);
    }

    #[test]
    fn settings_that_answer_everything_are_kept() {
        let all = entries(10);
        let r = routes(&all, 9);
        let current = Settings {
            weights: [1.0, 1.0, 1.0],
            top_k: 5,
        };
        let p = propose(
            &[Case {
                routes: &r,
                expect: vec![9],
            }],
            current,
        );
        assert_eq!(p.settings, current);
        assert_eq!(p.passed(5), (1, 1));
    }

    #[test]
    fn top_k_rises_only_when_no_weights_answer_at_the_configured_one() {
        // Two expected entries the semantic route puts first and last, recency in between:
        // no weights bring both into a top 2.
        let all = entries(12);
        let r = routes(&all, 11);
        let current = Settings {
            weights: [1.0, 0.0, 1.0],
            top_k: 2,
        };
        let p = propose(
            &[Case {
                routes: &r,
                expect: vec![11, 3],
            }],
            current,
        );
        assert!(p.settings.top_k > 2, "{p:?}");
        assert_eq!(p.passed(2), (0, 1));
        let gone = propose(
            &[Case {
                routes: &r,
                expect: vec![],
            }],
            current,
        );
        assert_eq!(
            gone.settings, current,
            "a check that cannot pass moves nothing"
        );
    }
}
