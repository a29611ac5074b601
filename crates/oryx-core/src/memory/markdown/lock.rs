//! The cross-process lock on `MEMORY.md.lock`, held for a whole read-modify-write, and what
//! the lock file remembers of MEMORY.md between accesses (a hint that spares a re-read).

use std::fs::{self, File};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use super::io::missing;
use crate::error::{IoContext, Result};
use crate::memory::format;
use crate::rooted_fs;

/// What identifies one version of a file: size, modification time and inode (a rename by
/// another writer changes the inode even when size and time collide).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileStamp {
    pub(super) len: u64,
    mtime_ns: u128,
    ino: u64,
}

impl FileStamp {
    pub(super) fn of(meta: &fs::Metadata) -> Self {
        #[cfg(unix)]
        let ino = std::os::unix::fs::MetadataExt::ino(meta);
        #[cfg(not(unix))]
        let ino = 0;
        let mtime_ns = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos());
        FileStamp {
            len: meta.len(),
            mtime_ns,
            ino,
        }
    }

    pub(super) fn mtime_ms(&self) -> i64 {
        (self.mtime_ns / 1_000_000) as i64
    }
}

/// `None`: no file.
pub(super) fn version(path: &Path) -> Option<FileStamp> {
    fs::metadata(path).ok().map(|m| FileStamp::of(&m))
}

/// What the lock file remembers of MEMORY.md after our last write or check: its stamp, whether
/// the archival section ends it with a complete line (the next archival entry can then be
/// appended without reading the file) and its line ending. Another writer (the Java runtime
/// does not take the lock) changes the stamp, and the file is read and checked again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Hint {
    pub(super) stamp: FileStamp,
    pub(super) append_ok: bool,
    pub(super) crlf: bool,
}

impl Hint {
    fn parse(text: &str) -> Option<Hint> {
        let mut p = text.split_whitespace();
        if p.next()? != "v2" {
            return None;
        }
        let stamp = FileStamp {
            len: p.next()?.parse().ok()?,
            mtime_ns: p.next()?.parse().ok()?,
            ino: p.next()?.parse().ok()?,
        };
        let flags = p.next()?;
        Some(Hint {
            stamp,
            append_ok: flags.contains('a'),
            crlf: flags.contains('c'),
        })
    }

    fn render(&self) -> String {
        let s = self.stamp;
        format!(
            "v2 {} {} {} -{}{}\n",
            s.len,
            s.mtime_ns,
            s.ino,
            if self.append_ok { "a" } else { "" },
            if self.crlf { "c" } else { "" }
        )
    }

    pub(super) fn after(bytes: &[u8], stamp: FileStamp) -> Hint {
        let parsed = format::parse_structure(bytes);
        Hint {
            stamp,
            append_ok: parsed.archival_ends_file(bytes.len()) && bytes.last() == Some(&b'\n'),
            crlf: parsed.crlf,
        }
    }
}

/// Holds the cross-process lock for as long as it lives.
pub struct FileLock {
    file: File,
}

impl FileLock {
    pub(super) fn read_hint(&self) -> Option<Hint> {
        read_hint_from(&self.file)
    }

    /// Records what we know of the file now (or forgets it).
    pub(super) fn write_hint(&self, hint: Option<Hint>) {
        let text = hint.map(|h| h.render()).unwrap_or_default();
        let _ = self.file.set_len(0);
        let _ = (&self.file).seek(SeekFrom::Start(0));
        let _ = (&self.file).write_all(text.as_bytes());
    }
}

pub(super) fn read_hint_from(file: &File) -> Option<Hint> {
    let mut text = String::new();
    let mut f = file;
    f.seek(SeekFrom::Start(0)).ok()?;
    f.take(128).read_to_string(&mut text).ok()?;
    Hint::parse(&text)
}

impl Drop for FileLock {
    fn drop(&mut self) {
        let _ = self.file.unlock();
    }
}

pub fn lock_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".lock");
    path.with_file_name(name)
}

pub fn lock(path: &Path) -> Result<FileLock> {
    let lp = lock_path(path);
    let file = rooted_fs::open_memory(&lp, rooted_fs::Access::ReadWriteCreate)?
        .ok_or_else(|| missing(&lp))?;
    file.lock().at(&lp)?;
    Ok(FileLock { file })
}
