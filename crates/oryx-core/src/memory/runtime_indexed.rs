//! A store of a runtime install that keeps the runtime's vector index of archival memory true
//! through every console write that goes through the store (appends, and the changes `curate`
//! makes: edits, deletes, moves, restores, summaries, undo and redo): a vanished entry's row is
//! deleted at once (unless the same text still lives in another entry: duplicates share a row),
//! and a new archival entry gets its row when the runtime's embedder answers. The mock embedder
//! answers at once and is called inline; a remote provider is called by one worker, and the
//! write waits for it only briefly (the runtime embeds asynchronously too): an entry it could
//! not embed stays missing until the runtime's reconcile at its next start. The index never fails
//! the user's write: its problems are said on stderr and kept for [`RuntimeIndexedStore::warnings`].

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, SyncSender};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chrono::NaiveDateTime;

use super::history::{Change, History};
use super::store::{ContextEntries, EntryCounts, Recalled, Request, RuntimeEntry, Stamp};
use super::{Backend, Entry, LongTermMemoryStore, Scope, Sections};
use crate::error::Result;
use crate::names::Owner;
use crate::runtime::embedder::{Configured, Embedder};
use crate::runtime::memory_vectors::entry_hash;
use crate::runtime::mock_embedding;
use crate::runtime::vector_index::{self, RuntimeIndex};

/// How long a write waits for a remote embedder before it returns and lets the worker finish.
const REMOTE_WAIT: Duration = Duration::from_millis(1500);

/// Jobs the remote worker may hold; more are dropped (the runtime's reconcile embeds them).
const QUEUE: usize = 256;

/// Most warnings kept between two reads.
const KEPT_WARNINGS: usize = 50;

pub struct RuntimeIndexedStore {
    inner: Arc<dyn LongTermMemoryStore>,
    index: RuntimeIndex,
    shared: Arc<Shared>,
    worker: Mutex<Option<SyncSender<Job>>>,
}

#[derive(Default)]
struct Shared {
    warnings: Mutex<Vec<String>>,
    /// The last remote wait timed out: later writes do not wait until the worker catches up.
    slow: AtomicBool,
}

impl Shared {
    fn warn(&self, what: String) {
        eprintln!("oryx: {what}");
        let mut w = self.warnings.lock().unwrap_or_else(|p| p.into_inner());
        if w.len() < KEPT_WARNINGS {
            w.push(what);
        }
    }
}

struct Job {
    db: std::path::PathBuf,
    embedder: Arc<dyn Embedder>,
    agent: String,
    entries: Vec<RuntimeEntry>,
    done: SyncSender<()>,
}

impl RuntimeIndexedStore {
    pub fn new(inner: Arc<dyn LongTermMemoryStore>, index: RuntimeIndex) -> Self {
        RuntimeIndexedStore {
            inner,
            index,
            shared: Arc::default(),
            worker: Mutex::new(None),
        }
    }

    pub fn runtime_index(&self) -> &RuntimeIndex {
        &self.index
    }

    /// What went wrong with the index since the last call (the writes themselves succeeded).
    pub fn warnings(&self) -> Vec<String> {
        std::mem::take(
            &mut *self
                .shared
                .warnings
                .lock()
                .unwrap_or_else(|p| p.into_inner()),
        )
    }

    /// The text the runtime hashes for an entry of this store: MEMORY.md's raw line, a row's
    /// content.
    fn runtime_text<'e>(&self, content: &'e str, line: &'e str) -> &'e str {
        match self.inner.backend() {
            Backend::Markdown => line,
            _ => content,
        }
    }

    fn runtime_entry(
        &self,
        content: &str,
        line: &str,
        time: Option<NaiveDateTime>,
    ) -> RuntimeEntry {
        let text = self.runtime_text(content, line).to_string();
        let time = match self.inner.backend() {
            Backend::Markdown => super::markdown::runtime_text::entry_time(&text),
            _ => time,
        };
        RuntimeEntry { text, time }
    }

