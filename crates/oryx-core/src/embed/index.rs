//! A vector index of keyed texts on top of [`VectorStore`]: the owner's texts come in, only
//! new or changed ones are embedded (in steps, with progress and cancel), vectors of keys that
//! are gone are dropped, and queries rank the owner's keys by cosine. Long-term memory and
//! episodic memory both keep their vectors through one of these per root.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use serde::Serialize;

use super::identity::{content_hash, MODEL_ID};
use super::slot::EmbedderSlot;
use super::vector_store::{is_damage, Hit, VectorStore};
use crate::error::Result;

/// Texts embedded per step of a sync: progress and cancel between steps, and what was done
/// is kept when a later step is cancelled.
pub const SYNC_STEP: usize = 64;

/// What a sync did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct SyncReport {
    pub embedded: usize,
    pub removed: usize,
    pub total: usize,
}

/// How much of an owner's texts have vectors for their current content.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct IndexCounts {
    /// Distinct keys the owner has now.
    pub entries: usize,
    /// Of those, how many have a vector for their current text.
    pub indexed: usize,
    /// Vectors of keys that are no longer there (dropped at the next sync).
    pub orphaned: usize,
}

pub struct VectorIndex {
    embedder: Arc<EmbedderSlot>,
    store_path: PathBuf,
    store: Mutex<Option<VectorStore>>,
}

impl VectorIndex {
    /// `store_path`: the console's vector file (see [`super::store_path`]); opened on first use.
    pub fn new(embedder: Arc<EmbedderSlot>, store_path: PathBuf) -> Self {
        VectorIndex {
            embedder,
            store_path,
            store: Mutex::new(None),
        }
    }

    pub fn embedder(&self) -> &Arc<EmbedderSlot> {
        &self.embedder
    }

    pub fn store_path(&self) -> &Path {
        &self.store_path
    }

    /// Runs `f` on the store (opened on first use). A file found damaged on the way is started
    /// anew and `f` runs again on it: a damaged file costs a rebuild, never the operation.
    fn with_store<T>(&self, mut f: impl FnMut(&mut VectorStore) -> Result<T>) -> Result<T> {
        let mut slot = self.store.lock().unwrap_or_else(|p| p.into_inner());
        if slot.is_none() {
            *slot = Some(VectorStore::open(&self.store_path, MODEL_ID)?);
        }
        let store = slot.as_mut().expect("opened above");
        match f(store) {
            Err(e) if is_damage(&e) => {
                store.reset(&e)?;
                f(store)
            }
            r => r,
        }
    }

    /// Brings `owner`'s vectors in line with `texts` (key, text; keys unique): drops vectors of
    /// vanished keys, embeds new and changed texts in steps of [`SYNC_STEP`], calling
    /// `progress(done, todo)` after each. A cancel keeps the steps already stored.
    pub fn sync(
        &self,
        owner: &str,
        texts: &[(String, String)],
        cancel: &AtomicBool,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<SyncReport> {
        let hashed: Vec<(String, u64)> = texts
            .iter()
            .map(|(k, text)| (k.clone(), content_hash(text)))
            .collect();
        let plan = self.with_store(|s| s.plan(owner, &hashed))?;
        let by_key: HashMap<&str, &str> = texts
            .iter()
            .map(|(k, t)| (k.as_str(), t.as_str()))
            .collect();
        let todo = plan.to_embed.len();
        progress(0, todo);
        let mut done = 0;
        if todo > 0 {
            let embedder = self.embedder.get()?;
            for step in plan.to_embed.chunks(SYNC_STEP) {
                let batch: Vec<&str> = step.iter().map(|k| by_key[k.as_str()]).collect();
                let vectors = embedder.embed_batch(&batch, cancel)?;
                let items: Vec<_> = step
                    .iter()
                    .zip(&batch)
                    .zip(vectors)
                    .map(|((k, text), v)| (k.clone(), content_hash(text), v))
                    .collect();
                self.with_store(|s| s.put(owner, &items))?;
                done += items.len();
                progress(done, todo);
            }
        }
        Ok(SyncReport {
            embedded: done,
            removed: plan.removed,
            total: texts.len(),
        })
    }

    /// The vector file's version as this process sees it: it moves when another connection
    /// (another console process) commits, not with our own writes.
    pub fn version(&self) -> Result<i64> {
        self.with_store(|s| s.data_version())
    }

    /// How many of `texts` have a vector for their current content (embeds nothing).
    pub fn counts(&self, owner: &str, texts: &[(String, String)]) -> Result<IndexCounts> {
        let stored = self.with_store(|s| s.hashes(owner))?;
        let indexed = texts
            .iter()
            .filter(|(k, text)| stored.get(k) == Some(&content_hash(text)))
            .count();
        let current: std::collections::HashSet<&str> =
            texts.iter().map(|(k, _)| k.as_str()).collect();
        let orphaned = stored
            .keys()
            .filter(|k| !current.contains(k.as_str()))
            .count();
        Ok(IndexCounts {
            entries: texts.len(),
            indexed,
            orphaned,
        })
    }

    /// The `k` keys of `owner` closest to `query`, best first, none under `floor`.
    pub fn search(&self, owner: &str, query: &str, k: usize, floor: f32) -> Result<Vec<Hit>> {
        let q = self.embedder.get()?.embed(query)?;
        self.with_store(|s| s.search(owner, &q, k, floor))
    }

    /// Drops every vector in the file; returns how many there were.
    pub fn clear(&self) -> Result<usize> {
        self.with_store(|s| s.clear())
    }
}
