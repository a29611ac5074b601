//! The console's writes to the runtime's vector index of archival memory (`memory_vectors`):
//! data rows only, never the table itself. The runtime keeps one row per distinct archival
//! entry of an agent when an embedding provider is configured: it embeds after its own appends
//! and, at start, reconciles (rows of another model dropped for every agent, rows of entries that
//! are gone dropped, missing entries embedded) for the agents it loads and the global memory.
//! The console's writes keep the same table true: a vanished entry's row goes at once, with its
//! text's bytes scrubbed from the database file and its WAL; a new entry gets its row when the
//! embedder answers. A database without the table (a runtime older than its semantic recall, or
//! one that never started) has nothing to keep.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use rusqlite::{params, Connection, OptionalExtension};

use super::embedder::{self, Configured, Embedder};
use super::erase::{self, Leftover};
use super::memory_vectors::{encode, entry_hash};
use crate::config::Effective;
use crate::db;
use crate::error::{CoreError, DbContext, Result};
use crate::memory::{Backend, LongTermMemoryStore, RuntimeEntry};
use crate::names::Owner;
use crate::timefmt::{local_to_epoch_ms, now_epoch_ms};

/// The table the runtime keeps its memory vectors in.
const TABLE: &str = "memory_vectors";

/// How long the scrub waits for the runtime's readers before it settles for a partial
/// checkpoint: a user's delete must not hang on a long recall.
const CHECKPOINT_WAIT: Duration = Duration::from_millis(250);

/// Texts embedded per call while filling.
pub const FILL_BATCH: usize = 32;

/// The runtime's index the console keeps for one install: its database and where its
/// configuration lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuntimeIndex {
    pub db: PathBuf,
    pub install_dir: PathBuf,
    pub root: PathBuf,
}

impl RuntimeIndex {
    /// `Some` when the console writes the entries the runtime indexes: the root is an install's
    /// and the backend in use is the runtime's own markdown or sqlite (mem0 keeps its vectors
    /// itself; entries of a backend the runtime does not read have no rows).
    pub fn of(e: &Effective) -> Option<RuntimeIndex> {
        let install_dir = e.install_dir.clone()?;
        if !e.runtime_windows || !matches!(e.backend, Backend::Markdown | Backend::Sqlite) {
            return None;
        }
        if e.runtime_backend.is_some_and(|b| b != e.backend) {
            return None;
        }
        Some(RuntimeIndex {
            db: e.db_path.clone(),
            install_dir,
            root: e.root.clone(),
        })
    }

    /// The embedder the runtime's configuration and provider registry give now.
    pub fn embedding(&self) -> Configured {
        let install = super::install::Install::read(&self.install_dir);
        let registry = super::providers::registry(&self.db).ok().flatten();
        embedder::configured(&install.config, registry.as_deref())
    }

    /// The owners the runtime reconciles at start: every agent it loads, then the global memory.
    pub fn owners(&self) -> Result<Vec<Owner>> {
        let mut out = Vec::new();
        for a in crate::agents::list(&self.root)? {
            if crate::runtime_load::loads(&self.root, &self.db, &a.name)? {
                out.push(Owner::Agent(a.name));
            }
        }
        out.push(Owner::Global);
        Ok(out)
    }
}

/// The connection for writes; `None` when there is no database or no `memory_vectors` table.
fn open(db_path: &Path) -> Result<Option<Connection>> {
    let Some(conn) = db::open_existing(db_path)? else {
        return Ok(None);
    };
    if db::table_columns(&conn, TABLE).at_db(db_path)?.is_empty() {
        return Ok(None);
    }
    // Derived rows the runtime rebuilds at its start: a commit need not wait for the disk (in
    // WAL mode a power cut may lose the last rows, never corrupt the file).
    conn.execute_batch("PRAGMA synchronous = NORMAL")
        .at_db(db_path)?;
    Ok(Some(conn))
}

