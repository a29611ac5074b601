//! The runtime's admin UI against `oryx serve` shows the runtime's own data: rows of its
//! database (built here with its DDL) and its files, in the JSON its controllers answer, and
//! reading them writes nothing.

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

/// One row in each table, as a runtime that ran for a while leaves them.
const RUNTIME_ROWS: &str = "
INSERT INTO providers VALUES ('openai', 'sk-abcdef123456', 'https://api.openai.com/v1', 'OpenAI', 0, 0);
INSERT INTO providers VALUES ('deepseek', NULL, 'https://api.deepseek.com', NULL, 0, 0);
INSERT INTO providers VALUES ('anthropic', NULL, 'https://api.anthropic.com', NULL, 0, 0);
INSERT INTO scheduled_tasks VALUES ('5b0e4c1e-0000-4000-8000-000000000001', 'assistant',
    'morning-brief', 'Old name', '0 0 8 * * *', NULL, 'old', 0, 0, 1700086400000,
    1700000000123, 'failed', 2, 0);
INSERT INTO scheduled_tasks VALUES ('5b0e4c1e-0000-4000-8000-000000000002', 'ghost', 'x',
    'Orphan', '0 0 * * * *', NULL, NULL, 1, 0, NULL, NULL, NULL, 0, 0);
INSERT INTO scheduled_tasks VALUES ('5b0e4c1e-0000-4000-8000-000000000003', 'ghost', 'old',
    'Retired', '0 0 * * * *', NULL, NULL, 1, 1, NULL, NULL, NULL, 5, 0);
INSERT INTO task_executions (schedule_id, session_id, started_at, success, error_message, duration_ms)
    VALUES ('5b0e4c1e-0000-4000-8000-000000000001', 'scheduler:scheduler:assistant',
            1700000000123, 0, 'provider timed out', 30000),
           ('5b0e4c1e-0000-4000-8000-000000000001', 'scheduler:scheduler:assistant',
            1699913600000, 1, NULL, 4200);
INSERT INTO agent_executions (agent_name, source, session_id, started_at, ended_at, success,
    error_message, duration_ms)
    VALUES ('assistant', 'schedule', 'scheduler:scheduler:assistant', 1700000000123,
            1700000030123, 0, 'provider timed out', 30000),
           ('assistant', 'manual', 'admin:console:assistant', 1700000100000, NULL, NULL, NULL, NULL);
INSERT INTO notify_channels VALUES ('ops', 'feishu', 'https://open.feishu.cn/hook/abc', 'Ops room', 0, 0);
INSERT INTO sandbox_whitelist (category, entry_value, created_at)
    VALUES ('FILE', '/srv/agent-data', 0), ('SHELL', 'git', 0), ('SHELL', 'ls', 0),
           ('HTTP', '*.example.com', 0);
INSERT INTO knowledge_documents (kb_name, rel_path, content_sha256, status, failure_reason,
    chunk_count, generation, indexed_at, created_at, updated_at)
    VALUES ('handbook', 'intro.md', 'h1', 'READY', NULL, 7, 1, 1700000000123, 0, 0),
           ('handbook', 'policy.pdf', 'h2', 'FAILED', 'not a PDF', 0, 1, NULL, 0, 0),
           ('handbook', 'stale.md', 'h3', 'READY', NULL, 3, 0, 1600000000000, 0, 0);
";

const MCP_YAML: &str = "servers:
  - name: github
    transport: stdio
    command: npx -y @modelcontextprotocol/server-github
    env:
      GITHUB_PERSONAL_ACCESS_TOKEN: ${GITHUB_TOKEN}
";

struct Served {
    server: common::Server,
    root: PathBuf,
    _dir: tempfile::TempDir,
}

fn serve(prepare: impl FnOnce(&Path)) -> Served {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    common::demo(&root);
    prepare(&root);
    let server = common::serve(&dir.path().join("config"), &root, &[]);
    Served {
        server,
        root,
        _dir: dir,
    }
}

