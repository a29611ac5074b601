//! Archives the console exported that hold a forgotten text. The console records where each
//! export was written (`exports.jsonl` in its index folder): those files are the person's and
//! are never rewritten — a forget lists them with what to do. Archives still in the console's
//! own transfer folder (an export the browser has not fetched yet) are its own: removed.

use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{Copies, Erased, Left, Needles, Place, Why};
use crate::error::{IoContext, Result};

const LOG: &str = "exports.jsonl";

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Exported {
    path: PathBuf,
    /// Epoch milliseconds.
    at: i64,
}

/// Notes that an archive was written at `path` (a failure to note it never fails the export:
/// the forget then cannot list that archive, which it says in general terms).
pub fn record_export(index_dir: &Path, path: &Path) {
    let path = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    let line = serde_json::to_string(&Exported {
        path,
        at: crate::memory::journal::now_ms(),
    });
    let write = |line: serde_json::Result<String>| -> std::io::Result<()> {
        let line = line.map_err(std::io::Error::other)?;
        std::fs::create_dir_all(index_dir)?;
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(index_dir.join(LOG))?;
        writeln!(f, "{line}")
    };
    if let Err(e) = write(line) {
        eprintln!("oryx: the export was written but not noted for a later forget: {e}");
    }
}

/// Every archive the console noted, still present, each once.
pub fn known(index_dir: &Path) -> Vec<PathBuf> {
    let Ok(text) = std::fs::read_to_string(index_dir.join(LOG)) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<Exported>(l).ok())
        .map(|e| e.path)
        .filter(|p| p.is_file())
        .collect();
    out.sort();
    out.dedup();
    out
}

/// How many members of the archive at `path` hold a needle (`None`: not a zip archive).
pub fn members_holding(path: &Path, needles: &Needles) -> Result<Option<usize>> {
    let file = File::open(path).at(path)?;
    let Ok(mut zip) = zip::ZipArchive::new(file) else {
        return Ok(None);
    };
    let mut n = 0;
    let mut buf = Vec::new();
    for i in 0..zip.len() {
        let Ok(mut member) = zip.by_index(i) else {
            continue;
        };
        buf.clear();
        if member.read_to_end(&mut buf).is_err() {
            continue;
        }
        if needles
            .texts()
            .iter()
            .any(|t| memchr::memmem::find(&buf, t.as_bytes()).is_some())
        {
            n += 1;
        }
    }
    Ok(Some(n))
}

/// The zip files directly in `dir` (the console's transfer folder).
fn staged(dir: Option<&Path>) -> Vec<PathBuf> {
    let Some(Ok(read)) = dir.map(std::fs::read_dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = read
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "zip") && p.is_file())
        .collect();
    out.sort();
    out
}

fn holding(paths: Vec<PathBuf>, needles: &Needles) -> Result<Vec<Copies>> {
    let mut out = Vec::new();
    for path in paths {
        if let Some(n) = members_holding(&path, needles)? {
            if n > 0 {
                out.push(Copies::new(Place::Archives, path, n, None));
            }
        }
    }
    Ok(out)
}

/// The archives holding a needle: the noted exports and the transfer folder's.
pub fn find(
    index_dir: &Path,
    transfer_dir: Option<&Path>,
    needles: &Needles,
) -> Result<Vec<Copies>> {
    let mut paths = known(index_dir);
    paths.extend(staged(transfer_dir));
    paths.sort();
    paths.dedup();
    holding(paths, needles)
}

/// Removes the transfer folder's archives holding a needle; lists the noted exports that do.
pub fn erase(index_dir: &Path, transfer_dir: Option<&Path>, needles: &Needles) -> Result<Erased> {
    let mut done = Erased::default();
    for c in holding(staged(transfer_dir), needles)? {
        match std::fs::remove_file(&c.path) {
            Ok(()) => done.erased.push(c),
            Err(e) => done.left.push(Left {
                place: Place::Archives,
                path: c.path,
                count: c.count,
                reason: format!("the console's own copy could not be removed: {e}"),
                why: Why::NotRemoved,
                arg: Some(e.to_string()),
            }),
        }
    }
    for c in holding(known(index_dir), needles)? {
        done.left.push(Left {
            place: Place::Archives,
            path: c.path,
            count: c.count,
            reason: "an archive exported earlier; the console never rewrites a file it handed \
                     over — delete it (and its copies), or export again and replace it"
                .into(),
            why: Why::HandedOver,
            arg: None,
        });
    }
    Ok(done)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn archive(path: &Path, text: &str) {
        let mut zip = zip::ZipWriter::new(File::create(path).unwrap());
        zip.start_file(
            "agents/a/MEMORY.md",
            zip::write::SimpleFileOptions::default(),
        )
        .unwrap();
        zip.write_all(text.as_bytes()).unwrap();
        zip.finish().unwrap();
    }

    #[test]
    fn noted_exports_are_listed_and_the_consoles_own_copies_removed() {
        let dir = tempfile::tempdir().unwrap();
        let index = dir.path().join("index");
        let transfer = dir.path().join("transfer");
        std::fs::create_dir_all(&transfer).unwrap();
        let mine = dir.path().join("mine.oryx.zip");
        archive(&mine, "- [2026-01-01 00:00:00] sk-live-arch-9\n");
        let clean = dir.path().join("clean.oryx.zip");
        archive(&clean, "- [2026-01-01 00:00:00] nothing\n");
        record_export(&index, &mine);
        record_export(&index, &clean);
        let staged = transfer.join("archive-1.zip");
        archive(&staged, "sk-live-arch-9");
        let needles = Needles::new(["sk-live-arch-9".to_string()]);

        let found = find(&index, Some(&transfer), &needles).unwrap();
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(found.iter().all(|c| c.count == 1));
        let done = erase(&index, Some(&transfer), &needles).unwrap();
        assert!(!staged.exists());
        assert_eq!(done.erased.len(), 1);
        assert_eq!(done.left.len(), 1);
        assert_eq!(done.left[0].path, mine.canonicalize().unwrap());
        assert!(mine.exists(), "the person's archive is never touched");
        assert!(find(
            &index,
            Some(&transfer),
            &Needles::new(["absent-text".to_string()])
        )
        .unwrap()
        .is_empty());
    }
}
