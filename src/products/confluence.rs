//! Confluence pages and blog posts through Confluence's REST API, on the one site the
//! operator configures (`SOURCEBOT_CONFLUENCE_URL`): Cloud (`*.atlassian.net`, an
//! account's e-mail and API token, HTTP basic; `GET /wiki/api/v2/pages/{id}` and
//! `/wiki/api/v2/blogposts/{id}`) or Data Center (a personal access token, bearer;
//! `GET /rest/api/content/{id}`), told apart by which credentials are set. Jira on the
//! same site shares these settings ([`super::jira`]).
//!
//! Links are read only on the configured host and port (and under its path, for a
//! Data Center site with a context path); another `*.atlassian.net` site is not this
//! one. Forms: `/wiki/spaces/KEY/pages/ID/…`, `/wiki/spaces/KEY/blog/[YYYY/MM/DD/]ID/…`,
//! `…/pages/viewpage.action?pageId=ID`, and tiny links `…/x/CODE`, whose code is the id
//! as little-endian bytes in Atlassian's base64 ([`tiny_link_id`]). `/display/KEY/Title`
//! names a page by its title only: it is reported not checked, never searched for.
//!
//! For the support check a page or blog post is read with its body in storage format
//! (Cloud `?body-format=storage`, Data Center `?expand=body.storage`: permission
//! `read:page:confluence`, or the account's view permission on Data Center), whose
//! XHTML becomes text ([`super::text::storage`]).

use super::api::{self, ApiFailure, Auth, ProductApi, ProductEnv};
use super::api_base;
use super::document;
use super::host_under;
use super::text::storage::storage_to_text;
use crate::model::{SourceKind, Verdict};
use crate::page::PageRead;
use crate::setting::ConfigError;
use crate::verify::{Checked, InternalChecker};
use futures_util::future::BoxFuture;
use serde_json::Value;
use std::sync::Arc;
use std::time::Instant;
use url::Url;

/// `SOURCEBOT_CONFLUENCE_URL`: the site, `https://acme.atlassian.net` (Cloud) or
/// `https://wiki.acme.io` (Data Center); the API base and the host of the links read.
pub const CONFLUENCE_URL: &str = "SOURCEBOT_CONFLUENCE_URL";
/// `SOURCEBOT_CONFLUENCE_EMAIL`: Cloud, the e-mail of the account whose API token is
/// `SOURCEBOT_CONFLUENCE_TOKEN`.
pub const CONFLUENCE_EMAIL: &str = "SOURCEBOT_CONFLUENCE_EMAIL";
/// `SOURCEBOT_CONFLUENCE_TOKEN`: Cloud, that account's API token.
pub const CONFLUENCE_TOKEN: &str = "SOURCEBOT_CONFLUENCE_TOKEN";
/// `SOURCEBOT_CONFLUENCE_PAT`: Data Center, a personal access token.
pub const CONFLUENCE_PAT: &str = "SOURCEBOT_CONFLUENCE_PAT";

/// Which Atlassian product line the site runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Deployment {
    /// Atlassian Cloud: v2 API under `/wiki`, e-mail and API token.
    Cloud,
    /// Data Center (or Server): `/rest/api/content`, a personal access token.
    DataCenter,
}

/// How to reach Confluence (and Jira on the same site).
#[derive(Clone, PartialEq, Eq)]
pub struct ConfluenceSettings {
    /// The site: API base and the links' host (no trailing slash; a Data Center
    /// context path kept, Cloud's `/wiki` dropped).
    pub site: Url,
    /// Cloud or Data Center, from the credentials given.
    pub deployment: Deployment,
    /// HTTP basic (Cloud) or bearer (Data Center).
    pub auth: Auth,
    /// The setting that holds the secret (named when the site refuses it).
    pub secret: &'static str,
}

/// The names of one Atlassian site's settings.
#[derive(Debug, Clone, Copy)]
pub struct SiteNames {
    /// The product, for messages (`Confluence`).
    pub product: &'static str,
    /// The site's URL.
    pub url: &'static str,
    /// Cloud: the account's e-mail.
    pub email: &'static str,
    /// Cloud: its API token.
    pub token: &'static str,
    /// Data Center: a personal access token.
    pub pat: &'static str,
}

