//! What every product checker shares: a GET to the product's configured API base
//! (never to a host taken from an answer: the link only gives the id, which is put in
//! the path as an encoded segment), with its credentials, within the check's budget, a
//! few at a time per product; and one reading of what the answers mean
//! ([`failure`]): 404 where the product hides what the caller may not see is "not
//! found, or not shared with sourcebot", 403 restricted, 401 a configuration error
//! (logged once, naming the setting; the link is "not checked", never "broken"), 429
//! waited out when its `Retry-After` fits the budget and otherwise timed out, 5xx a
//! server error. A 429's `Retry-After` is also kept in the shared state
//! ([`BotState::hold_back`]), so that no call to that product leaves any replica
//! before it has passed. Documents are read the same way ([`ProductApi::get_document`],
//! [`ProductApi::get_bytes`]), within the read's own time and the page size cap; a
//! download the product redirects elsewhere is followed without the credentials.
//! Bodies are capped and never logged; secrets never leave the headers.

use crate::metrics::Metrics;
use crate::model::{Verdict, VerdictClass};
use crate::reply::{innermost, read_capped, retry_after, service_client, BodyError};
use crate::state::BotState;
use crate::verify::{Checked, VerifySettings};
use serde_json::Value;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::Semaphore;
use url::Url;

/// The largest API reply read when checking a link.
const MAX_REPLY_BYTES: usize = 1 << 20;
/// Calls to one product at once.
const PER_PRODUCT: usize = 4;
/// Redirects a document download follows at most.
const MAX_DOWNLOAD_REDIRECTS: usize = 3;
/// The longest a product's `Retry-After` holds its calls back (a longer one is taken
/// as this).
const MAX_HOLD_BACK: Duration = Duration::from_secs(300);

/// What every product's API client is built with: the verifier's settings (the check's
/// time, a document read's time and size cap), where calls are counted, and the state
/// that holds a product's rate-limit back-off for every replica.
#[derive(Clone, Default)]
pub struct ProductEnv {
    /// The link checker's settings: `timeout` for a check, `fetch_timeout` and
    /// `fetch_max_bytes` for a document read.
    pub verify: VerifySettings,
    /// Where calls are counted.
    pub metrics: Option<Arc<Metrics>>,
    /// Where a product's `Retry-After` is kept (in memory, or shared by the replicas).
    pub state: Option<Arc<dyn BotState>>,
}

impl std::fmt::Debug for ProductEnv {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProductEnv")
            .field("verify", &self.verify)
            .finish_non_exhaustive()
    }
}

/// How a request proves who sourcebot is.
#[derive(Clone, PartialEq, Eq)]
pub enum Auth {
    /// No credentials.
    None,
    /// HTTP basic (`email:token` for Atlassian Cloud).
    Basic {
        /// The user (an e-mail for Atlassian Cloud).
        user: String,
        /// The password or API token.
        password: String,
    },
    /// `Authorization: Bearer …`.
    Bearer(String),
}

/// Secrets are never printed.
impl std::fmt::Debug for Auth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Auth::None => f.write_str("Auth::None"),
            Auth::Basic { user, .. } => write!(f, "Auth::Basic({user}, <redacted>)"),
            Auth::Bearer(_) => f.write_str("Auth::Bearer(<redacted>)"),
        }
    }
}

/// Why a call gave no JSON.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApiFailure {
    /// An HTTP error status, with `Retry-After` (429, 503) and the product's message.
    Status {
        /// The status code.
        status: u16,
        /// How long the product asked to wait, when it said.
        retry_after: Option<Duration>,
    },
    /// No answer within the budget.
    Timeout,
    /// The request did not get through.
    Transport(String),
    /// A 2xx whose body is not JSON.
    Malformed(String),
    /// The reply is larger than the most read (in bytes).
    TooLarge(usize),
}

