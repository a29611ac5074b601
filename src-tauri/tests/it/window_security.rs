//! Desktop security: the window may call our commands, open the folder picker and
//! listen to events, nothing else; the CSP allows no eval or inline script; only the Settings
//! commands take a filesystem path; every command that takes an agent or session name refuses
//! traversal payloads through Tauri's mock runtime (real IPC serialisation, real files); and a
//! hung mem0 service never blocks the other commands.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::common;

use crate::common::{app, invoke, Window};
use serde_json::{json, Value};

const SECRET: &str = "SECRET-OUTSIDE-THE-ROOT";

/// A sample root, an "outside" folder beside it and `agents/evil` linked to it.
struct Fixture {
    dir: tempfile::TempDir,
}

impl Fixture {
    fn new() -> Fixture {
        let f = Fixture {
            dir: tempfile::tempdir().unwrap(),
        };
        oryx_core::demo::write_sample(&f.root()).unwrap();
        std::fs::create_dir_all(f.outside()).unwrap();
        std::fs::write(
            f.outside().join("MEMORY.md"),
            format!("## 核心记忆\n- [2026-01-01 00:00:00] {SECRET}\n\n## 归档记忆\n"),
        )
        .unwrap();
        std::fs::write(
            f.outside().join("AGENT.md"),
            format!("---\nname: x\n---\n{SECRET}\n"),
        )
        .unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(f.outside(), f.root().join("agents/evil")).unwrap();
        f
    }

    fn root(&self) -> PathBuf {
        self.dir.path().join("root")
    }

    fn outside(&self) -> PathBuf {
        self.dir.path().join("outside")
    }

    fn settings(&self) -> PathBuf {
        self.dir.path().join("settings.json")
    }

    fn window(&self) -> Window {
        app(&self.root(), &self.settings())
    }

    fn snapshot(&self) -> BTreeMap<PathBuf, Option<Vec<u8>>> {
        let mut out = BTreeMap::new();
        walk(self.dir.path(), self.dir.path(), &mut out);
        out
    }
}

fn walk(base: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, Option<Vec<u8>>>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        if name.ends_with("-wal") || name.ends_with("-shm") || name.ends_with("-journal") {
            continue;
        }
        let rel = p.strip_prefix(base).unwrap().to_path_buf();
        let ft = e.file_type().unwrap();
        if ft.is_dir() {
            out.insert(rel, None);
            walk(base, &p, out);
        } else if ft.is_symlink() {
            let target = std::fs::read_link(&p).unwrap();
            out.insert(rel, Some(target.into_os_string().into_encoded_bytes()));
        } else {
            out.insert(rel, Some(std::fs::read(&p).unwrap()));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Capabilities, CSP, plugins.

#[test]
fn capabilities_grant_exactly_our_commands_the_folder_picker_and_events() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("capabilities");
    let files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(files, vec!["default.json"], "one capability file");
    let cap: Value = serde_json::from_str(include_str!("../../capabilities/default.json")).unwrap();
    assert_eq!(cap["windows"], json!(["main"]), "{cap}");
    assert!(cap.get("remote").is_none(), "no remote URL gets IPC: {cap}");
    assert!(
        cap.get("webviews").is_none() && cap.get("platforms").is_none(),
        "{cap}"
    );
    let perms: BTreeSet<String> = cap["permissions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            p.as_str()
                .unwrap_or_else(|| panic!("no scoped permission objects: {p}"))
                .to_string()
        })
        .collect();
    let mut expected: BTreeSet<String> = oryx_desktop::command_names::NAMES
        .iter()
        .map(|c| format!("allow-{}", c.replace('_', "-")))
        .collect();
    expected.extend(
        [
            "core:event:allow-listen",
            "core:event:allow-unlisten",
            "dialog:allow-open",
        ]
        .map(String::from),
    );
    assert_eq!(perms, expected);
    for p in &perms {
        assert!(
            // The page never gets the dialog plugin's save (a path it could write to): our
            // save_export command shows the dialog itself and only says where it saved.
            !p.ends_with(":default") && !p.starts_with("dialog:allow-save") && !p.contains("fs:"),
            "{p}"
        );
    }
    // The commands the capability names are the ones the app registers (and exports).
    let registered: BTreeSet<String> = bindings_commands().into_keys().collect();
    let names: BTreeSet<String> = oryx_desktop::command_names::NAMES
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(registered, names);
}

