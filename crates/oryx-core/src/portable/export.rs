//! Writing an archive: streamed member by member into a temporary file beside the target,
//! renamed into place when complete (a cancelled or failed export leaves nothing behind; one
//! killed outright leaves its temporary file, which the next export in that folder removes).

use std::cell::Cell;
use std::fs::File;
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};

use sha2::Digest;
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipWriter};

use super::{
    owner_key, staging, EntryLine, FileManifest, LinkManifest, Manifest, OwnerManifest, Progress,
    FORMAT, VERSION,
};
use crate::error::{CoreError, IoContext, Result};
use crate::memory::history::history_path;
use crate::memory::{LongTermMemoryStore, Scope};
use crate::names::{self, Owner};
use crate::rooted_fs;
use crate::sessions::SessionStore;
use crate::timefmt::{format_entry_ts, now_local};

pub struct ExportOptions {
    /// The owners to export (agents, and `Owner::Global` for the root's global memory).
    pub owners: Vec<Owner>,
    /// Also the agents' sessions (for reading; never imported into a runtime's database).
    pub sessions: bool,
    /// Also the console's history sidecars (`MEMORY.md.oryx-history`). Off unless asked: the
    /// history keeps the text of every entry the console deleted or rewrote, which the person
    /// removed on purpose and would not expect to travel in an archive.
    pub include_history: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExportReport {
    pub path: String,
    pub bytes: u64,
    pub owners: Vec<OwnerManifest>,
    pub files: usize,
    pub sessions: usize,
    /// Whether the console's history sidecars are in the archive.
    pub history: bool,
}

use serde::Serialize;

/// The prefix of an export's temporary file, beside the archive it becomes.
pub const TEMP_PREFIX: &str = ".oryx-export-";

/// The archive file under the zip writer. Once the export has failed (the first failed write or
/// seek, or the writer dropped unfinished), writes are dropped: the zip writer's `Drop` then
/// finalises into nothing, instead of writing a central directory to a full disk and printing
/// its failure on stderr. Every failure still reaches the export as its error.
struct Sink {
    file: BufWriter<File>,
    discard: Rc<Cell<bool>>,
    /// Where the writer believes it is once discarding.
    pos: u64,
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.discard.get() {
            self.pos += buf.len() as u64;
            return Ok(buf.len());
        }
        self.file.write(buf).inspect_err(|_| self.discard.set(true))
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if self.discard.get() {
            return Ok(());
        }
        self.file.flush().inspect_err(|_| self.discard.set(true))
    }
}

impl Seek for Sink {
    fn seek(&mut self, to: SeekFrom) -> std::io::Result<u64> {
        if !self.discard.get() {
            self.pos = self.file.seek(to).inspect_err(|_| self.discard.set(true))?;
            return Ok(self.pos);
        }
        self.pos = match to {
            SeekFrom::Start(n) => n,
            SeekFrom::Current(d) | SeekFrom::End(d) => self.pos.saturating_add_signed(d),
        };
        Ok(self.pos)
    }
}

struct Writer<'a> {
    /// `None` once finished.
    zip: Option<ZipWriter<Sink>>,
    discard: Rc<Cell<bool>>,
    files: Vec<FileManifest>,
    root: &'a Path,
    /// The archive as the person named it (errors name it, not the temporary file).
    out: &'a Path,
}

impl Drop for Writer<'_> {
    fn drop(&mut self) {
        // Not finished: the export failed or was cancelled, and its temporary file goes.
        self.discard.set(true);
    }
}

fn opts() -> SimpleFileOptions {
    SimpleFileOptions::default()
        .compression_method(CompressionMethod::Deflated)
        .compression_level(Some(1))
        .large_file(false)
}

impl Writer<'_> {
    fn zip(&mut self) -> &mut ZipWriter<Sink> {
        self.zip.as_mut().expect("the archive is still open")
    }

    fn start(&mut self, name: &str, options: SimpleFileOptions) -> Result<()> {
        let out = self.out;
        self.zip()
            .start_file(name, options)
            .map_err(|e| zip_err(out, e))
    }

    fn write(&mut self, data: &[u8]) -> Result<()> {
        let out = self.out;
        self.zip().write_all(data).at(out)
    }

    fn bytes(&mut self, name: &str, data: &[u8]) -> Result<()> {
        self.start(name, opts())?;
        self.write(data)?;
        self.files.push(FileManifest {
            path: name.to_string(),
            bytes: data.len() as u64,
            sha256: super::sha256_hex(data),
        });
        Ok(())
    }

    /// A file of the root, streamed (a MEMORY.md may be 100 MB). It must be the root's own: a
    /// link anywhere on its path that leads out of the root is refused, never packed.
    fn file(&mut self, name: &str, path: &Path, cancel: &AtomicBool) -> Result<()> {
        let Some(mut f) = rooted_fs::open_read_inside(self.root, path)? else {
            return Ok(()); // gone since it was listed
        };
        let big = f.metadata().at(path)?.len() >= 0xFFFF_FFFF;
        self.start(name, opts().large_file(big))?;
        let mut hash = sha2::Sha256::new();
        let mut buf = vec![0u8; 1 << 20];
        let mut total = 0u64;
        loop {
            if cancel.load(Ordering::Relaxed) {
                return Err(CoreError::Cancelled);
            }
            let n = f.read(&mut buf).at(path)?;
            if n == 0 {
                break;
            }
            hash.update(&buf[..n]);
            self.write(&buf[..n])?;
            total += n as u64;
        }
        self.files.push(FileManifest {
            path: name.to_string(),
            bytes: total,
            sha256: hash.finalize().iter().map(|b| format!("{b:02x}")).collect(),
        });
        Ok(())
    }

    /// Writes the central directory and flushes to disk.
    fn finish(&mut self) -> Result<()> {
        let out = self.out;
        let zip = self.zip.take().expect("the archive is still open");
        let sink = zip.finish().map_err(|e| zip_err(out, e))?;
        let file = sink.file.into_inner().map_err(|e| e.into_error()).at(out)?;
        file.sync_all().at(out)
    }
}

