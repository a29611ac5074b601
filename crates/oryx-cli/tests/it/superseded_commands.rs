//! `oryx memory superseded` on the sample install: planted pairs (zh and en) are listed with
//! their reason, a planted look-alike (two people's phone numbers) is not; keeping the newer
//! deletes the older as one change that `oryx memory undo` takes back; keeping both hides the
//! pair until `unkeep`.

use serde_json::Value;

use crate::common::demo_install::DemoInstall;

const AGENT: &str = "assistant";

fn pairs(d: &DemoInstall) -> Vec<Value> {
    d.json(&["memory", "superseded", "--agent", AGENT])["pairs"]
        .as_array()
        .unwrap()
        .clone()
}

fn find<'a>(pairs: &'a [Value], older: &str) -> Option<&'a Value> {
    pairs.iter().find(|p| p["older"]["content"] == older)
}

#[test]
fn planted_pairs_are_found_resolved_and_undone() {
    let d = DemoInstall::new();
    for text in [
        "用户住在杭州西湖区",
        "Alice's phone number is 555-123-4567",
        "User prefers tea",
        "Bob's phone number is 555-987-6543",
        "用户搬到深圳南山区了",
        "User switched to coffee",
    ] {
        d.run(&[
            "memory", "add", "--agent", AGENT, "--scope", "archival", text,
        ]);
    }
    let found = pairs(&d);
    let zh = find(&found, "用户住在杭州西湖区").expect("the zh move is listed");
    assert_eq!(zh["newer"]["content"], "用户搬到深圳南山区了");
    assert_eq!(zh["reason"], "place");
    assert!(zh["score"].as_f64().unwrap() > 0.5);
    let en = find(&found, "User prefers tea").expect("the en switch is listed");
    assert_eq!(en["newer"]["content"], "User switched to coffee");
    assert!(
        !found
            .iter()
            .any(|p| p["older"]["content"].as_str().unwrap().contains("Alice")),
        "two people's numbers are not a superseded fact: {found:?}"
    );
    // The plain listing names both sides.
    let text =
        String::from_utf8(d.run(&["memory", "superseded", "--agent", AGENT]).stdout).unwrap();
    assert!(text.contains("用户搬到深圳南山区了"), "{text}");

    // Keep the newer: the older is deleted; undo brings it back.
    let (older, newer) = (
        zh["older"]["id"].as_str().unwrap().to_string(),
        zh["newer"]["id"].as_str().unwrap().to_string(),
    );
    let r = d.json(&[
        "memory",
        "superseded",
        "resolve",
        "--agent",
        AGENT,
        "--keep",
        "newer",
        &older,
        &newer,
    ]);
    assert_eq!(r["change"]["op"], "delete");
    let shown = d.json(&["memory", "show", "--agent", AGENT]).to_string();
    assert!(!shown.contains("用户住在杭州西湖区"));
    assert!(find(&pairs(&d), "用户住在杭州西湖区").is_none());
    d.run(&["memory", "undo", "--agent", AGENT]);
    let shown = d.json(&["memory", "show", "--agent", AGENT]).to_string();
    assert!(shown.contains("用户住在杭州西湖区"));
    let again = pairs(&d);
    let zh = find(&again, "用户住在杭州西湖区").expect("listed again after the undo");

    // Keep both: hidden, counted, then shown again.
    let (older, newer) = (
        zh["older"]["id"].as_str().unwrap(),
        zh["newer"]["id"].as_str().unwrap(),
    );
    d.run(&[
        "memory",
        "superseded",
        "resolve",
        "--agent",
        AGENT,
        "--keep",
        "both",
        older,
        newer,
    ]);
    let after = d.json(&["memory", "superseded", "--agent", AGENT]);
    assert_eq!(after["kept"], 1);
    assert!(find(after["pairs"].as_array().unwrap(), "用户住在杭州西湖区").is_none());
    d.run(&[
        "memory",
        "superseded",
        "unkeep",
        "--agent",
        AGENT,
        older,
        newer,
    ]);
    assert!(find(&pairs(&d), "用户住在杭州西湖区").is_some());
}
