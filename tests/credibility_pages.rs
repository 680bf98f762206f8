//! Pages read for the support check show what they say about themselves: each cited
//! source's `page` carries the signals of its page (author, dates, references,
//! corrections, ad slots, scholarly metadata), and a page with scholarly metadata makes
//! its source a journal article in the credibility, wherever it is hosted. Pages are
//! served on loopback by the hostile test server.

mod support;

use sourcebot::model::{PageSignals, SourceType};
use support::pipeline::{check, pipeline};
use support::{Action, HostileServer, Route};

fn html(body: &str) -> Route {
    Route::always(Action::bytes(
        200,
        &[("content-type", "text/html; charset=utf-8")],
        body.as_bytes().to_vec(),
    ))
}

const ARTICLE: &str = r#"<html><head><title>Deploy freezes</title>
<meta name="author" content="Jane Smith">
<meta property="article:published_time" content="2024-03-01T09:00:00Z">
</head><body><article><h1>Deploy freezes</h1>
<p>Deploys are frozen on Fridays and during public holidays, so that nobody is paged at the weekend.</p>
<p>Correction: an earlier version of this article gave the wrong day.</p>
</article><ins class="adsbygoogle"></ins></body></html>"#;

const PAPER: &str = r#"<html><head><title>Rollbacks in practice</title>
<meta name="citation_title" content="Rollbacks in practice">
<meta name="citation_doi" content="10.1234/roll.2023.7">
<meta name="citation_publication_date" content="2023/06/15">
</head><body><article><h1>Rollbacks in practice</h1>
<p>Progressive delivery cut rollbacks by 42% across the teams we studied.</p>
</article></body></html>"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_pages_carry_their_signals_into_the_report() {
    let site = HostileServer::start(
        support::next_ip(15),
        vec![("/freeze", html(ARTICLE)), ("/paper", html(PAPER))],
    )
    .await;
    let text = format!(
        "Deploys are frozen on Fridays and public holidays [1]. Progressive delivery cut rollbacks by 42% [2].\n\n[1] {} - Freeze\n[2] {} - Paper\n",
        site.url("/freeze"),
        site.url("/paper")
    );
    let pipeline = pipeline(&[
        ("SOURCEBOT_VERIFY_ALLOW_PRIVATE", "1".into()),
        ("SOURCEBOT_CREDIBILITY", "model".into()),
    ]);
    let mut report = check(&pipeline, &text).await;
    assert!(report.sources().all(|s| s.page.is_none()), "not read yet");
    pipeline
        .check_support(&mut report)
        .await
        .expect("support checked");
    let source = |title: &str| {
        report
            .sources()
            .find(|s| s.title == title)
            .cloned()
            .expect("source")
    };
    let freeze = source("Freeze");
    let page = freeze.page.clone().expect("the article was read");
    assert_eq!(
        (
            page.author,
            page.published.as_deref(),
            page.corrections,
            page.ad_slots,
            page.scholarly
        ),
        (true, Some("2024-03-01"), true, 1, false),
        "{page:?}"
    );
    let paper = source("Paper");
    let page: PageSignals = paper.page.clone().expect("the paper was read");
    assert!(page.scholarly, "{page:?}");
    assert_eq!(page.published.as_deref(), Some("2023-06-15"));
    let credibility = |s: &sourcebot::model::Source| s.credibility.clone().expect("scored");
    assert_eq!(credibility(&paper).source_type, SourceType::Journal);
    assert_eq!(credibility(&freeze).source_type, SourceType::Unknown);
    // The model's journal weight moved the paper above the article (same host, same
    // tier, same depth).
    assert!(
        credibility(&paper).base > credibility(&freeze).base,
        "{:?} vs {:?}",
        credibility(&paper),
        credibility(&freeze)
    );
    // The JSON carries the signals.
    let json: serde_json::Value =
        serde_json::from_str(&sourcebot::render::json(&report)).expect("json");
    let listed = json["groups"]
        .as_array()
        .expect("groups")
        .iter()
        .flat_map(|g| g["sources"].as_array().cloned().unwrap_or_default())
        .find(|s| s["title"] == "Paper")
        .expect("paper in JSON");
    assert_eq!(listed["page"]["scholarly"], true);
    assert_eq!(listed["credibility"]["source_type"], "journal");
}
