//! The support check reads internal documents through each product's API, end to end
//! through the public pipeline (settings read with `Config::from_lookup`, an answer
//! parsed, checked, then its claims judged), against fake APIs on loopback answering
//! with the JSON each product's reference shows (tests/data/products/read/):
//! Confluence Cloud (`?body-format=storage`) and Data Center (`?expand=body.storage`),
//! Jira Cloud (API v3, Atlassian Document Format) and Data Center (API v2, wiki
//! markup) with their comment pages, Notion's block children (`next_cursor` and nested
//! blocks) and GitHub (an issue's comment pages, Markdown, Word, PowerPoint and PDF files
//! through the contents API's raw media type).
//!
//! For each product: the content call's path, query, credentials and headers; a claim
//! the document says is supported with the document's own words as its quote; a claim
//! whose figure it contradicts is not, the figure listed as missing; the document is read
//! once per pipeline; the source says it was read through the product and sits in its
//! group; a 403 on the content call, a 429 waited out, a 429 too long to wait (the claim
//! unreadable, the product then held back: the next answer makes no request at all), a
//! document over `SOURCEBOT_FETCH_MAX_BYTES` and an empty one each leave the claim
//! unreadable saying why. Jira and Notion links are never fetched as web pages. On a
//! GitHub Enterprise host a file is a file whether its repository is private or not;
//! on github.com (the binary, its API calls going through the fake as an HTTP proxy) a
//! private repository's link is regrouped under files and a public one's stays web.
//!
//! `a_figure_a_long_github_issue_contradicts_is_not_supported` fails: it is written to
//! the spec and the built-in scorer does otherwise (see its comment).
//!
//! Servers take addresses of this file's loopback block, 127.45.x.y.

mod support;

use serde_json::{json, Value};
use sourcebot::model::{
    Claim, ClaimSupport, ReadVia, Report, Source, SourceKind, SupportVerdict, VerdictClass,
};
use sourcebot::pipeline::Pipeline;
use std::net::IpAddr;
use std::time::{Duration, Instant};
use support::product_docs::{
    self as docs, fixture, fixture_text, github_file_metadata, pairs, param, query, reply, Content,
    Doc, Product, CLOUD_BASIC, DC_BEARER, GITHUB_API_VERSION, GITHUB_BEARER, GITHUB_JSON,
    GITHUB_RAW, NOTION_BEARER, NOTION_VERSION,
};
use support::{Action, HostileServer, RequestInfo, Route};

/// A loopback address of this file's block.
fn ip() -> IpAddr {
    support::next_ip(45)
}

/// What the documents say, sentence by sentence (as every fixture words it).
const FROZEN: &str = "Production deploys are frozen for 48 hours before each major release.";
const ROLLBACK: &str = "Rollbacks must finish within 30 minutes of the first alert.";
const ANNOUNCEMENT: &str = "The release manager announces each freeze in the deploys channel.";

/// Claims: one the documents say, one whose figure they contradict (15, not 30
/// minutes), and two more for the refusal cases.
const SAYS: &str = "Production deploys are frozen for 48 hours before each major release";
const CONTRADICTS: &str = "Rollbacks must finish within 15 minutes of the first alert";
const ROLLS_BACK: &str = "Rollbacks must finish within 30 minutes of the first alert";
const ANNOUNCES: &str = "The release manager announces each freeze in the deploys channel";
const HOTFIXES: &str = "Hotfixes skip the freeze when two reviewers approve them";

/// The read cap of the refusal tests: 16 KiB.
const CAP: usize = 16 * 1024;

/// A pipeline with `vars` and a 2 s check budget.
fn pipeline(vars: &[(&'static str, String)]) -> Pipeline {
    let mut vars = vars.to_vec();
    vars.push(("SOURCEBOT_VERIFY_TIMEOUT", "2s".into()));
    support::pipeline::pipeline(&vars)
}

/// `text` checked by `pipeline`, then its claims judged against what they cite.
async fn check(pipeline: &Pipeline, text: &str) -> Report {
    let mut report = support::pipeline::check(pipeline, text).await;
    pipeline
        .check_support(&mut report)
        .await
        .expect("the support check ran");
    report
}

/// An answer making each claim, citing the links numbered (from 1) after it.
fn answer(claims: &[(&str, &[usize])], links: &[String]) -> String {
    let mut text = String::new();
    for (claim, cites) in claims {
        text.push_str(claim);
        for n in *cites {
            text.push_str(&format!(" [{n}]"));
        }
        text.push_str(". ");
    }
    text.push_str("\n\n");
    for (n, link) in links.iter().enumerate() {
        text.push_str(&format!("[{}] {link}\n", n + 1));
    }
    text
}

/// The source citing `link`.
fn source<'a>(report: &'a Report, link: &str) -> &'a Source {
    report
        .sources()
        .find(|s| s.url.as_deref() == Some(link))
        .unwrap_or_else(|| panic!("no source {link} in {report:#?}"))
}

