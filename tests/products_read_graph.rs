//! The support check reads what an answer cites in SharePoint or OneDrive through
//! Microsoft Graph, end to end through the public pipeline: a fake token endpoint
//! (tests/support/cloud_fakes.rs), a fake Graph on loopback and a second server for the
//! pre-authenticated downloads Graph redirects to (tests/support/cloud_docs.rs),
//! answering in the shapes of the product's reference
//! (tests/data/products/read/cloud/README.md names the pages).
//!
//! The calls a read makes (paths, the bearer token, none on Graph's download); Word,
//! PowerPoint, Excel and PDF files downloaded and read, once served untyped so that the
//! product's declared type decides; a claim the document says is supported with the
//! document's own words as its quote, and one whose figure it contradicts is not, the
//! figure said missing; what cannot be read, and why (refused, too large before or
//! during the download, empty, a folder, an image); a short `Retry-After` waited out, a
//! long one leaving the claim unjudged and holding the product back so that the next
//! answer asks it nothing; a document read once per pipeline; the source read through
//! its product and of kind `file`. Google Drive, and the command line, are in
//! tests/products_read_drive.rs.
//!
//! Servers take addresses of this file's loopback block, 127.44.x.y.

mod support;

use sourcebot::model::VerdictClass;
use std::net::IpAddr;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};
use support::cloud_docs::{
    assert_contradicted, assert_read_via, assert_supported, assert_unreadable, assert_without_text,
    content_path, fixture, item_path, sheet_text, source, too_many, FakeGraph, GraphFile, Step,
    DOCX, DOWNLOAD_PATH, GRAPH_ITEMS, INCIDENT_RUNBOOK, MICROSOFT, PNG, PPTX, RUNBOOK, SMALL_CAP,
    SP_RUNBOOK, TOO_LARGE, UNTYPED, XLSX,
};
use support::cloud_fakes::{bears, json_reply, GRAPH_TOKEN};
use support::office::{docx, pptx, xlsx};
use support::pdf::simple_pdf;
use support::product_reads::{check_and_read, pipeline};

/// A loopback address of this file's block, 127.44.x.y.
fn next_ip() -> IpAddr {
    support::next_ip(44)
}

// The replies' shapes, from Graph's reference (see the README beside them).
const GRAPH_ERRORS: &str = include_str!("data/products/read/cloud/graph-errors.json");

/// Asserts that Graph was asked for `link`'s item twice (the check, the read) and for
/// its content `content_calls` times, with the bearer token and no query; and that its
/// download on the other host was fetched `downloads` times, without credentials.
fn assert_graph_calls(
    graph: &FakeGraph,
    link: &str,
    unique: &str,
    content_calls: usize,
    downloads: usize,
) {
    let items = graph.graph_requests_to(&item_path(link));
    assert_eq!(items.len(), 2, "{link}: {items:#?}");
    let content = graph.graph_requests_to(&content_path(link));
    assert_eq!(content.len(), content_calls, "{link}: {content:#?}");
    assert!(
        items
            .iter()
            .chain(&content)
            .all(|r| r.method == "GET" && r.query.is_empty() && bears(r, GRAPH_TOKEN)),
        "{link}"
    );
    let fetched = graph.downloads_of(unique);
    assert_eq!(fetched.len(), downloads, "{link}: {fetched:#?}");
    assert!(
        fetched
            .iter()
            .all(|r| r.method == "GET" && r.header("authorization").is_none()),
        "the download carried credentials: {fetched:#?}"
    );
}

const SP_DECK: &str = "https://acme.sharepoint.com/:p:/s/eng/EbSupportReview0Abc?e=Qw12Er";
const OD_BUDGET: &str =
    "https://acme-my.sharepoint.com/:x:/g/personal/ann_acme_com/EcBudget2025Xyz?e=Zx98Cv";
const SP_CONTRACT: &str =
    "https://acme.sharepoint.com/sites/legal/Shared%20Documents/Hosting%20contract.pdf";
const SP_DESIGNS: &str = "https://acme.sharepoint.com/:f:/s/eng/EjKx4Folder0Abc?e=Xy12Zw";
const SP_PHOTO: &str = "https://acme.sharepoint.com/sites/eng/Shared%20Documents/Rack%20photo.png";
const SP_RECORDING: &str =
    "https://acme.sharepoint.com/sites/eng/Shared%20Documents/All-hands%20transcript.docx";
