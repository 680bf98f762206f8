//! Fake product APIs that serve internal documents, for the support check's reading
//! tests (tests/products_read_*.rs; what they check a report with is in
//! `product_reads`): Confluence Cloud and Data Center, Jira Cloud (API v3, Atlassian
//! Document Format) and Data Center (API v2, wiki markup), Notion and a GitHub
//! Enterprise-like host. Each fake answers a link's check (the item's metadata) and the
//! support check's content call (the document's text) apart, the way the product tells
//! them apart: Confluence's `body-format`/`expand`, Jira's `fields`, Notion's block
//! children, GitHub's raw media type ([`split`] for a route of a test's own). A
//! document's content call can be made to refuse (403), to ask for a wait (429 with
//! `Retry-After`), to be larger than the read cap, or to be empty.
//!
//! Every reply is built from a fixture of tests/data/products/read/ (see its README for
//! the reference page each shape comes from), with the document's id, title and text
//! put in.

use super::{Action, HostileServer, RequestInfo, Route};
use base64::Engine;
use serde_json::{json, Value};
use sourcebot::model::SourceKind;
use std::net::IpAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// `bot@acme.io:tok-cloud` in base64, as HTTP basic sends it (Atlassian Cloud).
pub const CLOUD_BASIC: &str = "Basic Ym90QGFjbWUuaW86dG9rLWNsb3Vk";
/// The Data Center personal access token, as a bearer.
pub const DC_BEARER: &str = "Bearer pat-dc-secret";
/// The Notion integration's token, as a bearer.
pub const NOTION_BEARER: &str = "Bearer secret_test";
/// The GitHub token, as a bearer.
pub const GITHUB_BEARER: &str = "Bearer ghp_test";
/// The Notion API version sourcebot asks for.
pub const NOTION_VERSION: &str = "2022-06-28";
/// The GitHub API version sourcebot asks for.
pub const GITHUB_API_VERSION: &str = "2022-11-28";
/// What GitHub is asked for when a file's bytes are read.
pub const GITHUB_RAW: &str = "application/vnd.github.raw+json";
/// What GitHub is asked for when a link is checked.
pub const GITHUB_JSON: &str = "application/vnd.github+json";

/// The text of `tests/data/products/read/{name}`.
pub fn fixture_text(name: &str) -> String {
    let path = format!(
        "{}/tests/data/products/read/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read the fixture {path}: {e}"))
}

/// The JSON of `tests/data/products/read/{name}`.
pub fn fixture(name: &str) -> Value {
    serde_json::from_str(&fixture_text(name))
        .unwrap_or_else(|e| panic!("the fixture {name} is not JSON: {e}"))
}

/// A JSON reply.
pub fn reply(status: u16, body: &Value) -> Action {
    Action::bytes(
        status,
        &[("Content-Type", "application/json;charset=UTF-8")],
        body.to_string().into_bytes(),
    )
}

/// A 429 asking to wait `seconds`, with the product's error `body`.
pub fn too_many(seconds: u64, body: &Value) -> Action {
    Action::bytes(
        429,
        &[
            ("Content-Type", "application/json;charset=UTF-8"),
            ("Retry-After", &seconds.to_string()),
        ],
        body.to_string().into_bytes(),
    )
}

/// The parameters of a request's query, decoded, in order (repeated ones repeated).
pub fn query(request: &RequestInfo) -> Vec<(String, String)> {
    url::form_urlencoded::parse(request.query.as_bytes())
        .into_owned()
        .collect()
}

/// The value of the query parameter `name`, if the request has one.
pub fn param(request: &RequestInfo, name: &str) -> Option<String> {
    query(request)
        .into_iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v)
}

/// `(name, value)` pairs as owned strings, to compare with [`query`].
pub fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
        .collect()
}

/// `text` with the XML special characters escaped.
pub fn xml_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// What a document's content call gives.
#[derive(Debug, Clone)]
pub enum Content {
    /// The document, one paragraph for each of these (in the product's own markup).
    Text(Vec<String>),
    /// This status with the product's error body.
    Status(u16),
    /// The first content call: 429 with `Retry-After: seconds`; later ones the
    /// document with these paragraphs.
    RateLimited {
        /// What `Retry-After` says.
        seconds: u64,
        /// The paragraphs served after it.
        then: Vec<String>,
    },
    /// A document of at least this many bytes.
    Oversized(usize),
    /// A document with no text at all.
    Empty,
}