#[test]
fn only_the_dialog_plugin_is_loaded() {
    let manifest = include_str!("../../Cargo.toml");
    let plugins: Vec<&str> = manifest
        .lines()
        .filter_map(|l| l.split('=').next())
        .map(str::trim)
        .filter(|k| k.starts_with("tauri-plugin-"))
        .collect();
    assert_eq!(plugins, vec!["tauri-plugin-dialog"]);
    let lib = include_str!("../../src/lib.rs");
    assert_eq!(lib.matches(".plugin(").count(), 1, "one plugin: the dialog");
    assert!(lib.contains(".plugin(tauri_plugin_dialog::init())"));
}

fn csp_directives(csp: &str) -> BTreeMap<String, Vec<String>> {
    csp.split(';')
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .map(|d| {
            let mut it = d.split_whitespace();
            let name = it.next().unwrap().to_ascii_lowercase();
            (name, it.map(str::to_string).collect())
        })
        .collect()
}

#[test]
fn csp_allows_no_eval_no_inline_script_and_no_remote_code() {
    let conf: Value = serde_json::from_str(include_str!("../../../tauri.conf.json")).unwrap();
    let security = &conf["app"]["security"];
    let csp = security["csp"].as_str().expect("a CSP is set");
    let d = csp_directives(csp);
    assert_eq!(d["default-src"], vec!["'self'"], "{csp}");
    let script = d
        .get("script-src")
        .unwrap_or_else(|| &d["default-src"])
        .clone();
    for s in &script {
        let l = s.to_ascii_lowercase();
        assert!(
            !l.contains("unsafe") && l != "*" && !l.ends_with(':') && !l.starts_with("http"),
            "script-src allows {s}: {csp}"
        );
    }
    assert_eq!(script, vec!["'self'"], "{csp}");
    assert_eq!(d["object-src"], vec!["'none'"]);
    assert_eq!(d["base-uri"], vec!["'none'"]);
    assert_eq!(d["frame-ancestors"], vec!["'none'"]);
    assert_eq!(
        d["connect-src"],
        vec!["ipc:", "http://ipc.localhost"],
        "the UI talks to IPC only"
    );
    for (name, sources) in &d {
        for s in sources {
            assert!(
                !s.contains("unsafe-eval") && s != "*",
                "{name} allows {s}: {csp}"
            );
        }
    }
    // No developer escape hatches, no global `window.__TAURI__` for injected scripts.
    assert!(security.get("devCsp").is_none(), "{security}");
    assert!(
        security
            .get("dangerousDisableAssetCspModification")
            .is_none(),
        "{security}"
    );
    assert!(
        security.get("capabilities").is_none() || security["capabilities"] == json!(["default"])
    );
    assert_ne!(conf["app"]["withGlobalTauri"], json!(true));
    assert!(conf["app"]["windows"].as_array().unwrap().iter().all(|w| w
        .get("url")
        .is_none_or(|u| !u.as_str().unwrap_or("").starts_with("http"))));
}

// ---------------------------------------------------------------------------------------------
// The commands' arguments, from the generated bindings.

/// `ui/src/bindings.ts` (kept fresh by tests/bindings.rs): command -> [(argument, TS type)].
fn bindings_commands() -> BTreeMap<String, Vec<(String, String)>> {
    let ts = include_str!("../../../ui/src/bindings.ts");
    let start = ts.find("export const commands = {").unwrap();
    let end = start + ts[start..].find("\n};").unwrap();
    let mut out = BTreeMap::new();
    for line in ts[start..end].lines() {
        let Some(at) = line.find("__TAURI_INVOKE(\"") else {
            continue;
        };
        let rest = &line[at + "__TAURI_INVOKE(\"".len()..];
        let cmd = rest[..rest.find('"').unwrap()].to_string();
        let sig = line.trim_start();
        let open = sig.find(": (").unwrap() + 3;
        let close = sig.find(") =>").unwrap();
        let args: Vec<(String, String)> = split_top(&sig[open..close])
            .into_iter()
            .filter(|a| !a.is_empty())
            .map(|a| {
                let (n, t) = a.split_once(':').unwrap();
                (n.trim().to_string(), t.trim().to_string())
            })
            .collect();
        out.insert(cmd, args);
    }
    out
}

