//! Which of an agent's declared tools the runtime offers the model.
//!
//! The runtime offers a declared name only when its tool registry holds it, in the declared
//! order; other names are dropped without a word to the model. The registry holds its built-in
//! tools (fixed at build time, listed here) and the tools of the MCP servers it is connected to
//! right now (live state the console cannot see).

use std::path::Path;

use serde::Serialize;

/// Every tool the runtime registers itself: its file, shell, HTTP, utility, web-search,
/// interaction, notify, memory and knowledge tools.
pub const RUNTIME_TOOLS: [&str; 25] = [
    "read_file",
    "write_file",
    "list_dir",
    "edit_file",
    "grep",
    "glob",
    "make_dir",
    "append_file",
    "delete_file",
    "move_file",
    "copy_file",
    "shell",
    "http_get",
    "http_post",
    "http_request",
    "fetch_webpage",
    "download_file",
    "current_time",
    "json_extract",
    "web_search",
    "ask_user",
    "notify",
    "save_memory",
    "recall_memory",
    "retrieve_knowledge",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Offer {
    /// A built-in tool: always offered.
    Builtin,
    /// Not built in, and MCP servers are configured: offered only while one of them that is
    /// connected provides a tool of this name.
    IfMcpProvides,
    /// Not built in and no MCP server is configured: the runtime drops it.
    Dropped,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DeclaredTool {
    pub name: String,
    pub offer: Offer,
}

/// The agent's `tools` in order, each with what the runtime does with it.
pub fn classify(root: &Path, declared: &[String]) -> Vec<DeclaredTool> {
    let mcp = mcp_server_count(root) > 0;
    declared
        .iter()
        .map(|name| DeclaredTool {
            name: name.clone(),
            offer: if RUNTIME_TOOLS.contains(&name.as_str()) {
                Offer::Builtin
            } else if mcp {
                Offer::IfMcpProvides
            } else {
                Offer::Dropped
            },
        })
        .collect()
}

/// The servers in `<root>/mcp_servers.yaml` (`servers:` list of mappings) whose transport the
/// runtime can connect (stdio, http); a missing or unreadable file is none, as for the runtime.
pub fn mcp_server_count(root: &Path) -> usize {
    let Ok(text) = std::fs::read_to_string(root.join("mcp_servers.yaml")) else {
        return 0;
    };
    let Ok(v) = serde_yaml_ng::from_str::<serde_json::Value>(&text) else {
        return 0;
    };
    v.get("servers")
        .and_then(serde_json::Value::as_array)
        .map_or(0, |servers| {
            servers
                .iter()
                .filter(|s| {
                    matches!(
                        s.get("transport").and_then(serde_json::Value::as_str),
                        Some("stdio" | "http")
                    )
                })
                .count()
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_names_are_dropped_unless_an_mcp_server_may_provide_them() {
        let d = tempfile::tempdir().unwrap();
        let declared: Vec<String> = ["save_memory", "calendar", "write_file"]
            .map(String::from)
            .to_vec();
        let offers: Vec<_> = classify(d.path(), &declared)
            .into_iter()
            .map(|t| t.offer)
            .collect();
        assert_eq!(offers, [Offer::Builtin, Offer::Dropped, Offer::Builtin]);
        std::fs::write(
            d.path().join("mcp_servers.yaml"),
            "servers:\n  - name: cal\n    transport: stdio\n    command: cal-mcp\n  - name: old\n    transport: sse\n",
        )
        .unwrap();
        assert_eq!(mcp_server_count(d.path()), 1);
        assert_eq!(classify(d.path(), &declared)[1].offer, Offer::IfMcpProvides);
    }
}
