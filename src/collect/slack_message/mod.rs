//! Reads a Slack message the way a person sees it in Slack, into the [`Answer`] the
//! pipeline checks. Every entry point uses it: mentions, watched assistants' replies and
//! their edits, the message shortcut, `/sources <permalink>`, the thread look-up, the
//! HTTP API and `sourcebot check --input slack-message`.
//!
//! What a person sees, following Slack's reference for each type:
//! - When a message has `blocks`, the blocks are the message and `text` is only the
//!   notification fallback: the blocks are read ([`blocks`]), and `text` only when there
//!   are no blocks (or none of them could be read).
//! - `attachments` add what they show ([`attachments`]); a link unfurl (an attachment
//!   with `from_url`, `original_url` or `is_app_unfurl`) repeats a link the message
//!   already shows: it may give that link its title, and is a citation only when the
//!   message shows the link nowhere else.
//! - mrkdwn and standard Markdown (the `markdown` block) are each kept as what they are;
//!   Slack's entity escapes are decoded once; mentions read as `@name`; code is fenced,
//!   so links inside code are not citations ([`doc`]).
//! - `rich_text` is written out with its links, lists and quotes ([`rich_text`]).
//! - Files shared in the message (`files`) are file cards: each is a source titled as
//!   its card shows it and linked by its `permalink` ([`files`]).
//!
//! Nothing here fails on what Slack adds or a sender gets wrong: unknown block types,
//! fields of the wrong type, nesting deeper than [`ReadLimits::max_depth`] and anything
//! past [`ReadLimits::max_nodes`] are skipped and listed in [`ReadNotes`], and the rest
//! of the message is still read. No network, no I/O.

pub mod attachments;
pub mod blocks;
mod context;
pub mod doc;
pub mod files;
pub mod lenient;
pub mod rich_text;
pub mod thread;

use crate::model::{Answer, InputShape, Origin};
use doc::{Doc, Path};
use serde_json::{Map, Value};

/// How much of one message is read at most.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadLimits {
    /// Blocks, elements and attachments visited at most (default 20,000; Slack allows 50
    /// blocks a message, so only malformed or hostile input comes near it).
    pub max_nodes: usize,
    /// Deepest nesting read (containers in containers, rich text in rich text); default 12.
    pub max_depth: usize,
    /// Longest text produced, in bytes (default 1 MiB; Slack's own limit on a message's
    /// text is 40,000 characters).
    pub max_text_bytes: usize,
}

impl Default for ReadLimits {
    fn default() -> Self {
        ReadLimits {
            max_nodes: 20_000,
            max_depth: 12,
            max_text_bytes: 1 << 20,
        }
    }
}

/// Why part of a message was not read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SkipReason {
    /// A block, element or cell type this reader does not know.
    UnknownType,
    /// A field that holds the wrong kind of value (a string where an object belongs…).
    WrongType,
    /// Nested deeper than [`ReadLimits::max_depth`].
    TooDeep,
    /// Past [`ReadLimits::max_nodes`] or [`ReadLimits::max_text_bytes`].
    TooMany,
    /// Something Slack no longer shows (a deleted file, one hidden by the workspace's
    /// plan): nothing to click.
    Unavailable,
}

impl SkipReason {
    /// The lower-case name used in logs and metrics.
    pub fn as_str(self) -> &'static str {
        match self {
            SkipReason::UnknownType => "unknown_type",
            SkipReason::WrongType => "wrong_type",
            SkipReason::TooDeep => "too_deep",
            SkipReason::TooMany => "too_many",
            SkipReason::Unavailable => "unavailable",
        }
    }

    /// Every reason.
    pub const ALL: [SkipReason; 5] = [
        SkipReason::UnknownType,
        SkipReason::WrongType,
        SkipReason::TooDeep,
        SkipReason::TooMany,
        SkipReason::Unavailable,
    ];
}

/// How many things were skipped, by reason.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SkipCounts {
    /// [`SkipReason::UnknownType`].
    pub unknown_type: usize,
    /// [`SkipReason::WrongType`].
    pub wrong_type: usize,
    /// [`SkipReason::TooDeep`].
    pub too_deep: usize,
    /// [`SkipReason::TooMany`].
    pub too_many: usize,
    /// [`SkipReason::Unavailable`].
    pub unavailable: usize,
}

impl SkipCounts {
    fn add(&mut self, reason: SkipReason) {
        *match reason {
            SkipReason::UnknownType => &mut self.unknown_type,
            SkipReason::WrongType => &mut self.wrong_type,
            SkipReason::TooDeep => &mut self.too_deep,
            SkipReason::TooMany => &mut self.too_many,
            SkipReason::Unavailable => &mut self.unavailable,
        } += 1;
    }