/// Confluence's settings.
pub const CONFLUENCE_SETTINGS: SiteNames = SiteNames {
    product: "Confluence",
    url: CONFLUENCE_URL,
    email: CONFLUENCE_EMAIL,
    token: CONFLUENCE_TOKEN,
    pat: CONFLUENCE_PAT,
};

impl std::fmt::Debug for ConfluenceSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConfluenceSettings")
            .field("site", &self.site.as_str())
            .field("deployment", &self.deployment)
            .field("auth", &self.auth)
            .finish()
    }
}

impl ConfluenceSettings {
    /// `None` when no Confluence setting is given; an error when the site is given
    /// without credentials, credentials without the site, or half of Cloud's pair.
    pub fn from_lookup(
        get: &impl Fn(&'static str) -> Option<(&'static str, String)>,
    ) -> Result<Option<ConfluenceSettings>, ConfigError> {
        Self::read_site(get, &CONFLUENCE_SETTINGS)
    }

    /// Reads one Atlassian site's settings under `names` (Confluence's, or Jira's own).
    pub(crate) fn read_site(
        get: &impl Fn(&'static str) -> Option<(&'static str, String)>,
        names: &SiteNames,
    ) -> Result<Option<ConfluenceSettings>, ConfigError> {
        let (url_name, email_name, token_name, pat_name) =
            (names.url, names.email, names.token, names.pat);
        let value = |name| get(name).map(|(_, v)| v.trim().to_string());
        let (site, email, token, pat) = (
            value(url_name),
            value(email_name),
            value(token_name),
            value(pat_name),
        );
        let missing = |name: &'static str, expected: String| ConfigError {
            name,
            value: String::new(),
            expected,
        };
        let credentials = email.is_some() || token.is_some() || pat.is_some();
        if site.is_none() {
            return if credentials {
                Err(missing(
                    url_name,
                    format!("missing: {} credentials are set, so the site they belong to is needed too, e.g. https://acme.atlassian.net", names.product),
                ))
            } else {
                Ok(None)
            };
        }
        let (deployment, auth) = match (email, token, pat) {
            (Some(user), Some(password), None) => (Deployment::Cloud, Auth::Basic { user, password }),
            (None, None, Some(pat)) => (Deployment::DataCenter, Auth::Bearer(pat)),
            (Some(_), None, None) => {
                return Err(missing(
                    token_name,
                    format!("missing: {email_name} is set, so that account's API token is needed too"),
                ))
            }
            (None, Some(_), None) => {
                return Err(missing(
                    email_name,
                    format!("missing: {token_name} is set, so the e-mail of the account it belongs to is needed too"),
                ))
            }
            (None, None, None) => {
                return Err(ConfigError {
                    name: url_name,
                    value: site.unwrap_or_default(),
                    expected: format!("credentials missing: set {email_name} and {token_name} (Cloud) or {pat_name} (Data Center)"),
                })
            }
            (_, _, Some(_)) => {
                return Err(ConfigError {
                    name: pat_name,
                    value: "<hidden>".into(),
                    expected: format!("set either {pat_name} (Data Center) or {email_name} and {token_name} (Cloud), not both"),
                })
            }
        };
        let mut site = api_base(get, url_name, "https://acme.atlassian.net")?;
        site.set_query(None);
        site.set_fragment(None);
        let mut path: Vec<String> = site
            .path_segments()
            .map(|s| s.filter(|s| !s.is_empty()).map(str::to_string).collect())
            .unwrap_or_default();
        // Cloud's API paths start with /wiki themselves: https://acme.atlassian.net/wiki
        // is the same site.
        if deployment == Deployment::Cloud && path.last().is_some_and(|s| s == "wiki") {
            path.pop();
        }
        site.set_path(&path.join("/"));
        Ok(Some(ConfluenceSettings {
            site,
            deployment,
            auth,
            secret: match deployment {
                Deployment::Cloud => token_name,
                Deployment::DataCenter => pat_name,
            },
        }))
    }

    /// The setting to fix when the site refuses the credentials.
    pub fn secret_setting(&self) -> &'static str {
        self.secret
    }
}

