//! The UI's component tests answer from responses of the real console: this test runs the
//! requests listed in `ui/src/test/fixtures/script.json` against `oryx serve` on `oryx demo`
//! roots and compares what comes back with `ui/src/test/fixtures/recorded.json`.
//! `ORYX_UPDATE_FIXTURES=1` rewrites the recording instead (commit the result).
//!
//! The script is a tree of states. Each state gets a fresh home folder (the demo root at
//! `~/.oryxos`, a small second root at `~/team`), a server, its ancestors' writes (`via`) and
//! then its own requests. Temp paths become `/home/linxiao/...` and the demo's times (which
//! follow the clock) are shifted onto a fixed calendar, so the recording only changes when the
//! console's answers do.

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};

/// What the UI tests see instead of the temp folders.
const HOME: &str = "/home/linxiao";
const CONFIG: &str = "/home/linxiao/.config/oryxos";
/// The demo's first entry (30 days before the run) lands here.
const DEMO_START: &str = "2026-06-01 09:00:00";
/// Times written during the recording (appends, tool calls at demo time) land here.
const RECORDING_NOW: &str = "2026-07-01 09:00:00";
const TS_FORMAT: &str = "%Y-%m-%d %H:%M:%S";

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ui/src/test/fixtures")
}

#[derive(Clone)]
struct State {
    name: String,
    parent: Option<String>,
    via: Option<(String, Value)>,
    demo: bool,
    /// The demo as an OryxOS install (its database and configuration beside the root).
    install: bool,
    configured: bool,
    language: String,
    serve_args: Vec<String>,
    remove_root: bool,
    /// Statements run on the demo's database before the server starts (rows the runtime may
    /// write that the demo does not: an unreadable session, a failed tool call).
    sql: Vec<String>,
    /// Files written into the root before the server starts (path relative to the root).
    files: Vec<(String, String)>,
    /// Symbolic links made in the root (link, target).
    symlinks: Vec<(String, String)>,
    /// `(agent, n)`: n more archival lines appended to that agent's MEMORY.md (a long archive).
    archival_lines: Option<(String, u64)>,
    calls: Vec<(String, Value)>,
}

fn call_of(v: &Value) -> (String, Value) {
    let a = v.as_array().expect("a call is [op, args]");
    (a[0].as_str().unwrap().to_string(), a[1].clone())
}

fn pairs_of(v: &Value) -> Vec<(String, String)> {
    v.as_object()
        .map(|o| {
            o.iter()
                .map(|(k, x)| (k.clone(), x.as_str().unwrap().to_string()))
                .collect()
        })
        .unwrap_or_default()
}

fn parse_script(v: &Value) -> Vec<State> {
    v["states"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| State {
            name: s["name"].as_str().unwrap().to_string(),
            parent: s["parent"].as_str().map(str::to_string),
            via: s.get("via").map(call_of),
            demo: s["demo"].as_bool().unwrap_or(true),
            install: s["install"].as_bool().unwrap_or(false),
            configured: s["configured"].as_bool().unwrap_or(true),
            language: s["language"].as_str().unwrap_or("en").to_string(),
            serve_args: s["serve_args"]
                .as_array()
                .map(|a| a.iter().map(|x| x.as_str().unwrap().to_string()).collect())
                .unwrap_or_default(),
            remove_root: s["remove_root"].as_bool().unwrap_or(false),
            sql: s["sql"]
                .as_array()
                .map(|a| a.iter().map(|x| x.as_str().unwrap().to_string()).collect())
                .unwrap_or_default(),
            files: pairs_of(&s["files"]),
            symlinks: pairs_of(&s["symlinks"]),
            archival_lines: s["archival_lines"]
                .as_array()
                .map(|a| (a[0].as_str().unwrap().to_string(), a[1].as_u64().unwrap())),
            calls: s["calls"]
                .as_array()
                .map(|a| a.iter().map(call_of).collect())
                .unwrap_or_default(),
        })
        .collect()
}

/// The folders of one state's run; `to_real`/`to_fixture` translate paths both ways.
struct Place {
    _dir: tempfile::TempDir,
    home: PathBuf,
    config: PathBuf,
}

impl Place {
    fn new() -> Place {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        let home = base.join("home");
        let config = base.join("config");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(&config).unwrap();
        Place {
            _dir: dir,
            home,
            config,
        }
    }

