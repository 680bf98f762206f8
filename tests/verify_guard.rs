//! The SSRF guard, attacked: every non-global range and every way of spelling a local
//! address must be refused with private addresses not allowed, and the server
//! listening there must see no connection at all. Names go through the real DNS
//! resolver, pointed at a fake DNS server, so a name that resolves to a private
//! address is caught where the connection would be made.

mod support;

use sourcebot::model::{Verdict, VerdictClass};
use sourcebot::verify::resolve::StaticLookup;
use sourcebot::verify::Verifier;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;
use support::{dead_dns_addr, DnsAnswer, FakeDns, HostileServer, Route};

const LOCALHOST: IpAddr = IpAddr::V4(Ipv4Addr::LOCALHOST);

/// The production policy: no private address allowed.
fn strict(lookup: StaticLookup) -> Verifier {
    Verifier::builder()
        .timeout(Duration::from_secs(2))
        .lookup(Arc::new(lookup))
        .build()
        .expect("verifier")
}

fn assert_blocked(verdict: &Verdict, url: &str) {
    assert_eq!(verdict.class, VerdictClass::Blocked, "{url}: {verdict:?}");
}

/// Every spelling of 127.0.0.1 (and its names) with `port`.
fn loopback_spellings(port: u16) -> Vec<String> {
    [
        "127.0.0.1",
        "2130706433",
        "0x7f000001",
        "0x7f.1",
        "0x7f.0.0.1",
        "0177.0.0.1",
        "017700000001",
        "127.1",
        "127.0.1",
        "127.0.0.1.",
        "①②⑦.0.0.1",
        "１２７.０.０.１",
        "[::ffff:127.0.0.1]",
        "[::ffff:7f00:1]",
        "[0:0:0:0:0:ffff:7f00:1]",
        "[::127.0.0.1]",
        "[64:ff9b::7f00:1]",
        "[2002:7f00:1::]",
        "localhost",
        "localhost.",
        "LOCALHOST",
        "app.localhost",
        "loopback.example.com",
        "rebind.example.com",
    ]
    .iter()
    .map(|host| format!("http://{host}:{port}/"))
    .collect()
}

#[tokio::test]
async fn every_spelling_of_loopback_is_refused_without_a_connection() {
    let server = HostileServer::start(LOCALHOST, vec![("/", Route::status(200))]).await;
    let port = server.addr().port();
    let lookup = StaticLookup::new()
        .with("loopback.example.com", vec![LOCALHOST])
        // A public address and a private one: only the public one may be used, and it
        // is not listening, so the probe must fail without touching loopback.
        .with(
            "rebind.example.com",
            vec![LOCALHOST, IpAddr::V4(Ipv4Addr::new(192, 0, 2, 1))],
        );
    let verifier = strict(lookup);
    let urls = loopback_spellings(port);
    let outcome = verifier.check_urls(&urls, None).await;
    for (url, verdict) in urls.iter().zip(&outcome.verdicts) {
        assert_blocked(verdict, url);
    }
    assert_eq!(
        server.connections(),
        0,
        "the guard let a connection through"
    );
}

#[tokio::test]
async fn every_non_global_range_is_refused() {
    let verifier = strict(StaticLookup::new());
    let hosts = [
        // IPv4: first and last of each range.
        "0.0.0.0",
        "0.255.255.255",
        "10.0.0.1",
        "10.255.255.255",
        "100.64.0.1",
        "100.127.255.255",
        "127.0.0.1",
        "127.255.255.254",
        "169.254.169.254",
        "169.254.0.1",
        "172.16.0.1",
        "172.31.255.255",
        "192.0.0.1",
        "192.0.0.255",
        "192.0.2.1",
        "192.0.2.255",
        "192.168.0.1",
        "192.168.255.255",
        "198.18.0.1",
        "198.19.255.255",
        "198.51.100.1",
        "203.0.113.1",
        "224.0.0.1",
        "239.255.255.255",
        "240.0.0.1",
        "255.255.255.255",
        // IPv6.
        "[::]",
        "[::1]",
        "[fc00::1]",
        "[fdff:ffff::1]",
        "[fe80::1]",
        "[febf::1]",
        "[ff02::1]",
        "[2001:db8::1]",
        // IPv6 that embeds a non-global IPv4.
        "[::ffff:10.0.0.1]",
        "[::ffff:169.254.169.254]",
        "[64:ff9b::192.168.1.1]",
        "[64:ff9b::a00:1]",
        "[2002:c0a8:101::1]",
        "[2002:a9fe:a9fe::]",
        // Teredo: server 65.54.227.120, client 10.0.0.1 (stored inverted).
        "[2001:0:4136:e378:8000:63bf:f5ff:fffe]",
    ];
    let urls: Vec<String> = hosts
        .iter()
        .map(|h| format!("http://{h}/latest/meta-data/"))
        .collect();
    let outcome = verifier.check_urls(&urls, None).await;
    for (url, verdict) in urls.iter().zip(&outcome.verdicts) {
        assert_blocked(verdict, url);
        assert_eq!(
            verdict.elapsed_ms,
            Some(0),
            "{url}: decided before any connection"
        );
    }
}

