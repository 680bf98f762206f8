//! Checks that the links an answer cites are real: each unique external URL probed
//! once, concurrently within caps, under one deadline for the whole answer, never at a
//! private address.
//!
//! [`Verifier`] is built once and shared (it is a cheap handle). It owns the HTTP
//! client, the guard's policy, the concurrency caps and the verdict cache, so every
//! answer checked through it shares them. [`Verifier::verify_report`] fills in the
//! verdicts of a collected [`Report`]; [`Verifier::check_urls`] checks bare URLs. Each
//! verdict is one of the classes in [`VerdictClass`], with the status code, final URL
//! and time; a URL never makes `verify` fail.
//!
//! [`Verifier::fetch_page`] reads the text of one cited page through the same guard,
//! caps and resolver, for the claim checker. One request per page: when a report's
//! pages will be read ([`VerifySettings::read_pages`], or
//! [`Verifier::verify_report_reading`]), the probe of each page to read is a GET whose
//! body is kept (size-capped, within the probe's own time) and whose status is the
//! verdict, and `fetch_page` then finds the page read. The two caches agree: a page
//! read settles its link's verdict, and a remembered verdict without a page costs only
//! the page's read, once.
//!
//! The parts: [`guard`] (which addresses and names may be reached), [`resolve`] (name
//! lookup that returns only vetted addresses), `probe` (HEAD/GET, or one GET for a
//! page; redirects, retry), `fetch` (a page's body, size- and time-capped, into
//! [`crate::page`]), `limits` (global and per-host caps, with slow start), `cache`
//! (TTLs, bounded size, one probe per URL in flight), `page_cache` (the same for pages,
//! also bounded in bytes, with the verdict each read gave, and the internal documents
//! read for the support check), `health` (hosts that let a probe time out and answered
//! nothing are not waited on again for each of their links) and `internal` (links
//! checked and read through their products' APIs: [`InternalChecker`]).

mod cache;
mod fetch;
pub(crate) mod flights;
pub mod guard;
mod health;
mod internal;
mod limits;
mod page_cache;
mod probe;
pub mod resolve;

use crate::metrics::Metrics;
use crate::model::{
    Report, Source, SourceKind, Verdict, VerdictClass, VerdictCounts, Verification,
};
use crate::page::PageRead;
use crate::state::BotState;
use cache::{Probed, VerdictCache};
pub use fetch::{DEFAULT_FETCH_MAX_BYTES, DEFAULT_FETCH_TIMEOUT};
use futures_util::stream::{FuturesUnordered, StreamExt};
use guard::{judge_url, GuardPolicy};
use health::HostHealth;
use internal::check_internal;
pub use internal::{Checked, Checkers, InternalChecker};
use limits::Limits;
use page_cache::PageCache;
pub use probe::MAX_REDIRECTS;
use probe::{seconds, without_fragment, Prober};
use resolve::{DnsLookup, GuardedResolver, NameLookup};
use std::collections::{BTreeMap, HashMap};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Once};
use std::time::{Duration, Instant};
use url::Url;

/// `User-Agent` of every probe: who is asking, and where to read about it.
pub const USER_AGENT: &str = concat!(
    "sourcebot/",
    env!("CARGO_PKG_VERSION"),
    " (+",
    env!("CARGO_PKG_REPOSITORY"),
    ")"
);

/// How much longer than one probe's timeout the check of a whole answer may take.
pub const BATCH_GRACE: Duration = Duration::from_millis(500);

/// What the report says when every probe failed at the network level.
pub const NETWORK_DOWN_NOTE: &str = "No link could be reached: the network looks down from here, so these verdicts say nothing about the links themselves.";

/// Bytes of page text remembered at most, by default: 64 MiB.
pub const DEFAULT_PAGE_CACHE_MAX_BYTES: usize = 64 << 20;

