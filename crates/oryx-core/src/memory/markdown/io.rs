//! Reading MEMORY.md and appending to it through an open handle, counting in tests how many
//! bytes a write reads.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use crate::error::{CoreError, IoContext, Result};
use crate::rooted_fs;

#[cfg(test)]
thread_local! {
    pub(super) static BYTES_READ: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Counts the bytes this thread read from memory files (tests check how much a write reads).
pub(crate) fn count_read(_n: usize) {
    #[cfg(test)]
    BYTES_READ.with(|c| c.set(c.get() + _n as u64));
}

/// A reader that counts what it reads (see [`count_read`]).
pub(super) struct Counted<R>(pub(super) R);

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.0.read(buf)?;
        count_read(n);
        Ok(n)
    }
}

pub fn read_or_empty(path: &Path) -> Result<Vec<u8>> {
    rooted_fs::read_memory(path)
}

pub(super) fn missing(path: &Path) -> CoreError {
    CoreError::io(path, std::io::ErrorKind::NotFound.into())
}

/// MEMORY.md opened for reading and appending, never through a link (`None`: there is no
/// file). Appends go through this handle, so they land in exactly the version that was checked.
pub(super) fn open_rw(path: &Path) -> Result<Option<File>> {
    rooted_fs::open_memory(path, rooted_fs::Access::ReadAppend)
}

pub(super) fn read_all(f: &File, path: &Path) -> Result<Vec<u8>> {
    // Sized up front: growing by doubling copies a 100 MB file several times.
    let len = f.metadata().map_or(0, |m| m.len() as usize);
    let mut bytes = Vec::with_capacity(len + 1);
    let mut r = f;
    r.seek(SeekFrom::Start(0)).at(path)?;
    r.read_to_end(&mut bytes).at(path)?;
    count_read(bytes.len());
    Ok(bytes)
}
