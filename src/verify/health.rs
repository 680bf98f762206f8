//! Which hosts answer: a host that let a probe time out and has answered nothing
//! recently is not asked again for a while, so its other links get their verdict at
//! once instead of each waiting out its own timeout.
//!
//! A host that answered any probe within the window is never written off: one slow
//! page on a working site says nothing about its other pages. Entries expire with the
//! failure TTL and the table is bounded.

use dashmap::DashMap;
use std::time::{Duration, Instant};

#[derive(Debug, Clone, Copy, Default)]
struct Seen {
    answered: Option<Instant>,
    timed_out: Option<Instant>,
}

/// Recent answers and timeouts per host (`host:port`).
pub(crate) struct HostHealth {
    seen: DashMap<String, Seen>,
    window: Duration,
    max_hosts: usize,
}

impl HostHealth {
    /// Remembers for `window`, at most `max_hosts` hosts (0: remembers nothing).
    pub(crate) fn new(window: Duration, max_hosts: usize) -> HostHealth {
        HostHealth {
            seen: DashMap::new(),
            window,
            max_hosts,
        }
    }

    /// The host answered a probe (any HTTP status).
    pub(crate) fn answered(&self, host: &str) {
        self.record(host, |seen, now| seen.answered = Some(now));
    }

    /// A probe of the host got no answer within its own timeout.
    pub(crate) fn timed_out(&self, host: &str) {
        self.record(host, |seen, now| seen.timed_out = Some(now));
    }

    /// How long ago the host let a probe time out, if it has answered nothing since
    /// the window began.
    pub(crate) fn unresponsive_for(&self, host: &str) -> Option<Duration> {
        let seen = *self.seen.get(host)?;
        let now = Instant::now();
        let recent = |at: Option<Instant>| at.filter(|at| now.duration_since(*at) < self.window);
        match (recent(seen.timed_out), recent(seen.answered)) {
            (Some(timed_out), None) => Some(now.duration_since(timed_out)),
            _ => None,
        }
    }

    fn record(&self, host: &str, update: impl FnOnce(&mut Seen, Instant)) {
        if self.max_hosts == 0 || self.window.is_zero() {
            return;
        }
        if self.seen.len() >= self.max_hosts && !self.seen.contains_key(host) {
            let now = Instant::now();
            let window = self.window;
            let fresh = |at: Option<Instant>| at.is_some_and(|at| now.duration_since(at) < window);
            self.seen
                .retain(|_, seen| fresh(seen.answered) || fresh(seen.timed_out));
            if self.seen.len() >= self.max_hosts {
                // Every entry is fresh: forgetting them costs only a second probe.
                self.seen.clear();
            }
        }
        let mut seen = self.seen.entry(host.to_string()).or_default();
        update(&mut seen, Instant::now());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_host_that_only_timed_out_is_unresponsive() {
        let health = HostHealth::new(Duration::from_secs(300), 10);
        assert_eq!(health.unresponsive_for("a:80"), None);
        health.timed_out("a:80");
        assert!(health.unresponsive_for("a:80").is_some());
        assert_eq!(health.unresponsive_for("b:80"), None);
    }

    #[test]
    fn a_host_that_answered_anything_is_never_written_off() {
        let health = HostHealth::new(Duration::from_secs(300), 10);
        health.answered("a:80");
        health.timed_out("a:80");
        assert_eq!(health.unresponsive_for("a:80"), None);
    }

    #[test]
    fn memories_expire_and_stay_bounded() {
        let health = HostHealth::new(Duration::from_millis(20), 10);
        health.timed_out("a:80");
        std::thread::sleep(Duration::from_millis(40));
        assert_eq!(health.unresponsive_for("a:80"), None);
        let health = HostHealth::new(Duration::from_secs(300), 10);
        for i in 0..1000 {
            health.timed_out(&format!("h{i}:80"));
            assert!(health.seen.len() <= 10);
        }
    }
}
