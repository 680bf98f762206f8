//! Slack links among an answer's sources, checked through the Web API: a message
//! permalink is verified when Slack has the message, a file link when `files.info`
//! knows the file ([`PermalinkChecker`]). For the support check it reads a message's
//! text, and a snippet's or post's, marked with the conversation it is in and whether
//! that is private (a private channel, a direct or group message: its words are never
//! shown outside it). Without a bot token they are said to be not
//! checked and why ([`NoSlackToken`]); while `serve` is still signing in, they wait for
//! the sign-in's checker ([`SlackLinksOnceSignedIn`]).

use super::api::{SlackApi, SlackFile};
use super::inbound::{slack_file_id, Permalink};
use crate::collect::slack_message::{read_message, ReadOptions};
use crate::model::{ReadVia, SourceKind, Verdict, VerdictClass};
use crate::page::{text_signals, Page, PageKind, PageRead};
use crate::state::memory::TtlMap;
use crate::verify::{Checked, InternalChecker};
use futures_util::future::BoxFuture;
use serde_json::Value;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

/// Checks Slack permalinks through the Web API: verified when the message exists,
/// broken when Slack says it does not, restricted when the bot cannot see the channel.
/// Each message found is kept for a few minutes, for the support check that follows,
/// so that it costs no second call; its text is read only if that check asks.
pub struct PermalinkChecker {
    api: Arc<SlackApi>,
    messages: TtlMap<String, Arc<Value>>,
    /// Files found by their checks, for the support check, by id.
    files: TtlMap<String, Arc<SlackFile>>,
    /// Whether each conversation asked about is private.
    private: TtlMap<String, bool>,
}

/// How long a checked message is kept for the support check.
const MESSAGE_TTL: Duration = Duration::from_secs(300);
/// Messages kept at most per workspace.
const MESSAGE_MAX: usize = 1_000;
/// How long whether a conversation is private is remembered.
const CONVERSATION_TTL: Duration = Duration::from_secs(3600);
/// Conversations whose privacy is remembered at most per workspace.
const CONVERSATION_MAX: usize = 10_000;

impl PermalinkChecker {
    /// A checker calling Slack through `api`.
    pub fn new(api: Arc<SlackApi>) -> PermalinkChecker {
        PermalinkChecker {
            api,
            messages: TtlMap::new(MESSAGE_TTL, MESSAGE_MAX),
            files: TtlMap::new(MESSAGE_TTL, MESSAGE_MAX),
            private: TtlMap::new(CONVERSATION_TTL, CONVERSATION_MAX),
        }
    }

    /// The text of `message`, found at `url` in `channel`, as a page to judge claims
    /// against.
    async fn text_of(&self, url: &str, channel: &str, message: &Value) -> PageRead {
        let read = read_message(message, &ReadOptions::default());
        let text = read.answer.text.trim().to_string();
        if text.is_empty() {
            return PageRead::Unreadable("the message has no text".to_string());
        }
        let private = self.is_private(channel).await;
        PageRead::Read(Page {
            final_url: Some(url.to_string()),
            title: None,
            signals: text_signals(&text),
            text,
            kind: PageKind::Text,
            truncated: false,
            read_via: ReadVia::Slack {
                channel: Some(channel.to_string()),
                private,
            },
        })
    }

    /// Whether `channel` is private: a direct message (`D…`) or a private group (`G…`)
    /// by its id; any other as `conversations.info` says, asked once in a while. A
    /// conversation Slack does not say is public (no `channels:read` scope, an error)
    /// is taken to be private: its words are then never shown outside it.
    async fn is_private(&self, channel: &str) -> bool {
        if channel.starts_with(['D', 'G']) {
            return true;
        }
        if let Some(private) = self.private.get(&channel.to_string()) {
            return private;
        }
        let private = match self.api.conversation_is_private(channel).await {
            Ok(private) => private,
            Err(error) => {
                // Remembered too: a missing scope stays missing until the app is
                // reinstalled, and erring this way only quotes less.
                tracing::debug!(channel, %error, "cannot tell whether a conversation is public: taken as private");
                true
            }
        };
        self.private.insert(channel.to_string(), private);
        private
    }

