//! The history of the console's changes to memory (CONTRACT §13): JSON lines in a sidecar beside
//! the data they describe (`MEMORY.md.oryx-history`, `oryxos.db.oryx-history`), so the history
//! moves with the root. Each change holds the exact before and after of its entries (and, for
//! MEMORY.md, the byte splices that undo it): the history of a 100 MB file costs the size of
//! its changes.
//!
//! A change is written in two records around the write it describes: the change itself
//! (`"state": "intent"`) before, a `commit` after. A console killed in between leaves an
//! intent without a commit, which the next reader settles by looking at the data: applied
//! (the store shows the change's after state) or not.

use std::collections::HashMap;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::change::{EntryDiff, Splice};
use super::journal::append_lines;
use crate::error::{CoreError, IoContext, Result};
use crate::rooted_fs;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Op {
    Edit,
    Delete,
    Move,
    Restore,
    Undo,
    Redo,
    /// A summary entry appended (and with it, perhaps, the entries it covers removed).
    Summarize,
    /// The same, appended by the console's automatic mode (no one clicked).
    AutoSummary,
}

impl Op {
    pub fn as_str(self) -> &'static str {
        match self {
            Op::Edit => "edit",
            Op::Delete => "delete",
            Op::Move => "move",
            Op::Restore => "restore",
            Op::Undo => "undo",
            Op::Redo => "redo",
            Op::Summarize => "summarize",
            Op::AutoSummary => "auto_summary",
        }
    }
}

/// One console change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Change {
    pub id: String,
    /// Epoch milliseconds.
    pub at: i64,
    pub op: Op,
    /// `memory_entries.agent_name` form: an agent's name or `__global__`.
    pub owner: String,
    /// Undo: the change it takes back; redo: the undo it takes back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reverts: Option<String>,
    pub entries: Vec<EntryDiff>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub splices: Vec<Splice>,
    /// The process that made it: a pending change of a process that is gone is settled at
    /// once, not after the grace period.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub pid: u32,
    /// MEMORY.md: the file's length right after the change (tells the new file from the old
    /// one when a killed console's change is settled).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub len_after: Option<u64>,
    /// A tombstone: the change's texts were forgotten for good (see `forget`). Its entries and
    /// splices are then empty and it cannot be undone, redone or restored from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forgotten: Option<Forgotten>,
}

/// What a tombstone keeps of a forgotten change: when it was forgotten and the sizes of what
/// was there, never a byte of the text (nor anything that rebuilds it: no ids, no hashes).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Forgotten {
    /// When the change was forgotten (epoch milliseconds).
    pub at: i64,
    /// One per entry the change touched, in its order.
    pub entries: Vec<ForgottenEntry>,
    /// One per byte splice the change recorded (MEMORY.md).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub splices: Vec<ForgottenSplice>,
}

/// The byte lengths of an entry's stored line before and after a forgotten change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ForgottenEntry {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<u64>,
}

/// The byte lengths of a forgotten splice's texts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ForgottenSplice {
    pub removed: u64,
    pub inserted: u64,
}

impl Change {
    /// This change as a tombstone forgotten at `at`: the same id, time, operation, owner and
    /// sizes, no text.
    pub fn tombstone(&self, at: i64) -> Change {
        let len = |s: &Option<super::change::EntrySnap>| s.as_ref().map(|s| s.line.len() as u64);
        Change {
            entries: Vec::new(),
            splices: Vec::new(),
            forgotten: Some(Forgotten {
                at,
                entries: self
                    .entries
                    .iter()
                    .map(|d| ForgottenEntry {
                        before: len(&d.before),
                        after: len(&d.after),
                    })
                    .collect(),
                splices: self
                    .splices
                    .iter()
                    .map(|s| ForgottenSplice {
                        removed: s.removed.len() as u64,
                        inserted: s.inserted.len() as u64,
                    })
                    .collect(),
            }),
            ..self.clone()
        }
    }

