//! Hostile input: files and databases nobody should have to read. Each bad item gives
//! a clear error for that item, the rest of the console keeps working, and nothing is rewritten.

use std::fs;
use std::path::{Path, PathBuf};

use oryx_api::dto::{AppendRequest, ScopeDto, SessionQuery};
use oryx_api::{Console, ErrorCode};
use oryx_core::config::Overrides;
use oryx_core::memory::Backend;
use rusqlite::Connection;

struct Root {
    _dir: tempfile::TempDir,
    root: PathBuf,
    db: PathBuf,
    settings: PathBuf,
}

const GOOD_MEMORY: &str = "## 核心记忆\n- [2026-01-01 00:00:00] 用户叫小林\n## 归档记忆\n- [2026-01-02 00:00:00] archived fact\n";

fn agent(root: &Path, name: &str, agent_md: &[u8], memory: Option<&[u8]>) {
    let dir = root.join("agents").join(name);
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join("AGENT.md"), agent_md).unwrap();
    if let Some(m) = memory {
        fs::write(dir.join("MEMORY.md"), m).unwrap();
    }
}

fn root() -> Root {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join(".oryxos");
    agent(
        &root,
        "good",
        b"---\nname: good\nmodel: m\n---\nA fine agent.\n",
        Some(GOOD_MEMORY.as_bytes()),
    );
    let db = root.join("oryxos.db");
    let settings = dir.path().join("settings.json");
    Root {
        _dir: dir,
        root,
        db,
        settings,
    }
}

fn console(r: &Root, backend: Backend) -> Console {
    Console::open(
        Some(r.settings.clone()),
        Overrides {
            root: Some(r.root.clone()),
            db_path: Some(r.db.clone()),
            backend: Some(backend),
            mem0_url: None,
        },
    )
    .unwrap()
}

/// The good agent still lists, with its counts, and its memory still reads and takes entries.
fn rest_keeps_working(c: &Console) {
    let list = c.list_agents().expect("agents still list");
    let good = list.agents.iter().find(|a| a.name == "good").unwrap();
    assert_eq!((good.memory.core, good.memory.archival), (1, 1), "{good:?}");
    let view = c.memory_view(Some("good")).unwrap();
    assert_eq!(view.core[0].content, "用户叫小林");
    c.append_memory(&AppendRequest {
        agent: Some("good".into()),
        scope: ScopeDto::Archival,
        content: "still writable".into(),
    })
    .unwrap();
    assert!(c
        .recall_memory(Some("good"), "STILL", None, None)
        .unwrap()
        .text
        .contains("still writable"));
}

