//! Screens whose data only a running runtime holds (MCP servers, notify channels, the sandbox
//! whitelist): they answer empty, so the admin UI shows empty tables instead of error panels.

use axum::extract::State;
use serde::Serialize;
use serde_json::Value;

use crate::{blocking, AppState, Reply};

pub async fn empty_list() -> Reply<Vec<Value>> {
    Reply(Ok(Vec::new()))
}

#[derive(Serialize)]
pub struct Whitelist {
    file: Vec<String>,
    shell: Vec<String>,
    http: Vec<String>,
}

pub async fn whitelist() -> Reply<Whitelist> {
    Reply(Ok(Whitelist {
        file: Vec::new(),
        shell: Vec::new(),
        http: Vec::new(),
    }))
}

/// Every agent's skill links the runtime would skip, in the shape of its binding check.
pub async fn skill_binding_issues(State(s): State<AppState>) -> Reply<Vec<Value>> {
    Reply(
        blocking(&s, |c| {
            let mut out = Vec::new();
            for a in c.list_agents()?.agents {
                // An agent that cannot be opened (a link out of the root) has no bindings to check.
                let Ok(bindings) = c.skill_bindings(&a.name) else {
                    continue;
                };
                for b in bindings {
                    for w in &b.warnings {
                        out.push(super::agents::skill_issue(
                            &a.name,
                            &b.name,
                            &b.skill_file,
                            w,
                        ));
                    }
                }
            }
            Ok(out)
        })
        .await,
    )
}