/// A document's bytes as the product sent them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Download {
    /// The body, whole.
    pub bytes: Vec<u8>,
    /// Its `Content-Type`, when given.
    pub content_type: Option<String>,
}

/// One product's API: its name for people, base URL, HTTP client and limits.
pub struct ProductApi {
    /// The product's name as people say it (`Confluence`).
    pub product: &'static str,
    base: Url,
    http: reqwest::Client,
    timeout: Duration,
    read_timeout: Duration,
    max_document_bytes: usize,
    permits: Semaphore,
    told_about_credentials: AtomicBool,
    metrics: Option<Arc<Metrics>>,
    state: Option<Arc<dyn BotState>>,
}

impl std::fmt::Debug for ProductApi {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProductApi")
            .field("product", &self.product)
            .field("base", &self.base.as_str())
            .finish_non_exhaustive()
    }
}

impl ProductApi {
    /// An API at `base` (its path is kept: `https://ghe.acme.io/api/v3`): checks end
    /// within the verifier's `timeout`, document reads within its `fetch_timeout` and
    /// `fetch_max_bytes`.
    pub fn new(product: &'static str, base: Url, env: &ProductEnv) -> Result<ProductApi, String> {
        let http = service_client()
            .map_err(|e| format!("cannot set up the HTTP client for {product}: {e}"))?;
        Ok(ProductApi {
            product,
            base,
            http,
            timeout: env.verify.timeout,
            read_timeout: env.verify.fetch_timeout,
            max_document_bytes: env.verify.fetch_max_bytes,
            permits: Semaphore::new(PER_PRODUCT),
            told_about_credentials: AtomicBool::new(false),
            metrics: env.metrics.clone(),
            state: env.state.clone(),
        })
    }

    /// The configured base URL.
    pub fn base(&self) -> &Url {
        &self.base
    }

    /// The time one check may take.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// When a document read starting now must be done: calls, pages, downloads and
    /// all.
    pub fn read_deadline(&self) -> Instant {
        Instant::now() + self.read_timeout
    }

    /// The most bytes of one document (or one of its API replies) read.
    pub fn max_document_bytes(&self) -> usize {
        self.max_document_bytes
    }

    /// `base` + `segments` (each percent-encoded as one path segment) + `query`.
    pub fn url(&self, segments: &[&str], query: &[(&str, &str)]) -> Url {
        url_under(&self.base, segments, query)
    }

    /// GETs `url` as JSON with `auth` and `headers`, by `deadline`.
    pub async fn get_json(
        &self,
        url: Url,
        auth: &Auth,
        headers: &[(&str, &str)],
        deadline: Instant,
    ) -> Result<Value, ApiFailure> {
        self.get_json_within(url, auth, headers, deadline, MAX_REPLY_BYTES)
            .await
    }

    /// GETs a document's JSON (a page with its body, an issue with its comments) at
    /// `url`, up to the document size cap.
    pub async fn get_document(
        &self,
        url: Url,
        auth: &Auth,
        headers: &[(&str, &str)],
        deadline: Instant,
    ) -> Result<Value, ApiFailure> {
        self.get_json_within(url, auth, headers, deadline, self.max_document_bytes)
            .await
    }

    /// GETs `url` as JSON of at most `max` bytes.
    async fn get_json_within(
        &self,
        url: Url,
        auth: &Auth,
        headers: &[(&str, &str)],
        deadline: Instant,
        max: usize,
    ) -> Result<Value, ApiFailure> {
        let reply = self
            .send(self.http.get(url), auth, headers, deadline, max)
            .await?;
        json_of(&reply.bytes)
    }

