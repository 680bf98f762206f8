//! Reading cited pages against a hostile web: one local server per behaviour, each on
//! its own loopback address, every case asserting what `Verifier::fetch_page` makes of
//! it: the article's text and nothing around it, caps on size (decoded bytes too) and
//! time, charsets as declared, the guard on every redirect, unreadable pages with a
//! reason, and one fetch per URL.

mod support;

use encoding_rs::{SHIFT_JIS, WINDOWS_1252};
use sourcebot::model::PageSignals;
use sourcebot::page::{PageKind, PageRead, MAX_TEXT_CHARS};
use sourcebot::verify::resolve::StaticLookup;
use sourcebot::verify::Verifier;
use std::io::Write;
use std::net::{IpAddr, Ipv4Addr};
use std::sync::Arc;
use std::time::{Duration, Instant};
use support::{Action, HostileServer, Route};

/// A loopback address of this file's block, 127.12.x.y.
fn next_ip() -> IpAddr {
    support::next_ip(12)
}

async fn server(routes: Vec<(&str, Route)>) -> HostileServer {
    HostileServer::start(next_ip(), routes).await
}

/// A verifier for loopback servers: private addresses allowed, names from a table.
fn verifier() -> Verifier {
    Verifier::builder()
        .timeout(Duration::from_secs(2))
        .fetch_timeout(Duration::from_secs(3))
        .allow_private(true)
        .lookup(Arc::new(StaticLookup::new()))
        .build()
        .expect("verifier")
}

fn page_of(read: &PageRead) -> &sourcebot::page::Page {
    read.page().unwrap_or_else(|| panic!("not read: {read:?}"))
}

fn reason_of(read: &PageRead) -> &str {
    read.unreadable_reason()
        .unwrap_or_else(|| panic!("read after all: {read:?}"))
}

/// Serves `body` with these headers at `/`.
fn bytes_route(headers: &[(&str, &str)], body: Vec<u8>) -> Route {
    Route::always(Action::bytes(200, headers, body))
}

const ARTICLE: &str = r#"<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Tides &amp; the Moon | Example News</title>
<script>window.analytics = "SCRIPT";</script></head>
<body>
<div class="cookie-consent" role="dialog">We use cookies to improve your experience.
  <button>Accept all</button></div>
<header class="site-header"><a href="/">Example News</a>
  <nav aria-label="Main"><a href="/world">World</a> <a href="/science">Science</a></nav></header>
<main>
  <article>
    <h1>Tides &amp; the Moon</h1>
    <p>The Moon&rsquo;s gravity raises two bulges of water on opposite sides of the Earth.</p>
    <p>Most coasts therefore see two high tides a day, about 12 hours 25 minutes apart.</p>
    <aside class="related">Related: Why is the sea salty?</aside>
    <div class="social-share">Share on Facebook</div>
  </article>
</main>
<footer><p>&copy; 2024 Example News. All rights reserved.</p></footer>
</body></html>"#;

#[tokio::test]
async fn an_article_page_yields_its_text_and_nothing_around_it() {
    let site = server(vec![("/tides", Route::text(200, ARTICLE))]).await;
    let url = site.url("/tides");
    let read = verifier().fetch_page(&format!("{url}#part")).await;
    let page = page_of(&read);
    assert_eq!(page.kind, PageKind::Html);
    assert_eq!(
        page.title.as_deref(),
        Some("Tides & the Moon | Example News")
    );
    assert_eq!(page.final_url.as_deref(), Some(url.as_str()));
    assert!(!page.truncated);
    assert_eq!(
        page.text,
        "Tides & the Moon\n\n\
         The Moon\u{2019}s gravity raises two bulges of water on opposite sides of the Earth.\n\n\
         Most coasts therefore see two high tides a day, about 12 hours 25 minutes apart."
    );
    // No author, date or ads in it; the furniture's "© 2024" is not a date either.
    assert_eq!(
        page.signals,
        PageSignals {
            words: 33,
            ..PageSignals::default()
        }
    );
    let log = site.request_log();
    assert_eq!(log.len(), 1);
    let request = &log[0];
    assert_eq!(request.method, "GET");
    assert!(request
        .header("user-agent")
        .is_some_and(|a| a.starts_with("sourcebot/")));
    let encodings = request.header("accept-encoding").unwrap_or_default();
    assert!(
        encodings.contains("gzip") && encodings.contains("br"),
        "{encodings}"
    );
    assert_eq!(request.header("cookie"), None);
    assert_eq!(request.header("referer"), None);
}

