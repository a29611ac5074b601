//! `POST /api/v1/console/migrate` over real HTTP: progress on `/api/v1/console/events`
//! (`event: migration`), `POST /api/v1/console/migrate/cancel`, one migration at a time.

use crate::common;

use std::io::{BufRead, BufReader, Write};
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use serde_json::{json, Value};

/// Archival entries added to the assistant, so that the copy takes a while.
const BULK: usize = 1500;

struct Server {
    /// Held for its drop: the server stops with the test.
    _server: common::Server,
    base: String,
    _dir: tempfile::TempDir,
}

/// The demo root plus `BULK` archival entries for the assistant (markdown), served.
fn start() -> Server {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    common::demo(&root);
    let memory = root.join("agents/assistant/MEMORY.md");
    let text = std::fs::read_to_string(&memory).unwrap();
    assert!(
        text.contains("## 归档记忆"),
        "the archival section comes last"
    );
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&memory)
        .unwrap();
    if !text.ends_with('\n') {
        writeln!(f).unwrap();
    }
    for i in 0..BULK {
        writeln!(
            f,
            "- [2027-01-{:02} {:02}:{:02}:{:02}] bulk entry {i}",
            1 + i / 3600 % 28,
            i / 60 % 60,
            i % 60,
            i % 60
        )
        .unwrap();
    }
    drop(f);
    let server = common::serve(&dir.path().join("config"), &root, &[]);
    Server {
        base: server.base.clone(),
        _server: server,
        _dir: dir,
    }
}

fn client() -> reqwest::blocking::Client {
    reqwest::blocking::Client::builder()
        .timeout(Duration::from_secs(120))
        .build()
        .unwrap()
}

fn post(base: &str, path: &str, body: &Value) -> (u16, Value) {
    let r = client()
        .post(format!("{base}{path}"))
        .json(body)
        .send()
        .unwrap();
    (r.status().as_u16(), r.json().unwrap())
}

fn migrate(base: &str, dry_run: bool) -> (u16, Value) {
    post(
        base,
        "/api/v1/console/migrate",
        &json!({"from": "markdown", "to": "sqlite", "agent": null, "dry_run": dry_run}),
    )
}

/// One server-sent event: its name (None for the unnamed change events) and data.
#[derive(Debug)]
struct Sse {
    event: Option<String>,
    data: Value,
}

/// Subscribes to /events (subscribed once this returns) and forwards every event.
fn events(base: &str) -> mpsc::Receiver<Sse> {
    let res = reqwest::blocking::Client::new()
        .get(format!("{base}/api/v1/console/events"))
        .header("Accept", "text/event-stream")
        .send()
        .unwrap();
    assert_eq!(res.status().as_u16(), 200);
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let mut event = None;
        let mut data = String::new();
        for line in BufReader::new(res).lines() {
            let Ok(line) = line else { return };
            if line.is_empty() {
                if !data.is_empty() {
                    let sse = Sse {
                        event: event.take(),
                        data: serde_json::from_str(&data).unwrap(),
                    };
                    if tx.send(sse).is_err() {
                        return;
                    }
                }
                event = None;
                data.clear();
            } else if let Some(v) = line.strip_prefix("event:") {
                event = Some(v.trim().to_string());
            } else if let Some(v) = line.strip_prefix("data:") {
                data.push_str(v.strip_prefix(' ').unwrap_or(v));
            }
        }
    });
    rx
}

fn is_progress(e: &Sse) -> bool {
    e.event.as_deref() == Some("migration")
}

/// Events from `rx` until `done` holds for what has arrived (then whatever else is already
/// there), or a panic naming them after `limit`.
fn collect_until(
    rx: &mpsc::Receiver<Sse>,
    limit: Duration,
    done: impl Fn(&[Sse]) -> bool,
) -> Vec<Sse> {
    let deadline = std::time::Instant::now() + limit;
    let mut seen = Vec::new();
    while !done(&seen) {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        match rx.recv_timeout(left) {
            Ok(e) => seen.push(e),
            Err(_) => panic!("events within {limit:?} were only {seen:?}"),
        }
    }
    seen.extend(rx.try_iter());
    seen
}

/// Waits for the first migration progress event.
fn first_progress(rx: &mpsc::Receiver<Sse>) -> Value {
    loop {
        let e = rx
            .recv_timeout(Duration::from_secs(30))
            .expect("a migration progress event");
        if is_progress(&e) {
            return e.data;
        }
    }
}

fn ok_data(status: u16, v: &Value) -> &Value {
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["code"], 0, "{v}");
    &v["data"]
}

