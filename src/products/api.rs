//! What every product checker shares: a JSON GET to the product's configured API base
//! (never to a host taken from an answer: the link only gives the id, which is put in
//! the path as an encoded segment), with its credentials, within the check's budget, a
//! few at a time per product; and one reading of what the answers mean
//! ([`failure`]): 404 where the product hides what the caller may not see is "not
//! found, or not shared with sourcebot", 403 restricted, 401 a configuration error
//! (logged once, naming the setting; the link is "not checked", never "broken"), 429
//! waited out when its `Retry-After` fits the budget and otherwise timed out, 5xx a
//! server error. Bodies are capped and never logged; secrets never leave the headers.

use crate::metrics::Metrics;
use crate::model::{Verdict, VerdictClass};
use crate::reply::{innermost, read_capped, retry_after, service_client, BodyError};
use crate::verify::Checked;
use serde_json::Value;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::Semaphore;
use url::Url;

/// The largest API reply read.
const MAX_REPLY_BYTES: usize = 1 << 20;
/// Calls to one product at once.
const PER_PRODUCT: usize = 4;

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
    /// A 2xx whose body is not JSON (or is too large).
    Malformed(String),
}

/// One product's API: its name for people, base URL, HTTP client and limits.
pub struct ProductApi {
    /// The product's name as people say it (`Confluence`).
    pub product: &'static str,
    base: Url,
    http: reqwest::Client,
    timeout: Duration,
    permits: Semaphore,
    told_about_credentials: AtomicBool,
    metrics: Option<Arc<Metrics>>,
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
    /// An API at `base` (its path is kept: `https://ghe.acme.io/api/v3`), calls ending
    /// within `timeout`.
    pub fn new(
        product: &'static str,
        base: Url,
        timeout: Duration,
        metrics: Option<Arc<Metrics>>,
    ) -> Result<ProductApi, String> {
        let http = service_client()
            .map_err(|e| format!("cannot set up the HTTP client for {product}: {e}"))?;
        Ok(ProductApi {
            product,
            base,
            http,
            timeout,
            permits: Semaphore::new(PER_PRODUCT),
            told_about_credentials: AtomicBool::new(false),
            metrics,
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
        self.send(self.http.get(url), auth, headers, deadline).await
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
        self.send(request, &Auth::None, &[], deadline).await
    }

    /// Sends `request`, waiting out one 429 when its `Retry-After` ends before
    /// `deadline`.
    async fn send(
        &self,
        request: reqwest::RequestBuilder,
        auth: &Auth,
        headers: &[(&str, &str)],
        deadline: Instant,
    ) -> Result<Value, ApiFailure> {
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
        let deadline = deadline.min(Instant::now() + self.timeout);
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
            let result = tokio::time::timeout_at(deadline.into(), read(attempt)).await;
            let outcome = result.unwrap_or(Err(ApiFailure::Timeout));
            self.count(&outcome);
            match outcome {
                Err(ApiFailure::Status {
                    status: 429,
                    retry_after: Some(wait),
                }) if !retried && Instant::now() + wait < deadline => {
                    retried = true;
                    tokio::time::sleep(wait).await;
                }
                other => return other,
            }
        }
    }

    fn count(&self, outcome: &Result<Value, ApiFailure>) {
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

/// One request's status and JSON body.
async fn read(request: reqwest::RequestBuilder) -> Result<Value, ApiFailure> {
    let mut response = request
        .send()
        .await
        .map_err(|e| ApiFailure::Transport(innermost(&e)))?;
    let status = response.status();
    if !status.is_success() {
        return Err(ApiFailure::Status {
            status: status.as_u16(),
            retry_after: retry_after(response.headers()),
        });
    }
    let body = read_capped(&mut response, MAX_REPLY_BYTES)
        .await
        .map_err(|error| match error {
            BodyError::Transport(cause) => ApiFailure::Transport(cause),
            BodyError::TooLarge(max) => {
                ApiFailure::Malformed(format!("the reply is larger than {max} bytes"))
            }
        })?;
    serde_json::from_slice(&body).map_err(|e| ApiFailure::Malformed(format!("not JSON: {e}")))
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
    }
}

/// Deleted, trashed or archived: broken, saying which.
pub fn gone(url: &str, title: Option<String>, reason: &str) -> Checked {
    Checked {
        verdict: verdict(VerdictClass::Broken, url, Some(200), reason),
        title: title.filter(|t| !t.trim().is_empty()),
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
    let product = api.product;
    let verdict = match failure {
        ApiFailure::Status { status: 401, .. } => {
            api.tell_about_credentials(setting);
            Verdict::not_checked(format!(
                "not checked: {product} refused sourcebot's credentials (fix {setting})"
            ))
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
            verdict(VerdictClass::Broken, url, Some(*status), &reason)
        }
        ApiFailure::Status { status: 403, .. } => verdict(
            VerdictClass::Restricted,
            url,
            Some(403),
            &format!("{product} does not let sourcebot read it"),
        ),
        ApiFailure::Status {
            status: 429,
            retry_after,
        } => verdict(
            VerdictClass::TimedOut,
            url,
            Some(429),
            &match retry_after {
                Some(wait) => format!(
                    "{product} is rate-limiting sourcebot (retry after {} s)",
                    wait.as_secs()
                ),
                None => format!("{product} is rate-limiting sourcebot"),
            },
        ),
        ApiFailure::Status { status, .. } if *status >= 500 => verdict(
            VerdictClass::ServerError,
            url,
            Some(*status),
            &format!("{product} answered HTTP {status}"),
        ),
        ApiFailure::Status { status, .. } => verdict(
            VerdictClass::Unreachable,
            url,
            Some(*status),
            &format!("{product} answered HTTP {status}"),
        ),
        ApiFailure::Timeout => verdict(
            VerdictClass::TimedOut,
            url,
            None,
            &format!("{product} did not answer in time"),
        ),
        ApiFailure::Transport(error) => verdict(
            VerdictClass::Unreachable,
            url,
            None,
            &format!("cannot reach {product}: {error}"),
        ),
        ApiFailure::Malformed(error) => verdict(
            VerdictClass::ServerError,
            url,
            None,
            &format!("{product} answered something unexpected ({error})"),
        ),
    };
    Checked::untitled(verdict)
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
    fn secrets_are_not_printed() {
        let auth = Auth::Basic {
            user: "me@acme.io".into(),
            password: "tok-123".into(),
        };
        assert!(!format!("{auth:?}").contains("tok-123"));
        assert!(!format!("{:?}", Auth::Bearer("tok-456".into())).contains("tok-456"));
    }
}
