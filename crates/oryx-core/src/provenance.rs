//! Where a memory entry came from, as far as the runtime's own records tell ("provenance"):
//! the `save_memory` call that wrote it, the conversation turn whose footprint it is, a console
//! change (with what the entry was before), or nothing on record. And the way back: from a
//! session's messages to the entries they wrote.
//!
//! Nothing links an entry to its session in the runtime's data, so the link is found by what
//! both records hold: the owner, the text and the time. A match in text and time (the call or
//! the session's activity within [`TOLERANCE_S`] of the entry's stamp) is `exact`; a match in
//! text only names the nearest candidate and says so.

use std::collections::HashSet;

use chrono::NaiveDateTime;
use serde::Serialize;

use crate::error::{CoreError, Result};
use crate::memory::history::{Change, Op};
use crate::memory::service::footprint_part;
use crate::memory::{summary, Entry, MemoryService, Scope, Sections};
use crate::names::{is_valid_agent_name, Owner};
use crate::sessions::{Message, Session, SessionFilter, SessionStore, ToolInvocation};
use crate::timefmt::local_to_epoch_ms;
use crate::tools::{saved_by, SAVE_MEMORY};

/// How far apart a record and the entry it wrote may be stamped and still count as the same
/// moment: the runtime stamps the entry and the call separately, around a model round trip.
pub const TOLERANCE_S: i64 = 120;

/// Save calls are looked for this far around an entry's stamp before all of them are.
const SEARCH_SPAN_MS: i64 = 24 * 3600 * 1000;

/// Sessions a footprint's trigger is looked for in.
const FOOTPRINT_CANDIDATES: usize = 200;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// Written by the agent's `save_memory` tool.
    SaveMemory,
    /// The runtime's automatic footprint of one conversation turn.
    Footprint,
    /// A summary line (made by the console's summariser; the marker says so).
    Summary,
    /// Last written by a console change (an edit, a move, a restore, a summary).
    Console,
    /// Nothing on record: written by hand, by an import, by a console append, or by a runtime
    /// whose session has since gone.
    Unknown,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Provenance {
    pub source: Source,
    /// The record agrees with the entry in text and time; `false`: in text only (the nearest
    /// record in time is named) or there is no record.
    pub exact: bool,
    pub session_id: Option<String>,
    /// The message of that session: the assistant's `save_memory` call, or the user message
    /// of the footprint's turn.
    pub message_index: Option<usize>,
    pub invocation_id: Option<i64>,
    /// When the record was made: the call, the session's last activity, the console change.
    pub at: Option<NaiveDateTime>,
    /// A footprint's user message, as the footprint holds it.
    pub trigger: Option<String>,
    /// A console change: its id and operation (`edit`, `move`, …).
    pub change_id: Option<String>,
    pub change_op: Option<String>,
    /// A console change: where the entry it changed had come from.
    pub earlier: Option<Box<Provenance>>,
}

impl Provenance {
    fn of(source: Source) -> Provenance {
        Provenance {
            source,
            exact: false,
            session_id: None,
            message_index: None,
            invocation_id: None,
            at: None,
            trigger: None,
            change_id: None,
            change_op: None,
            earlier: None,
        }
    }
}

/// One entry a session's message wrote.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MemoryLink {
    pub message_index: usize,
    pub source: Source,
    pub scope: Scope,
    pub entry_id: String,
    pub content: String,
    pub timestamp: Option<NaiveDateTime>,
    /// Stamped within the session's activity (± [`TOLERANCE_S`]).
    pub exact: bool,
}

/// What an entry is, for the search: its text, section and stamp.
struct Subject<'a> {
    scope: Scope,
    content: &'a str,
    at: Option<NaiveDateTime>,
}

