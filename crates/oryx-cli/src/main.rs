//! `oryx`: every console operation from the command line, over oryx-api.

#![forbid(unsafe_code)]

mod args;
mod commands;
mod progress;
mod render;

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;
use oryx_api::{ApiError, ErrorCode};

fn main() -> ExitCode {
    let args = args::Args::parse();
    match commands::run(args) {
        Ok(code) => code,
        Err(e) => {
            let _ = std::io::stdout().flush();
            eprintln!("error[{}]: {}", e.code.as_str(), e.message);
            exit_code(&e)
        }
    }
}

/// 2 for input the caller can fix (usage, names, scopes), 1 for everything else.
fn exit_code(e: &ApiError) -> ExitCode {
    if e.code.is_invalid_input() || e.code == ErrorCode::SessionNotFound {
        ExitCode::from(2)
    } else {
        ExitCode::from(1)
    }
}
