//! Episodic memory (the seed's planned layer): an agent's past sessions, cut into fragments
//! (each user or assistant message with text; tool output and system messages are skipped),
//! kept as vectors in the console's index and searched by meaning. The prompt's episodic part
//! is the top fragments for the current user message, within a character budget.

use std::collections::HashMap;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use chrono::NaiveDateTime;
use serde::{Deserialize, Serialize};

use crate::embed::{IndexCounts, SyncReport, VectorIndex};
use crate::error::Result;
use crate::memory::Stamp;
use crate::sessions::SessionStore;

/// Characters of a message that are embedded and shown: a long answer is cut here.
pub const FRAGMENT_CHARS: usize = 500;

/// The heading of the prompt's episodic part.
pub const EPISODIC_HEADING: &str = "## 相关历史对话";

/// The episodic part's settings: off by default.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct EpisodicSettings {
    pub enabled: bool,
    /// Most fragments in the prompt.
    pub top_k: usize,
    /// Most characters of the part (fragments that do not fit are left out).
    pub budget_chars: usize,
}

impl Default for EpisodicSettings {
    fn default() -> Self {
        EpisodicSettings {
            enabled: false,
            top_k: 3,
            budget_chars: 1200,
        }
    }
}

pub const MAX_EPISODIC_TOP_K: usize = 20;
pub const MAX_EPISODIC_BUDGET: usize = 20_000;

/// One message of a past session, as the index knows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Fragment {
    pub session_id: String,
    /// Index of the message in the session's `messages_json`.
    pub message_index: usize,
    pub role: String,
    pub text: String,
    /// The session's last activity (messages carry no time of their own).
    pub time: Option<NaiveDateTime>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EpisodicHit {
    pub fragment: Fragment,
    pub score: f32,
}

pub(crate) fn fragment_key(session_id: &str, index: usize) -> String {
    // U+001F never occurs in session ids ("channel:user:agent"), so the key splits back.
    format!("{session_id}\u{1f}{index}")
}

/// What an agent's fragments are stored under in the vector file: this and the agent's name.
pub(crate) const OWNER_PREFIX: &str = "episodic:";

pub(crate) fn owner_key(agent: &str) -> String {
    format!("{OWNER_PREFIX}{agent}")
}

/// The fragments of every session of `agent`, oldest session first.
pub fn fragments(sessions: &SessionStore, agent: &str) -> Result<Vec<Fragment>> {
    let mut out = Vec::new();
    for s in sessions.sessions_of_agent(agent)? {
        let time = s.summary.last_active_at.or(s.summary.created_at);
        for (i, m) in s.messages.iter().enumerate() {
            if m.role != "user" && m.role != "assistant" {
                continue;
            }
            let Some(text) = m
                .content
                .as_deref()
                .map(str::trim)
                .filter(|t| !t.is_empty())
            else {
                continue;
            };
            let text: String = text.chars().take(FRAGMENT_CHARS).collect();
            out.push(Fragment {
                session_id: s.summary.session_id.clone(),
                message_index: i,
                role: m.role.clone(),
                text,
                time,
            });
        }
    }
    Ok(out)
}

/// An agent's fragments as read at one version of the database.
type Snapshot = (Stamp, Arc<Vec<Fragment>>);

/// The vectors of one root's session fragments, per agent, kept in step with the sessions.
pub struct EpisodicIndex {
    vectors: Arc<VectorIndex>,
    /// Each agent's fragments as last read, valid while the database's stamp is unchanged.
    cache: Mutex<HashMap<String, Snapshot>>,
}

impl EpisodicIndex {
    /// `vectors`: the root's vector index (shared with long-term memory; owners differ).
    pub fn new(vectors: Arc<VectorIndex>) -> Self {
        EpisodicIndex {
            vectors,
            cache: Mutex::new(HashMap::new()),
        }
    }

    fn stamp(sessions: &SessionStore) -> Stamp {
        let db = sessions.db_path();
        let mut wal = db.as_os_str().to_os_string();
        wal.push("-wal");
        Stamp::of_files(&[db, std::path::Path::new(&wal)])
    }

