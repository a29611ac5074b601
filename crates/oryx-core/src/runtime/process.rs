//! Whether the runtime of an install is running: `bin/start.sh` writes the java process's pid to
//! `bin/oryxos.pid`; the process is alive when `/proc/<pid>` exists and its command line is a
//! java one naming oryxos (a pid file left behind after a crash may name an unrelated process).
//!
//! The port is `serve --port N` (default 8080): the serve command sets `server.port` as a system
//! property from that option, which beats `server.port` in any YAML file, so the YAML's port
//! never applies to a runtime started by the start script.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The serve command's `--port` default.
pub const DEFAULT_PORT: u16 = 8080;

/// The pid file of an install, as the start script names it.
pub fn pid_file(install_dir: &Path) -> PathBuf {
    install_dir.join("bin").join("oryxos.pid")
}

/// One process, told apart from a later one that reuses its pid by its start time (clock ticks
/// after boot, field 22 of `/proc/<pid>/stat`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProcessId {
    pub pid: u32,
    pub start_ticks: u64,
}

/// The runtime's process as the console saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuntimeProcess {
    pub id: ProcessId,
    pub port: u16,
    /// `-Dname=value` properties of its command line.
    pub sysprops: BTreeMap<String, String>,
    /// Its environment, when readable (same user): what its placeholders resolved against.
    pub env: Option<BTreeMap<String, String>>,
}

/// The running runtime of `install_dir`, if any.
pub fn running(install_dir: &Path) -> Option<RuntimeProcess> {
    let text = std::fs::read_to_string(pid_file(install_dir)).ok()?;
    let pid: u32 = text.trim().parse().ok()?;
    let args = cmdline(pid)?;
    if !looks_like_runtime(&args) {
        return None;
    }
    let id = identity(pid)?;
    Some(RuntimeProcess {
        id,
        port: port_of(&args),
        sysprops: sysprops_of(&args),
        env: environ(pid),
    })
}

/// The identity of a live process; `None` when it is gone.
pub fn identity(pid: u32) -> Option<ProcessId> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name in parentheses may hold spaces and parentheses: fields follow the last ')'.
    let after = &stat[stat.rfind(')')? + 1..];
    // Field 3 (state) is the first after the name; the start time is field 22.
    let start_ticks = after.split_whitespace().nth(19)?.parse().ok()?;
    Some(ProcessId { pid, start_ticks })
}

/// Whether the process the console saw is still the one running.
pub fn is_alive(id: &ProcessId) -> bool {
    identity(id.pid).is_some_and(|now| now == *id)
}

fn cmdline(pid: u32) -> Option<Vec<String>> {
    let bytes = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
    Some(
        bytes
            .split(|b| *b == 0)
            .filter(|a| !a.is_empty())
            .map(|a| String::from_utf8_lossy(a).into_owned())
            .collect(),
    )
}

fn environ(pid: u32) -> Option<BTreeMap<String, String>> {
    let bytes = std::fs::read(format!("/proc/{pid}/environ")).ok()?;
    Some(
        bytes
            .split(|b| *b == 0)
            .filter_map(|kv| {
                let kv = String::from_utf8_lossy(kv);
                let (k, v) = kv.split_once('=')?;
                Some((k.to_string(), v.to_string()))
            })
            .collect(),
    )
}

/// `java … oryxos…`: the program is java and an argument names oryxos (the jar).
pub fn looks_like_runtime(args: &[String]) -> bool {
    let Some(program) = args.first() else {
        return false;
    };
    let name = Path::new(program)
        .file_name()
        .map(|n| n.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    name.starts_with("java")
        && args[1..]
            .iter()
            .any(|a| a.to_lowercase().contains("oryxos"))
}

/// `serve --port N` or `--port=N`; the default otherwise.
pub fn port_of(args: &[String]) -> u16 {
    let Some(serve) = args.iter().position(|a| a == "serve") else {
        return DEFAULT_PORT;
    };
    let rest = &args[serve + 1..];
    for (i, a) in rest.iter().enumerate() {
        let v = if a == "--port" {
            rest.get(i + 1).map(String::as_str)
        } else {
            a.strip_prefix("--port=")
        };
        if let Some(p) = v.and_then(|v| v.trim().parse().ok()) {
            return p;
        }
    }
    DEFAULT_PORT
}

/// `-Dname=value` before `-jar` (after it they are the program's arguments, not the JVM's).
pub fn sysprops_of(args: &[String]) -> BTreeMap<String, String> {
    args.iter()
        .skip(1)
        .take_while(|a| *a != "-jar")
        .filter_map(|a| a.strip_prefix("-D"))
        .map(|kv| match kv.split_once('=') {
            Some((k, v)) => (k.to_string(), v.to_string()),
            None => (kv.to_string(), String::new()),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split(' ').map(String::from).collect()
    }

    #[test]
    fn the_start_scripts_command_line() {
        let a = args("/usr/bin/java -Dspring.config.additional-location=optional:file:/i/config/ -Dmemory.backend=sqlite -jar /i/oryxos-boot/target/oryxos-boot-1.0.jar serve --port 9090 -Dnot=this");
        assert!(looks_like_runtime(&a));
        assert_eq!(port_of(&a), 9090);
        let p = sysprops_of(&a);
        assert_eq!(p["memory.backend"], "sqlite");
        assert!(!p.contains_key("not"));
        assert_eq!(port_of(&args("java -jar oryxos.jar serve")), 8080);
        assert_eq!(port_of(&args("java -jar oryxos.jar serve --port=81")), 81);
        assert!(!looks_like_runtime(&args("/bin/sleep 100")));
        assert!(!looks_like_runtime(&args("java -jar other.jar")));
    }

    #[test]
    fn this_process_has_an_identity_and_a_stale_pid_file_is_not_running() {
        let me = identity(std::process::id()).unwrap();
        assert!(is_alive(&me));
        assert!(!is_alive(&ProcessId {
            start_ticks: me.start_ticks + 1,
            ..me
        }));
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("bin")).unwrap();
        // This test binary is not a java process.
        std::fs::write(pid_file(dir.path()), std::process::id().to_string()).unwrap();
        assert_eq!(running(dir.path()), None);
    }
}
