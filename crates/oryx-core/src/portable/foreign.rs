//! Importing memories from other tools, as far as their formats carry:
//!
//! - `mem0`: the answer of mem0's `GET /memories` (`{"results": [...]}` or a bare list): each
//!   item's `memory` (time: `metadata.ts`, else `created_at`; `metadata.scope == "core"` → core,
//!   else archival), read by the same helpers as the mem0 backend;
//! - `openmemory`: OpenMemory's backup zip (`POST /api/v1/backup/export`): the `memories` of
//!   `memories.json` (else the lines of `memories.jsonl.gz`), `content` at `created_at`; a
//!   memory whose `state` is `deleted` is skipped and counted;
//! - `letta`: a Letta Agent File (`.af`): each memory block → one core entry `[label] value`
//!   (time: the block's `created_at`, else the file's); the format carries no archival passages;
//! - `lines`: plain text, one memory per non-empty line (`- ` bullets stripped, a leading
//!   `[yyyy-MM-dd HH:mm:ss]` is its time), or a `.csv` whose header names `content` (and
//!   optionally `timestamp`, `scope`).
//!
//! The whole file is read and checked before anything is written; a malformed one is a
//! `Corrupt` error. Entries go through the archive import's plan (`import::add_planned`): the
//! owner's entries with the same section, time and content are skipped, so importing twice adds
//! nothing. Every field of the source that carries something and is not mapped is reported with
//! how many records held it.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;
use std::sync::atomic::AtomicBool;

use chrono::NaiveDateTime;
use serde::Serialize;
use serde_json::{Map, Value};

use super::import::{add_planned, OwnerImport};
use super::{owner_key, EntryLine};
use crate::error::{CoreError, IoContext, Result};
use crate::memory::mem0;
use crate::memory::{LongTermMemoryStore, Scope};
use crate::names::Owner;
use crate::timefmt::{format_entry_ts, parse_entry_ts};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    OpenMemory,
    Mem0,
    Letta,
    Lines,
}

impl Format {
    pub const ALL: [Format; 4] = [
        Format::OpenMemory,
        Format::Mem0,
        Format::Letta,
        Format::Lines,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Format::OpenMemory => "openmemory",
            Format::Mem0 => "mem0",
            Format::Letta => "letta",
            Format::Lines => "lines",
        }
    }

    pub fn parse(s: &str) -> Result<Format> {
        Format::ALL
            .into_iter()
            .find(|f| f.as_str() == s.trim().to_ascii_lowercase())
            .ok_or_else(|| {
                CoreError::InvalidInput(format!(
                    "unknown source format {s:?}: use openmemory, mem0, letta or lines"
                ))
            })
    }
}

/// A name with how many records (or members) held it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Counted {
    pub name: String,
    pub count: usize,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ForeignReport {
    pub format: String,
    pub dry_run: bool,
    /// The owner's counts: in the file, new (added or, in a dry run, would be), present.
    pub owner: OwnerImport,
    /// Fields of the source that carry something and are not imported, each once with how
    /// many records held it (`metadata.x` for keys inside `metadata`, `file:x` for members).
    pub unknown_fields: Vec<Counted>,
    /// Records not imported, by why (e.g. `state deleted`, `empty content`).
    pub skipped: Vec<Counted>,
    pub cancelled: bool,
}

/// What a source file holds, before anything is written.
#[derive(Debug, Default)]
pub struct Parsed {
    /// In the file's order (mem0 and OpenMemory: by time, as they keep no order).
    pub entries: Vec<(Scope, Option<NaiveDateTime>, String)>,
    pub unknown: BTreeMap<String, usize>,
    pub skipped: BTreeMap<String, usize>,
}

impl Parsed {
    fn push(&mut self, scope: Scope, at: Option<NaiveDateTime>, raw: &str) {
        match crate::memory::entry::sanitize_content(raw) {
            Ok(c) => self.entries.push((scope, at.map(mem0::whole_seconds), c)),
            Err(_) => *self.skipped.entry("empty content".into()).or_default() += 1,
        }
    }

    fn skip(&mut self, why: impl Into<String>) {
        *self.skipped.entry(why.into()).or_default() += 1;
    }

