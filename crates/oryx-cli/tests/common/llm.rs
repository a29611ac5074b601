//! The protocol-level OpenAI-compatible test server of `tests/llm/server.py`.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use super::ServerProcess;

/// Starts the server on a free port; returns it with its base URL (`http://127.0.0.1:P/v1`).
pub fn start() -> (ServerProcess, String) {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/llm/server.py");
    let mut child = Command::new("python3")
        .arg(script)
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3 runs the LLM test server");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let port = line
        .trim()
        .strip_prefix("listening ")
        .unwrap_or_else(|| panic!("the LLM test server said {line:?}"));
    (ServerProcess(child), format!("http://127.0.0.1:{port}/v1"))
}

/// The request bodies the server received, oldest first.
pub fn requests(base: &str) -> serde_json::Value {
    let url = base.trim_end_matches("/v1").to_string() + "/requests";
    reqwest::blocking::get(url).unwrap().json().unwrap()
}