    fn root(&self) -> PathBuf {
        self.home.join(".oryxos")
    }

    fn pairs(&self) -> [(String, String); 2] {
        // The config folder first: it is not under home.
        [
            (self.config.display().to_string(), CONFIG.to_string()),
            (self.home.display().to_string(), HOME.to_string()),
        ]
    }

    fn to_real(&self, v: &Value) -> Value {
        map_strings(v, &|s| {
            let mut s = s.to_string();
            for (real, fixture) in self.pairs() {
                s = s.replace(&fixture, &real);
            }
            s
        })
    }
}

fn map_strings(v: &Value, f: &dyn Fn(&str) -> String) -> Value {
    match v {
        Value::String(s) => Value::String(f(s)),
        Value::Array(a) => Value::Array(a.iter().map(|x| map_strings(x, f)).collect()),
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, x)| (k.clone(), map_strings(x, f)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// A second, smaller root, so switching roots visibly changes every view.
fn write_team_root(home: &Path) {
    let team = home.join("team");
    for (name, desc) in [
        ("helpdesk", "Answers team questions"),
        ("oncall", "On-call rota helper"),
    ] {
        let dir = team.join("agents").join(name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("AGENT.md"),
            format!("---\nname: {name}\ndescription: {desc}\n---\nYou are {name}.\n"),
        )
        .unwrap();
    }
    std::fs::write(
        team.join("USER.md"),
        "# Team\n\nShared root of the platform team.\n",
    )
    .unwrap();
}

struct Server {
    _child: common::ServerProcess,
    base: String,
    http: reqwest::blocking::Client,
}

impl Server {
    /// `(ok, data or {code, message})` of `POST /api/v1/console/<op>`.
    fn call(&self, op: &str, args: &Value) -> (bool, Value) {
        let r = self
            .http
            .post(format!("{}/api/v1/console/{op}", self.base))
            .json(args)
            .send()
            .unwrap_or_else(|e| panic!("{op}: {e}"));
        let env: Value = r.json().unwrap();
        if env["code"] == 0 {
            (true, env["data"].clone())
        } else {
            let code = env
                .get("error_code")
                .cloned()
                .unwrap_or_else(|| panic!("{op} failed without an error code: {env}"));
            (false, json!({"code": code, "message": env["message"]}))
        }
    }

    fn must(&self, op: &str, args: &Value) -> Value {
        let (ok, v) = self.call(op, args);
        assert!(ok, "{op} {args}: {v}");
        v
    }
}

fn start(place: &Place, state: &State) -> Server {
    let mut cmd = common::oryx(&place.config);
    // Session rows hold epoch ms shown in local time: one zone makes the recording the same
    // on every machine.
    cmd.env("HOME", &place.home).env("TZ", "UTC");
    let extra: Vec<String> = state
        .serve_args
        .iter()
        .map(|a| place.to_real(&json!(a)).as_str().unwrap().to_string())
        .collect();
    cmd.args(&extra).args(["serve", "--bind", "127.0.0.1:0"]);
    let (child, base) = common::spawn_serve(cmd);
    Server {
        _child: common::ServerProcess(child),
        base,
        http: reqwest::blocking::Client::new(),
    }
}

/// The demo writes its entries from "now minus 30 days": the global core entry is that start.
fn demo_start(root: &Path) -> Option<chrono::NaiveDateTime> {
    let text = std::fs::read_to_string(root.join("memory/MEMORY.md")).ok()?;
    let line = text.lines().find(|l| l.starts_with("- ["))?;
    chrono::NaiveDateTime::parse_from_str(&line[3..22], TS_FORMAT).ok()
}

/// Shifts every `yyyy-MM-dd HH:mm:ss` (and the prompt's `yyyy-MM-dd HH:mm`) from the demo's
/// calendar onto the fixed one: times at or after the demo's start move by the same offset; times
/// written during the run (a day or less before now) all become [`RECORDING_NOW`]. Fixed texts
/// older than the start stay.
fn shift_times(s: &str, start: chrono::NaiveDateTime) -> String {
    use chrono::Timelike;
    let fixed_start = chrono::NaiveDateTime::parse_from_str(DEMO_START, TS_FORMAT).unwrap();
    let now = chrono::Local::now().naive_local();
    let shift = |t: chrono::NaiveDateTime| {
        if now - t < chrono::Duration::days(1) {
            chrono::NaiveDateTime::parse_from_str(RECORDING_NOW, TS_FORMAT).unwrap()
        } else {
            fixed_start + (t - start)
        }
    };
    // A minute-precision time counts from the start's minute: counted from the start itself,
    // the seconds the demo happened to start at would move it a minute either way.
    let start_minute = start.with_second(0).unwrap_or(start);
    let shift_minute = |t: chrono::NaiveDateTime| {
        if now - t < chrono::Duration::days(1) {
            chrono::NaiveDateTime::parse_from_str(RECORDING_NOW, TS_FORMAT).unwrap()
        } else {
            fixed_start + (t - start_minute)
        }
    };
    // A day counts in whole days from the start's day (per-day counts, summary periods).
    let shift_day = |d: chrono::NaiveDate| {
        if d >= now.date() {
            chrono::NaiveDateTime::parse_from_str(RECORDING_NOW, TS_FORMAT)
                .unwrap()
                .date()
        } else {
            fixed_start.date() + (d - start.date())
        }
    };
    let day_at = |i: usize| {
        let text = s.get(i..i + 10)?;
        let next = s.as_bytes().get(i + 10).copied().unwrap_or(b' ');
        if text.as_bytes()[4] != b'-' || next.is_ascii_digit() {
            return None;
        }
        let d = chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d").ok()?;
        (d >= start.date()).then(|| (10, shift_day(d).format("%Y-%m-%d").to_string()))
    };
    // A timestamp at byte `i`: its length and its shifted text.
    let at = |i: usize| {
        [(19, TS_FORMAT), (16, "%Y-%m-%d %H:%M")]
            .into_iter()
            .find_map(|(len, format)| {
                let text = s.get(i..i + len)?;
                let t = chrono::NaiveDateTime::parse_from_str(text, format).ok()?;
                if text.as_bytes()[4] != b'-' {
                    return None;
                }
                match len {
                    19 => (t >= start).then(|| (len, shift(t).format(format).to_string())),
                    _ => (t >= start_minute)
                        .then(|| (len, shift_minute(t).format(format).to_string())),
                }
            })
            .or_else(|| day_at(i))
    };
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        if let Some((len, text)) = at(i) {
            out.push_str(&text);
            i += len;
            continue;
        }
        let ch = s[i..].chars().next().unwrap();
        out.push(ch);
        i += ch.len_utf8();
    }
    out
}

/// How far the window reaches back counts from the clock of the recording (the demo's entries
/// sit at fixed times of day): a fixed figure keeps the fixtures from changing by the hour.
fn fix_clock_figures(v: &mut Value) {
    match v {
        Value::Object(m) => {
            for (k, x) in m.iter_mut() {
                if k == "window_reach_days" && x.is_number() {
                    *x = serde_json::json!(15.0);
                } else {
                    fix_clock_figures(x);
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(fix_clock_figures),
        _ => {}
    }
}

fn normalise(place: &Place, start: Option<chrono::NaiveDateTime>, v: &Value) -> Value {
    let model = oryx_core::embed::default_model_dir().display().to_string();
    let mut v = v.clone();
    fix_clock_figures(&mut v);
    map_strings(&v, &|s| {
        let mut s = s.to_string();
        for (real, fixture) in place.pairs() {
            s = s.replace(&real, &fixture);
        }
        // Where this machine keeps the model, and the vector file's name (a hash of the
        // temporary root's path), differ between runs and machines.
        s = s.replace(&model, "/model/usem3");
        s = hide_vector_file_hash(&s);
        match start {
            Some(t) => shift_times(&s, t),
            None => s,
        }
    })
}

/// `vectors-<16 hex digits>.db` → `vectors-ROOTHASH.db`.
fn hide_vector_file_hash(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find("vectors-") {
        let (head, tail) = rest.split_at(i + "vectors-".len());
        out.push_str(head);
        let hex = tail
            .get(..16)
            .filter(|h| h.bytes().all(|b| b.is_ascii_hexdigit()));
        match hex {
            Some(_) if tail[16..].starts_with(".db") => {
                out.push_str("ROOTHASH");
                rest = &tail[16..];
            }
            _ => rest = tail,
        }
    }
    out.push_str(rest);
    out
}

fn ancestors<'a>(states: &'a BTreeMap<String, State>, s: &'a State) -> Vec<&'a State> {
    let mut chain = vec![s];
    let mut cur = s;
    while let Some(p) = &cur.parent {
        cur = states
            .get(p)
            .unwrap_or_else(|| panic!("state {} has an unknown parent {p}", cur.name));
        chain.push(cur);
    }
    chain.reverse();
    chain
}

fn exchange(op: &str, args: &Value, (ok, v): (bool, Value)) -> Value {
    let mut m = Map::new();
    m.insert("op".into(), json!(op));
    m.insert("args".into(), args.clone());
    m.insert(if ok { "result" } else { "error" }.into(), v);
    Value::Object(m)
}

fn record_state(states: &BTreeMap<String, State>, state: &State) -> Value {
    let chain = ancestors(states, state);
    let first = chain[0];
    let place = Place::new();
    // An install's demo needs an empty folder: the team root comes after it.
    if !first.install {
        write_team_root(&place.home);
    }
    if first.demo {
        let root = place.root();
        let out = common::oryx(&place.config)
            .env("TZ", "UTC")
            .args(if first.install {
                vec!["demo", place.home.to_str().unwrap()]
            } else {
                vec!["demo", "--bare", root.to_str().unwrap()]
            })
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
    }
    if first.install {
        write_team_root(&place.home);
    }
    let root = place.root();
    for (rel, text) in &first.files {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, text).unwrap();
    }
    for (rel, target) in &first.symlinks {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(target, &p).unwrap();
    }
    if let Some((agent, n)) = &first.archival_lines {
        use std::fmt::Write;
        let p = root.join("agents").join(agent).join("MEMORY.md");
        let mut text = std::fs::read_to_string(&p).unwrap();
        let base = chrono::NaiveDateTime::parse_from_str("2026-01-01 00:00:00", TS_FORMAT).unwrap();
        for i in 0..*n {
            let at = (base + chrono::Duration::minutes(i as i64)).format(TS_FORMAT);
            writeln!(text, "- [{at}] 触发「批量导入」⇒ 第 {} 条", i + 1).unwrap();
        }
        std::fs::write(&p, text).unwrap();
    }
    if !first.sql.is_empty() {
        let db = rusqlite::Connection::open(place.root().join("oryxos.db")).unwrap();
        for stmt in &first.sql {
            db.execute_batch(stmt)
                .unwrap_or_else(|e| panic!("{stmt}: {e}"));
        }
    }
    let server = start(&place, first);
    if first.configured {
        let mut s = server.must("get_settings", &json!({}))["settings"].clone();
        s["root"] = json!(place.root().display().to_string());
        s["language"] = json!(first.language);
        server.must("update_settings", &s);
    }
    let mut via = Value::Null;
    for s in &chain[1..] {
        let (op, args) = s
            .via
            .clone()
            .unwrap_or_else(|| panic!("{} has no via", s.name));
        let answer = server.call(&op, &place.to_real(&args));
        via = exchange(&op, &args, answer);
    }
    if state.remove_root {
        std::fs::remove_dir_all(place.root()).unwrap();
    }
    let mut calls = Vec::new();
    for (op, args) in &state.calls {
        let answer = server.call(op, &place.to_real(args));
        calls.push(exchange(op, args, answer));
    }
    // The sample root may only appear during the run (first-run states create it).
    let start = demo_start(&place.root());
    let mut out = Map::new();
    out.insert("parent".into(), json!(state.parent));
    out.insert("via".into(), normalise(&place, start, &via));
    out.insert(
        "calls".into(),
        normalise(&place, start, &Value::Array(calls)),
    );
    stable_ids(Value::Object(out))
}

/// Entry ids hash their line, whose time follows the clock, and change ids hold the time they
/// were made: after the times are shifted, entry ids are computed again from the shifted line
/// and change ids become `change-N` in order of appearance, so a recording does not drift.
fn stable_ids(v: Value) -> Value {
    use oryx_core::memory::entry_id::{line_hash, parse_markdown_id};
    use std::collections::HashMap;
    fn collect(v: &Value, ids: &mut HashMap<String, String>) {
        match v {
            Value::Object(o) => {
                if let Some(id) = o.get("id").and_then(Value::as_str) {
                    if let Ok((_, ord, _)) = parse_markdown_id(id) {
                        let line = match (o.get("line"), o.get("content")) {
                            (Some(Value::String(l)), _) => Some(l.clone()),
                            (_, Some(Value::String(c))) => {
                                Some(oryx_core::memory::entry::render_line(
                                    o.get("timestamp")
                                        .and_then(Value::as_str)
                                        .and_then(|t| {
                                            chrono::NaiveDateTime::parse_from_str(t, TS_FORMAT).ok()
                                        })
                                        .as_ref(),
                                    c,
                                ))
                            }
                            _ => None,
                        };
                        if let Some(line) = line {
                            let tag = &id[..1];
                            ids.insert(
                                id.to_string(),
                                format!("{tag}{ord}-{:08x}", line_hash(&line)),
                            );
                        }
                    }
                }
                o.values().for_each(|x| collect(x, ids));
            }
            Value::Array(a) => a.iter().for_each(|x| collect(x, ids)),
            _ => {}
        }
    }
    fn is_change_id(s: &str) -> bool {
        if s.len() < 15 || !s.is_char_boundary(13) {
            return false;
        }
        let (ms, rest) = s.split_at(13);
        ms.len() == 13
            && ms.bytes().all(|b| b.is_ascii_digit())
            && rest.starts_with('-')
            && rest.len() > 1
            && rest.bytes().all(|b| b == b'-' || b.is_ascii_hexdigit())
    }
    fn rewrite(v: Value, ids: &HashMap<String, String>, changes: &mut Vec<String>) -> Value {
        match v {
            Value::String(s) => {
                if let Some(n) = ids.get(&s) {
                    return Value::String(n.clone());
                }
                if let Some(rest) = s.strip_prefix("append-") {
                    if let Some(n) = ids.get(rest) {
                        return Value::String(format!("append-{n}"));
                    }
                }
                if is_change_id(&s) {
                    let i = match changes.iter().position(|c| *c == s) {
                        Some(i) => i,
                        None => {
                            changes.push(s);
                            changes.len() - 1
                        }
                    };
                    return Value::String(format!("change-{}", i + 1));
                }
                Value::String(s)
            }
            Value::Array(a) => {
                Value::Array(a.into_iter().map(|x| rewrite(x, ids, changes)).collect())
            }
            Value::Object(o) => Value::Object(
                o.into_iter()
                    .map(|(k, x)| (k, rewrite(x, ids, changes)))
                    .collect(),
            ),
            other => other,
        }
    }
    let mut ids = HashMap::new();
    collect(&v, &mut ids);
    rewrite(v, &ids, &mut Vec::new())
}

#[test]
fn ui_fixtures_match_the_console() {
    let dir = fixtures_dir();
    let script: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("script.json")).unwrap()).unwrap();
    let list = parse_script(&script);
    let states: BTreeMap<String, State> =
        list.iter().map(|s| (s.name.clone(), s.clone())).collect();
    let mut recorded = Map::new();
    for s in &list {
        recorded.insert(s.name.clone(), record_state(&states, s));
    }
    let text = serde_json::to_string_pretty(&json!({ "states": recorded })).unwrap() + "\n";
    let path = dir.join("recorded.json");
    if std::env::var_os("ORYX_UPDATE_FIXTURES").is_some() {
        std::fs::write(&path, text).unwrap();
        return;
    }
    let old = std::fs::read_to_string(&path).unwrap_or_default();
    if old != text {
        let diff = old
            .lines()
            .zip(text.lines())
            .enumerate()
            .find(|(_, (a, b))| a != b)
            .map(|(i, (a, b))| format!("line {}: recorded {a:?}, now {b:?}", i + 1))
            .unwrap_or_else(|| "the lengths differ".into());
        panic!(
            "ui/src/test/fixtures/recorded.json is out of date ({diff}); \
             run ORYX_UPDATE_FIXTURES=1 cargo test -p oryx-cli --test ui_fixtures and commit it"
        );
    }
}

#[test]
fn times_shift_onto_the_fixed_calendar() {
    let start = chrono::NaiveDateTime::parse_from_str("2026-11-03 20:00:00", TS_FORMAT).unwrap();
    assert_eq!(
        shift_times("- [2026-11-04 21:00:00] x at 2026-07-22 09:30:00", start),
        "- [2026-06-02 10:00:00] x at 2026-07-22 09:30:00"
    );
    let now = chrono::Local::now()
        .naive_local()
        .format(TS_FORMAT)
        .to_string();
    assert_eq!(
        shift_times(&format!("[{now}]"), start),
        format!("[{RECORDING_NOW}]")
    );
}
