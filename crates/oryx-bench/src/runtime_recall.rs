//! The `runtime_recall` group: `recall_memory` as the runtime answers it (its keyword search
//! with no embedding provider; otherwise semantic, keyword and recency routes fused by weighted
//! reciprocal rank, top k kept), as the console reproduces it.
//!
//! Quality: recall@1 and recall@5 on tests/embed/eval.json, the same set and per-kind split as
//! the `recall` group, with no provider, with the runtime's `mock` embedder, and with the
//! console's bundled model reached over `POST /v1/embeddings` (what `oryx runtime
//! use-local-embeddings` gives the runtime) at several weights. The runtime recalls archival
//! entries only, so questions whose expected entries are all core are left out (counted).
//!
//! Speed: one fused recall over 100 000 archival entries of the runtime's sqlite layout with
//! their `memory_vectors` rows (mock embedder), against the keyword-only recall of the same
//! store and against reading those rows, in the same run.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use oryx_core::embed::{DIM, MODEL_ID};
use oryx_core::memory::SqliteMemoryStore;
use oryx_core::memory::{Backend, LongTermMemoryStore, MarkdownMemoryStore, Scope};
use oryx_core::names::Owner;
use oryx_core::runtime::embedder::{Configured, Embedder, Mock, OpenAiCompatible};
use oryx_core::runtime::recall::{recall, routes, tuning, Answer, Engine, Settings};
use oryx_core::runtime::{memory_vectors, vector_index};
use serde_json::json;

use crate::{fmt_ms, gen, human, median, ms, round3, Bench};

/// Archival entries of the speed measurement.
const ENTRIES: usize = 100_000;

/// Bump when the speed data's generator changes, so an old copy is rebuilt.
const SPEED_DATA_VERSION: u32 = 1;

/// The provider name `oryx runtime use-local-embeddings` registers.
const LOCAL_PROVIDER: &str = "oryx-local";

const KINDS: [&str; 4] = ["zh", "en", "cross", "overall"];

struct Memory {
    id: String,
    core: bool,
    content: String,
}

struct Query {
    kind: String,
    text: String,
    expect: Vec<String>,
}

fn eval_set() -> (Vec<Memory>, Vec<Query>) {
    let eval = crate::recall::eval_set();
    let memories = eval
        .memories
        .into_iter()
        .map(|(id, scope, content)| Memory {
            id,
            core: scope == Scope::Core,
            content,
        })
        .collect();
    let queries = eval
        .queries
        .into_iter()
        .map(|(kind, text, expect)| Query { kind, text, expect })
        .collect();
    (memories, queries)
}

/// recall@1 and recall@5 per kind, and how many unanswerable questions got an answer.
struct Quality {
    at1: Vec<f64>,
    at5: Vec<f64>,
    answered_none: usize,
    none: usize,
}

impl Quality {
    fn cell(v: &[f64]) -> String {
        KINDS
            .iter()
            .zip(v)
            .map(|(k, r)| format!("{k} {r:.2}"))
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn measured(&self) -> String {
        format!(
            "recall@1: {}; recall@5: {}; unanswerable questions answered {}/{}",
            Self::cell(&self.at1),
            Self::cell(&self.at5),
            self.answered_none,
            self.none
        )
    }
}

/// The eval set as one agent's memory: its store, where its rows live, and which entry each
/// line the runtime returns is.
struct EvalInstall {
    store: Box<dyn LongTermMemoryStore>,
    db: PathBuf,
    owner: Owner,
    memories: Vec<Memory>,
    queries: Vec<Query>,
}

impl EvalInstall {
    /// The runtime's layout under `dir`: `.oryxos/agents/eval/MEMORY.md` (markdown) or rows of
    /// `oryxos.db` (sqlite), and a database with the runtime's whole schema, `memory_vectors`
    /// included, and no rows in it yet.
    fn new(dir: &Path, backend: Backend) -> EvalInstall {
        let _ = std::fs::remove_dir_all(dir);
        let root = dir.join(".oryxos");
        std::fs::create_dir_all(root.join("agents/eval")).unwrap();
        let db = root.join("oryxos.db");
        runtime_db(&db);
        let store: Box<dyn LongTermMemoryStore> = match backend {
            Backend::Sqlite => Box::new(SqliteMemoryStore::new(&db).with_runtime_order(true)),
            _ => Box::new(MarkdownMemoryStore::new(&root).with_runtime_recall(true)),
        };
        let owner = Owner::Agent("eval".into());
        let (memories, queries) = eval_set();
        // One minute apart in the set's order, so the recency route ranks the same way on
        // every run (the last entry of the set is the newest).
        let t0 = chrono::NaiveDate::from_ymd_opt(2026, 1, 5)
            .unwrap()
            .and_hms_opt(9, 0, 0)
            .unwrap();
        for (i, m) in memories.iter().enumerate() {
            let scope = if m.core { Scope::Core } else { Scope::Archival };
            let at = t0 + chrono::Duration::minutes(i as i64);
            store.append(&owner, scope, &m.content, Some(at)).unwrap();
        }
        EvalInstall {
            store,
            db,
            owner,
            memories,
            queries,
        }
    }

