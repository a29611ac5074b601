//! The console's change events and their subscribers: what the watcher (the runtime writing
//! while the console is open) and the console's own writes announce, `{kind, agent}` as the UI
//! expects them.

use std::sync::atomic::AtomicU64;
use std::sync::mpsc::{Receiver, Sender};
use std::sync::{Arc, Mutex};

use oryx_core::watch::{Change, Watcher};

use crate::lock::lock;
use serde::{Deserialize, Serialize};

#[cfg(feature = "specta")]
use specta::Type;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
#[serde(rename_all = "lowercase")]
pub enum ChangeKind {
    /// A MEMORY.md (agent = its agent, `None` = global or several).
    Memory,
    /// An AGENT.md, a skill or a bootstrap file.
    Agents,
    /// The database (sessions, tool invocations, sqlite memory).
    Sessions,
    Settings,
    /// Recall checks ran after a change (agent = whose; `None` = the global memory's).
    Checks,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct ChangeEvent {
    pub kind: ChangeKind,
    pub agent: Option<String>,
}

impl From<Change> for ChangeEvent {
    fn from(c: Change) -> ChangeEvent {
        let (kind, agent) = match c {
            Change::Memory(agent) => (ChangeKind::Memory, agent),
            Change::Agents(agent) => (ChangeKind::Agents, agent),
            Change::Database => (ChangeKind::Sessions, None),
        };
        ChangeEvent { kind, agent }
    }
}

pub use oryx_core::watch::DEBOUNCE;

/// A subscriber's end of the stream; it ends when the console is dropped.
pub type Subscription = Receiver<ChangeEvent>;

/// The subscribers, shared with the watcher's thread.
#[derive(Default)]
pub(crate) struct Subscribers {
    pub(crate) senders: Mutex<Vec<Sender<ChangeEvent>>>,
    /// Which watcher may publish: a replaced one's last batch (of the old root) is dropped.
    pub(crate) generation: AtomicU64,
}

impl Subscribers {
    pub(crate) fn publish(&self, event: ChangeEvent) {
        lock(&self.senders).retain(|tx| tx.send(event.clone()).is_ok());
    }
}

/// The console's change stream: subscribers and the watcher of the current runtime, started
/// by the first subscriber (a CLI command that nobody watches never starts one).
#[derive(Default)]
pub struct Events {
    pub(crate) subscribers: Arc<Subscribers>,
    /// `None` until someone subscribes; `Some(None)` when the current root cannot be watched.
    pub(crate) watcher: Mutex<Option<Option<Watcher>>>,
}

impl Events {
    pub(crate) fn publish(&self, event: ChangeEvent) {
        self.subscribers.publish(event);
    }
}
