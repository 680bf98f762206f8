//! The verifier against a hostile web: one local server per behaviour, each on its own
//! loopback address (per-host caps key on the host), every case asserting its verdict.
//! The suite's cases also run together in one batch, which must end within the
//! timeout plus the batch grace however many of them hang.

mod support;

use sourcebot::model::{Verdict, VerdictClass};
use sourcebot::verify::resolve::StaticLookup;
use sourcebot::verify::{Verifier, BATCH_GRACE};
use std::net::IpAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};
use support::{Action, HostileServer, Route};

const TIMEOUT: Duration = Duration::from_secs(2);

/// A loopback address of this file's block, 127.1.x.y.
fn next_ip() -> IpAddr {
    support::next_ip(1)
}

async fn server(routes: Vec<(&str, Route)>) -> HostileServer {
    HostileServer::start(next_ip(), routes).await
}

/// A verifier for loopback servers: private addresses allowed, names from a table.
fn verifier() -> Verifier {
    Verifier::builder()
        .timeout(TIMEOUT)
        .allow_private(true)
        .lookup(Arc::new(StaticLookup::new()))
        .build()
        .expect("verifier")
}

fn assert_verdict(verdict: &Verdict, class: VerdictClass, reason_has: &str, case: &str) {
    assert_eq!(verdict.class, class, "{case}: {verdict:?}");
    let reason = verdict.reason.as_deref().unwrap_or_default();
    assert!(
        reason.contains(reason_has),
        "{case}: reason {reason:?} lacks {reason_has:?}"
    );
}

/// One behaviour: a server, the URL to check on it, and what the verdict must be.
struct Case {
    name: &'static str,
    /// Kept alive until the case is checked.
    _server: HostileServer,
    url: String,
    class: VerdictClass,
    reason_has: &'static str,
    status: Option<u16>,
}

