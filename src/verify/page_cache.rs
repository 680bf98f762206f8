//! Pages read, remembered beside the verdicts, and one read per URL however many
//! checks ask at once.
//!
//! Each entry holds a page as read ([`Held`]: its body until something asks for its
//! text, then the text, or why there is none) and the verdict the same request gave,
//! so a page read for the support check also settles its link's verdict. A page read
//! (or a body waiting to be) is kept as long as a verified verdict, a page that could
//! not be read as long as a failed one. The table is bounded twice: in entries and in
//! bytes held (a page larger than the byte bound is not kept at all); past either,
//! expired pages go first, then the oldest. Checks of a URL being read wait for that
//! read, and the text of a body is extracted once however many ask; if a read is
//! abandoned, the next waiter takes over. Internal documents (read through a product's
//! API for the support check) are kept here too, under keys of their own, the same
//! way: in this process only, never in shared state or a database. The table sits
//! behind a std mutex: it is held for map operations only, never across an await.

use super::fetch::{Fetched, Held};
use super::flights::Flights;
use crate::model::Verdict;
use crate::page::PageRead;
use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

struct Entry {
    held: Held,
    verdict: Verdict,
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

/// Pages by URL, with in-flight coalescing of reads and of extractions.
pub(crate) struct PageCache {
    table: Mutex<Table>,
    reads: Flights<Fetched>,
    extractions: Flights<Arc<PageRead>>,
    documents: Flights<Option<Arc<PageRead>>>,
    ttl_read: Duration,
    ttl_failed: Duration,
    max_entries: usize,
    max_bytes: usize,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while holding the lock leaves the maps consistent: keep using them.
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// What a page costs to keep, roughly: its body, or its text, title, URL and dates;
/// the verdict's words, and the entry.
fn weight(key: &str, held: &Held, verdict: &Verdict) -> usize {
    let held = match held {
        Held::Body(body) => {
            body.bytes.len()
                + body.final_url.len()
                + body.content_type.as_ref().map_or(0, String::len)
        }
        Held::Page(page) => match &**page {
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
        },
    };
    let verdict = verdict.reason.as_ref().map_or(0, String::len)
        + verdict.final_url.as_ref().map_or(0, String::len);
    held + verdict + key.len() + std::mem::size_of::<Entry>() + std::mem::size_of::<PageRead>()
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
            reads: Flights::default(),
            extractions: Flights::default(),
            documents: Flights::default(),
            ttl_read,
            ttl_failed,
            max_entries,
            max_bytes,
        }
    }

    /// How long a page held this way is kept.
    fn ttl_for(&self, held: &Held) -> Duration {
        match held {
            Held::Body(_) => self.ttl_read,
            Held::Page(page) => match **page {
                PageRead::Read(_) => self.ttl_read,
                PageRead::Unreadable(_) => self.ttl_failed,
            },
        }
    }

    /// The remembered page for `key` and the verdict its read gave, if it has not
    /// expired.
    pub(crate) fn get(&self, key: &str) -> Option<(Held, Verdict)> {
        let now = Instant::now();
        let mut table = lock(&self.table);
        let expired = match table.entries.get(key) {
            Some(entry) if entry.expires > now => {
                return Some((entry.held.clone(), entry.verdict.clone()))
            }
            Some(_) => true,
            None => false,
        };
        if expired {
            table.remove(key);
        }
        None
    }

    /// The verdict the remembered read of `key` gave, if there is one.
    pub(crate) fn verdict(&self, key: &str) -> Option<Verdict> {
        self.get(key).map(|(_, verdict)| verdict)
    }

    /// Remembers `held` and `verdict` for `key`, within both bounds.
    pub(crate) fn insert(&self, key: &str, held: Held, verdict: Verdict) {
        let now = Instant::now();
        let ttl = self.ttl_for(&held);
        self.put(key, held, verdict, now, now + ttl);
    }

    /// Puts an entry stored at `stored` and expiring at `expires`, within both bounds.
    fn put(&self, key: &str, held: Held, verdict: Verdict, stored: Instant, expires: Instant) {
        let bytes = weight(key, &held, &verdict);
        let now = Instant::now();
        if self.max_entries == 0 || expires <= now || bytes > self.max_bytes {
            return;
        }
        let mut table = lock(&self.table);
        table.remove(key);
        if table.entries.len() >= self.max_entries || table.bytes + bytes > self.max_bytes {
            self.evict(&mut table, bytes, now);
        }
        table.bytes += bytes;
        table.entries.insert(
            key.to_string(),
            Entry {
                held,
                verdict,
                bytes,
                stored,
                expires,
            },
        );
    }

