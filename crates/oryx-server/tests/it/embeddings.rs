//! `POST /v1/embeddings` as OpenAI clients use it: the body Spring AI's `OpenAiApi` posts (the
//! runtime's client), and the `openai` Python package when it is installed. Vectors are the
//! in-process embedder's; errors are in OpenAI's shape; `--token` is the API key.

use std::process::Command;

use oryx_core::embed::{default_model_dir, EmbedderSlot, MODEL_ID};
use serde_json::{json, Value};

use crate::common::{demo, serve, Server};

const TEXTS: [&str; 4] = [
    "用户住在北京",
    "The user lives in Beijing",
    "",
    "喜欢喝咖啡, likes coffee ☕",
];

fn start(flags: &[&str]) -> (tempfile::TempDir, Server) {
    let dir = tempfile::tempdir().unwrap();
    demo(&dir.path().join("root"));
    let s = serve(&dir.path().join("config"), &dir.path().join("root"), flags);
    (dir, s)
}

/// What Spring AI's `OpenAiApi.embeddings` sends: the texts as a list, the model, and
/// `encoding_format: "float"`, with `Authorization: Bearer <api key>` (reqwest sends
/// `Host: 127.0.0.1:PORT` and no `Origin`, as the runtime's client does).
fn spring_ai_post(s: &Server, key: Option<&str>, body: &Value) -> (u16, Value) {
    let mut req = reqwest::blocking::Client::new()
        .post(format!("{}/v1/embeddings", s.base))
        .header("Content-Type", "application/json")
        .body(body.to_string());
    if let Some(k) = key {
        req = req.header("Authorization", format!("Bearer {k}"));
    }
    let r = req.send().unwrap();
    let status = r.status().as_u16();
    (status, r.json().unwrap())
}

fn in_process(texts: &[&str]) -> Vec<Vec<f32>> {
    let e = EmbedderSlot::shared(&default_model_dir()).get().unwrap();
    e.embed_batch(texts, &Default::default())
        .unwrap()
        .iter()
        .map(|v| v.to_vec())
        .collect()
}

fn floats(v: &Value) -> Vec<f32> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap() as f32)
        .collect()
}

fn assert_close(got: &[f32], want: &[f32], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}");
    let worst = got
        .iter()
        .zip(want)
        .map(|(a, b)| (a - b).abs())
        .fold(0f32, f32::max);
    assert!(worst < 1e-6, "{what}: differs by {worst}");
}

/// An error in OpenAI's shape: `{error: {message, type, param, code}}`, nothing else.
fn assert_openai_error(status: u16, v: &Value, want: u16, code: &str) {
    assert_eq!(status, want, "{v}");
    let e = &v["error"];
    assert!(e["message"].as_str().is_some_and(|m| !m.is_empty()), "{v}");
    assert!(e["type"].is_string(), "{v}");
    assert!(e.as_object().unwrap().contains_key("param"), "{v}");
    assert_eq!(e["code"], code, "{v}");
    assert_eq!(v.as_object().unwrap().len(), 1, "{v}");
}

#[test]
fn spring_ai_requests_get_the_in_process_vectors() {
    let (_dir, s) = start(&[]);
    // Single text, as `embed(String)` sends it: still a list of one.
    let (status, v) = spring_ai_post(
        &s,
        Some("oryx-local"),
        &json!({"input": [TEXTS[0]], "model": MODEL_ID, "encoding_format": "float"}),
    );
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["object"], "list");
    assert_eq!(v["model"], MODEL_ID);
    assert_eq!(v["data"][0]["object"], "embedding");
    assert_eq!(v["data"][0]["index"], 0);
    let want = in_process(&TEXTS[..1]);
    assert_close(&floats(&v["data"][0]["embedding"]), &want[0], "single");
    let tokens = v["usage"]["prompt_tokens"].as_u64().unwrap();
    assert!(tokens > 0);
    assert_eq!(v["usage"]["total_tokens"], tokens);

    // A batch, the empty string included: one unit vector per text, in order.
    let (status, v) = spring_ai_post(
        &s,
        Some("anything"),
        &json!({"input": TEXTS, "model": MODEL_ID, "encoding_format": "float"}),
    );
    assert_eq!(status, 200, "{v}");
    let want = in_process(&TEXTS);
    let data = v["data"].as_array().unwrap();
    assert_eq!(data.len(), TEXTS.len());
    for (i, (d, w)) in data.iter().zip(&want).enumerate() {
        assert_eq!(d["index"], i);
        let got = floats(&d["embedding"]);
        assert_eq!(got.len(), 512);
        let norm: f32 = got.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-4, "{i}: norm {norm}");
        assert_close(&got, w, &format!("batch {i}"));
    }

    // A plain string input, no encoding_format, dimensions 512 and a user: the OpenAI shape.
    let (status, v) = spring_ai_post(
        &s,
        None,
        &json!({"input": TEXTS[1], "model": MODEL_ID, "dimensions": 512, "user": "u1"}),
    );
    assert_eq!(status, 200, "{v}");
    assert_close(
        &floats(&v["data"][0]["embedding"]),
        &want[1],
        "string input",
    );

    // base64: each f32's little-endian bytes.
    let (status, v) = spring_ai_post(
        &s,
        None,
        &json!({"input": [TEXTS[3]], "model": MODEL_ID, "encoding_format": "base64"}),
    );
    assert_eq!(status, 200, "{v}");
    let b64 = v["data"][0]["embedding"].as_str().unwrap();
    assert_eq!(b64.len(), (512 * 4usize).div_ceil(3) * 4);
    assert!(b64.ends_with('='));
    // The model list names the one model.
    let models: Value = reqwest::blocking::get(format!("{}/v1/models", s.base))
        .unwrap()
        .json()
        .unwrap();
    assert_eq!(models["data"][0]["id"], MODEL_ID);
}

