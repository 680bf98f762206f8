//! Pages read, remembered beside the verdicts, and one fetch per URL however many
//! checks ask at once.
//!
//! A page read is kept as long as a verified verdict, a page that could not be read as
//! long as a failed one. The table is bounded twice: in entries and in bytes of text
//! held (a page larger than the byte bound is not kept at all); past either, expired
//! pages go first, then the oldest. Checks of a URL being fetched wait for that fetch;
//! if it is abandoned, the next waiter takes over. Both tables sit behind std mutexes:
//! they are held for map operations only, never across an await.

use super::fetch::Fetched;
use super::flights::Flights;
use crate::page::PageRead;
use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

struct Entry {
    page: Arc<PageRead>,
    bytes: usize,
    stored: Instant,
    expires: Instant,
}

#[derive(Default)]
struct Table {
    entries: HashMap<String, Entry>,
    bytes: usize,
}

impl Table {
    fn remove(&mut self, key: &str) {
        if let Some(entry) = self.entries.remove(key) {
            self.bytes -= entry.bytes;
        }
    }
}

/// Pages by URL, with in-flight coalescing.
pub(crate) struct PageCache {
    table: Mutex<Table>,
    in_flight: Flights<Fetched>,
    ttl_read: Duration,
    ttl_failed: Duration,
    max_entries: usize,
    max_bytes: usize,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while holding the lock leaves the maps consistent: keep using them.
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// What a page costs to keep, roughly: its text, title, URL and dates, and the entry.
fn weight(key: &str, page: &PageRead) -> usize {
    let held = match page {
        PageRead::Read(page) => {
            page.text.len()
                + page.title.as_ref().map_or(0, String::len)
                + page.final_url.as_ref().map_or(0, String::len)
                + [&page.signals.published, &page.signals.updated]
                    .iter()
                    .map(|date| date.as_ref().map_or(0, String::len))
                    .sum::<usize>()
        }
        PageRead::Unreadable(reason) => reason.len(),
    };
    held + key.len() + std::mem::size_of::<Entry>() + std::mem::size_of::<PageRead>()
}

impl PageCache {
    /// A cache keeping pages read for `ttl_read`, others for `ttl_failed`, at most
    /// `max_entries` of them (0 keeps none) and `max_bytes` in all.
    pub(crate) fn new(
        ttl_read: Duration,
        ttl_failed: Duration,
        max_entries: usize,
        max_bytes: usize,
    ) -> PageCache {
        PageCache {
            table: Mutex::new(Table::default()),
            in_flight: Flights::default(),
            ttl_read,
            ttl_failed,
            max_entries,
            max_bytes,
        }
    }

    /// The remembered page for `key`, if it has not expired.
    pub(crate) fn get(&self, key: &str) -> Option<Arc<PageRead>> {
        let now = Instant::now();
        let mut table = lock(&self.table);
        let expired = match table.entries.get(key) {
            Some(entry) if entry.expires > now => return Some(entry.page.clone()),
            Some(_) => true,
            None => false,
        };
        if expired {
            table.remove(key);
        }
        None
    }

    /// Remembers `page` for `key`, within both bounds.
    pub(crate) fn insert(&self, key: &str, page: Arc<PageRead>) {
        let ttl = match *page {
            PageRead::Read(_) => self.ttl_read,
            PageRead::Unreadable(_) => self.ttl_failed,
        };
        let bytes = weight(key, &page);
        if self.max_entries == 0 || ttl.is_zero() || bytes > self.max_bytes {
            return;
        }
        let now = Instant::now();
        let mut table = lock(&self.table);
        table.remove(key);
        if table.entries.len() >= self.max_entries || table.bytes + bytes > self.max_bytes {
            self.evict(&mut table, bytes, now);
        }
        table.bytes += bytes;
        table.entries.insert(
            key.to_string(),
            Entry {
                page,
                bytes,
                stored: now,
                expires: now + ttl,
            },
        );
    }

    /// Makes room for `incoming` bytes: drops expired pages, then the oldest, down to
    /// nine tenths of each bound, so the cost of a sweep is spread over many inserts.
    fn evict(&self, table: &mut Table, incoming: usize, now: Instant) {
        let expired: Vec<String> = table
            .entries
            .iter()
            .filter(|(_, e)| e.expires <= now)
            .map(|(k, _)| k.clone())
            .collect();
        for key in expired {
            table.remove(&key);
        }
        let entry_target = self.max_entries - self.max_entries / 10 - 1;
        let byte_target = (self.max_bytes - self.max_bytes / 10).saturating_sub(incoming);
        if table.entries.len() <= entry_target && table.bytes <= byte_target {
            return;
        }
        let mut by_age: Vec<(Instant, String)> = table
            .entries
            .iter()
            .map(|(k, e)| (e.stored, k.clone()))
            .collect();
        by_age.sort_unstable_by_key(|(stored, _)| *stored);
        for (_, key) in by_age {
            if table.entries.len() <= entry_target && table.bytes <= byte_target {
                break;
            }
            table.remove(&key);
        }
    }

