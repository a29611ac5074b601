//! The checks end to end: findings over parsed items, an owner's view and a file's bytes.

use std::collections::BTreeMap;

use super::parallel::PARALLEL_FROM;
use super::*;
use crate::memory::entry::Entry;
use crate::memory::near_dup;
use crate::memory::review::{dismiss_key, Reviewed};

#[test]
fn a_view_gives_the_findings_of_its_items() {
    use crate::memory::{LongTermMemoryStore, MarkdownMemoryStore, MemoryService};
    let dir = tempfile::tempdir().unwrap();
    let store = std::sync::Arc::new(MarkdownMemoryStore::new(dir.path()));
    let owner = crate::names::Owner::Agent("a".into());
    let mut text =
        String::from("## 核心记忆\n- [2026-01-01 10:00:00] 我的邮箱是 someone@example.com\n");
    text.push_str("- [2026-01-01 10:00:00] 用户偏好简洁的回复，不用列表。\n## 归档记忆\n");
    for i in 0..300 {
        let line = match i % 5 {
            0 => "明天下午三点开会".to_string(),
            1 => format!("触发「检查服务器磁盘状态（第 {i} 次）」⇒ 已完成"),
            2 => "key sk-proj-abcdefghijklmnopqrstuvwxyz0123".to_string(),
            _ => format!("entry number {i} says something of its own"),
        };
        text.push_str(&format!("- [2026-01-{:02} 10:00:00] {line}\n", 1 + i % 28));
    }
    std::fs::create_dir_all(dir.path().join("agents/a")).unwrap();
    std::fs::write(dir.path().join("agents/a/MEMORY.md"), &text).unwrap();
    assert!(store.count(&owner).unwrap().archival == 300);
    let view = MemoryService::new(store, 4000).view(&owner).unwrap();
    let mut items: Vec<Item> = Vec::new();
    for (i, e) in view.core.iter().enumerate() {
        let (id, scope) = (view.core_id(i), Scope::Core);
        items.push(Item {
            id,
            scope,
            entry: e,
        });
    }
    for (i, e) in view.archival.iter().enumerate() {
        let id = view.archival_id(i + view.archival_offset, e);
        items.push(Item {
            id,
            scope: Scope::Archival,
            entry: e,
        });
    }
    let opts = Options {
        now: crate::timefmt::parse_entry_ts("2026-03-01 10:00:00").unwrap(),
        ..Options::default()
    };
    let want = run(&items, Some(&view), &opts);
    let got = run_view(&view, &opts);
    assert_eq!(got, want);
    let checks: std::collections::BTreeSet<&str> =
        got.findings.iter().map(|f| f.check.as_str()).collect();
    assert_eq!(checks.len(), 4, "{checks:?}");
}

fn check(texts: &[&str]) -> Vec<Finding> {
    let entries: Vec<Entry> = texts
        .iter()
        .map(|t| Entry::new(crate::timefmt::parse_entry_ts("2026-01-01 10:00:00"), *t))
        .collect();
    let items: Vec<Item> = entries
        .iter()
        .enumerate()
        .map(|(i, e)| Item {
            id: format!("a{i}"),
            scope: Scope::Archival,
            entry: e,
        })
        .collect();
    let opts = Options {
        now: crate::timefmt::parse_entry_ts("2026-03-01 10:00:00").unwrap(),
        ..Options::default()
    };
    run(&items, None, &opts).findings
}

fn kinds(f: &[Finding]) -> Vec<&str> {
    f.iter().map(|f| f.kind.as_str()).collect()
}

#[test]
fn planted_secrets_are_found_and_masked() {
    let planted = [
        ("sk-proj-abcdefghijklmnopqrstuvwxyz0123", "openai_key"),
        ("sk-ant-api03-abcdefghijklmnopqrstuvwx", "anthropic_key"),
        ("AKIAIOSFODNN7EXAMPLE", "aws_access_key"),
        ("ghp_abcdefghijklmnopqrstuvwxyz0123456789", "github_token"),
        ("AIzaSyA-abcdefghijklmnopqrstuvwxyz01234", "google_api_key"),
        (
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N",
            "jwt",
        ),
        (
            "postgres://app:s3cret@db.internal:5432/prod",
            "connection_string",
        ),
        ("数据库密码：hunter22", "password"),
        ("-----BEGIN RSA PRIVATE KEY-----", "private_key"),
    ];
    for (text, kind) in planted {
        let f = check(&[&format!("用户给了 {text} 让我记住")]);
        assert_eq!(kinds(&f), [kind], "{text}");
        let Some(Fix::Edit { content, .. }) = &f[0].fix else {
            panic!("an edit fix")
        };
        assert!(!content.contains(&text[6..]), "{content}");
    }
    for clean in [
        "Reminder set for Friday 10:00 (skill: tasks)",
        "触发「rotate the API keys」⇒ rotated 3 keys",
        "see https://docs.rs/regex/latest/regex/",
        "ask-me-later-about-this-task",
    ] {
        let f = check(&[clean]);
        assert!(
            !f.iter().any(|f| f.check == Check::Secrets),
            "{clean}: {f:?}"
        );
    }
}

