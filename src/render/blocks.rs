//! The report as a Block Kit message for `chat.postMessage`: the same content as
//! [`super::mrkdwn()`], cut into sections, and always valid. Slack's limits (50
//! blocks, 1–3,000 characters per text, 10 context elements, about 13,000 characters
//! of block text in all, a fallback `text` under 4,000) are kept by construction:
//! when the sources do not fit, whole source lines are dropped from the end of the
//! largest groups and counted in that group's `_…and N more_`, so every source is
//! still accounted for. A final pass ([`check_limits`]) checks the result; should it
//! ever fail, a minimal message that only counts the sources is sent instead.
//!
//! Lengths are measured in UTF-16 code units ([`text_len`]), as Slack measures them;
//! that is never fewer than the number of characters.

use serde::Serialize;
use serde_json::{json, Value};

use super::escape::{clean_text, cut_chars, escape_text};
use super::mrkdwn::{
    compact_source_line, dangling_line, header_line, heading_line, more_line, note_lines,
    quoted_parts, source_line, NO_SOURCES,
};
use super::{
    dangling_numbers, kind_sections, ordered_sources, plural, source_count, uncited, uncited_total,
    verdict_summary, KindSection, RenderOptions,
};
use crate::model::Report;

/// At most this many blocks in a message.
pub const MAX_BLOCKS: usize = 50;
/// At most this many characters in a section's (or a context element's) text.
pub const MAX_SECTION_TEXT: usize = 3000;
/// At most this many elements in a context block.
pub const MAX_CONTEXT_ELEMENTS: usize = 10;
/// At most this many elements in an actions block.
pub const MAX_ACTION_ELEMENTS: usize = 25;
/// At most this many characters in a button's text.
pub const MAX_BUTTON_TEXT: usize = 75;
/// At most this many characters in a button's `value`.
pub const MAX_BUTTON_VALUE: usize = 2_000;
/// At most this many characters in an `action_id`.
pub const MAX_ACTION_ID: usize = 255;
/// At most this many characters of text in all blocks together.
pub const MAX_TOTAL_BLOCK_TEXT: usize = 12_000;
/// At most this many characters in the notification fallback `text` (Slack wants it
/// under 4,000).
pub const MAX_FALLBACK_TEXT: usize = 3_900;

/// A source line longer than this is shown without its link.
const MAX_SOURCE_LINE: usize = 2_000;
/// The uncited-claims section is kept within this many characters.
const MAX_UNCITED_TEXT: usize = 2_000;
/// Uncited claims are quoted to at most this many characters in blocks.
const MAX_BLOCK_EXCERPT_CHARS: usize = 300;
/// The fallback text names at most this many sources.
const FALLBACK_TITLES: usize = 10;
/// Titles in the fallback text are cut to at most this many characters.
const FALLBACK_TITLE_CHARS: usize = 100;

/// A message ready for `chat.postMessage` (add the channel, and `unfurl_links: false`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BlockMessage {
    /// The notification fallback: plain words, escaped like mrkdwn, no links, at most
    /// [`MAX_FALLBACK_TEXT`] characters.
    pub text: String,
    /// The Block Kit blocks.
    pub blocks: Vec<Value>,
}

