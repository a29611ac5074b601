//! Memory health of a MEMORY.md is checked from the file's bytes, its budget read the way the
//! prompt reads the file, dismissals matched to the entries the findings name; with the
//! automatic summary on, over the owner's parsed entries (its own finding needs them). Both
//! ways must report the same.

use std::path::{Path, PathBuf};

use oryx_api::health::{DismissArgs, HealthArgs, HealthDto};
use oryx_api::Console;

use crate::common;

/// An agent whose MEMORY.md is larger than the prompt reads whole (its head and tail are read
/// then), holding a secret, a phone number, stale words, exact and near duplicates.
fn root(parent: &Path) -> PathBuf {
    let mut text = String::from(
        "## 核心记忆\n- [2026-01-01 09:00:00] 用户叫小林\n- [2026-01-02 09:00:00] 电话 13812345678\n\
         ## 归档记忆\n",
    );
    let start = chrono::NaiveDate::from_ymd_opt(2024, 6, 1)
        .unwrap()
        .and_hms_opt(8, 0, 0)
        .unwrap();
    for i in 0..6_000 {
        // Three hours apart: a window that reached one entry more or less would say so.
        let when = (start + chrono::Duration::hours(3 * i)).format("%Y-%m-%d %H:%M:%S");
        let line = match i % 500 {
            7 => format!("- [{when}] 部署的密钥 sk-proj-abcdefghijklmnopqrstuvwxyz{i:06}\n"),
            8 => format!("- [{when}] 明天下午三点开会（第 {i} 次）\n"),
            9 | 10 => format!("- [{when}] the release checklist is in the wiki\n"),
            _ => format!(
                "- [{when}] 触发「检查服务器磁盘状态（第 {i} 次）」⇒ 剩余空间 {} GB，一切正常\n",
                i % 97
            ),
        };
        text.push_str(&line);
    }
    assert!(text.len() > 512 * 1024, "{} bytes", text.len());
    common::root_with_agent_a(parent, &text)
}

fn health(c: &Console) -> HealthDto {
    c.memory_health(&HealthArgs {
        agent: Some("a".into()),
        ..HealthArgs::default()
    })
    .unwrap()
}

#[test]
fn the_bytes_and_the_parsed_entries_report_the_same_with_a_dismissal() {
    let dir = tempfile::tempdir().unwrap();
    let root = root(dir.path());
    let c = common::console(dir.path(), &root);
    let from_bytes = health(&c);
    let kinds: Vec<(&str, &str)> = from_bytes
        .findings
        .iter()
        .map(|f| (f.check.as_str(), f.kind.as_str()))
        .collect();
    for want in [
        ("secrets", "openai_key"),
        ("pii", "phone"),
        ("stale", "relative_time"),
        ("duplicates", "exact"),
        ("duplicates", "near"),
    ] {
        assert!(kinds.contains(&want), "{want:?} not in {kinds:?}");
    }
    let budget = from_bytes.budget.clone().expect("a budget");
    assert!(budget.window_reach_days.is_some() && budget.core_chars > 0);
    assert!(budget.prompt_chars > budget.core_chars);

    // A dismissal: still from the bytes, the finding left out and counted.
    let gone = from_bytes
        .findings
        .iter()
        .position(|f| f.check == "secrets")
        .unwrap();
    let parsed = c
        .dismiss_finding(&DismissArgs {
            agent: Some("a".into()),
            check: "secrets".into(),
            entry_ids: from_bytes.findings[gone]
                .entry_ids
                .iter()
                .map(|id| id.to_string())
                .collect(),
        })
        .unwrap();
    assert_eq!(parsed.dismissed, 1);
    let mut want = from_bytes.findings.clone();
    want.remove(gone);
    assert_eq!(parsed.findings, want);
    assert_eq!(parsed.budget, from_bytes.budget);
    assert_eq!(health(&c), parsed);

    // With the automatic summary proposing, over the parsed entries: the same findings and
    // dismissal, and the summary's own finding besides.
    std::fs::write(
        dir.path().join("settings.json"),
        r#"{"summary": {"auto": "propose", "autoThreshold": 3}}"#,
    )
    .unwrap();
    let viewed = health(&common::console(dir.path(), &root));
    let (auto, rest): (Vec<_>, Vec<_>) = viewed
        .findings
        .into_iter()
        .partition(|f| f.fix.as_ref().is_some_and(|x| x.op == "summarize"));
    assert_eq!(auto.len(), 1, "the automatic summary's finding");
    assert_eq!(rest, parsed.findings);
    assert_eq!(viewed.dismissed, 1);
    assert_eq!(viewed.budget, parsed.budget);

    // The summary's finding dismissed too: gone, two counted, the others as they were.
    let c = common::console(dir.path(), &root);
    let after = c
        .dismiss_finding(&DismissArgs {
            agent: Some("a".into()),
            check: auto[0].check.clone(),
            entry_ids: auto[0].entry_ids.iter().map(|id| id.to_string()).collect(),
        })
        .unwrap();
    assert_eq!(after.findings, parsed.findings);
    assert_eq!(after.dismissed, 2);
}