/// A failed write of the archive: the disk's error as an I/O error on the archive.
fn zip_err(out: &Path, e: zip::result::ZipError) -> CoreError {
    match e {
        zip::result::ZipError::Io(e) => CoreError::io(out, e),
        e => CoreError::Corrupt(format!("cannot write the archive {}: {e}", out.display())),
    }
}

/// A regular file (not a link) at `p`.
fn is_plain_file(p: &Path) -> bool {
    std::fs::symlink_metadata(p).is_ok_and(|m| m.is_file())
}

/// Every regular file below `dir`, links not followed, in name order.
fn files_below(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(rd) = std::fs::read_dir(dir) else {
        return out;
    };
    let mut entries: Vec<_> = rd.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.is_file() => out.push(p),
            Ok(m) if m.is_dir() => out.extend(files_below(&p)),
            _ => {}
        }
    }
    out
}

/// The files of the root's skill `s`: `skills/` and `skills/<s>` must be folders of the root
/// (a link there could name any folder of the machine: its files are refused, not packed).
fn skill_files(root: &Path, s: &str) -> Result<Vec<PathBuf>> {
    let skills = root.join("skills");
    let dir = skills.join(s);
    if !dir.is_dir() {
        return Ok(Vec::new());
    }
    let real_root = root.canonicalize().at(root)?;
    for d in [&skills, &dir] {
        let real = d.canonicalize().at(d)?;
        if !real.starts_with(&real_root) {
            return Err(CoreError::OutsideRoot(d.clone()));
        }
    }
    Ok(files_below(&dir))
}

