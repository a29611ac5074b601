//! Mem0MemoryStore: long-term memory in a self-hosted mem0 service.
//!
//! Every call has a timeout; every failure names the base URL and what went wrong, and maps to
//! `BackendUnavailable` (503) or `Timeout` (504). A failed append is an error, never a drop.

use std::sync::OnceLock;
use std::time::Duration;

use chrono::{DateTime, Local, NaiveDateTime, TimeZone};
use reqwest::blocking::{Client, RequestBuilder, Response};
use serde_json::{json, Value};

use crate::error::{CoreError, Result};
use crate::memory::entry::{Entry, Scope, Sections};
use crate::memory::store::{contains_ci, Backend, LongTermMemoryStore};
use crate::names::Owner;

/// `GET /memories` page size; a full page means "possibly more" (mem0 has no cursor).
pub const LOAD_LIMIT: usize = 1000;
pub const SEARCH_LIMIT: usize = 50;
/// How an answer whose body is not JSON is reported (only ever after a success status).
const MALFORMED: &str = "sent malformed JSON";

#[derive(Debug, Clone)]
pub struct Mem0Config {
    pub base_url: String,
    pub user_id: String,
    pub api_key: Option<String>,
    pub timeout: Duration,
}

pub struct Mem0MemoryStore {
    pub(super) cfg: Mem0Config,
    client: OnceLock<std::result::Result<Client, reqwest::Error>>,
    /// The last `ts` this store wrote: the server keeps no order, so entries written within one
    /// second (a migration, a burst of saves) get increasing milliseconds to keep theirs.
    last_ts: std::sync::Mutex<Option<NaiveDateTime>>,
    /// Why the last call could not reach the service (cleared by the next one that does):
    /// what the console's "mem0 is unreachable" banner says, without a call of its own.
    last_failure: std::sync::Mutex<Option<String>>,
    /// Where the history of the console's changes is kept (the server holds no file of ours).
    pub(super) history_dir: Option<std::path::PathBuf>,
}

/// One mem0 item as we use it.
#[derive(Debug, Clone)]
pub(crate) struct Item {
    pub(crate) id: Option<String>,
    pub(crate) memory: String,
    pub(crate) scope: Option<Scope>,
    pub(crate) ts: Option<NaiveDateTime>,
}

impl Mem0MemoryStore {
    pub fn new(cfg: Mem0Config) -> Self {
        let mut cfg = cfg;
        cfg.base_url = cfg.base_url.trim().trim_end_matches('/').to_string();
        Mem0MemoryStore {
            cfg,
            client: OnceLock::new(),
            last_ts: std::sync::Mutex::new(None),
            last_failure: std::sync::Mutex::new(None),
            history_dir: None,
        }
    }

    /// Keeps the history of curation changes in `dir` (the console's data directory).
    pub fn with_history_dir(mut self, dir: impl Into<std::path::PathBuf>) -> Self {
        self.history_dir = Some(dir.into());
        self
    }

    pub fn base_url(&self) -> &str {
        &self.cfg.base_url
    }

    /// `<user-id>:<agent>` for an agent, the bare user id for the global memory.
    pub fn user_for(&self, owner: &Owner) -> String {
        match owner {
            Owner::Global => self.cfg.user_id.clone(),
            Owner::Agent(a) => format!("{}:{a}", self.cfg.user_id),
        }
    }

    /// Built on first use: creating a blocking client inside an async runtime is not allowed,
    /// and stores are often built there.
    pub(super) fn client(&self) -> Result<&Client> {
        let c = self.client.get_or_init(|| {
            Client::builder()
                .timeout(self.cfg.timeout)
                .connect_timeout(self.cfg.timeout.min(Duration::from_secs(5)))
                .build()
        });
        c.as_ref().map_err(|e| {
            CoreError::BackendUnavailable(format!("cannot create the HTTP client for mem0: {e}"))
        })
    }

    pub(super) fn auth(&self, req: RequestBuilder) -> RequestBuilder {
        match &self.cfg.api_key {
            Some(k) => req.bearer_auth(k).header("X-API-Key", k),
            None => req,
        }
    }

    pub(super) fn send(&self, action: &str, req: RequestBuilder) -> Result<Value> {
        let out = self
            .auth(req)
            .send()
            .map_err(|e| self.transport_error(action, &e))
            .and_then(|res| self.read(action, res));
        // A service that answered, even with an error about the request, is reachable.
        let unreachable = match &out {
            Err(e @ (CoreError::BackendUnavailable(_) | CoreError::Timeout(_))) => {
                Some(e.to_string())
            }
            _ => None,
        };
        *self.last_failure.lock().unwrap_or_else(|p| p.into_inner()) = unreachable;
        out
    }

