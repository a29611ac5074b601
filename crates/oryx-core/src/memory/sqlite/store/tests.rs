use super::*;
use crate::memory::sqlite::index::ORDER_INDEX;

struct Fixture {
    _dir: tempfile::TempDir,
    path: PathBuf,
    index_dir: PathBuf,
}

impl Fixture {
    fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        Fixture {
            path: dir.path().join("oryxos.db"),
            index_dir: dir.path().join("config/index"),
            _dir: dir,
        }
    }

    fn store(&self) -> SqliteMemoryStore {
        SqliteMemoryStore::with_index_dir(&self.path, Some(self.index_dir.clone()))
    }

    /// The same database read without an index.
    fn scanning(&self) -> SqliteMemoryStore {
        SqliteMemoryStore::with_index_dir(&self.path, None)
    }

    /// A connection of "the runtime".
    fn runtime(&self) -> Connection {
        let conn = db::open_or_create(&self.path).unwrap();
        conn.execute_batch(db::MEMORY_AGENT_INDEX).unwrap();
        conn
    }
}

fn schema(path: &Path) -> Vec<(String, String, Option<String>)> {
    let conn = Connection::open(path).unwrap();
    let mut stmt = conn
        .prepare("SELECT type, name, sql FROM sqlite_master ORDER BY type, name")
        .unwrap();
    let rows = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap();
    rows.collect::<rusqlite::Result<_>>().unwrap()
}

/// What recall must answer: every archival row of the owner, filtered here, as the runtime's
/// recall shows it (raw content).
fn recall_by_scan(s: &SqliteMemoryStore, owner: &Owner, keyword: &str) -> Vec<Entry> {
    let needle = keyword.to_lowercase();
    s.load_all(owner)
        .unwrap()
        .archival
        .into_iter()
        .filter(|e| contains_ci(&e.content, &needle))
        .map(|e| Entry {
            line: e.content.clone(),
            ..e
        })
        .collect()
}

fn uses_index(s: &SqliteMemoryStore) -> bool {
    matches!(s.lock().index, IndexState::Open(_))
}

fn with_index_conn<T>(s: &SqliteMemoryStore, f: impl FnOnce(&Connection) -> T) -> T {
    match &s.lock().index {
        IndexState::Open(ix) => f(ix.conn()),
        _ => panic!("no index open"),
    }
}

#[test]
fn indexed_recall_equals_a_full_scan_and_follows_the_runtimes_writes() {
    let f = Fixture::new();
    // Rows written before the console ever opened the database (copied on first read).
    let conn = f.runtime();
    conn.execute_batch(
        "INSERT INTO memory_entries(agent_name, scope, content, created_at) VALUES
             ('a', 'ARCHIVAL', 'scale the Kubernetes cluster', 3),
             ('a', 'archival', '准备数据库迁移方案', '1970-01-01T00:00:00.002'),
             ('a', 'ARCHIVAL', '\u{212A}UBERNETES with a kelvin sign', 1),
             ('a', 'ARCHIVAL', 'TAX\u{130} and taxi', 4),
             ('a', 'CORE', 'kubernetes in core', 5),
             ('b', 'ARCHIVAL', 'kubernetes of b', 6),
             ('a', 'ARCHIVAL', 'ÄRGER 100% sure_thing \"quoted\"', 7);",
    )
    .unwrap();
    let before = schema(&f.path);
    let s = f.store();
    let a = Owner::Agent("a".into());
    assert_eq!(s.count(&a).unwrap().archival, 5);
    assert!(uses_index(&s), "the index is in use");
    // Rows the runtime writes, updates and deletes afterwards, on its own connection.
    conn.execute_batch(
            "INSERT INTO memory_entries(agent_name, scope, content, created_at) VALUES
                 ('a', 'ARCHIVAL', 'later kubernetes row', 8),
                 ('a', 'ARCHIVAL', 'to be changed', 9),
                 ('a', 'ARCHIVAL', 'deleted kubernetes row', 10);
             UPDATE memory_entries SET content = 'changed into kubernetes' WHERE content = 'to be changed';
             DELETE FROM memory_entries WHERE content = 'deleted kubernetes row';",
        )
        .unwrap();
    let keywords = [
        "kubernetes",
        "KUBER",
        "kub",
        "ku",
        "数据库迁移",
        "数据库",
        "迁移",
        "taxi",
        "tax",
        "i",
        "ärger",
        "100%",
        "s_r",
        "\"quoted\"",
        "",
        "changed",
        "to be",
    ];
    let scan = f.scanning();
    for kw in keywords {
        let want = recall_by_scan(&scan, &a, kw);
        assert_eq!(s.recall(&a, kw).unwrap(), want, "{kw:?}");
        assert_eq!(scan.recall(&a, kw).unwrap(), want, "{kw:?} without index");
    }
    let hits: Vec<_> = s
        .recall(&a, "kubernetes")
        .unwrap()
        .into_iter()
        .map(|e| e.content)
        .collect();
    assert_eq!(
        hits,
        [
            "\u{212A}UBERNETES with a kelvin sign",
            "scale the Kubernetes cluster",
            "later kubernetes row",
            "changed into kubernetes"
        ],
        "time order, the runtime's later writes included"
    );
    let check: String = with_index_conn(&s, |c| {
        c.query_row(
            &format!("INSERT INTO {FTS}({FTS}, rank) VALUES ('integrity-check', 1) RETURNING 'ok'"),
            [],
            |r| r.get(0),
        )
    })
    .unwrap_or_else(|e| panic!("fts integrity: {e}"));
    assert_eq!(check, "ok");
    assert_eq!(
        s.count(&a).unwrap(),
        EntryCounts {
            core: 1,
            archival: 7
        }
    );
    assert_eq!(
        (
            s.load_all(&a).unwrap().core.len(),
            s.load_all(&a).unwrap().archival.len()
        ),
        (1, 7)
    );
    assert_eq!(schema(&f.path), before, "the runtime's schema is untouched");
}

