//! Prompt preview: parts [1]–[4] as the agent would receive them, and beside them the console's
//! episodic suggestion, which the runtime never sends.

use oryx_core::agents;
use oryx_core::prompt::{self, offered::Offer, PartKind};

use crate::console::Console;
use crate::dto::{
    warning_dtos, DeclaredToolDto, EpisodicPreviewDto, PartKindDto, PromptDto, PromptPartDto,
    SkippedBindingDto, ToolOfferDto,
};
use crate::error::{ApiError, ApiResult};
use crate::ops::PromptArgs;

/// What a replayed prompt knows of its moment, and what it cannot.
fn replay_note(known: &[String]) -> String {
    let files = if known.is_empty() {
        "AGENT.md, skills, bootstrap files and tools are today's (the root is not kept in git, or \
         they were not changed since)"
            .to_string()
    } else {
        format!(
            "as the root's git history had them then: {}; everything else of AGENT.md, skills, \
             bootstrap files and tools is today's",
            known.join(", ")
        )
    };
    format!(
        "{files}; memory: entries stamped after the moment are left out and the console's own \
         changes since are taken back (changes made by hand are known only from git)"
    )
}

impl Console {
    /// `query`: the message the episodic part is chosen for (default: the session's last user
    /// message); only used when episodic memory is on.
    pub fn prompt_preview(
        &self,
        agent: &str,
        session_id: Option<&str>,
        query: Option<&str>,
    ) -> ApiResult<PromptDto> {
        self.prompt_at(&PromptArgs {
            agent: agent.to_string(),
            session_id: session_id.map(str::to_string),
            query: query.map(str::to_string),
            asof: None,
            message_index: None,
        })
    }

    /// The prompt now, or (with `asof`) as it was built at a past moment: memory as of then,
    /// the session's history up to `message_index`.
    pub fn prompt_at(&self, args: &PromptArgs) -> ApiResult<PromptDto> {
        let agent = args.agent.as_str();
        let session_id = args.session_id.as_deref().filter(|s| !s.is_empty());
        let query = args.query.as_deref().filter(|s| !s.is_empty());
        let rt = self.services();
        rt.owner(Some(agent))?;
        let session = session_id.map(|id| rt.sessions.get(id)).transpose()?;
        let replay = match args.asof.as_deref().filter(|s| !s.trim().is_empty()) {
            Some(at) => {
                let t = crate::portable::parse_moment(at)?;
                if let (Some(i), Some(s)) = (args.message_index, &session) {
                    if i as usize >= s.messages.len() {
                        return Err(ApiError::invalid(format!(
                            "session {} has {} messages; message {} is not one of them",
                            s.summary.session_id,
                            s.messages.len(),
                            i + 1
                        )));
                    }
                }
                Some(prompt::Replay {
                    at: t,
                    memory_block: self.memory_block_at(Some(agent), t)?,
                    upto: args.message_index.map(|i| i as usize),
                })
            }
            None => None,
        };
        let (a, agent_commit) = match &replay {
            Some(r) => agents::get_as_of(rt.root(), agent, r.at)?,
            None => (agents::get(rt.root(), agent)?, None),
        };
        let ep = rt.effective.episodic;
        let mut preview = None;
        if ep.enabled {
            let query = query.map(str::to_string).or_else(|| {
                session.as_ref().and_then(|s| {
                    s.messages
                        .iter()
                        .rev()
                        .find(|m| m.role == "user")
                        .and_then(|m| m.content.clone())
                })
            });
            let hits = match &query {
                Some(q) if !q.trim().is_empty() => crate::recall::episodic(&rt)?.search(
                    &rt.sessions,
                    agent,
                    q,
                    ep.top_k,
                    rt.effective.recall.floor,
                    session_id,
                )?,
                _ => Vec::new(),
            };
            let text = oryx_core::episodic::render_part(&hits, ep.budget_chars);
            preview = Some(EpisodicPreviewDto {
                query,
                top_k: ep.top_k as u32,
                budget_chars: ep.budget_chars as u32,
                hits: hits.iter().map(crate::recall::episodic_hit_dto).collect(),
                chars: text.chars().count() as u32,
                tokens_estimate: estimate_tokens(&text),
                text,
            });
        }
        let p = prompt::build(rt.root(), &a, &rt.memory, session.as_ref(), replay.as_ref())?;
        let from_git: Vec<String> = agent_commit
            .map(|c| format!("AGENT.md (commit {c})"))
            .into_iter()
            .chain(p.from_git.iter().cloned())
            .collect();
        let parts: Vec<PromptPartDto> = p
            .parts
            .iter()
            .map(|part| PromptPartDto {
                index: part.index,
                kind: match part.kind {
                    PartKind::System => PartKindDto::System,
                    PartKind::Memory => PartKindDto::Memory,
                    PartKind::History => PartKindDto::History,
                    PartKind::Tools => PartKindDto::Tools,
                },
                chars: part.chars as u32,
                tokens_estimate: estimate_tokens(&part.text),
                text: part.text.clone(),
            })
            .collect();
        Ok(PromptDto {
            agent: agent.to_string(),
            session_id: session_id.map(str::to_string),
            total_chars: parts.iter().map(|p| p.chars).sum(),
            total_tokens_estimate: parts.iter().map(|p| p.tokens_estimate).sum(),
            parts,
            history_turns: p.history_turns as u32,
            history_messages: p.history_messages as u32,
            max_history_turns: p.max_history_turns.clamp(i32::MIN as i64, i32::MAX as i64) as i32,
            bootstrap_loaded: p.bootstrap_loaded,
            warnings: warning_dtos(&p.warnings),
            system_text: p.system_prompt,
            tools: p
                .tools
                .iter()
                .map(|t| DeclaredToolDto {
                    name: t.name.clone(),
                    offer: match t.offer {
                        Offer::Builtin => ToolOfferDto::Builtin,
                        Offer::IfMcpProvides => ToolOfferDto::IfMcpProvides,
                        Offer::Dropped => ToolOfferDto::Dropped,
                    },
                })
                .collect(),
            skipped_bindings: p
                .skipped_bindings
                .iter()
                .map(|b| SkippedBindingDto {
                    kind: b.kind.to_string(),
                    name: b.name.clone(),
                    reason: b.reason.clone(),
                })
                .collect(),
            episodic: preview,
            asof: replay
                .as_ref()
                .map(|r| oryx_core::timefmt::format_entry_ts(&r.at)),
            asof_note: replay.as_ref().map(|_| replay_note(&from_git)),
            asof_from_git: from_git,
        })
    }
}

/// A tokenizer-free estimate: CJK characters count about one token each, other text about four
/// characters per token. Good enough to compare the parts' weight, not to bill by.
pub fn estimate_tokens(text: &str) -> u32 {
    let (mut cjk, mut other) = (0u32, 0u32);
    for c in text.chars() {
        if is_cjk(c) {
            cjk += 1;
        } else {
            other += 1;
        }
    }
    cjk + other.div_ceil(4)
}

fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3000..=0x303F | 0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF |
        0xAC00..=0xD7AF | 0xF900..=0xFAFF | 0xFF00..=0xFFEF | 0x20000..=0x2FA1F)
}

#[cfg(test)]
mod tests {
    #[test]
    fn token_estimate() {
        assert_eq!(super::estimate_tokens(""), 0);
        assert_eq!(super::estimate_tokens("abcd"), 1);
        assert_eq!(super::estimate_tokens("记忆abcde"), 4);
    }
}