    /// GETs a document's bytes at `url` (a file, an export), up to the document size
    /// cap. A redirect (Microsoft Graph sends its downloads to a pre-authenticated
    /// address) is followed, at most three of them, to http(s)
    /// only and never from https to http; the credentials and headers go only to the
    /// configured API's own origin.
    pub async fn get_bytes(
        &self,
        url: Url,
        auth: &Auth,
        headers: &[(&str, &str)],
        deadline: Instant,
    ) -> Result<Download, ApiFailure> {
        let mut url = url;
        for _ in 0..=MAX_DOWNLOAD_REDIRECTS {
            let (auth, headers) = if url.origin() == self.base.origin() {
                (auth, headers)
            } else {
                (&Auth::None, &[][..])
            };
            let request = self.http.get(url.clone());
            match self
                .exchange(request, auth, headers, deadline, self.max_document_bytes)
                .await?
            {
                Reply::Body(download) => return Ok(download),
                Reply::Redirect { status, location } => {
                    url = location
                        .and_then(|to| url.join(&to).ok())
                        .filter(|next| may_follow(&url, next))
                        .ok_or_else(|| {
                            ApiFailure::Malformed(format!(
                                "a redirect (HTTP {status}) to nowhere sourcebot may go"
                            ))
                        })?;
                }
            }
        }
        Err(ApiFailure::Malformed("too many redirects".into()))
    }

    /// POSTs `form` (URL-encoded) to `url` and reads the JSON reply: for token
    /// endpoints.
    pub async fn post_form(
        &self,
        url: Url,
        form: &[(&str, &str)],
        deadline: Instant,
    ) -> Result<Value, ApiFailure> {
        let body = serde_urlencoded::to_string(form)
            .map_err(|e| ApiFailure::Malformed(format!("cannot encode the form: {e}")))?;
        let request = self
            .http
            .post(url)
            .header(
                reqwest::header::CONTENT_TYPE,
                "application/x-www-form-urlencoded",
            )
            .body(body);
        let reply = self
            .send(request, &Auth::None, &[], deadline, MAX_REPLY_BYTES)
            .await?;
        json_of(&reply.bytes)
    }

    /// Sends `request` and reads its 2xx body (at most `max` bytes); a redirect is a
    /// failure here.
    async fn send(
        &self,
        request: reqwest::RequestBuilder,
        auth: &Auth,
        headers: &[(&str, &str)],
        deadline: Instant,
        max: usize,
    ) -> Result<Download, ApiFailure> {
        match self.exchange(request, auth, headers, deadline, max).await? {
            Reply::Body(download) => Ok(download),
            Reply::Redirect { status, .. } => Err(ApiFailure::Status {
                status,
                retry_after: None,
            }),
        }
    }

    /// Sends `request` with `auth` and `headers` by `deadline`: once the product's
    /// back-off (a `Retry-After` any replica was given) has passed, a few calls to the
    /// product at once, and one 429 waited out when its `Retry-After` ends before
    /// `deadline` (and kept for the other calls either way).
    async fn exchange(
        &self,
        request: reqwest::RequestBuilder,
        auth: &Auth,
        headers: &[(&str, &str)],
        deadline: Instant,
        max: usize,
    ) -> Result<Reply, ApiFailure> {
        let mut request = request;
        if !headers
            .iter()
            .any(|(n, _)| n.eq_ignore_ascii_case("accept"))
        {
            request = request.header(reqwest::header::ACCEPT, "application/json");
        }
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        request = match auth {
            Auth::None => request,
            Auth::Basic { user, password } => request.basic_auth(user, Some(password)),
            Auth::Bearer(token) => request.bearer_auth(token),
        };
        self.wait_out_back_off(deadline).await?;
        let Ok(_permit) = tokio::time::timeout_at(deadline.into(), self.permits.acquire()).await
        else {
            return Err(ApiFailure::Timeout);
        };
        let mut retried = false;
        loop {
            let Some(attempt) = request.try_clone() else {
                return Err(ApiFailure::Transport(
                    "the request cannot be repeated".into(),
                ));
            };
            let result = tokio::time::timeout_at(deadline.into(), read(attempt, max)).await;
            let outcome = result.unwrap_or(Err(ApiFailure::Timeout));
            self.count(&outcome);
            match outcome {
                Err(ApiFailure::Status {
                    status: 429,
                    retry_after: Some(wait),
                }) => {
                    self.hold_back(wait).await;
                    if retried || Instant::now() + wait >= deadline {
                        return Err(ApiFailure::Status {
                            status: 429,
                            retry_after: Some(wait),
                        });
                    }
                    retried = true;
                    tokio::time::sleep(wait).await;
                }
                other => return other,
            }
        }
    }

