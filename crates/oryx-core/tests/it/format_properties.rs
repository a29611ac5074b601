//! Property tests of the MEMORY.md reader and writer and of AGENT.md front matter:
//! what we write reads back as written, an edit keeps every other line, the prompt's head/tail
//! load agrees with the full read, and no input makes any of it panic.

use chrono::{NaiveDate, NaiveDateTime};
use oryx_core::frontmatter;
use oryx_core::memory::entry::{is_runtime_space, render_line, sanitize_content, Entry, Scope};
use oryx_core::memory::format::{self, Edit};
use oryx_core::memory::{window, LongTermMemoryStore, MarkdownMemoryStore};
use oryx_core::names::Owner;
use proptest::prelude::*;

/// Text an agent might save: any Unicode, with line breaks, heading look-alikes and markup.
fn content() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => any::<String>(),
        2 => "[a-zA-Z0-9 .,!?\\-\\[\\]#]{1,60}",
        2 => "[\\p{Han}\\p{Hiragana}a-z ，。！？「」]{1,40}",
        1 => Just("x\n## 核心记忆\n- y ## 归档记忆".to_string()),
        1 => Just("  - [2026-01-01 00:00:00] looks like an entry  ".to_string()),
        1 => "(\r\n|\n|\t| |## |# |- |\\[|\\]|核心记忆|归档记忆|\u{feff}|\u{2028}|\u{85}|\u{a0}|\u{3000}|\0|\u{1b}|\u{1f}){1,12}",
    ]
}

