use super::super::test_support::{session, Fixture, TWO_MESSAGES};
use super::super::SessionStatus;
use super::*;
use crate::timefmt::{local_to_epoch_ms, parse_entry_ts};

const T0: i64 = 1_780_000_000_000;
const MINUTE: i64 = 60_000;

fn ids(page: &SessionPage) -> Vec<&str> {
    page.items.iter().map(|s| s.session_id.as_str()).collect()
}

/// Five sessions: a and b agents, cli/web channels, one archived in upper case.
fn five() -> Fixture {
    let f = Fixture::with_schema();
    f.insert(session("cli:alice:a", "a", TWO_MESSAGES, T0 + MINUTE));
    f.insert(session("web:bob:a", "a", TWO_MESSAGES, T0 + 5 * MINUTE));
    f.insert(NewSession {
        status: "ARCHIVED".into(),
        archived_at_ms: Some(T0 + 3 * MINUTE),
        ..session("cli:carol:b", "b", TWO_MESSAGES, T0 + 2 * MINUTE)
    });
    f.insert(session("cli:Alice2:b", "b", "[]", T0 + 4 * MINUTE));
    f.insert(session("web:dave:a", "a", TWO_MESSAGES, T0 + 3 * MINUTE));
    f
}

fn list(f: &Fixture, filter: SessionFilter) -> SessionPage {
    f.store.list(&filter).unwrap()
}

#[test]
fn list_orders_newest_first_and_pages_in_sql() {
    let f = five();
    let all = list(&f, SessionFilter::default());
    assert_eq!(all.total, 5);
    assert_eq!(
        ids(&all),
        [
            "web:bob:a",
            "cli:Alice2:b",
            "web:dave:a",
            "cli:carol:b",
            "cli:alice:a"
        ]
    );
    let page = list(
        &f,
        SessionFilter {
            limit: 2,
            offset: 2,
            ..Default::default()
        },
    );
    assert_eq!(page.total, 5, "total counts every match, not the page");
    assert_eq!(ids(&page), ["web:dave:a", "cli:carol:b"]);
    let past_end = list(
        &f,
        SessionFilter {
            offset: 10,
            ..Default::default()
        },
    );
    assert_eq!((past_end.total, past_end.items.len()), (5, 0));
}

#[test]
fn list_filters_by_agent_status_channel_and_query() {
    let f = five();
    let by_agent = list(
        &f,
        SessionFilter {
            agent: Some("b".into()),
            ..Default::default()
        },
    );
    assert_eq!(ids(&by_agent), ["cli:Alice2:b", "cli:carol:b"]);
    let archived = list(
        &f,
        SessionFilter {
            status: Some(SessionStatus::Archived),
            ..Default::default()
        },
    );
    assert_eq!(ids(&archived), ["cli:carol:b"]);
    assert_eq!(
        archived.items[0].parsed_status(),
        Some(SessionStatus::Archived)
    );
    assert!(archived.items[0].archived_at.is_some());
    let active_a_web = list(
        &f,
        SessionFilter {
            agent: Some("a".into()),
            status: Some(SessionStatus::Active),
            channel: Some("web".into()),
            ..Default::default()
        },
    );
    assert_eq!(
        (active_a_web.total, ids(&active_a_web)),
        (2, vec!["web:bob:a", "web:dave:a"])
    );
    let query = list(
        &f,
        SessionFilter {
            query: Some("ALICE".into()),
            ..Default::default()
        },
    );
    assert_eq!(
        ids(&query),
        ["cli:Alice2:b", "cli:alice:a"],
        "case-insensitive substring"
    );
    let by_user = list(
        &f,
        SessionFilter {
            query: Some("dav".into()),
            ..Default::default()
        },
    );
    assert_eq!(ids(&by_user), ["web:dave:a"]);
    let literal = list(
        &f,
        SessionFilter {
            query: Some("%".into()),
            ..Default::default()
        },
    );
    assert_eq!(literal.total, 0, "no LIKE wildcards");
}

