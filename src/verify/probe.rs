//! One link, asked: redirects followed by hand so the guard judges every hop, and every
//! failure turned into a verdict. A link is asked in one of two ways ([`Ask`]):
//!
//! - for its status: HEAD, GET when HEAD is refused or inconclusive. No body is read: a
//!   GET stops at the status and headers and the response is dropped, so a gigabyte
//!   answer costs what its headers cost.
//! - for its page (when the support check will read it): one GET, through the client
//!   that decodes gzip and brotli, whose final response is handed back when it is a
//!   success, for `fetch` to read its body under the same deadline. Its status is the
//!   verdict, so the page costs one request, not a probe and then a read.
//!
//! Either way the whole ask, fallback, redirects and one 429 retry included, runs
//! under one deadline.

use super::cache::Probed;
use super::guard::{judge_url, GuardPolicy, UrlRefusal};
use super::resolve::{GuardedResolver, ResolveFailure};
use crate::model::{Verdict, VerdictClass};
use reqwest::header::{HeaderMap, HeaderValue, ACCEPT, LOCATION};
use reqwest::{Method, StatusCode};
use std::error::Error as StdError;
use std::sync::Arc;
use std::time::{Duration, Instant};
use url::Url;

/// Redirects followed before the link is called unreachable.
pub const MAX_REDIRECTS: usize = 5;

/// A 429's wait must leave at least this much of the budget for the retry itself.
const RETRY_MARGIN: Duration = Duration::from_millis(250);

/// What every status probe sends as `Accept`.
const ACCEPT_VALUE: &str = "text/html,*/*";

/// What every page read sends as `Accept`: the kinds of page it can read, first.
const PAGE_ACCEPT_VALUE: &str =
    "text/html,application/xhtml+xml,text/plain;q=0.9,application/pdf;q=0.8,*/*;q=0.5";

/// The HTTP clients and the rules they ask by.
pub(crate) struct Prober {
    /// Status probes: no body read, none asked for compressed.
    client: reqwest::Client,
    /// Page reads: gzip and brotli decoded.
    reader: reqwest::Client,
    policy: Arc<GuardPolicy>,
    timeout: Duration,
}

/// How a link is asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ask {
    /// HEAD, then GET when HEAD is refused or inconclusive; no body read.
    Status,
    /// One GET whose final response is kept when it is a success, for its body.
    Page,
}

/// A link asked: the verdict and, for [`Ask::Page`], the final response when it is a
/// success (its body not read yet), with where it came from and until when it may be
/// read.
pub(crate) struct Asked {
    /// The verdict.
    pub(crate) probed: Probed,
    /// The final 2xx response of a page ask.
    pub(crate) response: Option<reqwest::Response>,
    /// The URL of the last hop.
    pub(crate) final_url: Url,
    /// Redirects followed.
    pub(crate) redirects: usize,
    /// Whether the last hop answered with a status that ended the ask (not a redirect
    /// refused, looping or one too many).
    pub(crate) answered: bool,
    /// When the ask's time is up: reading the body must end by then too.
    pub(crate) deadline: Instant,
    /// Whether `deadline` is the ask's own timeout (not the answer's budget).
    pub(crate) own_deadline: bool,
}

/// The status and the few headers a verdict needs, and the response itself when it is
/// kept for its body (otherwise it is dropped at once).
#[derive(Debug)]
struct Answer {
    method: Method,
    status: StatusCode,
    location: Option<String>,
    retry_after: Option<Duration>,
    cloudflare_challenge: bool,
    response: Option<reqwest::Response>,
}

/// Why a request got no HTTP answer.
#[derive(Debug, Clone)]
pub(super) enum Failure {
    Resolve(ResolveFailure),
    Refused,
    Reset,
    /// The server closed the connection without a response.
    Closed,
    Tls(String),
    /// No route to the host or network: this machine's problem, not the link's.
    NoRoute(String),
    ConnectTimeout,
    Other(String),
}

/// How following the link ended.
#[derive(Debug)]
enum Outcome {
    Answered(Answer),
    Failed(Failure),
    Refused(UrlRefusal),
    TooManyRedirects,
    Loop(Url),
    BadRedirect(String),
}

/// Where the probe is: the URL of the current hop and the last status seen.
struct Trace {
    url: Url,
    status: Option<StatusCode>,
    redirects: usize,
}

