//! Curation of mem0 memories through its update and delete endpoints (`PUT` and `DELETE
//! /memories/{id}`); a restore adds the memory again with its scope and time in the metadata
//! (mem0 gives it a new id). The server has no transactions: every entry is checked before
//! anything is written, and a step that fails takes back the steps before it.

use serde_json::json;

use super::store::{entry_of, item_of, results_of, rfc3339, Item, Mem0MemoryStore};
use crate::error::{CoreError, Result};
use crate::memory::change::{changed_since, EntryDiff, EntrySnap, Step};
use crate::memory::entry::Scope;
use crate::memory::history::{Change, History};
use crate::memory::store::Request;
use crate::names::Owner;

fn snap(i: &Item) -> EntrySnap {
    let e = entry_of(i);
    EntrySnap::of(
        i.id.clone().unwrap_or_default(),
        i.scope.unwrap_or(Scope::Archival),
        &e,
    )
}

impl Mem0MemoryStore {
    pub(super) fn history_file(&self) -> Option<History> {
        let dir = self.history_dir.as_ref()?;
        // The console's own data directory: made on first use.
        let _ = std::fs::create_dir_all(dir);
        let key = crate::embed::identity::fnv1a(self.cfg.base_url.as_bytes());
        Some(History::at(
            dir.join(format!("mem0-{key:016x}.oryx-history")),
        ))
    }

    /// The memory `id` of `owner`, or `None` when the server has none (or another user's).
    fn get(&self, owner: &Owner, id: &str) -> Result<Option<Item>> {
        if id.is_empty() || id.contains('/') {
            return Ok(None);
        }
        let req = self.client()?.get(self.url(&format!("/memories/{id}")));
        // A server that answers 404 for an unknown id says "none" too.
        let res = self
            .auth(req)
            .send()
            .map_err(|e| self.transport_error("read a memory", &e))?;
        if res.status() == reqwest::StatusCode::NOT_FOUND {
            return Ok(None);
        }
        let v = self.read("read a memory", res)?;
        let user = self.user_for(owner);
        Ok(item_of(&v).filter(|_| {
            v.get("user_id")
                .and_then(serde_json::Value::as_str)
                .is_none_or(|u| u == user)
        }))
    }

    fn target(&self, owner: &Owner, id: &str, expect: &str) -> Result<Item> {
        match self.get(owner, id)? {
            None => Err(CoreError::NotFound(format!(
                "no memory entry with id {id:?} for {} at {}",
                owner.label(),
                self.cfg.base_url
            ))),
            Some(i) if i.memory != expect => Err(changed_since(id, expect, Some(&i.memory))),
            Some(i) => Ok(i),
        }
    }

    fn put(
        &self,
        id: &str,
        content: &str,
        scope: Scope,
        ts: Option<chrono::NaiveDateTime>,
    ) -> Result<()> {
        let mut meta = json!({"scope": scope.db_value()});
        if let Some(t) = ts {
            meta["ts"] = json!(rfc3339(&t));
        }
        let req = self
            .client()?
            .put(self.url(&format!("/memories/{id}")))
            .json(&json!({"text": content, "metadata": meta}));
        self.send("update a memory", req).map(|_| ())
    }

    fn delete(&self, id: &str) -> Result<()> {
        let req = self.client()?.delete(self.url(&format!("/memories/{id}")));
        self.send("delete a memory", req).map(|_| ())
    }

    /// Adds a memory with its scope and time; its new id.
    fn add(
        &self,
        owner: &Owner,
        scope: Scope,
        content: &str,
        ts: Option<chrono::NaiveDateTime>,
    ) -> Result<String> {
        let ts = self.next_ts(ts);
        let body = json!({
            "messages": [{"role": "user", "content": content}],
            "user_id": self.user_for(owner),
            "metadata": {"scope": scope.db_value(), "ts": rfc3339(&ts)},
            "infer": false,
        });
        let req = self.client()?.post(self.url("/memories")).json(&body);
        let v = self.send("add a memory", req)?;
        results_of(&v)
            .first()
            .and_then(|r| r.get("id"))
            .and_then(serde_json::Value::as_str)
            .map(str::to_string)
            .ok_or_else(|| {
                CoreError::BackendUnavailable(format!(
                    "mem0 at {} added the memory but sent no id back",
                    self.cfg.base_url
                ))
            })
    }

