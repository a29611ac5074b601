//! mem0 as the tests need it: the real test server (tests/mem0, started by `make mem0-contract`)
//! with its injected faults, and the two failures no server can be asked for: a port nobody
//! listens on and a server that accepts and never answers.

use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};

/// The mem0 test server's base URL. The tests that need it are `#[ignore]`d and run by
/// `make mem0-contract`, which sets it: without it they fail, never pass having tested nothing.
pub fn url() -> String {
    std::env::var("ORYX_MEM0_URL")
        .expect("ORYX_MEM0_URL must point at tests/mem0/serve.sh (make mem0-contract sets it)")
}

/// Faults are global to the test server: the tests that inject one hold this.
pub static SERVER: Mutex<()> = Mutex::new(());

fn faults(body: Option<Value>) -> Value {
    let client = reqwest::blocking::Client::new();
    let target = format!("{}/__faults", url());
    let r = match body {
        Some(b) => client.post(target).json(&b).send(),
        None => client.get(target).send(),
    }
    .expect("the mem0 test server answers /__faults");
    assert!(r.status().is_success(), "/__faults: {}", r.status());
    r.json().expect("/__faults answers JSON")
}

/// The fault is on while this lives; it is switched off on drop, a failing assertion included.
pub struct Fault;

impl Fault {
    /// `mode`: error500, malformed, or slow (answers after `delay_ms`).
    pub fn on(mode: &str, delay_ms: u64) -> Fault {
        faults(Some(json!({"mode": mode, "delay_ms": delay_ms})));
        Fault
    }
}

impl Drop for Fault {
    fn drop(&mut self) {
        faults(Some(json!({"mode": "none", "delay_ms": 0})));
    }
}

/// Waits until the test server answers nothing (a slow fault's requests have all finished,
/// their writes landed or not), or panics after `deadline`.
pub fn wait_idle(limit: Duration) {
    super::wait_until("the mem0 test server to finish its requests", limit, || {
        faults(None)["in_flight"] == 0
    });
}

/// A base URL where nothing listens (the port was free a moment ago): connections are refused.
pub fn unreachable_url() -> String {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    format!("http://{}", l.local_addr().unwrap())
}

/// A server that accepts connections and never answers: every call waits for its timeout.
/// Connections stay open while this lives.
pub struct Hung {
    pub url: String,
    accepted: Arc<AtomicUsize>,
    _held: Arc<Mutex<Vec<TcpStream>>>,
}

impl Hung {
    pub fn start() -> Hung {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", l.local_addr().unwrap());
        let accepted = Arc::new(AtomicUsize::new(0));
        let held = Arc::new(Mutex::new(Vec::new()));
        let (count, keep) = (accepted.clone(), held.clone());
        std::thread::spawn(move || {
            for stream in l.incoming().flatten() {
                keep.lock().unwrap().push(stream);
                count.fetch_add(1, Ordering::SeqCst);
            }
        });
        Hung {
            url,
            accepted,
            _held: held,
        }
    }

    /// Connections accepted so far (each one a call now waiting).
    pub fn accepted(&self) -> usize {
        self.accepted.load(Ordering::SeqCst)
    }

    /// Waits until at least `n` calls are waiting on this server, or panics after `deadline`.
    pub fn wait_for_calls(&self, n: usize, limit: Duration) {
        super::wait_until(&format!("{n} calls on the hung server"), limit, || {
            self.accepted() >= n
        });
    }
}

/// Settings (as stored) selecting the mem0 backend at `url`.
pub fn settings(url: &str, timeout_ms: u64) -> Value {
    json!({"backend": "mem0", "mem0": {"baseUrl": url, "timeoutMs": timeout_ms}})
}
