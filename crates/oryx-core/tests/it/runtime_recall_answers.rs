//! recall_memory with semantic recall configured, as the console answers it, against the answers
//! the runtime's own recall engine, vector index and tools gave on the same fixtures
//! (tests/runtime-reference/answers.json, section `recall`): the tool's exact result, each
//! result's fused score to the last bit, and the semantic route's cosines.

use std::path::Path;

use oryx_core::memory::{LongTermMemoryStore, MarkdownMemoryStore, SqliteMemoryStore};
use oryx_core::names::Owner;
use oryx_core::runtime::embedder::{Configured, Mock};
use oryx_core::runtime::recall::{self, Answer, Settings};
use rusqlite::{params, Connection};
use serde_json::Value;

fn answers() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/runtime-reference/answers.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn base64(text: &str) -> Vec<u8> {
    const ABC: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = Vec::new();
    let (mut acc, mut bits) = (0u32, 0);
    for c in text.bytes().filter(|&c| c != b'=') {
        acc = acc << 6 | ABC.iter().position(|&a| a == c).unwrap() as u32;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    out
}

/// The runtime's database with the case's rows.
fn database(path: &Path, case: &Value) {
    let conn = Connection::open(path).unwrap();
    oryx_core::runtime::schema::create(&conn).unwrap();
    for r in case["memory_entries"].as_array().into_iter().flatten() {
        conn.execute(
            "INSERT INTO memory_entries(id, agent_name, scope, content, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![
                r["id"].as_i64(),
                r["agent_name"].as_str(),
                r["scope"].as_str(),
                r["content"].as_str(),
                r["created_at"].as_i64()
            ],
        )
        .unwrap();
    }
    for r in case["memory_vectors"].as_array().unwrap() {
        conn.execute(
            "INSERT INTO memory_vectors(id, entry_hash, agent_name, content, embedding, dim, embedding_model, entry_time, created_at) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 0)",
            params![
                r["id"].as_i64(),
                r["entry_hash"].as_str(),
                r["agent_name"].as_str(),
                r["content"].as_str(),
                base64(r["embedding"].as_str().unwrap()),
                r["dim"].as_i64(),
                r["embedding_model"].as_str(),
                r["entry_time"].as_i64()
            ],
        )
        .unwrap();
    }
}

fn check(name: &str, q: &Value, got: &Answer) {
    let query = q["query"].as_str().unwrap();
    assert_eq!(
        got.text,
        q["answer"].as_str().unwrap(),
        "{name} {query:?}: the tool's answer"
    );
    assert_eq!(
        got.degraded.is_some(),
        q["degraded"].as_bool().unwrap(),
        "{name} {query:?}"
    );
    let Some(fused) = q["fused"].as_array() else {
        return;
    };
    assert_eq!(got.results.len(), fused.len(), "{name} {query:?}");
    for (r, f) in got.results.iter().zip(fused) {
        assert_eq!(r.text, f["line"].as_str().unwrap(), "{name} {query:?}");
        assert_eq!(
            r.score.unwrap().to_bits(),
            f["score"].as_f64().unwrap().to_bits(),
            "{name} {query:?}: the fused score of {}",
            r.text
        );
    }
    let semantic = q["routes"]["semantic"].as_array().unwrap();
    for r in got.results.iter().chain(&got.near_misses) {
        let theirs = semantic
            .iter()
            .position(|s| s["line"].as_str() == Some(r.text.as_str()));
        match (r.routes.semantic, theirs) {
            (Some(ours), Some(i)) => {
                assert_eq!(
                    ours.rank,
                    i + 1,
                    "{name} {query:?}: semantic rank of {}",
                    r.text
                );
                assert_eq!(
                    ours.score.to_bits(),
                    semantic[i]["cosine"].as_f64().unwrap().to_bits()
                );
            }
            (None, None) => {}
            other => panic!("{name} {query:?}: {} semantic {other:?}", r.text),
        }
        let keyword = q["routes"]["keyword"].as_array().unwrap();
        let first = keyword
            .iter()
            .position(|k| k.as_str() == Some(r.text.as_str()));
        assert_eq!(
            r.routes.keyword.map(|k| k.rank),
            first.map(|i| i + 1),
            "{name} {query:?}"
        );
    }
}

#[test]
fn fused_recall_matches_the_runtimes_engine() {
    let all = answers();
    assert_eq!(all["timezone"], "UTC");
    let cases = all["recall"].as_array().unwrap();
    assert!(cases.len() >= 14, "{}", cases.len());
    let (mut queries, mut degraded) = (0, 0);
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let agent = case["agent"].as_str().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("oryxos.db");
        database(&db, case);
        let store: Box<dyn LongTermMemoryStore> = match case["backend"].as_str().unwrap() {
            "markdown" => {
                let agent_dir = dir.path().join(".oryxos/agents").join(agent);
                std::fs::create_dir_all(&agent_dir).unwrap();
                std::fs::write(agent_dir.join("MEMORY.md"), case["file"].as_str().unwrap())
                    .unwrap();
                Box::new(
                    MarkdownMemoryStore::new(dir.path().join(".oryxos")).with_runtime_recall(true),
                )
            }
            _ => Box::new(SqliteMemoryStore::new(&db).with_runtime_order(true)),
        };
        let embedding = match case["embedder"].as_str().unwrap() {
            "mock" => Configured::Ready(std::sync::Arc::new(Mock)),
            "failing" => Configured::Broken {
                provider: "absent".into(),
                reason: "embedding provider 不存在于 Provider 注册表: absent".into(),
            },
            _ => Configured::Off,
        };
        let settings = match case["weights"].as_array() {
            Some(w) => Settings {
                weights: [
                    w[0].as_f64().unwrap(),
                    w[1].as_f64().unwrap(),
                    w[2].as_f64().unwrap(),
                ],
                top_k: case["topK"].as_i64().unwrap(),
            },
            None => Settings::default(),
        };
        let owner = Owner::Agent(agent.into());
        for q in case["queries"].as_array().unwrap() {
            let query = q["query"].as_str().unwrap();
            let got =
                recall::recall(store.as_ref(), &owner, query, settings, &embedding, &db).unwrap();
            check(name, q, &got);
            queries += 1;
            degraded += usize::from(got.degraded.is_some());
        }
    }
    assert!(
        queries >= 90 && degraded >= 14,
        "{queries} queries, {degraded} degraded"
    );
}