#[test]
fn progress_arrives_on_events_while_the_migrate_post_runs() {
    let s = start();
    let rx = events(&s.base);
    let (status, dry) = migrate(&s.base, true);
    let missing = ok_data(status, &dry)["total"]["copied"].as_u64().unwrap();
    let found = dry["data"]["total"]["found"].as_u64().unwrap();
    assert!(missing as usize >= BULK, "{dry}");

    let (status, v) = migrate(&s.base, false);
    let report = ok_data(status, &v);
    assert_eq!(report["cancelled"], false, "{report}");
    assert_eq!(report["total"]["copied"].as_u64().unwrap(), missing);

    // Everything the server sent for both runs: the dry run's and the copy's progress, the
    // change events (unnamed, {kind, agent}, as before). The stream may deliver the last of them
    // after the answers: collect until both final progress events and the copy's change are in.
    let all = collect_until(&rx, Duration::from_secs(30), |seen| {
        let ends = seen
            .iter()
            .filter(|e| is_progress(e) && e.data["done"].as_u64() == Some(found))
            .count();
        ends >= 2
            && seen.iter().any(|e| {
                e.event.is_none() && e.data["kind"] == "memory" && e.data.get("agent").is_some()
            })
    });
    let progress: Vec<&Value> = all
        .iter()
        .filter(|e| is_progress(e))
        .map(|e| &e.data)
        .collect();
    assert!(
        progress.len() >= 2,
        "progress during the runs: {progress:?}"
    );
    for p in &progress {
        assert_eq!(p["total"].as_u64().unwrap(), found, "{p}");
        assert!(p["owner"].is_string() && p.get("kind").is_none(), "{p}");
    }
    // Each run ends with done == total; in between, done only grows.
    let ends = progress
        .iter()
        .filter(|p| p["done"].as_u64() == Some(found))
        .count();
    assert_eq!(ends, 2, "one final event per run: {progress:?}");
    let copy_run: Vec<u64> = progress
        .iter()
        .skip_while(|p| p["done"].as_u64() != Some(found))
        .skip(1)
        .map(|p| p["done"].as_u64().unwrap())
        .collect();
    assert!(!copy_run.is_empty());
    assert!(copy_run.windows(2).all(|w| w[0] < w[1]), "{copy_run:?}");
    assert!(
        (progress.len() as u64) < found,
        "throttled: {} events for {found} entries",
        progress.len()
    );
    eprintln!(
        "{} progress events for {found} entries (two runs)",
        progress.len()
    );
    let changes: Vec<&Sse> = all.iter().filter(|e| e.event.is_none()).collect();
    assert!(
        changes
            .iter()
            .any(|e| e.data["kind"] == "memory" && e.data.get("agent").is_some()),
        "the change event after the copy: {all:?}"
    );
    // Dry run again: nothing missing.
    let (status, v) = migrate(&s.base, true);
    assert_eq!(ok_data(status, &v)["total"]["copied"], 0, "{v}");
}

#[test]
fn cancel_mid_way_keeps_the_copied_part_and_a_rerun_completes() {
    let s = start();
    let (status, dry) = migrate(&s.base, true);
    let missing = ok_data(status, &dry)["total"]["copied"].as_u64().unwrap();

    // Nothing to cancel yet.
    let (status, v) = post(&s.base, "/api/v1/console/migrate/cancel", &json!({}));
    assert_eq!(status, 409, "{v}");
    assert_eq!(v["error_code"], "conflict", "{v}");
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .contains("no migration is running"),
        "{v}"
    );

    let rx = events(&s.base);
    let base = s.base.clone();
    let run = thread::spawn(move || migrate(&base, false));
    let p = first_progress(&rx);
    assert!(p["done"].as_u64().unwrap() < p["total"].as_u64().unwrap());
    let (status, v) = post(&s.base, "/api/v1/console/migrate/cancel", &json!({}));
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["code"], 0, "{v}");

    let (status, v) = run.join().unwrap();
    let report = ok_data(status, &v);
    assert_eq!(report["cancelled"], true, "{report}");
    let copied = report["total"]["copied"].as_u64().unwrap();
    assert!(copied > 0 && copied < missing, "{copied} of {missing}");
    eprintln!("cancelled after {copied} of {missing} entries");

    // The copied part stays: the dry run now misses only the rest.
    let (status, v) = migrate(&s.base, true);
    assert_eq!(
        ok_data(status, &v)["total"]["copied"].as_u64().unwrap(),
        missing - copied,
        "{v}"
    );

    // Copying again skips what is there and completes.
    let (status, v) = migrate(&s.base, false);
    let report = ok_data(status, &v);
    assert_eq!(report["cancelled"], false, "{report}");
    assert_eq!(
        report["total"]["copied"].as_u64().unwrap(),
        missing - copied
    );
    let (status, v) = migrate(&s.base, true);
    assert_eq!(ok_data(status, &v)["total"]["copied"], 0, "{v}");
}

#[test]
fn a_second_concurrent_migrate_gets_409_conflict() {
    let s = start();
    let rx = events(&s.base);
    let base = s.base.clone();
    let run = thread::spawn(move || migrate(&base, false));
    first_progress(&rx);

    for dry_run in [false, true] {
        let (status, v) = migrate(&s.base, dry_run);
        assert_eq!(status, 409, "{v}");
        assert_eq!(v["error_code"], "conflict", "{v}");
        assert!(v["data"].is_null());
        assert!(
            v["message"].as_str().unwrap().contains("already running"),
            "{v}"
        );
    }

    // The first one was not disturbed, and afterwards the server takes a new one.
    let (status, v) = run.join().unwrap();
    assert_eq!(ok_data(status, &v)["cancelled"], false, "{v}");
    let (status, v) = migrate(&s.base, true);
    assert_eq!(ok_data(status, &v)["total"]["copied"], 0, "{v}");
}

#[test]
fn openapi_lists_the_cancel_route() {
    let s = start();
    let doc: Value = client()
        .get(format!("{}/api/v1/openapi.json", s.base))
        .send()
        .unwrap()
        .json()
        .unwrap();
    let cancel = &doc["paths"]["/api/v1/console/migrate/cancel"]["post"];
    assert!(cancel["summary"].as_str().unwrap().contains("409"), "{doc}");
    assert!(doc["paths"]["/api/v1/console/migrate"]["post"]["summary"]
        .as_str()
        .unwrap()
        .contains("/events"));
}
