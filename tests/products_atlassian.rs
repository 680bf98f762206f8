//! Confluence and Jira links checked through their APIs, against fake Atlassian sites
//! on loopback answering with the JSON Atlassian documents: Cloud (v2 pages and blog
//! posts, Jira v3, HTTP basic) and Data Center (`/rest/api/content`, Jira v2, bearer);
//! found, trashed, archived, a blog post behind a tiny link, 404 with Atlassian's error
//! body, 401, 403, a 429 waited out, 500 and a reply slower than the 2 s budget; the
//! product's title replacing one made from the link while an answer's own label wins;
//! a link on another host never sent to the API; and, without settings, Confluence
//! links saying which settings would check them. Everything runs through the public
//! pipeline: settings read with `Config::from_lookup`, an answer parsed and checked.

mod support;

use serde_json::{json, Value};
use sourcebot::config::Config;
use sourcebot::model::{Report, Source, VerdictClass};
use sourcebot::pipeline::Pipeline;
use std::collections::HashMap;
use std::time::{Duration, Instant};
use support::{Action, HostileServer, RequestInfo, Route};

/// `bot@acme.io:tok-cloud` in base64, as HTTP basic sends it.
const CLOUD_BASIC: &str = "Basic Ym90QGFjbWUuaW86dG9rLWNsb3Vk";
/// The Data Center token, as a bearer.
const DC_BEARER: &str = "Bearer pat-dc-secret";

/// A JSON reply.
fn reply(status: u16, body: Value) -> Action {
    Action::bytes(
        status,
        &[("content-type", "application/json;charset=UTF-8")],
        body.to_string().into_bytes(),
    )
}

/// A route answering `body` with 200.
fn ok(body: Value) -> Route {
    Route::always(reply(200, body))
}

/// A Cloud v2 page (the shape of "Get page by id").
fn cloud_page(id: &str, status: &str, title: &str) -> Value {
    json!({
        "id": id, "status": status, "title": title,
        "spaceId": "98306", "parentId": "98305", "parentType": "page", "position": 4,
        "authorId": "5b10ac8d82e05b22cc7d4ef5", "ownerId": "5b10ac8d82e05b22cc7d4ef5",
        "createdAt": "2024-03-01T10:00:00.000Z",
        "version": {"createdAt": "2024-05-02T09:00:00.000Z", "message": "", "number": 7,
                    "minorEdit": false, "authorId": "5b10ac8d82e05b22cc7d4ef5"},
        "body": {},
        "_links": {"webui": format!("/spaces/ENG/pages/{id}"), "editui": format!("/pages/resumedraft.action?draftId={id}"), "tinyui": "/x/QOIB"}
    })
}

/// A Cloud v2 blog post (the shape of "Get blog post by id").
fn cloud_blog_post(id: &str, status: &str, title: &str) -> Value {
    json!({
        "id": id, "status": status, "title": title, "spaceId": "98306",
        "authorId": "5b10ac8d82e05b22cc7d4ef5", "createdAt": "2024-03-15T08:00:00.000Z",
        "version": {"number": 1, "message": "", "minorEdit": false},
        "body": {},
        "_links": {"webui": format!("/spaces/ENG/blog/2024/03/15/{id}"), "tinyui": "/x/AYAB"}
    })
}

/// Cloud v2's 404 body.
fn cloud_not_found() -> Action {
    reply(
        404,
        json!({"errors": [{"status": 404, "code": "NOT_FOUND", "title": "Not Found", "detail": null}]}),
    )
}

/// A Data Center content object (the shape of `GET /rest/api/content/{id}`).
fn dc_content(id: &str, kind: &str, status: &str, title: &str) -> Value {
    json!({
        "id": id, "type": kind, "status": status, "title": title,
        "space": {"id": 98306, "key": "ENG", "name": "Engineering", "type": "global", "status": "current"},
        "version": {"by": {"type": "known", "username": "admin"}, "when": "2024-05-02T09:00:00.000Z", "number": 7, "minorEdit": false},
        "extensions": {"position": "none"},
        "_links": {"webui": format!("/display/ENG/{}", title.replace(' ', "+")), "tinyui": "/x/AgAB", "self": format!("https://wiki.acme.io/rest/api/content/{id}")},
        "_expandable": {"ancestors": "", "body": "", "children": format!("/rest/api/content/{id}/child")}
    })
}

