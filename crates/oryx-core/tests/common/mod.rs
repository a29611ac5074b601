//! Shared by oryx-core's test binaries.

#![allow(dead_code)]

pub mod child;