#[test]
fn bad_memory_files_are_errors_or_lenient_reads_for_that_agent_only() {
    let r = root();
    // Invalid UTF-8 inside an entry: read with replacement characters, the rest intact.
    let mut bad_utf8 = b"## \xE6\xA0\xB8\xE5\xBF\x83\xE8\xAE\xB0\xE5\xBF\x86\n- [2026-01-01 00:00:00] ok\n- [2026-01-01 00:00:01] bad \xFF\xFE bytes\n".to_vec();
    bad_utf8.extend_from_slice("## 归档记忆\n- [2026-01-03 00:00:00] after\n".as_bytes());
    agent(&r.root, "utf8", b"---\nname: utf8\n---\n", Some(&bad_utf8));
    // Binary garbage: no sections, so no entries; nothing panics.
    let garbage: Vec<u8> = (0..64 * 1024u32)
        .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
        .collect();
    agent(&r.root, "garbage", b"\x00\xFF\xFE not yaml", Some(&garbage));
    // A 50 MB single line in the archival section.
    let mut huge =
        "## 核心记忆\n- [2026-01-01 00:00:00] core fact\n## 归档记忆\n- [2026-01-01 00:00:00] "
            .as_bytes()
            .to_vec();
    huge.resize(huge.len() + 50 * 1024 * 1024, b'x');
    huge.extend_from_slice(b" needle\n");
    agent(&r.root, "huge", b"---\nname: huge\n---\n", Some(&huge));
    // MEMORY.md is a directory: an error for that agent.
    agent(&r.root, "dirmem", b"---\nname: dirmem\n---\n", None);
    fs::create_dir_all(r.root.join("agents/dirmem/MEMORY.md")).unwrap();

    let c = console(&r, Backend::Markdown);
    let list = c.list_agents().unwrap();
    let by = |n: &str| list.agents.iter().find(|a| a.name == n).unwrap().clone();
    assert_eq!((by("utf8").memory.core, by("utf8").memory.archival), (2, 1));
    assert_eq!(
        (by("garbage").memory.core, by("garbage").memory.archival),
        (0, 0)
    );
    assert!(
        by("garbage")
            .warnings
            .iter()
            .any(|w| w.message.contains("not plain UTF-8")),
        "binary AGENT.md is reported: {:?}",
        by("garbage")
    );
    assert_eq!((by("huge").memory.core, by("huge").memory.archival), (1, 1));
    let dirmem = by("dirmem");
    assert!(dirmem.memory.error.is_some(), "{dirmem:?}");

    let v = c.memory_view(Some("utf8")).unwrap();
    assert!(v.core[1].content.contains('\u{FFFD}'));
    assert_eq!(v.archival[0].content, "after");

    // The prompt's load of the 50 MB line: a window of the line's end, not the whole line.
    let ctx = c.memory_context(Some("huge")).unwrap();
    assert!(ctx.contains("core fact") && ctx.ends_with("needle") || ctx.contains("needle"));
    assert!(
        ctx.len() < 10_000,
        "the context stays bounded: {}",
        ctx.len()
    );
    assert_eq!(
        c.recall_memory(Some("huge"), "NEEDLE", None, None)
            .unwrap()
            .entries
            .len(),
        1
    );

    let err = c.memory_view(Some("dirmem")).unwrap_err();
    assert_eq!(err.code, ErrorCode::Io);
    assert!(err.message.contains("MEMORY.md"), "{}", err.message);

    // Appending to the invalid-UTF-8 file keeps its bytes (no lossy rewrite).
    c.append_memory(&AppendRequest {
        agent: Some("utf8".into()),
        scope: ScopeDto::Core,
        content: "new core".into(),
    })
    .unwrap();
    let after = fs::read(r.root.join("agents/utf8/MEMORY.md")).unwrap();
    assert!(after.windows(2).any(|w| w == b"\xFF\xFE"), "bytes kept");
    assert_eq!(c.memory_view(Some("utf8")).unwrap().core.len(), 3);

    rest_keeps_working(&c);
}

#[test]
fn symlink_loops_and_escapes_in_agents_are_reported_not_followed() {
    let r = root();
    let agents = r.root.join("agents");
    std::os::unix::fs::symlink("loop", agents.join("loop")).unwrap();
    std::os::unix::fs::symlink(&agents, agents.join("cycle")).unwrap();
    let outside = r.root.parent().unwrap().join("outside");
    fs::create_dir_all(&outside).unwrap();
    fs::write(outside.join("AGENT.md"), "---\nname: outside\n---\n").unwrap();
    fs::write(outside.join("MEMORY.md"), GOOD_MEMORY).unwrap();
    std::os::unix::fs::symlink(&outside, agents.join("escape")).unwrap();

    let c = console(&r, Backend::Markdown);
    let list = c.list_agents().unwrap();
    for name in ["loop", "escape"] {
        if let Some(a) = list.agents.iter().find(|a| a.name == name) {
            assert!(
                !a.warnings.is_empty() || a.memory.error.is_some(),
                "{name} is flagged: {a:?}"
            );
        }
    }
    let err = c.memory_view(Some("escape")).unwrap_err();
    assert!(
        matches!(err.code, ErrorCode::OutsideRoot | ErrorCode::AgentNotFound),
        "{err:?}"
    );
    assert!(c
        .append_memory(&AppendRequest {
            agent: Some("escape".into()),
            scope: ScopeDto::Core,
            content: "must not land outside".into(),
        })
        .is_err());
    assert_eq!(
        fs::read_to_string(outside.join("MEMORY.md")).unwrap(),
        GOOD_MEMORY
    );
    assert!(c.memory_view(Some("loop")).is_err());
    rest_keeps_working(&c);
}

