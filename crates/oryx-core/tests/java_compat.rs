//! The Java runtime's own SQL still works on a database the console has opened (issue #7 added an
//! index, a trigram FTS5 table and triggers to `memory_entries`), run through sqlite-jdbc, the
//! runtime's driver (Debian's `libxerial-sqlite-jdbc-java`, installed by `make deps`), and what
//! it writes is what the console reads and recalls.

use std::path::Path;
use std::process::Command;

use oryx_core::memory::{LongTermMemoryStore, Scope, SqliteMemoryStore};
use oryx_core::names::Owner;
use oryx_core::sessions::SessionStore;

const JDBC_JAR: &str = "/usr/share/java/sqlite-jdbc.jar";

#[test]
fn the_runtimes_sql_works_after_the_console_added_its_indexes() {
    let jar = std::env::var("ORYX_SQLITE_JDBC").unwrap_or_else(|_| JDBC_JAR.into());
    assert!(
        Path::new(&jar).exists(),
        "{jar} is missing: run `make deps` (Debian package libxerial-sqlite-jdbc-java)"
    );
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("oryxos.db");
    let agent = Owner::Agent("assistant".into());
    let store = SqliteMemoryStore::new(&db);
    store
        .append(&agent, Scope::Archival, "console wrote this first", None)
        .unwrap();
    assert_eq!(store.recall(&agent, "console wrote").unwrap().len(), 1);
    let conn = rusqlite::Connection::open(&db).unwrap();
    let objects: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_master WHERE name LIKE 'memory_entries_fts%' OR name = 'idx_memory_console_order' ORDER BY name")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    for want in [
        "idx_memory_console_order",
        "memory_entries_fts",
        "memory_entries_fts_ai",
        "memory_entries_fts_ad",
        "memory_entries_fts_au",
    ] {
        assert!(
            objects.iter().any(|o| o == want),
            "{want} missing: {objects:?}"
        );
    }
    drop(conn);

    let source =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/java-compat/RuntimeSql.java");
    let out = Command::new("java")
        .arg("-cp")
        .arg(&jar)
        .arg(&source)
        .arg(&db)
        .output()
        .expect("java runs (openjdk-17-jre-headless)");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "the runtime's SQL failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("sessions ok"), "{stdout}");

    // A new console process reads and recalls what the runtime wrote, through the triggers.
    let store = SqliteMemoryStore::new(&db);
    let all = store.load_all(&agent).unwrap();
    assert_eq!(
        all.core
            .iter()
            .map(|e| e.content.as_str())
            .collect::<Vec<_>>(),
        ["java core fact"]
    );
    let contents = |k: &str| -> Vec<String> {
        store
            .recall(&agent, k)
            .unwrap()
            .into_iter()
            .map(|e| e.content)
            .collect()
    };
    assert_eq!(
        contents("KUBERNETES"),
        ["java wrote this: 部署到 kubernetes 集群"]
    );
    assert_eq!(
        contents("集群"),
        ["java wrote this: 部署到 kubernetes 集群"]
    );
    assert_eq!(
        contents("rollback plan"),
        ["java row updated: rollback plan"]
    );
    assert!(
        contents("row to update").is_empty(),
        "the update reached the index"
    );
    assert!(
        contents("row to delete").is_empty(),
        "the delete reached the index"
    );
    assert_eq!(all.archival.len(), 3);

    let session = SessionStore::new(&db).get("java:compat:1").unwrap();
    assert_eq!(session.messages.len(), 2);
}
