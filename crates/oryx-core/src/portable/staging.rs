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
        assert!(picked_size(&p).is_err());
    }
}
