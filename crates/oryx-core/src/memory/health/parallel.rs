//! Work over many entries split into consecutive parts, a thread each, results in order.

/// Below this many entries the checks run on one thread (starting more costs more than it saves).
pub(super) const PARALLEL_FROM: usize = 20_000;

/// The indices `0..n` in consecutive ranges, one per core when there are many (one range, maybe
/// empty, otherwise).
pub(super) fn part_ranges(n: usize) -> Vec<std::ops::Range<usize>> {
    let threads = match n < PARALLEL_FROM {
        true => 1,
        false => crate::cores::cores(),
    };
    if threads < 2 {
        return std::iter::once(0..n).collect();
    }
    let size = n.div_ceil(threads);
    (0..n)
        .step_by(size)
        .map(|from| from..(from + size).min(n))
        .collect()
}

/// `f` over the indices `0..n` in consecutive ranges, one per core when there are many: each
/// range's result, in index order.
pub(super) fn in_parts<T: Send>(
    n: usize,
    f: impl Fn(std::ops::Range<usize>) -> T + Sync,
) -> Vec<T> {
    let parts = part_ranges(n).into_iter().map(|r| (r, ())).collect();
    each_part(parts, |r, ()| f(r))
}

/// `f` over each range with what is its own (`S`), on a thread each when there are several:
/// each result, in the order of `parts`.
pub(super) fn each_part<S: Send, T: Send>(
    parts: Vec<(std::ops::Range<usize>, S)>,
    f: impl Fn(std::ops::Range<usize>, S) -> T + Sync,
) -> Vec<T> {
    if parts.len() < 2 {
        return parts.into_iter().map(|(r, own)| f(r, own)).collect();
    }
    std::thread::scope(|s| {
        let f = &f;
        let handles: Vec<_> = parts
            .into_iter()
            .map(|(r, own)| s.spawn(move || f(r, own)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a health check thread panicked"))
            .collect()
    })
}
