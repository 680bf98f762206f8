//! Where the support check reads a cited page, the page's own title replaces a title
//! made from the link, and never one the answer gave: pages served on loopback by the
//! hostile test server, read through the whole pipeline (collect, verify, support).

mod support;

use sourcebot::collect::canon::title_from_url;
use sourcebot::model::Source;
use support::pipeline::{check, pipeline};
use support::{Action, HostileServer, Route};

fn page(content_type: &str, body: &str) -> Route {
    Route::always(Action::bytes(
        200,
        &[("content-type", content_type)],
        body.as_bytes().to_vec(),
    ))
}

const FREEZE: &str = "<html><head><title>  Deploy\n freezes  | Example Ops </title></head>\
<body><article><p>Deploys are frozen on Fridays and during public holidays.</p></article></body></html>";

const PAPER: &str = "<html><head><title>Rollbacks in practice</title></head>\
<body><article><p>Progressive delivery cut rollbacks by 42% across the teams we studied.</p></article></body></html>";

const BLANK_TITLE: &str = "<html><head><title> \n </title></head>\
<body><article><p>Canary releases reach one percent of users first.</p></article></body></html>";

const PLAIN: &str = "Feature flags are removed within two sprints of launch.";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_page_titles_a_link_the_answer_did_not() {
    let site = HostileServer::start(
        support::next_ip(21),
        vec![
            ("/freeze", page("text/html; charset=utf-8", FREEZE)),
            ("/paper", page("text/html; charset=utf-8", PAPER)),
            ("/blank", page("text/html; charset=utf-8", BLANK_TITLE)),
            ("/plain", page("text/plain; charset=utf-8", PLAIN)),
        ],
    )
    .await;
    let (freeze, paper, blank, plain) = (
        site.url("/freeze"),
        site.url("/paper"),
        site.url("/blank"),
        site.url("/plain"),
    );
    let text = format!(
        "Deploys are frozen on Fridays and public holidays [1]. \
         Progressive delivery cut rollbacks by 42% [2]. \
         Canary releases reach one percent of users first [3]. \
         Feature flags are removed within two sprints of launch [4].\n\n\
         [1] {freeze}\n[2] {paper} - Rollback study\n[3] {blank}\n[4] {plain}\n"
    );
    let pipeline = pipeline(&[("SOURCEBOT_VERIFY_ALLOW_PRIVATE", "1".into())]);
    let mut report = check(&pipeline, &text).await;
    let title_of = |report: &sourcebot::model::Report, url: &str| {
        report
            .sources()
            .find(|s: &&Source| s.url.as_deref() == Some(url))
            .map(|s| s.title.clone())
            .unwrap_or_else(|| panic!("no source for {url}"))
    };
    // Before the pages are read: titles made from the links, and the answer's own.
    assert_eq!(title_of(&report, &freeze), title_from_url(&freeze));
    assert_eq!(title_of(&report, &paper), "Rollback study");
    assert_eq!(title_of(&report, &blank), title_from_url(&blank));

    let outcome = pipeline
        .check_support(&mut report)
        .await
        .expect("support checked");
    assert_eq!(outcome.pages, 4, "{outcome:?}");

    // The page's title, whitespace collapsed, replaces the one made from the link.
    assert_eq!(title_of(&report, &freeze), "Deploy freezes | Example Ops");
    // The answer's title stays although the page has one of its own.
    assert_eq!(title_of(&report, &paper), "Rollback study");
    // A blank title and a page without one leave the made title.
    assert_eq!(title_of(&report, &blank), title_from_url(&blank));
    assert_eq!(title_of(&report, &plain), title_from_url(&plain));

    // The rendered report carries the page's title.
    let json: serde_json::Value =
        serde_json::from_str(&sourcebot::render::json(&report)).expect("json");
    let titles: Vec<String> = json["groups"]
        .as_array()
        .expect("groups")
        .iter()
        .flat_map(|g| g["sources"].as_array().cloned().unwrap_or_default())
        .filter_map(|s| s["title"].as_str().map(str::to_string))
        .collect();
    assert!(
        titles.iter().any(|t| t == "Deploy freezes | Example Ops"),
        "{titles:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_title_is_capped() {
    let long = format!(
        "<html><head><title>{}</title></head><body><article><p>Rollouts pause at night.</p></article></body></html>",
        "Night ".repeat(100)
    );
    let site = HostileServer::start(
        support::next_ip(21),
        vec![("/long", page("text/html", &long))],
    )
    .await;
    let url = site.url("/long");
    let pipeline = pipeline(&[("SOURCEBOT_VERIFY_ALLOW_PRIVATE", "1".into())]);
    let mut report = check(
        &pipeline,
        &format!("Rollouts pause at night [1].\n\n[1] {url}\n"),
    )
    .await;
    pipeline
        .check_support(&mut report)
        .await
        .expect("support checked");
    let title = report
        .sources()
        .find(|s| s.url.as_deref() == Some(url.as_str()))
        .map(|s| s.title.clone())
        .expect("source");
    assert!(title.starts_with("Night Night"), "{title:?}");
    assert!(
        title.chars().count() <= sourcebot::page::MAX_TITLE_CHARS,
        "{} characters",
        title.chars().count()
    );
}
