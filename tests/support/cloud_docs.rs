//! What the tests of reading Google Drive and Microsoft 365 documents share
//! (tests/products_read_drive.rs, tests/products_read_graph.rs): a fake Drive API and a
//! fake Microsoft Graph with the host of its pre-authenticated downloads, each behind the
//! token endpoints of `cloud_fakes` and answering in the shapes of the fixtures in
//! tests/data/products/read/cloud/ (its README names each product's reference page);
//! the media types and documents both files use; and the assertions on how a claim was
//! judged and how its source was read. (The pipeline they check with is
//! `product_reads`'.)

use super::cloud_fakes::{
    authorised, bears, drive_error, google_settings, json_reply, microsoft_settings,
    microsoft_token_route, query, unauthorised, GoogleSignIn, GOOGLE_TOKEN, GRAPH_TOKEN,
    MS_CLIENT_SECRET,
};
use super::{Action, HostileServer, RequestInfo, Route};
use serde_json::Value;
use sourcebot::model::{
    ClaimSupport, ReadVia, Report, Source, SourceKind, SupportVerdict, VerdictClass,
};
use sourcebot::products::microsoft::share_id;
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// The name Google Drive reads are said to go through.
pub const DRIVE: &str = "Google Drive";
/// The name SharePoint and OneDrive reads (through Graph) are said to go through.
pub const MICROSOFT: &str = "Microsoft 365";

/// `SOURCEBOT_FETCH_MAX_BYTES` for the tests of documents too large to read.
pub const SMALL_CAP: &str = "4096";
/// Why a document larger than [`SMALL_CAP`] is not judged.
pub const TOO_LARGE: &str = "the document is larger than sourcebot reads (4 KiB)";

/// A Word document's media type.
pub const DOCX: &str = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";
/// A PowerPoint presentation's media type.
pub const PPTX: &str = "application/vnd.openxmlformats-officedocument.presentationml.presentation";
/// An Excel workbook's media type.
pub const XLSX: &str = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";
/// What a file served untyped says it is.
pub const UNTYPED: &str = "application/octet-stream";

// The replies' shapes, from each product's reference (see the README beside them).

/// Drive's `files.get` resources, by key.
const DRIVE_FILES: &str = include_str!("../data/products/read/cloud/drive-files-get.json");
/// Graph's driveItems, by key.
pub const GRAPH_ITEMS: &str = include_str!("../data/products/read/cloud/graph-drive-items.json");
/// The deploy runbook, as a Google Doc exports it and as a SharePoint text file.
pub const RUNBOOK: &str = include_str!("../data/products/read/cloud/runbook.txt");

/// A 1×1 PNG.
pub const PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4,
    0x89, 0x00, 0x00, 0x00, 0x0a, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0x00, 0x01, 0x00, 0x00,
    0x05, 0x00, 0x01, 0x0d, 0x0a, 0x2d, 0xb4, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae,
    0x42, 0x60, 0x82,
];

/// The entry `key` of the fixture `json`.
pub fn fixture(json: &str, key: &str) -> Value {
    let all: Value = serde_json::from_str(json).expect("the fixture is JSON");
    all.get(key)
        .cloned()
        .unwrap_or_else(|| panic!("no {key:?} in the fixture"))
}

pub use super::pipeline::source;

/// The one judgement of the claim that says `words`.
pub fn support<'a>(report: &'a Report, words: &str) -> &'a ClaimSupport {
    let claim = report
        .claims
        .iter()
        .find(|c| c.text.contains(words))
        .unwrap_or_else(|| {
            panic!(
                "no claim says {words:?}: {:#?}",
                report.claims.iter().map(|c| &c.text).collect::<Vec<_>>()
            )
        });
    assert_eq!(claim.support.len(), 1, "{claim:#?}");
    &claim.support[0]
}

