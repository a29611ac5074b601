//! The embedder against the package's own output (`tests/embed/reference.json`, written by
//! `make embed-reference`) on the real model that `make model` prepares. Without the model
//! these tests fail, naming the missing file and `make model`: they are part of `make test`,
//! whose `rust-test` step prepares it first.

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, OnceLock};

use super::*;

struct Reference {
    sentences: Vec<(String, Vec<u32>, Vec<f32>)>,
    tokenizer: Vec<(String, Vec<u32>)>,
}

fn reference() -> &'static Reference {
    static R: OnceLock<Reference> = OnceLock::new();
    R.get_or_init(|| {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/embed/reference.json");
        let text = std::fs::read_to_string(&path).unwrap();
        let json: serde_json::Value = serde_json::from_str(&text).unwrap();
        let ids = |v: &serde_json::Value| -> Vec<u32> {
            v.as_array()
                .unwrap()
                .iter()
                .map(|i| i.as_u64().unwrap() as u32)
                .collect()
        };
        Reference {
            sentences: json["sentences"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| {
                    let vector = s["vector"].as_array().unwrap();
                    (
                        s["text"].as_str().unwrap().to_string(),
                        ids(&s["ids"]),
                        vector.iter().map(|x| x.as_f64().unwrap() as f32).collect(),
                    )
                })
                .collect(),
            tokenizer: json["tokenizer"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| (s["text"].as_str().unwrap().to_string(), ids(&s["ids"])))
                .collect(),
        }
    })
}

fn embedder() -> Arc<Embedder> {
    static E: OnceLock<Arc<Embedder>> = OnceLock::new();
    E.get_or_init(|| match Embedder::load(&default_model_dir()) {
        Ok(e) => Arc::new(e),
        Err(e) => panic!("{e}"),
    })
    .clone()
}

fn cos(a: &[f32], b: &[f32]) -> f32 {
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let na: f32 = a.iter().map(|x| x * x).sum::<f32>().sqrt();
    let nb: f32 = b.iter().map(|x| x * x).sum::<f32>().sqrt();
    dot / (na * nb)
}

#[test]
fn piece_ids_match_the_package_on_sentences_and_random_strings() {
    let e = embedder();
    let r = reference();
    let cases = r
        .sentences
        .iter()
        .map(|(t, ids, _)| (t, ids))
        .chain(r.tokenizer.iter().map(|(t, ids)| (t, ids)));
    let mut total = 0;
    let mismatches: Vec<String> = cases
        .filter_map(|(text, want)| {
            total += 1;
            let got = e.tokenize(text);
            (&got != want).then(|| format!("{text:?}: got {got:?}, package {want:?}"))
        })
        .collect();
    assert!(total > 1000, "{total} cases");
    assert!(
        mismatches.is_empty(),
        "{} of {total} differ:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
}

#[test]
fn vectors_match_the_package() {
    let e = embedder();
    let r = reference();
    let texts: Vec<&str> = r.sentences.iter().map(|(t, _, _)| t.as_str()).collect();
    let got = e.embed_batch(&texts, &AtomicBool::new(false)).unwrap();
    assert_eq!(got.len(), texts.len());
    let mut worst = (1.0f32, "");
    for ((text, _, want), v) in r.sentences.iter().zip(&got) {
        let norm: f32 = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-4, "{text:?}: norm {norm}");
        let c = cos(v, want);
        if c < worst.0 {
            worst = (c, text);
        }
    }
    assert!(worst.0 >= 0.9999, "cosine {} for {:?}", worst.0, worst.1);
}

#[test]
fn a_sentence_embeds_the_same_alone_and_in_any_batch() {
    let e = embedder();
    let texts = [
        "用户喜欢深色模式",
        "The user prefers dark mode",
        "",
        "🙂 ok",
    ];
    let batch = e.embed_batch(&texts, &AtomicBool::new(false)).unwrap();
    let reversed: Vec<&str> = texts.iter().rev().copied().collect();
    let rev = e.embed_batch(&reversed, &AtomicBool::new(false)).unwrap();
    for (i, text) in texts.iter().enumerate() {
        let alone = e.embed(text).unwrap();
        assert!(cosine(&alone, &batch[i]) > 0.99999, "{text:?} in a batch");
        assert!(
            cosine(&alone, &rev[texts.len() - 1 - i]) > 0.99999,
            "{text:?} reversed"
        );
    }
    assert!(e
        .embed_batch::<&str>(&[], &AtomicBool::new(false))
        .unwrap()
        .is_empty());
}

#[test]
fn paraphrases_across_languages_are_closer_than_unrelated_text() {
    let e = embedder();
    let en = e.embed("Remind me to water the plants on Friday.").unwrap();
    let zh = e.embed("周五提醒我给植物浇水。").unwrap();
    let other = e
        .embed("The deployment failed because the disk was full.")
        .unwrap();
    assert!(cosine(&en, &zh) > cosine(&en, &other) + 0.2);
    assert!(cosine(&zh, &other) < 0.3);
}

#[test]
fn a_cancelled_batch_stops_with_cancelled() {
    let e = embedder();
    let cancel = AtomicBool::new(true);
    assert!(matches!(
        e.embed_batch(&["a", "b"], &cancel),
        Err(EmbedError::Cancelled)
    ));

    // A job cancelled before its thread gets far: 2 000 texts are ~20 micro-batches, so it
    // returns Cancelled unless it finished all of them first (then the vectors are whole).
    let texts: Vec<String> = (0..2000)
        .map(|i| format!("entry number {i} about memory"))
        .collect();
    let job = EmbedJob::spawn(e.clone(), texts);
    job.cancel();
    match job.join() {
        Err(EmbedError::Cancelled) => {}
        Ok(v) => assert_eq!(v.len(), 2000),
        Err(other) => panic!("{other}"),
    }

    let job = EmbedJob::spawn(e, vec!["周五".into(), "Friday".into()]);
    assert_eq!(job.join().unwrap().len(), 2);
}

#[test]
fn a_missing_model_names_the_file_and_make_model() {
    let dir = tempfile::tempdir().unwrap();
    let err = match Embedder::load(dir.path()) {
        Err(e) => e,
        Ok(_) => panic!("loaded a model from an empty directory"),
    };
    let message = err.to_string();
    assert!(matches!(err, EmbedError::ModelMissing { .. }), "{message}");
    assert!(
        message.contains("weights.npz") && message.contains("make model"),
        "{message}"
    );
    assert!(matches!(
        crate::CoreError::from(err),
        crate::CoreError::BackendUnavailable(_)
    ));

    // Present but not a model: a clear InvalidAsset, not a panic.
    std::fs::write(dir.path().join("weights.npz"), b"not a zip").unwrap();
    std::fs::write(dir.path().join("sp.model"), b"").unwrap();
    let err = Embedder::load(dir.path()).err().expect("garbage refused");
    assert!(matches!(err, EmbedError::InvalidAsset { .. }), "{err}");
}