/// How the verifier probes and reads pages. Defaults: 2 s per link, 32 probes at once,
/// 4 per host, verified verdicts kept 1 h and failures 5 min, at most 10,000
/// remembered; pages read up to 2 MiB (within the probe's 2 s when read by it, 5 s
/// otherwise), at most 64 MiB of them remembered; no page read by a report's probes
/// (the settings from the environment read 20 when the support check is on).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifySettings {
    /// The whole probe of one link, fallback, redirects and retry included.
    pub timeout: Duration,
    /// Probes running at once, over all answers.
    pub concurrency: usize,
    /// Probes of one host running at once.
    pub per_host: usize,
    /// How long a verified verdict is remembered.
    pub cache_ttl_verified: Duration,
    /// How long any other verdict is remembered.
    pub cache_ttl_failed: Duration,
    /// Verdicts remembered at most (0 turns the cache off).
    pub cache_max_entries: usize,
    /// Reach private, loopback and other non-global addresses. Unsafe outside tests:
    /// anyone who can get an answer checked could make the bot fetch internal URLs.
    pub allow_private: bool,
    /// Most bytes of one page read, after decompression; the rest is not read and the
    /// page is marked truncated.
    pub fetch_max_bytes: usize,
    /// The whole fetch of one page: redirects, body and extraction.
    pub fetch_timeout: Duration,
    /// Bytes of pages remembered at most (their number is bounded by
    /// `cache_max_entries`, their lifetime by the two TTLs).
    pub page_cache_max_bytes: usize,
    /// Pages of a report [`Verifier::verify_report`] reads with their probes, for the
    /// support check that follows: those of the web sources its claims cite most
    /// (ties: the first listed), at most this many, when pages are remembered at all. Their probe is one GET whose body is
    /// kept, within the probe's own time. 0 (the default) reads none: every probe is a
    /// HEAD (GET when HEAD is refused) whose body is never read.
    pub read_pages: usize,
}

impl Default for VerifySettings {
    fn default() -> Self {
        VerifySettings {
            timeout: Duration::from_secs(2),
            concurrency: 32,
            per_host: 4,
            cache_ttl_verified: Duration::from_secs(3600),
            cache_ttl_failed: Duration::from_secs(300),
            cache_max_entries: 10_000,
            allow_private: false,
            fetch_max_bytes: DEFAULT_FETCH_MAX_BYTES,
            fetch_timeout: DEFAULT_FETCH_TIMEOUT,
            page_cache_max_bytes: DEFAULT_PAGE_CACHE_MAX_BYTES,
            read_pages: 0,
        }
    }
}

/// Why a verifier could not be built.
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    /// The HTTP client (TLS set-up) failed to start.
    #[error("cannot start the HTTP client: {0}")]
    Client(String),
    /// The DNS resolver failed to start.
    #[error("cannot start the DNS resolver: {0}")]
    Dns(String),
}

/// Builds a [`Verifier`].
#[derive(Clone, Default)]
pub struct VerifierBuilder {
    settings: VerifySettings,
    allowed_sockets: Vec<SocketAddr>,
    lookup: Option<Arc<dyn NameLookup>>,
    nameservers: Option<Vec<SocketAddr>>,
    canary: Option<Option<String>>,
    internal: Option<Arc<dyn InternalChecker>>,
    metrics: Option<Arc<Metrics>>,
    shared: Option<Arc<dyn BotState>>,
}

impl VerifierBuilder {
    /// Share verdicts with other replicas through `state` (Redis): a link one replica
    /// checked is not probed again by another while its verdict lasts.
    pub fn shared_state(mut self, state: Arc<dyn BotState>) -> Self {
        self.shared = Some(state);
        self
    }

    /// Count every link checked (by verdict), probe latency and cache hits in `metrics`.
    pub fn metrics(mut self, metrics: Arc<Metrics>) -> Self {
        self.metrics = Some(metrics);
        self
    }

    /// Check internal links with `checker` instead of marking them not checked.
    pub fn internal_checker(mut self, checker: Arc<dyn InternalChecker>) -> Self {
        self.internal = Some(checker);
        self
    }

    /// Starts from `settings`.
    pub fn settings(mut self, settings: VerifySettings) -> Self {
        self.settings = settings;
        self
    }