/// The path segments of `url` below `site`, when `url` is on it: the same host (case
/// and a trailing dot aside), the same explicit port, under the site's path.
pub(crate) fn on_site(url: &Url, site: &Url) -> Option<Vec<String>> {
    let host = url.host_str()?.trim_end_matches('.').to_ascii_lowercase();
    let site_host = site.host_str()?.trim_end_matches('.').to_ascii_lowercase();
    if host != site_host || url.port() != site.port() {
        return None;
    }
    let segments = |u: &Url| -> Vec<String> {
        u.path_segments()
            .map(|s| s.filter(|s| !s.is_empty()).map(str::to_string).collect())
            .unwrap_or_default()
    };
    let (mut path, prefix) = (segments(url), segments(site));
    if !path.starts_with(&prefix) {
        return None;
    }
    path.drain(..prefix.len());
    Some(path)
}

/// What a Confluence link names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfluenceLink {
    /// A page, by id.
    Page(u64),
    /// A blog post, by id.
    BlogPost(u64),
    /// A page or a blog post, by id: tiny links and `viewpage.action` do not say which.
    Content(u64),
    /// A page named by its space and title only (`/display/KEY/Title`): no id.
    NoId,
}

/// A content id: 1 to 19 digits, not zero.
fn content_id(segment: &str) -> Option<u64> {
    (!segment.is_empty() && segment.len() <= 19 && segment.bytes().all(|b| b.is_ascii_digit()))
        .then(|| segment.parse::<u64>().ok())
        .flatten()
        .filter(|id| *id > 0)
}

/// The value of one base64 digit in Atlassian's tiny-link alphabet (`-` for `/`, `_`
/// for `+`).
fn sextet(c: u8) -> Option<u128> {
    let value = match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'_' => 62,
        b'-' => 63,
        _ => return None,
    };
    Some(u128::from(value))
}

/// The content id a tiny link's code (`/x/CODE`) stands for: the code is the id's
/// little-endian bytes in base64, `/` written `-` and `+` written `_`, with trailing
/// `A`s and padding trimmed. Decoded by padding with `A` to the 11 digits of 8 bytes
/// (the trimmed zero bits), reading the 64 bits and taking them as little-endian.
pub fn tiny_link_id(code: &str) -> Option<u64> {
    let code = code.trim_end_matches('=');
    if code.is_empty() || code.len() > 11 {
        return None;
    }
    let mut bits: u128 = 0;
    for c in code.bytes().chain(std::iter::repeat(b'A')).take(11) {
        bits = (bits << 6) | sextet(c)?;
    }
    // 66 bits: the last two are padding and are zero in a code Atlassian made.
    if bits & 0b11 != 0 {
        return None;
    }
    let bytes = u64::try_from(bits >> 2).ok()?.to_be_bytes();
    Some(u64::from_le_bytes(bytes)).filter(|id| *id > 0)
}

/// Whether three segments are a blog post's `YYYY/MM/DD`.
fn is_date(parts: &[String]) -> bool {
    let digits = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_digit());
    parts.len() == 3 && digits(&parts[0], 4) && digits(&parts[1], 2) && digits(&parts[2], 2)
}

/// What the path below the site (and the query of `url`) names.
fn link_from_path(segments: &[String], url: &Url) -> Option<ConfluenceLink> {
    let rest = match segments.first() {
        Some(first) if first == "wiki" => &segments[1..],
        _ => segments,
    };
    let words: Vec<&str> = rest.iter().map(String::as_str).collect();
    match words.as_slice() {
        ["spaces", key, "pages", id, ..] if !key.is_empty() => {
            content_id(id).map(ConfluenceLink::Page)
        }
        ["spaces", key, "blog", ..] if !key.is_empty() => {
            let after = &rest[3..];
            let id = if after.len() >= 3 && is_date(&after[..3]) {
                after.get(3)?
            } else {
                after.first()?
            };
            content_id(id).map(ConfluenceLink::BlogPost)
        }
        ["pages", "viewpage.action"] => match url.query_pairs().find(|(k, _)| k == "pageId") {
            Some((_, id)) => content_id(&id).map(ConfluenceLink::Content),
            None => Some(ConfluenceLink::NoId),
        },
        ["display", key, ..] if !key.is_empty() => Some(ConfluenceLink::NoId),
        ["x", code] => tiny_link_id(code).map(ConfluenceLink::Content),
        _ => None,
    }
}

