//! The `rich_text` block (docs.slack.dev/reference/block-kit/blocks/rich-text-block):
//! what people's own messages carry, and what many assistants post. Its elements are
//! sections of inline runs, lists of sections (bullet or ordered), quotes and
//! preformatted code. Inline runs are `text` (with a style), `link` (`url` and optional
//! `text`), `user`, `usergroup`, `channel`, `broadcast`, `emoji`, `date`, `color` and
//! `team`. Links become `<url|text>`; code (a `code`-styled run, a preformatted element)
//! is fenced, so a link inside it is an example, not a citation; mentions read as
//! `@U…` and `#C…`; emoji as their character when Slack gives it.

use super::context::{array_field, Context};
use super::doc::{code_span, link_markup, Path};
use super::SkipReason;
use serde_json::{Map, Value};

/// Reads a `rich_text` object (a block, a task's `details`, a container's title) into
/// the text, each of its elements on its own line.
pub(super) fn read_block(
    context: &mut Context<'_>,
    object: &Map<String, Value>,
    path: &Path<'_>,
    depth: usize,
) {
    if !context.doc.may_descend(depth, path) {
        return;
    }
    context.each_in(object, "elements", path, |context, element, at| {
        context.doc.line();
        block_element(context, element, at, depth + 1);
    });
}

/// A `rich_text` object flattened to one run of text (a table cell).
pub(super) fn inline_text(
    context: &mut Context<'_>,
    object: &Map<String, Value>,
    path: &Path<'_>,
    depth: usize,
) -> String {
    let mut out = String::new();
    if !context.doc.may_descend(depth, path) {
        return out;
    }
    context.each_in(object, "elements", path, |context, element, at| {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(&item_text(context, element, at, depth + 1));
    });
    out
}

/// The text of an element holding runs (a section, a list item), or of a lone run.
fn item_text(context: &mut Context<'_>, item: &Value, path: &Path<'_>, depth: usize) -> String {
    let mut out = String::new();
    match item.get("elements").and_then(Value::as_array) {
        Some(runs) => inline(context, runs, &path.key("elements"), depth, false, &mut out),
        None => run(context, item, path, depth, false, &mut out),
    }
    out
}

/// One element of a `rich_text` block.
fn block_element(context: &mut Context<'_>, element: &Value, path: &Path<'_>, depth: usize) {
    let Some(object) = element.as_object() else {
        context.doc.skip(
            SkipReason::WrongType,
            path,
            "a rich text element that is not an object",
        );
        return;
    };
    match object.get("type").and_then(Value::as_str).unwrap_or("") {
        "rich_text_section" => {
            let text = runs_of(context, object, path, depth, false);
            context.doc.push(text.trim_end_matches('\n'));
        }
        "rich_text_quote" => {
            // A quote is its own piece of text: no sentence runs into it or out of it.
            let text = runs_of(context, object, path, depth, false);
            context.doc.paragraph();
            context.doc.push(text.trim_end_matches('\n'));
            context.doc.paragraph();
        }
        "rich_text_preformatted" => {
            let code = runs_of(context, object, path, depth, true);
            context.doc.code_block(&code);
        }
        "rich_text_list" => list(context, object, path, depth),
        // A run where an element belongs: read it as a one-run section.
        "text" | "link" | "user" | "usergroup" | "channel" | "broadcast" | "emoji" | "date"
        | "color" | "team" => {
            let mut out = String::new();
            run(context, element, path, depth, false, &mut out);
            context.doc.push(&out);
        }
        other => context.doc.skip(
            SkipReason::UnknownType,
            path,
            &format!("rich text element {other}"),
        ),
    }
}

/// The inline runs of a section, quote or preformatted element.
fn runs_of(
    context: &mut Context<'_>,
    object: &Map<String, Value>,
    path: &Path<'_>,
    depth: usize,
    code: bool,
) -> String {
    let mut out = String::new();
    if let Some(runs) = array_field(context, object, "elements", path) {
        inline(context, runs, &path.key("elements"), depth, code, &mut out);
    }
    out
}

fn list(context: &mut Context<'_>, object: &Map<String, Value>, path: &Path<'_>, depth: usize) {
    let ordered = object.get("style").and_then(Value::as_str) == Some("ordered");
    let offset = object.get("offset").and_then(Value::as_u64).unwrap_or(0);
    let mut number = offset;
    context.each_in(object, "elements", path, |context, item, at| {
        let text = item_text(context, item, at, depth + 1);
        context.doc.line();
        if ordered {
            number = number.saturating_add(1);
            context.doc.push(&format!("{number}. "));
        } else {
            context.doc.push("- ");
        }
        context.doc.push(text.trim_end_matches('\n'));
    });
}

