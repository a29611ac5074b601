//! Duplicates: entries with the same letters and digits (exact, the fix deletes all but the
//! newest), and near duplicates, found by key (the same letters, or a footprint's request) and
//! by character n-gram similarity ([`near_dup`]). The keys of ~900 000 entries are sorted to
//! find runs of equal keys.

use super::entries::Entries;
use super::finding::{params, Check, EntryId, Finding, Fix};
use super::keys::{self, footprint_request, near_text};
use super::options::Options;
use super::parallel::{each_part, part_ranges, PARALLEL_FROM};
use crate::memory::near_dup;

/// A key's 94 bits (with two flags) and its entry's index, sorted as a tuple (see [`sort_key`]).
type SortKey = (u64, u32, u32);

/// A 128-bit key as 94 bits to sort by, with `flags` (up to two bits, such as the section) in
/// place of its two highest bits: 16 bytes a sorted entry with its index, where the whole key
/// took 24 and a tuple holding a `u128` and a `bool` 48 (the sorts move ~900 000 of them, and
/// write as many again). That two of a million different texts share 94 bits has a chance
/// below one in 10^16.
fn sort_key(h: u128, flags: u64, i: usize) -> SortKey {
    (
        (flags << 62) | ((h >> 64) as u64 >> 2),
        h as u32,
        u32::try_from(i).expect("fewer than 2^32 entries"),
    )
}

/// The keys of `parts` (each in index order) in order, as `sort_unstable` would put them:
/// first into buckets by their top 16 bits in one pass, straight from the parts (so a bucket of
/// one key is already sorted), then each bucket on its own. On ~900 000 keys a comparison sort
/// over the whole costs several times more: most of its passes move every key, and the buckets
/// fit in the cache.
fn sort_keys(parts: Vec<Vec<SortKey>>) -> Vec<SortKey> {
    const BITS: u32 = 16;
    let n = parts.iter().map(Vec::len).sum::<usize>();
    if n < 1 << BITS {
        let mut keys = parts.concat();
        keys.sort_unstable();
        return keys;
    }
    let bucket = |k: &SortKey| (k.0 >> (64 - BITS)) as usize;
    let mut starts = vec![0usize; (1 << BITS) + 1];
    for k in parts.iter().flatten() {
        starts[bucket(k) + 1] += 1;
    }
    for b in 1..starts.len() {
        starts[b] += starts[b - 1];
    }
    let mut at = starts.clone();
    let mut out = vec![(0, 0, 0); n];
    for k in parts.into_iter().flatten() {
        let b = bucket(&k);
        out[at[b]] = k;
        at[b] += 1;
    }
    for w in starts.windows(2) {
        out[w[0]..w[1]].sort_unstable();
    }
    out
}

/// The duplicate keys of entries as sort keys: exact keys of entries that have one, flagged by
/// section; near keys of entries with enough letters, flagged by section and by whether the
/// entry is a footprint (`space` in [`near_duplicates`]).
#[derive(Default)]
pub(super) struct DupSortKeys {
    pub exact: Vec<SortKey>,
    pub near: Vec<SortKey>,
    texts: keys::KeyTexts,
}

impl DupSortKeys {
    pub fn add(&mut self, e: &(impl Entries + ?Sized), range: std::ops::Range<usize>) {
        for i in range {
            let k = self.texts.keys(e.text(i));
            let core = u64::from(e.is_core(i));
            if k.exact.1 > 0 {
                self.exact.push(sort_key(k.exact.0, core, i));
            }
            if k.near.1 >= 4 {
                self.near
                    .push(sort_key(k.near.0, core | u64::from(k.footprint) << 1, i));
            }
        }
    }
}

/// Runs of two or more equal keys in `sorted`: the entries of each, in item order.
fn runs_of(sorted: &[SortKey]) -> Vec<Vec<usize>> {
    sorted
        .chunk_by(|a, b| (a.0, a.1) == (b.0, b.1))
        .filter(|run| run.len() > 1)
        .map(|run| run.iter().map(|r| r.2 as usize).collect())
        .collect()
}