    /// Counts each field of `obj` not in `used` that carries something (not null, not empty).
    fn note(&mut self, obj: &Map<String, Value>, used: &[&str], prefix: &str) {
        for (k, v) in obj {
            if used.contains(&k.as_str()) || carries_nothing(v) {
                continue;
            }
            *self.unknown.entry(format!("{prefix}{k}")).or_default() += 1;
        }
    }

    fn by_time(&mut self) {
        // Stable: equal times keep the file's order; entries without a time go last.
        self.entries.sort_by_key(|(_, t, _)| (t.is_none(), *t));
    }
}

fn carries_nothing(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
        _ => false,
    }
}

fn corrupt(path: &Path, format: Format, why: impl std::fmt::Display) -> CoreError {
    CoreError::Corrupt(format!(
        "{} is not a {} file as expected: {why}; nothing was imported",
        path.display(),
        format.as_str()
    ))
}

/// ISO-8601 with an offset (→ local time), or the console's own `yyyy-MM-dd HH:mm[:ss]`.
fn time_of(v: Option<&Value>) -> std::result::Result<Option<NaiveDateTime>, String> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s.trim().is_empty() => Ok(None),
        Some(Value::String(s)) => mem0::parse_time(s.trim())
            .or_else(|| parse_entry_ts(s))
            .map(Some)
            .ok_or_else(|| format!("{s:?} is not a time")),
        Some(other) => Err(format!("{other} is not a time")),
    }
}

/// Reads and checks the whole file.
pub fn parse(format: Format, path: &Path) -> Result<Parsed> {
    let bytes = std::fs::read(path).at(path)?;
    let err = |why: String| corrupt(path, format, why);
    match format {
        Format::Mem0 => parse_mem0(&bytes).map_err(err),
        Format::OpenMemory => parse_openmemory(&bytes).map_err(err),
        Format::Letta => parse_letta(&bytes).map_err(err),
        Format::Lines => {
            let text = String::from_utf8(bytes).map_err(|e| err(format!("not UTF-8: {e}")))?;
            let csv = path
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("csv"));
            if csv {
                parse_csv(&text).map_err(err)
            } else {
                Ok(parse_text(&text))
            }
        }
    }
}

type R<T> = std::result::Result<T, String>;

fn json_of(bytes: &[u8]) -> R<Value> {
    serde_json::from_slice(bytes).map_err(|e| format!("not JSON ({e})"))
}

fn parse_mem0(bytes: &[u8]) -> R<Parsed> {
    let v = json_of(bytes)?;
    let mut p = Parsed::default();
    let list = match &v {
        Value::Array(a) => a,
        Value::Object(o) => {
            p.note(o, &["results"], "");
            o.get("results")
                .and_then(Value::as_array)
                .ok_or("no \"results\" list")?
        }
        _ => return Err("neither {\"results\": [...]} nor a list".into()),
    };
    for (i, item) in list.iter().enumerate() {
        let obj = item
            .as_object()
            .ok_or_else(|| format!("result {} is not an object", i + 1))?;
        if !obj.get("memory").is_some_and(Value::is_string) {
            return Err(format!("result {} has no \"memory\" text", i + 1));
        }
        // The mem0 backend's own reading: scope and time as it stores them.
        let it = mem0::item_of(item).ok_or_else(|| format!("result {} is unreadable", i + 1))?;
        let created =
            time_of(obj.get("created_at")).map_err(|e| format!("result {}: {e}", i + 1))?;
        p.note(obj, &["memory", "created_at", "metadata"], "");
        match obj.get("metadata") {
            Some(Value::Object(m)) => {
                let mut used = Vec::new();
                if it.scope.is_some() {
                    used.push("scope");
                }
                if it.ts.is_some() && m.get("ts").is_some_and(Value::is_string) {
                    used.push("ts");
                }
                p.note(m, &used, "metadata.");
            }
            Some(m) if !carries_nothing(m) => {
                *p.unknown.entry("metadata".into()).or_default() += 1;
            }
            _ => {}
        }
        p.push(
            it.scope.unwrap_or(Scope::Archival),
            it.ts.or(created),
            &it.memory,
        );
    }
    p.by_time();
    Ok(p)
}