    /// Gives every archival entry its row as the runtime's start does (rows of another model
    /// dropped first).
    fn fill(&self, embedder: &dyn Embedder) -> usize {
        let done = vector_index::fill(
            &self.db,
            embedder,
            self.store.as_ref(),
            std::slice::from_ref(&self.owner),
            &AtomicBool::new(false),
            &mut |_| {},
        )
        .unwrap()
        .expect("the database has memory_vectors");
        done.embedded
    }

    /// The eval id of a line the runtime returns: on markdown the raw line (time stamp
    /// included), on sqlite the content.
    fn id_of(&self, text: &str) -> Option<&str> {
        self.memories
            .iter()
            .filter(|m| !m.core && text.ends_with(m.content.as_str()))
            .max_by_key(|m| m.content.len())
            .map(|m| m.id.as_str())
    }

    /// Questions whose expected entries are all core: the runtime cannot answer them.
    fn core_only(&self, q: &Query) -> bool {
        !q.expect.is_empty()
            && q.expect
                .iter()
                .all(|e| self.memories.iter().any(|m| &m.id == e && m.core))
    }

    fn measure(&self, settings: Settings, embedding: &Configured) -> Quality {
        let mut hits: Vec<(&str, bool, bool)> = Vec::new();
        let (mut none, mut answered_none) = (0, 0);
        for q in &self.queries {
            if self.core_only(q) {
                continue;
            }
            let a = recall(
                self.store.as_ref(),
                &self.owner,
                &q.text,
                settings,
                embedding,
                &self.db,
            )
            .unwrap();
            check(&a, embedding);
            if q.kind == "none" {
                none += 1;
                answered_none += usize::from(!a.results.is_empty());
                continue;
            }
            let ids: Vec<&str> = a
                .results
                .iter()
                .filter_map(|r| self.id_of(&r.text))
                .collect();
            let found = |n: usize| ids.iter().take(n).any(|i| q.expect.iter().any(|e| e == i));
            hits.push((q.kind.as_str(), found(1), found(5)));
        }
        let rate = |kind: &str, at5: bool| {
            let sel: Vec<bool> = hits
                .iter()
                .filter(|(k, _, _)| kind == "overall" || *k == kind)
                .map(|&(_, h1, h5)| if at5 { h5 } else { h1 })
                .collect();
            sel.iter().filter(|h| **h).count() as f64 / sel.len().max(1) as f64
        };
        Quality {
            at1: KINDS.iter().map(|k| rate(k, false)).collect(),
            at5: KINDS.iter().map(|k| rate(k, true)).collect(),
            answered_none,
            none,
        }
    }
}

/// A fused answer must come from the semantic route too: a degraded one would measure the
/// other two routes under the embedder's name.
fn check(a: &Answer, embedding: &Configured) {
    match embedding {
        Configured::Off => assert_eq!(a.engine, Engine::Keyword),
        _ => {
            assert_eq!(a.engine, Engine::Fusion);
            assert!(a.degraded.is_none(), "degraded: {:?}", a.degraded);
            assert_eq!(a.semantic.usable, a.semantic.rows, "rows of another model");
        }
    }
}

/// A database as the runtime's first start leaves it (WAL, every table).
fn runtime_db(path: &Path) {
    let conn = rusqlite::Connection::open(path).unwrap();
    conn.query_row("PRAGMA journal_mode=WAL", [], |r| r.get::<_, String>(0))
        .unwrap();
    oryx_core::runtime::schema::create(&conn).unwrap();
}

fn weights_label(s: &Settings) -> String {
    let w = s.weights;
    format!(
        "weights semantic {} / keyword {} / recency {}, top-k {}",
        w[0], w[1], w[2], s.top_k
    )
}

impl Bench {
    pub(crate) fn runtime_recall(&mut self) {
        let base = format!(
            "http://{}",
            crate::endpoint::serve(&self.data.root(), &self.data.db())
        );
        let local: Arc<dyn Embedder> = Arc::new(OpenAiCompatible::new(
            LOCAL_PROVIDER,
            "oryx-local-no-token",
            &base,
            MODEL_ID,
        ));
        self.runtime_recall_quality(&local);
        self.runtime_recall_speed(&local);
    }

