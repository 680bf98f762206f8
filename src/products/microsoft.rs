//! SharePoint and OneDrive links through Microsoft Graph's shared-item lookup
//! (`GET /v1.0/shares/{u!…}/driveItem`, the link encoded as Graph documents: `u!` and
//! the unpadded base64url of the link), as an app registration with the client
//! credentials grant (`SOURCEBOT_MS_TENANT_ID`, `SOURCEBOT_MS_CLIENT_ID`,
//! `SOURCEBOT_MS_CLIENT_SECRET`). The token, asked of
//! `{login}/{tenant}/oauth2/v2.0/token` for the `https://graph.microsoft.com/.default`
//! scope, is kept until a minute before it expires ([`TokenCache`]).
//!
//! Links: any link on a `*.sharepoint.com` host, `onedrive.live.com` or `1drv.ms`
//! ([`service`]); the whole link is what Graph resolves, the request itself only goes
//! to the configured Graph base.
//!
//! For the support check the file is read (`/shares/{u!…}/driveItem/content`, with
//! `Files.Read.All` or `Sites.Read.All`): Graph answers with a redirect to a
//! pre-authenticated download, which is followed without the token; .docx, .pptx,
//! .xlsx, PDF and text files are read by the page reader.

use super::api::{self, Auth, ProductApi, ProductEnv};
use super::token::{read_token_reply, token_failure, Token, TokenCache};
use super::{api_base, document};
use crate::model::{SourceKind, Verdict};
use crate::page::PageRead;
use crate::setting::ConfigError;
use crate::verify::{Checked, InternalChecker};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use futures_util::future::BoxFuture;
use serde_json::Value;
use std::sync::Arc;
use std::time::Instant;
use url::Url;

/// `SOURCEBOT_MS_TENANT_ID`: the Microsoft Entra tenant (its id or a verified domain).
pub const MS_TENANT_ID: &str = "SOURCEBOT_MS_TENANT_ID";
/// `SOURCEBOT_MS_CLIENT_ID`: the app registration's application (client) id.
pub const MS_CLIENT_ID: &str = "SOURCEBOT_MS_CLIENT_ID";
/// `SOURCEBOT_MS_CLIENT_SECRET`: a client secret of that app registration.
pub const MS_CLIENT_SECRET: &str = "SOURCEBOT_MS_CLIENT_SECRET";
/// `SOURCEBOT_MS_LOGIN_URL`: the sign-in authority (default
/// `https://login.microsoftonline.com`).
pub const MS_LOGIN_URL: &str = "SOURCEBOT_MS_LOGIN_URL";
/// `SOURCEBOT_MS_GRAPH_URL`: Microsoft Graph (default `https://graph.microsoft.com`).
pub const MS_GRAPH_URL: &str = "SOURCEBOT_MS_GRAPH_URL";
/// The scope asked for: the app's granted Graph permissions.
pub const GRAPH_SCOPE: &str = "https://graph.microsoft.com/.default";

/// How to reach Microsoft Graph.
#[derive(Clone, PartialEq, Eq)]
pub struct MicrosoftSettings {
    /// The tenant.
    pub tenant_id: String,
    /// The app registration's client id.
    pub client_id: String,
    /// Its client secret (never printed).
    pub client_secret: String,
    /// The sign-in authority's base.
    pub login_url: Url,
    /// Graph's base.
    pub graph_url: Url,
}

impl std::fmt::Debug for MicrosoftSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MicrosoftSettings")
            .field("tenant_id", &self.tenant_id)
            .field("client_id", &self.client_id)
            .field("client_secret", &"<redacted>")
            .field("login_url", &self.login_url.as_str())
            .field("graph_url", &self.graph_url.as_str())
            .finish()
    }
}

