//! The runtime's provider registry: the `providers` table of its database. The runtime seeds it
//! once from `oryxos.providers` in its configuration (only names the table does not hold yet) and
//! from then on reads only the table, so the table is what decides whether an agent's provider
//! exists.

use std::path::Path;

use crate::db;
use crate::error::{DbContext, Result};

/// One row of the `providers` table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderRow {
    pub name: String,
    pub api_key: Option<String>,
    pub base_url: Option<String>,
    pub description: Option<String>,
}

/// The registry's rows by name; `None` when there is no database or it has no `providers` table
/// yet (a runtime that never started: its configuration's providers are what it would seed).
pub fn registry(db_path: &Path) -> Result<Option<Vec<ProviderRow>>> {
    let Some(conn) = db::open_existing(db_path)? else {
        return Ok(None);
    };
    if db::table_columns(&conn, "providers")
        .at_db(db_path)?
        .is_empty()
    {
        return Ok(None);
    }
    let mut stmt = conn
        .prepare("SELECT name, api_key, base_url, description FROM providers ORDER BY name")
        .at_db(db_path)?;
    let rows = stmt
        .query_map([], |r| {
            Ok(ProviderRow {
                name: r.get(0)?,
                api_key: r.get(1)?,
                base_url: r.get(2)?,
                description: r.get(3)?,
            })
        })
        .at_db(db_path)?
        .collect::<rusqlite::Result<Vec<_>>>()
        .at_db(db_path)?;
    Ok(Some(rows))
}

/// An API key as the runtime's admin UI shows it: empty stays empty, four characters or fewer
/// become `****`, longer keys keep their last four. Idempotent, as the runtime relies on.
pub fn mask(key: Option<&str>) -> String {
    let Some(key) = key.filter(|k| !k.trim().is_empty()) else {
        return String::new();
    };
    let chars: Vec<char> = key.chars().collect();
    if chars.len() <= 4 {
        return "****".into();
    }
    let tail: String = chars[chars.len() - 4..].iter().collect();
    format!("****{tail}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_masked_as_the_admin_ui_masks_them() {
        assert_eq!(mask(None), "");
        assert_eq!(mask(Some("  ")), "");
        assert_eq!(mask(Some("abcd")), "****");
        assert_eq!(mask(Some("sk-secretvalue")), "****alue");
        assert_eq!(mask(Some(&mask(Some("sk-secretvalue")))), "****alue");
    }

    #[test]
    fn rows_come_from_the_table_and_a_missing_table_is_none() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("oryxos.db");
        assert_eq!(registry(&path).unwrap(), None);
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch("CREATE TABLE t (x)").unwrap();
        assert_eq!(registry(&path).unwrap(), None);
        conn.execute_batch(
            "CREATE TABLE providers (name VARCHAR(128) PRIMARY KEY, api_key TEXT, base_url TEXT, \
             description TEXT, created_at TIMESTAMP NOT NULL, updated_at TIMESTAMP NOT NULL);
             INSERT INTO providers VALUES ('mock', NULL, NULL, NULL, 0, 0);
             INSERT INTO providers VALUES ('deepseek', 'sk-1234567', 'https://api.deepseek.com', 'd', 0, 0);",
        )
        .unwrap();
        let rows = registry(&path).unwrap().unwrap();
        assert_eq!(
            rows.iter().map(|r| r.name.as_str()).collect::<Vec<_>>(),
            ["deepseek", "mock"]
        );
        assert_eq!(
            rows[0].base_url.as_deref(),
            Some("https://api.deepseek.com")
        );
    }
}
