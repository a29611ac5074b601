//! The sample install (`oryx demo`) in a temporary folder, with its own console settings, and
//! `oryx` run against it.

use std::path::PathBuf;
use std::process::Output;

use serde_json::Value;

use super::oryx;

pub struct DemoInstall {
    pub t: tempfile::TempDir,
    /// The install: `.oryxos`, `oryxos.db`, `config/`.
    pub dir: PathBuf,
}

impl DemoInstall {
    pub fn new() -> DemoInstall {
        let t = tempfile::tempdir().unwrap();
        let dir = t.path().join("inst");
        let out = oryx(&t.path().join("console"))
            .args(["demo", dir.to_str().unwrap()])
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        DemoInstall { t, dir }
    }

    /// The console's settings folder.
    pub fn config(&self) -> PathBuf {
        self.t.path().join("console")
    }

    pub fn root(&self) -> PathBuf {
        self.dir.join(".oryxos")
    }

    /// `oryx --root <root> ARGS`, which must succeed.
    pub fn run(&self, args: &[&str]) -> Output {
        let out = oryx(&self.config())
            .args(["--root", self.root().to_str().unwrap()])
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "oryx {args:?}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        out
    }

    /// The same with `--json`, parsed.
    pub fn json(&self, args: &[&str]) -> Value {
        let mut all = vec!["--json"];
        all.extend_from_slice(args);
        serde_json::from_slice(&self.run(&all).stdout).unwrap()
    }

    /// The id of `agent`'s archival entry whose content `matches`.
    pub fn archival_id(&self, agent: &str, matches: impl Fn(&str) -> bool) -> String {
        let shown = self.json(&["memory", "show", "--agent", agent]);
        shown["archival"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| matches(e["content"].as_str().unwrap_or_default()))
            .map(|e| e["id"].as_str().unwrap().to_string())
            .unwrap_or_else(|| panic!("no such archival entry of {agent}"))
    }
}
