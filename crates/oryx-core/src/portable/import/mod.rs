//! Reading an archive into a root and a backend (issue #16; hostile archives: issue #29).
//!
//! Everything is checked before anything is written, in a dry run as in a real one: the
//! manifest's declared sizes against the limits below (a declared size is never trusted for
//! more: every read is bounded), every member's SHA-256, every path against what an export
//! writes (an allow-list: never a database, a console sidecar or a dot-file), the agent map (two
//! agents onto one name is refused), and the target's folders on the way, reached without
//! following links (a link or a file where a folder goes refuses the import). Then every file is
//! staged beside its place and moved in only once all are staged: an import places all of its
//! files or none. Entries already present are skipped, so importing twice adds nothing; nothing
//! the target holds is overwritten unless the caller asks (`overwrite_files`); memory entries
//! are only ever added, in time order; a history goes only with the MEMORY.md it describes.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::ffi::OsStr;
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use serde::Serialize;
use sha2::Digest;

use super::{
    is_bootstrap_name, owner_key, owner_of, EntryLine, Manifest, Progress, FORMAT, VERSION,
};
use crate::error::{CoreError, IoContext, Result};
use crate::frontmatter;
use crate::fsx::{Access, Dir, Staged};
use crate::memory::{Backend, Entry, LongTermMemoryStore, Scope, Sections};
use crate::names::{self, Owner};
use crate::timefmt::parse_entry_ts;

/// The largest member an import reads (a MEMORY.md of 100 MB is a large one).
pub const MAX_MEMBER_BYTES: u64 = 256 << 20;
/// The most an archive's members may hold in all.
pub const MAX_ARCHIVE_BYTES: u64 = 1 << 30;
/// How many times its own size an archive may hold in all, inflated (text deflates 3-10x, a
/// bomb 1000x), above [`INFLATION_FLOOR`].
pub const MAX_INFLATION: u64 = 100;
const INFLATION_FLOOR: u64 = 64 << 20;
const MAX_MANIFEST_BYTES: u64 = 16 << 20;
const HISTORY: &str = "MEMORY.md.oryx-history";

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

fn size_words(n: u64) -> String {
    const MIB: u64 = 1 << 20;
    const GIB: u64 = 1 << 30;
    match n {
        n if n >= GIB => format!("{:.1} GiB", n as f64 / GIB as f64),
        n if n >= MIB => format!("{:.1} MiB", n as f64 / MIB as f64),
        n => format!("{n} bytes"),
    }
}

fn too_large(name: &str, bytes: u64, cap: u64) -> CoreError {
    CoreError::InvalidInput(format!(
        "{name} in the archive is {}, more than the {} an import reads per member; nothing was \
         imported",
        size_words(bytes),
        size_words(cap)
    ))
}

fn refuse_path(name: &str) -> CoreError {
    corrupt(format!(
        "the archive holds {name:?}, a path an export never writes; nothing was imported"
    ))
}

fn damaged(name: &str) -> CoreError {
    corrupt(format!(
        "{name} in the archive does not match its checksum: the archive is damaged; nothing was \
         imported"
    ))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum AgentFile {
    AgentMd,
    Memory,
    History,
}

impl AgentFile {
    fn of(name: &str) -> Option<AgentFile> {
        match name {
            "AGENT.md" => Some(AgentFile::AgentMd),
            "MEMORY.md" => Some(AgentFile::Memory),
            HISTORY => Some(AgentFile::History),
            _ => None,
        }
    }

    fn name(self) -> &'static str {
        match self {
            AgentFile::AgentMd => "AGENT.md",
            AgentFile::Memory => "MEMORY.md",
            AgentFile::History => HISTORY,
        }
    }
}

/// What a member of an archive is, by its name.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Member {
    Entries,
    Session,
    /// A file of an agent's folder (the agent's name in the archive) or of `memory/` (`None`).
    Memory(Option<String>, AgentFile),
    /// A top-level file of the root.
    Bootstrap(String),
    /// A file below `skills/<s>/`: its path below the root.
    Skill(Vec<String>),
}

