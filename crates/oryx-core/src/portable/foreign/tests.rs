use super::*;
use crate::memory::MarkdownMemoryStore;
use serde_json::json;
use std::io::Write;

/// A root (with `agents/`) in `dir`; the source files sit beside it.
fn store_in(dir: &Path) -> MarkdownMemoryStore {
    std::fs::create_dir_all(dir.join("agents")).unwrap();
    MarkdownMemoryStore::new(dir)
}

fn local(iso: &str) -> String {
    format_entry_ts(&mem0::parse_time(iso).unwrap())
}

/// (scope, time, content) of the global memory.
fn held(store: &MarkdownMemoryStore) -> Vec<(Scope, String, String)> {
    let s = store.load_all(&Owner::Global).unwrap();
    let row = |sc: Scope| {
        move |e: &crate::memory::Entry| {
            (
                sc,
                e.timestamp
                    .as_ref()
                    .map(format_entry_ts)
                    .unwrap_or_default(),
                e.content.clone(),
            )
        }
    };
    let mut v: Vec<_> = s.core.iter().map(row(Scope::Core)).collect();
    v.extend(s.archival.iter().map(row(Scope::Archival)));
    v
}

fn run(format: Format, path: &Path, store: &MarkdownMemoryStore, dry: bool) -> ForeignReport {
    import_foreign(
        format,
        path,
        store,
        &Owner::Global,
        dry,
        &AtomicBool::new(false),
    )
    .unwrap()
}

fn unknown(r: &ForeignReport) -> Vec<(&str, usize)> {
    r.unknown_fields
        .iter()
        .map(|c| (c.name.as_str(), c.count))
        .collect()
}

/// Dry run counts, the import adds, a second run adds nothing.
fn twice(format: Format, path: &Path, store: &MarkdownMemoryStore, n: usize) -> ForeignReport {
    let d = run(format, path, store, true);
    assert_eq!((d.owner.new, d.owner.present), (n, 0));
    assert!(held(store).is_empty(), "a dry run writes nothing");
    let r = run(format, path, store, false);
    assert_eq!(
        (r.owner.new, r.owner.present, r.owner.error.clone()),
        (n, 0, None)
    );
    let again = run(format, path, store, false);
    assert_eq!((again.owner.new, again.owner.present), (0, n));
    assert_eq!(held(store).len(), n);
    r
}

#[test]
fn mem0_results_map_to_entries_with_local_times_and_scopes() {
    let dir = tempfile::tempdir().unwrap();
    let store = store_in(dir.path());
    let f = dir.path().join("mem0.json");
    let body = json!({"results": [
        {"id": "b", "memory": "Prefers tea", "created_at": "2025-03-02T09:00:00.250-08:00",
         "updated_at": "2025-03-03T09:00:00-08:00", "user_id": "alice", "agent_id": null,
         "metadata": {"scope": "core", "source": "chat"}, "hash": "h2"},
        {"id": "a", "memory": "Lives in\nParis", "created_at": "2025-03-01T10:00:00+00:00",
         "user_id": "alice", "metadata": null}
    ]});
    std::fs::write(&f, body.to_string()).unwrap();
    let r = twice(Format::Mem0, &f, &store, 2);
    // Sorted by time; content sanitised.
    assert_eq!(
        held(&store),
        vec![
            (
                Scope::Core,
                local("2025-03-02T09:00:00-08:00"),
                "Prefers tea".into()
            ),
            (
                Scope::Archival,
                local("2025-03-01T10:00:00Z"),
                "Lives in Paris".into()
            ),
        ]
    );
    assert_eq!(
        unknown(&r),
        vec![
            ("hash", 1),
            ("id", 2),
            ("metadata.source", 1),
            ("updated_at", 1),
            ("user_id", 2)
        ]
    );
    // A bare list reads the same.
    let f2 = dir.path().join("list.json");
    std::fs::write(&f2, body["results"].to_string()).unwrap();
    assert_eq!(run(Format::Mem0, &f2, &store, true).owner.present, 2);
}

#[test]
fn malformed_files_are_corrupt_and_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let store = store_in(dir.path());
    let cases = [
        (
            Format::Mem0,
            "m.json",
            r#"{"results":[{"memory":"ok"},{"text":1}]}"#,
        ),
        (Format::Mem0, "m2.json", "not json"),
        (Format::Letta, "a.af", r#"{"agents":[]}"#),
        (Format::OpenMemory, "o.zip", "PK not a zip"),
        (
            Format::Lines,
            "l.csv",
            "timestamp,text\n2025-01-01 10:00:00,x\n",
        ),
        (
            Format::Lines,
            "l2.csv",
            "content,timestamp\nok,2025-01-01 10:00:00\nbad,yesterday\n",
        ),
        (Format::Lines, "l3.csv", "content,scope\nok,working\n"),
    ];
    for (fmt, name, body) in cases {
        let f = dir.path().join(name);
        std::fs::write(&f, body).unwrap();
        let e = import_foreign(
            fmt,
            &f,
            &store,
            &Owner::Global,
            false,
            &AtomicBool::new(false),
        )
        .unwrap_err();
        assert!(matches!(e, CoreError::Corrupt(_)), "{name}: {e}");
        assert!(e.to_string().contains("nothing was imported"), "{e}");
    }
    assert!(held(&store).is_empty());
    assert!(Format::parse("zep").is_err());
    assert_eq!(Format::parse("OpenMemory").unwrap(), Format::OpenMemory);
}