#[test]
fn query_searches_message_contents_and_says_where() {
    let f = five();
    f.insert(session(
        "web:erin:a",
        "a",
        r#"[{"role":"user","content":"hi"},{"role":"assistant","content":"ok"},
                {"role":"user","content":"The TLS Certificate of api.example.com expired"},
                {"role":"assistant","content":"certificate renewed"}]"#,
        T0 + 6 * MINUTE,
    ));
    f.insert(session(
        "cli:zh:b",
        "b",
        r#"[{"role":"user","content":"用户说：证书\n明天过期"}]"#,
        T0 + 7 * MINUTE,
    ));
    let q = |text: &str| {
        list(
            &f,
            SessionFilter {
                query: Some(text.into()),
                ..Default::default()
            },
        )
    };
    let cert = q("certificate");
    assert_eq!((cert.total, ids(&cert)), (1, vec!["web:erin:a"]));
    let m = cert.items[0]
        .message_match
        .as_ref()
        .expect("where it matched");
    assert_eq!(
        (m.index, m.role.as_str()),
        (2, "user"),
        "the first matching message"
    );
    assert_eq!(m.snippet, "The TLS Certificate of api.example.com expired");
    let zh = q("证书");
    assert_eq!(ids(&zh), ["cli:zh:b"]);
    assert_eq!(
        zh.items[0].message_match.as_ref().unwrap().snippet,
        "用户说：证书 明天过期"
    );
    // The JSON around the contents is not searched, nor are roles.
    assert_eq!(q("content").total, 0, "a JSON key");
    assert_eq!(q("assistant").total, 0, "a role");
    assert_eq!(q("\"").total, 0, "JSON quoting");
    // An id match carries no message match.
    let by_id = q("erin");
    assert_eq!(ids(&by_id), ["web:erin:a"]);
    assert_eq!(by_id.items[0].message_match, None);
    // Filters still apply together with the text.
    let other_agent = list(
        &f,
        SessionFilter {
            agent: Some("b".into()),
            query: Some("certificate".into()),
            ..Default::default()
        },
    );
    assert_eq!(other_agent.total, 0);
    let past_end = list(
        &f,
        SessionFilter {
            query: Some("a".into()),
            offset: 50,
            ..Default::default()
        },
    );
    assert_eq!(
        (past_end.total, past_end.items.len()),
        (6, 0),
        "counted past the end"
    );
    let second = list(
        &f,
        SessionFilter {
            query: Some("a".into()),
            limit: 3,
            offset: 3,
            ..Default::default()
        },
    );
    assert_eq!(
        (second.total, second.items.len()),
        (6, 3),
        "total with a page"
    );
}

#[test]
fn query_finds_text_in_a_corrupt_row_without_failing() {
    let f = five();
    f.insert(session(
        "cli:bad:a",
        "a",
        r#"[{"role":"user","content":"certificate"#,
        T0,
    ));
    f.insert(session(
        "cli:obj:a",
        "a",
        r#"{"content":"certificate"}"#,
        T0,
    ));
    let page = list(
        &f,
        SessionFilter {
            query: Some("certificate".into()),
            ..Default::default()
        },
    );
    assert_eq!(page.total, 2, "raw text of rows that are not arrays");
    assert!(page.items.iter().all(|s| s.message_match.is_none()));
    assert!(page.items.iter().all(|s| s.error.is_some()));
}

#[test]
fn list_reports_message_counts_and_summary_fields() {
    let f = five();
    let all = list(&f, SessionFilter::default());
    let bob = &all.items[0];
    assert_eq!(bob.message_count, Some(2));
    assert_eq!(bob.agent.as_deref(), Some("a"));
    assert_eq!(bob.channel.as_deref(), Some("web"));
    assert_eq!(bob.user_id.as_deref(), Some("bob"));
    assert_eq!(bob.status, "active");
    assert_eq!(bob.error, None);
    assert_eq!(all.items[1].message_count, Some(0));
}

