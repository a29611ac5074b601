//! The run path, for tests and scripts that act as the runtime would: tools through the
//! ToolExecutor and the automatic footprint. Invalid agent names fall back to the global memory.

use oryx_core::names::resolve_lenient;
use oryx_core::tools::{FailureKind, ToolContext, ToolExecutor};
use serde::Serialize;

use crate::console::Console;
use crate::dto::EntryDto;
use crate::error::ApiResult;

#[cfg(feature = "specta")]
use specta::Type;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct ToolRunResult {
    pub tool: String,
    /// `global` or the agent name the call resolved to.
    pub owner: String,
    pub output: String,
    pub success: bool,
    /// The failure was the caller's (bad JSON, unknown tool, bad scope).
    pub bad_call: bool,
    // Typed as a plain number in TypeScript (JSON carries the full value).
    #[cfg_attr(feature = "specta", specta(type = u32))]
    pub duration_ms: i64,
    /// `None` when the call could not be recorded (see `warning`).
    // Typed as a plain number in TypeScript (JSON carries the full value).
    #[cfg_attr(feature = "specta", specta(type = Option<u32>))]
    pub invocation_id: Option<i64>,
    /// Why the call was not recorded in `tool_invocations`; its result stands.
    pub warning: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct FootprintResult {
    pub owner: String,
    /// `None` when footprints are switched off in Settings.
    pub entry: Option<EntryDto>,
}

impl Console {
    pub fn run_tool(
        &self,
        agent: Option<&str>,
        session_id: Option<&str>,
        tool: &str,
        input_json: &str,
    ) -> ApiResult<ToolRunResult> {
        let rt = self.services();
        let exec = ToolExecutor::new(rt.root(), rt.memory.clone(), rt.sessions.clone());
        let ctx = ToolContext {
            agent: agent.map(str::to_string),
            session_id: session_id.map(str::to_string),
        };
        let out = exec.execute(&ctx, tool, input_json)?;
        Ok(ToolRunResult {
            tool: out.tool,
            owner: out.owner,
            output: out.output,
            success: out.success,
            bad_call: out.failure == Some(FailureKind::BadCall),
            duration_ms: out.duration_ms,
            invocation_id: out.invocation_id,
            warning: out.warning,
        })
    }

    pub fn record_footprint(
        &self,
        agent: Option<&str>,
        user: &str,
        reply: &str,
    ) -> ApiResult<FootprintResult> {
        let rt = self.services();
        let owner = resolve_lenient(rt.root(), agent);
        if !rt.effective.footprint_enabled {
            return Ok(FootprintResult {
                owner: owner.label(),
                entry: None,
            });
        }
        let entry = rt.memory.record_footprint(&owner, user, reply)?;
        Ok(FootprintResult {
            owner: owner.label(),
            entry: Some(EntryDto::from(&entry)),
        })
    }
}
