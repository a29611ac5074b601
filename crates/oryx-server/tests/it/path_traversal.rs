//! Issue #6, "nobody gets in": path-traversal payloads on every CLI subcommand and REST route
//! that takes an agent or session name, the run path's fallback to the global file, a symlinked
//! agent directory that points outside the root, the REST server's hardening (loopback, token,
//! body limit, no CORS, no internals in errors), and mem0 failures as the CLI and REST report them.
//!
//! REST requests go over a raw TCP socket so that `..`, `%2e%2e`, `%00` and friends reach the
//! server exactly as written (an HTTP client library would normalise or re-encode them).

use std::collections::BTreeMap;
use crate::common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

const SECRET: &str = "SECRET-OUTSIDE-THE-ROOT";

// ---------------------------------------------------------------------------------------------
// A root next to an "outside" folder, with agents/evil -> outside.

struct Env {
    dir: tempfile::TempDir,
}

impl Env {
    fn new() -> Env {
        let env = Env {
            dir: tempfile::tempdir().unwrap(),
        };
        let out = env.plain(&["demo", env.root().to_str().unwrap()]);
        assert!(out.status.success(), "{}", stderr(&out));
        let outside = env.outside();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(
            outside.join("MEMORY.md"),
            format!("## 核心记忆\n- [2026-01-01 00:00:00] {SECRET}\n\n## 归档记忆\n"),
        )
        .unwrap();
        std::fs::write(
            outside.join("AGENT.md"),
            format!("---\nname: x\n---\n{SECRET}\n"),
        )
        .unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(&outside, env.root().join("agents/evil")).unwrap();
        env
    }

    fn base(&self) -> &Path {
        self.dir.path()
    }

    fn root(&self) -> PathBuf {
        self.base().join("root")
    }

    fn outside(&self) -> PathBuf {
        self.base().join("outside")
    }

    fn cmd(&self) -> Command {
        let mut c = common::oryx(&self.base().join("config"));
        c.env_remove("MEM0_BASE_URL").env_remove("MEM0_API_KEY");
        c
    }

    fn plain(&self, args: &[&str]) -> Output {
        self.cmd().args(args).output().unwrap()
    }

    fn oryx(&self, args: &[&str]) -> Output {
        let root = self.root();
        let mut all = vec!["--root", root.to_str().unwrap()];
        all.extend_from_slice(args);
        self.plain(&all)
    }

    /// Settings the CLI and the server read (camelCase, as stored).
    fn settings(&self, v: Value) {
        let dir = self.base().join("config");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("settings.json"), v.to_string()).unwrap();
    }

    /// Every path under the temp dir (links not followed), with file contents. The server's
    /// and CLI's own config dir and SQLite's journal files are left out.
    fn snapshot(&self) -> BTreeMap<PathBuf, Option<Vec<u8>>> {
        let mut out = BTreeMap::new();
        walk(self.base(), self.base(), &mut out);
        out
    }
}

fn walk(base: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, Option<Vec<u8>>>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        let rel = p.strip_prefix(base).unwrap().to_path_buf();
        let name = e.file_name().to_string_lossy().into_owned();
        if rel.starts_with("config")
            || name.ends_with("-wal")
            || name.ends_with("-shm")
            || name.ends_with("-journal")
        {
            continue;
        }
        let ft = e.file_type().unwrap();
        if ft.is_dir() {
            out.insert(rel, None);
            walk(base, &p, out);
        } else if ft.is_symlink() {
            out.insert(
                rel,
                Some(
                    std::fs::read_link(&p)
                        .unwrap()
                        .into_os_string()
                        .into_encoded_bytes(),
                ),
            );
        } else {
            out.insert(rel, Some(std::fs::read(&p).unwrap()));
        }
    }
}

