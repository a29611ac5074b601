//! A receipt for every forget: what was asked, the places searched, the copies found, erased
//! and left (and why) — kept in the console's data directory with a SHA-256 of each text, never
//! the text. It is written before anything is erased and rewritten when the forget ends, so a
//! console killed in between leaves a receipt that says so (running the forget again completes
//! it: every step finds only what is still there).

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::{Copies, Left, Needles};
use crate::error::{CoreError, IoContext, Result};

/// Where a forget's receipt stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum State {
    /// Written before the first erase; a receipt still in this state after its process ended
    /// was interrupted: some copies may remain (the old state or part of the new).
    Started,
    Done,
    /// Stopped on request between places: what was erased is listed, the rest is left.
    Cancelled,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Receipt {
    pub id: String,
    /// Epoch milliseconds when the forget started.
    pub at: i64,
    /// When it ended (absent while it runs, or if it was interrupted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended: Option<i64>,
    pub state: State,
    /// SHA-256 (hex) of each text forgotten.
    pub text_sha256: Vec<String>,
    /// What was asked, for people: "agent assistant, 2 entries", "all agents and the global
    /// memory, a text".
    pub scope: String,
    /// The same, as the UI words it (absent in receipts of older consoles).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ask: Option<super::run::AskSummary>,
    /// The texts were replaced by a mask rather than the entries deleted.
    pub mask: bool,
    /// The places searched.
    pub searched: Vec<String>,
    pub found: Vec<Copies>,
    pub erased: Vec<Copies>,
    pub left: Vec<Left>,
    /// The process that wrote it (an unfinished receipt of a process that is gone was
    /// interrupted).
    pub pid: u32,
}

impl Receipt {
    pub fn new(needles: &Needles, scope: String, mask: bool) -> Receipt {
        Receipt {
            id: crate::memory::journal::new_id(),
            at: crate::memory::journal::now_ms(),
            ended: None,
            state: State::Started,
            text_sha256: needles.texts().iter().map(|t| sha256_hex(t)).collect(),
            scope,
            ask: None,
            mask,
            searched: Vec::new(),
            found: Vec::new(),
            erased: Vec::new(),
            left: Vec::new(),
            pid: std::process::id(),
        }
    }

    /// Whether it was left unfinished by a process that is gone.
    pub fn interrupted(&self) -> bool {
        self.state == State::Started && !crate::memory::history::writer_alive(self.pid)
    }
}

pub fn sha256_hex(text: &str) -> String {
    let digest = Sha256::digest(text.as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// The receipts of one console data directory.
pub struct Receipts {
    dir: PathBuf,
}

impl Receipts {
    /// The receipts kept under the console's index folder.
    pub fn new(index_dir: &Path) -> Receipts {
        Receipts {
            dir: index_dir.join("forget-receipts"),
        }
    }

    fn path(&self, id: &str) -> PathBuf {
        self.dir.join(format!("{id}.json"))
    }

    /// Writes the receipt whole, or leaves the previous one.
    pub fn save(&self, r: &Receipt) -> Result<()> {
        std::fs::create_dir_all(&self.dir).at(&self.dir)?;
        let bytes = serde_json::to_vec_pretty(r)
            .map_err(|e| CoreError::InvalidInput(format!("a forget receipt: {e}")))?;
        let mut tmp = tempfile::NamedTempFile::new_in(&self.dir).at(&self.dir)?;
        tmp.write_all(&bytes).at(&self.dir)?;
        tmp.as_file().sync_all().at(&self.dir)?;
        let path = self.path(&r.id);
        tmp.persist(&path).map_err(|e| e.error).at(&path)?;
        Ok(())
    }

    pub fn load(&self, id: &str) -> Result<Option<Receipt>> {
        if !id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
            return Err(CoreError::InvalidInput(format!("no receipt {id:?}")));
        }
        let path = self.path(id);
        match std::fs::read(&path) {
            Ok(b) => serde_json::from_slice(&b)
                .map(Some)
                .map_err(|e| CoreError::Corrupt(format!("{}: {e}", path.display()))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(CoreError::io(&path, e)),
        }
    }

    /// Every receipt, newest first; an unreadable file is skipped.
    pub fn list(&self) -> Result<Vec<Receipt>> {
        let read = match std::fs::read_dir(&self.dir) {
            Ok(r) => r,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(CoreError::io(&self.dir, e)),
        };
        let mut out: Vec<Receipt> = read
            .filter_map(|e| e.ok())
            .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
            .filter_map(|e| std::fs::read(e.path()).ok())
            .filter_map(|b| serde_json::from_slice(&b).ok())
            .collect();
        out.sort_by(|a, b| b.at.cmp(&a.at).then_with(|| b.id.cmp(&a.id)));
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_receipt_keeps_a_hash_never_the_text() {
        let dir = tempfile::tempdir().unwrap();
        let receipts = Receipts::new(dir.path());
        let needles = Needles::new(["sk-live-receipt-1".to_string()]);
        let mut r = Receipt::new(&needles, "agent a, a text".into(), false);
        receipts.save(&r).unwrap();
        assert!(!r.interrupted(), "this process is alive");
        r.state = State::Done;
        receipts.save(&r).unwrap();
        let listed = receipts.list().unwrap();
        assert_eq!(listed, vec![r.clone()]);
        assert_eq!(listed[0].text_sha256, [sha256_hex("sk-live-receipt-1")]);
        for f in std::fs::read_dir(dir.path().join("forget-receipts")).unwrap() {
            let bytes = std::fs::read(f.unwrap().path()).unwrap();
            assert!(!String::from_utf8_lossy(&bytes).contains("sk-live-receipt-1"));
        }
        assert_eq!(receipts.load(&r.id).unwrap(), Some(r));
        assert!(receipts.load("../x").is_err());
    }

    #[test]
    fn a_receipt_left_started_by_a_process_that_is_gone_was_interrupted() {
        let needles = Needles::new(["x-secret".to_string()]);
        let mut r = Receipt::new(&needles, "a text".into(), false);
        // No process has this id: pid_max is at most 2^22.
        r.pid = 0x7fff_fff0;
        assert!(r.interrupted());
        r.state = State::Done;
        assert!(!r.interrupted());
    }
}
