//! The encoder's forward pass (USE multilingual v3 as the package computes it): per piece, its
//! embedding and three convolution branches over 2-, 3- and 5-piece windows that never reach
//! across a sentence boundary; layer norm; a per-sentence sum projected and scaled by
//! 1/sqrt(pieces); a small tanh feed-forward stack; L2 normalisation.
//!
//! A micro-batch runs flat: the pieces of all its sentences form one matrix, so each weight
//! matrix is read once per micro-batch rather than once per sentence.

use std::path::Path;

use candle_core::{DType, Device, Tensor};

use super::error::EmbedError;
use super::npy::Npz;
use super::table::QuantizedTable;
use super::DIM;

/// Width of each convolution branch.
const CNN: usize = 256;
/// Hidden width of the feed-forward stack.
const HIDDEN: usize = 320;
/// (window length, pieces to the left) of the three branches.
const ORDERS: [(usize, usize); 3] = [(2, 0), (3, 1), (5, 2)];
/// The embedding plus the three branches, per piece.
const FEATURES: usize = DIM + ORDERS.len() * CNN;

struct Branch {
    order: usize,
    left: usize,
    w1: Tensor,
    b1: Tensor,
    w2: Tensor,
    b2: Tensor,
}

pub(crate) struct Model {
    table: QuantizedTable,
    proj_w: Tensor,
    proj_b: Tensor,
    proj_ln_g: Tensor,
    proj_ln_b: Tensor,
    branches: Vec<Branch>,
    ln_g: Tensor,
    ln_b: Tensor,
    cnn_w: Tensor,
    cnn_b: Tensor,
    d0: Tensor,
    d1: Tensor,
    d2: Tensor,
    d3: Tensor,
    p1: Tensor,
    p3: Tensor,
    eps: f64,
    dense_bytes: usize,
}

impl Model {
    pub fn load(path: &Path) -> Result<Self, EmbedError> {
        let mut npz = Npz::open(path)?;
        let table = QuantizedTable::load(&mut npz, path)?;
        let mut dense_bytes = 0;
        let mut t = |name: &str, shape: &[usize]| -> Result<Tensor, EmbedError> {
            let values = npz.f32s(name, shape)?;
            dense_bytes += values.len() * 4;
            Ok(Tensor::from_vec(values, shape, &Device::Cpu)?)
        };
        // The three branches' input projections and their layer norm act as one 768-wide
        // layer (the package normalises across all three at once).
        let cat = |parts: Vec<Tensor>| Tensor::cat(&parts, parts[0].rank() - 1);
        let mut proj_w = Vec::new();
        let mut proj_b = Vec::new();
        let mut proj_ln_g = Vec::new();
        let mut proj_ln_b = Vec::new();
        let mut branches = Vec::new();
        for (order, left) in ORDERS {
            proj_w.push(t(&format!("proj{order}"), &[DIM, CNN])?);
            proj_b.push(t(&format!("proj_b{order}"), &[CNN])?);
            proj_ln_g.push(t(&format!("ln_g{order}"), &[CNN])?);
            proj_ln_b.push(t(&format!("ln_b{order}"), &[CNN])?);
            branches.push(Branch {
                order,
                left,
                w1: t(&format!("w1_{order}"), &[order * CNN, CNN])?,
                b1: t(&format!("b1_{order}"), &[CNN])?,
                w2: t(&format!("w2_{order}"), &[order * CNN, CNN])?,
                b2: t(&format!("b2_{order}"), &[CNN])?,
            });
        }
        let model = Model {
            proj_w: cat(proj_w)?,
            proj_b: cat(proj_b)?,
            proj_ln_g: cat(proj_ln_g)?,
            proj_ln_b: cat(proj_ln_b)?,
            branches,
            ln_g: t("ln_g", &[FEATURES])?,
            ln_b: t("ln_b", &[FEATURES])?,
            cnn_w: t("cnn_W", &[FEATURES, DIM])?,
            cnn_b: t("cnn_b", &[DIM])?,
            d0: t("d0", &[DIM, HIDDEN])?,
            d1: t("d1", &[HIDDEN, HIDDEN])?,
            p1: t("p1", &[DIM, HIDDEN])?,
            d2: t("d2", &[HIDDEN, DIM])?,
            p3: t("p3", &[HIDDEN, DIM])?,
            d3: t("d3", &[DIM, DIM])?,
            eps: f64::from(npz.f32s("eps", &[])?[0]),
            table,
            dense_bytes,
        };
        Ok(model)
    }

    pub fn vocab_rows(&self) -> usize {
        self.table.rows()
    }

    pub fn weight_bytes(&self) -> usize {
        self.table.heap_bytes() + self.dense_bytes
    }

