//! GitHub links through GitHub's REST API with a token (`SOURCEBOT_GITHUB_TOKEN`), so
//! private repositories are checked and public ones are not rate-limited as anonymous
//! probes are. A link into a repository the token can read and the public cannot
//! (private, or internal to an enterprise: asked once per repository) is internal, a
//! file; on github.com public repositories stay on the web. GitHub Enterprise Server: `SOURCEBOT_GITHUB_API_URL`
//! (`https://ghe.acme.io/api/v3`), whose host is then the links' host. Without a
//! token GitHub links stay with the web prober (public pages answer it).
//!
//! Links: a repository, `blob/REF/PATH` and `tree/REF/PATH` (the contents API),
//! `issues/N`, `pull/N`, `commit/SHA`. Anything else on GitHub (wikis, releases…) is
//! left to the web prober.
//!
//! For the support check (read access to *Contents*, *Issues* and *Pull requests*):
//! a file through the contents API as raw bytes (`Accept:
//! application/vnd.github.raw+json`; Markdown becomes text, other files go to the
//! page reader by their name), a repository's README, an issue's or pull request's
//! title, body and comments (paged, bounded), a commit's message.

use super::api::{self, ApiFailure, Auth, ProductApi, ProductEnv};
use super::text::markdown::markdown_to_text;
use super::{api_base, document};
use crate::model::{SourceKind, Verdict};
use crate::page::PageRead;
use crate::setting::ConfigError;
use crate::state::memory::TtlMap;
use crate::verify::{Checked, InternalChecker};
use futures_util::future::BoxFuture;
use serde_json::Value;
use std::sync::Arc;
use std::time::{Duration, Instant};
use url::Url;

/// `SOURCEBOT_GITHUB_TOKEN`: a fine-grained token with read access to contents,
/// issues and pull requests (or a classic one with `repo`).
pub const GITHUB_TOKEN: &str = "SOURCEBOT_GITHUB_TOKEN";
/// `SOURCEBOT_GITHUB_API_URL`: GitHub's API (default `https://api.github.com`; for
/// Enterprise Server `https://HOST/api/v3`).
pub const GITHUB_API_URL: &str = "SOURCEBOT_GITHUB_API_URL";

/// How to reach GitHub.
#[derive(Clone, PartialEq, Eq)]
pub struct GithubSettings {
    /// The token.
    pub token: String,
    /// The API base.
    pub api_url: Url,
    /// The host of the links it checks (`github.com`, or the Enterprise host).
    pub web_host: String,
}

impl std::fmt::Debug for GithubSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GithubSettings")
            .field("token", &"<redacted>")
            .field("api_url", &self.api_url.as_str())
            .field("web_host", &self.web_host)
            .finish()
    }
}

impl GithubSettings {
    /// `None` without a token.
    pub fn from_lookup(
        get: &impl Fn(&'static str) -> Option<(&'static str, String)>,
    ) -> Result<Option<GithubSettings>, ConfigError> {
        let Some((_, token)) = get(GITHUB_TOKEN) else {
            return Ok(None);
        };
        let api_url = api_base(get, GITHUB_API_URL, "https://api.github.com")?;
        let web_host = match api_url.host_str() {
            Some("api.github.com") | None => "github.com".to_string(),
            Some(host) => host.to_ascii_lowercase(),
        };
        Ok(Some(GithubSettings {
            token: token.trim().to_string(),
            api_url,
            web_host,
        }))
    }
}

/// What a GitHub link names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GithubItem {
    /// A repository.
    Repo {
        /// Owner.
        owner: String,
        /// Repository.
        repo: String,
    },
    /// A file or directory at a ref.
    Contents {
        /// Owner.
        owner: String,
        /// Repository.
        repo: String,
        /// Branch, tag or commit.
        reference: String,
        /// Path inside the repository (may be empty: the root).
        path: String,
    },
    /// An issue.
    Issue {
        /// Owner.
        owner: String,
        /// Repository.
        repo: String,
        /// Its number.
        number: u64,
    },
    /// A pull request.
    Pull {
        /// Owner.
        owner: String,
        /// Repository.
        repo: String,
        /// Its number.
        number: u64,
    },
    /// A commit.
    Commit {
        /// Owner.
        owner: String,
        /// Repository.
        repo: String,
        /// Its SHA (or a prefix).
        sha: String,
    },
}