/// A way a message breaks Slack's Block Kit limits, found by [`check_limits`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BlockLimitError {
    /// More than [`MAX_BLOCKS`] blocks.
    #[error("{0} blocks, more than {MAX_BLOCKS}")]
    TooManyBlocks(usize),
    /// A block that is neither a divider, a section with text, a context block nor an
    /// actions block of buttons.
    #[error("block {0} is not a section, context, divider or actions block with text")]
    Malformed(usize),
    /// An actions block with no elements or more than [`MAX_ACTION_ELEMENTS`], or a
    /// button whose text, `action_id` or `value` is empty or too long.
    #[error("block {0}: an actions block needs 1-{MAX_ACTION_ELEMENTS} buttons with text of 1-{MAX_BUTTON_TEXT}, an action_id of 1-{MAX_ACTION_ID} and a value of at most {MAX_BUTTON_VALUE} characters")]
    Actions(usize),
    /// A text that is empty or longer than [`MAX_SECTION_TEXT`].
    #[error("block {block}: text of {len} characters (allowed 1-{MAX_SECTION_TEXT})")]
    TextLength {
        /// Index of the block.
        block: usize,
        /// Length of the text.
        len: usize,
    },
    /// A context block with no elements or more than [`MAX_CONTEXT_ELEMENTS`].
    #[error("block {block}: {count} context elements (allowed 1-{MAX_CONTEXT_ELEMENTS})")]
    ContextElements {
        /// Index of the block.
        block: usize,
        /// Number of elements.
        count: usize,
    },
    /// All block text together longer than [`MAX_TOTAL_BLOCK_TEXT`].
    #[error("{0} characters of block text, more than {MAX_TOTAL_BLOCK_TEXT}")]
    TotalTooLong(usize),
    /// A fallback text longer than [`MAX_FALLBACK_TEXT`].
    #[error("fallback text of {0} characters, more than {MAX_FALLBACK_TEXT}")]
    FallbackTooLong(usize),
    /// A view that is not a modal.
    #[error("the view is not a modal")]
    NotAModal,
    /// A modal's title or close button that is not plain text of 1-24 characters.
    #[error("a modal's title and close button must be plain text of 1-{max} characters, not {0}", max = crate::render::limits::MAX_VIEW_TITLE)]
    ViewTitle(usize),
    /// A modal with no blocks or more than 100.
    #[error("{0} blocks in a modal (allowed 1-{max})", max = crate::render::limits::MAX_VIEW_BLOCKS)]
    TooManyViewBlocks(usize),
    /// A modal with more block text than sourcebot keeps.
    #[error("{0} characters of block text in a modal, more than {max}", max = crate::render::limits::MAX_VIEW_TEXT)]
    ViewTooLong(usize),
}

/// The length of `s` as Slack counts it (UTF-16 code units; at least its `chars`).
pub fn text_len(s: &str) -> usize {
    s.encode_utf16().count()
}

/// Renders the report as a Block Kit message within every limit.
pub fn blocks(report: &Report, opts: &RenderOptions) -> BlockMessage {
    let message = BlockMessage {
        text: fallback_text(report, opts),
        blocks: build_blocks(report, opts),
    };
    match check_limits(&message) {
        Ok(()) => message,
        Err(_) => minimal_message(report, message.text),
    }
}

/// Checks a message against every Block Kit limit this renderer keeps. Actions blocks
/// (the buttons the bot adds under a report) are checked too; their button texts do not
/// count towards [`MAX_TOTAL_BLOCK_TEXT`], which keeps a margin under Slack's own total.
pub fn check_limits(message: &BlockMessage) -> Result<(), BlockLimitError> {
    let fallback = text_len(&message.text);
    if fallback > MAX_FALLBACK_TEXT {
        return Err(BlockLimitError::FallbackTooLong(fallback));
    }
    if message.blocks.len() > MAX_BLOCKS {
        return Err(BlockLimitError::TooManyBlocks(message.blocks.len()));
    }
    let mut total = 0;
    for (index, block) in message.blocks.iter().enumerate() {
        for len in block_text_lengths(index, block)? {
            if len == 0 || len > MAX_SECTION_TEXT {
                return Err(BlockLimitError::TextLength { block: index, len });
            }
            total += len;
        }
    }
    if total > MAX_TOTAL_BLOCK_TEXT {
        return Err(BlockLimitError::TotalTooLong(total));
    }
    Ok(())
}

