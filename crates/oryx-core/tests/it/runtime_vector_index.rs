//! The console's writes keep the runtime's `memory_vectors` true, on a real install laid out as
//! the runtime lays it out (its schema, its configuration, its provider registry).

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use oryx_core::config::{self, Overrides, Settings};
use oryx_core::memory::curation::{Action, Target};
use oryx_core::memory::{open_memory, Backend, MemoryService, Scope};
use oryx_core::names::Owner;
use oryx_core::runtime::embedder::Configured;
use oryx_core::runtime::memory_vectors::{decode, entry_hash, rows, VectorRow};
use oryx_core::runtime::mock_embedding;
use oryx_core::runtime::vector_index::{self, RuntimeIndex};

struct Install {
    _dir: tempfile::TempDir,
    dir: PathBuf,
    index_dir: PathBuf,
}

impl Install {
    /// The sample install with memory on `backend` and the embedding provider `embedding`
    /// (YAML lines under `embedding:`).
    fn new(backend: &str, embedding: &str) -> Install {
        let t = tempfile::tempdir().unwrap();
        let dir = t.path().join("install");
        oryx_core::demo::write_install(&dir).unwrap();
        let yml = dir.join("config/application.yml");
        let text = std::fs::read_to_string(&yml)
            .unwrap()
            .replace("backend: markdown", &format!("backend: {backend}"))
            .replace("  provider: mock\n  model: ''\n", embedding);
        std::fs::write(&yml, text).unwrap();
        Install {
            index_dir: t.path().join("index"),
            _dir: t,
            dir,
        }
    }

    fn db(&self) -> PathBuf {
        self.dir.join("oryxos.db")
    }

    fn effective(&self) -> config::Effective {
        let settings = Settings {
            root: Some(self.dir.join(".oryxos")),
            ..Settings::default()
        };
        config::effective(&settings, &Overrides::default())
    }

    fn service(&self) -> MemoryService {
        open_memory(&self.effective(), &self.index_dir).unwrap()
    }

    fn index(&self) -> RuntimeIndex {
        RuntimeIndex::of(&self.effective()).expect("an install's index")
    }

    fn rows(&self, agent: &str) -> Vec<VectorRow> {
        rows(&self.db(), agent).unwrap().unwrap_or_default()
    }
}

const MOCK: &str = "  provider: mock\n  model: ''\n";

fn mock_install(backend: &str) -> Install {
    Install::new(backend, MOCK)
}

fn row_of<'r>(rows: &'r [VectorRow], agent: &str, text: &str) -> Option<&'r VectorRow> {
    rows.iter()
        .find(|r| r.entry_hash == entry_hash(agent, text))
}

/// The text the runtime hashes for the last archival entry of `owner`.
fn last_runtime_text(svc: &MemoryService, owner: &Owner) -> String {
    svc.store()
        .runtime_archival(owner)
        .unwrap()
        .pop()
        .unwrap()
        .text
}

fn assert_mock_row(inst: &Install, agent: &str, text: &str) {
    let rows = inst.rows(agent);
    let row = row_of(&rows, agent, text).unwrap_or_else(|| panic!("no row for {text:?}"));
    assert_eq!(row.content, text);
    assert_eq!(row.model, mock_embedding::MODEL_ID);
    let got = decode(&row.embedding);
    let want = mock_embedding::embed(text);
    assert_eq!(
        got.iter().map(|f| f.to_bits()).collect::<Vec<_>>(),
        want.iter().map(|f| f.to_bits()).collect::<Vec<_>>()
    );
}

fn assert_no_bytes(inst: &Install, text: &str) {
    for f in ["oryxos.db", "oryxos.db-wal"] {
        let bytes = std::fs::read(inst.dir.join(f)).unwrap_or_default();
        assert!(
            memchr::memmem::find(&bytes, text.as_bytes()).is_none(),
            "{f} still holds {text:?}"
        );
    }
}

fn target_of(svc: &MemoryService, owner: &Owner, content: &str) -> Target {
    let all = svc.store().load_all(owner).unwrap();
    let i = all
        .archival
        .iter()
        .position(|e| e.content == content)
        .unwrap();
    Target {
        id: all.id(Scope::Archival, i).unwrap(),
        expect: Some(content.to_string()),
    }
}

