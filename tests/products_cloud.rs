//! Google Drive and SharePoint/OneDrive links checked through their products' APIs,
//! end to end through the public pipeline: fake token endpoints and fake Drive and
//! Graph APIs on loopback answer with the JSON each product's documentation shows
//! (found, trashed or deleted, 404 with the product's error body, 403, 429 with
//! `Retry-After: 1` then 200, 500, too slow for the 2 s budget, a refused credential
//! at sign-in). The answers cite real-looking Google and SharePoint links; only the
//! ids travel, to the configured fakes. Each check asserts the verdict, its reason and
//! the title (the product's name for a bare link, the answer's own label otherwise),
//! that one token serves every link, and that it is sent as `Bearer`.

mod support;

use support::pipeline::{check, source};

use serde_json::{json, Value};
use sourcebot::config::Config;
use sourcebot::model::{Report, VerdictClass};
use sourcebot::pipeline::Pipeline;
use sourcebot::products::microsoft::share_id;
use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
use support::cloud_fakes::{
    authorised, drive_error, google_settings, graph_error, json_reply, key_file,
    microsoft_settings, microsoft_token_route, query, GoogleSignIn, GOOGLE_TOKEN, GRAPH_TOKEN,
    MS_CLIENT_SECRET, TENANT, TEST_KEY,
};
use support::{Action, HostileServer, RequestInfo, Route};

/// A pipeline configured with `vars` (and a 2 s check budget).
fn pipeline(vars: &[(&str, String)]) -> Pipeline {
    let mut vars = vars.to_vec();
    vars.push(("SOURCEBOT_VERIFY_TIMEOUT", "2s".into()));
    support::pipeline::pipeline(&vars)
}