/// The HTTP client setup every request to a cited link goes through (probes and page
/// reads alike): names resolved only through `resolver`, no system proxy, no cookies,
/// no referer, no redirect followed by itself (the caller judges every hop), `accept`
/// as `Accept`, at most `per_host` idle connections kept per host.
pub(crate) fn guarded_client(
    resolver: GuardedResolver,
    per_host: usize,
    user_agent: &str,
    accept: &'static str,
) -> reqwest::ClientBuilder {
    let mut headers = HeaderMap::new();
    headers.insert(ACCEPT, HeaderValue::from_static(accept));
    reqwest::Client::builder()
        .user_agent(user_agent)
        .default_headers(headers)
        .redirect(reqwest::redirect::Policy::none())
        .referer(false)
        .no_proxy()
        .dns_resolver(Arc::new(resolver))
        .pool_max_idle_per_host(per_host)
        .pool_idle_timeout(Duration::from_secs(30))
        .tcp_nodelay(true)
}

impl Prober {
    /// A prober whose clients resolve names only through `resolver`, ignore system
    /// proxies, keep no cookies and follow no redirect by itself; a probe ends within
    /// `timeout`.
    pub(crate) fn new(
        resolver: GuardedResolver,
        policy: Arc<GuardPolicy>,
        timeout: Duration,
        per_host: usize,
        user_agent: &str,
    ) -> Result<Prober, reqwest::Error> {
        let client = guarded_client(resolver.clone(), per_host, user_agent, ACCEPT_VALUE)
            // A status probe never reads a body: it asks for none compressed.
            .no_gzip()
            .no_brotli()
            .build()?;
        let reader = guarded_client(resolver, per_host, user_agent, PAGE_ACCEPT_VALUE)
            .gzip(true)
            .brotli(true)
            .build()?;
        Ok(Prober {
            client,
            reader,
            policy,
            timeout,
        })
    }

    /// Probes `url` for its status, ending by its own timeout or by `budget_end`,
    /// whichever is first.
    pub(crate) async fn probe(&self, url: &Url, budget_end: Instant) -> Probed {
        self.ask(url, Some(budget_end), self.timeout, Ask::Status)
            .await
            .probed
    }

    /// Asks `url` as `ask` says, ending within `timeout` or by `budget_end` (the
    /// answer's), whichever is first.
    pub(crate) async fn ask(
        &self,
        url: &Url,
        budget_end: Option<Instant>,
        timeout: Duration,
        ask: Ask,
    ) -> Asked {
        let started = Instant::now();
        let own_deadline = started + timeout;
        let deadline = budget_end.map_or(own_deadline, |end| own_deadline.min(end));
        let own = deadline == own_deadline;
        let mut trace = Trace {
            url: url.clone(),
            status: None,
            redirects: 0,
        };
        let outcome =
            tokio::time::timeout_at(deadline.into(), self.follow(&mut trace, deadline, ask)).await;
        let elapsed = started.elapsed();
        let answered = matches!(outcome, Ok(Outcome::Answered(_)));
        let (probed, response) = match outcome {
            Ok(Outcome::Answered(mut answer)) => {
                let response = answer
                    .response
                    .take()
                    .filter(|_| answer.status.is_success());
                (judge(Outcome::Answered(answer), &trace, elapsed), response)
            }
            Ok(outcome) => (judge(outcome, &trace, elapsed), None),
            Err(_) => {
                let reason = if own {
                    format!("no answer within {}", seconds(timeout))
                } else {
                    format!(
                        "stopped after {} when the answer's check ran out of time",
                        seconds(elapsed)
                    )
                };
                let probed = Probed {
                    verdict: verdict(VerdictClass::TimedOut, &trace, elapsed, reason),
                    cacheable: own,
                    network_failure: false,
                    host_silent: own && trace.status.is_none(),
                };
                (probed, None)
            }
        };
        Asked {
            probed,
            response,
            final_url: trace.url,
            redirects: trace.redirects,
            answered,
            deadline,
            own_deadline: own,
        }
    }

    /// The verdict for a URL the guard refused before any connection.
    pub(crate) fn refused(&self, url: &Url, refusal: UrlRefusal) -> Probed {
        let trace = Trace {
            url: url.clone(),
            status: None,
            redirects: 0,
        };
        judge(Outcome::Refused(refusal), &trace, Duration::ZERO)
    }

