//! [`BotState`] in this process: the default for one replica. Deliveries are kept as
//! 64-bit hashes in two generations ([`TtlSet`]); shares, evidence and replies in a bounded map
//! with expiry ([`TtlMap`]); post slots and back-offs in [`LocalLimits`]. Every operation is O(1) but for the sweep a full map does
//! before it grows past its bound. The locks are std mutexes (dashmap's shards for the
//! maps): no lock is held across an `.await`.

use super::pace::LocalLimits;
use super::{
    AnswerKey, BotState, ReplyRecord, DEDUPE_MAX, DEDUPE_TTL, EVIDENCE_MAX, EVIDENCE_TTL,
    REPLY_MAX, REPLY_TTL, SHARE_MAX, SHARE_TTL,
};
use async_trait::async_trait;
use dashmap::DashMap;
use std::collections::HashSet;
use std::hash::Hash;
use std::time::{Duration, Instant};

/// The bot's state in memory. Cloning is not offered: share it behind an `Arc`.
pub struct MemoryState {
    limits: LocalLimits,
    tokens: TokenCounts,
    locks: NamedLocks,
    deliveries: TtlSet,
    shares: TtlMap<String, serde_json::Value>,
    evidence: TtlMap<String, serde_json::Value>,
    replies: TtlMap<AnswerKey, ReplyRecord>,
    settings_versions: DashMap<String, u64>,
}

impl MemoryState {
    /// Empty state with the documented TTLs and bounds.
    pub fn new() -> MemoryState {
        MemoryState {
            limits: LocalLimits::new(),
            tokens: TokenCounts::default(),
            locks: NamedLocks::default(),
            deliveries: TtlSet::new(DEDUPE_TTL, DEDUPE_MAX),
            shares: TtlMap::new(SHARE_TTL, SHARE_MAX),
            evidence: TtlMap::new(EVIDENCE_TTL, EVIDENCE_MAX),
            replies: TtlMap::new(REPLY_TTL, REPLY_MAX),
            settings_versions: DashMap::new(),
        }
    }
}

impl Default for MemoryState {
    fn default() -> Self {
        MemoryState::new()
    }
}

#[async_trait]
impl BotState for MemoryState {
    async fn first_delivery(&self, delivery_id: &str) -> bool {
        self.deliveries.insert(delivery_id)
    }

    async fn keep_share(&self, key: &str, message: serde_json::Value) {
        self.shares.insert(key.to_string(), message);
    }

    async fn take_share(&self, key: &str) -> Option<serde_json::Value> {
        self.shares.take(&key.to_string())
    }

    async fn keep_evidence(&self, key: &str, view: serde_json::Value) {
        self.evidence.insert(key.to_string(), view);
    }

    async fn evidence(&self, key: &str) -> Option<serde_json::Value> {
        self.evidence.get(&key.to_string())
    }

    async fn reply_to(&self, answer: &AnswerKey) -> Option<ReplyRecord> {
        self.replies.get(answer)
    }

    async fn remember_reply(&self, answer: &AnswerKey, reply: ReplyRecord) {
        self.replies.insert(answer.clone(), reply);
    }

    async fn forget_reply(&self, answer: &AnswerKey) {
        self.replies.take(answer);
    }

    async fn lock(&self, name: &str, holder: &str, ttl: Duration) -> bool {
        self.locks.lock(name, holder, ttl)
    }

    async fn unlock(&self, name: &str, holder: &str) {
        self.locks.unlock(name, holder);
    }

    async fn next_post_slot(&self, channel: &str, pace: Duration) -> Duration {
        self.limits.next_post_slot(channel, pace)
    }

    async fn hold_back(&self, method: &str, wait: Duration) {
        self.limits.hold_back(method, wait);
    }

    async fn held_back(&self, method: &str) -> Duration {
        self.limits.held_back(method)
    }

    async fn add_model_tokens(&self, day: &str, tokens: u64) -> u64 {
        self.tokens.add(day, tokens)
    }

    async fn model_tokens(&self, day: &str) -> u64 {
        self.tokens.get(day)
    }

    async fn settings_version(&self, workspace: &str) -> u64 {
        self.settings_versions
            .get(workspace)
            .map(|version| *version)
            .unwrap_or(0)
    }

    async fn bump_settings_version(&self, workspace: &str) -> u64 {
        let mut version = self
            .settings_versions
            .entry(workspace.to_string())
            .or_insert(0);
        *version = version.wrapping_add(1);
        *version
    }

    async fn forget_scope(&self, scope: &str) -> usize {
        let prefix = super::scoped::scope_prefix(scope);
        self.shares.remove_where(|key| key.starts_with(&prefix))
            + self.evidence.remove_where(|key| key.starts_with(&prefix))
            + self
                .replies
                .remove_where(|answer| answer.channel.starts_with(&prefix))
            + self.locks.remove_where(|name| name.starts_with(&prefix))
            + self.limits.remove_where(|name| name.starts_with(&prefix))
    }
}