fn timestamp() -> impl Strategy<Value = NaiveDateTime> {
    (
        2000i32..2100,
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

fn scope() -> impl Strategy<Value = Scope> {
    prop_oneof![Just(Scope::Core), Just(Scope::Archival)]
}

/// One line of a hand-edited or runtime-written MEMORY.md, in any dialect we read.
fn file_line() -> impl Strategy<Value = String> {
    prop_oneof![
        2 => prop_oneof![
            Just("## 核心记忆"), Just("## 归档记忆"), Just("# Core memory"),
            Just("### archival"), Just("## 核心记忆（core）"), Just("## 归档记忆 (archival)"),
            Just("## Notes"), Just("# MEMORY"), Just("##no-space"),
        ]
        .prop_map(String::from),
        4 => (timestamp(), "[^\n]{0,40}")
            .prop_map(|(ts, c)| format!("- [{}] {c}", ts.format("%Y-%m-%d %H:%M:%S"))),
        1 => "- [^\n]{0,30}",
        2 => "[^\n]{0,50}",
        1 => Just(String::new()),
        1 => Just("   \t".to_string()),
    ]
}

/// A whole file: lines joined by LF or CRLF, maybe a BOM, maybe no final newline.
fn file_bytes() -> impl Strategy<Value = Vec<u8>> {
    (
        prop::collection::vec(file_line(), 0..24),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(lines, crlf, bom, final_nl)| {
            let nl = if crlf { "\r\n" } else { "\n" };
            let mut text = lines.join(nl);
            if final_nl && !lines.is_empty() {
                text.push_str(nl);
            }
            let mut bytes = if bom {
                b"\xEF\xBB\xBF".to_vec()
            } else {
                vec![]
            };
            bytes.extend_from_slice(text.as_bytes());
            bytes
        })
}

fn line_texts(bytes: &[u8]) -> Vec<String> {
    // Every leading BOM (a rewrite drops them all, CONTRACT §12).
    let mut from = 0;
    while bytes[from..].starts_with(b"\xEF\xBB\xBF") {
        from += 3;
    }
    format::lines(bytes, from)
        // Carriage returns ending a line are its line ending (a rewrite writes one style).
        .map(|span| {
            format::line_text(bytes, span)
                .trim_end_matches('\r')
                .to_string()
        })
        .collect()
}

/// `small` in order inside `big`.
fn is_subsequence(small: &[String], big: &[String]) -> bool {
    let mut it = big.iter();
    small.iter().all(|s| it.any(|b| b == s))
}

/// Section headings as a rewrite writes them.
fn canonical(lines: &[String]) -> Vec<String> {
    lines
        .iter()
        .map(|l| match format::classify(l) {
            format::LineKind::Heading(Some(s)) => format::heading_of(s).to_string(),
            _ => l.clone(),
        })
        .collect()
}

const DEL: char = '\u{7f}';

/// The model of a copied entry's place (see `format::plan_insert_in_order`).
fn in_time_order(section: &mut Vec<Entry>, e: Entry) {
    let ts = e.timestamp.expect("copies carry their time");
    let at = match section
        .iter()
        .rposition(|x| x.timestamp.is_some_and(|t| t <= ts))
    {
        Some(j) => j + 1,
        None if section.iter().any(|x| x.timestamp.is_some()) => 0,
        None => section.len(),
    };
    section.insert(at, e);
}

fn owner() -> Owner {
    Owner::Agent("prop".into())
}

proptest! {
    // 256 cases each (proptest's default); `make reliability` sets PROPTEST_CASES=4096.

    /// Every line we write reads back with the same time and content.
    #[test]
    fn written_entries_read_back(raw in content(), ts in timestamp()) {
        let Ok(clean) = sanitize_content(&raw) else {
            // Only what the runtime calls whitespace, and control characters (spaces to us).
            let spaces = raw.chars().all(|c| is_runtime_space(c) || (c.is_ascii_control() && c != DEL));
            prop_assert!(spaces, "{:?} was refused", raw);
            return Ok(());
        };
        let controls = clean.chars().any(|c| c.is_ascii_control() && c != '\t' && c != DEL);
        prop_assert!(!controls, "a control character in {:?}", clean);
        let line = render_line(Some(&ts), &clean);
        let parsed = format::parse(&format::new_file(Scope::Archival, &line));
        prop_assert_eq!(parsed.sections.archival.clone(), vec![Entry::new(Some(ts), clean)]);
        prop_assert!(parsed.sections.core.is_empty());
    }

    /// Adding entries to any file puts them at the end of their section, in order, and leaves
    /// every line that was there before in place.
    #[test]
    fn edits_keep_everything_else(
        base in file_bytes(),
        adds in prop::collection::vec((scope(), content(), timestamp()), 1..6),
    ) {
        let before = format::parse(&base);
        let mut expected = before.sections.clone();
        let mut bytes = base.clone();
        let mut added_lines = 0;
        for (scope, raw, ts) in adds {
            let Ok(clean) = sanitize_content(&raw) else { continue };
            let line = render_line(Some(&ts), &clean);
            let parsed = format::parse(&bytes);
            let had_section = parsed.span(scope).is_some();
            bytes = if bytes.is_empty() {
                added_lines += 2;
                format::new_file(scope, &line)
            } else {
                let edit = format::plan_insert(&bytes, &parsed, scope, &line);
                if let Edit::Insert(at, _) = &edit {
                    prop_assert!(*at <= bytes.len());
                }
                format::apply(&bytes, &edit)
            };
            added_lines += if had_section { 1 } else { 2 };
            match scope {
                Scope::Core => expected.core.push(Entry::new(Some(ts), clean)),
                Scope::Archival => expected.archival.push(Entry::new(Some(ts), clean)),
            }
        }
        let after = format::parse(&bytes);
        prop_assert_eq!(&after.sections.core, &expected.core);
        prop_assert_eq!(&after.sections.archival, &expected.archival);
        let (old, new) = (line_texts(&base), line_texts(&bytes));
        prop_assert!(is_subsequence(&old, &new), "a line of the old file went missing");
        // A file that ended without a newline gets one before the first addition (no new line).
        prop_assert!(new.len() <= old.len() + added_lines);
        prop_assert!(bytes.starts_with(&base[..format::bom_len(&base)]));
    }

    /// The store does the same through the real file, lock and fast append path — except that
    /// an entry with a time of its own (a copy) goes in time order: after the last entry
    /// stamped at or before it, before the first when every stamped one is later.
    #[test]
    fn store_appends_to_any_file(
        base in file_bytes(),
        adds in prop::collection::vec((scope(), "[a-z0-9 ]{0,8}[a-z0-9]", timestamp()), 1..5),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let store = MarkdownMemoryStore::new(dir.path());
        let path = store.path(&owner());
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &base).unwrap();
        let mut expected = store.load_all(&owner()).unwrap();
        for (scope, raw, ts) in adds {
            let Ok(c) = sanitize_content(&raw) else { continue };
            let e = store.append(&owner(), scope, &c, Some(ts)).unwrap();
            match scope {
                Scope::Core => in_time_order(&mut expected.core, e),
                Scope::Archival => in_time_order(&mut expected.archival, e),
            }
            let now = store.load_all(&owner()).unwrap();
            prop_assert_eq!(&now.core, &expected.core);
            prop_assert_eq!(&now.archival, &expected.archival);
        }
        let bytes = std::fs::read(&path).unwrap();
        // A rewrite writes section headings in their canonical form (CONTRACT §12); every other
        // line stays.
        prop_assert!(is_subsequence(&canonical(&line_texts(&base)), &canonical(&line_texts(&bytes))));
    }

    /// What the console rewrites, the runtime reads as we do: no BOM, canonical headings, one
    /// line ending. A plain append leaves the file as it was, plus a line in the file's style.
    #[test]
    fn rewrites_are_what_the_runtime_reads(base in file_bytes(), scope in scope(), ts in timestamp()) {
        let dir = tempfile::tempdir().unwrap();
        let store = MarkdownMemoryStore::new(dir.path());
        let path = store.path(&owner());
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &base).unwrap();
        let ino = std::os::unix::fs::MetadataExt::ino(&std::fs::metadata(&path).unwrap());
        store.append(&owner(), scope, "x", Some(ts)).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        let crlf_lines = bytes.windows(2).filter(|w| w == b"\r\n").count();
        let lf_lines = bytes.iter().filter(|&&b| b == b'\n').count();
        let rewritten = std::os::unix::fs::MetadataExt::ino(&std::fs::metadata(&path).unwrap()) != ino;
        if rewritten {
            prop_assert_eq!(format::bom_len(&bytes), 0);
            for l in line_texts(&bytes) {
                if let format::LineKind::Heading(Some(s)) = format::classify(&l) {
                    prop_assert_eq!(l.as_str(), format::heading_of(s));
                }
            }
            prop_assert!(crlf_lines == 0 || crlf_lines == lf_lines, "mixed line endings");
        } else {
            prop_assert!(bytes.starts_with(&base));
            // A last line ending in a lone `\r` is finished with `\n`: count that pair as ours.
            let tail = &bytes[base.len() - usize::from(base.ends_with(b"\r"))..];
            let tail_crlf = tail.windows(2).filter(|w| w == b"\r\n").count();
            let tail_lf = tail.iter().filter(|&&b| b == b'\n').count();
            if format::uses_crlf(&base) {
                prop_assert_eq!(tail_crlf, tail_lf);
            } else {
                prop_assert_eq!(tail_crlf, usize::from(base.ends_with(b"\r")));
            }
        }
    }

    /// The prompt's load (head and tail of a big file) gives the same core and window as a full
    /// read of the same file. (Not covered, by design: a hand-edited file with an archival heading
    /// *before* a core heading and a second archival section after it — the head read stops at
    /// the first archival heading; see docs/RELIABILITY.md.)
    #[test]
    fn head_tail_load_matches_full_read(
        head in file_bytes().prop_filter("no archival heading before the last one", |b| {
            !line_texts(b).iter().any(|l| {
                format::classify(l) == format::LineKind::Heading(Some(Scope::Archival))
            })
        }),
        tail in prop::collection::vec(file_line(), 0..12),
        limit in prop_oneof![Just(4000usize), 0usize..300],
        pad_line in "[a-z ，。一-龥]{5,80}",
    ) {
        let dir = tempfile::tempdir().unwrap();
        let store = MarkdownMemoryStore::new(dir.path());
        let path = store.path(&owner());
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        // Past the small-file size, so the head/tail path runs whenever the shape allows it.
        let mut bytes = head;
        bytes.extend_from_slice("\n## 归档记忆\n".as_bytes());
        let mut i = 0;
        while bytes.len() < 300 * 1024 {
            bytes.extend_from_slice(format!("- [2026-01-01 00:00:00] {i} {pad_line}\n").as_bytes());
            i += 1;
        }
        bytes.extend_from_slice(tail.join("\n").as_bytes());
        std::fs::write(&path, &bytes).unwrap();
        let full = store.load_all(&owner()).unwrap();
        let ctx = store.load_context(&owner(), limit).unwrap();
        prop_assert_eq!(&ctx.core, &full.core);
        prop_assert_eq!(
            window::compute(&ctx.archival_tail, limit).text,
            window::compute(&full.archival, limit).text
        );
    }

    /// Arbitrary bytes: the reader never panics, and every entry it finds is one line.
    #[test]
    fn any_bytes_parse(bytes in prop::collection::vec(any::<u8>(), 0..2048)) {
        let parsed = format::parse(&bytes);
        for e in parsed.sections.core.iter().chain(&parsed.sections.archival) {
            prop_assert!(!e.line.contains('\n'));
        }
        for scope in [Scope::Core, Scope::Archival] {
            let edit = format::plan_insert(&bytes, &parsed, scope, "- x");
            let after = format::parse(&format::apply(&bytes, &edit));
            prop_assert_eq!(after.sections.of(scope).last().map(|e| e.line.as_str()), Some("- x"));
        }
    }

    /// Front matter: splitting and parsing never panic; the body is always a suffix of the text.
    #[test]
    fn front_matter_never_panics(
        text in prop_oneof![
            any::<String>(),
            ("---\n", "[^\0]{0,200}", prop_oneof![Just("\n---\n"), Just("\n...\n"), Just("")], "[^\0]{0,50}")
                .prop_map(|(a, b, c, d)| format!("{a}{b}{c}{d}")),
        ]
    ) {
        let (yaml, body) = frontmatter::split(&text);
        prop_assert!(text.ends_with(body));
        if let Some(yaml) = yaml {
            if let Ok(v) = frontmatter::parse(yaml) {
                prop_assert!(v.is_object());
                let _ = frontmatter::get_str(&v, &["name"]);
                let _ = frontmatter::get_f64(&v, &["settings", "max_history_turns"]);
            }
        }
    }
}

