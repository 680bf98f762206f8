//! Notion pages through Notion's API (`GET /v1/pages/{id}`, and `/v1/databases/{id}`
//! when the id is a database's), with an internal integration's token
//! (`SOURCEBOT_NOTION_TOKEN`); the pages must be shared with the integration. Links:
//! `notion.so`, `www.notion.so` and `*.notion.site`, the id being the last 32 hex
//! digits of the path (or the `p=` of a peeked page), dashed or not.

use super::api::{self, ApiFailure, Auth, ProductApi, ProductEnv};
use super::text::notion::{block_id, block_text, has_children};
use super::{api_base, document, host_under};
use crate::model::{SourceKind, Verdict};
use crate::page::PageRead;
use crate::setting::ConfigError;
use crate::verify::{Checked, InternalChecker};
use futures_util::future::BoxFuture;
use serde_json::Value;
use std::sync::Arc;
use std::time::Instant;
use url::Url;

/// `SOURCEBOT_NOTION_TOKEN`: an internal integration's secret (`secret_…` / `ntn_…`).
pub const NOTION_TOKEN: &str = "SOURCEBOT_NOTION_TOKEN";
/// `SOURCEBOT_NOTION_API_URL`: Notion's API (default `https://api.notion.com`).
pub const NOTION_API_URL: &str = "SOURCEBOT_NOTION_API_URL";
/// The Notion API version asked for.
pub const NOTION_VERSION: &str = "2022-06-28";

/// How to reach Notion.
#[derive(Clone, PartialEq, Eq)]
pub struct NotionSettings {
    /// The integration's token.
    pub token: String,
    /// The API base.
    pub api_url: Url,
}

impl std::fmt::Debug for NotionSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NotionSettings")
            .field("token", &"<redacted>")
            .field("api_url", &self.api_url.as_str())
            .finish()
    }
}

impl NotionSettings {
    /// `None` without a token.
    pub fn from_lookup(
        get: &impl Fn(&'static str) -> Option<(&'static str, String)>,
    ) -> Result<Option<NotionSettings>, ConfigError> {
        let Some((_, token)) = get(NOTION_TOKEN) else {
            return Ok(None);
        };
        Ok(Some(NotionSettings {
            token: token.trim().to_string(),
            api_url: api_base(get, NOTION_API_URL, "https://api.notion.com")?,
        }))
    }
}

/// The page id a Notion link names (32 lower-case hex digits), if it is one.
pub fn page_id(url: &str) -> Option<String> {
    let url = Url::parse(url).ok()?;
    let host = url.host_str()?;
    if !(host_under(host, "notion.so") || host_under(host, "notion.site")) {
        return None;
    }
    if let Some((_, peek)) = url.query_pairs().find(|(k, _)| k == "p") {
        if let Some(id) = trailing_id(&peek) {
            return Some(id);
        }
    }
    trailing_id(url.path_segments()?.rfind(|s| !s.is_empty())?)
}

/// The last 32 hex digits of `segment` (dashes inside a UUID allowed).
fn trailing_id(segment: &str) -> Option<String> {
    let hex: String = segment
        .chars()
        .rev()
        .filter(|c| *c != '-')
        .take_while(char::is_ascii_hexdigit)
        .take(32)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    (hex.len() == 32).then(|| hex.to_ascii_lowercase())
}

/// The checker: Notion's API with `settings`, or, without them, one that says so.
pub fn checker(
    settings: Option<&NotionSettings>,
    env: &ProductEnv,
) -> Result<Arc<dyn InternalChecker>, String> {
    let api = match settings {
        Some(settings) => Some((
            ProductApi::new("Notion", settings.api_url.clone(), env)?,
            Auth::Bearer(settings.token.clone()),
        )),
        None => None,
    };
    Ok(Arc::new(NotionChecker { api }))
}

struct NotionChecker {
    api: Option<(ProductApi, Auth)>,
}

/// The plain text of a rich-text array.
fn plain_text(rich: &Value) -> Option<String> {
    let text: String = rich
        .as_array()?
        .iter()
        .filter_map(|part| part.get("plain_text").and_then(Value::as_str))
        .collect();
    Some(text).filter(|t| !t.trim().is_empty())
}