    /// The refusal to take back (or restore from) a forgotten change.
    pub fn refuse_if_forgotten(&self) -> Result<()> {
        match self.forgotten {
            Some(_) => Err(CoreError::Forgotten(self.id.clone())),
            None => Ok(()),
        }
    }
}

impl Change {
    /// Whether this record describes a change the console could have made: what undo would
    /// write comes from here, so a hand-edited or imported record that is inconsistent is
    /// refused rather than applied. Checked: every entry has a side, an undo or redo names what
    /// it takes back, splices stand in order within the bounds of a file, and (MEMORY.md) the
    /// text they cut and write back is exactly the entries' lines, nothing more.
    pub fn validate(&self) -> std::result::Result<(), String> {
        if self.id.is_empty() {
            return Err("no id".into());
        }
        if matches!(self.op, Op::Undo | Op::Redo) && self.reverts.is_none() {
            return Err(format!("an {} that names no change", self.op.as_str()));
        }
        if self
            .entries
            .iter()
            .any(|d| d.before.is_none() && d.after.is_none())
        {
            return Err("an entry with neither a before nor an after".into());
        }
        if self.splices.is_empty() {
            return Ok(());
        }
        let mut end = 0u64;
        for s in &self.splices {
            let longest = s.inserted.len().max(s.removed.len()) as u64;
            if s.at.checked_add(longest).is_none() || s.at + longest > i64::MAX as u64 {
                return Err(format!("a splice at {} beyond any file", s.at));
            }
            if s.at < end {
                return Err(format!("splices out of order at {}", s.at));
            }
            end = s.at + s.inserted.len() as u64;
        }
        let lines = |side: &dyn Fn(&EntryDiff) -> Option<&super::change::EntrySnap>| {
            let mut v: Vec<&str> = self
                .entries
                .iter()
                .filter_map(side)
                .map(|e| e.line.as_str())
                .collect();
            v.sort_unstable();
            v
        };
        let text = |f: &dyn Fn(&Splice) -> &str| {
            let mut v: Vec<&str> = self
                .splices
                .iter()
                .flat_map(|s| super::change::entry_lines(f(s)))
                .collect();
            v.sort_unstable();
            v
        };
        if text(&|s| &s.removed) != lines(&|d| d.before.as_ref()) {
            return Err("its splices write back text that is not its entries' before".into());
        }
        if text(&|s| &s.inserted) != lines(&|d| d.after.as_ref()) {
            return Err("its splices cut text that is not its entries' after".into());
        }
        Ok(())
    }
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// Whether the process that wrote a pending change may still be writing.
pub fn writer_alive(pid: u32) -> bool {
    if pid == 0 || pid == std::process::id() {
        return pid != 0;
    }
    #[cfg(unix)]
    {
        // Signal 0 checks existence; EPERM means it exists under another user. A number too
        // large for a pid names no process.
        let Some(pid) = i32::try_from(pid)
            .ok()
            .and_then(rustix::process::Pid::from_raw)
        else {
            return false;
        };
        match rustix::process::test_kill_process(pid) {
            Ok(()) => true,
            Err(e) => e != rustix::io::Errno::SRCH,
        }
    }
    #[cfg(not(unix))]
    {
        true
    }
}

/// One record of a history file.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "lowercase")]
pub enum Record {
    Intent(Change),
    Commit { id: String },
    Abort { id: String },
}

/// The fields of a record the index reads (the rest, the entries, are skipped).
#[derive(Deserialize)]
struct Meta {
    state: String,
    id: String,
    #[serde(default)]
    op: Option<Op>,
    #[serde(default)]
    owner: Option<String>,
    #[serde(default)]
    reverts: Option<String>,
    #[serde(default)]
    at: i64,
    #[serde(default)]
    pid: u32,
}

/// One change of the history as the index knows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Head {
    pub id: String,
    pub op: Op,
    pub at: i64,
    pub reverts: Option<String>,
    pub pid: u32,
    /// Its commit record is missing (a console killed mid-change, or one writing now).
    pub pending: bool,
    line: std::ops::Range<usize>,
}

