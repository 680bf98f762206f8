//! Internal sources checked through their own products' APIs, with credentials the
//! operator gives: one checker per product behind the verifier's [`InternalChecker`]
//! interface. A link only names the item (its id is parsed from the link, and the
//! host must be the product's); the request goes to the configured API base
//! ([`api::ProductApi`]). A product without settings still recognises its links and
//! says plainly that they are not checked and which setting would check them.
//!
//! Verdicts are remembered like web verdicts (verified ones as long as
//! `SOURCEBOT_VERIFY_CACHE_TTL`, the rest as long as `SOURCEBOT_VERIFY_CACHE_TTL_FAILED`),
//! and checks of a link under way are joined rather than repeated ([`Cached`]).

pub mod api;
pub mod confluence;
pub mod document;
pub mod github;
pub mod google;
pub mod jira;
pub mod microsoft;
pub mod notion;
pub mod text;
pub mod token;

pub use api::ProductEnv;

use crate::model::{SourceKind, Verdict, VerdictClass};
use crate::setting::ConfigError;
use crate::state::memory::TtlMap;
use crate::verify::flights::Flights;
use crate::verify::{Checked, Checkers, InternalChecker, VerifySettings};
use futures_util::future::BoxFuture;
use std::sync::Arc;
use std::time::{Duration, Instant};
use url::Url;

/// The products' settings, each `None` when not configured.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProductSettings {
    /// Notion (`SOURCEBOT_NOTION_TOKEN`).
    pub notion: Option<notion::NotionSettings>,
    /// GitHub (`SOURCEBOT_GITHUB_TOKEN`).
    pub github: Option<github::GithubSettings>,
    /// Google Drive (`SOURCEBOT_GOOGLE_CREDENTIALS`).
    pub google: Option<google::GoogleSettings>,
    /// SharePoint and OneDrive through Microsoft Graph (`SOURCEBOT_MS_TENANT_ID`,
    /// `SOURCEBOT_MS_CLIENT_ID`, `SOURCEBOT_MS_CLIENT_SECRET`).
    pub microsoft: Option<microsoft::MicrosoftSettings>,
    /// Confluence (`SOURCEBOT_CONFLUENCE_URL` and its credentials).
    pub confluence: Option<confluence::ConfluenceSettings>,
    /// Jira: its own site (`SOURCEBOT_JIRA_URL`), or Confluence's.
    pub jira: Option<confluence::ConfluenceSettings>,
}

impl ProductSettings {
    /// Reads every product's settings through `get` (a variable's non-empty value).
    pub fn from_lookup(
        get: &impl Fn(&'static str) -> Option<(&'static str, String)>,
    ) -> Result<ProductSettings, ConfigError> {
        Ok(ProductSettings {
            notion: notion::NotionSettings::from_lookup(get)?,
            github: github::GithubSettings::from_lookup(get)?,
            google: google::GoogleSettings::from_lookup(get)?,
            microsoft: microsoft::MicrosoftSettings::from_lookup(get)?,
            confluence: confluence::ConfluenceSettings::from_lookup(get)?,
            jira: None,
        })
        .and_then(|mut settings| {
            settings.jira = jira::site_settings(get, settings.confluence.as_ref())?;
            Ok(settings)
        })
    }
}

/// Every product's checker (configured, or saying which setting is missing), as one
/// checker, each caching its verdicts as `env.verify` says. `None` when no product has
/// a checker at all.
pub fn checker(settings: &ProductSettings, env: &ProductEnv) -> Option<Arc<dyn InternalChecker>> {
    let mut checkers: Vec<Arc<dyn InternalChecker>> = Vec::new();
    let mut add = |checker: Result<Arc<dyn InternalChecker>, String>| match checker {
        Ok(checker) => checkers.push(Arc::new(Cached::new(checker, &env.verify))),
        Err(error) => tracing::warn!(%error, "a product checker is off"),
    };
    add(notion::checker(settings.notion.as_ref(), env));
    if let Some(github) = &settings.github {
        add(github::checker(github, env));
    }
    add(google::checker(settings.google.as_ref(), env));
    add(microsoft::checker(settings.microsoft.as_ref(), env));
    add(confluence::checker(settings.confluence.as_ref(), env));
    // Without settings Jira links stay with the web prober.
    if let Some(site) = &settings.jira {
        add(jira::checker(site, env));
    }
    match checkers.len() {
        0 => None,
        1 => checkers.pop(),
        _ => Some(Arc::new(Checkers(checkers))),
    }
}

