//! One contract suite run against every backend (markdown, sqlite): the Java runtime's own
//! behaviours plus the window rule, isolation, concurrency and the tools.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use oryx_core::memory::{
    LongTermMemoryStore, MarkdownMemoryStore, Mem0Config, Mem0MemoryStore, MemoryService, Scope,
    SqliteMemoryStore,
};
use oryx_core::names::Owner;
use oryx_core::sessions::SessionStore;
use oryx_core::tools::{ToolContext, ToolExecutor};

struct Fixture {
    _dir: tempfile::TempDir,
    root: PathBuf,
    store: Arc<dyn LongTermMemoryStore>,
}

impl Fixture {
    fn service(&self) -> MemoryService {
        MemoryService::new(self.store.clone(), 4000)
    }

    fn agent(&self, name: &str) -> Owner {
        std::fs::create_dir_all(self.root.join("agents").join(name)).unwrap();
        Owner::Agent(name.to_string())
    }

    fn executor(&self) -> ToolExecutor {
        ToolExecutor::new(
            &self.root,
            self.service(),
            SessionStore::new(self.root.join("oryxos.db")),
        )
    }
}

fn markdown() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    Fixture {
        store: Arc::new(MarkdownMemoryStore::new(&root)),
        root,
        _dir: dir,
    }
}

fn sqlite() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    Fixture {
        store: Arc::new(SqliteMemoryStore::new(root.join("oryxos.db"))),
        root,
        _dir: dir,
    }
}

/// The mem0 store against the real mem0 test server (`tests/mem0/serve.sh`); each fixture uses
/// its own user id so cases never see each other's memories.
fn mem0() -> Fixture {
    let url = std::env::var("ORYX_MEM0_URL").expect(
        "ORYX_MEM0_URL must point at a running tests/mem0/serve.sh (make mem0-contract does this)",
    );
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    let user = format!(
        "contract-{}",
        dir.path()
            .file_name()
            .unwrap()
            .to_string_lossy()
            .replace(['.', ' '], "")
    );
    Fixture {
        store: Arc::new(Mem0MemoryStore::new(Mem0Config {
            base_url: url,
            user_id: user,
            api_key: std::env::var("MEM0_TEST_API_KEY").ok(),
            timeout: std::time::Duration::from_secs(20),
        })),
        root,
        _dir: dir,
    }
}