    /// The time one link's probe may take.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.settings.timeout = timeout;
        self
    }

    /// Probes at once, over all answers.
    pub fn concurrency(mut self, concurrency: usize) -> Self {
        self.settings.concurrency = concurrency;
        self
    }

    /// Probes of one host at once.
    pub fn per_host(mut self, per_host: usize) -> Self {
        self.settings.per_host = per_host;
        self
    }

    /// Most bytes of one page [`Verifier::fetch_page`] reads.
    pub fn fetch_max_bytes(mut self, bytes: usize) -> Self {
        self.settings.fetch_max_bytes = bytes;
        self
    }

    /// The time the whole fetch of one page may take.
    pub fn fetch_timeout(mut self, timeout: Duration) -> Self {
        self.settings.fetch_timeout = timeout;
        self
    }

    /// Bytes of pages remembered at most.
    pub fn page_cache_max_bytes(mut self, bytes: usize) -> Self {
        self.settings.page_cache_max_bytes = bytes;
        self
    }

    /// Pages of a report read with their probes ([`VerifySettings::read_pages`]).
    pub fn read_pages(mut self, pages: usize) -> Self {
        self.settings.read_pages = pages;
        self
    }

    /// Let probes reach private and loopback addresses. **Unsafe outside tests.**
    pub fn allow_private(mut self, allow: bool) -> Self {
        self.settings.allow_private = allow;
        self
    }

    /// Let probes reach exactly this address and port even though it is not global.
    /// **Unsafe outside tests.**
    pub fn allow_socket(mut self, socket: SocketAddr) -> Self {
        self.allowed_sockets.push(socket);
        self
    }

    /// Look names up with `lookup` instead of DNS.
    pub fn lookup(mut self, lookup: Arc<dyn NameLookup>) -> Self {
        self.lookup = Some(lookup);
        self
    }

    /// Ask these DNS servers instead of the system's.
    pub fn nameservers(mut self, servers: Vec<SocketAddr>) -> Self {
        self.nameservers = Some(servers);
        self
    }

    /// The name DNS's NXDOMAIN answers are compared with (see
    /// [`resolve::DEFAULT_CANARY_NAME`]); `None` trusts every NXDOMAIN.
    pub fn canary(mut self, canary: Option<String>) -> Self {
        self.canary = Some(canary);
        self
    }

    /// Builds the verifier: installs the TLS crypto provider (ring) if none is, starts
    /// the resolver and the HTTP client.
    pub fn build(self) -> Result<Verifier, VerifyError> {
        install_crypto_provider();
        let settings = self.settings;
        // DNS gets most of a probe's time; what is left lets a silent resolver be
        // reported as unreachable rather than as a slow link.
        let query_timeout = settings.timeout.mul_f64(0.75);
        let lookup: Arc<dyn NameLookup> = match (self.lookup, self.nameservers) {
            (Some(lookup), _) => lookup,
            (None, servers) => {
                let dns = match servers {
                    Some(servers) => DnsLookup::with_nameservers(&servers, query_timeout),
                    None => DnsLookup::system(query_timeout),
                }
                .map_err(|e| VerifyError::Dns(e.to_string()))?;
                let dns = match self.canary {
                    Some(canary) => dns.with_canary(canary),
                    None => dns,
                };
                Arc::new(dns)
            }
        };
        let policy = Arc::new(GuardPolicy {
            allow_private: settings.allow_private,
            allowed_sockets: self.allowed_sockets,
        });
        let resolver = GuardedResolver::new(lookup, policy.clone());
        let prober = Prober::new(
            resolver,
            policy.clone(),
            settings.timeout,
            settings.per_host,
            USER_AGENT,
        )
        .map_err(|e| VerifyError::Client(e.to_string()))?;
        Ok(Verifier {
            inner: Arc::new(Inner {
                prober,
                pages: PageCache::new(
                    settings.cache_ttl_verified,
                    settings.cache_ttl_failed,
                    settings.cache_max_entries,
                    settings.page_cache_max_bytes,
                ),
                policy,
                internal: self.internal,
                metrics: self.metrics,
                limits: Limits::new(settings.concurrency, settings.per_host),
                cache: VerdictCache::new(
                    settings.cache_ttl_verified,
                    settings.cache_ttl_failed,
                    settings.cache_max_entries,
                )
                .with_shared(self.shared),
                health: HostHealth::new(settings.cache_ttl_failed, settings.cache_max_entries),
                settings,
            }),
        })
    }
}

/// Installs rustls's ring provider as the process default, once; a provider installed
/// earlier by the program is left in place.
pub fn install_crypto_provider() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        // Err means a provider is already installed: that one is used.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

/// Checks links. Clone it freely: clones share the client, caps and cache.
#[derive(Clone)]
pub struct Verifier {
    inner: Arc<Inner>,
}

struct Inner {
    prober: Prober,
    pages: PageCache,
    policy: Arc<GuardPolicy>,
    internal: Option<Arc<dyn InternalChecker>>,
    metrics: Option<Arc<Metrics>>,
    limits: Limits,
    cache: VerdictCache,
    health: HostHealth,
    settings: VerifySettings,
}