// A front matter key set in place keeps every line it does not own — comments,
// unknown keys, their order — and reads back as asked.
fn fm_line() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z_]{1,8}".prop_map(|k| format!("x_{k}: keep")),
        "[a-z ]{0,12}".prop_map(|c| format!("# {c}")),
        Just("team:\n  lead: ann  # owner\n  size: 3".to_string()),
        Just("description: 助理".to_string()),
        Just("provider:\n  name: openai\n  model: gpt-4o-mini  # cheap".to_string()),
        Just("tools: [save_memory, recall_memory]".to_string()),
    ]
}

proptest! {
    #[test]
    fn a_key_set_in_place_keeps_every_other_line(
        lines in proptest::collection::vec(fm_line(), 0..8),
        which in 0usize..4,
        value in "[a-z0-9]{1,10}",
    ) {
        use oryx_core::yaml_edit;
        // Keys may repeat in generated text; YAML forbids that, so keep the first of each.
        let mut seen = std::collections::HashSet::new();
        let lines: Vec<String> = lines
            .into_iter()
            .filter(|l| {
                let key = l.split(':').next().unwrap_or("").to_string();
                l.starts_with('#') || seen.insert(key)
            })
            .collect();
        let fm = lines.iter().map(|l| format!("{l}\n")).collect::<String>();
        let path: &[&str] = [
            &["provider", "model"][..],
            &["description"][..],
            &["settings", "max_history_turns"][..],
            &["identity", "prompt"][..],
        ][which];
        let v = if which == 2 {
            serde_json::json!(value.len())
        } else {
            serde_json::json!(format!("v{value}"))
        };
        let out = yaml_edit::set(&fm, path, Some(&v)).unwrap();
        let parsed = oryx_core::frontmatter::parse(&out).unwrap();
        let mut got = &parsed;
        for k in path {
            got = &got[*k];
        }
        prop_assert_eq!(got, &v);
        // Every line of the original that is not the edited key's own stays, in order.
        let leaf = format!("{}:", path[path.len() - 1]);
        let kept: Vec<&str> = fm
            .lines()
            .filter(|l| !l.trim_start().starts_with(&leaf))
            .collect();
        let mut it = out.lines();
        for k in &kept {
            prop_assert!(it.any(|l| l == *k), "lost {:?} in {:?}", k, out);
        }
    }
}