/// The most a member of a foreign archive may inflate to: far above any real backup of
/// memories, far below what a few kilobytes of zip or gzip bomb would otherwise allocate.
pub const MAX_INFLATED: u64 = 256 * 1024 * 1024;

/// All of `r` (a member being inflated), refused beyond [`MAX_INFLATED`] bytes.
fn read_capped(r: impl Read, what: &str) -> R<Vec<u8>> {
    let mut out = Vec::new();
    r.take(MAX_INFLATED + 1)
        .read_to_end(&mut out)
        .map_err(|e| format!("{what}: {e}"))?;
    if out.len() as u64 > MAX_INFLATED {
        return Err(format!(
            "{what} inflates to more than {MAX_INFLATED} bytes; refusing to read it"
        ));
    }
    Ok(out)
}

fn parse_openmemory(bytes: &[u8]) -> R<Parsed> {
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes))
        .map_err(|e| format!("not a zip ({e})"))?;
    // Members by their last path part, as OpenMemory's own importer finds them.
    let names: Vec<String> = zip
        .file_names()
        .map(|n| {
            n.map(|n| n.into_owned())
                .map_err(|e| format!("a member's name: {e}"))
        })
        .collect::<R<_>>()?;
    let find = |n: &str| {
        names
            .iter()
            .find(|m| !m.ends_with('/') && m.rsplit('/').next() == Some(n))
            .cloned()
    };
    let read = |zip: &mut zip::ZipArchive<std::io::Cursor<&[u8]>>, m: &str| -> R<Vec<u8>> {
        let f = zip.by_name(m).map_err(|e| format!("{m}: {e}"))?;
        read_capped(f, m)
    };
    let json_member = find("memories.json");
    let lines_member = find("memories.jsonl.gz");
    let mut p = Parsed::default();
    let records: Vec<Value> = if let Some(m) = &json_member {
        let v = json_of(&read(&mut zip, m)?).map_err(|e| format!("{m}: {e}"))?;
        let o = v.as_object().ok_or(format!("{m} is not an object"))?;
        for (k, x) in o {
            if k != "memories" && !carries_nothing(x) {
                let n = x.as_array().map_or(1, Vec::len);
                *p.unknown.entry(k.clone()).or_default() += n;
            }
        }
        o.get("memories")
            .and_then(Value::as_array)
            .ok_or(format!("{m} has no \"memories\" list"))?
            .clone()
    } else if let Some(m) = &lines_member {
        let gz = read(&mut zip, m)?;
        let text = String::from_utf8(read_capped(flate2::read::GzDecoder::new(&gz[..]), m)?)
            .map_err(|e| format!("{m} is not gzip'd UTF-8 ({e})"))?;
        let mut out = Vec::new();
        for (i, l) in text.lines().enumerate() {
            if l.trim().is_empty() {
                continue;
            }
            out.push(serde_json::from_str(l).map_err(|e| format!("{m} line {}: {e}", i + 1))?);
        }
        out
    } else {
        return Err("the zip holds neither memories.json nor memories.jsonl.gz".into());
    };
    for n in &names {
        let used = json_member.as_ref().or(lines_member.as_ref());
        if Some(n) != used && !n.ends_with('/') {
            // With memories.json read, memories.jsonl.gz holds the same memories again.
            *p.unknown.entry(format!("file:{n}")).or_default() += 1;
        }
    }
    for (i, r) in records.iter().enumerate() {
        let o = r
            .as_object()
            .ok_or_else(|| format!("memory {} is not an object", i + 1))?;
        let content = o
            .get("content")
            .and_then(Value::as_str)
            .ok_or_else(|| format!("memory {} has no \"content\" text", i + 1))?;
        let at = time_of(o.get("created_at")).map_err(|e| format!("memory {}: {e}", i + 1))?;
        let state = o.get("state").and_then(Value::as_str).unwrap_or("active");
        if state == "deleted" {
            p.skip("state deleted");
            continue;
        }
        // deleted_at / archived_at only restate the state's time.
        p.note(
            o,
            &[
                "content",
                "created_at",
                "state",
                "metadata",
                "deleted_at",
                "archived_at",
            ],
            "",
        );
        if let Some(m) = o.get("metadata").and_then(Value::as_object) {
            p.note(m, &[], "metadata.");
        }
        if state != "active" {
            *p.unknown
                .entry(format!("state {state} (imported)"))
                .or_default() += 1;
        }
        p.push(Scope::Archival, at, content);
    }
    p.by_time();
    Ok(p)
}