/// Appends the runs to `out`; in `code` (a preformatted element) every run is code.
fn inline(
    context: &mut Context<'_>,
    runs: &[Value],
    path: &Path<'_>,
    depth: usize,
    code: bool,
    out: &mut String,
) {
    if !context.doc.may_descend(depth, path) {
        return;
    }
    context.each(runs, path, |context, element, at| {
        run(context, element, at, depth, code, out)
    });
}

/// One inline run.
fn run(
    context: &mut Context<'_>,
    element: &Value,
    path: &Path<'_>,
    depth: usize,
    code: bool,
    out: &mut String,
) {
    let Some(object) = element.as_object() else {
        context.doc.skip(
            SkipReason::WrongType,
            path,
            "an inline element that is not an object",
        );
        return;
    };
    let field = |key: &str| object.get(key).and_then(Value::as_str).unwrap_or("");
    let styled_code = object
        .get("style")
        .and_then(|s| s.get("code"))
        .and_then(Value::as_bool)
        .unwrap_or(false);
    match field("type") {
        "text" => {
            let text = field("text");
            if styled_code && !code {
                out.push_str(&code_span(text));
            } else {
                out.push_str(text);
            }
        }
        "link" => {
            let url = field("url");
            let label = object.get("text").and_then(Value::as_str);
            if code || styled_code {
                let shown = label.filter(|l| !l.is_empty()).unwrap_or(url);
                if code {
                    out.push_str(shown);
                } else {
                    out.push_str(&code_span(shown));
                }
            } else if url.trim().is_empty() {
                out.push_str(label.unwrap_or_default());
            } else {
                out.push_str(&link_markup(url, label.filter(|l| !l.trim().is_empty())));
            }
        }
        "user" => {
            let id = field("user_id");
            if context.omit_user != Some(id) {
                out.push('@');
                out.push_str(id);
            }
        }
        "usergroup" => {
            out.push('@');
            out.push_str(field("usergroup_id"));
        }
        "team" => {
            out.push('@');
            out.push_str(field("team_id"));
        }
        "channel" => {
            out.push('#');
            out.push_str(field("channel_id"));
        }
        "broadcast" => {
            out.push('@');
            out.push_str(field("range"));
        }
        "emoji" => match object
            .get("unicode")
            .and_then(Value::as_str)
            .and_then(emoji)
        {
            Some(character) => out.push_str(&character),
            None => {
                out.push(':');
                out.push_str(field("name"));
                out.push(':');
            }
        },
        "date" => match object.get("fallback").and_then(Value::as_str) {
            Some(fallback) if !fallback.trim().is_empty() => out.push_str(fallback),
            _ => {
                // Never the raw epoch seconds: the date as Slack formats it.
                let timestamp = match object.get("timestamp") {
                    Some(Value::Number(n)) => n.as_i64(),
                    Some(Value::String(s)) => s.trim().parse().ok(),
                    _ => None,
                };
                match timestamp {
                    Some(timestamp) => {
                        let format = object
                            .get("format")
                            .and_then(Value::as_str)
                            .unwrap_or(crate::mrkdwn::DEFAULT_DATE_FORMAT);
                        out.push_str(&crate::mrkdwn::format_slack_date(timestamp, format));
                    }
                    None => context.doc.skip(
                        SkipReason::WrongType,
                        path,
                        "a date without a fallback or a numeric timestamp",
                    ),
                }
            }
        },
        "color" => out.push_str(field("value")),
        // A section nested where a run belongs: read its runs.
        "rich_text_section" | "rich_text_quote" | "rich_text_preformatted" => {
            if let Some(runs) = object.get("elements").and_then(Value::as_array) {
                inline(context, runs, &path.key("elements"), depth + 1, code, out);
            }
        }
        "" => context.doc.skip(
            SkipReason::WrongType,
            path,
            "an inline element without a type",
        ),
        other => context.doc.skip(
            SkipReason::UnknownType,
            path,
            &format!("inline element {other}"),
        ),
    }
}

/// An emoji's character from Slack's `unicode` field: code points in hex, joined by `-`
/// (`1f1fa-1f1f8`).
fn emoji(code_points: &str) -> Option<String> {
    code_points
        .split('-')
        .map(|hex| u32::from_str_radix(hex, 16).ok().and_then(char::from_u32))
        .collect()
}
