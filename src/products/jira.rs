//! Jira issues through Jira's REST API, on the Confluence site and with its credentials
//! ([`super::confluence::ConfluenceSettings`]): Cloud `GET /rest/api/3/issue/{key}`,
//! Data Center `GET /rest/api/2/issue/{key}`, both asking only for the summary, which
//! becomes the title (`KEY-123: summary`). Links on that site only: `/browse/KEY-123`,
//! and boards or project pages that name an issue (`?selectedIssue=KEY-123`,
//! `/jira/…/issues/KEY-123`). A Jira on a host of its own (Data Center installs often
//! run `jira.acme.io` beside `wiki.acme.io`) is set with `SOURCEBOT_JIRA_URL`, with
//! credentials of its own or, when none are given, Confluence's. Without either site,
//! Jira links stay with the web prober.
//!
//! For the support check an issue is read with `?fields=summary,description,comment`
//! (permission `read:jira-work`, or browse permission on Data Center): its summary,
//! its description and its comments, further comments paged through
//! `/issue/{key}/comment?startAt=…`. API v3 gives bodies in the Atlassian Document
//! Format ([`super::text::adf`]), v2 in wiki markup ([`super::text::wiki`]).

use super::api::{self, Auth, ProductApi, ProductEnv};
use super::confluence::{on_site, ConfluenceSettings, Deployment, SiteNames};
use super::document;
use super::text::{adf::adf_to_text, wiki::wiki_to_text};
use crate::model::{SourceKind, Verdict};
use crate::page::PageRead;
use crate::setting::ConfigError;
use crate::verify::{Checked, InternalChecker};
use futures_util::future::BoxFuture;
use serde_json::Value;
use std::sync::Arc;
use std::time::Instant;
use url::Url;

/// `SOURCEBOT_JIRA_URL`: Jira's own site, when it is not the Confluence site.
pub const JIRA_URL: &str = "SOURCEBOT_JIRA_URL";
/// `SOURCEBOT_JIRA_EMAIL`: Cloud, the e-mail of the account whose API token is
/// `SOURCEBOT_JIRA_TOKEN` (Confluence's when unset).
pub const JIRA_EMAIL: &str = "SOURCEBOT_JIRA_EMAIL";
/// `SOURCEBOT_JIRA_TOKEN`: Cloud, that account's API token.
pub const JIRA_TOKEN: &str = "SOURCEBOT_JIRA_TOKEN";
/// `SOURCEBOT_JIRA_PAT`: Data Center, a personal access token.
pub const JIRA_PAT: &str = "SOURCEBOT_JIRA_PAT";

/// Jira's own settings.
pub const JIRA_SETTINGS: SiteNames = SiteNames {
    product: "Jira",
    url: JIRA_URL,
    email: JIRA_EMAIL,
    token: JIRA_TOKEN,
    pat: JIRA_PAT,
};

/// The Jira site to check: `SOURCEBOT_JIRA_URL` with its own credentials, or with
/// Confluence's when it has none; else the Confluence site itself; `None` without
/// either.
pub fn site_settings(
    get: &impl Fn(&'static str) -> Option<(&'static str, String)>,
    confluence: Option<&ConfluenceSettings>,
) -> Result<Option<ConfluenceSettings>, ConfigError> {
    let own_credentials = [JIRA_EMAIL, JIRA_TOKEN, JIRA_PAT]
        .iter()
        .any(|name| get(name).is_some());
    if own_credentials || get(JIRA_URL).is_none() {
        return match ConfluenceSettings::read_site(get, &JIRA_SETTINGS)? {
            Some(jira) => Ok(Some(jira)),
            None => Ok(confluence.cloned()),
        };
    }
    // Jira's site, Confluence's credentials.
    let Some(confluence) = confluence else {
        return Err(ConfigError {
            name: JIRA_URL,
            value: get(JIRA_URL).map(|(_, v)| v).unwrap_or_default(),
            expected: format!(
                "credentials missing: set {JIRA_EMAIL} and {JIRA_TOKEN} (Cloud) or {JIRA_PAT} (Data Center), or Confluence's"
            ),
        });
    };
    let Some(mut jira) = ConfluenceSettings::read_site(
        &|name| match name {
            n if n == JIRA_URL => get(JIRA_URL),
            n if n == JIRA_EMAIL || n == JIRA_TOKEN => match &confluence.auth {
                Auth::Basic { user, password } => Some((
                    name,
                    if n == JIRA_EMAIL {
                        user.clone()
                    } else {
                        password.clone()
                    },
                )),
                _ => None,
            },
            n if n == JIRA_PAT => match &confluence.auth {
                Auth::Bearer(token) => Some((name, token.clone())),
                _ => None,
            },
            _ => None,
        },
        &JIRA_SETTINGS,
    )?
    else {
        return Ok(None);
    };
    // A refusal names the setting that holds the secret: Confluence's.
    jira.secret = confluence.secret;
    Ok(Some(jira))
}