    /// Pages held (expired ones included until swept).
    pub(crate) fn len(&self) -> usize {
        lock(&self.table).entries.len()
    }

    /// Bytes of pages held.
    pub(crate) fn bytes(&self) -> usize {
        lock(&self.table).bytes
    }

    /// The page for `key`: remembered, or shared with a fetch already running, or from
    /// `fetch` run now. The flag says whether it came from the cache.
    pub(crate) async fn get_or_fetch<F>(&self, key: &str, fetch: F) -> (Arc<PageRead>, bool)
    where
        F: Future<Output = Fetched>,
    {
        if let Some(page) = self.get(key) {
            return (page, true);
        }
        let page = self
            .in_flight
            .run(
                key,
                async {
                    let fetched = fetch.await;
                    if fetched.cacheable {
                        self.insert(key, fetched.page.clone());
                    }
                    fetched
                },
                |fetched| fetched.page.clone(),
            )
            .await;
        (page, false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::page::{Page, PageKind};
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn read(text: &str) -> Arc<PageRead> {
        Arc::new(PageRead::Read(Page {
            final_url: None,
            title: None,
            text: text.to_string(),
            kind: PageKind::Text,
            truncated: false,
            signals: Default::default(),
        }))
    }

    fn fetched(page: Arc<PageRead>) -> Fetched {
        Fetched {
            page,
            cacheable: true,
            answered: true,
        }
    }

    const HOUR: Duration = Duration::from_secs(3600);

    #[tokio::test]
    async fn pages_and_failures_expire_on_their_own_ttls() {
        let cache = PageCache::new(HOUR, Duration::from_millis(30), 10, 1 << 20);
        cache.insert("ok", read("text"));
        cache.insert(
            "bad",
            Arc::new(PageRead::unreadable("the server answered 404")),
        );
        assert!(cache.get("bad").is_some());
        tokio::time::sleep(Duration::from_millis(60)).await;
        assert!(cache.get("bad").is_none(), "a failure outlived its TTL");
        assert!(cache.get("ok").is_some(), "a page expired early");
    }

    #[test]
    fn entries_and_bytes_stay_bounded() {
        let cache = PageCache::new(HOUR, HOUR, 100, 64 << 10);
        let text = "x".repeat(4 << 10);
        for i in 0..1000 {
            cache.insert(&format!("https://e.com/{i}"), read(&text));
            assert!(cache.len() <= 100, "{} pages", cache.len());
            assert!(cache.bytes() <= 64 << 10, "{} bytes", cache.bytes());
        }
        assert!(
            cache.get("https://e.com/999").is_some(),
            "the newest was dropped"
        );
        assert!(cache.get("https://e.com/0").is_none());
        let small = PageCache::new(HOUR, HOUR, 1000, 1 << 20);
        for i in 0..5000 {
            small.insert(&format!("k{i}"), read("tiny"));
        }
        assert!(small.len() <= 1000);
        let huge = "y".repeat(2 << 20);
        small.insert("huge", read(&huge));
        assert!(
            small.get("huge").is_none(),
            "a page over the byte bound was kept"
        );
        assert!(small.bytes() <= 1 << 20);
    }

    #[tokio::test]
    async fn concurrent_reads_of_one_url_share_one_fetch() {
        let cache = Arc::new(PageCache::new(HOUR, HOUR, 10, 1 << 20));
        let fetches = Arc::new(AtomicUsize::new(0));
        let mut tasks = Vec::new();
        for _ in 0..20 {
            let cache = cache.clone();
            let fetches = fetches.clone();
            tasks.push(tokio::spawn(async move {
                cache
                    .get_or_fetch("https://e.com/", async {
                        fetches.fetch_add(1, Ordering::SeqCst);
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        fetched(read("shared"))
                    })
                    .await
            }));
        }
        for task in tasks {
            let (page, _) = task.await.expect("task");
            assert_eq!(page.page().map(|p| p.text.as_str()), Some("shared"));
        }
        assert_eq!(fetches.load(Ordering::SeqCst), 1);
        let (_, cached) = cache
            .get_or_fetch("https://e.com/", async { fetched(read("other")) })
            .await;
        assert!(cached);
        assert!(cache.in_flight.is_empty());
    }

    #[tokio::test]
    async fn uncacheable_and_abandoned_fetches_are_not_kept() {
        let cache = PageCache::new(HOUR, HOUR, 10, 1 << 20);
        let mut offline = fetched(Arc::new(PageRead::unreadable("no route")));
        offline.cacheable = false;
        cache.get_or_fetch("k", async { offline }).await;
        assert!(cache.get("k").is_none());
        let slow = tokio::time::timeout(
            Duration::from_millis(20),
            cache.get_or_fetch("slow", async {
                tokio::time::sleep(HOUR).await;
                fetched(read("never"))
            }),
        );
        assert!(slow.await.is_err());
        assert!(
            cache.in_flight.is_empty(),
            "an abandoned fetch stays in flight"
        );
        let (page, cached) = cache
            .get_or_fetch("slow", async { fetched(read("second")) })
            .await;
        assert_eq!(page.page().map(|p| p.text.as_str()), Some("second"));
        assert!(!cached);
    }
}
