//! The MEMORY.md backend: one file per owner, read and written as the Java runtime reads it.

mod context;
pub mod curate;
mod io;
mod lock;
pub mod paged;
mod rewrite;
pub mod runtime_text;
mod settle;
mod store;
pub mod tail;

pub use io::read_or_empty;
pub use lock::{lock, lock_path, FileLock, FileStamp};
pub use rewrite::write_atomic;
pub use store::MarkdownMemoryStore;