    /// The text of the Slack file `file_id` at `url`: a snippet's content, a post's
    /// plain text, else its preview (marked as read in part when Slack cut it).
    /// Uploaded files (PDFs, images) are not downloaded.
    async fn file_text(&self, url: &str, file_id: &str) -> PageRead {
        let found = match self.files.get(&file_id.to_string()) {
            Some(kept) => kept,
            None => match self.api.file_info(file_id).await {
                Ok(found) => Arc::new(found),
                Err(error) => {
                    return PageRead::Unreadable(format!(
                        "cannot read the file ({})",
                        error.code().unwrap_or("Slack did not answer")
                    ))
                }
            },
        };
        let file = &found.file;
        let field = |key: &str| {
            file.get(key)
                .and_then(Value::as_str)
                .map(str::trim)
                .filter(|t| !t.is_empty())
        };
        let (text, truncated) = if let Some(content) = found.content.as_deref() {
            (content.to_string(), found.truncated)
        } else if let Some(plain) = field("plain_text") {
            (plain.to_string(), false)
        } else if let Some(preview) = field("preview")
            .filter(|_| matches!(field("mode"), Some("snippet" | "post" | "space" | "docs")))
        {
            let cut = file.get("preview_is_truncated").and_then(Value::as_bool) == Some(true);
            (preview.to_string(), cut)
        } else {
            return PageRead::Unreadable(format!(
                "sourcebot reads the text of Slack snippets and posts, not uploaded files ({})",
                field("mimetype")
                    .or(field("filetype"))
                    .unwrap_or("unknown type")
            ));
        };
        let shared_in = ["channels", "groups", "ims"].iter().find_map(|key| {
            file.get(*key)
                .and_then(Value::as_array)
                .and_then(|ids| ids.first())
                .and_then(Value::as_str)
                .map(str::to_string)
        });
        let public = file.get("is_public").and_then(Value::as_bool) == Some(true);
        let title = field("title").or(field("name")).map(str::to_string);
        // Each line a block: snippets are code or notes written line by line.
        let blocks: Vec<&str> = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        let read = crate::page::document(
            blocks.join("\n\n"),
            title,
            truncated,
            ReadVia::Slack {
                channel: shared_in,
                private: !public,
            },
        );
        match read {
            PageRead::Read(mut page) => {
                page.final_url = Some(url.to_string());
                PageRead::Read(page)
            }
            unreadable => unreadable,
        }
    }

