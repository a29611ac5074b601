use super::blocks::*;
use super::edit::*;
use super::lines::*;
use super::parse::*;
use crate::memory::entry::Scope;

const JAVA: &str = "# Agent memory\nsome preamble\n\n## 核心记忆\n- [2026-07-22 09:30:00] 用户偏好简洁的回复，不用列表。\n\n## 归档记忆\n- [2026-07-22 09:31:10] 触发「帮我总结日志」⇒ 已总结 3 个错误…\n";

/// A line longer than the cap is handed out as its first `cap` bytes: the buffer never
/// grows past the cap and a block, and the lines after it arrive whole.
#[test]
fn the_block_reader_cuts_a_giant_line_at_its_cap() {
    let mut text = b"- a\n- ".to_vec();
    text.resize(text.len() + (BLOCK * 2 + 5), b'x');
    text.extend_from_slice(b"\r\n- b\n- c");
    let cap = 1000;
    let mut r = BlockReader::with_line_cap(std::io::Cursor::new(&text), cap);
    let mut got = Vec::new();
    while let Some((block, from)) = r.next_block().unwrap() {
        for span in lines(block, from) {
            got.push(block[span.start..span.end].to_vec());
        }
        assert!(r.buf.len() <= cap + BLOCK, "{}", r.buf.len());
    }
    assert_eq!(got.len(), 4);
    assert_eq!(got[0], b"- a");
    assert_eq!(got[1].len(), cap);
    assert!(got[1].starts_with(b"- xxx"));
    assert_eq!((&got[2][..], &got[3][..]), (&b"- b"[..], &b"- c"[..]));
    assert_eq!(r.cut_lines(), 1);
}

/// Found by the property tests: a last line ending in a lone `\r` is not a finished line.
#[test]
fn an_entry_after_a_lone_carriage_return_starts_its_own_line() {
    let bytes = "## 核心记忆\n¡\r".as_bytes();
    let parsed = parse(bytes);
    let after = apply(bytes, &plan_insert(bytes, &parsed, Scope::Core, "- x"));
    assert_eq!(after, "## 核心记忆\n¡\r\n- x\n".as_bytes());
    let lines: Vec<_> = parse(&after)
        .sections
        .core
        .into_iter()
        .map(|e| e.line)
        .collect();
    assert_eq!(lines, ["¡", "- x"]);
}

#[test]
fn a_file_of_only_a_bom_gets_no_blank_first_line() {
    let bytes = b"\xEF\xBB\xBF";
    let after = apply(
        bytes,
        &plan_insert(bytes, &parse(bytes), Scope::Core, "- x"),
    );
    assert_eq!(after, "\u{feff}## 核心记忆\n- x\n".as_bytes());
}

#[test]
fn reads_the_java_dialect() {
    let p = parse(JAVA.as_bytes());
    assert_eq!(p.sections.core.len(), 1);
    assert_eq!(p.sections.core[0].content, "用户偏好简洁的回复，不用列表。");
    assert_eq!(
        p.sections.core[0]
            .timestamp
            .map(|t| crate::timefmt::format_entry_ts(&t)),
        Some("2026-07-22 09:30:00".into())
    );
    assert_eq!(p.sections.archival.len(), 1);
    assert!(p.archival_ends_file(JAVA.len()));
}

#[test]
fn heading_variants() {
    for h in [
        "## 核心记忆",
        "## 核心记忆（core）",
        "## 核心记忆 (core)",
        "## Core",
        "## CORE",
        "##   core  ",
    ] {
        assert_eq!(classify(h), LineKind::Heading(Some(Scope::Core)), "{h}");
    }
    for h in [
        "## 归档记忆",
        "## 归档记忆（archival）",
        "## Archival",
        "## archival",
    ] {
        assert_eq!(classify(h), LineKind::Heading(Some(Scope::Archival)), "{h}");
    }
    assert_eq!(classify("## Notes"), LineKind::Heading(None));
    assert_eq!(classify("## 核心记忆（archival）"), LineKind::Heading(None));
    assert_eq!(classify("##核心记忆"), LineKind::Text);
    assert_eq!(classify("- ## 核心记忆"), LineKind::Text);
}

