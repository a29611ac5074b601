//! Files reached from the root: what is opened is what was checked.
//!
//! A path checked and then opened by name can be swapped for a link in between, and opening a
//! FIFO for reading waits for a writer, forever. So:
//! - memory files (and their locks and temp files) are reached from the root one component at
//!   a time, each relative to the directory already opened and never following a link
//!   (`openat` + `O_NOFOLLOW`): a link anywhere below the root is refused whenever it appears;
//! - other files (AGENT.md, SKILL.md, bootstrap files, where links inside the root are normal:
//!   skills are links) are opened, then the opened file must be the one the path resolves to
//!   inside the root (same device and inode);
//! - every open is non-blocking and followed by `fstat`: anything but a regular file is an error
//!   naming the path and what it is, never a hang.
//!
//! The root itself may be a link (`~/.oryxos` pointing at a data disk): it is used as named.
//!
//! What a write accepts as a root: an existing directory that is empty or already holds one of
//! [`ROOT_MARKERS`](crate::root::ROOT_MARKERS). A missing path is never created on the way (a mistyped `--root` used to
//! grow a whole tree), and a directory that holds other things (`/`, a home directory given by
//! mistake) is refused; making a root is explicit ([`create_root`]: `oryx demo`, `--create-root`).

use std::ffi::OsStr;
use std::fs::File;
use std::path::{Path, PathBuf};

use crate::error::{CoreError, IoContext, Result};
use crate::names;
use crate::root::ROOT_MARKERS;

/// How a file below an opened directory is opened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    Read,
    /// Appends to a file that must exist.
    Append,
    /// Read and write, created when missing (lock files).
    ReadWriteCreate,
    /// Read, and append to a file that must exist (MEMORY.md: appends go to the version read).
    ReadAppend,
    /// Read and append, created when missing (the write journal beside MEMORY.md).
    ReadAppendCreate,
}

/// Why `root` cannot be written to as it stands (`None`: it can). Cheap enough to poll.
pub fn root_problem(root: &Path) -> Option<String> {
    let dir = match Dir::root(root) {
        Ok(d) => d,
        Err(e) => return Some(e.to_string()),
    };
    dir.check_writable_root().err().map(|e| e.to_string())
}

/// Makes `root` a root on purpose: the folder (and missing parents) and its `agents/`, which
/// marks it as a root from then on.
pub fn create_root(root: &Path) -> Result<()> {
    let agents = names::agents_dir(root);
    std::fs::create_dir_all(&agents).at(&agents)
}

/// The directory holding a memory file (`<root>/memory`, `<root>/agents/<name>`), reached from
/// the root without following links. `None` when it does not exist and `create` is false; with
/// `create`, the root must be a writable root and the directories below it are made.
pub fn memory_dir(file: &Path, create: bool) -> Result<Option<(Dir, &OsStr)>> {
    let name = file.file_name().ok_or_else(|| {
        CoreError::InvalidInput(format!("{} does not name a file", file.display()))
    })?;
    let parent = file
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    // A path outside the memory layout is opened below its own directory.
    let (root, below) = names::memory_dir_parts(parent).unwrap_or((parent, Vec::new()));
    let mut dir = Dir::root(root)?;
    if create {
        dir.check_writable_root()?;
    }
    for component in below {
        match dir.child_dir(component, create)? {
            Some(d) => dir = d,
            None => return Ok(None),
        }
    }
    Ok(Some((dir, name)))
}

/// One piece of a file being rewritten: a byte range of the old file, or new bytes.
#[derive(Debug, Clone)]
pub enum Piece<'a> {
    Keep(std::ops::Range<usize>),
    Bytes(&'a [u8]),
}

/// A memory file (or its lock) opened without following links; `None` when it does not exist.
pub fn open_memory(file: &Path, access: Access) -> Result<Option<File>> {
    let create = matches!(access, Access::ReadWriteCreate | Access::ReadAppendCreate);
    let Some((dir, name)) = memory_dir(file, create)? else {
        return Ok(None);
    };
    dir.open(name, access)
}

