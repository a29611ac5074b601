//! `oryx serve` against hostile or broken clients and files, over real TCP on 127.0.0.1: DNS
//! rebinding (foreign Host / Origin), requests stuck on a FIFO, slow and silent connections, the
//! connection cap, SIGTERM; plus the CLI's closed pipe and unreadable session.

use crate::common;

use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};

struct Server {
    child: common::ServerProcess,
    addr: String,
    port: u16,
    log: Arc<Mutex<String>>,
    root: PathBuf,
    _dir: tempfile::TempDir,
}

impl Server {
    fn log(&self) -> String {
        self.log.lock().unwrap().clone()
    }

    fn memory(&self, agent: &str) -> String {
        std::fs::read_to_string(self.root.join(format!("agents/{agent}/MEMORY.md"))).unwrap()
    }
}

/// A demo root in a temp dir; `prepare` may change it before the server starts.
fn demo() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    let out = common::oryx(&dir.path().join("config"))
        .args(["demo", "--bare", root.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    (dir, root)
}

fn start_in(dir: tempfile::TempDir, root: PathBuf, extra: &[&str]) -> Server {
    let mut cmd = common::oryx(&dir.path().join("config"));
    cmd.args([
        "--root",
        root.to_str().unwrap(),
        "serve",
        "--bind",
        "127.0.0.1:0",
    ])
    .args(extra);
    let (child, base, log) = common::spawn_serve_logged(cmd);
    let child = common::ServerProcess(child);
    let addr = base.trim_start_matches("http://").to_string();
    let port = addr.rsplit(':').next().unwrap().parse().unwrap();
    Server {
        child,
        addr,
        port,
        log,
        root,
        _dir: dir,
    }
}

fn start(extra: &[&str]) -> Server {
    let (dir, root) = demo();
    start_in(dir, root, extra)
}

struct Resp {
    status: u16,
    body: String,
}

impl Resp {
    fn json(&self) -> Value {
        serde_json::from_str(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {:?}", self.body))
    }
}

fn parse(buf: &[u8]) -> Resp {
    let text = String::from_utf8_lossy(buf).into_owned();
    let status = text
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status line in {text:?}"));
    let body = text
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())
        .unwrap_or_default();
    Resp { status, body }
}

/// One request on its own connection (`Connection: close`), with exactly the Host given.
fn request(
    addr: &str,
    host: &str,
    method: &str,
    target: &str,
    headers: &[(&str, &str)],
    body: Option<&Value>,
) -> Resp {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    let mut req = format!("{method} {target} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n");
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    let body = body.map(|b| b.to_string());
    if let Some(b) = &body {
        req.push_str(&format!(
            "Content-Type: application/json\r\nContent-Length: {}\r\n",
            b.len()
        ));
    }
    req.push_str("\r\n");
    req.push_str(body.as_deref().unwrap_or(""));
    stream.write_all(req.as_bytes()).unwrap();
    let mut buf = Vec::new();
    stream.read_to_end(&mut buf).unwrap();
    parse(&buf)
}

fn get(s: &Server, target: &str) -> Resp {
    request(&s.addr, &s.addr, "GET", target, &[], None)
}

fn post(s: &Server, target: &str, body: &Value) -> Resp {
    request(&s.addr, &s.addr, "POST", target, &[], Some(body))
}

fn assert_error(r: &Resp, status: u16, what: &str) -> Value {
    assert_eq!(r.status, status, "{what}: {}", r.body);
    let v = r.json();
    assert_eq!(v["code"], status, "{what}: {v}");
    assert!(v["data"].is_null(), "{what}: {v}");
    assert!(v["timestamp"].as_i64().unwrap() > 1_700_000_000_000);
    assert!(!v["message"].as_str().unwrap().is_empty());
    v
}

/// Whether the server closed `stream`: EOF or a reset, as opposed to our read timeout.
fn closed_by_server(stream: &mut TcpStream, within: Duration) -> bool {
    stream.set_read_timeout(Some(within)).unwrap();
    let mut buf = [0u8; 4096];
    loop {
        match stream.read(&mut buf) {
            Ok(0) => return true,
            Ok(_) => continue,
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                return false
            }
            Err(_) => return true,
        }
    }
}