    pub(super) fn transport_error(&self, action: &str, e: &reqwest::Error) -> CoreError {
        if e.is_timeout() {
            CoreError::Timeout(format!(
                "mem0 at {} did not answer {action} within {} ms",
                self.cfg.base_url,
                self.cfg.timeout.as_millis()
            ))
        } else {
            CoreError::BackendUnavailable(format!(
                "mem0 at {} is unreachable ({action}): {}",
                self.cfg.base_url,
                root_cause(e)
            ))
        }
    }

    pub(super) fn read(&self, action: &str, res: Response) -> Result<Value> {
        let status = res.status();
        let body = res.text().map_err(|e| self.transport_error(action, &e))?;
        if !status.is_success() {
            let excerpt: String = body.chars().take(200).collect();
            return Err(CoreError::BackendUnavailable(format!(
                "mem0 at {} answered {status} to {action}: {excerpt}",
                self.cfg.base_url
            )));
        }
        serde_json::from_str(&body).map_err(|e| {
            CoreError::BackendUnavailable(format!(
                "mem0 at {} {MALFORMED} for {action}: {e}",
                self.cfg.base_url
            ))
        })
    }

    pub(super) fn url(&self, path: &str) -> String {
        format!("{}{path}", self.cfg.base_url)
    }

    /// Lists an owner's items in time order, and whether the page was full.
    fn list(&self, owner: &Owner) -> Result<(Vec<Item>, bool)> {
        let user = self.user_for(owner);
        let req = self.client()?.get(self.url("/memories")).query(&[
            ("user_id", user.as_str()),
            ("top_k", &LOAD_LIMIT.to_string()),
        ]);
        let v = self.send("list memories", req)?;
        let mut items = items_of(&v);
        let full = items.len() >= LOAD_LIMIT;
        sort_by_time(&mut items);
        Ok((items, full))
    }

    /// A write time after every earlier one of this store: `at` (or now) plus the milliseconds
    /// needed to stay in order.
    pub(super) fn next_ts(&self, at: Option<NaiveDateTime>) -> NaiveDateTime {
        let mut last = self.last_ts.lock().unwrap_or_else(|p| p.into_inner());
        let mut ts = at.unwrap_or_else(|| Local::now().naive_local());
        if let Some(prev) = *last {
            if ts <= prev && prev - ts < chrono::Duration::seconds(1) {
                ts = prev + chrono::Duration::milliseconds(1);
            }
        }
        *last = Some(ts);
        ts
    }

    /// save_memory as the runtime's mem0 store makes it: core kept verbatim (`infer: false`),
    /// archival handed to mem0 to distil and reconcile with what it holds (`infer: true`), the
    /// section as the only metadata. The console's own writes ([`LongTermMemoryStore::append`])
    /// stay verbatim.
    pub fn agent_save(&self, owner: &Owner, scope: Scope, content: &str) -> Result<()> {
        let req = self
            .client()?
            .post(self.url("/memories"))
            .json(&agent_save_body(&self.user_for(owner), scope, content));
        self.send("add a memory", req).map(|_| ())
    }

    /// recall_memory as the runtime's mem0 store answers it: mem0's own search over the
    /// archival section (filtered by the server, and core items dropped again here as the
    /// runtime does, for servers whose filters fail), in mem0's order, with no keyword check
    /// on top.
    pub fn agent_recall(&self, owner: &Owner, keyword: &str) -> Result<Vec<String>> {
        let req = self
            .client()?
            .post(self.url("/search"))
            .json(&agent_recall_body(&self.user_for(owner), keyword));
        let found = self.send("search memories", req)?;
        Ok(items_of(&found)
            .into_iter()
            .filter(|i| i.scope != Some(Scope::Core))
            .map(|i| i.memory)
            .collect())
    }

    /// Checks that the service answers, for Settings' "test connection".
    pub fn ping(&self) -> Result<usize> {
        Ok(self.list(&Owner::Global)?.0.len())
    }
}

fn agent_save_body(user: &str, scope: Scope, content: &str) -> Value {
    json!({
        "messages": [{"role": "user", "content": content}],
        "user_id": user,
        "metadata": {"scope": scope.db_value()},
        "infer": scope == Scope::Archival,
    })
}

fn agent_recall_body(user: &str, keyword: &str) -> Value {
    json!({
        "query": keyword,
        "user_id": user,
        "filters": {"scope": "ARCHIVAL"},
    })
}