/// Writes a broken database at the given path.
type MakeDb = Box<dyn Fn(&Path)>;

fn write_db(path: &Path, sql: &str) {
    let conn = Connection::open(path).unwrap();
    conn.execute_batch(sql).unwrap();
}

fn sessions_db(r: &Root) {
    let conn = oryx_core::db::open_or_create(&r.db).unwrap();
    conn.execute_batch(
        "INSERT INTO sessions VALUES
          ('ok', 'good', 'cli', 'u', '[{\"role\":\"user\",\"content\":\"hi\"}]', 'active', 1, 2, NULL),
          ('broken', 'good', 'cli', 'u', '{not json', 'active', 1, 3, NULL),
          ('binary', 'good', 'cli', 'u', X'00FF00FF', 'archived', 1, 1, 5);",
    )
    .unwrap();
}

#[test]
fn a_corrupt_messages_json_is_an_error_for_that_session_only() {
    let r = root();
    sessions_db(&r);
    let before = fs::read(&r.db).unwrap();
    let c = console(&r, Backend::Markdown);
    let page = c.list_sessions(&SessionQuery::default()).unwrap();
    assert_eq!(page.total, 3);
    let item = |id: &str| page.items.iter().find(|s| s.session_id == id).unwrap();
    assert!(item("ok").error.is_none());
    assert!(item("broken").error.is_some(), "{:?}", item("broken"));
    // Opening it shows the error (the UI's error card) instead of failing the whole view.
    for id in ["broken", "binary"] {
        let s = c.get_session(id).unwrap();
        let why = s.summary.error.expect("an error for this session");
        assert!(why.contains(id) && why.contains("JSON"), "{why}");
        assert!(s.messages.is_empty());
    }
    assert_eq!(c.get_session("ok").unwrap().messages.len(), 1);
    assert_eq!(c.session_stats().unwrap().total, 3);
    drop(c);
    // Reading never rewrote a byte of the runtime's rows (WAL may add side files only).
    let conn = Connection::open(&r.db).unwrap();
    let raw: String = conn
        .query_row(
            "SELECT messages_json FROM sessions WHERE session_id='broken'",
            [],
            |row| row.get(0),
        )
        .unwrap();
    assert_eq!(raw, "{not json");
    assert!(!before.is_empty());
}

/// An older runtime's table without the optional columns lists what it has (CONTRACT §6: never fail
/// on a database's age); only a table that is not the runtime's is an error (above).
#[test]
fn a_sessions_table_without_optional_columns_still_lists() {
    let r = root();
    write_db(
        &r.db,
        "CREATE TABLE sessions(session_id TEXT, profile_name TEXT); INSERT INTO sessions VALUES ('a','good');",
    );
    let c = console(&r, Backend::Markdown);
    let page = c.list_sessions(&SessionQuery::default()).unwrap();
    assert_eq!(page.items.len(), 1);
    assert_eq!(page.items[0].agent.as_deref(), Some("good"));
    assert_eq!(page.items[0].channel, None);
    rest_keeps_working(&c);
}