/// The kind of the member `name`; `None`: a name an export never writes (the allow-list).
fn member_kind(name: &str) -> Option<Member> {
    if let Some(owner) = name
        .strip_prefix("entries/")
        .and_then(|r| r.strip_suffix(".jsonl"))
    {
        return owner_of(owner).is_ok().then_some(Member::Entries);
    }
    if let Some(a) = name
        .strip_prefix("sessions/")
        .and_then(|r| r.strip_suffix(".jsonl"))
    {
        return names::is_valid_agent_name(a).then_some(Member::Session);
    }
    let parts: Vec<&str> = name.strip_prefix("files/")?.split('/').collect();
    match parts.as_slice() {
        ["agents", a, f] if names::is_valid_agent_name(a) => {
            Some(Member::Memory(Some(a.to_string()), AgentFile::of(f)?))
        }
        ["memory", f] => match AgentFile::of(f)? {
            AgentFile::AgentMd => None,
            k => Some(Member::Memory(None, k)),
        },
        ["skills", s, rest @ ..]
            if names::is_valid_agent_name(s) && super::is_skill_member(rest) =>
        {
            Some(Member::Skill(parts.iter().map(|p| p.to_string()).collect()))
        }
        [f] if is_bootstrap_name(f) => Some(Member::Bootstrap(f.to_string())),
        _ => None,
    }
}

/// A member as the manifest declares it.
struct Declared {
    kind: Member,
    bytes: u64,
    sha256: String,
}

/// The manifest's members: each a path an export writes, listed once, with sizes within the
/// limits (all before any member is read).
fn declared(manifest: &Manifest, archive_len: u64) -> Result<BTreeMap<String, Declared>> {
    let mut out = BTreeMap::new();
    let mut total = 0u64;
    for f in &manifest.files {
        let kind = member_kind(&f.path).ok_or_else(|| refuse_path(&f.path))?;
        if f.bytes > MAX_MEMBER_BYTES {
            return Err(too_large(&f.path, f.bytes, MAX_MEMBER_BYTES));
        }
        total = total.saturating_add(f.bytes);
        let d = Declared {
            kind,
            bytes: f.bytes,
            sha256: f.sha256.clone(),
        };
        if out.insert(f.path.clone(), d).is_some() {
            return Err(corrupt(format!(
                "the manifest lists {:?} twice; nothing was imported",
                f.path
            )));
        }
    }
    let cap = MAX_ARCHIVE_BYTES.min(INFLATION_FLOOR.max(archive_len.saturating_mul(MAX_INFLATION)));
    if total > cap {
        return Err(CoreError::InvalidInput(format!(
            "the archive's members hold {} in all, more than the {} an import takes from an \
             archive of {}; nothing was imported",
            size_words(total),
            size_words(cap),
            size_words(archive_len)
        )));
    }
    Ok(out)
}

/// The archive's agents with their names in the target. Two agents onto one name are refused:
/// their files and memories would collide (the second's files kept, its entries miscounted).
fn agent_names(
    manifest: &Manifest,
    members: &BTreeMap<String, Declared>,
    map: &HashMap<String, String>,
) -> Result<BTreeMap<String, String>> {
    let mut agents = BTreeSet::new();
    let mut owners = BTreeSet::new();
    for om in &manifest.owners {
        if !owners.insert(om.owner.as_str()) {
            return Err(corrupt(format!(
                "the manifest lists {} twice; nothing was imported",
                om.owner
            )));
        }
        if let Owner::Agent(a) = owner_of(&om.owner)? {
            agents.insert(a);
        }
    }
    for d in members.values() {
        if let Member::Memory(Some(a), _) = &d.kind {
            agents.insert(a.clone());
        }
    }
    let mut out = BTreeMap::new();
    let mut taken: HashMap<String, String> = HashMap::new();
    for a in agents {
        let to = map.get(&a).cloned().unwrap_or_else(|| a.clone());
        if let Some(other) = taken.insert(to.clone(), a.clone()) {
            return Err(CoreError::InvalidInput(format!(
                "agents {other} and {a} of the archive would both be imported as {to}; map them \
                 to different names; nothing was imported"
            )));
        }
        out.insert(a, to);
    }
    Ok(out)
}

