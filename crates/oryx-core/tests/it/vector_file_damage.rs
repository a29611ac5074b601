//! Hostile inputs to the console's own files: a vector file that is damaged or not ours, and
//! what the recall_memory tool answers when the vectors cannot be used. The embedding model is
//! not needed: vectors are written directly, and nothing here embeds.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use oryx_core::embed::{EmbedderSlot, VectorIndex, VectorStore, DIM, MODEL_ID};
use oryx_core::memory::{
    LongTermMemoryStore, MarkdownMemoryStore, MemoryService, RecallConfig, RecallMode, Scope,
    SemanticIndex,
};
use oryx_core::names::Owner;
use oryx_core::sessions::SessionStore;
use oryx_core::tools::{ToolContext, ToolExecutor, RECALL_MEMORY};

const OWNER: &str = "__global__";

/// A model directory that holds no model.
fn no_model(dir: &Path) -> Arc<EmbedderSlot> {
    Arc::new(EmbedderSlot::new(dir.join("no-model")))
}

fn unit(i: usize) -> [f32; DIM] {
    let mut v = [0f32; DIM];
    v[i] = 1.0;
    v
}

/// A vector file holding three vectors of [`OWNER`].
fn vector_file(dir: &Path) -> PathBuf {
    let path = dir.join("vectors.db");
    let mut s = VectorStore::open(&path, MODEL_ID).unwrap();
    let items: Vec<_> = (0..3)
        .map(|i| (format!("k{i}"), i as u64, unit(i)))
        .collect();
    s.put(OWNER, &items).unwrap();
    path
}

/// Rewrites the vector file at its path the way it was found damaged.
type Damage = fn(&Path);

/// The ways a vector file was found damaged.
fn damages() -> Vec<(&'static str, Damage)> {
    vec![
        ("not a database", |p| {
            std::fs::write(p, vec![0x5a; 20_000]).unwrap()
        }),
        ("flipped header", |p| {
            let mut b = std::fs::read(p).unwrap();
            b[..16].iter_mut().for_each(|x| *x ^= 0xff);
            std::fs::write(p, b).unwrap();
        }),
        ("malformed pages", |p| {
            let mut b = std::fs::read(p).unwrap();
            assert!(b.len() > 4096, "{} bytes", b.len());
            b[4096..].iter_mut().for_each(|x| *x = 0xa5);
            std::fs::write(p, b).unwrap();
        }),
        ("another program's tables", |p| {
            std::fs::remove_file(p).unwrap();
            rusqlite::Connection::open(p)
                .unwrap()
                .execute_batch("CREATE TABLE vectors (id INTEGER PRIMARY KEY, v TEXT);")
                .unwrap();
        }),
        ("empty", |p| std::fs::write(p, b"").unwrap()),
    ]
}

#[test]
fn a_damaged_vector_file_is_started_anew_by_clear_counts_and_sync() {
    for (what, damage) in damages() {
        let dir = tempfile::tempdir().unwrap();
        let path = vector_file(dir.path());
        damage(&path);
        // Clearing is the way out of anything: it must work first thing.
        let index = VectorIndex::new(no_model(dir.path()), path.clone());
        assert!(index.clear().is_ok(), "{what}: {:?}", index.clear());
        drop(index);

        let path = vector_file(dir.path());
        damage(&path);
        let index = VectorIndex::new(no_model(dir.path()), path.clone());
        let texts = vec![("k0".to_string(), "text".to_string())];
        let counts = index.counts(OWNER, &texts);
        assert!(counts.is_ok(), "{what}: {counts:?}");
        assert_eq!(counts.unwrap().indexed, 0, "{what}");
        // A sync with nothing to embed (an owner without entries) needs no model.
        let r = index.sync(OWNER, &[], &AtomicBool::new(false), &mut |_, _| {});
        assert!(r.is_ok(), "{what}: {r:?}");
        assert!(index.clear().is_ok(), "{what}");
        // What is left is a vector file of ours again.
        assert!(VectorStore::open(&path, MODEL_ID)
            .unwrap()
            .is_empty(OWNER)
            .unwrap());
    }
}

#[test]
fn damaged_vectors_count_as_not_indexed() {
    let dir = tempfile::tempdir().unwrap();
    let path = vector_file(dir.path());
    let mut nan = unit(1);
    nan[5] = f32::NAN;
    let blob: Vec<u8> = nan.iter().flat_map(|x| x.to_le_bytes()).collect();
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute(
            "UPDATE vectors SET vector = ?1 WHERE key = 'k1'",
            rusqlite::params![blob],
        )
        .unwrap();
    let index = VectorIndex::new(no_model(dir.path()), path);
    // With no texts passed every stored vector is an orphan: the damaged one is not counted.
    let counts = index.counts(OWNER, &[]).unwrap();
    assert_eq!(counts.orphaned, 2, "{counts:?}");
}

#[test]
fn recall_memory_in_semantic_mode_answers_by_keyword_when_vectors_cannot_be_used() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    std::fs::create_dir_all(root.join("agents/a")).unwrap();
    let store = Arc::new(MarkdownMemoryStore::new(&root));
    let owner = Owner::Agent("a".into());
    store
        .append(&owner, Scope::Archival, "the user drinks green tea", None)
        .unwrap();
    let vectors = dir.path().join("vectors.db");
    std::fs::write(&vectors, vec![0x5a; 20_000]).unwrap();
    let index = SemanticIndex::new(Arc::new(VectorIndex::new(
        no_model(dir.path()),
        vectors.clone(),
    )));
    for mode in [RecallMode::Semantic, RecallMode::Hybrid] {
        let cfg = RecallConfig {
            mode,
            ..RecallConfig::default()
        };
        let memory = MemoryService::new(store.clone(), 4000).with_recall(
            cfg,
            Some(Arc::new(SemanticIndex::new(index.vectors().clone()))),
        );
        let exec = ToolExecutor::new(&root, memory, SessionStore::new(root.join("oryxos.db")));
        let ctx = ToolContext {
            agent: Some("a".into()),
            session_id: None,
        };
        let out = exec
            .execute(&ctx, RECALL_MEMORY, r#"{"keyword":"green tea"}"#)
            .unwrap();
        assert!(out.success, "{mode:?}: {}", out.output);
        assert!(
            out.output.ends_with("] the user drinks green tea"),
            "{mode:?}: {}",
            out.output
        );
        let warning = out.warning.unwrap_or_default();
        assert!(
            warning.contains("answered with keyword recall"),
            "{warning}"
        );
    }
    // The damaged file was started anew on the way.
    assert!(VectorStore::open(&vectors, MODEL_ID)
        .unwrap()
        .is_empty("a")
        .unwrap());
}
