//! A runtime install built by code: the install dir or its root finds the other, the database
//! is the one `spring.datasource.url` names, and a write never creates it.

use oryx_core::config::{effective, Kind, Overrides, Settings};
use oryx_core::memory::Backend;
use oryx_core::runtime::config::{self, Context, Source};

fn install(yaml: &str) -> tempfile::TempDir {
    let t = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(t.path().join(".oryxos/agents")).unwrap();
    std::fs::create_dir_all(t.path().join("config")).unwrap();
    std::fs::write(t.path().join("config/application.yml"), yaml).unwrap();
    t
}

#[test]
fn the_datasource_url_names_the_database_and_a_write_does_not_create_it() {
    let t = install("spring:\n  datasource:\n    url: jdbc:sqlite:data/rt.db?journal_mode=WAL\nmemory:\n  backend: sqlite\n");
    std::fs::create_dir_all(t.path().join("data")).unwrap();
    let s = Settings {
        root: Some(t.path().join(".oryxos")),
        ..Settings::default()
    };
    let e = effective(&s, &Overrides::default());
    assert_eq!(e.root_kind, Kind::Install);
    assert_eq!(e.db_path, t.path().join("data/rt.db"));
    assert_eq!(e.backend, Backend::Sqlite);
    // The default URL's database sits beside .oryxos; the console never creates it.
    let t = install("memory:\n  backend: sqlite\n");
    let db = t.path().join("oryxos.db");
    let err = oryx_core::db::open_or_create(&db).unwrap_err().to_string();
    assert!(err.contains("first start"), "{err}");
    assert!(!db.exists());
}

#[test]
fn placeholders_and_relaxed_names_in_a_real_file() {
    let t = install("memory:\n  recall:\n    top_k: 9\n  mem0:\n    base-url: ${MEM0_BASE_URL:http://fallback}\n");
    let ctx = Context {
        env: [("MEMORY_RECALL_WEIGHT_RECENCY".to_string(), "0".to_string())].into(),
        sysprops: Default::default(),
    };
    let c = config::read(t.path(), &ctx);
    assert_eq!(c.value(config::TOP_K), "9");
    assert_eq!(c.value(config::MEM0_BASE_URL), "http://fallback");
    assert_eq!(c.get(config::WEIGHT_RECENCY).source, Source::Env);
    assert_eq!(c.value(config::WEIGHT_RECENCY), "0");
}
