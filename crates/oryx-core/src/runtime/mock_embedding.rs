//! The runtime's built-in `mock` embedding provider: a deterministic unit vector of 64 floats
//! seeded by the text's SHA-256, so the runtime's semantic recall can run with no model and no
//! key. The console needs the same vectors bit for bit to answer as the runtime's recall does and
//! to read the rows it wrote into `memory_vectors` (their `embedding_model` is [`MODEL_ID`]).

use sha2::{Digest, Sha256};

pub const DIMENSIONS: usize = 64;
pub const MODEL_ID: &str = "mock/deterministic";

/// The vector the runtime's `MockEmbeddingModel.embed` gives `text`.
pub fn embed(text: &str) -> Vec<f32> {
    let seed: [u8; 32] = Sha256::digest(text.as_bytes()).into();
    let seed_hex = hex(&seed);
    let mut vector = Vec::with_capacity(DIMENSIONS);
    // The norm is summed in double precision and taken back to float, as the runtime does.
    let mut norm_squared = 0f64;
    let mut block = seed;
    let mut counter = 0u32;
    while vector.len() < DIMENSIONS {
        for word in block.chunks_exact(4) {
            if vector.len() == DIMENSIONS {
                break;
            }
            let bits = i32::from_be_bytes([word[0], word[1], word[2], word[3]]);
            // int → float rounds to nearest, then one float division: [-1, 1).
            let value = bits as f32 / 2_147_483_648.0f32;
            norm_squared += f64::from(value) * f64::from(value);
            vector.push(value);
        }
        counter += 1;
        block = Sha256::digest(format!("{seed_hex}:{counter}").as_bytes()).into();
    }
    let norm = norm_squared.sqrt() as f32;
    if norm > 0.0 {
        for v in &mut vector {
            *v /= norm;
        }
    }
    vector
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vectors_are_unit_length_deterministic_and_distinct() {
        let a = embed("用户住在北京");
        assert_eq!(a.len(), DIMENSIONS);
        assert_eq!(a, embed("用户住在北京"));
        assert_ne!(a, embed("用户搬到上海了"));
        let norm: f32 = a.iter().map(|v| v * v).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-5, "{norm}");
    }
}