/// Asserts `link`'s verdict class, reason and title in `report`.
fn assert_source(report: &Report, link: &str, class: VerdictClass, reason: &str, title: &str) {
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

// --- Google Drive -------------------------------------------------------------------

const DOC: &str = "1Jx9d2VcT4oQ8mE7rK3pL6sN0uW5yZ2aB4cD6eF8gH0i";
const FOLDER: &str = "0B7x_Folder-1234567890abcdEF";
const TRASHED: &str = "1TrashedSheet_abcdefghijklmnopqrstu";
const MISSING: &str = "1MissingDoc_abcdefghijklmnopqrstuvw";
const PRIVATE: &str = "1PrivateDeck_abcdefghijklmnopqrstuv";
const FAILING: &str = "1ServerError_abcdefghijklmnopqrstuv";
const LIMITED: &str = "1RateLimited_abcdefghijklmnopqrstuv";
const SLOW: &str = "1SlowFile_abcdefghijklmnopqrstuvwxyz";

fn drive_path(id: &str) -> String {
    format!("/drive/v3/files/{id}")
}

/// A fake Google: the token endpoint and the Drive files this file's tests cite.
async fn fake_google() -> (HostileServer, Arc<AtomicUsize>, tempfile::NamedTempFile) {
    let file = |name: &str, mime: &str, trashed: bool| json!({"name": name, "mimeType": mime, "trashed": trashed});
    let doc = file(
        "Deploy freeze policy",
        "application/vnd.google-apps.document",
        false,
    );
    let folder = file(
        "Incident reviews",
        "application/vnd.google-apps.folder",
        false,
    );
    let trashed = file(
        "Q3 capacity plan",
        "application/vnd.google-apps.spreadsheet",
        true,
    );
    let limited = file("Rate-limited notes", "application/pdf", false);
    let sign_in = GoogleSignIn::new();
    let checked_doc = doc.clone();
    let routes: Vec<(&str, Route)> = vec![
        sign_in.route(),
        (
            Box::leak(drive_path(DOC).into_boxed_str()),
            Route::new(move |request: &RequestInfo, _| {
                let asked = query(request);
                if request.header("authorization") != Some(&format!("Bearer {GOOGLE_TOKEN}"))
                    || asked.get("fields").map(String::as_str) != Some("name,mimeType,trashed")
                    || asked.get("supportsAllDrives").map(String::as_str) != Some("true")
                {
                    return json_reply(400, &drive_error(400, "badRequest", "Bad Request"));
                }
                json_reply(200, &checked_doc)
            }),
        ),
        (
            Box::leak(drive_path(FOLDER).into_boxed_str()),
            authorised(GOOGLE_TOKEN, move |_| json_reply(200, &folder)),
        ),
        (
            Box::leak(drive_path(TRASHED).into_boxed_str()),
            authorised(GOOGLE_TOKEN, move |_| json_reply(200, &trashed)),
        ),
        (
            Box::leak(drive_path(MISSING).into_boxed_str()),
            authorised(GOOGLE_TOKEN, |_| {
                json_reply(
                    404,
                    &drive_error(404, "notFound", &format!("File not found: {MISSING}.")),
                )
            }),
        ),
        (
            Box::leak(drive_path(PRIVATE).into_boxed_str()),
            authorised(GOOGLE_TOKEN, |_| {
                json_reply(
                    403,
                    &drive_error(
                        403,
                        "insufficientFilePermissions",
                        "The user does not have sufficient permissions for this file.",
                    ),
                )
            }),
        ),
        (
            Box::leak(drive_path(FAILING).into_boxed_str()),
            authorised(GOOGLE_TOKEN, |_| {
                json_reply(500, &drive_error(500, "internalError", "Internal Error"))
            }),
        ),
        (
            Box::leak(drive_path(LIMITED).into_boxed_str()),
            authorised(GOOGLE_TOKEN, move |hit| {
                if hit == 0 {
                    Action::bytes(
                        429,
                        &[("Content-Type", "application/json"), ("Retry-After", "1")],
                        drive_error(429, "rateLimitExceeded", "Rate Limit Exceeded")
                            .to_string()
                            .into_bytes(),
                    )
                } else {
                    json_reply(200, &limited)
                }
            }),
        ),
        (
            Box::leak(drive_path(SLOW).into_boxed_str()),
            authorised(GOOGLE_TOKEN, move |_| {
                json_reply(200, &doc).after(Duration::from_secs(4))
            }),
        ),
    ];
    let server = HostileServer::start_local(routes).await;
    let key = sign_in.key_file(&server);
    (server, sign_in.hits, key)
}

#[tokio::test]
async fn drive_links_get_the_files_verdicts_and_names_with_one_token() {
    let (server, token_hits, key) = fake_google().await;
    let pipeline = pipeline(&google_settings(&server, &key));
    let doc = format!("https://docs.google.com/document/d/{DOC}/edit");
    let doc_again = format!("https://drive.google.com/open?id={DOC}");
    let folder = format!("https://drive.google.com/drive/u/1/folders/{FOLDER}");
    let trashed = format!("https://docs.google.com/spreadsheets/d/{TRASHED}/edit#gid=0");
    let missing = format!("https://drive.google.com/file/d/{MISSING}/view");
    let private = format!("https://docs.google.com/presentation/d/{PRIVATE}/edit");
    let failing = format!("https://drive.google.com/uc?id={FAILING}&export=download");
    let labelled = format!("https://docs.google.com/document/u/0/d/{DOC}/view");
    let form = "https://docs.google.com/forms/d/e/1FAIpQLSf_abcdefghijklmnopqrstuvwxyz/viewform";
    let report = check(
        &pipeline,
        &format!(
            "The freeze starts on Friday ({doc}).\n\
             Same policy: {doc_again}\n\
             Reviews live in {folder}\n\
             Capacity was planned in {trashed}\n\
             See also {missing} and {private}.\n\
             The export is {failing}\n\
             As the [freeze handbook]({labelled}) says, ask first.\n\
             Feedback goes to {form}\n"
        ),
    )
    .await;

    assert_source(
        &report,
        &doc,
        VerdictClass::Verified,
        "the Google Doc exists",
        "Deploy freeze policy",
    );
    assert_source(
        &report,
        &doc_again,
        VerdictClass::Verified,
        "the Google Doc exists",
        "Deploy freeze policy",
    );
    assert_source(
        &report,
        &folder,
        VerdictClass::Verified,
        "the Google Drive folder exists",
        "Incident reviews",
    );
    let trashed_canonical = trashed.split('#').next().expect("a link");
    assert_source(
        &report,
        trashed_canonical,
        VerdictClass::Broken,
        "the file is in the Google Drive trash",
        "Q3 capacity plan",
    );
    let missing_source = source(&report, &missing);
    assert_eq!(missing_source.verdict.class, VerdictClass::Broken);
    assert_eq!(missing_source.verdict.status_code, Some(404));
    assert_eq!(
        missing_source.verdict.reason.as_deref(),
        Some("not found, or not shared with sourcebot")
    );
    // No name from Drive: the title made from the link stays.
    assert_eq!(
        missing_source.title,
        sourcebot::collect::canon::title_from_url(&missing)
    );
    let private_source = source(&report, &private);
    assert_eq!(private_source.verdict.class, VerdictClass::Restricted);
    assert_eq!(
        private_source.verdict.reason.as_deref(),
        Some("Google Drive does not let sourcebot read it")
    );
    let failing_source = source(&report, &failing);
    assert_eq!(failing_source.verdict.class, VerdictClass::ServerError);
    assert_eq!(
        failing_source.verdict.reason.as_deref(),
        Some("Google Drive answered HTTP 500")
    );
    // The answer's own label wins over the product's name.
    assert_source(
        &report,
        &labelled,
        VerdictClass::Verified,
        "the Google Doc exists",
        "freeze handbook",
    );
    let form_source = source(&report, form);
    assert_eq!(form_source.verdict.class, VerdictClass::NotChecked);
    assert!(
        form_source
            .verdict
            .reason
            .as_deref()
            .is_some_and(|r| r.contains("published form") && r.contains("no Drive id")),
        "{:?}",
        form_source.verdict
    );

    assert_eq!(
        token_hits.load(Ordering::SeqCst),
        1,
        "one token for every link"
    );
    let bearer = format!("Bearer {GOOGLE_TOKEN}");
    let drive_calls: Vec<RequestInfo> = server
        .request_log()
        .into_iter()
        .filter(|r| r.path.starts_with("/drive/"))
        .collect();
    assert_eq!(drive_calls.len(), 8, "{drive_calls:#?}");
    assert!(drive_calls
        .iter()
        .all(|r| r.method == "GET" && r.header("authorization") == Some(bearer.as_str())));
}

#[tokio::test]
async fn drive_rate_limits_are_waited_out_and_slow_answers_time_out() {
    let (server, token_hits, key) = fake_google().await;
    let pipeline = pipeline(&google_settings(&server, &key));
    let slow = format!("https://drive.google.com/file/d/{SLOW}/view");
    let limited = format!("https://drive.google.com/file/d/{LIMITED}/view");
    let report = check(&pipeline, &format!("Slow: {slow}\nLimited: {limited}\n")).await;
    assert_source(
        &report,
        &limited,
        VerdictClass::Verified,
        "the Google Drive file exists",
        "Rate-limited notes",
    );
    assert_eq!(server.requests_to(&drive_path(LIMITED)).len(), 2);
    let slow_source = source(&report, &slow);
    assert_eq!(
        slow_source.verdict.class,
        VerdictClass::TimedOut,
        "{:?}",
        slow_source.verdict
    );
    assert_eq!(
        slow_source.verdict.reason.as_deref(),
        Some("Google Drive did not answer in time")
    );
    assert_eq!(
        slow_source.title,
        sourcebot::collect::canon::title_from_url(&slow)
    );
    assert_eq!(token_hits.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_refused_service_account_leaves_drive_links_not_checked() {
    let hits = Arc::new(AtomicUsize::new(0));
    let counted = hits.clone();
    let server = HostileServer::start_local(vec![
        (
            "/token",
            Route::new(move |_: &RequestInfo, _| {
                counted.fetch_add(1, Ordering::SeqCst);
                json_reply(
                    401,
                    &json!({"error": "invalid_client", "error_description": "The OAuth client was not found."}),
                )
            }),
        ),
        (
            Box::leak(drive_path(DOC).into_boxed_str()),
            Route::always(json_reply(200, &json!({"name": "x", "trashed": false}))),
        ),
    ])
    .await;
    let key = key_file(&server.url("/token"));
    let pipeline = pipeline(&google_settings(&server, &key));
    let doc = format!("https://docs.google.com/document/d/{DOC}/edit");
    let report = check(&pipeline, &format!("Policy: {doc}\n")).await;
    let doc_source = source(&report, &doc);
    assert_eq!(doc_source.verdict.class, VerdictClass::NotChecked);
    assert_eq!(
        doc_source.verdict.reason.as_deref(),
        Some("not checked: Google Drive refused sourcebot's credentials (fix SOURCEBOT_GOOGLE_CREDENTIALS)")
    );
    assert_eq!(hits.load(Ordering::SeqCst), 1);
    assert!(server.requests_to(&drive_path(DOC)).is_empty());
}

#[tokio::test]
async fn without_settings_drive_and_sharepoint_links_say_which_setting_checks_them() {
    let pipeline = pipeline(&[]);
    let doc = format!("https://docs.google.com/document/d/{DOC}/edit");
    let sheet = "https://acme.sharepoint.com/sites/eng/Shared%20Documents/Budget.xlsx";
    let report = check(&pipeline, &format!("See {doc} and {sheet}.\n")).await;
    assert_source(
        &report,
        &doc,
        VerdictClass::NotChecked,
        "not checked (no Google credentials: set SOURCEBOT_GOOGLE_CREDENTIALS)",
        &sourcebot::collect::canon::title_from_url(&doc),
    );
    let sheet_source = source(&report, sheet);
    assert_eq!(sheet_source.verdict.class, VerdictClass::NotChecked);
    assert_eq!(
        sheet_source.verdict.reason.as_deref(),
        Some("not checked (no Microsoft credentials: set SOURCEBOT_MS_TENANT_ID, SOURCEBOT_MS_CLIENT_ID and SOURCEBOT_MS_CLIENT_SECRET)")
    );
}

#[test]
fn bad_settings_are_refused_naming_the_variable_and_never_the_key() {
    let read = |vars: Vec<(&'static str, String)>| {
        Config::from_lookup(|name| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.clone())
        })
    };
    let error = read(vec![(
        "SOURCEBOT_GOOGLE_CREDENTIALS",
        "/nonexistent/sourcebot-key.json".into(),
    )])
    .expect_err("a missing key file");
    assert_eq!(error.name, "SOURCEBOT_GOOGLE_CREDENTIALS");
    assert!(error.to_string().contains("cannot open it"), "{error}");

    let mut not_a_service_account = tempfile::NamedTempFile::new().expect("temp file");
    not_a_service_account
        .write_all(
            json!({"type": "authorized_user", "private_key": TEST_KEY, "client_email": "x"})
                .to_string()
                .as_bytes(),
        )
        .expect("write");
    let error = read(vec![(
        "SOURCEBOT_GOOGLE_CREDENTIALS",
        not_a_service_account.path().display().to_string(),
    )])
    .expect_err("not a service account");
    assert_eq!(error.name, "SOURCEBOT_GOOGLE_CREDENTIALS");
    assert!(error.to_string().contains("service_account"), "{error}");
    let key_line = TEST_KEY.lines().nth(1).expect("a PEM line");
    assert!(!error.to_string().contains(key_line));
    assert!(!format!("{error:?}").contains(key_line));

    let error = read(vec![
        ("SOURCEBOT_MS_TENANT_ID", TENANT.into()),
        ("SOURCEBOT_MS_CLIENT_SECRET", "not-printed-secret".into()),
    ])
    .expect_err("a missing client id");
    assert_eq!(error.name, "SOURCEBOT_MS_CLIENT_ID");
    assert!(!error.to_string().contains("not-printed-secret"));
}

// --- SharePoint and OneDrive through Microsoft Graph --------------------------------

const RUNBOOK: &str =
    "https://acme.sharepoint.com/sites/eng/Shared%20Documents/Incident%20runbook.docx";
const DESIGNS: &str = "https://acme.sharepoint.com/:f:/s/eng/EjKx4Folder0Abc?e=Xy12Zw";
const REMOVED: &str =
    "https://acme-my.sharepoint.com/:w:/g/personal/ann_acme_com/EbX1Removed?e=abc";
const UNKNOWN: &str = "https://acme.sharepoint.com/sites/eng/Shared%20Documents/Gone.docx";
const LOCKED: &str = "https://acme.sharepoint.com/sites/legal/Shared%20Documents/Contract.pdf";
const BROKEN: &str =
    "https://onedrive.live.com/redir?resid=1231244193912!12&authKey=1201919!12921!1";
const THROTTLED: &str = "https://1drv.ms/x/s!AkThrottled123";
const SLUGGISH: &str = "https://acme.sharepoint.com/sites/eng/Shared%20Documents/Slow.pptx";

fn graph_path(link: &str) -> &'static str {
    Box::leak(format!("/v1.0/shares/{}/driveItem", share_id(link)).into_boxed_str())
}