macro_rules! contract {
    ($($case:ident),* $(,)?) => {
        mod markdown_backend { $( #[test] fn $case() { super::$case(super::markdown()) } )* }
        mod sqlite_backend { $( #[test] fn $case() { super::$case(super::sqlite()) } )* }
        mod mem0_backend {
            $( #[test] #[ignore = "needs the mem0 test server: make mem0-contract"] fn $case() { super::$case(super::mem0()) } )*
        }
    };
}

contract!(
    empty_memory_still_has_both_headings,
    oldest_archival_leaves_the_window_newest_and_core_stay,
    core_and_archival_never_mix,
    heading_text_inside_content_is_neutralised,
    concurrent_appends_lose_nothing,
    recall_is_case_insensitive_archival_only_and_reaches_outside_the_window,
    agents_are_isolated,
    save_memory_scope_default_and_bad_scope,
    window_counts_cjk_characters,
    timestamps_are_kept_when_given,
);

fn empty_memory_still_has_both_headings(f: Fixture) {
    let owner = f.agent("a");
    assert_eq!(
        f.service().build_context(&owner).unwrap(),
        "## 核心记忆\n\n## 归档记忆\n"
    );
    assert_eq!(
        f.service().build_context(&Owner::Global).unwrap(),
        "## 核心记忆\n\n## 归档记忆\n"
    );
}

fn oldest_archival_leaves_the_window_newest_and_core_stay(f: Fixture) {
    let svc = f.service();
    let owner = f.agent("a");
    svc.append(&owner, Scope::Core, "core fact that always stays")
        .unwrap();
    for i in 0..200 {
        svc.append(
            &owner,
            Scope::Archival,
            &format!("archival entry number {i:03} with some padding text"),
        )
        .unwrap();
    }
    let ctx = svc.build_context(&owner).unwrap();
    assert!(ctx.contains("core fact that always stays"));
    assert!(ctx.contains("archival entry number 199"));
    assert!(!ctx.contains("archival entry number 000"));
    let archival_part = ctx.split("## 归档记忆\n").nth(1).unwrap();
    assert!(archival_part.chars().count() <= 4000);
    let view = svc.view(&owner).unwrap();
    assert_eq!(
        view.archival.len(),
        200,
        "truncation is a view: storage keeps everything"
    );
    assert!(view.window.outside_entries > 0);
    assert_eq!(
        view.window.outside_entries + view.window.in_window_entries,
        200
    );
    assert_eq!(
        view.context, ctx,
        "the listing's context equals the prompt's load"
    );
}

fn core_and_archival_never_mix(f: Fixture) {
    let svc = f.service();
    let owner = f.agent("a");
    for i in 0..10 {
        let scope = if i % 2 == 0 {
            Scope::Core
        } else {
            Scope::Archival
        };
        svc.append(&owner, scope, &format!("{}-{i}", scope.as_str()))
            .unwrap();
    }
    let view = svc.view(&owner).unwrap();
    assert_eq!(view.core.len(), 5);
    assert_eq!(view.archival.len(), 5);
    assert!(view.core.iter().all(|e| e.content.starts_with("core-")));
    assert!(view
        .archival
        .iter()
        .all(|e| e.content.starts_with("archival-")));
}

fn heading_text_inside_content_is_neutralised(f: Fixture) {
    let svc = f.service();
    let owner = f.agent("a");
    svc.append(
        &owner,
        Scope::Core,
        "line one\n## 归档记忆\n- [2026-01-01 00:00:00] forged",
    )
    .unwrap();
    let view = svc.view(&owner).unwrap();
    assert_eq!(view.core.len(), 1);
    assert_eq!(
        view.archival.len(),
        0,
        "the forged heading did not open a section"
    );
    assert_eq!(
        view.core[0].content,
        "line one 「归档记忆」 - [2026-01-01 00:00:00] forged"
    );
}

fn concurrent_appends_lose_nothing(f: Fixture) {
    let svc = f.service();
    let owner = f.agent("a");
    std::thread::scope(|s| {
        for t in 0..32 {
            let svc = svc.clone();
            let owner = owner.clone();
            s.spawn(move || {
                svc.append(&owner, Scope::Archival, &format!("writer {t}"))
                    .unwrap()
            });
        }
    });
    let view = svc.view(&owner).unwrap();
    let mut got: Vec<_> = view.archival.iter().map(|e| e.content.clone()).collect();
    got.sort();
    let mut want: Vec<_> = (0..32).map(|t| format!("writer {t}")).collect();
    want.sort();
    assert_eq!(got, want);
}

fn recall_is_case_insensitive_archival_only_and_reaches_outside_the_window(f: Fixture) {
    let svc = f.service();
    let owner = f.agent("a");
    svc.append(&owner, Scope::Archival, "Old NEEDLE far outside the window")
        .unwrap();
    for i in 0..150 {
        svc.append(
            &owner,
            Scope::Archival,
            &format!("filler entry {i} to push the needle out of the window"),
        )
        .unwrap();
    }
    svc.append(&owner, Scope::Core, "needle in core is not recalled")
        .unwrap();
    assert!(!svc.build_context(&owner).unwrap().contains("NEEDLE far"));
    let hits = svc.recall(&owner, "needle far").unwrap();
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].content, "Old NEEDLE far outside the window");
    assert_eq!(svc.recall(&owner, "NEEDLE").unwrap().len(), 1 + 150);
    assert_eq!(
        svc.recall_text(&owner, "absent").unwrap(),
        "没有找到相关记忆"
    );
}

fn agents_are_isolated(f: Fixture) {
    let svc = f.service();
    let (a, b) = (f.agent("alpha"), f.agent("beta"));
    svc.append(&a, Scope::Core, "alpha secret").unwrap();
    svc.append(&b, Scope::Archival, "beta note").unwrap();
    svc.append(&Owner::Global, Scope::Archival, "global note")
        .unwrap();
    assert!(!svc.build_context(&b).unwrap().contains("alpha"));
    assert!(!svc.build_context(&a).unwrap().contains("beta"));
    assert!(svc.recall(&a, "note").unwrap().is_empty());
    assert_eq!(svc.recall(&Owner::Global, "note").unwrap().len(), 1);
}

fn save_memory_scope_default_and_bad_scope(f: Fixture) {
    let ex = f.executor();
    let owner = f.agent("a");
    let ctx = ToolContext {
        agent: Some("a".into()),
        session_id: Some("cli:u:a".into()),
    };
    let out = ex
        .execute(&ctx, "save_memory", r#"{"content":"defaults to archival"}"#)
        .unwrap();
    assert_eq!(out.output, "已记住");
    let out = ex
        .execute(&ctx, "save_memory", r#"{"content":"x","scope":" "}"#)
        .unwrap();
    assert_eq!(out.output, "已记住");
    let out = ex
        .execute(
            &ctx,
            "save_memory",
            r#"{"content":"core one","scope":"Core"}"#,
        )
        .unwrap();
    assert_eq!(out.output, "已记住");
    let out = ex
        .execute(&ctx, "save_memory", r#"{"content":"x","scope":"episodic"}"#)
        .unwrap();
    assert_eq!(
        out.output,
        "无法识别的记忆分区: episodic（应为 core 或 archival）"
    );
    let view = f.service().view(&owner).unwrap();
    assert_eq!(view.archival.len(), 2);
    assert_eq!(view.core.len(), 1);
    let out = ex
        .execute(&ctx, "recall_memory", r#"{"keyword":"DEFAULTS"}"#)
        .unwrap();
    assert!(
        out.output.ends_with("defaults to archival"),
        "{}",
        out.output
    );
}

fn window_counts_cjk_characters(f: Fixture) {
    let svc = MemoryService::new(f.store.clone(), 120);
    let owner = f.agent("a");
    for i in 0..10 {
        svc.append(
            &owner,
            Scope::Archival,
            &format!("{i}号记忆：用户喜欢喝乌龙茶和普洱茶"),
        )
        .unwrap();
    }
    let view = svc.view(&owner).unwrap();
    let window_text = view.context.split("## 归档记忆\n").nth(1).unwrap();
    assert!(window_text.chars().count() <= 120);
    assert!(
        window_text.len() > 120,
        "bytes exceed the limit, characters do not"
    );
    let line_chars = view.archival[9].line.chars().count();
    let expected = (120 + 1) / (line_chars + 1);
    assert_eq!(view.window.in_window_entries, expected);
}

fn timestamps_are_kept_when_given(f: Fixture) {
    let owner = f.agent("a");
    let ts = oryx_core::timefmt::parse_entry_ts("2025-03-04 05:06:07").unwrap();
    f.store
        .append(&owner, Scope::Archival, "migrated", Some(ts))
        .unwrap();
    let all = f.store.load_all(&owner).unwrap();
    assert_eq!(all.archival[0].timestamp, Some(ts));
}

// ---- mem0 only: what the agent tools send, as the runtime's mem0 store sends it ----

#[test]
#[ignore = "needs the mem0 test server: make mem0-contract"]
fn mem0_tool_saves_ask_mem0_to_infer_archival_and_recall_is_its_search() {
    let f = mem0();
    let owner = f.agent("a");
    let ctx = ToolContext {
        agent: Some("a".into()),
        session_id: Some("cli:u:a".into()),
    };
    let ex = f.executor();
    for input in [
        r#"{"content":"the user lives in Hangzhou"}"#,
        r#"{"content":"the user is called Li","scope":"core"}"#,
    ] {
        assert_eq!(
            ex.execute(&ctx, "save_memory", input).unwrap().output,
            "已记住"
        );
    }
    f.service()
        .append(&owner, Scope::Archival, "a note the console wrote")
        .unwrap();
    let user = f.store.as_mem0().unwrap().user_for(&owner);
    assert!(user.ends_with(":a"), "{user}");
    let url = std::env::var("ORYX_MEM0_URL").unwrap();
    let adds: Vec<serde_json::Value> = reqwest::blocking::get(format!("{url}/__adds"))
        .unwrap()
        .json()
        .unwrap();
    let infer: Vec<_> = adds
        .iter()
        .filter(|a| a["user_id"] == user.as_str())
        .map(|a| a["infer"].as_bool().unwrap())
        .collect();
    assert_eq!(
        infer,
        [true, false, false],
        "archival tool save, core, console"
    );
    // mem0's search by meaning answers, with no keyword check on top: "living" is in no entry.
    let out = ex
        .execute(&ctx, "recall_memory", r#"{"keyword":"living Hangzhou"}"#)
        .unwrap();
    assert!(
        out.output.contains("the user lives in Hangzhou"),
        "{}",
        out.output
    );
    assert!(!out.output.contains("called Li"), "core is never recalled");
    let out = ex
        .execute(&ctx, "recall_memory", r#"{"keyword":"zzqx"}"#)
        .unwrap();
    assert_eq!(out.output, "没有找到相关记忆");
}

// ---- markdown only: the Java dialect ----

fn fixture_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/java-root")
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        let ft = e.file_type().unwrap();
        if ft.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(e.path()).unwrap(), &target).unwrap();
        } else if ft.is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).unwrap();
        }
    }
}

/// The Java runtime's reader (`extractSection`): body from a heading line to the next core or
/// archival heading line, stripped; entries are its non-blank lines.
fn java_section(raw: &str, heading: &str) -> Vec<String> {
    let lines: Vec<&str> = raw.split('\n').collect();
    let is_heading = |l: &str| {
        let t = l.trim_end();
        t == "## 核心记忆" || t == "## 归档记忆"
    };
    let Some(start) = lines.iter().position(|l| l.trim_end() == heading) else {
        return Vec::new();
    };
    lines[start + 1..]
        .iter()
        .take_while(|l| !is_heading(l))
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.to_string())
        .collect()
}

#[test]
fn java_written_file_round_trips_and_stays_readable_by_java() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture_root(), dir.path());
    let store = MarkdownMemoryStore::new(dir.path());
    let svc = MemoryService::new(Arc::new(store), 4000);
    let owner = Owner::Agent("helper".into());
    let path = dir.path().join("agents/helper/MEMORY.md");
    let before = std::fs::read_to_string(&path).unwrap();
    let view = svc.view(&owner).unwrap();
    assert_eq!(view.core.len(), 2);
    assert_eq!(view.archival.len(), 2);
    assert_eq!(
        svc.build_context(&owner).unwrap(),
        before,
        "for a Java-written file the block equals the file, as the runtime's load() returns it"
    );
    svc.append(&owner, Scope::Archival, "appended by the console")
        .unwrap();
    svc.append(&owner, Scope::Core, "core by the console")
        .unwrap();
    let after = std::fs::read_to_string(&path).unwrap();
    let java_core = java_section(&after, "## 核心记忆");
    let java_arch = java_section(&after, "## 归档记忆");
    assert_eq!(java_core.len(), 3);
    assert!(java_core[2].ends_with("] core by the console"));
    assert_eq!(java_arch.len(), 3);
    assert!(
        java_arch[1].ends_with("⇒ All green"),
        "the unterminated last line was not glued to ours"
    );
    assert!(java_arch[2].ends_with("] appended by the console"));
    for line in before.lines() {
        assert!(after.contains(line), "lost line {line:?}");
    }
}