/// Whether `key` is a Jira issue key: `[A-Z][A-Z0-9_]+-[1-9][0-9]*`.
pub fn is_issue_key(key: &str) -> bool {
    let Some((project, number)) = key.rsplit_once('-') else {
        return false;
    };
    let mut letters = project.bytes();
    letters.next().is_some_and(|b| b.is_ascii_uppercase())
        && project.len() >= 2
        && letters.all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
        && number.len() <= 18
        && number
            .bytes()
            .next()
            .is_some_and(|b| (b'1'..=b'9').contains(&b))
        && number.bytes().all(|b| b.is_ascii_digit())
}

/// The issue key a link on `site` names, if it is a Jira issue link.
pub fn issue_key(url: &str, site: &Url) -> Option<String> {
    let parsed = Url::parse(url).ok()?;
    let segments = on_site(&parsed, site)?;
    let words: Vec<&str> = segments.iter().map(String::as_str).collect();
    let selected = || {
        parsed
            .query_pairs()
            .find(|(k, _)| k == "selectedIssue")
            .map(|(_, v)| v.into_owned())
    };
    let key = match words.as_slice() {
        ["browse", key] => Some(key.to_string()),
        ["jira", .., "issues", key] if is_issue_key(key) => Some(key.to_string()),
        ["jira", ..] | ["secure", "RapidBoard.jspa"] => selected(),
        _ => None,
    }?;
    is_issue_key(&key).then_some(key)
}

/// The checker for Jira on the site of `settings` (from [`site_settings`]).
pub fn checker(
    settings: &ConfluenceSettings,
    env: &ProductEnv,
) -> Result<Arc<dyn InternalChecker>, String> {
    Ok(Arc::new(JiraChecker {
        api: ProductApi::new("Jira", settings.site.clone(), env)?,
        site: settings.site.clone(),
        auth: settings.auth.clone(),
        version: match settings.deployment {
            Deployment::Cloud => "3",
            Deployment::DataCenter => "2",
        },
        secret: settings.secret_setting(),
    }))
}

struct JiraChecker {
    api: ProductApi,
    site: Url,
    auth: Auth,
    /// The REST API version: 3 on Cloud, 2 on Data Center.
    version: &'static str,
    /// The setting to fix on a 401.
    secret: &'static str,
}

/// The title of an issue: its key (as Jira now gives it: a moved issue has a new one)
/// and summary.
fn issue_title(asked: &str, issue: &Value) -> String {
    let key = issue.get("key").and_then(Value::as_str).unwrap_or(asked);
    match issue
        .get("fields")
        .and_then(|f| f.get("summary"))
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
    {
        Some(summary) => format!("{key}: {summary}"),
        None => key.to_string(),
    }
}

/// Comment pages of 100 asked for at most, beyond those the issue came with.
const MAX_COMMENT_PAGES: usize = 5;
/// Comments asked for per page.
const COMMENTS_PER_PAGE: usize = 100;

impl JiraChecker {
    /// A description or comment body as text: API v3's Atlassian Document Format, or
    /// v2's wiki markup.
    fn body_text(body: &Value) -> String {
        match body {
            Value::String(markup) => wiki_to_text(markup),
            Value::Null => String::new(),
            adf => adf_to_text(adf),
        }
    }

    /// The text of the issue `key`: its key and summary, description and comments (the
    /// comments the issue came with, then further pages of them, at most
    /// [`MAX_COMMENT_PAGES`]); truncated when more comments remain.
    async fn read_issue(&self, key: &str) -> PageRead {
        let deadline = self.api.read_deadline();
        let request = self.api.url(
            &["rest", "api", self.version, "issue", key],
            &[("fields", "summary,description,comment")],
        );
        let issue = match self
            .api
            .get_document(request, &self.auth, &[], deadline)
            .await
        {
            Ok(issue) => issue,
            Err(failure) => return document::failed(&self.api, &failure, self.secret),
        };
        let title = issue_title(key, &issue);
        let fields = issue.get("fields").cloned().unwrap_or(Value::Null);
        let mut parts = vec![title.clone()];
        parts.push(Self::body_text(
            fields.get("description").unwrap_or(&Value::Null),
        ));
        let comment = fields.get("comment").cloned().unwrap_or(Value::Null);
        let mut comments: Vec<Value> = comment
            .get("comments")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let total = comment
            .get("total")
            .and_then(Value::as_u64)
            .map_or(comments.len(), |t| usize::try_from(t).unwrap_or(usize::MAX));
        let mut pages = 0;
        while comments.len() < total && pages < MAX_COMMENT_PAGES {
            pages += 1;
            let start = comments.len().to_string();
            let per_page = COMMENTS_PER_PAGE.to_string();
            let request = self.api.url(
                &["rest", "api", self.version, "issue", key, "comment"],
                &[("startAt", &start), ("maxResults", &per_page)],
            );
            let page = match self
                .api
                .get_document(request, &self.auth, &[], deadline)
                .await
            {
                Ok(page) => page,
                Err(failure) => return document::failed(&self.api, &failure, self.secret),
            };
            let more = page
                .get("comments")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            if more.is_empty() {
                break;
            }
            comments.extend(more);
        }
        let truncated = comments.len() < total;
        parts.extend(
            comments
                .iter()
                .map(|c| Self::body_text(c.get("body").unwrap_or(&Value::Null))),
        );
        document::text(&self.api, parts, Some(title), truncated)
    }
}

