//! The body of one cited page, read under the prober's rules and turned into text by
//! [`crate::page::extract`]. The same guard as the prober: names resolved only through
//! the guarded resolver, [`judge_url`] on every hop, redirects followed by hand (at
//! most [`MAX_REDIRECTS`], loops caught), no proxy, no cookie, no referer.
//!
//! Two caps bound what a hostile server can cost: reading stops at the size cap
//! (counted in decoded bytes, so a gzip or brotli bomb stops there too) and the page
//! is marked truncated; and one deadline covers the whole fetch, redirects, body and
//! extraction included. Extraction runs on the blocking pool, off the async threads.
//! Neither the body nor the text is ever logged.

use super::guard::{judge_url, GuardPolicy, UrlRefusal};
use super::probe::{
    classify_error, guarded_client, judge_failure, seconds, without_fragment, MAX_REDIRECTS,
};
use super::resolve::GuardedResolver;
use crate::page::{self, PageRead};
use reqwest::header::{CONTENT_ENCODING, CONTENT_TYPE, LOCATION};
use std::sync::Arc;
use std::time::{Duration, Instant};
use url::Url;

/// Most bytes of one page read (after decompression): 2 MiB.
pub const DEFAULT_FETCH_MAX_BYTES: usize = 2 << 20;

/// Time for the whole fetch of one page, redirects and extraction included.
pub const DEFAULT_FETCH_TIMEOUT: Duration = Duration::from_secs(5);

/// What every page fetch sends as `Accept`: the kinds of page it can read, first.
const ACCEPT_VALUE: &str =
    "text/html,application/xhtml+xml,text/plain;q=0.9,application/pdf;q=0.8,*/*;q=0.5";

/// A page fetched (or not), and what the cache and the host caps need to know.
#[derive(Debug, Clone)]
pub(crate) struct Fetched {
    /// The page's text, or why there is none.
    pub(crate) page: Arc<PageRead>,
    /// False when the failure says more about this moment than about the page (DNS
    /// could not be asked, no route): such results are not kept.
    pub(crate) cacheable: bool,
    /// The host answered with an HTTP status at least once.
    pub(crate) answered: bool,
}

impl Fetched {
    fn unreadable(reason: String, cacheable: bool, answered: bool) -> Fetched {
        Fetched {
            page: Arc::new(PageRead::Unreadable(reason)),
            cacheable,
            answered,
        }
    }
}

/// How far a fetch got: what a timeout says depends on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    Asking,
    Reading,
    Extracting,
}

/// Where a fetch is.
struct Progress {
    url: Url,
    redirects: usize,
    answered: bool,
    stage: Stage,
}

impl Progress {
    /// `reason`, prefixed with the hop it happened on when there were redirects.
    fn hop_note(&self, reason: String) -> String {
        if self.redirects > 0 {
            format!("redirected to {}: {reason}", self.url)
        } else {
            reason
        }
    }
}

/// The HTTP client for page bodies and the caps it reads by.
pub(crate) struct Fetcher {
    client: reqwest::Client,
    policy: Arc<GuardPolicy>,
    max_bytes: usize,
    timeout: Duration,
}

impl Fetcher {
    /// A fetcher whose client resolves names only through `resolver`, ignores system
    /// proxies, keeps no cookies, follows no redirect by itself and decodes gzip and
    /// brotli.
    pub(crate) fn new(
        resolver: GuardedResolver,
        policy: Arc<GuardPolicy>,
        max_bytes: usize,
        timeout: Duration,
        per_host: usize,
        user_agent: &str,
    ) -> Result<Fetcher, reqwest::Error> {
        let client = guarded_client(resolver, per_host, user_agent, ACCEPT_VALUE)
            .gzip(true)
            .brotli(true)
            .build()?;
        Ok(Fetcher {
            client,
            policy,
            max_bytes: max_bytes.max(1),
            timeout,
        })
    }

