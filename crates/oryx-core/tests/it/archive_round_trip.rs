//! Export and import across roots and backends — a round trip markdown → archive →
//! sqlite → archive → markdown loses nothing (a property test), a second import adds nothing,
//! a dry run and a damaged archive write nothing, and a renamed agent keeps a valid AGENT.md.

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::AtomicBool;

use chrono::{NaiveDate, NaiveDateTime};
use oryx_core::memory::{LongTermMemoryStore, MarkdownMemoryStore, Scope, SqliteMemoryStore};
use oryx_core::names::Owner;
use oryx_core::portable::export::{export, ExportOptions};
use oryx_core::portable::import::{import, ImportOptions};
use proptest::prelude::*;

type Row = (Scope, Option<NaiveDateTime>, String);

fn rows(store: &dyn LongTermMemoryStore, o: &Owner) -> Vec<Row> {
    let s = store.load_all(o).unwrap();
    s.core
        .iter()
        .map(|e| (Scope::Core, e.timestamp, e.content.clone()))
        .chain(
            s.archival
                .iter()
                .map(|e| (Scope::Archival, e.timestamp, e.content.clone())),
        )
        .collect()
}

fn new_root(dir: &Path, name: &str) -> std::path::PathBuf {
    let root = dir.join(name);
    std::fs::create_dir_all(root.join("agents")).unwrap();
    root
}

fn agent(root: &Path, name: &str) {
    std::fs::create_dir_all(root.join("agents").join(name)).unwrap();
    std::fs::write(
        root.join("agents").join(name).join("AGENT.md"),
        format!("---\nname: {name}\n# a comment the export keeps\nmodel: m\n---\nBody.\n"),
    )
    .unwrap();
}

fn never() -> AtomicBool {
    AtomicBool::new(false)
}

fn export_all(root: &Path, store: &dyn LongTermMemoryStore, owners: &[Owner], out: &Path) {
    export(
        root,
        store,
        None,
        &ExportOptions {
            owners: owners.to_vec(),
            sessions: false,
            include_history: false,
        },
        out,
        &never(),
        &mut |_| {},
    )
    .unwrap();
}

fn import_into(
    archive: &Path,
    root: &Path,
    store: &dyn LongTermMemoryStore,
    o: &ImportOptions,
) -> oryx_core::portable::import::ImportReport {
    import(archive, root, store, o, &never(), &mut |_| {}).unwrap()
}

fn timestamp() -> impl Strategy<Value = NaiveDateTime> {
    (
        2020i32..2030,
        1u32..=12,
        1u32..=28,
        0u32..24,
        0u32..60,
        0u32..60,
    )
        .prop_map(|(y, mo, d, h, mi, s)| {
            NaiveDate::from_ymd_opt(y, mo, d)
                .unwrap()
                .and_hms_opt(h, mi, s)
                .unwrap()
        })
}