/// The demo root with the runtime's tables and rows, a knowledge base linked into `assistant`,
/// an `mcp_servers.yaml`, and an agent the runtime would not load (no provider).
fn runtime_root(root: &Path) {
    let conn = oryx_core::db::Connection::open(root.join("oryxos.db")).unwrap();
    oryx_core::runtime::schema::create(&conn).unwrap();
    conn.execute_batch(RUNTIME_ROWS).unwrap();
    drop(conn);
    let kb = root.join("knowledge/handbook");
    std::fs::create_dir_all(&kb).unwrap();
    std::fs::write(
        kb.join("KNOWLEDGE.md"),
        "---\nname: handbook\ndescription: Team handbook\n---\n",
    )
    .unwrap();
    // A folder the runtime skips: its KNOWLEDGE.md has no description.
    std::fs::create_dir_all(root.join("knowledge/draft")).unwrap();
    std::fs::write(
        root.join("knowledge/draft/KNOWLEDGE.md"),
        "---\nname: draft\n---\n",
    )
    .unwrap();
    #[cfg(unix)]
    {
        std::fs::create_dir_all(root.join("agents/assistant/knowledge")).unwrap();
        std::os::unix::fs::symlink(
            "../../../knowledge/handbook",
            root.join("agents/assistant/knowledge/handbook"),
        )
        .unwrap();
    }
    std::fs::write(root.join("mcp_servers.yaml"), MCP_YAML).unwrap();
    std::fs::create_dir_all(root.join("agents/drafty")).unwrap();
    std::fs::write(
        root.join("agents/drafty/AGENT.md"),
        "---\nname: drafty\nschedules:\n  - key: tick\n    name: Tick\n    cron: \"0 * * * * *\"\n---\nNo provider yet.\n",
    )
    .unwrap();
    // Nor one whose front matter does not parse, whatever it names.
    std::fs::create_dir_all(root.join("agents/broken")).unwrap();
    std::fs::write(
        root.join("agents/broken/AGENT.md"),
        "---\nname: broken\nprovider: [openai\n---\nBody.\n",
    )
    .unwrap();
}

fn get(s: &Served, path: &str) -> (u16, Value) {
    let r = reqwest::blocking::get(format!("{}{path}", s.server.base)).unwrap();
    (r.status().as_u16(), r.json().unwrap())
}

fn ok(s: &Served, path: &str) -> Value {
    let (status, v) = get(s, path);
    assert_eq!(status, 200, "{path}: {v}");
    assert_eq!(v["code"], 0, "{path}: {v}");
    v["data"].clone()
}

fn snapshot(root: &Path) -> BTreeMap<PathBuf, Option<Vec<u8>>> {
    let mut out = BTreeMap::new();
    common::hostile_root::walk(root, root, &mut out);
    out
}