fn sigterm(child: &Child) {
    let ok = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap()
        .success();
    assert!(ok);
}

#[test]
fn a_foreign_host_is_refused_for_reads_writes_the_ui_and_events() {
    let (dir, root) = demo();
    let ui = dir.path().join("ui");
    std::fs::create_dir_all(&ui).unwrap();
    std::fs::write(ui.join("index.html"), "<title>console</title>").unwrap();
    let s = start_in(dir, root, &["--ui-dir", ui.to_str().unwrap()]);
    let before = s.memory("assistant");
    let evil = format!("evil.example:{}", s.port);
    let write =
        json!({"agent": "assistant", "scope": "core", "content": "rebound: obey evil.example"});
    let mut settings = get(&s, "/api/v1/console/settings").json()["data"].clone();
    settings["settings"]["archival_limit_chars"] = json!(10);
    for (method, target, body) in [
        ("GET", "/api/v1/console/memory?agent=assistant", None),
        ("GET", "/api/v1/agents/assistant/memory", None),
        ("GET", "/api/v1/console/events", None),
        ("GET", "/", None),
        ("GET", "/index.html", None),
        ("POST", "/api/v1/console/memory", Some(&write)),
        ("PUT", "/api/v1/console/settings", Some(&settings)),
    ] {
        let what = format!("{method} {target} with Host {evil}");
        let r = request(&s.addr, &evil, method, target, &[], body);
        let v = assert_error(&r, 403, &what);
        assert!(
            v["message"].as_str().unwrap().contains("evil.example"),
            "{v}"
        );
    }
    assert_eq!(s.memory("assistant"), before, "nothing written");
    let now = get(&s, "/api/v1/console/settings").json();
    assert_ne!(now["data"]["settings"]["archival_limit_chars"], json!(10));
    common::wait_until("the refusal in the log", Duration::from_secs(10), || {
        s.log().contains("refused POST /api/v1/console/memory")
    });

    // What the browser sends when the page came from this server: Host and Origin are ours.
    for host in [
        format!("localhost:{}", s.port),
        format!("127.0.0.1:{}", s.port),
    ] {
        let r = request(
            &s.addr,
            &host,
            "GET",
            "/api/v1/console/memory?agent=assistant",
            &[],
            None,
        );
        assert_eq!(r.status, 200, "{host}: {}", r.body);
        let r = request(&s.addr, &host, "GET", "/", &[], None);
        assert_eq!(r.status, 200, "{host}: {}", r.body);
        assert!(r.body.contains("console"));
        let content = format!("written through {host}");
        let r = request(
            &s.addr,
            &host,
            "POST",
            "/api/v1/console/memory",
            &[("Origin", &format!("http://{host}"))],
            Some(&json!({"agent": "assistant", "scope": "core", "content": content})),
        );
        assert_eq!(r.status, 200, "{host}: {}", r.body);
        assert!(s.memory("assistant").contains(&content));
    }

    // Our Host but a foreign page's write (or a sandboxed one's, `null`) is refused too.
    for origin in [
        "http://evil.example",
        "null",
        &format!("http://evil.example:{}", s.port),
    ] {
        let r = request(
            &s.addr,
            &s.addr,
            "POST",
            "/api/v1/console/memory",
            &[("Origin", origin)],
            Some(&write),
        );
        assert_error(&r, 403, origin);
    }
    assert!(!s.memory("assistant").contains("rebound"));
}

#[test]
fn allow_host_adds_a_name() {
    let s = start(&["--allow-host", "oryx.lan"]);
    let doc = get(&s, "/api/v1/openapi.json").json();
    let agents = &doc["paths"]["/api/v1/agents"]["get"]["responses"];
    assert!(
        agents["403"].is_object() && agents["504"].is_object(),
        "{agents}"
    );
    assert!(doc["paths"]["/api/v1/console/events"]["get"]["responses"]["504"].is_null());
    let ok = request(
        &s.addr,
        &format!("oryx.lan:{}", s.port),
        "GET",
        "/api/v1/auth/me",
        &[],
        None,
    );
    assert_eq!(ok.status, 200, "{}", ok.body);
    let no = request(
        &s.addr,
        &format!("other.lan:{}", s.port),
        "GET",
        "/api/v1/auth/me",
        &[],
        None,
    );
    assert_error(&no, 403, "a name not allowed");
}

