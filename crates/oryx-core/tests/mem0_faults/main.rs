//! The tests that switch faults on in the mem0 test server (ignored unless `make mem0-contract`
//! runs them). Faults are global to that server, so these run in a binary of their own: the
//! other mem0 tests (in tests/it) never see one, and these take turns through `MEM0_SERVER`.

mod mem0_store_faults;
mod migrate_mem0;

/// Held by each test that switches a fault on.
static MEM0_SERVER: std::sync::Mutex<()> = std::sync::Mutex::new(());