/// One document a fake serves.
#[derive(Debug, Clone)]
pub struct Doc {
    /// Its id as the product's links and API name it (a page id, an issue key, a
    /// Notion id, a GitHub file's name without `docs/` and `.md`).
    pub id: String,
    /// Its title (a Jira issue's summary).
    pub title: String,
    /// What its content call gives.
    pub content: Content,
}

impl Doc {
    /// A document `id` titled `title` whose content call gives `content`.
    pub fn new(id: impl Into<String>, title: &str, content: Content) -> Doc {
        Doc {
            id: id.into(),
            title: title.to_string(),
            content,
        }
    }
}

/// A product with a fake API.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Product {
    /// Confluence Cloud: `/wiki/api/v2/pages/{id}`, HTTP basic.
    ConfluenceCloud,
    /// Confluence Data Center: `/rest/api/content/{id}`, a bearer PAT.
    ConfluenceDataCenter,
    /// Jira Cloud on the Confluence Cloud site: `/rest/api/3/issue/{key}`, ADF.
    JiraCloud,
    /// Jira Data Center on the Confluence Data Center site: `/rest/api/2/issue/{key}`,
    /// wiki markup.
    JiraDataCenter,
    /// Notion: `/v1/pages/{id}` and `/v1/blocks/{id}/children`.
    Notion,
    /// GitHub Enterprise-like, its API under `/api/v3` on the links' host: files of
    /// `acme/tools` through the contents API.
    Github,
}

