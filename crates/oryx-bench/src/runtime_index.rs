//! The `runtime_index` group: what keeping the runtime's `memory_vectors` costs the console's
//! writes. An append to an install that indexes with the mock embedder against the same append
//! to the same install whose database has no `memory_vectors` table (nothing to index), and a
//! delete (its row removed with secure_delete and a WAL checkpoint) against the same delete
//! there.

use std::path::Path;

use oryx_core::config::{self, Overrides, Settings};
use oryx_core::memory::curation::{Action, Target};
use oryx_core::memory::{open_memory, MemoryService, Scope};
use oryx_core::names::Owner;

use crate::{median, Bench};

fn service(dir: &Path, with_table: bool) -> MemoryService {
    let install = dir.join(if with_table { "indexed" } else { "plain" });
    let _ = std::fs::remove_dir_all(&install);
    oryx_core::demo::write_install(&install).unwrap();
    if !with_table {
        rusqlite::Connection::open(install.join("oryxos.db"))
            .unwrap()
            .execute_batch("DROP TABLE memory_vectors")
            .unwrap();
    }
    let settings = Settings {
        root: Some(install.join(".oryxos")),
        ..Settings::default()
    };
    let e = config::effective(&settings, &Overrides::default());
    open_memory(&e, &dir.join(format!("index-{with_table}"))).unwrap()
}

fn last_target(svc: &MemoryService, owner: &Owner) -> Target {
    let all = svc.store().load_all(owner).unwrap();
    let i = all.archival.len() - 1;
    Target {
        id: all.id(Scope::Archival, i).unwrap(),
        expect: Some(all.archival[i].content.clone()),
    }
}

impl Bench {
    pub fn runtime_index(&mut self) {
        let runs = self.scale.runs.max(9);
        let dir = self.data.dir.join("work-runtime-index");
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let owner = Owner::Agent("assistant".into());
        let add = |svc: &MemoryService| {
            let mut i = 0;
            median(runs, || {
                i += 1;
                svc.append(&owner, Scope::Archival, &format!("bench entry {i}"))
                    .unwrap();
            })
        };
        let indexed = service(&dir, true);
        let plain = service(&dir, false);
        let (a_ix, a_plain) = (add(&indexed), add(&plain));
        self.ratio_row(
            "runtime_index.append",
            "an append to an install that keeps the runtime's memory_vectors (mock embedder) vs \
             the same append without the table"
                .into(),
            3.0,
            a_ix,
            a_plain,
            "",
        );
        // Each delete removes the entry an append just made (the append is not timed).
        let delete = |svc: &MemoryService| {
            let mut i = 0;
            let mut times = Vec::new();
            for _ in 0..=runs {
                i += 1;
                svc.append(&owner, Scope::Archival, &format!("to delete {i}"))
                    .unwrap();
                let t = last_target(svc, &owner);
                let started = std::time::Instant::now();
                svc.change(&owner, &[t], &Action::Delete).unwrap();
                times.push(started.elapsed());
            }
            times.remove(0);
            times.sort();
            times[times.len() / 2]
        };
        let (d_ix, d_plain) = (delete(&indexed), delete(&plain));
        self.ratio_row(
            "runtime_index.delete",
            "a delete whose runtime row goes with secure_delete and a WAL checkpoint vs the \
             same delete without the table"
                .into(),
            3.0,
            d_ix,
            d_plain,
            "",
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