#[test]
fn personal_data_with_checksums() {
    assert_eq!(kinds(&check(&["邮箱 lin.xiao@example.com"])), ["email"]);
    assert_eq!(kinds(&check(&["电话 13812345678 找我"])), ["phone"]);
    assert_eq!(kinds(&check(&["call +1 415-555-0100"])), ["phone"]);
    // A valid resident id and card; the same digits with a wrong checksum are not reported.
    assert_eq!(
        kinds(&check(&["身份证 11010519491231002X"])),
        ["resident_id"]
    );
    assert!(check(&["单号 110105194912310021"]).is_empty());
    assert_eq!(kinds(&check(&["card 4111 1111 1111 1111"])), ["bank_card"]);
    assert!(check(&["order 4111 1111 1111 1112"]).is_empty());
    assert!(check(&["2026-11-04 13:11:24 cache cleared: 1.3 GB freed"]).is_empty());
}

#[test]
fn duplicates_exact_and_near_and_stale_words() {
    let f = check(&[
        "用户偏好简洁的回复。",
        "用户偏好简洁的回复",
        "触发「总结日志」⇒ 已总结 3 个错误（第 1 次）",
        "触发「总结日志」⇒ 已总结 5 个错误（第 2 次）",
    ]);
    let d: Vec<&Finding> = f.iter().filter(|f| f.check == Check::Duplicates).collect();
    assert_eq!(d.len(), 2, "{f:?}");
    assert_eq!(d[0].kind, "exact");
    assert_eq!(
        d[0].fix,
        Some(Fix::Delete {
            ids: vec!["a0".into()]
        })
    );
    assert_eq!(d[1].kind, "near");
    let f = check(&[
        "明天上午十点开会",
        "meeting tomorrow at 10",
        "用户喜欢周末爬山",
    ]);
    let stale: Vec<&str> = f
        .iter()
        .filter(|f| f.check == Check::Stale)
        .map(|f| f.entry_ids[0].as_str())
        .collect();
    assert_eq!(stale, ["a0", "a1"]);
}

fn near_groups(f: &[Finding]) -> Vec<Vec<&str>> {
    f.iter()
        .filter(|f| f.check == Check::Duplicates && f.kind == "near")
        .map(|f| f.entry_ids.iter().map(|id| id.as_str()).collect())
        .collect()
}

#[test]
fn near_duplicates_by_ngrams_in_chinese_and_english() {
    let f = check(&[
        "用户偏好简洁的回复，不用列表。",
        "User prefers short answers without lists",
        "用户喜欢周末去香山爬山",
        "用户偏好简洁的回复,不要用列表",
        "The user prefers short answers, no lists.",
        "User prefers long answers with many examples",
        "用户偏好详细的回复，多用列表。",
        "短句",
        "短句！",
    ]);
    assert_eq!(
        near_groups(&f),
        [vec!["a0", "a3"], vec!["a1", "a4"]],
        "{f:?}"
    );
    let near: Vec<&Finding> = f.iter().filter(|f| f.kind == "near").collect();
    assert_eq!(near[0].params["basis"], "text");
    assert_eq!(near[0].params["count"], "2");
    let s: f64 = near[1].params["similarity"].parse().unwrap();
    assert!((near_dup::THRESHOLD..1.0).contains(&s), "{s}");
    assert_eq!(near[0].fix, None);
    // "短句" / "短句！" are the same entry (exact), not near.
    assert!(f.iter().any(|f| f.kind == "exact"));
}