/// What a link on `site` names, if it is a Confluence page or blog post link.
pub fn confluence_link(url: &str, site: &Url) -> Option<ConfluenceLink> {
    let parsed = Url::parse(url).ok()?;
    let segments = on_site(&parsed, site)?;
    link_from_path(&segments, &parsed)
}

/// Why a link is not checked when no Confluence credentials are set.
const NO_CREDENTIALS: &str = "not checked (no Confluence credentials: set SOURCEBOT_CONFLUENCE_URL with SOURCEBOT_CONFLUENCE_EMAIL and SOURCEBOT_CONFLUENCE_TOKEN, or with SOURCEBOT_CONFLUENCE_PAT)";

/// The checker: Confluence's API with `settings`, or, without them, one that says
/// which settings would check Confluence links.
pub fn checker(
    settings: Option<&ConfluenceSettings>,
    env: &ProductEnv,
) -> Result<Arc<dyn InternalChecker>, String> {
    let Some(settings) = settings else {
        return Ok(Arc::new(Unconfigured));
    };
    Ok(Arc::new(ConfluenceChecker {
        api: ProductApi::new("Confluence", settings.site.clone(), env)?,
        settings: settings.clone(),
    }))
}

/// Without settings: links under `/wiki/` on `*.atlassian.net` (Confluence Cloud) are
/// recognised and reported not checked. A Data Center site cannot be told by its host.
struct Unconfigured;

impl InternalChecker for Unconfigured {
    fn handles(&self, _kind: SourceKind, url: &str) -> bool {
        let Ok(parsed) = Url::parse(url) else {
            return false;
        };
        let Some(host) = parsed.host_str() else {
            return false;
        };
        if !host_under(host, "atlassian.net") {
            return false;
        }
        let segments: Vec<String> = parsed
            .path_segments()
            .map(|s| s.filter(|s| !s.is_empty()).map(str::to_string).collect())
            .unwrap_or_default();
        segments.first().is_some_and(|s| s == "wiki")
    }

    fn check<'a>(&'a self, url: &'a str) -> BoxFuture<'a, Verdict> {
        Box::pin(async move { self.check_titled(url).await.verdict })
    }

    fn check_titled<'a>(&'a self, _url: &'a str) -> BoxFuture<'a, Checked> {
        Box::pin(async move { api::not_checked(NO_CREDENTIALS) })
    }
}

struct ConfluenceChecker {
    api: ProductApi,
    settings: ConfluenceSettings,
}

/// Which statuses Cloud's v2 API is asked to return (it returns only current and
/// archived ones otherwise, and a trashed page would look missing).
const PAGE_STATUSES: [(&str, &str); 4] = [
    ("status", "current"),
    ("status", "archived"),
    ("status", "trashed"),
    ("status", "deleted"),
];
/// The same for blog posts, which are never archived.
const BLOG_STATUSES: [(&str, &str); 3] = [
    ("status", "current"),
    ("status", "trashed"),
    ("status", "deleted"),
];

/// What a page or blog post object (v2 or Data Center's content) says about `url`.
fn judge(url: &str, content: &Value, what: &str) -> Checked {
    let title = content
        .get("title")
        .and_then(Value::as_str)
        .map(str::to_string);
    match content.get("status").and_then(Value::as_str) {
        Some("trashed") => api::gone(
            url,
            title,
            &format!("the {what} is in the Confluence trash"),
        ),
        Some("archived") => api::gone(url, title, &format!("the {what} is archived")),
        Some("deleted") => api::gone(url, title, &format!("the {what} was deleted")),
        Some("draft") => api::gone(url, title, &format!("the {what} is an unpublished draft")),
        _ => api::found(url, title, &format!("the Confluence {what}")),
    }
}

/// Why a Confluence content call is made: to check a link (its status) or to read the
/// page (its body, in storage format).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Purpose {
    Check,
    Read,
}

/// Cloud's two kinds of content, each under its own v2 path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CloudKind {
    Page,
    BlogPost,
}

impl ConfluenceChecker {
    /// GETs `segments` with `query` by `deadline`: a small reply for a check, a
    /// document (up to the page size cap) for a read.
    async fn get(
        &self,
        segments: &[&str],
        query: &[(&str, &str)],
        purpose: Purpose,
        deadline: Instant,
    ) -> Result<Value, ApiFailure> {
        let url = self.api.url(segments, query);
        let auth = &self.settings.auth;
        match purpose {
            Purpose::Check => self.api.get_json(url, auth, &[], deadline).await,
            Purpose::Read => self.api.get_document(url, auth, &[], deadline).await,
        }
    }