#[test]
fn timestamps_in_epoch_ms_and_iso_text_are_both_read_and_ordered() {
    let f = Fixture::with_schema();
    let nine_thirty = parse_entry_ts("2026-07-22 09:30:00").unwrap();
    let ms = local_to_epoch_ms(&nine_thirty);
    f.conn()
        .execute_batch(&format!(
            "INSERT INTO sessions VALUES ('iso', 'a', 'cli', 'u', '[]', 'active',
                     '2026-07-22T09:00:00', '2026-07-23 10:30:00.000', NULL);
                 INSERT INTO sessions VALUES ('ms', 'a', 'cli', 'u', '[]', 'active',
                     {ms}, {ms}, '{ms}');"
        ))
        .unwrap();
    let page = list(&f, SessionFilter::default());
    assert_eq!(ids(&page), ["iso", "ms"]);
    let iso = &page.items[0];
    assert_eq!(iso.created_at, parse_entry_ts("2026-07-22 09:00:00"));
    assert_eq!(iso.last_active_at, parse_entry_ts("2026-07-23 10:30:00"));
    let ms_row = &page.items[1];
    assert_eq!(ms_row.created_at, Some(nine_thirty));
    assert_eq!(ms_row.last_active_at, Some(nine_thirty));
    assert_eq!(
        ms_row.archived_at,
        Some(nine_thirty),
        "numeric text is epoch ms too"
    );
}

#[test]
fn corrupt_messages_json_marks_only_that_row() {
    let f = Fixture::with_schema();
    f.insert(session("cli:u:good", "a", TWO_MESSAGES, T0 + 3 * MINUTE));
    f.insert(session(
        "cli:u:broken",
        "a",
        "[{\"role\":\"user\",",
        T0 + 2 * MINUTE,
    ));
    f.insert(session(
        "cli:u:object",
        "a",
        r#"{"role":"user"}"#,
        T0 + MINUTE,
    ));
    let page = list(&f, SessionFilter::default());
    assert_eq!(page.total, 3);
    let [good, broken, object] = &page.items[..] else {
        panic!("three rows expected: {page:?}");
    };
    assert_eq!((good.message_count, good.error.as_deref()), (Some(2), None));
    assert_eq!(broken.message_count, None);
    assert_eq!(
        broken.error.as_deref(),
        Some("messages_json of session cli:u:broken is not valid JSON")
    );
    assert_eq!(object.message_count, None);
    assert!(object
        .error
        .as_deref()
        .unwrap()
        .contains("is a JSON object, not an array"));

    let s = f.store.get("cli:u:broken").unwrap();
    assert!(s.messages.is_empty());
    let err = s.summary.error.unwrap();
    assert!(
        err.starts_with("messages_json of session cli:u:broken is not valid JSON: EOF"),
        "{err}"
    );
    let s = f.store.get("cli:u:object").unwrap();
    assert!(s
        .summary
        .error
        .unwrap()
        .contains("is not a JSON array of messages"));
    let s = f.store.get("cli:u:good").unwrap();
    assert_eq!(s.messages.len(), 2);
    assert_eq!(s.messages[1].content.as_deref(), Some("hello"));
    assert_eq!((s.summary.message_count, s.summary.error), (Some(2), None));
}

#[test]
fn a_null_messages_json_is_an_empty_session() {
    let f = Fixture::with_schema();
    f.conn()
        .execute(
            "INSERT INTO sessions VALUES ('n', 'a', 'cli', 'u', NULL, 'active', 1, 1, NULL)",
            [],
        )
        .unwrap();
    let page = list(&f, SessionFilter::default());
    assert_eq!(
        (page.items[0].message_count, page.items[0].error.as_deref()),
        (Some(0), None)
    );
    assert!(f.store.get("n").unwrap().messages.is_empty());
}

#[test]
fn get_of_a_missing_id_is_session_not_found() {
    let f = Fixture::empty();
    assert!(matches!(f.store.get("x"), Err(CoreError::SessionNotFound(id)) if id == "x"));
    let f = five();
    assert!(matches!(
        f.store.get("cli:nobody:a"),
        Err(CoreError::SessionNotFound(_))
    ));
}

#[test]
fn a_missing_database_or_table_is_empty_not_an_error() {
    let f = Fixture::empty();
    assert_eq!(list(&f, SessionFilter::default()), SessionPage::default());
    assert_eq!(f.store.stats().unwrap(), SessionStats::default());
    assert!(!f.path.exists(), "reading never creates the database");
    let f = Fixture::with_ddl("CREATE TABLE other(x)");
    assert_eq!(list(&f, SessionFilter::default()).total, 0);
}