/// The lengths of the texts in one block (none for a divider or an actions block, whose
/// buttons are checked here).
pub(crate) fn block_text_lengths(
    index: usize,
    block: &Value,
) -> Result<Vec<usize>, BlockLimitError> {
    let text_of = |v: &Value| v.pointer("/text").and_then(Value::as_str).map(text_len);
    match block.get("type").and_then(Value::as_str) {
        Some("divider") => Ok(Vec::new()),
        Some("section") => block
            .get("text")
            .and_then(text_of)
            .map(|len| vec![len])
            .ok_or(BlockLimitError::Malformed(index)),
        Some("context") => {
            let elements = block
                .get("elements")
                .and_then(Value::as_array)
                .ok_or(BlockLimitError::Malformed(index))?;
            if elements.is_empty() || elements.len() > MAX_CONTEXT_ELEMENTS {
                return Err(BlockLimitError::ContextElements {
                    block: index,
                    count: elements.len(),
                });
            }
            elements
                .iter()
                .map(|e| text_of(e).ok_or(BlockLimitError::Malformed(index)))
                .collect()
        }
        Some("actions") => {
            let elements = block
                .get("elements")
                .and_then(Value::as_array)
                .filter(|e| (1..=MAX_ACTION_ELEMENTS).contains(&e.len()))
                .ok_or(BlockLimitError::Actions(index))?;
            if elements.iter().all(valid_button) {
                Ok(Vec::new())
            } else {
                Err(BlockLimitError::Actions(index))
            }
        }
        // Slack's AI-response footer: 1–5 feedback or icon buttons, no text to count.
        Some("context_actions") => {
            let elements = block
                .get("elements")
                .and_then(Value::as_array)
                .filter(|e| (1..=MAX_CONTEXT_ACTIONS).contains(&e.len()))
                .ok_or(BlockLimitError::Actions(index))?;
            if elements.iter().all(valid_context_action) {
                Ok(Vec::new())
            } else {
                Err(BlockLimitError::Actions(index))
            }
        }
        _ => Err(BlockLimitError::Malformed(index)),
    }
}

/// Elements of a `context_actions` block, at most.
const MAX_CONTEXT_ACTIONS: usize = 5;

/// Whether `element` is a `feedback_buttons` element Slack takes (both buttons with
/// plain text of 1–75 characters and a value of at most 2,000) or an `icon_button`.
fn valid_context_action(element: &Value) -> bool {
    let valid_half = |half: &Value| {
        let text = half
            .pointer("/text/text")
            .and_then(Value::as_str)
            .map(text_len);
        half.pointer("/text/type").and_then(Value::as_str) == Some("plain_text")
            && text.is_some_and(|n| (1..=MAX_BUTTON_TEXT).contains(&n))
            && half
                .get("value")
                .and_then(Value::as_str)
                .is_some_and(|v| text_len(v) <= MAX_BUTTON_VALUE)
    };
    match element.get("type").and_then(Value::as_str) {
        Some("feedback_buttons") => {
            element.get("positive_button").is_some_and(valid_half)
                && element.get("negative_button").is_some_and(valid_half)
        }
        Some("icon_button") => element.get("icon").is_some(),
        _ => false,
    }
}

/// Whether `element` is a button Slack takes: plain-text text of 1–75 characters, an
/// `action_id` of 1–255 and a `value` of at most 2,000.
fn valid_button(element: &Value) -> bool {
    let len = |pointer: &str| {
        element
            .pointer(pointer)
            .and_then(Value::as_str)
            .map(text_len)
    };
    element.get("type").and_then(Value::as_str) == Some("button")
        && element.pointer("/text/type").and_then(Value::as_str) == Some("plain_text")
        && len("/text/text").is_some_and(|n| (1..=MAX_BUTTON_TEXT).contains(&n))
        && len("/action_id").is_some_and(|n| (1..=MAX_ACTION_ID).contains(&n))
        && len("/value").is_none_or(|n| n <= MAX_BUTTON_VALUE)
}

/// A button: `text` (plain text, cut to [`MAX_BUTTON_TEXT`] characters) that sends
/// `action_id` with `value` when pressed.
pub fn button(action_id: &str, text: &str, value: &str) -> Value {
    json!({
        "type": "button",
        "action_id": action_id,
        "text": {"type": "plain_text", "text": cut_chars(text, MAX_BUTTON_TEXT - 1)},
        "value": value,
    })
}