fn entry() -> impl Strategy<Value = (bool, NaiveDateTime, String)> {
    (
        any::<bool>(),
        timestamp(),
        prop_oneof![
            "[a-zA-Z0-9 .,!?#\\-]{1,40}",
            "[\\p{Han}，。「」a-z ]{1,30}",
            Just("触发「明天的天气」⇒ 晴".to_string()),
        ],
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn markdown_to_sqlite_and_back_loses_nothing(entries in prop::collection::vec(entry(), 1..40)) {
        let dir = tempfile::tempdir().unwrap();
        let a = new_root(dir.path(), "a");
        agent(&a, "bot");
        let bot = Owner::Agent("bot".into());
        let md = MarkdownMemoryStore::new(&a);
        let mut sorted = entries.clone();
        // Stored the way agents write: in time order.
        sorted.sort_by_key(|e| e.1);
        for (core, ts, content) in &sorted {
            let scope = if *core { Scope::Core } else { Scope::Archival };
            // As every writer does: content sanitised to one line first.
            let Ok(c) = oryx_core::memory::entry::sanitize_content(content) else { continue };
            if c.is_empty() {
                continue;
            }
            md.append(&bot, scope, &c, Some(*ts)).unwrap();
        }
        let want = rows(&md, &bot);
        let first = dir.path().join("1.oryx.zip");
        export_all(&a, &md, std::slice::from_ref(&bot), &first);

        let b = new_root(dir.path(), "b");
        let sql = SqliteMemoryStore::new(b.join("oryxos.db"));
        let r = import_into(&first, &b, &sql, &ImportOptions::default());
        prop_assert_eq!(r.owners[0].new, want.len());
        prop_assert_eq!(rows(&sql, &bot), want.clone());
        let second = dir.path().join("2.oryx.zip");
        export_all(&b, &sql, std::slice::from_ref(&bot), &second);

        let c = new_root(dir.path(), "c");
        let md2 = MarkdownMemoryStore::new(&c);
        // Into a root whose agent has a MEMORY.md already (one entry): entries are added.
        agent(&c, "bot");
        md2.append(&bot, Scope::Archival, "已有的一条", Some(NaiveDate::from_ymd_opt(2019, 1, 1).unwrap().and_hms_opt(0, 0, 0).unwrap())).unwrap();
        import_into(&second, &c, &md2, &ImportOptions::default());
        let mut got = rows(&md2, &bot);
        got.retain(|r| r.2 != "已有的一条");
        prop_assert_eq!(got, want);
    }
}

#[test]
fn importing_twice_adds_nothing_and_a_dry_run_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    oryx_core::demo::write_sample(&src).unwrap();
    let md = MarkdownMemoryStore::new(&src);
    let owners = vec![Owner::Agent("assistant".into()), Owner::Global];
    let out = dir.path().join("demo.oryx.zip");
    export_all(&src, &md, &owners, &out);

    let dst = new_root(dir.path(), "dst");
    let sql = SqliteMemoryStore::new(dst.join("oryxos.db"));
    let dry = import_into(
        &out,
        &dst,
        &sql,
        &ImportOptions {
            dry_run: true,
            ..ImportOptions::default()
        },
    );
    assert!(dry
        .owners
        .iter()
        .all(|o| o.present == 0 && o.new == o.in_archive));
    assert!(
        !dst.join("agents/assistant").exists(),
        "a dry run writes nothing"
    );
    assert!(!dst.join("oryxos.db").exists());

    let once = import_into(&out, &dst, &sql, &ImportOptions::default());
    assert!(once
        .files_written
        .contains(&"agents/assistant/AGENT.md".to_string()));
    let assistant = Owner::Agent("assistant".into());
    assert_eq!(rows(&sql, &assistant), rows(&md, &assistant));
    let twice = import_into(&out, &dst, &sql, &ImportOptions::default());
    assert!(twice.files_written.is_empty(), "{:?}", twice.files_written);
    for o in &twice.owners {
        assert_eq!((o.new, o.present), (0, o.in_archive), "{o:?}");
    }
    assert_eq!(rows(&sql, &assistant), rows(&md, &assistant));
}

#[test]
fn a_damaged_archive_or_a_foreign_path_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    oryx_core::demo::write_sample(&src).unwrap();
    let md = MarkdownMemoryStore::new(&src);
    let out = dir.path().join("demo.oryx.zip");
    export_all(&src, &md, &[Owner::Agent("assistant".into())], &out);
    // One entry of the JSON lines changed inside the archive: its checksum no longer holds.
    let bytes = std::fs::read(&out).unwrap();
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes)).unwrap();
    let bad = dir.path().join("bad.oryx.zip");
    let mut w = zip::ZipWriter::new(std::fs::File::create(&bad).unwrap());
    for i in 0..zip.len() {
        let mut f = zip.by_index(i).unwrap();
        let name = f.name().unwrap().into_owned();
        let mut data = Vec::new();
        std::io::Read::read_to_end(&mut f, &mut data).unwrap();
        if name == "entries/assistant.jsonl" {
            data = String::from_utf8(data)
                .unwrap()
                .replacen("用户", "有人", 1)
                .into_bytes();
        }
        w.start_file(name, zip::write::SimpleFileOptions::default())
            .unwrap();
        std::io::Write::write_all(&mut w, &data).unwrap();
    }
    w.finish().unwrap();
    let dst = new_root(dir.path(), "dst");
    let store = MarkdownMemoryStore::new(&dst);
    let e = import(
        &bad,
        &dst,
        &store,
        &ImportOptions::default(),
        &never(),
        &mut |_| {},
    )
    .unwrap_err();
    assert!(e.to_string().contains("does not match its checksum"), "{e}");
    assert_eq!(std::fs::read_dir(dst.join("agents")).unwrap().count(), 0);
    // Not a zip at all.
    std::fs::write(dir.path().join("x.zip"), "hello").unwrap();
    let e = import(
        &dir.path().join("x.zip"),
        &dst,
        &store,
        &ImportOptions::default(),
        &never(),
        &mut |_| {},
    )
    .unwrap_err();
    assert!(e.to_string().contains("not an oryx export"), "{e}");
}

