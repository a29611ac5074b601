//! The SQLite backend: the runtime's `memory_entries` table, read through the console's own
//! index of it.

mod curate;
mod index;
mod store;

pub use store::SqliteMemoryStore;