fn parse_letta(bytes: &[u8]) -> R<Parsed> {
    let mut v = json_of(bytes)?;
    // Some published .af files are a JSON string holding the JSON.
    if let Value::String(s) = &v {
        v = serde_json::from_str(s).map_err(|e| format!("not JSON inside the string ({e})"))?;
    }
    let o = v.as_object().ok_or("not a JSON object")?;
    let mut p = Parsed::default();
    let file_time = time_of(o.get("created_at")).map_err(|e| format!("created_at: {e}"))?;
    // Current schema: top-level `blocks` (agents name them by id); the first (v1): the agent
    // at the top with `core_memory`.
    let key = if o.contains_key("blocks") {
        "blocks"
    } else if o.contains_key("core_memory") {
        "core_memory"
    } else {
        return Err("no memory blocks (neither \"blocks\" nor \"core_memory\")".into());
    };
    for (k, x) in o {
        if k != key && k != "created_at" && !carries_nothing(x) {
            let n = x.as_array().map_or(1, Vec::len);
            *p.unknown.entry(k.clone()).or_default() += n;
        }
    }
    let blocks = o
        .get(key)
        .and_then(Value::as_array)
        .ok_or(format!("\"{key}\" is not a list"))?;
    let mut seen_agents_inline = Vec::new();
    if let Some(agents) = o.get("agents").and_then(Value::as_array) {
        // Blocks written inline in an agent (`memory_blocks`) are memory too.
        for a in agents {
            if let Some(mb) = a.get("memory_blocks").and_then(Value::as_array) {
                seen_agents_inline.extend(mb.iter().cloned());
            }
        }
    }
    for (i, b) in blocks.iter().chain(seen_agents_inline.iter()).enumerate() {
        let b = b
            .as_object()
            .ok_or_else(|| format!("block {} is not an object", i + 1))?;
        let label = b
            .get("label")
            .and_then(Value::as_str)
            .ok_or_else(|| format!("block {} has no \"label\"", i + 1))?;
        let value = b
            .get("value")
            .and_then(Value::as_str)
            .ok_or_else(|| format!("block {} has no \"value\" text", i + 1))?;
        let at = time_of(b.get("created_at")).map_err(|e| format!("block {label}: {e}"))?;
        p.note(b, &["label", "value", "created_at"], &format!("{key}[]."));
        if value.trim().is_empty() {
            p.skip("empty block");
            continue;
        }
        p.push(Scope::Core, at.or(file_time), &format!("[{label}] {value}"));
    }
    Ok(p)
}

/// `- ` bullet and a leading `[yyyy-MM-dd HH:mm:ss]`.
fn split_line(line: &str) -> (Option<NaiveDateTime>, &str) {
    let l = line.trim();
    let l = l.strip_prefix("- ").unwrap_or(l).trim_start();
    if let Some(rest) = l.strip_prefix('[') {
        if let Some((ts, after)) = rest.split_once(']') {
            if let Some(t) = parse_entry_ts(ts) {
                return (Some(t), after.trim_start());
            }
        }
    }
    (None, l)
}

fn parse_text(text: &str) -> Parsed {
    let mut p = Parsed::default();
    for line in text.lines() {
        if line.trim().is_empty() {
            continue;
        }
        let (at, content) = split_line(line);
        p.push(Scope::Archival, at, content);
    }
    p
}

