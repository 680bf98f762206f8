//! A cited page's body, read under the prober's rules, and its text.
//!
//! A page is read by one GET ([`super::probe::Ask::Page`]): the same guard as every
//! probe (names resolved only through the guarded resolver, [`super::guard::judge_url`]
//! on every hop, redirects followed by hand, at most [`super::MAX_REDIRECTS`], no proxy,
//! no cookie, no referer), and its status is also the link's verdict. When the
//! verifier probes a link whose page the support check will read, that GET *is* the
//! probe; [`super::Verifier::fetch_page`] reads a page whose link was checked without
//! it (or not at all) the same way.
//!
//! Two caps bound what a hostile server can cost: reading stops at the size cap
//! (counted in decoded bytes, so a gzip or brotli bomb stops there too) and the page
//! is marked truncated; and one deadline covers asking and the body (the probe's, for a
//! page read with its probe). The body is kept as read ([`Held::Body`]) and turned into
//! text by [`crate::page::extract`] when the page is first asked for, on the blocking
//! pool, off the async threads. Neither the body nor the text is ever logged.

use super::cache::Probed;
use super::guard::judge_url;
use super::probe::{classify_error, judge_failure, seconds, Ask, Asked, Prober};
use crate::model::Verdict;
use crate::page::{self, PageRead};
use reqwest::header::{CONTENT_ENCODING, CONTENT_TYPE};
use std::sync::Arc;
use std::time::{Duration, Instant};
use url::Url;

/// Most bytes of one page read (after decompression): 2 MiB.
pub const DEFAULT_FETCH_MAX_BYTES: usize = 2 << 20;

/// Time for the whole fetch of one page read apart from its probe, redirects and
/// extraction included.
pub const DEFAULT_FETCH_TIMEOUT: Duration = Duration::from_secs(5);

/// A page's body as read, before it is turned into text.
#[derive(Debug)]
pub(crate) struct Body {
    /// The bytes, decoded from gzip or brotli, at most the size cap.
    pub(crate) bytes: Vec<u8>,
    /// The `Content-Type` it was served as.
    pub(crate) content_type: Option<String>,
    /// Whether there was more than the cap.
    pub(crate) truncated: bool,
    /// Where it was read, after redirects.
    pub(crate) final_url: String,
}

/// A page as held: its body, not yet turned into text, or its text (or why there is
/// none).
#[derive(Debug, Clone)]
pub(crate) enum Held {
    /// Read, not yet extracted.
    Body(Arc<Body>),
    /// Extracted, or unreadable.
    Page(Arc<PageRead>),
}

/// One read of a page: the link's verdict from its status, and the page.
#[derive(Debug, Clone)]
pub(crate) struct Fetched {
    /// The verdict, and whether it (and the page) may be remembered.
    pub(crate) probed: Probed,
    /// The page.
    pub(crate) held: Held,
}

impl Fetched {
    /// What the caches remember of a page, as a read again.
    pub(crate) fn remembered(held: Held, verdict: Verdict) -> Fetched {
        Fetched {
            probed: Probed::remembered(verdict),
            held,
        }
    }
}

/// Reads the page at `url` with `prober`: one GET (redirects followed) within `timeout`
/// or by `budget_end` (the answer's), whichever is first, the body included, at most
/// `max_bytes` of it. The verdict is the status's; a page that is not a success, or
/// that does not finish arriving in time, is unreadable and says why (and is
/// remembered so, as a failure: the check it was read for does not wait for it
/// twice). `on_answer` runs when the host has answered with a status, before the body
/// is read, so that the host's caps can grow.
pub(crate) async fn read(
    prober: &Prober,
    url: &Url,
    budget_end: Option<Instant>,
    timeout: Duration,
    max_bytes: usize,
    on_answer: impl FnOnce(),
) -> Fetched {
    let mut asked = prober.ask(url, budget_end, timeout, Ask::Page).await;
    if asked.probed.verdict.status_code.is_some() {
        on_answer();
    }
    let held = match asked.response.take() {
        Some(response) => match body_of(response, &asked, timeout, max_bytes).await {
            Ok(body) => Held::Body(Arc::new(body)),
            Err(reason) => unreadable(reason),
        },
        None => unreadable(why_unread(&asked)),
    };
    Fetched {
        probed: asked.probed,
        held,
    }
}

fn unreadable(reason: String) -> Held {
    Held::Page(Arc::new(PageRead::Unreadable(reason)))
}

/// Why an asked page that gave no success has no text: its status, or the verdict's
/// reason (refused, failed, timed out, redirects gone wrong).
fn why_unread(asked: &Asked) -> String {
    let verdict = &asked.probed.verdict;
    match verdict.status_code.filter(|_| asked.answered) {
        Some(code) if !(200..300).contains(&code) => {
            let reason = format!("the server answered {code}");
            if asked.redirects > 0 {
                format!("redirected to {}: {reason}", asked.final_url)
            } else {
                reason
            }
        }
        _ => verdict
            .reason
            .clone()
            .unwrap_or_else(|| "the page could not be read".to_string()),
    }
}

