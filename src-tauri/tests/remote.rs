//! A remote console: the app on this computer's root shows, in turn, the
//! consoles of two real `oryx serve` processes — one over https with a self-signed certificate
//! trusted by its fingerprint, one over plain http on loopback — through the same IPC the window
//! uses; writes land in the remote root, tokens stay out of files, and every refusal changes
//! nothing.

mod common;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{app, invoke, invoke_command, oryx_bin, Window};
use serde_json::{json, Value};
use tauri::{Listener, Manager};

struct Server {
    child: Child,
    base: String,
    root: PathBuf,
    /// The fingerprint the server printed (https only).
    fingerprint: Option<String>,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    fn start(dir: &Path, name: &str, token: &str, tls: bool) -> Server {
        let root = dir.join(name);
        oryx_core::demo::write_sample(&root).unwrap();
        let mut cmd = Command::new(oryx_bin());
        cmd.arg("--root")
            .arg(&root)
            .arg("--config")
            .arg(dir.join(format!("{name}-settings.json")))
            .args(["serve", "--bind", "127.0.0.1:0", "--token", token]);
        if tls {
            let ck = rcgen::generate_simple_self_signed(vec![
                "127.0.0.1".to_string(),
                "localhost".to_string(),
            ])
            .unwrap();
            let (cert, key) = (
                dir.join(format!("{name}.pem")),
                dir.join(format!("{name}.key")),
            );
            std::fs::write(&cert, ck.cert.pem()).unwrap();
            std::fs::write(&key, ck.key_pair.serialize_pem()).unwrap();
            cmd.arg("--tls-cert").arg(&cert).arg("--tls-key").arg(&key);
        }
        let mut child = cmd
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stderr.take().unwrap());
        let mut first = String::new();
        lines.read_line(&mut first).unwrap();
        let scheme = if tls { "https" } else { "http" };
        let addr = first
            .split(&format!("{scheme}://"))
            .nth(1)
            .and_then(|r| r.split('/').next())
            .unwrap_or_else(|| panic!("no address in {first:?}"))
            .to_string();
        let fingerprint = tls.then(|| {
            let mut second = String::new();
            lines.read_line(&mut second).unwrap();
            second
                .split("fingerprint: ")
                .nth(1)
                .unwrap_or_else(|| panic!("no fingerprint in {second:?}"))
                .trim()
                .to_string()
        });
        // Keep reading, so the server never writes into a closed pipe.
        std::thread::spawn(move || {
            let mut l = String::new();
            while lines.read_line(&mut l).map(|n| n > 0).unwrap_or(false) {
                l.clear();
            }
        });
        Server {
            child,
            base: format!("{scheme}://{addr}"),
            root,
            fingerprint,
        }
    }

    fn memory(&self, agent: &str) -> String {
        std::fs::read_to_string(self.root.join("agents").join(agent).join("MEMORY.md"))
            .unwrap_or_default()
    }
}

fn connection(w: &Window) -> Value {
    invoke_command(w, "connection", json!({})).unwrap()
}

fn connect(w: &Window, req: Value) -> Result<Value, Value> {
    invoke_command(w, "connect_server", json!({ "req": req }))
}

fn root_shown(w: &Window) -> String {
    invoke(w, "get_settings", json!({})).unwrap()["effective"]["root"]
        .as_str()
        .unwrap()
        .to_string()
}

fn code(e: &Value) -> &str {
    e["code"].as_str().unwrap_or_default()
}