/// The bytes of a memory file; empty when it does not exist (an error when the root does not).
pub fn read_memory(file: &Path) -> Result<Vec<u8>> {
    let Some(f) = open_memory(file, Access::Read)? else {
        return Ok(Vec::new());
    };
    read_whole(f).at(file)
}

/// Below this many bytes a file is read on one thread.
const READ_PARALLEL_FROM: u64 = 8 << 20;

/// All of `f` from its start: a large file in parts read at once, one per core (the copy out
/// of the page cache and the faults of the memory it lands in are most of a read, and divide:
/// a 100 MB MEMORY.md in ~30 ms instead of ~50), then whatever was appended meanwhile.
fn read_whole(mut f: File) -> std::io::Result<Vec<u8>> {
    use std::io::{Read, Seek};
    let len = f.metadata()?.len();
    let mut bytes = Vec::new();
    #[cfg(unix)]
    if let Some(threads) = (len >= READ_PARALLEL_FROM)
        .then(crate::cores::cores)
        .filter(|&t| t > 1)
    {
        if let Ok(len) = usize::try_from(len) {
            bytes = vec![0; len];
            if read_parts_at(&f, &mut bytes, threads).is_ok() {
                f.seek(std::io::SeekFrom::Start(len as u64))?;
                f.read_to_end(&mut bytes)?;
                return Ok(bytes);
            }
            // Cut short meanwhile (rewritten in place): read again as it is now.
            bytes.clear();
            f.rewind()?;
        }
    }
    f.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Fills `buf` from the start of `f`, `threads` parts at once.
#[cfg(unix)]
fn read_parts_at(f: &File, buf: &mut [u8], threads: usize) -> std::io::Result<()> {
    use std::os::unix::fs::FileExt;
    let size = buf.len().div_ceil(threads);
    std::thread::scope(|s| {
        let parts: Vec<_> = buf
            .chunks_mut(size)
            .enumerate()
            .map(|(k, part)| s.spawn(move || f.read_exact_at(part, (k * size) as u64)))
            .collect();
        parts
            .into_iter()
            .try_for_each(|p| p.join().expect("a read thread panicked"))
    })
}

/// Opens a file for reading without blocking on a FIFO, following links (for files outside the
/// root's rules: settings); `None` when it does not exist.
pub fn open_read(path: &Path) -> Result<Option<File>> {
    sys::open_read(path)
}

/// `open_read` of a file under `root` that must stay there: the file opened must be the one the
/// path resolves to inside the root, so a link swapped in after any check is caught.
pub fn open_read_inside(root: &Path, path: &Path) -> Result<Option<File>> {
    let Some(file) = open_read(path)? else {
        return Ok(None);
    };
    let outside = || CoreError::OutsideRoot(path.to_path_buf());
    let real_root = root.canonicalize().at(root)?;
    let real = path.canonicalize().map_err(|_| outside())?;
    if !real.starts_with(&real_root) {
        return Err(outside());
    }
    let opened = file.metadata().at(path)?;
    let named = std::fs::metadata(&real).at(&real)?;
    if !same_file(&opened, &named) {
        return Err(outside());
    }
    Ok(Some(file))
}

/// The kind of a non-regular file, in words.
fn kind_name(ft: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if ft.is_fifo() {
            return "FIFO (named pipe)";
        }
        if ft.is_socket() {
            return "socket";
        }
        if ft.is_char_device() {
            return "character device";
        }
        if ft.is_block_device() {
            return "block device";
        }
    }
    if ft.is_dir() {
        "directory"
    } else if ft.is_symlink() {
        "symbolic link"
    } else {
        "special file"
    }
}

/// Refuses anything but a regular file (what `fstat` of an opened file said).
pub fn require_regular(path: &Path, meta: &std::fs::Metadata) -> Result<()> {
    if meta.file_type().is_file() {
        Ok(())
    } else {
        Err(CoreError::NotRegularFile {
            path: path.to_path_buf(),
            kind: kind_name(meta.file_type()),
        })
    }
}

