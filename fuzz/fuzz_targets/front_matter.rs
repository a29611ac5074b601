//! Any text as AGENT.md / SKILL.md: front matter splitting and YAML parsing never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use oryx_core::frontmatter;

fuzz_target!(|bytes: &[u8]| {
    let text = String::from_utf8_lossy(bytes);
    let (yaml, body) = frontmatter::split(&text);
    assert!(text.ends_with(body));
    if let Some(yaml) = yaml {
        if let Ok(v) = frontmatter::parse(yaml) {
            assert!(v.is_object());
            let _ = frontmatter::get_str(&v, &["name"]);
            let _ = frontmatter::get_f64(&v, &["settings", "max_history_turns"]);
        }
    }
});