#[test]
fn older_and_odd_lines() {
    let text = "\u{feff}## Core\r\n- [2026-01-02] dated\r\n- [2026-01-02 03:04] minutes\r\n- no time\r\nplain line\r\n-[bad] x\r\n## Archival\r\n  \r\n- [not a date] kept\r\n";
    let p = parse(text.as_bytes());
    assert!(p.crlf);
    let core: Vec<_> = p
        .sections
        .core
        .iter()
        .map(|e| (e.timestamp.is_some(), e.content.as_str()))
        .collect();
    assert_eq!(
        core,
        vec![
            (true, "dated"),
            (true, "minutes"),
            (false, "no time"),
            (false, "plain line"),
            (false, "-[bad] x")
        ]
    );
    assert_eq!(p.sections.archival[0].content, "[not a date] kept");
    assert_eq!(p.sections.archival[0].timestamp, None);
}

#[test]
fn other_headings_end_a_section_and_are_kept() {
    let text = "## 核心记忆\n- a\n## Notes\n- not memory\n## 归档记忆\n- b\n## Tail\ntext\n";
    let p = parse(text.as_bytes());
    assert_eq!(p.sections.core.len(), 1);
    assert_eq!(p.sections.archival.len(), 1);
    assert!(!p.archival_ends_file(text.len()));
    let edit = plan_insert(text.as_bytes(), &p, Scope::Archival, "- c");
    let out = String::from_utf8(apply(text.as_bytes(), &edit)).unwrap();
    assert_eq!(
        out,
        "## 核心记忆\n- a\n## Notes\n- not memory\n## 归档记忆\n- b\n- c\n## Tail\ntext\n"
    );
}

#[test]
fn edits_keep_every_other_byte() {
    let p = parse(JAVA.as_bytes());
    let edit = plan_insert(
        JAVA.as_bytes(),
        &p,
        Scope::Core,
        "- [2026-07-23 00:00:00] new",
    );
    let out = String::from_utf8(apply(JAVA.as_bytes(), &edit)).unwrap();
    assert_eq!(
        out,
        JAVA.replace("列表。\n", "列表。\n- [2026-07-23 00:00:00] new\n")
    );
    let edit = plan_insert(JAVA.as_bytes(), &p, Scope::Archival, "- x");
    assert_eq!(edit, Edit::Append(b"- x\n".to_vec()));
}

#[test]
fn missing_sections_are_created_in_order() {
    let text = "preamble without newline";
    let p = parse(text.as_bytes());
    let out = apply(
        text.as_bytes(),
        &plan_insert(text.as_bytes(), &p, Scope::Archival, "- a"),
    );
    assert_eq!(
        String::from_utf8_lossy(&out),
        "preamble without newline\n## 归档记忆\n- a\n"
    );
    let p = parse(&out);
    let out2 = apply(&out, &plan_insert(&out, &p, Scope::Core, "- c"));
    assert_eq!(
        String::from_utf8_lossy(&out2),
        "preamble without newline\n## 核心记忆\n- c\n## 归档记忆\n- a\n"
    );
    let p = parse(&out2);
    assert_eq!(p.sections.core.len(), 1);
    assert_eq!(p.sections.archival.len(), 1);
}

#[test]
fn crlf_files_stay_crlf_and_unterminated_last_lines_are_fixed() {
    let text = "## 核心记忆\r\n- a\r\n## 归档记忆\r\n- b";
    let p = parse(text.as_bytes());
    let out = apply(
        text.as_bytes(),
        &plan_insert(text.as_bytes(), &p, Scope::Archival, "- c"),
    );
    assert_eq!(
        String::from_utf8_lossy(&out),
        "## 核心记忆\r\n- a\r\n## 归档记忆\r\n- b\r\n- c\r\n"
    );
}