/// For paths that can only be opened by name (SQLite): refuse a FIFO, socket or device before
/// the library blocks on it. Links are followed (the database may live anywhere).
pub fn require_regular_if_exists(path: &Path) -> Result<bool> {
    match std::fs::metadata(path) {
        Ok(m) => require_regular(path, &m).map(|_| true),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(CoreError::io(path, e)),
    }
}

/// Whether two metadata name the same file (device and inode where there are such).
#[cfg(unix)]
pub(crate) fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    (a.dev(), a.ino()) == (b.dev(), b.ino())
}

#[cfg(not(unix))]
pub(crate) fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    a.len() == b.len() && a.modified().ok() == b.modified().ok()
}

/// A directory opened at or below the root.
pub struct Dir {
    path: PathBuf,
    #[cfg(unix)]
    fd: std::os::fd::OwnedFd,
}

impl Dir {
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Opens the root as named (a link naming the root is followed).
    pub fn root(root: &Path) -> Result<Dir> {
        sys::open_root(root)
    }

    /// A write needs a root: an existing directory that holds a root's entry or nothing.
    pub fn check_writable_root(&self) -> Result<()> {
        let marked = || ROOT_MARKERS.iter().any(|m| self.has_entry(OsStr::new(m)));
        if marked() {
            return Ok(());
        }
        let empty = std::fs::read_dir(&self.path)
            .at(&self.path)?
            .next()
            .is_none();
        // Asked again: a concurrent first write may have made `agents/` between the two looks.
        if empty || marked() {
            return Ok(());
        }
        Err(CoreError::NotARoot {
            path: self.path.clone(),
            why: format!(
                "it is not empty and holds none of {}; give the right root, or create a root \
                 there on purpose (--create-root)",
                ROOT_MARKERS.join(", ")
            ),
        })
    }

    fn child_path(&self, name: &OsStr) -> PathBuf {
        self.path.join(name)
    }

    /// Writes `bytes` to a new temp file in this directory and renames it over `name` (readers
    /// see the old or the new file). `before_rename` may veto the rename (then `Ok(false)` and
    /// the temp file is removed). The new file takes `name`'s permissions when it exists.
    pub fn replace(
        &self,
        name: &OsStr,
        bytes: &[u8],
        before_rename: impl FnOnce() -> bool,
    ) -> Result<bool> {
        let staged = self.stage(name, bytes)?;
        if !before_rename() {
            return Ok(false); // the temp file is removed when dropped
        }
        staged.rename_over()?;
        Ok(true)
    }