#[tokio::test]
async fn a_fetched_page_carries_its_signals() {
    let news = r#"<!DOCTYPE html><html><head><title>Flood walls approved</title>
<meta property="article:published_time" content="2023-05-04T08:30:00Z">
<meta property="article:modified_time" content="2023-05-05T17:02:11Z">
<script async src="https://securepubads.g.doubleclick.net/tag/js/gpt.js"></script></head>
<body><article><h1>Flood walls approved</h1><p class="byline">By Jane Smith</p>
<p>The council voted for new flood walls [1].</p><div id="div-gpt-ad-1-0"></div>
<p>Correction: an earlier version gave the wrong cost.</p></article>
<footer><a href="/corrections">Corrections</a></footer></body></html>"#;
    let site = server(vec![("/news", Route::text(200, news))]).await;
    let read = verifier().fetch_page(&site.url("/news")).await;
    assert_eq!(
        page_of(&read).signals,
        PageSignals {
            author: true,
            published: Some("2023-05-04".into()),
            updated: Some("2023-05-05".into()),
            references: 1,
            corrections: true,
            ad_slots: 2,
            scholarly: false,
            words: 22,
        }
    );
}

#[tokio::test]
async fn a_huge_page_is_read_up_to_the_cap_and_marked_truncated() {
    let site = server(vec![("/", Route::always(Action::huge_html(200, 1 << 30)))]).await;
    let verifier = Verifier::builder()
        .fetch_max_bytes(128 << 10)
        .allow_private(true)
        .lookup(Arc::new(StaticLookup::new()))
        .build()
        .expect("verifier");
    let started = Instant::now();
    let read = verifier.fetch_page(&site.url("/")).await;
    let page = page_of(&read);
    assert!(page.truncated);
    assert_eq!(page.text.len(), 128 << 10, "the text is the 128 KiB read");
    assert!(started.elapsed() < Duration::from_secs(2));
    // Reading stopped at the cap: what went out is the cap plus the socket buffers.
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(
        site.body_bytes_sent() < 16 << 20,
        "{} body bytes went out",
        site.body_bytes_sent()
    );
    // The default cap is 2 MiB: the text of a 1 GiB page stops at the text cap.
    let read = self::verifier().fetch_page(&site.url("/")).await;
    let page = page_of(&read);
    assert!(page.truncated);
    assert!(page.text.chars().count() <= MAX_TEXT_CHARS);
}

#[tokio::test]
async fn a_slow_page_ends_at_the_time_cap_with_a_reason() {
    let site = server(vec![
        (
            "/trickle",
            Route::always(Action::Trickle(Duration::from_millis(100))),
        ),
        ("/silent", Route::always(Action::Hang)),
    ])
    .await;
    let verifier = Verifier::builder()
        .fetch_timeout(Duration::from_secs(1))
        .allow_private(true)
        .lookup(Arc::new(StaticLookup::new()))
        .build()
        .expect("verifier");
    for (path, expected) in [
        ("/trickle", "the page did not finish arriving within 1 s"),
        ("/silent", "no answer within 1 s"),
    ] {
        let started = Instant::now();
        let read = verifier.fetch_page(&site.url(path)).await;
        let elapsed = started.elapsed();
        assert_eq!(reason_of(&read), expected, "{path}");
        assert!(
            elapsed >= Duration::from_millis(950) && elapsed < Duration::from_millis(1600),
            "{path} took {elapsed:?}"
        );
    }
}

#[tokio::test]
async fn charsets_are_read_as_declared() {
    let (cp1252, _, _) = WINDOWS_1252.encode("Café «Zürich» – 20 €");
    let mut meta_1252 = b"<html><head><meta charset=\"windows-1252\"></head><body><p>".to_vec();
    meta_1252.extend_from_slice(&cp1252);
    let (sjis, _, _) = SHIFT_JIS.encode("東京の潮汐は一日二回。");
    // The header says Shift_JIS and the page says UTF-8: the header wins.
    let mut header_sjis = b"<meta charset=\"utf-8\"><p>".to_vec();
    header_sjis.extend_from_slice(&sjis);
    let mut meta_sjis =
        b"<meta http-equiv=\"Content-Type\" content=\"text/html; charset=Shift_JIS\"><p>".to_vec();
    meta_sjis.extend_from_slice(&sjis);
    let (latin1_text, _, _) = WINDOWS_1252.encode("naïve résumé");
    let site = server(vec![
        (
            "/1252",
            bytes_route(&[("Content-Type", "text/html")], meta_1252),
        ),
        (
            "/header-sjis",
            bytes_route(
                &[("Content-Type", "text/html; charset=Shift_JIS")],
                header_sjis,
            ),
        ),
        (
            "/meta-sjis",
            bytes_route(&[("Content-Type", "text/html")], meta_sjis),
        ),
        (
            "/latin1.txt",
            bytes_route(
                &[("Content-Type", "text/plain; charset=ISO-8859-1")],
                latin1_text.into_owned(),
            ),
        ),
    ])
    .await;
    let verifier = verifier();
    for (path, text, kind) in [
        ("/1252", "Café «Zürich» – 20 €", PageKind::Html),
        ("/header-sjis", "東京の潮汐は一日二回。", PageKind::Html),
        ("/meta-sjis", "東京の潮汐は一日二回。", PageKind::Html),
        ("/latin1.txt", "naïve résumé", PageKind::Text),
    ] {
        let read = verifier.fetch_page(&site.url(path)).await;
        let page = page_of(&read);
        assert_eq!(page.text, text, "{path}");
        assert_eq!(page.kind, kind, "{path}");
    }
}