#[test]
fn older_tables_without_optional_columns_still_list() {
    let f = Fixture::with_ddl(
            "CREATE TABLE sessions(session_id TEXT PRIMARY KEY, messages_json TEXT, status TEXT);
             INSERT INTO sessions VALUES ('old', '[{\"role\":\"user\",\"content\":\"x\"}]', 'active');",
        );
    let page = list(&f, SessionFilter::default());
    let old = &page.items[0];
    assert_eq!(
        (old.session_id.as_str(), old.message_count),
        ("old", Some(1))
    );
    assert_eq!((old.agent.as_deref(), old.created_at), (None, None));
    let by_agent = list(
        &f,
        SessionFilter {
            agent: Some("a".into()),
            ..Default::default()
        },
    );
    assert_eq!(by_agent.total, 0);
    assert_eq!(f.store.get("old").unwrap().messages.len(), 1);
    assert_eq!(f.store.stats().unwrap().active, 1);
}

#[test]
fn a_sessions_table_without_session_id_is_corrupt() {
    let f = Fixture::with_ddl("CREATE TABLE sessions(id INTEGER, messages_json TEXT)");
    match f.store.list(&SessionFilter::default()) {
        Err(CoreError::Corrupt(msg)) => {
            assert!(
                msg.contains("table sessions has no column session_id"),
                "{msg}"
            )
        }
        other => panic!("expected Corrupt, got {other:?}"),
    }
    assert!(matches!(f.store.get("x"), Err(CoreError::Corrupt(_))));
}

#[test]
fn a_file_that_is_not_sqlite_is_corrupt() {
    let f = Fixture::empty();
    std::fs::write(
        &f.path,
        "not a database, only text that is long enough to be read",
    )
    .unwrap();
    assert!(matches!(
        f.store.list(&SessionFilter::default()),
        Err(CoreError::Corrupt(_))
    ));
    assert!(matches!(f.store.get("x"), Err(CoreError::Corrupt(_))));
    assert!(matches!(f.store.stats(), Err(CoreError::Corrupt(_))));
}

#[test]
fn last_active_by_agent_is_what_a_one_row_page_shows_first() {
    let f = five();
    f.insert(NewSession {
        last_active_at_ms: T0 + 9 * MINUTE,
        ..session("x:same-key:b", "b", "[]", T0 + 4 * MINUTE)
    });
    // A tie on the sort key: session_id decides; and a row with no times at all.
    f.insert(session("z:tie:c", "c", "[]", T0 + 7 * MINUTE));
    f.insert(NewSession {
        created_at_ms: T0,
        ..session("y:tie:c", "c", "[]", T0 + 7 * MINUTE)
    });
    f.conn()
            .execute(
                "INSERT INTO sessions VALUES ('n', 'd', 'cli', 'u', '[]', 'active', 'never', NULL, NULL)",
                [],
            )
            .unwrap();
    let by_agent = f.store.last_active_by_agent().unwrap();
    assert_eq!(by_agent.len(), 4);
    for agent in ["a", "b", "c", "d"] {
        let page = list(
            &f,
            SessionFilter {
                agent: Some(agent.into()),
                limit: 1,
                ..Default::default()
            },
        );
        assert_eq!(by_agent[agent], page.items[0].last_active_at, "{agent}");
    }
    assert!(Fixture::empty()
        .store
        .last_active_by_agent()
        .unwrap()
        .is_empty());
}

#[test]
fn stats_count_statuses_in_any_case() {
    let f = five();
    f.insert(NewSession {
        status: "paused".into(),
        ..session("x:y:z", "a", "[]", T0)
    });
    let stats = f.store.stats().unwrap();
    assert_eq!(
        stats,
        SessionStats {
            active: 4,
            archived: 1,
            total: 6
        }
    );
    let paused = f.store.get("x:y:z").unwrap().summary;
    assert_eq!(
        (paused.status.as_str(), paused.parsed_status()),
        ("paused", None)
    );
}

#[test]
fn insert_session_stores_messages_json_verbatim_and_refuses_duplicates() {
    let f = Fixture::empty();
    let odd = "[ {\"role\" : \"user\", \"content\":\"x\"} ]\n";
    f.insert(session("cli:u:a", "a", odd, T0));
    let stored: String = f
        .conn()
        .query_row("SELECT messages_json FROM sessions", [], |r| r.get(0))
        .unwrap();
    assert_eq!(stored, odd);
    let again = f.store.insert_session(&session("cli:u:a", "a", "[]", T0));
    assert!(matches!(again, Err(CoreError::Conflict(_))), "{again:?}");
}
