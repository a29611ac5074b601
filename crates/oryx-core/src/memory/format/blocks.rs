//! MEMORY.md read as a stream of blocks of whole lines, and the section each line is in: a
//! file of any size read in the memory of one block.

use super::lines::{bom_len, LineSpan};
use crate::memory::entry::Scope;

/// Reads a MEMORY.md as a stream of blocks of whole lines (with [`headings`] and
/// [`SectionCursor`], the caller knows each line's section as `parse` would). Memory use is
/// about one block plus the line cap, whatever the file's size: a line longer than the cap
/// (a sparse or corrupt file can hold one line of a gigabyte) is handed out as its first
/// `line_cap` bytes, and the rest of it is skipped unread into memory.
pub struct BlockReader<R> {
    src: R,
    /// Allocated (and zeroed) once; `buf[..len]` holds data, `buf[..done]` was handed out.
    pub(super) buf: Vec<u8>,
    len: usize,
    done: usize,
    first: bool,
    eof: bool,
    line_cap: usize,
    /// Lines cut at `line_cap` so far.
    cut_lines: usize,
}

pub(super) const BLOCK: usize = 4 << 20;
/// The longest line a streaming scan holds whole: an entry longer than this is seen as its
/// first 64 MiB (a recall still finds a keyword in a 50 MB entry).
pub const LINE_CAP: usize = 64 << 20;

impl<R: std::io::Read> BlockReader<R> {
    pub fn new(src: R) -> Self {
        Self::with_line_cap(src, LINE_CAP)
    }

    /// A reader that keeps at most `line_cap` bytes of any one line.
    pub fn with_line_cap(src: R, line_cap: usize) -> Self {
        BlockReader {
            src,
            buf: Vec::new(),
            len: 0,
            done: 0,
            first: true,
            eof: false,
            line_cap: line_cap.max(1),
            cut_lines: 0,
        }
    }

    /// How many lines were longer than the cap and handed out cut.
    pub fn cut_lines(&self) -> usize {
        self.cut_lines
    }

    /// The buffer holds one unfinished line of at least `line_cap` bytes from its start: keeps
    /// its first `line_cap` bytes and reads past the rest, through a fixed part of the buffer,
    /// up to its line break (kept, with what follows it).
    fn skip_rest_of_line(&mut self) -> std::io::Result<Option<usize>> {
        self.cut_lines += 1;
        let keep = self.line_cap;
        loop {
            let n = read_full(&mut self.src, &mut self.buf[keep..])?;
            if n == 0 {
                self.len = keep;
                self.eof = true;
                return Ok(None);
            }
            if let Some(i) = memchr::memchr(b'\n', &self.buf[keep..keep + n]) {
                self.buf.copy_within(keep + i..keep + n, keep);
                self.len = keep + n - i;
                return Ok(memchr::memrchr(b'\n', &self.buf[..self.len]).map(|i| i + 1));
            }
        }
    }

    /// The next block of complete lines (the last one may lack its `\n`) and the offset of its
    /// first line (past a BOM), or `None` at the end.
    pub fn next_block(&mut self) -> std::io::Result<Option<(&[u8], usize)>> {
        // Keep the incomplete last line of the previous block.
        self.buf.copy_within(self.done..self.len, 0);
        self.len -= self.done;
        self.done = 0;
        // End of the last complete line seen so far.
        let mut complete = memchr::memrchr(b'\n', &self.buf[..self.len]).map(|i| i + 1);
        loop {
            if self.eof {
                if self.len == 0 {
                    return Ok(None);
                }
                self.done = self.len;
                break;
            }
            if self.len == self.buf.len() {
                if let Some(end) = complete {
                    self.done = end;
                    break;
                }
                let most = self.line_cap + BLOCK;
                if self.buf.len() >= most {
                    // One line fills the buffer (it starts at 0): cut it at the cap.
                    complete = self.skip_rest_of_line()?;
                    continue;
                }
                // A line longer than the buffer grows it, up to the cap and a block.
                let grow = self.buf.len().max(BLOCK).min(most - self.buf.len());
                self.buf.resize(self.buf.len() + grow, 0);
            }
            let start = self.len;
            let n = read_full(&mut self.src, &mut self.buf[start..])?;
            self.len += n;
            self.eof = n == 0;
            if let Some(i) = memchr::memrchr(b'\n', &self.buf[start..self.len]) {
                complete = Some(start + i + 1);
            }
        }
        let from = if std::mem::take(&mut self.first) {
            bom_len(&self.buf[..self.done])
        } else {
            0
        };
        Ok(Some((&self.buf[..self.done], from)))
    }
}

fn read_full(src: &mut impl std::io::Read, mut buf: &mut [u8]) -> std::io::Result<usize> {
    let mut total = 0;
    while !buf.is_empty() {
        match src.read(buf) {
            Ok(0) => break,
            Ok(n) => {
                total += n;
                buf = &mut buf[n..];
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(total)
}

/// The section each line of a block is in: call [`SectionCursor::at`] with increasing offsets.
pub struct SectionCursor<'a> {
    heads: &'a [(LineSpan, Option<Scope>)],
    next: usize,
    current: Option<Scope>,
}

impl<'a> SectionCursor<'a> {
    pub fn new(heads: &'a [(LineSpan, Option<Scope>)], start: Option<Scope>) -> Self {
        SectionCursor {
            heads,
            next: 0,
            current: start,
        }
    }

    /// The section of the line starting at `line_start` (offsets must not decrease).
    pub fn at(&mut self, line_start: usize) -> Option<Scope> {
        while let Some((h, scope)) = self.heads.get(self.next) {
            if h.start > line_start {
                break;
            }
            self.current = *scope;
            self.next += 1;
        }
        self.current
    }

    /// The section after the block.
    pub fn end(mut self) -> Option<Scope> {
        self.at(usize::MAX)
    }
}