#[test]
fn footprints_of_one_request_group_whatever_the_reply() {
    let f = check(&[
        "触发「总结日志」⇒ 已总结 3 个错误（第 1 次）",
        "触发「查询明天北京的天气」⇒ 邮件已发送给 5 位收件人",
        "触发「总结日志」⇒ no issues found",
        "触发「审查这个合并请求」⇒ 邮件已发送给 5 位收件人",
        "触发「总结日志」⇒ 已总结 5 个错误（第 2 次）",
    ]);
    assert_eq!(near_groups(&f), [vec!["a0", "a2", "a4"]], "{f:?}");
    let near = f.iter().find(|f| f.kind == "near").unwrap();
    assert_eq!(near.params["basis"], "request");
    assert_eq!(near.params["request"], "总结日志");
    // Numbers only, outside footprints: as before.
    let f = check(&["cache cleared: 1.3 GB freed", "cache cleared: 2.7 GB freed"]);
    assert_eq!(near_groups(&f), [vec!["a0", "a1"]]);
    assert_eq!(f[0].params["basis"], "numbers");
    assert_eq!(f[0].params["similarity"], "1.00");
}

#[test]
fn dismissed_findings_are_left_out_and_counted_from_the_bytes_as_from_entries() {
    use crate::memory::review::entry_key;
    // Enough entries for several threads: footprints of one request (a near group across
    // the parts), a stale word, a phone number, a secret, an exact duplicate.
    let mut text =
        String::from("## 核心记忆\n- [2026-01-01 10:00:00] 用户偏好简洁的回复\n## 归档记忆\n");
    let planted = [
        "明天上午十点开会",
        "电话 13812345678",
        "key sk-proj-abcdefghijklmnopqrstuvwxyz0123",
        "the build is green",
        "The build is green!",
        "the build is green.",
    ];
    for (i, p) in planted.iter().enumerate() {
        text.push_str(&format!("- [2026-01-0{} 09:00:00] {p}\n", i + 1));
    }
    for i in 0..PARALLEL_FROM + 3_000 {
        text.push_str(&format!(
            "- [2026-02-01 10:00:00] 触发「总结日志」⇒ 已总结 {i} 个错误\n"
        ));
    }
    let opts = Options {
        now: crate::timefmt::parse_entry_ts("2026-03-01 10:00:00").unwrap(),
        ..Options::default()
    };
    let all = run_markdown(text.as_bytes(), &opts);
    assert_eq!(all.dismissed, 0);
    let kinds: Vec<&str> = all.findings.iter().map(|f| f.kind.as_str()).collect();
    assert_eq!(
        kinds,
        ["relative_time", "phone", "openai_key", "exact", "near"]
    );
    // Each entry's key by its id, as the console remembers a dismissal.
    let sections = crate::memory::format::parse(text.as_bytes()).sections;
    let mut key_of = std::collections::HashMap::new();
    for scope in [Scope::Core, Scope::Archival] {
        for (i, e) in sections.of(scope).iter().enumerate() {
            key_of.insert(
                super::super::curate::markdown_id(scope, i, &e.line),
                entry_key(scope, e),
            );
        }
    }
    let dismiss = |f: &Finding, ids: &[EntryId]| -> Vec<u64> {
        ids.iter()
            .map(|id| dismiss_key(f.check.as_str(), key_of[id.as_str()]))
            .collect()
    };
    // Dismissed: the stale word, the phone number, the near group; of the exact
    // duplicates, all but one entry (so that finding stays); the secret, for another check.
    let f = &all.findings;
    let mut keys = Vec::new();
    for k in [0, 1, 4] {
        keys.extend(dismiss(&f[k], &f[k].entry_ids));
    }
    keys.extend(dismiss(&f[3], &f[3].entry_ids[1..]));
    keys.extend(
        f[2].entry_ids
            .iter()
            .map(|id| dismiss_key("pii", key_of[id.as_str()])),
    );
    keys.sort_unstable();
    let opts = Options {
        dismissed: Some(std::sync::Arc::new(Reviewed { at: 0, keys })),
        ..opts
    };
    let shown = run_markdown(text.as_bytes(), &opts);
    assert_eq!(shown.dismissed, 3);
    assert_eq!(shown.findings, [f[2].clone(), f[3].clone()]);
    // The same over the parsed entries (the console's other way).
    let items: Vec<Item> = [Scope::Core, Scope::Archival]
        .into_iter()
        .flat_map(|scope| {
            sections
                .of(scope)
                .iter()
                .enumerate()
                .map(move |(i, e)| Item {
                    id: super::super::curate::markdown_id(scope, i, &e.line),
                    scope,
                    entry: e,
                })
        })
        .collect();
    assert_eq!(run(&items, None, &opts), shown);
}

#[test]
fn a_relative_word_ages_in_calendar_days() {
    // Written late one evening, checked early one morning: the hours between do not make it a
    // day younger (the sample install's findings must not depend on the hour it is read at).
    let e = Entry::new(
        crate::timefmt::parse_entry_ts("2026-01-01 22:00:00"),
        "明天上午十点开会",
    );
    let items = [Item {
        id: "a0".into(),
        scope: Scope::Archival,
        entry: &e,
    }];
    let opts = Options {
        now: crate::timefmt::parse_entry_ts("2026-03-01 08:00:00").unwrap(),
        ..Options::default()
    };
    let f = run(&items, None, &opts).findings;
    assert_eq!(f[0].params["age_days"], "59");
}