const SP_NOTES: &str =
    "https://acme.sharepoint.com/sites/eng/Shared%20Documents/Standup%20notes.txt";
const SP_CHANGELOG: &str = "https://acme.sharepoint.com/sites/eng/Shared%20Documents/Changelog.txt";

const SUPPORT_SLIDES: [&[&str]; 2] = [
    &["Support review", "May"],
    &[
        "First response time fell to 2 hours in May.",
        "Backlog: 140 tickets",
    ],
];
const BUDGET_ROWS: [&[&str]; 3] = [
    &["Line", "Amount", "Note"],
    &[
        "Cloud hosting",
        "420000",
        "Hosting spend is capped at 420000 euros for 2025",
    ],
    &["Licences", "65000", "Renewed in January"],
];
const CONTRACT_TEXT: [&str; 2] = [
    "Hosting contract",
    "The hosting contract renews automatically on 1 July unless cancelled 60 days before.",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn graph_files_are_read_through_their_pre_authenticated_download() {
    let graph = FakeGraph::start(
        next_ip,
        vec![
            GraphFile::new(SP_RUNBOOK, "runbook").serving(DOCX, docx(&INCIDENT_RUNBOOK)),
            GraphFile::new(SP_DECK, "deck").serving(PPTX, pptx(&SUPPORT_SLIDES)),
            GraphFile::new(OD_BUDGET, "budget").serving(XLSX, xlsx(&BUDGET_ROWS)),
            // Served untyped: the item's `file.mimeType` says it is a PDF.
            GraphFile::new(SP_CONTRACT, "contract").serving(UNTYPED, simple_pdf(&CONTRACT_TEXT)),
        ],
    )
    .await;
    let pipeline = pipeline(&graph.settings());
    let answer = format!(
        "Sev1 incidents page the on-call engineer within 5 minutes [1]. \
         First response time fell to 2 hours in May [2]. \
         Hosting spend is capped at 420000 euros for 2025 [3]. \
         The hosting contract renews automatically on 1 July [4].\n\n\
         [1] {SP_RUNBOOK} - Incident runbook\n[2] {SP_DECK} - Support review\n\
         [3] {OD_BUDGET} - Budget\n[4] {SP_CONTRACT} - Hosting contract\n"
    );
    let report = check_and_read(&pipeline, &answer).await;

    assert_supported(
        &report,
        "within 5 minutes",
        &INCIDENT_RUNBOOK.join("\n"),
        "Sev1 incidents page the on-call engineer within 5 minutes",
    );
    assert_supported(
        &report,
        "First response time",
        &SUPPORT_SLIDES.concat().join("\n"),
        "First response time fell to 2 hours in May",
    );
    assert_supported(
        &report,
        "Hosting spend",
        &sheet_text(&BUDGET_ROWS),
        "Hosting spend is capped at 420000 euros for 2025",
    );
    assert_supported(
        &report,
        "renews automatically",
        &CONTRACT_TEXT.join("\n"),
        "The hosting contract renews automatically on 1 July",
    );
    let files = [
        (SP_RUNBOOK, "runbook"),
        (SP_DECK, "deck"),
        (OD_BUDGET, "budget"),
        (SP_CONTRACT, "contract"),
    ];
    for (link, key) in files {
        assert_read_via(&report, link, Some(MICROSOFT));
        let unique = fixture(GRAPH_ITEMS, key)["id"]
            .as_str()
            .unwrap()
            .to_string();
        assert_graph_calls(&graph, link, &unique, 1, 1);
    }
    // The downloads went to the other host, and only there.
    assert_ne!(graph.downloads.addr(), graph.graph.addr());
    assert!(graph
        .graph
        .request_log()
        .iter()
        .all(|r| r.path != DOWNLOAD_PATH));
    assert_eq!(graph.token_requests.load(Ordering::SeqCst), 1);

    // Read once per pipeline.
    let again = check_and_read(&pipeline, &answer).await;
    assert_supported(
        &again,
        "within 5 minutes",
        &INCIDENT_RUNBOOK.join("\n"),
        "Sev1 incidents page the on-call engineer within 5 minutes",
    );
    for (link, _) in files {
        assert_eq!(
            graph.graph_requests_to(&content_path(link)).len(),
            1,
            "{link}"
        );
    }
    assert_eq!(graph.downloads.requests(), 4);
}

/// A claim whose time the runbook read through Graph contradicts is not called
/// supported, and its hour is said missing (see the Drive test's note on times).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn graph_a_claim_whose_figure_the_document_contradicts_is_not_supported() {
    let graph = FakeGraph::start(
        next_ip,
        vec![GraphFile::new(SP_RUNBOOK, "runbook")
            .serving("text/plain", RUNBOOK.as_bytes().to_vec())],
    )
    .await;
    let pipeline = pipeline(&graph.settings());
    let report = check_and_read(
        &pipeline,
        &format!(
            "Production deploys freeze at 17:00 on Fridays [1].\n\n\
             [1] {SP_RUNBOOK} - Deploy runbook\n"
        ),
    )
    .await;
    assert_read_via(&report, SP_RUNBOOK, Some(MICROSOFT));
    assert_contradicted(&report, "freeze at 17:00", "17:00");
}

