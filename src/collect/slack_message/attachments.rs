//! Legacy message attachments (docs.slack.dev/messaging/formatting-message-text#attachments
//! and the attachment fields reference), still common in bots' answers, and link
//! unfurls, which Slack delivers as attachments.
//!
//! An attachment shows, top to bottom: `pretext`, the author (`author_name` linked to
//! `author_link`), the title (`title` linked to `title_link`), `text`, `fields` (each a
//! `title` over a `value`), its own `blocks`, link buttons in `actions`, and `footer`.
//! Text fields are read as mrkdwn: Slack turns `<url|label>` into links in every one of
//! them. Images (`image_url`, `thumb_url`, `author_icon`, `footer_icon`) and `fallback`
//! (shown only where attachments cannot be) are not read.
//!
//! An unfurl (an attachment with `from_url`, `original_url` or `is_app_unfurl`) is a
//! preview of a link the message shows: it is not a second citation. Its `title` names
//! that link ([`crate::model::LinkTitle`]). Only when the message shows the link nowhere
//! else is the preview itself the citation.

use super::blocks::{read_blocks, string_field};
use super::context::{array_field, Context};
use super::doc::Path;
use super::SkipReason;
use crate::collect::{canon, scan};
use crate::model::LinkTitle;
use serde_json::{Map, Value};
use std::collections::HashSet;

/// The fields that mark an attachment as a link unfurl.
pub const UNFURL_KEYS: [&str; 3] = ["from_url", "original_url", "is_app_unfurl"];

/// A link preview, kept until the rest of the message is read.
struct Unfurl<'v> {
    url: &'v str,
    title: Option<&'v str>,
}

/// Reads every attachment; unfurls last, once it is known which links the message shows.
pub(super) fn read_attachments(
    context: &mut Context<'_>,
    attachments: &[Value],
    path: &Path<'_>,
    depth: usize,
) {
    let mut unfurls = Vec::new();
    context.each(attachments, path, |context, attachment, at| {
        let Some(object) = attachment.as_object() else {
            context.doc.skip(
                SkipReason::WrongType,
                at,
                "an attachment that is not an object",
            );
            return;
        };
        context.doc.notes.attachments += 1;
        if is_unfurl(object) {
            context.doc.notes.unfurls += 1;
            unfurls.extend(unfurl_of(object));
        } else {
            attachment_body(context, object, at, depth);
        }
    });
    if unfurls.is_empty() {
        return;
    }
    let shown = shown_links(&context.doc.text);
    for unfurl in unfurls {
        let shown_already = canon::canonical_url(unfurl.url)
            .map(|url| shown.contains(url.as_str()))
            .unwrap_or(false);
        if shown_already {
            if let Some(title) = unfurl.title.filter(|t| !t.trim().is_empty()) {
                context.doc.link_titles.push(LinkTitle {
                    url: unfurl.url.to_string(),
                    title: title.to_string(),
                });
            }
        } else {
            context.doc.paragraph();
            context.doc.link(unfurl.url, unfurl.title);
        }
    }
}

/// Whether an attachment is a link preview.
fn is_unfurl(object: &Map<String, Value>) -> bool {
    UNFURL_KEYS.iter().any(|key| match object.get(*key) {
        Some(Value::Bool(flag)) => *flag,
        Some(Value::String(url)) => !url.trim().is_empty(),
        _ => false,
    })
}

fn unfurl_of(object: &Map<String, Value>) -> Option<Unfurl<'_>> {
    let url = ["original_url", "from_url", "title_link"]
        .iter()
        .find_map(|key| object.get(*key).and_then(Value::as_str))
        .filter(|u| !u.trim().is_empty())?;
    Some(Unfurl {
        url,
        title: object.get("title").and_then(Value::as_str),
    })
}

/// What an ordinary attachment shows.
fn attachment_body(
    context: &mut Context<'_>,
    object: &Map<String, Value>,
    path: &Path<'_>,
    depth: usize,
) {
    context.doc.paragraph();
    mrkdwn_field(context, object, "pretext", path);
    titled_link(context, object, "author_name", "author_link", path);
    titled_link(context, object, "title", "title_link", path);
    mrkdwn_field(context, object, "text", path);
    context.each_in(object, "fields", path, |context, field, at| {
        match field.as_object() {
            Some(field) => {
                // A field's title is a label over its value: each its own piece of text.
                context.doc.paragraph();
                if let Some(title) = string_field(context, field, "title", at) {
                    context.doc.plain(title);
                    context.doc.paragraph();
                }
                mrkdwn_field(context, field, "value", at);
            }
            None => context
                .doc
                .skip(SkipReason::WrongType, at, "a field that is not an object"),
        }
    });
    if let Some(blocks) = array_field(context, object, "blocks", path) {
        read_blocks(context, blocks, &path.key("blocks"), depth + 1);
    }
    context.each_in(object, "actions", path, |context, action, _| {
        let url = action.get("url").and_then(Value::as_str);
        if let Some(url) = url.filter(|u| !u.trim().is_empty()) {
            context.doc.line();
            context
                .doc
                .link(url, action.get("text").and_then(Value::as_str));
        }
    });
    // The footer is small print under the attachment, never part of its last sentence.
    context.doc.paragraph();
    mrkdwn_field(context, object, "footer", path);
}

/// A mrkdwn field on its own line.
fn mrkdwn_field(
    context: &mut Context<'_>,
    object: &Map<String, Value>,
    key: &str,
    path: &Path<'_>,
) {
    if let Some(text) = string_field(context, object, key, path) {
        if !text.trim().is_empty() {
            context.doc.line();
            let text = context.without_own_mention(text).into_owned();
            context.doc.mrkdwn(&text);
        }
    }
}

/// `object[label]` linked to `object[link]`; the label alone when there is no link.
fn titled_link(
    context: &mut Context<'_>,
    object: &Map<String, Value>,
    label: &str,
    link: &str,
    path: &Path<'_>,
) {
    let label = string_field(context, object, label, path).filter(|l| !l.trim().is_empty());
    let url = string_field(context, object, link, path).filter(|u| !u.trim().is_empty());
    match (url, label) {
        (Some(url), label) => {
            context.doc.line();
            context.doc.link(url, label);
        }
        (None, Some(label)) => {
            context.doc.line();
            context.doc.plain(label);
        }
        (None, None) => {}
    }
}

/// The canonical URLs of every link `text` shows.
fn shown_links(text: &str) -> HashSet<String> {
    let found = scan::scan(text);
    found
        .links
        .iter()
        .map(|l| l.url.as_str())
        .chain(found.refs.iter().filter_map(|r| r.url.as_deref()))
        .filter_map(|url| canon::canonical_url(url).ok())
        .map(String::from)
        .collect()
}
