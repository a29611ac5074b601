//! `oryx checks propose` on the sample install (the runtime's `mock` embedder, no vector rows:
//! keyword and recency decide). With recency weighted 3, an old entry the question's words find
//! alone falls out of the top 20; the proposal names weights that bring it back, shows the check
//! before and after, `--apply` writes them as one change and `runtime undo` puts the file back.

use serde_json::Value;

use crate::common::demo_install::DemoInstall;

fn proposal(inst: &DemoInstall, args: &[&str]) -> Value {
    let mut all = vec!["checks", "propose", "--agent", "assistant"];
    all.extend_from_slice(args);
    inst.json(&all)
}

/// Keeps "第 3 次" as a check expecting the demo's third entry (the only one holding it).
fn keep_third_entry_check(inst: &DemoInstall) -> Value {
    let old = inst.archival_id("assistant", |c| c.contains("（第 3 次）"));
    inst.json(&[
        "checks",
        "add",
        "--agent",
        "assistant",
        "--question",
        "第 3 次",
        "--expect",
        &old,
    ])
}

#[test]
fn proposed_weights_answer_the_check_and_one_undo_takes_them_back() {
    let inst = DemoInstall::new();
    let config = inst.dir.join("config/application.yml");
    // No checks yet: nothing to propose from.
    let p = proposal(&inst, &[]);
    assert_eq!(p["proposal"]["verdict"], "no_checks", "{p}");

    inst.run(&["runtime", "set", "memory.recall.weight.recency", "3"]);
    let before = std::fs::read_to_string(&config).unwrap();
    let added = keep_third_entry_check(&inst);
    assert_eq!(added["checks"][0]["passed"], false, "{added}");

    let p = proposal(&inst, &[]);
    let prop = &p["proposal"];
    assert_eq!(prop["verdict"], "better", "{p}");
    assert_eq!(prop["current"]["recency"], 3.0);
    let proposed = &prop["proposed"];
    assert!(proposed["recency"].as_f64().unwrap() < 3.0, "{p}");
    assert_eq!(
        proposed["topK"], 20,
        "top-k is not raised when weights suffice"
    );
    assert_eq!(
        (
            prop["passed_now"].as_u64(),
            prop["passed_proposed"].as_u64()
        ),
        (Some(0), Some(1))
    );
    let row = &prop["checks"][0];
    assert_eq!(
        (
            row["passes_now"].as_bool(),
            row["passes_proposed"].as_bool()
        ),
        (Some(false), Some(true))
    );
    assert!(row["needed_now"].as_u64().unwrap() > 20, "{row}");
    assert!(row["needed_proposed"].as_u64().unwrap() <= 20, "{row}");
    // Nothing was saved by looking.
    assert_eq!(std::fs::read_to_string(&config).unwrap(), before);

    let applied = proposal(&inst, &["--apply"]);
    assert!(
        !applied["applied"].as_array().unwrap().is_empty(),
        "{applied}"
    );
    assert_ne!(std::fs::read_to_string(&config).unwrap(), before);
    let listed = inst.json(&["checks", "list", "--agent", "assistant"]);
    assert_eq!(listed["checks"][0]["passed"], true, "{listed}");
    assert_eq!(
        proposal(&inst, &[])["proposal"]["verdict"],
        "all_pass",
        "the saved settings answer it"
    );

    // One undo puts every value back, byte for byte.
    inst.run(&["runtime", "undo"]);
    assert_eq!(std::fs::read_to_string(&config).unwrap(), before);
}

#[test]
fn without_an_embedding_provider_no_weight_moves_the_answer() {
    let inst = DemoInstall::new();
    let old = inst.archival_id("assistant", |c| c.contains("（第 3 次）"));
    inst.run(&[
        "checks",
        "add",
        "--agent",
        "assistant",
        "--question",
        "第 3 次",
        "--expect",
        &old,
    ]);
    inst.run(&["runtime", "set", "embedding.provider", ""]);
    let p = proposal(&inst, &[]);
    assert_eq!(p["proposal"]["verdict"], "keyword_only", "{p}");
    assert!(p["proposal"]["proposed"].is_null());
}