/// A driveItem as Graph returns it.
fn drive_item(name: &str, facet: Value) -> Value {
    let mut item = json!({
        "@odata.context": "https://graph.microsoft.com/v1.0/$metadata#driveItem",
        "id": "01BYE5RZ6QN3ZWBTUFOFD3GSPGOHDJD36K",
        "name": name,
        "size": 35212,
        "webUrl": "https://acme.sharepoint.com/sites/eng/Shared%20Documents/x",
        "parentReference": {"driveType": "documentLibrary", "driveId": "b!x", "id": "01BYE5RZ56Y2GOVW7725BZO354PWSELRRZ"}
    });
    if let (Some(item), Some(facet)) = (item.as_object_mut(), facet.as_object()) {
        item.extend(facet.clone());
    }
    item
}

async fn fake_microsoft() -> (HostileServer, Arc<AtomicUsize>) {
    let hits = Arc::new(AtomicUsize::new(0));
    let file = json!({"file": {"mimeType": "application/vnd.openxmlformats-officedocument.wordprocessingml.document"}});
    let runbook = drive_item("Incident runbook.docx", file.clone());
    let designs = drive_item("Designs", json!({"folder": {"childCount": 12}}));
    let removed = drive_item(
        "Offsite notes.docx",
        json!({"deleted": {"state": "softDeleted"}, "file": {}}),
    );
    let throttled = drive_item("Budget.xlsx", json!({"file": {}}));
    let sluggish = drive_item("Slow.pptx", json!({"file": {}}));
    let routes: Vec<(&str, Route)> = vec![
        microsoft_token_route(hits.clone()),
        (
            graph_path(RUNBOOK),
            authorised(GRAPH_TOKEN, move |_| json_reply(200, &runbook)),
        ),
        (
            graph_path(DESIGNS),
            authorised(GRAPH_TOKEN, move |_| json_reply(200, &designs)),
        ),
        (
            graph_path(REMOVED),
            authorised(GRAPH_TOKEN, move |_| json_reply(200, &removed)),
        ),
        (
            graph_path(UNKNOWN),
            authorised(GRAPH_TOKEN, |_| {
                json_reply(
                    404,
                    &graph_error("itemNotFound", "The resource could not be found."),
                )
            }),
        ),
        (
            graph_path(LOCKED),
            authorised(GRAPH_TOKEN, |_| {
                json_reply(403, &graph_error("accessDenied", "Access denied"))
            }),
        ),
        (
            graph_path(BROKEN),
            authorised(GRAPH_TOKEN, |_| {
                json_reply(
                    500,
                    &graph_error("generalException", "General exception while processing"),
                )
            }),
        ),
        (
            graph_path(THROTTLED),
            authorised(GRAPH_TOKEN, move |hit| {
                if hit == 0 {
                    Action::bytes(
                        429,
                        &[("Content-Type", "application/json"), ("Retry-After", "1")],
                        graph_error("activityLimitReached", "The request has been throttled")
                            .to_string()
                            .into_bytes(),
                    )
                } else {
                    json_reply(200, &throttled)
                }
            }),
        ),
        (
            graph_path(SLUGGISH),
            authorised(GRAPH_TOKEN, move |_| {
                json_reply(200, &sluggish).after(Duration::from_secs(4))
            }),
        ),
    ];
    (HostileServer::start_local(routes).await, hits)
}