    /// Fetches `url` and reads it, all within the fetch's time cap.
    pub(crate) async fn fetch(&self, url: &Url) -> Fetched {
        let mut progress = Progress {
            url: url.clone(),
            redirects: 0,
            answered: false,
            stage: Stage::Asking,
        };
        let deadline = Instant::now() + self.timeout;
        let fetched =
            tokio::time::timeout_at(deadline.into(), self.fetch_within(&mut progress)).await;
        match fetched {
            Ok(fetched) => fetched,
            Err(_) => {
                let limit = seconds(self.timeout);
                let reason = match progress.stage {
                    Stage::Asking => progress.hop_note(format!("no answer within {limit}")),
                    Stage::Reading => format!("the page did not finish arriving within {limit}"),
                    Stage::Extracting => format!("reading the page took longer than {limit}"),
                };
                Fetched::unreadable(reason, true, progress.answered)
            }
        }
    }

    async fn fetch_within(&self, progress: &mut Progress) -> Fetched {
        let response = match self.follow(progress).await {
            Ok(response) => response,
            Err(failed) => return failed,
        };
        let status = response.status();
        if !status.is_success() {
            return Fetched::unreadable(
                progress.hop_note(format!("the server answered {}", status.as_u16())),
                true,
                true,
            );
        }
        let headers = response.headers();
        // reqwest removes the header of the encodings it decodes.
        if let Some(encoding) = headers.get(CONTENT_ENCODING) {
            let encoding = encoding.to_str().unwrap_or("an unknown encoding").trim();
            if !encoding.eq_ignore_ascii_case("identity") {
                return Fetched::unreadable(
                    format!(
                        "the page is compressed as {}, which sourcebot can't decode",
                        crate::render::escape::cut_chars(encoding, 40)
                    ),
                    true,
                    true,
                );
            }
        }
        let content_type = headers
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        progress.stage = Stage::Reading;
        let (bytes, truncated) = match read_body(response, self.max_bytes).await {
            Ok(body) => body,
            Err(reason) => return Fetched::unreadable(reason, true, true),
        };
        progress.stage = Stage::Extracting;
        let final_url = progress.url.to_string();
        let read = tokio::task::spawn_blocking(move || {
            page::extract(content_type.as_deref(), &bytes, truncated)
        })
        .await
        .unwrap_or_else(|_| PageRead::unreadable("the page could not be read"));
        let read = match read {
            PageRead::Read(mut page) => {
                page.final_url = Some(final_url);
                PageRead::Read(page)
            }
            unreadable => unreadable,
        };
        Fetched {
            page: Arc::new(read),
            cacheable: true,
            answered: true,
        }
    }

    /// GETs `progress.url`, following redirects by hand; the final response, or the
    /// page's failure.
    async fn follow(&self, progress: &mut Progress) -> Result<reqwest::Response, Fetched> {
        let mut visited = vec![without_fragment(&progress.url)];
        loop {
            if let Err(refusal) = judge_url(&progress.url, &self.policy) {
                return Err(refused(progress, &refusal));
            }
            let response = match self.client.get(progress.url.clone()).send().await {
                Ok(response) => response,
                Err(error) => {
                    let note = |reason: String| progress.hop_note(reason);
                    let (_, reason, cacheable, _) = judge_failure(classify_error(&error), &note);
                    return Err(Fetched::unreadable(reason, cacheable, progress.answered));
                }
            };
            progress.answered = true;
            let location = response
                .headers()
                .get(LOCATION)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string);
            let location = match (location, response.status().is_redirection()) {
                (Some(location), true) => location,
                _ => return Ok(response),
            };
            drop(response);
            let unreadable = |reason: String| Err(Fetched::unreadable(reason, true, true));
            let Ok(next) = progress.url.join(&location) else {
                return unreadable(format!(
                    "redirect to an unreadable location: {}",
                    crate::render::escape::cut_chars(&location, 200)
                ));
            };
            if progress.redirects == MAX_REDIRECTS {
                return unreadable(format!("more than {MAX_REDIRECTS} redirects"));
            }
            let key = without_fragment(&next);
            if visited.contains(&key) {
                return unreadable(format!("redirect loop: back to {next}"));
            }
            visited.push(key);
            progress.url = next;
            progress.redirects += 1;
        }
    }
}