#[test]
fn every_screen_shows_the_runtimes_own_rows_and_files() {
    let s = serve(runtime_root);
    let before = snapshot(&s.root);

    assert_eq!(
        ok(&s, "/api/v1/providers"),
        json!([
            {"name": "anthropic", "apiKey": "", "baseUrl": "https://api.anthropic.com", "description": null},
            {"name": "deepseek", "apiKey": "", "baseUrl": "https://api.deepseek.com", "description": null},
            {"name": "openai", "apiKey": "****3456", "baseUrl": "https://api.openai.com/v1", "description": "OpenAI"},
        ])
    );

    let schedules = ok(&s, "/api/v2/schedules");
    assert_eq!(
        schedules,
        json!([
            // The table's row keeps its id, state and history and shows AGENT.md's definition.
            {"scheduleId": "5b0e4c1e-0000-4000-8000-000000000001", "profileName": "assistant",
             "key": "morning-brief", "name": "早间简报", "cron": "0 0 9 * * MON-FRI",
             "zone": "Asia/Shanghai", "message": "整理今天的日程和待办，发一份早间简报。",
             "enabled": false, "nextRunAt": "2023-11-15T22:13:20.000Z",
             "lastRunAt": "2023-11-14T22:13:20.123Z", "lastStatus": "failed", "runCount": 2},
            // A row no agent declares stays listed, as the runtime lists it; a retired one not.
            {"scheduleId": "5b0e4c1e-0000-4000-8000-000000000002", "profileName": "ghost",
             "key": "x", "name": "Orphan", "cron": "0 0 * * * *", "zone": null, "message": null,
             "enabled": true, "nextRunAt": null, "lastRunAt": null, "lastStatus": null,
             "runCount": 0},
            {"scheduleId": "scheduler:weekly-report", "profileName": "scheduler",
             "key": "weekly-report", "name": schedules[2]["name"], "cron": schedules[2]["cron"],
             "zone": schedules[2]["zone"], "message": schedules[2]["message"], "enabled": true,
             "nextRunAt": null, "lastRunAt": null, "lastStatus": null, "runCount": 0},
            {"scheduleId": "scheduler:disk-check", "profileName": "scheduler",
             "key": "disk-check", "name": schedules[3]["name"], "cron": schedules[3]["cron"],
             "zone": schedules[3]["zone"], "message": schedules[3]["message"], "enabled": true,
             "nextRunAt": null, "lastRunAt": null, "lastStatus": null, "runCount": 0},
        ])
    );
    assert_eq!(
        ok(
            &s,
            "/api/v2/schedules/5b0e4c1e-0000-4000-8000-000000000001/executions"
        ),
        json!([
            {"scheduleId": "5b0e4c1e-0000-4000-8000-000000000001", "legacyTaskKey": null,
             "legacyMigrated": false, "sessionId": "scheduler:scheduler:assistant",
             "startedAt": "2023-11-14T22:13:20.123Z", "success": false,
             "errorMessage": "provider timed out", "durationMs": 30000},
            {"scheduleId": "5b0e4c1e-0000-4000-8000-000000000001", "legacyTaskKey": null,
             "legacyMigrated": false, "sessionId": "scheduler:scheduler:assistant",
             "startedAt": "2023-11-13T22:13:20.000Z", "success": true,
             "errorMessage": null, "durationMs": 4200},
        ])
    );
    let one = ok(
        &s,
        "/api/v2/schedules/5b0e4c1e-0000-4000-8000-000000000001/executions?limit=1",
    );
    assert_eq!(one.as_array().unwrap().len(), 1);
    assert_eq!(
        ok(&s, "/api/v2/schedules/scheduler%3Adisk-check/executions"),
        json!([])
    );
    for gone in [
        "5b0e4c1e-0000-4000-8000-000000000003",
        "drafty%3Atick",
        "nope",
    ] {
        let (status, v) = get(&s, &format!("/api/v2/schedules/{gone}/executions"));
        assert_eq!(status, 404, "{gone}: {v}");
    }

    assert_eq!(
        ok(&s, "/api/v1/agents/assistant/executions"),
        json!([
            {"id": 2, "agentName": "assistant", "source": "manual",
             "sessionId": "admin:console:assistant", "startedAt": "2023-11-14T22:15:00.000Z",
             "endedAt": null, "status": "RUNNING", "durationMs": null, "errorMessage": null},
            {"id": 1, "agentName": "assistant", "source": "schedule",
             "sessionId": "scheduler:scheduler:assistant",
             "startedAt": "2023-11-14T22:13:20.123Z", "endedAt": "2023-11-14T22:13:50.123Z",
             "status": "FAILED", "durationMs": 30000, "errorMessage": "provider timed out"},
        ])
    );
    assert_eq!(ok(&s, "/api/v1/agents/researcher/executions"), json!([]));

    let handbook = json!({"name": "handbook", "description": "Team handbook",
        "backend": "local", "documentCount": 2, "chunkCount": 7, "indexStatus": "失败",
        "lastIndexedAt": "2023-11-14T22:13:20.123Z",
        "capabilities": {"createDelete": true, "importDocs": true, "rebuild": true,
                         "status": true, "rerank": false}});
    assert_eq!(ok(&s, "/api/v1/knowledge"), json!([handbook]));
    assert_eq!(
        ok(&s, "/api/v1/knowledge/handbook"),
        json!({"base": handbook, "documents": [
            {"relPath": "intro.md", "state": "READY", "chunkCount": 7, "failureReason": null,
             "indexedAt": "2023-11-14T22:13:20.123Z"},
            {"relPath": "policy.pdf", "state": "FAILED", "chunkCount": 0,
             "failureReason": "not a PDF", "indexedAt": null},
        ]})
    );
    assert_eq!(get(&s, "/api/v1/knowledge/draft").0, 404);
    #[cfg(unix)]
    assert_eq!(
        ok(&s, "/api/v1/agents/assistant/knowledge"),
        json!({"bindings": [{"name": "handbook", "description": "Team handbook"}], "issues": []})
    );

    assert_eq!(
        ok(&s, "/api/v1/notify-channels"),
        json!([{"name": "ops", "type": "feishu", "url": "https://open.feishu.cn/hook/abc",
                "description": "Ops room"}])
    );
    assert_eq!(
        ok(&s, "/api/v1/sandbox/whitelist"),
        json!({"file": ["/srv/agent-data"], "shell": ["git", "ls"], "http": ["*.example.com"]})
    );
    assert_eq!(
        ok(&s, "/api/v1/mcp-servers"),
        json!([{"name": "github", "transport": "stdio",
                "command": "npx -y @modelcontextprotocol/server-github",
                "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "${GITHUB_TOKEN}"},
                "url": null, "headers": {}}])
    );
    let status = ok(&s, "/api/v1/mcp-servers/status");
    assert_eq!(status[0]["name"], "github");
    assert_eq!(status[0]["connected"], false);
    assert_eq!(status[0]["toolNames"], json!([]));
    assert!(status[0]["error"]
        .as_str()
        .unwrap()
        .contains("the console does not run MCP servers"));
    assert_eq!(ok(&s, "/api/v1/mcp-servers/catalog"), json!([]));

    // An agent the runtime would not load (no provider) is no profile and has no memory, runs
    // or schedules here.
    let profiles = ok(&s, "/api/v1/profiles");
    assert!(
        !profiles
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["name"] == "drafty"),
        "{profiles}"
    );
    assert_eq!(profiles.as_array().unwrap().len(), 4);
    // The agents list is the runtime's profile registry too, and an agent outside it is not found.
    let agents = ok(&s, "/api/v1/agents");
    let names: Vec<&str> = agents
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 4, "{agents}");
    assert!(
        !names.contains(&"drafty") && !names.contains(&"broken"),
        "{agents}"
    );
    for agent in ["drafty", "broken"] {
        let (status, v) = get(&s, &format!("/api/v1/agents/{agent}"));
        assert_eq!(status, 404, "{agent}: {v}");
    }
    for agent in ["drafty", "broken"] {
        for tab in ["memory", "executions"] {
            let (status, v) = get(&s, &format!("/api/v1/agents/{agent}/{tab}"));
            assert_eq!(status, 404, "{agent} {tab}: {v}");
            assert_eq!(v["error_code"], "agent_not_found");
        }
    }
    assert!(ok(&s, "/api/v1/agents/assistant/memory").is_string());

    common::hostile_root::assert_unchanged(&before, &snapshot(&s.root), "reading the screens");
}