#[tokio::test]
async fn sharepoint_and_onedrive_links_get_graphs_verdicts_and_names_with_one_token() {
    let (server, token_hits) = fake_microsoft().await;
    let pipeline = pipeline(&microsoft_settings(&server, MS_CLIENT_SECRET));
    let report = check(
        &pipeline,
        &format!(
            "The runbook is {RUNBOOK}\n\
             Designs: [design folder]({DESIGNS})\n\
             Notes were in {REMOVED}\n\
             Older copy: {UNKNOWN}\n\
             Contract: {LOCKED}\n\
             Personal copy: {BROKEN}\n"
        ),
    )
    .await;
    assert_source(
        &report,
        RUNBOOK,
        VerdictClass::Verified,
        "the SharePoint file exists",
        "Incident runbook.docx",
    );
    assert_source(
        &report,
        DESIGNS,
        VerdictClass::Verified,
        "the SharePoint folder exists",
        "design folder",
    );
    assert_source(
        &report,
        REMOVED,
        VerdictClass::Broken,
        "the file is deleted in SharePoint",
        "Offsite notes.docx",
    );
    let unknown = source(&report, UNKNOWN);
    assert_eq!(unknown.verdict.class, VerdictClass::Broken);
    assert_eq!(
        unknown.verdict.reason.as_deref(),
        Some("not found, or not shared with sourcebot")
    );
    let locked = source(&report, LOCKED);
    assert_eq!(locked.verdict.class, VerdictClass::Restricted);
    assert_eq!(
        locked.verdict.reason.as_deref(),
        Some("Microsoft 365 does not let sourcebot read it")
    );
    let broken = source(&report, BROKEN);
    assert_eq!(broken.verdict.class, VerdictClass::ServerError);
    assert_eq!(
        broken.verdict.reason.as_deref(),
        Some("Microsoft 365 answered HTTP 500")
    );
    // Graph's own example link reaches Graph under Graph's own example encoding.
    assert_eq!(
        server
            .requests_to("/v1.0/shares/u!aHR0cHM6Ly9vbmVkcml2ZS5saXZlLmNvbS9yZWRpcj9yZXNpZD0xMjMxMjQ0MTkzOTEyITEyJmF1dGhLZXk9MTIwMTkxOSExMjkyMSEx/driveItem")
            .len(),
        1
    );

    assert_eq!(
        token_hits.load(Ordering::SeqCst),
        1,
        "one token for every link"
    );
    let bearer = format!("Bearer {GRAPH_TOKEN}");
    let graph_calls: Vec<RequestInfo> = server
        .request_log()
        .into_iter()
        .filter(|r| r.path.starts_with("/v1.0/"))
        .collect();
    assert_eq!(graph_calls.len(), 6, "{graph_calls:#?}");
    assert!(graph_calls
        .iter()
        .all(|r| r.method == "GET" && r.header("authorization") == Some(bearer.as_str())));
}

