//! Shared by the integration tests that start a real `oryx serve`.

#![allow(dead_code)]

#[path = "../../../oryx-server/tests/common/certificate.rs"]
pub mod certificate;
pub mod demo_install;
pub mod llm;
// Shared with oryx-server's tests (oryx-cli builds on the server, so they live there).
#[path = "../../../oryx-server/tests/common/hostile_root.rs"]
pub mod hostile_root;
#[path = "../../../oryx-server/tests/common/mem0.rs"]
pub mod mem0;
#[path = "../../../oryx-server/tests/common/raw_http.rs"]
pub mod raw_http;
#[path = "../../../oryx-server/tests/common/traversal.rs"]
pub mod traversal;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// `oryx` with its settings in `config` and none of the caller's environment that would point it
/// at another root, database or token.
pub fn oryx(config: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_oryx"));
    c.env("ORYXOS_CONFIG_DIR", config)
        .env_remove("ORYXOS_ROOT")
        .env_remove("ORYXOS_DB")
        .env_remove("ORYX_TOKEN")
        .env_remove("ORYX_SUMMARY_API_KEY");
    c
}

/// `oryx` on a [`hostile_root::Env`]: its settings in the env's config folder, and no mem0 of
/// the caller's environment.
pub trait OryxOn {
    fn cmd(&self) -> Command;
    fn plain(&self, args: &[&str]) -> Output;
    fn oryx(&self, args: &[&str]) -> Output;
}

impl OryxOn for hostile_root::Env {
    fn cmd(&self) -> Command {
        let mut c = oryx(&self.base().join("config"));
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
}

/// A started server process, killed when the test lets go of it.
pub struct ServerProcess(pub Child);

impl std::ops::Deref for ServerProcess {
    type Target = Child;
    fn deref(&self) -> &Child {
        &self.0
    }
}

impl std::ops::DerefMut for ServerProcess {
    fn deref_mut(&mut self) -> &mut Child {
        &mut self.0
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Spawns `cmd` (an `oryx … serve --bind 127.0.0.1:0`) and returns the child with its base URL,
/// read from the address line the server prints first on stderr.
pub fn spawn_serve(cmd: Command) -> (Child, String) {
    let (child, base, _) = spawn_serve_logged(cmd);
    (child, base)
}

/// As [`spawn_serve`], also collecting the rest of the server's stderr (it keeps being read,
/// so the server never writes into a closed pipe).
pub fn spawn_serve_logged(mut cmd: Command) -> (Child, String, Arc<Mutex<String>>) {
    let mut child = cmd.stderr(Stdio::piped()).spawn().unwrap();
    let mut reader = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    reader.read_line(&mut line).unwrap();
    // `https://` when the server was given a certificate.
    let scheme = if line.contains("https://") {
        "https"
    } else {
        "http"
    };
    let addr = line
        .split(&format!("{scheme}://"))
        .nth(1)
        .and_then(|r| r.split('/').next())
        .unwrap_or_else(|| panic!("no address in {line:?}"))
        .to_string();
    let log = Arc::new(Mutex::new(String::new()));
    let sink = log.clone();
    std::thread::spawn(move || {
        let mut l = String::new();
        while reader.read_line(&mut l).map(|n| n > 0).unwrap_or(false) {
            sink.lock().unwrap().push_str(&l);
            l.clear();
        }
    });
    (child, format!("{scheme}://{addr}"), log)
}

/// Polls `ok` until it holds; panics naming `what` after `limit`. The one way these tests wait
/// for something to happen: never a fixed sleep.
pub fn wait_until(what: &str, limit: Duration, mut ok: impl FnMut() -> bool) {
    let deadline = Instant::now() + limit;
    while !ok() {
        assert!(
            Instant::now() < deadline,
            "timed out after {limit:?} waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}
