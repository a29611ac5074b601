//! The Java runtime's admin UI against `oryx serve` on the sample root: every route its screens
//! call answers in the runtime's envelope and field names, its login flow works with `--token`,
//! a corrupt session carries its error, and instants keep their milliseconds.

use crate::common;

use std::path::{Path, PathBuf};

use oryx_core::sessions::{NewSession, SessionStore};
use serde_json::{json, Value};

struct Server {
    /// Held for its drop: the server stops with the test.
    _server: common::Server,
    base: String,
    root: PathBuf,
    _dir: tempfile::TempDir,
}

/// A sample root (what `oryx demo` writes), changed by `prepare`, then served.
fn start_with(extra: &[&str], prepare: impl FnOnce(&Path)) -> Server {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    common::demo(&root);
    prepare(&root);
    let server = common::serve(&dir.path().join("config"), &root, extra);
    Server {
        base: server.base.clone(),
        _server: server,
        root,
        _dir: dir,
    }
}

fn start(extra: &[&str]) -> Server {
    start_with(extra, |_| {})
}

fn client() -> reqwest::blocking::Client {
    reqwest::blocking::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

fn get(s: &Server, path: &str) -> (u16, Value) {
    let r = client().get(format!("{}{path}", s.base)).send().unwrap();
    (r.status().as_u16(), r.json().unwrap())
}

/// The data of a success envelope.
fn ok(s: &Server, path: &str) -> Value {
    let (status, v) = get(s, path);
    assert_eq!(status, 200, "{path}: {v}");
    assert_eq!(v["code"], 0, "{path}: {v}");
    assert_eq!(v["message"], "success", "{path}");
    assert!(
        v["timestamp"].as_i64().unwrap() > 1_700_000_000_000,
        "{path}"
    );
    v["data"].clone()
}

fn has_keys(v: &Value, keys: &[&str], what: &str) {
    for k in keys {
        assert!(v.get(k).is_some(), "{what}: no {k} in {v}");
    }
}

fn names(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x["name"].as_str().unwrap().to_string())
        .collect()
}

fn child<'a>(node: &'a Value, name: &str) -> &'a Value {
    node["children"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no {name} under {}", node["path"]))
}