    /// The count for `reason`.
    pub fn get(&self, reason: SkipReason) -> usize {
        match reason {
            SkipReason::UnknownType => self.unknown_type,
            SkipReason::WrongType => self.wrong_type,
            SkipReason::TooDeep => self.too_deep,
            SkipReason::TooMany => self.too_many,
            SkipReason::Unavailable => self.unavailable,
        }
    }

    /// All skips.
    pub fn total(&self) -> usize {
        self.unknown_type + self.wrong_type + self.too_deep + self.too_many + self.unavailable
    }
}

/// One thing that was not read, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// Why.
    pub reason: SkipReason,
    /// Its JSON path in the message (`$.blocks[3].elements[0]`).
    pub path: String,
    /// What it was (a type name, or a short description).
    pub what: String,
}

/// What reading a message found besides its text: how much was read and what was not.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReadNotes {
    /// Blocks read (nested ones included).
    pub blocks: usize,
    /// Attachments read (unfurls included).
    pub attachments: usize,
    /// Link unfurls seen.
    pub unfurls: usize,
    /// `text` was read because the message had no blocks that could be read.
    pub used_fallback_text: bool,
    /// The message was not read to its end (see [`ReadLimits`]).
    pub truncated: bool,
    /// Skips by reason.
    pub counts: SkipCounts,
    /// The first skips, with their paths.
    pub skipped: Vec<Skipped>,
}

/// A message read: the answer to check and the notes.
#[derive(Debug, Clone, PartialEq)]
pub struct MessageRead {
    /// The answer: its text as a person reads it, the titles link previews give, shape
    /// [`InputShape::SlackMessage`] and origin [`Origin::Slack`].
    pub answer: Answer,
    /// What was read and skipped.
    pub notes: ReadNotes,
}

/// Who posted a message and where it sits, read leniently from its JSON.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MessageMeta {
    /// `ts`: the message's id within its channel.
    pub ts: Option<String>,
    /// `thread_ts`: the thread's parent, for replies (and for a parent with replies).
    pub thread_ts: Option<String>,
    /// `user`: the author (a bot user for apps).
    pub user: Option<String>,
    /// `bot_id`: set on messages bots and apps post.
    pub bot_id: Option<String>,
    /// `app_id`.
    pub app_id: Option<String>,
    /// `subtype` (`bot_message`, `thread_broadcast`, `tombstone`…).
    pub subtype: Option<String>,
    /// `channel`, when the JSON carries it (events do; history items do not).
    pub channel: Option<String>,
}

impl MessageMeta {
    /// Reads the fields that are strings; anything else counts as absent.
    pub fn of(message: &Value) -> MessageMeta {
        let field = |key: &str| {
            message
                .get(key)
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
        };
        MessageMeta {
            ts: field("ts"),
            thread_ts: field("thread_ts"),
            user: field("user"),
            bot_id: field("bot_id"),
            app_id: field("app_id"),
            subtype: field("subtype"),
            channel: field("channel"),
        }
    }

    /// Whether the message is a deleted parent's stand-in (`subtype: tombstone`).
    pub fn is_tombstone(&self) -> bool {
        self.subtype.as_deref() == Some("tombstone")
    }

    /// Whether the message is a reply in a thread (not its parent).
    pub fn is_reply(&self) -> bool {
        matches!((&self.thread_ts, &self.ts), (Some(thread), Some(ts)) if thread != ts)
    }
}

/// Options for reading.
#[derive(Debug, Clone, Default)]
pub struct ReadOptions {
    /// Limits on how much is read.
    pub limits: ReadLimits,
    /// A user whose mentions are left out of the text (the bot itself, so that
    /// "@sourcebot check this" reads as "check this").
    pub omit_mention_of: Option<String>,
}

