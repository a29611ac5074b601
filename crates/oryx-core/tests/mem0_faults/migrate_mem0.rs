//! Migration through all three backends with the real mem0 test server (ignored unless
//! `make mem0-contract` starts it and sets ORYX_MEM0_URL).

use std::sync::atomic::AtomicBool;

use oryx_core::memory::{
    LongTermMemoryStore, MarkdownMemoryStore, Mem0Config, Mem0MemoryStore, Scope, SqliteMemoryStore,
};
use oryx_core::migrate::migrate;
use oryx_core::names::Owner;
use oryx_core::timefmt::parse_entry_ts;

/// Fault injection is global to the server: these cases run one at a time.
use crate::MEM0_SERVER as SERVER;

fn mem0_url() -> String {
    std::env::var("ORYX_MEM0_URL").expect("ORYX_MEM0_URL must point at tests/mem0/serve.sh")
}

fn mem0(user: &str) -> Mem0MemoryStore {
    Mem0MemoryStore::new(Mem0Config {
        base_url: mem0_url(),
        user_id: user.to_string(),
        api_key: std::env::var("MEM0_TEST_API_KEY").ok(),
        timeout: std::time::Duration::from_secs(20),
    })
}

fn unique(prefix: &str) -> String {
    format!(
        "{prefix}-{}-{}",
        std::process::id(),
        chrono::Local::now()
            .timestamp_nanos_opt()
            .unwrap_or_default()
    )
}

fn snapshot(
    store: &dyn LongTermMemoryStore,
    owner: &Owner,
) -> Vec<(Scope, String, Option<chrono::NaiveDateTime>)> {
    let s = store.load_all(owner).unwrap();
    let mut v: Vec<_> = s
        .core
        .iter()
        .map(|e| (Scope::Core, e.content.clone(), e.timestamp))
        .collect();
    v.extend(
        s.archival
            .iter()
            .map(|e| (Scope::Archival, e.content.clone(), e.timestamp)),
    );
    v
}

fn faults(mode: &str) {
    reqwest::blocking::Client::new()
        .post(format!("{}/__faults", mem0_url()))
        .json(&serde_json::json!({"mode": mode}))
        .send()
        .unwrap()
        .error_for_status()
        .unwrap();
}

#[test]
#[ignore = "needs the mem0 test server: make mem0-contract"]
fn markdown_sqlite_mem0_markdown_round_trip_loses_and_doubles_nothing() {
    let _one = SERVER.lock().unwrap_or_else(|p| p.into_inner());
    let dir = tempfile::tempdir().unwrap();
    // Roots exist before anything is written into them (a missing root is an error).
    for root in ["a", "b"] {
        std::fs::create_dir(dir.path().join(root)).unwrap();
    }
    let md = MarkdownMemoryStore::new(dir.path().join("a"));
    let sql = SqliteMemoryStore::new(dir.path().join("oryxos.db"));
    let m0 = mem0(&unique("roundtrip"));
    let back = MarkdownMemoryStore::new(dir.path().join("b"));
    let owners = [Owner::Agent("agent_x".into()), Owner::Global];
    for (i, owner) in owners.iter().enumerate() {
        for j in 0..6 {
            let scope = if j % 3 == 0 {
                Scope::Core
            } else {
                Scope::Archival
            };
            let at = parse_entry_ts(&format!("2026-0{}-1{} 10:00:0{j}", i + 1, j));
            md.append(owner, scope, &format!("记忆 {i}-{j} entry"), at)
                .unwrap();
        }
        // Two entries in the same second keep their order through mem0.
        md.append(
            owner,
            Scope::Archival,
            "same second A",
            parse_entry_ts("2026-05-01 00:00:00"),
        )
        .unwrap();
        md.append(
            owner,
            Scope::Archival,
            "same second B",
            parse_entry_ts("2026-05-01 00:00:00"),
        )
        .unwrap();
    }
    let never = AtomicBool::new(false);
    for (from, to) in [
        (
            &md as &dyn LongTermMemoryStore,
            &sql as &dyn LongTermMemoryStore,
        ),
        (&sql, &m0),
        (&m0, &back),
    ] {
        let r = migrate(from, to, &owners, false, &never, &mut |_| {}).unwrap();
        assert_eq!(r.totals().failed, 0, "{r:?}");
        assert_eq!(r.totals().copied, 16);
        let again = migrate(from, to, &owners, false, &never, &mut |_| {}).unwrap();
        assert_eq!(
            (again.totals().copied, again.totals().skipped),
            (0, 16),
            "twice adds nothing"
        );
    }
    for owner in &owners {
        assert_eq!(
            snapshot(&back, owner),
            snapshot(&md, owner),
            "timestamps, order and scopes kept for {owner:?}"
        );
    }
}

#[test]
#[ignore = "needs the mem0 test server: make mem0-contract"]
fn mem0_going_down_mid_migration_is_reported_and_a_rerun_completes() {
    let _one = SERVER.lock().unwrap_or_else(|p| p.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let md = MarkdownMemoryStore::new(dir.path());
    let m0 = mem0(&unique("faults"));
    let owner = Owner::Agent("agent_y".into());
    for j in 0..10 {
        md.append(
            &owner,
            Scope::Archival,
            &format!("entry {j}"),
            parse_entry_ts(&format!("2026-01-01 00:00:0{j}")),
        )
        .unwrap();
    }
    let never = AtomicBool::new(false);
    let r = migrate(
        &md,
        &m0,
        std::slice::from_ref(&owner),
        false,
        &never,
        &mut |p| {
            if p.done == 4 {
                faults("error500");
            }
        },
    );
    faults("none");
    let r = r.unwrap();
    let o = &r.owners[0];
    assert_eq!(o.copied, 4, "{o:?}");
    assert_eq!(o.failed, 6);
    let err = o.error.as_deref().unwrap();
    assert!(err.contains(&mem0_url()) && err.contains("500"), "{err}");
    let again = migrate(
        &md,
        &m0,
        std::slice::from_ref(&owner),
        false,
        &never,
        &mut |_| {},
    )
    .unwrap();
    assert_eq!(
        (
            again.totals().copied,
            again.totals().skipped,
            again.totals().failed
        ),
        (6, 4, 0)
    );
    assert_eq!(snapshot(&m0, &owner), snapshot(&md, &owner));
}
