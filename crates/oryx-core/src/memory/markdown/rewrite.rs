//! Atomic rewrites of MEMORY.md: the new file is staged beside it and renamed over exactly the
//! version that was checked, so a version written meanwhile by another writer is noticed (and,
//! where the exchange is atomic, rescued) rather than overwritten.

use std::fs::{self, File};
use std::io::Read;
use std::path::Path;

use super::io::missing;
use super::lock::{version, FileStamp};
use crate::error::{CoreError, IoContext, Result};
use crate::rooted_fs;

/// Replaces `path` with `bytes` atomically: readers see the old or the new file, never a mix.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    replace(path, bytes, Expect::Any).map(|_| ())
}

pub(super) const REWRITE_ATTEMPTS: usize = 20;

/// Which file a rewrite may replace.
#[derive(Debug, Clone, Copy)]
pub(super) enum Expect {
    Any,
    Absent,
    Is(FileStamp),
}

#[derive(Debug)]
pub(super) enum Replaced {
    /// Our bytes are in place (with this stamp) and replaced the expected version.
    Done(FileStamp),
    /// The file is not the expected version: nothing was written.
    Changed,
    /// Our bytes are in place, but another writer renamed its file in at the last instant and
    /// ours replaced that one: here are its bytes, to rescue what only it held.
    Displaced(Vec<u8>),
}

pub(super) fn replace(path: &Path, bytes: &[u8], expect: Expect) -> Result<Replaced> {
    replace_parts(path, &[bytes], expect)
}

/// How [`replace_with`] builds the new file.
pub(super) enum NewFile<'a> {
    Parts(&'a [&'a [u8]]),
    /// Ranges of this open file (the version being replaced) and new bytes.
    Pieces(&'a File, &'a [rooted_fs::Piece<'a>]),
}

/// [`replace`] with the new file given as consecutive parts.
pub(super) fn replace_parts(path: &Path, parts: &[&[u8]], expect: Expect) -> Result<Replaced> {
    replace_with(path, NewFile::Parts(parts), expect)
}

pub(super) fn replace_with(path: &Path, new: NewFile<'_>, expect: Expect) -> Result<Replaced> {
    // Opened from the root without following links: the rename lands in the checked folder.
    let (dir, name) = rooted_fs::memory_dir(path, true)?.ok_or_else(|| missing(path))?;
    let mut staged = match new {
        NewFile::Parts(parts) => dir.stage_parts(name, parts)?,
        NewFile::Pieces(src, pieces) => dir.stage_pieces(name, src, pieces)?,
    };
    let ours = FileStamp::of(&staged.file().metadata().at(path)?);
    #[cfg(test)]
    hook(Phase::BeforeCheck, path);
    let seen = match expect {
        Expect::Any => None,
        Expect::Absent if version(path).is_some() => return Ok(Replaced::Changed),
        Expect::Absent => None,
        Expect::Is(s) if version(path) != Some(s) => return Ok(Replaced::Changed),
        Expect::Is(s) => Some(s),
    };
    #[cfg(test)]
    hook(Phase::BeforeRename, path);
    match (expect, seen) {
        (Expect::Absent, _) => match staged.rename_if_absent() {
            Ok(true) => return Ok(Replaced::Done(ours)),
            Ok(false) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                return Ok(Replaced::Changed)
            }
            Err(e) => return Err(CoreError::io(path, e)),
        },
        (Expect::Is(_), Some(s)) => match staged.exchange() {
            Ok(true) => {
                // The staged name now holds the file we displaced; dropping `staged` removes it.
                let mut displaced = staged.displaced()?;
                if FileStamp::of(&displaced.metadata().at(path)?) == s {
                    return Ok(Replaced::Done(ours));
                }
                let mut theirs = Vec::new();
                displaced.read_to_end(&mut theirs).at(path)?;
                return Ok(Replaced::Displaced(theirs));
            }
            Ok(false) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Replaced::Changed),
            Err(e) => return Err(CoreError::io(path, e)),
        },
        _ => {}
    }
    // No atomic exchange here (another OS or file system): a plain rename right after the
    // version check leaves only a tiny window.
    staged.rename_over()?;
    Ok(Replaced::Done(ours))
}

/// Temp files of a rewrite that was killed before its rename. Called with the lock held, so no
/// writer that takes the lock is between creating and renaming its temp file.
pub(super) fn remove_stray_temp_files(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let name = name.to_string_lossy();
        if name.starts_with(".MEMORY.md.") && name.ends_with(".tmp") {
            let _ = fs::remove_file(e.path());
        }
    }
}

#[cfg(test)]
/// What a writer without our lock does between our read and our rename.
pub(super) type Interference = Option<Box<dyn FnMut(&Path)>>;

#[cfg(test)]
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Phase {
    /// After the temp file is written, before the version check.
    BeforeCheck,
    /// After the version check, right before the rename.
    BeforeRename,
}

#[cfg(test)]
thread_local! {
    pub(super) static BEFORE_REPLACE: std::cell::RefCell<Interference> =
        const { std::cell::RefCell::new(None) };
    pub(super) static BEFORE_RENAME: std::cell::RefCell<Interference> =
        const { std::cell::RefCell::new(None) };
}

#[cfg(test)]
fn hook(phase: Phase, path: &Path) {
    let slot = match phase {
        Phase::BeforeCheck => &BEFORE_REPLACE,
        Phase::BeforeRename => &BEFORE_RENAME,
    };
    slot.with(|h| {
        if let Some(f) = h.borrow_mut().as_mut() {
            f(path)
        }
    });
}
