//! The MEMORY.md backend: one file per owner, read and written as the Java runtime reads it.

pub mod curate;
pub mod paged;
mod store;
pub mod tail;

pub use store::{lock, lock_path, read_or_empty, write_atomic, FileLock, FileStamp, MarkdownMemoryStore};
pub(crate) use store::count_read;
