//! Wrong credentials slow the one who sends them: after [`FREE_FAILURES`] failures within
//! [`WINDOW`], every credential from that address is refused (429, `Retry-After`) until the
//! window has passed, whether right or wrong, so a guess cannot be checked meanwhile. A short
//! or typed token would otherwise fall to thousands of guesses a second.
//!
//! Counted per client address: the real user on another address is not locked out by a guesser.
//! Requests without any credential (a page load before `?token=`) are not failures.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

pub const FREE_FAILURES: u32 = 10;
pub const WINDOW: Duration = Duration::from_secs(60);
/// Addresses remembered at once; beyond it the stalest are forgotten (a flood of addresses
/// must not grow the map without end).
const MAX_ADDRESSES: usize = 4096;

#[derive(Default)]
pub struct Throttle {
    failures: Mutex<HashMap<Option<IpAddr>, Window>>,
}

#[derive(Clone, Copy)]
struct Window {
    since: Instant,
    count: u32,
}

impl Throttle {
    /// How long `peer` must wait before its credentials are looked at again; `None`: now.
    pub fn wait(&self, peer: Option<IpAddr>) -> Option<Duration> {
        let failures = self.failures.lock().unwrap_or_else(|e| e.into_inner());
        let w = failures.get(&peer)?;
        let left = WINDOW.checked_sub(w.since.elapsed())?;
        (w.count >= FREE_FAILURES).then_some(left)
    }

    /// A wrong credential from `peer`.
    pub fn failed(&self, peer: Option<IpAddr>) {
        let now = Instant::now();
        let mut failures = self.failures.lock().unwrap_or_else(|e| e.into_inner());
        if failures.len() >= MAX_ADDRESSES && !failures.contains_key(&peer) {
            failures.retain(|_, w| now.duration_since(w.since) < WINDOW);
            if failures.len() >= MAX_ADDRESSES {
                if let Some(stalest) = failures
                    .iter()
                    .min_by_key(|(_, w)| w.since)
                    .map(|(k, _)| *k)
                {
                    failures.remove(&stalest);
                }
            }
        }
        let w = failures.entry(peer).or_insert(Window {
            since: now,
            count: 0,
        });
        if now.duration_since(w.since) >= WINDOW {
            *w = Window {
                since: now,
                count: 0,
            };
        }
        w.count += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_is_held_after_its_free_failures_and_others_are_not() {
        let t = Throttle::default();
        let a = Some("127.0.0.1".parse().unwrap());
        let b = Some("127.0.0.2".parse().unwrap());
        for _ in 0..FREE_FAILURES - 1 {
            t.failed(a);
        }
        assert_eq!(t.wait(a), None);
        t.failed(a);
        let wait = t.wait(a).expect("held after the free failures");
        assert!(wait <= WINDOW && wait > WINDOW - Duration::from_secs(5));
        assert_eq!(t.wait(b), None);
    }

    #[test]
    fn a_window_that_has_passed_starts_again() {
        let t = Throttle::default();
        let a = Some("::1".parse().unwrap());
        let old = Instant::now().checked_sub(WINDOW + Duration::from_secs(1));
        let Some(old) = old else { return };
        t.failures.lock().unwrap().insert(
            a,
            Window {
                since: old,
                count: FREE_FAILURES * 3,
            },
        );
        assert_eq!(t.wait(a), None);
        t.failed(a);
        assert_eq!(t.failures.lock().unwrap()[&a].count, 1);
    }
}
