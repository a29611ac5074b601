//! Journal records holding a needle removed, and the records that refer to them (restored,
//! dropped). A `write` record is what lets the journal put a line back after a racing rewrite
//! dropped it: removed, it can never bring a forgotten line back. A `removed` record's line
//! goes too (the line is being forgotten, not kept out by the journal). A line that cannot be
//! read (torn) holding a needle is removed as well; every other line keeps its bytes.
//!
//! The journal is rewritten whole beside itself, under `MEMORY.md.lock` (its writers' lock).

use std::collections::HashSet;
use std::path::Path;

use super::{holds_any, json_forms, sync_dir, EntryText, FileDone};
use crate::error::{IoContext, Result};
use crate::forget::{Copies, Needles, Place};
use crate::memory::format::parse_entry;
use crate::memory::journal::{journal_path, Record};
use crate::rooted_fs;

/// The journal of `memory` (a MEMORY.md): records holding a needle counted and, with `write`,
/// removed.
pub(super) fn forget(memory: &Path, needles: &Needles, write: bool) -> Result<FileDone> {
    let path = journal_path(memory);
    let mut done = FileDone::default();
    let forms = json_forms(needles);
    let Some(text) = read(&path)? else {
        return Ok(done);
    };
    if !holds_any(&text, &forms) {
        return Ok(done);
    }
    let _guard = match write {
        true => Some(crate::memory::markdown::lock(memory)?),
        false => None,
    };
    // Read again under the lock: a write may have landed since.
    let text = match write {
        true => match read(&path)? {
            Some(t) => t,
            None => return Ok(done),
        },
        false => text,
    };
    let plan = plan(&text, needles, &forms);
    if plan.count == 0 {
        return Ok(done);
    }
    if write {
        let Some((dir, name)) = rooted_fs::memory_dir(&path, false)? else {
            return Ok(done);
        };
        dir.replace(name, &plan.text, || true)?;
        sync_dir(dir.path());
    }
    done.entries = plan.entries;
    done.erased
        .erased
        .push(Copies::new(Place::Journal, path, plan.count, None));
    Ok(done)
}

fn read(path: &Path) -> Result<Option<Vec<u8>>> {
    let Some(mut f) = rooted_fs::open_memory(path, rooted_fs::Access::Read)? else {
        return Ok(None);
    };
    let mut text = Vec::new();
    std::io::Read::read_to_end(&mut f, &mut text).at(path)?;
    Ok(Some(text))
}

struct Plan {
    text: Vec<u8>,
    count: usize,
    entries: Vec<EntryText>,
}

fn plan(text: &[u8], needles: &Needles, forms: &[Vec<u8>]) -> Plan {
    let lines: Vec<&[u8]> = text.split(|b| *b == b'\n').collect();
    let mut gone_ids: HashSet<String> = HashSet::new();
    let mut drop = vec![false; lines.len()];
    let mut entries = Vec::new();
    let mut count = 0;
    for (i, line) in lines.iter().enumerate() {
        if !holds_any(line, forms) {
            continue;
        }
        match serde_json::from_slice::<Record>(line) {
            Ok(Record::Write {
                id, scope, line, ..
            })
            | Ok(Record::Removed {
                id, scope, line, ..
            }) => {
                let e = parse_entry(&line);
                if needles.in_text(&e.content) {
                    entries.push(EntryText {
                        scope,
                        timestamp: e.timestamp,
                        content: e.content,
                    });
                }
                gone_ids.insert(id);
            }
            // A restored or dropped record names an id only.
            Ok(_) => continue,
            Err(_) => {}
        }
        drop[i] = true;
        count += 1;
    }
    // What refers to a removed record goes with it.
    for (i, line) in lines.iter().enumerate() {
        if drop[i] || gone_ids.is_empty() {
            continue;
        }
        if let Ok(Record::Restored { id, .. } | Record::Dropped { id, .. }) =
            serde_json::from_slice::<Record>(line)
        {
            drop[i] = gone_ids.contains(&id);
        }
    }
    let mut out = Vec::with_capacity(text.len());
    let last = lines.len() - 1;
    for (i, line) in lines.iter().enumerate() {
        if drop[i] {
            continue;
        }
        out.extend_from_slice(line);
        if i < last {
            out.push(b'\n');
        }
    }
    Plan {
        text: out,
        count,
        entries,
    }
}
