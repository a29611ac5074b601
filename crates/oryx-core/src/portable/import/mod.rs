//! Reading an archive into a root and a backend.
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

mod archive;
mod entries;
mod place;
mod report;

use std::collections::HashMap;
use std::fs::File;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use archive::{
    agent_names, check_member, corrupt, declared, listed_bootstrap, read_entries, read_manifest,
    refuse_path, AgentFile, Member,
};
pub use archive::{MAX_ARCHIVE_BYTES, MAX_INFLATION, MAX_MEMBER_BYTES};
pub(crate) use entries::add_planned;
use place::{find_dir, place, plan_files, plan_links};
pub use report::{ImportOptions, ImportReport, OwnerImport};

use crate::error::{CoreError, IoContext, Result};
use crate::memory::{LongTermMemoryStore, Sections};
use crate::names::{self, Owner};
use crate::portable::{owner_key, owner_of, Progress};
use crate::rooted_fs::Dir;

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