/// The ids of each group's entries (each group in index order, an entry in one group at
/// most), made at once on every core: a near group of a large archive can name most of its
/// entries (~900 000 ids in the 100 MB benchmark file). Each core makes the ids of its part of
/// the groups' entries in file order, where the entries' lines are read as they lie in memory
/// (a group's entries are spread over the whole file: hashed group by group, each group went
/// over all of it again), into lists of its own by group; a part's list of a group is one run
/// of that group's list, so the parts' lists are appended in order (dealing ~900 000 ids out
/// one by one on one core afterwards took half as long as making them).
fn ids_of_groups(e: &(impl Entries + ?Sized), groups: &[&[usize]]) -> Vec<Vec<EntryId>> {
    let mut group_of = vec![u32::MAX; e.len()];
    for (k, g) in groups.iter().enumerate() {
        for &i in *g {
            group_of[i] = k as u32;
        }
    }
    let members: Vec<usize> = (0..e.len()).filter(|&i| group_of[i] != u32::MAX).collect();
    let parts = part_ranges(members.len())
        .into_iter()
        .enumerate()
        .map(|(k, r)| (r, k == 0))
        .collect();
    let lists = each_part(parts, |range, first| {
        let mine = &members[range];
        // The first part's lists become the groups' (room for all of each group, so that the
        // other parts' are appended without a copy of what is there); the others' are sized
        // to what they hold.
        let mut lists: Vec<Vec<EntryId>> = match first {
            true => groups.iter().map(|g| Vec::with_capacity(g.len())).collect(),
            false => {
                let mut counts = vec![0usize; groups.len()];
                mine.iter().for_each(|&i| counts[group_of[i] as usize] += 1);
                counts.into_iter().map(Vec::with_capacity).collect()
            }
        };
        let mut entries = mine.iter();
        e.ids_each(mine, |id| {
            let k = group_of[*entries.next().expect("an id per entry")] as usize;
            lists[k].push(id);
        });
        lists
    });
    let mut lists = lists.into_iter();
    let mut out = lists.next().expect("one part at least");
    for part in lists {
        for (list, mut run) in out.iter_mut().zip(part) {
            list.append(&mut run);
        }
    }
    // Holds when no entry is in two groups (or twice in one).
    assert!(
        out.iter().zip(groups).all(|(l, g)| l.len() == g.len()),
        "groups share no entry"
    );
    out
}

/// Exact and near duplicates from the keys of every part of the entries (in index order),
/// and how many were dismissed.
pub(super) fn duplicates(
    e: &(impl Entries + ?Sized),
    keys: Vec<DupSortKeys>,
    opts: &Options,
) -> (Vec<Finding>, usize) {
    let mut hidden = 0;
    let mut out = Vec::new();
    let (exact, near): (Vec<_>, Vec<_>) = keys.into_iter().map(|k| (k.exact, k.near)).unzip();
    // The two sorts at once, one per core when there are many entries.
    let (exact, near) = match e.len() < PARALLEL_FROM {
        true => (sort_keys(exact), sort_keys(near)),
        false => std::thread::scope(|s| {
            let near = s.spawn(|| sort_keys(near));
            let exact = sort_keys(exact);
            (exact, near.join().expect("a health check thread panicked"))
        }),
    };
    let mut groups = runs_of(&exact);
    drop(exact);
    groups.sort();
    // What the exact fix deletes takes no part in near groups: the newest copy stands for it.
    let mut deleted = vec![false; e.len()];
    for g in groups {
        g[..g.len() - 1].iter().for_each(|&i| deleted[i] = true);
        if opts.hides(e, Check::Duplicates, &g) {
            hidden += 1;
            continue;
        }
        let ids = e.ids(&g);
        out.push(Finding {
            check: Check::Duplicates,
            kind: "exact".into(),
            reason: format!(
                "the same entry {} times; keeping the newest is enough",
                g.len()
            ),
            params: params([("count", g.len().to_string())]),
            // Keep the newest (last in time order).
            fix: Some(Fix::Delete {
                ids: ids[..ids.len() - 1].to_vec(),
            }),
            entry_ids: ids,
        });
    }
    let (near, h) = near_duplicates(e, near, &deleted, opts);
    out.extend(near);
    (out, hidden + h)
}