/// Whether the database has the runtime's `memory_vectors` table.
pub fn has_table(db_path: &Path) -> Result<bool> {
    Ok(open(db_path)?.is_some())
}

/// How far a scrub's checkpoint got.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Checkpoint {
    /// Every WAL frame copied into the database and the WAL emptied: the deleted text is in
    /// neither file.
    Truncated,
    /// The runtime held readers: only part of the WAL could be copied, the rest (which may
    /// hold the deleted text) stays until the runtime's next checkpoint.
    Partial { frames: i64, copied: i64 },
    /// The database is not in WAL mode: the delete wrote over the text in the file itself.
    NoWal,
}

/// What a removal did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Removed {
    pub rows: usize,
    pub checkpoint: Checkpoint,
    /// What is left of the removed texts in the files (unknown after a partial checkpoint).
    pub leftover: Option<Leftover>,
}

impl Removed {
    /// The sentence to show when the text may still be on disk.
    pub fn warning(&self) -> Option<String> {
        if let Checkpoint::Partial { frames, copied } = self.checkpoint {
            return Some(format!(
                "the runtime was reading its database: {copied} of {frames} WAL frames were \
                 checkpointed, the rest (which may hold deleted text) until its next checkpoint"
            ));
        }
        self.leftover.as_ref().and_then(Leftover::warning)
    }
}

/// Whether a row still holds `text` (a duplicate entry of another owner shares it).
fn still_indexed(conn: &Connection, text: &str) -> bool {
    conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM memory_vectors WHERE content = ?1)",
        [text],
        |r| r.get(0),
    )
    .unwrap_or(false)
}

/// The removed texts' leftovers, searched for once the WAL is empty.
fn leftovers_after(
    conn: &Connection,
    db_path: &Path,
    checkpoint: Checkpoint,
    texts: &[String],
) -> Result<Option<Leftover>> {
    if matches!(checkpoint, Checkpoint::Partial { .. }) {
        return Ok(None);
    }
    erase::leftovers(conn, db_path, texts).map(Some)
}

/// Deletes the rows of `agent` whose entry hash is in `hashes`, overwriting their bytes, then
/// checkpoints the WAL so the text leaves both files. `None`: no table, nothing to do.
pub fn remove(db_path: &Path, agent: &str, hashes: &[String]) -> Result<Option<Removed>> {
    let Some(conn) = open(db_path)? else {
        return Ok(None);
    };
    let mut texts = Vec::new();
    let rows = delete_rows(&conn, db_path, |tx| {
        let mut stmt = tx
            .prepare(
                "DELETE FROM memory_vectors WHERE agent_name = ?1 AND entry_hash = ?2 \
                 RETURNING content",
            )
            .at_db(db_path)?;
        for h in hashes {
            let gone = stmt
                .query_map(params![agent, h], |r| r.get::<_, String>(0))
                .at_db(db_path)?;
            for t in gone {
                texts.push(t.at_db(db_path)?);
            }
        }
        Ok(texts.len())
    })?;
    let checkpoint = scrub_wal(&conn, db_path)?;
    texts.retain(|t| !still_indexed(&conn, t));
    let leftover = leftovers_after(&conn, db_path, checkpoint, &texts)?;
    Ok(Some(Removed {
        rows,
        checkpoint,
        leftover,
    }))
}

