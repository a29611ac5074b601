//! Sessions over the runtime tables (placeholder; being written).