/// A checker whose verdicts are remembered and whose concurrent checks of one link
/// are joined.
pub struct Cached {
    inner: Arc<dyn InternalChecker>,
    remembered: TtlMap<String, (Instant, Checked)>,
    flights: Flights<Checked>,
    ttl_verified: Duration,
    ttl_failed: Duration,
}

impl Cached {
    /// `inner`, remembering as `verify` says.
    pub fn new(inner: Arc<dyn InternalChecker>, verify: &VerifySettings) -> Cached {
        Cached {
            inner,
            remembered: TtlMap::new(
                verify.cache_ttl_verified.max(verify.cache_ttl_failed),
                verify.cache_max_entries.max(1),
            ),
            flights: Flights::default(),
            ttl_verified: verify.cache_ttl_verified,
            ttl_failed: verify.cache_ttl_failed,
        }
    }

    fn ttl(&self, verdict: &Verdict) -> Duration {
        match verdict.class {
            VerdictClass::Verified | VerdictClass::Broken => self.ttl_verified,
            // A time-out or a refused credential may be gone in a minute.
            _ => self.ttl_failed,
        }
    }
}

impl InternalChecker for Cached {
    fn handles(&self, kind: SourceKind, url: &str) -> bool {
        self.inner.handles(kind, url)
    }

    fn check<'a>(&'a self, url: &'a str) -> BoxFuture<'a, Verdict> {
        Box::pin(async move { self.check_titled(url).await.verdict })
    }

    fn check_titled<'a>(&'a self, url: &'a str) -> BoxFuture<'a, Checked> {
        Box::pin(async move {
            if let Some((expires, checked)) = self.remembered.get(&url.to_string()) {
                if Instant::now() < expires {
                    return checked;
                }
            }
            self.flights
                .run(
                    url,
                    async {
                        let checked = self.inner.check_titled(url).await;
                        let ttl = self.ttl(&checked.verdict);
                        if !ttl.is_zero() {
                            self.remembered
                                .insert(url.to_string(), (Instant::now() + ttl, checked.clone()));
                        }
                        checked
                    },
                    Clone::clone,
                )
                .await
        })
    }

    fn read<'a>(&'a self, url: &'a str) -> BoxFuture<'a, Option<crate::page::PageRead>> {
        self.inner.read(url)
    }
}

/// The API base in `name`, or `default`: an http(s) URL.
pub(crate) fn api_base(
    get: &impl Fn(&'static str) -> Option<(&'static str, String)>,
    name: &'static str,
    default: &str,
) -> Result<Url, ConfigError> {
    let value = get(name).map_or_else(|| default.to_string(), |(_, v)| v.trim().to_string());
    Url::parse(&value)
        .ok()
        .filter(|u| matches!(u.scheme(), "http" | "https") && u.host_str().is_some())
        .ok_or_else(|| ConfigError {
            name,
            value,
            expected: format!("expected an http(s) URL, e.g. {default}"),
        })
}

/// Whether `host` is `domain` or one of its subdomains (`acme.atlassian.net` is under
/// `atlassian.net`; `atlassian.net.evil.example` is not).
pub fn host_under(host: &str, domain: &str) -> bool {
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    host == domain
        || host
            .strip_suffix(domain)
            .is_some_and(|rest| rest.ends_with('.'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn look_alike_hosts_are_not_under_the_domain() {
        assert!(host_under("acme.atlassian.net", "atlassian.net"));
        assert!(host_under("ACME.atlassian.net.", "atlassian.net"));
        assert!(host_under("notion.so", "notion.so"));
        assert!(!host_under("atlassian.net.evil.example", "atlassian.net"));
        assert!(!host_under("evilatlassian.net", "atlassian.net"));
    }
}
