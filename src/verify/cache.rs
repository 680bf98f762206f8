//! Remembered verdicts, and one probe per URL however many checks ask at once.
//!
//! Verdicts are kept by canonical URL: verified ones for one TTL, failures for another
//! (shorter: a server that was down may be back). The table holds at most a set number
//! of entries; past it, expired entries go first, then the oldest. Checks of a URL that
//! is being probed wait for that probe instead of starting their own; if the probe is
//! abandoned (its answer's deadline passed), the next waiter takes over.

use super::flights::Flights;
use crate::model::{Verdict, VerdictClass};
use crate::state::BotState;
use dashmap::DashMap;
use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What a probe produced, and whether it may be remembered.
#[derive(Debug, Clone)]
pub(crate) struct Probed {
    /// The verdict.
    pub(crate) verdict: Verdict,
    /// False when the verdict says more about this moment than about the link (DNS
    /// could not be asked, the answer's budget ran out): such verdicts are not kept.
    pub(crate) cacheable: bool,
    /// The probe failed before any HTTP answer, for a reason of the network rather than
    /// of the link's own server (no DNS, no route).
    pub(crate) network_failure: bool,
    /// The host gave no answer within the probe's own timeout.
    pub(crate) host_silent: bool,
}

impl Probed {
    /// A verdict remembered from an earlier probe or read.
    pub(crate) fn remembered(verdict: Verdict) -> Probed {
        Probed {
            verdict,
            cacheable: true,
            network_failure: false,
            host_silent: false,
        }
    }
}

struct Entry {
    verdict: Verdict,
    stored: Instant,
    expires: Instant,
}

/// Verdicts by canonical URL, with in-flight coalescing.
pub(crate) struct VerdictCache {
    entries: DashMap<String, Entry>,
    in_flight: Flights<Probed>,
    ttl_verified: Duration,
    ttl_failed: Duration,
    max_entries: usize,
    /// Verdicts shared with other replicas, asked after this cache and before a probe.
    shared: Option<Arc<dyn BotState>>,
}

impl VerdictCache {
    /// A cache keeping verified verdicts for `ttl_verified`, others for `ttl_failed`,
    /// and at most `max_entries` of them (0 keeps none).
    pub(crate) fn new(ttl_verified: Duration, ttl_failed: Duration, max_entries: usize) -> Self {
        VerdictCache {
            entries: DashMap::new(),
            in_flight: Flights::default(),
            ttl_verified,
            ttl_failed,
            max_entries,
            shared: None,
        }
    }

    /// Also asks `shared` (other replicas' verdicts) before probing, and shares what
    /// probes find there.
    pub(crate) fn with_shared(mut self, shared: Option<Arc<dyn BotState>>) -> Self {
        self.shared = shared;
        self
    }

    /// How long a verdict of this class is remembered.
    fn ttl_for(&self, verdict: &Verdict) -> Duration {
        if verdict.class == VerdictClass::Verified {
            self.ttl_verified
        } else {
            self.ttl_failed
        }
    }

    /// The remembered verdict for `key`, if it has not expired.
    pub(crate) fn get(&self, key: &str) -> Option<Verdict> {
        let now = Instant::now();
        let found = self
            .entries
            .get(key)
            .map(|e| (e.expires > now, e.verdict.clone()));
        match found {
            Some((true, verdict)) => Some(verdict),
            Some((false, _)) => {
                self.entries.remove_if(key, |_, e| e.expires <= now);
                None
            }
            None => None,
        }
    }

    /// Remembers `verdict` for `key`.
    pub(crate) fn insert(&self, key: &str, verdict: Verdict) {
        let ttl = self.ttl_for(&verdict);
        self.insert_for(key, verdict, ttl);
    }

    /// Remembers `verdict` for `key`, for `ttl` at most.
    fn insert_for(&self, key: &str, verdict: Verdict, ttl: Duration) {
        if self.max_entries == 0 {
            return;
        }
        let ttl = ttl.min(self.ttl_for(&verdict));
        if ttl.is_zero() {
            return;
        }
        if self.entries.len() >= self.max_entries && !self.entries.contains_key(key) {
            self.evict();
        }
        let now = Instant::now();
        self.entries.insert(
            key.to_string(),
            Entry {
                verdict,
                stored: now,
                expires: now + ttl,
            },
        );
    }

    /// Drops expired entries, then the oldest, down to nine tenths of the cap, so the
    /// cost of a sweep is spread over many inserts.
    fn evict(&self) {
        let now = Instant::now();
        self.entries.retain(|_, e| e.expires > now);
        let target = self.max_entries - self.max_entries / 10 - 1;
        if self.entries.len() <= target {
            return;
        }
        let mut by_age: Vec<(Instant, String)> = self
            .entries
            .iter()
            .map(|e| (e.value().stored, e.key().clone()))
            .collect();
        let excess = by_age.len() - target;
        by_age.select_nth_unstable_by(excess - 1, |a, b| a.0.cmp(&b.0));
        for (_, key) in by_age.into_iter().take(excess) {
            self.entries.remove(&key);
        }
    }

