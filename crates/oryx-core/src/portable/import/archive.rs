//! Reading the archive: its manifest and members, each checked against the limits, the
//! allow-list of paths an export writes and its SHA-256 before anything is written.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use sha2::Digest;

use crate::error::{CoreError, Result};
use crate::frontmatter;
use crate::names::{self, Owner};
use crate::portable::{is_bootstrap_name, owner_of, EntryLine, Manifest, FORMAT, VERSION};
use crate::timefmt::parse_entry_ts;

/// The largest member an import reads (a MEMORY.md of 100 MB is a large one).
pub const MAX_MEMBER_BYTES: u64 = 256 << 20;
/// The most an archive's members may hold in all.
pub const MAX_ARCHIVE_BYTES: u64 = 1 << 30;
/// How many times its own size an archive may hold in all, inflated (text deflates 3-10x, a
/// bomb 1000x), above [`INFLATION_FLOOR`].
pub const MAX_INFLATION: u64 = 100;
pub(super) const INFLATION_FLOOR: u64 = 64 << 20;
pub(super) const MAX_MANIFEST_BYTES: u64 = 16 << 20;
pub(super) const HISTORY: &str = "MEMORY.md.oryx-history";

pub(super) fn corrupt(why: impl Into<String>) -> CoreError {
    CoreError::Corrupt(why.into())
}

pub(super) fn size_words(n: u64) -> String {
    const MIB: u64 = 1 << 20;
    const GIB: u64 = 1 << 30;
    match n {
        n if n >= GIB => format!("{:.1} GiB", n as f64 / GIB as f64),
        n if n >= MIB => format!("{:.1} MiB", n as f64 / MIB as f64),
        n => format!("{n} bytes"),
    }
}

pub(super) fn too_large(name: &str, bytes: u64, cap: u64) -> CoreError {
    CoreError::InvalidInput(format!(
        "{name} in the archive is {}, more than the {} an import reads per member; nothing was \
         imported",
        size_words(bytes),
        size_words(cap)
    ))
}

pub(super) fn refuse_path(name: &str) -> CoreError {
    corrupt(format!(
        "the archive holds {name:?}, a path an export never writes; nothing was imported"
    ))
}

pub(super) fn damaged(name: &str) -> CoreError {
    corrupt(format!(
        "{name} in the archive does not match its checksum: the archive is damaged; nothing was \
         imported"
    ))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum AgentFile {
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

    pub(super) fn name(self) -> &'static str {
        match self {
            AgentFile::AgentMd => "AGENT.md",
            AgentFile::Memory => "MEMORY.md",
            AgentFile::History => HISTORY,
        }
    }
}

/// What a member of an archive is, by its name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Member {
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
pub(super) fn member_kind(name: &str) -> Option<Member> {
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
            if names::is_valid_agent_name(s) && crate::portable::is_skill_member(rest) =>
        {
            Some(Member::Skill(parts.iter().map(|p| p.to_string()).collect()))
        }
        [f] if is_bootstrap_name(f) => Some(Member::Bootstrap(f.to_string())),
        _ => None,
    }
}

/// A member as the manifest declares it.
pub(super) struct Declared {
    pub(super) kind: Member,
    pub(super) bytes: u64,
    pub(super) sha256: String,
}

/// The manifest's members: each a path an export writes, listed once, with sizes within the
/// limits (all before any member is read).
pub(super) fn declared(
    manifest: &Manifest,
    archive_len: u64,
) -> Result<BTreeMap<String, Declared>> {
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
pub(super) fn agent_names(
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

pub(super) fn open_member<'a>(
    zip: &'a mut zip::ZipArchive<File>,
    name: &str,
) -> Result<zip::read::ZipFile<'a, File>> {
    zip.by_name(name)
        .map_err(|e| corrupt(format!("the archive has no readable {name}: {e}")))
}

/// Reads `r` to its end but never more than one byte past `limit` (what a member declares is
/// not trusted: a bomb stops there), handing each piece to `sink`; the bytes read and their
/// SHA-256.
pub(super) fn copy_hashed(
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
pub(super) fn read_manifest(zip: &mut zip::ZipArchive<File>, archive: &Path) -> Result<Manifest> {
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
pub(super) fn check_member(
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
pub(super) fn listed_bootstrap<'a>(
    agent_mds: impl Iterator<Item = &'a Vec<u8>>,
) -> BTreeSet<String> {
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

pub(super) fn parse_entries(r: impl BufRead, member: &str) -> Result<Vec<EntryLine>> {
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
pub(super) fn read_entries(
    zip: &mut zip::ZipArchive<File>,
    name: &str,
    d: &Declared,
) -> Result<Vec<EntryLine>> {
    let f = open_member(zip, name)?;
    parse_entries(BufReader::new(f.take(d.bytes)), name)
}