#[test]
fn unreadable_databases_are_clear_errors_and_memory_keeps_working() {
    let cases: Vec<(&str, MakeDb)> = vec![
        (
            "not sqlite",
            Box::new(|p| {
                fs::write(p, "this is a text file, not a database\n".repeat(200)).unwrap()
            }),
        ),
        (
            "truncated",
            Box::new(|p| {
                let dir = tempfile::tempdir().unwrap();
                let full = dir.path().join("full.db");
                let conn = oryx_core::db::open_or_create(&full).unwrap();
                conn.execute_batch("PRAGMA journal_mode=DELETE;").unwrap();
                for i in 0..500 {
                    conn.execute(
                        "INSERT INTO sessions VALUES (?1,'good','cli','u','[]','active',1,2,NULL)",
                        [format!("s{i}-{}", "x".repeat(200))],
                    )
                    .unwrap();
                }
                drop(conn);
                let bytes = fs::read(&full).unwrap();
                fs::write(p, &bytes[..bytes.len() / 3]).unwrap();
            }),
        ),
        (
            "no session_id column",
            Box::new(|p| {
                write_db(p, "CREATE TABLE sessions(id TEXT, profile_name TEXT); INSERT INTO sessions VALUES ('a','good');")
            }),
        ),
        ("zero bytes", Box::new(|p| fs::write(p, b"").unwrap())),
    ];
    for (label, make) in cases {
        let r = root();
        make(&r.db);
        let before = fs::read(&r.db).unwrap();
        let c = console(&r, Backend::Markdown);
        match c.list_sessions(&SessionQuery::default()) {
            Err(e) => {
                assert!(
                    matches!(e.code, ErrorCode::Corrupt | ErrorCode::Io),
                    "{label}: {e:?}"
                );
                assert!(
                    e.message.contains("oryxos.db"),
                    "{label}: the message names the file: {}",
                    e.message
                );
            }
            // An empty file is an empty database to SQLite: an empty list is the right answer.
            Ok(page) => assert!(
                label == "zero bytes" && page.total == 0,
                "{label}: {page:?}"
            ),
        }
        rest_keeps_working(&c);
        assert!(
            c.prompt_preview("good", None, None).is_ok(),
            "{label}: prompt still builds"
        );
        drop(c);
        if label != "zero bytes" {
            assert_eq!(
                fs::read(&r.db).unwrap(),
                before,
                "{label}: the file is untouched"
            );
        }

        // The sqlite backend on the same file: the memory view says what is wrong.
        let c = console(&r, Backend::Sqlite);
        if label != "zero bytes" && label != "no session_id column" {
            let err = c.memory_view(Some("good")).unwrap_err();
            assert_eq!(err.code, ErrorCode::Corrupt, "{label}: {err:?}");
            assert!(
                err.message.contains("oryxos.db"),
                "{label}: {}",
                err.message
            );
            let list = c.list_agents().expect("agents list with a per-agent error");
            assert!(list.agents.iter().all(|a| a.memory.error.is_some()));
            drop(c);
            assert_eq!(
                fs::read(&r.db).unwrap(),
                before,
                "{label}: never repaired in place"
            );
        }
    }
}

/// FIFOs in place of the root's files: every console view
/// answers in time, with an error or a warning on that item, and the rest keeps working.
#[cfg(unix)]
#[test]
fn fifos_in_the_root_are_errors_for_that_item_never_hangs() {
    use oryx_core::rooted_fs::test_support::{mkfifo, within_deadline};
    let r = root();
    agent(&r.root, "piped", b"", None);
    fs::remove_file(r.root.join("agents/piped/AGENT.md")).unwrap();
    mkfifo(&r.root.join("agents/piped/AGENT.md"));
    mkfifo(&r.root.join("agents/piped/MEMORY.md"));
    mkfifo(&r.root.join("USER.md"));
    fs::write(
        r.root.join("agents/good/AGENT.md"),
        "---\nname: good\nbootstrap: [USER.md]\n---\nA fine agent.\n",
    )
    .unwrap();
    let c = std::sync::Arc::new(console(&r, Backend::Markdown));
    let c2 = c.clone();
    let (list, memory, add, prompt, user) = within_deadline(move || {
        (
            c2.list_agents(),
            c2.memory_view(Some("piped")),
            c2.append_memory(&AppendRequest {
                agent: Some("piped".into()),
                scope: ScopeDto::Archival,
                content: "x".into(),
            }),
            c2.prompt_preview("good", None, None),
            c2.bootstrap_file("USER.md"),
        )
    });
    let list = list.unwrap();
    let piped = list.agents.iter().find(|a| a.name == "piped").unwrap();
    assert!(
        piped.warnings.iter().any(|w| w.message.contains("FIFO")),
        "{piped:?}"
    );
    assert!(
        piped
            .memory
            .error
            .as_deref()
            .is_some_and(|e| e.contains("FIFO")),
        "{piped:?}"
    );
    for e in [memory.unwrap_err(), add.unwrap_err(), user.unwrap_err()] {
        assert_eq!(e.code, ErrorCode::Io, "{e:?}");
        assert!(e.message.contains("not a regular file"), "{e:?}");
    }
    let prompt = prompt.unwrap();
    assert!(
        prompt
            .warnings
            .iter()
            .any(|w| w.message.contains("USER.md") && w.message.contains("FIFO")),
        "{:?}",
        prompt.warnings
    );
    rest_keeps_working(&c);

    // oryxos.db as a FIFO: the sessions views answer with an error.
    mkfifo(&r.db);
    let c2 = c.clone();
    let sessions = within_deadline(move || c2.list_sessions(&SessionQuery::default()));
    let e = sessions.unwrap_err();
    assert!(e.message.contains("FIFO"), "{e:?}");
}

