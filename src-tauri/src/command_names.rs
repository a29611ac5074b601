/// The app's commands, shared by build.rs (permissions) and the capability file's test. Every
/// console operation goes through `console` (the registry in oryx_api::ops names them).
pub const NAMES: &[&str] = &[
    "console",
    "migrate",
    "cancel_migration",
    "save_export",
    "save_reads",
    "pick_archive",
    "connection",
    "probe_server",
    "connect_server",
    "disconnect_server",
    "forget_server",
];