    async fn follow(&self, trace: &mut Trace, deadline: Instant, ask: Ask) -> Outcome {
        let mut visited = vec![without_fragment(&trace.url)];
        let mut retried = false;
        loop {
            if let Err(refusal) = judge_url(&trace.url, &self.policy) {
                return Outcome::Refused(refusal);
            }
            let answer = match self.fetch(&trace.url, deadline, &mut retried, ask).await {
                Ok(answer) => answer,
                Err(failure) => return Outcome::Failed(failure),
            };
            trace.status = Some(answer.status);
            let location = match (&answer.location, answer.status.is_redirection()) {
                (Some(location), true) => location.clone(),
                _ => return Outcome::Answered(answer),
            };
            let next = match trace.url.join(&location) {
                Ok(next) => next,
                Err(_) => return Outcome::BadRedirect(location),
            };
            if trace.redirects == MAX_REDIRECTS {
                return Outcome::TooManyRedirects;
            }
            let key = without_fragment(&next);
            if visited.contains(&key) {
                return Outcome::Loop(next);
            }
            visited.push(key);
            trace.url = next;
            trace.redirects += 1;
        }
    }

    /// For a status: HEAD, then GET when HEAD is refused or inconclusive. For a page:
    /// GET. Then one retry of a 429 whose `Retry-After` fits in what is left of the
    /// budget.
    async fn fetch(
        &self,
        url: &Url,
        deadline: Instant,
        retried: &mut bool,
        ask: Ask,
    ) -> Result<Answer, Failure> {
        let answer = match ask {
            Ask::Page => self.send(Method::GET, url, ask).await?,
            Ask::Status => match self.send(Method::HEAD, url, ask).await {
                Ok(head) if !head_inconclusive(head.status) => head,
                Ok(_) | Err(Failure::Closed) | Err(Failure::Reset) => {
                    self.send(Method::GET, url, ask).await?
                }
                Err(other) => return Err(other),
            },
        };
        if answer.status != StatusCode::TOO_MANY_REQUESTS || *retried {
            return Ok(answer);
        }
        match answer.retry_after {
            Some(wait) if Instant::now() + wait + RETRY_MARGIN <= deadline => {
                *retried = true;
                let method = answer.method.clone();
                drop(answer);
                tokio::time::sleep(wait).await;
                self.send(method, url, ask).await
            }
            _ => Ok(answer),
        }
    }

    /// One request. A status probe never reads the body; a page ask keeps the
    /// response of a GET for the caller to read (or drop).
    async fn send(&self, method: Method, url: &Url, ask: Ask) -> Result<Answer, Failure> {
        let client = match ask {
            Ask::Status => &self.client,
            Ask::Page => &self.reader,
        };
        let response = client
            .request(method.clone(), url.clone())
            .send()
            .await
            .map_err(|e| classify_error(&e))?;
        let headers = response.headers();
        let mut answer = Answer {
            method,
            status: response.status(),
            location: headers
                .get(LOCATION)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string),
            retry_after: crate::reply::retry_after(headers),
            cloudflare_challenge: headers.contains_key("cf-mitigated"),
            response: None,
        };
        if ask == Ask::Page && answer.method == Method::GET {
            answer.response = Some(response);
        }
        Ok(answer)
    }
}

/// Statuses from servers that mishandle HEAD: worth asking again with GET.
fn head_inconclusive(status: StatusCode) -> bool {
    matches!(status.as_u16(), 400 | 403 | 404 | 405 | 501)
}

/// `url` as a string without its fragment: the resource a request fetches.
pub(super) fn without_fragment(url: &Url) -> String {
    let mut url = url.clone();
    url.set_fragment(None);
    url.into()
}

