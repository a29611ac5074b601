//! Reading an archive into a root and a backend. Everything is checked before anything is
//! written (format, every member's SHA-256, names and paths); entries already present are
//! skipped, so importing twice adds nothing; nothing the target holds is overwritten unless the
//! caller asks (`overwrite_files`), and memory entries are only ever added, in time order.

use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use serde::Serialize;
use sha2::Digest;

use super::{owner_key, owner_of, EntryLine, Manifest, Progress, FORMAT, VERSION};
use crate::error::{CoreError, IoContext, Result};
use crate::memory::{Backend, Entry, LongTermMemoryStore, Scope};
use crate::names::{self, Owner};
use crate::timefmt::parse_entry_ts;

#[derive(Debug, Clone, Default)]
pub struct ImportOptions {
    pub dry_run: bool,
    /// Agents imported under another name: `old → new`.
    pub agent_map: HashMap<String, String>,
    /// Replace files the target holds with the archive's (AGENT.md, bootstrap files, skills).
    pub overwrite_files: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct OwnerImport {
    /// The owner in the target (after `agent_map`).
    pub owner: String,
    pub in_archive: usize,
    /// Not in the target: added (or, in a dry run, would be).
    pub new: usize,
    /// Already in the target (same section, time and content): skipped.
    pub present: usize,
    /// New entries whose section and time the target already holds with other content: both
    /// are kept (nothing is overwritten).
    pub conflicting: usize,
    pub error: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ImportReport {
    pub dry_run: bool,
    pub source_backend: String,
    pub owners: Vec<OwnerImport>,
    /// Root files written (or that would be), relative to the root.
    pub files_written: Vec<String>,
    /// Root files left as the target has them, with why.
    pub files_kept: Vec<String>,
    /// Members of the archive the importer does not use (reported, never silently dropped).
    pub unknown: Vec<String>,
    pub sessions_not_imported: usize,
    pub cancelled: bool,
}

fn corrupt(why: impl Into<String>) -> CoreError {
    CoreError::Corrupt(why.into())
}

fn read_member(zip: &mut zip::ZipArchive<File>, name: &str) -> Result<Vec<u8>> {
    let mut f = zip
        .by_name(name)
        .map_err(|e| corrupt(format!("the archive has no readable {name}: {e}")))?;
    let mut out = Vec::with_capacity(f.size() as usize);
    f.read_to_end(&mut out)
        .map_err(|e| corrupt(format!("{name} cannot be read from the archive: {e}")))?;
    Ok(out)
}

/// Where an archive member goes in the root, with agents renamed; `None`: a path the format
/// does not allow (checked before anything is written).
fn target_path(member: &str, map: &HashMap<String, String>) -> Option<(PathBuf, String)> {
    let rel = member.strip_prefix("files/")?;
    let parts: Vec<&str> = rel.split('/').collect();
    if parts
        .iter()
        .any(|p| p.is_empty() || *p == "." || *p == ".." || p.contains('\\'))
    {
        return None;
    }
    let known = ["AGENT.md", "MEMORY.md", "MEMORY.md.oryx-history"];
    let out: Vec<String> = match parts.as_slice() {
        ["agents", a, f] if known.contains(f) => {
            names::validate_agent_name(a).ok()?;
            let a = map.get(*a).map_or(*a, String::as_str);
            vec!["agents".into(), a.into(), (*f).into()]
        }
        ["memory", f] if known[1..].contains(f) => vec!["memory".into(), (*f).into()],
        ["skills", s, rest @ ..] if !rest.is_empty() => {
            names::validate_agent_name(s).ok()?;
            let mut v = vec!["skills".to_string(), (*s).to_string()];
            v.extend(rest.iter().map(|r| r.to_string()));
            v
        }
        [f] if !f.starts_with('.')
            && ![
                "agents",
                "memory",
                "skills",
                "archive",
                crate::config::DB_FILE,
            ]
            .contains(f) =>
        {
            vec![(*f).to_string()]
        }
        _ => return None,
    };
    let rel = out.join("/");
    Some((out.iter().collect(), rel))
}

/// Writes `bytes` at `path` atomically: only when absent, unless `overwrite`.
fn write_file(path: &Path, bytes: &[u8], overwrite: bool) -> Result<bool> {
    let dir = path.parent().expect("a file below the root");
    std::fs::create_dir_all(dir).at(dir)?;
    let mut tmp = tempfile::Builder::new()
        .prefix(".oryx-import-")
        .tempfile_in(dir)
        .at(dir)?;
    std::io::Write::write_all(&mut tmp, bytes).at(path)?;
    tmp.as_file().sync_all().at(path)?;
    if overwrite {
        tmp.persist(path).map_err(|e| CoreError::Io {
            path: path.to_path_buf(),
            source: e.error,
        })?;
        Ok(true)
    } else {
        match tmp.persist_noclobber(path) {
            Ok(_) => Ok(true),
            Err(e) if e.error.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
            Err(e) => Err(CoreError::Io {
                path: path.to_path_buf(),
                source: e.error,
            }),
        }
    }
}

fn parse_entries(bytes: &[u8], member: &str) -> Result<Vec<EntryLine>> {
    let mut out = Vec::new();
    for (i, line) in BufReader::new(bytes).lines().enumerate() {
        let line = line.map_err(|e| corrupt(format!("{member}: {e}")))?;
        if line.trim().is_empty() {
            continue;
        }
        let e: EntryLine = serde_json::from_str(&line)
            .map_err(|e| corrupt(format!("{member} line {}: {e}", i + 1)))?;
        if let Some(t) = &e.timestamp {
            if parse_entry_ts(t).is_none() {
                return Err(corrupt(format!(
                    "{member} line {}: {t:?} is not a time (yyyy-MM-dd HH:mm:ss)",
                    i + 1
                )));
            }
        }
        out.push(e);
    }
    Ok(out)
}

/// Which entries the target lacks; counts per kind. An entry is present when the target holds
/// the same section, time and (sanitised) content; an entry without a time matches the same
/// section and content at any time (the store stamped it when it was added).
pub(crate) fn plan(
    archived: &[EntryLine],
    target: &crate::memory::Sections,
) -> (Vec<bool>, OwnerImport) {
    let fmt = |e: &Entry| e.timestamp.as_ref().map(crate::timefmt::format_entry_ts);
    // (section, content) → the times the target holds it at, one per entry.
    let mut present: HashMap<(Scope, String), Vec<Option<String>>> = HashMap::new();
    let mut slots: HashMap<(Scope, Option<String>), usize> = HashMap::new();
    for (scope, list) in [
        (Scope::Core, &target.core),
        (Scope::Archival, &target.archival),
    ] {
        for e in list {
            present
                .entry((scope, e.content.clone()))
                .or_default()
                .push(fmt(e));
            *slots.entry((scope, fmt(e))).or_default() += 1;
        }
    }
    let mut r = OwnerImport {
        in_archive: archived.len(),
        ..OwnerImport::default()
    };
    let mut take = Vec::with_capacity(archived.len());
    for e in archived {
        // Content is stored sanitised: compare what the target would hold.
        let content = crate::memory::entry::sanitize_content(&e.content).unwrap_or_default();
        let times = present.get_mut(&(e.scope, content));
        let hit = times.and_then(|t| {
            let i = t
                .iter()
                .position(|x| *x == e.timestamp)
                .or_else(|| (e.timestamp.is_none() && !t.is_empty()).then_some(0))?;
            Some(t.remove(i))
        });
        if hit.is_some() {
            r.present += 1;
            take.push(false);
        } else {
            r.new += 1;
            if e.timestamp.is_some() && slots.contains_key(&(e.scope, e.timestamp.clone())) {
                r.conflicting += 1;
            }
            take.push(true);
        }
    }
    (take, r)
}

/// Adds to `to` the entries `plan` finds missing in `target`, in the given order (oldest first,
/// so a store that appends keeps it); a dry run only counts. `tick` runs once per entry passed.
/// Returns the counts (with the first write error, which stops the owner) and whether `cancel`
/// stopped it.
pub(crate) fn add_planned(
    store: &dyn LongTermMemoryStore,
    to: &Owner,
    entries: &[EntryLine],
    target: &crate::memory::Sections,
    dry_run: bool,
    cancel: &AtomicBool,
    tick: &mut dyn FnMut(),
) -> (OwnerImport, bool) {
    let (take, mut r) = plan(entries, target);
    r.owner = owner_key(to);
    if dry_run {
        return (r, false);
    }
    for (e, t) in entries.iter().zip(take) {
        if cancel.load(Ordering::Relaxed) {
            return (r, true);
        }
        tick();
        if !t {
            continue;
        }
        let at = e.timestamp.as_deref().and_then(parse_entry_ts);
        let content = match crate::memory::entry::sanitize_content(&e.content) {
            Ok(c) if !c.is_empty() => c,
            _ => continue,
        };
        if let Err(err) = store.append(to, e.scope, &content, at) {
            r.error = Some(err.to_string());
            break;
        }
    }
    (r, false)
}

pub fn import(
    archive: &Path,
    root: &Path,
    store: &dyn LongTermMemoryStore,
    o: &ImportOptions,
    cancel: &AtomicBool,
    progress: &mut dyn FnMut(&Progress),
) -> Result<ImportReport> {
    crate::fsx::require_root(root)?;
    for (from, to) in &o.agent_map {
        names::validate_agent_name(from)?;
        names::validate_agent_name(to)?;
    }
    let file = File::open(archive).at(archive)?;
    let mut zip = zip::ZipArchive::new(file).map_err(|e| {
        corrupt(format!(
            "{} is not an oryx export (not a zip: {e})",
            archive.display()
        ))
    })?;
    let manifest: Manifest = serde_json::from_slice(&read_member(&mut zip, "manifest.json")?)
        .map_err(|e| corrupt(format!("manifest.json is not valid: {e}")))?;
    if manifest.format != FORMAT {
        return Err(corrupt(format!(
            "{} is a {:?} archive, not an {FORMAT}",
            archive.display(),
            manifest.format
        )));
    }
    if manifest.version > VERSION {
        return Err(corrupt(format!(
            "the archive is format version {}; this console reads up to {VERSION}",
            manifest.version
        )));
    }
    // Every member checked first: a damaged archive changes nothing.
    let mut sums: BTreeMap<String, (u64, String)> = BTreeMap::new();
    for f in &manifest.files {
        sums.insert(f.path.clone(), (f.bytes, f.sha256.clone()));
    }
    let total = manifest.files.len() as u64;
    for (i, (name, (bytes, sum))) in sums.iter().enumerate() {
        if cancel.load(Ordering::Relaxed) {
            return Ok(ImportReport {
                cancelled: true,
                dry_run: o.dry_run,
                ..ImportReport::default()
            });
        }
        progress(&Progress {
            stage: format!("checking {name}"),
            done: i as u64,
            total,
        });
        let mut f = zip
            .by_name(name)
            .map_err(|e| corrupt(format!("the archive lacks {name}: {e}")))?;
        let mut h = sha2::Sha256::new();
        let mut buf = vec![0u8; 1 << 20];
        let mut n_all = 0u64;
        loop {
            let n = f
                .read(&mut buf)
                .map_err(|e| corrupt(format!("{name} cannot be read: {e}")))?;
            if n == 0 {
                break;
            }
            h.update(&buf[..n]);
            n_all += n as u64;
        }
        let got: String = h.finalize().iter().map(|b| format!("{b:02x}")).collect();
        if n_all != *bytes || got != *sum {
            return Err(corrupt(format!(
                "{name} in the archive does not match its checksum: the archive is damaged; \
                 nothing was imported"
            )));
        }
        if name.starts_with("files/") && target_path(name, &o.agent_map).is_none() {
            return Err(corrupt(format!(
                "the archive holds {name:?}, a path an export never writes; nothing was imported"
            )));
        }
    }
    let mut report = ImportReport {
        dry_run: o.dry_run,
        source_backend: manifest.source_backend.clone(),
        ..ImportReport::default()
    };
    for name in zip.file_names() {
        let name = name.map_or_else(
            |e| format!("(a member with an unreadable name: {e})"),
            |n| n.into_owned(),
        );
        if name != "manifest.json" && !sums.contains_key(&name) {
            report.unknown.push(name);
        }
    }
    // Owners, renamed.
    let mut owners = Vec::new();
    for om in &manifest.owners {
        let from = owner_of(&om.owner)?;
        let to = match &from {
            Owner::Agent(a) => Owner::Agent(o.agent_map.get(a).cloned().unwrap_or(a.clone())),
            Owner::Global => Owner::Global,
        };
        let member = format!("entries/{}.jsonl", om.owner);
        if !sums.contains_key(&member) {
            return Err(corrupt(format!(
                "the archive lists {} but has no {member}",
                om.owner
            )));
        }
        let entries = parse_entries(&read_member(&mut zip, &member)?, &member)?;
        owners.push((to, entries));
    }
    // Files first (a new agent needs its folder and AGENT.md before its memory).
    let mut memory_written: Vec<Owner> = Vec::new();
    for name in sums.keys().filter(|n| n.starts_with("files/")) {
        let (rel_path, rel) = target_path(name, &o.agent_map).expect("checked above");
        let path = root.join(&rel_path);
        let is_memory = rel.ends_with("MEMORY.md");
        let is_history = rel.ends_with(".oryx-history");
        if is_memory || is_history {
            // A MEMORY.md goes over byte for byte only where the target has none and keeps
            // markdown memory; otherwise its entries are added below.
            if store.backend() != Backend::Markdown || path.exists() {
                continue;
            }
            if is_history && !root.join(rel_path.with_file_name("MEMORY.md")).exists() && o.dry_run
            {
                continue;
            }
        }
        let mut bytes = read_member(&mut zip, name)?;
        if rel.starts_with("agents/") && rel.ends_with("/AGENT.md") {
            let parts: Vec<&str> = rel.split('/').collect();
            let original = name.split('/').nth(2).unwrap_or_default();
            if parts[1] != original {
                // Renamed: the front matter's name must be the folder's.
                let text = String::from_utf8_lossy(&bytes).into_owned();
                let v = serde_json::Value::String(parts[1].to_string());
                bytes = crate::agent_admin::with_key(&text, &["name"], Some(&v))?.into_bytes();
            }
        }
        let same = std::fs::read(&path).ok().is_some_and(|b| b == bytes);
        if same {
            continue;
        }
        let exists = path.exists();
        if exists && !o.overwrite_files {
            report.files_kept.push(format!(
                "{rel}: the target's own differs; kept (overwrite to replace)"
            ));
            continue;
        }
        if !o.dry_run {
            write_file(&path, &bytes, o.overwrite_files)?;
        }
        if is_memory {
            if let Some(a) = rel
                .strip_prefix("agents/")
                .and_then(|r| r.split('/').next())
            {
                memory_written.push(Owner::Agent(a.to_string()));
            } else {
                memory_written.push(Owner::Global);
            }
        }
        report.files_written.push(rel);
    }
    if !o.dry_run {
        for l in &manifest.links {
            // A link is agents/<n>/skills/<s> → ../../../skills/<s>, nothing else.
            let parts: Vec<&str> = l.path.split('/').collect();
            let (agent, skill) = match parts.as_slice() {
                ["agents", a, "skills", s]
                    if names::validate_agent_name(a).is_ok()
                        && names::validate_agent_name(s).is_ok() =>
                {
                    (o.agent_map.get(*a).map_or(*a, String::as_str), *s)
                }
                _ => {
                    report.unknown.push(format!("link {}", l.path));
                    continue;
                }
            };
            let expected = format!("../../../skills/{skill}");
            if l.target != expected {
                report.unknown.push(format!(
                    "link {} → {} (not a skill of the root)",
                    l.path, l.target
                ));
                continue;
            }
            let path = names::agent_dir(root, agent).join("skills").join(skill);
            if std::fs::symlink_metadata(&path).is_err() {
                if let Some(d) = path.parent() {
                    std::fs::create_dir_all(d).at(d)?;
                }
                #[cfg(unix)]
                std::os::unix::fs::symlink(&expected, &path).at(&path)?;
            }
        }
    }
    let all: u64 = owners.iter().map(|(_, e)| e.len() as u64).sum();
    let mut done = 0u64;
    for (to, entries) in owners {
        let mut r = OwnerImport {
            owner: owner_key(&to),
            ..OwnerImport::default()
        };
        if memory_written.contains(&to) {
            // The file went over as it was: every entry is there now (or will be).
            r.in_archive = entries.len();
            r.new = entries.len();
            done += entries.len() as u64;
            report.owners.push(r);
            continue;
        }
        if let Owner::Agent(a) = &to {
            if !names::agent_dir(root, a).is_dir() && !o.dry_run {
                r.error = Some(format!(
                    "agent {a} is not in the target root and the archive has no AGENT.md for it"
                ));
                report.owners.push(r);
                continue;
            }
        }
        let target = if names::agent_dir(root, to.agent_name().unwrap_or("")).is_dir()
            || to == Owner::Global
        {
            match store.load_all(&to) {
                Ok(t) => t,
                Err(e) => {
                    r.error = Some(e.to_string());
                    report.owners.push(r);
                    continue;
                }
            }
        } else {
            crate::memory::Sections::default()
        };
        let n = entries.len() as u64;
        let mut tick = || {
            done += 1;
            if done.is_multiple_of(256) {
                progress(&Progress {
                    stage: format!("memory of {}", to.label()),
                    done,
                    total: all,
                });
            }
        };
        let (r, cancelled) =
            add_planned(store, &to, &entries, &target, o.dry_run, cancel, &mut tick);
        if o.dry_run {
            done += n;
        }
        report.cancelled = cancelled;
        report.owners.push(r);
        if report.cancelled {
            break;
        }
    }
    if manifest.sessions {
        report.sessions_not_imported = sums.keys().filter(|k| k.starts_with("sessions/")).count();
    }
    progress(&Progress {
        stage: "done".into(),
        done: all,
        total: all,
    });
    Ok(report)
}