    /// `bytes` in a new temp file beside `name`, synced, with `name`'s permissions; the caller
    /// then decides how it takes `name`'s place (dropped unused, it is removed).
    pub fn stage(&self, name: &OsStr, bytes: &[u8]) -> Result<Staged<'_>> {
        self.stage_parts(name, &[bytes])
    }

    /// A new temp file made of `pieces`: ranges of `src` (copied by the kernel, as `cp` does)
    /// and bytes of our own; then as [`Self::stage`].
    pub fn stage_pieces(
        &self,
        name: &OsStr,
        src: &File,
        pieces: &[Piece<'_>],
    ) -> Result<Staged<'_>> {
        use std::io::{Read, Seek, SeekFrom, Write};
        let target = self.child_path(name);
        let mut tmp = self.temp_file(name)?;
        let mut src = src;
        for piece in pieces {
            match piece {
                Piece::Keep(range) if range.is_empty() => {}
                Piece::Keep(range) => {
                    src.seek(SeekFrom::Start(range.start as u64)).at(&target)?;
                    let want = (range.end - range.start) as u64;
                    let copied =
                        std::io::copy(&mut Read::take(src, want), &mut tmp.file).at(&target)?;
                    if copied != want {
                        return Err(CoreError::Conflict(format!(
                            "{} changed while it was being rewritten; nothing was changed",
                            target.display()
                        )));
                    }
                }
                Piece::Bytes(b) => tmp.file.write_all(b).at(&target)?,
            }
        }
        tmp.file.sync_all().at(&target)?;
        if let Some(perms) = self.permissions_of(name) {
            let _ = tmp.file.set_permissions(perms);
        }
        Ok(Staged {
            tmp,
            name: name.to_os_string(),
            target,
        })
    }

    /// [`Self::stage`] of the concatenation of `parts` (a large file rewritten around a few
    /// splices is written from its old bytes, never copied whole in memory).
    pub fn stage_parts(&self, name: &OsStr, parts: &[&[u8]]) -> Result<Staged<'_>> {
        use std::io::Write;
        let target = self.child_path(name);
        let mut tmp = self.temp_file(name)?;
        for part in parts {
            tmp.file.write_all(part).at(&target)?;
        }
        tmp.file.sync_all().at(&target)?;
        if let Some(perms) = self.permissions_of(name) {
            let _ = tmp.file.set_permissions(perms);
        }
        Ok(Staged {
            tmp,
            name: name.to_os_string(),
            target,
        })
    }

    fn temp_file(&self, name: &OsStr) -> Result<TempFile<'_>> {
        use std::sync::atomic::{AtomicU64, Ordering};
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        loop {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.subsec_nanos())
                .unwrap_or(0);
            let mut tmp_name = std::ffi::OsString::from(".");
            tmp_name.push(name);
            tmp_name.push(format!(
                ".{}{:x}{:x}.tmp",
                std::process::id(),
                nanos,
                COUNTER.fetch_add(1, Ordering::Relaxed)
            ));
            match self.create_new(&tmp_name) {
                Ok(file) => {
                    return Ok(TempFile {
                        dir: self,
                        name: tmp_name,
                        file,
                        persisted: false,
                    })
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(CoreError::io(self.child_path(&tmp_name), e)),
            }
        }
    }
}

/// New contents waiting beside the file they are to replace, in the same checked directory.
pub struct Staged<'a> {
    tmp: TempFile<'a>,
    name: std::ffi::OsString,
    target: PathBuf,
}

impl Staged<'_> {
    /// The staged file (its metadata identifies the version that will be in place).
    pub fn file(&self) -> &File {
        &self.tmp.file
    }

    /// Renames the staged file over the target, whatever is there now.
    pub fn rename_over(mut self) -> Result<()> {
        self.tmp
            .dir
            .rename(&self.tmp.name, &self.name)
            .at(&self.target)?;
        self.tmp.persisted = true;
        Ok(())
    }

    /// Renames into place only if nothing has the target's name: `Ok(true)` done, an
    /// `AlreadyExists` error when something does, `Ok(false)` when this system cannot tell.
    pub fn rename_if_absent(&mut self) -> std::io::Result<bool> {
        let done = self
            .tmp
            .dir
            .rename_with(&self.tmp.name, &self.name, RenameMode::NoReplace)?;
        self.tmp.persisted |= done;
        Ok(done)
    }

    /// Swaps the staged file with the target atomically: `Ok(true)` done (the temp name then
    /// holds the file we displaced, see [`Staged::displaced`]; it is removed on drop), a
    /// `NotFound` error when the target is gone, `Ok(false)` when this system cannot swap.
    pub fn exchange(&mut self) -> std::io::Result<bool> {
        self.tmp
            .dir
            .rename_with(&self.tmp.name, &self.name, RenameMode::Exchange)
    }

    /// After [`Staged::exchange`]: the file it displaced, opened for reading.
    pub fn displaced(&self) -> Result<File> {
        self.tmp
            .dir
            .open(&self.tmp.name, Access::Read)?
            .ok_or_else(|| {
                CoreError::io(
                    &self.target,
                    std::io::Error::other("the displaced file vanished"),
                )
            })
    }
}

#[derive(Clone, Copy)]
pub(crate) enum RenameMode {
    NoReplace,
    Exchange,
}

/// A temp file in a checked directory, removed unless renamed into place.
struct TempFile<'a> {
    dir: &'a Dir,
    name: std::ffi::OsString,
    file: File,
    persisted: bool,
}