/// Adds `button` under the message: to the last block when it is an actions block with
/// room, else in an actions block of its own. False (and nothing added) when the
/// message has no room for another block.
pub fn push_button(blocks: &mut Vec<Value>, button: Value) -> bool {
    if let Some(elements) = blocks
        .last_mut()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("actions"))
        .and_then(|b| b.get_mut("elements"))
        .and_then(Value::as_array_mut)
        .filter(|e| e.len() < MAX_ACTION_ELEMENTS)
    {
        elements.push(button);
        return true;
    }
    if blocks.len() >= MAX_BLOCKS {
        return false;
    }
    blocks.push(json!({"type": "actions", "elements": [button]}));
    true
}

/// `{"type":"section","text":{"type":"mrkdwn","text":…}}`.
pub fn section(text: &str) -> Value {
    json!({"type": "section", "text": {"type": "mrkdwn", "text": text}})
}

/// A plain-text object (`{"type":"plain_text","text":…}`), for titles, labels and options.
pub fn plain_text(text: &str) -> Value {
    json!({"type": "plain_text", "text": text})
}

/// `{"type":"context","elements":[{"type":"mrkdwn","text":…}, …]}`.
fn context(texts: &[String]) -> Value {
    let elements: Vec<Value> = texts
        .iter()
        .map(|t| json!({"type": "mrkdwn", "text": t}))
        .collect();
    json!({"type": "context", "elements": elements})
}

/// The total length of the texts in `blocks`, as [`check_limits`] counts it.
fn blocks_text_len(blocks: &[Value]) -> usize {
    blocks
        .iter()
        .enumerate()
        .filter_map(|(i, b)| block_text_lengths(i, b).ok())
        .flatten()
        .sum()
}

/// Builds the blocks: header, one or more sections per kind, then the footer.
fn build_blocks(report: &Report, opts: &RenderOptions) -> Vec<Value> {
    let header = header_line(report);
    let footer = footer_blocks(report, opts);
    let budget = MAX_TOTAL_BLOCK_TEXT
        .saturating_sub(text_len(&header))
        .saturating_sub(blocks_text_len(&footer));
    let mut groups: Vec<Group> = kind_sections(report, opts)
        .iter()
        .map(|s| Group::new(report, s, opts))
        .collect();
    fit_groups(&mut groups, budget);

    let mut out = vec![section(&header)];
    if groups.is_empty() {
        out.push(section(NO_SOURCES));
    }
    for group in &groups {
        out.extend(
            pack_lines(&group.all_lines(), MAX_SECTION_TEXT)
                .iter()
                .map(|t| section(t)),
        );
    }
    if !footer.is_empty() {
        out.push(json!({"type": "divider"}));
        out.extend(footer);
    }
    out
}

/// The lines of one kind as they will be sent, with their lengths.
struct Group {
    /// `_Web:_`.
    heading: String,
    /// Source lines shown, each with its length.
    lines: Vec<(String, usize)>,
    /// Sum of the lengths in `lines`.
    lines_len: usize,
    /// Sources of this kind not shown.
    more: usize,
}

impl Group {
    /// The lines for one kind section; a line too long for a Block Kit text is
    /// replaced by its compact form without the link.
    fn new(report: &Report, section: &KindSection<'_>, opts: &RenderOptions) -> Self {
        let lines: Vec<(String, usize)> = section
            .shown
            .iter()
            .map(|source| {
                let mut line = source_line(report, source, opts);
                if text_len(&line) > MAX_SOURCE_LINE {
                    line = compact_source_line(report, source, opts.title_max_chars);
                }
                let len = text_len(&line);
                (line, len)
            })
            .collect();
        Group {
            heading: heading_line(section.heading),
            lines_len: lines.iter().map(|(_, len)| len).sum(),
            lines,
            more: section.more,
        }
    }

    /// The length of the group's text, newlines included.
    fn len(&self) -> usize {
        let more = if self.more > 0 {
            1 + text_len(&more_line(self.more))
        } else {
            0
        };
        text_len(&self.heading) + self.lines.len() + self.lines_len + more
    }

    /// Moves the last shown source into the "…and N more" count.
    fn drop_last(&mut self) -> bool {
        match self.lines.pop() {
            Some((_, len)) => {
                self.lines_len -= len;
                self.more += 1;
                true
            }
            None => false,
        }
    }

