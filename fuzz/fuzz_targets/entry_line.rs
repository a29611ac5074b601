//! Any text saved as a memory: what we write is one line that reads back unchanged.
#![no_main]

use libfuzzer_sys::fuzz_target;
use oryx_core::memory::entry::{render_line, sanitize_content, Entry, Scope};
use oryx_core::memory::format;

fuzz_target!(|raw: &str| {
    let Ok(clean) = sanitize_content(raw) else {
        return;
    };
    let ts = chrono::NaiveDate::from_ymd_opt(2026, 1, 2)
        .and_then(|d| d.and_hms_opt(3, 4, 5))
        .unwrap();
    let line = render_line(Some(&ts), &clean);
    assert!(!line.contains('\n') && !line.contains('\r'));
    let parsed = format::parse(&format::new_file(Scope::Core, &line));
    assert_eq!(parsed.sections.core, vec![Entry::new(Some(ts), clean)]);
    assert!(parsed.sections.archival.is_empty());
});