/// The history's changes, oldest first, decoded one at a time.
#[derive(Debug, Default)]
pub struct Index {
    text: Vec<u8>,
    pub heads: Vec<Head>,
    /// Records that are neither whole nor torn (a hand edit, a newer version's record): what
    /// they did is unknown, so no change before them is undone by guesswork.
    pub unreadable: Vec<Unreadable>,
}

/// A history record that cannot be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unreadable {
    /// 1-based line of the history file.
    pub line: usize,
    /// Byte offset in the history file.
    pub at: usize,
}

impl Index {
    /// The `i`-th change in full; `None` when its record does not decode or describes no
    /// change the console could have made (see [`Change::validate`]).
    pub fn listed(&self, i: usize) -> Option<Listed> {
        let h = self.heads.get(i)?;
        match serde_json::from_slice::<Record>(&self.text[h.line.clone()]) {
            Ok(Record::Intent(change)) if change.validate().is_ok() => Some(Listed {
                change,
                pending: h.pending,
            }),
            _ => None,
        }
    }

    /// The `i`-th change in full, or why it cannot be used.
    pub fn decoded(&self, i: usize, path: &Path) -> Result<Change> {
        let h = self
            .heads
            .get(i)
            .ok_or_else(|| CoreError::NotFound(format!("no change number {i} in the history")))?;
        let bad = |why: String| {
            CoreError::Corrupt(format!(
                "{}: the record of change {} cannot be used ({why}); nothing was changed",
                path.display(),
                h.id
            ))
        };
        match serde_json::from_slice::<Record>(&self.text[h.line.clone()]) {
            Ok(Record::Intent(change)) => {
                change.validate().map_err(bad)?;
                Ok(change)
            }
            Ok(_) => Err(bad("not a change".into())),
            Err(e) => Err(bad(e.to_string())),
        }
    }

    pub fn position(&self, id: &str) -> Option<usize> {
        self.heads.iter().position(|h| h.id == id)
    }

    /// The first unreadable record written after the `i`-th change's: it may have taken that
    /// change back, or been a newer one.
    pub fn unreadable_after(&self, i: usize) -> Option<Unreadable> {
        let from = self.heads.get(i)?.line.start;
        self.unreadable.iter().find(|u| u.at > from).copied()
    }
}

/// What one piece of a history line is.
enum Piece {
    Meta(Meta),
    /// Cut short (a writer killed mid-record, or a full disk before records were cut back):
    /// the change it began was never made, or is settled from the data.
    Torn,
    Unreadable,
}

/// The records of one history line. A record that an older version appended onto a torn one
/// (without starting a new line) is found again where its `{"state":"` begins.
fn records_in(line: &[u8], start: usize) -> Vec<(std::ops::Range<usize>, Piece)> {
    let ranges = record_ranges(line);
    let mut out = Vec::with_capacity(ranges.len());
    for std::ops::Range {
        start: from,
        end: to,
    } in ranges
    {
        let piece = &line[from..to];
        if piece.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let read = match serde_json::from_slice::<Meta>(piece) {
            Ok(m) => Piece::Meta(m),
            Err(e) if e.is_eof() => Piece::Torn,
            Err(_) => Piece::Unreadable,
        };
        out.push((start + from..start + to, read));
    }
    out
}

/// Where each record of one history line stands: one per line, but a record an older version
/// appended onto a torn one (without starting a new line) begins where its `{"state":"` does.
pub fn record_ranges(line: &[u8]) -> Vec<std::ops::Range<usize>> {
    const MARK: &[u8] = b"{\"state\":\"";
    let mut cuts: Vec<usize> = memchr::memmem::find_iter(line, MARK).collect();
    if cuts.first() != Some(&0) {
        cuts.insert(0, 0);
    }
    (0..cuts.len())
        .map(|k| cuts[k]..cuts.get(k + 1).copied().unwrap_or(line.len()))
        .collect()
}

/// A change as the history knows it now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    pub change: Change,
    /// Written but its commit is missing (a console killed mid-change): to be settled.
    pub pending: bool,
}

pub fn history_path(data: &Path) -> PathBuf {
    let mut name = data.file_name().unwrap_or_default().to_os_string();
    name.push(".oryx-history");
    data.with_file_name(name)
}

