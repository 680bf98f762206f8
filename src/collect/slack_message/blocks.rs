//! Block Kit blocks, as Slack's reference (docs.slack.dev/reference/block-kit/blocks)
//! describes each one, read into the message's text in display order:
//!
//! | block | what is read |
//! |---|---|
//! | `section` | `text` (mrkdwn or plain), every one of `fields`, an `accessory` button's `url` or overflow menu's option `url`s |
//! | `header` | its plain text, as a heading (not a claim) |
//! | `context` | each mrkdwn or plain_text element on its own line; images skipped |
//! | `rich_text` | see [`super::rich_text`] |
//! | `markdown` | `text`, standard Markdown as it is |
//! | `table` | each cell (`raw_text`, `rich_text`), a row a line |
//! | `data_table` | `caption`, then each cell (`raw_text`, `raw_number`, `rich_text`) |
//! | `actions` | each button with a `url`, titled by the button, and each overflow-menu option with a `url`, titled by the option |
//! | `video` | `title` linked to `title_url` (or `video_url`) |
//! | `file` | a remote file's `title` and `url`, where the JSON has them |
//! | `task_card` | `title`, `details`, `output` (rich text) and each `sources` link |
//! | `plan` | `title` and each task, as a `task_card` |
//! | `card` | `title`, `subtitle`, `body` and each action button with a `url` |
//! | `carousel` | each card in `elements` |
//! | `container` | `title` or `rich_text_title`, `subtitle` and every child block |
//! | `alert` | `text` |
//!
//! `divider`, `image`, `input`, `context_actions`, `call` and `share_shortcut` carry no
//! sources and are passed over; any other type is skipped and noted.

use super::context::{array_field, Context};
use super::doc::Path;
use super::rich_text;
use super::SkipReason;
use serde_json::{Map, Value};

/// Reads `blocks` in order; returns how many were read (known types, whether or not they
/// held text).
pub(super) fn read_blocks(
    context: &mut Context<'_>,
    blocks: &[Value],
    path: &Path<'_>,
    depth: usize,
) -> usize {
    if !context.doc.may_descend(depth, path) {
        return 0;
    }
    let mut read = 0;
    context.each(blocks, path, |context, block, at| {
        read += usize::from(read_block(context, block, at, depth));
    });
    read
}

/// Reads one block; `false` when it is not a block this reader knows.
fn read_block(context: &mut Context<'_>, block: &Value, path: &Path<'_>, depth: usize) -> bool {
    let Some(object) = block.as_object() else {
        context
            .doc
            .skip(SkipReason::WrongType, path, "a block that is not an object");
        return false;
    };
    let kind = object.get("type").and_then(Value::as_str).unwrap_or("");
    context.doc.paragraph();
    match kind {
        "section" => section(context, object, path),
        "header" => header(context, object, path),
        "context" => context_block(context, object, path),
        "rich_text" => rich_text::read_block(context, object, path, depth + 1),
        "markdown" => markdown(context, object, path),
        "table" => table(context, object, path, "rows", depth),
        "data_table" => {
            if let Some(caption) = string_field(context, object, "caption", path) {
                context.doc.plain(caption);
                context.doc.line();
            }
            table(context, object, path, "rows", depth)
        }
        "actions" => link_buttons(context, object, "elements", path),
        "video" => video(context, object, path),
        "file" => file(context, object, path),
        "task_card" => task_card(context, object, path, depth),
        "plan" => plan(context, object, path, depth),
        "card" => card(context, object, path),
        "carousel" => {
            if let Some(cards) = array_field(context, object, "elements", path) {
                read_blocks(context, cards, &path.key("elements"), depth + 1);
            }
        }
        "container" => container(context, object, path, depth),
        "alert" => {
            if let Some(text) = object.get("text") {
                text_object(context, text, &path.key("text"));
            }
        }
        "divider" | "image" | "input" | "context_actions" | "call" | "share_shortcut" => {}
        other => {
            let what = if other.is_empty() {
                "a block without a type".to_string()
            } else {
                format!("block type {other}")
            };
            context.doc.skip(SkipReason::UnknownType, path, &what);
            return false;
        }
    }
    context.doc.notes.blocks += 1;
    true
}

