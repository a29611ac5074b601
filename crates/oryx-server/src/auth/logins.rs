//! The sessions a login opens. The cookie carries a random id, never the token: logging out
//! revokes the id (a copied cookie stops working), and a cookie seen in a log or a proxy says
//! nothing about the token itself.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How long a login lasts, however busy: a forgotten tab does not stay logged in for ever.
pub const LIFETIME: Duration = Duration::from_secs(12 * 60 * 60);
/// Logins held at once; the oldest goes first (only a holder of the token can open one).
const MAX_LOGINS: usize = 256;

#[derive(Default)]
pub struct Logins {
    open: Mutex<HashMap<String, Instant>>,
}

impl Logins {
    /// A new session id (256 random bits, hex), valid for [`LIFETIME`].
    pub fn open(&self) -> String {
        let mut bytes = [0u8; 32];
        getrandom::fill(&mut bytes).expect("the system's random source");
        let id: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        let now = Instant::now();
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        open.retain(|_, at| now.duration_since(*at) < LIFETIME);
        if open.len() >= MAX_LOGINS {
            if let Some(oldest) = open
                .iter()
                .min_by_key(|(_, at)| **at)
                .map(|(k, _)| k.clone())
            {
                open.remove(&oldest);
            }
        }
        open.insert(id.clone(), now);
        id
    }

    /// Whether `id` names an open, unexpired session.
    pub fn is_open(&self, id: &str) -> bool {
        let open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        // Each open id (a few at most) compared in constant time: timing must not tell how
        // much of a guess matches.
        open.iter().any(|(k, at)| {
            bool::from(subtle::ConstantTimeEq::ct_eq(k.as_bytes(), id.as_bytes()))
                && at.elapsed() < LIFETIME
        })
    }

    /// Ends the session `id` (unknown ids are fine).
    pub fn close(&self, id: &str) {
        self.open
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_opened_id_is_random_open_until_closed_and_only_itself() {
        let l = Logins::default();
        let a = l.open();
        let b = l.open();
        assert_ne!(a, b);
        assert_eq!(a.len(), 64);
        assert!(l.is_open(&a) && l.is_open(&b));
        assert!(!l.is_open(&a[..63]));
        assert!(!l.is_open(""));
        l.close(&a);
        assert!(!l.is_open(&a));
        assert!(l.is_open(&b));
    }

    #[test]
    fn the_oldest_login_goes_when_too_many_are_open() {
        let l = Logins::default();
        let first = l.open();
        for _ in 0..MAX_LOGINS {
            l.open();
        }
        assert!(!l.is_open(&first));
        assert_eq!(l.open.lock().unwrap().len(), MAX_LOGINS);
    }
}