/// Data Center's 404 body.
fn dc_not_found(id: &str) -> Action {
    reply(
        404,
        json!({"statusCode": 404, "data": {"authorized": false, "valid": true, "errors": [], "successful": false},
               "message": format!("No content found with id: ContentId{{id={id}}}"), "reason": "Not Found"}),
    )
}

/// A Jira issue with only its summary (the shape of "Get issue" with `fields=summary`).
fn jira_issue(key: &str, summary: &str) -> Value {
    json!({
        "expand": "renderedFields,names,schema,operations,editmeta,changelog,versionedRepresentations",
        "id": "10002", "self": format!("https://acme.atlassian.net/rest/api/3/issue/10002"),
        "key": key, "fields": {"summary": summary}
    })
}

/// Jira's 404 body.
fn jira_not_found() -> Action {
    reply(
        404,
        json!({"errorMessages": ["Issue does not exist or you do not have permission to see it."], "errors": {}}),
    )
}

/// A pipeline with `vars` and a 2 s budget.
fn pipeline(vars: &[(&str, String)]) -> Pipeline {
    let mut vars = vars.to_vec();
    vars.push(("SOURCEBOT_VERIFY_TIMEOUT", "2s".into()));
    support::pipeline::pipeline(&vars)
}

/// A pipeline for the Cloud site `site`.
fn cloud(site: &HostileServer) -> Pipeline {
    pipeline(&[
        ("SOURCEBOT_CONFLUENCE_URL", site.url("/")),
        ("SOURCEBOT_CONFLUENCE_EMAIL", "bot@acme.io".into()),
        ("SOURCEBOT_CONFLUENCE_TOKEN", "tok-cloud".into()),
    ])
}

/// Checks an answer citing `refs` (link, and the answer's own label if any).
async fn check(pipeline: &Pipeline, refs: &[(String, Option<&str>)]) -> Report {
    let mut text = String::from("Deploys are frozen on Fridays");
    for n in 1..=refs.len() {
        text.push_str(&format!(" [{n}]"));
    }
    text.push_str(".\n\n");
    for (n, (link, label)) in refs.iter().enumerate() {
        match label {
            Some(label) => text.push_str(&format!("[{}] {link} - {label}\n", n + 1)),
            None => text.push_str(&format!("[{}] {link}\n", n + 1)),
        }
    }
    support::pipeline::check(pipeline, &text).await
}

/// The source citing `link`.
fn source<'a>(report: &'a Report, link: &str) -> &'a Source {
    report
        .sources()
        .find(|s| s.url.as_deref() == Some(link))
        .unwrap_or_else(|| panic!("no source {link} in {report:#?}"))
}

/// Asserts the class, reason and title of `link`'s source.
fn expect(report: &Report, link: &str, class: VerdictClass, reason: &str, title: &str) {
    let source = source(report, link);
    assert_eq!(source.verdict.class, class, "{link}: {:?}", source.verdict);
    assert_eq!(
        source.verdict.reason.as_deref(),
        Some(reason),
        "{link}: {:?}",
        source.verdict
    );
    assert_eq!(source.title, title, "{link}");
}

