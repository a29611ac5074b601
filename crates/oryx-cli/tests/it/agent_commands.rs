//! Managing agents through the real `oryx` binary: creating, cloning, editing, skills, archive and
//! restore, and the user's files, in the documented forms; what is written is what the
//! runtime's loader reads (checked with the console's own reader of AGENT.md).

use crate::common;

use std::path::PathBuf;
use std::process::Output;

use serde_json::Value;

struct Env {
    _dir: tempfile::TempDir,
    config: PathBuf,
    root: PathBuf,
}

impl Env {
    fn new() -> Env {
        let dir = tempfile::tempdir().unwrap();
        let env = Env {
            config: dir.path().join("config"),
            root: dir.path().join("root"),
            _dir: dir,
        };
        let out = env.run(&["demo", "--bare", env.root.to_str().unwrap()]);
        assert!(out.status.success());
        env
    }

    fn run(&self, args: &[&str]) -> Output {
        common::oryx(&self.config)
            .args(["--root", self.root.to_str().unwrap()])
            .args(args)
            .output()
            .unwrap()
    }

    fn json(&self, args: &[&str]) -> Value {
        let mut all = vec!["--json"];
        all.extend_from_slice(args);
        let out = self.run(&all);
        assert!(
            out.status.success(),
            "oryx {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    }
}

#[test]
fn agents_are_created_edited_and_archived_in_the_documented_forms() {
    let env = Env::new();
    let a = env.json(&[
        "agent",
        "create",
        "helper",
        "--description",
        "helps out",
        "--model",
        "gpt-4o",
        "--provider",
        "openai",
        "--body",
        "# Helper\nBe brief.\n",
    ]);
    assert_eq!(a["summary"]["model"], "gpt-4o");
    assert!(
        a["summary"]["warnings"].as_array().unwrap().is_empty(),
        "{a}"
    );
    let md = env.root.join("agents/helper/AGENT.md");
    let text = std::fs::read_to_string(&md).unwrap();
    assert!(text.starts_with("---\nname: helper\n"), "{text}");
    assert!(text.ends_with("---\n# Helper\nBe brief.\n"), "{text}");
    // Taken and invalid names.
    let out = env.run(&["agent", "create", "helper"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("error[conflict]"));
    let out = env.run(&["agent", "create", "../x"]);
    assert_eq!(out.status.code(), Some(2));

    // A hand-written comment and an unknown key survive a key set.
    let commented = text.replace("name: helper\n", "name: helper  # keep me\nteam: infra\n");
    std::fs::write(&md, &commented).unwrap();
    env.json(&["agent", "set", "helper", "provider.model", "gpt-4.1"]);
    env.json(&["agent", "set", "helper", "settings.max_history_turns", "12"]);
    let now = std::fs::read_to_string(&md).unwrap();
    assert!(
        now.contains("name: helper  # keep me\nteam: infra\n"),
        "{now}"
    );
    assert!(now.contains("  model: gpt-4.1\n"), "{now}");
    let a = env.json(&["agent", "helper"]);
    assert_eq!(a["summary"]["model"], "gpt-4.1");
    assert_eq!(a["max_history_turns"], 12);
    let out = env.run(&[
        "agent",
        "set",
        "helper",
        "settings.max_history_turns",
        "lots",
    ]);
    assert_eq!(out.status.code(), Some(2), "a wrong type is refused");
    assert!(std::fs::read_to_string(&md)
        .unwrap()
        .contains("max_history_turns: 12"));

    // Clone: front matter and body, not the memory.
    env.json(&["agent", "create", "helper-two", "--from", "assistant"]);
    let a = env.json(&["agent", "helper-two"]);
    assert_eq!(a["summary"]["memory"]["archival"], 0);
    assert!(
        a["summary"]["warnings"].as_array().unwrap().is_empty(),
        "{a}"
    );

    // Skills.
    let root_skills: Vec<String> = std::fs::read_dir(env.root.join("skills"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let s = &root_skills[0];
    let skills = env.json(&["agent", "skills", "helper", "--add", s]);
    assert_eq!(skills[0]["name"], s.as_str());
    assert_eq!(
        std::fs::read_link(env.root.join("agents/helper/skills").join(s)).unwrap(),
        PathBuf::from(format!("../../../skills/{s}"))
    );
    let skills = env.json(&["agent", "skills", "helper", "--remove", s]);
    assert_eq!(skills.as_array().unwrap().len(), 0);
    assert!(env.root.join("skills").join(s).is_dir());

    // Archive, list, restore under its name and under another.
    let arch = env.json(&["agent", "archive", "helper"]);
    let archived_name = arch["archived_name"].as_str().unwrap().to_string();
    assert!(env
        .root
        .join("archive")
        .join(&archived_name)
        .join("AGENT.md")
        .exists());
    let list = env.json(&["agents", "--archived"]);
    assert_eq!(list[0]["name"], "helper");
    env.json(&["agent", "create", "helper-three"]);
    let out = env.run(&["agent", "create", "helper"]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "an archived agent's name needs a choice"
    );
    env.json(&["agent", "restore", &archived_name]);
    assert!(md.exists());
    let arch = env.json(&["agent", "archive", "helper"]);
    let archived_name = arch["archived_name"].as_str().unwrap().to_string();
    env.json(&[
        "agent",
        "create",
        "helper",
        "--from",
        "helper-three",
        "--reuse-archived-name",
    ]);
    let out = env.run(&["agent", "restore", &archived_name]);
    assert_eq!(out.status.code(), Some(1), "the name is taken");
    let back = env.json(&["agent", "restore", &archived_name, "--as", "helper-old"]);
    assert_eq!(back["summary"]["name"], "helper-old");
    assert!(
        back["summary"]["warnings"].as_array().unwrap().is_empty(),
        "{back}"
    );

    // The user's files.
    let f = env.json(&["file", "edit", "USER.md", "--text", "# me\nlikes tea\n"]);
    assert_eq!(f["content"], "# me\nlikes tea\n");
    assert_eq!(
        std::fs::read_to_string(env.root.join("USER.md")).unwrap(),
        "# me\nlikes tea\n"
    );
    let out = env.run(&["file", "edit", "../outside.md", "--text", "x"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!env.root.parent().unwrap().join("outside.md").exists());
}

/// Archive and restore leave an agent's database memory (and its sessions) where they are: on
/// sqlite the rows stay, are not listed while the agent is archived, and are back on restore.
#[test]
fn archive_and_restore_keep_database_memory() {
    let env = Env::new();
    let add = env.run(&[
        "--backend",
        "sqlite",
        "memory",
        "add",
        "--agent",
        "researcher",
        "--scope",
        "core",
        "kept in the database",
    ]);
    assert!(
        add.status.success(),
        "{}",
        String::from_utf8_lossy(&add.stderr)
    );
    let arch = env.json(&["agent", "archive", "researcher"]);
    let out = env.run(&[
        "--backend",
        "sqlite",
        "memory",
        "show",
        "--agent",
        "researcher",
    ]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "an archived agent is not an agent"
    );
    env.json(&["agent", "restore", arch["archived_name"].as_str().unwrap()]);
    let show = env.json(&[
        "--backend",
        "sqlite",
        "memory",
        "show",
        "--agent",
        "researcher",
    ]);
    assert!(show["core"]
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e["content"] == "kept in the database"));
    let sessions = env.json(&["sessions", "--agent", "researcher"]);
    assert!(sessions["total"].as_u64().unwrap_or(0) > 0, "{sessions}");
}
