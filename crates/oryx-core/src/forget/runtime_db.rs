//! The runtime's database (`oryxos.db`): every row holding a text to forget, and the stale
//! copies SQLite left in the free space of the file and its WAL.
//!
//! Erasing deletes the `memory_vectors` rows (an index the runtime rebuilds from its memory) and
//! masks the text everywhere else, JSON kept valid (the runtime reads its tool calls and
//! conversations back). `memory_entries` is the sqlite backend's memory, deleted through the
//! memory store by another step of the forget: reported here, never touched. Sessions are left
//! alone while the runtime runs: it re-reads a session, archived ones included, and writes it
//! back after each turn (`AgentService.process`, `JpaSessionManager.saveIfUnchanged`). All the
//! changes are one transaction with `secure_delete` on, then the WAL is checkpointed and
//! truncated and the file compacted, so no page of either file keeps the bytes.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use rusqlite::{params_from_iter, Connection, Transaction, TransactionBehavior};

use super::json_text::{redact, stored_forms};
use super::{Copies, Erased, Left, Needles, Place, Why, FORGOTTEN};
use crate::db;
use crate::error::{DbContext, Result};
use crate::runtime::erase::{compact, in_file, in_files, live_holders, wal_path};
use crate::runtime::vector_index::{scrub_wal, Checkpoint};

/// What the caller knows of the runtime.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EraseOptions {
    /// Whether the runtime's process runs (it holds its sessions then).
    pub runtime_running: bool,
}

/// The sqlite backend's memory: the memory store's to delete.
const MEMORY_ENTRIES: &str = "memory_entries";
const MEMORY_VECTORS: &str = "memory_vectors";
const SESSIONS: &str = "sessions";

/// The status `JpaSessionManager.getOrCreate` gives a session; `archive` sets `archived`.
const ACTIVE: &str = "active";

/// Where a table's copies are listed.
fn place_of(table: &str) -> Place {
    match table {
        MEMORY_VECTORS => Place::RuntimeVectors,
        "tool_invocations" => Place::RuntimeToolCalls,
        SESSIONS => Place::RuntimeSessions,
        MEMORY_ENTRIES => Place::Memory,
        _ => Place::RuntimeOther,
    }
}

/// A table of the database with its columns.
struct Table {
    name: String,
    columns: Vec<String>,
    /// A virtual table, or one of the tables a virtual table keeps its data in: its rows are
    /// not the console's to rewrite one by one.
    virtual_data: bool,
}

fn tables(conn: &Connection, db_path: &Path) -> Result<Vec<Table>> {
    let mut stmt = conn
        .prepare(
            "SELECT name, coalesce(sql, '') FROM sqlite_schema WHERE type = 'table' \
             AND name NOT LIKE 'sqlite_%' ORDER BY name",
        )
        .at_db(db_path)?;
    let rows: Vec<(String, String)> = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .at_db(db_path)?
        .collect::<rusqlite::Result<_>>()
        .at_db(db_path)?;
    let virtuals: Vec<&str> = rows
        .iter()
        .filter(|(_, sql)| sql.to_ascii_uppercase().starts_with("CREATE VIRTUAL"))
        .map(|(n, _)| n.as_str())
        .collect();
    let mut out = Vec::new();
    for (name, _) in &rows {
        let virtual_data = virtuals
            .iter()
            .any(|v| name == v || name.starts_with(&format!("{v}_")));
        out.push(Table {
            columns: db::table_columns(conn, name).at_db(db_path)?,
            name: name.clone(),
            virtual_data,
        });
    }
    Ok(out)
}

