//! Live refresh: the console's own reads are not changes (they used to be announced, so the UI
//! refetched, read again and looped); a write by another process is announced once.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{channel, Receiver};
use std::sync::Arc;
use std::time::{Duration, Instant};

use oryx_core::memory::{
    Backend, LongTermMemoryStore, MarkdownMemoryStore, MemoryService, SqliteMemoryStore,
};
use oryx_core::names::Owner;
use oryx_core::sessions::{SessionFilter, SessionPage, SessionStore};
use oryx_core::watch::{watch, Change, Watcher};

const MEMORY: &str = "## 核心记忆\n- [2026-01-01 00:00:00] 用户叫小林\n## 归档记忆\n";

struct Fixture {
    _dir: tempfile::TempDir,
    root: PathBuf,
    db: PathBuf,
    settings: PathBuf,
}

/// A root with one agent and its memory, and a WAL database holding one session and one
/// sqlite memory entry, every connection to it closed (so the -wal/-shm files are gone, as
/// when the runtime is idle). `db_inside_root` puts the database in the root (watched
/// recursively) or in a folder of its own (watched on its own).
fn fixture(db_inside_root: bool) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join(".oryxos");
    fs::create_dir_all(root.join("agents/a")).unwrap();
    fs::write(
        root.join("agents/a/AGENT.md"),
        "---\nname: a\nmodel: m\n---\nAn agent.\n",
    )
    .unwrap();
    fs::write(root.join("agents/a/MEMORY.md"), MEMORY).unwrap();
    let db = if db_inside_root {
        root.join("oryxos.db")
    } else {
        let d = dir.path().join("data");
        fs::create_dir_all(&d).unwrap();
        d.join("oryxos.db")
    };
    write_db(
        &db,
        &(session_row("s0")
            + "INSERT INTO memory_entries(agent_name, scope, content, created_at) \
               VALUES ('a', 'CORE', 'from sqlite', 1767225600000);"),
    );
    let settings = dir.path().join("settings.json");
    let f = Fixture {
        _dir: dir,
        root,
        db,
        settings,
    };
    // The console has opened this database before: its sqlite memory store adds its indexes
    // once, on the first open (a write, see `the_consoles_first_open_is_reported_at_most_once`).
    console(&f, Backend::Sqlite).memory_view(Some("a")).unwrap();
    assert!(!sibling(&f.db, "-wal").exists(), "closed cleanly");
    f
}