/// Language-model tokens counted per day (`YYYY-MM-DD`). Only the newest days are
/// kept: adding to a day drops all but the two latest.
#[derive(Debug, Default)]
pub struct TokenCounts {
    days: std::sync::Mutex<Vec<(String, u64)>>,
}

impl TokenCounts {
    /// Adds `tokens` to `day` and returns its total.
    pub fn add(&self, day: &str, tokens: u64) -> u64 {
        let mut days = self
            .days
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let total = match days.iter_mut().find(|(d, _)| d == day) {
            Some((_, count)) => {
                *count = count.saturating_add(tokens);
                *count
            }
            None => {
                days.push((day.to_string(), tokens));
                tokens
            }
        };
        // ISO dates sort as text: keep the two latest.
        days.sort_by(|a, b| b.0.cmp(&a.0));
        days.truncate(2);
        total
    }

    /// The total of `day`.
    pub fn get(&self, day: &str) -> u64 {
        let days = self
            .days
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        days.iter().find(|(d, _)| d == day).map_or(0, |(_, n)| *n)
    }
}

/// Named locks: who holds each and until when. Entries go when released; expired
/// ones are swept once there are [`REPLY_MAX`] of them.
#[derive(Default)]
pub struct NamedLocks {
    held: DashMap<String, (String, Instant)>,
}

impl NamedLocks {
    /// Takes the lock `name` for `holder` until `ttl` from now; false while another
    /// holder has it.
    pub fn lock(&self, name: &str, holder: &str, ttl: Duration) -> bool {
        let now = Instant::now();
        if self.held.len() >= REPLY_MAX {
            self.held.retain(|_, (_, until)| *until > now);
        }
        let mut entry = self
            .held
            .entry(name.to_string())
            .or_insert_with(|| (holder.to_string(), now + ttl));
        let (owner, until) = entry.value_mut();
        if owner == holder || *until <= now {
            *owner = holder.to_string();
            *until = now + ttl;
            return true;
        }
        false
    }

    /// Releases the lock `name` if `holder` has it.
    pub fn unlock(&self, name: &str, holder: &str) {
        self.held.remove_if(name, |_, (owner, _)| owner == holder);
    }

    /// Drops the locks whose name `doomed` picks; how many went.
    pub fn remove_where(&self, doomed: impl Fn(&str) -> bool) -> usize {
        let before = self.held.len();
        self.held.retain(|name, _| !doomed(name));
        before.saturating_sub(self.held.len())
    }
}

/// Ids seen recently, in two generations: an id is remembered for at least one
/// generation's span (TTL / 2, which covers Slack's last retry after 5 minutes) and at
/// most two. Ids are kept as 64-bit hashes; each check is O(1) and a generation ends by
/// dropping the older set whole, so no request ever waits on a sweep. A generation that
/// fills up (max / 2 ids) ends early, and the log says that retries older than its span
/// may then be done again.
pub struct TtlSet {
    generations: std::sync::Mutex<Generations>,
    span: Duration,
    per_generation: usize,
}

struct Generations {
    current: HashSet<u64>,
    previous: HashSet<u64>,
    started: Instant,
}

impl TtlSet {
    /// An empty set remembering ids for `ttl` at most, `max` at most.
    pub fn new(ttl: Duration, max: usize) -> TtlSet {
        TtlSet {
            generations: std::sync::Mutex::new(Generations {
                current: HashSet::new(),
                previous: HashSet::new(),
                started: Instant::now(),
            }),
            span: ttl / 2,
            per_generation: (max / 2).max(1),
        }
    }

    /// True when `id` was not seen recently (and remembers it now).
    pub fn insert(&self, id: &str) -> bool {
        let hash = super::digest(id.as_bytes());
        let Ok(mut generations) = self.generations.lock() else {
            // A panic elsewhere poisoned the lock: treat every delivery as new rather
            // than drop them all.
            return true;
        };
        let full = generations.current.len() >= self.per_generation;
        if full || generations.started.elapsed() >= self.span {
            if full {
                tracing::warn!(
                    ids = self.per_generation,
                    "delivery ids arrive faster than they can be remembered for 5 minutes: late retries may be done twice"
                );
            }
            let current = std::mem::take(&mut generations.current);
            generations.previous = current;
            generations.started = Instant::now();
        }
        if generations.previous.contains(&hash) {
            return false;
        }
        generations.current.insert(hash)
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.generations
            .lock()
            .map(|g| g.current.len() + g.previous.len())
            .unwrap_or_default()
    }
}

/// A map whose entries expire `ttl` after they were written, holding at most `max`: a
/// write to a full map first drops the expired entries, then the oldest tenth.
pub struct TtlMap<K, V> {
    entries: DashMap<K, (Instant, V)>,
    ttl: Duration,
    max: usize,
}

impl<K: Eq + Hash + Clone, V: Clone> TtlMap<K, V> {
    /// An empty map.
    pub fn new(ttl: Duration, max: usize) -> Self {
        TtlMap {
            entries: DashMap::new(),
            ttl,
            max: max.max(1),
        }
    }