/// Counts a check's progress, for a progress bar: `total` links, `done` finished.
#[derive(Debug, Default)]
pub struct Progress {
    total: AtomicUsize,
    done: AtomicUsize,
}

impl Progress {
    /// A counter at zero.
    pub fn new() -> Progress {
        Progress::default()
    }

    /// Links being checked.
    pub fn total(&self) -> usize {
        self.total.load(Ordering::Relaxed)
    }

    /// Links finished.
    pub fn done(&self) -> usize {
        self.done.load(Ordering::Relaxed)
    }
}

/// The verdicts of one batch of URLs, in the order given.
#[derive(Debug, Clone)]
pub struct BatchOutcome {
    /// One verdict per URL given.
    pub verdicts: Vec<Verdict>,
    /// Every URL probed failed at the network level (no DNS, no route).
    pub network_down: bool,
    /// Wall time of the batch.
    pub elapsed: Duration,
    /// Verdicts that came from the cache.
    pub from_cache: usize,
}

impl std::fmt::Debug for Verifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Verifier")
            .field("settings", &self.inner.settings)
            .field("cached_verdicts", &self.cached_verdicts())
            .finish_non_exhaustive()
    }
}

impl Verifier {
    /// A builder with the default settings.
    pub fn builder() -> VerifierBuilder {
        VerifierBuilder::default()
    }

    /// The settings this verifier runs with.
    pub fn settings(&self) -> &VerifySettings {
        &self.inner.settings
    }

    /// Verdicts remembered now.
    pub fn cached_verdicts(&self) -> usize {
        self.inner.cache.len()
    }

    /// Checks one URL.
    pub async fn check_url(&self, url: &str) -> Verdict {
        let mut outcome = self.check_urls(&[url], None).await;
        outcome
            .verdicts
            .pop()
            .unwrap_or_else(|| Verdict::not_checked("no verdict"))
    }

    /// Checks `urls` concurrently; the batch ends within the timeout plus
    /// [`BATCH_GRACE`], and links still waiting or running then are timed out.
    pub async fn check_urls<S: AsRef<str>>(
        &self,
        urls: &[S],
        progress: Option<&Progress>,
    ) -> BatchOutcome {
        self.check_batch(urls, &[], progress).await
    }

    /// [`Verifier::check_urls`], reading the pages of the URLs whose place in `read` is
    /// true with their probes (the rest, and all when `read` is shorter, are probed for
    /// their status only).
    async fn check_batch<S: AsRef<str>>(
        &self,
        urls: &[S],
        read: &[bool],
        progress: Option<&Progress>,
    ) -> BatchOutcome {
        let deadline = Instant::now() + self.inner.settings.timeout + BATCH_GRACE;
        self.run_batch(urls, read, progress, Budget::Batch(deadline))
            .await
    }

    /// Checks `urls` concurrently within the caps, giving each link the full timeout
    /// from the moment it gets a slot: no link is cut off for waiting. The batch takes
    /// about `links / concurrency × timeout` at worst. For audits, where every link
    /// must really be checked; answers in chat use [`Verifier::check_urls`].
    pub async fn check_urls_thoroughly<S: AsRef<str>>(
        &self,
        urls: &[S],
        progress: Option<&Progress>,
    ) -> BatchOutcome {
        self.run_batch(urls, &[], progress, Budget::PerLink).await
    }