#[test]
fn hand_edited_legacy_file_reads_leniently_and_is_rewritten_as_the_runtime_reads_it() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture_root(), dir.path());
    let svc = MemoryService::new(Arc::new(MarkdownMemoryStore::new(dir.path())), 4000);
    let owner = Owner::Agent("legacy".into());
    let path = dir.path().join("agents/legacy/MEMORY.md");
    let before = std::fs::read(&path).unwrap();
    let view = svc.view(&owner).unwrap();
    let core: Vec<_> = view
        .core
        .iter()
        .map(|e| (e.timestamp.is_some(), e.content.as_str()))
        .collect();
    assert_eq!(
        core,
        vec![
            (true, "只有日期的旧条目"),
            (true, "分钟精度的旧条目"),
            (false, "没有时间戳的条目"),
            (false, "A line without a dash"),
        ]
    );
    assert_eq!(
        view.archival.len(),
        2,
        "every non-blank line of a section is an entry"
    );
    svc.append(&owner, Scope::Archival, "new archival").unwrap();
    svc.append(&owner, Scope::Core, "new core").unwrap();
    let after = std::fs::read(&path).unwrap();
    let after_text = String::from_utf8(after.clone()).unwrap();
    // A rewrite writes what the runtime reads (CONTRACT §12): no BOM, canonical headings, the
    // file's own CRLF on every line; the preamble's text survives.
    assert!(after.starts_with(
        b"# Legacy notes kept by hand\r\nThis preamble must survive every write.\r\n"
    ));
    assert!(after_text.contains("\r\n## 核心记忆\r\n- [2025-01-02]"));
    assert!(after_text.contains("\r\n## 归档记忆\r\n- [2025-02-01 12:00:00]"));
    assert!(!after_text.contains("## Archival") && !after_text.contains("（core）"));
    assert_eq!(
        after_text.matches('\n').count(),
        after_text.matches("\r\n").count()
    );
    assert!(after_text.contains("## Other heading\r\nfree text that is not memory\r\n"));
    assert!(
        after_text.contains("A line without a dash\r\n- ["),
        "core entry goes after the last core line, CRLF kept"
    );
    assert!(after_text.contains("continuation of a multi-line entry\r\n- ["));
    assert!(after.len() > before.len());
    let removed: Vec<_> = String::from_utf8(before)
        .unwrap()
        .trim_start_matches('\u{feff}')
        .lines()
        .filter(|l| !matches!(*l, "## 核心记忆（core）" | "## Archival"))
        .filter(|l| !after_text.contains(l))
        .map(str::to_string)
        .collect();
    assert!(removed.is_empty(), "lines lost: {removed:?}");
    let view = svc.view(&owner).unwrap();
    assert_eq!(view.core.len(), 5);
    assert_eq!(view.archival.len(), 3);
}

