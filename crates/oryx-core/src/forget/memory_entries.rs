//! The memory entries that hold a forgotten text, in any owner's memory and any backend: found,
//! then deleted (one change per owner) or masked (the text replaced by [`FORGOTTEN`], one edit
//! per entry). The changes are ordinary ones in the history; the forget turns their records into
//! tombstones afterwards (the console-files step), so none of them keeps the text.

use std::path::{Path, PathBuf};

use super::{Copies, Erased, Left, Needles, Place, Why, FORGOTTEN};
use crate::error::Result;
use crate::memory::curation::{Action, Target};
use crate::memory::{Backend, MemoryService, Scope};
use crate::names::{memory_path, Owner};

/// What the mem0 server keeps of a memory the console deleted through its API.
pub const MEM0_HISTORY: &str = "deleted through mem0's API; the mem0 server keeps each deleted \
    memory's text in its own history (GET /memories/{id}/history), which its API clears only by \
    resetting every memory of every user (POST /reset) — ask whoever runs the mem0 server";

/// One entry holding a needle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryHit {
    pub owner: Owner,
    pub scope: Scope,
    /// Its console id, as `memory show` lists it.
    pub id: String,
    pub content: String,
    pub timestamp: Option<chrono::NaiveDateTime>,
}

/// Where an owner's entries live, for people: MEMORY.md, the database, the mem0 service.
pub fn location(svc: &MemoryService, root: &Path, db: &Path, owner: &Owner) -> PathBuf {
    match svc.backend() {
        Backend::Markdown => memory_path(root, owner),
        Backend::Sqlite => db.to_path_buf(),
        Backend::Mem0 => PathBuf::from(svc.store().location(owner)),
    }
}

/// Every entry of `owners` holding a needle.
pub fn find(svc: &MemoryService, owners: &[Owner], needles: &Needles) -> Result<Vec<EntryHit>> {
    let mut hits = Vec::new();
    for owner in owners {
        let all = svc.store().load_all(owner)?;
        for (scope, list) in [(Scope::Core, &all.core), (Scope::Archival, &all.archival)] {
            for (i, e) in list.iter().enumerate() {
                if !needles.in_text(&e.content) {
                    continue;
                }
                if let Some(id) = all.id(scope, i) {
                    hits.push(EntryHit {
                        owner: owner.clone(),
                        scope,
                        id,
                        content: e.content.clone(),
                        timestamp: e.timestamp,
                    });
                }
            }
        }
    }
    Ok(hits)
}

/// The hits as copies, one per owner.
pub fn copies(svc: &MemoryService, root: &Path, db: &Path, hits: &[EntryHit]) -> Vec<Copies> {
    let mut out: Vec<Copies> = Vec::new();
    for h in hits {
        match out
            .iter_mut()
            .find(|c| c.detail.as_deref() == Some(&h.owner.label()))
        {
            Some(c) => c.count += 1,
            None => out.push(Copies::new(
                Place::Memory,
                location(svc, root, db, &h.owner),
                1,
                Some(h.owner.label()),
            )),
        }
    }
    out
}