impl Drop for TempFile<'_> {
    fn drop(&mut self) {
        if !self.persisted {
            let _ = self.dir.remove(&self.name);
        }
    }
}

#[cfg(unix)]
mod sys {
    use std::ffi::OsStr;
    use std::fs::File;
    use std::os::fd::OwnedFd;
    use std::path::Path;

    use rustix::fs::{self as rfs, AtFlags, Mode, OFlags, CWD};
    use rustix::io::Errno;

    use super::{Access, Dir};
    use crate::error::{CoreError, IoContext, Result};

    const BASE: OFlags = OFlags::CLOEXEC.union(OFlags::NOCTTY);

    pub fn open_root(root: &Path) -> Result<Dir> {
        let flags = BASE | OFlags::RDONLY | OFlags::DIRECTORY;
        match rfs::openat(CWD, root, flags, Mode::empty()) {
            Ok(fd) => Ok(Dir {
                path: root.to_path_buf(),
                fd,
            }),
            Err(Errno::NOENT) => Err(CoreError::RootMissing(root.to_path_buf())),
            Err(Errno::NOTDIR) => Err(crate::root::not_a_folder(root)),
            Err(e) => Err(CoreError::io(root, e.into())),
        }
    }

    pub fn open_read(path: &Path) -> Result<Option<File>> {
        let flags = BASE | OFlags::RDONLY | OFlags::NONBLOCK;
        match rfs::openat(CWD, path, flags, Mode::empty()) {
            Ok(fd) => regular(fd, path).map(Some),
            Err(Errno::NOENT) => Ok(None),
            Err(Errno::NXIO) => Err(refused_by_kind(path)),
            Err(e) => Err(CoreError::io(path, e.into())),
        }
    }

    /// `fstat` says a regular file: hand it out blocking again.
    fn regular(fd: OwnedFd, path: &Path) -> Result<File> {
        let file = File::from(fd);
        let meta = file.metadata().at(path)?;
        super::require_regular(path, &meta)?;
        let flags = rfs::fcntl_getfl(&file).map_err(|e| CoreError::io(path, e.into()))?;
        rfs::fcntl_setfl(&file, flags - OFlags::NONBLOCK)
            .map_err(|e| CoreError::io(path, e.into()))?;
        Ok(file)
    }

    /// What an entry is when opening it failed because of its kind (a link under O_NOFOLLOW, a
    /// socket, a FIFO without a reader).
    fn refused_by_kind(path: &Path) -> CoreError {
        match std::fs::symlink_metadata(path) {
            Ok(m) if !m.is_file() => CoreError::NotRegularFile {
                path: path.to_path_buf(),
                kind: super::kind_name(m.file_type()),
            },
            _ => CoreError::io(
                path,
                std::io::Error::other("cannot be opened as a regular file"),
            ),
        }
    }

    impl Dir {
        /// Whether anything (a link included, not followed) has `name` in this directory.
        pub fn has_entry(&self, name: &OsStr) -> bool {
            rfs::statat(&self.fd, name, AtFlags::SYMLINK_NOFOLLOW).is_ok()
        }

        /// A directory below this one, never through a link; made first when `create`.
        pub fn child_dir(&self, name: &OsStr, create: bool) -> Result<Option<Dir>> {
            let path = self.child_path(name);
            if create {
                match rfs::mkdirat(&self.fd, name, Mode::from_raw_mode(0o777)) {
                    Ok(()) | Err(Errno::EXIST) => {}
                    Err(e) => return Err(CoreError::io(&path, e.into())),
                }
            }
            let flags = BASE | OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW;
            match rfs::openat(&self.fd, name, flags, Mode::empty()) {
                Ok(fd) => Ok(Some(Dir { path, fd })),
                Err(Errno::NOENT) => Ok(None),
                Err(Errno::NOTDIR) if self.is_regular(name) => Err(CoreError::InvalidInput(
                    format!("{} is a file where a folder belongs", path.display()),
                )),
                Err(e @ (Errno::LOOP | Errno::NOTDIR)) => Err(self.refused(name, e)),
                Err(e) => Err(CoreError::io(&path, e.into())),
            }
        }