fn sibling(db: &Path, suffix: &str) -> PathBuf {
    let mut s = db.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

/// Another connection (the runtime) writes `sql` and closes.
fn write_db(db: &Path, sql: &str) {
    let conn = oryx_core::db::open_or_create(db).unwrap();
    conn.execute_batch(sql).unwrap();
}

fn session_row(id: &str) -> String {
    format!(
        "INSERT INTO sessions(session_id, profile_name, channel, user_id, messages_json, status, \
         created_at, last_active_at) VALUES ('{id}', 'a', 'cli', 'u', '[]', 'ACTIVE', \
         1767225600000, 1767225600000);"
    )
}

/// What the console reads through: a memory store of `backend` (its index beside the
/// settings, as the console keeps it) and the session store.
struct Console {
    root: PathBuf,
    memory: MemoryService,
    sessions: SessionStore,
}

struct View {
    core: Vec<oryx_core::memory::Entry>,
}

fn console(f: &Fixture, backend: Backend) -> Console {
    let store: Arc<dyn LongTermMemoryStore> = match backend {
        Backend::Markdown => Arc::new(MarkdownMemoryStore::new(&f.root)),
        Backend::Sqlite => Arc::new(SqliteMemoryStore::with_index_dir(
            &f.db,
            Some(f.settings.with_file_name("index")),
        )),
        Backend::Mem0 => unreachable!("mem0 is not on disk"),
    };
    Console {
        root: f.root.clone(),
        memory: MemoryService::new(store, 4000),
        sessions: SessionStore::new(&f.db),
    }
}

impl Console {
    fn memory_view(&self, agent: Option<&str>) -> oryx_core::Result<View> {
        let owner = agent.map_or(Owner::Global, |a| Owner::Agent(a.into()));
        Ok(View {
            core: self.memory.view(&owner)?.core,
        })
    }

    fn list_sessions(&self, filter: &SessionFilter) -> oryx_core::Result<SessionPage> {
        self.sessions.list(filter)
    }

    /// What the agent list reads: the catalog, every agent's last session and memory counts.
    fn list_agents(&self) -> oryx_core::Result<()> {
        let last = self.sessions.last_active_by_agent()?;
        for a in oryx_core::agents::list(&self.root)? {
            let owner = Owner::Agent(a.name.clone());
            self.memory.store().count(&owner)?;
            self.memory.store().size(&owner);
            oryx_core::agents::memory_modified(&self.root, &owner);
            let _ = last.get(&a.name);
        }
        Ok(())
    }

    fn session_stats(&self) -> oryx_core::Result<()> {
        self.sessions.stats().map(|_| ())
    }
}

fn start(f: &Fixture) -> (Watcher, Receiver<Vec<Change>>) {
    let (tx, rx) = channel();
    let w = watch(&f.root, &f.db, move |c| {
        let _ = tx.send(c);
    })
    .unwrap();
    (w, rx)
}

/// Everything reported within `window`.
fn collect(rx: &Receiver<Vec<Change>>, window: Duration) -> Vec<Change> {
    let end = Instant::now() + window;
    let mut got = Vec::new();
    while let Some(left) = end.checked_duration_since(Instant::now()) {
        match rx.recv_timeout(left) {
            Ok(batch) => got.extend(batch),
            Err(_) => break,
        }
    }
    got
}

fn sessions() -> Change {
    Change::Database
}

fn memory_of(agent: &str) -> Change {
    Change::Memory(Some(agent.into()))
}

fn reads_are_not_changes(db_inside_root: bool) {
    let f = fixture(db_inside_root);
    let (w, rx) = start(&f);
    let md = console(&f, Backend::Markdown);
    let sq = console(&f, Backend::Sqlite);
    // What a page does, several times over: read the files, list the sessions, show memories.
    for _ in 0..3 {
        let text = fs::read(f.root.join("agents/a/MEMORY.md")).unwrap();
        assert_eq!(text, MEMORY.as_bytes());
        fs::read(f.root.join("agents/a/AGENT.md")).unwrap();
        let page = md.list_sessions(&SessionFilter::default()).unwrap();
        assert_eq!(page.total, 1);
        assert_eq!(md.memory_view(Some("a")).unwrap().core.len(), 1);
        assert_eq!(sq.memory_view(Some("a")).unwrap().core.len(), 1);
        md.list_agents().unwrap();
        md.session_stats().unwrap();
    }
    let got = collect(&rx, Duration::from_millis(1500));
    assert!(got.is_empty(), "reads were announced as changes: {got:?}");
    // Not even a candidate: the database was fingerprinted once, at the start.
    assert_eq!(w.db_probes(), 1);
}

#[test]
fn reading_memory_and_the_database_reports_nothing() {
    reads_are_not_changes(true);
}

#[test]
fn reading_a_database_outside_the_root_reports_nothing() {
    reads_are_not_changes(false);
}

#[test]
fn an_external_append_to_memory_is_reported_once() {
    let f = fixture(true);
    let (_w, rx) = start(&f);
    let mut file = fs::OpenOptions::new()
        .append(true)
        .open(f.root.join("agents/a/MEMORY.md"))
        .unwrap();
    file.write_all("- [2026-01-03 00:00:00] new fact\n".as_bytes())
        .unwrap();
    drop(file);
    let first = rx
        .recv_timeout(Duration::from_secs(2))
        .expect("an event within 2 s");
    assert_eq!(first, vec![memory_of("a")]);
    let more = collect(&rx, Duration::from_millis(1000));
    assert!(more.is_empty(), "one write, one event: then {more:?}");
}

fn an_insert_is_reported_once(db_inside_root: bool) {
    let f = fixture(db_inside_root);
    let (w, rx) = start(&f);
    // The runtime: another connection that writes a session row and closes.
    write_db(&f.db, &session_row("s1"));
    let first = rx
        .recv_timeout(Duration::from_secs(2))
        .expect("an event within 2 s");
    assert_eq!(first, vec![sessions()]);
    let more = collect(&rx, Duration::from_millis(1000));
    assert!(more.is_empty(), "one write, one event: then {more:?}");
    // The fingerprint query does not trigger itself: no probe while nothing is written.
    let probes = w.db_probes();
    assert!(probes <= 4, "{probes} probes for one write");
    // And the console reading the new row afterwards is still no change.
    let page = console(&f, Backend::Markdown)
        .list_sessions(&SessionFilter::default())
        .unwrap();
    assert_eq!(page.total, 2);
    let after = collect(&rx, Duration::from_millis(1000));
    assert!(after.is_empty(), "reading the new row: {after:?}");
    assert_eq!(
        w.db_probes(),
        probes,
        "reads or the probe itself started probing"
    );
}

#[test]
fn an_external_session_insert_is_reported_once() {
    an_insert_is_reported_once(true);
}

#[test]
fn an_insert_into_a_database_outside_the_root_is_reported_once() {
    an_insert_is_reported_once(false);
}

#[test]
fn an_external_session_update_is_reported_once() {
    // The runtime appending to a conversation: same row count, same rowids, new content.
    let f = fixture(true);
    let (_w, rx) = start(&f);
    write_db(
        &f.db,
        "UPDATE sessions SET messages_json = '[{\"role\":\"user\",\"content\":\"hi\"}]', \
         last_active_at = 1767225700000 WHERE session_id = 's0';",
    );
    let first = rx
        .recv_timeout(Duration::from_secs(2))
        .expect("an event within 2 s");
    assert_eq!(first, vec![sessions()]);
    let more = collect(&rx, Duration::from_millis(1000));
    assert!(more.is_empty(), "one write, one event: then {more:?}");
}

#[test]
fn the_consoles_first_open_is_reported_at_most_once() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join(".oryxos");
    fs::create_dir_all(root.join("agents/a")).unwrap();
    let db = root.join("oryxos.db");
    write_db(&db, &session_row("s0"));
    let f = Fixture {
        _dir: dir,
        settings: root.join("settings.json"),
        root,
        db,
    };
    let (_w, rx) = start(&f);
    // The first open of a runtime's database by the sqlite memory store may add the console's
    // indexes: a real write, but a single one, and the reads after it are quiet again.
    let c = console(&f, Backend::Sqlite);
    c.memory_view(Some("a")).unwrap();
    let got = collect(&rx, Duration::from_millis(1500));
    assert!(got.len() <= 1, "{got:?}");
    for _ in 0..3 {
        c.memory_view(Some("a")).unwrap();
        c.list_sessions(&SessionFilter::default()).unwrap();
    }
    let again = console(&f, Backend::Sqlite);
    again.memory_view(Some("a")).unwrap();
    let got = collect(&rx, Duration::from_millis(1500));
    assert!(got.is_empty(), "{got:?}");
}