#[test]
fn every_admin_ui_screen_gets_its_data_in_the_runtimes_shape() {
    let s = start(&[]);

    let info = ok(&s, "/api/v1/info");
    assert_eq!(info["application"], "oryxos");
    assert_eq!(
        info["providers"],
        json!(["anthropic", "deepseek", "openai"])
    );

    let profiles = ok(&s, "/api/v1/profiles");
    assert_eq!(
        names(&profiles),
        ["assistant", "log_analyst", "researcher", "scheduler"]
    );
    for p in profiles.as_array().unwrap() {
        has_keys(
            p,
            &["name", "description", "provider", "model", "tools"],
            "profile",
        );
    }
    assert_eq!(profiles[0]["model"], "gpt-4o-mini");

    let tools = ok(&s, "/api/v1/tools");
    let tool = |n: &str| {
        tools
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == n)
            .unwrap_or_else(|| panic!("no tool {n} in {tools}"))
            .clone()
    };
    let save = tool("save_memory");
    has_keys(&save, &["name", "description", "inputSchema"], "tool");
    assert_eq!(save["inputSchema"]["required"], json!(["content", "scope"]));
    assert!(tool("recall_memory")["inputSchema"]["properties"]["keyword"].is_object());
    assert_eq!(
        tool("web_search")["agents"],
        json!(["assistant", "researcher"])
    );
    assert!(tool("web_search")["inputSchema"].is_null());

    // The sample root's database has no provider registry: the runtime creates it.
    assert_eq!(ok(&s, "/api/v1/providers"), json!([]));

    let skills = ok(&s, "/api/v1/skills");
    assert_eq!(names(&skills), ["calendar", "summarize", "web-search"]);
    assert_eq!(skills[0]["description"], "读取和创建日程");
    assert!(skills[0]["body"]
        .as_str()
        .unwrap()
        .starts_with("# calendar"));
    assert_eq!(ok(&s, "/api/v1/knowledge"), json!([]));

    let tree = ok(&s, "/api/v1/workspace/tree");
    has_keys(&tree, &["name", "path", "type", "children"], "tree");
    assert_eq!(tree["name"], "root");
    assert_eq!(tree["type"], "dir");
    let assistant = child(child(&tree, "agents"), "assistant");
    assert_eq!(assistant["path"], "agents/assistant");
    let md = child(assistant, "AGENT.md");
    assert_eq!(md["type"], "file");
    assert_eq!(md["path"], "agents/assistant/AGENT.md");
    let link = child(child(assistant, "skills"), "calendar");
    assert_eq!(link["type"], "link");
    assert_eq!(link["linkTarget"], "../../../skills/calendar");
    assert_eq!(link["linkStatus"], "valid");
    assert_eq!(link["children"], json!([]), "links are leaves");
    assert_eq!(child(child(&tree, "skills"), "calendar")["type"], "dir");
    // The file view the tree opens.
    let text = ok(&s, "/api/v1/workspace/file?path=agents/assistant/AGENT.md");
    assert!(text.as_str().unwrap().contains("key: morning-brief"));
    let (status, v) = get(&s, "/api/v1/workspace/file?path=../root/USER.md");
    assert_eq!(status, 400, "{v}");
    assert_eq!(v["error_code"], "outside_root");

    let agents = ok(&s, "/api/v1/agents");
    let a = &agents[0];
    assert_eq!(a["name"], "assistant");
    assert_eq!(a["skills"], json!(["calendar", "web-search"]));
    assert_eq!(
        a["schedules"],
        json!([{"key": "morning-brief", "name": "早间简报", "cron": "0 0 9 * * MON-FRI",
                "zone": "Asia/Shanghai", "message": "整理今天的日程和待办，发一份早间简报。"}])
    );
    assert_eq!(
        ok(&s, "/api/v1/agents/scheduler")["schedules"][1]["key"],
        "disk-check"
    );

    let b = ok(&s, "/api/v1/agents/assistant/skills");
    assert_eq!(names(&b["bindings"]), ["calendar", "web-search"]);
    assert_eq!(
        b["bindings"][0],
        json!({"name": "calendar", "description": "读取和创建日程",
               "skillFile": "agents/assistant/skills/calendar/SKILL.md"})
    );
    assert_eq!(b["issues"], json!([]));
    assert_eq!(
        ok(&s, "/api/v1/agents/assistant/knowledge"),
        json!({"bindings": [], "issues": []})
    );
    assert_eq!(
        ok(&s, "/api/v1/agents/assistant/session"),
        json!({"sessionId": "admin:console:assistant", "profileName": "assistant", "messages": []})
    );
    assert_eq!(ok(&s, "/api/v1/agents/assistant/executions"), json!([]));
    for tab in ["skills", "knowledge", "session", "executions"] {
        let (status, v) = get(&s, &format!("/api/v1/agents/nobody/{tab}"));
        assert_eq!(status, 404, "{tab}: {v}");
        assert_eq!(v["error_code"], "agent_not_found");
    }

    let schedules = ok(&s, "/api/v2/schedules");
    let rows = schedules.as_array().unwrap();
    assert_eq!(rows.len(), 3);
    for r in rows {
        has_keys(
            r,
            &[
                "scheduleId",
                "profileName",
                "key",
                "name",
                "cron",
                "zone",
                "message",
                "enabled",
                "nextRunAt",
                "lastRunAt",
                "lastStatus",
                "runCount",
            ],
            "schedule",
        );
    }
    assert_eq!(rows[0]["scheduleId"], "assistant:morning-brief");
    assert_eq!(rows[0]["profileName"], "assistant");
    assert_eq!(rows[0]["enabled"], true);
    assert_eq!(
        ok(&s, "/api/v2/schedules/assistant%3Amorning-brief/executions"),
        json!([])
    );
    let (status, _) = get(&s, "/api/v2/schedules/assistant%3Anope/executions");
    assert_eq!(status, 404);
}

