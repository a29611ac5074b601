//! The history of the console's changes to memory (SPEC §13): JSON lines in a sidecar beside
//! the data they describe (`MEMORY.md.oryx-history`, `oryxos.db.oryx-history`), so the history
//! moves with the root. Each change holds the exact before and after of its entries (and, for
//! MEMORY.md, the byte splices that undo it): the history of a 100 MB file costs the size of
//! its changes.
//!
//! A change is written in two records around the write it describes: the change itself
//! (`"state": "intent"`) before, a `commit` after. A console killed in between leaves an
//! intent without a commit, which the next reader settles by looking at the data: applied
//! (the store shows the change's after state) or not.

use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::curate::{EntryDiff, Splice};
use crate::error::{IoContext, Result};
use crate::fsx;

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
        // Signal 0 checks existence; EPERM means it exists under another user.
        let r = unsafe { libc::kill(pid as libc::pid_t, 0) };
        r == 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
    }
    #[cfg(not(unix))]
    {
        true
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "lowercase")]
enum Record {
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
}

impl Index {
    /// The `i`-th change in full.
    pub fn listed(&self, i: usize) -> Option<Listed> {
        let h = self.heads.get(i)?;
        match serde_json::from_slice::<Record>(&self.text[h.line.clone()]) {
            Ok(Record::Intent(change)) => Some(Listed {
                change,
                pending: h.pending,
            }),
            _ => None,
        }
    }

    pub fn position(&self, id: &str) -> Option<usize> {
        self.heads.iter().position(|h| h.id == id)
    }
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
            true => fsx::open_read(&self.path)?,
            false => fsx::open_memory(&self.path, fsx::Access::Read)?,
        };
        match file {
            Some(mut f) => {
                f.read_to_end(&mut text).at(&self.path)?;
            }
            None => return Ok(Index::default()),
        }
        let mut heads: Vec<Head> = Vec::new();
        let mut by_id: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
        let mut aborted = std::collections::HashSet::new();
        let mut pos = 0;
        for line in text.split(|b| *b == b'\n') {
            let range = pos..pos + line.len();
            pos += line.len() + 1;
            let Ok(meta) = serde_json::from_slice::<Meta>(line) else {
                continue;
            };
            match meta.state.as_str() {
                "intent" => {
                    let (Some(op), Some(o)) = (meta.op, meta.owner) else {
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
                        if !aborted.contains(&meta.id) {
                            heads[i].pending = false;
                        }
                    }
                }
                "abort" => {
                    aborted.insert(meta.id);
                }
                _ => {}
            }
        }
        heads.retain(|h| !aborted.contains(&h.id));
        Ok(Index { text, heads })
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

    fn write(&self, rec: &Record) -> Result<()> {
        let mut line = serde_json::to_vec(rec).expect("history records serialise");
        line.push(b'\n');
        let mut f = match self.own_dir {
            true => open_own(&self.path)?,
            false => open_append(&self.path)?,
        };
        f.write_all(&line).at(&self.path)?;
        f.sync_data().at(&self.path)
    }
}

fn open_append(path: &Path) -> Result<File> {
    // Like the journal: never through a link, never blocking on a FIFO.
    fsx::open_memory(path, fsx::Access::ReadAppendCreate)?
        .ok_or_else(|| crate::error::CoreError::io(path, std::io::ErrorKind::NotFound.into()))
}

fn open_own(path: &Path) -> Result<File> {
    let mut opts = std::fs::OpenOptions::new();
    opts.create(true).append(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.custom_flags(libc::O_NOFOLLOW);
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
            before: None,
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
}