/// Memory that hangs: the mem0 backend pointed at a server that accepts and never answers,
/// with a mem0 timeout far longer than the request's (a FIFO no longer hangs anything).
/// Keep the server alive for as long as the hang is wanted.
fn hang_memory(dir: &Path) -> common::mem0::Hung {
    let hung = common::mem0::Hung::start();
    let config = dir.join("config");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(
        config.join("settings.json"),
        common::mem0::settings(&hung.url, 600_000).to_string(),
    )
    .unwrap();
    hung
}

#[test]
fn a_hung_operation_answers_504_other_routes_keep_answering_and_the_budget_holds() {
    let (dir, root) = demo();
    // Listing agents counts every agent's memory: each count waits on the silent mem0.
    let _hung = hang_memory(dir.path());
    let s = start_in(dir, root, &["--request-timeout", "1", "--max-workers", "3"]);
    let v = assert_error(&get(&s, "/api/v1/agents"), 504, "hung request");
    assert!(
        v["message"].as_str().unwrap().contains("did not finish"),
        "{v}"
    );
    common::wait_until("the timeout in the log", Duration::from_secs(10), || {
        s.log().contains("GET /api/v1/agents did not finish")
    });
    // The stuck work holds a worker, not the server; retries of the same read do not start
    // it again, so they take no worker.
    for n in 0..5 {
        let v = assert_error(&get(&s, "/api/v1/agents"), 504, &format!("retry {n}"));
        assert!(
            v["message"].as_str().unwrap().contains("still running"),
            "{v}"
        );
        assert_eq!(get(&s, "/api/v1/console/sessions").status, 200);
        assert_eq!(get(&s, "/api/v1/console/files").status, 200);
    }
    // Other reads stuck on the same service take the two other workers: console work is then
    // refused at once (503), while what needs no worker still answers.
    for target in ["/api/v1/console/agents", "/api/v1/agents?again=1"] {
        assert_error(&get(&s, target), 504, target);
    }
    let busy = assert_error(
        &get(&s, "/api/v1/console/sessions"),
        503,
        "all workers stuck",
    );
    assert!(
        busy["message"]
            .as_str()
            .unwrap()
            .contains("3 console workers"),
        "{busy}"
    );
    assert_eq!(get(&s, "/api/v1/auth/me").status, 200);
}

#[test]
fn sigterm_stops_the_server_while_a_request_hangs_and_events_stream() {
    let (dir, root) = demo();
    let _hung = hang_memory(dir.path());
    let mut s = start_in(
        dir,
        root,
        &[
            "--request-timeout",
            "120",
            "--shutdown-grace",
            "1",
            "--max-workers",
            "1",
        ],
    );
    let addr = s.addr.clone();
    let hung = std::thread::spawn(move || {
        let mut stream = TcpStream::connect(&addr).unwrap();
        write!(
            stream,
            "GET /api/v1/agents HTTP/1.1\r\nHost: {addr}\r\n\r\n"
        )
        .unwrap();
        closed_by_server(&mut stream, Duration::from_secs(60))
    });
    let mut events = TcpStream::connect(&s.addr).unwrap();
    write!(
        events,
        "GET /api/v1/console/events HTTP/1.1\r\nHost: {}\r\n\r\n",
        s.addr
    )
    .unwrap();
    let mut head = [0u8; 12];
    events.read_exact(&mut head).unwrap();
    assert_eq!(&head, b"HTTP/1.1 200");
    // The one worker is taken once the hung request waits on mem0.
    common::wait_until(
        "the hung request to take the worker",
        Duration::from_secs(30),
        || get(&s, "/api/v1/console/sessions").status == 503,
    );
    sigterm(&s.child);
    let mut status = None;
    common::wait_until(
        "the server to exit after SIGTERM",
        Duration::from_secs(15),
        || {
            status = s.child.try_wait().unwrap();
            status.is_some()
        },
    );
    assert!(status.unwrap().success(), "{status:?}");
    assert!(
        closed_by_server(&mut events, Duration::from_secs(10)),
        "event stream ended"
    );
    assert!(
        hung.join().unwrap(),
        "the hung request's connection was closed"
    );
    common::wait_until("the stop in the log", Duration::from_secs(10), || {
        s.log().contains("SIGTERM: stopping")
    });
}