    async fn run_batch<S: AsRef<str>>(
        &self,
        urls: &[S],
        read: &[bool],
        progress: Option<&Progress>,
        budget: Budget,
    ) -> BatchOutcome {
        let started = Instant::now();
        if let Some(progress) = progress {
            progress.total.store(urls.len(), Ordering::Relaxed);
            progress.done.store(0, Ordering::Relaxed);
        }
        let began: Vec<AtomicBool> = urls.iter().map(|_| AtomicBool::new(false)).collect();
        let mut running: FuturesUnordered<_> = urls
            .iter()
            .enumerate()
            .map(|(index, url)| {
                let began = &began[index];
                let read = read.get(index).copied().unwrap_or(false);
                async move {
                    let result = self.check_one(url.as_ref(), budget, began, read).await;
                    (index, result)
                }
            })
            .collect();
        let mut results: Vec<Option<(Probed, bool)>> = vec![None; urls.len()];
        loop {
            let next = match budget {
                Budget::Batch(deadline) => {
                    match tokio::time::timeout_at(deadline.into(), running.next()).await {
                        Ok(next) => next,
                        Err(_) => break,
                    }
                }
                Budget::PerLink => running.next().await,
            };
            let Some((index, result)) = next else { break };
            results[index] = Some(result);
            if let Some(progress) = progress {
                progress.done.fetch_add(1, Ordering::Relaxed);
            }
        }
        drop(running);
        let elapsed = started.elapsed();
        let mut probed_fresh = 0;
        let mut network_failures = 0;
        let mut from_cache = 0;
        let verdicts = results
            .into_iter()
            .zip(&began)
            .map(|(result, began)| match result {
                Some((probed, cached)) => {
                    let fresh = !cached && probed.verdict.class != VerdictClass::Invalid;
                    if cached {
                        from_cache += 1;
                    } else if fresh {
                        probed_fresh += 1;
                        network_failures += usize::from(probed.network_failure);
                    }
                    if let Some(metrics) = &self.inner.metrics {
                        let went_out = fresh && began.load(Ordering::Relaxed);
                        let seconds = probed.verdict.elapsed_ms.map(|ms| ms as f64 / 1000.0);
                        metrics.link(
                            probed.verdict.class.as_str(),
                            seconds.filter(|_| went_out),
                            cached,
                        );
                    }
                    probed.verdict
                }
                None => {
                    let verdict = self.out_of_time(began.load(Ordering::Relaxed), elapsed);
                    if let Some(metrics) = &self.inner.metrics {
                        metrics.link(verdict.class.as_str(), None, false);
                    }
                    verdict
                }
            })
            .collect();
        if let Some(progress) = progress {
            progress.done.store(urls.len(), Ordering::Relaxed);
        }
        BatchOutcome {
            verdicts,
            network_down: probed_fresh > 0 && network_failures == probed_fresh,
            elapsed,
            from_cache,
        }
    }

