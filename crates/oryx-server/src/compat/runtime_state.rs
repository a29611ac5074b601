//! Screens of the runtime's own settings: its notify channels and sandbox whitelist (rows of its
//! database) and its MCP servers (its `mcp_servers.yaml`). Read only.

use std::collections::BTreeMap;

use axum::extract::State;
use serde::Serialize;

use crate::{blocking, AppState, Reply};

#[derive(Serialize)]
pub struct NotifyChannelView {
    name: String,
    #[serde(rename = "type")]
    kind: String,
    /// Shown in full, as the runtime's admin UI shows it.
    url: String,
    description: Option<String>,
}

pub async fn notify_channels(State(s): State<AppState>) -> Reply<Vec<NotifyChannelView>> {
    Reply(
        blocking(&s, |c| {
            Ok(c.notify_channels()?
                .into_iter()
                .map(|n| NotifyChannelView {
                    name: n.name,
                    kind: n.kind,
                    url: n.url,
                    description: n.description,
                })
                .collect())
        })
        .await,
    )
}

#[derive(Serialize)]
pub struct Whitelist {
    file: Vec<String>,
    shell: Vec<String>,
    http: Vec<String>,
}

/// The whitelist as the runtime's table holds it (what its last start seeded from its
/// configuration, plus what its admin UI changed since).
pub async fn whitelist(State(s): State<AppState>) -> Reply<Whitelist> {
    Reply(
        blocking(&s, |c| {
            let w = c.sandbox_whitelist()?;
            Ok(Whitelist {
                file: w.file,
                shell: w.shell,
                http: w.http,
            })
        })
        .await,
    )
}

#[derive(Serialize)]
pub struct McpServerView {
    name: Option<String>,
    transport: Option<String>,
    command: Option<String>,
    env: BTreeMap<String, String>,
    url: Option<String>,
    headers: BTreeMap<String, String>,
}

pub async fn mcp_servers(State(s): State<AppState>) -> Reply<Vec<McpServerView>> {
    Reply(
        blocking(&s, |c| {
            Ok(c.mcp_servers()
                .servers
                .into_iter()
                .map(|m| McpServerView {
                    name: m.name,
                    transport: m.transport,
                    command: m.command,
                    env: m.env,
                    url: m.url,
                    headers: m.headers,
                })
                .collect())
        })
        .await,
    )
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct McpServerStatusView {
    name: Option<String>,
    connected: bool,
    error: Option<String>,
    tool_names: Vec<String>,
}

/// Only the running runtime connects to MCP servers; the console never starts them.
pub const NOT_CONNECTED: &str =
    "not connected: the console does not run MCP servers (the running runtime connects to them)";

pub async fn mcp_status(State(s): State<AppState>) -> Reply<Vec<McpServerStatusView>> {
    Reply(
        blocking(&s, |c| {
            Ok(c.mcp_servers()
                .servers
                .into_iter()
                .map(|m| McpServerStatusView {
                    name: m.name,
                    connected: false,
                    error: Some(NOT_CONNECTED.to_string()),
                    tool_names: Vec::new(),
                })
                .collect())
        })
        .await,
    )
}
