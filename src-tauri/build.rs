fn main() {
    // Every command gets an `allow-<name>` permission; capabilities/default.json grants only ours.
    let manifest = tauri_build::AppManifest::new().commands(oryx_desktop_commands::NAMES);
    tauri_build::try_build(
        tauri_build::Attributes::new()
            .config_path("../tauri.conf.json")
            .app_manifest(manifest),
    )
    .expect("tauri build step");
}

mod oryx_desktop_commands {
    include!("src/command_names.rs");
}
