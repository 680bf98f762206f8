//! Reading from Slack for the bot: a thread's messages, the message a permalink points
//! at, a file's metadata (and a snippet's text), whether a conversation is private,
//! each kept as the JSON Slack sent (slack-morphism's models drop
//! fields the reader needs).

use super::{CallError, SlackApi, MAX_THREAD_PAGES};
use crate::collect::slack_message::lenient;
use crate::slack::inbound::Permalink;
use serde_json::Value;

impl SlackApi {
    /// The messages of a thread, parent first, as Slack sent them
    /// (`conversations.replies`, following the cursor for at most [`MAX_THREAD_PAGES`]
    /// pages of 200).
    pub async fn thread(&self, channel: &str, thread_ts: &str) -> Result<Vec<Value>, CallError> {
        let mut messages = Vec::new();
        let mut cursor: Option<String> = None;
        for _ in 0..MAX_THREAD_PAGES {
            let page = self
                .raw_page(
                    "conversations.replies",
                    vec![
                        ("channel", Some(channel.to_string())),
                        ("ts", Some(thread_ts.to_string())),
                        ("limit", Some("200".to_string())),
                        ("cursor", cursor.take()),
                    ],
                )
                .await?;
            messages.extend(page.messages);
            cursor = page.next_cursor;
            if cursor.is_none() {
                break;
            }
        }
        Ok(messages)
    }

    /// The message a permalink points at, as Slack sent it, or `None` when Slack has no
    /// such message.
    pub async fn message(&self, link: &Permalink) -> Result<Option<Value>, CallError> {
        let page = match &link.thread_ts {
            Some(thread_ts) if *thread_ts != link.ts => {
                let page = self
                    .raw_page(
                        "conversations.replies",
                        vec![
                            ("channel", Some(link.channel.clone())),
                            ("ts", Some(thread_ts.clone())),
                            ("latest", Some(link.ts.clone())),
                            ("inclusive", Some("true".to_string())),
                            ("limit", Some("200".to_string())),
                        ],
                    )
                    .await;
                match page {
                    Err(e) if e.code() == Some("thread_not_found") => return Ok(None),
                    other => other?,
                }
            }
            _ => {
                self.raw_page(
                    "conversations.history",
                    vec![
                        ("channel", Some(link.channel.clone())),
                        ("latest", Some(link.ts.clone())),
                        ("inclusive", Some("true".to_string())),
                        ("limit", Some("1".to_string())),
                    ],
                )
                .await?
            }
        };
        Ok(page
            .messages
            .into_iter()
            .find(|m| m.get("ts").and_then(Value::as_str) == Some(link.ts.as_str())))
    }

    /// A file's metadata (`files.info`), as Slack sent it (`file`), and a snippet's
    /// text (`content`, which Slack gives for snippets beside the file, with
    /// `is_truncated`); Slack's `file_not_found` and `file_deleted` come back as
    /// [`CallError::Slack`].
    pub async fn file_info(&self, file_id: &str) -> Result<SlackFile, CallError> {
        let session = self.client.open_session(&self.token);
        let params = vec![("file", Some(file_id.to_string()))];
        let reply: RawFile = self
            .call("files.info", || {
                session
                    .http_session_api
                    .http_get("files.info", &params, None)
            })
            .await?;
        Ok(SlackFile {
            file: reply.file,
            content: reply.content.filter(|c| !c.is_empty()),
            truncated: reply.is_truncated,
        })
    }

    /// Whether the conversation `channel` is private (a private channel, a direct or
    /// group message), as `conversations.info` says (scopes `channels:read`,
    /// `groups:read`).
    pub async fn conversation_is_private(&self, channel: &str) -> Result<bool, CallError> {
        let session = self.client.open_session(&self.token);
        let params = vec![("channel", Some(channel.to_string()))];
        let reply: RawConversation = self
            .call("conversations.info", || {
                session
                    .http_session_api
                    .http_get("conversations.info", &params, None)
            })
            .await?;
        let flag = |name: &str| reply.channel.get(name).and_then(Value::as_bool) == Some(true);
        Ok(flag("is_private") || flag("is_im") || flag("is_mpim") || flag("is_group"))
    }

    /// One page of a history or replies method, its messages kept as Slack wrote them
    /// (every field: slack-morphism's models drop attachment fields the reader needs).
    /// A message whose JSON cannot be read even leniently is left out, and the log
    /// says so; the others are kept.
    async fn raw_page(
        &self,
        method: &'static str,
        params: Vec<(&'static str, Option<String>)>,
    ) -> Result<MessagePage, CallError> {
        let session = self.client.open_session(&self.token);
        let page: RawPage = self
            .call(method, || {
                session.http_session_api.http_get(method, &params, None)
            })
            .await?;
        let mut messages = Vec::with_capacity(page.messages.len());
        for raw in page.messages {
            match lenient::parse(raw.get()) {
                Ok((message, repaired)) => {
                    if repaired {
                        tracing::debug!(method, "a message had lone UTF-16 surrogates: replaced");
                    }
                    messages.push(message);
                }
                Err(error) => tracing::warn!(method, %error, "left out a message that is not JSON"),
            }
        }
        let next_cursor = page
            .response_metadata
            .and_then(|m| m.next_cursor)
            .filter(|c| !c.is_empty());
        Ok(MessagePage {
            messages,
            next_cursor,
        })
    }
}

/// A file as `files.info` gives it.
#[derive(Debug, Clone)]
pub struct SlackFile {
    /// The file object, as Slack sent it.
    pub file: Value,
    /// A snippet's text, when Slack gave it.
    pub content: Option<String>,
    /// Slack cut `content`.
    pub truncated: bool,
}

/// `files.info`'s reply: the file object, and a snippet's content.
#[derive(serde::Deserialize)]
struct RawFile {
    #[serde(default)]
    file: Value,
    #[serde(default)]
    content: Option<String>,
    #[serde(default)]
    is_truncated: bool,
}

/// `conversations.info`'s reply: the conversation object.
#[derive(serde::Deserialize)]
struct RawConversation {
    #[serde(default)]
    channel: Value,
}

/// A page of messages, each as raw JSON.
#[derive(serde::Deserialize)]
struct RawPage {
    #[serde(default)]
    messages: Vec<Box<serde_json::value::RawValue>>,
    #[serde(default)]
    response_metadata: Option<RawMetadata>,
}

#[derive(serde::Deserialize)]
struct RawMetadata {
    #[serde(default)]
    next_cursor: Option<String>,
}

/// A page of messages, read.
struct MessagePage {
    messages: Vec<Value>,
    next_cursor: Option<String>,
}
