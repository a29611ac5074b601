//! The runtime's sandbox whitelist (`sandbox_whitelist`): the folders its file tools may touch,
//! the commands its shell tool may run, the domains its http tool may reach. The runtime adds
//! its configuration's `file.allowed_paths`, `shell.allowed_commands` and `http.allowed_domains`
//! to the table on every start, so the table is the whitelist of its last start plus changes
//! made in its admin UI since.

use std::path::Path;

use crate::error::Result;

use super::tables::{open_table, rows, text};

/// The three lists, each in the order the entries were added, without repeats.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Whitelist {
    pub file: Vec<String>,
    pub shell: Vec<String>,
    pub http: Vec<String>,
}

pub fn whitelist(db_path: &Path) -> Result<Whitelist> {
    let mut out = Whitelist::default();
    let Some((conn, _)) = open_table(db_path, "sandbox_whitelist")? else {
        return Ok(out);
    };
    let sql = "SELECT category, entry_value FROM sandbox_whitelist ORDER BY id";
    for c in rows(&conn, db_path, sql, [])? {
        let (Some(category), Some(value)) = (text(&c[0]), text(&c[1])) else {
            continue;
        };
        let list = match category.as_str() {
            "FILE" => &mut out.file,
            "SHELL" => &mut out.shell,
            "HTTP" => &mut out.http,
            // The runtime knows these three categories only.
            _ => continue,
        };
        if !list.contains(&value) {
            list.push(value);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_by_category_in_the_order_added() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("oryxos.db");
        assert_eq!(whitelist(&path).unwrap(), Whitelist::default());
        let conn = rusqlite::Connection::open(&path).unwrap();
        crate::runtime::schema::create(&conn).unwrap();
        conn.execute_batch(
            "INSERT INTO sandbox_whitelist (category, entry_value, created_at) VALUES \
             ('SHELL', 'ls', 0), ('FILE', '/srv/data', 0), ('HTTP', '*.example.com', 0), \
             ('SHELL', 'git', 0), ('OTHER', 'x', 0);",
        )
        .unwrap();
        let w = whitelist(&path).unwrap();
        assert_eq!(w.file, ["/srv/data"]);
        assert_eq!(w.shell, ["ls", "git"]);
        assert_eq!(w.http, ["*.example.com"]);
    }
}