/// A text object (`{type: mrkdwn|plain_text, text}`): mrkdwn read as mrkdwn, plain text
/// as it is.
pub(super) fn text_object(context: &mut Context<'_>, value: &Value, path: &Path<'_>) {
    let Some(object) = value.as_object() else {
        match value {
            // Some senders put a bare string where a text object belongs.
            Value::String(text) => {
                let text = context.without_own_mention(text);
                context.doc.mrkdwn(&text);
            }
            Value::Null => {}
            _ => context.doc.skip(
                SkipReason::WrongType,
                path,
                "a text object that is not an object",
            ),
        }
        return;
    };
    let Some(text) = string_field(context, object, "text", path) else {
        return;
    };
    match object.get("type").and_then(Value::as_str) {
        Some("plain_text") => context.doc.plain(text),
        _ => {
            let text = context.without_own_mention(text);
            context.doc.mrkdwn(&text);
        }
    }
}

fn section(context: &mut Context<'_>, object: &Map<String, Value>, path: &Path<'_>) {
    if let Some(text) = object.get("text") {
        text_object(context, text, &path.key("text"));
    }
    context.each_in(object, "fields", path, |context, field, at| {
        context.doc.paragraph();
        text_object(context, field, at);
    });
    if let Some(accessory) = object.get("accessory") {
        let at = path.key("accessory");
        if context.doc.visit(&at) {
            link_element(context, accessory, &at);
        }
    }
}

fn header(context: &mut Context<'_>, object: &Map<String, Value>, path: &Path<'_>) {
    let text = match object.get("text") {
        Some(Value::Object(text)) => string_field(context, text, "text", &path.key("text")),
        Some(Value::String(text)) => Some(text.as_str()),
        _ => None,
    };
    if let Some(text) = text.map(|t| t.split_whitespace().collect::<Vec<_>>().join(" ")) {
        if !text.is_empty() {
            context.doc.push("## ");
            context.doc.plain(&text);
            context.doc.paragraph();
        }
    }
}

fn context_block(context: &mut Context<'_>, object: &Map<String, Value>, path: &Path<'_>) {
    context.each_in(
        object,
        "elements",
        path,
        |context, element, at| match element.get("type").and_then(Value::as_str) {
            Some("mrkdwn") | Some("plain_text") => {
                // Each element is an item of its own, shown side by side in small type
                // ("Updated 12 Jan 2025", "[1] <url|title>"): no sentence runs from one
                // into the next, and a stamp alone is a label, not a claim.
                context.doc.paragraph();
                text_object(context, element, at);
            }
            Some("image") => {}
            Some(other) => context.doc.skip(
                SkipReason::UnknownType,
                at,
                &format!("context element {other}"),
            ),
            None => context.doc.skip(
                SkipReason::WrongType,
                at,
                "a context element without a type",
            ),
        },
    );
}

fn markdown(context: &mut Context<'_>, object: &Map<String, Value>, path: &Path<'_>) {
    if let Some(text) = string_field(context, object, "text", path) {
        let text = context.without_own_mention(text);
        context.doc.plain(&text);
    }
}

/// The rows of a `table` or `data_table`: a line per row, cells between `|`.
fn table(
    context: &mut Context<'_>,
    object: &Map<String, Value>,
    path: &Path<'_>,
    key: &str,
    depth: usize,
) {
    context.each_in(object, key, path, |context, row, row_path| {
        let Some(cells) = row.as_array() else {
            context.doc.skip(
                SkipReason::WrongType,
                row_path,
                "a table row that is not an array",
            );
            return;
        };
        context.doc.line();
        context.doc.push("|");
        context.each(cells, row_path, |context, cell, cell_path| {
            context.doc.push(" ");
            table_cell(context, cell, cell_path, depth);
            context.doc.push(" |");
        });
    });
    context.doc.paragraph();
}