    /// Applies one step (already checked); what it did.
    fn step(&self, owner: &Owner, step: &Step, before: Option<&Item>) -> Result<EntryDiff> {
        match (step, before) {
            (
                Step::Replace {
                    id,
                    scope,
                    timestamp,
                    content,
                    ..
                },
                Some(old),
            ) => {
                let scope = scope.unwrap_or(old.scope.unwrap_or(Scope::Archival));
                let ts = timestamp.unwrap_or(old.ts);
                self.put(id, content, scope, ts)?;
                let after = self.get(owner, id)?.map(|i| snap(&i));
                Ok(EntryDiff {
                    before: Some(snap(old)),
                    after,
                })
            }
            (Step::Remove { id, .. }, Some(old)) => {
                self.delete(id)?;
                Ok(EntryDiff {
                    before: Some(snap(old)),
                    after: None,
                })
            }
            (
                Step::Insert {
                    scope,
                    timestamp,
                    content,
                    ..
                },
                None,
            ) => {
                let id = self.add(owner, *scope, content, *timestamp)?;
                let after = self.get(owner, &id)?.map(|i| snap(&i));
                Ok(EntryDiff {
                    before: None,
                    after,
                })
            }
            _ => Err(CoreError::InvalidInput(
                "a curation step without its entry".into(),
            )),
        }
    }

    pub(super) fn curate_items(&self, owner: &Owner, req: Request) -> Result<Change> {
        crate::memory::change::check_distinct(&req.steps)?;
        let history = self.history_file().ok_or_else(|| {
            CoreError::InvalidInput("this mem0 store has no place for its history".into())
        })?;
        // Every entry checked first: a stale one changes nothing.
        let mut befores = Vec::with_capacity(req.steps.len());
        for step in &req.steps {
            befores.push(match step.target() {
                Some((id, expect)) => Some(self.target(owner, id, expect)?),
                None => None,
            });
        }
        let mut change = req.head;
        // The intent names the entries as they are; the ids of restored ones come after.
        change.entries = befores
            .iter()
            .map(|b| EntryDiff {
                before: b.as_ref().map(snap),
                after: None,
            })
            .collect();
        history.intent(&change)?;
        let mut done: Vec<EntryDiff> = Vec::new();
        for (step, before) in req.steps.iter().zip(&befores) {
            match self.step(owner, step, before.as_ref()) {
                Ok(d) => done.push(d),
                Err(e) => {
                    // Take back what went through, newest first; then nothing happened.
                    for d in done.iter().rev() {
                        for back in crate::memory::change::inverse(std::slice::from_ref(d)) {
                            let old = back
                                .target()
                                .and_then(|(id, _)| self.get(owner, id).ok().flatten());
                            let _ = self.step(owner, &back, old.as_ref());
                        }
                    }
                    let _ = history.abort(&change.id);
                    return Err(e);
                }
            }
        }
        change.entries = done;
        // The finished change, then its commit: readers take the last intent of an id.
        history.intent(&change)?;
        history.commit(&change.id)?;
        Ok(change)
    }

    pub(super) fn items_hold(&self, owner: &Owner, change: &Change) -> Result<bool> {
        for d in &change.entries {
            match (&d.before, &d.after) {
                (_, Some(a)) => match self.get(owner, &a.id)? {
                    Some(i) if i.memory == a.content => {}
                    _ => return Ok(false),
                },
                (Some(b), None) => {
                    if self.get(owner, &b.id)?.is_some() {
                        return Ok(false);
                    }
                }
                (None, None) => {}
            }
        }
        Ok(true)
    }
}
