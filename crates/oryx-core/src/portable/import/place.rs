//! Placing the archive's files in the root: where each goes and whether (the target's own
//! files kept unless asked), then all staged beside their places and moved in, all or none.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::ffi::OsStr;
use std::fs::File;
use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use sha2::Digest;

use super::archive::{copy_hashed, damaged, open_member, AgentFile, Declared, Member, HISTORY};
use super::report::{ImportOptions, ImportReport};
use crate::error::{CoreError, IoContext, Result};
use crate::memory::Backend;
use crate::names::{self, Owner};
use crate::portable::Manifest;
use crate::rooted_fs::{Access, Dir, Staged};

pub(super) fn os(s: &str) -> &OsStr {
    OsStr::new(s)
}

/// A folder the import needs, as an error that says so.
pub(super) fn needs_folder(e: CoreError) -> CoreError {
    match e {
        CoreError::NotRegularFile { path, kind } => CoreError::InvalidInput(format!(
            "{} is a {kind} where the import needs a folder; nothing was imported",
            path.display()
        )),
        CoreError::InvalidInput(why) => {
            CoreError::InvalidInput(format!("{why}; nothing was imported"))
        }
        e => e,
    }
}

/// The folder at `parts` below the root, reached without following links; `None` when a part
/// does not exist yet (the import would make it). A link or a file on the way is an error.
pub(super) fn find_dir(root: &Path, parts: &[String]) -> Result<Option<Dir>> {
    let mut dir = Dir::root(root)?;
    for p in parts {
        match dir.child_dir(os(p), false).map_err(needs_folder)? {
            Some(d) => dir = d,
            None => return Ok(None),
        }
    }
    Ok(Some(dir))
}

/// What the target holds where a file goes (never following a link).
pub(super) enum AtTarget {
    Absent,
    File(File),
    Other(&'static str),
}

pub(super) fn at_target(dir: Option<&Dir>, name: &str) -> Result<AtTarget> {
    let Some(dir) = dir else {
        return Ok(AtTarget::Absent);
    };
    match dir.open(os(name), Access::Read) {
        Ok(None) => Ok(AtTarget::Absent),
        Ok(Some(f)) => Ok(AtTarget::File(f)),
        Err(CoreError::NotRegularFile { kind, .. }) => Ok(AtTarget::Other(kind)),
        Err(e) => Err(e),
    }
}

pub(super) fn sha256_of(mut f: File, path: &Path) -> Result<String> {
    let mut h = sha2::Sha256::new();
    std::io::copy(&mut f, &mut h).at(path)?;
    Ok(h.finalize().iter().map(|b| format!("{b:02x}")).collect())
}

/// One file the import places.
pub(super) struct FileOp {
    pub(super) member: String,
    /// Its place, below the root.
    pub(super) dest: Vec<String>,
    pub(super) rel: String,
    /// What is written when it is not the member as archived (a renamed agent's AGENT.md).
    pub(super) bytes: Option<Vec<u8>>,
    pub(super) declared: u64,
    pub(super) sha256: String,
    /// The target has another file there, and the caller asked to overwrite.
    pub(super) replace: bool,
    /// A history: placed only after the MEMORY.md it describes (that op) was.
    pub(super) after: Option<usize>,
    /// A MEMORY.md that goes over byte for byte: whose.
    pub(super) memory_of: Option<Owner>,
}

impl FileOp {
    fn dir(&self) -> &[String] {
        &self.dest[..self.dest.len() - 1]
    }