#[tokio::test]
async fn global_neighbours_of_the_ranges_are_not_refused() {
    // Just outside the ranges: not blocked. Nothing listens there (and tests are
    // offline), so the verdict is some network failure, never "blocked".
    let verifier = Verifier::builder()
        .timeout(Duration::from_millis(300))
        .lookup(Arc::new(StaticLookup::new()))
        .build()
        .expect("verifier");
    for host in [
        "9.255.255.255",
        "11.0.0.0",
        "100.128.0.1",
        "172.32.0.1",
        "[::ffff:8.8.8.8]",
    ] {
        let verdict = verifier.check_url(&format!("http://{host}/")).await;
        assert_ne!(verdict.class, VerdictClass::Blocked, "{host}: {verdict:?}");
    }
}

#[tokio::test]
async fn redirects_to_private_addresses_are_refused() {
    // The inner server stands for an internal service; the public site (allowed as
    // one exact socket) redirects to it in several spellings.
    let internal = HostileServer::start(LOCALHOST, vec![("/", Route::status(200))]).await;
    let port = internal.addr().port();
    let targets: Vec<String> = vec![
        format!("http://127.0.0.1:{port}/"),
        format!("http://2130706433:{port}/"),
        format!("http://[::ffff:127.0.0.1]:{port}/"),
        format!("http://localhost:{port}/"),
        format!("http://internal.example.com:{port}/"),
        "http://169.254.169.254/latest/meta-data/".to_string(),
        "http://10.0.0.1/admin".to_string(),
    ];
    let paths = ["/0", "/1", "/2", "/3", "/4", "/5", "/6"];
    let routes = paths
        .iter()
        .zip(&targets)
        .map(|(path, target)| (*path, Route::redirect(302, target)))
        .collect();
    let public = HostileServer::start(IpAddr::V4(Ipv4Addr::new(127, 2, 0, 1)), routes).await;
    let verifier = Verifier::builder()
        .timeout(Duration::from_secs(2))
        .allow_socket(public.addr())
        .lookup(Arc::new(
            StaticLookup::new().with("internal.example.com", vec![LOCALHOST]),
        ))
        .build()
        .expect("verifier");
    let urls: Vec<String> = paths.iter().map(|p| public.url(p)).collect();
    let outcome = verifier.check_urls(&urls, None).await;
    for ((url, verdict), target) in urls.iter().zip(&outcome.verdicts).zip(&targets) {
        assert_blocked(verdict, url);
        let reason = verdict.reason.as_deref().unwrap_or_default();
        assert!(reason.starts_with("redirected to"), "{url}: {reason}");
        assert!(verdict.final_url.is_some(), "{url} → {target}");
    }
    assert_eq!(
        public.requests(),
        paths.len(),
        "each redirect was asked once"
    );
    assert_eq!(
        internal.connections(),
        0,
        "a redirect reached the internal server"
    );
}

#[tokio::test]
async fn userinfo_is_refused_even_where_private_addresses_are_allowed() {
    let server = HostileServer::start(LOCALHOST, vec![("/", Route::status(200))]).await;
    let verifier = Verifier::builder()
        .allow_private(true)
        .lookup(Arc::new(StaticLookup::new()))
        .build()
        .expect("verifier");
    let port = server.addr().port();
    for url in [
        format!("http://user:secret@127.0.0.1:{port}/"),
        format!("http://token@127.0.0.1:{port}/"),
    ] {
        let verdict = verifier.check_url(&url).await;
        assert_blocked(&verdict, &url);
        assert!(verdict
            .reason
            .as_deref()
            .unwrap_or_default()
            .contains("user name or password"));
    }
    assert_eq!(server.connections(), 0);
}

#[tokio::test]
async fn private_addresses_are_reached_only_when_allowed() {
    let server = HostileServer::start(LOCALHOST, vec![("/", Route::status(200))]).await;
    let url = server.url("/");
    let strict = strict(StaticLookup::new()).check_url(&url).await;
    assert_blocked(&strict, &url);
    assert_eq!(server.connections(), 0);
    let allowed = Verifier::builder()
        .allow_private(true)
        .lookup(Arc::new(StaticLookup::new()))
        .build()
        .expect("verifier")
        .check_url(&url)
        .await;
    assert_eq!(allowed.class, VerdictClass::Verified, "{allowed:?}");
}

// ---------------------------------------------------------------------------------
// Through real DNS (hickory), against a fake DNS server
// ---------------------------------------------------------------------------------

fn dns_verifier(dns: SocketAddr, allow_private: bool, canary: Option<&str>) -> Verifier {
    Verifier::builder()
        .timeout(Duration::from_secs(2))
        .allow_private(allow_private)
        .nameservers(vec![dns])
        .canary(canary.map(str::to_string))
        .build()
        .expect("verifier")
}

