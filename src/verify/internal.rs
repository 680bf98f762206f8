//! Internal links (Slack permalinks, wiki pages, documents) are checked, and read for
//! the support check, through their own product's API instead of an HTTP probe: the
//! [`InternalChecker`] interface each product (`crate::products`) and the Slack bot
//! implement, [`Checkers`] to ask several in order, the [`Checked`] verdict with the
//! product's title and kind, and the check of a report's internal links within the same
//! budget as its web links.

use super::probe::seconds;
use super::{VerifySettings, BATCH_GRACE};
use crate::model::{SourceKind, Verdict, VerdictClass};
use futures_util::future::BoxFuture;
use futures_util::stream::StreamExt;
use std::sync::Arc;
use std::time::Duration;

/// A verdict from a product's API, and the title the product gives the source.
#[derive(Debug, Clone, PartialEq)]
pub struct Checked {
    /// The verdict.
    pub verdict: Verdict,
    /// The product's title for it (a page's, an issue's, a file's name), when found.
    pub title: Option<String>,
    /// The kind the product says it is, when its link alone does not tell: a file in a
    /// private GitHub repository is internal, grouped with files, not with the web.
    pub kind: Option<SourceKind>,
}

impl Checked {
    /// A verdict without a title.
    pub fn untitled(verdict: Verdict) -> Checked {
        Checked {
            verdict,
            title: None,
            kind: None,
        }
    }
}

/// Checks internal links (Slack permalinks, wiki pages, documents) through their own
/// API instead of an HTTP probe. The Slack bot provides one for permalinks; the
/// product checkers (`crate::products`) one per product. A checker that handles a
/// link takes it from the web prober too (a GitHub link goes to GitHub's API).
pub trait InternalChecker: Send + Sync + 'static {
    /// Whether this checker can judge a source of `kind` at `url`.
    fn handles(&self, kind: SourceKind, url: &str) -> bool;
    /// The verdict for `url`; never fails (a failure is a verdict).
    fn check<'a>(&'a self, url: &'a str) -> BoxFuture<'a, Verdict>;
    /// The verdict for `url` and the product's title for it (the default: no title).
    fn check_titled<'a>(&'a self, url: &'a str) -> BoxFuture<'a, Checked> {
        Box::pin(async move { Checked::untitled(self.check(url).await) })
    }
    /// The text of the source at `url`, for the support check, when its API gives
    /// content; `None` when this checker reads no content (the default).
    fn read<'a>(&'a self, _url: &'a str) -> BoxFuture<'a, Option<crate::page::PageRead>> {
        Box::pin(async { None })
    }
}

/// Several internal checkers as one: each link goes to the first that handles it
/// (the order given: a workspace's own checker before the product checkers).
pub struct Checkers(pub Vec<Arc<dyn InternalChecker>>);

impl Checkers {
    fn first(&self, kind: Option<SourceKind>, url: &str) -> Option<&Arc<dyn InternalChecker>> {
        self.0.iter().find(|c| match kind {
            Some(kind) => c.handles(kind, url),
            None => SourceKind::ALL.into_iter().any(|k| c.handles(k, url)),
        })
    }

    /// `first` then `rest` as one checker; either alone when the other is `None`.
    pub fn chain(
        first: Option<&Arc<dyn InternalChecker>>,
        rest: Option<&Arc<dyn InternalChecker>>,
    ) -> Option<Arc<dyn InternalChecker>> {
        match (first, rest) {
            (Some(a), Some(b)) if !Arc::ptr_eq(a, b) => {
                Some(Arc::new(Checkers(vec![a.clone(), b.clone()])))
            }
            (Some(a), _) => Some(a.clone()),
            (None, b) => b.cloned(),
        }
    }
}

impl InternalChecker for Checkers {
    fn handles(&self, kind: SourceKind, url: &str) -> bool {
        self.0.iter().any(|c| c.handles(kind, url))
    }

    fn check<'a>(&'a self, url: &'a str) -> BoxFuture<'a, Verdict> {
        Box::pin(async move { self.check_titled(url).await.verdict })
    }

    fn check_titled<'a>(&'a self, url: &'a str) -> BoxFuture<'a, Checked> {
        Box::pin(async move {
            match self.first(None, url) {
                Some(checker) => checker.check_titled(url).await,
                None => Checked::untitled(Verdict::not_checked("no checker for this link")),
            }
        })
    }

    fn read<'a>(&'a self, url: &'a str) -> BoxFuture<'a, Option<crate::page::PageRead>> {
        Box::pin(async move {
            match self.first(None, url) {
                Some(checker) => checker.read(url).await,
                None => None,
            }
        })
    }
}

/// Internal links checked at once per answer.
const INTERNAL_CONCURRENCY: usize = 4;

/// The internal links `urls` through `checker`, a few at a time, within the same budget
/// as the web links; their verdicts in the same order.
pub(super) async fn check_internal(
    settings: &VerifySettings,
    checker: Option<&Arc<dyn InternalChecker>>,
    urls: Vec<String>,
) -> Vec<Checked> {
    let Some(checker) = checker else {
        return Vec::new();
    };
    let budget = settings.timeout + BATCH_GRACE;
    let deadline = tokio::time::Instant::now() + budget;
    let checks = futures_util::stream::iter(urls.into_iter().map(|url| {
        let checker = checker.clone();
        async move { internal_verdict(checker, url, deadline, budget).await }
    }))
    .buffered(INTERNAL_CONCURRENCY);
    checks.collect().await
}

/// One internal link's verdict, cut off at `deadline`.
async fn internal_verdict(
    checker: Arc<dyn InternalChecker>,
    url: String,
    deadline: tokio::time::Instant,
    budget: Duration,
) -> Checked {
    match tokio::time::timeout_at(deadline, checker.check_titled(&url)).await {
        Ok(checked) => checked,
        Err(_) => Checked::untitled(Verdict {
            class: VerdictClass::TimedOut,
            status_code: None,
            final_url: Some(url.clone()),
            elapsed_ms: Some(u64::try_from(budget.as_millis()).unwrap_or(u64::MAX)),
            reason: Some(format!("no answer within {}", seconds(budget))),
        }),
    }
}