    /// Remembers what a page read found about its link (when it may be kept), here and
    /// for other replicas: the read settles the verdict as a probe would.
    pub(crate) async fn settle(&self, key: &str, probed: &Probed) {
        if !probed.cacheable {
            return;
        }
        self.insert(key, probed.verdict.clone());
        if let Some(shared) = &self.shared {
            let ttl = self.ttl_for(&probed.verdict);
            shared.share_verdict(key, &probed.verdict, ttl).await;
        }
    }

    /// Entries held (expired ones included until swept).
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// The verdict for `key`: remembered here or by another replica, or shared with a
    /// probe already running, or from `probe` run now. The flag says whether it came
    /// from a cache.
    pub(crate) async fn get_or_probe<F>(&self, key: &str, probe: F) -> (Probed, bool)
    where
        F: Future<Output = Probed>,
    {
        let remembered = Probed::remembered;
        if let Some(verdict) = self.get(key) {
            return (remembered(verdict), true);
        }
        if let Some(shared) = &self.shared {
            if let Some((verdict, left)) = shared.shared_verdict(key).await {
                self.insert_for(key, verdict.clone(), left);
                return (remembered(verdict), true);
            }
        }
        let probed = self
            .in_flight
            .run(
                key,
                async {
                    let probed = probe.await;
                    if probed.cacheable {
                        self.insert(key, probed.verdict.clone());
                        if let Some(shared) = &self.shared {
                            let ttl = self.ttl_for(&probed.verdict);
                            shared.share_verdict(key, &probed.verdict, ttl).await;
                        }
                    }
                    probed
                },
                Probed::clone,
            )
            .await;
        (probed, false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn verdict(class: VerdictClass) -> Verdict {
        Verdict {
            class,
            status_code: Some(200),
            final_url: None,
            elapsed_ms: Some(1),
            reason: None,
        }
    }

    fn probed(class: VerdictClass) -> Probed {
        Probed {
            verdict: verdict(class),
            cacheable: true,
            network_failure: false,
            host_silent: false,
        }
    }

    #[tokio::test]
    async fn verified_and_failed_verdicts_expire_on_their_own_ttls() {
        let cache = VerdictCache::new(Duration::from_secs(3600), Duration::from_millis(30), 10);
        cache.insert("ok", verdict(VerdictClass::Verified));
        cache.insert("bad", verdict(VerdictClass::Broken));
        assert!(cache.get("bad").is_some());
        tokio::time::sleep(Duration::from_millis(60)).await;
        assert!(cache.get("bad").is_none(), "failure outlived its TTL");
        assert!(cache.get("ok").is_some(), "verified verdict expired early");
    }

    #[test]
    fn the_entry_count_stays_bounded() {
        let cache = VerdictCache::new(Duration::from_secs(3600), Duration::from_secs(3600), 100);
        for i in 0..10_000 {
            cache.insert(
                &format!("https://e.com/{i}"),
                verdict(VerdictClass::Verified),
            );
            assert!(
                cache.len() <= 100,
                "{} entries after {i} inserts",
                cache.len()
            );
        }
        // The newest survive eviction.
        assert!(cache.get("https://e.com/9999").is_some());
        assert!(cache.get("https://e.com/0").is_none());
    }

    #[tokio::test]
    async fn concurrent_checks_of_one_url_share_one_probe() {
        let cache = Arc::new(VerdictCache::new(
            Duration::from_secs(3600),
            Duration::from_secs(300),
            10,
        ));
        let probes = Arc::new(AtomicUsize::new(0));
        let mut tasks = Vec::new();
        for _ in 0..20 {
            let cache = cache.clone();
            let probes = probes.clone();
            tasks.push(tokio::spawn(async move {
                cache
                    .get_or_probe("https://e.com/", async {
                        probes.fetch_add(1, Ordering::SeqCst);
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        probed(VerdictClass::Verified)
                    })
                    .await
            }));
        }
        for task in tasks {
            let (probed, _) = task.await.expect("task");
            assert_eq!(probed.verdict.class, VerdictClass::Verified);
        }
        assert_eq!(probes.load(Ordering::SeqCst), 1);
        let (_, from_cache) = cache
            .get_or_probe("https://e.com/", async { probed(VerdictClass::Broken) })
            .await;
        assert!(from_cache);
    }

    #[tokio::test]
    async fn verdicts_marked_uncacheable_are_not_kept() {
        let cache = VerdictCache::new(Duration::from_secs(3600), Duration::from_secs(300), 10);
        let mut offline = probed(VerdictClass::Unreachable);
        offline.cacheable = false;
        cache.get_or_probe("k", async { offline }).await;
        assert!(cache.get("k").is_none());
    }

    #[tokio::test]
    async fn an_abandoned_probe_is_taken_over_by_the_next_check() {
        let cache = Arc::new(VerdictCache::new(
            Duration::from_secs(3600),
            Duration::from_secs(300),
            10,
        ));
        let slow = tokio::time::timeout(
            Duration::from_millis(20),
            cache.get_or_probe("k", async {
                tokio::time::sleep(Duration::from_secs(60)).await;
                probed(VerdictClass::Verified)
            }),
        );
        assert!(slow.await.is_err());
        assert!(
            cache.in_flight.is_empty(),
            "an abandoned probe stays in flight"
        );
        let (probed, from_cache) = cache
            .get_or_probe("k", async { probed(VerdictClass::Broken) })
            .await;
        assert_eq!(probed.verdict.class, VerdictClass::Broken);
        assert!(!from_cache);
    }
}
