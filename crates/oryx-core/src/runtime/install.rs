//! Finding the runtime's install from the folder the console was given. The start script runs
//! the runtime from its install dir, and everything it keeps is relative to that directory:
//! `.oryxos/` (or whatever `oryxos.root` names), `oryxos.db` (`spring.datasource.url` is
//! `jdbc:sqlite:oryxos.db`, so the database sits beside the root, not in it), `config/`,
//! `bin/oryxos.pid` and `logs/`. The console may be given the install dir or its root; a root
//! with no install around it is a bare root, read as it always was.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::config::{self, Context, RuntimeConfig};
use super::process::{self, RuntimeProcess};

/// What the folder the console was given turned out to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Kind {
    /// A runtime install: its configuration decides the database and the backend.
    Install,
    /// A `.oryxos` root alone: the console's settings decide.
    BareRoot,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Install => "install",
            Kind::BareRoot => "bareRoot",
        }
    }
}

/// Where the root and (for an install) the install dir are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    pub kind: Kind,
    pub install_dir: Option<PathBuf>,
    pub root: PathBuf,
}

/// Files only an install dir holds (one is enough).
const MARKERS: &[&str] = &[
    "config/application.yml",
    "config/application.yml.example",
    "oryxos.db",
    "bin/start.sh",
];

fn has_marker(dir: &Path) -> bool {
    MARKERS.iter().any(|m| dir.join(m).is_file())
}

/// The install the folder `given` is, or is the root of; a bare root otherwise.
pub fn locate(given: &Path) -> Located {
    if has_marker(given) {
        let root = configured_root(given);
        if root.is_dir() || given.join(".oryxos").is_dir() {
            let root = if root.is_dir() {
                root
            } else {
                given.join(".oryxos")
            };
            return Located {
                kind: Kind::Install,
                install_dir: Some(given.to_path_buf()),
                root,
            };
        }
    }
    if let Some(parent) = given.parent().filter(|p| has_marker(p)) {
        let named = given.file_name().is_some_and(|n| n == ".oryxos");
        if named || same_dir(&configured_root(parent), given) {
            return Located {
                kind: Kind::Install,
                install_dir: Some(parent.to_path_buf()),
                root: given.to_path_buf(),
            };
        }
    }
    Located {
        kind: Kind::BareRoot,
        install_dir: None,
        root: given.to_path_buf(),
    }
}

fn same_dir(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// The root `oryxos.root` names for the install dir `dir`.
fn configured_root(dir: &Path) -> PathBuf {
    let cfg = config::read(dir, &context(process::running(dir).as_ref()));
    cfg.root(dir)
}

/// What the runtime's placeholders resolve against: the running process's environment and
/// system properties when it is known, else the console's environment.
pub fn context(process: Option<&RuntimeProcess>) -> Context {
    match process {
        Some(p) => Context {
            env: p.env.clone().unwrap_or_else(|| Context::console().env),
            sysprops: p.sysprops.clone(),
        },
        None => Context::console(),
    }
}

/// An install with its configuration and process, read now.
#[derive(Debug, Clone)]
pub struct Install {
    pub dir: PathBuf,
    pub config: RuntimeConfig,
    pub process: Option<RuntimeProcess>,
}

impl Install {
    pub fn read(dir: &Path) -> Install {
        let process = process::running(dir);
        let config = config::read(dir, &context(process.as_ref()));
        Install {
            dir: dir.to_path_buf(),
            config,
            process,
        }
    }

    /// The database the runtime opens; `None` when its URL names no file.
    pub fn database(&self) -> Option<PathBuf> {
        self.config.database(&self.dir)
    }
}

/// Whether `db` is the database an install would create: a missing file there is created by the
/// runtime's first start, not by the console.
pub fn is_install_database(db: &Path) -> bool {
    let Some(dir) = db.parent() else {
        return false;
    };
    if !(dir.join("config").is_dir() || dir.join("bin/start.sh").is_file()) {
        return false;
    }
    locate(dir).kind == Kind::Install
}

#[cfg(test)]
mod tests {
    use super::*;

    fn install(dir: &Path) {
        std::fs::create_dir_all(dir.join(".oryxos/agents")).unwrap();
        std::fs::create_dir_all(dir.join("config")).unwrap();
        std::fs::write(
            dir.join("config/application.yml"),
            "memory:\n  backend: sqlite\n",
        )
        .unwrap();
    }

    #[test]
    fn the_install_dir_or_its_root_finds_the_other() {
        let t = tempfile::tempdir().unwrap();
        let dir = t.path().join("inst");
        install(&dir);
        for given in [dir.clone(), dir.join(".oryxos")] {
            let l = locate(&given);
            assert_eq!(l.kind, Kind::Install, "{given:?}");
            assert_eq!(l.install_dir.as_deref(), Some(dir.as_path()));
            assert_eq!(l.root, dir.join(".oryxos"));
        }
        let i = Install::read(&dir);
        assert_eq!(i.database(), Some(dir.join("oryxos.db")));
        assert_eq!(i.config.backend(), "sqlite");
        assert!(i.process.is_none());
    }

    #[test]
    fn a_bare_root_stays_a_bare_root() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join(".oryxos");
        std::fs::create_dir_all(root.join("agents")).unwrap();
        let l = locate(&root);
        assert_eq!(l.kind, Kind::BareRoot);
        assert_eq!(l.root, root);
        // A root with its own oryxos.db inside is still a bare root.
        std::fs::write(root.join("oryxos.db"), "").unwrap();
        assert_eq!(locate(&root).kind, Kind::BareRoot);
        assert!(!is_install_database(&root.join("oryxos.db")));
    }

    #[test]
    fn a_root_named_in_the_configuration() {
        let t = tempfile::tempdir().unwrap();
        let dir = t.path().to_path_buf();
        std::fs::create_dir_all(dir.join("work/agents")).unwrap();
        std::fs::create_dir_all(dir.join("config")).unwrap();
        std::fs::write(
            dir.join("config/application.yml"),
            "oryxos:\n  root: work\n",
        )
        .unwrap();
        let l = locate(&dir);
        assert_eq!(l.root, dir.join("work"));
        assert_eq!(locate(&dir.join("work")).kind, Kind::Install);
        assert!(is_install_database(&dir.join("oryxos.db")));
    }
}
