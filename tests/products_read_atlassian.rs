//! The support check reads Confluence pages and Jira issues through the products' APIs,
//! end to end through the public pipeline (settings read with `Config::from_lookup`, an
//! answer parsed, checked, then its claims judged), against fake APIs on loopback
//! answering with the JSON each product's reference shows (tests/data/products/read/):
//! Confluence Cloud (`?body-format=storage`) and Data Center (`?expand=body.storage`),
//! Jira Cloud (API v3, Atlassian Document Format) and Data Center (API v2, wiki
//! markup) with their comment pages.
//!
//! For each product: the content call's path, query, credentials and headers; a claim
//! the document says is supported with the document's own words as its quote; a claim
//! whose figure it contradicts is not, the figure listed as missing; the document is read
//! once per pipeline; the source says it was read through the product and sits in its
//! group; a 403 on the content call, a 429 waited out, a document over
//! `SOURCEBOT_FETCH_MAX_BYTES` and an empty one each leave the claim unreadable saying
//! why. Notion and GitHub are read in tests/products_read_notion_github.rs; a 429 too
//! long to wait, and links never fetched as web pages, in tests/products_read_limits.rs;
//! what the three share is in tests/support/product_reads.rs.
//!
//! Servers take addresses of this file's loopback block, 127.45.x.y.

mod support;

use serde_json::{json, Value};
use sourcebot::model::SourceKind;
use std::net::IpAddr;
use support::product_docs::{fixture, param, reply, split, Product, CLOUD_BASIC, DC_BEARER};
use support::product_reads::{
    answer, check_and_read, expect_cached, expect_call, expect_contradicted, expect_read_through,
    expect_supported, pipeline, refusals_caps_and_empty_documents, requests, source, ANNOUNCEMENT,
    CONTRADICTS, FROZEN, ROLLBACK, SAYS,
};
use support::{HostileServer, Route};

