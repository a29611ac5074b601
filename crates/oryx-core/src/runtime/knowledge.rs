//! The runtime's knowledge bases: `knowledge/<name>/KNOWLEDGE.md` declares each one (its front
//! matter's name, description and backend), and the `knowledge_documents` table holds the index
//! state of the bases the built-in `local` backend indexes.

use std::path::Path;

use crate::error::Result;
use crate::frontmatter;
use crate::workspace;

use super::tables::{int, open_table, rows, select_list, text, time_ms};

/// The backend the runtime uses when KNOWLEDGE.md names none, and the only one it ships.
pub const LOCAL_BACKEND: &str = "local";

/// A base as KNOWLEDGE.md declares it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Manifest {
    pub name: String,
    pub description: String,
    pub backend: String,
}

/// Why the runtime skips a base folder.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ManifestError {
    #[error("KNOWLEDGE.md is missing")]
    Missing,
    #[error("KNOWLEDGE.md cannot be read: {0}")]
    Unreadable(String),
    #[error("KNOWLEDGE.md has no front matter")]
    NoFrontMatter,
    #[error("KNOWLEDGE.md front matter is not valid: {0}")]
    Invalid(String),
    #[error("KNOWLEDGE.md has no {0}")]
    MissingField(&'static str),
    #[error("KNOWLEDGE.md says name {declared:?} but the folder is {folder:?}")]
    NameMismatch { declared: String, folder: String },
}

/// Reads and checks a base's KNOWLEDGE.md as the runtime does: name and description are
/// required, the name must be the folder's, the backend defaults to `local`.
pub fn read_manifest(dir: &Path, folder: &str) -> std::result::Result<Manifest, ManifestError> {
    let text = match workspace::read_text(&dir.join("KNOWLEDGE.md")) {
        Ok(Some(t)) => t,
        Ok(None) => return Err(ManifestError::Missing),
        Err(e) => return Err(ManifestError::Unreadable(e.to_string())),
    };
    let Some(fm) = frontmatter::split(&text).0 else {
        return Err(ManifestError::NoFrontMatter);
    };
    let v = frontmatter::parse(fm).map_err(|e| ManifestError::Invalid(e.to_string()))?;
    let field = |k: &str| {
        frontmatter::get_str(&v, &[k])
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
    };
    let name = field("name").ok_or(ManifestError::MissingField("name"))?;
    let description = field("description").ok_or(ManifestError::MissingField("description"))?;
    if name != folder {
        return Err(ManifestError::NameMismatch {
            declared: name,
            folder: folder.to_string(),
        });
    }
    Ok(Manifest {
        name,
        description,
        backend: field("backend").unwrap_or_else(|| LOCAL_BACKEND.to_string()),
    })
}

/// The bases the runtime registers, sorted by folder; folders whose KNOWLEDGE.md it refuses are
/// left out, as the runtime leaves them out.
pub fn manifests(root: &Path) -> Result<Vec<Manifest>> {
    let mut out = Vec::new();
    for (folder, dir) in workspace::child_dirs(root, &root.join("knowledge"))? {
        if let Ok(m) = read_manifest(&dir, &folder) {
            out.push(m);
        }
    }
    Ok(out)
}

/// A document's index state (`PENDING`, `INDEXING`, `READY` or `FAILED`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Document {
    pub rel_path: String,
    pub state: String,
    pub chunk_count: i64,
    pub failure_reason: Option<String>,
    pub indexed_at_ms: Option<i64>,
}

/// The documents of the generation the runtime searches: the newest generation that has a ready
/// document (0 when none has), in the table's order.
pub fn documents(db_path: &Path, kb: &str) -> Result<Vec<Document>> {
    let Some((conn, cols)) = open_table(db_path, "knowledge_documents")? else {
        return Ok(Vec::new());
    };
    let active = if cols.iter().any(|c| c == "generation") {
        "(SELECT coalesce(max(generation), 0) FROM knowledge_documents \
           WHERE kb_name = ?1 AND status = 'READY')"
    } else {
        "0"
    };
    let generation = if cols.iter().any(|c| c == "generation") {
        "generation"
    } else {
        "0"
    };
    let sql = format!(
        "SELECT {} FROM knowledge_documents WHERE kb_name = ?1 AND {generation} = {active} ORDER BY id",
        select_list(
            &cols,
            &["rel_path", "status", "chunk_count", "failure_reason", "indexed_at"]
        )
    );
    Ok(rows(&conn, db_path, &sql, [kb])?
        .into_iter()
        .map(|c| Document {
            rel_path: text(&c[0]).unwrap_or_default(),
            state: text(&c[1]).unwrap_or_default(),
            chunk_count: int(&c[2]).unwrap_or(0),
            failure_reason: text(&c[3]),
            indexed_at_ms: time_ms(&c[4]),
        })
        .collect())
}