impl GithubItem {
    /// The repository the item is in: owner and name.
    pub fn repository(&self) -> (&str, &str) {
        match self {
            GithubItem::Repo { owner, repo }
            | GithubItem::Contents { owner, repo, .. }
            | GithubItem::Issue { owner, repo, .. }
            | GithubItem::Pull { owner, repo, .. }
            | GithubItem::Commit { owner, repo, .. } => (owner, repo),
        }
    }
}

/// Whether a repository object says the public cannot read it: `private`, or the
/// `private`/`internal` visibility.
fn is_private(repo: &Value) -> bool {
    repo.get("private").and_then(Value::as_bool) == Some(true)
        || matches!(
            repo.get("visibility").and_then(Value::as_str),
            Some("private" | "internal")
        )
}

/// A GitHub owner or repository name: letters, digits, `-`, `_`, `.`, not `.`/`..`.
fn is_name(s: &str) -> bool {
    !s.is_empty()
        && s != "."
        && s != ".."
        && s.len() <= 100
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

/// Pages of github.com that are not owners.
const NOT_OWNERS: &[&str] = &[
    "orgs",
    "settings",
    "marketplace",
    "topics",
    "collections",
    "search",
    "notifications",
    "explore",
    "sponsors",
    "features",
    "about",
    "pricing",
    "login",
    "apps",
    "users",
];

/// The item a link on `web_host` names.
pub fn item(url: &str, web_host: &str) -> Option<GithubItem> {
    let url = Url::parse(url).ok()?;
    let host = url.host_str()?.to_ascii_lowercase();
    if host != web_host && !(web_host == "github.com" && host == "www.github.com") {
        return None;
    }
    let segments: Vec<String> = url
        .path_segments()?
        .filter(|s| !s.is_empty())
        .map(percent_encoding_decode)
        .collect();
    let (owner, repo) = (segments.first()?.clone(), segments.get(1)?.clone());
    let repo = repo.strip_suffix(".git").unwrap_or(&repo).to_string();
    if !is_name(&owner) || !is_name(&repo) || NOT_OWNERS.contains(&owner.as_str()) {
        return None;
    }
    let rest = &segments[2..];
    let number = |s: Option<&String>| s.and_then(|n| n.parse::<u64>().ok()).filter(|n| *n > 0);
    match rest.first().map(String::as_str) {
        None => Some(GithubItem::Repo { owner, repo }),
        Some("blob" | "tree") => Some(GithubItem::Contents {
            owner,
            repo,
            reference: rest.get(1)?.clone(),
            path: rest.get(2..).map(|p| p.join("/")).unwrap_or_default(),
        }),
        Some("issues") => Some(GithubItem::Issue {
            owner,
            repo,
            number: number(rest.get(1))?,
        }),
        Some("pull") => Some(GithubItem::Pull {
            owner,
            repo,
            number: number(rest.get(1))?,
        }),
        Some("commit") => {
            let sha = rest.get(1)?.clone();
            (sha.len() >= 4 && sha.len() <= 40 && sha.chars().all(|c| c.is_ascii_hexdigit()))
                .then_some(GithubItem::Commit { owner, repo, sha })
        }
        _ => None,
    }
}

/// A path segment percent-decoded (lossy).
fn percent_encoding_decode(segment: &str) -> String {
    url::form_urlencoded::parse(format!("x={}", segment.replace('+', "%2B")).as_bytes())
        .next()
        .map(|(_, v)| v.into_owned())
        .unwrap_or_else(|| segment.to_string())
}

/// The checker for `settings`.
pub fn checker(
    settings: &GithubSettings,
    env: &ProductEnv,
) -> Result<Arc<dyn InternalChecker>, String> {
    Ok(Arc::new(GithubChecker {
        api: ProductApi::new("GitHub", settings.api_url.clone(), env)?,
        auth: Auth::Bearer(settings.token.clone()),
        web_host: settings.web_host.clone(),
        visibility: TtlMap::new(
            env.verify.cache_ttl_verified.max(Duration::from_secs(1)),
            VISIBILITY_MAX,
        ),
    }))
}

struct GithubChecker {
    api: ProductApi,
    auth: Auth,
    web_host: String,
    /// Whether each repository asked about is private, by `owner/repo`.
    visibility: TtlMap<String, bool>,
}

/// Repositories whose visibility is remembered at most.
const VISIBILITY_MAX: usize = 10_000;

const HEADERS: [(&str, &str); 2] = [
    ("Accept", "application/vnd.github+json"),
    ("X-GitHub-Api-Version", "2022-11-28"),
];

impl GithubChecker {
    /// The verdict and title of `item`, which the link `url` names.
    async fn check_item(&self, url: &str, item: &GithubItem) -> Checked {
        let text = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).map(str::to_string);
        let reply = match item {
            GithubItem::Repo { owner, repo } => {
                self.get(&["repos", owner, repo], &[]).await.map(|v| {
                    let title = text(&v, "full_name");
                    let mut checked = api::found(url, title, "the repository");
                    if v.get("archived").and_then(Value::as_bool) == Some(true) {
                        checked.verdict.reason =
                            Some("the repository exists (archived: read-only)".into());
                    }
                    if is_private(&v) {
                        checked.kind = Some(SourceKind::File);
                    }
                    checked
                })
            }
            GithubItem::Contents {
                owner,
                repo,
                reference,
                path,
            } => {
                let mut segments = vec!["repos", owner.as_str(), repo.as_str(), "contents"];
                segments.extend(path.split('/').filter(|s| !s.is_empty()));
                self.get(&segments, &[("ref", reference)]).await.map(|_| {
                    let name = if path.is_empty() { "/" } else { path.as_str() };
                    api::found(url, Some(format!("{name} in {owner}/{repo}")), "the file")
                })
            }
            GithubItem::Issue {
                owner,
                repo,
                number,
            } => self
                .get(&["repos", owner, repo, "issues", &number.to_string()], &[])
                .await
                .map(|v| api::found(url, text(&v, "title"), "the issue")),
            GithubItem::Pull {
                owner,
                repo,
                number,
            } => self
                .get(&["repos", owner, repo, "pulls", &number.to_string()], &[])
                .await
                .map(|v| api::found(url, text(&v, "title"), "the pull request")),
            GithubItem::Commit { owner, repo, sha } => self
                .get(&["repos", owner, repo, "commits", sha], &[])
                .await
                .map(|v| {
                    let title = v
                        .get("commit")
                        .and_then(|c| text(c, "message"))
                        .and_then(|m| m.lines().next().map(str::to_string));
                    api::found(url, title, "the commit")
                }),
        };
        match reply {
            Ok(checked) => checked,
            Err(ApiFailure::Status { status: 410, .. }) => {
                api::gone(url, None, "deleted on GitHub")
            }
            // GitHub says 422 for a commit SHA it does not know.
            Err(ApiFailure::Status { status: 422, .. }) => {
                api::gone(url, None, "GitHub has no such commit")
            }
            Err(failure) => api::failure(&self.api, url, &failure, GITHUB_TOKEN, true),
        }
    }

    /// Whether `owner/repo` is private (or internal to an enterprise): a repository the
    /// token can read and the public cannot. Asked once per repository while a
    /// verified verdict lasts; `None` when GitHub does not say.
    async fn private_repo(&self, owner: &str, repo: &str) -> Option<bool> {
        let key = format!("{owner}/{repo}");
        if let Some(private) = self.visibility.get(&key) {
            return Some(private);
        }
        let reply = self.get(&["repos", owner, repo], &[]).await.ok()?;
        let private = is_private(&reply);
        self.visibility.insert(key, private);
        Some(private)
    }

    async fn get(&self, segments: &[&str], query: &[(&str, &str)]) -> Result<Value, ApiFailure> {
        let deadline = Instant::now() + self.api.timeout();
        let url = self.api.url(segments, query);
        self.api.get_json(url, &self.auth, &HEADERS, deadline).await
    }
}