fn root_cause(e: &reqwest::Error) -> String {
    let mut msg = e.to_string();
    let mut src = std::error::Error::source(e);
    while let Some(s) = src {
        msg = s.to_string();
        src = s.source();
    }
    msg
}

/// `results[]`, `items[]` or a bare array, as mem0 versions answer.
pub(super) fn results_of(v: &Value) -> &[Value] {
    v.get("results")
        .or_else(|| v.get("items"))
        .and_then(Value::as_array)
        .or_else(|| v.as_array())
        .map_or(&[], Vec::as_slice)
}

fn items_of(v: &Value) -> Vec<Item> {
    results_of(v).iter().filter_map(item_of).collect()
}

pub(crate) fn item_of(v: &Value) -> Option<Item> {
    let memory = v
        .get("memory")
        .or_else(|| v.get("text"))
        .and_then(Value::as_str)?
        .to_string();
    let meta = v.get("metadata");
    let scope = meta
        .and_then(|m| m.get("scope"))
        .and_then(Value::as_str)
        .and_then(|s| match s.to_ascii_uppercase().as_str() {
            "CORE" => Some(Scope::Core),
            "ARCHIVAL" => Some(Scope::Archival),
            _ => None,
        });
    let ts = meta
        .and_then(|m| m.get("ts"))
        .and_then(Value::as_str)
        .and_then(parse_time)
        .or_else(|| {
            v.get("created_at")
                .and_then(Value::as_str)
                .and_then(parse_time)
        });
    Some(Item {
        id: v.get("id").and_then(Value::as_str).map(str::to_string),
        memory,
        scope,
        ts,
    })
}

pub(crate) fn parse_time(s: &str) -> Option<NaiveDateTime> {
    DateTime::parse_from_rfc3339(s)
        .map(|t| t.with_timezone(&Local).naive_local())
        .ok()
        .or_else(|| crate::timefmt::parse_db_time(&rusqlite::types::Value::Text(s.to_string())))
}

/// The server returns items in no particular order: sort by `ts` (stable for equal times).
fn sort_by_time(items: &mut [Item]) {
    items.sort_by_key(|i| i.ts);
}

pub(super) fn rfc3339(ts: &NaiveDateTime) -> String {
    match Local.from_local_datetime(ts) {
        chrono::LocalResult::Single(t) | chrono::LocalResult::Ambiguous(t, _) => {
            t.to_rfc3339_opts(chrono::SecondsFormat::Millis, false)
        }
        chrono::LocalResult::None => ts
            .and_utc()
            .to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
    }
}

/// Entries show whole seconds, as MEMORY.md does; the milliseconds only order them.
pub(crate) fn whole_seconds(ts: NaiveDateTime) -> NaiveDateTime {
    use chrono::Timelike;
    ts.with_nanosecond(0).unwrap_or(ts)
}

/// The runtime shows mem0 items as their raw text (no `- ` prefix).
pub(super) fn entry_of(i: &Item) -> Entry {
    Entry {
        timestamp: i.ts.map(whole_seconds),
        content: i.memory.clone(),
        line: i.memory.clone(),
    }
}

impl LongTermMemoryStore for Mem0MemoryStore {
    fn backend(&self) -> Backend {
        Backend::Mem0
    }