fn open_member<'a>(
    zip: &'a mut zip::ZipArchive<File>,
    name: &str,
) -> Result<zip::read::ZipFile<'a, File>> {
    zip.by_name(name)
        .map_err(|e| corrupt(format!("the archive has no readable {name}: {e}")))
}

/// Reads `r` to its end but never more than one byte past `limit` (what a member declares is
/// not trusted: a bomb stops there), handing each piece to `sink`; the bytes read and their
/// SHA-256.
fn copy_hashed(
    r: &mut dyn Read,
    limit: u64,
    name: &str,
    mut sink: impl FnMut(&[u8]) -> Result<()>,
) -> Result<(u64, String)> {
    let mut r = r.take(limit.saturating_add(1));
    let mut h = sha2::Sha256::new();
    let mut buf = vec![0u8; 64 << 10];
    let mut total = 0u64;
    loop {
        let n = r.read(&mut buf).map_err(|e| {
            corrupt(format!(
                "{name} cannot be read from the archive: {e}; nothing was imported"
            ))
        })?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
        sink(&buf[..n])?;
        total += n as u64;
    }
    Ok((
        total,
        h.finalize().iter().map(|b| format!("{b:02x}")).collect(),
    ))
}

/// The manifest, read no further than its limit whatever its header declares.
fn read_manifest(zip: &mut zip::ZipArchive<File>, archive: &Path) -> Result<Manifest> {
    let mut f = open_member(zip, "manifest.json")?;
    let declared = f.size();
    if declared > MAX_MANIFEST_BYTES {
        return Err(too_large("manifest.json", declared, MAX_MANIFEST_BYTES));
    }
    let mut bytes = Vec::new();
    (&mut f)
        .take(MAX_MANIFEST_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| {
            corrupt(format!(
                "manifest.json cannot be read from the archive: {e}"
            ))
        })?;
    if bytes.len() as u64 != declared {
        return Err(corrupt(format!(
            "manifest.json holds {} bytes where its header says {declared}: the archive is \
             damaged; nothing was imported",
            bytes.len()
        )));
    }
    let manifest: Manifest = serde_json::from_slice(&bytes)
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
    Ok(manifest)
}

/// Streams a member through SHA-256 against what the manifest declares; its bytes when `keep`.
fn check_member(
    zip: &mut zip::ZipArchive<File>,
    name: &str,
    d: &Declared,
    keep: bool,
) -> Result<Option<Vec<u8>>> {
    let mut f = open_member(zip, name)?;
    if f.size() != d.bytes {
        return Err(corrupt(format!(
            "{name}: the archive's header says {} and its manifest {}: the archive is damaged; \
             nothing was imported",
            size_words(f.size()),
            size_words(d.bytes)
        )));
    }
    let mut kept = keep.then(Vec::new);
    let (n, sum) = copy_hashed(&mut f, d.bytes, name, |piece| {
        if let Some(k) = kept.as_mut() {
            k.extend_from_slice(piece);
        }
        Ok(())
    })?;
    if n != d.bytes || sum != d.sha256 {
        return Err(damaged(name));
    }
    Ok(kept)
}

/// The top-level files an archive may carry: the ones its agents name as bootstrap files (the
/// runtime loads only those), and the usual three.
fn listed_bootstrap<'a>(agent_mds: impl Iterator<Item = &'a Vec<u8>>) -> BTreeSet<String> {
    let mut out: BTreeSet<String> = crate::workspace::BOOTSTRAP_FILES
        .iter()
        .map(|s| s.to_string())
        .collect();
    for bytes in agent_mds {
        let text = String::from_utf8_lossy(bytes);
        if let Some(v) = frontmatter::split(&text)
            .0
            .and_then(|fm| frontmatter::parse(fm).ok())
        {
            out.extend(frontmatter::get_str_list(&v, "bootstrap"));
        }
    }
    out
}