fn table_cell(context: &mut Context<'_>, cell: &Value, path: &Path<'_>, depth: usize) {
    let one_line = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    match cell.get("type").and_then(Value::as_str) {
        Some("raw_text") => {
            if let Some(text) = cell.get("text").and_then(Value::as_str) {
                context.doc.plain(&one_line(text));
            }
        }
        Some("raw_number") => match cell.get("value").or_else(|| cell.get("text")) {
            Some(Value::Number(n)) => context.doc.plain(&n.to_string()),
            Some(Value::String(s)) => context.doc.plain(&one_line(s)),
            _ => {}
        },
        Some("rich_text") => {
            if let Some(object) = cell.as_object() {
                let inline = rich_text::inline_text(context, object, path, depth + 1);
                context.doc.push(&one_line(&inline));
            }
        }
        Some("action_cell") => {}
        Some(other) => context.doc.skip(
            SkipReason::UnknownType,
            path,
            &format!("table cell {other}"),
        ),
        None => match cell {
            Value::String(text) => context.doc.plain(&one_line(text)),
            _ => context
                .doc
                .skip(SkipReason::WrongType, path, "a table cell without a type"),
        },
    }
}

/// Each button among `key`'s elements that opens a URL, as a link titled by the button.
fn link_buttons(
    context: &mut Context<'_>,
    object: &Map<String, Value>,
    key: &str,
    path: &Path<'_>,
) {
    context.each_in(object, key, path, |context, element, at| {
        link_element(context, element, at)
    });
}

/// A button (or any element) with a `url`: a link, titled by its text. An overflow menu
/// (docs.slack.dev/reference/block-kit/block-elements/overflow-menu-element): each of its
/// `options` with a `url`, titled by the option's text.
fn link_element(context: &mut Context<'_>, element: &Value, path: &Path<'_>) {
    if element.get("type").and_then(Value::as_str) == Some("overflow") {
        if let Some(menu) = element.as_object() {
            context.each_in(menu, "options", path, |context, option, at| {
                link_element(context, option, at)
            });
        }
        return;
    }
    let Some(url) = element.get("url") else {
        return;
    };
    let Some(url) = url.as_str() else {
        context.doc.skip(
            SkipReason::WrongType,
            &path.key("url"),
            "a url that is not a string",
        );
        return;
    };
    if url.trim().is_empty() {
        return;
    }
    let label = match element.get("text") {
        Some(Value::Object(text)) => text.get("text").and_then(Value::as_str),
        Some(Value::String(text)) => Some(text.as_str()),
        _ => None,
    };
    context.doc.line();
    context.doc.link(url, label);
}

fn video(context: &mut Context<'_>, object: &Map<String, Value>, path: &Path<'_>) {
    let title = match object.get("title") {
        Some(Value::Object(title)) => title.get("text").and_then(Value::as_str),
        Some(Value::String(title)) => Some(title.as_str()),
        _ => None,
    };
    let url = ["title_url", "video_url"]
        .iter()
        .find_map(|key| object.get(*key).and_then(Value::as_str))
        .filter(|u| !u.trim().is_empty());
    match (url, title) {
        (Some(url), title) => context.doc.link(url, title),
        (None, Some(title)) => context.doc.plain(title),
        (None, None) => context.doc.skip(
            SkipReason::WrongType,
            path,
            "a video block without a title or url",
        ),
    }
}

/// A remote file block names its file by `external_id`; Slack includes the file's title
/// and link only in some payloads: read them when they are there. A remote file is a
/// pointer to a document that lives elsewhere and its card opens `external_url`, so that
/// is the source; the file's Slack page (`permalink`) only when there is no other.
fn file(context: &mut Context<'_>, object: &Map<String, Value>, _path: &Path<'_>) {
    let file = object.get("file").and_then(Value::as_object);
    let field = |key: &str| {
        file.and_then(|f| f.get(key))
            .or_else(|| object.get(key))
            .and_then(Value::as_str)
            .filter(|s| !s.trim().is_empty())
    };
    let title = field("title").or_else(|| field("name"));
    let url = field("external_url")
        .or_else(|| field("permalink"))
        .or_else(|| field("url"));
    if let Some(id) = field("file_id").or_else(|| field("id")) {
        if context.doc.shown_files.len() < MAX_SHOWN_FILES {
            context.doc.shown_files.push(id.to_string());
        }
    }
    match (url, title) {
        (Some(url), title) => context.doc.link(url, title),
        (None, Some(title)) => context.doc.plain(title),
        (None, None) => {}
    }
}