        fn is_regular(&self, name: &OsStr) -> bool {
            rfs::statat(&self.fd, name, AtFlags::SYMLINK_NOFOLLOW).is_ok_and(|st| {
                rfs::FileType::from_raw_mode(st.st_mode as _) == rfs::FileType::RegularFile
            })
        }

        /// Makes `name` a symbolic link to `target` in this directory; `Ok(false)` when
        /// something has that name already (left as it is).
        pub fn symlink(&self, name: &OsStr, target: &OsStr) -> Result<bool> {
            match rfs::symlinkat(target, &self.fd, name) {
                Ok(()) => Ok(true),
                Err(Errno::EXIST) => Ok(false),
                Err(e) => Err(CoreError::io(self.child_path(name), e.into())),
            }
        }

        /// Removes the empty directory `name` (one this process made and left unused).
        pub fn remove_dir(&self, name: &OsStr) -> Result<()> {
            rfs::unlinkat(&self.fd, name, AtFlags::REMOVEDIR)
                .map_err(|e| CoreError::io(self.child_path(name), e.into()))
        }

        /// A file in this directory, never through a link and never blocking; `None` when it
        /// does not exist (and `access` does not create it).
        pub fn open(&self, name: &OsStr, access: Access) -> Result<Option<File>> {
            let path = self.child_path(name);
            let how = match access {
                Access::Read => OFlags::RDONLY,
                Access::Append => OFlags::WRONLY | OFlags::APPEND,
                Access::ReadWriteCreate => OFlags::RDWR | OFlags::CREATE,
                Access::ReadAppend => OFlags::RDWR | OFlags::APPEND,
                Access::ReadAppendCreate => OFlags::RDWR | OFlags::APPEND | OFlags::CREATE,
            };
            let flags = BASE | how | OFlags::NOFOLLOW | OFlags::NONBLOCK;
            match rfs::openat(&self.fd, name, flags, Mode::from_raw_mode(0o666)) {
                Ok(fd) => regular(fd, &path).map(Some),
                Err(Errno::NOENT) => Ok(None),
                Err(e @ (Errno::LOOP | Errno::NXIO | Errno::ISDIR)) => Err(self.refused(name, e)),
                Err(e) => Err(CoreError::io(&path, e.into())),
            }
        }

        /// What the entry `name` is, as an error (opening it failed with `errno` because of
        /// its kind).
        fn refused(&self, name: &OsStr, errno: Errno) -> CoreError {
            let path = self.child_path(name);
            if errno == Errno::LOOP {
                // Under O_NOFOLLOW: a link was there when we opened, whatever is there now.
                return CoreError::NotRegularFile {
                    path,
                    kind: "symbolic link",
                };
            }
            match rfs::statat(&self.fd, name, AtFlags::SYMLINK_NOFOLLOW) {
                Ok(st) => {
                    let kind = match rfs::FileType::from_raw_mode(st.st_mode as _) {
                        rfs::FileType::Symlink => "symbolic link",
                        rfs::FileType::Fifo => "FIFO (named pipe)",
                        rfs::FileType::Socket => "socket",
                        rfs::FileType::CharacterDevice => "character device",
                        rfs::FileType::BlockDevice => "block device",
                        rfs::FileType::Directory => "directory",
                        rfs::FileType::RegularFile => {
                            return CoreError::Conflict(format!(
                                "{} was replaced while it was being opened; nothing was done, \
                                 try again",
                                path.display()
                            ))
                        }
                        _ => "special file",
                    };
                    CoreError::NotRegularFile { path, kind }
                }
                Err(e) => CoreError::io(path, e.into()),
            }
        }

        pub(super) fn create_new(&self, name: &OsStr) -> std::io::Result<File> {
            let flags = BASE | OFlags::RDWR | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW;
            let fd = rfs::openat(&self.fd, name, flags, Mode::from_raw_mode(0o600))?;
            Ok(File::from(fd))
        }