#[tokio::test]
async fn a_gzip_bomb_stops_at_the_cap_and_brotli_is_decoded() {
    // 64 MiB of HTML, about 100 KiB compressed.
    let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    let piece = b"<p>boom boom</p>".repeat(4096);
    for _ in 0..(64 << 20) / piece.len() {
        gzip.write_all(&piece).expect("gzip");
    }
    let bomb = gzip.finish().expect("gzip");
    assert!(bomb.len() < 1 << 20, "{} compressed bytes", bomb.len());
    let mut br = Vec::new();
    {
        let mut writer = brotli::CompressorWriter::new(&mut br, 4096, 5, 22);
        writer.write_all(ARTICLE.as_bytes()).expect("brotli");
    }
    let site = server(vec![
        (
            "/bomb",
            bytes_route(
                &[("Content-Type", "text/html"), ("Content-Encoding", "gzip")],
                bomb.clone(),
            ),
        ),
        (
            "/br",
            bytes_route(
                &[("Content-Type", "text/html"), ("Content-Encoding", "br")],
                br,
            ),
        ),
        (
            "/zstd",
            bytes_route(
                &[("Content-Type", "text/html"), ("Content-Encoding", "zstd")],
                vec![0x28, 0xb5, 0x2f, 0xfd, 1, 2, 3],
            ),
        ),
    ])
    .await;
    let verifier = Verifier::builder()
        .fetch_max_bytes(1 << 20)
        .allow_private(true)
        .lookup(Arc::new(StaticLookup::new()))
        .build()
        .expect("verifier");
    let started = Instant::now();
    let read = verifier.fetch_page(&site.url("/bomb")).await;
    let page = page_of(&read);
    assert!(page.truncated);
    // 1 MiB of decoded HTML is 65,536 paragraphs of "boom boom" at most.
    assert!(
        page.text.len() < 1 << 20,
        "{} bytes of text",
        page.text.len()
    );
    assert!(page.text.starts_with("boom boom\n\nboom boom"));
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );

    let read = verifier.fetch_page(&site.url("/br")).await;
    assert!(page_of(&read).text.starts_with("Tides & the Moon"));
    let read = verifier.fetch_page(&site.url("/zstd")).await;
    assert_eq!(
        reason_of(&read),
        "the page is compressed as zstd, which sourcebot can't decode"
    );
}