/// A loopback address of this file's block, 127.45.x.y.
fn ip() -> IpAddr {
    support::next_ip(45)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn confluence_cloud_pages_are_read_in_storage_format() {
    let page = fixture("confluence-cloud-page.json");
    let mut summary = page.clone();
    summary["body"] = json!({});
    let site = HostileServer::start(
        ip(),
        vec![(
            "/wiki/api/v2/pages/123456",
            split(
                summary,
                |r| param(r, "body-format").is_some(),
                reply(200, &page),
            ),
        )],
    )
    .await;
    let pipeline = pipeline(&Product::ConfluenceCloud.settings(&site));
    let link = site.url("/wiki/spaces/ENG/pages/123456/Deploy+freeze+policy");
    let text = answer(
        &[(SAYS, &[1]), (CONTRADICTS, &[1])],
        std::slice::from_ref(&link),
    );
    let report = check_and_read(&pipeline, &text).await;

    expect_supported(
        &report,
        SAYS,
        &link,
        &["Deploy freeze policy", FROZEN, ROLLBACK, ANNOUNCEMENT],
        FROZEN,
    );
    expect_contradicted(&report, CONTRADICTS, &link, "15");
    expect_read_through(&report, &link, "Confluence", SourceKind::Confluence);
    assert_eq!(source(&report, &link).title, "Deploy freeze policy");
    // One check, one content call for both claims: the page and its body in storage
    // format, with the account's basic credentials.
    let log = site.request_log();
    assert_eq!(log.len(), 2, "{log:#?}");
    let content = requests(&site, |r| param(r, "body-format").is_some());
    assert_eq!(content.len(), 1, "{log:#?}");
    expect_call(
        &content[0],
        "/wiki/api/v2/pages/123456",
        &[("body-format", "storage")],
        CLOUD_BASIC,
        &[("accept", "application/json")],
    );

    expect_cached(&pipeline, &text, &report, &site, Product::ConfluenceCloud).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn confluence_data_center_pages_are_read_with_their_storage_body() {
    let content = fixture("confluence-dc-content.json");
    let mut summary = content.clone();
    if let Some(object) = summary.as_object_mut() {
        object.remove("body");
    }
    let site = HostileServer::start(
        ip(),
        vec![(
            "/rest/api/content/123456",
            split(
                summary,
                |r| param(r, "expand").is_some(),
                reply(200, &content),
            ),
        )],
    )
    .await;
    let pipeline = pipeline(&Product::ConfluenceDataCenter.settings(&site));
    let link = site.url("/pages/viewpage.action?pageId=123456");
    let text = answer(
        &[(SAYS, &[1]), (CONTRADICTS, &[1])],
        std::slice::from_ref(&link),
    );
    let report = check_and_read(&pipeline, &text).await;

    // The panel's title is a block of its own, a table row its cells.
    expect_supported(
        &report,
        SAYS,
        &link,
        &[
            "Deploy freeze policy",
            FROZEN,
            "Rollbacks",
            ROLLBACK,
            "Who | What",
            "Release manager | The release manager announces each freeze in the deploys channel.",
        ],
        FROZEN,
    );
    expect_contradicted(&report, CONTRADICTS, &link, "15");
    expect_read_through(&report, &link, "Confluence", SourceKind::Confluence);
    let log = site.request_log();
    assert_eq!(log.len(), 2, "{log:#?}");
    let reads = requests(&site, |r| param(r, "expand").is_some());
    assert_eq!(reads.len(), 1, "{log:#?}");
    expect_call(
        &reads[0],
        "/rest/api/content/123456",
        &[("expand", "body.storage")],
        DC_BEARER,
        &[("accept", "application/json")],
    );

    expect_cached(
        &pipeline,
        &text,
        &report,
        &site,
        Product::ConfluenceDataCenter,
    )
    .await;
}

/// A fake Jira site serving `key` (`issue`, its summary-only form for the check) and
/// its further comment pages by `startAt`.
async fn fake_jira(
    version: &str,
    key: &str,
    issue: Value,
    pages: Vec<(&'static str, Value)>,
) -> HostileServer {
    let summary = json!({
        "expand": issue["expand"], "id": issue["id"], "self": issue["self"],
        "key": key, "fields": {"summary": issue["fields"]["summary"]}
    });
    let comments = Route::new(move |request, _| {
        let start = param(request, "startAt").unwrap_or_default();
        match pages.iter().find(|(at, _)| *at == start) {
            Some((_, page)) => reply(200, page),
            None => reply(
                400,
                &json!({"errorMessages": [format!("no page at {start}")], "errors": {}}),
            ),
        }
    });
    HostileServer::start(
        ip(),
        vec![
            (
                &format!("/rest/api/{version}/issue/{key}"),
                split(
                    summary,
                    |r| param(r, "fields").is_some_and(|f| f.contains("description")),
                    reply(200, &issue),
                ),
            ),
            (
                &format!("/rest/api/{version}/issue/{key}/comment"),
                comments,
            ),
        ],
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn jira_cloud_issues_are_read_in_adf_with_every_comment_page() {
    let site = fake_jira(
        "3",
        "OPS-123",
        fixture("jira-cloud-issue.json"),
        vec![
            ("2", fixture("jira-cloud-comments-2.json")),
            ("4", fixture("jira-cloud-comments-4.json")),
        ],
    )
    .await;
    let pipeline = pipeline(&Product::JiraCloud.settings(&site));
    let link = site.url("/browse/OPS-123");
    let text = answer(
        &[(SAYS, &[1]), (CONTRADICTS, &[1])],
        std::slice::from_ref(&link),
    );
    let report = check_and_read(&pipeline, &text).await;

    // The decision is in the fifth comment, on the last page.
    expect_supported(
        &report,
        SAYS,
        &link,
        &[
            "OPS-123: Write down the deploy freeze policy",
            ROLLBACK,
            ANNOUNCEMENT,
            "Who signs off on the freeze calendar?",
            "The calendar lives in the Release space.",
            "Checked with the on-call team.",
            "Checked with the support team.",
            "Linked the incident review from March.",
            "Decision",
            FROZEN,
        ],
        FROZEN,
    );
    expect_contradicted(&report, CONTRADICTS, &link, "15");
    expect_read_through(&report, &link, "Jira", SourceKind::Confluence);
    assert_eq!(
        source(&report, &link).title,
        "OPS-123: Write down the deploy freeze policy"
    );
    let reads = requests(&site, |r| Product::JiraCloud.is_content_call(r));
    assert_eq!(reads.len(), 3, "{reads:#?}");
    let json = [("accept", "application/json")];
    expect_call(
        &reads[0],
        "/rest/api/3/issue/OPS-123",
        &[("fields", "summary,description,comment")],
        CLOUD_BASIC,
        &json,
    );
    expect_call(
        &reads[1],
        "/rest/api/3/issue/OPS-123/comment",
        &[("startAt", "2"), ("maxResults", "100")],
        CLOUD_BASIC,
        &json,
    );
    expect_call(
        &reads[2],
        "/rest/api/3/issue/OPS-123/comment",
        &[("startAt", "4"), ("maxResults", "100")],
        CLOUD_BASIC,
        &json,
    );
    assert_eq!(site.request_log().len(), 4, "{:#?}", site.request_log());

    expect_cached(&pipeline, &text, &report, &site, Product::JiraCloud).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn jira_data_center_issues_are_read_in_wiki_markup_with_every_comment_page() {
    let site = fake_jira(
        "2",
        "OPS-7",
        fixture("jira-dc-issue.json"),
        vec![("2", fixture("jira-dc-comments-2.json"))],
    )
    .await;
    let pipeline = pipeline(&Product::JiraDataCenter.settings(&site));
    let link = site.url("/browse/OPS-7");
    let text = answer(
        &[(SAYS, &[1]), (CONTRADICTS, &[1])],
        std::slice::from_ref(&link),
    );
    let report = check_and_read(&pipeline, &text).await;

    expect_supported(
        &report,
        SAYS,
        &link,
        &[
            "OPS-7: Write down the deploy freeze policy",
            ROLLBACK,
            "Announcements",
            ANNOUNCEMENT,
            "Who signs off on the freeze calendar?",
            "The calendar lives in the Release space.",
            "Checked with the on-call team.",
            "Checked with the support team.",
            "Linked the incident review from March: OPS-99",
            "Decision",
            FROZEN,
        ],
        FROZEN,
    );
    expect_contradicted(&report, CONTRADICTS, &link, "15");
    expect_read_through(&report, &link, "Jira", SourceKind::Confluence);
    let reads = requests(&site, |r| Product::JiraDataCenter.is_content_call(r));
    assert_eq!(reads.len(), 2, "{reads:#?}");
    let json = [("accept", "application/json")];
    expect_call(
        &reads[0],
        "/rest/api/2/issue/OPS-7",
        &[("fields", "summary,description,comment")],
        DC_BEARER,
        &json,
    );
    expect_call(
        &reads[1],
        "/rest/api/2/issue/OPS-7/comment",
        &[("startAt", "2"), ("maxResults", "100")],
        DC_BEARER,
        &json,
    );
    assert_eq!(site.request_log().len(), 3, "{:#?}", site.request_log());

    expect_cached(&pipeline, &text, &report, &site, Product::JiraDataCenter).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn confluence_cloud_refusals_caps_and_empty_pages() {
    refusals_caps_and_empty_documents(Product::ConfluenceCloud, ip()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn confluence_data_center_refusals_caps_and_empty_pages() {
    refusals_caps_and_empty_documents(Product::ConfluenceDataCenter, ip()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn jira_cloud_refusals_caps_and_empty_issues() {
    refusals_caps_and_empty_documents(Product::JiraCloud, ip()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn jira_data_center_refusals_caps_and_empty_issues() {
    refusals_caps_and_empty_documents(Product::JiraDataCenter, ip()).await;
}