/// Runs `delete` in one transaction with `secure_delete` on (deleted cells and freed pages are
/// zeroed), restoring the connection's setting after.
fn delete_rows(
    conn: &Connection,
    db_path: &Path,
    delete: impl FnOnce(&rusqlite::Transaction<'_>) -> Result<usize>,
) -> Result<usize> {
    conn.execute_batch("PRAGMA secure_delete = ON")
        .at_db(db_path)?;
    let result = (|| {
        let tx =
            rusqlite::Transaction::new_unchecked(conn, rusqlite::TransactionBehavior::Immediate)
                .at_db(db_path)?;
        let n = delete(&tx)?;
        tx.commit().at_db(db_path)?;
        Ok(n)
    })();
    let _ = conn.execute_batch("PRAGMA secure_delete = OFF");
    result
}

/// `wal_checkpoint(TRUNCATE)`, waiting briefly for readers; when they stay, what a passive
/// checkpoint could copy.
pub fn scrub_wal(conn: &Connection, db_path: &Path) -> Result<Checkpoint> {
    let mode: String = conn
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .at_db(db_path)?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Ok(Checkpoint::NoWal);
    }
    conn.busy_timeout(CHECKPOINT_WAIT).at_db(db_path)?;
    let truncate = conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| {
        Ok((
            r.get::<_, i64>(0)?,
            r.get::<_, i64>(1)?,
            r.get::<_, i64>(2)?,
        ))
    });
    let outcome = match truncate {
        Ok((0, _, _)) => Ok(Checkpoint::Truncated),
        // Busy (1), or the call itself answered busy: copy what the readers allow.
        _ => conn
            .query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |r| {
                Ok(Checkpoint::Partial {
                    frames: r.get(1)?,
                    copied: r.get(2)?,
                })
            })
            .at_db(db_path),
    };
    let _ = conn.busy_timeout(Duration::from_secs(5));
    outcome
}

/// What an indexing call did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Indexed {
    /// Rows written (new, or another model's replaced).
    pub written: usize,
    /// Entries that already had a row of the embedder's model.
    pub present: usize,
}

/// Gives each of `entries` of `agent` its row as the runtime's indexer writes it: skipped when a
/// row of the embedder's model exists, another model's row replaced in place (its id and
/// `created_at` kept), else a new row. The texts without a row are embedded in one `embed_all`.
/// `None`: no table.
pub fn index(
    db_path: &Path,
    embedder: &dyn Embedder,
    agent: &str,
    entries: &[RuntimeEntry],
) -> Result<Option<Indexed>> {
    let Some(conn) = open(db_path)? else {
        return Ok(None);
    };
    Ok(Some(index_on(&conn, db_path, embedder, agent, entries)?))
}

fn index_on(
    conn: &Connection,
    db_path: &Path,
    embedder: &dyn Embedder,
    agent: &str,
    entries: &[RuntimeEntry],
) -> Result<Indexed> {
    let model = embedder.model_id();
    let mut todo: Vec<(&RuntimeEntry, String)> = Vec::new();
    let mut seen = HashSet::new();
    let mut present = 0;
    for e in entries {
        let hash = entry_hash(agent, &e.text);
        if !seen.insert(hash.clone()) {
            continue;
        }
        let existing: Option<String> = conn
            .query_row(
                "SELECT embedding_model FROM memory_vectors WHERE agent_name = ?1 AND entry_hash = ?2",
                params![agent, hash],
                |r| r.get(0),
            )
            .optional()
            .at_db(db_path)?;
        if existing.as_deref() == Some(model) {
            present += 1;
        } else {
            todo.push((e, hash));
        }
    }
    if todo.is_empty() {
        return Ok(Indexed {
            written: 0,
            present,
        });
    }
    let texts: Vec<&str> = todo.iter().map(|(e, _)| e.text.as_str()).collect();
    let vectors = embedder
        .embed_all(&texts)
        .map_err(|f| CoreError::BackendUnavailable(format!("embedding failed: {f}")))?;
    if vectors.len() != texts.len() {
        return Err(CoreError::BackendUnavailable(format!(
            "the embedder answered {} vectors for {} texts",
            vectors.len(),
            texts.len()
        )));
    }
    let tx = rusqlite::Transaction::new_unchecked(conn, rusqlite::TransactionBehavior::Immediate)
        .at_db(db_path)?;
    let mut written = 0;
    {
        // The same model's row written meanwhile (by the runtime) is left as it is.
        let mut stmt = tx
            .prepare(
                "INSERT INTO memory_vectors (entry_hash, agent_name, content, embedding, dim, \
                 embedding_model, entry_time, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) \
                 ON CONFLICT (agent_name, entry_hash) DO UPDATE SET content = excluded.content, \
                 embedding = excluded.embedding, dim = excluded.dim, \
                 embedding_model = excluded.embedding_model, entry_time = excluded.entry_time \
                 WHERE memory_vectors.embedding_model <> excluded.embedding_model",
            )
            .at_db(db_path)?;
        let now = now_epoch_ms();
        for ((e, hash), v) in todo.iter().zip(&vectors) {
            written += stmt
                .execute(params![
                    hash,
                    agent,
                    e.text,
                    encode(v),
                    v.len() as i64,
                    model,
                    e.time.as_ref().map(local_to_epoch_ms),
                    now
                ])
                .at_db(db_path)?;
        }
    }
    tx.commit().at_db(db_path)?;
    Ok(Indexed { written, present })
}