#[test]
fn edits_of_the_same_length_and_deletes_are_noticed_also_by_a_later_process() {
    let f = Fixture::new();
    let conn = f.runtime();
    let a = Owner::Agent("a".into());
    let contents = |s: &SqliteMemoryStore| -> Vec<String> {
        s.load_all(&a)
            .unwrap()
            .archival
            .into_iter()
            .map(|e| e.content)
            .collect()
    };
    let s = f.store();
    for i in 0..5 {
        s.append(&a, Scope::Archival, &format!("note {i} teh end"), None)
            .unwrap();
    }
    assert_eq!(s.recall(&a, "teh").unwrap().len(), 5);
    // Same length, same id: only the content's hash differs.
    conn.execute_batch(
        "UPDATE memory_entries SET content = 'note 1 the end' WHERE content = 'note 1 teh end'",
    )
    .unwrap();
    assert_eq!(s.recall(&a, "teh").unwrap().len(), 4);
    assert_eq!(
        s.recall(&a, "the end").unwrap()[0].content,
        "note 1 the end"
    );
    drop(s);
    // While no console runs: an edit, a delete, a moved row and a new row.
    conn.execute_batch(
        "UPDATE memory_entries SET content = 'note 2 tex end' WHERE content = 'note 2 teh end';
             DELETE FROM memory_entries WHERE content = 'note 3 teh end';
             UPDATE memory_entries SET scope = 'CORE' WHERE content = 'note 4 teh end';
             INSERT INTO memory_entries(agent_name, scope, content, created_at)
                 VALUES ('a', 'ARCHIVAL', 'note 5 teh end', 4102444800000);",
    )
    .unwrap();
    let s = f.store();
    assert_eq!(
        contents(&s),
        [
            "note 0 teh end",
            "note 1 the end",
            "note 2 tex end",
            "note 5 teh end"
        ]
    );
    assert_eq!(contents(&s), contents(&f.scanning()));
    assert_eq!(
        s.recall(&a, "teh")
            .unwrap()
            .into_iter()
            .map(|e| e.content)
            .collect::<Vec<_>>(),
        ["note 0 teh end", "note 5 teh end"]
    );
    assert_eq!(s.load_all(&a).unwrap().core[0].content, "note 4 teh end");
    // A database replaced by another one at the same path: ids start again.
    drop(conn);
    drop(s);
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", f.path.display()));
    }
    let conn = f.runtime();
    conn.execute_batch(
        "INSERT INTO memory_entries(agent_name, scope, content, created_at)
                 VALUES ('a', 'ARCHIVAL', 'a new database', 1);",
    )
    .unwrap();
    let s = f.store();
    assert_eq!(contents(&s), ["a new database"]);
    assert!(s.recall(&a, "teh").unwrap().is_empty());
}

#[test]
fn the_window_and_the_recall_use_indexes() {
    let f = Fixture::new();
    let s = f.store();
    s.append(&Owner::Global, Scope::Archival, "x", None)
        .unwrap();
    s.count(&Owner::Global).unwrap();
    let plan = |sql: &str| -> String {
        with_index_conn(&s, |c| {
            let mut stmt = c.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
            let rows = stmt
                .query_map([], |r| r.get::<_, String>(3))
                .unwrap()
                .collect::<rusqlite::Result<Vec<_>>>()
                .unwrap();
            rows.join("; ")
        })
    };
    let window = plan(
        "SELECT content FROM entries WHERE agent_name = 'a' AND upper(scope) = 'ARCHIVAL' \
             ORDER BY ts DESC, id DESC LIMIT 10",
    );
    assert!(window.contains(ORDER_INDEX), "{window}");
    assert!(!window.contains("TEMP B-TREE"), "{window}");
    let recall = plan(&format!(
        "SELECT content FROM (SELECT rowid AS fts_id FROM {FTS} WHERE {FTS} MATCH '\"abc\"') \
             CROSS JOIN entries ON id = fts_id WHERE agent_name = 'a' ORDER BY ts, id"
    ));
    assert!(recall.contains("VIRTUAL TABLE"), "{recall}");
    assert!(recall.contains("INTEGER PRIMARY KEY"), "{recall}");
}