    /// Brings the index in line with a write to `owner` that removed the entries `removed`
    /// (runtime texts) and added `added`.
    fn after_write(&self, owner: &Owner, removed: Vec<String>, added: Vec<RuntimeEntry>) {
        if removed.is_empty() && added.is_empty() {
            return;
        }
        match vector_index::has_table(&self.index.db) {
            Ok(true) => {}
            Ok(false) => return,
            Err(e) => {
                self.shared
                    .warn(format!("the runtime's memory index was not updated: {e}"));
                return;
            }
        }
        let agent = owner.db_key();
        if let Err(e) = self.remove_vanished(owner, agent, removed, &added) {
            self.shared.warn(format!(
                "the runtime's memory index still has rows of deleted entries \
                 (its next start drops them): {e}"
            ));
        }
        if added.is_empty() {
            return;
        }
        // Off or broken: the runtime writes no row either.
        if let Configured::Ready(embedder) = self.index.embedding() {
            self.add(agent, embedder, added);
        }
    }

    fn remove_vanished(
        &self,
        owner: &Owner,
        agent: &str,
        removed: Vec<String>,
        added: &[RuntimeEntry],
    ) -> Result<()> {
        let back: HashSet<&str> = added.iter().map(|e| e.text.as_str()).collect();
        let candidates: Vec<String> = removed
            .into_iter()
            .filter(|t| !back.contains(t.as_str()))
            .collect();
        if candidates.is_empty() {
            return Ok(());
        }
        // A text that still lives in another entry keeps the row they share.
        let live: HashSet<String> = self
            .inner
            .runtime_archival(owner)?
            .into_iter()
            .map(|e| e.text)
            .collect();
        let mut gone: Vec<String> = candidates
            .iter()
            .filter(|t| !live.contains(*t))
            .map(|t| entry_hash(agent, t))
            .collect();
        gone.sort();
        gone.dedup();
        if gone.is_empty() {
            return Ok(());
        }
        if let Some(done) = vector_index::remove(&self.index.db, agent, &gone)? {
            if let Some(w) = done.warning() {
                self.shared.warn(w);
            }
        }
        Ok(())
    }

    fn add(&self, agent: &str, embedder: Arc<dyn Embedder>, entries: Vec<RuntimeEntry>) {
        if embedder.model_id() == mock_embedding::MODEL_ID {
            if let Err(e) = vector_index::index(&self.index.db, embedder.as_ref(), agent, &entries)
            {
                self.shared.warn(format!(
                    "the runtime's memory index has no row for the new entry yet \
                     (its next start embeds it): {e}"
                ));
            }
            return;
        }
        let (done, finished) = mpsc::sync_channel(1);
        let job = Job {
            db: self.index.db.clone(),
            embedder,
            agent: agent.to_string(),
            entries,
            done,
        };
        if !self.enqueue(job) {
            self.shared.warn(
                "the runtime's memory index is behind (too many entries to embed): the \
                 runtime's next start embeds the rest"
                    .into(),
            );
            return;
        }
        if self.shared.slow.load(Ordering::Relaxed) {
            return;
        }
        if finished.recv_timeout(REMOTE_WAIT).is_err() {
            self.shared.slow.store(true, Ordering::Relaxed);
        }
    }

    fn enqueue(&self, job: Job) -> bool {
        let mut worker = self.worker.lock().unwrap_or_else(|p| p.into_inner());
        if worker.is_none() {
            let (tx, rx) = mpsc::sync_channel(QUEUE);
            let shared = self.shared.clone();
            let spawned = std::thread::Builder::new()
                .name("oryx-runtime-index".into())
                .spawn(move || run_worker(rx, &shared));
            if spawned.is_err() {
                return false;
            }
            *worker = Some(tx);
        }
        worker.as_ref().is_some_and(|tx| tx.try_send(job).is_ok())
    }
}