/// A base's index figures as the runtime sums them up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexSummary {
    pub document_count: usize,
    pub chunk_count: i64,
    /// The runtime's words: 空 (no documents), 失败 (one failed), 索引中 (one still pending or
    /// indexing), 就绪 (all ready).
    pub status: &'static str,
    pub last_indexed_at_ms: Option<i64>,
}

pub fn summarize(docs: &[Document]) -> IndexSummary {
    let any = |s: &[&str]| docs.iter().any(|d| s.contains(&d.state.as_str()));
    let status = if docs.is_empty() {
        "空"
    } else if any(&["FAILED"]) {
        "失败"
    } else if any(&["PENDING", "INDEXING"]) {
        "索引中"
    } else {
        "就绪"
    };
    IndexSummary {
        document_count: docs.len(),
        chunk_count: docs.iter().map(|d| d.chunk_count).sum(),
        status,
        last_indexed_at_ms: docs.iter().filter_map(|d| d.indexed_at_ms).max(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manifests_are_checked_as_the_runtime_checks_them() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let kb = |name: &str, text: &str| {
            std::fs::create_dir_all(root.join("knowledge").join(name)).unwrap();
            std::fs::write(root.join("knowledge").join(name).join("KNOWLEDGE.md"), text).unwrap();
        };
        kb(
            "docs",
            "---\nname: docs\ndescription: Product docs\n---\nbody\n",
        );
        kb(
            "remote",
            "---\nname: remote\ndescription: R\nbackend: ragflow\n---\n",
        );
        kb("nodesc", "---\nname: nodesc\n---\n");
        kb("other", "---\nname: renamed\ndescription: x\n---\n");
        kb("plain", "no front matter\n");
        let m = manifests(root).unwrap();
        assert_eq!(
            m,
            [
                Manifest {
                    name: "docs".into(),
                    description: "Product docs".into(),
                    backend: "local".into()
                },
                Manifest {
                    name: "remote".into(),
                    description: "R".into(),
                    backend: "ragflow".into()
                },
            ]
        );
        assert_eq!(
            read_manifest(&root.join("knowledge/nodesc"), "nodesc"),
            Err(ManifestError::MissingField("description"))
        );
    }

    #[test]
    fn the_searched_generation_sums_up_as_the_runtime_says() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("oryxos.db");
        assert!(documents(&path, "docs").unwrap().is_empty());
        assert_eq!(summarize(&[]).status, "空");
        let conn = rusqlite::Connection::open(&path).unwrap();
        crate::runtime::schema::create(&conn).unwrap();
        conn.execute_batch(
            "INSERT INTO knowledge_documents (kb_name, rel_path, content_sha256, status, \
               failure_reason, chunk_count, generation, indexed_at, created_at, updated_at) VALUES \
             ('docs', 'old.md', 'h', 'READY', NULL, 9, 0, 1600000000000, 0, 0), \
             ('docs', 'a.md', 'h', 'READY', NULL, 4, 1, 1700000000000, 0, 0), \
             ('docs', 'b.pdf', 'h', 'INDEXING', NULL, 0, 1, NULL, 0, 0), \
             ('docs', 'c.md', 'h', 'PENDING', NULL, 0, 2, NULL, 0, 0), \
             ('other', 'x.md', 'h', 'FAILED', 'bad pdf', 0, 0, NULL, 0, 0);",
        )
        .unwrap();
        let docs = documents(&path, "docs").unwrap();
        let paths: Vec<_> = docs.iter().map(|d| d.rel_path.as_str()).collect();
        assert_eq!(paths, ["a.md", "b.pdf"]);
        let s = summarize(&docs);
        assert_eq!(
            (
                s.document_count,
                s.chunk_count,
                s.status,
                s.last_indexed_at_ms
            ),
            (2, 4, "索引中", Some(1_700_000_000_000))
        );
        let other = documents(&path, "other").unwrap();
        assert_eq!(summarize(&other).status, "失败");
        assert_eq!(other[0].failure_reason.as_deref(), Some("bad pdf"));
    }
}