    /// The shared-state key of this product's back-off.
    fn back_off_key(&self) -> String {
        format!("product:{}", self.product)
    }

    /// Keeps the product's `Retry-After` for every call, in this replica and the others.
    async fn hold_back(&self, wait: Duration) {
        if let Some(state) = &self.state {
            state
                .hold_back(&self.back_off_key(), wait.min(MAX_HOLD_BACK))
                .await;
        }
    }

    /// Waits until the product's back-off has passed, when that is before `deadline`;
    /// otherwise fails at once as the 429 did, without calling.
    async fn wait_out_back_off(&self, deadline: Instant) -> Result<(), ApiFailure> {
        let Some(state) = &self.state else {
            return Ok(());
        };
        let wait = state.held_back(&self.back_off_key()).await;
        if wait.is_zero() {
            return Ok(());
        }
        if Instant::now() + wait >= deadline {
            return Err(ApiFailure::Status {
                status: 429,
                retry_after: Some(wait),
            });
        }
        tokio::time::sleep(wait).await;
        Ok(())
    }

    fn count(&self, outcome: &Result<Reply, ApiFailure>) {
        let Some(metrics) = &self.metrics else {
            return;
        };
        let label = match outcome {
            Ok(_) => "ok",
            Err(ApiFailure::Status { status: 429, .. }) => "rate_limited",
            Err(ApiFailure::Status { status, .. }) if *status >= 500 => "server_error",
            Err(ApiFailure::Status { .. }) => "http_error",
            Err(ApiFailure::Timeout) => "timeout",
            Err(ApiFailure::Transport(_)) => "transport",
            Err(ApiFailure::Malformed(_)) => "malformed",
            Err(ApiFailure::TooLarge(_)) => "too_large",
        };
        metrics.product_call(self.product, label);
    }

    /// Logs, once per process, that the product refused the credentials in `setting`.
    pub fn tell_about_credentials(&self, setting: &str) {
        if !self.told_about_credentials.swap(true, Ordering::Relaxed) {
            tracing::error!(
                product = self.product,
                setting,
                "{} refused sourcebot's credentials (HTTP 401): fix {setting}; its links are reported not checked until then",
                self.product
            );
        }
    }
}

/// What one request brought: a 2xx body, or a redirect and where to.
enum Reply {
    Body(Download),
    Redirect {
        status: u16,
        location: Option<String>,
    },
}

/// Whether `status` is a redirect with a `Location` to follow.
fn is_redirect(status: u16) -> bool {
    matches!(status, 301 | 302 | 303 | 307 | 308)
}

/// Whether a download may go from `from` to `to`: http(s) only, never down from https.
fn may_follow(from: &Url, to: &Url) -> bool {
    matches!(
        (from.scheme(), to.scheme()),
        ("https", "https") | ("http", "http" | "https")
    ) && to.host_str().is_some()
}

/// `bytes` as people say it: `2 MiB`, `512 KiB`, `100 bytes`.
fn size_in_words(bytes: usize) -> String {
    match bytes {
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{} MiB", b >> 20),
        b if b >= 1 << 10 && b % (1 << 10) == 0 => format!("{} KiB", b >> 10),
        b => format!("{b} bytes"),
    }
}

/// A reply's body as JSON.
fn json_of(bytes: &[u8]) -> Result<Value, ApiFailure> {
    serde_json::from_slice(bytes).map_err(|e| ApiFailure::Malformed(format!("not JSON: {e}")))
}