/// Headers asking for a file's raw bytes.
const RAW: [(&str, &str); 2] = [
    ("Accept", "application/vnd.github.raw+json"),
    ("X-GitHub-Api-Version", "2022-11-28"),
];
/// Pages of 100 comments asked for at most.
const MAX_COMMENT_PAGES: usize = 5;

/// The type a file's name says it has, for the page reader (GitHub serves raw files
/// untyped); `None` leaves it to the bytes. Markdown is read apart.
fn type_of_path(path: &str) -> Option<&'static str> {
    let extension = path.rsplit_once('.')?.1.to_ascii_lowercase();
    Some(match extension.as_str() {
        "pdf" => "application/pdf",
        "docx" => "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "pptx" => "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        "xlsx" => "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "csv" => "text/csv",
        "html" | "htm" => "text/html",
        "png" | "jpg" | "jpeg" | "gif" | "svg" | "webp" | "ico" => "image",
        "zip" | "gz" | "tar" | "jar" | "exe" | "so" | "dll" | "bin" => "application/x-binary",
        _ => return None,
    })
}

/// Whether `path` names a Markdown file.
fn is_markdown(path: &str) -> bool {
    path.rsplit_once('.').is_some_and(|(_, ext)| {
        matches!(
            ext.to_ascii_lowercase().as_str(),
            "md" | "markdown" | "mdx" | "mdown"
        )
    })
}

