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

/// A stale page as the test compares it: source id, date, the claim's words.
type StalePage<'a> = (usize, &'a str, &'a str);

/// An article dated `published` (and no update date).
fn dated_article(title: &str, published: &str) -> String {
    format!(
        r#"<html><head><title>{title}</title>
<meta property="article:published_time" content="{published}T09:00:00Z">
</head><body><article><h1>{title}</h1>
<p>Deploys are frozen on Fridays and during public holidays, so that nobody is paged at the weekend.</p>
</article></body></html>"#
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_claim_about_the_present_citing_an_old_page_is_pointed_out() {
    let this_year = sourcebot::score::recency::year_of(std::time::SystemTime::now());
    let site = HostileServer::start(
        support::next_ip(16),
        vec![
            ("/old", html(&dated_article("Old policy", "2019-03-01"))),
            (
                "/new",
                html(&dated_article("New policy", &format!("{this_year}-01-01"))),
            ),
        ],
    )
    .await;
    let text = format!(
        "The current policy freezes deploys on Fridays and public holidays [1]. \
         Deploys are currently frozen on Fridays and public holidays [2]. \
         Deploys were frozen on Fridays and public holidays in 2019 [1].\n\n\
         [1] {} - Old policy\n[2] {} - New policy\n",
        site.url("/old"),
        site.url("/new")
    );
    let pipeline = pipeline(&[("SOURCEBOT_VERIFY_ALLOW_PRIVATE", "1".into())]);
    let mut report = check(&pipeline, &text).await;
    assert!(
        report.claims.iter().all(|c| c.stale_sources.is_empty()),
        "no page read yet, none called old"
    );
    pipeline
        .check_support(&mut report)
        .await
        .expect("support checked");
    let stale: Vec<(&str, Vec<StalePage>)> = report
        .claims
        .iter()
        .map(|c| {
            (
                c.text.as_str(),
                c.stale_sources
                    .iter()
                    .map(|s| (s.source, s.dated.as_str(), s.because.as_str()))
                    .collect(),
            )
        })
        .collect();
    assert_eq!(
        stale,
        [
            (
                "The current policy freezes deploys on Fridays and public holidays [1].",
                vec![(1, "2019-03-01", "current")]
            ),
            (
                "Deploys are currently frozen on Fridays and public holidays [2].",
                vec![]
            ),
            (
                "Deploys were frozen on Fridays and public holidays in 2019 [1].",
                vec![]
            ),
        ]
    );
    let age = report.claims[0].stale_sources[0].age_days;
    assert!(age > 365 * 7, "{age} days");

    let mrkdwn = pipeline.mrkdwn(&report);
    assert!(
        mrkdwn.contains(":hourglass: 1 claim about the present cites an old page:"),
        "{mrkdwn}"
    );
    let years = age / 365;
    assert!(
        mrkdwn.contains(&format!(
            "> “The current policy freezes deploys on Fridays and public holidays [1].” — \
             _says “current”; Old policy is dated 2019-03-01 ({years} years old)_"
        )),
        "{mrkdwn}"
    );
    let text = pipeline.text(&report);
    assert!(
        text.contains("Claims about the present citing old pages (1):"),
        "{text}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&sourcebot::render::json(&report)).expect("json");
    assert_eq!(json["claims"][0]["stale_sources"][0]["dated"], "2019-03-01");
    assert_eq!(json["claims"][0]["stale_sources"][0]["because"], "current");
    assert!(json["claims"][1].get("stale_sources").is_none());
}