fn rel(root: &Path, p: &Path) -> String {
    p.strip_prefix(root)
        .unwrap_or(p)
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// The archive replaces only a regular file: never a FIFO, a device (`/dev/full`), a
/// directory or a link that happens to have its name.
fn check_target(out: &Path) -> Result<()> {
    match std::fs::symlink_metadata(out) {
        Ok(m) => rooted_fs::require_regular(out, &m),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(CoreError::io(out, e)),
    }
}

pub fn export(
    root: &Path,
    store: &dyn LongTermMemoryStore,
    sessions: Option<&SessionStore>,
    opts_in: &ExportOptions,
    out: &Path,
    cancel: &AtomicBool,
    progress: &mut dyn FnMut(&Progress),
) -> Result<ExportReport> {
    if opts_in.owners.is_empty() {
        return Err(CoreError::InvalidInput(
            "name at least one agent to export".into(),
        ));
    }
    for o in &opts_in.owners {
        if let Owner::Agent(a) = o {
            names::validate_agent_name(a)?;
            if !names::agent_dir(root, a).is_dir() {
                return Err(CoreError::AgentNotFound {
                    name: a.clone(),
                    dir: names::agent_dir(root, a),
                });
            }
        }
    }
    check_target(out)?;
    let dir = out
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    // Temporary files of exports that died (killed, SIGXFSZ) cannot remove themselves.
    staging::remove_stale_temps(dir, TEMP_PREFIX);
    let tmp = staging::locked_temp(dir, TEMP_PREFIX)?;
    let file = tmp.as_file().try_clone().at(tmp.path())?;
    let mut report = write_all(root, store, sessions, opts_in, file, out, cancel, progress)?;
    check_target(out)?;
    tmp.persist(out).map_err(|e| CoreError::Io {
        path: out.to_path_buf(),
        source: e.error,
    })?;
    report.path = out.display().to_string();
    report.bytes = std::fs::metadata(out).at(out)?.len();
    Ok(report)
}

#[allow(clippy::too_many_arguments)]
fn write_all(
    root: &Path,
    store: &dyn LongTermMemoryStore,
    sessions: Option<&SessionStore>,
    o: &ExportOptions,
    file: File,
    out: &Path,
    cancel: &AtomicBool,
    progress: &mut dyn FnMut(&Progress),
) -> Result<ExportReport> {
    let discard = Rc::new(Cell::new(false));
    let sink = Sink {
        file: BufWriter::with_capacity(1 << 20, file),
        discard: discard.clone(),
        pos: 0,
    };
    let mut w = Writer {
        zip: Some(ZipWriter::new(sink)),
        discard,
        files: Vec::new(),
        root,
        out,
    };
    let total = o.owners.len() as u64;
    let mut owners = Vec::new();
    let mut links = Vec::new();
    let mut bootstrap: Vec<String> = Vec::new();
    let mut skills: Vec<String> = Vec::new();
    let mut session_count = 0;
    for (i, owner) in o.owners.iter().enumerate() {
        if cancel.load(Ordering::Relaxed) {
            return Err(CoreError::Cancelled);
        }
        let key = owner_key(owner);
        progress(&Progress {
            stage: format!("memory of {}", owner.label()),
            done: i as u64,
            total,
        });
        let all = store.load_all(owner)?;
        let mut jsonl = Vec::new();
        for (scope, list) in [(Scope::Core, &all.core), (Scope::Archival, &all.archival)] {
            for e in list {
                let line = EntryLine {
                    owner: key.clone(),
                    scope,
                    timestamp: e.timestamp.as_ref().map(format_entry_ts),
                    content: e.content.clone(),
                };
                serde_json::to_writer(&mut jsonl, &line).expect("an entry serialises");
                jsonl.push(b'\n');
            }
        }
        owners.push(super::OwnerManifest {
            owner: key.clone(),
            core: all.core.len(),
            archival: all.archival.len(),
        });
        drop(all);
        w.bytes(&format!("entries/{key}.jsonl"), &jsonl)?;
        // The files as they are on disk, whatever the backend.
        let mem = names::memory_path(root, owner);
        let mut files = vec![mem.clone()];
        if o.include_history {
            files.push(history_path(&mem));
        }
        if let Owner::Agent(a) = owner {
            let adir = names::agent_dir(root, a);
            files.insert(0, adir.join("AGENT.md"));
            if let Ok(agent) = crate::agents::get(root, a) {
                for b in agent.bootstrap {
                    if super::is_bootstrap_name(&b) && !bootstrap.contains(&b) {
                        bootstrap.push(b);
                    }
                }
            }
            let sdir = adir.join("skills");
            if let Ok(rd) = std::fs::read_dir(&sdir) {
                let mut names: Vec<_> = rd.flatten().collect();
                names.sort_by_key(|e| e.file_name());
                for e in names {
                    let p = e.path();
                    if let Ok(target) = std::fs::read_link(&p) {
                        links.push(LinkManifest {
                            path: rel(root, &p),
                            target: target.to_string_lossy().into_owned(),
                        });
                        let s = e.file_name().to_string_lossy().into_owned();
                        if !skills.contains(&s) {
                            skills.push(s);
                        }
                    }
                }
            }
            if o.sessions {
                if let Some(store) = sessions {
                    let list = store.sessions_of_agent(a)?;
                    session_count += list.len();
                    let mut out = Vec::new();
                    for s in &list {
                        serde_json::to_writer(&mut out, s).expect("a session serialises");
                        out.push(b'\n');
                    }
                    w.bytes(&format!("sessions/{a}.jsonl"), &out)?;
                }
            }
        }
        for f in files {
            if is_plain_file(&f) {
                w.file(&format!("files/{}", rel(root, &f)), &f, cancel)?;
            }
        }
    }
    for b in &bootstrap {
        let p = root.join(b);
        if is_plain_file(&p) {
            w.file(&format!("files/{b}"), &p, cancel)?;
        }
    }
    for s in &skills {
        if names::validate_agent_name(s).is_err() {
            continue;
        }
        for f in skill_files(root, s)? {
            let r = rel(root, &f);
            let below: Vec<&str> = r.split('/').skip(2).collect();
            if super::is_skill_member(&below) {
                w.file(&format!("files/{r}"), &f, cancel)?;
            }
        }
    }
    let manifest = Manifest {
        format: FORMAT.into(),
        version: VERSION,
        created: format_entry_ts(&now_local()),
        source_backend: store.backend().as_str().to_string(),
        owners: owners.clone(),
        files: w.files.clone(),
        links,
        sessions: o.sessions,
        history: o.include_history,
    };
    let text = serde_json::to_vec_pretty(&manifest).expect("the manifest serialises");
    w.start("manifest.json", opts())?;
    w.write(&text)?;
    w.finish()?;
    progress(&Progress {
        stage: "done".into(),
        done: total,
        total,
    });
    Ok(ExportReport {
        path: String::new(),
        bytes: 0,
        owners,
        files: manifest.files.len(),
        sessions: session_count,
        history: o.include_history,
    })
}