/// File blocks remembered at most, so that `files` does not repeat them (Slack allows 50
/// blocks a message).
const MAX_SHOWN_FILES: usize = 100;

fn task_card(
    context: &mut Context<'_>,
    object: &Map<String, Value>,
    path: &Path<'_>,
    depth: usize,
) {
    if let Some(title) = string_field(context, object, "title", path) {
        context.doc.plain(title);
    }
    for key in ["details", "output"] {
        match object.get(key) {
            Some(Value::Object(rich)) => {
                context.doc.paragraph();
                rich_text::read_block(context, rich, &path.key(key), depth + 1);
            }
            None | Some(Value::Null) => {}
            Some(_) => context.doc.skip(
                SkipReason::WrongType,
                &path.key(key),
                "not a rich_text object",
            ),
        }
    }
    url_sources(context, object, "sources", path);
}

/// `sources`: URL source elements (`{type: "url", url, text}`), each a link.
fn url_sources(context: &mut Context<'_>, object: &Map<String, Value>, key: &str, path: &Path<'_>) {
    context.doc.paragraph();
    context.each_in(object, key, path, |context, source, at| {
        match source.get("type").and_then(Value::as_str) {
            Some("url") | None => link_element(context, source, at),
            Some(other) => {
                context
                    .doc
                    .skip(SkipReason::UnknownType, at, &format!("source type {other}"))
            }
        }
    });
}

fn plan(context: &mut Context<'_>, object: &Map<String, Value>, path: &Path<'_>, depth: usize) {
    if let Some(title) = string_field(context, object, "title", path) {
        context.doc.push("## ");
        context.doc.plain(title);
        context.doc.paragraph();
    }
    if !context.doc.may_descend(depth + 1, &path.key("tasks")) {
        return;
    }
    context.each_in(object, "tasks", path, |context, task, at| {
        match task.as_object() {
            Some(task) => {
                context.doc.paragraph();
                task_card(context, task, at, depth + 1);
            }
            None => context
                .doc
                .skip(SkipReason::WrongType, at, "a task that is not an object"),
        }
    });
}

fn card(context: &mut Context<'_>, object: &Map<String, Value>, path: &Path<'_>) {
    for key in ["title", "subtitle", "body"] {
        if let Some(text) = object.get(key) {
            context.doc.paragraph();
            text_object(context, text, &path.key(key));
        }
    }
    link_buttons(context, object, "actions", path);
}

fn container(
    context: &mut Context<'_>,
    object: &Map<String, Value>,
    path: &Path<'_>,
    depth: usize,
) {
    match (object.get("rich_text_title"), object.get("title")) {
        (Some(Value::Object(rich)), _) => {
            rich_text::read_block(context, rich, &path.key("rich_text_title"), depth + 1);
        }
        (_, Some(title)) => text_object(context, title, &path.key("title")),
        _ => {}
    }
    if let Some(subtitle) = object.get("subtitle") {
        context.doc.paragraph();
        text_object(context, subtitle, &path.key("subtitle"));
    }
    if let Some(children) = array_field(context, object, "child_blocks", path) {
        read_blocks(context, children, &path.key("child_blocks"), depth + 1);
    }
}

/// `object[key]` when it is a string; notes a value of another type.
pub(super) fn string_field<'v>(
    context: &mut Context<'_>,
    object: &'v Map<String, Value>,
    key: &str,
    path: &Path<'_>,
) -> Option<&'v str> {
    match object.get(key) {
        Some(Value::String(s)) => Some(s),
        None | Some(Value::Null) => None,
        Some(_) => {
            context
                .doc
                .skip(SkipReason::WrongType, &path.key(key), "not a string");
            None
        }
    }
}
