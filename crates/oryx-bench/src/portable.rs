//! The `portable` group: exporting the agent with the 100 MB MEMORY.md (entries as
//! JSON lines, the file byte for byte, checksums) against `tar czf` of the agent's folder.

use std::process::Command;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use oryx_core::memory::MarkdownMemoryStore;
use oryx_core::names::Owner;
use oryx_core::portable::export::{export, ExportOptions};

use crate::{gen, mb, Bench};

impl Bench {
    pub fn portable(&mut self) {
        let runs = self.scale.runs.clamp(1, 3);
        let root = self.data.root();
        let store = MarkdownMemoryStore::new(&root);
        let label = mb(std::fs::metadata(self.data.memory(gen::BIG)).unwrap().len());
        let work = self.data.dir.join("work-portable");
        let _ = std::fs::remove_dir_all(&work);
        std::fs::create_dir_all(&work).unwrap();
        let out = work.join("big.oryx.zip");
        let tgz = work.join("big.tgz");
        let never = AtomicBool::new(false);
        let mut ours = Vec::new();
        let mut tars = Vec::new();
        for _ in 0..runs {
            let t = Instant::now();
            let ok = Command::new("tar")
                .arg("czf")
                .arg(&tgz)
                .arg("-C")
                .arg(root.join("agents"))
                .arg(gen::BIG)
                .status()
                .unwrap();
            assert!(ok.success());
            tars.push(t.elapsed());
            let t = Instant::now();
            export(
                &root,
                &store,
                None,
                &ExportOptions {
                    owners: vec![Owner::Agent(gen::BIG.to_string())],
                    sessions: false,
                    include_history: false,
                },
                &out,
                &never,
                &mut |_| {},
            )
            .unwrap();
            ours.push(t.elapsed());
        }
        let med = |v: &mut Vec<Duration>| {
            v.sort();
            v[v.len() / 2]
        };
        let (a, b) = (med(&mut ours), med(&mut tars));
        let sizes = format!(
            " (archive {} vs {})",
            mb(std::fs::metadata(&out).unwrap().len()),
            mb(std::fs::metadata(&tgz).unwrap().len())
        );
        self.ratio_row(
            "export_vs_tar",
            format!("export of the agent with a {label} MEMORY.md (entries as JSON lines, the file, SHA-256s) ÷ tar czf of its folder"),
            2.0,
            a,
            b,
            &sizes,
        );
    }
}