fn assert_unchanged(
    before: &BTreeMap<PathBuf, Option<Vec<u8>>>,
    after: &BTreeMap<PathBuf, Option<Vec<u8>>>,
    what: &str,
) {
    let added: Vec<_> = after.keys().filter(|k| !before.contains_key(*k)).collect();
    let removed: Vec<_> = before.keys().filter(|k| !after.contains_key(*k)).collect();
    let changed: Vec<_> = before
        .iter()
        .filter(|(k, v)| after.get(*k).is_some_and(|a| a != *v))
        .map(|(k, _)| k)
        .collect();
    assert!(
        added.is_empty() && removed.is_empty() && changed.is_empty(),
        "{what}: added {added:?}, removed {removed:?}, changed {changed:?}"
    );
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

// ---------------------------------------------------------------------------------------------
// The payloads.

/// Names every strict path (console, CLI, REST) must refuse as `invalid_agent_name`
/// (tests/fixtures/traversal.json).
fn name_payloads(env: &Env) -> Vec<String> {
    common::traversal::names(&env.outside())
}

/// Percent-encodes every byte outside the unreserved set.
fn enc(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// CLI.

/// One line on stderr, `error[<code>]: …`, naming the problem; nothing on stdout.
fn assert_cli_refused(out: &Output, codes: &[&str], what: &str) {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(2), "{what}: {err}");
    assert!(
        codes
            .iter()
            .any(|c| err.starts_with(&format!("error[{c}]: "))),
        "{what}: expected one of {codes:?}, got {err:?}"
    );
    assert!(!err.contains("panicked"), "{what}: {err}");
    // Names are echoed debug-quoted: a newline in a payload cannot split the message.
    assert_eq!(err.lines().count(), 1, "{what}: {err:?}");
    assert!(stdout(out).is_empty(), "{what}: stdout {:?}", stdout(out));
}

/// The strict CLI paths: each closure turns a payload into an argument list.
type CliCase = (&'static str, fn(&str) -> Vec<String>);

fn strs(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

const CLI_AGENT_CASES: &[CliCase] = &[
    ("agent <name>", |p| strs(&["agent", p])),
    ("memory show", |p| strs(&["memory", "show", "--agent", p])),
    ("memory context", |p| {
        strs(&["memory", "context", "--agent", p])
    }),
    ("memory add core", |p| {
        strs(&[
            "memory",
            "add",
            "--agent",
            p,
            "--scope",
            "core",
            "traversal probe",
        ])
    }),
    ("memory add archival", |p| {
        strs(&[
            "memory",
            "add",
            "--agent",
            p,
            "--scope",
            "archival",
            "traversal probe",
        ])
    }),
    ("memory recall", |p| {
        strs(&["memory", "recall", "--agent", p, "probe"])
    }),
    ("sessions --agent", |p| strs(&["sessions", "--agent", p])),
    ("prompt --agent", |p| strs(&["prompt", "--agent", p])),
    ("migrate --agent", |p| {
        strs(&[
            "migrate", "--from", "markdown", "--to", "sqlite", "--agent", p,
        ])
    }),
    ("migrate --agent --dry-run", |p| {
        strs(&[
            "migrate",
            "--from",
            "sqlite",
            "--to",
            "markdown",
            "--agent",
            p,
            "--dry-run",
        ])
    }),
];

const CLI_SESSION_CASES: &[CliCase] = &[
    ("session <id>", |p| strs(&["session", p])),
    ("prompt --session", |p| {
        strs(&["prompt", "--agent", "assistant", "--session", p])
    }),
];

/// argv cannot carry NUL, and a leading `-` is an option to clap: those are not CLI payloads.
fn cli_payloads(env: &Env) -> Vec<String> {
    name_payloads(env)
        .into_iter()
        .filter(|p| !p.contains('\0') && !p.starts_with('-'))
        .collect()
}

#[test]
fn cli_refuses_every_traversal_payload_on_every_strict_subcommand() {
    let env = Env::new();
    let before = env.snapshot();
    let payloads = cli_payloads(&env);
    let mut tried = 0;
    for (what, args) in CLI_AGENT_CASES {
        for p in &payloads {
            let a = args(p);
            let out = env.oryx(&a.iter().map(String::as_str).collect::<Vec<_>>());
            assert_cli_refused(&out, &["invalid_agent_name"], &format!("{what} {p:?}"));
            tried += 1;
        }
        // The symlinked agent directory exists and has a valid name: refused as outside the
        // root, and nothing of what it points at is shown.
        let a = args("evil");
        let out = env.oryx(&a.iter().map(String::as_str).collect::<Vec<_>>());
        if *what == "sessions --agent" {
            // A session filter is a database column, not a path: no file is read.
            assert!(out.status.success(), "{what}: {}", stderr(&out));
        } else {
            assert_cli_refused(&out, &["outside_root"], &format!("{what} evil"));
        }
        assert!(!stderr(&out).contains(SECRET) && !stdout(&out).contains(SECRET));
        tried += 1;
    }
    for (what, args) in CLI_SESSION_CASES {
        for p in &payloads {
            let a = args(p);
            let out = env.oryx(&a.iter().map(String::as_str).collect::<Vec<_>>());
            // Session ids are database keys: an unknown one is "not found", never a path.
            assert_cli_refused(&out, &["session_not_found"], &format!("{what} {p:?}"));
            tried += 1;
        }
    }
    assert_unchanged(&before, &env.snapshot(), "strict CLI paths");
    eprintln!("cli strict paths: {tried} payload x subcommand runs refused");
}

#[test]
fn cli_run_path_falls_back_to_the_global_file() {
    let env = Env::new();
    let global = env.root().join("memory/MEMORY.md");
    let mut payloads = cli_payloads(&env);
    payloads.push("evil".to_string());
    let agents_before: Vec<_> = std::fs::read_dir(env.root().join("agents"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    let outside_before = std::fs::read(env.outside().join("MEMORY.md")).unwrap();
    for (i, p) in payloads.iter().enumerate() {
        let marker = format!("run-path probe {i}");
        let input =
            json!({"content": marker, "scope": if i % 2 == 0 { "archival" } else { "core" }})
                .to_string();
        let out = env.oryx(&[
            "--json",
            "tool",
            "save_memory",
            "--input",
            &input,
            "--agent",
            p,
        ]);
        assert!(out.status.success(), "save_memory {p:?}: {}", stderr(&out));
        let r: Value = serde_json::from_str(&stdout(&out)).unwrap();
        assert_eq!(r["owner"], "global", "save_memory {p:?}: {r}");
        assert_eq!(r["output"], "已记住");
        assert!(
            std::fs::read_to_string(&global).unwrap().contains(&marker),
            "{p:?}: the entry is in the global MEMORY.md"
        );
        let out = env.oryx(&[
            "--json",
            "tool",
            "recall_memory",
            "--input",
            &json!({"keyword": marker}).to_string(),
            "--agent",
            p,
        ]);
        assert!(
            out.status.success(),
            "recall_memory {p:?}: {}",
            stderr(&out)
        );
        let r: Value = serde_json::from_str(&stdout(&out)).unwrap();
        assert_eq!(r["owner"], "global", "recall_memory {p:?}: {r}");
        if i % 2 == 0 {
            assert!(r["output"].as_str().unwrap().contains(&marker), "{r}");
        }
        let out = env.oryx(&[
            "--json",
            "footprint",
            "--agent",
            p,
            "--user",
            "hi",
            "--reply",
            &marker,
        ]);
        assert!(out.status.success(), "footprint {p:?}: {}", stderr(&out));
        let r: Value = serde_json::from_str(&stdout(&out)).unwrap();
        assert_eq!(r["owner"], "global", "footprint {p:?}: {r}");
    }
    let agents_after: Vec<_> = std::fs::read_dir(env.root().join("agents"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(
        agents_before, agents_after,
        "no agent directory was created"
    );
    assert_eq!(
        outside_before,
        std::fs::read(env.outside().join("MEMORY.md")).unwrap(),
        "the file behind the symlink is untouched"
    );
    let outside: Vec<_> = std::fs::read_dir(env.outside()).unwrap().collect();
    assert_eq!(outside.len(), 2, "nothing new outside the root");
    assert!(!env.base().join("escaped").exists());
    eprintln!(
        "cli run path: {} payloads x 3 tools fell back to global",
        payloads.len()
    );
}

// ---------------------------------------------------------------------------------------------
// REST over a raw socket.

struct Server {
    /// Held for its drop: the server stops with the test.
    _child: common::ServerProcess,
    addr: String,
    log: Arc<Mutex<String>>,
}

impl Server {
    fn log(&self) -> String {
        self.log.lock().unwrap().clone()
    }
}

fn start(env: &Env, extra: &[&str]) -> Server {
    let root = env.root();
    let mut args = vec![
        "--root",
        root.to_str().unwrap(),
        "serve",
        "--bind",
        "127.0.0.1:0",
    ];
    args.extend_from_slice(extra);
    start_with(env, &args)
}

fn start_with(env: &Env, args: &[&str]) -> Server {
    // Its stderr keeps being drained into the log: the server must be able to log, and the log
    // is checked for panics.
    let mut cmd = env.cmd();
    cmd.args(args);
    let (child, base, log) = common::spawn_serve_logged(cmd);
    Server {
        _child: common::ServerProcess(child),
        addr: base.trim_start_matches("http://").to_string(),
        log,
    }
}

#[derive(Debug)]
struct Resp {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Resp {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| {
            panic!(
                "not JSON ({e}): {} {:?}",
                self.status,
                String::from_utf8_lossy(&self.body)
            )
        })
    }

    fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

fn raw(
    s: &Server,
    method: &str,
    target: &str,
    headers: &[(&str, &str)],
    body: Option<&[u8]>,
) -> Resp {
    raw_at(&s.addr, method, target, headers, body)
}

fn raw_at(
    addr: &str,
    method: &str,
    target: &str,
    headers: &[(&str, &str)],
    body: Option<&[u8]>,
) -> Resp {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    let mut req = format!("{method} {target} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    if let Some(b) = body {
        req.push_str(&format!("Content-Length: {}\r\n", b.len()));
    }
    req.push_str("\r\n");
    let mut bytes = req.into_bytes();
    if let Some(b) = body {
        bytes.extend_from_slice(b);
    }
    // The server may answer (413) before reading a big body and close: a write error then is fine.
    let _ = stream.write_all(&bytes);
    let mut buf = Vec::new();
    let _ = stream.read_to_end(&mut buf);
    parse_response(&buf)
}

fn parse_response(buf: &[u8]) -> Resp {
    let split = buf
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or_else(|| panic!("no HTTP response: {:?}", String::from_utf8_lossy(buf)));
    let head = String::from_utf8_lossy(&buf[..split]).into_owned();
    let mut lines = head.split("\r\n");
    let status: u16 = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|c| c.parse().ok())
        .unwrap();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect();
    let mut body = buf[split + 4..].to_vec();
    let chunked = headers.iter().any(|(k, v)| {
        k.eq_ignore_ascii_case("transfer-encoding") && v.eq_ignore_ascii_case("chunked")
    });
    if chunked {
        body = dechunk(&body);
    }
    Resp {
        status,
        headers,
        body,
    }
}

fn dechunk(mut b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(eol) = b.windows(2).position(|w| w == b"\r\n") {
        let size =
            usize::from_str_radix(String::from_utf8_lossy(&b[..eol]).trim(), 16).unwrap_or(0);
        if size == 0 {
            break;
        }
        let start = eol + 2;
        out.extend_from_slice(&b[start..start + size]);
        b = &b[start + size + 2..];
    }
    out
}

fn get(s: &Server, target: &str) -> Resp {
    raw(s, "GET", target, &[], None)
}

fn post_json(s: &Server, target: &str, body: &Value) -> Resp {
    raw(
        s,
        "POST",
        target,
        &[("Content-Type", "application/json")],
        Some(body.to_string().as_bytes()),
    )
}

/// The SPEC §10 error envelope: `code` = status, a message, no data, no internals.
fn assert_error_envelope(r: &Resp, what: &str) -> Value {
    let v = r.json();
    assert_eq!(v["code"], r.status, "{what}: {v}");
    assert!(v["data"].is_null(), "{what}: {v}");
    assert!(
        v["timestamp"].as_i64().unwrap_or(0) > 1_700_000_000_000,
        "{what}: {v}"
    );
    let msg = v["message"].as_str().unwrap_or("");
    assert!(!msg.is_empty(), "{what}: {v}");
    for leak in [
        "panicked",
        "src/",
        ".rs:",
        "RUST_BACKTRACE",
        "stack backtrace",
        SECRET,
    ] {
        assert!(!msg.contains(leak), "{what}: {leak:?} in {msg:?}");
    }
    assert_eq!(
        r.header("content-type"),
        Some("application/json"),
        "{what}: {:?}",
        r.headers
    );
    v
}

fn assert_refused(r: &Resp, codes: &[&str], what: &str) {
    assert_eq!(r.status, 400, "{what}: {} {}", r.status, r.text());
    let v = assert_error_envelope(r, what);
    let code = v["error_code"].as_str().unwrap_or("");
    assert!(codes.contains(&code), "{what}: error_code {code:?} in {v}");
    assert!(!r.text().contains(SECRET), "{what}: {}", r.text());
}

/// Where an agent name goes in a request; `seg` is already URL-encoded (or a raw form).
#[derive(Clone, Copy)]
enum At {
    Path(&'static str),
    Query(&'static str),
    Json(&'static str),
}

const REST_AGENT_ROUTES: &[(&str, At)] = &[
    ("GET", At::Path("/api/v1/agents/{}")),
    ("GET", At::Path("/api/v1/agents/{}/memory")),
    ("GET", At::Path("/api/v1/agents/{}/skills")),
    ("GET", At::Path("/api/v1/agents/{}/knowledge")),
    ("GET", At::Path("/api/v1/agents/{}/session")),
    ("GET", At::Path("/api/v1/agents/{}/executions")),
    ("GET", At::Path("/api/v1/console/agents/{}")),
    ("GET", At::Query("/api/v1/console/memory?agent={}")),
    ("GET", At::Query("/api/v1/console/memory/context?agent={}")),
    (
        "GET",
        At::Query("/api/v1/console/memory/recall?keyword=probe&agent={}"),
    ),
    ("GET", At::Query("/api/v1/console/memory/overview?agent={}")),
    (
        "GET",
        At::Query("/api/v1/console/memory/archival?offset=0&limit=5&newest_first=true&agent={}"),
    ),
    ("GET", At::Query("/api/v1/console/sessions?agent={}")),
    ("GET", At::Query("/api/v1/console/prompt?agent={}")),
    (
        "POST",
        At::Json(r#"/api/v1/console/memory|{"agent":{},"scope":"core","content":"probe"}"#),
    ),
    (
        "POST",
        At::Json(r#"/api/v1/console/memory|{"agent":{},"scope":"archival","content":"probe"}"#),
    ),
    (
        "POST",
        At::Json(
            r#"/api/v1/console/migrate|{"from":"markdown","to":"sqlite","agent":{},"dry_run":false}"#,
        ),
    ),
    (
        "POST",
        At::Json(
            r#"/api/v1/console/migrate|{"from":"markdown","to":"sqlite","agent":{},"dry_run":true}"#,
        ),
    ),
    // The registered operations (POST /api/v1/console/<op>, JSON arguments).
    ("POST", At::Json(r#"/api/v1/console/get_agent|{"name":{}}"#)),
    (
        "POST",
        At::Json(r#"/api/v1/console/memory_view|{"agent":{}}"#),
    ),
    (
        "POST",
        At::Json(r#"/api/v1/console/memory_overview|{"agent":{}}"#),
    ),
    (
        "POST",
        At::Json(r#"/api/v1/console/memory_context|{"agent":{}}"#),
    ),
    (
        "POST",
        At::Json(
            r#"/api/v1/console/archival_page|{"agent":{},"offset":0,"limit":5,"newest_first":true,"keyword":null}"#,
        ),
    ),
    (
        "POST",
        At::Json(r#"/api/v1/console/append_memory|{"agent":{},"scope":"core","content":"probe"}"#),
    ),
    (
        "POST",
        At::Json(
            r#"/api/v1/console/append_memory|{"agent":{},"scope":"archival","content":"probe"}"#,
        ),
    ),
    (
        "POST",
        At::Json(r#"/api/v1/console/recall_memory|{"agent":{},"keyword":"probe"}"#),
    ),
    (
        "POST",
        At::Json(r#"/api/v1/console/list_sessions|{"agent":{}}"#),
    ),
    (
        "POST",
        At::Json(r#"/api/v1/console/prompt_preview|{"agent":{}}"#),
    ),
    // Curation: a name is refused before any entry is looked at.
    (
        "POST",
        At::Json(r#"/api/v1/console/edit_entry|{"agent":{},"id":"a0-00000000","content":"probe"}"#),
    ),
    (
        "POST",
        At::Json(r#"/api/v1/console/delete_entries|{"agent":{},"entries":[{"id":"a0-00000000"}]}"#),
    ),
    (
        "POST",
        At::Json(
            r#"/api/v1/console/move_entries|{"agent":{},"entries":[{"id":"a0-00000000"}],"to":"core"}"#,
        ),
    ),
    (
        "POST",
        At::Json(r#"/api/v1/console/selection_impact|{"agent":{},"ids":[],"action":"delete"}"#),
    ),
    (
        "POST",
        At::Json(r#"/api/v1/console/memory_history|{"agent":{}}"#),
    ),
    (
        "POST",
        At::Json(r#"/api/v1/console/entry_provenance|{"agent":{},"id":"a0-00000000"}"#),
    ),
    (
        "POST",
        At::Json(r#"/api/v1/console/undo_change|{"agent":{}}"#),
    ),
    (
        "POST",
        At::Json(r#"/api/v1/console/redo_change|{"agent":{}}"#),
    ),
    (
        "POST",
        At::Json(r#"/api/v1/console/restore_entry|{"agent":{},"change_id":"x","entry_id":"y"}"#),
    ),
    (
        "POST",
        At::Json(r#"/api/v1/console/review_status|{"agent":{}}"#),
    ),
    (
        "POST",
        At::Json(r#"/api/v1/console/mark_reviewed|{"agent":{}}"#),
    ),
    (
        "POST",
        At::Json(r#"/api/v1/console/memory_health|{"agent":{}}"#),
    ),
    (
        "POST",
        At::Json(r#"/api/v1/console/propose_summary|{"agent":{}}"#),
    ),
    (
        "POST",
        At::Json(r#"/api/v1/console/memory_stats|{"agent":{}}"#),
    ),
    (
        "POST",
        At::Json(r#"/api/v1/console/prompt_composition|{"agent":{}}"#),
    ),
    (
        "POST",
        At::Json(r#"/api/v1/console/memory_asof|{"agent":{},"at":"2026-01-01"}"#),
    ),
    (
        "POST",
        At::Json(
            r#"/api/v1/console/memory_diff|{"agent":{},"from":"2026-01-01","to":"2026-02-01"}"#,
        ),
    ),
    (
        "POST",
        At::Json(r#"/api/v1/console/apply_summary|{"agent":{},"content":"x"}"#),
    ),
    (
        "POST",
        At::Json(r#"/api/v1/console/dismiss_finding|{"agent":{},"check":"stale","entry_ids":[]}"#),
    ),
    // Agent management: every name-taking operation.
    (
        "POST",
        At::Json(r#"/api/v1/console/create_agent|{"name":{}}"#),
    ),
    (
        "POST",
        At::Json(r#"/api/v1/console/create_agent|{"name":"fresh-one","from":{}}"#),
    ),
    (
        "POST",
        At::Json(r#"/api/v1/console/agent_file|{"name":{}}"#),
    ),
    (
        "POST",
        At::Json(r#"/api/v1/console/save_agent_file|{"name":{},"text":"---\nname: x\n---\n"}"#),
    ),
    (
        "POST",
        At::Json(r#"/api/v1/console/set_agent_key|{"name":{},"key":"description","value":"x"}"#),
    ),
    (
        "POST",
        At::Json(r#"/api/v1/console/set_agent_skills|{"name":{},"add":["x"]}"#),
    ),
    (
        "POST",
        At::Json(r#"/api/v1/console/archive_agent|{"name":{}}"#),
    ),
    (
        "POST",
        At::Json(
            r#"/api/v1/console/restore_agent|{"archived_name":"a.20260101-000000","as_name":{}}"#,
        ),
    ),
];

const REST_SESSION_ROUTES: &[(&str, At)] = &[
    ("GET", At::Path("/api/v1/sessions/{}")),
    ("GET", At::Path("/api/v1/console/sessions/{}")),
    (
        "GET",
        At::Query("/api/v1/console/prompt?agent=assistant&session_id={}"),
    ),
    (
        "GET",
        At::Query("/api/v1/console/tool-invocations?session_id={}"),
    ),
];

/// Sends `name` (a logical name, or with `raw` a URL form written as is) to one route.
fn send(s: &Server, method: &str, at: At, name: &str, raw_form: bool) -> Resp {
    match at {
        At::Path(t) | At::Query(t) => {
            let seg = if raw_form {
                name.to_string()
            } else {
                enc(name)
            };
            raw(s, method, &t.replace("{}", &seg), &[], None)
        }
        At::Json(t) => {
            let (path, body) = t.split_once('|').unwrap();
            let body = body.replace("{}", &Value::String(name.to_string()).to_string());
            raw(
                s,
                method,
                path,
                &[("Content-Type", "application/json")],
                Some(body.as_bytes()),
            )
        }
    }
}

fn route_label(method: &str, at: At) -> String {
    match at {
        At::Path(t) | At::Query(t) | At::Json(t) => {
            format!("{method} {}", t.split('|').next().unwrap())
        }
    }
}

#[test]
fn rest_refuses_every_traversal_payload_on_every_route_that_takes_a_name() {
    let env = Env::new();
    // A UI folder next to the root and the outside folder: its file server must not step out.
    let ui = env.base().join("ui");
    std::fs::create_dir_all(&ui).unwrap();
    std::fs::write(
        ui.join("index.html"),
        "<!doctype html><title>console</title>",
    )
    .unwrap();
    let s = start(&env, &["--ui-dir", ui.to_str().unwrap()]);
    let before = env.snapshot();
    let payloads = name_payloads(&env);
    let raw_url_forms = common::traversal::url_forms();
    let mut tried = 0;
    for &(method, at) in REST_AGENT_ROUTES {
        let label = route_label(method, at);
        for p in &payloads {
            let r = send(&s, method, at, p, false);
            assert_refused(&r, &["invalid_agent_name"], &format!("{label} {p:?}"));
            tried += 1;
        }
        let r = send(&s, method, at, "evil", false);
        if label.contains("/console/sessions") || label.contains("/console/list_sessions") {
            assert_eq!(
                r.status, 200,
                "{label} evil: a session filter reads no file"
            );
            assert!(!r.text().contains(SECRET));
        } else {
            assert_refused(&r, &["outside_root"], &format!("{label} evil"));
        }
        tried += 1;
        if let At::Json(_) = at {
            continue;
        }
        for form in &raw_url_forms {
            let r = send(&s, method, at, form, true);
            let what = format!("{label} raw {form:?}");
            // `..` and `.` as a whole path segment may instead miss every route (404); either
            // way the answer is an envelope and nothing is read.
            if matches!(at, At::Path(_)) && matches!(form.as_str(), ".." | ".") && r.status == 404 {
                assert_error_envelope(&r, &what);
            } else {
                // Not UTF-8 once decoded: refused before it is a name at all.
                assert_refused(&r, &["invalid_agent_name", "invalid_input"], &what);
            }
            tried += 1;
        }
    }
    for &(method, at) in REST_SESSION_ROUTES {
        let label = route_label(method, at);
        let forms = payloads
            .iter()
            .map(|p| (p.as_str(), false))
            .chain(raw_url_forms.iter().map(|f| (f.as_str(), true)));
        for (p, raw_form) in forms {
            let r = send(&s, method, at, p, raw_form);
            let what = format!("{label} {p:?}");
            // Session ids are database keys: unknown is 404; an id that is not text is 400.
            if label.contains("tool-invocations") && r.status == 200 {
                assert_eq!(r.json()["data"], json!([]), "{what}");
            } else {
                assert!(
                    matches!(r.status, 400 | 404),
                    "{what}: {} {}",
                    r.status,
                    r.text()
                );
                assert_error_envelope(&r, &what);
            }
            tried += 1;
        }
    }
    // Traversal that leaves the route's prefix entirely: no route, an envelope, no file.
    for target in [
        "/api/v1/agents/../../../etc/passwd",
        "/api/v1/console/../../../../etc/passwd",
        "/api/v1/agents/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
        "/api/v1/agents/evil/AGENT.md",
        "/api/v1/agents/assistant/../evil/memory",
        "/api/v1/..%2F..%2F",
    ] {
        let r = get(&s, target);
        assert!(matches!(r.status, 400 | 404), "{target}: {}", r.status);
        assert_error_envelope(&r, target);
        assert!(!r.text().contains("root:x:") && !r.text().contains(SECRET));
        tried += 1;
    }
    // The UI's file server: traversal gets index.html (client-side routes) or a 4xx, never the
    // file it aims at.
    for target in [
        "/../outside/MEMORY.md",
        "/%2e%2e/outside/MEMORY.md",
        "/..%2foutside%2fMEMORY.md",
        "/..%5coutside%5cMEMORY.md",
        "/%2e%2e%2f%2e%2e%2f%2e%2e%2fetc%2fpasswd",
        "/../../../../../../etc/passwd",
        "/assets/../../outside/AGENT.md",
        "/%00/../outside/MEMORY.md",
    ] {
        let r = get(&s, target);
        assert!(
            r.status == 200 && r.text().contains("<title>console</title>")
                || (400..500).contains(&r.status),
            "{target}: {} {}",
            r.status,
            r.text()
        );
        assert!(
            !r.text().contains("root:x:") && !r.text().contains(SECRET),
            "{target}"
        );
        tried += 1;
    }
    // Listing shows the symlinked agent with a warning, never what it points at.
    for target in [
        "/api/v1/agents",
        "/api/v1/console/agents",
        "/api/v1/console/files",
    ] {
        let r = get(&s, target);
        assert_eq!(r.status, 200, "{target}");
        assert!(!r.text().contains(SECRET), "{target}: {}", r.text());
    }
    assert_unchanged(&before, &env.snapshot(), "REST strict routes");
    let log = s.log();
    assert!(!log.contains("panicked"), "server log: {log}");
    eprintln!("rest: {tried} payload x route requests refused");
}

#[test]
fn a_memory_file_linked_outside_the_root_is_refused_too() {
    let env = Env::new();
    let linked = env.root().join("agents/linked");
    std::fs::create_dir_all(&linked).unwrap();
    std::fs::write(linked.join("AGENT.md"), "---\nname: linked\n---\nhello\n").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(env.outside().join("MEMORY.md"), linked.join("MEMORY.md")).unwrap();
    let before = std::fs::read(env.outside().join("MEMORY.md")).unwrap();
    let out = env.oryx(&["memory", "show", "--agent", "linked"]);
    assert_cli_refused(&out, &["outside_root"], "memory show linked");
    let out = env.oryx(&[
        "memory", "add", "--agent", "linked", "--scope", "archival", "x",
    ]);
    assert_cli_refused(&out, &["outside_root"], "memory add linked");
    let out = env.oryx(&[
        "--json",
        "tool",
        "save_memory",
        "--input",
        r#"{"content":"linked probe"}"#,
        "--agent",
        "linked",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let r: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(r["owner"], "global", "the run path falls back: {r}");
    let s = start(&env, &[]);
    for target in [
        "/api/v1/agents/linked/memory",
        "/api/v1/console/memory?agent=linked",
        "/api/v1/console/prompt?agent=linked",
    ] {
        assert_refused(&get(&s, target), &["outside_root"], target);
    }
    let r = post_json(
        &s,
        "/api/v1/console/memory",
        &json!({"agent": "linked", "scope": "archival", "content": "x"}),
    );
    assert_refused(&r, &["outside_root"], "POST memory linked");
    let r = get(&s, "/api/v1/console/agents");
    assert!(!r.text().contains(SECRET));
    assert_eq!(
        before,
        std::fs::read(env.outside().join("MEMORY.md")).unwrap(),
        "the linked file is untouched"
    );
}

// ---------------------------------------------------------------------------------------------
// REST hardening.

#[test]
fn default_bind_is_loopback_and_other_addresses_need_a_token() {
    let env = Env::new();
    // The default --bind, read from clap's help (starting on it could clash with a real server).
    let help = stdout(&env.plain(&["serve", "--help"]));
    assert!(help.contains("[default: 127.0.0.1:7777]"), "{help}");
    for bind in ["0.0.0.0:0", "[::]:0", "192.0.2.1:0"] {
        let out = env.oryx(&["serve", "--bind", bind]);
        assert_eq!(out.status.code(), Some(2), "{bind}: {}", stderr(&out));
        assert!(stderr(&out).contains("without --token"), "{}", stderr(&out));
        // An empty token is no token.
        let out = env.oryx(&["serve", "--bind", bind, "--token", ""]);
        assert_eq!(out.status.code(), Some(2), "{bind} empty token");
        let out = env
            .cmd()
            .args([
                "--root",
                env.root().to_str().unwrap(),
                "serve",
                "--bind",
                bind,
            ])
            .env("ORYX_TOKEN", "")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{bind} empty ORYX_TOKEN");
    }
    // With a token, a non-loopback address is served (and the token is enforced).
    let s = start_with(
        &env,
        &[
            "--root",
            env.root().to_str().unwrap(),
            "serve",
            "--bind",
            "0.0.0.0:0",
            "--token",
            "tok-123456",
        ],
    );
    assert!(s.addr.starts_with("0.0.0.0:"), "{}", s.addr);
    let local = format!("127.0.0.1:{}", s.addr.rsplit(':').next().unwrap());
    assert_eq!(
        raw_at(&local, "GET", "/api/v1/agents", &[], None).status,
        401
    );
    assert_eq!(
        raw_at(
            &local,
            "GET",
            "/api/v1/agents",
            &[("Authorization", "Bearer tok-123456")],
            None
        )
        .status,
        200
    );
}

#[test]
fn the_token_is_required_exactly() {
    let env = Env::new();
    let token = "s3cret-token-0123456789";
    let s = start_with(
        &env,
        &[
            "--root",
            env.root().to_str().unwrap(),
            "serve",
            "--bind",
            "127.0.0.1:0",
            "--token",
            token,
        ],
    );
    let same_len_wrong: String = token
        .chars()
        .enumerate()
        .map(|(i, c)| if i == token.len() - 1 { 'X' } else { c })
        .collect();
    assert_eq!(same_len_wrong.len(), token.len());
    let bad_headers: Vec<Vec<(&str, String)>> = vec![
        vec![],
        vec![("Authorization", String::new())],
        vec![("Authorization", "Bearer".into())],
        vec![("Authorization", "Bearer ".into())],
        vec![("Authorization", format!("Bearer {same_len_wrong}"))],
        vec![(
            "Authorization",
            format!("Bearer {}", &token[..token.len() - 1]),
        )],
        vec![("Authorization", format!("Bearer {token}x"))],
        vec![("Authorization", format!("Bearer {}", token.to_uppercase()))],
        vec![("Authorization", format!("bearer {token}"))],
        vec![("Authorization", format!("Basic {token}"))],
        vec![("Authorization", token.to_string())],
        vec![("Authorization", format!("Bearer  {token}"))],
        vec![("X-API-Key", token.to_string())],
        vec![("Cookie", format!("token={token}"))],
    ];
    let targets = [
        ("GET", "/api/v1/agents"),
        ("GET", "/api/v1/auth/me"),
        ("GET", "/api/v1/console/memory?agent=assistant"),
        ("GET", "/api/v1/console/settings"),
        ("GET", "/api/v1/console/events"),
        ("GET", "/api/v1/openapi.json"),
        ("GET", "/api/v1/no/such/route"),
        ("POST", "/api/v1/console/memory"),
        ("PUT", "/api/v1/console/settings"),
        ("POST", "/api/v1/console/sample-root"),
    ];
    // The right token first: once wrong ones have held this address, nothing is looked at.
    let r = raw(
        &s,
        "GET",
        "/api/v1/agents",
        &[("Authorization", &format!("Bearer {token}"))],
        None,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    // The right token with a traversal payload is still refused.
    let r = raw(
        &s,
        "GET",
        "/api/v1/agents/%2e%2e/memory",
        &[("Authorization", &format!("Bearer {token}"))],
        None,
    );
    assert_refused(&r, &["invalid_agent_name"], "authorised traversal");
    // Also through a query string: tokens are headers only.
    let r = get(
        &s,
        &format!("/api/v1/agents?token={token}&access_token={token}"),
    );
    assert_eq!(r.status, 401);
    // Every form refused: 401 while the address has guesses left (a request without a bearer
    // token or session cookie is not a guess), 429 once ten wrong ones were sent.
    let mut tried = 0;
    let mut wrong = 0;
    for (method, target) in targets {
        for h in &bad_headers {
            let hs: Vec<(&str, &str)> = h.iter().map(|(k, v)| (*k, v.as_str())).collect();
            let body = (method != "GET").then_some(&b"{}"[..]);
            let mut hs2 = hs.clone();
            if body.is_some() {
                hs2.push(("Content-Type", "application/json"));
            }
            let r = raw(&s, method, target, &hs2, body);
            let held = wrong >= 10;
            let v = assert_error_envelope(&r, target);
            let message = v["message"].as_str().unwrap();
            if held {
                assert_eq!(r.status, 429, "{method} {target} with {h:?}: {}", r.text());
                assert!(message.contains("too many wrong credentials"), "{message}");
            } else {
                assert_eq!(r.status, 401, "{method} {target} with {h:?}: {}", r.text());
                assert!(message.contains("bearer token"), "{message}");
            }
            assert!(!r.text().contains(token), "the token is never echoed");
            // (HTTP drops a header value's trailing spaces: "Bearer " arrives as "Bearer".)
            let bearer = |v: &String| v.trim_end().starts_with("Bearer ");
            if h.iter().any(|(k, v)| *k == "Authorization" && bearer(v)) {
                wrong += 1;
            }
            tried += 1;
        }
    }
    assert!(wrong > 10, "{wrong}");
    eprintln!("token: {tried} unauthorised requests refused");
}

#[test]
fn bodies_over_the_limit_get_a_413_envelope() {
    let env = Env::new();
    let s = start(&env, &[]);
    let before = std::fs::read(env.root().join("agents/researcher/MEMORY.md")).unwrap();
    let big = "x".repeat(1024 * 1024 + 1);
    for target in [
        "/api/v1/console/memory",
        "/api/v1/console/memory/preview",
        "/api/v1/console/migrate",
        "/api/v1/console/sample-root",
        "/api/v1/console/inspect-root",
        "/api/v1/console/mem0/test",
    ] {
        let body = json!({"agent": "researcher", "scope": "archival", "content": big, "path": big});
        let r = post_json(&s, target, &body);
        assert_eq!(r.status, 413, "{target}: {}", r.text());
        assert_error_envelope(&r, target);
    }
    let r = raw(
        &s,
        "PUT",
        "/api/v1/console/settings",
        &[("Content-Type", "application/json")],
        Some(format!("{{\"root\":\"{big}\"}}").as_bytes()),
    );
    assert_eq!(r.status, 413);
    assert_error_envelope(&r, "PUT settings");
    // Just under the limit is read (and refused on its merits, not its size).
    let body = format!(
        "{{\"agent\":\"researcher\",\"scope\":\"archival\",\"content\":\"{}\"}}",
        "y".repeat(1024 * 1024 - 100)
    );
    let r = raw(
        &s,
        "POST",
        "/api/v1/console/memory/preview",
        &[("Content-Type", "application/json")],
        Some(body.as_bytes()),
    );
    assert_ne!(r.status, 413, "under the limit");
    assert_eq!(
        before,
        std::fs::read(env.root().join("agents/researcher/MEMORY.md")).unwrap(),
        "nothing of a refused body was written"
    );
}

#[test]
fn no_cors_headers_and_no_preflight_approval() {
    let env = Env::new();
    let s = start(&env, &[]);
    let origin = [("Origin", "http://evil.example")];
    let mut checked = 0;
    for (method, target) in [
        ("GET", "/api/v1/agents"),
        ("GET", "/api/v1/auth/me"),
        ("GET", "/api/v1/console/settings"),
        ("GET", "/api/v1/agents/%2e%2e/memory"),
        ("GET", "/api/v1/nope"),
        ("GET", "/"),
    ] {
        let r = raw(&s, method, target, &origin, None);
        assert_no_cors(&r, target);
        checked += 1;
    }
    for target in [
        "/api/v1/agents",
        "/api/v1/console/memory",
        "/api/v1/console/settings",
        "/api/v1/console/sample-root",
    ] {
        let r = raw(
            &s,
            "OPTIONS",
            target,
            &[
                ("Origin", "http://evil.example"),
                ("Access-Control-Request-Method", "POST"),
                (
                    "Access-Control-Request-Headers",
                    "content-type, authorization",
                ),
            ],
            None,
        );
        assert_no_cors(&r, &format!("OPTIONS {target}"));
        assert!(
            !(200..300).contains(&r.status),
            "a preflight is not approved: OPTIONS {target} -> {}",
            r.status
        );
        checked += 1;
    }
    // A cross-site form post (text/plain, no preflight) is refused for its Origin (and would
    // not be taken as JSON anyway).
    let r = raw(
        &s,
        "POST",
        "/api/v1/console/memory",
        &[
            ("Origin", "http://evil.example"),
            ("Content-Type", "text/plain"),
        ],
        Some(br#"{"agent":"researcher","scope":"core","content":"csrf"}"#),
    );
    assert_eq!(r.status, 403, "{}", r.text());
    assert_error_envelope(&r, "text/plain post");
    assert!(
        !std::fs::read_to_string(env.root().join("agents/researcher/MEMORY.md"))
            .unwrap()
            .contains("csrf")
    );
    eprintln!("cors: {checked} responses without Access-Control-* headers");
}

fn assert_no_cors(r: &Resp, what: &str) {
    for (k, v) in &r.headers {
        assert!(
            !k.to_ascii_lowercase().starts_with("access-control-"),
            "{what}: {k}: {v}"
        );
    }
}

#[test]
fn server_errors_carry_no_internals() {
    let env = Env::new();
    let s = start(&env, &[]);
    // A database that is not SQLite: a 500 that names the problem, no trace, no source path.
    std::fs::write(env.root().join("oryxos.db"), vec![b'x'; 4096]).unwrap();
    for target in [
        "/api/v1/sessions",
        "/api/v1/console/sessions",
        "/api/v1/sessions/stats",
        "/api/v1/console/tool-invocations",
    ] {
        let r = get(&s, target);
        assert!(r.status >= 500, "{target}: {}", r.status);
        let v = assert_error_envelope(&r, target);
        let msg = v["message"].as_str().unwrap();
        assert!(
            !msg.contains("/rustc/") && !msg.contains("cargo/registry"),
            "{msg}"
        );
    }
    // Malformed requests: envelopes, not framework text.
    for (method, target, ct, body) in [
        (
            "POST",
            "/api/v1/console/memory",
            "application/json",
            "{not json",
        ),
        ("POST", "/api/v1/console/memory", "application/json", "[]"),
        (
            "POST",
            "/api/v1/console/memory",
            "application/json",
            "{\"agent\":1}",
        ),
        (
            "PUT",
            "/api/v1/console/settings",
            "application/json",
            "null",
        ),
        (
            "GET",
            "/api/v1/console/sessions?limit=-1",
            "application/json",
            "",
        ),
        (
            "GET",
            "/api/v1/sessions?status=a&status=b",
            "application/json",
            "",
        ),
        ("DELETE", "/api/v1/agents", "application/json", ""),
    ] {
        let r = raw(
            &s,
            method,
            target,
            &[("Content-Type", ct)],
            (!body.is_empty()).then_some(body.as_bytes()),
        );
        assert!(
            (400..500).contains(&r.status),
            "{method} {target}: {} {}",
            r.status,
            r.text()
        );
        assert_error_envelope(&r, &format!("{method} {target} {body}"));
    }
    let log = s.log();
    assert!(!log.contains("panicked"), "server log: {log}");
}

// ---------------------------------------------------------------------------------------------
// mem0 failures through the CLI and REST.

fn mem0_settings(env: &Env, url: &str, timeout_ms: u64) {
    env.settings(common::mem0::settings(url, timeout_ms));
}

fn assert_cli_mem0_failure(out: &Output, code: &str, url: &str, bound: Duration, took: Duration) {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.starts_with(&format!("error[{code}]: ")), "{err}");
    assert_eq!(err.lines().count(), 1, "{err:?}");
    assert!(err.contains(url), "names the base URL: {err}");
    assert!(took <= bound, "took {took:?}, bound {bound:?}");
}

#[test]
fn cli_reports_a_dead_or_hung_mem0_in_one_line_within_the_timeout() {
    let env = Env::new();
    let dead = common::mem0::unreachable_url();
    let timeout = Duration::from_millis(1500);
    mem0_settings(&env, "http://127.0.0.1:9", timeout.as_millis() as u64);
    for args in [
        vec![
            "memory",
            "add",
            "--agent",
            "assistant",
            "--scope",
            "core",
            "must not vanish",
        ],
        vec!["memory", "add", "--scope", "archival", "must not vanish"],
        vec!["memory", "show", "--agent", "assistant"],
        vec!["memory", "context", "--agent", "assistant"],
        vec!["memory", "recall", "--agent", "assistant", "x"],
    ] {
        let mut all = vec!["--backend", "mem0", "--mem0-url", dead.as_str()];
        all.extend_from_slice(&args);
        let t = Instant::now();
        let out = env.oryx(&all);
        let took = t.elapsed();
        assert_cli_mem0_failure(
            &out,
            "backend_unavailable",
            &dead,
            timeout + Duration::from_secs(2),
            took,
        );
        assert!(stderr(&out).contains("unreachable"), "{}", stderr(&out));
        eprintln!("cli {:?} on a closed port: {took:?}", args[..2].join(" "));
    }
    let hung_server = common::mem0::Hung::start();
    let hung = hung_server.url.clone();
    for args in [
        vec![
            "memory",
            "add",
            "--agent",
            "assistant",
            "--scope",
            "core",
            "must not vanish",
        ],
        vec!["memory", "show", "--agent", "assistant"],
    ] {
        let mut all = vec!["--backend", "mem0", "--mem0-url", hung.as_str()];
        all.extend_from_slice(&args);
        let t = Instant::now();
        let out = env.oryx(&all);
        let took = t.elapsed();
        assert_cli_mem0_failure(
            &out,
            "timeout",
            &hung,
            timeout + Duration::from_secs(2),
            took,
        );
        assert!(took >= timeout - Duration::from_millis(100), "{took:?}");
        eprintln!("cli {:?} on a hung server: {took:?}", args[..2].join(" "));
    }
    // The run path reports a failed save too (the tool answers with an error, exit 1).
    let t = Instant::now();
    let out = env.oryx(&[
        "--backend",
        "mem0",
        "--mem0-url",
        &dead,
        "--json",
        "tool",
        "save_memory",
        "--input",
        r#"{"content":"must not vanish"}"#,
    ]);
    assert!(t.elapsed() <= timeout + Duration::from_secs(2));
    assert_ne!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(
        (stdout(&out) + &stderr(&out)).contains(&dead),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
}

/// GETs that read memory from mem0, and one append, each as its own request.
const MEM0_ROUTES: &[(&str, &str)] = &[
    ("GET", "/api/v1/agents/assistant/memory"),
    ("GET", "/api/v1/console/memory?agent=assistant"),
    ("GET", "/api/v1/console/memory/context?agent=assistant"),
    (
        "GET",
        "/api/v1/console/memory/recall?agent=assistant&keyword=x",
    ),
    ("GET", "/api/v1/console/prompt?agent=assistant"),
    ("POST", "/api/v1/console/memory"),
];

fn mem0_request(s: &Server, method: &str, target: &str) -> Resp {
    if method == "POST" {
        post_json(
            s,
            target,
            &json!({"agent": "assistant", "scope": "archival", "content": "must not vanish"}),
        )
    } else {
        get(s, target)
    }
}

#[test]
fn rest_stays_responsive_while_mem0_hangs() {
    let env = Env::new();
    let hung_server = common::mem0::Hung::start();
    let hung = hung_server.url.clone();
    let timeout = Duration::from_millis(4000);
    mem0_settings(&env, &hung, timeout.as_millis() as u64);
    let s = Arc::new(start(&env, &[]));
    // More hanging requests than the runtime has worker threads (2 cores here).
    let started = Instant::now();
    let slow: Vec<_> = (0..8)
        .map(|i| {
            let s = s.clone();
            std::thread::spawn(move || {
                let (m, t) = MEM0_ROUTES[i % MEM0_ROUTES.len()];
                let t0 = Instant::now();
                let r = mem0_request(&s, m, t);
                (m, t, r, t0.elapsed())
            })
        })
        .collect();
    // Every one of them is waiting on mem0 before the other routes are tried.
    hung_server.wait_for_calls(8, Duration::from_secs(10));
    for target in [
        "/api/v1/console/settings",
        "/api/v1/auth/me",
        "/api/v1/sessions",
        "/api/v1/openapi.json",
    ] {
        let t0 = Instant::now();
        let r = get(&s, target);
        let took = t0.elapsed();
        assert_eq!(r.status, 200, "{target}: {}", r.text());
        assert!(
            took < Duration::from_millis(1500),
            "{target} took {took:?} while mem0 hangs"
        );
        eprintln!("{target} answered in {took:?} while 8 requests wait on mem0");
    }
    assert!(
        started.elapsed() < timeout,
        "the fast requests were answered before the slow ones timed out"
    );
    for h in slow {
        let (m, t, r, took) = h.join().unwrap();
        assert_eq!(r.status, 504, "{m} {t}: {}", r.text());
        let v = assert_error_envelope(&r, t);
        assert_eq!(v["error_code"], "timeout", "{v}");
        assert!(v["message"].as_str().unwrap().contains(&hung), "{v}");
        assert!(
            took <= timeout + Duration::from_secs(2),
            "{m} {t}: {took:?}"
        );
    }
}

#[test]
fn rest_reports_a_dead_mem0_as_503() {
    let env = Env::new();
    let dead = common::mem0::unreachable_url();
    mem0_settings(&env, &dead, 1500);
    let s = start(&env, &[]);
    for (m, t) in MEM0_ROUTES {
        let t0 = Instant::now();
        let r = mem0_request(&s, m, t);
        let took = t0.elapsed();
        assert_eq!(r.status, 503, "{m} {t}: {}", r.text());
        let v = assert_error_envelope(&r, t);
        assert_eq!(v["error_code"], "backend_unavailable");
        assert!(v["message"].as_str().unwrap().contains(&dead), "{v}");
        assert!(took < Duration::from_millis(3500), "{t}: {took:?}");
    }
}

// --- with the real mem0 test server (tests/mem0/with-server.sh sets ORYX_MEM0_URL) -----------

use crate::common::mem0::{url as mem0_url, Fault, SERVER as MEM0_SERVER};

#[test]
#[ignore = "needs the mem0 test server: make mem0-contract"]
fn rest_maps_each_mem0_fault_to_a_clear_5xx_envelope() {
    let _one = MEM0_SERVER.lock().unwrap_or_else(|p| p.into_inner());
    let env = Env::new();
    let url = mem0_url();
    let timeout = Duration::from_millis(1500);
    env.settings(json!({
        "backend": "mem0",
        "mem0": {"baseUrl": url, "userId": format!("sec-{}", std::process::id()), "timeoutMs": 1500}
    }));
    let s = start(&env, &[]);
    let r = get(&s, "/api/v1/console/memory?agent=assistant");
    assert_eq!(r.status, 200, "healthy first: {}", r.text());
    for (mode, delay, status, code, says) in [
        ("error500", 0, 503, "backend_unavailable", "500"),
        ("malformed", 0, 503, "backend_unavailable", "malformed JSON"),
        ("slow", 3500, 504, "timeout", "did not answer"),
    ] {
        let fault = Fault::on(mode, delay);
        for (m, t) in MEM0_ROUTES {
            let t0 = Instant::now();
            let r = mem0_request(&s, m, t);
            let took = t0.elapsed();
            assert_eq!(r.status, status, "{mode} {m} {t}: {}", r.text());
            let v = assert_error_envelope(&r, t);
            assert_eq!(v["error_code"], code, "{mode}: {v}");
            let msg = v["message"].as_str().unwrap();
            assert!(msg.contains(&url) && msg.contains(says), "{mode}: {msg}");
            // Every route stops at its first failed call.
            assert!(
                took <= timeout + Duration::from_secs(2),
                "{mode} {t}: {took:?}"
            );
            eprintln!("rest {mode} {m} {t}: {} in {took:?}", r.status);
        }
        drop(fault);
    }
    // Let the slow server finish what it was still sleeping on, then count: the appends that
    // failed fast (500, malformed) are absent; the timed-out ones may have landed, as the error said.
    common::mem0::wait_idle(Duration::from_secs(20));
    let r = get(&s, "/api/v1/console/memory?agent=assistant");
    assert_eq!(r.status, 200, "{}", r.text());
    let n = r.json()["data"]["archival"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["content"] == "must not vanish")
        .count();
    assert!(n <= 1, "only the timed-out append may have landed: {n}");
}

#[test]
fn rest_settings_paths_are_validated() {
    let env = Env::new();
    let s = start(&env, &[]);
    let current = get(&s, "/api/v1/console/settings").json()["data"]["settings"].clone();
    let before = env.snapshot();
    let file = env.root().join("USER.md").display().to_string();
    let root_dir = env.root().display().to_string();
    let mut tried = 0;
    for (field, p) in [
        ("root", "../x"),
        ("root", "x"),
        ("root", ".."),
        ("root", "/tmp/a\0b"),
        ("root", file.as_str()),
        ("root", "/definitely/missing/oryx-root"),
        ("db_path", "../x.db"),
        ("db_path", "oryxos.db"),
        ("db_path", "/tmp/a\0b.db"),
        ("db_path", root_dir.as_str()),
    ] {
        let mut dto = current.clone();
        dto[field] = json!(p);
        for target in ["/api/v1/console/settings", "/api/v1/console/mem0/test"] {
            let method = if target.ends_with("settings") {
                "PUT"
            } else {
                "POST"
            };
            let r = raw(
                &s,
                method,
                target,
                &[("Content-Type", "application/json")],
                Some(dto.to_string().as_bytes()),
            );
            assert_refused(
                &r,
                &["invalid_input"],
                &format!("{method} {target} {field}={p:?}"),
            );
            tried += 1;
        }
    }
    for p in ["", " ", "..", "../x", "x", "%2e%2e", "a\0b", "/tmp/a\0b"] {
        for target in [
            "/api/v1/console/inspect-root",
            "/api/v1/console/sample-root",
        ] {
            let r = post_json(&s, target, &json!({"path": p}));
            assert_refused(&r, &["invalid_input"], &format!("POST {target} {p:?}"));
            tried += 1;
        }
    }
    assert_unchanged(&before, &env.snapshot(), "refused settings paths");
    assert!(
        !env.base().join("config/settings.json").exists(),
        "nothing saved"
    );
    eprintln!("rest settings: {tried} refused path arguments");
}
