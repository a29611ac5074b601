//! The server's routes over real HTTP on 127.0.0.1: the envelope, every status code, the
//! Java-compatible routes, token and body-size limits, the UI, an archive's download and upload.

use crate::common;

use serde_json::{json, Value};

struct Server {
    /// Held for its drop: the server stops with the test.
    _server: common::Server,
    base: String,
    _dir: tempfile::TempDir,
    root: std::path::PathBuf,
}

fn start(extra: &[&str]) -> Server {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    common::demo(&root);
    let server = common::serve(&dir.path().join("config"), &root, extra);
    Server {
        base: server.base.clone(),
        _server: server,
        _dir: dir,
        root,
    }
}

fn client() -> reqwest::blocking::Client {
    reqwest::blocking::Client::new()
}

fn get(s: &Server, path: &str) -> (u16, Value) {
    let r = client().get(format!("{}{path}", s.base)).send().unwrap();
    (r.status().as_u16(), r.json().unwrap())
}

fn assert_envelope(v: &Value, code: u64) {
    assert_eq!(v["code"], code, "{v}");
    assert!(v["timestamp"].as_i64().unwrap() > 1_700_000_000_000);
    if code == 0 {
        assert_eq!(v["message"], "success");
    } else {
        assert!(v["data"].is_null());
        let msg = v["message"].as_str().unwrap();
        assert!(
            !msg.is_empty() && !msg.contains("panicked") && !msg.contains("src/"),
            "{msg}"
        );
    }
}

#[test]
fn memory_route_returns_the_context_text_in_the_envelope() {
    let s = start(&[]);
    let (status, v) = get(&s, "/api/v1/agents/assistant/memory");
    assert_eq!(status, 200);
    assert_envelope(&v, 0);
    let text = v["data"].as_str().unwrap();
    let console = common::console(&s._dir.path().join("config"), &s.root);
    assert_eq!(
        text,
        console.memory_context(Some("assistant")).unwrap(),
        "exactly the console's memory context (what `oryx memory context` prints)"
    );
}

#[test]
fn status_codes_and_envelopes() {
    let s = start(&[]);
    let cases = [
        ("/api/v1/agents/..%2F..%2Fetc/memory", 400),
        ("/api/v1/agents/a%5Cb/memory", 400),
        ("/api/v1/agents/ghost/memory", 404),
        ("/api/v1/sessions/nope", 404),
        ("/api/v1/no/such/route", 404),
        ("/api/v1/sessions?status=weird", 400),
        ("/api/v1/console/sessions?limit=0", 400),
        ("/api/v1/console/memory/recall?agent=assistant", 400),
    ];
    for (path, code) in cases {
        let (status, v) = get(&s, path);
        assert_eq!(status, code, "{path}: {v}");
        assert_envelope(&v, code as u64);
    }
    // 409: the sample root cannot be written into a folder that is not empty.
    let r = client()
        .post(format!("{}/api/v1/console/sample-root", s.base))
        .json(&json!({"path": s.root.to_str().unwrap()}))
        .send()
        .unwrap();
    assert_eq!(r.status().as_u16(), 409);
    assert_envelope(&r.json().unwrap(), 409);
    // 503: a backend that cannot be reached.
    let (_, settings) = get(&s, "/api/v1/console/settings");
    let mut dto = settings["data"]["settings"].clone();
    dto["backend"] = json!("mem0");
    let put = |dto: &Value| {
        client()
            .put(format!("{}/api/v1/console/settings", s.base))
            .json(dto)
            .send()
            .unwrap()
    };
    let r = put(&dto);
    assert_eq!(
        r.status().as_u16(),
        400,
        "mem0 without a base URL is refused"
    );
    assert_envelope(&r.json().unwrap(), 400);
    dto["mem0_base_url"] = json!("http://127.0.0.1:9");
    dto["mem0_timeout_ms"] = json!(1000);
    assert_eq!(put(&dto).status().as_u16(), 200);
    let (status, v) = get(&s, "/api/v1/agents/assistant/memory");
    assert_eq!(status, 503, "{v}");
    assert_envelope(&v, 503);
    assert!(v["message"]
        .as_str()
        .unwrap()
        .contains("http://127.0.0.1:9"));
    dto["backend"] = json!("markdown");
    assert_eq!(put(&dto).status().as_u16(), 200);
    // 500: a database that is not SQLite.
    std::fs::write(s.root.join("oryxos.db"), vec![b'x'; 4096]).unwrap();
    let (status, v) = get(&s, "/api/v1/sessions");
    assert_eq!(status, 500, "{v}");
    assert_envelope(&v, 500);
    assert!(v["message"]
        .as_str()
        .unwrap()
        .contains("not a readable SQLite database"));
}

