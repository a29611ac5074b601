//! The mem0 backend: long-term memory in a self-hosted mem0 service.

mod curate;
mod store;

pub(crate) use store::{item_of, parse_time, whole_seconds};
pub use store::{Mem0Config, Mem0MemoryStore, LOAD_LIMIT, SEARCH_LIMIT};
