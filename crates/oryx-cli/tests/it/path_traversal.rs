//! Nobody gets in through a name, on the command line: path-traversal payloads on every
//! subcommand that takes an agent or session name, the run path's fallback to the global file,
//! and an agent whose MEMORY.md links outside the root. (The same over REST: oryx-server's
//! tests.)

use std::process::Output;

use serde_json::{json, Value};

use crate::common::hostile_root::{assert_unchanged, name_payloads, Env, SECRET};
use crate::common::{hostile_root, OryxOn};

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// One line on stderr, `error[<code>]: …`, naming the problem; nothing on stdout.
fn assert_cli_refused(out: &Output, codes: &[&str], what: &str) {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(2), "{what}: {err}");
    assert!(
        codes
            .iter()
            .any(|c| err.starts_with(&format!("error[{c}]: "))),
        "{what}: expected one of {codes:?}, got {err:?}"
    );
    assert!(!err.contains("panicked"), "{what}: {err}");
    // Names are echoed debug-quoted: a newline in a payload cannot split the message.
    assert_eq!(err.lines().count(), 1, "{what}: {err:?}");
    assert!(stdout(out).is_empty(), "{what}: stdout {:?}", stdout(out));
}

/// The strict CLI paths: each closure turns a payload into an argument list.
type CliCase = (&'static str, fn(&str) -> Vec<String>);

fn strs(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

const CLI_AGENT_CASES: &[CliCase] = &[
    ("agent <name>", |p| strs(&["agent", p])),
    ("memory show", |p| strs(&["memory", "show", "--agent", p])),
    ("memory context", |p| {
        strs(&["memory", "context", "--agent", p])
    }),
    ("memory add core", |p| {
        strs(&[
            "memory",
            "add",
            "--agent",
            p,
            "--scope",
            "core",
            "traversal probe",
        ])
    }),
    ("memory add archival", |p| {
        strs(&[
            "memory",
            "add",
            "--agent",
            p,
            "--scope",
            "archival",
            "traversal probe",
        ])
    }),
    ("memory recall", |p| {
        strs(&["memory", "recall", "--agent", p, "probe"])
    }),
    ("sessions --agent", |p| strs(&["sessions", "--agent", p])),
    ("prompt --agent", |p| strs(&["prompt", "--agent", p])),
    ("migrate --agent", |p| {
        strs(&[
            "migrate", "--from", "markdown", "--to", "sqlite", "--agent", p,
        ])
    }),
    ("migrate --agent --dry-run", |p| {
        strs(&[
            "migrate",
            "--from",
            "sqlite",
            "--to",
            "markdown",
            "--agent",
            p,
            "--dry-run",
        ])
    }),
];

const CLI_SESSION_CASES: &[CliCase] = &[
    ("session <id>", |p| strs(&["session", p])),
    ("prompt --session", |p| {
        strs(&["prompt", "--agent", "assistant", "--session", p])
    }),
];

/// argv cannot carry NUL, and a leading `-` is an option to clap: those are not CLI payloads.
fn cli_payloads(env: &Env) -> Vec<String> {
    name_payloads(env)
        .into_iter()
        .filter(|p| !p.contains('\0') && !p.starts_with('-'))
        .collect()
}

#[test]
fn cli_refuses_every_traversal_payload_on_every_strict_subcommand() {
    let env = Env::new();
    let before = env.snapshot();
    let payloads = cli_payloads(&env);
    let mut tried = 0;
    for (what, args) in CLI_AGENT_CASES {
        for p in &payloads {
            let a = args(p);
            let out = env.oryx(&a.iter().map(String::as_str).collect::<Vec<_>>());
            assert_cli_refused(&out, &["invalid_agent_name"], &format!("{what} {p:?}"));
            tried += 1;
        }
        // The symlinked agent directory exists and has a valid name: refused as outside the
        // root, and nothing of what it points at is shown.
        let a = args("evil");
        let out = env.oryx(&a.iter().map(String::as_str).collect::<Vec<_>>());
        if *what == "sessions --agent" {
            // A session filter is a database column, not a path: no file is read.
            assert!(out.status.success(), "{what}: {}", stderr(&out));
        } else {
            assert_cli_refused(&out, &["outside_root"], &format!("{what} evil"));
        }
        assert!(!stderr(&out).contains(SECRET) && !stdout(&out).contains(SECRET));
        tried += 1;
    }
    for (what, args) in CLI_SESSION_CASES {
        for p in &payloads {
            let a = args(p);
            let out = env.oryx(&a.iter().map(String::as_str).collect::<Vec<_>>());
            // Session ids are database keys: an unknown one is "not found", never a path.
            assert_cli_refused(&out, &["session_not_found"], &format!("{what} {p:?}"));
            tried += 1;
        }
    }
    assert_unchanged(&before, &env.snapshot(), "strict CLI paths");
    eprintln!("cli strict paths: {tried} payload x subcommand runs refused");
}

#[test]
fn cli_run_path_falls_back_to_the_global_file() {
    let env = Env::new();
    let global = env.root().join("memory/MEMORY.md");
    let mut payloads = cli_payloads(&env);
    payloads.push("evil".to_string());
    let agents_before: Vec<_> = std::fs::read_dir(env.root().join("agents"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    let outside_before = std::fs::read(env.outside().join("MEMORY.md")).unwrap();
    for (i, p) in payloads.iter().enumerate() {
        let marker = format!("run-path probe {i}");
        let input =
            json!({"content": marker, "scope": if i % 2 == 0 { "archival" } else { "core" }})
                .to_string();
        let out = env.oryx(&[
            "--json",
            "tool",
            "save_memory",
            "--input",
            &input,
            "--agent",
            p,
        ]);
        assert!(out.status.success(), "save_memory {p:?}: {}", stderr(&out));
        let r: Value = serde_json::from_str(&stdout(&out)).unwrap();
        assert_eq!(r["owner"], "global", "save_memory {p:?}: {r}");
        assert_eq!(r["output"], "已记住");
        assert!(
            std::fs::read_to_string(&global).unwrap().contains(&marker),
            "{p:?}: the entry is in the global MEMORY.md"
        );
        let out = env.oryx(&[
            "--json",
            "tool",
            "recall_memory",
            "--input",
            &json!({"keyword": marker}).to_string(),
            "--agent",
            p,
        ]);
        assert!(
            out.status.success(),
            "recall_memory {p:?}: {}",
            stderr(&out)
        );
        let r: Value = serde_json::from_str(&stdout(&out)).unwrap();
        assert_eq!(r["owner"], "global", "recall_memory {p:?}: {r}");
        if i % 2 == 0 {
            assert!(r["output"].as_str().unwrap().contains(&marker), "{r}");
        }
        let out = env.oryx(&[
            "--json",
            "footprint",
            "--agent",
            p,
            "--user",
            "hi",
            "--reply",
            &marker,
        ]);
        assert!(out.status.success(), "footprint {p:?}: {}", stderr(&out));
        let r: Value = serde_json::from_str(&stdout(&out)).unwrap();
        assert_eq!(r["owner"], "global", "footprint {p:?}: {r}");
    }
    let agents_after: Vec<_> = std::fs::read_dir(env.root().join("agents"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(
        agents_before, agents_after,
        "no agent directory was created"
    );
    assert_eq!(
        outside_before,
        std::fs::read(env.outside().join("MEMORY.md")).unwrap(),
        "the file behind the symlink is untouched"
    );
    let outside: Vec<_> = std::fs::read_dir(env.outside()).unwrap().collect();
    assert_eq!(outside.len(), 2, "nothing new outside the root");
    assert!(!env.base().join("escaped").exists());
    eprintln!(
        "cli run path: {} payloads x 3 tools fell back to global",
        payloads.len()
    );
}

#[test]
fn a_memory_file_linked_outside_the_root_is_refused_too() {
    let env = Env::new();
    hostile_root::link_agent_memory_outside(&env);
    let before = std::fs::read(env.outside().join("MEMORY.md")).unwrap();
    let out = env.oryx(&["memory", "show", "--agent", "linked"]);
    assert_cli_refused(&out, &["outside_root"], "memory show linked");
    let out = env.oryx(&[
        "memory", "add", "--agent", "linked", "--scope", "archival", "x",
    ]);
    assert_cli_refused(&out, &["outside_root"], "memory add linked");
    let out = env.oryx(&[
        "--json",
        "tool",
        "save_memory",
        "--input",
        r#"{"content":"linked probe"}"#,
        "--agent",
        "linked",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let r: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(r["owner"], "global", "the run path falls back: {r}");
    assert_eq!(
        before,
        std::fs::read(env.outside().join("MEMORY.md")).unwrap(),
        "the linked file is untouched"
    );
}