/// One owner's rows against its live entries.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OwnerStatus {
    /// `agent_name`: the agent, or `__global__`.
    pub agent: String,
    /// Distinct live entries with a row of the current model.
    pub indexed: usize,
    /// Distinct live entries without one.
    pub missing: usize,
    /// Rows whose entry is gone.
    pub orphans: usize,
    /// Rows of another model (of live entries or not).
    pub other_model: usize,
}

/// Why the runtime keeps no index, or its model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IndexState {
    /// `embedding.provider` is empty: no index is kept (rows of an earlier configuration stay).
    Off,
    /// A provider is named but cannot be built: the runtime's indexer writes nothing.
    Broken {
        reason: String,
    },
    /// The database has no `memory_vectors` table.
    NoTable,
    Ready {
        model: String,
    },
}

/// The index of every owner the runtime reconciles, and what its next start does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Status {
    pub state: IndexState,
    pub owners: Vec<OwnerStatus>,
    /// Rows the next start drops: every row of another model (any agent's), and the orphans of
    /// the owners it reconciles.
    pub to_drop: usize,
    /// Entries it embeds.
    pub to_embed: usize,
}

fn state_of(configured: &Configured, table: bool) -> IndexState {
    match configured {
        Configured::Off => IndexState::Off,
        Configured::Broken { reason, .. } => IndexState::Broken {
            reason: reason.clone(),
        },
        Configured::Ready(_) if !table => IndexState::NoTable,
        Configured::Ready(e) => IndexState::Ready {
            model: e.model_id().to_string(),
        },
    }
}

/// The rows of `agent`: hash → model.
fn rows_of(conn: &Connection, db_path: &Path, agent: &str) -> Result<Vec<(String, String)>> {
    let mut stmt = conn
        .prepare("SELECT entry_hash, embedding_model FROM memory_vectors WHERE agent_name = ?1")
        .at_db(db_path)?;
    let rows = stmt
        .query_map([agent], |r| Ok((r.get(0)?, r.get(1)?)))
        .at_db(db_path)?
        .collect::<rusqlite::Result<Vec<_>>>()
        .at_db(db_path);
    rows
}

/// The live entries of `owner` by hash, first of each text kept (the runtime's order).
fn live(store: &dyn LongTermMemoryStore, owner: &Owner) -> Result<Vec<(String, RuntimeEntry)>> {
    let agent = owner.db_key();
    let mut seen = HashSet::new();
    Ok(store
        .runtime_archival(owner)?
        .into_iter()
        .filter_map(|e| {
            let h = entry_hash(agent, &e.text);
            seen.insert(h.clone()).then_some((h, e))
        })
        .collect())
}