#[test]
fn without_the_runtimes_tables_the_screens_are_empty() {
    let s = serve(|_| {});
    let before = snapshot(&s.root);
    for p in [
        "/api/v1/providers",
        "/api/v1/notify-channels",
        "/api/v1/mcp-servers",
        "/api/v1/mcp-servers/status",
        "/api/v1/knowledge",
        "/api/v1/agents/assistant/executions",
    ] {
        assert_eq!(ok(&s, p), json!([]), "{p}");
    }
    assert_eq!(
        ok(&s, "/api/v1/sandbox/whitelist"),
        json!({"file": [], "shell": [], "http": []})
    );
    let schedules = ok(&s, "/api/v2/schedules");
    assert_eq!(schedules.as_array().unwrap().len(), 3);
    assert_eq!(schedules[0]["scheduleId"], "assistant:morning-brief");
    assert_eq!(schedules[0]["enabled"], true);
    assert_eq!(schedules[0]["runCount"], 0);
    assert_eq!(
        ok(&s, "/api/v2/schedules/assistant%3Amorning-brief/executions"),
        json!([])
    );
    common::hostile_root::assert_unchanged(&before, &snapshot(&s.root), "reading the screens");
}

#[test]
fn a_corrupt_database_is_an_error_that_says_so() {
    let s = serve(|_| {});
    std::fs::write(
        s.root.join("oryxos.db"),
        b"not a database at all, only text that fills a page ...................",
    )
    .unwrap();
    let before = snapshot(&s.root);
    for p in [
        "/api/v1/providers",
        "/api/v1/notify-channels",
        "/api/v1/sandbox/whitelist",
        "/api/v2/schedules",
        "/api/v1/agents/assistant/executions",
    ] {
        let (status, v) = get(&s, p);
        assert_eq!(status, 500, "{p}: {v}");
        assert_eq!(v["error_code"], "corrupt", "{p}: {v}");
    }
    common::hostile_root::assert_unchanged(&before, &snapshot(&s.root), "a corrupt database");
}