/// The page of a URL the guard refused.
fn refused(progress: &Progress, refusal: &UrlRefusal) -> Fetched {
    Fetched::unreadable(
        progress.hop_note(refusal.to_string()),
        true,
        progress.answered,
    )
}

/// The body, up to `max` decoded bytes, and whether there was more. Nothing past
/// `max` is kept: the chunk that crosses it is cut and the response dropped.
async fn read_body(mut response: reqwest::Response, max: usize) -> Result<(Vec<u8>, bool), String> {
    let announced = response.content_length().unwrap_or(0);
    let capacity = usize::try_from(announced)
        .unwrap_or(max)
        .min(max)
        .min(256 << 10);
    let mut body = Vec::with_capacity(capacity);
    loop {
        match response.chunk().await {
            Ok(Some(chunk)) => {
                let room = max - body.len();
                if chunk.len() > room {
                    body.extend_from_slice(&chunk[..room]);
                    return Ok((body, true));
                }
                body.extend_from_slice(&chunk);
            }
            Ok(None) => return Ok((body, false)),
            Err(error) if error.is_decode() => {
                return Err("the page's compressed body is damaged".to_string())
            }
            Err(error) => {
                let (_, reason, _, _) = judge_failure(classify_error(&error), &|r| r);
                return Err(format!("the page stopped arriving: {reason}"));
            }
        }
    }
}

impl super::Verifier {
    /// Pages remembered now.
    pub fn cached_pages(&self) -> usize {
        self.inner.pages.len()
    }

    /// Bytes of the pages remembered now (text, title and URL of each, roughly).
    pub fn cached_page_bytes(&self) -> usize {
        self.inner.pages.bytes()
    }

    /// Reads the page at `url` into text ([`crate::page`]), through the same guard,
    /// resolver and per-host caps as the probes: at most
    /// [`super::VerifySettings::fetch_max_bytes`] read (the page is then marked truncated),
    /// within [`super::VerifySettings::fetch_timeout`] from the moment a slot is free. The
    /// result is remembered by URL (without its fragment) as long as a verdict would
    /// be, and concurrent reads of one URL share one fetch. Never fails: a page that
    /// cannot be read says why. Neither the body nor the text is logged.
    pub async fn fetch_page(&self, url: &str) -> Arc<PageRead> {
        let mut url = match Url::parse(url) {
            Ok(url) => url,
            Err(error) => {
                return Arc::new(PageRead::Unreadable(format!("not a valid link: {error}")))
            }
        };
        if let Err(refusal) = judge_url(&url, &self.inner.policy) {
            return Arc::new(PageRead::Unreadable(refusal.to_string()));
        }
        // The page is the same whatever part of it the link points at.
        url.set_fragment(None);
        let key = url.to_string();
        let host = url.host_str().unwrap_or_default().to_string();
        let started = Instant::now();
        let (page, cached) = self
            .inner
            .pages
            .get_or_fetch(&key, async {
                let slot = self.inner.limits.acquire(&host).await;
                let fetched = self.inner.fetcher.fetch(&url).await;
                if fetched.answered {
                    slot.host_answered();
                }
                fetched
            })
            .await;
        let (outcome, chars, truncated) = match &*page {
            PageRead::Read(page) => ("read", page.text.len(), page.truncated),
            PageRead::Unreadable(_) => ("unreadable", 0, false),
        };
        tracing::debug!(
            url = %key,
            outcome,
            text_bytes = chars,
            truncated,
            cached,
            elapsed_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
            "page fetched"
        );
        page
    }
}