pub struct History {
    path: PathBuf,
    /// In the console's own data directory (mem0), not beside the root's files: opened
    /// without the root's layout checks.
    own_dir: bool,
}

impl History {
    /// A history in the console's own data directory.
    pub fn at(path: PathBuf) -> History {
        History {
            path,
            own_dir: true,
        }
    }

    /// The history of the data file `data` (MEMORY.md, oryxos.db).
    pub fn beside(data: &Path) -> History {
        History {
            path: history_path(data),
            own_dir: false,
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Every change of `owner` (all owners for `None`), oldest first. Torn lines (a writer
    /// killed mid-line) and lines this version cannot read are skipped.
    pub fn load(&self, owner: Option<&str>) -> Result<Vec<Listed>> {
        let index = self.index(owner)?;
        Ok((0..index.heads.len())
            .filter_map(|i| index.listed(i))
            .collect())
    }

    /// What every change is (id, operation, what it reverts, state), read without decoding
    /// the entries: a history of 10 000 changes is listed by decoding only the page shown.
    pub fn index(&self, owner: Option<&str>) -> Result<Index> {
        let mut text = Vec::new();
        let file = match self.own_dir {
            true => rooted_fs::open_read(&self.path)?,
            false => rooted_fs::open_memory(&self.path, rooted_fs::Access::Read)?,
        };
        match file {
            Some(mut f) => {
                f.read_to_end(&mut text).at(&self.path)?;
            }
            None => return Ok(Index::default()),
        }
        let mut heads: Vec<Head> = Vec::new();
        let mut unreadable = Vec::new();
        // The head each id's latest intent made (an abort takes an id out: a later intent of
        // it, a change planned again, is a new head).
        let mut by_id: HashMap<String, usize> = HashMap::new();
        let mut aborted = vec![];
        let mut pos = 0;
        for (n, line) in text.split(|b| *b == b'\n').enumerate() {
            let start = pos;
            pos += line.len() + 1;
            for (range, read) in records_in(line, start) {
                let meta = match read {
                    Piece::Meta(m) => m,
                    Piece::Torn => continue,
                    Piece::Unreadable => {
                        unreadable.push(Unreadable {
                            line: n + 1,
                            at: range.start,
                        });
                        continue;
                    }
                };
                match meta.state.as_str() {
                    "intent" => {
                        let (Some(op), Some(o)) = (meta.op, meta.owner) else {
                            unreadable.push(Unreadable {
                                line: n + 1,
                                at: range.start,
                            });
                            continue;
                        };
                        if owner.is_some_and(|w| w != o) {
                            continue;
                        }
                        // A later intent of the same id completes the earlier (mem0 learns the
                        // new ids only as it goes).
                        if let Some(&i) = by_id.get(&meta.id) {
                            heads[i].line = range;
                            continue;
                        }
                        by_id.insert(meta.id.clone(), heads.len());
                        aborted.push(false);
                        heads.push(Head {
                            id: meta.id,
                            op,
                            at: meta.at,
                            reverts: meta.reverts,
                            pid: meta.pid,
                            pending: true,
                            line: range,
                        });
                    }
                    "commit" => {
                        if let Some(&i) = by_id.get(&meta.id) {
                            heads[i].pending = false;
                        }
                    }
                    "abort" => {
                        // Cancels the intent before it, not a later one of the same id.
                        if let Some(i) = by_id.remove(&meta.id) {
                            aborted[i] = true;
                        }
                    }
                    _ => {}
                }
            }
        }
        let mut keep = aborted.iter().map(|a| !a);
        heads.retain(|_| keep.next().unwrap_or(true));
        Ok(Index {
            text,
            heads,
            unreadable,
        })
    }

    pub fn intent(&self, change: &Change) -> Result<()> {
        self.write(&Record::Intent(change.clone()))
    }

    pub fn commit(&self, id: &str) -> Result<()> {
        self.write(&Record::Commit { id: id.to_string() })
    }

    pub fn abort(&self, id: &str) -> Result<()> {
        self.write(&Record::Abort { id: id.to_string() })
    }

    /// Appends one record. After a torn last record (a writer killed mid-line) it starts on a
    /// line of its own; a write that fails part-way (disk full) is cut back off, as MEMORY.md
    /// and the journal are, so the history never holds half a record followed by a whole one.
    fn write(&self, rec: &Record) -> Result<()> {
        let mut line = serde_json::to_vec(rec).expect("history records serialise");
        line.push(b'\n');
        let mut f = match self.own_dir {
            true => open_own(&self.path)?,
            false => open_append(&self.path)?,
        };
        append_lines(&mut f, &self.path, line, true)
    }
}

fn open_append(path: &Path) -> Result<File> {
    // Like the journal: never through a link, never blocking on a FIFO.
    rooted_fs::open_memory(path, rooted_fs::Access::ReadAppendCreate)?
        .ok_or_else(|| crate::error::CoreError::io(path, std::io::ErrorKind::NotFound.into()))
}

fn open_own(path: &Path) -> Result<File> {
    let mut opts = std::fs::OpenOptions::new();
    opts.create(true).read(true).append(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32);
    }
    opts.open(path).at(path)
}

/// A fresh change id that sorts by time: milliseconds, process, a per-process counter.
pub fn new_change_id() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static SEQ: AtomicU64 = AtomicU64::new(0);
    format!(
        "{:013}-{:x}-{:x}",
        crate::timefmt::now_epoch_ms(),
        std::process::id(),
        SEQ.fetch_add(1, Ordering::Relaxed)
    )
}

/// What undo and redo would act on now, from the history alone.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stacks {
    /// The newest change that can be undone (not an undo, not already undone).
    pub undo: Option<String>,
    /// The newest undo that can be redone (no new change made since).
    pub redo: Option<String>,
    /// Changes that an undo (not itself redone) took back.
    pub undone: std::collections::HashSet<String>,
}

