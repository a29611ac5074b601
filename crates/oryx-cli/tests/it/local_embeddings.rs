//! `oryx runtime use-local-embeddings` with a real `oryx serve`: the preview says whether the
//! console answers at the URL with that key, applying registers it, and the runtime's request
//! (built from the row as the runtime builds it) gets vectors; `runtime undo` puts everything
//! back. Without the model, the endpoint answers 503 in OpenAI's shape.

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::{json, Value};

use crate::common::{self, oryx};

fn demo_install(t: &Path) -> PathBuf {
    let dir = t.join("inst");
    let out = oryx(&t.join("console"))
        .args(["demo", dir.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    dir
}

fn serve(t: &Path, root: &Path, extra: &[&str]) -> (common::ServerProcess, String) {
    let mut cmd = oryx(&t.join("console-serve"));
    cmd.args([
        "--root",
        root.to_str().unwrap(),
        "serve",
        "--bind",
        "127.0.0.1:0",
    ])
    .args(extra);
    let (child, base, _log) = common::spawn_serve_logged(cmd);
    (common::ServerProcess(child), base)
}

fn use_local(t: &Path, root: &Path, args: &[&str]) -> Output {
    oryx(&t.join("console"))
        .args([
            "--root",
            root.to_str().unwrap(),
            "runtime",
            "use-local-embeddings",
        ])
        .args(args)
        .output()
        .unwrap()
}

fn json_of(o: &Output) -> Value {
    assert!(
        o.status.success(),
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).unwrap()
}

#[test]
fn use_local_embeddings_registers_a_running_console_and_undo_removes_it() {
    let t = tempfile::tempdir().unwrap();
    let inst = demo_install(t.path());
    let config = std::fs::read(inst.join("config/application.yml")).unwrap();
    let token = "cli-embed-token";
    let (_server, base) = serve(t.path(), &inst, &["--token", token]);

    // Without the token the preview says the server refuses the placeholder key.
    let p = json_of(&use_local(
        t.path(),
        &inst,
        &["--url", &base, "--dry-run", "--json"],
    ));
    assert_eq!(p["applied"], false);
    assert_eq!(p["server"]["ok"], false);
    assert!(
        p["server"]["detail"].as_str().unwrap().contains("--token"),
        "{p}"
    );
    assert_eq!(
        std::fs::read(inst.join("config/application.yml")).unwrap(),
        config
    );

    // The human preview names the row, the lines and the server.
    let out = use_local(
        t.path(),
        &inst,
        &["--url", &base, "--token", token, "--dry-run"],
    );
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(out.status.success(), "{text}");
    assert!(text.contains("(dry run)"), "{text}");
    assert!(text.contains("+ name=oryx-local"), "{text}");
    assert!(text.contains("the console answers at"), "{text}");

    let p = json_of(&use_local(
        t.path(),
        &inst,
        &["--url", &base, "--token", token, "--json"],
    ));
    assert_eq!(p["applied"], true);
    assert_eq!(p["apiKeyFrom"], "given");
    assert_eq!(p["server"]["ok"], true, "{p}");
    let info = json_of(
        &oryx(&t.path().join("console"))
            .args(["--root", inst.to_str().unwrap(), "runtime", "--json"])
            .output()
            .unwrap(),
    );
    assert_eq!(info["embedding"]["provider"], "oryx-local");
    let model = info["embedding"]["model"].as_str().unwrap().to_string();

    // The runtime's request: the row's base URL and key, the configured model.
    let conn = rusqlite::Connection::open(inst.join("oryxos.db")).unwrap();
    let (url, key): (String, String) = conn
        .query_row(
            "SELECT base_url, api_key FROM providers WHERE name = 'oryx-local'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    let endpoint = oryx_api::local_embeddings::runtime_endpoint(&url, "/embeddings");
    let r = reqwest::blocking::Client::new()
        .post(&endpoint)
        .bearer_auth(&key)
        .json(&json!({"input": ["用户住在北京", "lives in Beijing"], "model": model, "encoding_format": "float"}))
        .send()
        .unwrap();
    assert_eq!(r.status(), 200);
    let v: Value = r.json().unwrap();
    assert_eq!(v["data"].as_array().unwrap().len(), 2);
    assert_eq!(v["data"][1]["embedding"].as_array().unwrap().len(), 512);

    let out = oryx(&t.path().join("console"))
        .args(["--root", inst.to_str().unwrap(), "runtime", "undo"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        std::fs::read(inst.join("config/application.yml")).unwrap(),
        config
    );
    let left: i64 = conn
        .query_row(
            "SELECT COUNT(*) FROM providers WHERE name = 'oryx-local'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(left, 0);
}

#[test]
fn without_a_providers_table_the_command_fails_and_writes_nothing() {
    let t = tempfile::tempdir().unwrap();
    let inst = demo_install(t.path());
    let db = inst.join("oryxos.db");
    std::fs::remove_file(&db).unwrap();
    std::fs::File::create(&db).unwrap();
    let config = std::fs::read(inst.join("config/application.yml")).unwrap();
    let out = use_local(t.path(), &inst, &["--url", "http://127.0.0.1:9"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no providers table"), "{err}");
    assert_eq!(
        std::fs::read(inst.join("config/application.yml")).unwrap(),
        config
    );
    assert_eq!(std::fs::metadata(&db).unwrap().len(), 0);
}

#[test]
fn the_endpoint_without_the_model_answers_503_in_openais_shape() {
    let t = tempfile::tempdir().unwrap();
    let inst = demo_install(t.path());
    let mut cmd = oryx(&t.path().join("console-serve"));
    cmd.env("ORYX_EMBED_MODEL_DIR", t.path().join("no-model"))
        .args([
            "--root",
            inst.to_str().unwrap(),
            "serve",
            "--bind",
            "127.0.0.1:0",
        ]);
    let (child, base, _log) = common::spawn_serve_logged(cmd);
    let _server = common::ServerProcess(child);
    let r = reqwest::blocking::Client::new()
        .post(format!("{base}/v1/embeddings"))
        .bearer_auth("x")
        .json(&json!({"input": "a", "model": oryx_core::embed::MODEL_ID}))
        .send()
        .unwrap();
    assert_eq!(r.status(), 503);
    let v: Value = r.json().unwrap();
    assert_eq!(v["error"]["code"], "model_not_available");
    assert_eq!(v["error"]["type"], "server_error");
}