/// Reads the error chain: the resolver's own failure, TLS, refused, reset, closed.
pub(super) fn classify_error(error: &reqwest::Error) -> Failure {
    let mut cause: Option<&(dyn StdError + 'static)> = Some(error);
    let mut innermost = error.to_string();
    while let Some(current) = cause {
        if let Some(failure) = recognise(current) {
            return failure;
        }
        innermost = current.to_string();
        cause = current.source();
    }
    Failure::Other(innermost)
}

fn recognise(error: &(dyn StdError + 'static)) -> Option<Failure> {
    if let Some(resolve) = error.downcast_ref::<ResolveFailure>() {
        return Some(Failure::Resolve(resolve.clone()));
    }
    if let Some(tls) = error.downcast_ref::<rustls::Error>() {
        return Some(Failure::Tls(tls.to_string()));
    }
    if let Some(hyper) = error.downcast_ref::<hyper::Error>() {
        if hyper.is_incomplete_message() || hyper.is_closed() {
            return Some(Failure::Closed);
        }
    }
    let io = error.downcast_ref::<std::io::Error>()?;
    // An io::Error's source() skips the error it wraps: look inside it directly.
    if let Some(inner) = io.get_ref() {
        if let Some(failure) = recognise(inner) {
            return Some(failure);
        }
    }
    use std::io::ErrorKind;
    match io.kind() {
        ErrorKind::ConnectionRefused => Some(Failure::Refused),
        ErrorKind::ConnectionReset | ErrorKind::ConnectionAborted | ErrorKind::BrokenPipe => {
            Some(Failure::Reset)
        }
        ErrorKind::UnexpectedEof => Some(Failure::Closed),
        ErrorKind::TimedOut => Some(Failure::ConnectTimeout),
        ErrorKind::NetworkUnreachable | ErrorKind::HostUnreachable | ErrorKind::NetworkDown => {
            Some(Failure::NoRoute(io.to_string()))
        }
        _ => None,
    }
}

/// The verdict for how the probe ended.
fn judge(outcome: Outcome, trace: &Trace, elapsed: Duration) -> Probed {
    let hop_note = |reason: String| {
        if trace.redirects > 0 {
            format!("redirected to {}: {reason}", trace.url)
        } else {
            reason
        }
    };
    let connect_timeout = matches!(outcome, Outcome::Failed(Failure::ConnectTimeout));
    let (class, reason, cacheable, network_failure) = match outcome {
        Outcome::Answered(answer) => {
            let (class, reason) = judge_status(&answer);
            (class, reason, true, false)
        }
        Outcome::Refused(refusal) => {
            let class = match refusal {
                UrlRefusal::NotHttp(_) | UrlRefusal::NoHost => VerdictClass::Invalid,
                UrlRefusal::ReservedName(_) => VerdictClass::Broken,
                UrlRefusal::Onion(_) => VerdictClass::Unreachable,
                UrlRefusal::Userinfo | UrlRefusal::Forbidden(_) | UrlRefusal::LocalName(_) => {
                    VerdictClass::Blocked
                }
            };
            (class, hop_note(refusal.to_string()), true, false)
        }
        Outcome::Failed(failure) => judge_failure(failure, &hop_note),
        Outcome::TooManyRedirects => (
            VerdictClass::Unreachable,
            format!("more than {MAX_REDIRECTS} redirects"),
            true,
            false,
        ),
        Outcome::Loop(back_to) => (
            VerdictClass::Unreachable,
            format!("redirect loop: back to {back_to}"),
            true,
            false,
        ),
        Outcome::BadRedirect(location) => (
            VerdictClass::ServerError,
            format!(
                "redirect to an unreadable location: {}",
                crate::render::escape::cut_chars(&location, 200)
            ),
            true,
            false,
        ),
    };
    Probed {
        verdict: verdict(class, trace, elapsed, reason),
        cacheable,
        network_failure,
        host_silent: connect_timeout,
    }
}

/// The class, reason, cacheability and whether the network (not the link) failed.
pub(super) fn judge_failure(
    failure: Failure,
    hop_note: &dyn Fn(String) -> String,
) -> (VerdictClass, String, bool, bool) {
    use VerdictClass::{Blocked, Broken, TimedOut, Unreachable};
    match failure {
        Failure::Resolve(resolve) => match resolve {
            ResolveFailure::NotFound(reason) => (
                Broken,
                hop_note(format!("host does not resolve: {reason}")),
                true,
                false,
            ),
            ResolveFailure::Unavailable(reason) => (Unreachable, hop_note(reason), false, true),
            ResolveFailure::Reserved(_) => (Broken, hop_note(resolve.to_string()), true, false),
            ResolveFailure::Onion(_) => (Unreachable, hop_note(resolve.to_string()), true, false),
            ResolveFailure::Forbidden { .. } | ResolveFailure::Local(_) => {
                (Blocked, hop_note(resolve.to_string()), true, false)
            }
        },
        Failure::Refused => (
            Unreachable,
            hop_note("connection refused".into()),
            true,
            false,
        ),
        Failure::Reset => (
            Unreachable,
            hop_note("connection reset".into()),
            true,
            false,
        ),
        Failure::Closed => (
            Unreachable,
            hop_note("the server closed the connection without answering".into()),
            true,
            false,
        ),
        Failure::Tls(detail) => (
            Unreachable,
            hop_note(format!("TLS failure: {detail}")),
            true,
            false,
        ),
        Failure::NoRoute(detail) => (
            Unreachable,
            hop_note(format!("no route: {detail}")),
            false,
            true,
        ),
        Failure::ConnectTimeout => (
            TimedOut,
            hop_note("could not connect in time".into()),
            false,
            true,
        ),
        Failure::Other(detail) => (Unreachable, hop_note(detail), true, false),
    }
}

/// The class and reason an HTTP status gives, once redirects are done.
fn judge_status(answer: &Answer) -> (VerdictClass, String) {
    let code = answer.status.as_u16();
    let described = format!("HTTP {code}");
    match code {
        200..=299 => (VerdictClass::Verified, described),
        300 => (
            VerdictClass::Verified,
            format!("{described} (multiple choices)"),
        ),
        301..=399 => (
            VerdictClass::ServerError,
            format!("{described} without a Location to follow"),
        ),
        404 | 410 => (VerdictClass::Broken, described),
        403 if answer.cloudflare_challenge => (
            VerdictClass::Restricted,
            format!("{described}: Cloudflare asks for a browser challenge"),
        ),
        401 | 403 => (
            VerdictClass::Restricted,
            format!("{described}: the page refuses robots"),
        ),
        429 => (
            VerdictClass::Restricted,
            match answer.retry_after {
                Some(wait) => format!("{described}: rate limited, retry after {}", seconds(wait)),
                None => format!("{described}: rate limited"),
            },
        ),
        999 => (
            VerdictClass::Restricted,
            format!("{described}: the site refuses robots"),
        ),
        500..=599 => (VerdictClass::ServerError, described),
        _ => (
            VerdictClass::Restricted,
            format!("{described}: the server refused the request"),
        ),
    }
}

fn verdict(class: VerdictClass, trace: &Trace, elapsed: Duration, reason: String) -> Verdict {
    Verdict {
        class,
        status_code: trace.status.map(|s| s.as_u16()),
        final_url: Some(trace.url.to_string()),
        elapsed_ms: Some(u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX)),
        reason: Some(reason),
    }
}

/// `2 s`, `1.5 s`, `250 ms`.
pub(crate) fn seconds(duration: Duration) -> String {
    let millis = duration.as_millis();
    if millis < 1000 {
        format!("{millis} ms")
    } else if millis.is_multiple_of(1000) {
        format!("{} s", millis / 1000)
    } else {
        format!("{:.1} s", duration.as_secs_f64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(status: u16) -> Answer {
        Answer {
            method: Method::GET,
            status: StatusCode::from_u16(status).expect("status"),
            location: None,
            retry_after: None,
            cloudflare_challenge: false,
            response: None,
        }
    }

    #[test]
    fn statuses_map_to_classes() {
        use VerdictClass::*;
        for (status, class) in [
            (200, Verified),
            (204, Verified),
            (300, Verified),
            (304, ServerError),
            (401, Restricted),
            (403, Restricted),
            (404, Broken),
            (410, Broken),
            (429, Restricted),
            (451, Restricted),
            (999, Restricted),
            (500, ServerError),
            (503, ServerError),
        ] {
            assert_eq!(judge_status(&answer(status)).0, class, "HTTP {status}");
        }
        let mut challenged = answer(403);
        challenged.cloudflare_challenge = true;
        assert!(judge_status(&challenged).1.contains("Cloudflare"));
    }

    #[test]
    fn durations_read_naturally() {
        assert_eq!(seconds(Duration::from_secs(2)), "2 s");
        assert_eq!(seconds(Duration::from_millis(1500)), "1.5 s");
        assert_eq!(seconds(Duration::from_millis(250)), "250 ms");
    }
}