    fn cached(&self, sessions: &SessionStore, agent: &str) -> Option<Arc<Vec<Fragment>>> {
        let cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        match cache.get(agent) {
            Some((stamp, frags)) if *stamp == Self::stamp(sessions) => Some(frags.clone()),
            _ => None,
        }
    }

    /// Embeds the fragments of `agent` that have no vector yet (new sessions, grown ones);
    /// drops those of sessions that are gone.
    pub fn sync(
        &self,
        sessions: &SessionStore,
        agent: &str,
        cancel: &AtomicBool,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<(SyncReport, Arc<Vec<Fragment>>)> {
        let stamp = Self::stamp(sessions);
        let frags = Arc::new(fragments(sessions, agent)?);
        let report = self
            .vectors
            .sync(&owner_key(agent), &keyed(&frags), cancel, progress)?;
        self.cache
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(agent.to_string(), (stamp, frags.clone()));
        Ok((report, frags))
    }

    /// How many of the agent's fragments have vectors (the sessions are read again only when
    /// the database changed since they were last read).
    pub fn counts(&self, sessions: &SessionStore, agent: &str) -> Result<IndexCounts> {
        let frags = match self.cached(sessions, agent) {
            Some(f) => f,
            None => Arc::new(fragments(sessions, agent)?),
        };
        self.vectors.counts(&owner_key(agent), &keyed(&frags))
    }

    /// The fragments of `agent`'s past sessions closest to `query`, best first, none under
    /// `floor`, none from `exclude_session` (the conversation the prompt already carries).
    pub fn search(
        &self,
        sessions: &SessionStore,
        agent: &str,
        query: &str,
        k: usize,
        floor: f32,
        exclude_session: Option<&str>,
    ) -> Result<Vec<EpisodicHit>> {
        let frags = match self.cached(sessions, agent) {
            Some(f) => f,
            None => {
                self.sync(sessions, agent, &AtomicBool::new(false), &mut |_, _| {})?
                    .1
            }
        };
        let by_key: HashMap<String, &Fragment> = frags
            .iter()
            .map(|f| (fragment_key(&f.session_id, f.message_index), f))
            .collect();
        // Excluded fragments may fill the top: ask for enough to still return `k`.
        let excluded =
            exclude_session.map_or(0, |id| frags.iter().filter(|f| f.session_id == id).count());
        let before = self.vectors.version().ok();
        let mut hits = self
            .vectors
            .search(&owner_key(agent), query, k + excluded, floor)?;
        // Damaged vectors dropped while searching are embedded again and the search repeated.
        if self.vectors.version().ok() != before {
            self.sync(sessions, agent, &AtomicBool::new(false), &mut |_, _| {})?;
            hits = self
                .vectors
                .search(&owner_key(agent), query, k + excluded, floor)?;
        }
        Ok(hits
            .into_iter()
            .filter_map(|h| by_key.get(&h.key).map(|f| (f, h.score)))
            .filter(|(f, _)| Some(f.session_id.as_str()) != exclude_session)
            .take(k)
            .map(|(f, score)| EpisodicHit {
                fragment: (*f).clone(),
                score,
            })
            .collect())
    }
}

fn keyed(frags: &[Fragment]) -> Vec<(String, String)> {
    frags
        .iter()
        .map(|f| (fragment_key(&f.session_id, f.message_index), f.text.clone()))
        .collect()
}

/// The prompt's episodic part: the heading, then one line per fragment that fits in
/// `budget_chars` (best first). Empty when nothing fits or nothing was found.
pub fn render_part(hits: &[EpisodicHit], budget_chars: usize) -> String {
    let mut out = String::new();
    let mut used = EPISODIC_HEADING.chars().count();
    for h in hits {
        let f = &h.fragment;
        let when = f
            .time
            .map(|t| t.format("%Y-%m-%d %H:%M").to_string())
            .unwrap_or_else(|| "?".into());
        let role = if f.role == "user" { "用户" } else { "助手" };
        let line = format!("- [{when}] ({}) {role}: {}", f.session_id, f.text);
        let n = line.chars().count() + 1;
        if used + n > budget_chars {
            continue;
        }
        used += n;
        out.push('\n');
        out.push_str(&line);
    }
    if out.is_empty() {
        return String::new();
    }
    format!("{EPISODIC_HEADING}{out}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::embed::EmbedderSlot;
    use crate::sessions::NewSession;

    fn session(store: &SessionStore, id: &str, agent: &str, messages: serde_json::Value) {
        store
            .insert_session(&NewSession {
                session_id: id.into(),
                agent: Some(agent.into()),
                channel: Some("cli".into()),
                user_id: Some("u".into()),
                messages_json: messages.to_string(),
                status: "active".into(),
                created_at_ms: 1_790_000_000_000,
                last_active_at_ms: 1_790_000_300_000,
                archived_at_ms: None,
            })
            .unwrap();
    }

    fn index(dir: &std::path::Path) -> EpisodicIndex {
        let slot = EmbedderSlot::shared(&crate::embed::default_model_dir());
        assert!(slot.present(), "run `make model`");
        EpisodicIndex::new(Arc::new(VectorIndex::new(slot, dir.join("v.db"))))
    }

    #[test]
    fn past_turns_are_found_by_meaning_and_the_current_session_is_left_out() {
        let dir = tempfile::tempdir().unwrap();
        let store = SessionStore::new(dir.path().join("oryxos.db"));
        session(
            &store,
            "cli:u:a:1",
            "a",
            serde_json::json!([
                {"role": "user", "content": "我下周要去东京出差，帮我订一家离车站近的酒店"},
                {"role": "assistant", "content": null, "toolCalls": [{"id": "c", "name": "web_search", "argumentsJson": "{}"}]},
                {"role": "tool", "content": "results…", "toolName": "web_search", "toolCallId": "c"},
                {"role": "assistant", "content": "已为你预订新宿站旁的酒店，三晚。"}
            ]),
        );
        session(
            &store,
            "cli:u:a:2",
            "a",
            serde_json::json!([
                {"role": "user", "content": "The database migration failed with a lock timeout"},
                {"role": "assistant", "content": "Retry it outside business hours."}
            ]),
        );
        session(
            &store,
            "cli:u:b:1",
            "b",
            serde_json::json!([
                {"role": "user", "content": "Book a hotel in Tokyo"}
            ]),
        );
        let idx = index(dir.path());
        let frags = fragments(&store, "a").unwrap();
        assert_eq!(
            frags.len(),
            4,
            "tool output and a call without text are skipped"
        );
        let hits = idx
            .search(
                &store,
                "a",
                "Which hotel did I stay at in Japan?",
                2,
                0.2,
                None,
            )
            .unwrap();
        assert_eq!(hits[0].fragment.session_id, "cli:u:a:1", "{hits:?}");
        assert!(
            hits.iter().all(|h| h.fragment.session_id.contains(":a:")),
            "per agent"
        );
        let hits = idx
            .search(
                &store,
                "a",
                "Which hotel did I stay at in Japan?",
                2,
                0.2,
                Some("cli:u:a:1"),
            )
            .unwrap();
        assert!(
            hits.iter().all(|h| h.fragment.session_id != "cli:u:a:1"),
            "{hits:?}"
        );
        // A new session is picked up (the database changed).
        session(
            &store,
            "cli:u:a:3",
            "a",
            serde_json::json!([
                {"role": "user", "content": "提醒我给妈妈买生日蛋糕"}
            ]),
        );
        let hits = idx
            .search(&store, "a", "birthday cake for my mother", 1, 0.2, None)
            .unwrap();
        assert_eq!(hits[0].fragment.session_id, "cli:u:a:3");
        let c = idx.counts(&store, "a").unwrap();
        assert_eq!((c.entries, c.indexed), (5, 5));
    }

    #[test]
    fn the_part_keeps_to_its_budget() {
        let hit = |text: &str, score| EpisodicHit {
            fragment: Fragment {
                session_id: "s".into(),
                message_index: 0,
                role: "user".into(),
                text: text.into(),
                time: None,
            },
            score,
        };
        let hits = vec![hit(&"长".repeat(100), 0.9), hit("short", 0.5)];
        let part = render_part(&hits, 60);
        assert!(part.starts_with(EPISODIC_HEADING));
        assert!(part.contains("short") && !part.contains("长长"), "{part}");
        assert!(part.chars().count() <= 60);
        assert_eq!(render_part(&hits, 5), "");
        assert_eq!(render_part(&[], 1000), "");
    }
}
