//! Slack's limits kept in this process: the next free post slot of each channel (posts
//! to one channel at least a pace apart) and the back-off Slack asked for with a 429's
//! `Retry-After`, by method. [`super::MemoryState`] keeps them here, and
//! [`super::RedisState`] falls back to them while Redis is away. Both tables are
//! bounded: entries whose time has passed are swept once a table passes
//! [`MAX_ENTRIES`].

use dashmap::DashMap;
use std::time::{Duration, Instant};

/// Channels (or methods) tracked at most before past entries are swept.
pub const MAX_ENTRIES: usize = 4096;

/// Post slots by channel and back-offs by method.
#[derive(Default)]
pub struct LocalLimits {
    next_slot: DashMap<String, Instant>,
    hold_until: DashMap<String, Instant>,
}

impl LocalLimits {
    /// Empty tables.
    pub fn new() -> LocalLimits {
        LocalLimits::default()
    }

    /// Takes the next post slot of `channel`: how long to wait before posting, so that
    /// posts are at least `pace` apart.
    pub fn next_post_slot(&self, channel: &str, pace: Duration) -> Duration {
        let now = Instant::now();
        sweep(&self.next_slot, now);
        let mut next = self.next_slot.entry(channel.to_string()).or_insert(now);
        let slot = (*next).max(now);
        *next = slot + pace;
        slot - now
    }

    /// Calls to `method` wait until `wait` from now (a later hold is kept).
    pub fn hold_back(&self, method: &str, wait: Duration) {
        let now = Instant::now();
        sweep(&self.hold_until, now);
        let until = now + wait;
        let mut held = self.hold_until.entry(method.to_string()).or_insert(until);
        *held = (*held).max(until);
    }

    /// How long calls to `method` must still wait.
    pub fn held_back(&self, method: &str) -> Duration {
        self.hold_until
            .get(method)
            .map(|until| until.saturating_duration_since(Instant::now()))
            .unwrap_or_default()
    }
}

impl LocalLimits {
    /// Drops the slots and holds whose channel or method `doomed` picks; how many went.
    pub fn remove_where(&self, doomed: impl Fn(&str) -> bool) -> usize {
        let before = self.next_slot.len() + self.hold_until.len();
        self.next_slot.retain(|name, _| !doomed(name));
        self.hold_until.retain(|name, _| !doomed(name));
        before.saturating_sub(self.next_slot.len() + self.hold_until.len())
    }
}

/// Drops the entries whose time has passed, once the table is full.
fn sweep(table: &DashMap<String, Instant>, now: Instant) {
    if table.len() >= MAX_ENTRIES {
        table.retain(|_, at| *at > now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn posts_to_one_channel_are_a_pace_apart_and_channels_do_not_wait_for_each_other() {
        let limits = LocalLimits::new();
        let pace = Duration::from_secs(1);
        assert_eq!(limits.next_post_slot("C1", pace), Duration::ZERO);
        let second = limits.next_post_slot("C1", pace);
        assert!(
            second > Duration::from_millis(900) && second <= pace,
            "{second:?}"
        );
        let third = limits.next_post_slot("C1", pace);
        assert!(third > Duration::from_millis(1900), "{third:?}");
        assert_eq!(limits.next_post_slot("C2", pace), Duration::ZERO);
    }

    #[test]
    fn a_hold_lasts_its_time_and_the_longer_one_wins() {
        let limits = LocalLimits::new();
        assert_eq!(limits.held_back("chat.postMessage"), Duration::ZERO);
        limits.hold_back("chat.postMessage", Duration::from_secs(30));
        limits.hold_back("chat.postMessage", Duration::from_secs(1));
        let left = limits.held_back("chat.postMessage");
        assert!(left > Duration::from_secs(29), "{left:?}");
        assert_eq!(limits.held_back("chat.update"), Duration::ZERO);
    }

    #[test]
    fn the_tables_stay_bounded() {
        let limits = LocalLimits::new();
        for n in 0..3 * MAX_ENTRIES {
            limits.next_post_slot(&format!("C{n}"), Duration::ZERO);
        }
        assert!(limits.next_slot.len() <= MAX_ENTRIES + 1);
    }
}