    /// Writes `value` under `key`, now.
    pub fn insert(&self, key: K, value: V) {
        if self.entries.len() >= self.max && !self.entries.contains_key(&key) {
            self.make_room();
        }
        self.entries.insert(key, (Instant::now(), value));
    }

    /// The value under `key`, if it has not expired.
    pub fn get(&self, key: &K) -> Option<V> {
        let entry = self.entries.get(key)?;
        (entry.0.elapsed() < self.ttl).then(|| entry.1.clone())
    }

    /// Removes and returns the value under `key`, if it has not expired.
    pub fn take(&self, key: &K) -> Option<V> {
        let (_, (at, value)) = self.entries.remove(key)?;
        (at.elapsed() < self.ttl).then_some(value)
    }

    /// Drops the entries whose key `doomed` picks; how many went.
    pub fn remove_where(&self, doomed: impl Fn(&K) -> bool) -> usize {
        let before = self.entries.len();
        self.entries.retain(|key, _| !doomed(key));
        before.saturating_sub(self.entries.len())
    }

    /// How many entries are held (expired ones included until a sweep).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the map holds nothing.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    fn make_room(&self) {
        self.entries.retain(|_, (at, _)| at.elapsed() < self.ttl);
        if self.entries.len() < self.max {
            return;
        }
        let mut ages: Vec<Instant> = self.entries.iter().map(|e| e.value().0).collect();
        ages.sort_unstable();
        let drop = (self.max / 10).max(1);
        if let Some(&cutoff) = ages.get(drop - 1) {
            self.entries.retain(|_, (at, _)| *at > cutoff);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_delivery_is_done_once_within_the_ttl() {
        let seen = TtlSet::new(Duration::from_secs(600), 10);
        assert!(seen.insert("Ev1"));
        assert!(!seen.insert("Ev1"));
        assert!(seen.insert("Ev2"));
        // Remembered across one generation change, forgotten after two.
        let short = TtlSet::new(Duration::from_millis(40), 10);
        assert!(short.insert("Ev1"));
        std::thread::sleep(Duration::from_millis(25));
        assert!(!short.insert("Ev1"), "forgotten within the TTL");
        std::thread::sleep(Duration::from_millis(50));
        assert!(short.insert("Ev3"));
        std::thread::sleep(Duration::from_millis(25));
        assert!(short.insert("Ev1"), "remembered past its TTL");
    }

    #[test]
    fn the_delivery_memory_stays_bounded() {
        let seen = TtlSet::new(Duration::from_secs(600), 100);
        for i in 0..10_000 {
            assert!(seen.insert(&format!("Ev{i}")));
            assert!(seen.len() <= 100);
        }
        assert!(!seen.insert("Ev9999"), "the newest was forgotten");
    }

    #[test]
    fn map_entries_expire_and_the_map_stays_bounded() {
        let map = TtlMap::new(Duration::from_millis(30), 100);
        map.insert("a".to_string(), 1);
        assert_eq!(map.get(&"a".to_string()), Some(1));
        std::thread::sleep(Duration::from_millis(40));
        assert_eq!(map.get(&"a".to_string()), None);
        let map = TtlMap::new(Duration::from_secs(60), 100);
        for i in 0..1_000 {
            map.insert(i, i);
            assert!(map.len() <= 100);
        }
        assert_eq!(map.get(&999), Some(999), "the newest is kept");
        assert_eq!(map.get(&0), None, "the oldest went first");
        assert_eq!(map.take(&999), Some(999));
        assert_eq!(map.take(&999), None, "taken once");
    }

    #[tokio::test]
    async fn replies_are_remembered_and_forgotten() {
        let state = MemoryState::new();
        let answer = AnswerKey {
            channel: "C1".into(),
            ts: "1.1".into(),
        };
        assert_eq!(state.reply_to(&answer).await, None);
        let reply = ReplyRecord {
            channel: "C1".into(),
            ts: "1.2".into(),
            content_digest: 1,
            shown_digest: 2,
            ..ReplyRecord::default()
        };
        state.remember_reply(&answer, reply.clone()).await;
        assert_eq!(state.reply_to(&answer).await, Some(reply));
        state.forget_reply(&answer).await;
        assert_eq!(state.reply_to(&answer).await, None);
        assert!(state.first_delivery("Ev1").await);
        assert!(!state.first_delivery("Ev1").await);
        state
            .keep_share("k", serde_json::json!({"text": "t"}))
            .await;
        assert!(state.take_share("k").await.is_some());
        assert!(state.take_share("k").await.is_none());
        // Evidence is read as often as the button is pressed.
        let view = serde_json::json!({"type": "modal"});
        assert_eq!(state.evidence("e").await, None);
        state.keep_evidence("e", view.clone()).await;
        assert_eq!(state.evidence("e").await, Some(view.clone()));
        assert_eq!(state.evidence("e").await, Some(view));
    }
}