impl MicrosoftSettings {
    /// `None` when none of tenant, client id and secret is set; a `ConfigError` naming
    /// the missing one when only some are.
    pub fn from_lookup(
        get: &impl Fn(&'static str) -> Option<(&'static str, String)>,
    ) -> Result<Option<MicrosoftSettings>, ConfigError> {
        let names = [MS_TENANT_ID, MS_CLIENT_ID, MS_CLIENT_SECRET];
        let values = names.map(|name| get(name).map(|(_, v)| v.trim().to_string()));
        if values.iter().all(Option::is_none) {
            return Ok(None);
        }
        if let Some(missing) = names
            .iter()
            .zip(&values)
            .find_map(|(name, value)| value.is_none().then_some(*name))
        {
            return Err(ConfigError {
                name: missing,
                value: String::new(),
                expected: format!(
                    "it is needed with the others: set all of {MS_TENANT_ID}, {MS_CLIENT_ID} and {MS_CLIENT_SECRET}, or none"
                ),
            });
        }
        let [Some(tenant_id), Some(client_id), Some(client_secret)] = values else {
            return Ok(None);
        };
        if !tenant_id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.'))
        {
            return Err(ConfigError {
                name: MS_TENANT_ID,
                value: tenant_id,
                expected:
                    "expected the tenant's id (a GUID) or one of its domains (acme.onmicrosoft.com)"
                        .into(),
            });
        }
        Ok(Some(MicrosoftSettings {
            tenant_id,
            client_id,
            client_secret,
            login_url: api_base(get, MS_LOGIN_URL, "https://login.microsoftonline.com")?,
            graph_url: api_base(get, MS_GRAPH_URL, "https://graph.microsoft.com")?,
        }))
    }
}

/// Which service a link belongs to (`SharePoint` or `OneDrive`), if it is one Graph
/// resolves: `*.sharepoint.com` (not the bare domain, not look-alikes),
/// `onedrive.live.com`, `1drv.ms`.
pub fn service(url: &str) -> Option<&'static str> {
    let url = Url::parse(url).ok()?;
    if !matches!(url.scheme(), "http" | "https") {
        return None;
    }
    let host = url.host_str()?.trim_end_matches('.').to_ascii_lowercase();
    if host
        .strip_suffix(".sharepoint.com")
        .is_some_and(|tenant| !tenant.is_empty() && !tenant.ends_with('.'))
    {
        Some("SharePoint")
    } else if host == "onedrive.live.com" || host == "1drv.ms" {
        Some("OneDrive")
    } else {
        None
    }
}

/// Graph's sharing token for a link: `u!` and the unpadded base64url of the link as
/// written (Graph's "Encoding sharing URLs").
pub fn share_id(url: &str) -> String {
    format!("u!{}", URL_SAFE_NO_PAD.encode(url))
}

/// The checker: Graph with `settings`, or, without them, one that says so.
pub fn checker(
    settings: Option<&MicrosoftSettings>,
    env: &ProductEnv,
) -> Result<Arc<dyn InternalChecker>, String> {
    let graph = match settings {
        Some(settings) => Some(Graph {
            api: ProductApi::new("Microsoft 365", settings.graph_url.clone(), env)?,
            token_url: api::url_under(
                &settings.login_url,
                &[&settings.tenant_id, "oauth2", "v2.0", "token"],
                &[],
            ),
            settings: settings.clone(),
            token: TokenCache::default(),
        }),
        None => None,
    };
    Ok(Arc::new(MicrosoftChecker { graph }))
}

/// Graph with an app registration's credentials.
struct Graph {
    api: ProductApi,
    token_url: Url,
    settings: MicrosoftSettings,
    token: TokenCache,
}

impl Graph {
    /// A new access token from the tenant's token endpoint.
    async fn fetch_token(&self, deadline: Instant) -> Result<Token, api::ApiFailure> {
        let reply = self
            .api
            .post_form(
                self.token_url.clone(),
                &[
                    ("client_id", self.settings.client_id.as_str()),
                    ("client_secret", self.settings.client_secret.as_str()),
                    ("scope", GRAPH_SCOPE),
                    ("grant_type", "client_credentials"),
                ],
                deadline,
            )
            .await?;
        read_token_reply(&reply)
    }
}

impl Graph {
    /// An access token for a call ending by `deadline`.
    async fn token(&self, deadline: Instant) -> Result<String, api::ApiFailure> {
        self.token
            .get(deadline, || self.fetch_token(deadline))
            .await
    }