    /// Unit vectors for sentences given as piece ids (each with `<s>` and `</s>`, never
    /// empty; every id below `vocab_rows()`).
    pub fn forward(&self, sentences: &[Vec<u32>]) -> candle_core::Result<Vec<[f32; DIM]>> {
        let cpu = &Device::Cpu;
        let lens: Vec<usize> = sentences.iter().map(Vec::len).collect();
        let starts: Vec<usize> = lens
            .iter()
            .scan(0, |acc, &l| {
                let s = *acc;
                *acc += l;
                Some(s)
            })
            .collect();
        let n: usize = lens.iter().sum();

        let mut emb = vec![0f32; n * DIM];
        for (row, &id) in emb.chunks_exact_mut(DIM).zip(sentences.iter().flatten()) {
            self.table.row_into(id, row);
        }
        let emb = Tensor::from_vec(emb, (n, DIM), cpu)?;

        let x = emb.matmul(&self.proj_w)?.broadcast_add(&self.proj_b)?;
        let x = layer_norm(&x, &self.proj_ln_g, &self.proj_ln_b, self.eps)?;
        let x_rows = x.flatten_all()?.to_vec1::<f32>()?;

        let mut features = vec![emb];
        for (i, b) in self.branches.iter().enumerate() {
            let xs = x.narrow(1, i * CNN, CNN)?;
            let win = windows(&x_rows, 3 * CNN, i * CNN, &starts, &lens, b.order, b.left);
            let win = Tensor::from_vec(win, (n, b.order * CNN), cpu)?;
            let h = (win.matmul(&b.w1)?.broadcast_add(&b.b1)?.relu()? + xs)?;
            let h_rows = h.flatten_all()?.to_vec1::<f32>()?;
            let win = windows(&h_rows, CNN, 0, &starts, &lens, b.order, b.left);
            let win = Tensor::from_vec(win, (n, b.order * CNN), cpu)?;
            features.push((win.matmul(&b.w2)?.broadcast_add(&b.b2)?.relu()? + h)?);
        }
        let feats = layer_norm(
            &Tensor::cat(&features, 1)?,
            &self.ln_g,
            &self.ln_b,
            self.eps,
        )?;

        // Summing each sentence's rows before the output projection is the same as
        // projecting every row and summing (the projection is linear), with far fewer rows.
        let mut segments = vec![0f32; sentences.len() * n];
        for (s, (&start, &len)) in starts.iter().zip(&lens).enumerate() {
            segments[s * n + start..s * n + start + len].fill(1.0);
        }
        let segments = Tensor::from_vec(segments, (sentences.len(), n), cpu)?;
        let counts: Vec<f32> = lens.iter().map(|&l| l as f32).collect();
        let counts = Tensor::from_vec(counts, (sentences.len(), 1), cpu)?;
        let summed = segments.matmul(&feats)?.matmul(&self.cnn_w)?;
        let mean = (summed + counts.broadcast_mul(&self.cnn_b.unsqueeze(0)?)?)?
            .broadcast_div(&counts.sqrt()?)?;

        let y0 = mean.matmul(&self.d0)?.relu()?;
        let y1 = (mean.matmul(&self.p1)? + y0.matmul(&self.d1)?)?.relu()?;
        let y2 = y1.matmul(&self.d2)?.relu()?;
        let z = (y1.matmul(&self.p3)? + y2.matmul(&self.d3)?)?.tanh()?;
        let norm = z.sqr()?.sum_keepdim(1)?.maximum(self.eps)?.sqrt()?;
        let z = z.broadcast_div(&norm)?.to_dtype(DType::F32)?;

        Ok(z.to_vec2::<f32>()?
            .into_iter()
            .map(|row| row.try_into().expect("DIM columns"))
            .collect())
    }
}

fn layer_norm(x: &Tensor, g: &Tensor, b: &Tensor, eps: f64) -> candle_core::Result<Tensor> {
    let centred = x.broadcast_sub(&x.mean_keepdim(1)?)?;
    let var = centred.sqr()?.mean_keepdim(1)?;
    centred
        .broadcast_div(&(var + eps)?.sqrt()?)?
        .broadcast_mul(g)?
        .broadcast_add(b)
}

/// For each piece, the `order` rows of `src` (each `CNN` wide, at column `col` of a row of
/// `stride` values) from `left` pieces before it on, concatenated; rows outside the piece's
/// own sentence are zeros, which is the per-sentence zero padding of the convolution.
fn windows(
    src: &[f32],
    stride: usize,
    col: usize,
    starts: &[usize],
    lens: &[usize],
    order: usize,
    left: usize,
) -> Vec<f32> {
    let n: usize = lens.iter().sum();
    let mut out = vec![0f32; n * order * CNN];
    for (&start, &len) in starts.iter().zip(lens) {
        for t in start..start + len {
            for k in 0..order {
                let Some(pos) = (t + k).checked_sub(left) else {
                    continue;
                };
                if pos < start || pos >= start + len {
                    continue;
                }
                let dst = (t * order + k) * CNN;
                let from = pos * stride + col;
                out[dst..dst + CNN].copy_from_slice(&src[from..from + CNN]);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_stop_at_sentence_boundaries() {
        // Two sentences of 2 and 3 pieces; piece p's row is all p+1.
        let src: Vec<f32> = (0..5).flat_map(|p| vec![p as f32 + 1.0; CNN]).collect();
        let w = windows(&src, CNN, 0, &[0, 2], &[2, 3], 3, 1);
        let cell = |t: usize, k: usize| w[(t * 3 + k) * CNN];
        let rows: Vec<[f32; 3]> = (0..5)
            .map(|t| [cell(t, 0), cell(t, 1), cell(t, 2)])
            .collect();
        assert_eq!(
            rows,
            vec![
                [0.0, 1.0, 2.0],
                [1.0, 2.0, 0.0],
                [0.0, 3.0, 4.0],
                [3.0, 4.0, 5.0],
                [4.0, 5.0, 0.0],
            ]
        );
    }
}
