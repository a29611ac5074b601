//! Writing an archive: streamed member by member into a temporary file beside the target,
//! renamed into place when complete (a cancelled or failed export leaves nothing behind).

use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use sha2::Digest;
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipWriter};

use super::{
    owner_key, EntryLine, FileManifest, LinkManifest, Manifest, OwnerManifest, Progress, FORMAT,
    VERSION,
};
use crate::error::{CoreError, IoContext, Result};
use crate::memory::history::history_path;
use crate::memory::{LongTermMemoryStore, Scope};
use crate::names::{self, Owner};
use crate::sessions::SessionStore;
use crate::timefmt::{format_entry_ts, now_local};

pub struct ExportOptions {
    /// The owners to export (agents, and `Owner::Global` for the root's global memory).
    pub owners: Vec<Owner>,
    /// Also the agents' sessions (for reading; never imported into a runtime's database).
    pub sessions: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExportReport {
    pub path: String,
    pub bytes: u64,
    pub owners: Vec<OwnerManifest>,
    pub files: usize,
    pub sessions: usize,
}

use serde::Serialize;

struct Writer {
    zip: ZipWriter<BufWriter<File>>,
    files: Vec<FileManifest>,
}

fn opts() -> SimpleFileOptions {
    SimpleFileOptions::default()
        .compression_method(CompressionMethod::Deflated)
        .compression_level(Some(1))
        .large_file(false)
}

impl Writer {
    fn bytes(&mut self, name: &str, data: &[u8]) -> Result<()> {
        self.zip.start_file(name, opts()).map_err(zip_err)?;
        self.zip
            .write_all(data)
            .map_err(|e| CoreError::Corrupt(format!("cannot write {name}: {e}")))?;
        self.files.push(FileManifest {
            path: name.to_string(),
            bytes: data.len() as u64,
            sha256: super::sha256_hex(data),
        });
        Ok(())
    }

    /// A file of the root, streamed (a MEMORY.md may be 100 MB).
    fn file(&mut self, name: &str, path: &Path, cancel: &AtomicBool) -> Result<()> {
        let mut f = File::open(path).at(path)?;
        let big = f.metadata().at(path)?.len() >= 0xFFFF_FFFF;
        self.zip
            .start_file(name, opts().large_file(big))
            .map_err(zip_err)?;
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
            self.zip
                .write_all(&buf[..n])
                .map_err(|e| CoreError::Corrupt(format!("cannot write {name}: {e}")))?;
            total += n as u64;
        }
        self.files.push(FileManifest {
            path: name.to_string(),
            bytes: total,
            sha256: hash.finalize().iter().map(|b| format!("{b:02x}")).collect(),
        });
        Ok(())
    }
}

fn zip_err(e: zip::result::ZipError) -> CoreError {
    CoreError::Corrupt(format!("cannot write the archive: {e}"))
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

fn rel(root: &Path, p: &Path) -> String {
    p.strip_prefix(root)
        .unwrap_or(p)
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
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
    let dir = out
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let tmp = tempfile::Builder::new()
        .prefix(".oryx-export-")
        .tempfile_in(dir)
        .at(dir)?;
    let result = write_all(root, store, sessions, opts_in, tmp.path(), cancel, progress);
    match result {
        Ok(mut report) => {
            tmp.persist(out).map_err(|e| CoreError::Io {
                path: out.to_path_buf(),
                source: e.error,
            })?;
            report.path = out.display().to_string();
            report.bytes = std::fs::metadata(out).at(out)?.len();
            Ok(report)
        }
        Err(e) => Err(e),
    }
}

fn write_all(
    root: &Path,
    store: &dyn LongTermMemoryStore,
    sessions: Option<&SessionStore>,
    o: &ExportOptions,
    path: &Path,
    cancel: &AtomicBool,
    progress: &mut dyn FnMut(&Progress),
) -> Result<ExportReport> {
    let file = File::create(path).at(path)?;
    let mut w = Writer {
        zip: ZipWriter::new(BufWriter::with_capacity(1 << 20, file)),
        files: Vec::new(),
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
        let mut files = vec![mem.clone(), history_path(&mem)];
        if let Owner::Agent(a) = owner {
            let adir = names::agent_dir(root, a);
            files.insert(0, adir.join("AGENT.md"));
            if let Ok(agent) = crate::agents::get(root, a) {
                for b in agent.bootstrap {
                    if !b.contains('/')
                        && !b.contains('\\')
                        && !b.starts_with('.')
                        && !bootstrap.contains(&b)
                    {
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
        for f in files_below(&root.join("skills").join(s)) {
            w.file(&format!("files/{}", rel(root, &f)), &f, cancel)?;
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
    };
    let text = serde_json::to_vec_pretty(&manifest).expect("the manifest serialises");
    w.zip.start_file("manifest.json", opts()).map_err(zip_err)?;
    w.zip
        .write_all(&text)
        .map_err(|e| CoreError::Corrupt(format!("cannot write the manifest: {e}")))?;
    let inner = w.zip.finish().map_err(zip_err)?;
    inner
        .into_inner()
        .map_err(|e| CoreError::Corrupt(format!("cannot write the archive: {e}")))?
        .sync_all()
        .at(path)?;
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
    })
}
