//! How MEMORY.md entries are named: section, position and a hash of the stored line
//! (`a12-3f9c0b1e`). The sqlite and mem0 stores name entries by their own ids; these are the
//! ids of every entry that has none (see [`super::entry::entry_id`]).

use super::scope::Scope;
use crate::embed::identity::{fnv1a, fnv1a_many};
use crate::error::{CoreError, Result};

/// A MEMORY.md entry's id: section, position in it and a hash of the stored line
/// (`a12-3f9c0b1e`). Appends by other processes go after the last entry, so ids of existing
/// entries stay valid; a change before an entry moves it and its id says so (and is found
/// again by its line).
pub fn markdown_id(scope: Scope, ordinal: usize, line: &str) -> String {
    markdown_id_of(scope, ordinal, line_hash(line))
}

/// [`markdown_id`] from the line's hash (`a12-0badcafe`).
pub fn markdown_id_of(scope: Scope, ordinal: usize, hash: u32) -> String {
    write_markdown_id(scope, ordinal, hash, &mut [0; MARKDOWN_ID_MAX]).to_string()
}

/// The longest MEMORY.md id: `c`/`a`, up to 20 digits, `-`, 8 hex digits.
pub const MARKDOWN_ID_MAX: usize = 30;

/// [`markdown_id_of`] written into `buf`, without the formatter, which costs more than the
/// rest of the id when a finding names most of a large file's entries.
pub fn write_markdown_id(
    scope: Scope,
    ordinal: usize,
    hash: u32,
    buf: &mut [u8; MARKDOWN_ID_MAX],
) -> &str {
    buf[0] = match scope {
        Scope::Core => b'c',
        Scope::Archival => b'a',
    };
    let digits = ordinal.checked_ilog10().unwrap_or(0) as usize + 1;
    let mut n = ordinal;
    for d in buf[1..=digits].iter_mut().rev() {
        *d = b'0' + (n % 10) as u8;
        n /= 10;
    }
    buf[digits + 1] = b'-';
    for (k, d) in buf[digits + 2..digits + 10].iter_mut().enumerate() {
        *d = b"0123456789abcdef"[(hash >> ((7 - k) * 4)) as usize & 15];
    }
    let id = &buf[..digits + 10];
    // Every byte written above is ASCII (a letter, digits, `-`, hex digits): the check cannot
    // fail.
    std::str::from_utf8(id).unwrap_or_default()
}

pub fn line_hash(line: &str) -> u32 {
    fold_hash(fnv1a(line.as_bytes()))
}

/// [`line_hash`] of each line, faster than one at a time on many lines.
pub fn line_hashes(lines: &[&[u8]]) -> Vec<u32> {
    fnv1a_many(lines).into_iter().map(fold_hash).collect()
}

fn fold_hash(h: u64) -> u32 {
    (h ^ (h >> 32)) as u32
}

/// The parts of a MEMORY.md id; an id of any other form is unknown.
pub fn parse_markdown_id(id: &str) -> Result<(Scope, usize, u32)> {
    let unknown = || CoreError::NotFound(format!("no memory entry with id {id:?}"));
    let scope = match id.as_bytes().first() {
        Some(b'c') => Scope::Core,
        Some(b'a') => Scope::Archival,
        _ => return Err(unknown()),
    };
    let (ord, hash) = id[1..].split_once('-').ok_or_else(unknown)?;
    let ord = ord.parse::<usize>().map_err(|_| unknown())?;
    if hash.len() != 8 {
        return Err(unknown());
    }
    let hash = u32::from_str_radix(hash, 16).map_err(|_| unknown())?;
    Ok((scope, ord, hash))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_ids_are_tag_ordinal_and_hash() {
        for (scope, n, h) in [
            (Scope::Core, 0, 0u32),
            (Scope::Archival, 9, 0xdead_beef),
            (Scope::Archival, 10, 0x0bad_cafe),
            (Scope::Core, 123_456_789, 7),
            (Scope::Archival, usize::MAX, u32::MAX),
        ] {
            let tag = if scope == Scope::Core { 'c' } else { 'a' };
            assert_eq!(markdown_id_of(scope, n, h), format!("{tag}{n}-{h:08x}"));
        }
    }

    #[test]
    fn markdown_ids_round_trip_and_reject_other_forms() {
        let id = markdown_id(Scope::Archival, 12, "- [2026-07-22 09:31:10] x");
        let (s, o, h) = parse_markdown_id(&id).unwrap();
        assert_eq!((s, o), (Scope::Archival, 12));
        assert_eq!(h, line_hash("- [2026-07-22 09:31:10] x"));
        for bad in [
            "",
            "x1-00000000",
            "a-00000000",
            "a1-123",
            "a1-zzzzzzzz",
            "42",
        ] {
            assert!(
                matches!(parse_markdown_id(bad), Err(CoreError::NotFound(_))),
                "{bad}"
            );
        }
    }
}
