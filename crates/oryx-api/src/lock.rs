//! Taking a lock of the console's shared state even after a thread panicked while holding it:
//! what the panic left (a job's progress, the subscribers, a cached view) is still the best
//! state there is, and one failed request must not fail every later one.

use std::sync::{Mutex, MutexGuard};

pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}
