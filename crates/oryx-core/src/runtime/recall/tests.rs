use super::*;

fn entry(text: &str, time: Option<&str>) -> RuntimeEntry {
    RuntimeEntry {
        text: text.into(),
        time: time.map(|t| NaiveDateTime::parse_from_str(t, "%Y-%m-%d %H:%M:%S").unwrap()),
    }
}

fn lines(a: &Answer) -> Vec<&str> {
    a.results.iter().map(|r| r.text.as_str()).collect()
}

#[test]
fn recency_is_newest_first_untimed_last_and_later_written_first_on_ties() {
    let entries = [
        entry("a", Some("2026-01-01 10:00:00")),
        entry("b", None),
        entry("c", Some("2026-01-02 10:00:00")),
        entry("d", Some("2026-01-01 10:00:00")),
        entry("e", None),
    ];
    let a = fused_answer(
        &entries,
        &[],
        Settings::default(),
        |_| Err("off".into()),
        "q",
        "x",
    );
    assert_eq!(lines(&a), ["c", "d", "a", "e", "b"]);
    assert_eq!(a.degraded.as_deref(), Some("off"));
    assert!(a.text.ends_with(DEGRADED_NOTICE));
    assert_eq!(a.results[0].routes.recency, Some(1));
}

#[test]
fn keyword_hits_count_newest_first_and_twice_for_a_text_saved_twice() {
    let entries = [
        entry("tea", None),
        entry("coffee", None),
        entry("tea", None),
    ];
    let hits = ["tea".to_string(), "tea".to_string()];
    let a = fused_answer(
        &entries,
        &hits,
        Settings::default(),
        |_| Ok((Vec::new(), SemanticSide::default())),
        "tea",
        "x",
    );
    assert_eq!(a.entries, 2);
    let tea = &a.results[0];
    assert_eq!(tea.text, "tea");
    assert_eq!(tea.routes.keyword, Some(KeywordRank { rank: 1, hits: 2 }));
    // Recency lists each text once: "tea" first seen at position 0, so after "coffee".
    assert_eq!(tea.routes.recency, Some(2));
    assert_eq!(tea.score, Some(1.0 / 61.0 + 1.0 / 62.0 + 1.0 / 62.0));
    assert_eq!(
        tea.routes.contributions,
        [0.0, 1.0 / 61.0 + 1.0 / 62.0, 1.0 / 62.0]
    );
    assert!(a.degraded.is_none());
}

#[test]
fn top_k_keeps_the_best_and_the_next_ones_are_near_misses() {
    let entries: Vec<_> = (0..30).map(|i| entry(&format!("e{i}"), None)).collect();
    let settings = Settings {
        weights: [1.0, 1.0, 1.0],
        top_k: 3,
    };
    let a = fused_answer(
        &entries,
        &[],
        settings,
        |_| Ok((Vec::new(), SemanticSide::default())),
        "q",
        "x",
    );
    assert_eq!(lines(&a), ["e29", "e28", "e27"]);
    let near: Vec<_> = a.near_misses.iter().map(|r| r.text.as_str()).collect();
    assert_eq!(near, ["e26", "e25", "e24", "e23", "e22"]);
    let none = fused_answer(
        &[],
        &[],
        settings,
        |_| Ok((Vec::new(), SemanticSide::default())),
        "q",
        "x",
    );
    assert_eq!(none.text, crate::memory::service::RECALL_EMPTY);
}

#[test]
fn weights_and_top_k_are_read_as_the_runtime_reads_them() {
    assert_eq!(parse_double(" 1.5 "), Some(1.5));
    assert_eq!(parse_double("3"), Some(3.0));
    assert_eq!(parse_double("2d"), Some(2.0));
    assert_eq!(parse_double("1e1"), Some(10.0));
    assert_eq!(parse_double("abc"), None);
    assert_eq!(parse_double(""), None);
}