async fn case(
    name: &'static str,
    routes: Vec<(&'static str, Route)>,
    path: &str,
    class: VerdictClass,
    reason_has: &'static str,
    status: Option<u16>,
) -> Case {
    let server = server(routes).await;
    let url = server.url(path);
    Case {
        name,
        _server: server,
        url,
        class,
        reason_has,
        status,
    }
}

/// A chain /r0 → /r1 → … → /r{hops} that answers 200 at the end.
fn chain(hops: usize) -> Vec<(&'static str, Route)> {
    const PATHS: [&str; 8] = ["/r0", "/r1", "/r2", "/r3", "/r4", "/r5", "/r6", "/r7"];
    let mut routes: Vec<(&'static str, Route)> = (0..hops)
        .map(|i| (PATHS[i], Route::redirect(302, PATHS[i + 1])))
        .collect();
    routes.push((PATHS[hops], Route::status(200)));
    routes
}

/// Every behaviour of the hostile web, with its expected verdict.
async fn hostile_web() -> Vec<Case> {
    use VerdictClass::*;
    vec![
        case(
            "200",
            vec![("/", Route::status(200))],
            "/",
            Verified,
            "HTTP 200",
            Some(200),
        )
        .await,
        case(
            "301 → 302 → 200",
            vec![
                ("/a", Route::redirect(301, "/b")),
                ("/b", Route::redirect(302, "/c")),
                ("/c", Route::status(200)),
            ],
            "/a",
            Verified,
            "HTTP 200",
            Some(200),
        )
        .await,
        case("5 hops", chain(5), "/r0", Verified, "HTTP 200", Some(200)).await,
        case(
            "6 hops",
            chain(6),
            "/r0",
            Unreachable,
            "more than 5 redirects",
            Some(302),
        )
        .await,
        case(
            "redirect loop",
            vec![
                ("/x", Route::redirect(302, "/y")),
                ("/y", Route::redirect(302, "/x")),
            ],
            "/x",
            Unreachable,
            "redirect loop",
            Some(302),
        )
        .await,
        case(
            "404",
            vec![("/", Route::status(404))],
            "/",
            Broken,
            "HTTP 404",
            Some(404),
        )
        .await,
        case(
            "410",
            vec![("/", Route::status(410))],
            "/",
            Broken,
            "HTTP 410",
            Some(410),
        )
        .await,
        case(
            "405 on HEAD, 200 on GET",
            vec![("/", Route::head_then_get(405, 200))],
            "/",
            Verified,
            "HTTP 200",
            Some(200),
        )
        .await,
        case(
            "403 on HEAD, 200 on GET",
            vec![("/", Route::head_then_get(403, 200))],
            "/",
            Verified,
            "HTTP 200",
            Some(200),
        )
        .await,
        case(
            "403 with cf-mitigated",
            vec![(
                "/",
                Route::status_with(403, &[("cf-mitigated", "challenge")]),
            )],
            "/",
            Restricted,
            "Cloudflare",
            Some(403),
        )
        .await,
        case(
            "999",
            vec![("/", Route::status(999))],
            "/",
            Restricted,
            "HTTP 999",
            Some(999),
        )
        .await,
        case(
            "429 with Retry-After: 1, then 200",
            vec![(
                "/",
                Route::sequence(vec![
                    Action::status_with(429, &[("Retry-After", "1")]),
                    Action::status(200),
                ]),
            )],
            "/",
            Verified,
            "HTTP 200",
            Some(200),
        )
        .await,
        case(
            "429 with Retry-After: 120",
            vec![("/", Route::status_with(429, &[("Retry-After", "120")]))],
            "/",
            Restricted,
            "rate limited",
            Some(429),
        )
        .await,
        case(
            "500",
            vec![("/", Route::status(500))],
            "/",
            ServerError,
            "HTTP 500",
            Some(500),
        )
        .await,
        case(
            "503",
            vec![("/", Route::status(503))],
            "/",
            ServerError,
            "HTTP 503",
            Some(503),
        )
        .await,
        case(
            "accepts and never answers",
            vec![("/", Route::always(Action::Hang))],
            "/",
            TimedOut,
            "no answer within 2 s",
            None,
        )
        .await,
        case(
            "headers, then a stalled body",
            vec![("/", Route::always(Action::HeadersThenStall))],
            "/",
            Verified,
            "HTTP 200",
            Some(200),
        )
        .await,
        case(
            "answers in 1.5 s",
            vec![(
                "/",
                Route::always(Action::status(200).after(Duration::from_millis(1500))),
            )],
            "/",
            Verified,
            "HTTP 200",
            Some(200),
        )
        .await,
        case(
            "answers in 3 s",
            vec![(
                "/",
                Route::always(Action::status(200).after(Duration::from_secs(3))),
            )],
            "/",
            TimedOut,
            "no answer within 2 s",
            None,
        )
        .await,
        case(
            "a 1 GB body",
            vec![(
                "/",
                Route::new(|req, _| {
                    if req.method == "HEAD" {
                        Action::status(405)
                    } else {
                        Action::huge(200, 1 << 30)
                    }
                }),
            )],
            "/",
            Verified,
            "HTTP 200",
            Some(200),
        )
        .await,
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_hostile_behaviour_gets_its_verdict() {
    let cases = hostile_web().await;
    let verifier = verifier();
    for case in &cases {
        let verdict = verifier.check_url(&case.url).await;
        assert_verdict(&verdict, case.class, case.reason_has, case.name);
        assert_eq!(
            verdict.status_code, case.status,
            "{}: {verdict:?}",
            case.name
        );
        assert!(verdict.elapsed_ms.is_some(), "{}: no time", case.name);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_whole_hostile_web_in_one_batch_ends_within_its_budget() {
    let cases = hostile_web().await;
    let verifier = verifier();
    let urls: Vec<&str> = cases.iter().map(|c| c.url.as_str()).collect();
    let started = Instant::now();
    let outcome = verifier.check_urls(&urls, None).await;
    let wall = started.elapsed();
    for (case, verdict) in cases.iter().zip(&outcome.verdicts) {
        assert_verdict(verdict, case.class, case.reason_has, case.name);
    }
    // The deadline is enforced by the verifier; the slack is for a loaded machine.
    let budget = TIMEOUT + BATCH_GRACE;
    assert!(
        wall < budget + Duration::from_millis(750),
        "batch took {wall:?}, budget {budget:?}"
    );
    assert!(!outcome.network_down);
}

#[tokio::test]
async fn redirect_details_are_recorded() {
    let site = server(vec![
        ("/a", Route::redirect(301, "/b")),
        ("/b", Route::redirect(302, "/c#part")),
        ("/c", Route::status(200)),
    ])
    .await;
    let verdict = verifier().check_url(&site.url("/a")).await;
    assert_eq!(verdict.class, VerdictClass::Verified);
    assert_eq!(
        verdict.final_url.as_deref(),
        Some(site.url("/c#part").as_str())
    );
    // Each hop once, HEAD only: nothing was inconclusive.
    assert_eq!(site.requests_to("/a"), ["HEAD"]);
    assert_eq!(site.requests_to("/c"), ["HEAD"]);
}

#[tokio::test]
async fn head_fallback_uses_get_and_never_reads_the_body() {
    let site = server(vec![(
        "/big",
        Route::new(|req, _| {
            if req.method == "HEAD" {
                Action::status(405)
            } else {
                Action::huge(200, 1 << 30)
            }
        }),
    )])
    .await;
    let verdict = verifier().check_url(&site.url("/big")).await;
    assert_eq!(verdict.class, VerdictClass::Verified, "{verdict:?}");
    assert_eq!(site.requests_to("/big"), ["HEAD", "GET"]);
    // The socket buffers take a little; the body itself is never read.
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(
        site.body_bytes_sent() < 16 << 20,
        "{} body bytes went out",
        site.body_bytes_sent()
    );
}

#[tokio::test]
async fn a_429_that_fits_is_retried_once_and_one_that_does_not_is_not() {
    let fits = server(vec![(
        "/",
        Route::sequence(vec![
            Action::status_with(429, &[("Retry-After", "1")]),
            Action::status(200),
        ]),
    )])
    .await;
    let started = Instant::now();
    let verdict = verifier().check_url(&fits.url("/")).await;
    assert_eq!(verdict.class, VerdictClass::Verified);
    assert!(started.elapsed() >= Duration::from_secs(1), "did not wait");
    assert_eq!(fits.requests_to("/").len(), 2);

    let too_long = server(vec![(
        "/",
        Route::status_with(429, &[("Retry-After", "120")]),
    )])
    .await;
    let started = Instant::now();
    let verdict = verifier().check_url(&too_long.url("/")).await;
    assert_eq!(verdict.class, VerdictClass::Restricted);
    assert!(started.elapsed() < Duration::from_secs(1), "waited anyway");
    assert_eq!(too_long.requests_to("/"), ["HEAD"], "retried");
}

#[tokio::test]
async fn nothing_else_is_retried() {
    let site = server(vec![("/", Route::status(503))]).await;
    let verdict = verifier().check_url(&site.url("/")).await;
    assert_eq!(verdict.class, VerdictClass::ServerError);
    assert_eq!(site.requests_to("/"), ["HEAD"]);
}

#[tokio::test]
async fn a_server_that_closes_at_once_is_unreachable() {
    let closing = HostileServer::start_closing(next_ip()).await;
    let verdict = verifier().check_url(&closing.url("/")).await;
    assert_verdict(&verdict, VerdictClass::Unreachable, "", "closes at once");
    assert!(verdict.status_code.is_none());
    // HEAD, then GET after the closed connection.
    assert!(
        closing.connections() >= 2,
        "{} connections",
        closing.connections()
    );
}

#[tokio::test]
async fn a_closed_port_is_refused() {
    let ip = next_ip();
    let listener = std::net::TcpListener::bind((ip, 0)).expect("bind");
    let port = listener.local_addr().expect("addr").port();
    drop(listener);
    let verdict = verifier().check_url(&format!("http://{ip}:{port}/")).await;
    assert_verdict(
        &verdict,
        VerdictClass::Unreachable,
        "connection refused",
        "closed port",
    );
}

#[tokio::test]
async fn a_self_signed_certificate_is_a_tls_failure() {
    let site = HostileServer::start_tls(next_ip(), vec![("/", Route::status(200))]).await;
    let url = site.url("/");
    assert!(url.starts_with("https://"), "{url}");
    let verdict = verifier().check_url(&url).await;
    assert_verdict(&verdict, VerdictClass::Unreachable, "TLS", "self-signed");
    assert_eq!(
        site.requests(),
        0,
        "a request went over an untrusted connection"
    );
}

#[tokio::test]
async fn reserved_names_are_broken_without_a_lookup() {
    let verifier = verifier();
    for url in [
        "http://nothing.invalid/",
        "https://site.test/page",
        "http://www.example/",
    ] {
        let verdict = verifier.check_url(url).await;
        assert_verdict(&verdict, VerdictClass::Broken, "reserved name", url);
    }
}

#[tokio::test]
async fn requests_say_who_is_asking_and_carry_no_cookie() {
    let site = server(vec![
        (
            "/a",
            Route::always(Action::status_with(
                302,
                &[("Location", "/b"), ("Set-Cookie", "session=1; Path=/")],
            )),
        ),
        ("/b", Route::status(200)),
    ])
    .await;
    let verdict = verifier().check_url(&site.url("/a")).await;
    assert_eq!(verdict.class, VerdictClass::Verified);
    let log = site.request_log();
    assert_eq!(log.len(), 2);
    for request in &log {
        let agent = request.header("user-agent").unwrap_or_default();
        assert!(
            agent.starts_with(&format!("sourcebot/{} (+http", env!("CARGO_PKG_VERSION"))),
            "{agent}"
        );
        assert_eq!(request.header("accept"), Some("text/html,*/*"));
        assert_eq!(request.header("cookie"), None, "a cookie was sent");
        assert_eq!(request.header("authorization"), None);
    }
}

#[tokio::test]
async fn answered_verdicts_are_cached_and_concurrent_checks_share_one_probe() {
    let site = server(vec![(
        "/",
        Route::always(Action::status(200).after(Duration::from_millis(200))),
    )])
    .await;
    let verifier = verifier();
    let url = site.url("/");
    let urls = vec![url.as_str(); 1];
    let (a, b, c) = tokio::join!(
        verifier.check_urls(&urls, None),
        verifier.check_urls(&urls, None),
        verifier.check_url(&url),
    );
    assert_eq!(a.verdicts[0].class, VerdictClass::Verified);
    assert_eq!(b.verdicts[0].class, VerdictClass::Verified);
    assert_eq!(c.class, VerdictClass::Verified);
    assert_eq!(site.requests_to("/").len(), 1, "coalescing failed");
    let again = verifier.check_urls(&urls, None).await;
    assert_eq!(again.from_cache, 1);
    assert_eq!(site.requests_to("/").len(), 1, "the cache was not used");
}

#[tokio::test]
async fn many_links_run_concurrently_not_one_after_another() {
    // 20 links on 20 hosts, each answering in 300 ms: one after another would take 6 s.
    let mut sites = Vec::new();
    for _ in 0..20 {
        sites.push(
            server(vec![(
                "/",
                Route::always(Action::status(200).after(Duration::from_millis(300))),
            )])
            .await,
        );
    }
    let urls: Vec<String> = sites.iter().map(|s| s.url("/")).collect();
    let outcome = verifier().check_urls(&urls, None).await;
    assert!(outcome
        .verdicts
        .iter()
        .all(|v| v.class == VerdictClass::Verified));
    assert!(
        outcome.elapsed < Duration::from_secs(2),
        "20 × 300 ms took {:?}",
        outcome.elapsed
    );
}

#[tokio::test]
async fn the_per_host_cap_holds() {
    // 12 links on one host, each answering in 100 ms, with a cap of 3 per host.
    let site = server(vec![(
        "/",
        Route::always(Action::status(200).after(Duration::from_millis(100))),
    )])
    .await;
    let verifier = Verifier::builder()
        .timeout(Duration::from_secs(5))
        .per_host(3)
        .allow_private(true)
        .lookup(Arc::new(StaticLookup::new()))
        .build()
        .expect("verifier");
    let urls: Vec<String> = (0..12).map(|i| site.url(&format!("/?n={i}"))).collect();
    let outcome = verifier.check_urls(&urls, None).await;
    assert!(outcome
        .verdicts
        .iter()
        .all(|v| v.class == VerdictClass::Verified));
    assert!(
        site.max_concurrent() <= 3,
        "{} requests at once on one host",
        site.max_concurrent()
    );
    assert!(site.max_concurrent() >= 2, "slow start never grew");
}

#[tokio::test]
async fn a_silent_host_is_not_waited_on_again_for_each_link() {
    // Three links on a host that never answers: the first waits out its timeout, the
    // others are settled at once, and a second check does not wait at all.
    let silent = server(vec![("/", Route::always(Action::Hang))]).await;
    let verifier = Verifier::builder()
        .timeout(Duration::from_millis(1000))
        .allow_private(true)
        .lookup(Arc::new(StaticLookup::new()))
        .build()
        .expect("verifier");
    let urls: Vec<String> = (0..3).map(|i| silent.url(&format!("/?n={i}"))).collect();
    let first = verifier.check_urls(&urls, None).await;
    assert!(first
        .verdicts
        .iter()
        .all(|v| v.class == VerdictClass::TimedOut));
    let settled = first
        .verdicts
        .iter()
        .filter(|v| {
            v.reason
                .as_deref()
                .unwrap_or_default()
                .contains("let another link time out")
        })
        .count();
    assert_eq!(settled, 2, "{:?}", first.verdicts);
    assert_eq!(silent.requests(), 1);
    let started = Instant::now();
    let again = verifier.check_urls(&urls, None).await;
    assert!(
        started.elapsed() < Duration::from_millis(700),
        "waited again"
    );
    assert!(again
        .verdicts
        .iter()
        .all(|v| v.class == VerdictClass::TimedOut));
    assert_eq!(silent.requests(), 1, "probed a silent host again");
}

#[tokio::test]
async fn a_host_that_answers_is_not_written_off_for_one_slow_page() {
    let site = server(vec![
        ("/fast", Route::status(200)),
        ("/slow", Route::always(Action::Hang)),
    ])
    .await;
    let verifier = Verifier::builder()
        .timeout(Duration::from_millis(500))
        .allow_private(true)
        .lookup(Arc::new(StaticLookup::new()))
        .build()
        .expect("verifier");
    let fast = verifier.check_url(&site.url("/fast")).await;
    assert_eq!(fast.class, VerdictClass::Verified);
    let slow = verifier.check_url(&site.url("/slow")).await;
    assert_eq!(slow.class, VerdictClass::TimedOut);
    let other = verifier.check_url(&site.url("/fast?again")).await;
    assert_eq!(other.class, VerdictClass::Verified, "{other:?}");
}
