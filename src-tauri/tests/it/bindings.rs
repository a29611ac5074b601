//! `ui/src/bindings.ts` is generated from the Rust types and the operation registry, and
//! committed; this test fails when the committed file is stale. `ORYX_UPDATE_BINDINGS=1` (what
//! `make bindings` sets) rewrites it.

use std::fmt::Write as _;
use std::path::Path;

use oryx_api::ops::{self, Operation, Reads, Visitor};
use oryx_api::watch::ChangeKind;

/// `OP_READS`: for every operation, the change kinds that make its answer stale and whose
/// changes count (`"*"`: any agent's; a field, e.g. `"agent"`: the agent that argument names, the
/// global memory when absent; `"agent+global"`: that one's or the global memory's). The UI's
/// query hooks key and invalidate by it.
fn op_reads() -> String {
    struct Table(String);
    impl Visitor for Table {
        fn visit<O: Operation>(&mut self) {
            let kinds: Vec<String> = O::READS.iter().map(entry).collect();
            let kinds = if kinds.is_empty() {
                "{}".to_string()
            } else {
                format!("{{ {} }}", kinds.join(", "))
            };
            let _ = writeln!(self.0, "\t{}: {kinds},", O::NAME);
        }
    }
    fn entry(r: &Reads) -> String {
        let kind = match r.kind {
            ChangeKind::Memory => "memory",
            ChangeKind::Agents => "agents",
            ChangeKind::Sessions => "sessions",
            ChangeKind::Settings => "settings",
            ChangeKind::Checks => "checks",
        };
        let scope = match (r.agent_arg, r.global_too) {
            (None, _) => "*".to_string(),
            (Some(arg), false) => arg.to_string(),
            (Some(arg), true) => format!("{arg}+global"),
        };
        format!("{kind}: \"{scope}\"")
    }
    let mut t = Table(String::new());
    ops::visit(&mut t);
    format!(
        "\n/* Operation reads (from the registry's `reads`) */\n\n\
         /**\n \
         *  The change kinds that make each operation's answer stale, and whose changes count: \"*\"\n \
         *  any agent's; a field name, the agent that argument names (absent or null: the global\n \
         *  memory); \"<field>+global\", that agent's or the global memory's. A settings change makes\n \
         *  every answer stale.\n \
         */\nexport const OP_READS = {{\n{}}} as const;\n",
        t.0
    )
}

#[test]
fn committed_bindings_match_the_rust_types() {
    let committed = Path::new(env!("CARGO_MANIFEST_DIR")).join("../ui/src/bindings.ts");
    let dir = tempfile::tempdir().unwrap();
    let fresh = dir.path().join("bindings.ts");
    oryx_desktop::export_bindings(&fresh).unwrap();
    let fresh_text = std::fs::read_to_string(&fresh).unwrap() + &op_reads();
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
