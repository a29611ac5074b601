//! The console's own folder for archives on their way out or in (the app's export and import):
//! an export is written here before the host saves it where the person says; an upload waits
//! here for its import. Only the console's files are removed, never a file the person picked.

use std::io::Read;
use std::path::{Path, PathBuf};

use crate::error::{CoreError, IoContext, Result};
use crate::rooted_fs::same_file;

/// The folder, created when missing.
pub fn folder(dir: &Path) -> Result<PathBuf> {
    std::fs::create_dir_all(dir).at(dir)?;
    Ok(dir.to_path_buf())
}

/// The prefix of an upload on its way into the folder.
pub const UPLOAD_TEMP_PREFIX: &str = ".oryx-upload-";

/// Keeps received bytes as `name` in `dir`.
pub fn keep(dir: &Path, name: &str, bytes: &[u8]) -> Result<PathBuf> {
    keep_stream(dir, name, &mut &bytes[..], u64::MAX).map(|(p, _, _)| p)
}

/// Keeps what `body` sends as `name` in `dir`, never more than `limit` bytes (beyond it:
/// `InvalidInput`, and nothing is kept). Written to a temporary file first, so a body cut off
/// half-way leaves nothing under `name`. Also returns the kept file, open and locked: hold it
/// for as long as the file is wanted, so no sweep ([`remove_if_unheld`]) takes it.
pub fn keep_stream(
    dir: &Path,
    name: &str,
    body: &mut dyn Read,
    limit: u64,
) -> Result<(PathBuf, u64, std::fs::File)> {
    let dir = folder(dir)?;
    let path = dir.join(name);
    remove_stale_temps(&dir, UPLOAD_TEMP_PREFIX);
    let mut tmp = locked_temp(&dir, UPLOAD_TEMP_PREFIX)?;
    let n = std::io::copy(&mut body.take(limit.saturating_add(1)), &mut tmp).at(&path)?;
    if n > limit {
        return Err(CoreError::InvalidInput(format!(
            "the upload is larger than the {limit} bytes an archive may have"
        )));
    }
    let held = tmp.persist(&path).map_err(|e| e.error).at(&path)?;
    Ok((path, n, held))
}

/// A new temporary file `prefix…` in `dir`, locked for as long as it stays open, so that
/// [`remove_stale_temps`] tells it from one whose writer died (a process killed half-way
/// cannot remove its own temporary file; its lock goes with it).
pub fn locked_temp(dir: &Path, prefix: &str) -> Result<tempfile::NamedTempFile> {
    loop {
        let tmp = tempfile::Builder::new()
            .prefix(prefix)
            .tempfile_in(dir)
            .at(dir)?;
        if tmp.as_file().try_lock().is_err() {
            continue; // a sweep took it between its creation and our lock: a fresh one
        }
        // A sweep may also have removed it just before the lock: then its name is gone.
        match std::fs::symlink_metadata(tmp.path()) {
            Ok(named) if same_file(&tmp.as_file().metadata().at(tmp.path())?, &named) => {
                return Ok(tmp)
            }
            _ => continue,
        }
    }
}

/// Removes the temporary files `prefix…` in `dir` that no live writer holds (best effort: a
/// file that cannot be read or removed is left).
pub fn remove_stale_temps(dir: &Path, prefix: &str) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        if e.file_name().to_string_lossy().starts_with(prefix) {
            remove_if_unheld(&e.path());
        }
    }
}

/// Removes the console's own file at `path` unless a live process holds its lock; `true` when
/// it was removed.
pub fn remove_if_unheld(path: &Path) -> bool {
    // Only regular files are ours; never opened when something else has the name.
    let Ok(Some(file)) = crate::rooted_fs::open_read(path) else {
        return false;
    };
    if file.try_lock().is_err() {
        return false;
    }
    let still = std::fs::symlink_metadata(path);
    let ours = matches!((file.metadata(), still), (Ok(a), Ok(b)) if same_file(&a, &b));
    ours && std::fs::remove_file(path).is_ok()
}

/// The size of an archive the person picked: a readable regular file.
pub fn picked_size(path: &Path) -> Result<u64> {
    let meta = std::fs::metadata(path).at(path)?;
    if !meta.is_file() {
        return Err(CoreError::InvalidInput(format!(
            "{} is not a file: choose an archive (.zip)",
            path.display()
        )));
    }
    Ok(meta.len())
}

/// An archive the person picked, opened for sending, with its file name.
pub fn open_upload(path: &Path) -> Result<(std::fs::File, String)> {
    picked_size(path)?;
    let file = std::fs::File::open(path).at(path)?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "archive.zip".into());
    Ok((file, name))
}

/// Writes a downloaded archive where the person chose: next to it first, then renamed over,
/// so an interrupted download never leaves half an archive under the chosen name.
pub fn save_download(body: &mut dyn std::io::Read, to: &Path) -> Result<u64> {
    let dir = to
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut tmp = tempfile::Builder::new()
        .prefix(".oryx-download")
        .tempfile_in(dir)
        .at(dir)?;
    let n = std::io::copy(body, &mut tmp).at(to)?;
    tmp.persist(to).map_err(|e| e.error).at(to)?;
    Ok(n)
}

/// [`save_download`] of a file the console staged.
pub fn save_copy(from: &Path, to: &Path) -> Result<u64> {
    let mut file = std::fs::File::open(from).at(from)?;
    save_download(&mut file, to)
}

/// Removes one of the console's own staged files (gone already is fine).
pub fn discard(path: &Path) {
    let _ = std::fs::remove_file(path);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_bytes_are_sized_and_discarded() {
        let dir = tempfile::tempdir().unwrap();
        let staged = dir.path().join("transfers");
        let p = keep(&staged, "u.zip", b"PK..").unwrap();
        assert_eq!(picked_size(&p).unwrap(), 4);
        assert!(matches!(
            picked_size(&staged),
            Err(CoreError::InvalidInput(_))
        ));
        discard(&p);
        discard(&p);
        let to = dir.path().join("saved.zip");
        assert_eq!(save_download(&mut &b"PK.."[..], &to).unwrap(), 4);
        let (_, name) = open_upload(&to).unwrap();
        assert_eq!(name, "saved.zip");
        assert!(open_upload(&staged).is_err());
        assert!(picked_size(&p).is_err());
    }

    #[test]
    fn a_stream_is_kept_only_whole_and_within_its_limit() {
        let dir = tempfile::tempdir().unwrap();
        let (p, n, _held) = keep_stream(dir.path(), "u.zip", &mut &b"PK.."[..], 4).unwrap();
        assert_eq!((n, std::fs::read(&p).unwrap()), (4, b"PK..".to_vec()));
        let err = keep_stream(dir.path(), "big.zip", &mut &b"PK..."[..], 4).unwrap_err();
        assert!(matches!(err, CoreError::InvalidInput(_)), "{err}");
        // A body that breaks off half-way.
        let mut cut = std::io::Read::chain(&b"PK"[..], Broken);
        assert!(keep_stream(dir.path(), "cut.zip", &mut cut, 100).is_err());
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("u.zip")]);
    }

    struct Broken;

    impl Read for Broken {
        fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
            Err(std::io::Error::other("connection reset"))
        }
    }
}
