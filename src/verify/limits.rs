//! How many probes run at once: a global cap and a per-host cap with slow start.
//!
//! Every probe takes a slot of its link's host, then a global slot. A host starts with
//! one slot and earns another each time it answers, up to the per-host cap: a host that
//! never answers holds one global slot, not four, and the links on hosts that do answer
//! keep the rest busy. Host entries live only while a probe uses or waits for them, so
//! the table stays as small as the work in flight.

use dashmap::DashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The global and per-host caps, shared by every check a verifier runs.
pub(crate) struct Limits {
    global: Arc<Semaphore>,
    per_host_cap: usize,
    hosts: Arc<DashMap<String, Arc<HostGate>>>,
}

/// One host's slots: starts at one, grows to the cap as the host answers.
struct HostGate {
    slots: Arc<Semaphore>,
    granted: AtomicUsize,
}

/// The right to probe one link: a slot of its host and a global slot. Dropping it
/// frees both, and forgets the host when nobody else is using it.
pub(crate) struct ProbeSlot {
    global: Option<OwnedSemaphorePermit>,
    host_slot: Option<OwnedSemaphorePermit>,
    gate: Option<Arc<HostGate>>,
    host: String,
    hosts: Arc<DashMap<String, Arc<HostGate>>>,
    per_host_cap: usize,
}

impl Limits {
    /// Caps of `global` probes in all and `per_host` per host (each at least one).
    pub(crate) fn new(global: usize, per_host: usize) -> Limits {
        Limits {
            global: Arc::new(Semaphore::new(global.max(1))),
            per_host_cap: per_host.max(1),
            hosts: Arc::new(DashMap::new()),
        }
    }

    /// Waits for a slot of `host` and then a global slot.
    pub(crate) async fn acquire(&self, host: &str) -> ProbeSlot {
        let gate = self
            .hosts
            .entry(host.to_string())
            .or_insert_with(|| {
                Arc::new(HostGate {
                    slots: Arc::new(Semaphore::new(1)),
                    granted: AtomicUsize::new(1),
                })
            })
            .clone();
        let mut slot = ProbeSlot {
            global: None,
            host_slot: None,
            gate: Some(gate.clone()),
            host: host.to_string(),
            hosts: self.hosts.clone(),
            per_host_cap: self.per_host_cap,
        };
        // The semaphores are never closed, so acquiring cannot fail; if it somehow
        // did, the probe goes ahead without that slot rather than hanging.
        slot.host_slot = gate.slots.clone().acquire_owned().await.ok();
        slot.global = self.global.clone().acquire_owned().await.ok();
        slot
    }

    /// Hosts currently tracked (probing or waiting).
    #[cfg(test)]
    pub(crate) fn tracked_hosts(&self) -> usize {
        self.hosts.len()
    }
}

impl ProbeSlot {
    /// The host answered: let one more of its links run at once, up to the cap.
    pub(crate) fn host_answered(&self) {
        let Some(gate) = &self.gate else { return };
        let grew = gate
            .granted
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |granted| {
                (granted < self.per_host_cap).then_some(granted + 1)
            })
            .is_ok();
        if grew {
            gate.slots.add_permits(1);
        }
    }
}

impl Drop for ProbeSlot {
    fn drop(&mut self) {
        self.global.take();
        self.host_slot.take();
        self.gate.take();
        // Under the shard lock: an entry nobody else holds has nobody waiting on it.
        self.hosts
            .remove_if(&self.host, |_, gate| Arc::strong_count(gate) == 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn a_host_starts_with_one_slot_and_grows_to_the_cap() {
        let limits = Limits::new(32, 3);
        let first = limits.acquire("a.com").await;
        // A second probe of the same host waits until the first answers.
        let waiting = tokio::time::timeout(Duration::from_millis(50), limits.acquire("a.com"));
        assert!(
            waiting.await.is_err(),
            "second slot granted before any answer"
        );
        first.host_answered();
        let second = limits.acquire("a.com").await;
        second.host_answered();
        let third = limits.acquire("a.com").await;
        third.host_answered(); // already at the cap of 3: no fourth slot
        let fourth = tokio::time::timeout(Duration::from_millis(50), limits.acquire("a.com"));
        assert!(fourth.await.is_err(), "per-host cap exceeded");
        drop((first, second, third));
        assert_eq!(limits.tracked_hosts(), 0, "idle hosts are forgotten");
    }

    #[tokio::test]
    async fn other_hosts_are_not_held_up_and_the_global_cap_holds() {
        let limits = Limits::new(2, 4);
        let a = limits.acquire("a.com").await;
        let b = limits.acquire("b.com").await;
        let c = tokio::time::timeout(Duration::from_millis(50), limits.acquire("c.com"));
        assert!(c.await.is_err(), "global cap exceeded");
        drop(a);
        let c = limits.acquire("c.com").await;
        drop((b, c));
        assert_eq!(limits.tracked_hosts(), 0);
    }
}