fn zip_of(members: &[(&str, Vec<u8>)]) -> Vec<u8> {
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (n, b) in members {
        w.start_file(*n, zip::write::SimpleFileOptions::default())
            .unwrap();
        w.write_all(b).unwrap();
    }
    w.finish().unwrap().into_inner()
}

fn gz(text: &str) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(text.as_bytes()).unwrap();
    e.finish().unwrap()
}

#[test]
fn an_openmemory_gzip_bomb_is_refused_before_it_is_inflated_whole() {
    let dir = tempfile::tempdir().unwrap();
    let store = store_in(dir.path());
    // Zeros past the cap squeeze into a few hundred kilobytes of gzip.
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    let zeros = vec![0u8; 1 << 20];
    for _ in 0..=(MAX_INFLATED >> 20) {
        e.write_all(&zeros).unwrap();
    }
    let bomb = e.finish().unwrap();
    assert!(bomb.len() < 1 << 20, "{}", bomb.len());
    let f = dir.path().join("backup.zip");
    std::fs::write(&f, zip_of(&[("memories.jsonl.gz", bomb)])).unwrap();
    let err = import_foreign(
        Format::OpenMemory,
        &f,
        &store,
        &Owner::Global,
        false,
        &AtomicBool::new(false),
    )
    .unwrap_err();
    assert!(matches!(err, CoreError::Corrupt(_)), "{err}");
    assert!(err.to_string().contains("inflates to more than"), "{err}");
    assert!(held(&store).is_empty());
}

#[test]
fn openmemory_backup_skips_deleted_and_reports_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let store = store_in(dir.path());
    // The shape of openmemory/api/app/routers/backup.py's _export_sqlite.
    let mem = |id: &str, content: &str, state: &str, at: &str| {
        json!({"id": id, "user_id": "u1", "app_id": "app1", "content": content,
               "metadata": {}, "state": state, "created_at": at, "updated_at": at,
               "archived_at": null, "deleted_at": null, "category_ids": ["c1"]})
    };
    let sqlite = json!({
        "user": {"id": "u1", "user_id": "alice"},
        "apps": [{"id": "app1", "name": "openmemory"}],
        "categories": [{"id": "c1", "name": "personal"}],
        "memories": [
            mem("m2", "Works at ACME", "archived", "2025-02-01T08:30:00+00:00"),
            mem("m1", "Likes hiking", "active", "2025-01-01T08:00:00.123456+00:00"),
            mem("m3", "Old phone number", "deleted", "2025-01-05T08:00:00+00:00"),
        ],
        "memory_categories": [{"memory_id": "m1", "category_id": "c1"}],
        "status_history": [],
        "access_controls": [],
        "export_meta": {"version": "1"}
    });
    let line = json!({"id": "m1", "content": "Likes hiking", "metadata": {},
        "created_at": "2025-01-01T08:00:00+00:00", "updated_at": null, "state": "active",
        "app": "openmemory", "categories": ["personal"]});
    let f = dir.path().join("backup.zip");
    std::fs::write(
        &f,
        zip_of(&[
            ("memories.json", serde_json::to_vec(&sqlite).unwrap()),
            ("memories.jsonl.gz", gz(&format!("{line}\n"))),
        ]),
    )
    .unwrap();
    let r = twice(Format::OpenMemory, &f, &store, 2);
    assert_eq!(
        held(&store),
        vec![
            (
                Scope::Archival,
                local("2025-01-01T08:00:00Z"),
                "Likes hiking".into()
            ),
            (
                Scope::Archival,
                local("2025-02-01T08:30:00Z"),
                "Works at ACME".into()
            ),
        ]
    );
    assert_eq!(
        r.skipped,
        vec![Counted {
            name: "state deleted".into(),
            count: 1
        }]
    );
    assert_eq!(
        unknown(&r),
        vec![
            ("app_id", 2),
            ("apps", 1),
            ("categories", 1),
            ("category_ids", 2),
            ("export_meta", 1),
            ("file:memories.jsonl.gz", 1),
            ("id", 2),
            ("memory_categories", 1),
            ("state archived (imported)", 1),
            ("updated_at", 2),
            ("user", 1),
            ("user_id", 2),
        ]
    );
    // Only the jsonl.gz (e.g. an edited backup): read from there.
    let dir2 = tempfile::tempdir().unwrap();
    let store2 = store_in(dir2.path());
    let f2 = dir2.path().join("lines.zip");
    std::fs::write(
        &f2,
        zip_of(&[("x/memories.jsonl.gz", gz(&format!("{line}\n")))]),
    )
    .unwrap();
    let r2 = twice(Format::OpenMemory, &f2, &store2, 1);
    assert_eq!(unknown(&r2), vec![("app", 1), ("categories", 1), ("id", 1)]);
}

