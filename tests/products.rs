//! Notion and GitHub links checked through their APIs, against fake APIs on loopback
//! answering with the JSON each product's documentation shows: found (with the
//! product's title), in the trash, not found or not shared, 401, 403, 429 then 200,
//! 500; the request goes to the configured base with the credentials and the
//! product's headers; without settings, links say which setting would check them.

mod support;

use sourcebot::model::{Report, Source, VerdictClass};
use sourcebot::pipeline::Pipeline;
use support::pipeline::{check, pipeline};
use support::{Action, HostileServer, RequestInfo, Route};

const JSON: &[(&str, &str)] = &[("content-type", "application/json")];

fn json(status: u16, body: serde_json::Value) -> Action {
    Action::bytes(status, JSON, body.to_string().into_bytes())
}

fn source<'a>(report: &'a Report, url_part: &str) -> &'a Source {
    report
        .sources()
        .find(|s| s.url.as_deref().is_some_and(|u| u.contains(url_part)))
        .unwrap_or_else(|| panic!("no source with {url_part}: {report:#?}"))
}

const PAGE_ID: &str = "0123456789abcdef0123456789abcdef";
const TRASHED_ID: &str = "11111111111111111111111111111111";
const HIDDEN_ID: &str = "22222222222222222222222222222222";
const DATABASE_ID: &str = "33333333333333333333333333333333";
const DENIED_ID: &str = "44444444444444444444444444444444";

/// A page object as Notion's "Retrieve a page" documents it.
fn notion_page(id: &str, title: &str, in_trash: bool) -> serde_json::Value {
    serde_json::json!({
        "object": "page", "id": id, "created_time": "2024-01-01T00:00:00.000Z",
        "archived": in_trash, "in_trash": in_trash,
        "properties": {"Name": {"id": "title", "type": "title", "title": [
            {"type": "text", "text": {"content": title, "link": null}, "plain_text": title}
        ]}},
        "url": format!("https://www.notion.so/{id}")
    })
}

fn notion_error(status: u16, code: &str, message: &str) -> Action {
    json(
        status,
        serde_json::json!({"object": "error", "status": status, "code": code, "message": message}),
    )
}