/// RFC 4180 rows: `"` quotes, `""` inside quotes, newlines inside quotes.
fn csv_rows(text: &str) -> R<Vec<Vec<String>>> {
    let mut rows = Vec::new();
    let mut row = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut chars = text.trim_start_matches('\u{feff}').chars().peekable();
    let mut line = 1;
    while let Some(c) = chars.next() {
        if quoted {
            match c {
                '"' if chars.peek() == Some(&'"') => {
                    chars.next();
                    field.push('"');
                }
                '"' => quoted = false,
                '\n' => {
                    line += 1;
                    field.push(c);
                }
                _ => field.push(c),
            }
            continue;
        }
        match c {
            '"' if field.is_empty() => quoted = true,
            ',' => row.push(std::mem::take(&mut field)),
            '\r' => {}
            '\n' => {
                line += 1;
                row.push(std::mem::take(&mut field));
                rows.push(std::mem::take(&mut row));
            }
            _ => field.push(c),
        }
    }
    if quoted {
        return Err(format!("a quote opened before line {line} is never closed"));
    }
    if !field.is_empty() || !row.is_empty() {
        row.push(field);
        rows.push(row);
    }
    Ok(rows)
}

fn parse_csv(text: &str) -> R<Parsed> {
    let rows = csv_rows(text)?;
    let mut it = rows.into_iter().enumerate();
    let (_, header) = it.next().ok_or("empty (no header row)")?;
    let header: Vec<String> = header
        .iter()
        .map(|h| h.trim().to_ascii_lowercase())
        .collect();
    let col = |n: &str| header.iter().position(|h| h == n);
    let content = col("content").ok_or("the header row has no \"content\" column")?;
    let (ts, scope) = (col("timestamp"), col("scope"));
    let mut p = Parsed::default();
    for (i, row) in it {
        if row.iter().all(|c| c.trim().is_empty()) {
            continue;
        }
        let n = i + 1;
        if row.len() > header.len() {
            return Err(format!(
                "row {n} has {} cells, the header {}",
                row.len(),
                header.len()
            ));
        }
        let cell = |c: Option<usize>| c.and_then(|c| row.get(c)).map_or("", |s| s.trim());
        let at = match cell(ts) {
            "" => None,
            t => Some(
                parse_entry_ts(t)
                    .or_else(|| mem0::parse_time(t))
                    .ok_or_else(|| format!("row {n}: {t:?} is not a time"))?,
            ),
        };
        let sc = Scope::parse_lenient(cell(scope)).ok_or_else(|| {
            format!(
                "row {n}: scope {:?} is neither core nor archival",
                cell(scope)
            )
        })?;
        for (j, h) in header.iter().enumerate() {
            if j != content
                && Some(j) != ts
                && Some(j) != scope
                && row.get(j).is_some_and(|c| !c.trim().is_empty())
            {
                *p.unknown.entry(h.clone()).or_default() += 1;
            }
        }
        p.push(sc, at, row.get(content).map_or("", String::as_str));
    }
    Ok(p)
}

fn counted(m: BTreeMap<String, usize>) -> Vec<Counted> {
    m.into_iter()
        .map(|(name, count)| Counted { name, count })
        .collect()
}

/// Reads `path` as `format` and adds its entries to `owner` (checked first; nothing is
/// written when the file is malformed).
pub fn import_foreign(
    format: Format,
    path: &Path,
    store: &dyn LongTermMemoryStore,
    owner: &Owner,
    dry_run: bool,
    cancel: &AtomicBool,
) -> Result<ForeignReport> {
    let parsed = parse(format, path)?;
    let key = owner_key(owner);
    let lines: Vec<EntryLine> = parsed
        .entries
        .iter()
        .map(|(scope, at, content)| EntryLine {
            owner: key.clone(),
            scope: *scope,
            timestamp: at.as_ref().map(format_entry_ts),
            content: content.clone(),
        })
        .collect();
    let target = store.load_all(owner)?;
    let (r, cancelled) = add_planned(store, owner, &lines, &target, dry_run, cancel, &mut || {});
    Ok(ForeignReport {
        format: format.as_str().into(),
        dry_run,
        owner: r,
        unknown_fields: counted(parsed.unknown),
        skipped: counted(parsed.skipped),
        cancelled,
    })
}

#[cfg(test)]
mod tests;