/// The requests to `path`, in order.
fn requests_to(server: &HostileServer, path: &str) -> Vec<RequestInfo> {
    server
        .request_log()
        .into_iter()
        .filter(|r| r.path == path)
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cloud_pages_blog_posts_and_issues_are_checked_with_basic_auth() {
    let site = HostileServer::start_local(vec![
        (
            "/wiki/api/v2/pages/123456",
            ok(cloud_page("123456", "current", "Deploy Runbook")),
        ),
        (
            "/wiki/api/v2/pages/222",
            ok(cloud_page("222", "trashed", "Old freeze policy")),
        ),
        (
            "/wiki/api/v2/pages/333",
            ok(cloud_page("333", "archived", "2022 freeze policy")),
        ),
        (
            "/wiki/api/v2/blogposts/98305",
            ok(cloud_blog_post("98305", "current", "Release notes")),
        ),
        // A tiny link to a blog post: no such page, then the blog post.
        ("/wiki/api/v2/pages/65538", Route::always(cloud_not_found())),
        (
            "/wiki/api/v2/blogposts/65538",
            ok(cloud_blog_post("65538", "current", "Freeze announcement")),
        ),
        (
            "/wiki/api/v2/pages/1234567890",
            ok(cloud_page("1234567890", "current", "Incident review")),
        ),
        ("/wiki/api/v2/pages/444", Route::always(cloud_not_found())),
        (
            "/wiki/api/v2/blogposts/444",
            Route::always(cloud_not_found()),
        ),
        (
            "/rest/api/3/issue/OPS-123",
            ok(jira_issue("OPS-123", "Freeze deploys on Fridays")),
        ),
        ("/rest/api/3/issue/OPS-404", Route::always(jira_not_found())),
    ])
    .await;
    let link = |path: &str| site.url(path);
    let page = link("/wiki/spaces/ENG/pages/123456/Deploy+Runbook");
    let trashed = link("/wiki/spaces/ENG/pages/222");
    let archived = link("/wiki/spaces/ENG/pages/333/2022+freeze+policy");
    let blog = link("/wiki/spaces/ENG/blog/2024/03/15/98305/Release+notes");
    let tiny_blog = link("/wiki/x/AgAB");
    let tiny_page = link("/wiki/x/0gKWSQ");
    let missing = link("/wiki/pages/viewpage.action?pageId=444");
    let by_title = link("/wiki/display/ENG/Deploy+Runbook");
    let issue = link("/browse/OPS-123?focusedCommentId=10042");
    let missing_issue = link("/jira/software/projects/OPS/boards/1?selectedIssue=OPS-404");
    let report = check(
        &cloud(&site),
        &[
            (page.clone(), None),
            (trashed.clone(), None),
            (archived.clone(), None),
            (blog.clone(), Some("Our release notes")),
            (tiny_blog.clone(), None),
            (tiny_page.clone(), None),
            (missing.clone(), None),
            (by_title.clone(), None),
            (issue.clone(), None),
            (missing_issue.clone(), None),
        ],
    )
    .await;
    use VerdictClass::*;
    expect(
        &report,
        &page,
        Verified,
        "the Confluence page exists",
        "Deploy Runbook",
    );
    expect(
        &report,
        &trashed,
        Broken,
        "the page is in the Confluence trash",
        "Old freeze policy",
    );
    expect(
        &report,
        &archived,
        Broken,
        "the page is archived",
        "2022 freeze policy",
    );
    // The answer's own label wins over the product's title.
    expect(
        &report,
        &blog,
        Verified,
        "the Confluence blog post exists",
        "Our release notes",
    );
    expect(
        &report,
        &tiny_blog,
        Verified,
        "the Confluence blog post exists",
        "Freeze announcement",
    );
    expect(
        &report,
        &tiny_page,
        Verified,
        "the Confluence page exists",
        "Incident review",
    );
    let missing_title = source(&report, &missing).title.clone();
    expect(
        &report,
        &missing,
        Broken,
        "not found, or not shared with sourcebot",
        &missing_title,
    );
    let by_title_source = source(&report, &by_title);
    assert_eq!(by_title_source.verdict.class, NotChecked);
    assert!(
        by_title_source
            .verdict
            .reason
            .as_deref()
            .is_some_and(|r| r.contains("the link has no page id")),
        "{:?}",
        by_title_source.verdict
    );
    expect(
        &report,
        &issue,
        Verified,
        "the Jira issue exists",
        "OPS-123: Freeze deploys on Fridays",
    );
    let missing_issue_title = source(&report, &missing_issue).title.clone();
    expect(
        &report,
        &missing_issue,
        Broken,
        "not found, or not shared with sourcebot",
        &missing_issue_title,
    );

    // Every call carried the account's basic credentials; the title-only link and the
    // page behind the tiny link's code were asked for nothing else.
    let log = site.request_log();
    assert_eq!(log.len(), 11, "{log:#?}");
    for request in &log {
        assert_eq!(request.method, "GET");
        assert_eq!(
            request.header("authorization"),
            Some(CLOUD_BASIC),
            "{request:?}"
        );
        assert_eq!(request.header("accept"), Some("application/json"));
        assert!(
            request.path.starts_with("/wiki/api/v2/")
                || request.path.starts_with("/rest/api/3/issue/"),
            "{request:?}"
        );
    }
    assert_eq!(requests_to(&site, "/wiki/api/v2/blogposts/444").len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn data_center_uses_the_content_api_and_a_bearer_token() {
    let site = HostileServer::start_local(vec![
        (
            "/rest/api/content/123456",
            ok(dc_content("123456", "page", "current", "Deploy Runbook")),
        ),
        (
            "/rest/api/content/222",
            ok(dc_content("222", "page", "trashed", "Old freeze policy")),
        ),
        (
            "/rest/api/content/65538",
            ok(dc_content(
                "65538",
                "blogpost",
                "current",
                "Freeze announcement",
            )),
        ),
        ("/rest/api/content/444", Route::always(dc_not_found("444"))),
        (
            "/rest/api/2/issue/OPS-7",
            ok(jira_issue("OPS-7", "Write the freeze policy")),
        ),
    ])
    .await;
    let pipeline = pipeline(&[
        ("SOURCEBOT_CONFLUENCE_URL", site.url("/")),
        ("SOURCEBOT_CONFLUENCE_PAT", "pat-dc-secret".into()),
    ]);
    let link = |path: &str| site.url(path);
    let page = link("/pages/viewpage.action?pageId=123456");
    let trashed = link("/spaces/ENG/pages/222/Old+freeze+policy");
    let tiny = link("/x/AgAB");
    let missing = link("/pages/viewpage.action?pageId=444");
    let by_title = link("/display/ENG/Deploy+Runbook");
    let issue = link("/browse/OPS-7");
    let report = check(
        &pipeline,
        &[
            (page.clone(), None),
            (trashed.clone(), None),
            (tiny.clone(), None),
            (missing.clone(), None),
            (by_title.clone(), None),
            (issue.clone(), None),
        ],
    )
    .await;
    use VerdictClass::*;
    expect(
        &report,
        &page,
        Verified,
        "the Confluence page exists",
        "Deploy Runbook",
    );
    expect(
        &report,
        &trashed,
        Broken,
        "the page is in the Confluence trash",
        "Old freeze policy",
    );
    expect(
        &report,
        &tiny,
        Verified,
        "the Confluence blog post exists",
        "Freeze announcement",
    );
    let missing_title = source(&report, &missing).title.clone();
    expect(
        &report,
        &missing,
        Broken,
        "not found, or not shared with sourcebot",
        &missing_title,
    );
    assert_eq!(source(&report, &by_title).verdict.class, NotChecked);
    expect(
        &report,
        &issue,
        Verified,
        "the Jira issue exists",
        "OPS-7: Write the freeze policy",
    );
    let log = site.request_log();
    assert_eq!(log.len(), 5, "{log:#?}");
    for request in &log {
        assert_eq!(
            request.header("authorization"),
            Some(DC_BEARER),
            "{request:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refusals_limits_and_outages_read_as_the_shared_rules_say() {
    let site = HostileServer::start_local(vec![
        (
            "/wiki/api/v2/pages/401",
            Route::always(reply(401, json!({"code": 401, "message": "Unauthorized"}))),
        ),
        (
            "/wiki/api/v2/pages/403",
            Route::always(reply(
                403,
                json!({"errors": [{"status": 403, "code": "FORBIDDEN", "title": "Forbidden", "detail": null}]}),
            )),
        ),
        (
            "/wiki/api/v2/pages/429",
            Route::sequence(vec![
                Action::status_with(429, &[("Retry-After", "1")]),
                reply(200, cloud_page("429", "current", "Rate-limited page")),
            ]),
        ),
        (
            "/wiki/api/v2/pages/500",
            Route::always(reply(500, json!({"message": "Internal Server Error"}))),
        ),
    ])
    .await;
    let link = |id: &str| site.url(&format!("/wiki/spaces/ENG/pages/{id}"));
    let started = Instant::now();
    let report = check(
        &cloud(&site),
        &[
            (link("401"), None),
            (link("403"), None),
            (link("429"), None),
            (link("500"), None),
        ],
    )
    .await;
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    use VerdictClass::*;
    let title = |id: &str| source(&report, &link(id)).title.clone();
    expect(
        &report,
        &link("401"),
        NotChecked,
        "not checked: Confluence refused sourcebot's credentials (fix SOURCEBOT_CONFLUENCE_TOKEN)",
        &title("401"),
    );
    expect(
        &report,
        &link("403"),
        Restricted,
        "Confluence does not let sourcebot read it",
        &title("403"),
    );
    expect(
        &report,
        &link("429"),
        Verified,
        "the Confluence page exists",
        "Rate-limited page",
    );
    assert_eq!(requests_to(&site, "/wiki/api/v2/pages/429").len(), 2);
    expect(
        &report,
        &link("500"),
        ServerError,
        "Confluence answered HTTP 500",
        &title("500"),
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reply_slower_than_the_budget_is_timed_out() {
    let site = HostileServer::start_local(vec![
        (
            "/wiki/api/v2/pages/777",
            Route::always(
                reply(200, cloud_page("777", "current", "Slow page")).after(Duration::from_secs(5)),
            ),
        ),
        (
            "/rest/api/3/issue/OPS-1",
            Route::always(Action::status_with(429, &[("Retry-After", "30")])),
        ),
    ])
    .await;
    let slow = site.url("/wiki/spaces/ENG/pages/777/Slow");
    let limited = site.url("/browse/OPS-1");
    let started = Instant::now();
    let report = check(
        &cloud(&site),
        &[(slow.clone(), None), (limited.clone(), None)],
    )
    .await;
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "{:?}",
        started.elapsed()
    );
    let slow_title = source(&report, &slow).title.clone();
    expect(
        &report,
        &slow,
        VerdictClass::TimedOut,
        "Confluence did not answer in time",
        &slow_title,
    );
    // A Retry-After past the budget is not waited out.
    let limited_title = source(&report, &limited).title.clone();
    expect(
        &report,
        &limited,
        VerdictClass::TimedOut,
        "Jira is rate-limiting sourcebot (retry after 30 s)",
        &limited_title,
    );
    assert_eq!(requests_to(&site, "/rest/api/3/issue/OPS-1").len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn links_on_another_host_are_never_sent_to_the_api() {
    let path = "/wiki/spaces/ENG/pages/123456/Deploy+Runbook";
    let site = HostileServer::start_local(vec![(
        "/wiki/api/v2/pages/123456",
        ok(cloud_page("123456", "current", "Deploy Runbook")),
    )])
    .await;
    let elsewhere = HostileServer::start(
        support::next_ip(14),
        vec![
            (
                path,
                Route::text(200, "<html><title>Elsewhere</title></html>"),
            ),
            (
                "/browse/OPS-1",
                Route::text(200, "<html><title>Issue</title></html>"),
            ),
        ],
    )
    .await;
    let pipeline = pipeline(&[
        ("SOURCEBOT_CONFLUENCE_URL", site.url("/")),
        ("SOURCEBOT_CONFLUENCE_EMAIL", "bot@acme.io".into()),
        ("SOURCEBOT_CONFLUENCE_TOKEN", "tok-cloud".into()),
        ("SOURCEBOT_VERIFY_ALLOW_PRIVATE", "1".into()),
    ]);
    let ours = site.url(path);
    let theirs = elsewhere.url(path);
    let their_issue = elsewhere.url("/browse/OPS-1");
    let report = check(
        &pipeline,
        &[
            (ours.clone(), None),
            (theirs.clone(), None),
            (their_issue.clone(), None),
        ],
    )
    .await;
    assert_eq!(source(&report, &ours).verdict.class, VerdictClass::Verified);
    // A Confluence-shaped link on another host is not this site's: not checked, and
    // asked of nobody.
    let their_page = source(&report, &theirs);
    assert_eq!(their_page.verdict.class, VerdictClass::NotChecked);
    assert_eq!(
        their_page.verdict.reason.as_deref(),
        Some("internal confluence link: no checker for it yet")
    );
    assert!(elsewhere.requests_to(path).is_empty());
    // A Jira-shaped one went to the web prober, which sends no credentials.
    assert_eq!(
        source(&report, &their_issue).verdict.class,
        VerdictClass::Verified
    );
    assert_eq!(site.request_log().len(), 1, "{:#?}", site.request_log());
    assert!(!elsewhere.request_log().is_empty());
    for request in elsewhere.request_log() {
        assert_eq!(request.header("authorization"), None, "{request:?}");
        assert!(!request.path.starts_with("/wiki/api/"), "{request:?}");
        assert!(!request.path.starts_with("/rest/api/"), "{request:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_settings_confluence_links_say_which_settings_would_check_them() {
    let pipeline = pipeline(&[]);
    let link = "https://acme.atlassian.net/wiki/spaces/ENG/pages/123456/Deploy+Runbook".to_string();
    let report = check(&pipeline, &[(link.clone(), Some("Deploy runbook"))]).await;
    expect(
        &report,
        &link,
        VerdictClass::NotChecked,
        "not checked (no Confluence credentials: set SOURCEBOT_CONFLUENCE_URL with SOURCEBOT_CONFLUENCE_EMAIL and SOURCEBOT_CONFLUENCE_TOKEN, or with SOURCEBOT_CONFLUENCE_PAT)",
        "Deploy runbook",
    );
}

#[test]
fn half_configured_sites_are_refused_naming_the_setting() {
    let config = |vars: &[(&str, &str)]| {
        let vars: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Config::from_lookup(|name| vars.get(name).cloned())
    };
    let error = config(&[("SOURCEBOT_CONFLUENCE_URL", "https://acme.atlassian.net")])
        .expect_err("no credentials");
    assert_eq!(error.name, "SOURCEBOT_CONFLUENCE_URL");
    assert!(error.to_string().contains("credentials missing"), "{error}");
    let error = config(&[("SOURCEBOT_CONFLUENCE_PAT", "pat-dc-secret")]).expect_err("no site");
    assert_eq!(error.name, "SOURCEBOT_CONFLUENCE_URL");
    assert!(!error.to_string().contains("pat-dc-secret"), "{error}");
    let error = config(&[
        ("SOURCEBOT_CONFLUENCE_URL", "https://acme.atlassian.net"),
        ("SOURCEBOT_CONFLUENCE_EMAIL", "bot@acme.io"),
    ])
    .expect_err("no token");
    assert_eq!(error.name, "SOURCEBOT_CONFLUENCE_TOKEN");
    assert!(error.to_string().contains("missing"), "{error}");
    let ok = config(&[
        ("SOURCEBOT_CONFLUENCE_URL", "https://acme.atlassian.net"),
        ("SOURCEBOT_CONFLUENCE_EMAIL", "bot@acme.io"),
        ("SOURCEBOT_CONFLUENCE_TOKEN", "tok-cloud"),
    ])
    .expect("valid");
    assert!(ok.products.confluence.is_some());
    assert!(!format!("{ok:?}").contains("tok-cloud"));
}

/// A Jira on a host of its own (`SOURCEBOT_JIRA_URL`): with Confluence's credentials
/// when it has none, or its own; the Confluence site's Jira links are then not Jira's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_jira_on_its_own_host_is_checked_there() {
    let jira = HostileServer::start(
        support::next_ip(14),
        vec![(
            "/rest/api/2/issue/OPS-7",
            ok(jira_issue("OPS-7", "Write the freeze policy")),
        )],
    )
    .await;
    let wiki = HostileServer::start_local(vec![]).await;
    // Confluence's PAT, used for Jira too.
    let shared = pipeline(&[
        ("SOURCEBOT_CONFLUENCE_URL", wiki.url("/")),
        ("SOURCEBOT_CONFLUENCE_PAT", "pat-dc-secret".into()),
        ("SOURCEBOT_JIRA_URL", jira.url("/")),
    ]);
    let issue = jira.url("/browse/OPS-7");
    let report = check(&shared, &[(issue.clone(), None)]).await;
    expect(
        &report,
        &issue,
        VerdictClass::Verified,
        "the Jira issue exists",
        "OPS-7: Write the freeze policy",
    );
    let asked = requests_to(&jira, "/rest/api/2/issue/OPS-7");
    assert_eq!(asked[0].header("authorization"), Some(DC_BEARER));
    assert!(wiki.request_log().is_empty(), "nothing sent to the wiki");

    // Its own PAT, refused: the setting named is Jira's.
    let own = pipeline(&[
        ("SOURCEBOT_JIRA_URL", jira.url("/")),
        ("SOURCEBOT_JIRA_PAT", "pat-jira-wrong".into()),
    ]);
    let other = jira.url("/browse/OPS-8");
    let report = check(&own, &[(other.clone(), None)]).await;
    let refused = source(&report, &other);
    assert_eq!(refused.verdict.class, VerdictClass::Broken, "{refused:?}");
    let asked = requests_to(&jira, "/rest/api/2/issue/OPS-8");
    assert_eq!(
        asked[0].header("authorization"),
        Some("Bearer pat-jira-wrong")
    );

    // A Jira site without any credentials is refused at start, naming the setting.
    let vars: HashMap<String, String> = [("SOURCEBOT_JIRA_URL".to_string(), jira.url("/"))].into();
    let error = Config::from_lookup(|name| vars.get(name).cloned()).expect_err("refused");
    assert_eq!(error.name, "SOURCEBOT_JIRA_URL");
}
