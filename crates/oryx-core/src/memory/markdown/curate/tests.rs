use super::*;
use crate::memory::change::inverse;

const FILE: &str = "# Agent memory\nsome preamble\n\n## 核心记忆\n- [2026-07-22 09:30:00] 用户偏好简洁的回复。\n\n## Notes\nfree text\n## 归档记忆\n- [2026-07-22 09:31:10] one\n- [2026-07-22 09:32:10] two\n- [2026-07-22 09:33:10] three\n";

fn ids(bytes: &[u8]) -> Vec<(String, String)> {
    let p = format::parse(bytes);
    let mut out = Vec::new();
    for (scope, list) in [
        (Scope::Core, &p.sections.core),
        (Scope::Archival, &p.sections.archival),
    ] {
        for (i, e) in list.iter().enumerate() {
            out.push((markdown_id(scope, i, &e.line), e.content.clone()));
        }
    }
    out
}

#[test]
fn spans_are_the_parsers() {
    for text in [
        FILE,
        "\u{feff}## 核心记忆\r\n- a\r\n\r\n## 归档记忆\r\n- b\r\n- c",
        "- stray\n## 归档记忆\n### sub\n- x\n## 归档记忆\n  \n- y\n",
        "",
    ] {
        let p = format::parse(text.as_bytes());
        let s = entry_spans(text.as_bytes());
        let key = |v: &[LineSpan]| v.iter().map(|l| (l.start, l.end)).collect::<Vec<_>>();
        assert_eq!(key(&s[0]), key(&p.core_lines), "{text:?}");
        assert_eq!(key(&s[1]), key(&p.archival_lines), "{text:?}");
    }
}

#[test]
fn edit_delete_move_keep_every_other_byte_and_undo_exactly() {
    let bytes = FILE.as_bytes();
    let all = ids(bytes);
    let steps = vec![
        Step::Replace {
            id: all[2].0.clone(),
            expect: "two".into(),
            scope: None,
            timestamp: None,
            content: "TWO".into(),
            line: None,
            raw: None,
        },
        Step::Remove {
            id: all[1].0.clone(),
            expect: "one".into(),
        },
        Step::Replace {
            id: all[3].0.clone(),
            expect: "three".into(),
            scope: Some(Scope::Core),
            timestamp: None,
            content: "three".into(),
            line: None,
            raw: None,
        },
    ];
    let (out, applied) = apply_steps(bytes, &steps).unwrap();
    let text = String::from_utf8(out.clone()).unwrap();
    assert_eq!(
        text,
        "# Agent memory\nsome preamble\n\n## 核心记忆\n- [2026-07-22 09:30:00] 用户偏好简洁的回复。\n- [2026-07-22 09:33:10] three\n\n## Notes\nfree text\n## 归档记忆\n- [2026-07-22 09:32:10] TWO\n"
    );
    let after: Vec<_> = applied
        .diffs
        .iter()
        .map(|d| d.after.clone().map(|a| a.id))
        .collect();
    let now = ids(&out);
    assert_eq!(after[0].as_deref(), Some(now[2].0.as_str()));
    assert_eq!(after[1], None);
    assert_eq!(after[2].as_deref(), Some(now[1].0.as_str()));
    let n = Some(out.len() as u64);
    assert!(holds(&out, &applied.splices, n));
    assert!(
        !holds(bytes, &applied.splices, n),
        "the old file does not hold the change"
    );
    // Exactly back.
    let inv = exact_inverse(&out, &applied.splices).unwrap();
    let (back, _) = apply_exact(&out, inv);
    assert_eq!(back, bytes);
    // Entry by entry (a file changed meanwhile) gives the same entries back in order.
    let (back2, _) = apply_steps(&out, &inverse(&applied.diffs)).unwrap();
    assert_eq!(String::from_utf8(back2).unwrap(), FILE);
}

