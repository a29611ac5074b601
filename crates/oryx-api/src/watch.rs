//! Live refresh: one stream of change events per console, whatever the host. It is fed by the
//! core's watcher (the runtime writing while the console is open) and by the console's own
//! writes, and follows the root and database of the settings in effect. Hosts only forward
//! it (a Tauri event, a server-sent event).
//!
//! Each write reaches a subscriber once: the console announces its own write at once and tells
//! the watcher, which then does not report that version of the file or database again.

use std::sync::atomic::Ordering;
use std::sync::mpsc::channel;
use std::sync::Arc;

use oryx_core::names::Owner;
use oryx_core::watch::{self as core_watch, Change, Watcher};

use crate::events::Events;
pub use crate::events::{ChangeEvent, ChangeKind, Subscription, DEBOUNCE};
use crate::lock::lock;
use crate::services::Services;
use crate::Console;

impl Events {
    /// Re-points the watcher at `rt`'s root and database (when anyone subscribed).
    pub(crate) fn follow(&self, rt: &Arc<Services>) {
        let mut slot = lock(&self.watcher);
        if slot.is_some() {
            *slot = Some(self.start(rt));
        }
    }

    /// A folder that cannot be watched only loses live refresh, never the console.
    fn start(&self, rt: &Arc<Services>) -> Option<Watcher> {
        let subscribers = self.subscribers.clone();
        let generation = subscribers.generation.fetch_add(1, Ordering::SeqCst) + 1;
        let runtime = rt.clone();
        let started = core_watch::watch(
            &rt.effective.root,
            &rt.effective.db_path,
            move |changes: Vec<Change>| {
                if subscribers.generation.load(Ordering::SeqCst) != generation {
                    return;
                }
                // What the runtime wrote may put the automatic summary over its threshold.
                let summarised = crate::auto_summary::after_changes(&runtime, &changes);
                for c in changes {
                    subscribers.publish(c.into());
                }
                for owner in summarised {
                    subscribers.publish(ChangeEvent {
                        kind: ChangeKind::Memory,
                        agent: owner.agent_name().map(str::to_string),
                    });
                }
            },
        );
        match started {
            Ok(w) => Some(w),
            Err(e) => {
                eprintln!("live refresh disabled: {e}");
                None
            }
        }
    }
}

impl Console {
    /// Every change from now on, from the watcher and from this console's own writes, once
    /// each: `{kind, agent}` as the UI expects them. The first subscriber starts the watcher.
    pub fn subscribe(&self) -> Subscription {
        let events = self.events();
        let (tx, rx) = channel();
        lock(&events.subscribers.senders).push(tx);
        let mut slot = lock(&events.watcher);
        if slot.is_none() {
            *slot = Some(events.start(&self.services()));
            // Whoever follows the changes also hears when one breaks a recall check.
            let (tx, changes) = channel();
            lock(&events.subscribers.senders).push(tx);
            crate::check_runner::start(
                changes,
                self.services_handle(),
                Arc::downgrade(&events.subscribers),
                self.index_dir(),
            );
        }
        rx
    }

    /// A write of this console to `owner`'s memory: announced now, and not again by the watcher.
    pub(crate) fn announce_write(&self, rt: &Services, owner: &Owner) {
        let events = self.events();
        if let Some(Some(w)) = lock(&events.watcher).as_ref() {
            w.absorb(rt.memory.backend(), owner);
        }
        events.publish(ChangeEvent {
            kind: ChangeKind::Memory,
            agent: owner.agent_name().map(str::to_string),
        });
    }

    /// Something this console changed that the watcher reports on its own terms (a migration
    /// writes many owners): announced now as well.
    pub(crate) fn announce(&self, event: ChangeEvent) {
        self.events().publish(event);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn core_changes_keep_their_event_shapes() {
        let json = |c: Change| serde_json::to_string(&ChangeEvent::from(c)).unwrap();
        assert_eq!(
            json(Change::Memory(Some("a".into()))),
            r#"{"kind":"memory","agent":"a"}"#
        );
        assert_eq!(
            json(Change::Agents(None)),
            r#"{"kind":"agents","agent":null}"#
        );
        assert_eq!(
            json(Change::Database),
            r#"{"kind":"sessions","agent":null}"#
        );
    }
}
