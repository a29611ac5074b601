//! Routes with the Java runtime's shapes, so clients written for it (its admin UI) keep working.
//! Each screen of that UI gets the runtime's own data: its files and the rows of its database
//! (schedules and runs, providers, knowledge index, notify channels, sandbox whitelist), read
//! only. What only a running runtime has (MCP connections, its built-in MCP catalog) is said so
//! or empty.

mod agents;
mod catalog;
mod login;
mod runtime_only;
mod runtime_state;
mod sessions;

use axum::routing::{get, post};
use axum::Router;

use super::AppState;

pub use login::{open_route, session_token};

/// Method, path and summary of every route below, for the OpenAPI document.
pub const ROUTES: &[(&str, &str, &str)] = &[
    ("get", "/api/v1/auth/me", "{authenticationEnabled, username}; 401 until logged in when --token is set"),
    ("post", "/api/v1/auth/login", "{username, password}: any user name, the --token as password; sets the oryxos_session cookie"),
    ("post", "/api/v1/auth/logout", "Clears the oryxos_session cookie"),
    ("get", "/api/v1/info", "{application, providers}; open without a token, then providers is empty"),
    ("get", "/api/v1/profiles", "[{name, description, provider, model, tools}]: the agents the runtime loads"),
    ("get", "/api/v1/tools", "[{name, description, inputSchema, agents}]: the memory tools with their schema, and every tool an AGENT.md lists"),
    ("get", "/api/v1/providers", "[{name, apiKey, baseUrl, description}]: the runtime's provider registry, keys masked to their last four characters"),
    ("get", "/api/v1/skills", "[{name, description, body}] from skills/*/SKILL.md"),
    ("get", "/api/v1/knowledge", "[{name, description, backend, documentCount, chunkCount, indexStatus, lastIndexedAt, capabilities}]: bases whose KNOWLEDGE.md the runtime accepts, with its index figures"),
    ("get", "/api/v1/knowledge/{name}", "{base, documents: [{relPath, state, chunkCount, failureReason, indexedAt}]}"),
    ("get", "/api/v1/skills/binding-issues", "[{agentName, agentState, entryName, path, type, message}]: skill links the runtime would skip"),
    ("get", "/api/v1/mcp-servers", "[{name, transport, command, env, url, headers}] from mcp_servers.yaml (${VAR} as written)"),
    ("get", "/api/v1/mcp-servers/status", "[{name, connected: false, error, toolNames: []}]: the console does not run MCP servers"),
    ("get", "/api/v1/mcp-servers/catalog", "[]: the MCP catalog is built into the runtime"),
    ("get", "/api/v1/notify-channels", "[{name, type, url, description}]: the runtime's notify channels"),
    ("get", "/api/v1/sandbox/whitelist", "{file, shell, http}: the runtime's sandbox whitelist table"),
    ("get", "/api/v1/workspace/tree", "{name, path, type, children, linkTarget, linkStatus}: agents, skills, output, archive; links not followed; at most 8 levels and 5000 entries (truncated: true when cut)"),
    ("get", "/api/v1/workspace/file", "A text file of the root by its relative path (?path=)"),
    ("get", "/api/v2/schedules", "[{scheduleId, profileName, key, name, cron, zone, message, enabled, nextRunAt, lastRunAt, lastStatus, runCount}]: the runtime's table merged with the schedules of the agents it loads"),
    ("get", "/api/v2/schedules/{id}/executions", "[{scheduleId, legacyTaskKey, legacyMigrated, sessionId, startedAt, success, errorMessage, durationMs}] newest first (?limit=, at most 100); 404 for an unknown id"),
    ("get", "/api/v1/agents", "Agents in the Java runtime's shape"),
    ("get", "/api/v1/agents/{name}", "One agent in the Java runtime's shape"),
    ("get", "/api/v1/agents/{name}/memory", "The agent's memory block as text (prompt part [2]); 404 for an agent the runtime would not load"),
    ("get", "/api/v1/agents/{name}/skills", "{bindings: [{name, description, skillFile}], issues}"),
    ("get", "/api/v1/agents/{name}/knowledge", "{bindings: [{name, description}], issues}"),
    ("get", "/api/v1/agents/{name}/session", "The runtime's admin conversation (admin:console:<name>) or an empty one"),
    ("get", "/api/v1/agents/{name}/executions", "[{id, agentName, source, sessionId, startedAt, endedAt, status, durationMs, errorMessage}] newest first, at most 50"),
    ("get", "/api/v1/sessions", "At most 100 sessions, newest first (?status=active|archived); instants in UTC with milliseconds; a session whose messages cannot be read has messageCount null and error"),
    ("get", "/api/v1/sessions/stats", "{active, archived, total}"),
    ("get", "/api/v1/sessions/{id}", "{sessionId, profileName, messages}; 500 corrupt when its messages cannot be read"),
];

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/v1/auth/me", get(login::me))
        .route("/api/v1/auth/login", post(login::login))
        .route("/api/v1/auth/logout", post(login::logout))
        .route("/api/v1/info", get(catalog::info))
        .route("/api/v1/profiles", get(catalog::profiles))
        .route("/api/v1/tools", get(catalog::tools))
        .route("/api/v1/providers", get(catalog::providers))
        .route("/api/v1/skills", get(catalog::skills))
        .route("/api/v1/knowledge", get(catalog::knowledge))
        .route(
            "/api/v1/knowledge/{name}",
            get(catalog::knowledge_base_detail),
        )
        .route(
            "/api/v1/skills/binding-issues",
            get(runtime_only::skill_binding_issues),
        )
        .route("/api/v1/mcp-servers", get(runtime_state::mcp_servers))
        .route("/api/v1/mcp-servers/status", get(runtime_state::mcp_status))
        .route("/api/v1/mcp-servers/catalog", get(runtime_only::empty_list))
        .route(
            "/api/v1/notify-channels",
            get(runtime_state::notify_channels),
        )
        .route("/api/v1/sandbox/whitelist", get(runtime_state::whitelist))
        .route("/api/v1/workspace/tree", get(catalog::tree))
        .route("/api/v1/workspace/file", get(catalog::file))
        .route("/api/v2/schedules", get(catalog::schedules))
        .route(
            "/api/v2/schedules/{id}/executions",
            get(catalog::schedule_executions),
        )
        .route("/api/v1/agents", get(agents::list))
        .route("/api/v1/agents/{name}", get(agents::one))
        .route("/api/v1/agents/{name}/memory", get(agents::memory))
        .route("/api/v1/agents/{name}/skills", get(agents::skills))
        .route("/api/v1/agents/{name}/knowledge", get(agents::knowledge))
        .route("/api/v1/agents/{name}/session", get(agents::session))
        .route("/api/v1/agents/{name}/executions", get(agents::executions))
        .route("/api/v1/sessions", get(sessions::list))
        .route("/api/v1/sessions/stats", get(sessions::stats))
        .route("/api/v1/sessions/{id}", get(sessions::one))
}

/// Instants as the runtime writes them (Jackson's ISO-8601 in UTC), keeping the milliseconds.
fn iso_ms(ms: Option<i64>) -> Option<String> {
    chrono::DateTime::<chrono::Utc>::from_timestamp_millis(ms?)
        .map(|d| d.to_rfc3339_opts(chrono::SecondsFormat::Millis, true))
}
