/// The app's commands, shared by build.rs (permissions) and the capability file's test.
pub const NAMES: &[&str] = &[
    "list_agents",
    "get_agent",
    "memory_view",
    "append_memory",
    "recall_memory",
    "preview_entry",
    "list_sessions",
    "get_session",
    "tool_invocations",
    "prompt_preview",
    "bootstrap_files",
    "get_settings",
    "update_settings",
    "inspect_root",
    "create_sample_root",
];