    fn quality_row(&mut self, id: &str, what: String, q: &Quality) {
        self.info_row(id, what, q.measured());
    }

    fn runtime_recall_quality(&mut self, local: &Arc<dyn Embedder>) {
        let started = Instant::now();
        let dir = self.data.dir.join("runtime-recall-eval");
        let md = EvalInstall::new(&dir.join("markdown"), Backend::Markdown);
        let archival = md.memories.iter().filter(|m| !m.core).count();
        let left_out: Vec<&Query> = md.queries.iter().filter(|q| md.core_only(q)).collect();
        let left = |kind: &str| left_out.iter().filter(|q| q.kind == kind).count();
        let counted = md.queries.len() - left_out.len();
        let set = format!(
            "tests/embed/eval.json on markdown, the runtime's default backend ({archival} archival \
             entries; {counted} of {} questions: {} whose expected entries are all core are left \
             out, zh {}, en {}, cross {})",
            md.queries.len(),
            left_out.len(),
            left("zh"),
            left("en"),
            left("cross"),
        );
        self.notes.push(format!(
            "runtime_recall quality: the runtime recalls archival entries only, so the {} \
             questions of the eval set whose expected entries are all core (zh {}, en {}, cross \
             {}) are left out rather than counted as misses. A fused answer always lists up to \
             top-k entries (the recency route ranks every entry), so every unanswerable question \
             gets one. The entries are stamped one minute apart in the set's order, so the \
             recency route ranks the set's last entries first.",
            left_out.len(),
            left("zh"),
            left("en"),
            left("cross")
        ));
        let default = Settings::default();

        // (a) No embedding provider: the store's keyword search, the runtime's default.
        let q = md.measure(default, &Configured::Off);
        self.quality_row(
            "runtime_recall.quality.keyword",
            format!("runtime recall with no embedding provider (keyword only), {set}"),
            &q,
        );

        // (b) The runtime's mock embedder.
        assert_eq!(md.fill(&Mock), archival);
        let mock = Configured::Ready(Arc::new(Mock));
        let q = md.measure(default, &mock);
        self.quality_row(
            "runtime_recall.quality.mock",
            format!(
                "runtime fused recall, mock embedder (mock/deterministic), {}, {set}",
                weights_label(&default)
            ),
            &q,
        );

        // (c) The bundled model through the console's endpoint, as the runtime's client calls
        // it. The fill drops the mock rows first, as the runtime's start does on a new model.
        let t = Instant::now();
        assert_eq!(md.fill(local.as_ref()), archival);
        eprintln!(
            "runtime_recall: {archival} entries embedded over HTTP in {}",
            fmt_ms(t.elapsed())
        );
        let local_embedder = local.clone();
        let local = Configured::Ready(local.clone());
        for (id, settings) in [
            ("runtime_recall.quality.local", default),
            (
                "runtime_recall.quality.local_semantic3",
                Settings {
                    weights: [3.0, 1.0, 0.5],
                    ..default
                },
            ),
            (
                "runtime_recall.quality.local_semantic_only",
                Settings {
                    weights: [1.0, 0.0, 0.0],
                    ..default
                },
            ),
        ] {
            let q = md.measure(settings, &local);
            self.quality_row(
                id,
                format!(
                    "runtime fused recall, bundled model over POST /v1/embeddings \
                     ({LOCAL_PROVIDER}/{}), {}, {set}",
                    MODEL_ID,
                    weights_label(&settings)
                ),
                &q,
            );
        }

        self.runtime_recall_proposal(&md, &local);

        // The sqlite backend embeds the bare content, markdown the whole line with its time.
        let sq = EvalInstall::new(&dir.join("sqlite"), Backend::Sqlite);
        assert_eq!(sq.fill(local_embedder.as_ref()), archival);
        let q = sq.measure(default, &local);
        self.quality_row(
            "runtime_recall.quality.local_sqlite",
            format!(
                "the same on the sqlite backend (rows embed the content alone, not the markdown \
                 line with its time), bundled model, {}",
                weights_label(&default)
            ),
            &q,
        );
        let _ = std::fs::remove_dir_all(&dir);
        eprintln!(
            "runtime_recall quality in {:.1} s",
            started.elapsed().as_secs_f64()
        );
    }