/// `text` with its whitespace collapsed.
fn collapsed(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The claim saying `words` is supported, quoting `document`'s own words (at most 300
/// characters of them) that include `quoted`.
pub fn assert_supported(report: &Report, words: &str, document: &str, quoted: &str) {
    let support = support(report, words);
    assert_eq!(support.verdict, SupportVerdict::Supported, "{support:#?}");
    assert_eq!(support.reason, None, "{support:#?}");
    let quote = support
        .quote
        .as_deref()
        .expect("a supported claim has a quote");
    assert!(quote.chars().count() <= 300, "{quote}");
    let own = collapsed(quote.trim_end_matches('…'));
    assert!(
        collapsed(document).contains(&own),
        "the quote {quote:?} is not the document's own words: {document:?}"
    );
    assert!(quote.contains(quoted), "{quote:?} lacks {quoted:?}");
}

/// The claim saying `words` is judged against its document and not supported, with
/// `figure` (the claim's, which the document contradicts) said missing.
pub fn assert_contradicted(report: &Report, words: &str, figure: &str) {
    let support = support(report, words);
    assert!(
        matches!(
            support.verdict,
            SupportVerdict::NotSupported | SupportVerdict::PartlySupported
        ),
        "{support:#?}"
    );
    // A time is read in pieces until times are read whole (issue 35): "17:00" is
    // missing as its hour, "17", the part the document does not have.
    let said = |m: &String| {
        m == figure
            || figure
                .strip_prefix(m.as_str())
                .is_some_and(|rest| rest.starts_with(':'))
    };
    assert!(
        support.missing.iter().any(said),
        "{figure:?} is not said missing: {support:#?}"
    );
}

/// The claim saying `words` could not be judged, for `reason`.
pub fn assert_unreadable(report: &Report, words: &str, reason: &str) {
    let support = support(report, words);
    assert_eq!(support.verdict, SupportVerdict::Unreadable, "{support:#?}");
    assert_eq!(support.reason.as_deref(), Some(reason), "{support:#?}");
    assert_eq!(support.quote, None);
}

/// The claim saying `words` could not be judged: its file has no readable text.
pub fn assert_without_text(report: &Report, words: &str) {
    let empty = support(report, words);
    assert_eq!(empty.verdict, SupportVerdict::Unreadable, "{empty:#?}");
    assert!(
        empty
            .reason
            .as_deref()
            .is_some_and(|r| r.starts_with("the file has no readable text")),
        "{empty:#?}"
    );
}

/// `link` is a checked file, read through `product` (or, with `None`, not read).
pub fn assert_read_via(report: &Report, link: &str, product: Option<&str>) {
    let source = source(report, link);
    assert_eq!(source.kind, SourceKind::File, "{link}");
    assert_eq!(
        source.verdict.class,
        VerdictClass::Verified,
        "{link}: {:?}",
        source.verdict
    );
    let expected = product.map(|product| ReadVia::Product {
        product: product.to_string(),
    });
    assert_eq!(source.read_via, expected, "{link}");
}

/// A sheet's text as a spreadsheet reads: a row a paragraph, its cells joined by " | ".
pub fn sheet_text(rows: &[&[&str]]) -> String {
    rows.iter()
        .map(|row| row.join(" | "))
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// The decoded pairs of a request's query, in order.
pub fn pairs(request: &RequestInfo) -> Vec<(String, String)> {
    url::form_urlencoded::parse(request.query.as_bytes())
        .into_owned()
        .collect()
}

/// `(name, value)` pairs as owned strings, to compare with [`pairs`].
pub fn owned(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
        .collect()
}

/// A JSON reply with `Retry-After: seconds` and `status` 429.
pub fn too_many(body: &Value, seconds: &str) -> Action {
    Action::bytes(
        429,
        &[
            ("Content-Type", "application/json; charset=UTF-8"),
            ("Retry-After", seconds),
        ],
        body.to_string().into_bytes(),
    )
}

// --- A fake Google Drive -------------------------------------------------------------

/// A file the fake Drive holds: its `files.get` resource, the type its content is
/// exported as (Docs, Slides, Sheets; `None`: downloaded with `alt=media`), and what
/// the nth content call gets (the last repeats; none: it must not be asked).
pub struct DriveFile {
    id: &'static str,
    resource: Value,
    export: Option<&'static str>,
    content: Vec<Action>,
}

impl DriveFile {
    /// File `id` with the resource `key` of drive-files-get.json, no content yet.
    pub fn new(id: &'static str, key: &str) -> DriveFile {
        DriveFile {
            id,
            resource: fixture(DRIVE_FILES, key),
            export: None,
            content: Vec::new(),
        }
    }

    /// Its content exported as `mime`, answered with `content`.
    pub fn exported(mut self, mime: &'static str, content: Vec<Action>) -> DriveFile {
        self.export = Some(mime);
        self.content = content;
        self
    }

    /// Its content downloaded, answered with `content`.
    pub fn downloaded(mut self, content: Vec<Action>) -> DriveFile {
        self.content = content;
        self
    }
}

fn drive_path(id: &str) -> String {
    format!("/drive/v3/files/{id}")
}

fn export_path(id: &str) -> String {
    format!("/drive/v3/files/{id}/export")
}

fn leak(path: String) -> &'static str {
    Box::leak(path.into_boxed_str())
}

/// A Google Doc's text as `files.export?mimeType=text/plain` gives it: a byte-order
/// mark first and CRLF line ends.
pub fn docs_export(text: &str) -> Action {
    let mut bytes = "\u{feff}".as_bytes().to_vec();
    bytes.extend(text.replace('\n', "\r\n").into_bytes());
    Action::bytes(200, &[("Content-Type", "text/plain")], bytes)
}

/// A file's bytes served as `content_type`.
pub fn file_reply(content_type: &str, bytes: Vec<u8>) -> Action {
    Action::bytes(200, &[("Content-Type", content_type)], bytes)
}

/// The resource's fields that `fields` asks for, as Drive answers.
fn only_fields(resource: &Value, fields: &str) -> Value {
    let wanted: Vec<&str> = fields.split(',').map(str::trim).collect();
    let object = resource.as_object().expect("a files resource");
    Value::Object(
        object
            .iter()
            .filter(|(name, _)| wanted.contains(&name.as_str()))
            .map(|(name, value)| (name.clone(), value.clone()))
            .collect(),
    )
}

/// A fake Google: the token endpoint and the Drive API for `files`.
pub struct FakeDrive {
    /// The token endpoint and the Drive API.
    pub server: HostileServer,
    /// Google's token endpoint and the tokens it handed out.
    pub sign_in: GoogleSignIn,
    key: tempfile::NamedTempFile,
}

impl FakeDrive {
    /// A fake Drive holding `files`, on an address `ip` gives.
    pub async fn start(ip: fn() -> IpAddr, files: Vec<DriveFile>) -> FakeDrive {
        let sign_in = GoogleSignIn::new();
        let mut routes = vec![sign_in.route()];
        for DriveFile {
            id,
            resource,
            export,
            content,
        } in files
        {
            let served = Arc::new(AtomicUsize::new(0));
            let content: Arc<dyn Fn() -> Action + Send + Sync> = Arc::new(move || {
                let n = served.fetch_add(1, Ordering::SeqCst);
                content
                    .get(n.min(content.len().saturating_sub(1)))
                    .cloned()
                    .unwrap_or_else(|| panic!("file {id} has no content to serve"))
            });
            let media = content.clone();
            routes.push((
                leak(drive_path(id)),
                Route::new(move |request: &RequestInfo, _| {
                    if !bears(request, GOOGLE_TOKEN) {
                        return unauthorised();
                    }
                    let asked = query(request);
                    if asked.get("supportsAllDrives").map(String::as_str) != Some("true") {
                        return json_reply(400, &drive_error(400, "badRequest", "Bad Request"));
                    }
                    if asked.get("alt").map(String::as_str) == Some("media") {
                        if export.is_some() {
                            return json_reply(
                                403,
                                &drive_error(
                                    403,
                                    "fileNotDownloadable",
                                    "Only files with binary content can be downloaded. Use Export with Docs Editors files.",
                                ),
                            );
                        }
                        return media();
                    }
                    match asked.get("fields") {
                        Some(fields) => json_reply(200, &only_fields(&resource, fields)),
                        None => json_reply(400, &drive_error(400, "badRequest", "Bad Request")),
                    }
                }),
            ));
            routes.push((
                leak(export_path(id)),
                Route::new(move |request: &RequestInfo, _| {
                    if !bears(request, GOOGLE_TOKEN) {
                        return unauthorised();
                    }
                    let asked = query(request);
                    match export {
                        Some(mime) if asked.get("mimeType") == Some(&mime.to_string()) => content(),
                        Some(_) => json_reply(
                            400,
                            &drive_error(
                                400,
                                "badRequest",
                                "The requested conversion is not supported.",
                            ),
                        ),
                        None => json_reply(
                            403,
                            &drive_error(
                                403,
                                "fileNotExportable",
                                "Export only supports Docs Editors files.",
                            ),
                        ),
                    }
                }),
            ));
        }
        let server = HostileServer::start(ip(), routes).await;
        let key = sign_in.key_file(&server);
        FakeDrive {
            server,
            sign_in,
            key,
        }
    }

    /// The settings that point sourcebot at this fake, with the service account's key.
    pub fn settings(&self) -> Vec<(&'static str, String)> {
        google_settings(&self.server, &self.key)
    }

    /// The requests the Drive API got for `path`, in order.
    pub fn requests_to(&self, path: &str) -> Vec<RequestInfo> {
        self.server
            .request_log()
            .into_iter()
            .filter(|r| r.path == path)
            .collect()
    }

    /// The metadata calls about `id`: the check's, then the read's.
    pub fn metadata_calls(&self, id: &str) -> Vec<RequestInfo> {
        self.requests_to(&drive_path(id))
            .into_iter()
            .filter(|r| query(r).contains_key("fields"))
            .collect()
    }

    /// The metadata calls about `id` that read it (they ask for its size).
    pub fn read_calls(&self, id: &str) -> usize {
        self.metadata_calls(id)
            .iter()
            .filter(|r| query(r).get("fields").is_some_and(|f| f.contains("size")))
            .count()
    }

    /// The downloads (`alt=media`) of `id`.
    pub fn downloads(&self, id: &str) -> Vec<RequestInfo> {
        self.requests_to(&drive_path(id))
            .into_iter()
            .filter(|r| query(r).contains_key("alt"))
            .collect()
    }

    /// The exports of `id`.
    pub fn exports(&self, id: &str) -> Vec<RequestInfo> {
        self.requests_to(&export_path(id))
    }

    /// The content calls about `id`, exports and downloads.
    pub fn content_calls(&self, id: &str) -> usize {
        self.exports(id).len() + self.downloads(id).len()
    }
}

// --- A fake Microsoft Graph, and the host of its downloads ---------------------------

/// Where the pre-authenticated downloads are served, as SharePoint serves them.
pub const DOWNLOAD_PATH: &str = "/sites/eng/_layouts/15/download.aspx";

/// What Graph answers to a content call.
#[derive(Clone)]
pub enum Step {
    /// `302 Found` to the file's pre-authenticated download.
    Redirect,
    /// This answer.
    Answer(Action),
}

/// A file shared by `link`: the driveItem Graph gives (`key` of
/// graph-drive-items.json), what the nth content call gets (the last repeats) and what
/// its download serves.
pub struct GraphFile {
    link: &'static str,
    item: Value,
    steps: Vec<Step>,
    download: Option<Action>,
}

impl GraphFile {
    /// The file `link` shares, with the driveItem `key` of graph-drive-items.json; its
    /// content calls redirect to its download, which serves nothing yet.
    pub fn new(link: &'static str, key: &str) -> GraphFile {
        GraphFile {
            link,
            item: fixture(GRAPH_ITEMS, key),
            steps: vec![Step::Redirect],
            download: None,
        }
    }

    /// Its download serves `bytes` as `content_type`.
    pub fn serving(mut self, content_type: &str, bytes: Vec<u8>) -> GraphFile {
        self.download = Some(file_reply(content_type, bytes));
        self
    }

    /// Its content calls get `steps`.
    pub fn steps(mut self, steps: Vec<Step>) -> GraphFile {
        self.steps = steps;
        self
    }

    fn unique_id(&self) -> String {
        self.item["id"].as_str().expect("an item id").to_string()
    }
}

/// Where Graph gives the driveItem `link` shares.
pub fn item_path(link: &str) -> String {
    format!("/v1.0/shares/{}/driveItem", share_id(link))
}

/// Where Graph gives the content of the driveItem `link` shares.
pub fn content_path(link: &str) -> String {
    format!("/v1.0/shares/{}/driveItem/content", share_id(link))
}

/// A fake Microsoft 365: the tenant's token endpoint and Graph on one server, the
/// downloads Graph redirects to on another.
pub struct FakeGraph {
    /// The token endpoint and Graph.
    pub graph: HostileServer,
    /// The host of the pre-authenticated downloads.
    pub downloads: HostileServer,
    /// How many tokens were asked for.
    pub token_requests: Arc<AtomicUsize>,
}

impl FakeGraph {
    /// A fake Graph sharing `files`, and their downloads' host, on addresses `ip` gives.
    pub async fn start(ip: fn() -> IpAddr, files: Vec<GraphFile>) -> FakeGraph {
        let served: HashMap<String, Action> = files
            .iter()
            .filter_map(|f| Some((f.unique_id(), f.download.clone()?)))
            .collect();
        let downloads = HostileServer::start(
            ip(),
            vec![(
                DOWNLOAD_PATH,
                Route::new(move |request: &RequestInfo, _| {
                    let asked = query(request);
                    let file = asked.get("UniqueId").and_then(|id| served.get(id));
                    match (file, asked.get("tempauth")) {
                        (Some(file), Some(_)) => file.clone(),
                        _ => Action::status(401),
                    }
                }),
            )],
        )
        .await;
        let token_requests = Arc::new(AtomicUsize::new(0));
        let mut routes = vec![microsoft_token_route(token_requests.clone())];
        for file in files {
            let unique = file.unique_id();
            let location = downloads.url(&format!(
                "{DOWNLOAD_PATH}?UniqueId={unique}&tempauth=v1.eyJzaXRlaWQiOiJhY21lIn0.{unique}"
            ));
            let item = file.item.clone();
            routes.push((
                leak(item_path(file.link)),
                authorised(GRAPH_TOKEN, move |_| json_reply(200, &item)),
            ));
            let steps = file.steps;
            routes.push((
                leak(content_path(file.link)),
                authorised(GRAPH_TOKEN, move |hit| {
                    match &steps[hit.min(steps.len() - 1)] {
                        Step::Redirect => Action::redirect(302, &location),
                        Step::Answer(action) => action.clone(),
                    }
                }),
            ));
        }
        let graph = HostileServer::start(ip(), routes).await;
        FakeGraph {
            graph,
            downloads,
            token_requests,
        }
    }

    /// The settings that point sourcebot at this fake, with the app's client secret.
    pub fn settings(&self) -> Vec<(&'static str, String)> {
        microsoft_settings(&self.graph, MS_CLIENT_SECRET)
    }

    /// The requests Graph got for `path`, in order.
    pub fn graph_requests_to(&self, path: &str) -> Vec<RequestInfo> {
        self.graph
            .request_log()
            .into_iter()
            .filter(|r| r.path == path)
            .collect()
    }

    /// The downloads of the file whose item id is `unique`.
    pub fn downloads_of(&self, unique: &str) -> Vec<RequestInfo> {
        self.downloads
            .request_log()
            .into_iter()
            .filter(|r| query(r).get("UniqueId").map(String::as_str) == Some(unique))
            .collect()
    }
}

/// A SharePoint runbook the Graph tests and the command line's cite.
pub const SP_RUNBOOK: &str =
    "https://acme.sharepoint.com/sites/eng/Shared%20Documents/Incident%20runbook.docx";

/// The text of [`SP_RUNBOOK`], a paragraph a line.
pub const INCIDENT_RUNBOOK: [&str; 4] = [
    "Incident runbook",
    "Sev1 incidents page the on-call engineer within 5 minutes.",
    "The incident commander opens a bridge call and updates the status page every 30 minutes.",
    "Change freezes start at 18:00 on the day before a public holiday.",
];