/// Deletes (or masks) the entries `hits` names, each owner's as it stood when found: an entry
/// that changed since is left and said (the forget can be run again).
pub fn erase(
    svc: &MemoryService,
    root: &Path,
    db: &Path,
    hits: &[EntryHit],
    needles: &Needles,
    mask: bool,
) -> Erased {
    let mut done = Erased::default();
    let mut owners: Vec<&Owner> = hits.iter().map(|h| &h.owner).collect();
    owners.dedup();
    for owner in owners {
        let mine: Vec<&EntryHit> = hits.iter().filter(|h| &h.owner == owner).collect();
        let path = location(svc, root, db, owner);
        let target = |h: &EntryHit| Target {
            id: h.id.clone(),
            expect: Some(h.content.clone()),
        };
        let outcome: Result<usize> = if mask {
            let mut n = 0;
            let mut first_error = None;
            for h in &mine {
                let action = Action::Edit {
                    content: needles.replace_all(&h.content, FORGOTTEN),
                    restamp: false,
                };
                match svc.change(owner, &[target(h)], &action) {
                    Ok(_) => n += 1,
                    Err(e) => first_error = first_error.or(Some(e)),
                }
            }
            match first_error {
                Some(e) if n == 0 => Err(e),
                Some(e) => {
                    done.left.push(Left {
                        place: Place::Memory,
                        path: path.clone(),
                        count: mine.len() - n,
                        reason: format!("not masked: {e}"),
                        why: Why::NotChanged,
                        arg: Some(e.to_string()),
                    });
                    Ok(n)
                }
                None => Ok(n),
            }
        } else {
            let targets: Vec<Target> = mine.iter().map(|h| target(h)).collect();
            svc.change(owner, &targets, &Action::Delete)
                .map(|_| targets.len())
        };
        match outcome {
            Ok(n) => {
                if svc.backend() == Backend::Mem0 && n > 0 {
                    // mem0's own delete (and update) writes the old text into its history.
                    done.left.push(Left {
                        place: Place::Memory,
                        path: path.clone(),
                        count: n,
                        reason: MEM0_HISTORY.into(),
                        why: Why::Mem0History,
                        arg: None,
                    });
                }
                done.erased
                    .push(Copies::new(Place::Memory, path, n, Some(owner.label())))
            }
            Err(e) => done.left.push(Left {
                place: Place::Memory,
                path,
                count: mine.len(),
                reason: format!("not changed: {e}"),
                why: Why::NotChanged,
                arg: Some(e.to_string()),
            }),
        }
    }
    done
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::MarkdownMemoryStore;
    use std::sync::Arc;

    fn service(root: &Path) -> MemoryService {
        std::fs::create_dir_all(root.join("agents/a")).unwrap();
        std::fs::create_dir_all(root.join("memory")).unwrap();
        MemoryService::new(Arc::new(MarkdownMemoryStore::new(root)), 4000)
    }

    #[test]
    fn entries_holding_the_text_are_deleted_or_masked_in_every_owner() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let svc = service(root);
        let a = Owner::Agent("a".into());
        svc.append(&a, Scope::Archival, "deploy key sk-live-77aa")
            .unwrap();
        svc.append(&a, Scope::Archival, "an ordinary entry")
            .unwrap();
        svc.append(&a, Scope::Core, "core holds sk-live-77aa too")
            .unwrap();
        svc.append(&Owner::Global, Scope::Archival, "global sk-live-77aa")
            .unwrap();
        let needles = Needles::new(["sk-live-77aa".to_string()]);
        let owners = [a.clone(), Owner::Global];
        let hits = find(&svc, &owners, &needles).unwrap();
        assert_eq!(hits.len(), 3);
        let copies = copies(&svc, root, &root.join("oryxos.db"), &hits);
        assert_eq!(copies.iter().map(|c| c.count).collect::<Vec<_>>(), [2, 1]);

        // Masked in the global memory, deleted in the agent's.
        let global: Vec<EntryHit> = hits
            .iter()
            .filter(|h| h.owner == Owner::Global)
            .cloned()
            .collect();
        let done = erase(&svc, root, &root.join("oryxos.db"), &global, &needles, true);
        assert!(done.left.is_empty(), "{done:?}");
        let text = std::fs::read_to_string(memory_path(root, &Owner::Global)).unwrap();
        assert!(text.contains("global [forgotten]") && !text.contains("sk-live"));
        let theirs: Vec<EntryHit> = hits.into_iter().filter(|h| h.owner == a).collect();
        let done = erase(
            &svc,
            root,
            &root.join("oryxos.db"),
            &theirs,
            &needles,
            false,
        );
        assert_eq!(done.erased[0].count, 2);
        let text = std::fs::read_to_string(memory_path(root, &a)).unwrap();
        assert!(!text.contains("sk-live") && text.contains("an ordinary entry"));
        assert!(find(&svc, &owners, &needles).unwrap().is_empty());
    }
}