/// The runtime's heading pattern is `^## 核心记忆\s*$`: a `###` line naming a section is an
/// ordinary line of the section it stands in, for it and for us.
#[test]
fn other_levels_naming_a_section_are_text() {
    assert_eq!(classify("### 核心记忆"), LineKind::Text);
    assert_eq!(classify("# Core"), LineKind::Text);
    assert_eq!(classify("### Notes"), LineKind::Heading(None));
    let p = parse("## 归档记忆\n- a\n### 核心记忆\n- b\n".as_bytes());
    assert!(p.sections.core.is_empty());
    let lines: Vec<_> = p
        .sections
        .archival
        .iter()
        .map(|e| e.line.as_str())
        .collect();
    assert_eq!(lines, ["- a", "### 核心记忆", "- b"]);
}

#[test]
fn no_break_spaces_are_not_blank() {
    let p =
        parse("## 归档记忆\n\u{a0}\n- [2026-01-01 00:00:00] \u{a0}x\u{a0}\n\u{3000}\n".as_bytes());
    let contents: Vec<_> = p
        .sections
        .archival
        .iter()
        .map(|e| e.content.as_str())
        .collect();
    assert_eq!(contents, ["\u{a0}", "\u{a0}x\u{a0}"]);
}

#[test]
fn a_rewrite_is_what_the_runtime_reads() {
    let text = "\u{feff}# notes\r\n## Core\r\n- a\n##  核心记忆（core）\r\n- b\r\n## Archival (archival)\r\n- c\r\n## Other\r\nx\r";
    let out = String::from_utf8(normalize(text.as_bytes(), uses_crlf(text.as_bytes()))).unwrap();
    assert_eq!(
        out,
        "# notes\r\n## 核心记忆\r\n- a\r\n## 核心记忆\r\n- b\r\n## 归档记忆\r\n- c\r\n## Other\r\nx\r\n"
    );
    assert!(!uses_crlf(b"a\r\nb\nc\n"), "the majority decides");
    assert_eq!(normalize(b"a\r\nb\nc", false), b"a\nb\nc");
    assert_eq!(normalize(b"a \r\r\nb\r", false), b"a \nb\n");
    assert_eq!(normalize("\u{feff}\u{feff}x".as_bytes(), false), b"x");
}

#[test]
fn restores_go_to_their_place_in_time() {
    let text = "## 核心记忆\n- [2026-01-01 00:00:05] c\n## 归档记忆\n- [2026-01-01 00:00:01] a\n- untimed\n- [2026-01-01 00:00:09] z\n";
    let p = parse(text.as_bytes());
    let ts = crate::timefmt::parse_entry_ts("2026-01-01 00:00:05");
    let (at, add) = plan_restore(
        text.as_bytes(),
        &p,
        Scope::Archival,
        ts,
        "- [2026-01-01 00:00:05] m",
    )
    .unwrap();
    let out =
        String::from_utf8([&text.as_bytes()[..at], &add, &text.as_bytes()[at..]].concat()).unwrap();
    assert!(
        out.contains("- untimed\n- [2026-01-01 00:00:05] m\n- [2026-01-01 00:00:09] z\n"),
        "{out}"
    );
    let early = crate::timefmt::parse_entry_ts("2025-01-01 00:00:00");
    let (at, _) = plan_restore(text.as_bytes(), &p, Scope::Core, early, "- x").unwrap();
    assert_eq!(at, "## 核心记忆\n".len());
}

#[test]
fn invalid_utf8_is_read_lossily_and_kept_on_edit() {
    let mut bytes =
        b"## \xE6\xA0\xB8\xE5\xBF\x83\xE8\xAE\xB0\xE5\xBF\x86\n- bad \xFF byte\n".to_vec();
    bytes.extend_from_slice("## 归档记忆\n".as_bytes());
    let p = parse(&bytes);
    assert_eq!(p.sections.core.len(), 1);
    let out = apply(&bytes, &plan_insert(&bytes, &p, Scope::Core, "- ok"));
    assert!(out.windows(1).any(|w| w == b"\xFF"));
}
