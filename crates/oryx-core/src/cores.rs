//! How many threads a pass over a large input is split into.

/// The cores this process may run on, at most eight (a part per core; more parts than that
/// gain nothing on the inputs split this way). Asked only once an input is large enough to
/// split: reading the answer costs system calls (affinity, cgroup quota).
pub(crate) fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get().min(8))
}