/// Where the entry `id` of `owner` came from.
pub fn of_entry(
    memory: &MemoryService,
    sessions: &SessionStore,
    owner: &Owner,
    id: &str,
) -> Result<Provenance> {
    let all = memory.store().load_all(owner)?;
    let (scope, _, entry) = all.find(id).ok_or_else(|| {
        CoreError::NotFound(format!(
            "no entry {id} in the memory of {}: it was changed or removed since it was listed",
            owner.label()
        ))
    })?;
    let subject = Subject {
        scope,
        content: &entry.content,
        at: entry.timestamp,
    };
    // A store without a history (mem0) simply has no console changes to name.
    let changes: Vec<Change> = memory
        .history(owner, None)
        .map(|h| h.changes.into_iter().map(|l| l.change).collect())
        .unwrap_or_default();
    if let Some(p) = by_console(&changes, &subject, |earlier| {
        from_runtime(sessions, owner, earlier)
    })? {
        return Ok(p);
    }
    from_runtime(sessions, owner, &subject)
}

/// Where each of the entries `ids` of `owner` came from (`None`: no entry has that id now), the
/// entries and the console's history read once for all of them (the health check asks this
/// for every entry it found an instruction in).
pub fn of_entries(
    memory: &MemoryService,
    sessions: &SessionStore,
    owner: &Owner,
    ids: &[&str],
) -> Result<Vec<Option<Provenance>>> {
    let all = memory.store().load_all(owner)?;
    let wanted: HashSet<&str> = ids.iter().copied().collect();
    let mut found: std::collections::HashMap<String, (Scope, &Entry)> = Default::default();
    for scope in [Scope::Core, Scope::Archival] {
        for (i, e) in all.of(scope).iter().enumerate() {
            if let Some(id) = all.id(scope, i).filter(|id| wanted.contains(id.as_str())) {
                found.entry(id).or_insert((scope, e));
            }
        }
    }
    let changes: Vec<Change> = memory
        .history(owner, None)
        .map(|h| h.changes.into_iter().map(|l| l.change).collect())
        .unwrap_or_default();
    ids.iter()
        .map(|id| {
            let Some(&(scope, entry)) = found.get(*id) else {
                return Ok(None);
            };
            let subject = Subject {
                scope,
                content: &entry.content,
                at: entry.timestamp,
            };
            if let Some(p) = by_console(&changes, &subject, |earlier| {
                from_runtime(sessions, owner, earlier)
            })? {
                return Ok(Some(p));
            }
            from_runtime(sessions, owner, &subject).map(Some)
        })
        .collect()
}

