//! What an agent of the OryxOS runtime gets from its memory, as the console says it: the prompt's
//! memory block and recall_memory's keyword answers under the runtime's windows, compared with
//! the answers the runtime's own classes gave on the same fixtures
//! (tests/runtime-reference/answers.json, written by tests/runtime-reference/make_reference.sh).

use std::path::Path;

use oryx_core::config::{effective, Overrides, Settings};
use oryx_core::memory::{open_memory, Backend, MemoryService};
use oryx_core::names::Owner;
use serde_json::Value;

fn answers() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/runtime-reference/answers.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn service(root: &Path, backend: Backend, db: Option<&Path>) -> MemoryService {
    let over = Overrides {
        root: Some(root.to_path_buf()),
        db_path: db.map(Path::to_path_buf),
        backend: Some(backend),
        ..Overrides::default()
    };
    let mut e = effective(&Settings::default(), &over);
    e.runtime_windows = true;
    open_memory(&e, &root.join("index")).unwrap()
}

fn check_recall(svc: &MemoryService, owner: &Owner, case: &Value, what: &str) {
    for r in case["recall"].as_array().unwrap() {
        let keyword = r["keyword"].as_str().unwrap();
        assert_eq!(
            svc.recall_text(owner, keyword).unwrap(),
            r["answer"].as_str().unwrap(),
            "{what}: recall_memory({keyword:?})"
        );
    }
}

#[test]
fn markdown_block_and_recall_match_the_runtime() {
    let all = answers();
    let cases = all["markdown"].as_array().unwrap();
    assert!(cases.len() >= 14);
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let file = case["file"].as_str().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let agent_dir = dir.path().join("agents/alpha");
        std::fs::create_dir_all(&agent_dir).unwrap();
        std::fs::write(agent_dir.join("MEMORY.md"), file).unwrap();
        let svc = service(dir.path(), Backend::Markdown, None);
        let owner = Owner::Agent("alpha".into());
        let load = case["load"].as_str().unwrap();
        assert_eq!(
            svc.build_context(&owner).unwrap(),
            load,
            "{name}: the block"
        );
        let view = svc.view(&owner).unwrap();
        assert_eq!(view.context, load, "{name}: the view");
        // The entries said to be in reach the block: whole, or the part said to.
        for (i, e) in view.archival.iter().enumerate() {
            if !view.window.is_in_window(i) {
                continue;
            }
            match &view.window.partial {
                Some(kept) if i == view.window.first_in_window => {
                    let kept = kept.trim_start_matches('\u{FFFD}');
                    assert!(e.line.ends_with(kept) && load.contains(kept), "{name}: {i}");
                }
                _ => assert!(load.contains(&e.line), "{name}: entry {i} in the block"),
            }
        }
        if name == "hand-second-archival-heading" {
            assert_eq!(view.window.end_in_window, view.archival.len() - 1);
        }
        check_recall(&svc, &owner, case, name);

        // A large file is read from its end: older entries before the window change nothing.
        if case["archivalUtf16Length"].as_u64().unwrap() > 4000 {
            let nl = if file.contains("\r\n") { "\r\n" } else { "\n" };
            let at = file.find("## 归档记忆").unwrap();
            let body = at + file[at..].find('\n').unwrap() + 1;
            let older = format!("- [2025-01-01 00:00:00] older entry 旧{nl}").repeat(12_000);
            let big = format!("{}{older}{}", &file[..body], &file[body..]);
            assert!(big.len() > 400_000);
            std::fs::write(agent_dir.join("MEMORY.md"), big).unwrap();
            let svc = service(dir.path(), Backend::Markdown, None);
            assert_eq!(
                svc.build_context(&owner).unwrap(),
                load,
                "{name}: large file"
            );
            assert_eq!(
                svc.view(&owner).unwrap().context,
                load,
                "{name}: large view"
            );
        }
    }
}

#[test]
fn sqlite_block_and_recall_match_the_runtime() {
    let all = answers();
    let case = &all["sqlite"][0];
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("oryxos.db");
    let conn = rusqlite::Connection::open(&db).unwrap();
    // The runtime's schema.sql statement for the table.
    conn.execute_batch(
        "CREATE TABLE IF NOT EXISTS memory_entries (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            agent_name VARCHAR(128) NOT NULL DEFAULT '__global__',
            scope VARCHAR(16) NOT NULL,
            content TEXT NOT NULL,
            created_at TIMESTAMP NOT NULL
        );",
    )
    .unwrap();
    let rows = case["rows"].as_array().unwrap();
    assert!(rows.len() > 100);
    for r in rows {
        conn.execute(
            "INSERT INTO memory_entries(id, agent_name, scope, content, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
            rusqlite::params![
                r["id"].as_i64().unwrap(),
                r["agentName"].as_str().unwrap(),
                r["scope"].as_str().unwrap(),
                r["content"].as_str().unwrap(),
                r["createdAtMs"].as_i64().unwrap(),
            ],
        )
        .unwrap();
    }
    drop(conn);
    let svc = service(dir.path(), Backend::Sqlite, Some(&db));
    for run in case["agents"].as_array().unwrap() {
        let owner = match run["agent"].as_str() {
            Some(a) => Owner::Agent(a.into()),
            None => Owner::Global,
        };
        let what = format!("{owner:?}");
        let load = run["load"].as_str().unwrap();
        assert_eq!(
            svc.build_context(&owner).unwrap(),
            load,
            "{what}: the block"
        );
        assert_eq!(svc.view(&owner).unwrap().context, load, "{what}: the view");
        check_recall(&svc, &owner, run, &what);
    }
}

/// The runtime's `mock` embedding provider, float for float (its bits, not an approximation), and
/// the `memory_vectors.embedding` blob its `VectorCodec` makes of it.
#[test]
fn mock_embedding_vectors_match_the_runtime_bit_for_bit() {
    use oryx_core::runtime::mock_embedding::{embed, DIMENSIONS, MODEL_ID};
    let answers = answers();
    let cases = answers["mockEmbedding"]
        .as_array()
        .expect("mockEmbedding cases");
    assert!(cases.len() >= 5, "{} cases", cases.len());
    for case in cases {
        let text = case["text"].as_str().unwrap();
        assert_eq!(case["modelId"], MODEL_ID);
        assert_eq!(case["dimensions"], DIMENSIONS);
        let got: Vec<String> = embed(text)
            .iter()
            .map(|f| format!("{:08x}", f.to_bits()))
            .collect();
        let want: Vec<&str> = case["bits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b.as_str().unwrap())
            .collect();
        let head: String = text.chars().take(40).collect();
        assert_eq!(got, want, "the mock vector of {head:?}");
        let blob: String = oryx_core::runtime::memory_vectors::encode(&embed(text))
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(
            blob,
            case["blobHex"].as_str().unwrap(),
            "the blob of {head:?}"
        );
    }
}