#[test]
fn a_corrupt_session_carries_its_error_and_instants_keep_milliseconds() {
    // 2026-07-22T01:30:00.123Z and 7.456 s later.
    let created = 1_784_683_800_123_i64;
    let s = start_with(&[], |root| {
        let store = SessionStore::new(root.join("oryxos.db"));
        let session = |id: &str, messages: &str, at: i64| NewSession {
            session_id: id.to_string(),
            agent: Some("assistant".into()),
            channel: Some("admin".into()),
            user_id: Some("console".into()),
            messages_json: messages.to_string(),
            status: "active".into(),
            created_at_ms: at,
            last_active_at_ms: at + 7_456,
            archived_at_ms: None,
        };
        store
            .insert_session(&session(
                "admin:console:assistant",
                r#"[{"role":"user","content":"你好"},{"role":"assistant","content":"在"}]"#,
                created,
            ))
            .unwrap();
        store
            .insert_session(&session("web:bob:assistant", "{not json", created - 1000))
            .unwrap();
    });
    let list = ok(&s, "/api/v1/sessions");
    let row = |id: &str| {
        list.as_array()
            .unwrap()
            .iter()
            .find(|r| r["sessionId"] == id)
            .unwrap_or_else(|| panic!("no {id} in {list}"))
            .clone()
    };
    let good = row("admin:console:assistant");
    assert_eq!(good["createdAt"], "2026-07-22T01:30:00.123Z");
    assert_eq!(good["lastActiveAt"], "2026-07-22T01:30:07.579Z");
    assert_eq!(good["messageCount"], 2);
    assert!(good.get("error").is_none(), "{good}");
    // Sample sessions have whole seconds: still written with milliseconds.
    let sample = list
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["sessionId"].as_str().unwrap().starts_with("cli:"))
        .unwrap();
    assert!(
        sample["createdAt"].as_str().unwrap().ends_with(".000Z"),
        "{sample}"
    );

    let bad = row("web:bob:assistant");
    assert_eq!(bad["messageCount"], Value::Null, "{bad}");
    let err = bad["error"].as_str().unwrap();
    assert!(
        err.contains("web:bob:assistant") && err.contains("not valid JSON"),
        "{err}"
    );
    assert_eq!(bad["createdAt"], "2026-07-22T01:29:59.123Z");

    let (status, v) = get(&s, "/api/v1/sessions/web%3Abob%3Aassistant");
    assert_eq!(status, 500, "{v}");
    assert_eq!(v["code"], 500);
    assert_eq!(v["error_code"], "corrupt");
    assert!(v["data"].is_null());
    assert!(
        v["message"].as_str().unwrap().contains("web:bob:assistant"),
        "{v}"
    );

    let one = ok(&s, "/api/v1/sessions/admin%3Aconsole%3Aassistant");
    assert_eq!(one["messages"].as_array().unwrap().len(), 2);
    // The agent screen's chat tab shows the runtime's admin conversation when one is stored.
    let chat = ok(&s, "/api/v1/agents/assistant/session");
    assert_eq!(chat["sessionId"], "admin:console:assistant");
    assert_eq!(chat["messages"][0]["content"], "你好");
}

fn set_cookies(r: &reqwest::blocking::Response) -> Vec<String> {
    r.headers()
        .get_all("set-cookie")
        .iter()
        .map(|v| v.to_str().unwrap().to_string())
        .collect()
}

/// The `name=value` pairs of Set-Cookie headers, as a browser sends them back.
fn cookie_header(set: &[String]) -> String {
    set.iter()
        .map(|c| c.split(';').next().unwrap().to_string())
        .collect::<Vec<_>>()
        .join("; ")
}