fn delete_removes_the_row_and_its_bytes(backend: &str) {
    let inst = mock_install(backend);
    let svc = inst.service();
    let owner = Owner::Agent("assistant".into());
    let secret = "the-door-code-is-4471-zq";
    svc.append(&owner, Scope::Archival, secret).unwrap();
    let text = last_runtime_text(&svc, &owner);
    assert_mock_row(&inst, "assistant", &text);
    let t = target_of(&svc, &owner, secret);
    svc.change(&owner, &[t], &Action::Delete).unwrap();
    assert!(row_of(&inst.rows("assistant"), "assistant", &text).is_none());
    assert_no_bytes(&inst, secret);
}

#[test]
fn a_delete_removes_the_row_and_the_text_from_db_and_wal_markdown() {
    delete_removes_the_row_and_its_bytes("markdown");
}

#[test]
fn a_delete_removes_the_row_and_the_text_from_db_and_wal_sqlite() {
    delete_removes_the_row_and_its_bytes("sqlite");
}

#[test]
fn a_duplicate_keeps_the_row_it_shares() {
    let inst = mock_install("sqlite");
    let svc = inst.service();
    let owner = Owner::Global;
    svc.append(&owner, Scope::Archival, "twice said").unwrap();
    svc.append(&owner, Scope::Archival, "twice said").unwrap();
    let t = target_of(&svc, &owner, "twice said");
    svc.change(&owner, &[t], &Action::Delete).unwrap();
    assert_mock_row(&inst, "__global__", "twice said");
}

#[test]
fn edit_undo_summary_and_migrate_give_mock_rows() {
    let inst = mock_install("markdown");
    let svc = inst.service();
    let owner = Owner::Agent("assistant".into());
    svc.append(&owner, Scope::Archival, "before the edit")
        .unwrap();
    let old = last_runtime_text(&svc, &owner);
    let t = target_of(&svc, &owner, "before the edit");
    svc.change(
        &owner,
        &[t],
        &Action::Edit {
            content: "after the edit".into(),
            restamp: false,
        },
    )
    .unwrap();
    let new = last_runtime_text(&svc, &owner);
    assert_mock_row(&inst, "assistant", &new);
    assert!(row_of(&inst.rows("assistant"), "assistant", &old).is_none());

    svc.undo(&owner, None).unwrap();
    assert_mock_row(&inst, "assistant", &old);
    assert!(row_of(&inst.rows("assistant"), "assistant", &new).is_none());

    let t = target_of(&svc, &owner, "before the edit");
    svc.apply_summary(&owner, "a summary of it all", &[t], false)
        .unwrap();
    let summary = last_runtime_text(&svc, &owner);
    assert!(summary.contains("a summary of it all"));
    assert_mock_row(&inst, "assistant", &summary);
    assert!(row_of(&inst.rows("assistant"), "assistant", &old).is_none());

    // Every live entry of the owner now matches a row, and nothing else is there.
    let status = vector_index::status(
        &inst.db(),
        &inst.index().embedding(),
        svc.store().as_ref(),
        std::slice::from_ref(&owner),
    )
    .unwrap();
    assert_eq!(status.owners[0].orphans, 0);
}

#[test]
fn a_migration_into_the_runtimes_backend_gives_rows() {
    let inst = mock_install("sqlite");
    let svc = inst.service();
    let mut e = inst.effective();
    e.backend = Backend::Markdown;
    let markdown = oryx_core::memory::open_store(&e, &inst.index_dir).unwrap();
    let owners = [Owner::Agent("researcher".into())];
    let before = svc.store().runtime_archival(&owners[0]).unwrap();
    oryx_core::migrate::migrate(
        markdown.as_ref(),
        svc.store().as_ref(),
        &owners,
        false,
        &AtomicBool::new(false),
        &mut |_| {},
    )
    .unwrap();
    let live = svc.store().runtime_archival(&owners[0]).unwrap();
    let copied: Vec<_> = live.iter().filter(|e| !before.contains(e)).collect();
    assert!(!copied.is_empty());
    for e in copied {
        assert_mock_row(&inst, "researcher", &e.text);
    }
}

