//! MEMORY.md as bytes: a lenient reader of every dialect the runtime has written and
//! splice-based edits that leave every byte outside the change as it was.

mod blocks;
mod edit;
mod lines;
mod parse;

pub use blocks::{BlockReader, SectionCursor, LINE_CAP};
pub use edit::{
    apply, heading_of, new_file, normalize, plan_insert, plan_insert_in_order, plan_restore, Edit,
};
pub use lines::{
    bom_len, classify, headings, is_blank, line_around, line_text, lines, parse_entry, uses_crlf,
    LineKind, LineSpan, ARCHIVAL_HEADING, CORE_HEADING,
};
pub use parse::{parse, parse_structure, Parsed, SectionSpan};

#[cfg(test)]
mod tests;
