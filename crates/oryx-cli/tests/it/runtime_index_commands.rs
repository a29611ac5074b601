//! The runtime's memory index (`memory_vectors`) from the command line, on the sample install
//! (mock embedder, a `providers` row): `index status --json` reports it per agent, `index
//! fill-runtime` does what the runtime's start would (`--dry-run` writes nothing), an import —
//! an archive into a renamed agent, another tool's lines — leaves no imported entry without its
//! row, and a delete takes the row and every byte of its text out of oryxos.db and its WAL.

use serde_json::Value;

use crate::common::demo_install::DemoInstall;

/// The runtime's part of `index status --json`.
fn runtime(d: &DemoInstall) -> Value {
    d.json(&["index", "status"])["runtime"].clone()
}

/// Whether oryxos.db or its WAL holds `text`'s bytes.
fn db_holds(d: &DemoInstall, text: &str) -> bool {
    ["oryxos.db", "oryxos.db-wal"].iter().any(|f| {
        let bytes = std::fs::read(d.dir.join(f)).unwrap_or_default();
        bytes.windows(text.len()).any(|w| w == text.as_bytes())
    })
}

fn agent<'v>(runtime: &'v Value, name: &str) -> &'v Value {
    runtime["agents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["agent"] == name)
        .unwrap_or_else(|| panic!("no {name} in {runtime}"))
}

fn count(runtime: &Value, name: &str, col: &str) -> u64 {
    agent(runtime, name)[col].as_u64().unwrap()
}

fn entry_id(d: &DemoInstall, owner: &str, needle: &str) -> String {
    let v = d.json(&["memory", "show", "--agent", owner]);
    v["archival"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["content"].as_str().unwrap().contains(needle))
        .map(|e| e["id"].as_str().unwrap().to_string())
        .unwrap_or_else(|| panic!("no entry with {needle}"))
}

#[test]
fn fill_import_and_delete_keep_the_runtimes_index_true() {
    let d = DemoInstall::new();
    let before = runtime(&d);
    assert_eq!(before["model"], "mock/deterministic");
    let missing = count(&before, "assistant", "missing");
    assert!(
        missing > 100,
        "the sample's assistant has {missing} entries without a row"
    );
    assert_eq!(count(&before, "assistant", "indexed"), 0);

    let to_embed = before["nextStartEmbeds"].as_u64().unwrap();
    let dry = d.run(&["index", "fill-runtime", "--dry-run"]);
    assert!(
        String::from_utf8_lossy(&dry.stdout).contains(&format!("{to_embed} entries to embed")),
        "{}",
        String::from_utf8_lossy(&dry.stdout)
    );
    assert_eq!(
        count(&runtime(&d), "assistant", "indexed"),
        0,
        "a dry run wrote rows"
    );

    d.run(&["index", "fill-runtime"]);
    let filled = runtime(&d);
    assert_eq!(filled["nextStartEmbeds"], 0);
    assert_eq!(filled["nextStartDrops"], 0);
    for a in filled["agents"].as_array().unwrap() {
        assert_eq!(a["missing"], 0, "{a}");
    }
    let indexed = count(&filled, "assistant", "indexed");
    assert_eq!(indexed, missing);

    // An archive imported as another agent: MEMORY.md is copied whole, past the store, and
    // still every entry has its row.
    let archive = d.t.path().join("assistant.oryx.zip");
    d.run(&["export", "--agent", "assistant", archive.to_str().unwrap()]);
    d.run(&[
        "import",
        "--agent-map",
        "assistant=assistant_copy",
        archive.to_str().unwrap(),
    ]);
    let imported = runtime(&d);
    assert_eq!(count(&imported, "assistant_copy", "missing"), 0);
    assert_eq!(count(&imported, "assistant_copy", "indexed"), indexed);

    // Another tool's memories, one a line, into the researcher.
    let lines = d.t.path().join("notes.txt");
    std::fs::write(
        &lines,
        "imported note one about tide tables\nimported note two about kelp\n",
    )
    .unwrap();
    let researcher = count(&imported, "researcher", "indexed");
    d.run(&[
        "import",
        "--from",
        "lines",
        "--agent",
        "researcher",
        lines.to_str().unwrap(),
    ]);
    let after_lines = runtime(&d);
    assert_eq!(count(&after_lines, "researcher", "missing"), 0);
    assert_eq!(count(&after_lines, "researcher", "indexed"), researcher + 2);

    // A secret added, then deleted: its row and every byte of it leave the database.
    let secret = "sk-live-5fa8c1e2d9b7-runtime-index-test";
    d.run(&[
        "memory",
        "add",
        "--agent",
        "assistant",
        "--scope",
        "archival",
        &format!("the deploy key is {secret}"),
    ]);
    assert!(
        db_holds(&d, secret),
        "the new entry has no row in memory_vectors"
    );
    assert_eq!(count(&runtime(&d), "assistant", "indexed"), indexed + 1);
    let id = entry_id(&d, "assistant", secret);
    d.run(&["memory", "delete", "--agent", "assistant", &id]);
    assert!(
        !db_holds(&d, secret),
        "oryxos.db or its WAL still holds the deleted text"
    );
    assert_eq!(count(&runtime(&d), "assistant", "indexed"), indexed);
}
