//! What the support check's reads of Confluence, Jira, Notion and GitHub documents never
//! do, end to end through the public pipeline against the fakes of
//! tests/support/product_docs.rs: wait out a 429 too long to wait (the claim is left
//! unreadable saying so, and the product is then held back: the next answer makes no
//! request at all), for all six products at once; fetch a Jira or Notion link as a web
//! page. Each product's own reads are in tests/products_read_atlassian.rs and
//! tests/products_read_notion_github.rs.
//!
//! Servers take addresses of this file's loopback block, 127.47.x.y.

mod support;

use sourcebot::model::{SourceKind, VerdictClass};
use std::net::IpAddr;
use std::time::{Duration, Instant};
use support::product_docs::{Content, Doc, Product};
use support::product_reads::{
    answer, check_and_read, claim, expect_read_through, expect_supported, expect_unreadable,
    pipeline, requests, source, FROZEN, ROLLBACK, SAYS,
};

/// A loopback address of this file's block, 127.47.x.y.
fn ip() -> IpAddr {
    support::next_ip(47)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn jira_and_notion_links_are_never_fetched_as_web_pages() {
    let issue = Doc::new(
        "OPS-5",
        "Freeze policy",
        Content::Text(vec![FROZEN.into(), ROLLBACK.into()]),
    );
    let page = Doc::new(
        Product::Notion.doc_id(5),
        "Freeze policy",
        Content::Text(vec![FROZEN.into(), ROLLBACK.into()]),
    );
    let jira = Product::JiraCloud
        .serve(ip(), std::slice::from_ref(&issue))
        .await;
    let notion = Product::Notion
        .serve(ip(), std::slice::from_ref(&page))
        .await;
    // No SOURCEBOT_VERIFY_ALLOW_PRIVATE: a web fetch of the Jira site would be blocked,
    // and notion.so is never asked at all.
    let mut vars = Product::JiraCloud.settings(&jira);
    vars.extend(Product::Notion.settings(&notion));
    let pipeline = pipeline(&vars);
    let links = [
        Product::JiraCloud.link(&jira, &issue),
        Product::Notion.link(&notion, &page),
    ];
    let report = check_and_read(&pipeline, &answer(&[(SAYS, &[1, 2])], &links)).await;
    expect_read_through(&report, &links[0], "Jira", SourceKind::Confluence);
    expect_read_through(&report, &links[1], "Notion", SourceKind::File);
    expect_supported(
        &report,
        SAYS,
        &links[0],
        &["OPS-5: Freeze policy", FROZEN, ROLLBACK],
        FROZEN,
    );
    expect_supported(&report, SAYS, &links[1], &[FROZEN, ROLLBACK], FROZEN);
    for (server, api) in [(&jira, "/rest/api/3/issue/"), (&notion, "/v1/")] {
        let log = server.request_log();
        assert!(!log.is_empty(), "{api}: the fake was never asked");
        for request in log {
            assert_eq!(request.method, "GET", "{request:?}");
            assert!(
                request.path.starts_with(api),
                "not an API call: {request:?}"
            );
            assert!(request.header("authorization").is_some(), "{request:?}");
        }
    }
}

/// A document whose content call asks for a 30 s wait: the claim is unreadable saying
/// so, and the product is then held back: the next answer, citing another of its
/// documents, makes no request at all.
async fn a_long_retry_after_holds_the_product_back(product: Product) {
    let docs = [
        Doc::new(
            product.doc_id(1),
            "Freeze policy",
            Content::RateLimited {
                seconds: 30,
                then: vec![FROZEN.into()],
            },
        ),
        Doc::new(
            product.doc_id(2),
            "Freeze policy copy",
            Content::Text(vec![FROZEN.into()]),
        ),
    ];
    let server = product.serve(ip(), &docs).await;
    let pipeline = pipeline(&product.settings(&server));
    let name = product.name();
    let limited = product.link(&server, &docs[0]);
    let started = Instant::now();
    let report = check_and_read(
        &pipeline,
        &answer(&[(SAYS, &[1])], std::slice::from_ref(&limited)),
    )
    .await;
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{name}: a 30 s Retry-After was waited for ({:?})",
        started.elapsed()
    );
    assert_eq!(
        source(&report, &limited).verdict.class,
        VerdictClass::Verified,
        "{name}"
    );
    expect_unreadable(
        &report,
        SAYS,
        &limited,
        &format!("{name} is rate-limiting sourcebot (retry after 30 s)"),
    );
    let content = requests(&server, |r| product.is_content_call(r));
    assert_eq!(content.len(), 1, "{name}: {content:#?}");

    let before = server.request_log().len();
    let other = product.link(&server, &docs[1]);
    let started = Instant::now();
    let report = check_and_read(
        &pipeline,
        &answer(&[(SAYS, &[1])], std::slice::from_ref(&other)),
    )
    .await;
    assert_eq!(
        server.request_log().len(),
        before,
        "{name}: a call went out while the product was held back: {:#?}",
        &server.request_log()[before..]
    );
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "{name}: the held-back answer waited ({:?})",
        started.elapsed()
    );
    let held = source(&report, &other);
    assert_eq!(
        held.verdict.class,
        VerdictClass::TimedOut,
        "{name}: {held:?}"
    );
    assert!(
        held.verdict
            .reason
            .as_deref()
            .is_some_and(|r| r.starts_with(&format!("{name} is rate-limiting sourcebot"))),
        "{name}: {:?}",
        held.verdict
    );
    assert!(
        claim(&report, SAYS).support.is_empty(),
        "{name}: a document whose link was not verified was read"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_retry_after_holds_each_product_back() {
    // Each product on a fake and a pipeline of its own, all at once.
    for_each_at_once([
        Product::ConfluenceCloud,
        Product::ConfluenceDataCenter,
        Product::JiraCloud,
        Product::JiraDataCenter,
        Product::Notion,
        Product::Github,
    ])
    .await;
}

/// Runs [`a_long_retry_after_holds_the_product_back`] for every product concurrently,
/// a failure's panic passed on.
async fn for_each_at_once(products: [Product; 6]) {
    let mut tasks = tokio::task::JoinSet::new();
    for product in products {
        tasks.spawn(a_long_retry_after_holds_the_product_back(product));
    }
    while let Some(done) = tasks.join_next().await {
        if let Err(error) = done {
            std::panic::resume_unwind(error.into_panic());
        }
    }
}
