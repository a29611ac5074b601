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
    let commented = text.replacen(
        "name: helper\n",
        "name: helper  # keep me\nteam: infra\n",
        1,
    );
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
    env.json(&["agent", "create", "helper-three", "--model", "gpt-4o"]);
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

/// Writes the runtime's provider registry into the root's database, as the runtime creates it.
fn registry(root: &std::path::Path, names: &[&str]) {
    let conn = rusqlite::Connection::open(root.join("oryxos.db")).unwrap();
    conn.execute_batch(
        "CREATE TABLE providers (name VARCHAR(128) PRIMARY KEY, api_key TEXT, base_url TEXT, \
         description TEXT, created_at TIMESTAMP NOT NULL, updated_at TIMESTAMP NOT NULL)",
    )
    .unwrap();
    for n in names {
        conn.execute(
            "INSERT INTO providers VALUES (?1, NULL, NULL, NULL, 0, 0)",
            [n],
        )
        .unwrap();
    }
}

/// Agents the runtime's loader takes and skips, one per reason, and archived agents in the
/// runtime's two forms and the console's older one.
fn runtime_fixture(env: &Env) {
    registry(&env.root, &["anthropic", "deepseek", "openai"]);
    let good = |name: &str| {
        format!("---\nname: {name}\nprovider:\n  name: openai\n  model: gpt-4o\n---\nbody\n")
    };
    let agents: &[(&str, String)] = &[
        ("loads", good("loads")),
        ("r-name-mismatch", good("other")),
        ("r-name-missing", "---\ndescription: no name\n---\n".into()),
        ("r-front-matter", "---\nname: [oops\n---\n".into()),
        ("r-no-provider", "---\nname: r-no-provider\n---\n".into()),
        (
            "r-provider-name",
            "---\nname: r-provider-name\nprovider:\n  model: m\n---\n".into(),
        ),
        (
            "r-model",
            "---\nname: r-model\nprovider:\n  name: openai\n---\n".into(),
        ),
        (
            "r-provider-unknown",
            "---\nname: r-provider-unknown\nprovider:\n  name: nope\n  model: m\n---\n".into(),
        ),
        (
            "r-schedule",
            "---\nname: r-schedule\nprovider:\n  name: openai\n  model: m\nschedules:\n  - cron: '0 0 9 * * *'\n---\n".into(),
        ),
    ];
    for (dir, text) in agents {
        let d = env.root.join("agents").join(dir);
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("AGENT.md"), text).unwrap();
    }
    std::fs::create_dir_all(env.root.join("agents/r-no-agent-md")).unwrap();
    for (folder, name) in [
        ("gone", "gone"),
        ("gone-1700000000000", "gone"),
        ("gone-1700000000000-2", "gone"),
        ("older.20240102-030405", "older"),
    ] {
        let d = env.root.join("archive").join(folder);
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("AGENT.md"), good(name)).unwrap();
    }
}

#[test]
fn agents_say_whether_the_runtime_loads_them() {
    let env = Env::new();
    runtime_fixture(&env);
    let list = env.json(&["agents"]);
    let runtime: std::collections::BTreeMap<String, Value> = list["agents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a["name"].as_str().unwrap().to_string(),
                a["runtime"].clone(),
            )
        })
        .collect();
    for (name, r) in &runtime {
        assert!(r["loads"].is_boolean(), "{name}: {r}");
        assert!(
            r["reason"].is_string() || r["reason"].is_null(),
            "{name}: {r}"
        );
        assert_eq!(
            r["loads"].as_bool().unwrap(),
            r["reason"].is_null(),
            "{name}: {r}"
        );
        assert_eq!(r["provider_checked"], true, "{name}: {r}");
    }
    let reason = |n: &str| runtime[n]["reason"].as_str().map(str::to_string);
    for n in [
        "loads",
        "assistant",
        "log_analyst",
        "researcher",
        "scheduler",
    ] {
        assert_eq!(reason(n), None, "{n}: {}", runtime[n]);
    }
    for (n, code) in [
        ("r-name-mismatch", "name_mismatch"),
        ("r-name-missing", "name_missing"),
        ("r-front-matter", "front_matter_invalid"),
        ("r-no-provider", "provider_missing"),
        ("r-provider-name", "provider_name_empty"),
        ("r-model", "provider_model_empty"),
        ("r-provider-unknown", "provider_unknown"),
        ("r-schedule", "schedule_invalid"),
        ("r-no-agent-md", "agent_md_missing"),
    ] {
        assert_eq!(reason(n).as_deref(), Some(code), "{n}: {}", runtime[n]);
        assert!(runtime[n]["message"].as_str().unwrap().len() > 10);
    }
    assert_eq!(runtime["r-provider-unknown"]["params"]["provider"], "nope");
    // The text list says it too.
    let out = env.run(&["agents"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("not loaded by the runtime: provider \"nope\""),
        "{text}"
    );

    // Archived: the runtime's two forms and the console's older one.
    let archived = env.json(&["agents", "--archived"]);
    let forms: std::collections::BTreeMap<String, (String, String)> = archived
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a["archived_name"].as_str().unwrap().to_string(),
                (
                    a["name"].as_str().unwrap().to_string(),
                    a["form"].as_str().unwrap().to_string(),
                ),
            )
        })
        .collect();
    let want = |n: &str, f: &str| (n.to_string(), f.to_string());
    assert_eq!(forms["gone"], want("gone", "runtime"));
    assert_eq!(forms["gone-1700000000000"], want("gone", "runtime_stamped"));
    assert_eq!(
        forms["gone-1700000000000-2"],
        want("gone", "runtime_stamped")
    );
    assert_eq!(forms["older.20240102-030405"], want("older", "console"));
    for folder in ["gone-1700000000000-2", "older.20240102-030405"] {
        let a = env.json(&["agent", "restore", folder]);
        assert_eq!(a["summary"]["runtime"]["loads"], true, "{a}");
    }
    // Archiving now takes the runtime's form.
    let a = env.json(&["agent", "archive", "older"]);
    assert_eq!(
        (a["archived_name"].as_str(), a["form"].as_str()),
        (Some("older"), Some("runtime"))
    );
}

#[test]
fn create_asks_for_a_provider_of_the_registry_and_a_model() {
    let env = Env::new();
    registry(&env.root, &["mock", "deepseek"]);
    // Without a model the runtime would skip it: refused with the reason, written as a draft.
    let out = env.run(&["agent", "create", "fresh"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("provider_model_empty") && err.contains("draft"),
        "{err}"
    );
    assert!(!env.root.join("agents/fresh").exists());
    let a = env.json(&["agent", "create", "fresh", "--draft"]);
    assert_eq!(a["summary"]["runtime"]["reason"], "provider_model_empty");
    // The runtime's default provider: the registry's first name.
    assert_eq!(a["summary"]["provider"], "deepseek");
    let a = env.json(&["agent", "create", "ready", "--model", "deepseek-chat"]);
    assert_eq!(a["summary"]["runtime"]["loads"], true, "{a}");
    for f in [
        "AGENT.md",
        "scripts/example.py",
        "REFERENCE.md",
        "output/README.md",
    ] {
        assert!(env.root.join("agents/ready").join(f).is_file(), "{f}");
    }
    let out = env.run(&[
        "agent",
        "create",
        "other",
        "--provider",
        "openai",
        "--model",
        "m",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("provider_unknown"));
}