        pub(super) fn permissions_of(&self, name: &OsStr) -> Option<std::fs::Permissions> {
            use std::os::unix::fs::PermissionsExt;
            let st = rfs::statat(&self.fd, name, AtFlags::SYMLINK_NOFOLLOW).ok()?;
            Some(std::fs::Permissions::from_mode(st.st_mode as u32 & 0o7777))
        }

        pub(super) fn rename(&self, from: &OsStr, to: &OsStr) -> std::io::Result<()> {
            Ok(rfs::renameat(&self.fd, from, &self.fd, to)?)
        }

        /// `renameat2` with NOREPLACE or EXCHANGE; `Ok(false)` when the system or file system
        /// cannot do it.
        #[cfg(target_os = "linux")]
        pub(super) fn rename_with(
            &self,
            from: &OsStr,
            to: &OsStr,
            mode: super::RenameMode,
        ) -> std::io::Result<bool> {
            let flags = match mode {
                super::RenameMode::NoReplace => rfs::RenameFlags::NOREPLACE,
                super::RenameMode::Exchange => rfs::RenameFlags::EXCHANGE,
            };
            match rfs::renameat_with(&self.fd, from, &self.fd, to, flags) {
                Ok(()) => Ok(true),
                Err(Errno::INVAL | Errno::NOSYS | Errno::OPNOTSUPP) => Ok(false),
                Err(e) => Err(e.into()),
            }
        }

        #[cfg(not(target_os = "linux"))]
        pub(super) fn rename_with(
            &self,
            _from: &OsStr,
            _to: &OsStr,
            _mode: super::RenameMode,
        ) -> std::io::Result<bool> {
            Ok(false)
        }

        pub(super) fn remove(&self, name: &OsStr) -> std::io::Result<()> {
            Ok(rfs::unlinkat(&self.fd, name, AtFlags::empty())?)
        }
    }
}

/// Without `openat` the checks fall back to paths: the type checks still hold, the link checks
/// are only as good as `symlink_metadata` just before the open.
#[cfg(not(unix))]
mod sys {
    use std::ffi::OsStr;
    use std::fs::{File, OpenOptions};
    use std::path::Path;

    use super::{Access, Dir};
    use crate::error::{CoreError, IoContext, Result};

    pub fn open_root(root: &Path) -> Result<Dir> {
        crate::root::require_root(root)?;
        Ok(Dir {
            path: root.to_path_buf(),
        })
    }

    pub fn open_read(path: &Path) -> Result<Option<File>> {
        match std::fs::metadata(path) {
            Ok(m) => super::require_regular(path, &m)?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(CoreError::io(path, e)),
        }
        File::open(path).map(Some).at(path)
    }

    impl Dir {
        pub fn has_entry(&self, name: &OsStr) -> bool {
            std::fs::symlink_metadata(self.child_path(name)).is_ok()
        }

        /// Links are not made without `openat`: `Ok(false)`, as if the name were taken.
        pub fn symlink(&self, _name: &OsStr, _target: &OsStr) -> Result<bool> {
            Ok(false)
        }

        pub fn remove_dir(&self, name: &OsStr) -> Result<()> {
            let path = self.child_path(name);
            std::fs::remove_dir(&path).at(&path)
        }

        pub fn child_dir(&self, name: &OsStr, create: bool) -> Result<Option<Dir>> {
            let path = self.child_path(name);
            if create {
                match std::fs::create_dir(&path) {
                    Ok(()) => {}
                    Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                    Err(e) => return Err(CoreError::io(&path, e)),
                }
            }
            match std::fs::symlink_metadata(&path) {
                Ok(m) if m.is_dir() => Ok(Some(Dir { path })),
                Ok(m) => Err(CoreError::NotRegularFile {
                    kind: super::kind_name(m.file_type()),
                    path,
                }),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
                Err(e) => Err(CoreError::io(&path, e)),
            }
        }

