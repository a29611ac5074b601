//! The console's own folder for archives on their way out or in (the app's export and import):
//! an export is written here before the host saves it where the person says; an upload waits
//! here for its import. Only the console's files are removed, never a file the person picked.

use std::path::{Path, PathBuf};

use crate::error::{CoreError, IoContext, Result};

/// The folder, created when missing.
pub fn folder(dir: &Path) -> Result<PathBuf> {
    std::fs::create_dir_all(dir).at(dir)?;
    Ok(dir.to_path_buf())
}

/// Keeps received bytes as `name` in `dir`.
pub fn keep(dir: &Path, name: &str, bytes: &[u8]) -> Result<PathBuf> {
    let path = folder(dir)?.join(name);
    std::fs::write(&path, bytes).at(&path)?;
    Ok(path)
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
}