/// A root that vanished (or was mistyped) is an error naming it, never an empty console, and no
/// write recreates it; the settings view says so for the UI's banner.
#[test]
fn a_missing_root_is_reported_not_recreated() {
    let r = root();
    let gone = r.root.parent().unwrap().join("gone/deep");
    // Footprints are off by default; on, their write must fail too.
    fs::write(&r.settings, r#"{"footprintEnabled": true}"#).unwrap();
    let c = Console::open(
        Some(r.settings.clone()),
        Overrides {
            root: Some(gone.clone()),
            ..Overrides::default()
        },
    )
    .unwrap();
    let problem = c.get_settings().unwrap().effective.root_problem;
    assert!(
        problem
            .as_deref()
            .is_some_and(|p| p.contains("does not exist") && p.contains("gone/deep")),
        "{problem:?}"
    );
    let errors = [
        c.list_agents().map(|_| ()).unwrap_err(),
        c.memory_view(None).map(|_| ()).unwrap_err(),
        c.append_memory(&AppendRequest {
            agent: None,
            scope: ScopeDto::Archival,
            content: "x".into(),
        })
        .map(|_| ())
        .unwrap_err(),
        c.list_sessions(&SessionQuery::default())
            .map(|_| ())
            .unwrap_err(),
        c.record_footprint(Some("a"), "hi", "hello")
            .map(|_| ())
            .unwrap_err(),
    ];
    for e in errors {
        assert!(e.message.contains("gone/deep"), "{e:?}");
    }
    assert!(!gone.exists() && !gone.parent().unwrap().exists());

    // Created on purpose, it takes writes and the problem is gone.
    c.create_root().unwrap();
    assert_eq!(c.get_settings().unwrap().effective.root_problem, None);
    c.append_memory(&AppendRequest {
        agent: None,
        scope: ScopeDto::Archival,
        content: "now".into(),
    })
    .unwrap();
    assert!(c.list_agents().unwrap().agents.is_empty());
}

/// `/` (or any full folder that is not a root) is refused for writes: nothing is written there.
#[test]
fn a_folder_that_is_not_a_root_takes_no_writes() {
    let r = root();
    let home = r.root.parent().unwrap().join("home");
    fs::create_dir_all(home.join("Documents")).unwrap();
    let c = Console::open(
        Some(r.settings.clone()),
        Overrides {
            root: Some(home.clone()),
            ..Overrides::default()
        },
    )
    .unwrap();
    let e = c
        .append_memory(&AppendRequest {
            agent: None,
            scope: ScopeDto::Archival,
            content: "x".into(),
        })
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidInput, "{e:?}");
    assert!(e.message.contains("not a .oryxos root"), "{e:?}");
    assert!(!home.join("memory").exists());
    assert!(c.get_settings().unwrap().effective.root_problem.is_some());
    // Reading it is harmless and allowed.
    assert!(c.list_agents().unwrap().agents.is_empty());
}

/// Settings saved by an editor that writes a UTF-8 byte order mark load.
#[test]
fn a_settings_file_with_a_byte_order_mark_loads() {
    let r = root();
    fs::write(
        &r.settings,
        format!("\u{FEFF}{{\"root\": {:?}, \"theme\": \"dark\"}}", r.root),
    )
    .unwrap();
    let c = Console::open(Some(r.settings.clone()), Overrides::default()).unwrap();
    let view = c.get_settings().unwrap();
    assert_eq!(view.effective.root, r.root.display().to_string());
    assert!(c
        .list_agents()
        .unwrap()
        .agents
        .iter()
        .any(|a| a.name == "good"));
}
