//! Console operations.