/// The claim that starts with `words`.
fn claim<'a>(report: &'a Report, words: &str) -> &'a Claim {
    report
        .claims
        .iter()
        .find(|c| c.text.starts_with(words))
        .unwrap_or_else(|| panic!("no claim {words:?} in {:#?}", report.claims))
}

/// How far `link` supports the claim that starts with `words`.
fn support<'a>(report: &'a Report, words: &str, link: &str) -> &'a ClaimSupport {
    let id = source(report, link).id;
    claim(report, words)
        .support
        .iter()
        .find(|s| s.source == id)
        .unwrap_or_else(|| {
            panic!(
                "{link} was not judged for {words:?}: {:#?}",
                claim(report, words)
            )
        })
}

/// The sentences of a document as a reader sees it, given block by block (a heading,
/// a paragraph, a table row as its cells joined with `" | "`): each block cut after a
/// `.`, `!` or `?` followed by a space and a capital.
fn sentences_of(blocks: &[&str]) -> Vec<String> {
    let mut sentences = Vec::new();
    for block in blocks {
        let mut start = 0;
        let chars: Vec<(usize, char)> = block.char_indices().collect();
        for (n, &(i, c)) in chars.iter().enumerate() {
            let next_is_capital = chars.get(n + 2).is_some_and(|(_, c)| c.is_uppercase());
            let then_space = chars.get(n + 1).is_some_and(|(_, c)| *c == ' ');
            if matches!(c, '.' | '!' | '?') && then_space && next_is_capital {
                sentences.push(block[start..=i].trim().to_string());
                start = i + 1;
            }
        }
        sentences.push(block[start..].trim().to_string());
    }
    sentences
}

/// Asserts that `link` supports the claim `words`, quoting the document's own words:
/// consecutive sentences of `document` (its blocks as a reader sees them, no markup),
/// `sentence` among them.
fn expect_supported(report: &Report, words: &str, link: &str, document: &[&str], sentence: &str) {
    let support = support(report, words, link);
    assert_eq!(
        support.verdict,
        SupportVerdict::Supported,
        "{link} should support {words:?}: {support:#?}"
    );
    let quote = support
        .quote
        .as_deref()
        .unwrap_or_else(|| panic!("{link}: a supported claim has no quote: {support:#?}"));
    let sentences = sentences_of(document);
    let n = sentences.len();
    let own_words = (0..n).any(|first| {
        (first + 1..=n).any(|end| {
            let run = &sentences[first..end];
            run.iter().any(|s| s == sentence) && run.join(" ") == quote
        })
    });
    assert!(
        own_words,
        "{link}: the quote {quote:?} is not the document's own sentences around {sentence:?}: {sentences:#?}"
    );
    assert!(support.missing.is_empty(), "{support:#?}");
}

/// Asserts that `link` does not support the claim `words`, whose `figure` it lacks.
fn expect_contradicted(report: &Report, words: &str, link: &str, figure: &str) {
    let support = support(report, words, link);
    assert!(
        matches!(
            support.verdict,
            SupportVerdict::NotSupported | SupportVerdict::PartlySupported
        ),
        "{link} should not support {words:?}: {support:#?}"
    );
    assert!(
        support.missing.iter().any(|m| m.contains(figure)),
        "{figure:?} should be missing: {support:#?}"
    );
}

/// Asserts that the claim `words` could not be judged against `link`, for `reason`.
fn expect_unreadable(report: &Report, words: &str, link: &str, reason: &str) {
    let support = support(report, words, link);
    assert_eq!(
        support.verdict,
        SupportVerdict::Unreadable,
        "{link} should be unreadable for {words:?}: {support:#?}"
    );
    assert_eq!(
        support.reason.as_deref(),
        Some(reason),
        "{link}: {support:#?}"
    );
    assert_eq!(support.quote, None, "{support:#?}");
}