#[test]
fn java_compatible_routes() {
    let s = start(&[]);
    let (_, v) = get(&s, "/api/v1/auth/me");
    assert_eq!(
        v["data"],
        json!({"authenticationEnabled": false, "username": null})
    );
    let (_, v) = get(&s, "/api/v1/agents");
    let a = v["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["name"] == "assistant")
        .unwrap()
        .clone();
    for key in [
        "name",
        "description",
        "provider",
        "model",
        "tools",
        "skills",
        "schedules",
    ] {
        assert!(a.get(key).is_some(), "missing {key} in {a}");
    }
    assert_eq!(a["schedules"][0]["cron"], "0 0 9 * * MON-FRI");
    let (_, v) = get(&s, "/api/v1/sessions");
    let items = v["data"].as_array().unwrap();
    assert!(!items.is_empty() && items.len() <= 100);
    let first = &items[0];
    for key in [
        "sessionId",
        "profileName",
        "channel",
        "userId",
        "status",
        "createdAt",
        "lastActiveAt",
        "messageCount",
    ] {
        assert!(first.get(key).is_some(), "missing {key}");
    }
    assert!(first["lastActiveAt"].as_str().unwrap().ends_with('Z'));
    let times: Vec<&str> = items
        .iter()
        .map(|i| i["lastActiveAt"].as_str().unwrap())
        .collect();
    let mut sorted = times.clone();
    sorted.sort_by(|a, b| b.cmp(a));
    assert_eq!(times, sorted, "newest first");
    let (_, v) = get(&s, "/api/v1/sessions?status=archived");
    assert!(v["data"]
        .as_array()
        .unwrap()
        .iter()
        .all(|i| i["status"] == "archived"));
    let (_, stats) = get(&s, "/api/v1/sessions/stats");
    let d = &stats["data"];
    assert_eq!(
        d["total"].as_u64().unwrap(),
        d["active"].as_u64().unwrap() + d["archived"].as_u64().unwrap()
    );
    let id = first["sessionId"].as_str().unwrap();
    let (_, v) = get(&s, &format!("/api/v1/sessions/{id}"));
    assert_eq!(v["data"]["sessionId"], id);
    assert!(v["data"]["messages"][1]["toolCalls"][0]["argumentsJson"].is_string());
    let (_, doc) = get(&s, "/api/v1/openapi.json");
    assert!(doc["paths"]["/api/v1/agents/{name}/memory"]["get"].is_object());
    assert!(doc["paths"]["/api/v1/console/memory"]["post"].is_object());
}

#[test]
fn console_routes_append_and_read_back() {
    let s = start(&[]);
    let r = client()
        .post(format!("{}/api/v1/console/memory", s.base))
        .json(&json!({"agent": "researcher", "scope": "archival", "content": "from rest"}))
        .send()
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let (_, v) = get(&s, "/api/v1/console/memory?agent=researcher");
    let last = v["data"]["archival"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(last["content"], "from rest");
    assert_eq!(last["in_window"], true);
    let (_, v) = get(
        &s,
        "/api/v1/console/memory/recall?agent=researcher&keyword=FROM%20REST",
    );
    assert_eq!(v["data"]["entries"].as_array().unwrap().len(), 1);
    let r = client()
        .post(format!("{}/api/v1/console/memory", s.base))
        .header("content-type", "application/json")
        .body("{not json")
        .send()
        .unwrap();
    assert_eq!(r.status().as_u16(), 400);
    assert_envelope(&r.json().unwrap(), 400);
}

#[test]
fn bodies_are_bounded() {
    let s = start(&[]);
    let big = "x".repeat(2 * 1024 * 1024);
    let r = client()
        .post(format!("{}/api/v1/console/memory", s.base))
        .json(&json!({"agent": "researcher", "scope": "archival", "content": big}))
        .send()
        .unwrap();
    assert_eq!(r.status().as_u16(), 413);
    assert_envelope(&r.json().unwrap(), 413);
}

#[test]
fn token_is_required_when_set() {
    let s = start(&["--token", "s3cret-token"]);
    let (status, v) = get(&s, "/api/v1/agents");
    assert_eq!(status, 401);
    assert_envelope(&v, 401);
    let r = client()
        .get(format!("{}/api/v1/agents", s.base))
        .bearer_auth("wrong-token!")
        .send()
        .unwrap();
    assert_eq!(r.status().as_u16(), 401);
    let r = client()
        .get(format!("{}/api/v1/agents", s.base))
        .bearer_auth("s3cret-token")
        .send()
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let r = client()
        .get(format!("{}/api/v1/auth/me", s.base))
        .bearer_auth("s3cret-token")
        .send()
        .unwrap();
    assert_eq!(
        r.json::<Value>().unwrap()["data"]["authenticationEnabled"],
        true
    );
    let r = client()
        .get(format!("{}/api/v1/agents", s.base))
        .header("origin", "http://evil.example")
        .bearer_auth("s3cret-token")
        .send()
        .unwrap();
    assert!(
        r.headers().get("access-control-allow-origin").is_none(),
        "CORS stays off"
    );
}

#[test]
fn serves_the_ui_but_never_for_api_paths() {
    let ui = tempfile::tempdir().unwrap();
    std::fs::write(
        ui.path().join("index.html"),
        "<!doctype html><title>console</title>",
    )
    .unwrap();
    let s = start(&["--ui-dir", ui.path().to_str().unwrap()]);
    let page = client()
        .get(format!("{}/", s.base))
        .send()
        .unwrap()
        .text()
        .unwrap();
    assert!(page.contains("<title>console</title>"));
    let deep = client()
        .get(format!("{}/some/client/route", s.base))
        .send()
        .unwrap()
        .text()
        .unwrap();
    assert!(
        deep.contains("<title>console</title>"),
        "client-side routes get index.html"
    );
    let (status, v) = get(&s, "/api/v1/unknown");
    assert_eq!(status, 404);
    assert_envelope(&v, 404);
}

/// Export in the browser: start the job, poll it, download the archive; import: upload those
/// bytes, dry run, import. Over the same server (its root already has everything: nothing new).
#[test]
fn an_archive_downloads_and_uploads_over_rest() {
    let s = start(&[]);
    let op = |name: &str, body: Value| -> Value {
        let r = client()
            .post(format!("{}/api/v1/console/{name}", s.base))
            .json(&body)
            .send()
            .unwrap();
        let v: Value = r.json().unwrap();
        assert_eq!(v["code"], 0, "{name}: {v}");
        v["data"].clone()
    };
    let wait = |id: &str| -> Value {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        loop {
            let t = op("transfer_status", json!({"id": id}));
            if t["state"] != "running" {
                return t;
            }
            assert!(std::time::Instant::now() < deadline, "{t}");
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    };
    let job = op(
        "start_export",
        json!({"agents": ["assistant"], "sessions": true}),
    );
    let done = wait(job["id"].as_str().unwrap());
    assert_eq!(done["state"], "done", "{done}");
    let r = client()
        .get(format!(
            "{}/api/v1/console/transfer/{}/archive",
            s.base,
            job["id"].as_str().unwrap()
        ))
        .send()
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    assert_eq!(r.headers()["content-type"], "application/zip");
    let disposition = r.headers()["content-disposition"]
        .to_str()
        .unwrap()
        .to_string();
    assert!(
        disposition.starts_with("attachment;") && disposition.contains("oryx-assistant-"),
        "{disposition}"
    );
    let bytes = r.bytes().unwrap();
    assert_eq!(
        bytes.len() as u64,
        done["export"]["bytes"].as_u64().unwrap()
    );
    assert_eq!(&bytes[..2], b"PK");

    let r = client()
        .post(format!(
            "{}/api/v1/console/transfer/upload?name=a.zip",
            s.base
        ))
        .body(bytes.to_vec())
        .send()
        .unwrap();
    let up: Value = r.json().unwrap();
    assert_eq!(up["code"], 0, "{up}");
    assert_eq!(up["data"]["bytes"].as_u64().unwrap(), bytes.len() as u64);
    let token = up["data"]["upload"].as_str().unwrap().to_string();
    let dry = op("start_import", json!({"upload": token, "dry_run": true}));
    let dry = wait(dry["id"].as_str().unwrap());
    assert_eq!(dry["state"], "done", "{dry}");
    let owners = dry["import"]["owners"].as_array().unwrap();
    assert!(!owners.is_empty());
    assert!(
        owners
            .iter()
            .all(|o| o["new"] == 0 && o["present"] == o["in_archive"]),
        "{dry}"
    );
    // An empty upload and a finished import's id as an archive are refused with a reason.
    let r = client()
        .post(format!("{}/api/v1/console/transfer/upload", s.base))
        .send()
        .unwrap();
    assert_eq!(r.status().as_u16(), 400);
    let r = client()
        .get(format!(
            "{}/api/v1/console/transfer/{}/archive",
            s.base,
            dry["id"].as_str().unwrap()
        ))
        .send()
        .unwrap();
    assert_eq!(r.status().as_u16(), 409);
    assert_envelope(&r.json().unwrap(), 409);
}