/// The body of the final response of `asked`, by its deadline, or why there is none.
async fn body_of(
    response: reqwest::Response,
    asked: &Asked,
    timeout: Duration,
    max_bytes: usize,
) -> Result<Body, String> {
    let headers = response.headers();
    // reqwest removes the header of the encodings it decodes.
    if let Some(encoding) = headers.get(CONTENT_ENCODING) {
        let encoding = encoding.to_str().unwrap_or("an unknown encoding").trim();
        if !encoding.eq_ignore_ascii_case("identity") {
            return Err(format!(
                "the page is compressed as {}, which sourcebot can't decode",
                crate::render::escape::cut_chars(encoding, 40)
            ));
        }
    }
    let content_type = headers
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let reading = read_body(response, max_bytes.max(1));
    let (bytes, truncated) = match tokio::time::timeout_at(asked.deadline.into(), reading).await {
        Ok(body) => body?,
        Err(_) if asked.own_deadline => {
            return Err(format!(
                "the page did not finish arriving within {}",
                seconds(timeout)
            ))
        }
        Err(_) => {
            return Err(
                "the page did not finish arriving before the answer's check ran out of time"
                    .to_string(),
            )
        }
    };
    Ok(Body {
        bytes,
        content_type,
        truncated,
        final_url: asked.final_url.to_string(),
    })
}

/// The text of a read `body` ([`crate::page::extract`], on the blocking pool), within
/// `limit`.
async fn extract(body: Arc<Body>, limit: Duration) -> Arc<PageRead> {
    let extracting = tokio::task::spawn_blocking(move || {
        match page::extract(body.content_type.as_deref(), &body.bytes, body.truncated) {
            PageRead::Read(mut page) => {
                page.final_url = Some(body.final_url.clone());
                PageRead::Read(page)
            }
            unreadable => unreadable,
        }
    });
    Arc::new(match tokio::time::timeout(limit, extracting).await {
        Ok(Ok(read)) => read,
        Ok(Err(_)) => PageRead::unreadable("the page could not be read"),
        Err(_) => PageRead::Unreadable(format!(
            "reading the page took longer than {}",
            seconds(limit)
        )),
    })
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

    /// Bytes of the pages remembered now (text or body, title and URL of each,
    /// roughly).
    pub fn cached_page_bytes(&self) -> usize {
        self.inner.pages.bytes()
    }

    /// Reads the page at `url` into text ([`crate::page`]), through the same guard,
    /// resolver and per-host caps as the probes: one GET, at most
    /// [`super::VerifySettings::fetch_max_bytes`] read (the page is then marked
    /// truncated), within [`super::VerifySettings::fetch_timeout`] from the moment a slot
    /// is free. A page already read, by its link's probe or by an earlier call, costs
    /// no request: pages are remembered by URL (without its fragment) as long as a
    /// verdict would be, and concurrent reads of one URL share one request. A read
    /// settles the link's verdict too. Never fails: a page that cannot be read says
    /// why. Neither the body nor the text is logged.
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
        let settings = &self.inner.settings;
        let (fetched, cached) = self
            .inner
            .pages
            .get_or_read(&key, async {
                let slot = self.inner.limits.acquire(&host).await;
                let limit = settings.fetch_timeout;
                let fetched = read(
                    &self.inner.prober,
                    &url,
                    None,
                    limit,
                    settings.fetch_max_bytes,
                    || slot.host_answered(),
                )
                .await;
                drop(slot);
                // The read settles the link's verdict: no probe of it follows.
                self.inner.cache.settle(&key, &fetched.probed).await;
                fetched
            })
            .await;
        let page = self.text_of(&key, fetched).await;
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

    /// Probes `url` by reading its page (the caller holds the link's slot), within
    /// the probe's timeout or by `deadline`: the page is remembered under `key` for
    /// the support check, and its status is the verdict. A page read already, or being
    /// read, is not asked again. `on_answer` runs when this read gets a status.
    pub(super) async fn probe_page(
        &self,
        key: &str,
        url: &Url,
        deadline: Instant,
        on_answer: impl FnOnce(),
    ) -> Probed {
        let settings = &self.inner.settings;
        let (fetched, _) = self
            .inner
            .pages
            .get_or_read(
                key,
                read(
                    &self.inner.prober,
                    url,
                    Some(deadline),
                    settings.timeout,
                    settings.fetch_max_bytes,
                    on_answer,
                ),
            )
            .await;
        fetched.probed
    }

    /// The text of a page read: as held, or extracted from its body once, however many
    /// ask at once.
    async fn text_of(&self, key: &str, fetched: Fetched) -> Arc<PageRead> {
        match fetched.held {
            Held::Page(page) => page,
            Held::Body(body) => {
                let limit = self.inner.settings.fetch_timeout;
                self.inner
                    .pages
                    .get_or_extract(key, &fetched.probed.verdict, extract(body, limit))
                    .await
            }
        }
    }
}
