//! Recall checks run after the changes that can move them, not only when someone lists them:
//! while anyone follows the console's changes (the desktop app, `oryx serve`), a thread hears
//! every change, waits for a quiet moment, runs the due checks of the owners it touched (every
//! owner for a change of the runtime's configuration or database) and announces a `checks` change
//! when any ran — so a check an edit broke shows in Memory health and as a notice at once.
//!
//! A fill of the runtime's vector index (a console job the watcher reports only as a database
//! change) runs the filled owners' checks when it ends, through the same path.
//!
//! The thread holds the console's parts weakly and ends with the console.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::{Arc, RwLock, Weak};
use std::time::Duration;

use crate::events::{ChangeEvent, ChangeKind, Subscribers};
use crate::services::Services;

/// How long the changes must be quiet before the checks run (a curation burst, a runtime's
/// session writing several rows).
const QUIET: Duration = Duration::from_millis(300);

/// Whose checks a batch of changes may have moved.
#[derive(Debug, Default, PartialEq)]
struct Touched {
    /// `None`: the global memory.
    owners: BTreeSet<Option<String>>,
    /// The configuration or the database changed: every owner.
    all: bool,
}

impl Touched {
    fn add(&mut self, e: &ChangeEvent, sqlite: bool) {
        match e.kind {
            ChangeKind::Memory => {
                // A memory change with no agent is the global memory or several owners.
                match &e.agent {
                    Some(a) => {
                        self.owners.insert(Some(a.clone()));
                    }
                    None => self.all = true,
                }
            }
            ChangeKind::Settings => self.all = true,
            // On sqlite the database holds the memory. (On markdown the runtime writes its
            // vector rows as it saves an entry, which the file's change already reports.)
            ChangeKind::Sessions => self.all |= sqlite,
            ChangeKind::Agents | ChangeKind::Checks => {}
        }
    }

    fn is_empty(&self) -> bool {
        !self.all && self.owners.is_empty()
    }
}

/// Starts the runner on `changes` (a subscription of its own).
pub(crate) fn start(
    changes: Receiver<ChangeEvent>,
    services: Weak<RwLock<Arc<Services>>>,
    subscribers: Weak<Subscribers>,
    index_dir: PathBuf,
) {
    let spawned = std::thread::Builder::new()
        .name("recall-checks".into())
        .spawn(move || {
            // Ends when the console drops its subscribers (the channel closes).
            while let Ok(first) = changes.recv() {
                let Some(rt) = current(&services) else { return };
                let sqlite = rt.memory.backend() == oryx_core::memory::Backend::Sqlite;
                let mut touched = Touched::default();
                touched.add(&first, sqlite);
                loop {
                    match changes.recv_timeout(QUIET) {
                        Ok(e) => touched.add(&e, sqlite),
                        Err(RecvTimeoutError::Timeout) => break,
                        Err(RecvTimeoutError::Disconnected) => return,
                    }
                }
                if touched.is_empty() {
                    continue;
                }
                // The services in effect now (a settings change may have replaced them).
                let Some(rt) = current(&services) else { return };
                run_and_announce(&rt, &index_dir, owners(&rt, &touched), &subscribers);
            }
        });
    if let Err(e) = spawned {
        eprintln!("recall checks will run only when listed: {e}");
    }
}

/// Runs the due checks of `agents` (`None`: the global memory) and announces a `checks` change
/// for each whose checks ran.
pub(crate) fn run_and_announce(
    rt: &Services,
    index_dir: &Path,
    agents: Vec<Option<String>>,
    subscribers: &Weak<Subscribers>,
) {
    for agent in agents {
        match crate::recall_checks::run_due(rt, index_dir, agent.as_deref(), false) {
            Ok(run) if run.ran > 0 => {
                let Some(subs) = subscribers.upgrade() else {
                    return;
                };
                subs.publish(ChangeEvent {
                    kind: ChangeKind::Checks,
                    agent,
                });
            }
            Ok(_) => {}
            // A root that vanished, a runtime that cannot answer: the list says why when
            // someone opens it.
            Err(e) => eprintln!("recall checks not run: {}", e.message),
        }
    }
}

fn current(services: &Weak<RwLock<Arc<Services>>>) -> Option<Arc<Services>> {
    let s = services.upgrade()?;
    let rt = s.read().unwrap_or_else(|p| p.into_inner()).clone();
    Some(rt)
}

/// The owners to run: those touched, or every agent and the global memory.
fn owners(rt: &Services, touched: &Touched) -> Vec<Option<String>> {
    if !touched.all {
        return touched.owners.iter().cloned().collect();
    }
    let mut all = vec![None];
    if let Ok(agents) = oryx_core::agents::list(rt.root()) {
        all.extend(agents.into_iter().map(|a| Some(a.name)));
    }
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(kind: ChangeKind, agent: Option<&str>) -> ChangeEvent {
        ChangeEvent {
            kind,
            agent: agent.map(str::to_string),
        }
    }

    #[test]
    fn what_each_change_may_move() {
        let mut t = Touched::default();
        t.add(&event(ChangeKind::Memory, Some("a")), false);
        t.add(&event(ChangeKind::Agents, Some("b")), false);
        t.add(&event(ChangeKind::Checks, Some("c")), false);
        assert_eq!(t.owners.iter().flatten().collect::<Vec<_>>(), ["a"]);
        assert!(!t.all);
        // The runtime's database: the memory on sqlite, sessions only on markdown.
        t.add(&event(ChangeKind::Sessions, None), false);
        assert!(!t.all);
        t.add(&event(ChangeKind::Sessions, None), true);
        assert!(t.all);
        let mut t = Touched::default();
        t.add(&event(ChangeKind::Settings, None), false);
        assert!(t.all);
        let mut t = Touched::default();
        t.add(&event(ChangeKind::Checks, None), true);
        assert!(t.is_empty(), "its own announcements move nothing");
    }
}