/// Near duplicates: entries of one section with the same near key (a class), and classes
/// whose texts are alike by character n-grams ([`near_dup`]), one finding per group of two or
/// more entries. The fix is left to the summary: near duplicates differ, and deleting all but
/// one would lose what the others said.
fn near_duplicates(
    e: &(impl Entries + ?Sized),
    mut keyed: Vec<SortKey>,
    deleted: &[bool],
    opts: &Options,
) -> (Vec<Finding>, usize) {
    // Classes (entries with one key), in the order of their first entries, so that which
    // texts lead the comparisons does not depend on the key hash; each class is compared by
    // its first entry. `keyed` is the near keys of [`DupSortKeys`], sorted.
    keyed.retain(|k| !deleted[k.2 as usize]);
    let mut classes: Vec<&[SortKey]> = keyed.chunk_by(|a, b| (a.0, a.1) == (b.0, b.1)).collect();
    classes.sort_unstable_by_key(|c| c[0].2);
    let texts: Vec<near_dup::Text> = classes
        .iter()
        .map(|c| near_dup::Text {
            space: c[0].0 >> 62,
            text: near_text(e.text(c[0].2 as usize)),
        })
        .collect();
    let mut links = near_dup::Groups::new(classes.len());
    near_dup::link(&texts, &mut links);
    // Groups by their root class: the classes, then their entries in item order.
    let mut by_root: std::collections::HashMap<usize, Vec<usize>> = Default::default();
    for c in 0..classes.len() {
        let r = links.find(c);
        by_root.entry(r).or_default().push(c);
    }
    let mut groups: Vec<(Vec<usize>, usize, f64)> = by_root
        .into_iter()
        .filter_map(|(root, cs)| {
            let mut ids: Vec<usize> = cs
                .iter()
                .flat_map(|&c| classes[c].iter().map(|k| k.2 as usize))
                .collect();
            (ids.len() > 1).then(|| {
                // Each class's entries are in order already: a stable sort merges the runs.
                ids.sort();
                (ids, cs.len(), links.weakest(root))
            })
        })
        .collect();
    groups.sort_by(|a, b| a.0.cmp(&b.0));
    // Dismissed groups are left out before their ids are made.
    let before = groups.len();
    groups.retain(|g| !opts.hides(e, Check::Duplicates, &g.0));
    let hidden = before - groups.len();
    let ids = ids_of_groups(e, &groups.iter().map(|g| &g.0[..]).collect::<Vec<_>>());
    let found = groups
        .into_iter()
        .zip(ids)
        .map(|((g, n_classes, similarity), entry_ids)| {
            let n = g.len();
            let newest = e.text(g[n - 1]);
            let sim = format!("{similarity:.2}");
            let pct = (similarity * 100.0).round();
            let (basis, reason) = match footprint_request(newest) {
                Some(req) => (
                    "request",
                    if n_classes == 1 {
                        format!(
                            "{n} footprints of the same request {req:?}: a summary keeps them in \
                             one line with a count"
                        )
                    } else {
                        format!(
                            "{n} footprints of nearly the same request ({pct}% alike, the newest \
                             {req:?}): a summary keeps them in one line with a count"
                        )
                    },
                ),
                _ if n_classes == 1 => (
                    "numbers",
                    format!(
                        "{n} entries differ only in numbers (a repeated footprint): a summary \
                         keeps them in one line"
                    ),
                ),
                _ => (
                    "text",
                    format!(
                        "{n} entries say nearly the same ({pct}% of their character n-grams in \
                         common): a summary keeps them in one line"
                    ),
                ),
            };
            let mut p = params([
                ("count", n.to_string()),
                ("basis", basis.to_string()),
                ("similarity", sim),
            ]);
            if basis == "request" {
                p.insert("request".into(), near_text(newest).to_string());
            }
            Finding {
                check: Check::Duplicates,
                kind: "near".into(),
                entry_ids,
                reason,
                params: p,
                fix: None,
            }
        })
        .collect();
    (found, hidden)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bucketed_sort_is_a_sort() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        // Many distinct keys, and a few keys shared by many entries (footprints).
        let keys: Vec<SortKey> = (0..200_000u32)
            .map(|i| match i % 3 {
                0 => sort_key(u128::from(next() % 7), 1, i as usize),
                _ => (next(), next() as u32, i),
            })
            .collect();
        let parts = vec![keys[..70_000].to_vec(), vec![], keys[70_000..].to_vec()];
        assert_eq!(sort_keys(parts), want_of(&keys));
        assert_eq!(sort_keys(vec![keys[..500].to_vec()]), want_of(&keys[..500]));
    }

    fn want_of(keys: &[SortKey]) -> Vec<SortKey> {
        let mut v = keys.to_vec();
        v.sort_unstable();
        v
    }
}