        pub fn open(&self, name: &OsStr, access: Access) -> Result<Option<File>> {
            let path = self.child_path(name);
            match std::fs::symlink_metadata(&path) {
                Ok(m) => super::require_regular(&path, &m)?,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    if access != Access::ReadWriteCreate {
                        return Ok(None);
                    }
                }
                Err(e) => return Err(CoreError::io(&path, e)),
            }
            let mut o = OpenOptions::new();
            match access {
                Access::Read => o.read(true),
                Access::Append => o.append(true),
                Access::ReadWriteCreate => o.read(true).write(true).create(true).truncate(false),
                Access::ReadAppend => o.read(true).append(true),
                Access::ReadAppendCreate => o.read(true).append(true).create(true),
            };
            o.open(&path).map(Some).at(&path)
        }

        pub(super) fn create_new(&self, name: &OsStr) -> std::io::Result<File> {
            OpenOptions::new()
                .read(true)
                .write(true)
                .create_new(true)
                .open(self.child_path(name))
        }

        pub(super) fn permissions_of(&self, name: &OsStr) -> Option<std::fs::Permissions> {
            Some(std::fs::metadata(self.child_path(name)).ok()?.permissions())
        }

        pub(super) fn rename(&self, from: &OsStr, to: &OsStr) -> std::io::Result<()> {
            std::fs::rename(self.child_path(from), self.child_path(to))
        }

        pub(super) fn rename_with(
            &self,
            _from: &OsStr,
            _to: &OsStr,
            _mode: super::RenameMode,
        ) -> std::io::Result<bool> {
            Ok(false)
        }

        pub(super) fn remove(&self, name: &OsStr) -> std::io::Result<()> {
            std::fs::remove_file(self.child_path(name))
        }
    }
}

/// Helpers for tests of hostile files (here and in the crates above), not for production use.
#[doc(hidden)]
pub mod test_support {
    use std::path::Path;
    use std::time::Duration;

    /// How long an operation on a hostile file may take before the test calls it hung.
    pub const DEADLINE: Duration = Duration::from_secs(20);

    /// Makes a FIFO at `path` (with the system's `mkfifo`, which every Unix has).
    #[cfg(unix)]
    pub fn mkfifo(path: &Path) {
        let status = std::process::Command::new("mkfifo")
            .arg(path)
            .status()
            .expect("run mkfifo");
        assert!(status.success(), "mkfifo {}", path.display());
    }

    /// Runs `f` on its own thread and returns what it returned, or panics when it has not
    /// finished within [`DEADLINE`] (the thread is left blocked: a regression fails the test
    /// instead of hanging the suite).
    pub fn within_deadline<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(f());
        });
        match rx.recv_timeout(DEADLINE) {
            Ok(v) => v,
            Err(_) => panic!("the operation did not finish within {DEADLINE:?}: it hangs"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_large_file_is_read_whole_in_parts() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("MEMORY.md");
        let bytes: Vec<u8> = (0..READ_PARALLEL_FROM as usize + 12_345)
            .map(|i| (i * 7 % 251) as u8)
            .collect();
        std::fs::write(&path, &bytes).unwrap();
        assert_eq!(read_whole(File::open(&path).unwrap()).unwrap(), bytes);
        std::fs::write(&path, &bytes[..100]).unwrap();
        assert_eq!(
            read_whole(File::open(&path).unwrap()).unwrap(),
            &bytes[..100]
        );
        std::fs::write(&path, &bytes).unwrap();
        #[cfg(unix)]
        for threads in [1, 2, 3, 5] {
            let mut got = vec![0; bytes.len()];
            read_parts_at(&File::open(&path).unwrap(), &mut got, threads).unwrap();
            assert!(got == bytes, "{threads} parts");
            // A file shorter than the parts expect (cut meanwhile) is an error, not a short read.
            let mut longer = vec![0; bytes.len() + 1];
            assert!(read_parts_at(&File::open(&path).unwrap(), &mut longer, threads).is_err());
        }
    }
}