    /// The weights `oryx checks propose` would name, with half the answerable questions kept as
    /// recall checks (each expecting its first archival entry) at top-k 5, measured by recall@5 on
    /// the other half against the runtime's default weights.
    fn runtime_recall_proposal(&mut self, md: &EvalInstall, embedding: &Configured) {
        let entries = md.store.runtime_archival(&md.owner).unwrap();
        let asked: Vec<&Query> = md
            .queries
            .iter()
            .filter(|q| q.kind != "none" && !md.core_only(q))
            .collect();
        let routes: Vec<_> = asked
            .iter()
            .map(|q| {
                routes(
                    md.store.as_ref(),
                    &entries,
                    &md.owner,
                    &q.text,
                    embedding,
                    &md.db,
                )
                .unwrap()
                .expect("an embedding provider")
            })
            .collect();
        // Each question's expected archival entries, as positions in its routes.
        let expected: Vec<Vec<usize>> = asked
            .iter()
            .zip(&routes)
            .map(|(q, r)| {
                r.unique
                    .iter()
                    .enumerate()
                    .filter(|(_, e)| {
                        md.id_of(&e.text)
                            .is_some_and(|id| q.expect.iter().any(|x| x == id))
                    })
                    .map(|(i, _)| i)
                    .collect()
            })
            .collect();
        let current = Settings {
            top_k: 5,
            ..Settings::default()
        };
        let kept: Vec<usize> = (0..asked.len()).step_by(2).collect();
        let held: Vec<usize> = (1..asked.len()).step_by(2).collect();
        let cases: Vec<tuning::Case> = kept
            .iter()
            .map(|&i| tuning::Case {
                routes: &routes[i],
                expect: expected[i].iter().take(1).copied().collect(),
            })
            .collect();
        let t = Instant::now();
        let p = tuning::propose(&cases, current);
        let took = t.elapsed();
        // recall@5 over `which`: any expected entry in the top 5.
        let at5 = |which: &[usize], w: &[f64; 3]| {
            let hit = which
                .iter()
                .filter(|&&i| {
                    expected[i]
                        .iter()
                        .any(|&e| tuning::needed_top_k(&routes[i], w, &[e]).is_some_and(|n| n <= 5))
                })
                .count();
            hit as f64 / which.len().max(1) as f64
        };
        let w = p.settings.weights;
        let measured = format!(
            "proposed semantic {} / keyword {} / recency {}, top-k {} ({} settings ranked in {}); \
             recall@5 on the {} held-out questions {:.2} at the default weights, {:.2} at the \
             proposed ones; on the {} kept as checks {:.2} -> {:.2}",
            w[0],
            w[1],
            w[2],
            p.settings.top_k,
            p.tried,
            fmt_ms(took),
            held.len(),
            at5(&held, &current.weights),
            at5(&held, &w),
            kept.len(),
            at5(&kept, &current.weights),
            at5(&kept, &w),
        );
        self.info_row(
            "runtime_recall.proposal",
            format!(
                "recall weights proposed from recall checks (`oryx checks propose`): every other \
                 answerable question of tests/embed/eval.json kept as a check expecting its first \
                 archival entry, from the default weights at top-k 5, bundled model over POST \
                 /v1/embeddings ({LOCAL_PROVIDER}/{MODEL_ID}), markdown"
            ),
            measured,
        );
    }