    fn name(&self) -> &str {
        &self.dest[self.dest.len() - 1]
    }
}

/// An agent's skill link to make: `agents/<n>/skills/<s>` → `../../../skills/<s>`.
pub(super) struct LinkOp {
    dir: Vec<String>,
    name: String,
    target: String,
}

/// Where each file member goes and whether it goes (nothing is written): files the target
/// holds the same are left, different ones kept unless `overwrite_files`, anything but a
/// regular file kept as it is; a MEMORY.md only where the target has none (markdown), its
/// history only with it.
pub(super) fn plan_files(
    root: &Path,
    members: &BTreeMap<String, Declared>,
    agents: &BTreeMap<String, String>,
    agent_mds: &HashMap<String, Vec<u8>>,
    backend: Backend,
    o: &ImportOptions,
    report: &mut ImportReport,
) -> Result<Vec<FileOp>> {
    let mut ops: Vec<FileOp> = Vec::new();
    // MEMORY.md files after the others (a new memory appears with its agent's files in
    // place), histories last (each goes after the MEMORY.md it describes).
    let mut order: Vec<(&String, &Declared)> = members.iter().collect();
    order.sort_by_key(|(_, d)| match d.kind {
        Member::Memory(_, AgentFile::Memory) => 1,
        Member::Memory(_, AgentFile::History) => 2,
        _ => 0,
    });
    for (member, d) in order {
        let (dest, owner): (Vec<String>, Option<Owner>) = match &d.kind {
            Member::Entries | Member::Session => continue,
            Member::Memory(Some(a), k) => {
                let to = agents[a].clone();
                let dest = vec!["agents".into(), to.clone(), k.name().into()];
                (dest, Some(Owner::Agent(to)))
            }
            Member::Memory(None, k) => {
                (vec!["memory".into(), k.name().into()], Some(Owner::Global))
            }
            Member::Bootstrap(f) => (vec![f.clone()], None),
            Member::Skill(parts) => (parts.clone(), None),
        };
        let rel = dest.join("/");
        let parent = find_dir(root, &dest[..dest.len() - 1])?;
        let at = at_target(parent.as_ref(), &dest[dest.len() - 1])?;
        let mut op = FileOp {
            member: member.clone(),
            dest,
            rel: rel.clone(),
            bytes: None,
            declared: d.bytes,
            sha256: d.sha256.clone(),
            replace: false,
            after: None,
            memory_of: None,
        };
        match &d.kind {
            Member::Memory(_, AgentFile::Memory) => {
                // Over byte for byte only where the target keeps markdown memory and has neither
                // a MEMORY.md nor a history (which would describe another file); otherwise the
                // entries are added.
                let history = parent.as_ref().is_some_and(|p| p.has_entry(os(HISTORY)));
                if backend != Backend::Markdown || !matches!(at, AtTarget::Absent) || history {
                    continue;
                }
                op.memory_of = owner;
            }
            Member::Memory(_, AgentFile::History) => {
                let memory = ops
                    .iter()
                    .position(|m| m.memory_of.is_some() && m.dir() == op.dir());
                match (memory, at) {
                    (Some(i), AtTarget::Absent) => op.after = Some(i),
                    _ => {
                        report.files_kept.push(format!(
                            "{rel}: the history of the archive's MEMORY.md, which is not copied \
                             as it is; dropped (a history never joins another memory)"
                        ));
                        continue;
                    }
                }
            }
            kind => {
                if let (Member::Memory(Some(a), AgentFile::AgentMd), Some(bytes)) =
                    (kind, agent_mds.get(member))
                {
                    let to = &agents[a];
                    if to != a {
                        // Renamed: the front matter's name must be the folder's.
                        let text = String::from_utf8_lossy(bytes).into_owned();
                        let v = serde_json::Value::String(to.clone());
                        let b =
                            crate::agent_admin::with_key(&text, &["name"], Some(&v))?.into_bytes();
                        op.sha256 = crate::portable::sha256_hex(&b);
                        op.bytes = Some(b);
                    }
                }
                match at {
                    AtTarget::Absent => {}
                    AtTarget::File(f) => {
                        if sha256_of(f, &root.join(&rel))? == op.sha256 {
                            continue;
                        }
                        if !o.overwrite_files {
                            report.files_kept.push(format!(
                                "{rel}: the target's own differs; kept (overwrite to replace)"
                            ));
                            continue;
                        }
                        op.replace = true;
                    }
                    AtTarget::Other(kind) => {
                        report.files_kept.push(format!(
                            "{rel}: the target has a {kind} there; kept as it is"
                        ));
                        continue;
                    }
                }
            }
        }
        ops.push(op);
    }
    Ok(ops)
}

/// The skill links of the manifest to make (shapes checked; others reported as unknown), for
/// agents that have a folder or get one.
pub(super) fn plan_links(
    root: &Path,
    manifest: &Manifest,
    agents: &BTreeMap<String, String>,
    map: &HashMap<String, String>,
    has_folder: &dyn Fn(&str) -> bool,
    report: &mut ImportReport,
) -> Result<Vec<LinkOp>> {
    let mut out = Vec::new();
    for l in &manifest.links {
        let parts: Vec<&str> = l.path.split('/').collect();
        let (agent, skill) = match parts.as_slice() {
            ["agents", a, "skills", s]
                if names::is_valid_agent_name(a) && names::is_valid_agent_name(s) =>
            {
                let to = agents.get(*a).or_else(|| map.get(*a));
                (to.map_or(*a, String::as_str), *s)
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
        if !has_folder(agent) {
            report
                .unknown
                .push(format!("link {} (its agent is not imported)", l.path));
            continue;
        }
        let dir = vec![
            "agents".to_string(),
            agent.to_string(),
            "skills".to_string(),
        ];
        if find_dir(root, &dir)?.is_some_and(|d| d.has_entry(os(skill))) {
            continue;
        }
        out.push(LinkOp {
            dir,
            name: skill.to_string(),
            target: expected,
        });
    }
    Ok(out)
}

/// Opens the folders below the root that the import writes in into `dirs`, without following
/// links, making the missing ones (each recorded in `made`, parents first).
pub(super) fn open_dirs(
    wanted: BTreeSet<Vec<String>>,
    dirs: &mut BTreeMap<Vec<String>, Dir>,
    made: &mut Vec<Vec<String>>,
) -> Result<()> {
    for path in wanted {
        for i in 0..path.len() {
            let prefix = &path[..=i];
            if dirs.contains_key(prefix) {
                continue;
            }
            let parent: &Dir = &dirs[&path[..i]];
            let name = os(&path[i]);
            let child = match parent.child_dir(name, false).map_err(needs_folder)? {
                Some(d) => d,
                None => {
                    let d = parent.child_dir(name, true).map_err(needs_folder)?;
                    made.push(prefix.to_vec());
                    d.ok_or_else(|| {
                        CoreError::io(
                            parent.path().join(name),
                            std::io::Error::other("the folder vanished as it was made"),
                        )
                    })?
                }
            };
            dirs.insert(prefix.to_vec(), child);
        }
    }
    Ok(())
}

/// Removes the folders an import made, deepest first (only while empty).
pub(super) fn remove_made(dirs: &BTreeMap<Vec<String>, Dir>, made: &[Vec<String>]) {
    for path in made.iter().rev() {
        if let Some((name, parent)) = path.split_last() {
            if let Some(d) = dirs.get(parent) {
                let _ = d.remove_dir(os(name));
            }
        }
    }
}

/// Every op's file staged beside its place (checked again against its checksum as it is
/// copied); `None` when cancelled. Dropped, the staged files are removed.
pub(super) fn stage_all<'d>(
    dirs: &'d BTreeMap<Vec<String>, Dir>,
    ops: &[FileOp],
    zip: &mut zip::ZipArchive<File>,
    cancel: &AtomicBool,
) -> Result<Option<Vec<Staged<'d>>>> {
    let mut staged = Vec::with_capacity(ops.len());
    for op in ops {
        if cancel.load(Ordering::Relaxed) {
            return Ok(None);
        }
        let dir = &dirs[op.dir()];
        let st = dir.stage(os(op.name()), &[])?;
        let path = dir.path().join(op.name());
        let mut w: &File = st.file();
        match &op.bytes {
            Some(b) => w.write_all(b).at(&path)?,
            None => {
                let mut f = open_member(zip, &op.member)?;
                let (n, sum) = copy_hashed(&mut f, op.declared, &op.member, |piece| {
                    w.write_all(piece).at(&path)
                })?;
                if n != op.declared || sum != op.sha256 {
                    return Err(damaged(&op.member));
                }
            }
        }
        w.sync_all().at(&path)?;
        staged.push(st);
    }
    Ok(Some(staged))
}

/// Moves each staged file into its place: over the target's only when `replace`, otherwise
/// only where nothing appeared meanwhile. Which ops were placed.
pub(super) fn commit(
    dirs: &BTreeMap<Vec<String>, Dir>,
    ops: &[FileOp],
    staged: Vec<Staged<'_>>,
    report: &mut ImportReport,
) -> Result<Vec<bool>> {
    let mut placed = vec![false; ops.len()];
    for (i, (op, mut st)) in ops.iter().zip(staged).enumerate() {
        if op.after.is_some_and(|m| !placed[m]) {
            report
                .files_kept
                .push(format!("{}: its MEMORY.md was not placed; dropped", op.rel));
            continue;
        }
        let dir = &dirs[op.dir()];
        let name = os(op.name());
        let done = if op.replace {
            st.rename_over().map(|_| true)
        } else {
            match st.rename_if_absent() {
                Ok(true) => Ok(true),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
                Err(e) => Err(CoreError::io(dir.path().join(name), e)),
                // This system cannot rename without replacing: asked first.
                Ok(false) if dir.has_entry(name) => Ok(false),
                Ok(false) => st.rename_over().map(|_| true),
            }
        };
        match done {
            Ok(true) => placed[i] = true,
            Ok(false) => report.files_kept.push(format!(
                "{}: appeared in the target meanwhile; kept",
                op.rel
            )),
            Err(e) => {
                let done: Vec<&str> = ops
                    .iter()
                    .zip(&placed)
                    .filter(|(_, p)| **p)
                    .map(|(o, _)| o.rel.as_str())
                    .collect();
                return Err(CoreError::InvalidInput(format!(
                    "the import stopped placing its files: {e}; placed before that: {}",
                    if done.is_empty() {
                        "none".to_string()
                    } else {
                        done.join(", ")
                    }
                )));
            }
        }
    }
    Ok(placed)
}

/// The real run's writes of files and links: all staged first, then moved in; a failure or a
/// cancel before the moves leaves the target as it was. `None` when cancelled.
pub(super) fn place(
    root: &Path,
    ops: &[FileOp],
    links: &[LinkOp],
    zip: &mut zip::ZipArchive<File>,
    cancel: &AtomicBool,
    report: &mut ImportReport,
) -> Result<Option<Vec<bool>>> {
    let wanted: BTreeSet<Vec<String>> = ops
        .iter()
        .map(|op| op.dir().to_vec())
        .chain(links.iter().map(|l| l.dir.clone()))
        .filter(|d| !d.is_empty())
        .collect();
    let mut made = Vec::new();
    let mut dirs = BTreeMap::from([(Vec::new(), Dir::root(root)?)]);
    if let Err(e) = open_dirs(wanted, &mut dirs, &mut made) {
        remove_made(&dirs, &made);
        return Err(e);
    }
    let staged = match stage_all(&dirs, ops, zip, cancel) {
        Ok(Some(s)) => s,
        other => {
            remove_made(&dirs, &made);
            return other.map(|_| None);
        }
    };
    let placed = commit(&dirs, ops, staged, report)?;
    for l in links {
        dirs[&l.dir].symlink(os(&l.name), os(&l.target))?;
    }
    Ok(Some(placed))
}