    /// The heading, the source lines and `_…and N more_` if needed.
    fn all_lines(&self) -> Vec<String> {
        let mut lines = vec![self.heading.clone()];
        lines.extend(self.lines.iter().map(|(line, _)| line.clone()));
        if self.more > 0 {
            lines.push(more_line(self.more));
        }
        lines
    }
}

/// Drops source lines from the end of the largest group (the later one on a tie)
/// until all groups fit in `budget` characters or nothing is left to drop.
fn fit_groups(groups: &mut [Group], budget: usize) {
    while groups.iter().map(Group::len).sum::<usize>() > budget {
        let largest = groups
            .iter_mut()
            .filter(|g| !g.lines.is_empty())
            .max_by_key(|g| g.len());
        match largest {
            Some(group) => {
                group.drop_last();
            }
            None => break,
        }
    }
}

/// Joins lines with `\n` into texts of at most `max` characters each, never splitting
/// a line. (A line longer than `max` gets a text of its own; callers keep lines short.)
fn pack_lines(lines: &[String], max: usize) -> Vec<String> {
    let mut texts = Vec::new();
    let mut current = String::new();
    let mut current_len = 0;
    for line in lines {
        let len = text_len(line);
        if !current.is_empty() && current_len + 1 + len > max {
            texts.push(std::mem::take(&mut current));
            current_len = 0;
        }
        if !current.is_empty() {
            current.push('\n');
            current_len += 1;
        }
        current.push_str(line);
        current_len += len;
    }
    if !current.is_empty() {
        texts.push(current);
    }
    texts
}

/// What follows the sources, in the order of the mrkdwn message: the dangling
/// citations as a context block, the uncited, unsupported, poorly sourced and
/// stale-sourced claims as sections (quotes need one), the notes as a context block
/// of at most [`super::MAX_NOTES_SHOWN`] + 1 elements.
/// Empty when there is nothing to say.
fn footer_blocks(report: &Report, opts: &RenderOptions) -> Vec<Value> {
    let mut out = Vec::new();
    if let Some(line) = dangling_line(report) {
        out.push(context(&[line]));
    }
    for part in quoted_parts(report, opts, block_excerpt_chars(opts)) {
        out.push(section(&fit_quotes(part)));
    }
    let notes = note_lines(report);
    if !notes.is_empty() {
        out.push(context(&notes));
    }
    out
}

/// How long a quoted claim may be in a block.
fn block_excerpt_chars(opts: &RenderOptions) -> usize {
    match opts.uncited_excerpt_chars {
        0 => MAX_BLOCK_EXCERPT_CHARS,
        n => n.min(MAX_BLOCK_EXCERPT_CHARS),
    }
}

/// A part's text with quotes dropped from the end (and counted) until it fits in
/// [`MAX_UNCITED_TEXT`].
fn fit_quotes(mut part: super::mrkdwn::UncitedPart) -> String {
    let mut text = part.lines().join("\n");
    while text_len(&text) > MAX_UNCITED_TEXT && part.quotes.pop().is_some() {
        part.more += 1;
        text = part.lines().join("\n");
    }
    text
}

/// The notification fallback: `Sources: 7 (links not checked) — A, B and 5 more ·
/// 2 claims cite nothing`, plain words escaped like mrkdwn, within
/// [`MAX_FALLBACK_TEXT`].
fn fallback_text(report: &Report, opts: &RenderOptions) -> String {
    let total = source_count(report);
    let summary = verdict_summary(report);
    let mut text = if total == 0 {
        format!("No sources were cited ({summary}).")
    } else {
        format!("Sources: {total} ({summary})")
    };
    let tail = fallback_tail(report);
    let limit = MAX_FALLBACK_TEXT.saturating_sub(text_len(&tail) + 40);
    let mut listed = 0;
    for source in ordered_sources(report, opts).iter().take(FALLBACK_TITLES) {
        let title = fallback_title(&source.title, opts.title_max_chars);
        let piece = if listed == 0 {
            format!(" — {title}")
        } else {
            format!(", {title}")
        };
        if text_len(&text) + text_len(&piece) > limit {
            break;
        }
        text.push_str(&piece);
        listed += 1;
    }
    if listed > 0 && total > listed {
        text.push_str(&format!(" and {} more", total - listed));
    }
    text.push_str(&tail);
    text
}