/// A page's title: its property of type `title`.
fn page_title(page: &Value) -> Option<String> {
    page.get("properties")?
        .as_object()?
        .values()
        .find(|p| p.get("type").and_then(Value::as_str) == Some("title"))
        .and_then(|p| plain_text(p.get("title")?))
}

/// What a page or database object says about `url`.
fn judge(url: &str, object: &Value, what: &str) -> Checked {
    let title = page_title(object).or_else(|| object.get("title").and_then(plain_text));
    let flag = |name: &str| object.get(name).and_then(Value::as_bool) == Some(true);
    if flag("in_trash") || flag("is_archived") {
        api::gone(url, title, &format!("the {what} is in Notion's trash"))
    } else if flag("archived") {
        api::gone(url, title, &format!("the {what} is archived in Notion"))
    } else {
        api::found(url, title, &format!("the Notion {what}"))
    }
}

/// Calls for one page's blocks at most (each up to 100 blocks), nested ones included;
/// past it the page is read in part.
const MAX_BLOCK_CALLS: usize = 30;
/// How deep nested blocks (toggles, list items, columns) are followed.
const MAX_DEPTH: usize = 4;
/// Blocks asked for per call (Notion's most).
const PAGE_SIZE: &str = "100";

/// A page's blocks being walked: the blocks of one level still to read, and how deep
/// that level is.
struct Level {
    blocks: std::collections::VecDeque<Value>,
    depth: usize,
}

impl NotionChecker {
    /// The child blocks of `id`, following `next_cursor` to the end, and whether they
    /// are all there (false when the call budget ran out first).
    async fn children(
        api: &ProductApi,
        auth: &Auth,
        id: &str,
        calls: &mut usize,
        deadline: Instant,
    ) -> Result<(Vec<Value>, bool), ApiFailure> {
        let mut blocks = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            if *calls >= MAX_BLOCK_CALLS {
                return Ok((blocks, false));
            }
            *calls += 1;
            let mut query = vec![("page_size", PAGE_SIZE)];
            if let Some(cursor) = &cursor {
                query.push(("start_cursor", cursor.as_str()));
            }
            let request = api.url(&["v1", "blocks", id, "children"], &query);
            let list = api
                .get_document(
                    request,
                    auth,
                    &[("Notion-Version", NOTION_VERSION)],
                    deadline,
                )
                .await?;
            blocks.extend(
                list.get("results")
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default(),
            );
            let more = list.get("has_more").and_then(Value::as_bool) == Some(true);
            cursor = list
                .get("next_cursor")
                .and_then(Value::as_str)
                .map(str::to_string);
            if !more || cursor.is_none() {
                return Ok((blocks, true));
            }
        }
    }

    /// The text of page `id`: its blocks in order, each followed by its children
    /// (toggles, nested list items, columns, table rows) to [`MAX_DEPTH`], within
    /// [`MAX_BLOCK_CALLS`]. Child pages and databases are pages of their own: their
    /// titles are read, not their contents.
    async fn read_page(api: &ProductApi, auth: &Auth, id: &str) -> PageRead {
        let deadline = api.read_deadline();
        let mut calls = 0;
        let (top, mut truncated) = match Self::children(api, auth, id, &mut calls, deadline).await {
            Ok((blocks, complete)) => (blocks, !complete),
            Err(ApiFailure::Status { status: 400, .. }) => {
                return PageRead::unreadable(
                    "a Notion database has no text of its own: sourcebot reads Notion pages",
                )
            }
            Err(failure) => return document::failed(api, &failure, NOTION_TOKEN),
        };
        let mut blocks: Vec<String> = Vec::new();
        let mut stack = vec![Level {
            blocks: top.into(),
            depth: 0,
        }];
        while let Some(level) = stack.last_mut() {
            let Some(block) = level.blocks.pop_front() else {
                stack.pop();
                continue;
            };
            let depth = level.depth;
            blocks.extend(block_text(&block));
            let nested = has_children(&block)
                && !matches!(
                    block.get("type").and_then(Value::as_str),
                    Some("child_page" | "child_database")
                );
            let Some(child_id) = block_id(&block).filter(|_| nested) else {
                continue;
            };
            if depth + 1 >= MAX_DEPTH {
                truncated = true;
                continue;
            }
            match Self::children(api, auth, child_id, &mut calls, deadline).await {
                Ok((children, complete)) => {
                    truncated |= !complete;
                    stack.push(Level {
                        blocks: children.into(),
                        depth: depth + 1,
                    });
                }
                Err(failure) => return document::failed(api, &failure, NOTION_TOKEN),
            }
        }
        document::text(api, blocks, None, truncated)
    }
}