/// Asserts that `link` was checked and read through `product`, and sits in `kind`.
fn expect_read_through(report: &Report, link: &str, product: &str, kind: SourceKind) {
    let source = source(report, link);
    assert_eq!(
        source.verdict.class,
        VerdictClass::Verified,
        "{link}: {:?}",
        source.verdict
    );
    assert_eq!(
        source.read_via,
        Some(ReadVia::Product {
            product: product.into()
        }),
        "{link} was not read through {product}"
    );
    assert_eq!(source.kind, kind, "{link} is in the wrong group");
    assert!(
        report
            .groups
            .iter()
            .any(|g| g.sources.iter().any(|s| s.id == source.id) && g.kind == kind),
        "{link} is not shown with the {kind:?} sources"
    );
}

/// The requests `server` got that `keep` picks, in order.
fn requests(server: &HostileServer, keep: impl Fn(&RequestInfo) -> bool) -> Vec<RequestInfo> {
    server
        .request_log()
        .into_iter()
        .filter(|r| keep(r))
        .collect()
}

/// Asserts `request` is a GET of `path` with `query`, `authorization` and `headers`.
fn expect_call(
    request: &RequestInfo,
    path: &str,
    query_pairs: &[(&str, &str)],
    authorization: &str,
    headers: &[(&str, &str)],
) {
    assert_eq!(request.method, "GET", "{request:?}");
    assert_eq!(request.path, path, "{request:?}");
    assert_eq!(query(request), pairs(query_pairs), "{request:?}");
    assert_eq!(
        request.header("authorization"),
        Some(authorization),
        "{request:?}"
    );
    for (name, value) in headers {
        assert_eq!(request.header(name), Some(*value), "{name}: {request:?}");
    }
}

/// A route answering the content call (`is_content`) with `content` and the link's
/// check with `check`.
fn split(check: Value, is_content: fn(&RequestInfo) -> bool, content: Action) -> Route {
    Route::new(move |request, _| {
        if is_content(request) {
            content.clone()
        } else {
            reply(200, &check)
        }
    })
}

