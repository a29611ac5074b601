//! The Java runtime's own SQL works on a database the console has used, run through
//! sqlite-jdbc, the runtime's driver (Debian's `libxerial-sqlite-jdbc-java`, installed by
//! `make deps`), and what it writes, updates and deletes is what the console reads and recalls.
//! The console adds nothing to the runtime's schema: its indexes live in a database of its own.

use std::path::Path;
use std::process::Command;

use oryx_core::memory::{LongTermMemoryStore, Scope, SqliteMemoryStore};
use oryx_core::names::Owner;
use oryx_core::sessions::SessionStore;

const JDBC_JAR: &str = "/usr/share/java/sqlite-jdbc.jar";

fn schema(db: &Path) -> Vec<(String, String, Option<String>)> {
    let conn = rusqlite::Connection::open(db).unwrap();
    let mut stmt = conn
        .prepare("SELECT type, name, sql FROM sqlite_master ORDER BY rowid")
        .unwrap();
    let rows = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap();
    rows.collect::<Result<_, _>>().unwrap()
}

#[test]
fn the_runtimes_sql_works_on_a_database_the_console_used() {
    let jar = std::env::var("ORYX_SQLITE_JDBC").unwrap_or_else(|_| JDBC_JAR.into());
    assert!(
        Path::new(&jar).exists(),
        "{jar} is missing: run `make deps` (Debian package libxerial-sqlite-jdbc-java)"
    );
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("oryxos.db");
    let index_dir = dir.path().join("config/index");
    let agent = Owner::Agent("assistant".into());
    let store = SqliteMemoryStore::with_index_dir(&db, Some(index_dir.clone()));
    store
        .append(&agent, Scope::Archival, "console wrote this first", None)
        .unwrap();
    let after_append = schema(&db);
    assert_eq!(store.recall(&agent, "console wrote").unwrap().len(), 1);
    assert_eq!(schema(&db), after_append, "a read adds nothing");
    assert!(
        after_append
            .iter()
            .all(|(_, name, _)| !name.contains("fts") && !name.contains("console")),
        "no object of the console's in the runtime's database: {after_append:?}"
    );
    assert!(store.index_file().unwrap().exists());

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

    // The console that was open, and a new console process, read and recall what the runtime
    // wrote, updated and deleted.
    assert_eq!(
        store.recall(&agent, "rollback plan").unwrap()[0].content,
        "java row updated: rollback plan"
    );
    assert!(store.recall(&agent, "row to delete").unwrap().is_empty());
    drop(store);
    let store = SqliteMemoryStore::with_index_dir(&db, Some(index_dir));
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
    assert_eq!(schema(&db), after_append, "the schema is the runtime's");
}