fn quoted(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// SQL true when `column` holds one of the `n` forms bound as `?1..?n`, compared as bytes (a
/// BLOB or TEXT value alike).
fn holds(column: &str, n: usize) -> String {
    let c = quoted(column);
    let any = (1..=n)
        .map(|i| format!("instr(CAST({c} AS BLOB), CAST(?{i} AS BLOB)) > 0"))
        .collect::<Vec<_>>()
        .join(" OR ");
    format!("coalesce(({any}), 0)")
}

/// SQL true when any column of the row holds a form.
fn row_holds(table: &Table, n: usize) -> String {
    table
        .columns
        .iter()
        .map(|c| holds(c, n))
        .collect::<Vec<_>>()
        .join(" OR ")
}

/// Rows of `table` holding a form, per column (one query for the table).
fn counts(
    conn: &Connection,
    db_path: &Path,
    table: &Table,
    forms: &[String],
) -> Result<Vec<(String, usize)>> {
    if table.columns.is_empty() {
        return Ok(Vec::new());
    }
    let sums = table
        .columns
        .iter()
        .map(|c| {
            format!(
                "coalesce(sum(CASE WHEN {} THEN 1 ELSE 0 END), 0)",
                holds(c, forms.len())
            )
        })
        .collect::<Vec<_>>()
        .join(", ");
    let sql = format!("SELECT {sums} FROM {}", quoted(&table.name));
    let values: Vec<i64> = conn
        .query_row(&sql, params_from_iter(forms), |r| {
            (0..table.columns.len()).map(|i| r.get(i)).collect()
        })
        .at_db(db_path)?;
    Ok(table
        .columns
        .iter()
        .zip(values)
        .filter(|(_, n)| *n > 0)
        .map(|(c, n)| (c.clone(), n as usize))
        .collect())
}

fn copies(place: Place, path: &Path, count: usize, detail: Option<String>) -> Copies {
    Copies::new(place, path.to_path_buf(), count, detail)
}

fn left(
    place: Place,
    path: &Path,
    count: usize,
    (why, arg): (Why, Option<String>),
    reason: impl Into<String>,
) -> Left {
    Left {
        place,
        path: path.to_path_buf(),
        count,
        reason: reason.into(),
        why,
        arg,
    }
}

/// Every copy of the needles in the runtime's database `db`: rows per table and column, and
/// stale copies in the free space of the file and its WAL. Reads only; a missing database holds
/// none.
pub fn find(db: &Path, needles: &Needles) -> Result<Vec<Copies>> {
    if needles.is_empty() || !db.is_file() {
        return Ok(Vec::new());
    }
    let Some(conn) = db::open_existing(db)? else {
        return Ok(Vec::new());
    };
    let forms = stored_forms(needles);
    let mut out = Vec::new();
    for table in tables(&conn, db)? {
        for (column, n) in counts(&conn, db, &table, &forms)? {
            out.push(copies(
                place_of(&table.name),
                db,
                n,
                Some(format!("{}.{column}", table.name)),
            ));
        }
    }
    out.extend(stale(&conn, db, needles)?);
    Ok(out)
}

/// Per file (the database, its WAL), the needles whose bytes it holds while no live row holds
/// them: copies in free space. The stale copies of a needle some row still holds cannot be told
/// apart from the live one, so they are not counted (an erase compacts them away all the same).
fn stale(conn: &Connection, db: &Path, needles: &Needles) -> Result<Vec<Copies>> {
    let forms = stored_forms(needles);
    let refs: Vec<&str> = forms.iter().map(String::as_str).collect();
    let mut out = Vec::new();
    for path in [db.to_path_buf(), wal_path(db)] {
        let found = in_file(&path, &refs)?;
        if found.is_empty() {
            continue;
        }
        let live: Vec<&str> = live_holders(conn, db, &found)?
            .into_iter()
            .flat_map(|(_, held)| held)
            .collect();
        let n = needles
            .texts()
            .iter()
            .filter(|t| {
                let mine = stored_forms(&Needles::new([(*t).clone()]));
                mine.iter().any(|f| found.contains(&f.as_str()))
                    && !mine.iter().any(|f| live.contains(&f.as_str()))
            })
            .count();
        if n > 0 {
            out.push(copies(Place::DatabaseFreeSpace, &path, n, None));
        }
    }
    Ok(out)
}

/// Erases the needles from the runtime's database `db`: `memory_vectors` rows holding one are
/// deleted, every other value holding one is masked with [`FORGOTTEN`] (JSON kept valid),
/// `memory_entries` is left to the memory store, sessions are left while the runtime runs.
/// One transaction, all or nothing (a cancel between tables rolls it back); then the WAL is
/// emptied and the file compacted so neither keeps the bytes. A database without a needle is
/// not touched.
pub fn erase(
    db: &Path,
    needles: &Needles,
    opts: &EraseOptions,
    cancel: &AtomicBool,
) -> Result<Erased> {
    let found = find(db, needles)?;
    if found.is_empty() {
        return Ok(Erased::default());
    }
    let Some(conn) = db::open_existing(db)? else {
        return Ok(Erased::default());
    };
    let forms = stored_forms(needles);
    conn.execute_batch("PRAGMA secure_delete = ON").at_db(db)?;
    let tx = Transaction::new_unchecked(&conn, TransactionBehavior::Immediate).at_db(db)?;
    let mut done = Erased::default();
    for table in tables(&tx, db)? {
        if cancel.load(Ordering::Relaxed) {
            drop(tx);
            return Ok(cancelled(&found));
        }
        if table.name == MEMORY_ENTRIES {
            continue;
        }
        let holding = counts(&tx, db, &table, &forms)?;
        if holding.is_empty() {
            continue;
        }
        let place = place_of(&table.name);
        if table.virtual_data {
            for (column, n) in holding {
                done.left.push(left(
                    place,
                    db,
                    n,
                    (Why::VirtualTable, Some(format!("{}.{column}", table.name))),
                    format!(
                        "{}.{column} is a virtual table's data, not rewritten row by row",
                        table.name
                    ),
                ));
            }
        } else if table.name == MEMORY_VECTORS {
            let sql = format!(
                "DELETE FROM {} WHERE {}",
                quoted(&table.name),
                row_holds(&table, forms.len())
            );
            tx.execute(&sql, params_from_iter(&forms)).at_db(db)?;
            for (column, n) in holding {
                done.erased.push(copies(
                    place,
                    db,
                    n,
                    Some(format!("{}.{column}", table.name)),
                ));
            }
        } else if table.name == SESSIONS && opts.runtime_running {
            done.left.extend(held_sessions(&tx, db, &table, &forms)?);
        } else {
            mask(&tx, db, &table, &holding, needles, &forms, &mut done)?;
        }
    }
    if cancel.load(Ordering::Relaxed) {
        drop(tx);
        return Ok(cancelled(&found));
    }
    tx.commit().at_db(db)?;
    let changed: usize = done.erased.iter().map(|c| c.count).sum();
    let stale_before: usize = found
        .iter()
        .filter(|c| c.place == Place::DatabaseFreeSpace)
        .map(|c| c.count)
        .sum();
    if changed > 0 || stale_before > 0 {
        clear_files(&conn, db, needles, changed, &mut done)?;
    }
    Ok(done)
}

/// The sessions holding a needle while the runtime runs, grouped by status. Not only active
/// ones: the runtime takes any session id a message is sent to (`SessionApiController.send`)
/// and `getOrCreate` reopens an archived session of the same channel, user and agent, so an
/// archived session is written again by its next turn too.
fn held_sessions(
    conn: &Connection,
    db: &Path,
    table: &Table,
    forms: &[String],
) -> Result<Vec<Left>> {
    let has_status = table.columns.iter().any(|c| c == "status");
    let status = if has_status { "status" } else { "''" };
    let sql = format!(
        "SELECT {status}, count(*) FROM {} WHERE {} GROUP BY 1 ORDER BY 1",
        quoted(&table.name),
        row_holds(table, forms.len())
    );
    let mut stmt = conn.prepare(&sql).at_db(db)?;
    let groups: Vec<(String, i64)> = stmt
        .query_map(params_from_iter(forms), |r| {
            Ok((
                r.get::<_, Option<String>>(0)?.unwrap_or_default(),
                r.get(1)?,
            ))
        })
        .at_db(db)?
        .collect::<rusqlite::Result<_>>()
        .at_db(db)?;
    Ok(groups
        .into_iter()
        .map(|(status, n)| {
            let reason = if status == ACTIVE {
                "the running runtime holds this session; forget again after it stops".to_string()
            } else {
                format!(
                    "the running runtime can write this {status} session again (a new message \
                     to it reopens it); forget again after it stops"
                )
            };
            left(
                Place::RuntimeSessions,
                db,
                n as usize,
                (Why::SessionHeld, Some(status)),
                reason,
            )
        })
        .collect())
}

/// Masks the needles in each holding column of `table`, row by row.
fn mask(
    tx: &Connection,
    db: &Path,
    table: &Table,
    holding: &[(String, usize)],
    needles: &Needles,
    forms: &[String],
    done: &mut Erased,
) -> Result<()> {
    let place = place_of(&table.name);
    let name = quoted(&table.name);
    for (column, n) in holding {
        let col = quoted(column);
        let detail = format!("{}.{column}", table.name);
        let sql = format!(
            "SELECT rowid, {col} FROM {name} WHERE typeof({col}) = 'text' AND {}",
            holds(column, forms.len())
        );
        let rows: Vec<(i64, String)> = {
            let mut stmt = tx.prepare(&sql).at_db(db)?;
            let rows = stmt
                .query_map(params_from_iter(forms), |r| Ok((r.get(0)?, r.get(1)?)))
                .at_db(db)?;
            rows.collect::<rusqlite::Result<_>>().at_db(db)?
        };
        let not_text = n.saturating_sub(rows.len());
        let update = format!("UPDATE {name} SET {col} = ?1 WHERE rowid = ?2");
        let (mut masked, mut kept) = (0, 0);
        for (rowid, value) in rows {
            let Some(new) = redact(&value, needles, FORGOTTEN) else {
                kept += 1;
                continue;
            };
            tx.execute(&update, rusqlite::params![new, rowid])
                .at_db(db)?;
            masked += 1;
            if forms.iter().any(|f| new.contains(f.as_str())) {
                kept += 1;
            }
        }
        if masked > 0 {
            done.erased
                .push(copies(place, db, masked, Some(detail.clone())));
        }
        if kept > 0 {
            done.left.push(left(
                place,
                db,
                kept,
                (Why::JsonSyntax, Some(detail.clone())),
                format!(
                    "in {detail} the text is part of the JSON's syntax or escapes, not of its \
                     strings: left so the JSON stays valid"
                ),
            ));
        }
        if not_text > 0 {
            done.left.push(left(
                place,
                db,
                not_text,
                (Why::Binary, Some(detail.clone())),
                format!("in {detail} the text is inside a binary value, not masked"),
            ));
        }
    }
    Ok(())
}

/// What a cancelled erase says: every copy found stays (the memory store's rows are not its).
fn cancelled(found: &[Copies]) -> Erased {
    Erased {
        erased: Vec::new(),
        left: found
            .iter()
            .filter(|c| c.place != Place::Memory)
            .map(|c| Left {
                place: c.place,
                path: c.path.clone(),
                count: c.count,
                reason: format!(
                    "cancelled: nothing in the runtime's database was changed{}",
                    c.detail
                        .as_deref()
                        .map(|d| format!(" ({d})"))
                        .unwrap_or_default()
                ),
                why: Why::Cancelled,
                arg: c.detail.clone(),
            })
            .collect(),
    }
}

/// After the commit: the WAL checkpointed and truncated, then the file compacted when it may
/// keep stale copies. The copies of the changed rows' old values may sit in free space beside a
/// live copy elsewhere (a held session, a memory entry) and cannot be told apart, so any change
/// compacts when the bytes are still in the files.
fn clear_files(
    conn: &Connection,
    db: &Path,
    needles: &Needles,
    changed: usize,
    done: &mut Erased,
) -> Result<()> {
    if let Checkpoint::Partial { frames, copied } = scrub_wal(conn, db)? {
        done.left.push(left(
            Place::DatabaseFreeSpace,
            &wal_path(db),
            changed,
            (Why::WalPartial, None),
            format!(
                "the runtime was reading its database: {copied} of {frames} WAL frames were \
                 checkpointed, the rest (which may hold the text) stays until its next \
                 checkpoint; forget again then"
            ),
        ));
        return Ok(());
    }
    let forms = stored_forms(needles);
    let refs: Vec<&str> = forms.iter().map(String::as_str).collect();
    if in_files(db, &refs)?.is_empty() {
        return Ok(());
    }
    let stale_needles: usize = stale(conn, db, needles)?
        .iter()
        .map(|c| c.count)
        .max()
        .unwrap_or(0);
    if let Err(e) = compact(conn, db) {
        done.left.push(left(
            Place::DatabaseFreeSpace,
            db,
            stale_needles.max(changed.min(1)),
            (Why::NotCompacted, Some(e.to_string())),
            format!(
                "the database could not be compacted ({e}); stale copies may stay in its free \
                 space until it is"
            ),
        ));
        return Ok(());
    }
    let remaining: usize = stale(conn, db, needles)?.iter().map(|c| c.count).sum();
    if remaining > 0 {
        done.left.push(left(
            Place::DatabaseFreeSpace,
            db,
            remaining,
            (Why::StillFound, None),
            "copies remain in free space after the compaction",
        ));
    } else if stale_needles > 0 {
        done.erased
            .push(copies(Place::DatabaseFreeSpace, db, stale_needles, None));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::schema;
    use std::path::PathBuf;

    const SECRET: &str = "部署密钥 sk-forget-7q2xk9";
    /// Planted then deleted before the forget: only in free space.
    const OLD: &str = "old-token-zz81-gone";

    fn jstr(s: &str) -> String {
        serde_json::to_string(s).unwrap()
    }

    /// A message as the runtime's Jackson mapper writes `Message` (every field, compact).
    fn message(role: &str, content: &str, tool: Option<&str>, calls: &str) -> String {
        let tool = tool.map(jstr).unwrap_or_else(|| "null".into());
        format!(
            "{{\"role\":{},\"content\":{},\"toolName\":{tool},\"toolCallId\":null,\"toolCalls\":[{calls}]}}",
            jstr(role),
            jstr(content)
        )
    }

    /// A conversation where the user says `said` and the model saves it with `save_memory`.
    fn conversation(said: &str) -> String {
        let args = format!("{{\"content\":{},\"scope\":\"archival\"}}", jstr(said));
        let call = format!(
            "{{\"id\":\"mock-call-1\",\"name\":\"save_memory\",\"argumentsJson\":{}}}",
            jstr(&args)
        );
        format!(
            "[{},{},{},{}]",
            message("user", said, None, ""),
            message("assistant", "", None, &call),
            message("tool", "\"已记住\"", Some("save_memory"), ""),
            message(
                "assistant",
                "好的，已经按你的要求记录并处理完成。",
                None,
                ""
            )
        )
    }

    fn call(conn: &Connection, session: &str, tool: &str, input: &str, result: Option<&str>) {
        conn.execute(
            "INSERT INTO tool_invocations (session_id, tool_name, input_json, result_json, \
             success, duration_ms, created_at) VALUES (?1, ?2, ?3, ?4, 1, 7, 1767225600000)",
            rusqlite::params![session, tool, input, result],
        )
        .unwrap();
    }

    fn session(conn: &Connection, id: &str, status: &str, messages: &str) {
        conn.execute(
            "INSERT INTO sessions (session_id, profile_name, channel, user_id, messages_json, \
             status, created_at) VALUES (?1, 'assistant', 'web', 'default', ?2, ?3, 1767225600000)",
            rusqlite::params![id, messages, status],
        )
        .unwrap();
    }

    fn vector(conn: &Connection, content: &str) {
        conn.execute(
            "INSERT INTO memory_vectors (entry_hash, agent_name, content, embedding, dim, \
             embedding_model, entry_time, created_at) VALUES (hex(randomblob(32)), 'assistant', \
             ?1, zeroblob(64), 16, 'mock', 0, 0)",
            [content],
        )
        .unwrap();
    }

    /// The runtime's database after a conversation that saved the secret, with later rows that
    /// split the pages the secret's rows were on.
    fn planted(dir: &Path) -> PathBuf {
        let path = dir.join("oryxos.db");
        let conn = Connection::open(&path).unwrap();
        conn.query_row("PRAGMA journal_mode = WAL", [], |_| Ok(()))
            .unwrap();
        schema::create(&conn).unwrap();
        let said = format!("记住：{SECRET}");
        session(
            &conn,
            "web:default:assistant",
            "archived",
            &conversation(&said),
        );
        session(&conn, "cli:wang:assistant", ACTIVE, &conversation(&said));
        session(
            &conn,
            "web:other:assistant",
            ACTIVE,
            &conversation("喜欢绿茶"),
        );
        let args = format!("{{\"content\":{},\"scope\":\"archival\"}}", jstr(&said));
        call(
            &conn,
            "web:default:assistant",
            "save_memory",
            &args,
            Some("\"已记住\""),
        );
        let hits = format!("- [2026-01-01 10:00:00] {said}\n- [2026-01-02 09:00:00] 喜欢绿茶");
        call(
            &conn,
            "web:default:assistant",
            "recall_memory",
            "{\"keyword\":\"密钥\"}",
            Some(&jstr(&hits)),
        );
        call(
            &conn,
            "web:other:assistant",
            "save_memory",
            "{\"content\":\"喜欢绿茶\"}",
            Some("\"已记住\""),
        );
        conn.execute(
            "INSERT INTO llm_calls (session_id, provider, model, success, error_message, \
             duration_ms, created_at) VALUES ('s', 'openai', 'm', 0, ?1, 5, 0)",
            [format!("rejected prompt containing {SECRET}")],
        )
        .unwrap();
        vector(&conn, &format!("- [2026-01-01 10:00:00] {said}"));
        vector(&conn, OLD);
        conn.execute(
            "INSERT INTO memory_entries (agent_name, scope, content, created_at) \
             VALUES ('assistant', 'ARCHIVAL', ?1, 0), ('assistant', 'CORE', '喜欢绿茶', 0)",
            [format!("- [2026-01-01 10:00:00] {said}")],
        )
        .unwrap();
        for i in 0..200 {
            vector(
                &conn,
                &format!("- [2026-01-02 03:04:05] 用户的第 {i} 条记忆：偏好与习惯"),
            );
            call(
                &conn,
                "web:other:assistant",
                "recall_memory",
                &format!("{{\"keyword\":\"习惯 {i}\"}}"),
                Some(&jstr(&format!("- 用户的第 {i} 条记忆：偏好与习惯"))),
            );
        }
        conn.execute("DELETE FROM memory_vectors WHERE content = ?1", [OLD])
            .unwrap();
        conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
            .unwrap();
        path
    }

    fn needles(t: &[&str]) -> Needles {
        Needles::new(t.iter().map(|s| s.to_string()))
    }

    fn count_of(found: &[Copies], detail: &str) -> usize {
        found
            .iter()
            .filter(|c| c.detail.as_deref() == Some(detail))
            .map(|c| c.count)
            .sum()
    }

    /// Every row of every table, each as the debug text of its values, sorted.
    fn dump(db: &Path) -> Vec<String> {
        let conn = Connection::open(db).unwrap();
        let names: Vec<String> = conn
            .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .map(|r| r.unwrap())
            .collect();
        let mut rows = Vec::new();
        for t in names {
            let mut stmt = conn
                .prepare(&format!("SELECT * FROM {}", quoted(&t)))
                .unwrap();
            let n = stmt.column_count();
            let mut q = stmt.query([]).unwrap();
            while let Some(r) = q.next().unwrap() {
                let values: Vec<rusqlite::types::Value> =
                    (0..n).map(|i| r.get(i).unwrap()).collect();
                rows.push(format!("{t}: {values:?}"));
            }
        }
        rows.sort();
        rows
    }

    /// The rows holding neither the text nor its mask.
    fn others(db: &Path, text: &str) -> Vec<String> {
        let escaped = format!("{:?}", text);
        let escaped = &escaped[1..escaped.len() - 1];
        dump(db)
            .into_iter()
            .filter(|r| !r.contains(escaped) && !r.contains(FORGOTTEN) && !r.contains("sk-forget"))
            .collect()
    }

    fn file_hits(path: &Path, text: &str) -> usize {
        std::fs::read(path)
            .map(|b| memchr::memmem::find_iter(&b, text.as_bytes()).count())
            .unwrap_or(0)
    }

    fn files_hits(db: &Path, text: &str) -> usize {
        file_hits(db, text) + file_hits(&wal_path(db), text)
    }

    /// Every value of `table.column` masked parses as JSON and holds the mask, not the text.
    fn assert_masked_json(db: &Path, table: &str, column: &str) {
        let conn = Connection::open(db).unwrap();
        let values: Vec<String> = conn
            .prepare(&format!(
                "SELECT {column} FROM {table} WHERE {column} LIKE '%[forgotten]%'"
            ))
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .map(|r| r.unwrap())
            .collect();
        assert!(!values.is_empty(), "{table}.{column}");
        for v in values {
            let parsed: serde_json::Value = serde_json::from_str(&v).unwrap();
            assert!(!v.contains("sk-forget"), "{v}");
            assert!(parsed.to_string().contains(FORGOTTEN));
        }
    }

    #[test]
    fn find_lists_each_place_with_its_rows_and_the_free_space() {
        let dir = tempfile::tempdir().unwrap();
        let db = planted(dir.path());
        let found = find(&db, &needles(&[SECRET, OLD])).unwrap();
        assert_eq!(count_of(&found, "sessions.messages_json"), 2);
        assert_eq!(count_of(&found, "tool_invocations.input_json"), 1);
        assert_eq!(count_of(&found, "tool_invocations.result_json"), 1);
        assert_eq!(count_of(&found, "memory_vectors.content"), 1);
        assert_eq!(count_of(&found, "memory_entries.content"), 1);
        assert_eq!(count_of(&found, "llm_calls.error_message"), 1);
        let place = |d: &str| {
            found
                .iter()
                .find(|c| c.detail.as_deref() == Some(d))
                .unwrap()
                .place
        };
        assert_eq!(place("sessions.messages_json"), Place::RuntimeSessions);
        assert_eq!(
            place("tool_invocations.input_json"),
            Place::RuntimeToolCalls
        );
        assert_eq!(place("memory_vectors.content"), Place::RuntimeVectors);
        assert_eq!(place("memory_entries.content"), Place::Memory);
        assert_eq!(place("llm_calls.error_message"), Place::RuntimeOther);
        // The deleted row's text lives on in the free space the page splits left.
        let free: Vec<&Copies> = found
            .iter()
            .filter(|c| c.place == Place::DatabaseFreeSpace)
            .collect();
        assert_eq!(free.len(), 1, "{found:?}");
        assert_eq!((free[0].count, free[0].path.as_path()), (1, db.as_path()));
        assert_eq!(found.len(), 7, "{found:?}");
        assert!(find(&dir.path().join("missing.db"), &needles(&[SECRET]))
            .unwrap()
            .is_empty());
    }

    #[test]
    fn erase_masks_every_row_and_leaves_the_bytes_only_in_memory_entries() {
        let dir = tempfile::tempdir().unwrap();
        let db = planted(dir.path());
        let before = others(&db, SECRET);
        let done = erase(
            &db,
            &needles(&[SECRET, OLD]),
            &EraseOptions::default(),
            &AtomicBool::new(false),
        )
        .unwrap();
        assert!(done.left.is_empty(), "{done:?}");
        assert_eq!(count_of(&done.erased, "sessions.messages_json"), 2);
        assert_eq!(count_of(&done.erased, "tool_invocations.input_json"), 1);
        assert_eq!(count_of(&done.erased, "tool_invocations.result_json"), 1);
        assert_eq!(count_of(&done.erased, "memory_vectors.content"), 1);
        assert_eq!(count_of(&done.erased, "llm_calls.error_message"), 1);
        assert_eq!(count_of(&done.erased, "memory_entries.content"), 0);
        assert!(done
            .erased
            .iter()
            .any(|c| c.place == Place::DatabaseFreeSpace && c.count >= 1));
        for (t, c) in [
            ("sessions", "messages_json"),
            ("tool_invocations", "input_json"),
            ("tool_invocations", "result_json"),
        ] {
            assert_masked_json(&db, t, c);
        }
        // The tool call's arguments inside the session stay JSON with the mask in them.
        let conn = Connection::open(&db).unwrap();
        let m: String = conn
            .query_row(
                "SELECT messages_json FROM sessions WHERE session_id = 'cli:wang:assistant'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        let v: serde_json::Value = serde_json::from_str(&m).unwrap();
        assert_eq!(v[0]["content"], "记住：[forgotten]");
        let args = v[1]["toolCalls"][0]["argumentsJson"].as_str().unwrap();
        let args: serde_json::Value = serde_json::from_str(args).unwrap();
        assert_eq!(args["content"], "记住：[forgotten]");
        let n: i64 = conn
            .query_row("SELECT count(*) FROM memory_vectors", [], |r| r.get(0))
            .unwrap();
        assert_eq!(n, 200);
        drop(conn);
        // Only the memory entry (the store's to delete) keeps the text, once, in the file.
        assert_eq!(files_hits(&db, SECRET), 1);
        assert_eq!(files_hits(&db, OLD), 0);
        assert_eq!(others(&db, SECRET), before);
        assert!(find(&db, &needles(&[SECRET]))
            .unwrap()
            .iter()
            .all(|c| c.place == Place::Memory));
    }

    #[test]
    fn json_another_writer_kept_ascii_only_is_found_and_masked() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("oryxos.db");
        let conn = Connection::open(&path).unwrap();
        schema::create(&conn).unwrap();
        // As Python's json.dumps writes it: every non-ASCII character as \uXXXX.
        let text = "住址：上海市 sk-forget-9";
        let ascii = serde_json::to_string(&serde_json::json!({ "content": text }))
            .unwrap()
            .chars()
            .map(|c| {
                if c.is_ascii() {
                    c.to_string()
                } else {
                    format!("\\u{:04x}", c as u32)
                }
            })
            .collect::<String>();
        call(&conn, "s", "save_memory", &ascii, None);
        drop(conn);
        let n = needles(&["住址：上海市"]);
        let found = find(&path, &n).unwrap();
        assert_eq!(
            count_of(&found, "tool_invocations.input_json"),
            1,
            "{found:?}"
        );
        let done = erase(
            &path,
            &n,
            &EraseOptions {
                runtime_running: false,
            },
            &AtomicBool::new(false),
        )
        .unwrap();
        assert_eq!(count_of(&done.erased, "tool_invocations.input_json"), 1);
        let conn = Connection::open(&path).unwrap();
        let v: String = conn
            .query_row("SELECT input_json FROM tool_invocations", [], |r| r.get(0))
            .unwrap();
        let parsed: serde_json::Value = serde_json::from_str(&v).unwrap();
        assert_eq!(parsed["content"], "[forgotten] sk-forget-9");
        assert!(find(&path, &n).unwrap().is_empty());
    }

    #[test]
    fn while_the_runtime_runs_its_sessions_are_left_and_said() {
        let dir = tempfile::tempdir().unwrap();
        let db = planted(dir.path());
        let sessions_before: Vec<String> = dump(&db)
            .into_iter()
            .filter(|r| r.starts_with("sessions:"))
            .collect();
        let done = erase(
            &db,
            &needles(&[SECRET]),
            &EraseOptions {
                runtime_running: true,
            },
            &AtomicBool::new(false),
        )
        .unwrap();
        assert_eq!(count_of(&done.erased, "sessions.messages_json"), 0);
        assert_eq!(count_of(&done.erased, "tool_invocations.input_json"), 1);
        let held: Vec<&Left> = done.left.iter().collect();
        assert_eq!(held.len(), 2, "{done:?}");
        assert!(held
            .iter()
            .all(|l| l.place == Place::RuntimeSessions && l.count == 1));
        assert!(held.iter().any(|l| l.reason.contains("holds this session")));
        let sessions_after: Vec<String> = dump(&db)
            .into_iter()
            .filter(|r| r.starts_with("sessions:"))
            .collect();
        assert_eq!(sessions_after, sessions_before);
        // Two sessions with the text in the user's words and in the tool call's arguments, and
        // the memory entry: nothing else, and no stale copy.
        assert_eq!(files_hits(&db, SECRET), 2 * 2 + 1);
    }

    #[test]
    fn a_text_found_nowhere_changes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let db = planted(dir.path());
        let bytes = std::fs::read(&db).unwrap();
        let done = erase(
            &db,
            &needles(&["nowhere-in-this-install-41"]),
            &EraseOptions::default(),
            &AtomicBool::new(false),
        )
        .unwrap();
        assert_eq!(done, Erased::default());
        assert_eq!(std::fs::read(&db).unwrap(), bytes);
        assert_eq!(
            std::fs::read(wal_path(&db)).unwrap_or_default(),
            Vec::<u8>::new()
        );
    }

    #[test]
    fn a_cancelled_erase_changes_no_row() {
        let dir = tempfile::tempdir().unwrap();
        let db = planted(dir.path());
        let before = dump(&db);
        let done = erase(
            &db,
            &needles(&[SECRET]),
            &EraseOptions::default(),
            &AtomicBool::new(true),
        )
        .unwrap();
        assert!(done.erased.is_empty());
        assert!(!done.left.is_empty());
        assert!(done.left.iter().all(|l| l.reason.starts_with("cancelled")));
        assert!(done.left.iter().all(|l| l.place != Place::Memory));
        assert_eq!(dump(&db), before);
    }

    #[test]
    fn a_text_stored_escaped_is_found_and_masked_through_the_json() {
        let dir = tempfile::tempdir().unwrap();
        let db = planted(dir.path());
        let quoted_secret = "pin \"4471\"\nline two";
        let conn = Connection::open(&db).unwrap();
        let args = format!("{{\"content\":{}}}", jstr(quoted_secret));
        call(&conn, "s", "save_memory", &args, None);
        session(
            &conn,
            "web:q:assistant",
            "archived",
            &conversation(quoted_secret),
        );
        drop(conn);
        let n = needles(&[quoted_secret]);
        let found = find(&db, &n).unwrap();
        assert_eq!(count_of(&found, "tool_invocations.input_json"), 1);
        assert_eq!(count_of(&found, "sessions.messages_json"), 1);
        let done = erase(&db, &n, &EraseOptions::default(), &AtomicBool::new(false)).unwrap();
        assert!(done.left.is_empty(), "{done:?}");
        assert_masked_json(&db, "sessions", "messages_json");
        for form in stored_forms(&n) {
            assert_eq!(files_hits(&db, &form), 0, "{form}");
        }
    }

    #[test]
    fn a_reader_holding_the_wal_is_said() {
        let dir = tempfile::tempdir().unwrap();
        let db = planted(dir.path());
        // The runtime in a long read: its snapshot keeps the frames the erase writes.
        let reader = Connection::open(&db).unwrap();
        reader.execute_batch("BEGIN").unwrap();
        let _: i64 = reader
            .query_row("SELECT count(*) FROM sessions", [], |r| r.get(0))
            .unwrap();
        let done = erase(
            &db,
            &needles(&[SECRET]),
            &EraseOptions::default(),
            &AtomicBool::new(false),
        )
        .unwrap();
        assert_eq!(count_of(&done.erased, "tool_invocations.input_json"), 1);
        let wal = done
            .left
            .iter()
            .find(|l| l.place == Place::DatabaseFreeSpace)
            .unwrap_or_else(|| panic!("{done:?}"));
        assert_eq!(wal.path, wal_path(&db));
        assert!(wal.reason.contains("reading"), "{}", wal.reason);
        reader.execute_batch("COMMIT").unwrap();
    }
}