    /// A message's verdict: whether Slack has it (keeping it for the support check).
    async fn check_message(&self, url: &str) -> Verdict {
        let started = Instant::now();
        let Some(link) = Permalink::parse(url) else {
            return Verdict::not_checked("not a Slack message link");
        };
        let (class, reason) = match self.api.message(&link).await {
            Ok(Some(message)) => {
                self.messages.insert(url.to_string(), Arc::new(message));
                (VerdictClass::Verified, "the message exists".to_string())
            }
            Ok(None) => (
                VerdictClass::Broken,
                "Slack has no such message".to_string(),
            ),
            Err(error) => match error.code() {
                Some(
                    "channel_not_found" | "not_in_channel" | "missing_scope" | "access_denied",
                ) => (
                    VerdictClass::Restricted,
                    format!(
                        "the bot cannot see this channel ({})",
                        error.code().unwrap_or_default()
                    ),
                ),
                Some("thread_not_found" | "message_not_found") => (
                    VerdictClass::Broken,
                    "Slack has no such message".to_string(),
                ),
                _ => (VerdictClass::Unreachable, error.to_string()),
            },
        };
        Verdict {
            class,
            status_code: None,
            final_url: Some(url.to_string()),
            elapsed_ms: Some(u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX)),
            reason: Some(reason),
        }
    }

    /// A Slack file's verdict and title through `files.info`.
    async fn check_file(&self, url: &str, file_id: &str) -> Checked {
        let started = Instant::now();
        let verdict = |class: VerdictClass, reason: String| Verdict {
            class,
            status_code: None,
            final_url: Some(url.to_string()),
            elapsed_ms: Some(u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX)),
            reason: Some(reason),
        };
        match self.api.file_info(file_id).await {
            Ok(found) => {
                let found = Arc::new(found);
                self.files.insert(file_id.to_string(), found.clone());
                let file = &found.file;
                let text = |key: &str| {
                    file.get(key)
                        .and_then(Value::as_str)
                        .map(str::trim)
                        .filter(|t| !t.is_empty())
                        .map(str::to_string)
                };
                let title = text("title").or_else(|| text("name"));
                if file.get("mode").and_then(Value::as_str) == Some("tombstone") {
                    return Checked {
                        verdict: verdict(VerdictClass::Broken, "the file was deleted".into()),
                        title,
                        kind: None,
                    };
                }
                Checked {
                    verdict: verdict(VerdictClass::Verified, "the file exists".into()),
                    title,
                    kind: None,
                }
            }
            Err(error) => Checked::untitled(match error.code() {
                Some("file_not_found" | "file_deleted") => verdict(
                    VerdictClass::Broken,
                    "Slack has no such file, or it was deleted".into(),
                ),
                Some("missing_scope" | "access_denied" | "not_allowed_token_type") => verdict(
                    VerdictClass::Restricted,
                    format!(
                        "the bot cannot read files ({}; it needs the files:read scope)",
                        error.code().unwrap_or_default()
                    ),
                ),
                Some("not_authed" | "invalid_auth" | "token_revoked" | "account_inactive") => {
                    Verdict::not_checked(format!(
                        "not checked: Slack refused the bot's token ({})",
                        error.code().unwrap_or_default()
                    ))
                }
                _ => verdict(VerdictClass::Unreachable, error.to_string()),
            }),
        }
    }
}

impl InternalChecker for PermalinkChecker {
    fn check_titled<'a>(&'a self, url: &'a str) -> BoxFuture<'a, Checked> {
        Box::pin(async move {
            match slack_file_id(url) {
                Some(file_id) => self.check_file(url, &file_id).await,
                None => Checked::untitled(self.check_message(url).await),
            }
        })
    }

    fn read<'a>(&'a self, url: &'a str) -> BoxFuture<'a, Option<PageRead>> {
        Box::pin(async move {
            if let Some(file_id) = slack_file_id(url) {
                return Some(self.file_text(url, &file_id).await);
            }
            let link = Permalink::parse(url)?;
            if let Some(kept) = self.messages.get(&url.to_string()) {
                return Some(self.text_of(url, &link.channel, &kept).await);
            }
            Some(match self.api.message(&link).await {
                Ok(Some(message)) => self.text_of(url, &link.channel, &message).await,
                Ok(None) => PageRead::Unreadable("Slack has no such message".to_string()),
                Err(error) => PageRead::Unreadable(format!(
                    "cannot read the message ({})",
                    error.code().unwrap_or("Slack did not answer")
                )),
            })
        })
    }

    fn handles(&self, kind: SourceKind, url: &str) -> bool {
        is_slack_item(kind, url)
    }

    fn check<'a>(&'a self, url: &'a str) -> BoxFuture<'a, Verdict> {
        Box::pin(async move { self.check_titled(url).await.verdict })
    }
}

/// Whether `url` names a Slack message (a permalink) or a Slack file.
fn is_slack_item(kind: SourceKind, url: &str) -> bool {
    (kind == SourceKind::Slack && Permalink::parse(url).is_some()) || slack_file_id(url).is_some()
}

/// Why Slack links are not checked when no bot token is set.
pub const NO_SLACK_TOKEN: &str = "not checked (no Slack token: set SLACK_BOT_TOKEN)";