impl GithubChecker {
    /// A document read as GitHub's API gave it (a document-sized JSON reply).
    async fn document(
        &self,
        segments: &[&str],
        query: &[(&str, &str)],
        deadline: Instant,
    ) -> Result<Value, ApiFailure> {
        let url = self.api.url(segments, query);
        self.api
            .get_document(url, &self.auth, &HEADERS, deadline)
            .await
    }

    /// The file at `path` (the repository's README when `path` is `None`), as text.
    async fn read_file(
        &self,
        owner: &str,
        repo: &str,
        reference: Option<&str>,
        path: Option<&str>,
    ) -> PageRead {
        let deadline = self.api.read_deadline();
        let mut segments = vec!["repos", owner, repo];
        match path {
            Some(path) => {
                segments.push("contents");
                segments.extend(path.split('/').filter(|s| !s.is_empty()));
            }
            None => segments.push("readme"),
        }
        let query: Vec<(&str, &str)> = reference.map(|r| ("ref", r)).into_iter().collect();
        let url = self.api.url(&segments, &query);
        let download = match self.api.get_bytes(url, &self.auth, &RAW, deadline).await {
            Ok(download) => download,
            Err(failure) => return document::failed(&self.api, &failure, GITHUB_TOKEN),
        };
        // A folder is listed as JSON whatever the media type asked.
        let is_json = download
            .content_type
            .as_deref()
            .is_some_and(|t| t.starts_with("application/json"));
        if is_json && download.bytes.trim_ascii_start().starts_with(b"[") {
            return PageRead::unreadable("a folder has no text of its own");
        }
        let name = path.unwrap_or("README.md");
        let title = Some(match path {
            Some(path) => format!("{path} in {owner}/{repo}"),
            None => format!("{owner}/{repo}"),
        });
        if path.is_none() || is_markdown(name) {
            return match String::from_utf8(download.bytes) {
                Ok(markdown) => {
                    document::text(&self.api, [markdown_to_text(&markdown)], title, false)
                }
                Err(_) => PageRead::unreadable("the file is not UTF-8 text"),
            };
        }
        document::file(&self.api, download, type_of_path(name), title).await
    }

    /// An issue or pull request as text: its title, body and conversation comments
    /// (the issue comments API serves both), at most [`MAX_COMMENT_PAGES`] pages of
    /// them; truncated when more remain.
    async fn read_conversation(
        &self,
        owner: &str,
        repo: &str,
        number: u64,
        pull: bool,
    ) -> PageRead {
        let deadline = self.api.read_deadline();
        let number = number.to_string();
        let kind = if pull { "pulls" } else { "issues" };
        let item = match self
            .document(&["repos", owner, repo, kind, &number], &[], deadline)
            .await
        {
            Ok(item) => item,
            Err(failure) => return document::failed(&self.api, &failure, GITHUB_TOKEN),
        };
        let text = |v: &Value, key: &str| {
            v.get(key)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        };
        let title = text(&item, "title");
        let mut parts = vec![title.clone(), markdown_to_text(&text(&item, "body"))];
        let total = item
            .get("comments")
            .and_then(Value::as_u64)
            .map_or(0, |n| usize::try_from(n).unwrap_or(usize::MAX));
        let mut read = 0;
        let mut page = 0;
        while read < total && page < MAX_COMMENT_PAGES {
            page += 1;
            let number_page = page.to_string();
            let comments = match self
                .document(
                    &["repos", owner, repo, "issues", &number, "comments"],
                    &[("per_page", "100"), ("page", &number_page)],
                    deadline,
                )
                .await
            {
                Ok(comments) => comments.as_array().cloned().unwrap_or_default(),
                Err(failure) => return document::failed(&self.api, &failure, GITHUB_TOKEN),
            };
            if comments.is_empty() {
                break;
            }
            read += comments.len();
            parts.extend(comments.iter().map(|c| markdown_to_text(&text(c, "body"))));
        }
        document::text(
            &self.api,
            parts,
            Some(title).filter(|t| !t.is_empty()),
            read < total,
        )
    }

    /// A commit's message as text.
    async fn read_commit(&self, owner: &str, repo: &str, sha: &str) -> PageRead {
        let deadline = self.api.read_deadline();
        match self
            .document(&["repos", owner, repo, "commits", sha], &[], deadline)
            .await
        {
            Ok(commit) => {
                let message = commit
                    .pointer("/commit/message")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                let title = message.lines().next().map(str::to_string);
                document::text(&self.api, [markdown_to_text(message)], title, false)
            }
            Err(failure) => document::failed(&self.api, &failure, GITHUB_TOKEN),
        }
    }
}