impl Product {
    /// The product as people name it (what `ReadVia::Product` and the reasons say).
    pub fn name(self) -> &'static str {
        match self {
            Product::ConfluenceCloud | Product::ConfluenceDataCenter => "Confluence",
            Product::JiraCloud | Product::JiraDataCenter => "Jira",
            Product::Notion => "Notion",
            Product::Github => "GitHub",
        }
    }

    /// The group its links are shown in.
    pub fn kind(self) -> SourceKind {
        match self {
            Product::ConfluenceCloud
            | Product::ConfluenceDataCenter
            | Product::JiraCloud
            | Product::JiraDataCenter => SourceKind::Confluence,
            Product::Notion | Product::Github => SourceKind::File,
        }
    }

    /// The `Authorization` every call to it carries.
    pub fn authorization(self) -> &'static str {
        match self {
            Product::ConfluenceCloud | Product::JiraCloud => CLOUD_BASIC,
            Product::ConfluenceDataCenter | Product::JiraDataCenter => DC_BEARER,
            Product::Notion => NOTION_BEARER,
            Product::Github => GITHUB_BEARER,
        }
    }

    /// The settings that point sourcebot at `server` with the fake's credentials.
    pub fn settings(self, server: &HostileServer) -> Vec<(&'static str, String)> {
        match self {
            Product::ConfluenceCloud | Product::JiraCloud => vec![
                ("SOURCEBOT_CONFLUENCE_URL", server.url("/")),
                ("SOURCEBOT_CONFLUENCE_EMAIL", "bot@acme.io".into()),
                ("SOURCEBOT_CONFLUENCE_TOKEN", "tok-cloud".into()),
            ],
            Product::ConfluenceDataCenter | Product::JiraDataCenter => vec![
                ("SOURCEBOT_CONFLUENCE_URL", server.url("/")),
                ("SOURCEBOT_CONFLUENCE_PAT", "pat-dc-secret".into()),
            ],
            Product::Notion => vec![
                ("SOURCEBOT_NOTION_TOKEN", "secret_test".into()),
                ("SOURCEBOT_NOTION_API_URL", server.url("/")),
            ],
            Product::Github => vec![
                ("SOURCEBOT_GITHUB_TOKEN", "ghp_test".into()),
                ("SOURCEBOT_GITHUB_API_URL", server.url("/api/v3")),
            ],
        }
    }

    /// The id of the `n`th document of a test (n from 1).
    pub fn doc_id(self, n: u32) -> String {
        match self {
            Product::ConfluenceCloud | Product::ConfluenceDataCenter => (100_000 + n).to_string(),
            Product::JiraCloud | Product::JiraDataCenter => format!("OPS-{n}"),
            Product::Notion => format!("f00d{n:028x}"),
            Product::Github => format!("doc-{n}"),
        }
    }

    /// The link an answer cites for `doc`.
    pub fn link(self, server: &HostileServer, doc: &Doc) -> String {
        let id = &doc.id;
        match self {
            Product::ConfluenceCloud => server.url(&format!(
                "/wiki/spaces/ENG/pages/{id}/{}",
                doc.title.replace(' ', "+")
            )),
            Product::ConfluenceDataCenter => {
                server.url(&format!("/pages/viewpage.action?pageId={id}"))
            }
            Product::JiraCloud | Product::JiraDataCenter => server.url(&format!("/browse/{id}")),
            Product::Notion => format!(
                "https://www.notion.so/acme/{}-{id}",
                doc.title.replace(' ', "-")
            ),
            Product::Github => server.url(&format!("/acme/tools/blob/main/docs/{id}.md")),
        }
    }

    /// Whether `request` reads a document's content (rather than checking its link).
    pub fn is_content_call(self, request: &RequestInfo) -> bool {
        match self {
            Product::ConfluenceCloud => param(request, "body-format").is_some(),
            Product::ConfluenceDataCenter => param(request, "expand").is_some(),
            Product::JiraCloud | Product::JiraDataCenter => {
                request.path.ends_with("/comment")
                    || param(request, "fields").is_some_and(|f| f.contains("description"))
            }
            Product::Notion => request.path.ends_with("/children"),
            Product::Github => {
                request.header("accept") == Some(GITHUB_RAW) || request.path.ends_with("/comments")
            }
        }
    }

    /// A fake of the product on `ip` serving `docs`.
    pub async fn serve(self, ip: IpAddr, docs: &[Doc]) -> HostileServer {
        let mut routes: Vec<(String, Route)> = Vec::new();
        if self == Product::Github {
            routes.push((
                "/api/v3/repos/acme/tools".into(),
                Route::always(reply(200, &fixture("github-repo.json"))),
            ));
        }
        for doc in docs {
            routes.extend(self.routes(doc));
        }
        let routes: Vec<(&str, Route)> = routes
            .iter()
            .map(|(p, r)| (p.as_str(), r.clone()))
            .collect();
        HostileServer::start(ip, routes).await
    }

    /// The routes that serve `doc`: its check and its content calls.
    fn routes(self, doc: &Doc) -> Vec<(String, Route)> {
        let reads = Arc::new(AtomicUsize::new(0));
        let content = {
            let doc = doc.clone();
            move || -> Action {
                let read = reads.fetch_add(1, Ordering::SeqCst);
                self.content_reply(&doc, read)
            }
        };
        let metadata = self.metadata(doc);
        let id = doc.id.clone();
        match self {
            Product::Notion => vec![
                (
                    format!("/v1/pages/{id}"),
                    Route::always(reply(200, &metadata)),
                ),
                (
                    format!("/v1/blocks/{id}/children"),
                    Route::new(move |_, _| content()),
                ),
            ],
            Product::Github => {
                let check = reply(200, &metadata);
                vec![(
                    format!("/api/v3/repos/acme/tools/contents/docs/{id}.md"),
                    Route::new(move |request, _| {
                        if self.is_content_call(request) {
                            content()
                        } else {
                            check.clone()
                        }
                    }),
                )]
            }
            _ => {
                let path = match self {
                    Product::ConfluenceCloud => format!("/wiki/api/v2/pages/{id}"),
                    Product::ConfluenceDataCenter => format!("/rest/api/content/{id}"),
                    Product::JiraCloud => format!("/rest/api/3/issue/{id}"),
                    _ => format!("/rest/api/2/issue/{id}"),
                };
                let check = reply(200, &metadata);
                vec![(
                    path,
                    Route::new(move |request, _| {
                        if self.is_content_call(request) {
                            content()
                        } else {
                            check.clone()
                        }
                    }),
                )]
            }
        }
    }

    /// What a link's check gets: the item without its text.
    fn metadata(self, doc: &Doc) -> Value {
        let (id, title) = (doc.id.as_str(), doc.title.as_str());
        match self {
            Product::ConfluenceCloud => {
                let mut page = fixture("confluence-cloud-page.json");
                page["id"] = json!(id);
                page["title"] = json!(title);
                page["body"] = json!({});
                page["_links"]["webui"] = json!(format!("/spaces/ENG/pages/{id}"));
                page
            }
            Product::ConfluenceDataCenter => {
                let mut content = fixture("confluence-dc-content.json");
                content["id"] = json!(id);
                content["title"] = json!(title);
                if let Some(object) = content.as_object_mut() {
                    object.remove("body");
                }
                content["_expandable"]["body"] = json!("");
                content
            }
            Product::JiraCloud | Product::JiraDataCenter => {
                let issue = self.issue_fixture();
                json!({
                    "expand": issue["expand"], "id": issue["id"], "self": issue["self"],
                    "key": id, "fields": {"summary": title}
                })
            }
            Product::Notion => {
                let mut page = fixture("notion-page.json");
                page["id"] = json!(dashed(id));
                page["properties"]["title"]["title"][0]["text"]["content"] = json!(title);
                page["properties"]["title"]["title"][0]["plain_text"] = json!(title);
                page["url"] = json!(format!(
                    "https://www.notion.so/acme/{}-{id}",
                    title.replace(' ', "-")
                ));
                page
            }
            Product::Github => {
                let bytes = match &doc.content {
                    Content::Text(paragraphs)
                    | Content::RateLimited {
                        then: paragraphs, ..
                    } => markdown(paragraphs).into_bytes(),
                    _ => Vec::new(),
                };
                github_file_metadata(&format!("docs/{id}.md"), &bytes)
            }
        }
    }

    fn issue_fixture(self) -> Value {
        match self {
            Product::JiraDataCenter => fixture("jira-dc-issue.json"),
            _ => fixture("jira-cloud-issue.json"),
        }
    }

    /// What the `read`th content call (from 0) of `doc` gets.
    fn content_reply(self, doc: &Doc, read: usize) -> Action {
        match &doc.content {
            Content::Text(paragraphs) => self.document(doc, paragraphs),
            Content::Status(status) => self.error(*status),
            Content::RateLimited { seconds, then } => {
                if read == 0 {
                    too_many(*seconds, &self.error_body(429))
                } else {
                    self.document(doc, then)
                }
            }
            Content::Oversized(bytes) => {
                let sentence = "This filler sentence only makes the document larger than the cap.";
                let count = bytes / sentence.len() + 1;
                self.document(doc, &vec![sentence.to_string(); count])
            }
            Content::Empty => self.document(doc, &[]),
        }
    }

    /// The document `doc` with `paragraphs`, as the content call returns it.
    fn document(self, doc: &Doc, paragraphs: &[String]) -> Action {
        let (id, title) = (doc.id.as_str(), doc.title.as_str());
        let storage: String = paragraphs
            .iter()
            .map(|p| format!("<p>{}</p>", xml_escape(p)))
            .collect();
        match self {
            Product::ConfluenceCloud => {
                let mut page = fixture("confluence-cloud-page.json");
                page["id"] = json!(id);
                page["title"] = json!(title);
                page["body"]["storage"]["value"] = json!(storage);
                reply(200, &page)
            }
            Product::ConfluenceDataCenter => {
                let mut content = fixture("confluence-dc-content.json");
                content["id"] = json!(id);
                content["title"] = json!(title);
                content["body"]["storage"]["value"] = json!(storage);
                reply(200, &content)
            }
            Product::JiraCloud | Product::JiraDataCenter => {
                // Every issue here comes with all its comments: none.
                let mut issue = self.issue_fixture();
                issue["key"] = json!(id);
                issue["fields"]["summary"] = json!(title);
                issue["fields"]["description"] = if paragraphs.is_empty() {
                    Value::Null
                } else if self == Product::JiraCloud {
                    adf(paragraphs)
                } else {
                    json!(paragraphs.join("\n\n"))
                };
                issue["fields"]["comment"] =
                    json!({"comments": [], "maxResults": 0, "total": 0, "startAt": 0});
                reply(200, &issue)
            }
            Product::Notion => {
                let template = fixture("notion-children-2.json")["results"][1].clone();
                let results: Vec<Value> = paragraphs
                    .iter()
                    .enumerate()
                    .map(|(n, text)| {
                        let mut block = template.clone();
                        block["id"] = json!(format!("0000{n:04x}-0000-4000-8000-{:012x}", n + 1));
                        block["parent"] = json!({"type": "page_id", "page_id": dashed(id)});
                        block["paragraph"]["rich_text"] = json!([notion_text(text)]);
                        block
                    })
                    .collect();
                reply(
                    200,
                    &json!({"object": "list", "results": results, "next_cursor": null,
                            "has_more": false, "type": "block", "block": {}}),
                )
            }
            Product::Github => Action::bytes(
                200,
                &[("Content-Type", "application/vnd.github.raw; charset=utf-8")],
                markdown(paragraphs).into_bytes(),
            ),
        }
    }

    /// The product's error body for `status`.
    fn error_body(self, status: u16) -> Value {
        match self {
            Product::ConfluenceCloud => {
                let (code, title) = match status {
                    403 => ("FORBIDDEN", "Forbidden"),
                    429 => ("TOO_MANY_REQUESTS", "Too Many Requests"),
                    _ => ("ERROR", "Error"),
                };
                json!({"errors": [{"status": status, "code": code, "title": title, "detail": null}]})
            }
            Product::ConfluenceDataCenter => json!({
                "statusCode": status,
                "data": {"authorized": status != 403, "valid": true, "errors": [], "successful": false},
                "message": if status == 403 { "You are not permitted to view this content." } else { "Rate limit exceeded." },
                "reason": if status == 403 { "Forbidden" } else { "Too Many Requests" }
            }),
            Product::JiraCloud | Product::JiraDataCenter => json!({
                "errorMessages": [if status == 403 {
                    "You do not have the permission to see the specified issue."
                } else {
                    "Rate limit exceeded."
                }],
                "errors": {}
            }),
            Product::Notion => match status {
                403 => json!({"object": "error", "status": 403, "code": "restricted_resource",
                              "message": "API token does not have access to this resource."}),
                _ => json!({"object": "error", "status": status, "code": "rate_limited",
                            "message": "You have been rate limited. Please try again in a few minutes."}),
            },
            Product::Github => match status {
                403 => json!({"message": "Resource not accessible by personal access token",
                              "documentation_url": "https://docs.github.com/rest/repos/contents#get-repository-content",
                              "status": "403"}),
                _ => {
                    json!({"message": "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
                            "documentation_url": "https://docs.github.com/rest/using-the-rest-api/rate-limits-for-the-rest-api",
                            "status": status.to_string()})
                }
            },
        }
    }

    /// `status` with the product's error body.
    fn error(self, status: u16) -> Action {
        reply(status, &self.error_body(status))
    }
}