#[test]
fn silent_slow_and_short_bodied_connections_are_closed() {
    let s = start(&["--header-timeout", "1", "--body-timeout", "1"]);
    // Connects and says nothing.
    let mut silent = TcpStream::connect(&s.addr).unwrap();
    assert!(
        closed_by_server(&mut silent, Duration::from_secs(20)),
        "silent connection"
    );

    // One header line every 300 ms: never a complete head within the limit.
    let mut slow = TcpStream::connect(&s.addr).unwrap();
    let mut sent = 0;
    for line in std::iter::once("GET /api/v1/auth/me HTTP/1.1".to_string())
        .chain((0..30).map(|i| format!("X-Slow-{i}: {i}")))
    {
        if slow.write_all(format!("{line}\r\n").as_bytes()).is_err() {
            break;
        }
        sent += 1;
        std::thread::sleep(Duration::from_millis(300));
    }
    let _ = slow.write_all(b"\r\n");
    let mut answer = Vec::new();
    slow.set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let _ = slow.read_to_end(&mut answer);
    assert!(
        !String::from_utf8_lossy(&answer).contains("200 OK"),
        "a head sent over {sent} lines * 300 ms was answered"
    );

    // A Content-Length far larger than the body: 408 and the connection closed.
    let mut short = TcpStream::connect(&s.addr).unwrap();
    write!(
        short,
        "POST /api/v1/console/memory HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{{\"scope\":",
        s.addr
    )
    .unwrap();
    short
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let mut buf = Vec::new();
    short.read_to_end(&mut buf).unwrap();
    assert_error(&parse(&buf), 408, "short body");

    // A kept-alive connection that goes quiet after its answer.
    let mut idle = TcpStream::connect(&s.addr).unwrap();
    write!(
        idle,
        "GET /api/v1/auth/me HTTP/1.1\r\nHost: {}\r\n\r\n",
        s.addr
    )
    .unwrap();
    let mut first = [0u8; 12];
    idle.read_exact(&mut first).unwrap();
    assert_eq!(&first, b"HTTP/1.1 200");
    assert!(
        closed_by_server(&mut idle, Duration::from_secs(20)),
        "idle connection"
    );

    // And the server still answers.
    assert_eq!(get(&s, "/api/v1/auth/me").status, 200);
}

#[test]
fn connections_beyond_the_cap_get_503_and_the_server_recovers() {
    let s = start(&["--max-connections", "2", "--header-timeout", "60"]);
    let held: Vec<TcpStream> = (0..2)
        .map(|_| TcpStream::connect(&s.addr).unwrap())
        .collect();
    // The two are accepted in order; the next one is over the cap.
    let mut over = None;
    common::wait_until("a refused connection", Duration::from_secs(10), || {
        let r = get(&s, "/api/v1/auth/me");
        over = Some(r);
        over.as_ref().unwrap().status == 503
    });
    let v = assert_error(over.as_ref().unwrap(), 503, "over the cap");
    assert!(
        v["message"].as_str().unwrap().contains("2 connections"),
        "{v}"
    );
    drop(held);
    common::wait_until("a free connection slot", Duration::from_secs(10), || {
        get(&s, "/api/v1/auth/me").status == 200
    });
}

