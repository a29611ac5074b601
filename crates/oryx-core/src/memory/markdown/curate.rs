//! Curation of MEMORY.md as byte splices: an edit replaces one line's text, a delete cuts one
//! line, a move cuts it and inserts it in time order in the other section, a restore inserts.
//! Every other byte of the file (preamble, other headings, blank lines, line endings, a BOM)
//! stays, and each change records the splices that give the old bytes back exactly.

use crate::embed::identity::fnv1a;
use crate::error::{CoreError, Result};
use crate::memory::change::{changed_since, line_of, Applied, EntryDiff, EntrySnap, Splice, Step};
use crate::memory::entry::{trim_runtime, Scope};
use crate::memory::entry_id::{markdown_id, parse_markdown_id};
use crate::memory::format::{self, LineSpan};

/// Where each entry of each section stands, as [`format::parse`] finds them (core, archival),
/// without decoding the entries: cheap on a 100 MB file.
pub fn entry_spans(bytes: &[u8]) -> [Vec<LineSpan>; 2] {
    let from = format::bom_len(bytes);
    let heads = format::headings(bytes, from);
    let mut out: [Vec<LineSpan>; 2] = [Vec::new(), Vec::new()];
    let mut section: Option<Scope> = None;
    let mut pos = from;
    for (head, scope) in heads.iter().chain(std::iter::once(&(
        LineSpan {
            start: bytes.len(),
            end: bytes.len(),
            next: bytes.len(),
        },
        None,
    ))) {
        if let Some(s) = section {
            for span in format::lines(&bytes[..head.start], pos) {
                if !format::is_blank(bytes, span) {
                    out[slot(s)].push(span);
                }
            }
        }
        section = *scope;
        pos = head.next;
    }
    out
}

fn slot(scope: Scope) -> usize {
    match scope {
        Scope::Core => 0,
        Scope::Archival => 1,
    }
}

fn stored_line(bytes: &[u8], span: LineSpan) -> Result<&str> {
    let raw = std::str::from_utf8(&bytes[span.start..span.end]).map_err(|_| {
        CoreError::InvalidInput(
            "this MEMORY.md line is not valid UTF-8; the console does not edit it (fix it in \
             an editor)"
                .into(),
        )
    })?;
    Ok(trim_runtime(raw))
}

/// The entry an id names, checked against the content the caller expects: at its position
/// when the line there still hashes the same, else the one line of its section that does.
pub fn locate(
    bytes: &[u8],
    spans: &[Vec<LineSpan>; 2],
    id: &str,
    expect: &str,
) -> Result<(Scope, usize, LineSpan)> {
    let (scope, ord, hash) = parse_markdown_id(id)?;
    let list = &spans[slot(scope)];
    let hashes = |span: &LineSpan| {
        std::str::from_utf8(&bytes[span.start..span.end])
            .is_ok_and(|t| crate::memory::entry_id::line_hash(trim_runtime(t)) == hash)
    };
    let found = match list.get(ord).filter(|s| hashes(s)) {
        Some(span) => Some((ord, *span)),
        None => {
            let mut hits = list.iter().enumerate().filter(|(_, s)| hashes(s));
            match (hits.next(), hits.next()) {
                (Some((i, s)), None) => Some((i, *s)),
                (Some(_), Some(_)) => return Err(changed_since(id, expect, None)),
                _ => None,
            }
        }
    };
    let Some((ord, span)) = found else {
        // An id of the right form that names nothing: the entry changed or went.
        return Err(changed_since(id, expect, None));
    };
    let entry = format::parse_entry(stored_line(bytes, span)?);
    if entry.content != expect {
        return Err(changed_since(id, expect, Some(&entry.content)));
    }
    Ok((scope, ord, span))
}