    fn problem(&self) -> Option<String> {
        self.last_failure
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    fn location(&self, _owner: &Owner) -> String {
        self.cfg.base_url.clone()
    }

    fn as_mem0(&self) -> Option<&Mem0MemoryStore> {
        Some(self)
    }

    fn append(
        &self,
        owner: &Owner,
        scope: Scope,
        content: &str,
        at: Option<NaiveDateTime>,
    ) -> Result<Entry> {
        let ts = self.next_ts(at);
        let body = json!({
            "messages": [{"role": "user", "content": content}],
            "user_id": self.user_for(owner),
            "metadata": {"scope": scope.db_value(), "ts": rfc3339(&ts)},
            "infer": false,
        });
        let req = self.client()?.post(self.url("/memories")).json(&body);
        // A timeout, or a success status with a garbled body, leaves the outcome unknown (the
        // server may have stored it): say so, so that a failed append is never silently present.
        const UNKNOWN: &str =
            "the entry may still have been stored there: look before adding it again";
        self.send("add a memory", req).map_err(|e| match e {
            CoreError::Timeout(m) => CoreError::Timeout(format!("{m}; {UNKNOWN}")),
            CoreError::BackendUnavailable(m) if m.contains(MALFORMED) => {
                CoreError::BackendUnavailable(format!("{m}; {UNKNOWN}"))
            }
            e => e,
        })?;
        Ok(Entry {
            timestamp: Some(whole_seconds(ts)),
            content: content.to_string(),
            line: content.to_string(),
        })
    }

    fn history(&self, _owner: &Owner) -> Option<crate::memory::history::History> {
        self.history_file()
    }

    fn curate(
        &self,
        owner: &Owner,
        req: crate::memory::store::Request,
    ) -> Result<crate::memory::history::Change> {
        self.curate_items(owner, req)
    }

    fn holds(&self, owner: &Owner, change: &crate::memory::history::Change) -> Result<bool> {
        self.items_hold(owner, change)
    }

    fn load_all(&self, owner: &Owner) -> Result<Sections> {
        let (items, full) = self.list(owner)?;
        let mut s = Sections {
            possibly_more: full,
            ..Sections::default()
        };
        for i in &items {
            let id = i.id.clone().unwrap_or_default();
            match i.scope {
                Some(Scope::Core) => {
                    s.core.push(entry_of(i));
                    s.core_ids.push(id);
                }
                // Items without a scope were not written by OryxOS: show them as archival.
                _ => {
                    s.archival.push(entry_of(i));
                    s.archival_ids.push(id);
                }
            }
        }
        Ok(s)
    }

    /// mem0 ranks by meaning itself: its `/search` over both sections, with its scores.
    fn search(
        &self,
        owner: &Owner,
        query: &str,
        k: usize,
    ) -> Result<Option<Vec<crate::memory::store::Recalled>>> {
        let body = json!({
            "query": query,
            "user_id": self.user_for(owner),
            "top_k": k.clamp(1, SEARCH_LIMIT),
        });
        let req = self.client()?.post(self.url("/search")).json(&body);
        let found = self.send("search memories", req)?;
        Ok(Some(
            results_of(&found)
                .iter()
                .filter_map(|v| {
                    let item = item_of(v)?;
                    Some(crate::memory::store::Recalled {
                        id: item.id.clone(),
                        scope: item.scope.unwrap_or(Scope::Archival),
                        entry: entry_of(&item),
                        score: Some(v.get("score").and_then(Value::as_f64).unwrap_or(0.0) as f32),
                    })
                })
                .collect(),
        ))
    }

    /// Semantic search finds near matches; the keyword rule is checked here, and the full list
    /// is scanned too so that recall is exact (search returns at most 50 items).
    fn recall(&self, owner: &Owner, keyword: &str) -> Result<Vec<Entry>> {
        let needle = keyword.to_lowercase();
        let body = json!({
            "query": keyword,
            "user_id": self.user_for(owner),
            "filters": {"scope": "ARCHIVAL"},
            "top_k": SEARCH_LIMIT,
        });
        let req = self.client()?.post(self.url("/search")).json(&body);
        let found = items_of(&self.send("search memories", req)?);
        let (listed, _) = self.list(owner)?;
        let mut hits: Vec<Item> = Vec::new();
        for i in found.into_iter().chain(listed) {
            let archival = i.scope != Some(Scope::Core);
            let dup = hits.iter().any(|h| h.id.is_some() && h.id == i.id);
            if archival && !dup && contains_ci(&i.memory, &needle) {
                hits.push(i);
            }
        }
        sort_by_time(&mut hits);
        Ok(hits.iter().map(entry_of).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_are_split_sorted_and_read_leniently() {
        let v = json!({"results": [
            {"id": "2", "memory": "b", "metadata": {"scope": "archival", "ts": "2026-01-02T00:00:00+00:00"}},
            {"id": "1", "memory": "a", "metadata": {"scope": "ARCHIVAL", "ts": "2026-01-01T00:00:00+00:00"}},
            {"id": "3", "text": "c", "metadata": {"scope": "CORE"}, "created_at": "2026-01-03T00:00:00Z"},
            {"id": "4"}
        ]});
        let mut items = items_of(&v);
        assert_eq!(items.len(), 3, "an item without text is skipped");
        sort_by_time(&mut items);
        let order: Vec<_> = items.iter().map(|i| i.memory.as_str()).collect();
        assert_eq!(order, vec!["a", "b", "c"]);
        assert_eq!(items[2].scope, Some(Scope::Core));
        assert_eq!(items_of(&json!([{"memory": "bare"}])).len(), 1);
    }

    #[test]
    fn user_ids_and_an_unreachable_service() {
        let s = Mem0MemoryStore::new(Mem0Config {
            base_url: "http://127.0.0.1:9/".into(),
            user_id: "oryxos".into(),
            api_key: None,
            timeout: Duration::from_millis(500),
        });
        assert_eq!(s.user_for(&Owner::Agent("a".into())), "oryxos:a");
        assert_eq!(s.user_for(&Owner::Global), "oryxos");
        assert_eq!(s.problem(), None, "nothing is known before a call");
        let err = s
            .append(&Owner::Global, Scope::Core, "x", None)
            .unwrap_err();
        assert!(matches!(err, CoreError::BackendUnavailable(_)), "{err}");
        assert!(err.to_string().contains("http://127.0.0.1:9"), "{err}");
        assert_eq!(s.problem(), Some(err.to_string()), "the banner's reason");
    }

    /// A one-request HTTP server: answers `reply` and hands back the request it got.
    fn fake_mem0(reply: &'static str) -> (String, std::thread::JoinHandle<String>) {
        use std::io::{BufRead, BufReader, Read, Write};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let handle = std::thread::spawn(move || {
            let (stream, _) = listener.accept().unwrap();
            let mut reader = BufReader::new(stream);
            let mut head = String::new();
            let mut len = 0;
            loop {
                let mut line = String::new();
                reader.read_line(&mut line).unwrap();
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    len = v.trim().parse().unwrap();
                }
                head.push_str(&line);
                if line == "\r\n" {
                    break;
                }
            }
            let mut body = vec![0; len];
            reader.read_exact(&mut body).unwrap();
            let mut stream = reader.into_inner();
            write!(
                stream,
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{reply}",
                reply.len()
            )
            .unwrap();
            head + &String::from_utf8(body).unwrap()
        });
        (url, handle)
    }

    fn store_at(url: &str, key: Option<&str>) -> Mem0MemoryStore {
        Mem0MemoryStore::new(Mem0Config {
            base_url: url.into(),
            user_id: "oryxos".into(),
            api_key: key.map(str::to_string),
            timeout: Duration::from_secs(5),
        })
    }

    fn json_body(request: &str) -> Value {
        serde_json::from_str(request.split("\r\n\r\n").nth(1).unwrap()).unwrap()
    }

    #[test]
    fn agent_saves_are_sent_as_the_runtime_sends_them() {
        let owner = Owner::Agent("ops".into());
        for (scope, infer) in [(Scope::Archival, true), (Scope::Core, false)] {
            let (url, got) = fake_mem0(r#"{"results":[]}"#);
            store_at(&url, Some("k1"))
                .agent_save(&owner, scope, "用户住在杭州")
                .unwrap();
            let req = got.join().unwrap();
            assert!(req.starts_with("POST /memories "), "{req}");
            let lower = req.to_ascii_lowercase();
            assert!(lower.contains("authorization: bearer k1\r\n"), "{req}");
            assert!(lower.contains("x-api-key: k1\r\n"), "{req}");
            assert_eq!(
                json_body(&req),
                json!({
                    "messages": [{"role": "user", "content": "用户住在杭州"}],
                    "user_id": "oryxos:ops",
                    "metadata": {"scope": scope.db_value()},
                    "infer": infer,
                })
            );
        }
        // The console's own writes stay verbatim.
        let (url, got) = fake_mem0(r#"{"results":[]}"#);
        store_at(&url, None)
            .append(&Owner::Global, Scope::Archival, "x", None)
            .unwrap();
        let body = json_body(&got.join().unwrap());
        assert_eq!(body["infer"], false);
        assert_eq!(
            body["user_id"], "oryxos",
            "the global memory has the bare user id"
        );
    }

    #[test]
    fn agent_recall_is_mem0_search_over_archival_without_a_keyword_check() {
        let (url, got) = fake_mem0(
            r#"{"results":[
                {"id":"1","memory":"lives in Hangzhou","score":0.8,"metadata":{"scope":"ARCHIVAL"}},
                {"id":"2","memory":"core fact","score":0.7,"metadata":{"scope":"CORE"}},
                {"id":"3","memory":"moved house in May","score":0.5}
            ]}"#,
        );
        let hits = store_at(&url, None)
            .agent_recall(&Owner::Agent("ops".into()), "home city")
            .unwrap();
        assert_eq!(hits, ["lives in Hangzhou", "moved house in May"]);
        let req = got.join().unwrap();
        assert!(req.starts_with("POST /search "), "{req}");
        assert_eq!(
            json_body(&req),
            json!({"query": "home city", "user_id": "oryxos:ops", "filters": {"scope": "ARCHIVAL"}})
        );
    }

    #[test]
    fn rfc3339_round_trips_local_time() {
        let ts = crate::timefmt::parse_entry_ts("2026-07-22 09:30:00").unwrap();
        assert_eq!(parse_time(&rfc3339(&ts)), Some(ts));
    }
}
