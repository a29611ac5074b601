//! `ui/src/bindings.ts` is generated from the Rust types and committed; this test fails when the
//! committed file is stale. `ORYX_UPDATE_BINDINGS=1` (what `make bindings` sets) rewrites it.

use std::path::Path;

#[test]
fn committed_bindings_match_the_rust_types() {
    let committed = Path::new(env!("CARGO_MANIFEST_DIR")).join("../ui/src/bindings.ts");
    let dir = tempfile::tempdir().unwrap();
    let fresh = dir.path().join("bindings.ts");
    oryx_desktop::export_bindings(&fresh).unwrap();
    let fresh_text = std::fs::read_to_string(&fresh).unwrap();
    if std::env::var_os("ORYX_UPDATE_BINDINGS").is_some() {
        std::fs::write(&committed, &fresh_text).unwrap();
        return;
    }
    let old = std::fs::read_to_string(&committed).unwrap_or_default();
    assert!(
        old == fresh_text,
        "ui/src/bindings.ts is out of date with the Rust DTOs: run `make bindings` and commit it"
    );
}