/// The entries of one section in file order, found lazily (stops where the caller stops).
fn section_entries(bytes: &[u8], scope: Scope) -> impl Iterator<Item = LineSpan> + '_ {
    let heads = format::headings(bytes, format::bom_len(bytes));
    let ranges: Vec<(usize, usize)> = heads
        .iter()
        .enumerate()
        .filter(|(_, (_, s))| *s == Some(scope))
        .map(|(i, (h, _))| {
            (
                h.next,
                heads.get(i + 1).map_or(bytes.len(), |(n, _)| n.start),
            )
        })
        .collect();
    ranges.into_iter().flat_map(move |(from, end)| {
        format::lines(&bytes[..end], from).filter(move |sp| !format::is_blank(bytes, *sp))
    })
}

/// How many times each wanted line stands in its section (compared as the parser reads lines:
/// trimmed as the runtime trims).
pub fn count_entry_lines<'a>(
    bytes: &[u8],
    want: &[(Scope, &'a str)],
) -> std::collections::HashMap<(Scope, &'a str), usize> {
    let mut per: [std::collections::HashMap<&'a str, usize>; 2] = Default::default();
    for (scope, line) in want {
        per[slot(*scope)].insert(line, 0);
    }
    for scope in [Scope::Core, Scope::Archival] {
        let counts = &mut per[slot(scope)];
        if counts.is_empty() {
            continue;
        }
        for span in section_entries(bytes, scope) {
            let Ok(text) = std::str::from_utf8(&bytes[span.start..span.end]) else {
                continue;
            };
            if let Some(n) = counts.get_mut(trim_runtime(text)) {
                *n += 1;
            }
        }
    }
    want.iter()
        .map(|&(scope, line)| ((scope, line), per[slot(scope)][line]))
        .collect()
}

/// `bytes` without one copy of `line` in its section (the line and its line break); `None`
/// when the section does not hold it.
pub fn cut_entry_line(bytes: &[u8], scope: Scope, line: &str) -> Option<Vec<u8>> {
    let span = section_entries(bytes, scope).find(|sp| {
        std::str::from_utf8(&bytes[sp.start..sp.end]).is_ok_and(|t| trim_runtime(t) == line)
    })?;
    Some([&bytes[..span.start], &bytes[span.next..]].concat())
}

/// The entry at the position its id names, when the line there still hashes the same and
/// holds the expected content; `None` sends the caller to the full search.
fn locate_fast(bytes: &[u8], id: &str, expect: &str) -> Result<Option<(Scope, usize, LineSpan)>> {
    let (scope, ord, hash) = parse_markdown_id(id)?;
    let Some(span) = section_entries(bytes, scope).nth(ord) else {
        return Ok(None);
    };
    let Ok(text) = std::str::from_utf8(&bytes[span.start..span.end]) else {
        return Ok(None);
    };
    if crate::memory::entry_id::line_hash(trim_runtime(text)) != hash {
        return Ok(None);
    }
    let entry = format::parse_entry(trim_runtime(text));
    if entry.content != expect {
        return Err(changed_since(id, expect, Some(&entry.content)));
    }
    Ok(Some((scope, ord, span)))
}

/// One replacement in the current file's coordinates.
#[derive(Debug, Clone)]
struct Raw {
    at: usize,
    len: usize,
    ins: Vec<u8>,
    /// Which step's new line this splice carries (to find its new id).
    carries: Vec<(usize, usize)>,
}

/// A change worked out on a file: its splices, what it did, and the new file's length. The new
/// bytes are written from the old ones and the splices ([`Planned::parts`]) without a copy of
/// the whole file in memory.
#[derive(Debug)]
pub struct Planned {
    raws: Vec<Raw>,
    old_len: usize,
    pub applied: Applied,
    pub len: usize,
    /// A line was put where no section of its kind was (a heading was written).
    pub added_heading: bool,
}

impl Planned {
    /// The new file as slices of the old one and of the inserted bytes, in order.
    pub fn parts<'a>(&'a self, bytes: &'a [u8]) -> Vec<&'a [u8]> {
        let mut out = Vec::with_capacity(self.raws.len() * 2 + 1);
        let mut pos = 0;
        for r in &self.raws {
            out.push(&bytes[pos..r.at]);
            out.push(&r.ins[..]);
            pos = r.at + r.len;
        }
        out.push(&bytes[pos..]);
        out
    }

    /// The new file as ranges of the old one and inserted bytes (for a kernel copy).
    pub fn pieces(&self) -> Vec<crate::rooted_fs::Piece<'_>> {
        use crate::rooted_fs::Piece;
        let mut out = Vec::with_capacity(self.raws.len() * 2 + 1);
        let mut pos = 0;
        for r in &self.raws {
            out.push(Piece::Keep(pos..r.at));
            out.push(Piece::Bytes(&r.ins));
            pos = r.at + r.len;
        }
        out.push(Piece::Keep(pos..self.old_len));
        out
    }

    pub fn bytes(&self, bytes: &[u8]) -> Vec<u8> {
        self.parts(bytes).concat()
    }
}

/// Applies `steps` to `bytes` as one change: the new bytes and what was done.
pub fn apply_steps(bytes: &[u8], steps: &[Step]) -> Result<(Vec<u8>, Applied)> {
    let p = plan_steps(bytes, steps)?;
    Ok((p.bytes(bytes), p.applied))
}

/// A stored line a step carries (from the history: an undo, a restore) must be one entry line
/// that reads as the step's content: never a line break, a heading or other text that would
/// change the file's structure.
fn check_carried(steps: &[Step]) -> Result<()> {
    for step in steps {
        let (Step::Replace {
            line: Some(line),
            content,
            ..
        }
        | Step::Insert {
            line: Some(line),
            content,
            ..
        }) = step
        else {
            continue;
        };
        let one_line = !line.contains(['\n', '\r']) && trim_runtime(line) == line;
        let entry = one_line && !line.is_empty() && !line.starts_with('#');
        if !entry || format::parse_entry(line).content != *content {
            return Err(CoreError::Corrupt(format!(
                "the history's line {:?} is not one MEMORY.md entry reading {content:?}; \
                 nothing was changed",
                truncate_for_message(line)
            )));
        }
    }
    Ok(())
}

fn truncate_for_message(s: &str) -> &str {
    match s.char_indices().nth(120) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

/// Works out `steps` on `bytes` as one change.
pub fn plan_steps(bytes: &[u8], steps: &[Step]) -> Result<Planned> {
    crate::memory::change::check_distinct(steps)?;
    check_carried(steps)?;
    // Every entry's place is needed only to find a moved entry again or to place a line; a
    // delete or an edit of an entry where its id says finds it by counting lines to it.
    let all_spans = std::cell::OnceCell::new();
    let spans = || all_spans.get_or_init(|| entry_spans(bytes));
    let find = |id: &str, expect: &str| match locate_fast(bytes, id, expect)? {
        Some(found) => Ok(found),
        None => locate(bytes, spans(), id, expect),
    };
    let nl_cell = std::cell::OnceCell::new();
    let nl = || -> &[u8] {
        nl_cell.get_or_init(|| match format::uses_crlf(bytes) {
            true => &b"\r\n"[..],
            false => &b"\n"[..],
        })
    };
    // Lines replaced where they stand: (step, section, position), for their new ids.
    let mut in_place: Vec<(usize, Scope, usize)> = Vec::new();
    let mut raws: Vec<Raw> = Vec::new();
    let mut befores: Vec<Option<EntrySnap>> = Vec::new();
    let mut removed_starts = std::collections::HashSet::new();
    // New lines to place in time order: (step, scope, time, line).
    let mut placed: Vec<(usize, Scope, Option<chrono::NaiveDateTime>, String)> = Vec::new();
    for (i, step) in steps.iter().enumerate() {
        match step {
            Step::Replace {
                id,
                expect,
                scope,
                timestamp,
                content,
                line,
                ..
            } => {
                let (from, ord, span) = find(id, expect)?;
                let old = format::parse_entry(stored_line(bytes, span)?);
                befores.push(Some(EntrySnap::of(
                    markdown_id(from, ord, &old.line),
                    from,
                    &old,
                )));
                let timestamp = timestamp.unwrap_or(old.timestamp);
                let scope = &scope.unwrap_or(from);
                let new_line = line_of(timestamp.as_ref(), content, line);
                if from == *scope {
                    in_place.push((i, from, ord));
                    raws.push(Raw {
                        at: span.start,
                        len: span.end - span.start,
                        ins: new_line.into_bytes(),
                        carries: vec![(i, 0)],
                    });
                } else {
                    removed_starts.insert(span.start);
                    raws.push(cut(span));
                    placed.push((i, *scope, timestamp, new_line));
                }
            }
            Step::Remove { id, expect } => {
                let (from, ord, span) = find(id, expect)?;
                let old = format::parse_entry(stored_line(bytes, span)?);
                befores.push(Some(EntrySnap::of(
                    markdown_id(from, ord, &old.line),
                    from,
                    &old,
                )));
                removed_starts.insert(span.start);
                raws.push(cut(span));
            }
            Step::Insert {
                scope,
                timestamp,
                content,
                line,
                ..
            } => {
                let new_line = line_of(timestamp.as_ref(), content, line);
                // Putting back an entry that is already there would double it.
                let present = spans()[slot(*scope)].iter().any(|sp| {
                    !removed_starts.contains(&sp.start)
                        && std::str::from_utf8(&bytes[sp.start..sp.end])
                            .is_ok_and(|t| trim_runtime(t) == new_line)
                });
                if present {
                    return Err(CoreError::Conflict(format!(
                        "{new_line:?} is already in the {} section; nothing was changed",
                        scope.as_str()
                    )));
                }
                befores.push(None);
                placed.push((
                    i,
                    *scope,
                    *timestamp,
                    line_of(timestamp.as_ref(), content, line),
                ));
            }
        }
    }
    // Oldest first, so that lines placed at one point keep their time order.
    placed.sort_by_key(|(i, _, ts, _)| (*ts, *i));
    for (i, scope, ts, line) in placed {
        let (at, prefix) = place(bytes, spans(), &removed_starts, scope, ts, nl());
        let off = prefix.len();
        let mut ins = prefix;
        ins.extend_from_slice(line.as_bytes());
        ins.extend_from_slice(nl());
        raws.push(Raw {
            at,
            len: 0,
            ins,
            carries: vec![(i, off)],
        });
    }
    let merged = merge(raws)?;
    let added_heading = merged.iter().any(|r| {
        r.carries
            .iter()
            .any(|(_, off)| r.ins[..*off].contains(&b'#'))
    });
    let (splices, new_at, len) = record(bytes, &merged);
    let mut diffs: Vec<EntryDiff> = befores
        .into_iter()
        .map(|before| EntryDiff {
            before,
            after: None,
        })
        .collect();
    // A line replaced where it stands keeps its position; the rest are found where they
    // landed (after a cut before them, positions move).
    let placed_any =
        new_at.len() > in_place.len() || (!removed_starts.is_empty() && !new_at.is_empty());
    if !placed_any {
        for &(i, scope, ord) in &in_place {
            // An in-place line is its splice's whole text.
            if let Some(r) = merged
                .iter()
                .find(|r| r.carries.iter().any(|(j, _)| *j == i))
            {
                let text = std::str::from_utf8(&r.ins)
                    .map_err(|_| CoreError::InvalidInput("an entry must be valid UTF-8".into()))?;
                let e = format::parse_entry(trim_runtime(text));
                diffs[i].after = Some(EntrySnap::of(markdown_id(scope, ord, &e.line), scope, &e));
            }
        }
        return Ok(Planned {
            raws: merged,
            old_len: bytes.len(),
            applied: Applied { diffs, splices },
            len,
            added_heading,
        });
    }
    let out = Planned {
        raws: merged,
        old_len: bytes.len(),
        applied: Applied::default(),
        len,
        added_heading,
    };
    let merged_out = out.bytes(bytes);
    let out_spans = entry_spans(&merged_out);
    let out_ref = &merged_out;
    for (i, at) in new_at {
        for (s, list) in out_spans.iter().enumerate() {
            if let Ok(ord) = list.binary_search_by_key(&at, |sp| sp.start) {
                let scope = if s == 0 { Scope::Core } else { Scope::Archival };
                let e = format::parse_entry(stored_line(out_ref, list[ord])?);
                diffs[i].after = Some(EntrySnap::of(markdown_id(scope, ord, &e.line), scope, &e));
            }
        }
    }
    Ok(Planned {
        applied: Applied { diffs, splices },
        ..out
    })
}

fn cut(span: LineSpan) -> Raw {
    Raw {
        at: span.start,
        len: span.next - span.start,
        ins: Vec::new(),
        carries: Vec::new(),
    }
}

/// Where a line stamped `ts` goes in `scope`: after the last remaining entry not newer than it,
/// or before the first stamped one; in an empty or missing section where an append would put
/// it. Returns the offset and bytes to write before the line (a missing terminator or heading).
fn place(
    bytes: &[u8],
    spans: &[Vec<LineSpan>; 2],
    removed: &std::collections::HashSet<usize>,
    scope: Scope,
    ts: Option<chrono::NaiveDateTime>,
    nl: &[u8],
) -> (usize, Vec<u8>) {
    let list: Vec<LineSpan> = spans[slot(scope)]
        .iter()
        .filter(|s| !removed.contains(&s.start))
        .copied()
        .collect();
    let time = |s: &LineSpan| {
        std::str::from_utf8(&bytes[s.start..s.end])
            .ok()
            .and_then(|t| format::parse_entry(t).timestamp)
    };
    let after_span = |s: &LineSpan| {
        let terminated = s.next > s.end;
        (s.next, if terminated { Vec::new() } else { nl.to_vec() })
    };
    if let Some(last) = list.last() {
        // Newest entries are the common case: walk back from the end.
        let Some(ts) = ts else {
            return after_span(last);
        };
        for s in list.iter().rev() {
            if time(s).is_some_and(|t| t <= ts) {
                return after_span(s);
            }
        }
        match list.iter().find(|s| time(s).is_some()) {
            Some(first) => return (first.start, Vec::new()),
            None => return after_span(last),
        }
    }
    // No entry left in the section: where appending one would go.
    let parsed = format::parse_structure(bytes);
    let (at, add) = match format::plan_insert(bytes, &parsed, scope, "\u{0}") {
        format::Edit::Append(add) => (bytes.len(), add),
        format::Edit::Insert(at, add) => (at, add),
    };
    // Everything the plan writes before the placeholder line (a terminator, a heading).
    let before = add.iter().position(|b| *b == 0).unwrap_or(0);
    (at, add[..before].to_vec())
}

/// Sorts splices and joins those at one offset (an insert where a cut begins); overlapping
/// ones are a bug in the plan.
fn merge(mut raws: Vec<Raw>) -> Result<Vec<Raw>> {
    raws.sort_by_key(|r| (r.at, r.len));
    let mut out: Vec<Raw> = Vec::new();
    for r in raws {
        if let Some(prev) = out.last_mut() {
            if prev.at == r.at && prev.len == 0 {
                let base = prev.ins.len();
                prev.len = r.len;
                prev.carries
                    .extend(r.carries.iter().map(|(i, o)| (*i, base + o)));
                prev.ins.extend_from_slice(&r.ins);
                continue;
            }
            if r.at < prev.at + prev.len {
                return Err(CoreError::Conflict(
                    "two parts of this change overlap in the file; nothing was changed".into(),
                ));
            }
        }
        out.push(r);
    }
    Ok(out)
}

/// What sorted splices do, without writing the new file: the splices as recorded (new
/// coordinates, each with a fingerprint of the 64 bytes before it), where each carried line
/// lands ((step, offset)), and the new length.
fn record(bytes: &[u8], raws: &[Raw]) -> (Vec<Splice>, Vec<(usize, usize)>, usize) {
    let mut recorded = Vec::with_capacity(raws.len());
    let mut landed = Vec::new();
    // The last bytes written so far, for the fingerprints.
    let mut tail: Vec<u8> = Vec::with_capacity(128);
    let push = |tail: &mut Vec<u8>, piece: &[u8]| {
        let keep = &piece[piece.len().saturating_sub(64)..];
        tail.extend_from_slice(keep);
        if tail.len() > 64 {
            tail.drain(..tail.len() - 64);
        }
    };
    let mut len = 0;
    let mut pos = 0;
    for r in raws {
        let kept = &bytes[pos..r.at];
        push(&mut tail, kept);
        len += kept.len();
        let at = len;
        landed.extend(r.carries.iter().map(|(i, off)| (*i, at + off)));
        recorded.push(Splice {
            at: at as u64,
            removed: String::from_utf8_lossy(&bytes[r.at..r.at + r.len]).into_owned(),
            inserted: String::from_utf8_lossy(&r.ins).into_owned(),
            ctx: hash32(&tail),
        });
        push(&mut tail, &r.ins);
        len += r.ins.len();
        pos = r.at + r.len;
    }
    len += bytes.len() - pos;
    (recorded, landed, len)
}

fn hash32(b: &[u8]) -> u32 {
    let h = fnv1a(b);
    (h ^ (h >> 32)) as u32
}

/// A fingerprint of the bytes just before `at`: an undo checks the splice still stands where
/// the same text precedes it.
pub fn context_hash(bytes: &[u8], at: usize) -> u32 {
    hash32(&bytes[at.saturating_sub(64)..at])
}

/// The splices that take a change back exactly, when the file still holds what the change
/// wrote where it wrote it and taking it out joins no two lines; `None` otherwise (the caller
/// undoes entry by entry instead).
///
/// "Where it wrote it" on both sides: the same text before the splice (a fingerprint) and, for
/// a line the change wrote in place, the line still ending where it ended. A line extended
/// meanwhile (`<written> + more`) starts with the written text, but replacing that prefix
/// would glue the old line onto the addition.
///
/// "Joins no two lines": a change made at the end of a file whose last line had no line break
/// (the runtime writes its files so) wrote that break itself, and its inverse takes it out
/// again. Text added after the change since (the runtime's next entry) would then be glued
/// onto that line, and the runtime's entry lost inside it.
pub fn exact_inverse(bytes: &[u8], splices: &[Splice]) -> Option<Vec<(usize, usize, Vec<u8>)>> {
    let inv = standing(bytes, splices)?;
    keeps_lines_apart(bytes, &inv).then_some(inv)
}

/// [`exact_inverse`] without the check that the inverse joins no lines: whether what the
/// change wrote stands where it wrote it.
fn standing(bytes: &[u8], splices: &[Splice]) -> Option<Vec<(usize, usize, Vec<u8>)>> {
    let mut out = Vec::with_capacity(splices.len());
    let mut end = 0usize;
    for s in splices {
        let at = usize::try_from(s.at).ok()?;
        let len = s.inserted.len();
        let stop = at.checked_add(len).filter(|e| *e <= bytes.len())?;
        if at < end {
            return None;
        }
        if &bytes[at..stop] != s.inserted.as_bytes() || context_hash(bytes, at) != s.ctx {
            return None;
        }
        if !ends_where_it_ended(bytes, s, stop) {
            return None;
        }
        out.push((at, len, s.removed.as_bytes().to_vec()));
        end = stop;
    }
    Some(out)
}

/// Whether the file after the inverse splices `inv` (sorted, apart) has each piece they put
/// back followed by a line break, the file's end, or nothing put back after a line break: the
/// text that follows a splice then still starts a line of its own. Only that edge can change
/// since the change: the bytes before a splice are checked by its fingerprint.
fn keeps_lines_apart(bytes: &[u8], inv: &[(usize, usize, Vec<u8>)]) -> bool {
    // The last byte before each splice's end in the result (None: the file's start).
    let mut before = Vec::with_capacity(inv.len());
    let mut last: Option<u8> = None;
    let mut pos = 0;
    for (at, len, put) in inv {
        if *at > pos {
            last = Some(bytes[at - 1]);
        }
        if let Some(&b) = put.last() {
            last = Some(b);
        }
        before.push(last);
        pos = at + len;
    }
    // The first byte after each splice in the result (None: the file's end), from the back.
    let mut next: Option<u8> = None;
    let mut pos = bytes.len();
    for ((at, len, put), last) in inv.iter().zip(before).rev() {
        let stop = at + len;
        if stop < pos {
            next = Some(bytes[stop]);
        }
        let joined = matches!((last, next),
            (Some(l), Some(n)) if l != b'\n' && n != b'\n' && n != b'\r');
        if joined {
            return false;
        }
        // Nothing put back: what follows this splice follows what precedes it too.
        if let Some(&b) = put.first() {
            next = Some(b);
        }
        pos = *at;
    }
    true
}

/// Every splice the console records ends at a line's end: its text ends with a line break, or
/// a line break (or the file's end) follows it. A splice that writes nothing cuts whole lines.
fn ends_where_it_ended(bytes: &[u8], s: &Splice, stop: usize) -> bool {
    s.inserted.is_empty()
        || s.inserted.ends_with('\n')
        || matches!(bytes.get(stop), None | Some(b'\n') | Some(b'\r'))
}

/// Whether `bytes` is the file a change left (`len_after` long when it was written) rather
/// than the one before it: what the change wrote stands where it wrote it, and the file does
/// not also read as the old one (it can, where a deleted line had an identical neighbour: the
/// length decides then).
pub fn holds(bytes: &[u8], splices: &[Splice], len_after: Option<u64>) -> bool {
    // The change stands even when the inverse would now join lines (text added after it).
    if splices.is_empty() || standing(bytes, splices).is_none() {
        return false;
    }
    // The same places in the old file's coordinates hold what the change removed?
    let mut shift: i64 = 0;
    let reads_old = splices.iter().all(|s| {
        // In bounds: exact_inverse found every splice inside the file.
        let at = s.at as i64 - shift;
        shift += s.inserted.len() as i64 - s.removed.len() as i64;
        let Ok(at) = usize::try_from(at) else {
            return false;
        };
        at.checked_add(s.removed.len())
            .and_then(|e| bytes.get(at..e))
            .is_some_and(|b| b == s.removed.as_bytes())
    });
    !reads_old || len_after == Some(bytes.len() as u64)
}

/// Applies exact inverse splices (from [`exact_inverse`]), recording them in turn.
pub fn apply_exact(bytes: &[u8], inv: Vec<(usize, usize, Vec<u8>)>) -> (Vec<u8>, Vec<Splice>) {
    let p = plan_exact(bytes, inv, Vec::new());
    (p.bytes(bytes), p.applied.splices)
}

/// Exact inverse splices (from [`exact_inverse`]) as a change whose entries are `diffs`.
pub fn plan_exact(
    bytes: &[u8],
    inv: Vec<(usize, usize, Vec<u8>)>,
    diffs: Vec<EntryDiff>,
) -> Planned {
    let raws: Vec<Raw> = inv
        .into_iter()
        .map(|(at, len, ins)| Raw {
            at,
            len,
            ins,
            carries: Vec::new(),
        })
        .collect();
    let (splices, _, len) = record(bytes, &raws);
    Planned {
        raws,
        old_len: bytes.len(),
        applied: Applied { diffs, splices },
        len,
        added_heading: false,
    }
}

#[cfg(test)]
mod tests;