    fn runtime_recall_speed(&mut self, local: &Arc<dyn Embedder>) {
        let runs = self.scale.runs;
        let dir = self.data.dir.join("runtime-recall-100k");
        let db = dir.join("oryxos.db");
        let owner = Owner::Agent(gen::BIG.into());
        let t = Instant::now();
        let generated = speed_data(&dir, &db, &owner);
        eprintln!(
            "runtime_recall: {} entries with rows {} in {:.1} s",
            human(ENTRIES),
            if generated { "generated" } else { "reused" },
            t.elapsed().as_secs_f64()
        );
        let store = SqliteMemoryStore::new(&db).with_runtime_order(true);
        let mock = Configured::Ready(Arc::new(Mock));
        let kw = gen::RARE_ASCII;
        let settings = Settings::default();
        let (mut results, mut hits, mut usable) = (0, 0, 0);
        let fused = median(runs, || {
            let a = recall(&store, &owner, kw, settings, &mock, &db).unwrap();
            check(&a, &mock);
            results = a.results.len();
            usable = a.semantic.usable;
        });
        assert_eq!(usable, ENTRIES, "every entry has its row");
        let keyword = median(runs, || {
            hits = recall(&store, &owner, kw, settings, &Configured::Off, &db)
                .unwrap()
                .results
                .len();
        });
        let agent = owner.db_key().to_string();
        let read_rows = median(runs, || {
            memory_vectors::rows(&db, &agent).unwrap().unwrap();
        });
        let read_entries = median(runs, || {
            store.runtime_archival(&owner).unwrap();
        });
        let n = human(ENTRIES);
        self.speed_row(
            "runtime_recall.speed_vs_keyword",
            format!(
                "one fused recall `{kw}` over {n} archival entries and their memory_vectors rows \
                 (sqlite backend, mock embedder: 64 floats a row; top {} of {n}) ÷ the keyword-only \
                 recall of the same store (no provider: {} hits, all returned)",
                results,
                human(hits)
            ),
            fused,
            keyword,
        );
        self.speed_row(
            "runtime_recall.speed_vs_reads",
            format!(
                "the same fused recall ÷ its two reads alone: the agent's {n} memory_vectors rows \
                 ({}) and its {n} archival entries ({})",
                fmt_ms(read_rows),
                fmt_ms(read_entries)
            ),
            fused,
            read_rows + read_entries,
        );

        // The same entries with rows of the bundled model's size (512 floats; synthetic unit
        // vectors labelled with its id: the ranking's cost does not depend on what they hold),
        // the query embedded over HTTP.
        let local_dir = self.data.dir.join("runtime-recall-100k-local");
        let local_db = local_dir.join("oryxos.db");
        let t = Instant::now();
        let generated = local_speed_data(&db, &local_dir, &local_db, local.model_id());
        eprintln!(
            "runtime_recall: {n} rows of {DIM} floats {} in {:.1} s",
            if generated { "generated" } else { "reused" },
            t.elapsed().as_secs_f64()
        );
        let store = SqliteMemoryStore::new(&local_db).with_runtime_order(true);
        let local = Configured::Ready(local.clone());
        let fused = median(runs, || {
            let a = recall(&store, &owner, kw, settings, &local, &local_db).unwrap();
            check(&a, &local);
            usable = a.semantic.usable;
        });
        assert_eq!(usable, ENTRIES, "every entry has its row");
        let keyword = median(runs, || {
            recall(&store, &owner, kw, settings, &Configured::Off, &local_db).unwrap();
        });
        self.speed_row(
            "runtime_recall.speed_local_vs_keyword",
            format!(
                "one fused recall `{kw}` over {n} archival entries with rows of the bundled \
                 model's size ({DIM} floats; the query embedded over POST /v1/embeddings) ÷ the \
                 keyword-only recall of the same store"
            ),
            fused,
            keyword,
        );
    }