#[test]
fn a_changed_entry_is_a_conflict_and_an_unknown_id_not_found() {
    let bytes = FILE.as_bytes();
    let all = ids(bytes);
    let e = apply_steps(
        bytes,
        &[Step::Remove {
            id: all[1].0.clone(),
            expect: "uno".into(),
        }],
    )
    .unwrap_err();
    assert!(matches!(e, CoreError::Conflict(_)), "{e}");
    let e = apply_steps(
        bytes,
        &[Step::Remove {
            id: "zz".into(),
            expect: "one".into(),
        }],
    )
    .unwrap_err();
    assert!(matches!(e, CoreError::NotFound(_)), "{e}");
    // Found again by its line after an entry before it went.
    let shifted = FILE.replace("- [2026-07-22 09:31:10] one\n", "");
    let (out, _) = apply_steps(
        shifted.as_bytes(),
        &[Step::Remove {
            id: all[3].0.clone(),
            expect: "three".into(),
        }],
    )
    .unwrap();
    assert!(!String::from_utf8(out).unwrap().contains("three"));
}

/// A change at the end of a file whose last line had no line break (as the runtime writes
/// it) wrote that break; the runtime then added its entry after the change. Taking the
/// change back byte for byte would take the break out and glue the runtime's entry onto
/// the line before: the exact inverse is refused, the change still stands, and the undo
/// entry by entry keeps every line.
#[test]
fn an_exact_undo_never_glues_a_line_added_after_the_change() {
    let file = "## 核心记忆\n## 归档记忆\n- [2026-01-01 00:00:00] one";
    let t = format::parse_entry("- [2026-02-01 00:00:00] x").timestamp;
    let add = Step::Insert {
        id: None,
        scope: Scope::Archival,
        timestamp: t,
        content: "summary".into(),
        line: None,
        raw: None,
    };
    let (out, applied) = apply_steps(file.as_bytes(), &[add]).unwrap();
    let out = String::from_utf8(out).unwrap();
    assert!(
        out.ends_with("one\n- [2026-02-01 00:00:00] summary\n"),
        "{out:?}"
    );
    let inv = exact_inverse(out.as_bytes(), &applied.splices).unwrap();
    assert_eq!(apply_exact(out.as_bytes(), inv).0, file.as_bytes());
    // The runtime's rewrite: the section trimmed, its entry after a line break.
    let raced = format!("{}\n- [2026-03-01 00:00:00] runtime", out.trim_end());
    assert!(standing(raced.as_bytes(), &applied.splices).is_some());
    assert_eq!(exact_inverse(raced.as_bytes(), &applied.splices), None);
    let (back, _) = apply_steps(raced.as_bytes(), &inverse(&applied.diffs)).unwrap();
    assert_eq!(
        String::from_utf8(back).unwrap(),
        "## 核心记忆\n## 归档记忆\n- [2026-01-01 00:00:00] one\n\
         - [2026-03-01 00:00:00] runtime"
    );
}

#[test]
fn restores_go_in_time_order_and_into_missing_sections() {
    let t = |s: &str| format::parse_entry(&format!("- [{s}] x")).timestamp;
    let (out, _) = apply_steps(
        FILE.as_bytes(),
        &[Step::Insert {
            id: None,
            scope: Scope::Archival,
            timestamp: t("2026-07-22 09:32:30"),
            content: "between".into(),
            line: None,
            raw: None,
        }],
    )
    .unwrap();
    assert!(String::from_utf8(out)
        .unwrap()
        .contains("two\n- [2026-07-22 09:32:30] between\n- [2026-07-22 09:33:10] three"));
    let (out, applied) = apply_steps(
        b"## \xe5\xbd\x92\xe6\xa1\xa3\xe8\xae\xb0\xe5\xbf\x86\n- a",
        &[Step::Insert {
            id: None,
            scope: Scope::Core,
            timestamp: None,
            content: "c".into(),
            line: None,
            raw: None,
        }],
    )
    .unwrap();
    assert_eq!(
        String::from_utf8(out.clone()).unwrap(),
        "## 核心记忆\n- c\n## 归档记忆\n- a"
    );
    assert_eq!(
        applied.diffs[0].after.as_ref().unwrap().id,
        markdown_id(Scope::Core, 0, "- c")
    );
    let inv = exact_inverse(&out, &applied.splices).unwrap();
    assert_eq!(apply_exact(&out, inv).0, "## 归档记忆\n- a".as_bytes());
}