/// The newest console change that left the entry as it is now and was not taken back.
fn by_console(
    changes: &[Change],
    s: &Subject<'_>,
    earlier: impl Fn(&Subject<'_>) -> Result<Provenance>,
) -> Result<Option<Provenance>> {
    // Taken back: undone, unless one of its undos was itself redone.
    let reverted_by = |op: Op| {
        changes
            .iter()
            .filter(move |x| x.op == op)
            .filter_map(|x| Some((x.reverts.as_deref()?, x.id.as_str())))
    };
    let redone: HashSet<&str> = reverted_by(Op::Redo).map(|(undo, _)| undo).collect();
    let undone: HashSet<&str> = reverted_by(Op::Undo).map(|(c, _)| c).collect();
    let undo_redone: HashSet<&str> = reverted_by(Op::Undo)
        .filter(|(_, undo)| redone.contains(undo))
        .map(|(c, _)| c)
        .collect();
    let undone =
        |c: &Change| undone.contains(c.id.as_str()) && !undo_redone.contains(c.id.as_str());
    for c in changes {
        if matches!(c.op, Op::Delete | Op::Undo | Op::Redo) || undone(c) {
            continue;
        }
        let Some(d) = c.entries.iter().find(|d| {
            d.after
                .as_ref()
                .is_some_and(|a| a.scope == s.scope && a.content == s.content)
        }) else {
            continue;
        };
        let mut p = Provenance::of(Source::Console);
        p.exact = true;
        p.change_id = Some(c.id.clone());
        p.change_op = Some(c.op.as_str().to_string());
        p.at = crate::timefmt::epoch_ms_to_local(c.at);
        p.earlier = match &d.before {
            Some(b) => Some(Box::new(earlier(&Subject {
                scope: b.scope,
                content: &b.content,
                at: b
                    .timestamp
                    .as_deref()
                    .and_then(crate::timefmt::parse_entry_ts),
            })?)),
            None => None,
        };
        return Ok(Some(p));
    }
    Ok(None)
}

fn from_runtime(sessions: &SessionStore, owner: &Owner, s: &Subject<'_>) -> Result<Provenance> {
    if summary::is_summary_text(s.content) {
        return Ok(Provenance::of(Source::Summary));
    }
    if let Some(trigger) = footprint_trigger(s.content) {
        if s.scope == Scope::Archival {
            return by_footprint(sessions, owner, s, trigger);
        }
    }
    by_save_call(sessions, owner, s)
}

/// The user part of a footprint line `触发「<user>」⇒ <reply>`.
pub fn footprint_trigger(content: &str) -> Option<&str> {
    let rest = content.strip_prefix("触发「")?;
    let end = rest.find("」⇒ ")?;
    Some(&rest[..end])
}

fn within(
    at: Option<NaiveDateTime>,
    from: Option<NaiveDateTime>,
    to: Option<NaiveDateTime>,
) -> bool {
    let (Some(at), Some(from)) = (at, from.or(to)) else {
        return false;
    };
    let to = to.unwrap_or(from);
    let slack = chrono::Duration::seconds(TOLERANCE_S);
    at >= from - slack && at <= to + slack
}

fn distance_ms(a: Option<NaiveDateTime>, b: Option<NaiveDateTime>) -> i64 {
    match (a, b) {
        (Some(a), Some(b)) => (local_to_epoch_ms(&a) - local_to_epoch_ms(&b)).abs(),
        _ => i64::MAX,
    }
}

/// Whether a session may have written to `owner`'s memory: its agent's own, or the global
/// memory, which takes what runs without a valid agent write.
fn writes_to(session_agent: Option<&str>, owner: &Owner) -> bool {
    match owner {
        Owner::Agent(name) => session_agent == Some(name.as_str()),
        Owner::Global => !session_agent.is_some_and(is_valid_agent_name),
    }
}

fn by_footprint(
    sessions: &SessionStore,
    owner: &Owner,
    s: &Subject<'_>,
    trigger: &str,
) -> Result<Provenance> {
    let mut p = Provenance::of(Source::Footprint);
    p.trigger = Some(trigger.to_string());
    // The database holds the message whole; the footprint may have cut it and collapsed its
    // spaces, and JSON may escape quotes and backslashes: search by its longest plain run.
    let needle = trigger
        .trim_end_matches('…')
        .split(|c: char| c.is_whitespace() || c == '"' || c == '\\' || c.is_control())
        .max_by_key(|w| w.chars().count())
        .unwrap_or_default();
    if needle.is_empty() || trigger == "（空）" {
        return Ok(p);
    }
    let page = sessions.list(&SessionFilter {
        agent: owner.agent_name().map(str::to_string),
        query: Some(needle.chars().take(40).collect()),
        limit: FOOTPRINT_CANDIDATES,
        ..SessionFilter::default()
    })?;
    let mut best: Option<(bool, i64, String, usize, Option<NaiveDateTime>)> = None;
    for summary in page.items {
        if !writes_to(summary.agent.as_deref(), owner) || summary.message_match.is_none() {
            continue;
        }
        let session = sessions.get(&summary.session_id)?;
        let Some(i) = session.messages.iter().position(|m| {
            m.role == "user" && footprint_part(m.content.as_deref().unwrap_or("")) == trigger
        }) else {
            continue;
        };
        let sm = &session.summary;
        let exact = within(s.at, sm.created_at, sm.last_active_at);
        let d = distance_ms(s.at, sm.last_active_at.or(sm.created_at));
        let better = best
            .as_ref()
            .is_none_or(|(e, bd, ..)| (exact, -d) > (*e, -*bd));
        if better {
            best = Some((exact, d, sm.session_id.clone(), i, sm.last_active_at));
        }
    }
    if let Some((exact, _, id, i, at)) = best {
        p.exact = exact;
        p.session_id = Some(id);
        p.message_index = Some(i);
        p.at = at;
    }
    Ok(p)
}

fn by_save_call(sessions: &SessionStore, owner: &Owner, s: &Subject<'_>) -> Result<Provenance> {
    let matching = |calls: Vec<ToolInvocation>| -> Vec<ToolInvocation> {
        calls
            .into_iter()
            .filter(|c| {
                c.input_json
                    .as_deref()
                    .and_then(saved_by)
                    .is_some_and(|(scope, content)| scope == s.scope && content == s.content)
            })
            .collect()
    };
    let mut calls = match s.at {
        Some(at) => {
            let ms = local_to_epoch_ms(&at);
            matching(sessions.successful_calls_of(
                SAVE_MEMORY,
                None,
                Some((ms - SEARCH_SPAN_MS, ms + SEARCH_SPAN_MS)),
            )?)
        }
        None => Vec::new(),
    };
    if calls.is_empty() {
        calls = matching(sessions.successful_calls_of(SAVE_MEMORY, None, None)?);
    }
    calls.sort_by_key(|c| (distance_ms(s.at, c.created_at), c.id));
    for call in calls {
        let Some(session_id) = call.session_id.clone() else {
            continue;
        };
        let session = match sessions.get(&session_id) {
            Ok(session) => Some(session),
            Err(CoreError::SessionNotFound(_)) => None,
            Err(e) => return Err(e),
        };
        let agent = session
            .as_ref()
            .and_then(|x| x.summary.agent.clone())
            .or_else(|| session_id.rsplit(':').next().map(str::to_string));
        if !writes_to(agent.as_deref(), owner) {
            continue;
        }
        let mut p = Provenance::of(Source::SaveMemory);
        p.exact = distance_ms(s.at, call.created_at) <= TOLERANCE_S * 1000;
        p.invocation_id = Some(call.id);
        p.at = call.created_at;
        p.message_index = session
            .as_ref()
            .and_then(|x| save_call_index(&x.messages, s.scope, s.content));
        p.session_id = Some(session_id);
        return Ok(p);
    }
    Ok(Provenance::of(Source::Unknown))
}

fn save_call_index(messages: &[Message], scope: Scope, content: &str) -> Option<usize> {
    messages.iter().position(|m| {
        m.tool_calls.iter().any(|c| {
            c.name == SAVE_MEMORY
                && c.arguments_json
                    .as_deref()
                    .and_then(saved_by)
                    .is_some_and(|(sc, text)| sc == scope && text == content)
        })
    })
}

/// The entries a session's messages wrote: each `save_memory` call's entry and each user
/// message's footprint, in the memory of the session's agent (or the global memory).
pub fn links_of_session(
    memory: &MemoryService,
    sessions: &SessionStore,
    session_id: &str,
) -> Result<(Owner, Vec<MemoryLink>)> {
    let session = sessions.get(session_id)?;
    let owner = match session.summary.agent.as_deref() {
        Some(a) if is_valid_agent_name(a) => Owner::Agent(a.to_string()),
        _ => Owner::Global,
    };
    let all = memory.store().load_all(&owner)?;
    // The runtime records each call with its session: an entry stamped with a call's moment is
    // that call's, even when the session's own times say otherwise.
    let calls: Vec<(Scope, String, NaiveDateTime)> = sessions
        .successful_calls_of(SAVE_MEMORY, Some(session_id), None)?
        .into_iter()
        .filter_map(|c| {
            let (scope, content) = saved_by(c.input_json.as_deref()?)?;
            Some((scope, content, c.created_at?))
        })
        .collect();
    let links = links_in(&session, &all, &calls);
    Ok((owner, links))
}

fn links_in(
    session: &Session,
    all: &Sections,
    calls: &[(Scope, String, NaiveDateTime)],
) -> Vec<MemoryLink> {
    let sm = &session.summary;
    let mut out = Vec::new();
    let mut push = |i: usize, source: Source, scope: Scope, want: &dyn Fn(&Entry) -> bool| {
        let hits: Vec<(usize, &Entry)> = all
            .of(scope)
            .iter()
            .enumerate()
            .filter(|(_, e)| want(e))
            .collect();
        let by_call = |e: &Entry| {
            source == Source::SaveMemory
                && calls.iter().any(|(sc, text, at)| {
                    *sc == scope && *text == e.content && within(e.timestamp, Some(*at), None)
                })
        };
        let in_span: Vec<_> = hits
            .iter()
            .filter(|(_, e)| within(e.timestamp, sm.created_at, sm.last_active_at) || by_call(e))
            .collect();
        // Text alone names an entry only when no other entry holds the same text.
        let chosen: Vec<(bool, usize, &Entry)> = if !in_span.is_empty() {
            in_span.iter().map(|(k, e)| (true, *k, *e)).collect()
        } else if hits.len() == 1 && hits[0].1.timestamp.is_none() {
            vec![(false, hits[0].0, hits[0].1)]
        } else {
            Vec::new()
        };
        for (exact, k, e) in chosen {
            if let Some(entry_id) = all.id(scope, k) {
                out.push(MemoryLink {
                    message_index: i,
                    source,
                    scope,
                    entry_id,
                    content: e.content.clone(),
                    timestamp: e.timestamp,
                    exact,
                });
            }
        }
    };
    for (i, m) in session.messages.iter().enumerate() {
        if m.role == "user" {
            let prefix = format!(
                "触发「{}」⇒ ",
                footprint_part(m.content.as_deref().unwrap_or(""))
            );
            push(i, Source::Footprint, Scope::Archival, &|e| {
                e.content.starts_with(&prefix)
            });
        }
        for call in m.tool_calls.iter().filter(|c| c.name == SAVE_MEMORY) {
            if let Some((scope, content)) = call.arguments_json.as_deref().and_then(saved_by) {
                push(i, Source::SaveMemory, scope, &|e| e.content == content);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use serde_json::json;

    use super::*;
    use crate::memory::curation::{Action, Target};
    use crate::memory::{LongTermMemoryStore, MarkdownMemoryStore};
    use crate::sessions::NewSession;
    use crate::timefmt::{now_epoch_ms, now_local};
    use crate::tools::{ToolContext, ToolExecutor};

    struct Root {
        _dir: tempfile::TempDir,
        root: std::path::PathBuf,
        memory: MemoryService,
        sessions: SessionStore,
    }

    fn root() -> Root {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        for a in ["a", "b"] {
            std::fs::create_dir_all(root.join("agents").join(a)).unwrap();
            std::fs::write(
                root.join("agents").join(a).join("AGENT.md"),
                "---\nname: x\n---\n",
            )
            .unwrap();
        }
        let store: Arc<dyn LongTermMemoryStore> = Arc::new(MarkdownMemoryStore::new(&root));
        Root {
            memory: MemoryService::new(store, 4000),
            sessions: SessionStore::new(root.join("oryxos.db")),
            root,
            _dir: dir,
        }
    }

    /// A conversation as the runtime stores it: the user asks, the agent saves, answers.
    fn conversation(r: &Root, id: &str, agent: &str, user: &str, saved: &str) {
        let now = now_epoch_ms();
        let args = json!({"content": saved, "scope": "core"}).to_string();
        let messages = json!([
            {"role": "user", "content": user},
            {"role": "assistant", "content": null, "toolCalls": [{"id": "c1", "name": "save_memory", "argumentsJson": args}]},
            {"role": "tool", "content": "已记住", "toolName": "save_memory", "toolCallId": "c1"},
            {"role": "assistant", "content": "好的"}
        ]);
        r.sessions
            .insert_session(&NewSession {
                session_id: id.into(),
                agent: Some(agent.into()),
                channel: Some("cli".into()),
                user_id: Some("u".into()),
                messages_json: messages.to_string(),
                status: "active".into(),
                created_at_ms: now - 60_000,
                last_active_at_ms: now + 60_000,
                archived_at_ms: None,
            })
            .unwrap();
        let tools = ToolExecutor::new(&r.root, r.memory.clone(), r.sessions.clone());
        let ctx = ToolContext {
            agent: Some(agent.into()),
            session_id: Some(id.into()),
        };
        let out = tools.execute(&ctx, SAVE_MEMORY, &args).unwrap();
        assert!(out.success);
        r.memory
            .record_footprint(&Owner::Agent(agent.into()), user, "好的")
            .unwrap();
    }

    fn id_of(r: &Root, owner: &Owner, content: &str) -> String {
        let all = r.memory.store().load_all(owner).unwrap();
        for scope in [Scope::Core, Scope::Archival] {
            if let Some(i) = all.of(scope).iter().position(|e| e.content == content) {
                return all.id(scope, i).unwrap();
            }
        }
        panic!("no entry {content:?}");
    }

    #[test]
    fn a_saved_fact_and_a_footprint_lead_to_their_session_message_and_back() {
        let r = root();
        let a = Owner::Agent("a".into());
        // The same words saved by another agent, at the same moment, are not this agent's record.
        conversation(&r, "cli:u:b", "b", "别的", "用户喜欢乌龙茶");
        conversation(&r, "cli:u:a", "a", "记住\n我喜欢  乌龙茶", "用户喜欢乌龙茶");

        let saved = of_entry(&r.memory, &r.sessions, &a, &id_of(&r, &a, "用户喜欢乌龙茶")).unwrap();
        assert_eq!(saved.source, Source::SaveMemory);
        assert!(saved.exact);
        assert_eq!(saved.session_id.as_deref(), Some("cli:u:a"));
        assert_eq!(saved.message_index, Some(1));
        assert!(saved.invocation_id.is_some());

        let footprint = "触发「记住 我喜欢 乌龙茶」⇒ 好的";
        let fp = of_entry(&r.memory, &r.sessions, &a, &id_of(&r, &a, footprint)).unwrap();
        assert_eq!(fp.source, Source::Footprint);
        assert!(fp.exact);
        assert_eq!(
            (fp.session_id.as_deref(), fp.message_index),
            (Some("cli:u:a"), Some(0))
        );
        assert_eq!(fp.trigger.as_deref(), Some("记住 我喜欢 乌龙茶"));

        let (owner, links) = links_of_session(&r.memory, &r.sessions, "cli:u:a").unwrap();
        assert_eq!(owner, a);
        let got: Vec<_> = links
            .iter()
            .map(|l| (l.message_index, l.source, l.content.as_str(), l.exact))
            .collect();
        assert_eq!(
            got,
            [
                (0, Source::Footprint, footprint, true),
                (1, Source::SaveMemory, "用户喜欢乌龙茶", true)
            ]
        );
        assert_eq!(links[1].entry_id, id_of(&r, &a, "用户喜欢乌龙茶"));
    }

    #[test]
    fn a_call_recorded_with_an_old_session_links_its_entry_both_ways() {
        let r = root();
        let a = Owner::Agent("a".into());
        let long_ago = now_epoch_ms() - 10 * 86_400_000;
        let args = json!({"content": "用户住在杭州", "scope": "archival"}).to_string();
        r.sessions
            .insert_session(&NewSession {
                session_id: "web:u:a".into(),
                agent: Some("a".into()),
                channel: Some("web".into()),
                user_id: Some("u".into()),
                messages_json: json!([
                    {"role": "user", "content": "我搬到杭州了"},
                    {"role": "assistant", "toolCalls": [{"id": "c", "name": "save_memory", "argumentsJson": args}]}
                ])
                .to_string(),
                status: "active".into(),
                created_at_ms: long_ago,
                last_active_at_ms: long_ago,
                archived_at_ms: None,
            })
            .unwrap();
        // Another entry with the same text, written by hand long before: not this call's.
        r.memory
            .store()
            .append(
                &a,
                Scope::Archival,
                "用户住在杭州",
                Some(now_local() - chrono::Duration::days(40)),
            )
            .unwrap();
        let tools = ToolExecutor::new(&r.root, r.memory.clone(), r.sessions.clone());
        let ctx = ToolContext {
            agent: Some("a".into()),
            session_id: Some("web:u:a".into()),
        };
        assert!(tools.execute(&ctx, SAVE_MEMORY, &args).unwrap().success);
        let all = r.memory.store().load_all(&a).unwrap();
        let new_id = all.id(Scope::Archival, 1).unwrap();
        let (_, links) = links_of_session(&r.memory, &r.sessions, "web:u:a").unwrap();
        assert_eq!(links.len(), 1, "{links:?}");
        assert_eq!((links[0].message_index, &links[0].entry_id), (1, &new_id));
        let p = of_entry(&r.memory, &r.sessions, &a, &new_id).unwrap();
        assert_eq!(
            (p.source, p.exact, p.session_id.as_deref(), p.message_index),
            (Source::SaveMemory, true, Some("web:u:a"), Some(1))
        );
    }

    #[test]
    fn a_console_edit_names_itself_and_where_the_text_it_replaced_came_from() {
        let r = root();
        let a = Owner::Agent("a".into());
        conversation(&r, "cli:u:a", "a", "hi", "likes tea");
        let id = id_of(&r, &a, "likes tea");
        r.memory
            .change(
                &a,
                &[Target { id, expect: None }],
                &Action::Edit {
                    content: "likes green tea".into(),
                    restamp: false,
                },
            )
            .unwrap();
        let p = of_entry(
            &r.memory,
            &r.sessions,
            &a,
            &id_of(&r, &a, "likes green tea"),
        )
        .unwrap();
        assert_eq!(
            (p.source, p.change_op.as_deref()),
            (Source::Console, Some("edit"))
        );
        let earlier = p.earlier.expect("the edited text's origin");
        assert_eq!(earlier.source, Source::SaveMemory);
        assert_eq!(earlier.session_id.as_deref(), Some("cli:u:a"));

        // Undone, the entry is the runtime's again.
        r.memory.undo(&a, None).unwrap();
        let p = of_entry(&r.memory, &r.sessions, &a, &id_of(&r, &a, "likes tea")).unwrap();
        assert_eq!(p.source, Source::SaveMemory);
    }

    #[test]
    fn text_without_a_record_in_time_is_likely_and_text_without_any_record_unknown() {
        let r = root();
        let a = Owner::Agent("a".into());
        conversation(&r, "cli:u:a", "a", "hi", "likes tea");
        let long_ago = now_local() - chrono::Duration::days(30);
        r.memory
            .store()
            .append(&a, Scope::Archival, "likes coffee", Some(long_ago))
            .unwrap();
        r.memory
            .store()
            .append(&a, Scope::Core, "likes tea", Some(long_ago))
            .unwrap();
        let all = r.memory.store().load_all(&a).unwrap();
        let old = all
            .core
            .iter()
            .position(|e| {
                e.timestamp
                    .is_some_and(|t| t < now_local() - chrono::Duration::days(1))
            })
            .unwrap();
        let old_tea = all.id(Scope::Core, old).unwrap();
        let p = of_entry(&r.memory, &r.sessions, &a, &old_tea).unwrap();
        assert_eq!((p.source, p.exact), (Source::SaveMemory, false));
        let p = of_entry(&r.memory, &r.sessions, &a, &id_of(&r, &a, "likes coffee")).unwrap();
        assert_eq!(p.source, Source::Unknown);
        let err = of_entry(&r.memory, &r.sessions, &a, "core:99:0").unwrap_err();
        assert!(
            matches!(err, CoreError::NotFound(_) | CoreError::InvalidInput(_)),
            "{err}"
        );
    }
}
