//! SentencePiece's text normaliser as the model's `sp.model` defines it: the precompiled
//! `nmt_nfkc` charsmap (a darts-clone double-array trie over UTF-8 bytes plus a table of
//! NUL-terminated replacements), then whitespace handling: leading, trailing and repeated
//! spaces dropped, a dummy prefix, spaces escaped as U+2581. Ported from the package's
//! pure-Python tokenizer so that piece ids match its reference vectors exactly.

/// U+2581 LOWER ONE EIGHTH BLOCK, SentencePiece's visible space.
pub(crate) const SPACE: &str = "\u{2581}";

pub(crate) struct Normalizer {
    units: Vec<u32>,
    replacements: Vec<u8>,
}

impl Normalizer {
    /// From the charsmap blob: a little-endian u32 trie size in bytes, the trie's units, then
    /// the replacement strings. An empty blob normalises nothing (identity).
    pub fn new(charsmap: &[u8]) -> Result<Self, String> {
        if charsmap.is_empty() {
            return Ok(Normalizer {
                units: Vec::new(),
                replacements: Vec::new(),
            });
        }
        let size = charsmap
            .get(..4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
            .ok_or("charsmap shorter than its header")?;
        let trie = charsmap
            .get(4..4 + size)
            .filter(|t| t.len() % 4 == 0 && !t.is_empty())
            .ok_or("charsmap trie truncated")?;
        Ok(Normalizer {
            units: trie
                .chunks_exact(4)
                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect(),
            replacements: charsmap[4 + size..].to_vec(),
        })
    }

    fn offset(unit: u32) -> usize {
        ((unit >> 10) << ((unit & 0x200) >> 6)) as usize
    }

    /// What `data[pos..]` starts with, normalised, and how many input bytes that consumed: the
    /// longest charsmap key there, or else one UTF-8 character (one byte if malformed) as is.
    fn prefix<'a>(&'a self, data: &'a [u8], pos: usize) -> (&'a [u8], usize) {
        let mut best_len = 0;
        let mut best_value = 0usize;
        if let Some(&root) = self.units.first() {
            let mut node = Self::offset(root);
            for (i, &c) in data[pos..].iter().enumerate() {
                node ^= c as usize;
                let Some(&unit) = self.units.get(node) else {
                    break;
                };
                if unit & 0x8000_00FF != u32::from(c) {
                    break;
                }
                node ^= Self::offset(unit);
                if unit & 0x100 != 0 {
                    let Some(&leaf) = self.units.get(node) else {
                        break;
                    };
                    best_len = i + 1;
                    best_value = (leaf & 0x7FFF_FFFF) as usize;
                }
            }
        }
        if best_len == 0 || best_value >= self.replacements.len() {
            let first = data[pos];
            let mut len = match first {
                0x00..=0x7F => 1,
                _ if first >> 5 == 0x6 => 2,
                _ if first >> 4 == 0xE => 3,
                _ if first >> 3 == 0x1E => 4,
                _ => 1,
            };
            if (1..len).any(|k| data.get(pos + k).is_none_or(|b| b & 0xC0 != 0x80)) {
                len = 1;
            }
            return (&data[pos..pos + len], len);
        }
        let tail = &self.replacements[best_value..];
        let end = tail.iter().position(|&b| b == 0).unwrap_or(tail.len());
        (&tail[..end], best_len)
    }

    /// The text as the Viterbi segmentation sees it ("" for blank text).
    pub fn normalize(&self, text: &str) -> String {
        let raw = text.as_bytes();
        let n = raw.len();
        let mut pos = 0;
        while pos < n {
            let (p, adv) = self.prefix(raw, pos);
            if p != b" " {
                break;
            }
            pos += adv;
        }
        if pos >= n {
            return String::new();
        }
        let space = SPACE.as_bytes();
        let mut out = Vec::with_capacity(n + 8);
        out.extend_from_slice(space);
        let mut prev_space = true;
        while pos < n {
            let (mut p, adv) = self.prefix(raw, pos);
            pos += adv;
            if prev_space {
                while let [b' ', rest @ ..] = p {
                    p = rest;
                }
            }
            if p.is_empty() {
                continue;
            }
            if p.contains(&b' ') {
                for &b in p {
                    if b == b' ' {
                        out.extend_from_slice(space);
                    } else {
                        out.push(b);
                    }
                }
                prev_space = p.last() == Some(&b' ');
            } else {
                out.extend_from_slice(p);
                prev_space = false;
            }
        }
        while out.ends_with(space) {
            out.truncate(out.len() - space.len());
        }
        // Replacements are whole UTF-8 sequences and untouched input is valid text; a
        // malformed charsmap is the only way here, and it must not abort an embedding.
        String::from_utf8(out)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_a_charsmap_only_whitespace_changes() {
        let n = Normalizer::new(&[]).unwrap();
        assert_eq!(n.normalize(""), "");
        assert_eq!(n.normalize("   "), "");
        assert_eq!(n.normalize("a"), "▁a");
        assert_eq!(n.normalize("  hello   big  world  "), "▁hello▁big▁world");
        assert_eq!(n.normalize("你好 世界"), "▁你好▁世界");
    }

    #[test]
    fn a_truncated_charsmap_is_refused() {
        assert!(Normalizer::new(&[8, 0, 0, 0, 1, 2]).is_err());
        assert!(Normalizer::new(&[1, 2]).is_err());
    }
}