/// A title for the fallback: cleaned, cut, escaped; `"untitled"` when empty.
fn fallback_title(title: &str, max_chars: usize) -> String {
    let max_chars = match max_chars {
        0 => FALLBACK_TITLE_CHARS,
        n => n.min(FALLBACK_TITLE_CHARS),
    };
    let title = cut_chars(&clean_text(title), max_chars);
    if title.is_empty() {
        "untitled".to_string()
    } else {
        escape_text(&title)
    }
}

/// ` · 2 claims cite nothing · 1 citation with no reference`, or empty.
fn fallback_tail(report: &Report) -> String {
    let mut tail = String::new();
    let claims = uncited_total(report, uncited(report).len());
    if claims > 0 {
        let verb = if claims == 1 { "cites" } else { "cite" };
        tail.push_str(&format!(
            " · {} {verb} nothing",
            plural(claims, "claim", "claims")
        ));
    }
    let numbers = dangling_numbers(report);
    if !numbers.is_empty() {
        tail.push_str(&format!(
            " · {} with no reference",
            plural(numbers.len(), "citation", "citations")
        ));
    }
    tail
}

/// A message that only counts the sources, for the (unexpected) case where the full
/// one breaks a limit.
fn minimal_message(report: &Report, fallback: String) -> BlockMessage {
    let total = source_count(report);
    let body = if total == 0 {
        NO_SOURCES.to_string()
    } else {
        more_line(total)
    };
    let mut text = fallback;
    if text_len(&text) > MAX_FALLBACK_TEXT {
        text = format!("Sources: {total}");
    }
    BlockMessage {
        text,
        blocks: vec![section(&header_line(report)), section(&body)],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(blocks: Vec<Value>) -> BlockMessage {
        BlockMessage {
            text: "Sources".to_string(),
            blocks,
        }
    }

    #[test]
    fn buttons_share_one_actions_block_within_limits() {
        let mut blocks = vec![section("*Sources*")];
        assert!(push_button(
            &mut blocks,
            button("share_sources", "Share in channel", "k1")
        ));
        assert!(push_button(
            &mut blocks,
            button("show_evidence", "Show evidence", "k2")
        ));
        assert_eq!(blocks.len(), 2);
        assert_eq!(blocks[1]["elements"].as_array().map(Vec::len), Some(2));
        assert_eq!(check_limits(&message(blocks)), Ok(()));
        let mut full = vec![section("x"); MAX_BLOCKS];
        assert!(!push_button(&mut full, button("a", "b", "c")));
        assert_eq!(full.len(), MAX_BLOCKS);
    }

    #[test]
    fn broken_actions_blocks_are_refused() {
        let long_value = button("show_evidence", "Show evidence", &"k".repeat(2_001));
        let no_text =
            json!({"type": "button", "action_id": "a", "text": {"type": "plain_text", "text": ""}});
        let markup_text =
            json!({"type": "button", "action_id": "a", "text": {"type": "mrkdwn", "text": "x"}});
        for element in [long_value, no_text, markup_text] {
            let actions = json!({"type": "actions", "elements": [element]});
            assert_eq!(
                check_limits(&message(vec![actions])),
                Err(BlockLimitError::Actions(0))
            );
        }
        let empty = json!({"type": "actions", "elements": []});
        assert_eq!(
            check_limits(&message(vec![section("x"), empty])),
            Err(BlockLimitError::Actions(1))
        );
        // A button's text is cut to Slack's 75 characters.
        let long = button("a", &"x".repeat(200), "v");
        assert_eq!(
            check_limits(&message(vec![
                json!({"type": "actions", "elements": [long]})
            ])),
            Ok(())
        );
    }
}