fn wait_until(what: &str, mut ok: impl FnMut() -> bool) {
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while !ok() {
        assert!(std::time::Instant::now() < deadline, "timed out: {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn the_desktop_shows_two_remote_consoles_in_turn_and_comes_back() {
    // The kernel's keyring: no Secret Service runs here, and a developer's own keyring is not
    // the place for a test's tokens. Set before the app first asks.
    std::env::set_var("ORYX_TOKEN_STORE", "kernel");
    let dir = tempfile::tempdir().unwrap();
    let local_root = dir.path().join("local");
    oryx_core::demo::write_sample(&local_root).unwrap();
    let settings = dir.path().join("config").join("settings.json");
    let w = app(&local_root, &settings);
    let events: Arc<Mutex<Vec<String>>> = Arc::default();
    {
        let sink = events.clone();
        w.listen("oryx://changed", move |e| {
            sink.lock().unwrap().push(e.payload().to_string())
        });
        let handle = w.app_handle().clone();
        w.state::<oryx_desktop::AppState>().attach(handle);
    }
    let secure = Server::start(dir.path(), "secure", "tok-secure", true);
    let plain = Server::start(dir.path(), "plain", "tok-plain", false);
    let local = local_root.canonicalize().unwrap();
    assert_eq!(Path::new(&root_shown(&w)).canonicalize().unwrap(), local);
    let c = connection(&w);
    assert!(c["remote"].is_null(), "{c}");
    assert_eq!(c["token_store"], "kernel", "{c}");

    // What the https server is, without a token: its certificate is the one it printed.
    let probe = invoke_command(&w, "probe_server", json!({ "url": secure.base })).unwrap();
    assert_eq!(probe["https"], true, "{probe}");
    assert_eq!(probe["trusted"], false, "{probe}");
    assert_eq!(probe["needs_token"], true, "{probe}");
    let fp = secure.fingerprint.clone().unwrap();
    assert_eq!(probe["fingerprint"], fp.as_str(), "{probe}");

    // Refusals change nothing: no fingerprint for a self-signed certificate, another
    // certificate's fingerprint, a wrong token, clear text across a network.
    let e = connect(&w, json!({"url": secure.base, "token": "tok-secure"})).unwrap_err();
    assert_eq!(code(&e), "untrusted_certificate", "{e}");
    assert!(
        e["message"].as_str().unwrap().contains("fingerprint"),
        "{e}"
    );
    let other = oryx_api::remote::fingerprint(b"another certificate");
    let e = connect(
        &w,
        json!({"url": secure.base, "token": "tok-secure", "fingerprint": other}),
    )
    .unwrap_err();
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("not the server you trusted"),
        "{e}"
    );
    assert_eq!(code(&e), "untrusted_certificate", "{e}");
    let e = connect(
        &w,
        json!({"url": secure.base, "token": "wrong", "fingerprint": fp, "remember": true}),
    )
    .unwrap_err();
    assert_eq!(code(&e), "unauthorized", "{e}");
    assert!(
        e["message"].as_str().unwrap().contains("refused the token"),
        "{e}"
    );
    let e = invoke_command(&w, "probe_server", json!({"url": "http://10.1.2.3:7777"})).unwrap_err();
    assert!(e["message"].as_str().unwrap().contains("clear text"), "{e}");
    assert!(connection(&w)["remote"].is_null());
    assert!(connection(&w)["servers"].as_array().unwrap().is_empty());
    assert_eq!(Path::new(&root_shown(&w)).canonicalize().unwrap(), local);

    // Connected (fingerprint pasted loosely, remembered): every call goes to that machine.
    let loose = fp.replace(':', "").to_ascii_lowercase();
    let c = connect(
        &w,
        json!({"url": format!("{}/agents/assistant?token=x", secure.base), "token": "tok-secure", "fingerprint": loose, "remember": true}),
    )
    .unwrap();
    assert_eq!(c["remote"]["url"], secure.base.as_str(), "{c}");
    assert_eq!(c["remote"]["fingerprint"], fp.as_str(), "{c}");
    assert_eq!(
        Path::new(c["remote"]["root"].as_str().unwrap())
            .canonicalize()
            .unwrap(),
        secure.root.canonicalize().unwrap()
    );
    assert_eq!(c["servers"][0]["has_token"], true, "{c}");
    invoke(
        &w,
        "append_memory",
        json!({"agent": "assistant", "content": "remote fact 7c1", "scope": "archival"}),
    )
    .unwrap();
    assert!(secure.memory("assistant").contains("remote fact 7c1"));
    assert!(
        !std::fs::read_to_string(local_root.join("agents/assistant/MEMORY.md"))
            .unwrap()
            .contains("remote fact 7c1")
    );
    let view = invoke(&w, "memory_view", json!({"agent": "assistant"})).unwrap();
    assert!(view.to_string().contains("remote fact 7c1"));
    // The token is in the keyring, not in the file beside the settings.
    let saved = std::fs::read_to_string(settings.parent().unwrap().join("servers.json")).unwrap();
    assert!(
        saved.contains(&fp) && !saved.contains("tok-secure"),
        "{saved}"
    );

    // A write on that machine by someone else reaches the window.
    events.lock().unwrap().clear();
    let http = reqwest::blocking::Client::builder()
        .add_root_certificate(
            reqwest::Certificate::from_pem(&std::fs::read(dir.path().join("secure.pem")).unwrap())
                .unwrap(),
        )
        .build()
        .unwrap();
    wait_until("the remote's change event", || {
        let r = http
            .post(format!("{}/api/v1/console/append_memory", secure.base))
            .bearer_auth("tok-secure")
            .json(&json!({"agent": "assistant", "content": "runtime says hi", "scope": "archival"}))
            .send()
            .unwrap();
        assert!(r.status().is_success());
        std::thread::sleep(Duration::from_millis(200));
        events
            .lock()
            .unwrap()
            .iter()
            .any(|e| e.contains("\"memory\"") && e.contains("assistant"))
    });

    // An export made there, saved here through the (test's) save dialog.
    let started = invoke(&w, "start_export", json!({"agents": ["assistant"]})).unwrap();
    let id = started["id"].as_str().unwrap().to_string();
    wait_until("the remote export", || {
        invoke(&w, "transfer_status", json!({ "id": id })).unwrap()["state"] == "done"
    });
    let archive = dir.path().join("from-secure.zip");
    std::env::set_var("ORYX_TEST_FILE_DIALOG", &archive);
    let saved_to = invoke_command(&w, "save_export", json!({ "id": id })).unwrap();
    assert_eq!(saved_to, archive.display().to_string());
    assert!(std::fs::read(&archive).unwrap().starts_with(b"PK"));

    // Straight to the other server (plain http on this machine); the archive goes up to it.
    let c = connect(&w, json!({"url": plain.base, "token": "tok-plain"})).unwrap();
    assert_eq!(c["remote"]["url"], plain.base.as_str(), "{c}");
    assert_eq!(
        Path::new(&root_shown(&w)).canonicalize().unwrap(),
        plain.root.canonicalize().unwrap()
    );
    let upload = invoke_command(&w, "pick_archive", json!({})).unwrap();
    let import = invoke(
        &w,
        "start_import",
        json!({"upload": upload["upload"], "dry_run": true}),
    )
    .unwrap();
    let import_id = import["id"].as_str().unwrap().to_string();
    wait_until("the remote import's dry run", || {
        invoke(&w, "transfer_status", json!({ "id": import_id })).unwrap()["state"] == "done"
    });
    let report = invoke_command(
        &w,
        "migrate",
        json!({"req": {"from": "markdown", "to": "sqlite", "agent": null, "dry_run": true}, "onProgress": "__CHANNEL__:0"}),
    )
    .unwrap();
    assert_eq!(report["dry_run"], true, "{report}");
    assert!(report["total"]["found"].as_u64().unwrap() > 0, "{report}");
    assert!(!plain.memory("assistant").contains("remote fact 7c1"));

    // Back home; then the remembered server again with nothing typed.
    let c = invoke_command(&w, "disconnect_server", json!({})).unwrap();
    assert!(c["remote"].is_null());
    assert_eq!(Path::new(&root_shown(&w)).canonicalize().unwrap(), local);
    let c = connect(&w, json!({"url": secure.base})).unwrap();
    assert_eq!(c["remote"]["url"], secure.base.as_str());
    assert!(invoke(&w, "memory_view", json!({"agent": "assistant"}))
        .unwrap()
        .to_string()
        .contains("runtime says hi"));

    // Forgotten: the address, the fingerprint and the token.
    let c = invoke_command(&w, "forget_server", json!({"url": secure.base})).unwrap();
    assert!(c["servers"].as_array().unwrap().is_empty(), "{c}");
    invoke_command(&w, "disconnect_server", json!({})).unwrap();
    let e = connect(&w, json!({"url": secure.base})).unwrap_err();
    assert_eq!(code(&e), "untrusted_certificate", "{e}");
    assert!(connection(&w)["remote"].is_null());
}
