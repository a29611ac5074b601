//! Shared by oryx-server's tests: the real server, started inside the test process on
//! 127.0.0.1 (a port of its own), over real TCP, configured with the options `oryx serve`
//! takes on its command line. It stops when the test lets go of it.

#![allow(dead_code)]

pub mod certificate;
pub mod hostile_root;
pub mod mem0;
pub mod raw_http;
pub mod traversal;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, Once};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use oryx_api::{Console, Overrides};
use oryx_server::{parse_duration, Limits, ServeOptions, TlsFiles};

/// A server running in this process.
pub struct Server {
    /// `http://127.0.0.1:PORT` (`https://` with `--tls-cert`).
    pub base: String,
    pub addr: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        // Stopped within its grace period: nothing of it outlives the test.
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The options of `oryx serve` as its flags set them (their defaults when absent):
/// `--token`, `--ui-dir`, `--allow-host`, `--tls-cert`, `--tls-key`, `--request-timeout`,
/// `--header-timeout`, `--body-timeout`, `--shutdown-grace`, `--max-connections`,
/// `--max-workers`.
pub fn options(flags: &[&str]) -> ServeOptions {
    let mut o = ServeOptions {
        bind: "127.0.0.1:0".parse().unwrap(),
        token: None,
        ui_dir: None,
        allow_hosts: Vec::new(),
        limits: Limits {
            request: Duration::from_secs(30),
            header: Duration::from_secs(10),
            body: Duration::from_secs(10),
            shutdown_grace: Duration::from_secs(3),
            max_connections: 256,
            max_blocking: 16,
        },
        tls: None,
    };
    let (mut cert, mut key) = (None, None);
    let mut it = flags.iter();
    while let Some(flag) = it.next() {
        let value = *it.next().unwrap_or_else(|| panic!("{flag} takes a value"));
        let duration = || parse_duration(value).unwrap();
        match *flag {
            "--token" => o.token = Some(value.to_string()),
            "--ui-dir" => o.ui_dir = Some(value.into()),
            "--allow-host" => o.allow_hosts.push(value.to_string()),
            "--tls-cert" => cert = Some(PathBuf::from(value)),
            "--tls-key" => key = Some(PathBuf::from(value)),
            "--request-timeout" => o.limits.request = duration(),
            "--header-timeout" => o.limits.header = duration(),
            "--body-timeout" => o.limits.body = duration(),
            "--shutdown-grace" => o.limits.shutdown_grace = duration(),
            "--max-connections" => o.limits.max_connections = value.parse().unwrap(),
            "--max-workers" => o.limits.max_blocking = value.parse().unwrap(),
            other => panic!("the test server does not know {other}"),
        }
    }
    o.tls = cert.zip(key).map(|(cert, key)| TlsFiles { cert, key });
    o
}

/// The console `oryx --root ROOT` opens with its settings in `config` (a folder).
pub fn console(config: &Path, root: &Path) -> Console {
    Console::open(
        Some(config.join("settings.json")),
        Overrides {
            root: Some(root.to_path_buf()),
            ..Overrides::default()
        },
    )
    .unwrap()
}

/// `oryx --root ROOT serve --bind 127.0.0.1:0 FLAGS…` with its settings in `config`, started
/// in this process; returns once the server accepts connections.
pub fn serve(config: &Path, root: &Path, flags: &[&str]) -> Server {
    serve_console(console(config, root), flags)
}

/// As [`serve`], with a console the test opened.
pub fn serve_console(console: Console, flags: &[&str]) -> Server {
    record_panics();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let mut opts = options(flags);
    opts.bind = addr;
    let scheme = if opts.tls.is_some() { "https" } else { "http" };
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let thread = std::thread::spawn(move || {
        let until = async move {
            let _ = stopped.await;
        };
        if let Err(e) = oryx_server::serve_until(console, opts, listener, until) {
            panic!("the server stopped: {e}");
        }
    });
    Server {
        base: format!("{scheme}://{addr}"),
        addr,
        stop: Some(stop),
        thread: Some(thread),
    }
}

/// The server on a hostile root (its settings in the root's config folder).
pub fn serve_hostile(env: &hostile_root::Env, flags: &[&str]) -> Server {
    serve(&env.base().join("config"), &env.root(), flags)
}

impl raw_http::Addressed for Server {
    fn address(&self) -> String {
        self.addr.to_string()
    }
}

/// A sample root (what `oryx demo DIR` writes) at `dir`.
pub fn demo(dir: &Path) {
    oryx_api::settings::create_sample_root(dir.to_str().unwrap()).unwrap();
}

static PANICS: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Panics on the server's threads are caught (the client gets a 500) and would only reach the
/// server's log: each one is kept here too, for [`server_panics`].
fn record_panics() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let thread = std::thread::current();
            if thread
                .name()
                .is_some_and(|n| n.starts_with("tokio-runtime"))
            {
                PANICS
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .push(info.to_string());
            }
            previous(info);
        }));
    });
}

/// Every panic so far on any server thread of this process, as the log would show it.
pub fn server_panics() -> String {
    PANICS.lock().unwrap_or_else(|p| p.into_inner()).join("\n")
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