fn run_worker(jobs: Receiver<Job>, shared: &Shared) {
    for job in jobs {
        let started = std::time::Instant::now();
        if let Err(e) =
            vector_index::index(&job.db, job.embedder.as_ref(), &job.agent, &job.entries)
        {
            shared.warn(format!(
                "the runtime's memory index has no row for a new entry of {} (its next \
                 start embeds it): {e}",
                job.agent
            ));
        }
        if started.elapsed() < REMOTE_WAIT {
            shared.slow.store(false, Ordering::Relaxed);
        }
        let _ = job.done.try_send(());
    }
}

impl LongTermMemoryStore for RuntimeIndexedStore {
    fn backend(&self) -> Backend {
        self.inner.backend()
    }

    fn problem(&self) -> Option<String> {
        self.inner.problem()
    }

    fn location(&self, owner: &Owner) -> String {
        self.inner.location(owner)
    }

    fn as_mem0(&self) -> Option<&super::mem0::Mem0MemoryStore> {
        self.inner.as_mem0()
    }

    fn stamp(&self, owner: &Owner) -> Option<Stamp> {
        self.inner.stamp(owner)
    }

    fn size(&self, owner: &Owner) -> Option<u64> {
        self.inner.size(owner)
    }

    fn append(
        &self,
        owner: &Owner,
        scope: Scope,
        content: &str,
        at: Option<NaiveDateTime>,
    ) -> Result<Entry> {
        let entry = self.inner.append(owner, scope, content, at)?;
        if scope == Scope::Archival {
            let added = self.runtime_entry(&entry.content, &entry.line, entry.timestamp);
            self.after_write(owner, Vec::new(), vec![added]);
        }
        Ok(entry)
    }

    fn load_all(&self, owner: &Owner) -> Result<Sections> {
        self.inner.load_all(owner)
    }

    fn load_context(&self, owner: &Owner, archival_limit: usize) -> Result<ContextEntries> {
        self.inner.load_context(owner, archival_limit)
    }

    fn count(&self, owner: &Owner) -> Result<EntryCounts> {
        self.inner.count(owner)
    }

    fn search(&self, owner: &Owner, query: &str, k: usize) -> Result<Option<Vec<Recalled>>> {
        self.inner.search(owner, query, k)
    }

    fn history(&self, owner: &Owner) -> Option<History> {
        self.inner.history(owner)
    }

    fn curate(&self, owner: &Owner, req: Request) -> Result<Change> {
        let change = self.inner.curate(owner, req)?;
        let mut removed = Vec::new();
        let mut added = Vec::new();
        for d in &change.entries {
            if let Some(b) = d.before.as_ref().filter(|b| b.scope == Scope::Archival) {
                removed.push(self.runtime_text(&b.content, &b.line).to_string());
            }
            if let Some(a) = d.after.as_ref().filter(|a| a.scope == Scope::Archival) {
                added.push(self.runtime_entry(&a.content, &a.line, a.time()));
            }
        }
        self.after_write(owner, removed, added);
        Ok(change)
    }

    fn holds(&self, owner: &Owner, change: &Change) -> Result<bool> {
        self.inner.holds(owner, change)
    }

    fn runtime_archival(&self, owner: &Owner) -> Result<Vec<RuntimeEntry>> {
        self.inner.runtime_archival(owner)
    }

    fn recall(&self, owner: &Owner, keyword: &str) -> Result<Vec<Entry>> {
        self.inner.recall(owner, keyword)
    }
}

/// Gives every archival entry of `owner` that has no row of the embedder's model its row (a
/// write that bypassed the store: a MEMORY.md copied whole). Nothing to do without an install,
/// a table or an embedder; with a remote provider this waits for it.
pub fn index_owner(
    index: &RuntimeIndex,
    store: &dyn LongTermMemoryStore,
    owner: &Owner,
) -> Result<usize> {
    let Configured::Ready(embedder) = index.embedding() else {
        return Ok(0);
    };
    let entries = store.runtime_archival(owner)?;
    let done = vector_index::index(&index.db, embedder.as_ref(), owner.db_key(), &entries)?;
    Ok(done.map_or(0, |d| d.written))
}