pub fn stacks(changes: &[Head]) -> Stacks {
    let mut st = Stacks::default();
    // A record is in effect unless a later record in effect takes it back: walking from the
    // newest, each record in effect cancels the one it reverts (an undo its change, a redo
    // its undo, an undo of a redo that redo).
    let mut cancelled = std::collections::HashSet::new();
    let mut blocked = false;
    for c in changes.iter().rev() {
        let live = !cancelled.contains(&c.id);
        if live {
            if let Some(r) = &c.reverts {
                if matches!(c.op, Op::Undo | Op::Redo) {
                    cancelled.insert(r.clone());
                }
            }
        }
        match c.op {
            Op::Undo => {
                if live && !blocked && st.redo.is_none() {
                    st.redo = Some(c.id.clone());
                }
            }
            Op::Redo => {}
            _ => blocked = blocked || live,
        }
        if live && c.op != Op::Undo && st.undo.is_none() {
            st.undo = Some(c.id.clone());
        }
    }
    st.undone = changes
        .iter()
        .filter(|c| c.op != Op::Undo && cancelled.contains(&c.id))
        .map(|c| c.id.clone())
        .collect();
    st
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn change(id: &str, op: Op, reverts: Option<&str>) -> Head {
        Head {
            id: id.into(),
            op,
            at: 0,
            reverts: reverts.map(str::to_string),
            pid: 0,
            pending: false,
            line: 0..0,
        }
    }

    fn full(id: &str, op: Op) -> Change {
        Change {
            id: id.into(),
            at: 0,
            op,
            owner: "__global__".into(),
            reverts: None,
            entries: vec![],
            splices: vec![],
            pid: 0,
            len_after: None,
            forgotten: None,
        }
    }

    #[test]
    fn undo_and_redo_walk_back_and_forth() {
        let mut h = vec![change("1", Op::Edit, None), change("2", Op::Delete, None)];
        let s = stacks(&h);
        assert_eq!((s.undo.as_deref(), s.redo.as_deref()), (Some("2"), None));
        h.push(change("3", Op::Undo, Some("2")));
        let s = stacks(&h);
        assert_eq!(
            (s.undo.as_deref(), s.redo.as_deref()),
            (Some("1"), Some("3"))
        );
        h.push(change("4", Op::Undo, Some("1")));
        let s = stacks(&h);
        assert_eq!((s.undo.as_deref(), s.redo.as_deref()), (None, Some("4")));
        h.push(change("5", Op::Redo, Some("4")));
        let s = stacks(&h);
        assert_eq!(
            (s.undo.as_deref(), s.redo.as_deref()),
            (Some("5"), Some("3"))
        );
        // Undoing the redo undoes change 1 again; undo then goes on to nothing.
        h.push(change("5u", Op::Undo, Some("5")));
        let s = stacks(&h);
        assert_eq!((s.undo.as_deref(), s.redo.as_deref()), (None, Some("5u")));
        assert!(s.undone.contains("1") && s.undone.contains("2"));
        h.pop();
        // A new change ends the redo chain.
        h.push(change("6", Op::Move, None));
        let s = stacks(&h);
        assert_eq!((s.undo.as_deref(), s.redo.as_deref()), (Some("6"), None));
    }

    #[test]
    fn intents_without_commit_are_pending_and_aborted_ones_vanish() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("agents")).unwrap();
        let h = History::beside(&dir.path().join("MEMORY.md"));
        let mut c = full("1", Op::Delete);
        c.entries.push(EntryDiff {
            before: Some(snap("- x")),
            after: None,
        });
        h.intent(&c).unwrap();
        h.commit("1").unwrap();
        c.id = "2".into();
        h.intent(&c).unwrap();
        c.id = "3".into();
        h.intent(&c).unwrap();
        h.abort("3").unwrap();
        // A torn line at the end is skipped.
        std::fs::OpenOptions::new()
            .append(true)
            .open(h.path())
            .unwrap()
            .write_all(b"{\"state\":\"intent\",\"id\":")
            .unwrap();
        let l = h.load(None).unwrap();
        assert_eq!(l.len(), 2);
        assert!(!l[0].pending && l[1].pending);
        assert!(h.load(Some("agent")).unwrap().is_empty());
    }

    fn history() -> (tempfile::TempDir, History) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("agents")).unwrap();
        let h = History::beside(&dir.path().join("MEMORY.md"));
        (dir, h)
    }

    fn append_raw(h: &History, bytes: &[u8]) {
        std::fs::OpenOptions::new()
            .append(true)
            .open(h.path())
            .unwrap()
            .write_all(bytes)
            .unwrap();
    }

    /// A change planned again under its id (the file changed under it) is `intent, abort,
    /// intent, commit`: the abort cancels the first plan only.
    #[test]
    fn a_change_planned_again_under_its_id_stands() {
        let (_d, h) = history();
        h.intent(&full("1", Op::Edit)).unwrap();
        h.commit("1").unwrap();
        let mut c = full("2", Op::Delete);
        h.intent(&c).unwrap();
        h.abort("2").unwrap();
        c.at = 7;
        h.intent(&c).unwrap();
        h.commit("2").unwrap();
        let l = h.load(None).unwrap();
        assert_eq!(l.len(), 2, "{l:?}");
        assert_eq!((l[1].change.id.as_str(), l[1].change.at), ("2", 7));
        assert!(!l[1].pending);
        let s = stacks(&h.index(None).unwrap().heads);
        assert_eq!(s.undo.as_deref(), Some("2"));
        // Planned again and then aborted again: gone.
        h.intent(&full("3", Op::Edit)).unwrap();
        h.abort("3").unwrap();
        h.intent(&full("3", Op::Edit)).unwrap();
        h.abort("3").unwrap();
        assert_eq!(h.load(None).unwrap().len(), 2);
    }

    /// A torn last record (a writer killed mid-line) does not swallow the next one, and a
    /// record an older version glued onto a torn one is read again.
    #[test]
    fn a_torn_record_never_hides_the_next_change() {
        let (_d, h) = history();
        h.intent(&full("1", Op::Edit)).unwrap();
        h.commit("1").unwrap();
        append_raw(&h, br#"{"state":"intent","id":"torn","op":"ed"#);
        h.intent(&full("2", Op::Delete)).unwrap();
        h.commit("2").unwrap();
        // As an older version wrote it: glued onto a torn line.
        append_raw(&h, br#"{"state":"commit","id":"to"#);
        let glued = serde_json::to_vec(&Record::Intent(full("3", Op::Move))).unwrap();
        append_raw(&h, &glued);
        append_raw(&h, b"\n{\"state\":\"commit\",\"id\":\"3\"}\n");
        let index = h.index(None).unwrap();
        let ids: Vec<&str> = index.heads.iter().map(|x| x.id.as_str()).collect();
        assert_eq!(ids, ["1", "2", "3"]);
        assert!(index.heads.iter().all(|x| !x.pending));
        assert!(index.unreadable.is_empty(), "{:?}", index.unreadable);
        assert_eq!(stacks(&index.heads).undo.as_deref(), Some("3"));
        let text = std::fs::read_to_string(h.path()).unwrap();
        assert!(
            text.contains("\"op\":\"ed\n{\"state\":\"intent\",\"id\":\"2\""),
            "{text}"
        );
    }

    /// A record that is neither whole nor torn is reported with its line, so that undo can
    /// refuse to guess past it.
    #[test]
    fn unreadable_records_are_reported_where_they_stand() {
        let (_d, h) = history();
        h.intent(&full("1", Op::Edit)).unwrap();
        h.commit("1").unwrap();
        append_raw(&h, b"not json at all\n");
        append_raw(
            &h,
            br#"{"state":"intent","id":"x","op":"teleport","owner":"__global__"}"#,
        );
        append_raw(&h, b"\n");
        let index = h.index(None).unwrap();
        assert_eq!(index.heads.len(), 1);
        let lines: Vec<usize> = index.unreadable.iter().map(|u| u.line).collect();
        assert_eq!(lines, [3, 4]);
        assert_eq!(index.unreadable_after(0).map(|u| u.line), Some(3));
    }

    fn snap(line: &str) -> super::super::change::EntrySnap {
        let e = super::super::format::parse_entry(line);
        super::super::change::EntrySnap::of("a0-00000000".into(), super::super::Scope::Archival, &e)
    }

    /// What undo would write comes from the record: one whose splices do not match its
    /// entries, or lie beyond any file, is not a change the console made.
    #[test]
    fn records_are_validated_before_use() {
        let line = "- [2026-01-01 00:00:00] x";
        let mut c = full("1", Op::Delete);
        c.entries.push(EntryDiff {
            before: Some(snap(line)),
            after: None,
        });
        let splice = |at: u64, removed: &str, inserted: &str| Splice {
            at,
            removed: removed.into(),
            inserted: inserted.into(),
            ctx: 0,
        };
        c.splices = vec![splice(10, &format!("{line}\n"), "")];
        assert_eq!(c.validate(), Ok(()));
        for bad in [
            vec![splice(u64::MAX, &format!("{line}\n"), "")],
            vec![splice(u64::MAX - 3, "", "")],
            // Writes back more than the entry (a duplicate line, 5 MB of anything).
            vec![splice(10, &format!("{line}\n{line}\n"), "")],
            vec![splice(
                10,
                &format!("{line}\n{}\n", "y".repeat(5 << 20)),
                "",
            )],
            // Cuts an entry the change does not name.
            vec![splice(10, &format!("{line}\n"), "- other\n")],
            vec![splice(10, &format!("{line}\n"), ""), splice(5, "", "")],
        ] {
            let mut b = c.clone();
            b.splices = bad;
            assert!(b.validate().is_err(), "{:?}", b.splices);
        }
        let mut b = c.clone();
        b.entries.push(EntryDiff {
            before: None,
            after: None,
        });
        assert!(b.validate().is_err());
        let mut u = full("2", Op::Undo);
        assert!(u.validate().is_err(), "an undo of nothing");
        u.reverts = Some("1".into());
        assert_eq!(u.validate(), Ok(()));
    }
}