    /// A Cloud page or blog post by id, and what it is ("page", "blog post").
    async fn cloud(
        &self,
        id: &str,
        kind: CloudKind,
        purpose: Purpose,
        deadline: Instant,
    ) -> Result<(Value, &'static str), ApiFailure> {
        let (path, what, statuses) = match kind {
            CloudKind::Page => ("pages", "page", &PAGE_STATUSES[..]),
            CloudKind::BlogPost => ("blogposts", "blog post", &BLOG_STATUSES[..]),
        };
        let query = match purpose {
            Purpose::Check => statuses,
            Purpose::Read => &[("body-format", "storage")][..],
        };
        self.get(&["wiki", "api", "v2", path, id], query, purpose, deadline)
            .await
            .map(|content| (content, what))
    }

    /// The content `link` names by `id`, and what it is: Cloud's page or blog post (a
    /// tiny link or `viewpage.action` may name either: the page is asked first), or
    /// Data Center's content.
    async fn content(
        &self,
        link: ConfluenceLink,
        id: u64,
        purpose: Purpose,
        deadline: Instant,
    ) -> Result<(Value, &'static str), ApiFailure> {
        let id = id.to_string();
        match (self.settings.deployment, link) {
            (Deployment::Cloud, ConfluenceLink::BlogPost(_)) => {
                self.cloud(&id, CloudKind::BlogPost, purpose, deadline)
                    .await
            }
            (Deployment::Cloud, ConfluenceLink::Content(_)) => {
                match self.cloud(&id, CloudKind::Page, purpose, deadline).await {
                    Err(ApiFailure::Status { status: 404, .. }) => {
                        self.cloud(&id, CloudKind::BlogPost, purpose, deadline)
                            .await
                    }
                    other => other,
                }
            }
            (Deployment::Cloud, _) => self.cloud(&id, CloudKind::Page, purpose, deadline).await,
            (Deployment::DataCenter, _) => {
                let query = match purpose {
                    Purpose::Check => [("status", "any")],
                    Purpose::Read => [("expand", "body.storage")],
                };
                let content = self
                    .get(&["rest", "api", "content", &id], &query, purpose, deadline)
                    .await?;
                let what = match content.get("type").and_then(Value::as_str) {
                    Some("blogpost") => "blog post",
                    _ => "page",
                };
                Ok((content, what))
            }
        }
    }

    async fn check_id(&self, url: &str, link: ConfluenceLink, id: u64) -> Checked {
        let deadline = Instant::now() + self.api.timeout();
        match self.content(link, id, Purpose::Check, deadline).await {
            Ok((content, what)) => judge(url, &content, what),
            Err(failure) => api::failure(
                &self.api,
                url,
                &failure,
                self.settings.secret_setting(),
                true,
            ),
        }
    }

    /// The text of the page or blog post `link` names: its storage-format body.
    async fn read_id(&self, link: ConfluenceLink, id: u64) -> PageRead {
        let deadline = self.api.read_deadline();
        match self.content(link, id, Purpose::Read, deadline).await {
            Ok((content, _)) => {
                let storage = content
                    .pointer("/body/storage/value")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                let title = content
                    .get("title")
                    .and_then(Value::as_str)
                    .map(str::to_string);
                document::text(&self.api, [storage_to_text(storage)], title, false)
            }
            Err(failure) => document::failed(&self.api, &failure, self.settings.secret_setting()),
        }
    }
}

impl InternalChecker for ConfluenceChecker {
    /// Links on the site that name a page, and (Cloud) anything else under its
    /// `/wiki/`, which is said to be unread rather than probed behind the login. The
    /// kind is not asked: several checkers are tried for every kind.
    fn handles(&self, _kind: SourceKind, url: &str) -> bool {
        let Ok(parsed) = Url::parse(url) else {
            return false;
        };
        on_site(&parsed, &self.settings.site).is_some_and(|segments| {
            link_from_path(&segments, &parsed).is_some()
                || (self.settings.deployment == Deployment::Cloud
                    && segments.first().is_some_and(|s| s == "wiki"))
        })
    }