    /// A ratio to a baseline of the same run, both times shown; no goal (nothing to pass).
    fn speed_row(&mut self, id: &str, what: String, a: Duration, b: Duration) {
        let ratio = ms(a) / ms(b);
        eprintln!("{id}: {} vs {} = {ratio:.2}", fmt_ms(a), fmt_ms(b));
        self.rows.push(json!({
            "id": id,
            "what": what,
            "goal": "—",
            "measured": format!("{} vs {}", fmt_ms(a), fmt_ms(b)),
            "ratio": round3(ratio),
            "pass": null,
            "reproduce": self.reproduce(),
        }));
    }
}

/// The speed measurement's install: one agent with [`ENTRIES`] archival entries in the runtime's
/// `memory_entries` and each its mock row, reused while its stamp matches. Whether it was built.
fn speed_data(dir: &Path, db: &Path, owner: &Owner) -> bool {
    let stamp = format!("v{SPEED_DATA_VERSION} entries={ENTRIES} model=mock/deterministic\n");
    let stamp_path = dir.join("PARAMS");
    if std::fs::read_to_string(&stamp_path).ok().as_deref() == Some(stamp.as_str()) {
        return false;
    }
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).unwrap();
    runtime_db(db);
    {
        let conn = rusqlite::Connection::open(db).unwrap();
        let tx = conn.unchecked_transaction().unwrap();
        {
            let mut ins = tx
                .prepare(
                    "INSERT INTO memory_entries(agent_name, scope, content, created_at) \
                     VALUES (?1, 'ARCHIVAL', ?2, ?3)",
                )
                .unwrap();
            let mut rng = gen::Rng::new(19);
            let t0: i64 = 1_750_000_000_000;
            for i in 0..ENTRIES {
                let content = gen::archival_content(&mut rng, i as u64);
                ins.execute(rusqlite::params![
                    owner.db_key(),
                    content,
                    t0 + i as i64 * 1000
                ])
                .unwrap();
            }
        }
        tx.commit().unwrap();
    }
    let store = SqliteMemoryStore::new(db).with_runtime_order(true);
    vector_index::fill(
        db,
        &Mock,
        &store,
        std::slice::from_ref(owner),
        &AtomicBool::new(false),
        &mut |_| {},
    )
    .unwrap()
    .expect("the database has memory_vectors");
    rusqlite::Connection::open(db)
        .unwrap()
        .execute_batch("PRAGMA wal_checkpoint(TRUNCATE); ANALYZE;")
        .unwrap();
    std::fs::write(&stamp_path, stamp).unwrap();
    true
}

/// The mock install's entries again, with rows of the bundled model: `model`'s id and [`DIM`]
/// floats each, otherwise the mock rows' values. Whether it was built.
fn local_speed_data(mock_db: &Path, dir: &Path, db: &Path, model: &str) -> bool {
    let stamp = format!("v{SPEED_DATA_VERSION} entries={ENTRIES} model={model} dim={DIM}\n");
    let stamp_path = dir.join("PARAMS");
    if std::fs::read_to_string(&stamp_path).ok().as_deref() == Some(stamp.as_str()) {
        return false;
    }
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).unwrap();
    runtime_db(db);
    let conn = rusqlite::Connection::open(db).unwrap();
    conn.execute("ATTACH ?1 AS mock", [mock_db.to_str().unwrap()])
        .unwrap();
    let tx = conn.unchecked_transaction().unwrap();
    tx.execute_batch("INSERT INTO memory_entries SELECT * FROM mock.memory_entries")
        .unwrap();
    {
        let mut read = tx
            .prepare(
                "SELECT entry_hash, agent_name, content, entry_time, created_at \
                 FROM mock.memory_vectors ORDER BY id",
            )
            .unwrap();
        let mut ins = tx
            .prepare(
                "INSERT INTO memory_vectors (entry_hash, agent_name, content, embedding, dim, \
                 embedding_model, entry_time, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            )
            .unwrap();
        let mut rows = read.query([]).unwrap();
        let mut rng = gen::Rng::new(23);
        let mut n = 0;
        while let Some(r) = rows.next().unwrap() {
            let mut v: Vec<f32> = (0..DIM)
                .map(|_| (rng.next() >> 40) as f32 / (1u64 << 24) as f32 - 0.5)
                .collect();
            let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
            v.iter_mut().for_each(|x| *x /= norm);
            ins.execute(rusqlite::params![
                r.get::<_, String>(0).unwrap(),
                r.get::<_, String>(1).unwrap(),
                r.get::<_, String>(2).unwrap(),
                memory_vectors::encode(&v),
                DIM as i64,
                model,
                r.get::<_, Option<i64>>(3).unwrap(),
                r.get::<_, i64>(4).unwrap(),
            ])
            .unwrap();
            n += 1;
        }
        assert_eq!(n, ENTRIES);
    }
    tx.commit().unwrap();
    conn.execute_batch("DETACH mock; PRAGMA wal_checkpoint(TRUNCATE); ANALYZE;")
        .unwrap();
    std::fs::write(&stamp_path, stamp).unwrap();
    true
}