/// A 32-digit Notion id in its dashed UUID form.
pub fn dashed(id: &str) -> String {
    if id.len() != 32 {
        return id.to_string();
    }
    format!(
        "{}-{}-{}-{}-{}",
        &id[..8],
        &id[8..12],
        &id[12..16],
        &id[16..20],
        &id[20..]
    )
}

/// One Notion rich text object showing `text`.
pub fn notion_text(text: &str) -> Value {
    json!({
        "type": "text", "text": {"content": text, "link": null},
        "annotations": {"bold": false, "italic": false, "strikethrough": false,
                        "underline": false, "code": false, "color": "default"},
        "plain_text": text, "href": null
    })
}

/// An Atlassian Document Format document with one paragraph for each of `paragraphs`.
pub fn adf(paragraphs: &[String]) -> Value {
    json!({
        "type": "doc", "version": 1,
        "content": paragraphs.iter().map(|p| json!({
            "type": "paragraph", "content": [{"type": "text", "text": p}]
        })).collect::<Vec<_>>()
    })
}

/// Markdown with one paragraph for each of `paragraphs`.
pub fn markdown(paragraphs: &[String]) -> String {
    paragraphs.join("\n\n")
}

/// The contents API's object for the file at `path` of `acme/tools` holding `bytes`
/// (what a link's check gets: GitHub's JSON, the bytes in base64).
pub fn github_file_metadata(path: &str, bytes: &[u8]) -> Value {
    let mut file = fixture("github-content-file.json");
    let name = path.rsplit('/').next().unwrap_or(path);
    let encoded = base64::engine::general_purpose::STANDARD.encode(bytes);
    file["name"] = json!(name);
    file["path"] = json!(path);
    file["size"] = json!(bytes.len());
    file["content"] = json!(encoded);
    for (key, value) in [
        (
            "url",
            format!("https://ghe.acme.io/api/v3/repos/acme/tools/contents/{path}?ref=main"),
        ),
        (
            "html_url",
            format!("https://ghe.acme.io/acme/tools/blob/main/{path}"),
        ),
    ] {
        file[key] = json!(value);
    }
    file
}

/// A route answering the content call (`is_content`) with `content` and the link's
/// check with `check`.
pub fn split(check: Value, is_content: fn(&RequestInfo) -> bool, content: Action) -> Route {
    Route::new(move |request, _| {
        if is_content(request) {
            content.clone()
        } else {
            reply(200, &check)
        }
    })
}