fn owner_status(
    conn: Option<&Connection>,
    db_path: &Path,
    model: Option<&str>,
    agent: &str,
    live: &[(String, RuntimeEntry)],
) -> Result<OwnerStatus> {
    let rows = match conn {
        Some(c) => rows_of(c, db_path, agent)?,
        None => Vec::new(),
    };
    let live_hashes: HashSet<&str> = live.iter().map(|(h, _)| h.as_str()).collect();
    let mut s = OwnerStatus {
        agent: agent.to_string(),
        ..Default::default()
    };
    let mut current = HashSet::new();
    for (hash, m) in &rows {
        if Some(m.as_str()) != model {
            s.other_model += 1;
        } else if live_hashes.contains(hash.as_str()) {
            current.insert(hash.as_str());
        } else {
            s.orphans += 1;
        }
    }
    s.indexed = current.len();
    s.missing = live_hashes.len() - s.indexed;
    Ok(s)
}

/// The index of each of `owners` (as given, the runtime's reconcile order) as the embedding
/// `configured` sees it.
pub fn status(
    db_path: &Path,
    configured: &Configured,
    store: &dyn LongTermMemoryStore,
    owners: &[Owner],
) -> Result<Status> {
    let conn = open(db_path)?;
    let state = state_of(configured, conn.is_some());
    let model = match &state {
        IndexState::Ready { model } => Some(model.as_str()),
        _ => None,
    };
    let mut out = Vec::new();
    for owner in owners {
        let live = live(store, owner)?;
        out.push(owner_status(
            conn.as_ref(),
            db_path,
            model,
            owner.db_key(),
            &live,
        )?);
    }
    let (to_drop, to_embed) = match (&conn, model) {
        (Some(c), Some(m)) => {
            let other: i64 = c
                .query_row(
                    "SELECT COUNT(*) FROM memory_vectors WHERE embedding_model <> ?1",
                    [m],
                    |r| r.get(0),
                )
                .at_db(db_path)?;
            let orphans: usize = out.iter().map(|o| o.orphans).sum();
            let embed: usize = out.iter().map(|o| o.missing).sum();
            (other as usize + orphans, embed)
        }
        // Off, broken or no table: the runtime's start changes nothing.
        _ => (0, 0),
    };
    Ok(Status {
        state,
        owners: out,
        to_drop,
        to_embed,
    })
}

/// Progress of a fill, after each step.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FillProgress {
    pub dropped: usize,
    pub embedded: usize,
    /// Entries to embed in all (known once every owner is read).
    pub to_embed: usize,
    pub current: Option<String>,
}

/// What a fill did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filled {
    pub dropped: usize,
    pub embedded: usize,
    pub cancelled: bool,
    /// The drops' checkpoint and leftovers (`None`: nothing dropped).
    pub removed: Option<Removed>,
}

