//! The MCP servers the runtime connects to: `mcp_servers.yaml` in its root, a `servers:` list
//! of `{name, transport, command, env, url, headers}`. `${VAR}` placeholders stay as written
//! (the runtime's admin UI shows them so; only its connection resolves them).

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use crate::workspace;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpServer {
    pub name: Option<String>,
    pub transport: Option<String>,
    pub command: Option<String>,
    pub env: BTreeMap<String, String>,
    pub url: Option<String>,
    pub headers: BTreeMap<String, String>,
}

/// The servers, and why the file was read as none when it could not be read (the runtime then
/// starts with no MCP server too).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct McpServers {
    pub servers: Vec<McpServer>,
    pub problem: Option<String>,
}

pub const FILE: &str = "mcp_servers.yaml";

pub fn servers(root: &Path) -> McpServers {
    let text = match workspace::read_text(&root.join(FILE)) {
        Ok(Some(t)) => t,
        Ok(None) => return McpServers::default(),
        Err(e) => return problem(e.to_string()),
    };
    let doc: Value = match serde_yaml_ng::from_str(&text) {
        Ok(v) => v,
        Err(e) => return problem(format!("{FILE} is not valid YAML: {e}")),
    };
    let Some(items) = doc.get("servers").and_then(Value::as_array) else {
        return McpServers::default();
    };
    McpServers {
        servers: items
            .iter()
            .filter(|i| i.is_object())
            .map(|i| McpServer {
                name: scalar(i.get("name")),
                transport: scalar(i.get("transport")),
                command: scalar(i.get("command")),
                env: string_map(i.get("env")),
                url: scalar(i.get("url")),
                headers: string_map(i.get("headers")),
            })
            .collect(),
        problem: None,
    }
}

fn problem(p: String) -> McpServers {
    McpServers {
        servers: Vec::new(),
        problem: Some(p),
    }
}

/// A value as text, as the runtime turns any YAML value into a string.
fn scalar(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        other => Some(other.to_string()),
    }
}

fn string_map(v: Option<&Value>) -> BTreeMap<String, String> {
    let Some(Value::Object(m)) = v else {
        return BTreeMap::new();
    };
    m.iter()
        .map(|(k, v)| (k.clone(), scalar(Some(v)).unwrap_or_else(|| "null".into())))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn servers_as_written_and_a_broken_file_is_none_with_its_reason() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(servers(dir.path()), McpServers::default());
        std::fs::write(
            dir.path().join(FILE),
            "servers:\n  - name: github\n    transport: stdio\n    command: npx -y server-github\n    \
             env:\n      TOKEN: ${GITHUB_TOKEN}\n      RETRIES: 3\n  - just a string\n",
        )
        .unwrap();
        let s = servers(dir.path());
        assert_eq!(s.problem, None);
        assert_eq!(s.servers.len(), 1);
        let g = &s.servers[0];
        assert_eq!(g.name.as_deref(), Some("github"));
        assert_eq!(g.url, None);
        assert_eq!(g.env["TOKEN"], "${GITHUB_TOKEN}");
        assert_eq!(g.env["RETRIES"], "3");
        std::fs::write(dir.path().join(FILE), "servers: [unclosed\n").unwrap();
        let s = servers(dir.path());
        assert!(s.servers.is_empty());
        assert!(s.problem.unwrap().contains("not valid YAML"));
    }
}