/// Splits on commas outside `<>`, `()` and `{}`.
fn split_top(s: &str) -> Vec<String> {
    let (mut depth, mut cur, mut out) = (0i32, String::new(), Vec::new());
    for c in s.chars() {
        match c {
            '<' | '(' | '{' => depth += 1,
            '>' | ')' | '}' => depth -= 1,
            ',' if depth == 0 => {
                out.push(cur.trim().to_string());
                cur.clear();
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    out.push(cur.trim().to_string());
    out
}

/// Field names of `export type <name> = { … };` in the bindings.
fn type_fields(name: &str) -> Option<Vec<(String, String)>> {
    let ts = include_str!("../../../ui/src/bindings.ts");
    let head = format!("export type {name} = {{\n");
    let start = ts.find(&head)? + head.len();
    let end = start + ts[start..].find("\n};")?;
    Some(
        ts[start..end]
            .lines()
            .map(str::trim)
            .filter(|l| !l.starts_with("/*") && !l.is_empty())
            .filter_map(|l| l.split_once(':'))
            .map(|(n, t)| {
                (
                    n.trim().trim_end_matches('?').to_string(),
                    t.trim().trim_end_matches(',').to_string(),
                )
            })
            .collect(),
    )
}

/// Every argument leaf as `command.arg[.field…]` (`operation.field…` for the registered
/// operations), DTOs expanded.
fn argument_leaves() -> BTreeSet<String> {
    fn expand(prefix: String, ty: &str, out: &mut BTreeSet<String>, depth: usize) {
        let base = ty.split('|').next().unwrap().trim().trim_end_matches("[]");
        match type_fields(base).filter(|_| depth < 4) {
            Some(fields) => {
                for (n, t) in fields {
                    expand(format!("{prefix}.{n}"), &t, out, depth + 1);
                }
            }
            None => {
                out.insert(prefix);
            }
        }
    }
    let mut out = BTreeSet::new();
    for (cmd, args) in bindings_commands() {
        if cmd == "console" {
            continue; // its arguments are the registered operations', expanded below
        }
        for (a, t) in args {
            expand(format!("{cmd}.{a}"), &t, &mut out, 0);
        }
    }
    let ops = type_fields("Operations_Deserialize").expect("the Operations map in the bindings");
    assert_eq!(ops.len(), oryx_api::ops::NAMES.len());
    for (op, sig) in ops {
        let inner = sig
            .strip_prefix("Signature<")
            .and_then(|s| s.strip_suffix('>'))
            .unwrap_or_else(|| panic!("{op}: {sig}"));
        let args = &split_top(inner)[0];
        if args != "NoArgs" {
            expand(op, args, &mut out, 0);
        }
    }
    out
}

#[test]
fn only_the_settings_commands_take_a_filesystem_path() {
    let leaves = argument_leaves();
    assert!(leaves.contains("append_memory.agent"), "{leaves:?}");
    let pathlike = |leaf: &str| {
        let last = leaf.rsplit('.').next().unwrap().to_ascii_lowercase();
        ["path", "root", "dir", "file", "folder", "location"]
            .iter()
            .any(|w| last.contains(w))
    };
    let found: BTreeSet<&str> = leaves
        .iter()
        .map(String::as_str)
        .filter(|l| pathlike(l))
        .collect();
    // Settings: the root and database being chosen, inspected or created. `test_mem0` receives
    // the whole settings form but only reads its mem0 fields (checked below).
    let expected: BTreeSet<&str> = [
        "update_settings.root",
        "update_settings.db_path",
        "inspect_root.path",
        "inspect_root.db_path",
        "create_sample_root.path",
        "test_mem0.root",
        "test_mem0.db_path",
    ]
    .into_iter()
    .collect();
    assert_eq!(found, expected, "all leaves: {leaves:?}");
    eprintln!(
        "{} argument leaves over {} commands; path-like: {found:?}",
        leaves.len(),
        bindings_commands().len()
    );
}

// ---------------------------------------------------------------------------------------------
// Traversal payloads through IPC.

/// The shared payloads of tests/fixtures/traversal.json (the CLI and REST tests use the same).
fn payloads(f: &Fixture) -> Vec<String> {
    common::traversal::names(&f.outside())
}

type ArgsFor = fn(&str) -> Value;

const AGENT_COMMANDS: &[(&str, ArgsFor)] = &[
    ("get_agent", |p| json!({"name": p})),
    ("memory_view", |p| json!({"agent": p})),
    ("memory_overview", |p| json!({"agent": p})),
    (
        "archival_page",
        |p| json!({"agent": p, "offset": 0, "limit": 5, "newest_first": true, "keyword": null}),
    ),
    (
        "append_memory",
        |p| json!({"agent": p, "scope": "core", "content": "probe"}),
    ),
    (
        "append_memory",
        |p| json!({"agent": p, "scope": "archival", "content": "probe"}),
    ),
    ("recall_memory", |p| json!({"agent": p, "keyword": "probe"})),
    ("build_index", |p| json!({"agent": p})),
    ("episodic_search", |p| json!({"agent": p, "query": "probe"})),
    ("list_sessions", |p| json!({"agent": p})),
    (
        "prompt_preview",
        |p| json!({"agent": p, "session_id": null}),
    ),
    ("migrate", |p| {
        json!({"req": {"from": "markdown", "to": "sqlite", "agent": p, "dry_run": false},
               "onProgress": "__CHANNEL__:1"})
    }),
    ("migrate", |p| {
        json!({"req": {"from": "sqlite", "to": "markdown", "agent": p, "dry_run": true},
               "onProgress": "__CHANNEL__:2"})
    }),
];

fn assert_refused(r: Result<Value, Value>, code: &str, what: &str) {
    let err = r.expect_err(what);
    assert_eq!(err["code"], code, "{what}: {err}");
    let msg = err["message"].as_str().unwrap();
    assert!(!msg.is_empty() && !msg.contains(SECRET) && !msg.contains("panicked"));
}

#[test]
fn every_command_taking_a_name_refuses_traversal_payloads() {
    let f = Fixture::new();
    let w = f.window();
    let before = f.snapshot();
    let mut tried = 0;
    for (cmd, args) in AGENT_COMMANDS {
        for p in payloads(&f) {
            assert_refused(
                invoke(&w, cmd, args(&p)),
                "invalid_agent_name",
                &format!("{cmd} {p:?}"),
            );
            tried += 1;
        }
        let r = invoke(&w, cmd, args("evil"));
        if *cmd == "list_sessions" {
            // A database filter, not a path: no file is read.
            assert!(r.is_ok(), "{r:?}");
        } else {
            assert_refused(r, "outside_root", &format!("{cmd} evil"));
        }
        tried += 1;
    }
    for p in payloads(&f) {
        assert_refused(
            invoke(&w, "get_session", json!({"id": p})),
            "session_not_found",
            &format!("get_session {p:?}"),
        );
        assert_refused(
            invoke(
                &w,
                "prompt_preview",
                json!({"agent": "assistant", "session_id": p}),
            ),
            "session_not_found",
            &format!("prompt_preview session {p:?}"),
        );
        let r = invoke(&w, "tool_invocations", json!({"session_id": p})).unwrap();
        assert_eq!(r, json!([]), "tool_invocations {p:?}");
        tried += 3;
    }
    for (cmd, args) in [
        ("list_agents", json!({})),
        ("bootstrap_files", json!({})),
        ("get_settings", json!({})),
    ] {
        let r = invoke(&w, cmd, args).unwrap();
        assert!(!r.to_string().contains(SECRET), "{cmd}: {r}");
    }
    let list = invoke(&w, "list_agents", json!({})).unwrap();
    let evil = list["agents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["name"] == "evil")
        .expect("the linked agent is listed, with a warning");
    assert!(!evil["warnings"].as_array().unwrap().is_empty(), "{evil}");
    assert!(evil["memory"]["error"].is_string(), "not counted: {evil}");
    let after = f.snapshot();
    assert_eq!(before, after, "nothing written anywhere in the temp dir");
    eprintln!("desktop: {tried} payload x command invocations refused");
}

fn settings_with(w: &Window, field: &str, value: &str) -> Value {
    let mut s = invoke(w, "get_settings", json!({})).unwrap()["settings"].clone();
    s[field] = json!(value);
    s
}

#[test]
fn settings_commands_validate_their_paths() {
    let f = Fixture::new();
    let w = f.window();
    let cwd = std::env::current_dir().unwrap();
    let relative = [
        "..",
        "../x",
        "x",
        "./x",
        "..\\x",
        // `~/x` is read from home (#18 item 7); `~x` (another user's home in a shell) is not.
        "~x",
        "%2e%2e",
        "sec-probe-relative",
    ];
    let bad_everywhere: Vec<String> = relative
        .iter()
        .map(|s| s.to_string())
        .chain(["", "   ", "\0", "/tmp/a\0b"].map(String::from))
        .collect();
    let mut tried = 0;
    for p in &bad_everywhere {
        assert_refused(
            invoke(&w, "inspect_root", json!({"path": p, "db_path": null})),
            "invalid_input",
            &format!("inspect_root {p:?}"),
        );
        assert_refused(
            invoke(&w, "create_sample_root", json!({"path": p})),
            "invalid_input",
            &format!("create_sample_root {p:?}"),
        );
        tried += 2;
        // A blank settings field (or database path) means "the default": not a path at all.
        if !p.trim().is_empty() {
            for field in ["root", "db_path"] {
                let s = settings_with(&w, field, p);
                assert_refused(
                    invoke(&w, "update_settings", s.clone()),
                    "invalid_input",
                    &format!("update_settings {field} {p:?}"),
                );
                assert_refused(
                    invoke(&w, "test_mem0", s),
                    "invalid_input",
                    &format!("test_mem0 {field} {p:?}"),
                );
                tried += 2;
            }
            assert_refused(
                invoke(&w, "inspect_root", json!({"path": f.root(), "db_path": p})),
                "invalid_input",
                &format!("inspect_root dbPath {p:?}"),
            );
            tried += 1;
        }
    }
    // Absolute but not a folder / a folder as the database: refused too.
    for (field, p) in [
        ("root", f.root().join("USER.md")),
        ("root", f.dir.path().join("missing")),
        ("db_path", f.root()),
    ] {
        let s = settings_with(&w, field, p.to_str().unwrap());
        assert_refused(
            invoke(&w, "update_settings", s),
            "invalid_input",
            &format!("update_settings {field} {p:?}"),
        );
        tried += 1;
    }
    // The sample root is only written into an empty or new folder.
    assert_refused(
        invoke(&w, "create_sample_root", json!({"path": f.root()})),
        "conflict",
        "create_sample_root over an existing root",
    );
    assert!(!f.settings().exists(), "no refused settings were saved");
    for p in relative.iter().filter(|p| **p != "..") {
        assert!(!cwd.join(p).exists(), "{p} created next to the process");
    }
    eprintln!("desktop settings: {tried} refused path arguments");
}

// ---------------------------------------------------------------------------------------------
// A hung mem0 never blocks the window's other commands.

#[test]
fn a_hung_mem0_does_not_block_other_commands() {
    let f = Fixture::new();
    // Completes the TCP handshake (the kernel does) and never answers.
    let hung = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", hung.local_addr().unwrap());
    let timeout = Duration::from_millis(3000);
    std::fs::write(
        f.settings(),
        json!({"backend": "mem0", "mem0": {"baseUrl": url, "timeoutMs": 3000}}).to_string(),
    )
    .unwrap();
    let w = f.window();
    let slow: Vec<_> = (0..6)
        .map(|i| {
            let w = w.clone();
            std::thread::spawn(move || {
                let t = Instant::now();
                let r = if i % 2 == 0 {
                    invoke(&w, "memory_view", json!({"agent": "assistant"}))
                } else {
                    invoke(
                        &w,
                        "append_memory",
                        json!({"agent": "assistant", "scope": "core", "content": "x"}),
                    )
                };
                (r, t.elapsed())
            })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    let started = Instant::now();
    for (cmd, args) in [
        ("get_settings", json!({})),
        ("preview_entry", json!({"content": "a\nb"})),
        ("list_sessions", json!({})),
        ("bootstrap_files", json!({})),
    ] {
        let t = Instant::now();
        let r = invoke(&w, cmd, args);
        let took = t.elapsed();
        assert!(r.is_ok(), "{cmd}: {r:?}");
        assert!(
            took < Duration::from_millis(1000),
            "{cmd} took {took:?} while mem0 hangs"
        );
        eprintln!("{cmd} answered in {took:?} while 6 commands wait on mem0");
    }
    assert!(started.elapsed() < timeout);
    for h in slow {
        let (r, took) = h.join().unwrap();
        let err = r.expect_err("a hung mem0 is an error, not a success");
        assert_eq!(err["code"], "timeout", "{err}");
        assert!(err["message"].as_str().unwrap().contains(&url), "{err}");
        assert!(took <= timeout + Duration::from_secs(2), "{took:?}");
    }
}
