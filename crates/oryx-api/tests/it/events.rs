//! The console's one change stream (`Console::subscribe`): fed by the watcher and by the
//! console's own writes, once each, and following the root of the settings in effect.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use oryx_api::watch::{ChangeEvent, ChangeKind, Subscription};
use oryx_api::{ops, Console};
use oryx_core::config::Overrides;
use oryx_core::memory::Backend;

fn root_with_agent(parent: &Path, name: &str, agent: &str) -> PathBuf {
    let root = parent.join(name);
    fs::create_dir_all(root.join("agents").join(agent)).unwrap();
    fs::write(
        root.join("agents").join(agent).join("AGENT.md"),
        format!("---\nname: {agent}\nmodel: m\n---\nAn agent.\n"),
    )
    .unwrap();
    root
}

fn memory_of(agent: &str) -> ChangeEvent {
    ChangeEvent {
        kind: ChangeKind::Memory,
        agent: Some(agent.into()),
    }
}

/// Everything received within `window`.
fn collect(rx: &Subscription, window: Duration) -> Vec<ChangeEvent> {
    let end = Instant::now() + window;
    let mut got = Vec::new();
    while let Some(left) = end.checked_duration_since(Instant::now()) {
        match rx.recv_timeout(left) {
            Ok(e) => got.push(e),
            Err(_) => break,
        }
    }
    got
}

/// Receives until `want` arrives (at most 3 s); everything received, `want` last.
fn until(rx: &Subscription, want: &ChangeEvent) -> Vec<ChangeEvent> {
    let end = Instant::now() + Duration::from_secs(3);
    let mut got = Vec::new();
    while !got.contains(want) {
        let left = end
            .checked_duration_since(Instant::now())
            .unwrap_or_else(|| panic!("{want:?} not received; got {got:?}"));
        match rx.recv_timeout(left) {
            Ok(e) => got.push(e),
            Err(_) => panic!("{want:?} not received; got {got:?}"),
        }
    }
    got
}

fn a_write_through_the_registry_is_announced_once(backend: Backend) {
    let dir = tempfile::tempdir().unwrap();
    let root = root_with_agent(dir.path(), "root", "a");
    let c = Console::open(
        Some(dir.path().join("settings.json")),
        Overrides {
            root: Some(root.clone()),
            backend: Some(backend),
            ..Overrides::default()
        },
    )
    .unwrap();
    // The sqlite store's first open adds the console's index: done before anyone listens.
    c.memory_view(Some("a")).unwrap();
    let rx = c.subscribe();
    // What a host does with a request: run the registered operation by name.
    ops::call_json(
        &c,
        "append_memory",
        serde_json::json!({"agent": "a", "scope": "archival", "content": "from one host"}),
    )
    .unwrap();
    let got = collect(&rx, Duration::from_millis(1500));
    assert_eq!(got, vec![memory_of("a")], "{backend:?}");
    // A write by another process afterwards is still reported, by the watcher.
    let file = root.join("agents/a/MEMORY.md");
    let mut text = fs::read_to_string(&file).unwrap_or_default();
    text.push_str("- [2026-01-03 00:00:00] from the runtime\n");
    fs::write(&file, text).unwrap();
    until(&rx, &memory_of("a"));
}

#[test]
fn a_console_write_reaches_the_stream_exactly_once() {
    a_write_through_the_registry_is_announced_once(Backend::Markdown);
}

#[test]
fn a_console_write_to_sqlite_reaches_the_stream_exactly_once() {
    a_write_through_the_registry_is_announced_once(Backend::Sqlite);
}

#[test]
fn after_a_settings_change_events_come_from_the_new_root_only() {
    let dir = tempfile::tempdir().unwrap();
    let old = root_with_agent(dir.path(), "old", "a");
    let new = root_with_agent(dir.path(), "new", "b");
    let settings = dir.path().join("settings.json");
    fs::write(&settings, serde_json::json!({ "root": old }).to_string()).unwrap();
    if std::env::var_os(oryx_core::config::ENV_ROOT).is_some() {
        return; // the environment would pin the root
    }
    let c = Console::open(Some(settings), Overrides::default()).unwrap();
    let rx = c.subscribe();
    fs::write(old.join("agents/a/MEMORY.md"), "## 核心记忆\n").unwrap();
    until(&rx, &memory_of("a"));

    let mut dto = c.get_settings().unwrap().settings;
    dto.root = Some(new.display().to_string());
    ops::call_json(&c, "update_settings", serde_json::to_value(&dto).unwrap()).unwrap();
    let settings_changed = ChangeEvent {
        kind: ChangeKind::Settings,
        agent: None,
    };
    assert_eq!(until(&rx, &settings_changed), vec![settings_changed]);

    fs::write(
        old.join("agents/a/MEMORY.md"),
        "## 核心记忆\n- [2026-01-01 00:00:00] x\n",
    )
    .unwrap();
    fs::write(new.join("agents/b/MEMORY.md"), "## 核心记忆\n").unwrap();
    let got = until(&rx, &memory_of("b"));
    let more = collect(&rx, Duration::from_millis(1000));
    assert!(
        !got.iter().chain(&more).any(|e| *e == memory_of("a")),
        "the old root is still watched: {got:?} {more:?}"
    );
}

#[test]
fn every_subscriber_gets_each_event_and_a_migration_is_announced() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    oryx_core::demo::write_sample(&root).unwrap();
    let c = Console::open(
        Some(dir.path().join("settings.json")),
        Overrides {
            root: Some(root),
            ..Overrides::default()
        },
    )
    .unwrap();
    let (one, two) = (c.subscribe(), c.subscribe());
    let req = oryx_api::migrate::MigrateRequest {
        from: oryx_api::dto::BackendDto::Markdown,
        to: oryx_api::dto::BackendDto::Sqlite,
        agent: None,
        dry_run: true,
        switch: false,
    };
    c.run_migration(&req, &mut |_| {}).unwrap();
    let all_memory = ChangeEvent {
        kind: ChangeKind::Memory,
        agent: None,
    };
    for rx in [&one, &two] {
        assert_eq!(until(rx, &all_memory), vec![all_memory.clone()]);
    }
}