fn parse_entries(r: impl BufRead, member: &str) -> Result<Vec<EntryLine>> {
    let mut out = Vec::new();
    for (i, line) in r.lines().enumerate() {
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

/// A member's entries, read no further than its checked size.
fn read_entries(
    zip: &mut zip::ZipArchive<File>,
    name: &str,
    d: &Declared,
) -> Result<Vec<EntryLine>> {
    let f = open_member(zip, name)?;
    parse_entries(BufReader::new(f.take(d.bytes)), name)
}

fn os(s: &str) -> &OsStr {
    OsStr::new(s)
}

/// A folder the import needs, as an error that says so.
fn needs_folder(e: CoreError) -> CoreError {
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
fn find_dir(root: &Path, parts: &[String]) -> Result<Option<Dir>> {
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
enum AtTarget {
    Absent,
    File(File),
    Other(&'static str),
}

fn at_target(dir: Option<&Dir>, name: &str) -> Result<AtTarget> {
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

fn sha256_of(mut f: File, path: &Path) -> Result<String> {
    let mut h = sha2::Sha256::new();
    std::io::copy(&mut f, &mut h).at(path)?;
    Ok(h.finalize().iter().map(|b| format!("{b:02x}")).collect())
}

/// One file the import places.
struct FileOp {
    member: String,
    /// Its place, below the root.
    dest: Vec<String>,
    rel: String,
    /// What is written when it is not the member as archived (a renamed agent's AGENT.md).
    bytes: Option<Vec<u8>>,
    declared: u64,
    sha256: String,
    /// The target has another file there, and the caller asked to overwrite.
    replace: bool,
    /// A history: placed only after the MEMORY.md it describes (that op) was.
    after: Option<usize>,
    /// A MEMORY.md that goes over byte for byte: whose.
    memory_of: Option<Owner>,
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
struct LinkOp {
    dir: Vec<String>,
    name: String,
    target: String,
}

/// Where each file member goes and whether it goes (nothing is written): files the target
/// holds the same are left, different ones kept unless `overwrite_files`, anything but a
/// regular file kept as it is; a MEMORY.md only where the target has none (markdown), its
/// history only with it.
fn plan_files(
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
                        op.sha256 = super::sha256_hex(&b);
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
fn plan_links(
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
fn open_dirs(
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
fn remove_made(dirs: &BTreeMap<Vec<String>, Dir>, made: &[Vec<String>]) {
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
fn stage_all<'d>(
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
fn commit(
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
fn place(
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

/// Which entries the target lacks; counts per kind. An entry is present when the target holds
/// the same section, time and (sanitised) content; an entry without a time matches the same
/// section and content at any time (the store stamped it when it was added).
pub(crate) fn plan(archived: &[EntryLine], target: &Sections) -> (Vec<bool>, OwnerImport) {
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
    target: &Sections,
    dry_run: bool,
    cancel: &AtomicBool,
    tick: &mut dyn FnMut(),
) -> (OwnerImport, bool) {
    let (take, mut r) = plan(entries, target);
    r.owner = owner_key(to);
    if dry_run {
        return (r, false);
    }
    // `new` ends as what was added, not what was planned (a store that fails part way).
    let planned = r.new;
    r.new = 0;
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
            r.error = Some(format!(
                "stopped after adding {} of {planned} new entries: {err}",
                r.new
            ));
            break;
        }
        r.new += 1;
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
    crate::root::require_root(root)?;
    for (from, to) in &o.agent_map {
        names::validate_agent_name(from)?;
        names::validate_agent_name(to)?;
    }
    let file = File::open(archive).at(archive)?;
    let archive_len = file.metadata().at(archive)?.len();
    let mut zip = zip::ZipArchive::new(file).map_err(|e| {
        corrupt(format!(
            "{} is not an oryx export (not a zip: {e})",
            archive.display()
        ))
    })?;
    let manifest = read_manifest(&mut zip, archive)?;
    let members = declared(&manifest, archive_len)?;
    let agents = agent_names(&manifest, &members, &o.agent_map)?;
    let cancelled = || ImportReport {
        cancelled: true,
        dry_run: o.dry_run,
        ..ImportReport::default()
    };
    // Every member checked first: a damaged archive changes nothing.
    let total = members.len() as u64;
    let mut agent_mds: HashMap<String, Vec<u8>> = HashMap::new();
    for (i, (name, d)) in members.iter().enumerate() {
        if cancel.load(Ordering::Relaxed) {
            return Ok(cancelled());
        }
        progress(&Progress {
            stage: format!("checking {name}"),
            done: i as u64,
            total,
        });
        let keep = matches!(d.kind, Member::Memory(_, AgentFile::AgentMd));
        if let Some(bytes) = check_member(&mut zip, name, d, keep)? {
            agent_mds.insert(name.clone(), bytes);
        }
    }
    let listed = listed_bootstrap(agent_mds.values());
    for (name, d) in &members {
        if matches!(&d.kind, Member::Bootstrap(f) if !listed.contains(f)) {
            return Err(refuse_path(name));
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
        if name != "manifest.json" && !members.contains_key(&name) {
            // A name may hold anything (a NUL, a line break): such a one is quoted.
            let shown = match name.chars().any(char::is_control) {
                true => format!("{name:?}"),
                false => name,
            };
            report.unknown.push(shown);
        }
    }
    // Where everything goes, checked against the target as it stands (nothing written yet).
    Dir::root(root)?.check_writable_root()?;
    let ops = plan_files(
        root,
        &members,
        &agents,
        &agent_mds,
        store.backend(),
        o,
        &mut report,
    )?;
    let has_folder = |a: &str| {
        ops.iter()
            .any(|op| op.dest.len() > 2 && op.dest[0] == "agents" && op.dest[1] == a)
            || matches!(find_dir(root, &["agents".into(), a.into()]), Ok(Some(_)))
    };
    let links = plan_links(
        root,
        &manifest,
        &agents,
        &o.agent_map,
        &has_folder,
        &mut report,
    )?;
    let mut owners = Vec::new();
    for om in &manifest.owners {
        let to = match owner_of(&om.owner)? {
            Owner::Agent(a) => Owner::Agent(agents[&a].clone()),
            Owner::Global => Owner::Global,
        };
        let member = format!("entries/{}.jsonl", om.owner);
        let Some(d) = members.get(&member) else {
            return Err(corrupt(format!(
                "the archive lists {} but has no {member}",
                om.owner
            )));
        };
        let entries = read_entries(&mut zip, &member, d)?;
        let folder = match &to {
            Owner::Agent(a) => vec!["agents".to_string(), a.clone()],
            Owner::Global => vec!["memory".to_string()],
        };
        let exists = find_dir(root, &folder)?.is_some();
        if let Owner::Agent(a) = &to {
            if !exists && !has_folder(a) {
                return Err(CoreError::InvalidInput(format!(
                    "agent {a} is not in the target root and the archive has no file for its \
                     folder (AGENT.md); nothing was imported"
                )));
            }
        }
        let byte_for_byte = ops.iter().position(|op| op.memory_of.as_ref() == Some(&to));
        // The target's entries now: a store that cannot read them refuses before any write.
        let target = match (byte_for_byte, exists || to == Owner::Global) {
            (None, true) => store.load_all(&to)?,
            _ => Sections::default(),
        };
        owners.push((to, entries, target, byte_for_byte));
    }
    let placed = if o.dry_run {
        vec![true; ops.len()]
    } else {
        match place(root, &ops, &links, &mut zip, cancel, &mut report)? {
            Some(p) => p,
            None => return Ok(cancelled()),
        }
    };
    for (op, p) in ops.iter().zip(&placed) {
        if *p {
            report.files_written.push(op.rel.clone());
        }
    }
    let all: u64 = owners.iter().map(|(_, e, _, _)| e.len() as u64).sum();
    let mut done = 0u64;
    for (to, entries, mut target, byte_for_byte) in owners {
        if let Some(i) = byte_for_byte {
            if placed[i] {
                // The file went over as it was: every entry is there now (or will be).
                done += entries.len() as u64;
                report.owners.push(OwnerImport {
                    owner: owner_key(&to),
                    in_archive: entries.len(),
                    new: entries.len(),
                    ..OwnerImport::default()
                });
                continue;
            }
            // A MEMORY.md appeared meanwhile: its entries are added to it instead.
            target = store.load_all(&to)?;
        }
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
        report.sessions_not_imported = members
            .values()
            .filter(|d| d.kind == Member::Session)
            .count();
    }
    progress(&Progress {
        stage: "done".into(),
        done: all,
        total: all,
    });
    Ok(report)
}