#[tokio::test]
async fn graph_rate_limits_are_waited_out_and_slow_answers_time_out() {
    let (server, token_hits) = fake_microsoft().await;
    let pipeline = pipeline(&microsoft_settings(&server, MS_CLIENT_SECRET));
    let report = check(
        &pipeline,
        &format!("Slow: {SLUGGISH}\nBudget: {THROTTLED}\n"),
    )
    .await;
    assert_source(
        &report,
        THROTTLED,
        VerdictClass::Verified,
        "the OneDrive file exists",
        "Budget.xlsx",
    );
    assert_eq!(server.requests_to(graph_path(THROTTLED)).len(), 2);
    let slow = source(&report, SLUGGISH);
    assert_eq!(
        slow.verdict.class,
        VerdictClass::TimedOut,
        "{:?}",
        slow.verdict
    );
    assert_eq!(
        slow.verdict.reason.as_deref(),
        Some("Microsoft 365 did not answer in time")
    );
    assert_eq!(token_hits.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_refused_client_secret_leaves_sharepoint_links_not_checked() {
    let (server, token_hits) = fake_microsoft().await;
    let pipeline = pipeline(&microsoft_settings(&server, "an-expired-secret"));
    let report = check(&pipeline, &format!("Runbook: {RUNBOOK}\n")).await;
    assert_source(
        &report,
        RUNBOOK,
        VerdictClass::NotChecked,
        "not checked: Microsoft 365 refused sourcebot's credentials (fix SOURCEBOT_MS_CLIENT_SECRET)",
        &sourcebot::collect::canon::title_from_url(RUNBOOK),
    );
    assert_eq!(token_hits.load(Ordering::SeqCst), 1);
    assert!(server.requests_to(graph_path(RUNBOOK)).is_empty());
}