#[tokio::test]
async fn a_name_resolving_to_a_private_address_is_refused() {
    let server = HostileServer::start(LOCALHOST, vec![("/", Route::status(200))]).await;
    let dns = FakeDns::start(vec![
        ("evil.example.com", DnsAnswer::A(vec![Ipv4Addr::LOCALHOST])),
        (
            "evil6.example.com",
            DnsAnswer::Aaaa(vec![Ipv6Addr::LOCALHOST]),
        ),
        (
            "meta.example.com",
            DnsAnswer::A(vec![Ipv4Addr::new(169, 254, 169, 254)]),
        ),
    ])
    .await;
    let verifier = dns_verifier(dns.addr(), false, None);
    let port = server.addr().port();
    for host in ["evil.example.com", "evil6.example.com", "meta.example.com"] {
        let url = format!("http://{host}:{port}/");
        let verdict = verifier.check_url(&url).await;
        assert_blocked(&verdict, &url);
        assert!(
            verdict
                .reason
                .as_deref()
                .unwrap_or_default()
                .contains("forbidden"),
            "{verdict:?}"
        );
    }
    assert!(dns.queries().iter().any(|q| q == "evil.example.com"));
    assert_eq!(server.connections(), 0);
}

#[tokio::test]
async fn the_connection_goes_to_the_address_dns_gave() {
    let server = HostileServer::start(LOCALHOST, vec![("/page", Route::status(200))]).await;
    let dns = FakeDns::start(vec![(
        "site.example.com",
        DnsAnswer::A(vec![Ipv4Addr::LOCALHOST]),
    )])
    .await;
    let verifier = dns_verifier(dns.addr(), true, None);
    let url = format!("http://site.example.com:{}/page", server.addr().port());
    let verdict = verifier.check_url(&url).await;
    assert_eq!(verdict.class, VerdictClass::Verified, "{verdict:?}");
    assert_eq!(server.requests_to("/page"), ["HEAD"]);
    let host = server.request_log()[0].header("host").map(str::to_string);
    assert_eq!(
        host,
        Some(format!("site.example.com:{}", server.addr().port()))
    );
}

#[tokio::test]
async fn nxdomain_is_broken() {
    let dns = FakeDns::start(vec![
        ("gone.example.com", DnsAnswer::NxDomain),
        (
            "canary.example.com",
            DnsAnswer::A(vec![Ipv4Addr::new(93, 184, 216, 34)]),
        ),
    ])
    .await;
    let verifier = dns_verifier(dns.addr(), false, Some("canary.example.com"));
    let verdict = verifier.check_url("https://gone.example.com/page").await;
    assert_eq!(verdict.class, VerdictClass::Broken, "{verdict:?}");
    assert!(verdict
        .reason
        .as_deref()
        .unwrap_or_default()
        .contains("does not exist"));
}

#[tokio::test]
async fn a_dns_server_that_says_nothing_exists_is_not_believed() {
    // Sandboxes and captive portals answer NXDOMAIN for every name: the canary shows it.
    let dns = FakeDns::start(vec![]).await;
    let verifier = dns_verifier(dns.addr(), false, Some("canary.example.com"));
    let urls = ["https://a.example.com/", "https://b.example.org/x"];
    let outcome = verifier.check_urls(&urls, None).await;
    for verdict in &outcome.verdicts {
        assert_eq!(verdict.class, VerdictClass::Unreachable, "{verdict:?}");
        assert!(verdict
            .reason
            .as_deref()
            .unwrap_or_default()
            .contains("not even canary.example.com"));
    }
    assert!(outcome.network_down);
}

#[tokio::test]
async fn an_unreachable_resolver_means_offline_not_broken() {
    let verifier = dns_verifier(dead_dns_addr(), false, None);
    let urls = ["https://a.example.com/", "https://b.example.org/x"];
    let outcome = verifier.check_urls(&urls, None).await;
    for verdict in &outcome.verdicts {
        assert_eq!(verdict.class, VerdictClass::Unreachable, "{verdict:?}");
    }
    assert!(outcome.network_down, "{:?}", outcome.verdicts);
    // Not remembered: the network may come back.
    assert_eq!(verifier.cached_verdicts(), 0);
}

#[tokio::test]
async fn a_silent_resolver_is_unreachable_within_the_budget() {
    let dns = FakeDns::start(vec![("slow.example.com", DnsAnswer::Silent)]).await;
    let verifier = dns_verifier(dns.addr(), false, None);
    let outcome = verifier
        .check_urls(&["https://slow.example.com/"], None)
        .await;
    let verdict = &outcome.verdicts[0];
    assert!(
        matches!(
            verdict.class,
            VerdictClass::Unreachable | VerdictClass::TimedOut
        ),
        "{verdict:?}"
    );
    assert!(
        outcome.elapsed < Duration::from_secs(3),
        "{:?}",
        outcome.elapsed
    );
}