/// Without a bot token (`sourcebot check` and `audit` run without `SLACK_BOT_TOKEN`):
/// recognises the links [`PermalinkChecker`] would check and says which setting would
/// check them, instead of leaving them to the verifier's "no checker" reason.
pub struct NoSlackToken;

impl InternalChecker for NoSlackToken {
    fn handles(&self, kind: SourceKind, url: &str) -> bool {
        is_slack_item(kind, url)
    }

    fn check<'a>(&'a self, _url: &'a str) -> BoxFuture<'a, Verdict> {
        Box::pin(async move { Verdict::not_checked(NO_SLACK_TOKEN) })
    }
}

/// Why Slack links are not checked while `serve` has not signed in to Slack yet.
pub const NOT_SIGNED_IN: &str =
    "not checked (sourcebot has not signed in to Slack yet: Slack links are checked once it has)";

/// The Slack links of answers checked before Slack answered `serve`'s sign-in: said to
/// be not checked, and why, until [`SlackLinksOnceSignedIn::attach`] gives the signed-in
/// workspace's checker, which then checks every one. Lets the answer API check answers
/// while Slack is unreachable.
#[derive(Default)]
pub struct SlackLinksOnceSignedIn {
    checker: OnceLock<Arc<dyn InternalChecker>>,
}

impl SlackLinksOnceSignedIn {
    /// A checker waiting for the sign-in.
    pub fn new() -> SlackLinksOnceSignedIn {
        SlackLinksOnceSignedIn::default()
    }

    /// From now on Slack links are checked with `checker` (the first one given stays).
    pub fn attach(&self, checker: Arc<dyn InternalChecker>) {
        let _ = self.checker.set(checker);
    }
}

impl InternalChecker for SlackLinksOnceSignedIn {
    fn handles(&self, kind: SourceKind, url: &str) -> bool {
        is_slack_item(kind, url)
    }

    fn check<'a>(&'a self, url: &'a str) -> BoxFuture<'a, Verdict> {
        Box::pin(async move { self.check_titled(url).await.verdict })
    }

    fn check_titled<'a>(&'a self, url: &'a str) -> BoxFuture<'a, Checked> {
        Box::pin(async move {
            match self.checker.get() {
                Some(checker) => checker.check_titled(url).await,
                None => Checked::untitled(Verdict::not_checked(NOT_SIGNED_IN)),
            }
        })
    }

    fn read<'a>(&'a self, url: &'a str) -> BoxFuture<'a, Option<PageRead>> {
        Box::pin(async move {
            match self.checker.get() {
                Some(checker) => checker.read(url).await,
                None => None,
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn without_a_token_slack_links_name_the_setting() {
        let checker = NoSlackToken;
        let permalink = "https://acme.slack.com/archives/C04ENGDEPLOY/p1731412345678901";
        assert!(checker.handles(SourceKind::Slack, permalink));
        assert!(checker.handles(
            SourceKind::File,
            "https://files.slack.com/files-pri/T0001-F0123ABCD/report.pdf"
        ));
        assert!(!checker.handles(SourceKind::Web, "https://example.com/archives/C1/p1"));
        let checked = checker.check_titled(permalink).await;
        assert_eq!(checked.verdict.class, VerdictClass::NotChecked);
        assert_eq!(checked.verdict.reason.as_deref(), Some(NO_SLACK_TOKEN));
    }

    #[tokio::test]
    async fn slack_links_wait_for_the_sign_in_then_go_to_its_checker() {
        let url = "https://acme.slack.com/archives/C0123456789/p1700000000000100";
        let late = SlackLinksOnceSignedIn::new();
        assert!(late.handles(SourceKind::Slack, url));
        assert!(!late.handles(SourceKind::Web, "https://example.com/"));
        let before = late.check(url).await;
        assert_eq!(before.class, VerdictClass::NotChecked);
        assert_eq!(before.reason.as_deref(), Some(NOT_SIGNED_IN));
        late.attach(Arc::new(NoSlackToken));
        let after = late.check(url).await;
        assert_eq!(after.reason.as_deref(), Some(NO_SLACK_TOKEN));
    }
}
