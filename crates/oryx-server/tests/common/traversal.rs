//! The path-traversal payloads of tests/fixtures/traversal.json: one list for every test that
//! feeds names to the console.

use std::path::Path;

use serde_json::Value;

const FIXTURE: &str = include_str!("../../../../tests/fixtures/traversal.json");

fn fixture() -> Value {
    serde_json::from_str(FIXTURE).expect("tests/fixtures/traversal.json is JSON")
}

/// Names every strict path (console, CLI, REST) must refuse as `invalid_agent_name`;
/// `outside` is a folder next to the root that must never be reached.
pub fn names(outside: &Path) -> Vec<String> {
    let outside = outside.display().to_string();
    fixture()["names"]
        .as_array()
        .expect("names is a list")
        .iter()
        .map(|n| match n {
            Value::String(s) => s.replace("{outside}", &outside),
            Value::Object(o) => {
                let unit = o["repeat"].as_str().expect("repeat is a string");
                let times = o["times"].as_u64().expect("times is a count") as usize;
                let then = o.get("then").and_then(Value::as_str).unwrap_or("");
                format!("{}{then}", unit.repeat(times))
            }
            other => panic!("traversal.json: unexpected name {other}"),
        })
        .collect()
}

/// Written into a URL exactly as they are (path segment or query value): the server decodes.
pub fn url_forms() -> Vec<String> {
    fixture()["url_forms"]
        .as_array()
        .expect("url_forms is a list")
        .iter()
        .map(|f| f.as_str().expect("url forms are strings").to_string())
        .collect()
}