/// The runbook says change freezes start at 18:00, the claim 17:00; every other word
/// is there. Before issue 35 the claim was called supported; now the page's own figure
/// for the same thing (`differs`) keeps it from being so.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_contradicted_start_time_in_a_sharepoint_runbook_is_not_supported() {
    let graph = FakeGraph::start(
        next_ip,
        vec![GraphFile::new(SP_RUNBOOK, "runbook").serving(DOCX, docx(&INCIDENT_RUNBOOK))],
    )
    .await;
    let pipeline = pipeline(&graph.settings());
    let report = check_and_read(
        &pipeline,
        &format!(
            "Change freezes start at 17:00 on the day before a public holiday [1].\n\n\
             [1] {SP_RUNBOOK} - Incident runbook\n"
        ),
    )
    .await;
    assert_read_via(&report, SP_RUNBOOK, Some(MICROSOFT));
    assert_contradicted(&report, "start at 17:00", "17:00");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn graph_documents_that_cannot_be_read_say_why() {
    let graph = FakeGraph::start(
        next_ip,
        vec![
            GraphFile::new(SP_CONTRACT, "contract")
                .serving("application/pdf", simple_pdf(&CONTRACT_TEXT))
                .steps(vec![Step::Answer(json_reply(
                    403,
                    &fixture(GRAPH_ERRORS, "403"),
                ))]),
            // 40 MiB by its item: refused without asking for its content.
            GraphFile::new(SP_RECORDING, "recording").serving(DOCX, docx(&INCIDENT_RUNBOOK)),
            // 2 KiB by its item, but what the download brings is larger than the cap (the
            // file changed in between).
            GraphFile::new(SP_CHANGELOG, "changelog").serving(
                "text/plain",
                "Fixed the retry loop in the exporter.\n"
                    .repeat(300)
                    .into_bytes(),
            ),
            GraphFile::new(SP_NOTES, "notes").serving("text/plain", Vec::new()),
            GraphFile::new(SP_DESIGNS, "designs"),
            // Served untyped: the item says it is an image (the bytes alone would be
            // "application/octet-stream").
            GraphFile::new(SP_PHOTO, "photo").serving(UNTYPED, PNG.to_vec()),
        ],
    )
    .await;
    let mut settings = graph.settings();
    settings.push(("SOURCEBOT_FETCH_MAX_BYTES", SMALL_CAP.into()));
    let pipeline = pipeline(&settings);
    let answer = format!(
        "The hosting contract caps yearly price rises at 3 percent [1]. \
         The all-hands covered the reorganisation of the platform group [2]. \
         Version 4.2 fixed the retry loop in the exporter [3]. \
         The standup agreed to move the launch to June [4]. \
         The designs folder holds the final logo [5]. \
         The racks are labelled by row and slot [6].\n\n\
         [1] {SP_CONTRACT} - Contract\n[2] {SP_RECORDING} - Transcript\n\
         [3] {SP_CHANGELOG} - Changelog\n[4] {SP_NOTES} - Standup notes\n\
         [5] {SP_DESIGNS} - Designs\n[6] {SP_PHOTO} - Rack photo\n"
    );
    let report = check_and_read(&pipeline, &answer).await;

    assert_unreadable(
        &report,
        "yearly price rises",
        "Microsoft 365 does not let sourcebot read it",
    );
    assert_unreadable(&report, "reorganisation", TOO_LARGE);
    assert_unreadable(&report, "retry loop", TOO_LARGE);
    assert_without_text(&report, "move the launch");
    assert_unreadable(&report, "final logo", "a folder has no text of its own");
    assert_unreadable(
        &report,
        "labelled by row",
        "can't read this kind of file (image/png)",
    );
    for (link, key, content_calls, downloads) in [
        (SP_CONTRACT, "contract", 1, 0),
        (SP_RECORDING, "recording", 0, 0),
        (SP_CHANGELOG, "changelog", 1, 1),
        (SP_NOTES, "notes", 1, 1),
        (SP_DESIGNS, "designs", 0, 0),
        (SP_PHOTO, "photo", 1, 1),
    ] {
        assert_read_via(&report, link, None);
        let unique = fixture(GRAPH_ITEMS, key)["id"]
            .as_str()
            .unwrap()
            .to_string();
        assert_graph_calls(&graph, link, &unique, content_calls, downloads);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_short_graph_rate_limit_on_a_read_is_waited_out() {
    let graph = FakeGraph::start(
        next_ip,
        vec![GraphFile::new(SP_RUNBOOK, "runbook")
            .serving(DOCX, docx(&INCIDENT_RUNBOOK))
            .steps(vec![
                Step::Answer(too_many(&fixture(GRAPH_ERRORS, "429"), "1")),
                Step::Redirect,
            ])],
    )
    .await;
    let pipeline = pipeline(&graph.settings());
    let started = Instant::now();
    let report = check_and_read(
        &pipeline,
        &format!(
            "Sev1 incidents page the on-call engineer within 5 minutes [1].\n\n\
             [1] {SP_RUNBOOK} - Incident runbook\n"
        ),
    )
    .await;
    assert_supported(
        &report,
        "within 5 minutes",
        &INCIDENT_RUNBOOK.join("\n"),
        "Sev1 incidents page the on-call engineer within 5 minutes",
    );
    assert_read_via(&report, SP_RUNBOOK, Some(MICROSOFT));
    let unique = fixture(GRAPH_ITEMS, "runbook")["id"]
        .as_str()
        .unwrap()
        .to_string();
    assert_graph_calls(&graph, SP_RUNBOOK, &unique, 2, 1);
    assert!(started.elapsed() >= Duration::from_secs(1));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_graph_rate_limit_leaves_the_claim_unjudged_and_holds_graph_back() {
    let graph = FakeGraph::start(
        next_ip,
        vec![
            GraphFile::new(SP_RUNBOOK, "runbook")
                .serving(DOCX, docx(&INCIDENT_RUNBOOK))
                .steps(vec![Step::Answer(too_many(
                    &fixture(GRAPH_ERRORS, "429"),
                    "30",
                ))]),
            GraphFile::new(SP_DECK, "deck").serving(PPTX, pptx(&SUPPORT_SLIDES)),
        ],
    )
    .await;
    let pipeline = pipeline(&graph.settings());
    let report = check_and_read(
        &pipeline,
        &format!(
            "Sev1 incidents page the on-call engineer within 5 minutes [1].\n\n\
             [1] {SP_RUNBOOK} - Incident runbook\n"
        ),
    )
    .await;
    assert_unreadable(
        &report,
        "within 5 minutes",
        "Microsoft 365 is rate-limiting sourcebot (retry after 30 s)",
    );
    assert_read_via(&report, SP_RUNBOOK, None);
    let unique = fixture(GRAPH_ITEMS, "runbook")["id"]
        .as_str()
        .unwrap()
        .to_string();
    assert_graph_calls(&graph, SP_RUNBOOK, &unique, 1, 0);

    // The next answer, right after, asks Graph nothing while the back-off lasts.
    let asked = (graph.graph.requests(), graph.downloads.requests());
    let next = check_and_read(
        &pipeline,
        &format!(
            "First response time fell to 2 hours in May [1].\n\n[1] {SP_DECK} - Support review\n"
        ),
    )
    .await;
    assert_eq!(
        (graph.graph.requests(), graph.downloads.requests()),
        asked,
        "{:#?}",
        graph.graph.request_log()
    );
    let held = source(&next, SP_DECK);
    assert_eq!(held.verdict.class, VerdictClass::TimedOut, "{held:#?}");
    assert!(
        held.verdict.reason.as_deref().is_some_and(
            |r| r.starts_with("Microsoft 365 is rate-limiting sourcebot (retry after")
        ),
        "{held:#?}"
    );
    assert_eq!(held.read_via, None);
}
