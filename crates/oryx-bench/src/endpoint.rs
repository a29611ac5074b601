//! The `endpoint` group: `oryx serve`'s `POST /v1/embeddings` (what the runtime calls when the
//! console is its embedding provider), its throughput for batches of 1 and 32 short zh/en
//! entries as a ratio to embedding the same texts in process, in the same run.

use std::net::TcpListener;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use oryx_core::embed::{default_model_dir, EmbedderSlot, MODEL_ID};
use oryx_core::memory::Backend;
use serde_json::{json, Value};

use crate::{console, median, Bench};

/// Short archival-like lines, Chinese and English, as agents write them.
const LINES: [&str; 8] = [
    "用户住在北京，喜欢喝手冲咖啡",
    "The user prefers short answers with code examples",
    "下周二去医院复查，记得带病历本",
    "Deploys go out on Thursdays after the review meeting",
    "用户的猫叫年糕，三岁",
    "The staging database is rebuilt every night at 02:00",
    "项目周报每周五下午五点前提交",
    "Call the user Lin, not Mr. Xiao",
];

fn texts(n: usize) -> Vec<String> {
    (0..n)
        .map(|i| format!("{} ({i})", LINES[i % LINES.len()]))
        .collect()
}

/// `oryx serve` on a free loopback port in this process, until the bench ends: its address.
/// The runtime recall group reaches the bundled model through it too.
pub(crate) fn serve(root: &std::path::Path, db: &std::path::Path) -> std::net::SocketAddr {
    let c = console(root, db, Backend::Markdown);
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let opts = oryx_server::ServeOptions {
        bind: addr,
        token: None,
        ui_dir: None,
        allow_hosts: Vec::new(),
        limits: oryx_server::Limits {
            // A batch of the 100 000-entry fill may take long in a slow run.
            request: Duration::from_secs(60),
            header: Duration::from_secs(10),
            body: Duration::from_secs(10),
            shutdown_grace: Duration::from_secs(1),
            max_connections: 64,
            max_blocking: 16,
        },
        tls: None,
    };
    std::thread::spawn(move || {
        let _ = oryx_server::serve_until(c, opts, listener, std::future::pending());
    });
    addr
}

impl Bench {
    pub(crate) fn endpoint(&mut self) {
        let runs = self.scale.runs;
        let slot = EmbedderSlot::shared(&default_model_dir());
        let embedder = slot.get().unwrap_or_else(|e| panic!("{e}"));
        let root = self.data.root();
        let addr = serve(&root, &self.data.db());
        let url = format!("http://{addr}/v1/embeddings");
        // One connection kept alive, as the runtime's HTTP client keeps it.
        let client = reqwest::blocking::Client::new();
        let post = |batch: &[String]| {
            // What Spring AI's OpenAiApi posts.
            let r = client
                .post(&url)
                .bearer_auth("oryx-local-no-token")
                .json(&json!({"input": batch, "model": MODEL_ID, "encoding_format": "float"}))
                .send()
                .unwrap();
            assert_eq!(r.status(), 200);
            let v: Value = r.json().unwrap();
            assert_eq!(v["data"].as_array().unwrap().len(), batch.len());
        };
        let cancel = AtomicBool::new(false);
        for (size, requests, goal) in [(1usize, 32usize, 2.0), (32, 4, 1.3)] {
            let all = texts(size * requests);
            let over_http = median(runs, || {
                for batch in all.chunks(size) {
                    post(batch);
                }
            });
            let in_process = median(runs, || {
                for batch in all.chunks(size) {
                    embedder.embed_batch(batch, &cancel).unwrap();
                }
            });
            let n = all.len() as f64;
            let extra = format!(
                " ({:.0} vs {:.0} texts/s)",
                n / over_http.as_secs_f64(),
                n / in_process.as_secs_f64()
            );
            self.ratio_row(
                &format!("embeddings_endpoint_batch{size}"),
                format!(
                    "POST /v1/embeddings, {requests} requests of {size} short zh/en entries, against embedding them in process"
                ),
                goal,
                over_http,
                in_process,
                &extra,
            );
        }
    }
}