    /// The verdict of a link the batch deadline cut off.
    fn out_of_time(&self, began: bool, elapsed: Duration) -> Verdict {
        let budget = seconds(self.inner.settings.timeout + BATCH_GRACE);
        let reason = if began {
            format!("no answer before the answer's {budget} check budget ran out")
        } else {
            format!(
                "not probed: the answer's {budget} check budget ran out while it waited for a free slot"
            )
        };
        Verdict {
            class: VerdictClass::TimedOut,
            status_code: None,
            final_url: None,
            elapsed_ms: Some(u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX)),
            reason: Some(reason),
        }
    }

    /// One link's verdict: remembered (by the verdict cache, or by the page cache when
    /// its page was read), or probed now; with `read`, by reading its page.
    async fn check_one(
        &self,
        raw: &str,
        budget: Budget,
        began: &AtomicBool,
        read: bool,
    ) -> (Probed, bool) {
        let url = match Url::parse(raw) {
            Ok(url) => url,
            Err(error) => {
                return (
                    Probed {
                        verdict: Verdict {
                            class: VerdictClass::Invalid,
                            status_code: None,
                            final_url: None,
                            elapsed_ms: Some(0),
                            reason: Some(format!("not a valid link: {error}")),
                        },
                        cacheable: false,
                        network_failure: false,
                        host_silent: false,
                    },
                    false,
                )
            }
        };
        // Refusals need no slot: they are decided before any connection.
        if let Err(refusal) = judge_url(&url, &self.inner.policy) {
            return (self.inner.prober.refused(&url, refusal), false);
        }
        let key = url.as_str().to_string();
        let host = url.host_str().unwrap_or_default().to_string();
        let authority = format!("{host}:{}", url.port_or_known_default().unwrap_or(0));
        if let Some(probed) = self.silent_host(&url, &authority) {
            return (probed, false);
        }
        // A page read settles its link's verdict for as long as the page is kept.
        let page_key = without_fragment(&url);
        if self.inner.cache.get(&key).is_none() {
            if let Some(verdict) = self.inner.pages.verdict(&page_key) {
                return (Probed::remembered(verdict), true);
            }
        }
        self.inner
            .cache
            .get_or_probe(&key, async {
                let slot = self.inner.limits.acquire(&host).await;
                // The host may have let another link time out while this one waited.
                if let Some(probed) = self.silent_host(&url, &authority) {
                    return probed;
                }
                began.store(true, Ordering::Relaxed);
                let deadline = match budget {
                    Budget::Batch(deadline) => deadline,
                    Budget::PerLink => Instant::now() + self.inner.settings.timeout,
                };
                // A page read grants the host's next slot as soon as the status is in,
                // not when the body is.
                let answered_early = AtomicBool::new(false);
                let probed = if read {
                    let answered = || {
                        slot.host_answered();
                        answered_early.store(true, Ordering::Relaxed);
                    };
                    // Boxed, as the probe below: each link's future would otherwise
                    // carry room for them (a page read's is 14 KB) from the start,
                    // when only the links being probed need it.
                    Box::pin(self.probe_page(&page_key, &url, deadline, answered)).await
                } else {
                    Box::pin(self.inner.prober.probe(&url, deadline)).await
                };
                if probed.verdict.status_code.is_some() {
                    if !answered_early.load(Ordering::Relaxed) {
                        slot.host_answered();
                    }
                    self.inner.health.answered(&authority);
                } else if probed.host_silent {
                    self.inner.health.timed_out(&authority);
                }
                probed
            })
            .await
    }

    /// The verdict for a link whose host recently let a probe time out and has
    /// answered nothing since: timed out, without waiting out another timeout.
    fn silent_host(&self, url: &Url, authority: &str) -> Option<Probed> {
        let ago = self.inner.health.unresponsive_for(authority)?;
        Some(Probed {
            verdict: Verdict {
                class: VerdictClass::TimedOut,
                status_code: None,
                final_url: Some(url.to_string()),
                elapsed_ms: Some(0),
                reason: Some(format!(
                    "not probed: {authority} let another link time out {} and has answered nothing since",
                    match ago.as_secs() {
                        0 => "just now".to_string(),
                        n => format!("{n} s ago"),
                    }
                )),
            },
            cacheable: false,
            network_failure: false,
            host_silent: false,
        })
    }

    /// The text of the internal source at `url` (a Confluence page, a Slack message…),
    /// read through `checker`, whose check gave `verdict`: remembered like a page read
    /// (the same TTLs and bounds, in this process only), and read once however many
    /// ask. `None` when `checker` reads no content. Neither the text nor the document
    /// is logged.
    pub async fn read_internal(
        &self,
        checker: &Arc<dyn InternalChecker>,
        url: &str,
        verdict: &Verdict,
    ) -> Option<Arc<PageRead>> {
        let key = format!("internal {url}");
        let page = self
            .inner
            .pages
            .get_or_read_document(&key, verdict, checker.read(url))
            .await?;
        tracing::debug!(
            url,
            outcome = if page.page().is_some() {
                "read"
            } else {
                "unreadable"
            },
            text_bytes = page.page().map_or(0, |p| p.text.len()),
            "internal document for the support check"
        );
        Some(page)
    }

    /// The internal checker built in (for Slack permalinks…), if any.
    pub fn internal_checker(&self) -> Option<&Arc<dyn InternalChecker>> {
        self.inner.internal.as_ref()
    }

    /// Probes the external links of `report` and records each verdict, the counts and
    /// what the check means in `report.verification`. Internal links (Slack,
    /// Confluence, files) go to the internal checker when one handles them, and are
    /// otherwise marked not checked.
    pub async fn verify_report(&self, report: &mut Report, progress: Option<&Progress>) {
        self.verify_report_with(report, progress, self.inner.internal.as_ref())
            .await;
    }

    /// [`Verifier::verify_report`] with `internal` asked before the verifier's own
    /// internal checker: a Slack workspace's permalinks are checked with that
    /// workspace's token, the rest by the product checkers.
    pub async fn verify_report_with(
        &self,
        report: &mut Report,
        progress: Option<&Progress>,
        internal: Option<&Arc<dyn InternalChecker>>,
    ) {
        let pages = self.inner.settings.read_pages;
        self.verify_report_reading(report, progress, internal, pages)
            .await;
    }

    /// [`Verifier::verify_report_with`], reading with their probes the pages of at
    /// most `pages` of the web sources the report's claims cite (the most cited first,
    /// as the support check reads them) instead of
    /// [`VerifySettings::read_pages`]: each such page is one GET whose status is the
    /// verdict and whose body [`Verifier::fetch_page`] then finds. 0 reads none, and so
    /// does a verifier that remembers no page (`cache_max_entries` or the verified TTL
    /// at 0).
    pub async fn verify_report_reading(
        &self,
        report: &mut Report,
        progress: Option<&Progress>,
        internal: Option<&Arc<dyn InternalChecker>>,
        pages: usize,
    ) {
        let combined = Checkers::chain(internal, self.inner.internal.as_ref());
        let internal = combined.as_ref();
        // A body read with its probe is handed on through the page cache: with the
        // cache off it would be dropped and read again.
        let pages = if self.inner.pages.keeps_pages() {
            pages
        } else {
            0
        };
        let to_read = pages_to_read(report, pages, internal);
        let plan = self.plan(report, internal);
        let urls: Vec<&str> = plan.web.iter().map(|t| t.url.as_str()).collect();
        let read: Vec<bool> = urls.iter().map(|url| to_read.contains(*url)).collect();
        let (outcome, internal_verdicts) = tokio::join!(
            self.check_batch(&urls, &read, progress),
            check_internal(&self.inner.settings, internal, plan.internal_urls())
        );
        apply_checked(report, &plan.internal, internal_verdicts);
        apply(report, &plan.web, outcome.verdicts.iter().cloned());
        report.verification = verification(report, &outcome, plan.web.len());
    }

    /// Verifies many reports at once, as an audit does: every distinct external link
    /// across them is probed once, each with its full timeout however long it waited
    /// for a slot ([`Verifier::check_urls_thoroughly`]), and each report gets its
    /// verdicts and its own `verification`. `progress` counts the distinct links.
    pub async fn verify_reports(&self, reports: &mut [Report], progress: Option<&Progress>) {
        let internal = self.inner.internal.as_ref();
        let plans: Vec<Plan> = reports.iter_mut().map(|r| self.plan(r, internal)).collect();
        let mut index_of: HashMap<&str, usize> = HashMap::new();
        let mut distinct: Vec<&str> = Vec::new();
        for target in plans.iter().flat_map(|p| &p.web) {
            index_of.entry(target.url.as_str()).or_insert_with(|| {
                distinct.push(target.url.as_str());
                distinct.len() - 1
            });
        }
        let outcome = self.check_urls_thoroughly(&distinct, progress).await;
        for (report, plan) in reports.iter_mut().zip(&plans) {
            let internal_verdicts =
                check_internal(&self.inner.settings, internal, plan.internal_urls()).await;
            apply_checked(report, &plan.internal, internal_verdicts);
            let verdicts = plan.web.iter().map(|t| {
                index_of
                    .get(t.url.as_str())
                    .and_then(|&i| outcome.verdicts.get(i))
                    .cloned()
                    .unwrap_or_else(|| Verdict::not_checked("no verdict"))
            });
            apply(report, &plan.web, verdicts);
            report.verification = verification(report, &outcome, plan.web.len());
        }
    }

    /// Which sources of `report` go to the prober and which to the internal checker;
    /// marks the rest (internal without a checker, unusable links) on the way.
    fn plan(&self, report: &mut Report, internal: Option<&Arc<dyn InternalChecker>>) -> Plan {
        let mut plan = Plan::default();
        for (group_index, group) in report.groups.iter_mut().enumerate() {
            for (source_index, source) in group.sources.iter_mut().enumerate() {
                if source.verdict.class != VerdictClass::NotChecked {
                    continue;
                }
                let target = |url: &String| Target {
                    group_index,
                    source_index,
                    url: url.clone(),
                };
                match (&source.canonical_url, &source.url) {
                    (Some(canonical), _)
                        if internal.is_some_and(|c| c.handles(source.kind, canonical)) =>
                    {
                        plan.internal.push(target(canonical));
                    }
                    (Some(canonical), _) if source.kind == SourceKind::Web => {
                        plan.web.push(target(canonical));
                    }
                    (Some(_), _) => {
                        source.verdict = Verdict::not_checked(format!(
                            "internal {} link: no checker for it yet",
                            source.kind.as_str()
                        ));
                    }
                    (None, Some(_)) => {
                        source.verdict = Verdict {
                            class: VerdictClass::Invalid,
                            reason: Some("not a valid http or https link".to_string()),
                            ..Verdict::not_checked("")
                        };
                    }
                    (None, None) => {}
                }
            }
        }
        plan
    }
}