/// Does what the runtime's start does to its index, now: drops every row of another model and
/// the orphans of `owners`, then embeds their missing entries in batches of [`FILL_BATCH`]
/// (stopping between batches when `cancel` is set). `None`: no table.
pub fn fill(
    db_path: &Path,
    embedder: &dyn Embedder,
    store: &dyn LongTermMemoryStore,
    owners: &[Owner],
    cancel: &AtomicBool,
    progress: &mut dyn FnMut(&FillProgress),
) -> Result<Option<Filled>> {
    let Some(conn) = open(db_path)? else {
        return Ok(None);
    };
    let model = embedder.model_id().to_string();
    let mut p = FillProgress::default();
    let mut plan: Vec<(String, Vec<RuntimeEntry>)> = Vec::new();
    let mut orphans: HashMap<String, Vec<String>> = HashMap::new();
    for owner in owners {
        let agent = owner.db_key().to_string();
        let live = live(store, owner)?;
        let live_hashes: HashSet<&str> = live.iter().map(|(h, _)| h.as_str()).collect();
        let rows = rows_of(&conn, db_path, &agent)?;
        let mut current = HashSet::new();
        for (hash, m) in rows {
            if m != model {
                continue; // dropped with every other model's row
            }
            if live_hashes.contains(hash.as_str()) {
                current.insert(hash);
            } else {
                orphans.entry(agent.clone()).or_default().push(hash);
            }
        }
        let missing: Vec<RuntimeEntry> = live
            .into_iter()
            .filter(|(h, _)| !current.contains(h))
            .map(|(_, e)| e)
            .collect();
        p.to_embed += missing.len();
        plan.push((agent, missing));
    }
    progress(&p);
    let mut texts: Vec<String> = Vec::new();
    let dropped = delete_rows(&conn, db_path, |tx| {
        let mut other = tx
            .prepare("DELETE FROM memory_vectors WHERE embedding_model <> ?1 RETURNING content")
            .at_db(db_path)?;
        for t in other
            .query_map([&model], |r| r.get::<_, String>(0))
            .at_db(db_path)?
        {
            texts.push(t.at_db(db_path)?);
        }
        let mut stmt = tx
            .prepare(
                "DELETE FROM memory_vectors WHERE agent_name = ?1 AND entry_hash = ?2 \
                 RETURNING content",
            )
            .at_db(db_path)?;
        for (agent, hashes) in &orphans {
            for h in hashes {
                for t in stmt
                    .query_map(params![agent, h], |r| r.get::<_, String>(0))
                    .at_db(db_path)?
                {
                    texts.push(t.at_db(db_path)?);
                }
            }
        }
        Ok(texts.len())
    })?;
    let removed = if dropped > 0 {
        let checkpoint = scrub_wal(&conn, db_path)?;
        // Another model's row of a live entry: its text stays in the index, so only the texts
        // no current row keeps are searched for.
        texts.retain(|t| !still_indexed(&conn, t));
        let leftover = leftovers_after(&conn, db_path, checkpoint, &texts)?;
        Some(Removed {
            rows: dropped,
            checkpoint,
            leftover,
        })
    } else {
        None
    };
    p.dropped = dropped;
    progress(&p);
    let mut cancelled = false;
    'owners: for (agent, missing) in &plan {
        p.current = Some(agent.clone());
        for batch in missing.chunks(FILL_BATCH) {
            if cancel.load(Ordering::Relaxed) {
                cancelled = true;
                break 'owners;
            }
            let done = index_on(&conn, db_path, embedder, agent, batch)?;
            p.embedded += done.written + done.present;
            progress(&p);
        }
    }
    p.current = None;
    progress(&p);
    Ok(Some(Filled {
        dropped,
        embedded: p.embedded,
        cancelled,
        removed,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::MarkdownMemoryStore;
    use crate::runtime::embedder::{EmbedFailure, Mock};
    use crate::runtime::memory_vectors::{decode, rows};
    use crate::runtime::mock_embedding;

    fn db_with_table(dir: &Path) -> PathBuf {
        let path = dir.join("oryxos.db");
        let conn = Connection::open(&path).unwrap();
        conn.query_row("PRAGMA journal_mode=WAL", [], |r| r.get::<_, String>(0))
            .unwrap();
        crate::runtime::schema::create(&conn).unwrap();
        path
    }

    fn entry(text: &str) -> RuntimeEntry {
        RuntimeEntry {
            text: text.into(),
            time: crate::timefmt::parse_entry_ts("2026-01-02 03:04:05"),
        }
    }

    struct Other;
    impl Embedder for Other {
        fn model_id(&self) -> &str {
            "other/m"
        }
        fn embed(&self, _: &str) -> std::result::Result<Vec<f32>, EmbedFailure> {
            Ok(vec![1.0, 2.0])
        }
    }

    #[test]
    fn rows_are_written_as_the_runtime_writes_them_and_once() {
        let dir = tempfile::tempdir().unwrap();
        let db = db_with_table(dir.path());
        let done = index(&db, &Mock, "a", &[entry("x"), entry("x"), entry("y")])
            .unwrap()
            .unwrap();
        assert_eq!(
            done,
            Indexed {
                written: 2,
                present: 0
            }
        );
        let got = rows(&db, "a").unwrap().unwrap();
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].entry_hash, entry_hash("a", "x"));
        assert_eq!(decode(&got[0].embedding), mock_embedding::embed("x"));
        assert_eq!(
            (got[0].dim, got[0].model.as_str()),
            (64, "mock/deterministic")
        );
        let conn = Connection::open(&db).unwrap();
        let (t, c): (i64, i64) = conn
            .query_row(
                "SELECT entry_time, created_at FROM memory_vectors WHERE id = 1",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap();
        assert_eq!(
            t,
            local_to_epoch_ms(&crate::timefmt::parse_entry_ts("2026-01-02 03:04:05").unwrap())
        );
        assert!(c > 1_700_000_000_000, "created_at is epoch ms: {c}");
        let again = index(&db, &Mock, "a", &[entry("x")]).unwrap().unwrap();
        assert_eq!(again.written, 0);
    }

    #[test]
    fn another_models_row_is_replaced_in_place() {
        let dir = tempfile::tempdir().unwrap();
        let db = db_with_table(dir.path());
        index(&db, &Other, "a", &[entry("x")]).unwrap();
        let conn = Connection::open(&db).unwrap();
        let before: (i64, i64) = conn
            .query_row("SELECT id, created_at FROM memory_vectors", [], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .unwrap();
        index(&db, &Mock, "a", &[entry("x")]).unwrap();
        let after: (i64, i64, String) = conn
            .query_row(
                "SELECT id, created_at, embedding_model FROM memory_vectors",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .unwrap();
        assert_eq!((after.0, after.1), before);
        assert_eq!(after.2, "mock/deterministic");
    }

    #[test]
    fn no_table_is_nothing_to_do() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("old.db");
        Connection::open(&db)
            .unwrap()
            .execute_batch("CREATE TABLE t (x)")
            .unwrap();
        assert_eq!(index(&db, &Mock, "a", &[entry("x")]).unwrap(), None);
        assert_eq!(remove(&db, "a", &["h".into()]).unwrap(), None);
        assert!(!has_table(&db).unwrap());
        assert!(!has_table(&dir.path().join("none.db")).unwrap());
    }

    #[test]
    fn a_removal_leaves_no_byte_of_the_text_in_the_files() {
        let dir = tempfile::tempdir().unwrap();
        let db = db_with_table(dir.path());
        let secret = "secret-phrase-4f1c9e";
        index(&db, &Mock, "a", &[entry(secret), entry("kept")]).unwrap();
        let done = remove(&db, "a", &[entry_hash("a", secret)])
            .unwrap()
            .unwrap();
        assert_eq!(done.rows, 1);
        assert_eq!(done.checkpoint, Checkpoint::Truncated);
        for f in ["oryxos.db", "oryxos.db-wal"] {
            let bytes = std::fs::read(dir.path().join(f)).unwrap_or_default();
            assert!(
                memchr::memmem::find(&bytes, secret.as_bytes()).is_none(),
                "{f} still holds the text"
            );
        }
        assert_eq!(rows(&db, "a").unwrap().unwrap().len(), 1);
    }

    #[test]
    fn a_removal_compacts_away_the_copies_page_splits_left() {
        // As on the sample install: one row, then a fill of 171 more (batches of 32) splits its
        // page; secure_delete then zeroes the row but not the copy the split left behind.
        let dir = tempfile::tempdir().unwrap();
        let db = db_with_table(dir.path());
        let secret = "- [2026-12-06 12:09:45] the deploy key is e2e-runtime-secret-mxbsv7ma";
        index(&db, &Mock, "assistant", &[entry(secret)]).unwrap();
        let fill: Vec<RuntimeEntry> = (0..171)
            .map(|i| {
                entry(&format!(
                    "- [2026-01-02 03:04:05] 用户的第 {i} 条记忆：偏好与习惯"
                ))
            })
            .collect();
        for batch in fill.chunks(FILL_BATCH) {
            index(&db, &Mock, "assistant", batch).unwrap();
        }
        let done = remove(&db, "assistant", &[entry_hash("assistant", secret)])
            .unwrap()
            .unwrap();
        assert_eq!((done.rows, done.checkpoint), (1, Checkpoint::Truncated));
        assert_eq!(done.leftover, Some(Leftover::Compacted), "{done:?}");
        assert_eq!(done.warning(), None);
        let bytes = std::fs::read(&db).unwrap();
        assert!(memchr::memmem::find(&bytes, b"e2e-runtime-secret").is_none());
        assert_eq!(rows(&db, "assistant").unwrap().unwrap().len(), 171);
    }

    #[test]
    fn a_text_a_session_still_holds_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let db = db_with_table(dir.path());
        let secret = "the code is 7781-said-in-a-session";
        Connection::open(&db)
            .unwrap()
            .execute(
                "INSERT INTO tool_invocations (session_id, tool_name, input_json, success, duration_ms, created_at) \
                 VALUES ('s1', 'save_memory', ?1, 1, 5, 0)",
                [format!("{{\"content\":\"{secret}\"}}")],
            )
            .unwrap();
        index(&db, &Mock, "a", &[entry(secret)]).unwrap();
        let done = remove(&db, "a", &[entry_hash("a", secret)])
            .unwrap()
            .unwrap();
        assert_eq!(
            done.leftover,
            Some(Leftover::InRecords(vec!["tool_invocations".into()]))
        );
        assert!(done.warning().unwrap().contains("tool_invocations"));
    }

    #[test]
    fn status_and_fill_do_what_the_runtimes_start_does() {
        let dir = tempfile::tempdir().unwrap();
        let db = db_with_table(dir.path());
        let root = dir.path().join("root");
        std::fs::create_dir_all(root.join("memory")).unwrap();
        let store = MarkdownMemoryStore::new(&root);
        for t in ["one", "two", "two"] {
            store
                .append(&Owner::Global, crate::memory::Scope::Archival, t, None)
                .unwrap();
        }
        let live: Vec<RuntimeEntry> = store.runtime_archival(&Owner::Global).unwrap();
        index(&db, &Mock, "__global__", &live[..1]).unwrap();
        index(&db, &Mock, "__global__", &[entry("gone")]).unwrap();
        index(&db, &Other, "elsewhere", &[entry("z")]).unwrap();
        let ready = Configured::Ready(std::sync::Arc::new(Mock));
        let owners = [Owner::Global];
        let s = status(&db, &ready, &store, &owners).unwrap();
        assert_eq!(
            s.owners,
            vec![OwnerStatus {
                agent: "__global__".into(),
                indexed: 1,
                missing: 1,
                orphans: 1,
                other_model: 0
            }]
        );
        assert_eq!((s.to_drop, s.to_embed), (2, 1));
        let off = status(&db, &Configured::Off, &store, &owners).unwrap();
        assert_eq!(
            (off.state, off.to_drop, off.to_embed),
            (IndexState::Off, 0, 0)
        );

        let mut seen = Vec::new();
        let filled = fill(
            &db,
            &Mock,
            &store,
            &owners,
            &AtomicBool::new(false),
            &mut |p| seen.push(p.clone()),
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            (filled.dropped, filled.embedded, filled.cancelled),
            (2, 1, false)
        );
        assert_eq!(seen.last().unwrap().embedded, 1);
        let s = status(&db, &ready, &store, &owners).unwrap();
        assert_eq!((s.owners[0].indexed, s.to_drop, s.to_embed), (2, 0, 0));
        assert!(rows(&db, "elsewhere").unwrap().unwrap().is_empty());

        let cancelled = fill(
            &db,
            &Mock,
            &store,
            &owners,
            &AtomicBool::new(true),
            &mut |_| {},
        )
        .unwrap()
        .unwrap();
        assert!(
            !cancelled.cancelled,
            "nothing left to embed: nothing to cancel"
        );
    }
}