    /// The text of the file the sharing link `url` names: its item (name, size,
    /// type), then its content (`/driveItem/content`, whose redirect to a
    /// pre-authenticated download is followed without the token), read by its type.
    async fn read(&self, url: &str) -> PageRead {
        let deadline = self.api.read_deadline();
        let token = match self.token(deadline).await {
            Ok(token) => Auth::Bearer(token),
            Err(failure) => return document::failed(&self.api, &failure, MS_CLIENT_SECRET),
        };
        let share = share_id(url);
        let request = self.api.url(&["v1.0", "shares", &share, "driveItem"], &[]);
        let item = match self.api.get_json(request, &token, &[], deadline).await {
            Ok(item) => item,
            Err(failure) => return document::failed(&self.api, &failure, MS_CLIENT_SECRET),
        };
        if item.get("folder").is_some() {
            return PageRead::unreadable("a folder has no text of its own");
        }
        let name = item.get("name").and_then(Value::as_str).map(str::to_string);
        let mime = item
            .pointer("/file/mimeType")
            .and_then(Value::as_str)
            .map(str::to_string);
        let max = self.api.max_document_bytes();
        if item
            .get("size")
            .and_then(Value::as_u64)
            .is_some_and(|size| size > u64::try_from(max).unwrap_or(u64::MAX))
        {
            return document::failed(&self.api, &api::ApiFailure::TooLarge(max), MS_CLIENT_SECRET);
        }
        let content = self
            .api
            .url(&["v1.0", "shares", &share, "driveItem", "content"], &[]);
        match self
            .api
            .get_bytes(content, &token, &[("Accept", "*/*")], deadline)
            .await
        {
            Ok(download) => document::file(&self.api, download, mime.as_deref(), name).await,
            Err(failure) => document::failed(&self.api, &failure, MS_CLIENT_SECRET),
        }
    }
}

struct MicrosoftChecker {
    graph: Option<Graph>,
}

/// What a driveItem says about `url`, a link of `service`.
fn judge(url: &str, service: &str, item: &Value) -> Checked {
    let name = item.get("name").and_then(Value::as_str).map(str::to_string);
    let kind = if item.get("folder").is_some() {
        "folder"
    } else {
        "file"
    };
    if item.get("deleted").is_some_and(|d| !d.is_null()) {
        api::gone(url, name, &format!("the {kind} is deleted in {service}"))
    } else {
        api::found(url, name, &format!("the {service} {kind}"))
    }
}

impl InternalChecker for MicrosoftChecker {
    fn handles(&self, _kind: SourceKind, url: &str) -> bool {
        service(url).is_some()
    }

    fn check<'a>(&'a self, url: &'a str) -> BoxFuture<'a, Verdict> {
        Box::pin(async move { self.check_titled(url).await.verdict })
    }

    fn check_titled<'a>(&'a self, url: &'a str) -> BoxFuture<'a, Checked> {
        Box::pin(async move {
            let Some(service) = service(url) else {
                return api::not_checked("not a SharePoint or OneDrive link");
            };
            let Some(graph) = &self.graph else {
                return api::not_checked(&format!(
                    "not checked (no Microsoft credentials: set {MS_TENANT_ID}, {MS_CLIENT_ID} and {MS_CLIENT_SECRET})"
                ));
            };
            let deadline = Instant::now() + graph.api.timeout();
            let token = match graph.token(deadline).await {
                Ok(token) => token,
                Err(failure) => return token_failure(&graph.api, url, &failure, MS_CLIENT_SECRET),
            };
            let request = graph
                .api
                .url(&["v1.0", "shares", &share_id(url), "driveItem"], &[]);
            match graph
                .api
                .get_json(request, &Auth::Bearer(token), &[], deadline)
                .await
            {
                Ok(item) => judge(url, service, &item),
                Err(failure) => api::failure(&graph.api, url, &failure, MS_CLIENT_SECRET, true),
            }
        })
    }