impl InternalChecker for JiraChecker {
    fn handles(&self, _kind: SourceKind, url: &str) -> bool {
        issue_key(url, &self.site).is_some()
    }

    fn check<'a>(&'a self, url: &'a str) -> BoxFuture<'a, Verdict> {
        Box::pin(async move { self.check_titled(url).await.verdict })
    }

    fn check_titled<'a>(&'a self, url: &'a str) -> BoxFuture<'a, Checked> {
        Box::pin(async move {
            let Some(key) = issue_key(url, &self.site) else {
                return api::not_checked("not checked: not a Jira issue link sourcebot reads");
            };
            let deadline = Instant::now() + self.api.timeout();
            let request = self.api.url(
                &["rest", "api", self.version, "issue", &key],
                &[("fields", "summary")],
            );
            match self.api.get_json(request, &self.auth, &[], deadline).await {
                Ok(issue) => api::found(url, Some(issue_title(&key, &issue)), "the Jira issue"),
                Err(failure) => api::failure(&self.api, url, &failure, self.secret, true),
            }
        })
    }

    fn read<'a>(&'a self, url: &'a str) -> BoxFuture<'a, Option<PageRead>> {
        Box::pin(async move {
            let key = issue_key(url, &self.site)?;
            Some(self.read_issue(&key).await)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn key(url: &str) -> Option<String> {
        issue_key(
            url,
            &Url::parse("https://acme.atlassian.net").expect("site"),
        )
    }

    #[test]
    fn every_link_form_names_its_issue() {
        for link in [
            "https://acme.atlassian.net/browse/OPS-123",
            "https://acme.atlassian.net/browse/OPS-123?focusedCommentId=10042",
            "https://acme.atlassian.net/browse/OPS-123/",
            "https://acme.atlassian.net/jira/software/projects/OPS/boards/1?selectedIssue=OPS-123",
            "https://acme.atlassian.net/jira/software/c/projects/OPS/issues/OPS-123",
            "https://acme.atlassian.net/secure/RapidBoard.jspa?rapidView=1&selectedIssue=OPS-123",
        ] {
            assert_eq!(key(link).as_deref(), Some("OPS-123"), "{link}");
        }
        assert_eq!(
            key("https://acme.atlassian.net/browse/A1_B2-9").as_deref(),
            Some("A1_B2-9")
        );
    }

    #[test]
    fn malformed_keys_and_look_alike_hosts_are_not_read() {
        for link in [
            "https://acme.atlassian.net/browse/ops-123",
            "https://acme.atlassian.net/browse/O-123",
            "https://acme.atlassian.net/browse/OPS-0",
            "https://acme.atlassian.net/browse/OPS-012",
            "https://acme.atlassian.net/browse/OPS-",
            "https://acme.atlassian.net/browse/1OPS-2",
            "https://acme.atlassian.net/browse/OPS-12a",
            "https://acme.atlassian.net/browse/OPS",
            "https://acme.atlassian.net/browse/OPS-1/extra",
            "https://acme.atlassian.net/jira/software/projects/OPS/boards/1",
            "https://acme.atlassian.net/jira/software/projects/OPS/boards/1?selectedIssue=nope",
            "https://acme.atlassian.net/wiki/spaces/OPS/pages/1?selectedIssue=OPS-1",
            "https://acme.atlassian.net.evil.example/browse/OPS-123",
            "https://evilatlassian.net/browse/OPS-123",
            "https://other.atlassian.net/browse/OPS-123",
        ] {
            assert_eq!(key(link), None, "{link}");
        }
    }

    #[test]
    fn titles_are_key_and_summary() {
        // The shape of Jira's "Get issue" reply with fields=summary.
        let issue = json!({
            "expand": "renderedFields,names,schema",
            "id": "10002", "self": "https://acme.atlassian.net/rest/api/3/issue/10002",
            "key": "OPS-123", "fields": {"summary": "Freeze deploys on Fridays"}
        });
        assert_eq!(
            issue_title("OPS-123", &issue),
            "OPS-123: Freeze deploys on Fridays"
        );
        assert_eq!(issue_title("OPS-9", &json!({"fields": {}})), "OPS-9");
    }
}
