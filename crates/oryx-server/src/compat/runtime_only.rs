//! Screens whose data the console does not have: the runtime's built-in MCP catalog answers
//! empty, so the admin UI shows an empty table instead of an error panel; and the skill links
//! the runtime would skip.

use axum::extract::State;
use serde_json::Value;

use crate::{blocking, AppState, Reply};

pub async fn empty_list() -> Reply<Vec<Value>> {
    Reply(Ok(Vec::new()))
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