#[test]
fn the_admin_ui_logs_in_with_the_token_as_password() {
    let token = "t0k;en with spaces";
    let s = start(&["--token", token]);
    let url = |p: &str| format!("{}{p}", s.base);
    let login = |body: Value| {
        client()
            .post(url("/api/v1/auth/login"))
            .json(&body)
            .send()
            .unwrap()
    };

    // Not logged in: `me` is 401, so the UI shows its login page.
    let r = client().get(url("/api/v1/auth/me")).send().unwrap();
    assert_eq!(r.status().as_u16(), 401);
    // `info`, which the UI loads before its login page, answers only the application's name.
    let info = ok(&s, "/api/v1/info");
    assert_eq!(info, json!({"application": "oryxos", "providers": []}));
    let r = client()
        .get(url("/api/v1/info"))
        .bearer_auth(token)
        .send()
        .unwrap();
    assert_eq!(
        r.json::<Value>().unwrap()["data"]["providers"][0],
        "anthropic"
    );
    assert_eq!(
        client()
            .get(url("/api/v1/profiles"))
            .send()
            .unwrap()
            .status()
            .as_u16(),
        401
    );

    let r = login(json!({"username": "admin", "password": "wrong"}));
    assert_eq!(r.status().as_u16(), 401);
    assert!(set_cookies(&r).is_empty());
    let v: Value = r.json().unwrap();
    assert_eq!(v["message"], "Invalid username or password");
    assert!(!v.to_string().contains(token));
    let r = login(json!({"username": "admin", "password": format!("{token}x")}));
    assert_eq!(r.status().as_u16(), 401);
    let r = login(json!({"username": "", "password": token}));
    assert_eq!(r.status().as_u16(), 400);
    let r = client()
        .post(url("/api/v1/auth/login"))
        .header("content-type", "application/json")
        .body("{oops")
        .send()
        .unwrap();
    assert_eq!(r.status().as_u16(), 400);

    let r = login(json!({"username": "admin", "password": token}));
    assert_eq!(r.status().as_u16(), 200);
    let set = set_cookies(&r);
    let v: Value = r.json().unwrap();
    assert_eq!(v["code"], 0);
    assert_eq!(
        v["data"],
        json!({"authenticationEnabled": true, "username": "admin"})
    );
    let session = set
        .iter()
        .find(|c| c.starts_with("oryxos_session="))
        .unwrap();
    assert!(session.contains("HttpOnly") && session.contains("SameSite=Strict"));
    assert!(!session.contains(token), "encoded: {session}");

    // Every later call carries only the cookie, as the browser does.
    let cookies = cookie_header(&set);
    let with_cookie = |p: &str, c: &str| client().get(url(p)).header("cookie", c).send().unwrap();
    let r = with_cookie("/api/v1/auth/me", &cookies);
    assert_eq!(r.status().as_u16(), 200);
    assert_eq!(
        r.json::<Value>().unwrap()["data"],
        json!({"authenticationEnabled": true, "username": "admin"})
    );
    for p in [
        "/api/v1/agents",
        "/api/v1/workspace/tree",
        "/api/v2/schedules",
    ] {
        assert_eq!(with_cookie(p, &cookies).status().as_u16(), 200, "{p}");
    }
    let info: Value = with_cookie("/api/v1/info", &cookies).json().unwrap();
    assert_eq!(info["data"]["providers"].as_array().unwrap().len(), 3);
    let forged = "oryxos_session=guess; oryxos_user=admin";
    assert_eq!(with_cookie("/api/v1/agents", forged).status().as_u16(), 401);
    assert_eq!(
        with_cookie("/api/v1/auth/me", forged).status().as_u16(),
        401
    );

    // A bearer client is "token".
    let r = client()
        .get(url("/api/v1/auth/me"))
        .bearer_auth(token)
        .send()
        .unwrap();
    assert_eq!(r.json::<Value>().unwrap()["data"]["username"], "token");

    // A second login is another session; logging out of one leaves the other.
    let other = cookie_header(&set_cookies(&login(
        json!({"username": "admin", "password": token}),
    )));
    assert_ne!(other, cookies);

    let r = client()
        .post(url("/api/v1/auth/logout"))
        .header("cookie", &cookies)
        .send()
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let cleared = set_cookies(&r);
    assert!(cleared
        .iter()
        .any(|c| c.starts_with("oryxos_session=;") && c.contains("Max-Age=0")));
    // The cookie is a session id, not the token: a copy kept after logout is worth nothing.
    assert_eq!(
        with_cookie("/api/v1/agents", &cookies).status().as_u16(),
        401
    );
    assert_eq!(
        with_cookie("/api/v1/auth/me", &cookies).status().as_u16(),
        401
    );
    assert_eq!(with_cookie("/api/v1/agents", &other).status().as_u16(), 200);
    // Without TLS the cookie cannot be Secure (the browser would drop it).
    assert!(set.iter().all(|c| !c.contains("Secure")));
}