    /// Replaces the body held for `key` by its text, keeping the entry's age (a page
    /// that turned out unreadable goes when a failure would have). Remembers it anew
    /// if the body is gone.
    fn settle(&self, key: &str, page: Arc<PageRead>, verdict: &Verdict) {
        let held = Held::Page(page);
        let now = Instant::now();
        let ttl = self.ttl_for(&held);
        let (stored, expires) = match lock(&self.table).entries.get(key) {
            Some(entry) => (entry.stored, entry.expires.min(entry.stored + ttl)),
            None => (now, now + ttl),
        };
        self.put(key, held, verdict.clone(), stored, expires);
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

    /// Whether pages are kept at all (the settings may turn the cache off).
    pub(crate) fn keeps_pages(&self) -> bool {
        self.max_entries > 0 && !self.ttl_read.is_zero()
    }

    /// Pages held (expired ones included until swept).
    pub(crate) fn len(&self) -> usize {
        lock(&self.table).entries.len()
    }

    /// Bytes of pages held.
    pub(crate) fn bytes(&self) -> usize {
        lock(&self.table).bytes
    }

    /// The page for `key` and its verdict: remembered, or shared with a read already
    /// running, or from `read` run now (remembered when its verdict may be). The flag
    /// says whether it came from the cache.
    pub(crate) async fn get_or_read<F>(&self, key: &str, read: F) -> (Fetched, bool)
    where
        F: Future<Output = Fetched>,
    {
        if let Some((held, verdict)) = self.get(key) {
            return (Fetched::remembered(held, verdict), true);
        }
        let fetched = self
            .reads
            .run(
                key,
                async {
                    let fetched = read.await;
                    if fetched.probed.cacheable {
                        self.insert(key, fetched.held.clone(), fetched.probed.verdict.clone());
                    }
                    fetched
                },
                Fetched::clone,
            )
            .await;
        (fetched, false)
    }

    /// The document `read` gives for `key` (an internal source read through its
    /// product's API): remembered, or shared with a read already running, or from
    /// `read` run now, then kept as a page is (the same TTLs and bounds) with its
    /// link's `verdict`. `None`, not kept, when the reader gives no content.
    pub(crate) async fn get_or_read_document<F>(
        &self,
        key: &str,
        verdict: &Verdict,
        read: F,
    ) -> Option<Arc<PageRead>>
    where
        F: Future<Output = Option<PageRead>>,
    {
        if let Some((Held::Page(page), _)) = self.get(key) {
            return Some(page);
        }
        self.documents
            .run(
                key,
                async {
                    let page = read.await.map(Arc::new);
                    if let Some(page) = &page {
                        self.settle(key, page.clone(), verdict);
                    }
                    page
                },
                Clone::clone,
            )
            .await
    }

    /// The text of the body read for `key`: remembered, or shared with an extraction
    /// already running, or from `extract` run now (and held instead of the body).
    pub(crate) async fn get_or_extract<F>(
        &self,
        key: &str,
        verdict: &Verdict,
        extract: F,
    ) -> Arc<PageRead>
    where
        F: Future<Output = Arc<PageRead>>,
    {
        if let Some((Held::Page(page), _)) = self.get(key) {
            return page;
        }
        self.extractions
            .run(
                key,
                async {
                    let page = extract.await;
                    self.settle(key, page.clone(), verdict);
                    page
                },
                Arc::clone,
            )
            .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::page::{Page, PageKind};
    use crate::verify::fetch::Body;
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn read(text: &str) -> Held {
        Held::Page(Arc::new(PageRead::Read(Page {
            final_url: None,
            title: None,
            text: text.to_string(),
            kind: PageKind::Text,
            truncated: false,
            signals: Default::default(),
            read_via: crate::model::ReadVia::Web,
        })))
    }

    fn text_of(held: &Held) -> Option<&str> {
        match held {
            Held::Page(page) => page.page().map(|p| p.text.as_str()),
            Held::Body(_) => None,
        }
    }

    fn unreadable(reason: &str) -> Held {
        Held::Page(Arc::new(PageRead::unreadable(reason)))
    }

    fn verified() -> Verdict {
        Verdict {
            class: crate::model::VerdictClass::Verified,
            status_code: Some(200),
            final_url: None,
            elapsed_ms: Some(1),
            reason: None,
        }
    }

    fn fetched(held: Held) -> Fetched {
        Fetched::remembered(held, verified())
    }

    const HOUR: Duration = Duration::from_secs(3600);

    #[tokio::test]
    async fn pages_and_failures_expire_on_their_own_ttls() {
        let cache = PageCache::new(HOUR, Duration::from_millis(30), 10, 1 << 20);
        cache.insert("ok", read("text"), verified());
        cache.insert("bad", unreadable("the server answered 404"), verified());
        assert!(cache.get("bad").is_some());
        tokio::time::sleep(Duration::from_millis(60)).await;
        assert!(cache.get("bad").is_none(), "a failure outlived its TTL");
        assert!(cache.get("ok").is_some(), "a page expired early");
        assert_eq!(cache.verdict("ok"), Some(verified()));
    }

    #[test]
    fn entries_and_bytes_stay_bounded() {
        let cache = PageCache::new(HOUR, HOUR, 100, 64 << 10);
        let text = "x".repeat(4 << 10);
        for i in 0..1000 {
            cache.insert(&format!("https://e.com/{i}"), read(&text), verified());
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
            small.insert(&format!("k{i}"), read("tiny"), verified());
        }
        assert!(small.len() <= 1000);
        let huge = "y".repeat(2 << 20);
        small.insert("huge", read(&huge), verified());
        assert!(
            small.get("huge").is_none(),
            "a page over the byte bound was kept"
        );
        let body = Held::Body(Arc::new(Body {
            bytes: vec![b'z'; 2 << 20],
            content_type: None,
            truncated: false,
            final_url: String::new(),
        }));
        small.insert("huge body", body, verified());
        assert!(
            small.get("huge body").is_none(),
            "a body over the byte bound was kept"
        );
        assert!(small.bytes() <= 1 << 20);
    }

    #[tokio::test]
    async fn concurrent_reads_of_one_url_share_one_read() {
        let cache = Arc::new(PageCache::new(HOUR, HOUR, 10, 1 << 20));
        let reads = Arc::new(AtomicUsize::new(0));
        let mut tasks = Vec::new();
        for _ in 0..20 {
            let cache = cache.clone();
            let reads = reads.clone();
            tasks.push(tokio::spawn(async move {
                cache
                    .get_or_read("https://e.com/", async {
                        reads.fetch_add(1, Ordering::SeqCst);
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        fetched(read("shared"))
                    })
                    .await
            }));
        }
        for task in tasks {
            let (fetched, _) = task.await.expect("task");
            assert_eq!(text_of(&fetched.held), Some("shared"));
        }
        assert_eq!(reads.load(Ordering::SeqCst), 1);
        let (_, cached) = cache
            .get_or_read("https://e.com/", async { fetched(read("other")) })
            .await;
        assert!(cached);
        assert!(cache.reads.is_empty());
    }

    #[tokio::test]
    async fn a_body_is_extracted_once_and_then_held_as_text() {
        let cache = Arc::new(PageCache::new(HOUR, Duration::from_millis(40), 10, 1 << 20));
        let body = Held::Body(Arc::new(Body {
            bytes: b"plain words".to_vec(),
            content_type: Some("text/plain".into()),
            truncated: false,
            final_url: "https://e.com/".into(),
        }));
        cache.insert("https://e.com/", body, verified());
        let extractions = Arc::new(AtomicUsize::new(0));
        let mut tasks = Vec::new();
        for _ in 0..10 {
            let (cache, extractions) = (cache.clone(), extractions.clone());
            tasks.push(tokio::spawn(async move {
                cache
                    .get_or_extract("https://e.com/", &verified(), async {
                        extractions.fetch_add(1, Ordering::SeqCst);
                        tokio::time::sleep(Duration::from_millis(30)).await;
                        Arc::new(PageRead::unreadable("no readable text"))
                    })
                    .await
            }));
        }
        for task in tasks {
            let page = task.await.expect("task");
            assert_eq!(page.unreadable_reason(), Some("no readable text"));
        }
        assert_eq!(extractions.load(Ordering::SeqCst), 1);
        assert!(matches!(
            cache.get("https://e.com/"),
            Some((Held::Page(_), _))
        ));
        // Unreadable after all: it goes when a failure would, counted from the read.
        tokio::time::sleep(Duration::from_millis(60)).await;
        assert!(cache.get("https://e.com/").is_none());
        assert!(cache.extractions.is_empty());
    }

    #[tokio::test]
    async fn uncacheable_and_abandoned_reads_are_not_kept() {
        let cache = PageCache::new(HOUR, HOUR, 10, 1 << 20);
        let mut offline = fetched(unreadable("no route"));
        offline.probed.cacheable = false;
        cache.get_or_read("k", async { offline }).await;
        assert!(cache.get("k").is_none());
        let slow = tokio::time::timeout(
            Duration::from_millis(20),
            cache.get_or_read("slow", async {
                tokio::time::sleep(HOUR).await;
                fetched(read("never"))
            }),
        );
        assert!(slow.await.is_err());
        assert!(cache.reads.is_empty(), "an abandoned read stays in flight");
        let (fetched, cached) = cache
            .get_or_read("slow", async { fetched(read("second")) })
            .await;
        assert_eq!(text_of(&fetched.held), Some("second"));
        assert!(!cached);
    }
}