/// One request's status and body, at most `max` bytes of it.
async fn read(request: reqwest::RequestBuilder, max: usize) -> Result<Reply, ApiFailure> {
    let mut response = request
        .send()
        .await
        .map_err(|e| ApiFailure::Transport(innermost(&e)))?;
    let status = response.status();
    if is_redirect(status.as_u16()) {
        let location = response
            .headers()
            .get(reqwest::header::LOCATION)
            .and_then(|l| l.to_str().ok())
            .map(str::to_string);
        return Ok(Reply::Redirect {
            status: status.as_u16(),
            location,
        });
    }
    if !status.is_success() {
        return Err(ApiFailure::Status {
            status: status.as_u16(),
            retry_after: retry_after(response.headers()),
        });
    }
    let content_type = response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let bytes = read_capped(&mut response, max)
        .await
        .map_err(|error| match error {
            BodyError::Transport(cause) => ApiFailure::Transport(cause),
            BodyError::TooLarge(max) => ApiFailure::TooLarge(max),
        })?;
    Ok(Reply::Body(Download {
        bytes,
        content_type,
    }))
}

/// `base` + `segments` (each percent-encoded as one segment) + `query`.
pub fn url_under(base: &Url, segments: &[&str], query: &[(&str, &str)]) -> Url {
    let mut url = base.clone();
    if let Ok(mut path) = url.path_segments_mut() {
        path.pop_if_empty();
        for segment in segments {
            path.push(segment);
        }
    }
    url.set_query(None);
    if !query.is_empty() {
        url.query_pairs_mut().extend_pairs(query);
    }
    url
}

/// A verdict of `class` for `url` with `reason`.
pub fn verdict(class: VerdictClass, url: &str, status: Option<u16>, reason: &str) -> Verdict {
    Verdict {
        class,
        status_code: status,
        final_url: Some(url.to_string()),
        elapsed_ms: None,
        reason: Some(reason.to_string()),
    }
}

/// Found and live: verified, with the product's `title`.
pub fn found(url: &str, title: Option<String>, what: &str) -> Checked {
    Checked {
        verdict: verdict(
            VerdictClass::Verified,
            url,
            Some(200),
            &format!("{what} exists"),
        ),
        title: title.filter(|t| !t.trim().is_empty()),
        kind: None,
    }
}

/// Deleted, trashed or archived: broken, saying which.
pub fn gone(url: &str, title: Option<String>, reason: &str) -> Checked {
    Checked {
        verdict: verdict(VerdictClass::Broken, url, Some(200), reason),
        title: title.filter(|t| !t.trim().is_empty()),
        kind: None,
    }
}

/// Not checked, with why (no credentials, a link whose id cannot be read).
pub fn not_checked(reason: &str) -> Checked {
    Checked::untitled(Verdict::not_checked(reason))
}

/// What a failed call means for `url`: `setting` names the credentials to fix on a
/// 401; `hides_existence` says the product answers 404 for what the caller may not
/// see.
pub fn failure(
    api: &ProductApi,
    url: &str,
    failure: &ApiFailure,
    setting: &str,
    hides_existence: bool,
) -> Checked {
    let (class, status, reason) = judged_failure(api, failure, setting, hides_existence);
    let verdict = match class {
        VerdictClass::NotChecked => Verdict::not_checked(reason),
        class => verdict(class, url, status, &reason),
    };
    Checked::untitled(verdict)
}