#[test]
fn wrong_credentials_are_throttled_and_a_guess_cannot_be_checked_meanwhile() {
    let token = "right-token";
    let s = start(&["--token", token]);
    let url = |p: &str| format!("{}{p}", s.base);
    let bearer = |t: &str| {
        client()
            .get(url("/api/v1/console/agents"))
            .bearer_auth(t)
            .send()
            .unwrap()
            .status()
            .as_u16()
    };
    // Asking without any credential is not a guess.
    for _ in 0..30 {
        let r = client().get(url("/api/v1/console/agents")).send().unwrap();
        assert_eq!(r.status().as_u16(), 401);
    }
    assert_eq!(bearer(token), 200);
    let mut answers = Vec::new();
    for i in 0..10 {
        answers.push(bearer(&format!("guess-{i}")));
    }
    assert_eq!(answers, vec![401; 10]);
    // Held now: the right token too is not looked at, so a guess cannot be confirmed.
    let r = client()
        .get(url("/api/v1/console/agents"))
        .bearer_auth(token)
        .send()
        .unwrap();
    assert_eq!(r.status().as_u16(), 429);
    let retry: u64 = r.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=60).contains(&retry), "{retry}");
    let login = client()
        .post(url("/api/v1/auth/login"))
        .json(&json!({"username": "admin", "password": token}))
        .send()
        .unwrap();
    assert_eq!(login.status().as_u16(), 429);
    // What needs no credential still answers.
    let r = client().get(url("/api/v1/info")).send().unwrap();
    assert_eq!(r.status().as_u16(), 200);
}

#[test]
fn every_answer_carries_the_browser_security_headers() {
    let s = start(&["--token", "t"]);
    for (path, auth) in [
        ("/", false),
        ("/agents", false),
        ("/api/v1/console/agents", true),
        ("/api/v1/console/agents", false),
        ("/api/v1/no-such-route", true),
    ] {
        let mut req = client().get(format!("{}{path}", s.base));
        if auth {
            req = req.bearer_auth("t");
        }
        let r = req.send().unwrap();
        let h = r.headers();
        let csp = h["content-security-policy"].to_str().unwrap();
        assert!(
            csp.contains("frame-ancestors 'none'") && csp.contains("script-src 'self'"),
            "{path}: {csp}"
        );
        assert_eq!(h["x-frame-options"], "DENY", "{path}");
        assert_eq!(h["referrer-policy"], "no-referrer", "{path}");
        assert_eq!(h["x-content-type-options"], "nosniff", "{path}");
        assert!(h.get("strict-transport-security").is_none(), "{path}");
    }
}

#[test]
fn without_a_token_login_is_not_needed() {
    let s = start(&[]);
    let me = ok(&s, "/api/v1/auth/me");
    assert_eq!(
        me,
        json!({"authenticationEnabled": false, "username": null})
    );
    let r = client()
        .post(format!("{}/api/v1/auth/login", s.base))
        .json(&json!({"username": "admin", "password": "x"}))
        .send()
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    assert!(set_cookies(&r).is_empty());
    assert_eq!(
        r.json::<Value>().unwrap()["data"]["authenticationEnabled"],
        false
    );
}