/// A chain /r0 → /r1 → … → /r{hops} that answers a page at the end.
fn chain(hops: usize) -> Vec<(&'static str, Route)> {
    const PATHS: [&str; 8] = ["/r0", "/r1", "/r2", "/r3", "/r4", "/r5", "/r6", "/r7"];
    let mut routes: Vec<(&'static str, Route)> = (0..hops)
        .map(|i| (PATHS[i], Route::redirect(302, PATHS[i + 1])))
        .collect();
    routes.push((PATHS[hops], Route::text(200, "<p>the end</p>")));
    routes
}

#[tokio::test]
async fn redirects_are_followed_within_bounds() {
    let verifier = verifier();
    let five = server(chain(5)).await;
    let read = verifier.fetch_page(&five.url("/r0")).await;
    assert_eq!(page_of(&read).text, "the end");
    assert_eq!(
        page_of(&read).final_url.as_deref(),
        Some(five.url("/r5").as_str())
    );
    let six = server(chain(6)).await;
    let read = verifier.fetch_page(&six.url("/r0")).await;
    assert_eq!(reason_of(&read), "more than 5 redirects");
    let looping = server(vec![
        ("/x", Route::redirect(302, "/y")),
        ("/y", Route::redirect(301, "/x")),
    ])
    .await;
    let read = verifier.fetch_page(&looping.url("/x")).await;
    assert!(
        reason_of(&read).starts_with("redirect loop: back to"),
        "{read:?}"
    );
    assert_eq!(looping.requests(), 2);
}

#[tokio::test]
async fn the_guard_refuses_private_addresses_first_and_after_redirects() {
    // As in verify_guard: the public site is allowed as one exact socket, private
    // addresses are not; the internal server must see no connection.
    let internal = HostileServer::start(
        IpAddr::V4(Ipv4Addr::LOCALHOST),
        vec![("/", Route::text(200, "<p>secret</p>"))],
    )
    .await;
    let port = internal.addr().port();
    let targets = [
        format!("http://127.0.0.1:{port}/"),
        format!("http://localhost:{port}/"),
        format!("http://internal.example.com:{port}/"),
        "http://169.254.169.254/latest/meta-data/".to_string(),
    ];
    let paths = ["/0", "/1", "/2", "/3"];
    let routes = paths
        .iter()
        .zip(&targets)
        .map(|(path, target)| (*path, Route::redirect(302, target)))
        .collect();
    let public = server(routes).await;
    let verifier = Verifier::builder()
        .allow_socket(public.addr())
        .lookup(Arc::new(StaticLookup::new().with(
            "internal.example.com",
            vec![IpAddr::V4(Ipv4Addr::LOCALHOST)],
        )))
        .build()
        .expect("verifier");
    for path in paths {
        let read = verifier.fetch_page(&public.url(path)).await;
        assert!(
            reason_of(&read).starts_with("redirected to"),
            "{path}: {read:?}"
        );
    }
    let direct = verifier.fetch_page(&internal.url("/")).await;
    assert!(reason_of(&direct).contains("loopback"), "{direct:?}");
    assert_eq!(public.requests(), paths.len());
    assert_eq!(
        internal.connections(),
        0,
        "a fetch reached the internal server"
    );
}

#[tokio::test]
async fn unreadable_pages_say_why() {
    let binary: Vec<u8> = (0..8192u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let site = server(vec![
        (
            "/app",
            Route::text(
                200,
                "<html><head><script src=\"/app.js\"></script></head><body><div id=root></div></body></html>",
            ),
        ),
        ("/binary", bytes_route(&[("Content-Type", "text/html")], binary)),
        ("/image", bytes_route(&[("Content-Type", "image/png")], b"\x89PNG\r\n\x1a\n".to_vec())),
        ("/gone", Route::status(404)),
        (
            "/paper.pdf",
            bytes_route(
                &[("Content-Type", "application/pdf")],
                support::pdf::simple_pdf(&["Tides follow the Moon.", "Two high tides a day."]),
            ),
        ),
    ])
    .await;
    let verifier = verifier();
    for (path, expected) in [
        (
            "/app",
            "the page has no readable text (it may need JavaScript to show any)",
        ),
        (
            "/binary",
            "the page is binary data, not text (served as text/html)",
        ),
        ("/image", "can't read this kind of page (image/png)"),
        ("/gone", "the server answered 404"),
    ] {
        let read = verifier.fetch_page(&site.url(path)).await;
        assert_eq!(reason_of(&read), expected, "{path}");
    }
    let read = verifier.fetch_page(&site.url("/paper.pdf")).await;
    let page = page_of(&read);
    assert_eq!(page.kind, PageKind::Pdf);
    assert!(
        page.text.contains("Tides follow the Moon."),
        "{:?}",
        page.text
    );
    assert!(
        page.text.contains("Two high tides a day."),
        "{:?}",
        page.text
    );
    let ftp = verifier.fetch_page("ftp://example.com/x").await;
    assert_eq!(reason_of(&ftp), "not an http or https link (ftp:)");
}

#[tokio::test]
async fn pages_are_cached_and_concurrent_reads_share_one_fetch() {
    let site = server(vec![
        (
            "/slow",
            Route::always(Action::text(200, ARTICLE).after(Duration::from_millis(500))),
        ),
        ("/gone", Route::status(404)),
    ])
    .await;
    let verifier = verifier();
    let url = site.url("/slow");
    let with_fragment = format!("{url}#elsewhere");
    let (a, b, c) = tokio::join!(
        verifier.fetch_page(&url),
        verifier.fetch_page(&url),
        verifier.fetch_page(&with_fragment),
    );
    assert_eq!(site.requests_to("/slow").len(), 1, "coalescing failed");
    assert!(Arc::ptr_eq(&a, &b) && Arc::ptr_eq(&a, &c));
    let started = Instant::now();
    let again = verifier.fetch_page(&url).await;
    // A second fetch would wait out the page's 500 ms; a loaded machine still answers
    // from the cache well inside it.
    assert!(started.elapsed() < Duration::from_millis(300));
    assert!(Arc::ptr_eq(&a, &again));
    assert_eq!(site.requests_to("/slow").len(), 1, "the cache was not used");
    for _ in 0..2 {
        let gone = verifier.fetch_page(&site.url("/gone")).await;
        assert_eq!(reason_of(&gone), "the server answered 404");
    }
    assert_eq!(
        site.requests_to("/gone").len(),
        1,
        "a failure was fetched twice"
    );
    assert_eq!(verifier.cached_pages(), 2);
    assert!(verifier.cached_page_bytes() > page_of(&a).text.len());
}