/// What a failed call says, in people's words: the verdict class it gives a link, the
/// status, and the reason (also why a document could not be read).
pub fn judged_failure(
    api: &ProductApi,
    failure: &ApiFailure,
    setting: &str,
    hides_existence: bool,
) -> (VerdictClass, Option<u16>, String) {
    let product = api.product;
    match failure {
        ApiFailure::Status { status: 401, .. } => {
            api.tell_about_credentials(setting);
            (
                VerdictClass::NotChecked,
                Some(401),
                format!("not checked: {product} refused sourcebot's credentials (fix {setting})"),
            )
        }
        ApiFailure::Status {
            status: status @ (404 | 410),
            ..
        } => {
            let reason = if hides_existence && *status == 404 {
                "not found, or not shared with sourcebot".to_string()
            } else {
                format!("{product} has no such item")
            };
            (VerdictClass::Broken, Some(*status), reason)
        }
        ApiFailure::Status { status: 403, .. } => (
            VerdictClass::Restricted,
            Some(403),
            format!("{product} does not let sourcebot read it"),
        ),
        ApiFailure::Status {
            status: 429,
            retry_after,
        } => (
            VerdictClass::TimedOut,
            Some(429),
            match retry_after {
                Some(wait) => format!(
                    "{product} is rate-limiting sourcebot (retry after {} s)",
                    wait.as_secs()
                ),
                None => format!("{product} is rate-limiting sourcebot"),
            },
        ),
        ApiFailure::Status { status, .. } if *status >= 500 => (
            VerdictClass::ServerError,
            Some(*status),
            format!("{product} answered HTTP {status}"),
        ),
        ApiFailure::Status { status, .. } => (
            VerdictClass::Unreachable,
            Some(*status),
            format!("{product} answered HTTP {status}"),
        ),
        ApiFailure::Timeout => (
            VerdictClass::TimedOut,
            None,
            format!("{product} did not answer in time"),
        ),
        ApiFailure::Transport(error) => (
            VerdictClass::Unreachable,
            None,
            format!("cannot reach {product}: {error}"),
        ),
        ApiFailure::Malformed(error) => (
            VerdictClass::ServerError,
            None,
            format!("{product} answered something unexpected ({error})"),
        ),
        ApiFailure::TooLarge(max) => (
            VerdictClass::ServerError,
            None,
            format!(
                "the document is larger than sourcebot reads ({})",
                size_in_words(*max)
            ),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_encoded_as_one_segment_under_the_base() {
        let base = Url::parse("https://ghe.acme.io/api/v3/").unwrap();
        let url = url_under(&base, &["repos", "a/../b", "c?d"], &[("ref", "x y")]);
        assert_eq!(
            url.as_str(),
            "https://ghe.acme.io/api/v3/repos/a%2F..%2Fb/c%3Fd?ref=x+y"
        );
        assert_eq!(url.host_str(), Some("ghe.acme.io"));
    }

    #[test]
    fn downloads_follow_redirects_to_http_s_only_and_never_down_to_http() {
        let url = |s: &str| Url::parse(s).expect("url");
        let graph = url("https://graph.microsoft.com/v1.0/shares/u!x/driveItem/content");
        assert!(may_follow(
            &graph,
            &url("https://acme.sharepoint.com/_layouts/15/download.aspx?tempauth=x")
        ));
        assert!(!may_follow(&graph, &url("http://acme.sharepoint.com/x")));
        assert!(!may_follow(&graph, &url("file:///etc/passwd")));
        assert!(!may_follow(&graph, &url("ftp://acme.example/x")));
        let local = url("http://127.0.0.1:9000/content");
        assert!(may_follow(&local, &url("http://127.0.0.2:9001/download")));
        assert!(may_follow(&local, &url("https://cdn.example/download")));
        assert!(is_redirect(302) && is_redirect(307) && !is_redirect(304));
        assert_eq!(size_in_words(2 << 20), "2 MiB");
        assert_eq!(size_in_words(4096), "4 KiB");
        assert_eq!(size_in_words(1000), "1000 bytes");
    }

    #[test]
    fn secrets_are_not_printed() {
        let auth = Auth::Basic {
            user: "me@acme.io".into(),
            password: "tok-123".into(),
        };
        assert!(!format!("{auth:?}").contains("tok-123"));
        assert!(!format!("{:?}", Auth::Bearer("tok-456".into())).contains("tok-456"));
    }
}