#[test]
fn the_tree_of_a_huge_root_is_bounded_and_stays_inside() {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("SECRET.txt"), "secret").unwrap();
    let s = start_with(&[], |root| {
        let out = root.join("output");
        for d in 0..30 {
            let dir = out.join(format!("d{d:02}"));
            std::fs::create_dir_all(&dir).unwrap();
            for f in 0..400 {
                std::fs::write(dir.join(format!("f{f:03}.txt")), "").unwrap();
            }
        }
        let mut deep = root.join("agents/assistant/notes");
        for i in 0..40 {
            deep = deep.join(format!("level{i}"));
        }
        std::fs::create_dir_all(&deep).unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(outside.path(), root.join("output/0escape")).unwrap();
    });
    let t0 = std::time::Instant::now();
    let tree = ok(&s, "/api/v1/workspace/tree");
    eprintln!("tree of a 12 000-file root: {:?}", t0.elapsed());
    fn count(n: &Value) -> usize {
        1 + n["children"]
            .as_array()
            .unwrap()
            .iter()
            .map(count)
            .sum::<usize>()
    }
    let n = count(&tree);
    assert_eq!(n, 5001, "the root and 5000 entries");
    assert_eq!(child(&tree, "output")["truncated"], true);
    let text = tree.to_string();
    assert!(
        !text.contains("SECRET"),
        "a link out of the root is not followed"
    );
    #[cfg(unix)]
    {
        let esc = child(child(&tree, "output"), "0escape");
        assert_eq!(esc["type"], "link");
        assert_eq!(esc["linkStatus"], "escaped");
    }
    let notes = child(child(child(&tree, "agents"), "assistant"), "notes");
    assert!(text.contains("\"level3\""), "{notes}");
    assert!(!text.contains("\"level9\""), "depth is bounded: {notes}");
    assert!(s.root.join("agents/assistant/notes/level0").is_dir());
}

#[test]
fn broken_skill_links_are_issues_and_screens_without_runtime_data_are_empty() {
    let s = start_with(&[], |root| {
        #[cfg(unix)]
        std::os::unix::fs::symlink(
            "../../../skills/gone",
            root.join("agents/researcher/skills/gone"),
        )
        .unwrap();
    });
    #[cfg(unix)]
    {
        let issues = ok(&s, "/api/v1/skills/binding-issues");
        assert_eq!(issues.as_array().unwrap().len(), 1, "{issues}");
        let i = &issues[0];
        has_keys(
            i,
            &[
                "agentName",
                "agentState",
                "entryName",
                "path",
                "type",
                "message",
            ],
            "issue",
        );
        assert_eq!(i["agentName"], "researcher");
        assert_eq!(i["entryName"], "gone");
        assert_eq!(i["type"], "DANGLING");
        let b = ok(&s, "/api/v1/agents/researcher/skills");
        assert_eq!(names(&b["bindings"]), ["summarize", "web-search"]);
        assert_eq!(b["issues"], issues);
    }
    for p in [
        "/api/v1/mcp-servers",
        "/api/v1/mcp-servers/status",
        "/api/v1/mcp-servers/catalog",
        "/api/v1/notify-channels",
    ] {
        assert_eq!(ok(&s, p), json!([]), "{p}");
    }
    assert_eq!(
        ok(&s, "/api/v1/sandbox/whitelist"),
        json!({"file": [], "shell": [], "http": []})
    );
    // Every route of the table is in the OpenAPI document.
    let doc = ok_raw(&s, "/api/v1/openapi.json");
    for p in [
        "/api/v1/auth/login",
        "/api/v1/workspace/tree",
        "/api/v2/schedules",
        "/api/v1/agents/{name}/session",
        "/api/v1/sandbox/whitelist",
    ] {
        assert!(
            doc["paths"][p].is_object(),
            "{p} not in the OpenAPI document"
        );
    }
    // …and every GET the document lists is routed (the table and the router stay in step).
    let mut routed = 0;
    for (path, ops) in doc["paths"].as_object().unwrap() {
        // The event stream never ends; it has its own tests.
        if ops.get("get").is_none() || path.ends_with("/events") {
            continue;
        }
        let concrete = path
            .replace("{name}", "assistant")
            .replace("{id}", "assistant%3Amorning-brief");
        let (status, v) = get(&s, &concrete);
        assert_ne!(v["message"], "no such API route", "{path}");
        assert_ne!(status, 405, "{path}: {v}");
        routed += 1;
    }
    assert!(routed > 30, "{routed}");
}

/// A JSON answer outside the envelope (the OpenAPI document).
fn ok_raw(s: &Server, path: &str) -> Value {
    let (status, v) = get(s, path);
    assert_eq!(status, 200, "{path}");
    v
}
