//! The runtime's notify channels (`notify_channels`): a name an agent's notify tool refers to,
//! with its type and webhook URL. The runtime's admin UI shows the URL as it is.

use std::path::Path;

use crate::error::Result;

use super::tables::{open_table, rows, select_list, text};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotifyChannel {
    pub name: String,
    pub kind: String,
    pub url: String,
    pub description: Option<String>,
}

/// Every channel, in the table's order.
pub fn channels(db_path: &Path) -> Result<Vec<NotifyChannel>> {
    let Some((conn, cols)) = open_table(db_path, "notify_channels")? else {
        return Ok(Vec::new());
    };
    let sql = format!(
        "SELECT {} FROM notify_channels ORDER BY rowid",
        select_list(&cols, &["name", "type", "url", "description"])
    );
    Ok(rows(&conn, db_path, &sql, [])?
        .into_iter()
        .map(|c| NotifyChannel {
            name: text(&c[0]).unwrap_or_default(),
            kind: text(&c[1]).unwrap_or_default(),
            url: text(&c[2]).unwrap_or_default(),
            description: text(&c[3]),
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn channels_in_the_tables_order() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("oryxos.db");
        let conn = rusqlite::Connection::open(&path).unwrap();
        crate::runtime::schema::create(&conn).unwrap();
        conn.execute_batch(
            "INSERT INTO notify_channels VALUES ('ops', 'feishu', 'https://open.feishu.cn/x', 'Ops', 0, 0);
             INSERT INTO notify_channels VALUES ('alerts', 'webhook', 'https://h/1', NULL, 0, 0);",
        )
        .unwrap();
        let c = channels(&path).unwrap();
        assert_eq!(c[0].name, "ops");
        assert_eq!(c[0].kind, "feishu");
        assert_eq!(c[1].description, None);
    }
}