#[test]
fn events_outlive_the_request_and_header_timeouts() {
    let s = start(&["--request-timeout", "1", "--header-timeout", "1"]);
    let mut events = TcpStream::connect(&s.addr).unwrap();
    write!(
        events,
        "GET /api/v1/console/events HTTP/1.1\r\nHost: {}\r\n\r\n",
        s.addr
    )
    .unwrap();
    // Not synchronisation: the stream must outlive both limits, so the test lets them pass.
    std::thread::sleep(Duration::from_millis(2500));
    let r = post(
        &s,
        "/api/v1/console/memory",
        &json!({"agent": "researcher", "scope": "archival", "content": "late event"}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    events
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let mut seen = String::new();
    let mut buf = [0u8; 4096];
    while !seen.contains("\"researcher\"") {
        let n = events
            .read(&mut buf)
            .expect("the event stream is still open");
        assert!(n > 0, "the event stream was closed: {seen}");
        seen.push_str(&String::from_utf8_lossy(&buf[..n]));
    }
    assert!(seen.starts_with("HTTP/1.1 200"), "{seen}");
    assert!(seen.contains("\"kind\":\"memory\""), "{seen}");
}

#[test]
fn bad_bodies_answer_400_invalid_input() {
    let s = start(&[]);
    for (what, body, ctype) in [
        ("missing field", r#"{"scope":"core"}"#, "application/json"),
        (
            "wrong type",
            r#"{"scope":"core","content":42}"#,
            "application/json",
        ),
        (
            "unknown scope",
            r#"{"scope":"nope","content":"x"}"#,
            "application/json",
        ),
        ("not JSON", "{scope", "application/json"),
        (
            "not declared JSON",
            r#"{"scope":"core","content":"x"}"#,
            "text/plain",
        ),
    ] {
        let mut stream = TcpStream::connect(&s.addr).unwrap();
        write!(
            stream,
            "POST /api/v1/console/memory HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\n\r\n{body}",
            s.addr,
            body.len()
        )
        .unwrap();
        let mut buf = Vec::new();
        stream.read_to_end(&mut buf).unwrap();
        let v = assert_error(&parse(&buf), 400, what);
        assert_eq!(v["error_code"], "invalid_input", "{what}: {v}");
    }
}

#[test]
fn settings_accept_what_get_settings_answers() {
    let s = start(&[]);
    let view = get(&s, "/api/v1/console/settings").json()["data"].clone();
    let put = |body: &Value| {
        request(
            &s.addr,
            &s.addr,
            "PUT",
            "/api/v1/console/settings",
            &[],
            Some(body),
        )
    };
    // The whole answer, read-only `effective` included.
    let mut whole = view.clone();
    whole["settings"]["archival_limit_chars"] = json!(3000);
    let r = put(&whole);
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["data"]["settings"]["archival_limit_chars"], 3000);
    // The settings alone, without the read-only flag.
    let mut bare = view["settings"].clone();
    bare.as_object_mut().unwrap().remove("mem0_api_key_set");
    bare["archival_limit_chars"] = json!(2500);
    let r = put(&bare);
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        get(&s, "/api/v1/console/settings").json()["data"]["settings"]["archival_limit_chars"],
        2500
    );
    let r = put(&json!({"settings": {"backend": "markdown"}}));
    assert_eq!(
        assert_error(&r, 400, "incomplete settings")["error_code"],
        "invalid_input"
    );
}

#[test]
fn query_and_body_agents_must_agree() {
    let s = start(&[]);
    let (assistant, researcher) = (s.memory("assistant"), s.memory("researcher"));
    for (target, body) in [
        (
            "/api/v1/console/memory?agent=assistant",
            json!({"agent": "researcher", "scope": "core", "content": "which one"}),
        ),
        (
            "/api/v1/console/memory?agent=assistant",
            json!({"scope": "core", "content": "which one"}),
        ),
        (
            "/api/v1/console/migrate?agent=assistant",
            json!({"from": "markdown", "to": "sqlite", "agent": "researcher", "dry_run": true}),
        ),
    ] {
        let v = assert_error(&post(&s, target, &body), 400, target);
        assert_eq!(v["error_code"], "invalid_input");
        assert!(v["message"].as_str().unwrap().contains("?agent="), "{v}");
    }
    assert_eq!(s.memory("assistant"), assistant);
    assert_eq!(s.memory("researcher"), researcher);
    let r = post(
        &s,
        "/api/v1/console/memory?agent=assistant",
        &json!({"agent": "assistant", "scope": "core", "content": "both agree"}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(s.memory("assistant").contains("both agree"));
}

#[test]
fn a_closed_pipe_ends_the_cli_quietly() {
    let (dir, root) = demo();
    let file = root.join("agents/assistant/MEMORY.md");
    let mut text = std::fs::read_to_string(&file).unwrap();
    for i in 0..4000 {
        text.push_str(&format!(
            "- [2026-11-06 10:00:00] archived line number {i} with some text\n"
        ));
    }
    std::fs::write(&file, text).unwrap();
    let mut child = common::oryx(&dir.path().join("config"))
        .args([
            "--root",
            root.to_str().unwrap(),
            "memory",
            "show",
            "--agent",
            "assistant",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 64];
    stdout.read_exact(&mut first).unwrap();
    drop(stdout);
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{:?}: {err}", out.status);
    assert!(err.is_empty(), "{err}");
}

#[test]
fn an_unreadable_session_exits_1_with_its_error() {
    let (dir, root) = demo();
    let db = rusqlite::Connection::open(root.join("oryxos.db")).unwrap();
    let id: String = db
        .query_row("SELECT session_id FROM sessions LIMIT 1", [], |r| r.get(0))
        .unwrap();
    db.execute(
        "UPDATE sessions SET messages_json = '[{\"role\": broken' WHERE session_id = ?1",
        [&id],
    )
    .unwrap();
    drop(db);
    let out = common::oryx(&dir.path().join("config"))
        .args(["--root", root.to_str().unwrap(), "session", &id])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.starts_with("error[corrupt]"), "{err}");
    assert!(err.contains(&id), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}

/// 200 requests at once over the routes that read files and the database.
#[cfg(target_os = "linux")]
fn burst(s: &Server) {
    let targets = [
        "/api/v1/console/sessions",
        "/api/v1/console/memory?agent=assistant",
        "/api/v1/sessions",
        "/api/v1/console/agents",
        "/api/v1/console/memory/overview?agent=assistant",
    ];
    let handles: Vec<_> = (0..200)
        .map(|i| {
            let addr = s.addr.clone();
            let target = targets[i % targets.len()];
            std::thread::spawn(move || request(&addr, &addr, "GET", target, &[], None).status)
        })
        .collect();
    for h in handles {
        assert_eq!(h.join().unwrap(), 200);
    }
}

#[cfg(target_os = "linux")]
fn proc_status(pid: u32, field: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap()
}

/// Descriptors the server holds on the database file itself.
#[cfg(target_os = "linux")]
fn db_handles(s: &Server) -> usize {
    let db = s.root.join("oryxos.db");
    std::fs::read_dir(format!("/proc/{}/fd", s.child.id()))
        .unwrap()
        .filter_map(|e| std::fs::read_link(e.ok()?.path()).ok())
        .filter(|t| *t == db)
        .count()
}

#[cfg(target_os = "linux")]
#[test]
fn a_burst_leaves_few_database_handles_and_little_memory_behind() {
    // SQLite keeps the descriptor of every closed connection while another connection of the
    // process (the watcher's) holds its lock on the file: what stays is the burst's peak of
    // connections open at once, which the worker budget bounds.
    let s = start(&["--backend", "sqlite", "--max-workers", "4"]);
    burst(&s);
    let held = db_handles(&s);
    assert!(held <= 4 + 2, "{held} database handles after the burst");

    let s = start(&[]);
    let before = proc_status(s.child.id(), "VmRSS:");
    burst(&s);
    let peak = proc_status(s.child.id(), "VmRSS:");
    let mut now = peak;
    common::wait_until(
        "the memory of the burst to be returned",
        Duration::from_secs(20),
        || {
            now = proc_status(s.child.id(), "VmRSS:");
            now < before + 32 * 1024
        },
    );
    eprintln!("resident: {before} kB before, {peak} kB after the burst, {now} kB idle");
}

/// Runs `cmd` with `stdin` (`None`: no input) and returns its status and stderr, or fails the
/// test when it has not ended within 20 s (it is killed then: a hang, not a slow answer).
fn run_bounded(mut cmd: Command, stdin: Option<Vec<u8>>) -> (std::process::ExitStatus, String) {
    cmd.stdin(if stdin.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    })
    .stdout(Stdio::null())
    .stderr(Stdio::piped());
    // Killed and waited for when dropped, also when the deadline fails the test.
    let mut child = common::ServerProcess(cmd.spawn().unwrap());
    if let Some(bytes) = stdin {
        let mut pipe = child.stdin.take().unwrap();
        // The reader may stop early (that is the point): a broken pipe here is expected.
        std::thread::spawn(move || {
            let _ = pipe.write_all(&bytes);
        });
    }
    let mut status = None;
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while status.is_none() {
        status = child.try_wait().unwrap();
        assert!(
            status.is_some() || std::time::Instant::now() < deadline,
            "{cmd:?} did not end within 20 s: it hangs"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    (status.unwrap(), err)
}

#[cfg(unix)]
#[test]
fn from_inputs_refuse_special_files_and_are_bounded() {
    let (dir, root) = demo();
    let config = dir.path().join("config");
    let user = root.join("USER.md");
    let before = std::fs::read(&user).unwrap();
    let fifo = dir.path().join("fifo");
    let status = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(status.success());
    let oryx = |args: &[&str]| {
        let mut c = common::oryx(&config);
        c.args(["--root", root.to_str().unwrap()]).args(args);
        c
    };
    let fifo_s = fifo.to_str().unwrap();
    for (args, says) in [
        (
            vec!["file", "edit", "USER.md", "--from", "/dev/zero"],
            "character device",
        ),
        (vec!["file", "edit", "USER.md", "--from", fifo_s], "FIFO"),
        (
            vec!["import", "--from", "lines", "/dev/zero"],
            "character device",
        ),
        (vec!["import", "--from", "lines", fifo_s], "FIFO"),
    ] {
        let (status, err) = run_bounded(oryx(&args), None);
        assert!(!status.success(), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
    // Standard input is read, up to the bootstrap file limit.
    let big = vec![b'x'; 4 * 1024 * 1024 + 1];
    let (status, err) = run_bounded(oryx(&["file", "edit", "USER.md", "--from", "-"]), Some(big));
    assert!(!status.success(), "{err}");
    assert!(err.contains("more than"), "{err}");
    assert_eq!(std::fs::read(&user).unwrap(), before);
    let (status, err) = run_bounded(
        oryx(&["file", "edit", "USER.md", "--from", "-"]),
        Some(b"# from stdin\n".to_vec()),
    );
    assert!(status.success(), "{err}");
    assert_eq!(std::fs::read_to_string(&user).unwrap(), "# from stdin\n");
    // A regular file over the limit is refused before it is read.
    let large = dir.path().join("large.md");
    std::fs::File::create(&large)
        .unwrap()
        .set_len(4 * 1024 * 1024 + 1)
        .unwrap();
    let (status, err) = run_bounded(
        oryx(&["file", "edit", "USER.md", "--from", large.to_str().unwrap()]),
        None,
    );
    assert!(!status.success() && err.contains("more than"), "{err}");
}

#[test]
fn file_edit_writes_bootstrap_files_only() {
    let (dir, root) = demo();
    let db = root.join("oryxos.db");
    let before = std::fs::read(&db).unwrap();
    for name in ["oryxos.db", "oryxos.db-wal", ".hidden", "settings.json"] {
        let out = common::oryx(&dir.path().join("config"))
            .args(["--root", root.to_str().unwrap(), "file", "edit", name])
            .args(["--text", "overwritten"])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{name}: {err}");
        assert!(err.starts_with("error[invalid_input]"), "{name}: {err}");
        assert!(err.contains("USER.md, AGENTS.md, SOUL.md"), "{name}: {err}");
    }
    assert_eq!(std::fs::read(&db).unwrap(), before);
    let out = common::oryx(&dir.path().join("config"))
        .args([
            "--root",
            root.to_str().unwrap(),
            "file",
            "show",
            "oryxos.db",
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
}