#[test]
fn errors_are_in_openais_shape() {
    let (_dir, s) = start(&[]);
    let post = |body: Value| spring_ai_post(&s, Some("k"), &body);
    let (st, v) = post(json!({"input": ["a"], "model": "text-embedding-3-small"}));
    assert_openai_error(st, &v, 404, "model_not_found");
    assert_eq!(v["error"]["param"], "model");
    let (st, v) = post(json!({"input": [], "model": MODEL_ID}));
    assert_openai_error(st, &v, 400, "invalid_value");
    assert_eq!(v["error"]["param"], "input");
    let (st, v) = post(json!({"input": [[1, 2, 3]], "model": MODEL_ID}));
    assert_openai_error(st, &v, 400, "invalid_value");
    let (st, v) = post(json!({"model": MODEL_ID}));
    assert_openai_error(st, &v, 400, "invalid_value");
    let (st, v) = post(json!({"input": "a", "model": MODEL_ID, "encoding_format": "int8"}));
    assert_openai_error(st, &v, 400, "invalid_value");
    let (st, v) = post(json!({"input": vec!["a"; 2049], "model": MODEL_ID}));
    assert_openai_error(st, &v, 413, "too_many_inputs");
    let (st, v) = post(json!({"input": ["x".repeat(20_000)], "model": MODEL_ID}));
    assert_openai_error(st, &v, 413, "input_too_large");
    // A body over the server's limit.
    let huge: Vec<String> = (0..100).map(|_| "y".repeat(12_000)).collect();
    let (st, v) = post(json!({"input": huge, "model": MODEL_ID}));
    assert_openai_error(st, &v, 413, "request_too_large");
    // Not JSON at all.
    let r = reqwest::blocking::Client::new()
        .post(format!("{}/v1/embeddings", s.base))
        .body("{")
        .send()
        .unwrap();
    let st = r.status().as_u16();
    assert_openai_error(st, &r.json().unwrap(), 400, "invalid_json");
    // A page on another site cannot use it (the server's Origin guard stays).
    let r = reqwest::blocking::Client::new()
        .post(format!("{}/v1/embeddings", s.base))
        .header("Origin", "https://evil.example")
        .body(json!({"input": "a", "model": MODEL_ID}).to_string())
        .send()
        .unwrap();
    assert_eq!(r.status(), 403);
}

#[test]
fn with_a_token_the_api_key_must_be_it() {
    let token = "t0ken-for-embeddings";
    let (_dir, s) = start(&["--token", token]);
    let body = json!({"input": ["a"], "model": MODEL_ID, "encoding_format": "float"});
    let (st, v) = spring_ai_post(&s, None, &body);
    assert_openai_error(st, &v, 401, "invalid_api_key");
    assert_eq!(v["error"]["type"], "authentication_error");
    let (st, v) = spring_ai_post(&s, Some("oryx-local"), &body);
    assert_openai_error(st, &v, 401, "invalid_api_key");
    assert!(!v.to_string().contains(token));
    let (st, v) = spring_ai_post(&s, Some(token), &body);
    assert_eq!(st, 200, "{v}");
    let r = reqwest::blocking::get(format!("{}/v1/models", s.base)).unwrap();
    assert_eq!(r.status(), 401);
}

/// The `openai` Python package (when installed: `pip install openai`), whose default encoding
/// is base64, decoded by the package itself.
#[test]
fn the_openai_python_package_embeds_with_it() {
    let have = Command::new("python3")
        .args(["-c", "import openai"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !have {
        eprintln!("skipped: the openai Python package is not installed (pip install openai)");
        return;
    }
    let token = "py-token";
    let (_dir, s) = start(&["--token", token]);
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/embeddings/openai_client.py"
    );
    let out = Command::new("python3")
        .arg(script)
        .arg(format!("{}/v1", s.base))
        .arg(token)
        .arg(MODEL_ID)
        .args(TEXTS)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let want = in_process(&TEXTS);
    for (i, w) in want.iter().enumerate() {
        assert_close(&floats(&v["float"][i]), w, &format!("float {i}"));
        // base64 carries the f32 bits exactly.
        assert_eq!(floats(&v["base64"][i]), *w, "base64 {i}");
    }
    assert_close(&floats(&v["single"]), &want[0], "single");
    assert_eq!(v["indexes"], json!([0, 1, 2, 3]));
    assert_eq!(v["model"], MODEL_ID);
    assert!(v["usage"]["prompt_tokens"].as_u64().unwrap() > 0);
    assert_eq!(
        v["unknown_model"],
        json!({"status": 404, "code": "model_not_found"})
    );
}