    fn read<'a>(&'a self, url: &'a str) -> BoxFuture<'a, Option<PageRead>> {
        Box::pin(async move {
            service(url)?;
            Some(self.graph.as_ref()?.read(url).await)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::VerdictClass;
    use serde_json::json;

    #[test]
    fn links_are_encoded_as_graph_documents() {
        // The example in Graph's "Access shared items" (shares-get) reference.
        assert_eq!(
            share_id("https://onedrive.live.com/redir?resid=1231244193912!12&authKey=1201919!12921!1"),
            "u!aHR0cHM6Ly9vbmVkcml2ZS5saXZlLmNvbS9yZWRpcj9yZXNpZD0xMjMxMjQ0MTkzOTEyITEyJmF1dGhLZXk9MTIwMTkxOSExMjkyMSEx"
        );
        // `+`, `/` and padding become `-`, `_` and nothing.
        let encoded = share_id("https://acme.sharepoint.com/:w:/s/eng/EV~?>x");
        assert!(encoded.starts_with("u!"));
        assert!(!encoded.contains(['+', '/', '=']), "{encoded}");
    }

    #[test]
    fn only_sharepoint_and_onedrive_hosts_are_read() {
        for (link, expected) in [
            (
                "https://acme.sharepoint.com/sites/eng/Shared%20Documents/Runbook.docx",
                Some("SharePoint"),
            ),
            (
                "https://acme-my.sharepoint.com/:w:/g/personal/ann_acme_com/EbX1?e=abc",
                Some("SharePoint"),
            ),
            (
                "https://ACME.SharePoint.com./:x:/r/sites/eng/Budget.xlsx",
                Some("SharePoint"),
            ),
            (
                "https://onedrive.live.com/redir?resid=1231244193912!12",
                Some("OneDrive"),
            ),
            ("https://1drv.ms/w/s!AkAbc123", Some("OneDrive")),
            ("https://sharepoint.com/sites/eng", None),
            ("https://acme.sharepoint.com.evil.example/sites/eng", None),
            ("https://evilsharepoint.com/sites/eng", None),
            ("https://acme.sharepoint.co/sites/eng", None),
            ("https://onedrive.live.com.evil.example/redir?resid=1", None),
            ("https://x.1drv.ms/w/s!AkAbc123", None),
            ("ftp://acme.sharepoint.com/x", None),
            ("not a link", None),
        ] {
            assert_eq!(service(link), expected, "{link}");
        }
    }

    fn lookup(vars: &[(&'static str, &str)]) -> Result<Option<MicrosoftSettings>, ConfigError> {
        let vars: Vec<(&'static str, String)> =
            vars.iter().map(|(k, v)| (*k, v.to_string())).collect();
        MicrosoftSettings::from_lookup(&|name| vars.iter().find(|(k, _)| *k == name).cloned())
    }

    #[test]
    fn all_three_credentials_or_none() {
        assert_eq!(lookup(&[]), Ok(None));
        let error = lookup(&[
            (MS_TENANT_ID, "acme.onmicrosoft.com"),
            (MS_CLIENT_ID, "app"),
        ])
        .unwrap_err();
        assert_eq!(error.name, MS_CLIENT_SECRET);
        let error = lookup(&[(MS_CLIENT_SECRET, "s3cret")]).unwrap_err();
        assert_eq!(error.name, MS_TENANT_ID);
        assert!(!error.to_string().contains("s3cret"));
        let settings = lookup(&[
            (MS_TENANT_ID, "acme.onmicrosoft.com"),
            (MS_CLIENT_ID, "app"),
            (MS_CLIENT_SECRET, "s3cret"),
        ])
        .unwrap()
        .unwrap();
        assert_eq!(settings.graph_url.as_str(), "https://graph.microsoft.com/");
        assert!(!format!("{settings:?}").contains("s3cret"));
        let error = lookup(&[
            (MS_TENANT_ID, "acme/../x"),
            (MS_CLIENT_ID, "app"),
            (MS_CLIENT_SECRET, "s3cret"),
        ])
        .unwrap_err();
        assert_eq!(error.name, MS_TENANT_ID);
    }

    #[test]
    fn deleted_items_are_gone_and_names_are_titles() {
        // The shape of Graph's driveItem reply.
        let item = json!({
            "id": "01BYE5RZ6QN3ZWBTUFOFD3GSPGOHDJD36K",
            "name": "Incident runbook.docx",
            "size": 1234,
            "file": {"mimeType": "application/vnd.openxmlformats-officedocument.wordprocessingml.document"},
            "parentReference": {"driveId": "b!x", "id": "01BYE5RZ56Y2GOVW7725BZO354PWSELRRZ"}
        });
        let url = "https://acme.sharepoint.com/sites/eng/Runbook.docx";
        let live = judge(url, "SharePoint", &item);
        assert_eq!(live.verdict.class, VerdictClass::Verified);
        assert_eq!(
            live.verdict.reason.as_deref(),
            Some("the SharePoint file exists")
        );
        assert_eq!(live.title.as_deref(), Some("Incident runbook.docx"));
        let mut deleted = item.clone();
        deleted["deleted"] = json!({"state": "softDeleted"});
        let gone = judge(url, "SharePoint", &deleted);
        assert_eq!(gone.verdict.class, VerdictClass::Broken);
        assert_eq!(
            gone.verdict.reason.as_deref(),
            Some("the file is deleted in SharePoint")
        );
    }
}