#[test]
fn reads_rows_the_java_runtime_wrote() {
    let f = Fixture::new();
    f.runtime()
        .execute_batch(
            "INSERT INTO memory_entries(agent_name, scope, content, created_at) VALUES
                 ('a', 'core', 'lower-case scope', 1753147800000),
                 ('a', 'ARCHIVAL', '100% sure_thing', '2025-07-22T09:31:10'),
                 ('__global__', 'CORE', 'global fact', 1);",
        )
        .unwrap();
    let s = f.store();
    let a = Owner::Agent("a".into());
    let all = s.load_all(&a).unwrap();
    assert_eq!(all.core[0].content, "lower-case scope");
    assert!(all.archival[0].timestamp.is_some());
    assert_eq!(s.load_all(&Owner::Global).unwrap().core.len(), 1);
    assert_eq!(s.recall(&a, "100%").unwrap().len(), 1);
    assert_eq!(
        s.recall(&a, "s_r").unwrap().len(),
        0,
        "LIKE wildcards are escaped"
    );
    assert_eq!(s.recall(&a, "SURE").unwrap()[0].line, "100% sure_thing");
}

#[test]
fn reading_a_missing_database_creates_nothing() {
    let f = Fixture::new();
    let s = f.store();
    assert_eq!(s.load_all(&Owner::Global).unwrap(), Sections::default());
    assert_eq!(s.count(&Owner::Global).unwrap(), EntryCounts::default());
    assert!(s.recall(&Owner::Global, "x").unwrap().is_empty());
    assert!(!f.path.exists());
    // A database without the table (a runtime that never used sqlite memory) stays as it is.
    Connection::open(&f.path)
        .unwrap()
        .execute_batch("CREATE TABLE sessions(session_id TEXT PRIMARY KEY)")
        .unwrap();
    let before = schema(&f.path);
    assert!(s.load_context(&Owner::Global, 100).unwrap().core.is_empty());
    assert_eq!(schema(&f.path), before);
}

#[test]
fn without_a_writable_index_directory_reads_scan_the_runtimes_table() {
    let f = Fixture::new();
    let blocker = f.path.with_file_name("not-a-dir");
    std::fs::write(&blocker, "a file where the index directory would be").unwrap();
    let s = SqliteMemoryStore::with_index_dir(&f.path, Some(blocker.join("index")));
    let a = Owner::Agent("a".into());
    s.append(&a, Scope::Archival, "kubernetes upgrade", None)
        .unwrap();
    assert_eq!(s.recall(&a, "KUBERNETES").unwrap().len(), 1);
    assert!(matches!(s.lock().index, IndexState::Unavailable));
}

#[test]
fn a_damaged_index_is_rebuilt_from_the_runtimes_rows() {
    let f = Fixture::new();
    let s = f.store();
    s.append(&Owner::Global, Scope::Archival, "kubernetes notes", None)
        .unwrap();
    assert_eq!(s.recall(&Owner::Global, "kubernetes").unwrap().len(), 1);
    let file = s.index_file().unwrap();
    drop(s);
    for suffix in ["-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", file.display()));
    }
    std::fs::write(
        &file,
        "not a database, only text long enough to be read as a header",
    )
    .unwrap();
    let s = f.store();
    assert_eq!(s.recall(&Owner::Global, "kubernetes").unwrap().len(), 1);
    assert!(uses_index(&s));
}

#[test]
fn indexes_of_databases_that_are_gone_are_removed() {
    let f = Fixture::new();
    let gone = f.path.with_file_name("temporary.db");
    let s = SqliteMemoryStore::with_index_dir(&gone, Some(f.index_dir.clone()));
    s.append(&Owner::Global, Scope::Archival, "x", None)
        .unwrap();
    s.count(&Owner::Global).unwrap();
    let orphan = s.index_file().unwrap();
    drop(s);
    std::fs::remove_file(&gone).unwrap();
    assert!(orphan.exists());
    let s = f.store();
    s.append(&Owner::Global, Scope::Archival, "y", None)
        .unwrap();
    s.count(&Owner::Global).unwrap();
    assert!(s.index_file().unwrap().exists());
    assert!(!orphan.exists(), "the index of a database that is gone");
}