/// Checks `text` again with `pipeline` and asserts it is judged as `first` was with
/// no further content call to `server` (`product`'s): the document came from the
/// pipeline's cache. (The link's check is remembered too: nothing at all is asked.)
async fn expect_cached(
    pipeline: &Pipeline,
    text: &str,
    first: &Report,
    server: &HostileServer,
    product: Product,
) {
    let reads = || requests(server, |r| product.is_content_call(r)).len();
    let (reads_before, calls_before) = (reads(), server.request_log().len());
    let again = check(pipeline, text).await;
    assert_eq!(
        reads(),
        reads_before,
        "the document was read again: {:#?}",
        server.request_log()
    );
    assert_eq!(
        server.request_log().len(),
        calls_before,
        "the link was checked again: {:#?}",
        server.request_log()
    );
    let supports = |r: &Report| {
        r.claims
            .iter()
            .map(|c| c.support.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        supports(first),
        supports(&again),
        "the cached document was judged differently"
    );
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
    let report = check(&pipeline, &text).await;

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
    let report = check(&pipeline, &text).await;

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
    let report = check(&pipeline, &text).await;

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
    let report = check(&pipeline, &text).await;

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

const NOTION_PAGE: &str = "0123456789abcdef0123456789abcdef";
const NOTION_TOGGLE: &str = "5b0d4d54-63c4-4f5e-9e7c-4f7a2b8b7c11";
const NOTION_CURSOR: &str = "7d2c6e1a-6f0b-4d3c-9d6e-2b1f0c9e8a11";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn notion_pages_are_read_through_every_cursor_and_nested_block() {
    let children = Route::new(|request, _| match param(request, "start_cursor") {
        None => reply(200, &fixture("notion-children-1.json")),
        Some(cursor) if cursor == NOTION_CURSOR => reply(200, &fixture("notion-children-2.json")),
        Some(other) => reply(
            400,
            &json!({"object": "error", "status": 400, "code": "validation_error",
                    "message": format!("start_cursor {other} is not valid")}),
        ),
    });
    let notion = HostileServer::start(
        ip(),
        vec![
            (
                &format!("/v1/pages/{NOTION_PAGE}"),
                Route::always(reply(200, &fixture("notion-page.json"))),
            ),
            (&format!("/v1/blocks/{NOTION_PAGE}/children"), children),
            (
                &format!("/v1/blocks/{NOTION_TOGGLE}/children"),
                Route::always(reply(200, &fixture("notion-toggle-children.json"))),
            ),
        ],
    )
    .await;
    let pipeline = pipeline(&Product::Notion.settings(&notion));
    let link = format!("https://www.notion.so/acme/Deploy-freeze-policy-{NOTION_PAGE}");
    let text = answer(
        &[(SAYS, &[1]), (CONTRADICTS, &[1])],
        std::slice::from_ref(&link),
    );
    let report = check(&pipeline, &text).await;

    // The freeze is a list item inside a toggle on the second page of blocks.
    expect_supported(
        &report,
        SAYS,
        &link,
        &[
            "Deploy freeze policy",
            ROLLBACK,
            "Freeze window",
            FROZEN,
            ANNOUNCEMENT,
        ],
        FROZEN,
    );
    expect_contradicted(&report, CONTRADICTS, &link, "15");
    expect_read_through(&report, &link, "Notion", SourceKind::File);
    assert_eq!(source(&report, &link).title, "Deploy freeze policy");
    let reads = requests(&notion, |r| Product::Notion.is_content_call(r));
    assert_eq!(reads.len(), 3, "{reads:#?}");
    let headers = [
        ("accept", "application/json"),
        ("notion-version", NOTION_VERSION),
    ];
    let page_children = format!("/v1/blocks/{NOTION_PAGE}/children");
    expect_call(
        &reads[0],
        &page_children,
        &[("page_size", "100")],
        NOTION_BEARER,
        &headers,
    );
    expect_call(
        &reads[1],
        &page_children,
        &[("page_size", "100"), ("start_cursor", NOTION_CURSOR)],
        NOTION_BEARER,
        &headers,
    );
    expect_call(
        &reads[2],
        &format!("/v1/blocks/{NOTION_TOGGLE}/children"),
        &[("page_size", "100")],
        NOTION_BEARER,
        &headers,
    );
    assert_eq!(notion.request_log().len(), 4, "{:#?}", notion.request_log());

    expect_cached(&pipeline, &text, &report, &notion, Product::Notion).await;
}

/// GitHub's headers on a link's check and on an issue's read.
const GITHUB_HEADERS: [(&str, &str); 2] = [
    ("accept", GITHUB_JSON),
    ("x-github-api-version", GITHUB_API_VERSION),
];

/// A route for a file of a repository: its contents API object to a check, its raw
/// `bytes` (served as `served_as`) to a read.
fn github_file(path: &str, bytes: Vec<u8>, served_as: &str) -> Route {
    split(
        github_file_metadata(path, &bytes),
        |r| r.header("accept") == Some(GITHUB_RAW),
        Action::bytes(200, &[("Content-Type", served_as)], bytes),
    )
}

/// GitHub's "List issue comments" page `page`: 100 comments, then the fixture's last.
fn github_comments(page: &str) -> Value {
    let last = fixture("github-issue-comments-2.json");
    match page {
        "1" => {
            let template = last[0].clone();
            Value::Array(
                (1..=100)
                    .map(|n| {
                        let mut comment = template.clone();
                        comment["id"] = json!(1000 + n);
                        comment["body"] = json!(format!("Thanks, reviewed part {n} of the plan."));
                        comment
                    })
                    .collect(),
            )
        }
        "2" => last,
        _ => json!([]),
    }
}

/// A GitHub Enterprise-like fake with `acme/tools`, its issue 42 (101 comments: a
/// page of 100, then the fixture's last) and its `docs/freeze.md`.
async fn fake_github_issue_and_file() -> HostileServer {
    let markdown = fixture_text("github-freeze.md").into_bytes();
    HostileServer::start(
        ip(),
        vec![
            (
                "/api/v3/repos/acme/tools",
                Route::always(reply(200, &fixture("github-repo.json"))),
            ),
            (
                "/api/v3/repos/acme/tools/issues/42",
                Route::always(reply(200, &fixture("github-issue.json"))),
            ),
            (
                "/api/v3/repos/acme/tools/issues/42/comments",
                Route::new(|request, _| {
                    reply(
                        200,
                        &github_comments(&param(request, "page").unwrap_or_default()),
                    )
                }),
            ),
            (
                "/api/v3/repos/acme/tools/contents/docs/freeze.md",
                github_file(
                    "docs/freeze.md",
                    markdown,
                    "application/vnd.github.raw; charset=utf-8",
                ),
            ),
        ],
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn github_issues_are_read_through_every_comment_page_and_files_as_raw_markdown() {
    let github = fake_github_issue_and_file().await;
    let pipeline = pipeline(&Product::Github.settings(&github));
    let issue = github.url("/acme/tools/issues/42");
    let file = github.url("/acme/tools/blob/main/docs/freeze.md");
    let text = answer(
        &[(SAYS, &[1, 2]), (CONTRADICTS, &[1, 2])],
        &[issue.clone(), file.clone()],
    );
    let report = check(&pipeline, &text).await;

    // The issue says it in its 101st comment, on the second page.
    let thanks: Vec<String> = (1..=100)
        .map(|n| format!("Thanks, reviewed part {n} of the plan."))
        .collect();
    let mut issue_text = vec!["Document the deploy freeze", ROLLBACK, ANNOUNCEMENT];
    issue_text.extend(thanks.iter().map(String::as_str));
    issue_text.extend(["Decision", FROZEN]);
    // The file: front matter, alert label and comment dropped, the table row's cells.
    let file_text = [
        "Deploy freeze",
        FROZEN,
        ROLLBACK,
        "Who | What",
        "Release manager | The release manager announces each freeze in the deploys channel.",
    ];
    for (link, document) in [(&issue, &issue_text[..]), (&file, &file_text[..])] {
        expect_supported(&report, SAYS, link, document, FROZEN);
        expect_read_through(&report, link, "GitHub", SourceKind::File);
    }
    // The issue's contradiction: see the test after this one.
    expect_contradicted(&report, CONTRADICTS, &file, "15");
    assert_eq!(source(&report, &issue).title, "Document the deploy freeze");
    assert_eq!(source(&report, &file).title, "docs/freeze.md in acme/tools");

    // The issue: asked once to check the link and once to read it, then its comments
    // a page of 100 at a time.
    let issue_calls = requests(&github, |r| {
        r.path.starts_with("/api/v3/repos/acme/tools/issues/42")
    });
    assert_eq!(issue_calls.len(), 4, "{issue_calls:#?}");
    for call in &issue_calls[..2] {
        expect_call(
            call,
            "/api/v3/repos/acme/tools/issues/42",
            &[],
            GITHUB_BEARER,
            &GITHUB_HEADERS,
        );
    }
    for (call, page) in issue_calls[2..].iter().zip(["1", "2"]) {
        expect_call(
            call,
            "/api/v3/repos/acme/tools/issues/42/comments",
            &[("per_page", "100"), ("page", page)],
            GITHUB_BEARER,
            &GITHUB_HEADERS,
        );
    }
    // The file: its raw bytes at the link's ref.
    let raw = requests(&github, |r| r.header("accept") == Some(GITHUB_RAW));
    assert_eq!(raw.len(), 1, "{raw:#?}");
    expect_call(
        &raw[0],
        "/api/v3/repos/acme/tools/contents/docs/freeze.md",
        &[("ref", "main")],
        GITHUB_BEARER,
        &[
            ("accept", GITHUB_RAW),
            ("x-github-api-version", GITHUB_API_VERSION),
        ],
    );

    expect_cached(&pipeline, &text, &report, &github, Product::Github).await;
}

/// A known limit of the built-in scorer, kept here so that it shows: the issue says
/// rollbacks must finish within 30 minutes, the claim says 15. The figure is listed as
/// missing (the claim's evidence is right), yet the scorer calls the claim supported
/// (0.848): its verdict grows with the document's length (the same issue without its
/// 100 other comments scores 0.32, "partly supported"; with 5 of them 0.41,
/// "supported"). Telling that the page gives another figure for the same thing is
/// issue 35's `differs`; a rule that caps every claim with a missing figure at "partly"
/// was measured and not kept (docs/support.md). Run with `--ignored`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "the built-in scorer calls a long document's contradicted figure supported (issue 35)"]
async fn a_figure_a_long_github_issue_contradicts_is_not_supported() {
    let github = fake_github_issue_and_file().await;
    let pipeline = pipeline(&Product::Github.settings(&github));
    let issue = github.url("/acme/tools/issues/42");
    let report = check(
        &pipeline,
        &answer(&[(CONTRADICTS, &[1])], std::slice::from_ref(&issue)),
    )
    .await;
    expect_read_through(&report, &issue, "GitHub", SourceKind::File);
    expect_contradicted(&report, CONTRADICTS, &issue, "15");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn github_word_powerpoint_and_pdf_files_are_read() {
    let docx = support::office::docx(&["Deploy freeze", FROZEN, ROLLBACK]);
    let pptx = support::office::pptx(&[&["Deploy freeze"], &[FROZEN, ROLLBACK]]);
    let pdf = support::pdf::simple_pdf(&["Deploy freeze", FROZEN, ROLLBACK]);
    let github = HostileServer::start(
        ip(),
        vec![
            (
                "/api/v3/repos/acme/tools",
                Route::always(reply(200, &fixture("github-repo.json"))),
            ),
            (
                "/api/v3/repos/acme/tools/contents/docs/freeze.docx",
                github_file("docs/freeze.docx", docx, "application/vnd.github.raw"),
            ),
            (
                "/api/v3/repos/acme/tools/contents/slides/freeze.pptx",
                github_file("slides/freeze.pptx", pptx, "application/octet-stream"),
            ),
            (
                "/api/v3/repos/acme/tools/contents/docs/freeze.pdf",
                github_file("docs/freeze.pdf", pdf, "application/vnd.github.raw+json"),
            ),
        ],
    )
    .await;
    let pipeline = pipeline(&Product::Github.settings(&github));
    let links = [
        github.url("/acme/tools/blob/main/docs/freeze.docx"),
        github.url("/acme/tools/blob/v2.1/slides/freeze.pptx"),
        github.url("/acme/tools/blob/0a1b2c3d/docs/freeze.pdf"),
    ];
    let text = answer(&[(SAYS, &[1, 2, 3]), (CONTRADICTS, &[1, 2, 3])], &links);
    let report = check(&pipeline, &text).await;
    for link in &links {
        expect_supported(
            &report,
            SAYS,
            link,
            &["Deploy freeze", FROZEN, ROLLBACK],
            FROZEN,
        );
        expect_contradicted(&report, CONTRADICTS, link, "15");
        expect_read_through(&report, link, "GitHub", SourceKind::File);
    }
    let raw = requests(&github, |r| r.header("accept") == Some(GITHUB_RAW));
    let mut asked: Vec<(String, Vec<(String, String)>)> =
        raw.iter().map(|r| (r.path.clone(), query(r))).collect();
    asked.sort();
    assert_eq!(
        asked,
        vec![
            (
                "/api/v3/repos/acme/tools/contents/docs/freeze.docx".to_string(),
                pairs(&[("ref", "main")])
            ),
            (
                "/api/v3/repos/acme/tools/contents/docs/freeze.pdf".to_string(),
                pairs(&[("ref", "0a1b2c3d")])
            ),
            (
                "/api/v3/repos/acme/tools/contents/slides/freeze.pptx".to_string(),
                pairs(&[("ref", "v2.1")])
            ),
        ]
    );
}

/// On a GitHub Enterprise host every repository holds files, private or not: both are
/// grouped with files and read through GitHub.
///
/// The github.com case (a private repository regrouped from the web under File, a
/// public one left on the web) cannot be made hermetic: the links' host is the API's
/// (`api.github.com` → `github.com`), and pointing `SOURCEBOT_GITHUB_API_URL` at a fake
/// makes the fake's host an Enterprise host.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn github_enterprise_files_are_files_whether_the_repository_is_private_or_not() {
    let private = fixture("github-repo.json");
    let mut public = private.clone();
    public["name"] = json!("handbook");
    public["full_name"] = json!("acme/handbook");
    public["private"] = json!(false);
    public["visibility"] = json!("public");
    let markdown = docs::markdown(&[FROZEN.to_string(), ROLLBACK.to_string()]).into_bytes();
    let served = "application/vnd.github.raw; charset=utf-8";
    let github = HostileServer::start(
        ip(),
        vec![
            (
                "/api/v3/repos/acme/tools",
                Route::always(reply(200, &private)),
            ),
            (
                "/api/v3/repos/acme/handbook",
                Route::always(reply(200, &public)),
            ),
            (
                "/api/v3/repos/acme/tools/contents/freeze.md",
                github_file("freeze.md", markdown.clone(), served),
            ),
            (
                "/api/v3/repos/acme/handbook/contents/freeze.md",
                github_file("freeze.md", markdown, served),
            ),
        ],
    )
    .await;
    let pipeline = pipeline(&Product::Github.settings(&github));
    let links = [
        github.url("/acme/tools/blob/main/freeze.md"),
        github.url("/acme/handbook/blob/main/freeze.md"),
    ];
    let report = check(&pipeline, &answer(&[(SAYS, &[1, 2])], &links)).await;
    for link in &links {
        expect_read_through(&report, link, "GitHub", SourceKind::File);
        expect_supported(&report, SAYS, link, &[FROZEN, ROLLBACK], FROZEN);
    }
    // Each repository was asked whether it is private.
    for repo in ["tools", "handbook"] {
        assert_eq!(
            github
                .requests_to(&format!("/api/v3/repos/acme/{repo}"))
                .len(),
            1,
            "{:#?}",
            github.request_log()
        );
    }
}

/// github.com itself, hermetically: the API's base is `http://api.github.com` (so the
/// links' host is github.com, which no setting makes a file host) and the fake is the
/// HTTP proxy every call to it goes through, so no name is looked up and nothing leaves
/// the machine. The binary runs in a process of its own, so the proxy touches nothing
/// else. A link into the private repository is regrouped from the web under files; one
/// into the public repository stays on the web (the module's rule); both are read
/// through GitHub.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_github_com_a_private_repository_is_regrouped_under_files() {
    let private = fixture("github-repo.json");
    let mut public = private.clone();
    public["name"] = json!("handbook");
    public["full_name"] = json!("acme/handbook");
    public["private"] = json!(false);
    public["visibility"] = json!("public");
    let markdown = docs::markdown(&[FROZEN.to_string(), ROLLBACK.to_string()]).into_bytes();
    let served = "application/vnd.github.raw; charset=utf-8";
    let proxy = HostileServer::start(
        ip(),
        vec![
            ("/repos/acme/tools", Route::always(reply(200, &private))),
            ("/repos/acme/handbook", Route::always(reply(200, &public))),
            (
                "/repos/acme/tools/contents/docs/freeze.md",
                github_file("docs/freeze.md", markdown.clone(), served),
            ),
            (
                "/repos/acme/handbook/contents/freeze.md",
                github_file("freeze.md", markdown, served),
            ),
        ],
    )
    .await;
    let private_link = "https://github.com/acme/tools/blob/main/docs/freeze.md".to_string();
    let public_link = "https://github.com/acme/handbook/blob/main/freeze.md".to_string();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let answer_file = dir.path().join("answer.md");
    std::fs::write(
        &answer_file,
        answer(
            &[(SAYS, &[1, 2])],
            &[private_link.clone(), public_link.clone()],
        ),
    )
    .expect("the answer is written");
    let envs = [
        ("SOURCEBOT_GITHUB_TOKEN", "ghp_test".to_string()),
        (
            "SOURCEBOT_GITHUB_API_URL",
            "http://api.github.com".to_string(),
        ),
        ("SOURCEBOT_VERIFY_TIMEOUT", "2s".to_string()),
        ("HTTP_PROXY", proxy.url("/")),
    ];
    let args = [
        "check".to_string(),
        answer_file.display().to_string(),
        "--format".to_string(),
        "json".to_string(),
    ];
    let output = support::cli::run(support::cli::command(&args, &envs)).await;
    assert!(
        output.status.success(),
        "sourcebot check failed: {}",
        support::cli::stderr(&output)
    );
    let report: Report = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "the report is not JSON ({e}): {}",
            support::cli::stdout(&output)
        )
    });
    expect_read_through(&report, &private_link, "GitHub", SourceKind::File);
    expect_read_through(&report, &public_link, "GitHub", SourceKind::Web);
    for link in [&private_link, &public_link] {
        expect_supported(&report, SAYS, link, &[FROZEN, ROLLBACK], FROZEN);
    }
    // Every call went to api.github.com, through the proxy, with the token.
    let log = proxy.request_log();
    assert!(!log.is_empty(), "no call went through the proxy");
    for request in &log {
        assert_eq!(
            request.header("host"),
            Some("api.github.com"),
            "{request:?}"
        );
        assert_eq!(
            request.header("authorization"),
            Some(GITHUB_BEARER),
            "{request:?}"
        );
    }
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
    let report = check(&pipeline, &answer(&[(SAYS, &[1, 2])], &links)).await;
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

/// Four documents whose content calls refuse (403), ask for a one-second wait (429),
/// are larger than the 16 KiB cap, and are empty; each link's check succeeds.
async fn refusals_caps_and_empty_documents(product: Product) {
    let docs = [
        Doc::new(product.doc_id(1), "Freeze policy", Content::Status(403)),
        Doc::new(
            product.doc_id(2),
            "Rollback policy",
            Content::RateLimited {
                seconds: 1,
                then: vec![ROLLBACK.into()],
            },
        ),
        Doc::new(
            product.doc_id(3),
            "Freeze calendar",
            Content::Oversized(4 * CAP),
        ),
        Doc::new(product.doc_id(4), "Hotfix policy", Content::Empty),
    ];
    let server = product.serve(ip(), &docs).await;
    let mut vars = product.settings(&server);
    vars.push(("SOURCEBOT_FETCH_MAX_BYTES", CAP.to_string()));
    let pipeline = pipeline(&vars);
    let links: Vec<String> = docs.iter().map(|d| product.link(&server, d)).collect();
    let text = answer(
        &[
            (SAYS, &[1]),
            (ROLLS_BACK, &[2]),
            (ANNOUNCES, &[3]),
            (HOTFIXES, &[4]),
        ],
        &links,
    );
    let started = Instant::now();
    let report = check(&pipeline, &text).await;
    let took = started.elapsed();
    let name = product.name();
    for link in &links {
        let source = source(&report, link);
        assert_eq!(
            source.verdict.class,
            VerdictClass::Verified,
            "{name}: {link}: {:?}",
            source.verdict
        );
        assert_eq!(source.kind, product.kind(), "{name}: {link}");
    }

    expect_unreadable(
        &report,
        SAYS,
        &links[0],
        &format!("{name} does not let sourcebot read it"),
    );
    // The 429's Retry-After was waited out, and the document read on the second call.
    let title = format!("{}: {}", docs[1].id, docs[1].title);
    let document = match product {
        // An issue's text starts with its key and summary.
        Product::JiraCloud | Product::JiraDataCenter => vec![title.as_str(), ROLLBACK],
        _ => vec![ROLLBACK],
    };
    expect_supported(&report, ROLLS_BACK, &links[1], &document, ROLLBACK);
    let content_calls = |doc: &Doc| {
        requests(&server, |r| {
            product.is_content_call(r) && r.path.contains(doc.id.as_str())
        })
        .len()
    };
    assert_eq!(
        content_calls(&docs[1]),
        2,
        "{name}: {:#?}",
        server.request_log()
    );
    assert!(
        took >= Duration::from_secs(1),
        "{name}: the Retry-After was not waited out ({took:?})"
    );
    assert!(took < Duration::from_secs(5), "{name}: took {took:?}");
    expect_unreadable(
        &report,
        ANNOUNCES,
        &links[2],
        "the document is larger than sourcebot reads (16 KiB)",
    );
    match product {
        // An issue is never empty: it has its key and summary, and is judged on them.
        Product::JiraCloud | Product::JiraDataCenter => {
            let support = support(&report, HOTFIXES, &links[3]);
            assert!(
                matches!(
                    support.verdict,
                    SupportVerdict::NotSupported | SupportVerdict::PartlySupported
                ),
                "{name}: {support:#?}"
            );
            assert_eq!(
                source(&report, &links[3]).read_via,
                Some(ReadVia::Product {
                    product: name.into()
                })
            );
        }
        _ => expect_unreadable(&report, HOTFIXES, &links[3], "the document has no text"),
    }
    for doc in &docs {
        assert!(
            content_calls(doc) >= 1,
            "{name}: {} was never read: {:#?}",
            doc.id,
            server.request_log()
        );
    }
    for request in server.request_log() {
        assert_eq!(
            request.header("authorization"),
            Some(product.authorization()),
            "{name}: {request:?}"
        );
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
    let report = check(
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
    let report = check(
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
async fn confluence_cloud_refusals_caps_and_empty_pages() {
    refusals_caps_and_empty_documents(Product::ConfluenceCloud).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn confluence_data_center_refusals_caps_and_empty_pages() {
    refusals_caps_and_empty_documents(Product::ConfluenceDataCenter).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn jira_cloud_refusals_caps_and_empty_issues() {
    refusals_caps_and_empty_documents(Product::JiraCloud).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn jira_data_center_refusals_caps_and_empty_issues() {
    refusals_caps_and_empty_documents(Product::JiraDataCenter).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn notion_refusals_caps_and_empty_pages() {
    refusals_caps_and_empty_documents(Product::Notion).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn github_refusals_caps_and_empty_files() {
    refusals_caps_and_empty_documents(Product::Github).await;
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