    fn check<'a>(&'a self, url: &'a str) -> BoxFuture<'a, Verdict> {
        Box::pin(async move { self.check_titled(url).await.verdict })
    }

    fn check_titled<'a>(&'a self, url: &'a str) -> BoxFuture<'a, Checked> {
        Box::pin(async move {
            match confluence_link(url, &self.settings.site) {
                Some(ConfluenceLink::NoId) => api::not_checked(
                    "not checked: the link has no page id (it names the page by its title, and sourcebot does not search Confluence by title)",
                ),
                Some(
                    link @ (ConfluenceLink::Page(id)
                    | ConfluenceLink::BlogPost(id)
                    | ConfluenceLink::Content(id)),
                ) => self.check_id(url, link, id).await,
                None => api::not_checked(
                    "not checked: not a Confluence page, blog post or tiny link sourcebot reads",
                ),
            }
        })
    }

    fn read<'a>(&'a self, url: &'a str) -> BoxFuture<'a, Option<PageRead>> {
        Box::pin(async move {
            Some(match confluence_link(url, &self.settings.site)? {
                ConfluenceLink::NoId => PageRead::unreadable(
                    "the link has no page id (it names the page by its title, and sourcebot does not search Confluence by title)",
                ),
                link @ (ConfluenceLink::Page(id)
                | ConfluenceLink::BlogPost(id)
                | ConfluenceLink::Content(id)) => self.read_id(link, id).await,
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::VerdictClass;
    use serde_json::json;
    use std::collections::HashMap;

    fn site(s: &str) -> Url {
        Url::parse(s).expect("site")
    }

    fn cloud(url: &str) -> Option<ConfluenceLink> {
        confluence_link(url, &site("https://acme.atlassian.net"))
    }

    fn dc(url: &str) -> Option<ConfluenceLink> {
        confluence_link(url, &site("https://wiki.acme.io"))
    }

    /// Atlassian's encoder: little-endian bytes, base64, `/`→`-`, `+`→`_`, trailing
    /// `A`s and `=` trimmed.
    fn tiny_code(id: u64) -> String {
        const DIGITS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let bytes = id.to_le_bytes();
        let mut out = String::new();
        for chunk in bytes.chunks(3) {
            let mut n = 0u32;
            for (i, b) in chunk.iter().enumerate() {
                n |= u32::from(*b) << (16 - 8 * i);
            }
            for i in 0..=chunk.len() {
                out.push(char::from(DIGITS[(n >> (18 - 6 * i)) as usize & 63]));
            }
            for _ in chunk.len()..3 {
                out.push('=');
            }
        }
        out.replace('/', "-")
            .replace('+', "_")
            .trim_end_matches(['=', 'A'])
            .to_string()
    }

    #[test]
    fn tiny_links_round_trip() {
        assert_eq!(tiny_code(65538), "AgAB");
        assert_eq!(tiny_code(1_234_567_890), "0gKWSQ");
        for id in [
            1,
            63,
            64,
            255,
            256,
            65_538,
            98_305,
            1_234_567_890,
            4_294_967_295,
            4_294_967_296,
            123_456_789_012_345,
            u64::MAX,
        ] {
            let code = tiny_code(id);
            assert_eq!(tiny_link_id(&code), Some(id), "{id} as {code}");
            assert_eq!(tiny_link_id(&format!("{code}==")), Some(id), "{id} padded");
        }
        for code in ["", "A", "AAAA", "ab!c", "AgAB/", "AgABAAAAAAAAA", "AgAB.x"] {
            assert_eq!(tiny_link_id(code), None, "{code:?}");
        }
        // An 11-digit code whose two padding bits are set is not Atlassian's.
        assert_eq!(tiny_link_id("AAAAAAAAAAB"), None);
    }

    #[test]
    fn every_cloud_link_form_names_its_content() {
        use ConfluenceLink::*;
        for (link, expected) in [
            (
                "https://acme.atlassian.net/wiki/spaces/ENG/pages/123456/Deploy+Runbook",
                Page(123_456),
            ),
            (
                "https://acme.atlassian.net/wiki/spaces/ENG/pages/123456",
                Page(123_456),
            ),
            (
                "https://ACME.atlassian.net./wiki/spaces/~5b1a/pages/42/Notes#Heading",
                Page(42),
            ),
            (
                "https://acme.atlassian.net/wiki/spaces/ENG/blog/2024/03/15/98305/Release+notes",
                BlogPost(98_305),
            ),
            (
                "https://acme.atlassian.net/wiki/spaces/ENG/blog/98305/Release+notes",
                BlogPost(98_305),
            ),
            (
                "https://acme.atlassian.net/wiki/spaces/ENG/blog/98305",
                BlogPost(98_305),
            ),
            (
                "https://acme.atlassian.net/wiki/pages/viewpage.action?pageId=777",
                Content(777),
            ),
            ("https://acme.atlassian.net/wiki/x/AgAB", Content(65_538)),
            (
                "https://acme.atlassian.net/wiki/x/0gKWSQ",
                Content(1_234_567_890),
            ),
            (
                "https://acme.atlassian.net/wiki/display/ENG/Deploy+Runbook",
                NoId,
            ),
        ] {
            assert_eq!(cloud(link), Some(expected), "{link}");
        }
    }

    #[test]
    fn every_data_center_link_form_names_its_content() {
        use ConfluenceLink::*;
        for (link, expected) in [
            (
                "https://wiki.acme.io/pages/viewpage.action?pageId=65538",
                Content(65_538),
            ),
            (
                "https://wiki.acme.io/pages/viewpage.action?spaceKey=ENG&title=Deploy",
                NoId,
            ),
            ("https://wiki.acme.io/display/ENG/Deploy+Runbook", NoId),
            ("https://wiki.acme.io/x/AgAB", Content(65_538)),
            ("https://wiki.acme.io/spaces/ENG/pages/12/Title", Page(12)),
        ] {
            assert_eq!(dc(link), Some(expected), "{link}");
        }
        // A context path: only links under it are the site's.
        let under = site("https://intranet.acme.io/confluence");
        assert_eq!(
            confluence_link("https://intranet.acme.io/confluence/x/AgAB", &under),
            Some(Content(65_538))
        );
        assert_eq!(
            confluence_link("https://intranet.acme.io/x/AgAB", &under),
            None
        );
    }

    #[test]
    fn malformed_ids_and_look_alike_hosts_are_not_read() {
        for link in [
            "https://acme.atlassian.net/wiki/spaces/ENG/pages/abc/Title",
            "https://acme.atlassian.net/wiki/spaces/ENG/pages/0/Title",
            "https://acme.atlassian.net/wiki/spaces/ENG/pages/-12/Title",
            "https://acme.atlassian.net/wiki/spaces/ENG/pages/99999999999999999999",
            "https://acme.atlassian.net/wiki/spaces/ENG/pages",
            "https://acme.atlassian.net/wiki/spaces/ENG/blog/2024/03/15",
            "https://acme.atlassian.net/wiki/spaces/ENG/blog/2024/03/15/x1/Title",
            "https://acme.atlassian.net/wiki/pages/viewpage.action?pageId=12ab",
            "https://acme.atlassian.net/wiki/x/!!",
            "https://acme.atlassian.net/wiki/x/AgABAAAAAAAAA",
            "https://acme.atlassian.net/wiki/spaces/ENG/overview",
            "https://acme.atlassian.net/wiki/spaces//pages/12",
            "https://acme.atlassian.net.evil.example/wiki/spaces/ENG/pages/123456/T",
            "https://evilatlassian.net/wiki/spaces/ENG/pages/123456/T",
            "https://other.atlassian.net/wiki/spaces/ENG/pages/123456/T",
            "https://acme.atlassian.net:8443/wiki/spaces/ENG/pages/123456/T",
            "not a url",
        ] {
            assert_eq!(cloud(link), None, "{link}");
        }
    }

    fn settings(vars: &[(&'static str, &str)]) -> Result<Option<ConfluenceSettings>, ConfigError> {
        let vars: HashMap<&'static str, String> =
            vars.iter().map(|(k, v)| (*k, v.to_string())).collect();
        ConfluenceSettings::from_lookup(&|name| vars.get(name).map(|v| (name, v.clone())))
    }

    #[test]
    fn settings_say_cloud_or_data_center_and_what_is_missing() {
        assert_eq!(settings(&[]), Ok(None));
        let cloud = settings(&[
            (CONFLUENCE_URL, "https://acme.atlassian.net/wiki/"),
            (CONFLUENCE_EMAIL, "bot@acme.io"),
            (CONFLUENCE_TOKEN, "ATATT-secret"),
        ])
        .expect("valid")
        .expect("set");
        assert_eq!(cloud.deployment, Deployment::Cloud);
        assert_eq!(cloud.site.as_str(), "https://acme.atlassian.net/");
        assert_eq!(cloud.secret_setting(), CONFLUENCE_TOKEN);
        assert!(!format!("{cloud:?}").contains("ATATT-secret"));
        let dc = settings(&[
            (CONFLUENCE_URL, "https://intranet.acme.io/confluence/"),
            (CONFLUENCE_PAT, "pat-secret"),
        ])
        .expect("valid")
        .expect("set");
        assert_eq!(dc.deployment, Deployment::DataCenter);
        assert_eq!(dc.site.as_str(), "https://intranet.acme.io/confluence");
        assert_eq!(dc.auth, Auth::Bearer("pat-secret".into()));
        assert!(!format!("{dc:?}").contains("pat-secret"));

        let error = |vars: &[(&'static str, &str)]| settings(vars).expect_err("invalid");
        let e = error(&[(CONFLUENCE_URL, "https://acme.atlassian.net")]);
        assert_eq!(e.name, CONFLUENCE_URL);
        assert!(e.expected.contains("credentials missing"), "{e}");
        let e = error(&[(CONFLUENCE_PAT, "pat-secret")]);
        assert_eq!(e.name, CONFLUENCE_URL);
        assert!(e.expected.starts_with("missing"), "{e}");
        let e = error(&[
            (CONFLUENCE_URL, "https://acme.atlassian.net"),
            (CONFLUENCE_EMAIL, "bot@acme.io"),
        ]);
        assert_eq!(e.name, CONFLUENCE_TOKEN);
        assert!(e.expected.starts_with("missing"), "{e}");
        let e = error(&[
            (CONFLUENCE_URL, "https://acme.atlassian.net"),
            (CONFLUENCE_TOKEN, "ATATT-secret"),
        ]);
        assert_eq!(e.name, CONFLUENCE_EMAIL);
        assert!(!e.to_string().contains("ATATT-secret"));
        let e = error(&[
            (CONFLUENCE_URL, "https://acme.atlassian.net"),
            (CONFLUENCE_EMAIL, "bot@acme.io"),
            (CONFLUENCE_TOKEN, "ATATT-secret"),
            (CONFLUENCE_PAT, "pat-secret"),
        ]);
        assert_eq!(e.name, CONFLUENCE_PAT);
        assert!(!e.to_string().contains("pat-secret"));
        let e = error(&[(CONFLUENCE_URL, "acme"), (CONFLUENCE_PAT, "pat-secret")]);
        assert_eq!(e.name, CONFLUENCE_URL);
    }

    #[test]
    fn statuses_say_which_way_the_page_is_gone() {
        // The shape of Cloud's "Get page by id" example.
        let page = json!({
            "id": "123456", "status": "current", "title": "Deploy Runbook",
            "spaceId": "98306", "parentId": "98305", "parentType": "page",
            "authorId": "5b10ac8d82e05b22cc7d4ef5", "createdAt": "2024-03-01T10:00:00.000Z",
            "version": {"number": 7, "message": "", "minorEdit": false},
            "_links": {"webui": "/spaces/ENG/pages/123456/Deploy+Runbook", "tinyui": "/x/QOIB"}
        });
        let live = judge("https://acme.atlassian.net/x", &page, "page");
        assert_eq!(live.verdict.class, VerdictClass::Verified);
        assert_eq!(live.title.as_deref(), Some("Deploy Runbook"));
        for (status, reason) in [
            ("trashed", "the page is in the Confluence trash"),
            ("archived", "the page is archived"),
            ("deleted", "the page was deleted"),
            ("draft", "the page is an unpublished draft"),
        ] {
            let mut gone = page.clone();
            gone["status"] = json!(status);
            let checked = judge("https://acme.atlassian.net/x", &gone, "page");
            assert_eq!(checked.verdict.class, VerdictClass::Broken, "{status}");
            assert_eq!(checked.verdict.reason.as_deref(), Some(reason));
            assert_eq!(checked.title.as_deref(), Some("Deploy Runbook"));
        }
    }
}