#[test]
fn a_renamed_agent_gets_its_new_name_in_agent_md_and_keeps_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let a = new_root(dir.path(), "a");
    agent(&a, "bot");
    let md = MarkdownMemoryStore::new(&a);
    let bot = Owner::Agent("bot".into());
    md.append(&bot, Scope::Core, "用户叫小林", None).unwrap();
    let out = dir.path().join("bot.oryx.zip");
    export_all(&a, &md, std::slice::from_ref(&bot), &out);
    let b = new_root(dir.path(), "b");
    let md2 = MarkdownMemoryStore::new(&b);
    let map = HashMap::from([("bot".to_string(), "helper".to_string())]);
    let r = import_into(
        &out,
        &b,
        &md2,
        &ImportOptions {
            agent_map: map,
            ..ImportOptions::default()
        },
    );
    assert_eq!(r.owners[0].owner, "helper");
    let text = std::fs::read_to_string(b.join("agents/helper/AGENT.md")).unwrap();
    assert_eq!(
        text,
        "---\nname: helper\n# a comment the export keeps\nmodel: m\n---\nBody.\n"
    );
    assert_eq!(
        std::fs::read(b.join("agents/helper/MEMORY.md")).unwrap(),
        std::fs::read(a.join("agents/bot/MEMORY.md")).unwrap(),
        "MEMORY.md goes over byte for byte"
    );
    assert!(oryx_core::agents::get(&b, "helper")
        .unwrap()
        .warnings
        .is_empty());
}

#[test]
fn what_an_export_holds_an_import_takes_even_from_a_skill_with_dot_files() {
    let dir = tempfile::tempdir().unwrap();
    let a = new_root(dir.path(), "a");
    agent(&a, "bot");
    let skill = a.join("skills/web");
    std::fs::create_dir_all(skill.join(".git")).unwrap();
    std::fs::create_dir_all(skill.join("scripts")).unwrap();
    std::fs::write(skill.join("SKILL.md"), "---\nname: web\n---\n").unwrap();
    std::fs::write(skill.join("scripts/run.sh"), "echo hi\n").unwrap();
    std::fs::write(skill.join(".gitignore"), "target\n").unwrap();
    std::fs::write(skill.join(".DS_Store"), [0u8, 1, 2]).unwrap();
    std::fs::write(skill.join(".git/config"), "[core]\n").unwrap();
    std::fs::write(skill.join("cache.db"), "SQLite format 3\0").unwrap();
    std::fs::create_dir_all(a.join("agents/bot/skills")).unwrap();
    std::os::unix::fs::symlink("../../../skills/web", a.join("agents/bot/skills/web")).unwrap();
    let md = MarkdownMemoryStore::new(&a);
    let bot = Owner::Agent("bot".into());
    md.append(&bot, Scope::Archival, "用户在用 web 技能", None)
        .unwrap();
    let out = dir.path().join("bot.oryx.zip");
    export_all(&a, &md, std::slice::from_ref(&bot), &out);

    let b = new_root(dir.path(), "b");
    let md2 = MarkdownMemoryStore::new(&b);
    let r = import_into(&out, &b, &md2, &ImportOptions::default());
    assert!(r.owners.iter().all(|o| o.error.is_none()), "{r:?}");
    assert_eq!(
        std::fs::read(b.join("skills/web/scripts/run.sh")).unwrap(),
        b"echo hi\n"
    );
    assert!(b.join("skills/web/SKILL.md").is_file());
    for left in [".gitignore", ".DS_Store", ".git", "cache.db"] {
        assert!(!b.join("skills/web").join(left).exists(), "{left}");
    }
    assert_eq!(rows(&md2, &bot), rows(&md, &bot));
}