impl InternalChecker for NotionChecker {
    fn handles(&self, _kind: SourceKind, url: &str) -> bool {
        page_id(url).is_some()
    }

    fn check<'a>(&'a self, url: &'a str) -> BoxFuture<'a, Verdict> {
        Box::pin(async move { self.check_titled(url).await.verdict })
    }

    fn check_titled<'a>(&'a self, url: &'a str) -> BoxFuture<'a, Checked> {
        Box::pin(async move {
            let Some((api, auth)) = &self.api else {
                return api::not_checked(&format!(
                    "not checked (no Notion token: set {NOTION_TOKEN})"
                ));
            };
            let Some(id) = page_id(url) else {
                return api::not_checked("not a Notion page link");
            };
            let deadline = Instant::now() + api.timeout();
            let headers = [("Notion-Version", NOTION_VERSION)];
            match api
                .get_json(
                    api.url(&["v1", "pages", &id], &[]),
                    auth,
                    &headers,
                    deadline,
                )
                .await
            {
                Ok(page) => judge(url, &page, "page"),
                // A database's id: Notion answers 400 on the pages endpoint.
                Err(ApiFailure::Status { status: 400, .. }) => match api
                    .get_json(
                        api.url(&["v1", "databases", &id], &[]),
                        auth,
                        &headers,
                        deadline,
                    )
                    .await
                {
                    Ok(database) => judge(url, &database, "database"),
                    Err(failure) => api::failure(api, url, &failure, NOTION_TOKEN, true),
                },
                Err(failure) => api::failure(api, url, &failure, NOTION_TOKEN, true),
            }
        })
    }

    fn read<'a>(&'a self, url: &'a str) -> BoxFuture<'a, Option<PageRead>> {
        Box::pin(async move {
            let id = page_id(url)?;
            let (api, auth) = self.api.as_ref()?;
            Some(Self::read_page(api, auth, &id).await)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ids_come_from_every_link_form() {
        let id = "0123456789abcdef0123456789abcdef";
        for link in [
            format!("https://www.notion.so/acme/Deploy-Policy-{id}"),
            format!("https://notion.so/{id}?pvs=4"),
            format!("https://acme.notion.site/Deploy-Policy-{id}"),
            "https://www.notion.so/acme/01234567-89ab-cdef-0123-456789ABCDEF".to_string(),
            format!(
                "https://www.notion.so/acme/Board-ffffffffffffffffffffffffffffffff?p={id}&pm=s"
            ),
        ] {
            assert_eq!(page_id(&link).as_deref(), Some(id), "{link}");
        }
        for link in [
            format!("https://notion.so.evil.example/{id}"),
            format!("https://evilnotion.so/{id}"),
            "https://www.notion.so/acme/Too-short-0123456789abcdef".to_string(),
            "https://www.notion.so/".to_string(),
        ] {
            assert_eq!(page_id(&link), None, "{link}");
        }
    }

    #[test]
    fn pages_in_the_trash_are_gone_and_titles_come_from_the_title_property() {
        // The shape of Notion's "Retrieve a page" example.
        let page = json!({
            "object": "page", "id": "be633bf1-dfa0-436d-b259-571129a590e5",
            "archived": false, "in_trash": false,
            "properties": {
                "Status": {"id": "a%3Ac", "type": "select", "select": null},
                "Name": {"id": "title", "type": "title", "title": [
                    {"type": "text", "text": {"content": "Deploy policy"}, "plain_text": "Deploy policy"}
                ]}
            }
        });
        let live = judge("https://www.notion.so/x", &page, "page");
        assert_eq!(live.verdict.class, crate::model::VerdictClass::Verified);
        assert_eq!(live.title.as_deref(), Some("Deploy policy"));
        let mut trashed = page.clone();
        trashed["in_trash"] = json!(true);
        let gone = judge("https://www.notion.so/x", &trashed, "page");
        assert_eq!(gone.verdict.class, crate::model::VerdictClass::Broken);
        assert!(gone.verdict.reason.unwrap().contains("trash"));
    }
}