/// The links of `report` whose pages the support check will read, at most `max`: the
/// web sources its claims cite and the sources `internal` handles ranked together, the
/// most cited first (ties: the lowest id), as the support check ranks them; of those,
/// the web links (which `internal` does not check).
fn pages_to_read(
    report: &Report,
    max: usize,
    internal: Option<&Arc<dyn InternalChecker>>,
) -> std::collections::HashSet<String> {
    if max == 0 {
        return Default::default();
    }
    let mut citing: BTreeMap<usize, usize> = BTreeMap::new();
    for claim in &report.claims {
        for id in &claim.cites {
            *citing.entry(*id).or_default() += 1;
        }
    }
    let mut cited: Vec<(usize, usize, &String, bool)> = report
        .sources()
        .filter_map(|s| {
            let url = s.canonical_url.as_ref()?;
            let count = *citing.get(&s.id)?;
            let handled = internal.is_some_and(|c| c.handles(s.kind, url));
            (s.kind == SourceKind::Web || handled).then_some((
                count,
                s.id,
                url,
                s.kind == SourceKind::Web && !handled,
            ))
        })
        .collect();
    cited.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    cited
        .into_iter()
        .take(max)
        .filter(|(_, _, _, web)| *web)
        .map(|(_, _, url, _)| url.clone())
        .collect()
}