#[test]
fn letta_blocks_become_labelled_core_entries() {
    let dir = tempfile::tempdir().unwrap();
    let store = store_in(dir.path());
    // The current schema (agents name blocks by id), as in agent-file's loop.af.
    let af = json!({
        "agents": [{"name": "loop", "block_ids": ["block-0", "block-1"], "memory_blocks": [],
                    "system": "You are Loop."}],
        "blocks": [
            {"id": "block-0", "label": "persona", "value": "I am Sam.\nCurious.",
             "limit": 5000, "project_id": null, "metadata": {}},
            {"id": "block-1", "label": "human", "value": "Name: Chad", "limit": 5000},
            {"id": "block-2", "label": "scratch", "value": "  "}
        ],
        "tools": [{"name": "send_message"}],
        "groups": [], "files": [], "sources": [], "mcp_servers": [],
        "metadata": {"revision_id": "297e8217e952"},
        "created_at": "2026-01-22T02:06:35.101954+00:00"
    });
    let f = dir.path().join("loop.af");
    // Published files are sometimes a JSON string holding the JSON.
    std::fs::write(&f, serde_json::to_string(&af.to_string()).unwrap()).unwrap();
    let r = twice(Format::Letta, &f, &store, 2);
    let t = local("2026-01-22T02:06:35Z");
    assert_eq!(
        held(&store),
        vec![
            (
                Scope::Core,
                t.clone(),
                "[persona] I am Sam. Curious.".into()
            ),
            (Scope::Core, t, "[human] Name: Chad".into()),
        ]
    );
    assert_eq!(
        r.skipped,
        vec![Counted {
            name: "empty block".into(),
            count: 1
        }]
    );
    assert_eq!(
        unknown(&r),
        vec![
            ("agents", 1),
            ("blocks[].id", 3),
            ("blocks[].limit", 2),
            ("metadata", 1),
            ("tools", 1)
        ]
    );
    // The first schema: the agent at the top, blocks in core_memory with their own times.
    let v1 = json!({"name": "memgpt_agent", "core_memory": [
        {"label": "persona", "value": "I am Sam.", "created_at": "2025-03-24T02:59:06+00:00",
         "limit": 5000, "is_deleted": false}],
        "messages": [{"role": "user"}], "created_at": "2025-03-24T03:00:00+00:00"});
    let dir2 = tempfile::tempdir().unwrap();
    let store2 = store_in(dir2.path());
    let f2 = dir2.path().join("v1.af");
    std::fs::write(&f2, v1.to_string()).unwrap();
    let r2 = twice(Format::Letta, &f2, &store2, 1);
    assert_eq!(
        held(&store2),
        vec![(
            Scope::Core,
            local("2025-03-24T02:59:06Z"),
            "[persona] I am Sam.".into()
        )]
    );
    assert_eq!(
        unknown(&r2),
        vec![
            ("core_memory[].is_deleted", 1),
            ("core_memory[].limit", 1),
            ("messages", 1),
            ("name", 1)
        ]
    );
}

#[test]
fn lines_text_and_csv() {
    let dir = tempfile::tempdir().unwrap();
    let store = store_in(dir.path());
    let f = dir.path().join("notes.txt");
    std::fs::write(
        &f,
        "- [2025-04-01 09:00:00] Standup at nine\n\n  Buy milk  \n[2025-04-02 10:00:00] - x\n",
    )
    .unwrap();
    let r = twice(Format::Lines, &f, &store, 3);
    assert!(r.unknown_fields.is_empty());
    // A line without a time is stamped when it is added (and found again by its content).
    let h = held(&store);
    assert_eq!(
        h[0],
        (
            Scope::Archival,
            "2025-04-01 09:00:00".into(),
            "Standup at nine".into()
        )
    );
    assert_eq!(
        h[1],
        (Scope::Archival, "2025-04-02 10:00:00".into(), "- x".into())
    );
    assert_eq!((h[2].0, h[2].2.as_str()), (Scope::Archival, "Buy milk"));

    let dir2 = tempfile::tempdir().unwrap();
    let store2 = store_in(dir2.path());
    let f2 = dir2.path().join("m.CSV");
    std::fs::write(
        &f2,
        "\u{feff}Timestamp,content,scope,tags\r\n\
         2025-05-01 08:00:00,\"Name: Ada, \"\"the\"\" first\",core,who\r\n\
         2025-05-02T08:00:00+00:00,\"two\nlines\",,\r\n\
         ,,,\r\n",
    )
    .unwrap();
    let r2 = twice(Format::Lines, &f2, &store2, 2);
    assert_eq!(
        held(&store2),
        vec![
            (
                Scope::Core,
                "2025-05-01 08:00:00".into(),
                "Name: Ada, \"the\" first".into()
            ),
            (
                Scope::Archival,
                local("2025-05-02T08:00:00Z"),
                "two lines".into()
            ),
        ]
    );
    assert_eq!(unknown(&r2), vec![("tags", 1)]);
}
