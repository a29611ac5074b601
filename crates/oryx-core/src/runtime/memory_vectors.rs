//! How the runtime addresses and stores a row of its `memory_vectors` table: the entry's
//! SHA-256 over `agent|ARCHIVAL|content` (the same on every backend; only archival entries get
//! rows) and the vector as little-endian `f32`s.

use std::path::Path;

use sha2::{Digest, Sha256};

use crate::db;
use crate::error::{DbContext, Result};

/// One row of `memory_vectors`, as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct VectorRow {
    pub entry_hash: String,
    pub agent: String,
    pub content: String,
    pub embedding: Vec<u8>,
    pub dim: i64,
    pub model: String,
}

/// The rows of `agent` (`__global__` for the global memory) in the database at `db_path`;
/// `None` when there is no database or it has no `memory_vectors` table (a runtime older than
/// its semantic recall, or one that never started).
pub fn rows(db_path: &Path, agent: &str) -> Result<Option<Vec<VectorRow>>> {
    let Some(conn) = db::open_existing(db_path)? else {
        return Ok(None);
    };
    if db::table_columns(&conn, "memory_vectors")
        .at_db(db_path)?
        .is_empty()
    {
        return Ok(None);
    }
    let mut stmt = conn
        .prepare(
            "SELECT entry_hash, agent_name, content, embedding, dim, embedding_model \
             FROM memory_vectors WHERE agent_name = ?1 ORDER BY id",
        )
        .at_db(db_path)?;
    let rows = stmt
        .query_map([agent], |r| {
            Ok(VectorRow {
                entry_hash: r.get(0)?,
                agent: r.get(1)?,
                content: r.get(2)?,
                embedding: r.get(3)?,
                dim: r.get(4)?,
                model: r.get(5)?,
            })
        })
        .at_db(db_path)?
        .collect::<rusqlite::Result<Vec<_>>>()
        .at_db(db_path)?;
    Ok(Some(rows))
}

/// `entry_hash` of an archival entry of `agent` (`__global__` for the global memory): lower-case
/// hex, as the runtime's `MemoryVectorIndex.entryHash` writes it.
pub fn entry_hash(agent: &str, content: &str) -> String {
    let digest = Sha256::digest(format!("{agent}|ARCHIVAL|{content}").as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// The `embedding` blob: each float's four bytes, little-endian.
pub fn encode(vector: &[f32]) -> Vec<u8> {
    vector.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// The vector of an `embedding` blob; bytes after the last whole float are ignored, as the
/// runtime's decoder ignores them.
pub fn decode(blob: &[u8]) -> Vec<f32> {
    blob.chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values from `printf '%s' 'alpha|ARCHIVAL|用户住在北京' | sha256sum` and the empty global entry.
    #[test]
    fn entry_hashes_are_the_sha256_of_agent_scope_and_text() {
        assert_eq!(
            entry_hash("alpha", "用户住在北京"),
            "6aa652ba369d1a22e5aead6fc52580db76f4ec71ff6b1255312744c2909b5f74"
        );
        assert_eq!(
            entry_hash("__global__", ""),
            "932a74e7c15e7437a0f68034439eaa72636732df0c403cbe6795dc27aa6ac4f3"
        );
    }

    #[test]
    fn vectors_are_little_endian_floats() {
        assert_eq!(encode(&[1.0, -2.5]), [0, 0, 0x80, 0x3f, 0, 0, 0x20, 0xc0]);
        assert_eq!(
            decode(&[0, 0, 0x80, 0x3f, 0, 0, 0x20, 0xc0, 7]),
            [1.0, -2.5]
        );
        let v = crate::runtime::mock_embedding::embed("round trip");
        assert_eq!(decode(&encode(&v)), v);
    }
}