#[test]
fn a_remote_embedder_that_fails_leaves_the_entry_missing_and_the_write_done() {
    let inst = Install::new(
        "markdown",
        "  provider: openai\n  model: text-embedding-3-small\n",
    );
    let conn = rusqlite::Connection::open(inst.db()).unwrap();
    // A closed port: nothing listens on port 1.
    conn.execute(
        "UPDATE providers SET api_key = 'sk-test', base_url = 'http://127.0.0.1:1' WHERE name = 'openai'",
        [],
    )
    .unwrap();
    let svc = inst.service();
    let owner = Owner::Global;
    svc.append(&owner, Scope::Archival, "kept although unembedded")
        .unwrap();
    assert!(last_runtime_text(&svc, &owner).contains("kept although unembedded"));
    std::thread::sleep(std::time::Duration::from_millis(300));
    let configured = inst.index().embedding();
    assert!(matches!(configured, Configured::Ready(_)));
    let status =
        vector_index::status(&inst.db(), &configured, svc.store().as_ref(), &[owner]).unwrap();
    assert_eq!(status.owners[0].indexed, 0);
    assert!(status.owners[0].missing >= 1);
    assert!(inst.rows("__global__").is_empty());
}

#[test]
fn a_database_without_the_table_takes_writes_and_indexes_nothing() {
    let inst = mock_install("markdown");
    rusqlite::Connection::open(inst.db())
        .unwrap()
        .execute_batch("DROP TABLE memory_vectors")
        .unwrap();
    let svc = inst.service();
    let owner = Owner::Global;
    svc.append(&owner, Scope::Archival, "no index here")
        .unwrap();
    let t = target_of(&svc, &owner, "no index here");
    svc.change(&owner, &[t], &Action::Delete).unwrap();
    assert!(rows(&inst.db(), "__global__").unwrap().is_none());
    assert!(!vector_index::has_table(&inst.db()).unwrap());
}

#[test]
fn a_bare_root_has_no_runtime_index() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path().join("root");
    oryx_core::demo::write_sample(&root).unwrap();
    let settings = Settings {
        root: Some(root),
        ..Settings::default()
    };
    assert!(RuntimeIndex::of(&config::effective(&settings, &Overrides::default())).is_none());
}

/// The runtime's own writes (rows of its appends) made while the console deletes and adds.
#[test]
fn a_concurrent_runtime_write_is_not_lost() {
    let inst = mock_install("markdown");
    let svc = Arc::new(inst.service());
    let db = inst.db();
    let runtime = std::thread::spawn(move || runtime_writes(&db, 40));
    let owner = Owner::Global;
    for i in 0..20 {
        let text = format!("console entry {i}");
        svc.append(&owner, Scope::Archival, &text).unwrap();
        let t = target_of(&svc, &owner, &text);
        svc.change(&owner, &[t], &Action::Delete).unwrap();
    }
    let written = runtime.join().unwrap();
    let rows = inst.rows("runtime-agent");
    for h in written {
        assert!(rows.iter().any(|r| r.entry_hash == h), "lost {h}");
    }
}

fn runtime_writes(db: &Path, n: usize) -> Vec<String> {
    let conn = rusqlite::Connection::open(db).unwrap();
    conn.busy_timeout(std::time::Duration::from_secs(10))
        .unwrap();
    (0..n)
        .map(|i| {
            let text = format!("runtime entry {i}");
            let h = entry_hash("runtime-agent", &text);
            let v = mock_embedding::embed(&text);
            conn.execute(
                "INSERT INTO memory_vectors (entry_hash, agent_name, content, embedding, dim, \
                 embedding_model, entry_time, created_at) VALUES (?1, 'runtime-agent', ?2, ?3, 64, \
                 'mock/deterministic', NULL, 0)",
                rusqlite::params![h, text, oryx_core::runtime::memory_vectors::encode(&v)],
            )
            .unwrap();
            std::thread::sleep(std::time::Duration::from_millis(2));
            h
        })
        .collect()
}
