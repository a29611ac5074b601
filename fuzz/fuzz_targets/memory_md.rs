//! Any bytes as MEMORY.md: the reader never panics, every entry is one line, an added entry
//! lands last in its section and every line of the old file survives the edit.
#![no_main]

use libfuzzer_sys::fuzz_target;
use oryx_core::memory::entry::Scope;
use oryx_core::memory::format;
use oryx_core::memory::window;

fn lines(bytes: &[u8]) -> Vec<String> {
    format::lines(bytes, format::bom_len(bytes))
        .map(|s| format::line_text(bytes, s).into_owned())
        .collect()
}

fuzz_target!(|bytes: &[u8]| {
    let parsed = format::parse(bytes);
    for e in parsed.sections.core.iter().chain(&parsed.sections.archival) {
        assert!(!e.line.contains('\n'), "an entry spans lines: {:?}", e.line);
    }
    for limit in [0, 7, 4000] {
        let w = window::compute(&parsed.sections.archival, limit);
        assert!(w.text.chars().count() <= limit.max(1) || limit == 0 && w.text.is_empty());
    }
    let old = lines(bytes);
    for scope in [Scope::Core, Scope::Archival] {
        let line = "- [2026-01-01 00:00:00] fuzz entry";
        let edit = format::plan_insert(bytes, &parsed, scope, line);
        let new_bytes = format::apply(bytes, &edit);
        let after = format::parse(&new_bytes);
        assert_eq!(
            after.sections.of(scope).last().map(|e| e.line.as_str()),
            Some(line)
        );
        assert_eq!(
            after.sections.of(scope).len(),
            parsed.sections.of(scope).len() + 1
        );
        let new = lines(&new_bytes);
        let mut it = new.iter();
        assert!(old.iter().all(|l| it.any(|n| n == l)), "a line went missing");
    }
});