/// A source of a report, by its place, and the link to check for it.
#[derive(Debug, Clone)]
struct Target {
    group_index: usize,
    source_index: usize,
    url: String,
}

/// The links of one report to check, by checker.
#[derive(Debug, Default)]
struct Plan {
    web: Vec<Target>,
    internal: Vec<Target>,
}

impl Plan {
    /// The internal links, in order.
    fn internal_urls(&self) -> Vec<String> {
        self.internal.iter().map(|t| t.url.clone()).collect()
    }
}

/// Records `verdicts` on the sources `targets` name, in order.
fn apply(report: &mut Report, targets: &[Target], verdicts: impl IntoIterator<Item = Verdict>) {
    for (target, verdict) in targets.iter().zip(verdicts) {
        if let Some(source) = report
            .groups
            .get_mut(target.group_index)
            .and_then(|g| g.sources.get_mut(target.source_index))
        {
            source.verdict = verdict;
        }
    }
}

/// Records the internal checkers' verdicts, and the product's title on each source
/// whose title the answer did not give (one made from its link).
fn apply_checked(report: &mut Report, targets: &[Target], checked: Vec<Checked>) {
    let mut kinds_changed = false;
    for (target, checked) in targets.iter().zip(checked) {
        if let Some(source) = report
            .groups
            .get_mut(target.group_index)
            .and_then(|g| g.sources.get_mut(target.source_index))
        {
            source.verdict = checked.verdict;
            if let Some(title) = checked.title {
                retitle(source, &title);
            }
            if let Some(kind) = checked.kind.filter(|kind| *kind != source.kind) {
                source.kind = kind;
                kinds_changed = true;
            }
        }
    }
    // Targets name places in the groups: regroup only once every verdict is in.
    if kinds_changed {
        report.regroup();
    }
}

/// Gives `source` the `title` its page or product shows (whitespace collapsed, at most
/// [`crate::page::MAX_TITLE_CHARS`] characters) when its title was made from its link
/// ([`crate::collect::canon::title_from_url`]); a title the answer gave is kept, and so
/// is the made one when `title` is blank.
pub(crate) fn retitle(source: &mut Source, title: &str) {
    let title = title.split_whitespace().collect::<Vec<_>>().join(" ");
    if title.is_empty() {
        return;
    }
    let made_from = |link: &str| crate::collect::canon::title_from_url(link) == source.title;
    let made_from_link =
        source.link().is_some_and(made_from) || source.url.as_deref().is_some_and(made_from);
    if made_from_link {
        source.title = title.chars().take(crate::page::MAX_TITLE_CHARS).collect();
    }
}

/// How long links may take: until the batch's deadline, or each its own timeout from
/// the moment it has a slot.
#[derive(Debug, Clone, Copy)]
enum Budget {
    Batch(Instant),
    PerLink,
}

/// What the report says about its check.
fn verification(report: &Report, outcome: &BatchOutcome, probed: usize) -> Verification {
    let mut counts = VerdictCounts::default();
    for source in report.sources() {
        counts.add(source.verdict.class);
    }
    let note = if outcome.network_down {
        NETWORK_DOWN_NOTE.to_string()
    } else if probed == 0 {
        "No external link to check.".to_string()
    } else {
        format!(
            "Checked {probed} external {} in {}.",
            if probed == 1 { "link" } else { "links" },
            seconds(outcome.elapsed)
        )
    };
    Verification {
        performed: true,
        note,
        network_down: outcome.network_down,
        elapsed_ms: Some(u64::try_from(outcome.elapsed.as_millis()).unwrap_or(u64::MAX)),
        counts,
    }
}