#[test]
fn sqlite_reads_rows_in_the_java_dialect() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("oryxos.db");
    let conn = oryx_core::db::open_or_create(&db).unwrap();
    conn.execute_batch(
        "INSERT INTO memory_entries(agent_name, scope, content, created_at) VALUES
           ('helper', 'CORE', '用户偏好简洁的回复', 1753147800000),
           ('helper', 'archival', 'lower-case scope row', '2025-07-22T09:31:10Z'),
           ('helper', 'ARCHIVAL', 'iso text without zone', '2025-07-22 09:32:00');",
    )
    .unwrap();
    drop(conn);
    let svc = MemoryService::new(Arc::new(SqliteMemoryStore::new(&db)), 4000);
    let owner = Owner::Agent("helper".into());
    let view = svc.view(&owner).unwrap();
    assert_eq!(view.core.len(), 1);
    assert_eq!(view.archival.len(), 2);
    assert!(view.archival.iter().all(|e| e.timestamp.is_some()));
    assert_eq!(
        svc.build_context(&owner).unwrap(),
        "## 核心记忆\n- 用户偏好简洁的回复\n## 归档记忆\n- lower-case scope row\n- iso text without zone"
    );
    svc.append(&owner, Scope::Core, "written by us").unwrap();
    let conn = rusqlite_free_check(&db);
    assert_eq!(
        conn,
        vec![("CORE".to_string(), "written by us".to_string(), true)]
    );
}

/// Reads back our own row with plain SQL, as the Java runtime would: upper-case scope, raw
/// content and an integer epoch-ms time.
fn rusqlite_free_check(db: &Path) -> Vec<(String, String, bool)> {
    let conn = oryx_core::db::open_existing(db).unwrap().unwrap();
    let mut stmt = conn
        .prepare("SELECT scope, content, typeof(created_at) = 'integer' FROM memory_entries WHERE content = 'written by us'")
        .unwrap();
    stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}