/// Reads `message` (a message object as events, `conversations.history`,
/// `conversations.replies` and interaction payloads deliver it).
pub fn read_message(message: &Value, options: &ReadOptions) -> MessageRead {
    let mut doc = Doc::new(&options.limits);
    let meta = MessageMeta::of(message);
    let Some(object) = message.as_object() else {
        doc.skip(
            SkipReason::WrongType,
            &Path::Root,
            "the message is not a JSON object",
        );
        return finish(doc, &meta);
    };
    if meta.is_tombstone() {
        return finish(doc, &meta);
    }
    let root = Path::Root;
    let mut context = context::Context {
        doc: &mut doc,
        omit_user: options.omit_mention_of.as_deref(),
    };
    let read_blocks = match object.get("blocks") {
        None | Some(Value::Null) => 0,
        Some(Value::Array(list)) => blocks::read_blocks(&mut context, list, &root.key("blocks"), 0),
        Some(_) => {
            context
                .doc
                .skip(SkipReason::WrongType, &root.key("blocks"), "not an array");
            0
        }
    };
    if read_blocks == 0 {
        read_fallback_text(&mut context, object, &root);
    }
    match object.get("files") {
        None | Some(Value::Null) => {}
        Some(Value::Array(list)) => files::read_files(&mut context, list, &root.key("files")),
        Some(_) => context
            .doc
            .skip(SkipReason::WrongType, &root.key("files"), "not an array"),
    }
    match object.get("attachments") {
        None | Some(Value::Null) => {}
        Some(Value::Array(list)) => {
            attachments::read_attachments(&mut context, list, &root.key("attachments"), 0)
        }
        Some(_) => context.doc.skip(
            SkipReason::WrongType,
            &root.key("attachments"),
            "not an array",
        ),
    }
    finish(doc, &meta)
}

/// `text`, read when the message has no readable blocks.
fn read_fallback_text(
    context: &mut context::Context<'_>,
    object: &Map<String, Value>,
    root: &Path<'_>,
) {
    match object.get("text") {
        Some(Value::String(text)) if !text.trim().is_empty() => {
            context.doc.notes.used_fallback_text = true;
            context.doc.paragraph();
            let text = context.without_own_mention(text);
            context.doc.mrkdwn(&text);
        }
        None | Some(Value::Null) | Some(Value::String(_)) => {}
        Some(_) => context
            .doc
            .skip(SkipReason::WrongType, &root.key("text"), "not a string"),
    }
}

fn finish(doc: Doc, meta: &MessageMeta) -> MessageRead {
    let mut text = doc.text;
    let kept = text.trim_end().len();
    text.truncate(kept);
    MessageRead {
        answer: Answer {
            text,
            link_titles: doc.link_titles,
            shape: InputShape::SlackMessage,
            origin: Origin::Slack {
                channel: meta.channel.clone(),
                ts: meta.ts.clone(),
            },
            ..Answer::default()
        },
        notes: doc.notes,
    }
}

/// Where the message is in a JSON document that carries one: the document itself when
/// it is a message object; the `payload` of a Socket Mode envelope, read the same way; the `message` of a `message_changed` event, of an
/// interaction payload (`message_action`, `block_actions`) or of a `chat.postMessage`
/// response; the `event` of an Events API callback (and its message, when it is a
/// change). `None` when the document holds no single message (a history response
/// holds many: see [`thread::latest_answer`]).
pub fn message_in(document: &Value) -> Option<&Value> {
    let object = document.as_object()?;
    // A Socket Mode envelope (`{envelope_id, type, payload}`) carries an Events API
    // callback or an interaction payload: read what it carries.
    if object.contains_key("envelope_id") {
        return object
            .get("payload")
            .filter(|p| p.is_object())
            .and_then(message_in);
    }
    if let Some(event) = object.get("event").filter(|e| e.is_object()) {
        return message_in(event);
    }
    let kind = object.get("type").and_then(Value::as_str);
    let subtype = object.get("subtype").and_then(Value::as_str);
    if let Some(inner) = object.get("message").filter(|m| m.is_object()) {
        if subtype == Some("message_changed") || kind != Some("message") {
            return Some(inner);
        }
    }
    let looks_like_message = matches!(kind, Some("message") | Some("app_mention"))
        || object.get("blocks").is_some_and(Value::is_array)
        || object.get("attachments").is_some_and(Value::is_array);
    looks_like_message.then_some(document)
}

/// The messages of a `conversations.history` or `conversations.replies` response
/// (`{ok, messages: [...]}`), or of a bare array of message objects.
pub fn messages_in(document: &Value) -> Option<&Vec<Value>> {
    match document {
        Value::Object(object) => object.get("messages").and_then(Value::as_array),
        Value::Array(items) if items.iter().all(|m| message_in(m).is_some()) => Some(items),
        _ => None,
    }
}

/// Whether a collected message is worth a report: it cites something, or says
/// something a reader would want a source for. Placeholders ("Thinking…"), greetings,
/// thanks, questions and status lines are not.
pub fn worth_checking(collected: &crate::collect::Collected) -> bool {
    !collected.sources.is_empty()
        || collected.metrics.uncited_claims > 0
        || collected.metrics.dangling_citations > 0
}

#[cfg(test)]
mod tests;
