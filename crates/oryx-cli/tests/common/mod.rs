//! Shared by the integration tests that start a real `oryx serve`.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

/// Spawns `cmd` (an `oryx … serve --bind 127.0.0.1:0`) and returns the child with its base URL,
/// read from the address line the server prints first on stderr.
pub fn spawn_serve(mut cmd: Command) -> (Child, String) {
    let mut child = cmd.stderr(Stdio::piped()).spawn().unwrap();
    let mut line = String::new();
    BufReader::new(child.stderr.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr = line
        .split("http://")
        .nth(1)
        .and_then(|r| r.split('/').next())
        .unwrap_or_else(|| panic!("no address in {line:?}"))
        .to_string();
    (child, format!("http://{addr}"))
}
