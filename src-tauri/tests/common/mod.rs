//! The mock Tauri app and its IPC for the desktop's tests: real IPC serialisation, real files,
//! no window.
#![allow(dead_code)]

use std::path::Path;

use oryx_api::Console;
use oryx_core::config::Overrides;
use oryx_desktop::AppState;
use serde_json::{json, Value};
use tauri::ipc::{CallbackFn, InvokeBody};
use tauri::test::{get_ipc_response, mock_builder, mock_context, noop_assets, INVOKE_KEY};
use tauri::webview::InvokeRequest;
use tauri::WebviewWindowBuilder;

pub type Window = tauri::WebviewWindow<tauri::test::MockRuntime>;

/// The app on `console`, as `run()` builds it (state, the specta builder's handler).
pub fn app_with(console: Console) -> Window {
    let builder = oryx_desktop::specta_builder();
    let app = mock_builder()
        .manage(AppState::new(console))
        .invoke_handler(builder.invoke_handler())
        .build(mock_context(noop_assets()))
        .unwrap();
    WebviewWindowBuilder::new(&app, "main", Default::default())
        .build()
        .unwrap()
}

/// The app with its settings at `settings` and the root overridden to `root`.
pub fn app(root: &Path, settings: &Path) -> Window {
    app_with(
        Console::open(
            Some(settings.to_path_buf()),
            Overrides {
                root: Some(root.to_path_buf()),
                ..Overrides::default()
            },
        )
        .unwrap(),
    )
}

/// The `oryx` binary of this workspace (built by `cargo test --workspace` and `make test`).
pub fn oryx_bin() -> std::path::PathBuf {
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().and_then(Path::parent).unwrap();
    let bin = dir.join("oryx");
    assert!(
        bin.is_file(),
        "{} is missing: build it first (`cargo build -p oryx-cli`; `make test` does)",
        bin.display()
    );
    bin
}

/// Invokes the IPC command `cmd` with `args` as the UI's transport does.
pub fn invoke_command(w: &Window, cmd: &str, args: Value) -> Result<Value, Value> {
    get_ipc_response(
        w,
        InvokeRequest {
            cmd: cmd.into(),
            callback: CallbackFn(0),
            error: CallbackFn(1),
            url: "tauri://localhost".parse().unwrap(),
            body: InvokeBody::Json(args),
            headers: Default::default(),
            invoke_key: INVOKE_KEY.to_string(),
        },
    )
    .map(|b| b.deserialize::<Value>().unwrap())
}

/// Runs a registered operation (through the `console` command) or, for names outside the
/// registry (migrate, cancel_migration), the command itself.
pub fn invoke(w: &Window, name: &str, args: Value) -> Result<Value, Value> {
    if oryx_api::ops::NAMES.contains(&name) {
        invoke_command(w, "console", json!({"op": name, "args": args}))
    } else {
        invoke_command(w, name, args)
    }
}

/// The loader of tests/fixtures/traversal.json that the CLI's and server's tests use: one
/// payload list, one reader of it.
#[allow(dead_code)]
#[path = "../../../crates/oryx-server/tests/common/traversal.rs"]
pub mod traversal;