impl InternalChecker for GithubChecker {
    fn handles(&self, _kind: SourceKind, url: &str) -> bool {
        item(url, &self.web_host).is_some()
    }

    fn check<'a>(&'a self, url: &'a str) -> BoxFuture<'a, Verdict> {
        Box::pin(async move { self.check_titled(url).await.verdict })
    }

    fn check_titled<'a>(&'a self, url: &'a str) -> BoxFuture<'a, Checked> {
        Box::pin(async move {
            let Some(item) = item(url, &self.web_host) else {
                return api::not_checked("not a GitHub link sourcebot reads");
            };
            let (owner, repo) = item.repository();
            let (mut checked, private) = match &item {
                // The repository's own reply says whether it is private.
                GithubItem::Repo { .. } => (self.check_item(url, &item).await, None),
                _ => tokio::join!(self.check_item(url, &item), self.private_repo(owner, repo)),
            };
            if private == Some(true) {
                checked.kind = Some(SourceKind::File);
            }
            checked
        })
    }

    fn read<'a>(&'a self, url: &'a str) -> BoxFuture<'a, Option<PageRead>> {
        Box::pin(async move {
            Some(match item(url, &self.web_host)? {
                GithubItem::Repo { owner, repo } => self.read_file(&owner, &repo, None, None).await,
                GithubItem::Contents {
                    owner,
                    repo,
                    reference,
                    path,
                } if !path.is_empty() => {
                    self.read_file(&owner, &repo, Some(&reference), Some(&path))
                        .await
                }
                GithubItem::Contents { .. } => {
                    PageRead::unreadable("a folder has no text of its own")
                }
                GithubItem::Issue {
                    owner,
                    repo,
                    number,
                } => self.read_conversation(&owner, &repo, number, false).await,
                GithubItem::Pull {
                    owner,
                    repo,
                    number,
                } => self.read_conversation(&owner, &repo, number, true).await,
                GithubItem::Commit { owner, repo, sha } => {
                    self.read_commit(&owner, &repo, &sha).await
                }
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(url: &str) -> Option<GithubItem> {
        item(url, "github.com")
    }

    #[test]
    fn every_link_form_names_its_item() {
        let (o, r) = ("acme".to_string(), "deploy-tools".to_string());
        assert_eq!(
            parse("https://github.com/acme/deploy-tools"),
            Some(GithubItem::Repo {
                owner: o.clone(),
                repo: r.clone()
            })
        );
        assert_eq!(
            parse("https://github.com/acme/deploy-tools/blob/main/docs/freeze%20policy.md#L10"),
            Some(GithubItem::Contents {
                owner: o.clone(),
                repo: r.clone(),
                reference: "main".into(),
                path: "docs/freeze policy.md".into()
            })
        );
        assert_eq!(
            parse("https://github.com/acme/deploy-tools/issues/42"),
            Some(GithubItem::Issue {
                owner: o.clone(),
                repo: r.clone(),
                number: 42
            })
        );
        assert_eq!(
            parse("https://github.com/acme/deploy-tools/pull/7/files"),
            Some(GithubItem::Pull {
                owner: o.clone(),
                repo: r.clone(),
                number: 7
            })
        );
        assert_eq!(
            parse("https://github.com/acme/deploy-tools/commit/0a1b2c3d"),
            Some(GithubItem::Commit {
                owner: o,
                repo: r,
                sha: "0a1b2c3d".into()
            })
        );
    }

    #[test]
    fn other_pages_and_look_alikes_are_left_alone() {
        for url in [
            "https://github.com/acme",
            "https://github.com/orgs/acme/people",
            "https://github.com/acme/deploy-tools/wiki/Home",
            "https://github.com/acme/deploy-tools/issues/abc",
            "https://github.com/acme/deploy-tools/issues/0",
            "https://github.com/acme/deploy-tools/commit/not-a-sha",
            "https://github.com.evil.example/acme/deploy-tools",
            "https://gist.github.com/acme/0a1b",
            "https://github.com/acme/../etc",
        ] {
            assert_eq!(parse(url), None, "{url}");
        }
        assert!(item("https://ghe.acme.io/acme/tools/issues/1", "ghe.acme.io").is_some());
        assert!(item("https://github.com/acme/tools/issues/1", "ghe.acme.io").is_none());
    }
}