#[test]
fn params_carry_what_each_reason_says() {
    let f = check(&[
        "密码：hunter22 邮箱 lin.xiao@example.com",
        "明天上午十点开会",
    ]);
    let by: Vec<(&str, &BTreeMap<String, String>)> =
        f.iter().map(|f| (f.check.as_str(), &f.params)).collect();
    assert_eq!(by[0].0, "secrets");
    assert_eq!(by[0].1["kinds"], "password");
    assert_eq!(by[1].0, "pii");
    assert_eq!(by[1].1["kinds"], "email");
    assert_eq!(by[2].0, "stale");
    assert_eq!(by[2].1["word"], "明天");
    assert_eq!(by[2].1["age_days"], "59");
    let f = check(&["same thing", "Same thing!"]);
    assert_eq!(f[0].params["count"], "2");
    let json = serde_json::to_value(&f[0]).unwrap();
    assert_eq!(json["params"]["count"], "2");
}

#[test]
fn many_entries_are_checked_on_several_threads_in_item_order() {
    let mut texts: Vec<String> = (0..PARALLEL_FROM + 5_000)
        .map(|i| format!("note {i}: the build took {} seconds", i % 97))
        .collect();
    // At the ends of the threads' parts and of the blocks a part is read in.
    let planted = [0, BLOCK - 1, BLOCK, 12_499, 12_500, texts.len() - 1];
    for &i in &planted {
        texts[i] = format!("key sk-proj-abcdefghijklmnopqrstuvwxyz{i:06}");
    }
    let t: Vec<&str> = texts.iter().map(String::as_str).collect();
    let f = check(&t);
    let secrets: Vec<String> = f
        .iter()
        .filter(|f| f.check == Check::Secrets)
        .map(|f| f.entry_ids[0].to_string())
        .collect();
    let want: Vec<String> = planted.iter().map(|i| format!("a{i}")).collect();
    assert_eq!(secrets, want);
    // The notes differ only in numbers, and so do the planted keys: two near groups, their
    // ids made on each thread for its part and each in its place.
    let notes: Vec<String> = (0..texts.len())
        .filter(|i| !planted.contains(i))
        .map(|i| format!("a{i}"))
        .collect();
    let groups: Vec<Vec<String>> = near_groups(&f)
        .iter()
        .map(|g| g.iter().map(|id| id.to_string()).collect())
        .collect();
    assert_eq!(groups, [want, notes]);
}

#[test]
fn near_groups_do_not_depend_on_entry_order() {
    let texts: Vec<String> = (0..60)
        .map(|i| match i % 6 {
            0 => format!("用户偏好简洁的回复，不用列表（{i}）"),
            1 => "The user prefers short answers, no lists.".to_string() + &"!".repeat(i),
            2 => format!("触发「整理会议纪要」⇒ 第 {i} 份已归档"),
            3 => format!("deploy number {i} finished without errors"),
            4 => format!(
                "用户的第{i}个兴趣是{}",
                ["爬山", "游泳", "围棋", "摄影"][i % 4]
            ),
            _ => format!(
                "unrelated note {} about {}",
                i * 7919 % 1000,
                ["cats", "tea", "rust"][i % 3]
            ),
        })
        .collect();
    let sets = |order: &[usize]| {
        let t: Vec<&str> = order.iter().map(|&i| texts[i].as_str()).collect();
        let f = check(&t);
        // Back to the original indices, as sorted sets.
        let mut g: Vec<Vec<usize>> = near_groups(&f)
            .into_iter()
            .map(|g| {
                let mut g: Vec<usize> = g
                    .iter()
                    .map(|id| order[id[1..].parse::<usize>().unwrap()])
                    .collect();
                g.sort();
                g
            })
            .collect();
        g.sort();
        g
    };
    let straight: Vec<usize> = (0..texts.len()).collect();
    let expected = sets(&straight);
    assert!(expected.len() >= 4, "{expected:?}");
    let mut order = straight.clone();
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..20 {
        // Fisher–Yates with a fixed xorshift, so a failure repeats.
        for i in (1..order.len()).rev() {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            order.swap(i, (seed % (i as u64 + 1)) as usize);
        }
        assert_eq!(sets(&order), expected, "order {order:?}");
    }
}