async fn fake_notion() -> HostileServer {
    let authorized = |request: &RequestInfo| {
        request.header("authorization") == Some("Bearer secret_test")
            && request.header("notion-version") == Some("2022-06-28")
    };
    let page = move |action: Action| {
        Route::new(move |request, _| {
            if authorized(request) {
                action.clone()
            } else {
                notion_error(401, "unauthorized", "API token is invalid.")
            }
        })
    };
    HostileServer::start_local(vec![
        (
            &format!("/v1/pages/{PAGE_ID}"),
            page(json(200, notion_page(PAGE_ID, "Deploy policy", false))),
        ),
        (
            &format!("/v1/pages/{TRASHED_ID}"),
            page(json(200, notion_page(TRASHED_ID, "Old runbook", true))),
        ),
        (
            &format!("/v1/pages/{HIDDEN_ID}"),
            page(notion_error(404, "object_not_found", "Could not find page with ID: 22222222-2222-2222-2222-222222222222. Make sure the relevant pages and databases are shared with your integration.")),
        ),
        (
            &format!("/v1/pages/{DATABASE_ID}"),
            page(notion_error(400, "validation_error", "Provided ID 33333333-3333-3333-3333-333333333333 is a database, not a page. Use the retrieve database API instead.")),
        ),
        (
            &format!("/v1/databases/{DATABASE_ID}"),
            page(json(200, serde_json::json!({"object": "database", "id": DATABASE_ID,
                "title": [{"type": "text", "plain_text": "Incidents"}], "archived": false, "in_trash": false}))),
        ),
        (
            &format!("/v1/pages/{DENIED_ID}"),
            page(notion_error(403, "restricted_resource", "API token does not have access to this resource.")),
        ),
    ])
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn notion_pages_are_checked_through_notions_api() {
    let notion = fake_notion().await;
    let pipeline = pipeline(&[
        ("SOURCEBOT_NOTION_TOKEN", "secret_test".into()),
        ("SOURCEBOT_NOTION_API_URL", notion.url("/")),
    ]);
    let text = format!(
        "Policy [1]. Runbook [2]. Hidden [3]. Incidents [4]. Denied [5]. Labelled [6].\n\n\
         [1] https://www.notion.so/acme/Deploy-Policy-{PAGE_ID}\n\
         [2] https://www.notion.so/acme/Old-Runbook-{TRASHED_ID}\n\
         [3] https://acme.notion.site/{HIDDEN_ID}\n\
         [4] https://www.notion.so/acme/{DATABASE_ID}?v=abc\n\
         [5] https://www.notion.so/{DENIED_ID}\n\
         [6] https://notion.so/{PAGE_ID}?pvs=4 - Our freeze rules\n"
    );
    let report = check(&pipeline, &text).await;
    let live = source(&report, "Deploy-Policy");
    assert_eq!(live.verdict.class, VerdictClass::Verified, "{live:?}");
    assert_eq!(live.title, "Deploy policy");
    let trashed = source(&report, "Old-Runbook");
    assert_eq!(trashed.verdict.class, VerdictClass::Broken);
    assert!(trashed
        .verdict
        .reason
        .as_deref()
        .unwrap_or_default()
        .contains("trash"));
    let hidden = source(&report, HIDDEN_ID);
    assert_eq!(hidden.verdict.class, VerdictClass::Broken);
    assert_eq!(
        hidden.verdict.reason.as_deref(),
        Some("not found, or not shared with sourcebot")
    );
    let database = source(&report, DATABASE_ID);
    assert_eq!(
        database.verdict.class,
        VerdictClass::Verified,
        "{database:?}"
    );
    assert_eq!(database.title, "Incidents");
    assert_eq!(
        source(&report, DENIED_ID).verdict.class,
        VerdictClass::Restricted
    );
    // The answer's own label wins over the product's title.
    assert_eq!(source(&report, "pvs=4").title, "Our freeze rules");

    // A wrong token: not checked, naming the setting; never broken.
    let wrong = pipeline_with_token(&notion, "secret_wrong");
    let report = check(
        &wrong,
        &format!("Policy [1].\n\n[1] https://www.notion.so/{PAGE_ID}\n"),
    )
    .await;
    let refused = report.sources().next().expect("a source");
    assert_eq!(
        refused.verdict.class,
        VerdictClass::NotChecked,
        "{refused:?}"
    );
    assert!(refused
        .verdict
        .reason
        .as_deref()
        .unwrap_or_default()
        .contains("SOURCEBOT_NOTION_TOKEN"));
}

fn pipeline_with_token(notion: &HostileServer, token: &str) -> Pipeline {
    pipeline(&[
        ("SOURCEBOT_NOTION_TOKEN", token.into()),
        ("SOURCEBOT_NOTION_API_URL", notion.url("/")),
    ])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_settings_notion_links_say_which_setting_checks_them() {
    let pipeline = pipeline(&[]);
    let report = check(
        &pipeline,
        &format!("Policy [1].\n\n[1] https://www.notion.so/acme/Policy-{PAGE_ID}\n"),
    )
    .await;
    let policy = report.sources().next().expect("a source");
    assert_eq!(policy.verdict.class, VerdictClass::NotChecked);
    assert_eq!(
        policy.verdict.reason.as_deref(),
        Some("not checked (no Notion token: set SOURCEBOT_NOTION_TOKEN)")
    );
    // A look-alike host is not Notion's: it is probed as any web link would be (and,
    // here, refused by the guard: it does not resolve).
    let report = check(
        &pipeline,
        &format!("Policy [1].\n\n[1] https://notion.so.evil.invalid/{PAGE_ID}\n"),
    )
    .await;
    let lookalike = report.sources().next().expect("a source");
    assert_ne!(
        lookalike.verdict.class,
        VerdictClass::NotChecked,
        "{lookalike:?}"
    );
}

async fn fake_github() -> HostileServer {
    let authorized = |request: &RequestInfo| {
        request.header("authorization") == Some("Bearer ghp_test")
            && request.header("x-github-api-version") == Some("2022-11-28")
            && request.header("accept") == Some("application/vnd.github+json")
    };
    let api = move |action: Action| {
        Route::new(move |request, _| {
            if authorized(request) {
                action.clone()
            } else {
                json(
                    401,
                    serde_json::json!({"message": "Bad credentials",
                    "documentation_url": "https://docs.github.com/rest", "status": "401"}),
                )
            }
        })
    };
    let not_found = json(
        404,
        serde_json::json!({"message": "Not Found", "documentation_url": "https://docs.github.com/rest", "status": "404"}),
    );
    HostileServer::start_local(vec![
        (
            "/api/v3/repos/acme/tools",
            api(json(200, serde_json::json!({"id": 1, "name": "tools", "full_name": "acme/tools", "private": true, "archived": false}))),
        ),
        (
            "/api/v3/repos/acme/tools/issues/42",
            api(json(200, serde_json::json!({"number": 42, "title": "Freeze deploys on Fridays", "state": "closed"}))),
        ),
        (
            "/api/v3/repos/acme/tools/pulls/7",
            api(json(200, serde_json::json!({"number": 7, "title": "Add the freeze check", "state": "open"}))),
        ),
        (
            "/api/v3/repos/acme/tools/contents/docs/freeze.md",
            api(json(200, serde_json::json!({"type": "file", "name": "freeze.md", "path": "docs/freeze.md", "sha": "3d21ec53"}))),
        ),
        (
            "/api/v3/repos/acme/tools/commits/0a1b2c3d",
            api(json(200, serde_json::json!({"sha": "0a1b2c3d4e", "commit": {"message": "Freeze deploys on Fridays\n\nLonger text."}}))),
        ),
        ("/api/v3/repos/acme/secret", api(not_found)),
        (
            "/api/v3/repos/acme/tools/issues/9",
            api(json(410, serde_json::json!({"message": "This issue was deleted", "status": "410"}))),
        ),
        (
            "/api/v3/repos/acme/tools/issues/10",
            Route::sequence(vec![
                Action::bytes(429, &[("retry-after", "1"), ("content-type", "application/json")], b"{\"message\":\"API rate limit exceeded\"}".to_vec()),
                json(200, serde_json::json!({"number": 10, "title": "After the wait"})),
            ]),
        ),
        ("/api/v3/repos/acme/tools/issues/11", Route::status(500)),
        (
            "/api/v3/repos/acme/tools/issues/13",
            Route::always(json(200, serde_json::json!({"number": 13, "title": "Too late"})).after(std::time::Duration::from_secs(5))),
        ),
        (
            "/api/v3/repos/acme/tools/issues/12",
            api(json(403, serde_json::json!({"message": "Resource not accessible by personal access token", "status": "403"}))),
        ),
    ])
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn github_links_are_checked_through_the_rest_api() {
    let github = fake_github().await;
    let pipeline = pipeline(&[
        ("SOURCEBOT_GITHUB_TOKEN", "ghp_test".into()),
        ("SOURCEBOT_GITHUB_API_URL", github.url("/api/v3")),
        ("SOURCEBOT_VERIFY_TIMEOUT", "2s".into()),
    ]);
    // Enterprise Server: links are on the API's host.
    let web = github.url("");
    let text = format!(
        "Repo [1]. Issue [2]. PR [3]. Doc [4]. Commit [5]. Secret [6]. Deleted [7]. Waited [8]. Failing [9]. Denied [10]. Slow [11].\n\n\
         [1] {web}acme/tools\n[2] {web}acme/tools/issues/42\n[3] {web}acme/tools/pull/7/files\n\
         [4] {web}acme/tools/blob/main/docs/freeze.md\n[5] {web}acme/tools/commit/0a1b2c3d\n\
         [6] {web}acme/secret\n[7] {web}acme/tools/issues/9\n[8] {web}acme/tools/issues/10\n\
         [9] {web}acme/tools/issues/11\n[10] {web}acme/tools/issues/12\n\
         [11] {web}acme/tools/issues/13\n"
    );
    let started = std::time::Instant::now();
    let report = check(&pipeline, &text).await;
    // The slow one ends with the 2 s budget (and its grace), not after 5 s.
    assert!(
        started.elapsed() < std::time::Duration::from_secs(4),
        "{:?}",
        started.elapsed()
    );
    let expect = [
        ("acme/tools\n", VerdictClass::Verified, Some("acme/tools")),
        (
            "issues/42",
            VerdictClass::Verified,
            Some("Freeze deploys on Fridays"),
        ),
        (
            "pull/7",
            VerdictClass::Verified,
            Some("Add the freeze check"),
        ),
        (
            "blob/main",
            VerdictClass::Verified,
            Some("docs/freeze.md in acme/tools"),
        ),
        (
            "commit/0a1b2c3d",
            VerdictClass::Verified,
            Some("Freeze deploys on Fridays"),
        ),
        ("acme/secret", VerdictClass::Broken, None),
        ("issues/9", VerdictClass::Broken, None),
        ("issues/10", VerdictClass::Verified, Some("After the wait")),
        ("issues/11", VerdictClass::ServerError, None),
        ("issues/12", VerdictClass::Restricted, None),
        ("issues/13", VerdictClass::TimedOut, None),
    ];
    for (part, class, title) in expect {
        let found = if part == "acme/tools\n" {
            report
                .sources()
                .find(|s| s.url.as_deref().is_some_and(|u| u.ends_with("acme/tools")))
                .expect("the repository")
        } else {
            source(&report, part)
        };
        assert_eq!(found.verdict.class, class, "{part}: {found:?}");
        if let Some(title) = title {
            assert_eq!(found.title, title, "{part}");
        }
    }
    assert_eq!(
        source(&report, "acme/secret").verdict.reason.as_deref(),
        Some("not found, or not shared with sourcebot")
    );
    assert!(source(&report, "issues/10")
        .verdict
        .reason
        .as_deref()
        .is_some_and(|r| r.contains("exists")));
}
