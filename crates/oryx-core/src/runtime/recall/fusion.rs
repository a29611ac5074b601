//! The runtime's rank fusion of several recall routes: each route is a list best first, and an
//! item's score is the sum over routes of `weight / (60 + rank)` (rank from 1). Scores across
//! routes are not comparable; ranks are. Sums are taken route by route in route order, and ties
//! keep the order in which items were first met, so the console's order and scores are the
//! runtime's to the last bit.

/// The smoothing constant of reciprocal rank fusion.
pub const RRF_K: u32 = 60;

/// An item of one route, by its id.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Candidate {
    pub id: usize,
    /// The route's own score (cosine for the semantic route; 0 where a route has none).
    pub score: f64,
}

/// An item's fused score.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fused {
    pub id: usize,
    pub score: f64,
}

/// What rank `rank` (from 0) of a route of weight `weight` adds to its item's score.
pub fn contribution(weight: f64, rank: usize) -> f64 {
    weight / f64::from(RRF_K + 1 + u32::try_from(rank).unwrap_or(u32::MAX - RRF_K - 1))
}

/// Every item of the routes with its fused score, best first (the caller keeps the top k).
pub fn fuse(weights: &[f64], routes: &[&[Candidate]]) -> Vec<Fused> {
    assert_eq!(weights.len(), routes.len(), "one weight per route");
    let mut order: Vec<Fused> = Vec::new();
    let mut slot: std::collections::HashMap<usize, usize> = std::collections::HashMap::new();
    for (route, &weight) in routes.iter().zip(weights) {
        for (rank, c) in route.iter().enumerate() {
            let add = contribution(weight, rank);
            match slot.get(&c.id) {
                Some(&i) => order[i].score += add,
                None => {
                    slot.insert(c.id, order.len());
                    order.push(Fused {
                        id: c.id,
                        score: add,
                    });
                }
            }
        }
    }
    // Stable, best first, with Java's total order on doubles (`Double.compare`).
    order.sort_by(|a, b| b.score.total_cmp(&a.score));
    order
}

/// Cosine similarity as the runtime computes it: in double precision, `0` when either vector
/// has no length; `None` when the dimensions differ (the runtime refuses to compare them).
pub fn cosine(a: &[f32], b: &[f32]) -> Option<f64> {
    if a.len() != b.len() {
        return None;
    }
    let (mut dot, mut na, mut nb) = (0f64, 0f64, 0f64);
    for (&x, &y) in a.iter().zip(b) {
        let (x, y) = (f64::from(x), f64::from(y));
        dot += x * y;
        na += x * x;
        nb += y * y;
    }
    if na <= 0.0 || nb <= 0.0 {
        return Some(0.0);
    }
    Some(dot / (na.sqrt() * nb.sqrt()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn route(ids: &[usize]) -> Vec<Candidate> {
        ids.iter().map(|&id| Candidate { id, score: 0.0 }).collect()
    }

    #[test]
    fn scores_are_weighted_reciprocal_ranks_summed_over_routes() {
        let a = route(&[1, 2, 3]);
        let b = route(&[3, 1]);
        let fused = fuse(&[1.0, 2.0], &[&a, &b]);
        let ids: Vec<_> = fused.iter().map(|f| f.id).collect();
        assert_eq!(ids, [3, 1, 2]);
        assert_eq!(fused[0].score, 1.0 / 63.0 + 2.0 / 61.0);
        assert_eq!(fused[1].score, 1.0 / 61.0 + 2.0 / 62.0);
        assert_eq!(fused[2].score, 1.0 / 62.0);
    }

    #[test]
    fn ties_keep_the_order_items_were_first_met_and_zero_weights_still_list() {
        let a = route(&[5, 6]);
        let b = route(&[6, 5]);
        let ids: Vec<_> = fuse(&[1.0, 1.0], &[&a, &b]).iter().map(|f| f.id).collect();
        assert_eq!(ids, [5, 6]);
        let fused = fuse(&[0.0, 1.0], &[&route(&[9]), &route(&[])]);
        assert_eq!(fused, [Fused { id: 9, score: 0.0 }]);
    }

    #[test]
    fn an_item_twice_in_a_route_counts_twice() {
        let fused = fuse(&[1.0], &[&route(&[4, 4])]);
        assert_eq!(
            fused,
            [Fused {
                id: 4,
                score: 1.0 / 61.0 + 1.0 / 62.0
            }]
        );
    }

    #[test]
    fn cosine_in_double_precision() {
        assert_eq!(cosine(&[1.0, 0.0], &[0.0, 1.0]), Some(0.0));
        assert_eq!(cosine(&[0.0, 0.0], &[0.0, 1.0]), Some(0.0));
        assert_eq!(cosine(&[1.0], &[1.0, 2.0]), None);
        let c = cosine(&[0.1, 0.2, 0.3], &[0.3, 0.2, 0.1]).unwrap();
        assert!((c - 10.0 / 14.0).abs() < 1e-7, "{c}");
    }
}
