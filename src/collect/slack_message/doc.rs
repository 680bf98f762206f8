//! The text a Slack message reads as, written piece by piece in the form the collector's
//! scanner reads: mrkdwn links `<url|label>` kept as Slack wrote them (the scanner
//! decodes their entities once), everything else decoded to what a person sees; links
//! from structured fields (rich-text links, buttons, attachment titles, task sources)
//! written as `<url|label>` with [`crate::mrkdwn`]'s encoding; code fenced so that the
//! scanner leaves the links inside it alone. Blocks are separated by blank lines, so a
//! sentence never runs from one block into the next. The writer also keeps the
//! reader's budget (nodes visited, bytes written) and its notes on what was skipped.

use super::{ReadLimits, ReadNotes, SkipReason, Skipped};
use crate::model::LinkTitle;
use crate::mrkdwn::{angle, decode_entities, escape_text, link_url, Angle};
use std::fmt;

/// Where a value sits in the message, for notes about what was skipped: built only when
/// something is skipped.
#[derive(Clone, Copy)]
pub(super) enum Path<'a> {
    /// The message itself (`$`).
    Root,
    /// A field of the value at the parent path.
    Key(&'a Path<'a>, &'a str),
    /// An item of the array at the parent path.
    Index(&'a Path<'a>, usize),
}

impl<'a> Path<'a> {
    /// The path of field `key` under this one.
    pub(super) fn key(&'a self, key: &'a str) -> Path<'a> {
        Path::Key(self, key)
    }

    /// The path of item `index` under this one.
    pub(super) fn index(&'a self, index: usize) -> Path<'a> {
        Path::Index(self, index)
    }
}

impl fmt::Display for Path<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Path::Root => f.write_str("$"),
            Path::Key(parent, key) => write!(f, "{parent}.{key}"),
            Path::Index(parent, index) => write!(f, "{parent}[{index}]"),
        }
    }
}

/// Skipped items listed in the notes at most (all are counted).
const MAX_LISTED_SKIPS: usize = 20;

/// The text being written, the titles previews give, and the notes.
pub(super) struct Doc {
    pub(super) text: String,
    pub(super) link_titles: Vec<LinkTitle>,
    /// Ids of the files a `file` block already showed, so that the message's `files`
    /// list does not show them twice.
    pub(super) shown_files: Vec<String>,
    pub(super) notes: ReadNotes,
    nodes_left: usize,
    max_bytes: usize,
    pub(super) max_depth: usize,
}

impl Doc {
    pub(super) fn new(limits: &ReadLimits) -> Doc {
        Doc {
            text: String::new(),
            link_titles: Vec::new(),
            shown_files: Vec::new(),
            notes: ReadNotes::default(),
            nodes_left: limits.max_nodes,
            max_bytes: limits.max_text_bytes,
            max_depth: limits.max_depth,
        }
    }

    /// Counts one more block, element or attachment visited. `false` once the budget is
    /// spent: the caller stops, and the notes say the message was not read to the end.
    pub(super) fn visit(&mut self, path: &Path<'_>) -> bool {
        if self.nodes_left == 0 {
            if !self.notes.truncated {
                self.notes.truncated = true;
                self.skip(SkipReason::TooMany, path, "the rest of the message");
            }
            return false;
        }
        self.nodes_left -= 1;
        true
    }

    /// Whether nesting `depth` may still be read; notes it when not.
    pub(super) fn may_descend(&mut self, depth: usize, path: &Path<'_>) -> bool {
        if depth < self.max_depth {
            return true;
        }
        self.skip(SkipReason::TooDeep, path, "nested too deep");
        false
    }

    /// Notes something that was not read.
    pub(super) fn skip(&mut self, reason: SkipReason, path: &Path<'_>, what: &str) {
        self.notes.counts.add(reason);
        if self.notes.skipped.len() < MAX_LISTED_SKIPS {
            self.notes.skipped.push(Skipped {
                reason,
                path: path.to_string(),
                what: what.chars().take(80).collect(),
            });
        }
    }

    /// The next piece starts a new paragraph (a blank line before it).
    pub(super) fn paragraph(&mut self) {
        if self.text.is_empty() || self.text.ends_with("\n\n") {
            return;
        }
        if self.text.ends_with('\n') {
            self.text.push('\n');
        } else {
            self.text.push_str("\n\n");
        }
    }

    /// The next piece starts on a new line.
    pub(super) fn line(&mut self) {
        if !self.text.is_empty() && !self.text.ends_with('\n') {
            self.text.push('\n');
        }
    }

    /// Appends `s` as it is, within the byte limit.
    pub(super) fn push(&mut self, s: &str) {
        let room = self.max_bytes.saturating_sub(self.text.len());
        if s.len() <= room {
            self.text.push_str(s);
            return;
        }
        let mut cut = room;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        self.text.push_str(&s[..cut]);
        if !self.notes.truncated {
            self.notes.truncated = true;
            self.notes.counts.add(SkipReason::TooMany);
        }
    }

    /// Whether the byte limit is reached.
    pub(super) fn full(&self) -> bool {
        self.text.len() >= self.max_bytes
    }

    /// Appends mrkdwn as a person reads it (see [`readable_mrkdwn`]).
    pub(super) fn mrkdwn(&mut self, s: &str) {
        let readable = readable_mrkdwn(s);
        self.push(readable.trim_end());
    }

    /// Appends plain text (a `plain_text` object, a rich-text run) as it is, trailing
    /// whitespace trimmed.
    pub(super) fn plain(&mut self, s: &str) {
        self.push(s.trim_end());
    }

    /// Appends a link with its label.
    pub(super) fn link(&mut self, url: &str, label: Option<&str>) {
        let markup = link_markup(url, label);
        self.push(&markup);
    }

    /// Appends a fenced code block holding `code`.
    pub(super) fn code_block(&mut self, code: &str) {
        let fence = "`".repeat(longest_run(code, '`').max(2) + 1);
        self.paragraph();
        self.push(&fence);
        self.push("\n");
        self.push(code.trim_end_matches('\n'));
        self.push("\n");
        self.push(&fence);
        self.paragraph();
    }
}

/// `<url|label>` (or `<url>` without a label) that the scanner reads back as exactly
/// `url` and `label`: the URL encoded with [`link_url`], the label on one line with `&`,
/// `<` and `>` escaped.
pub(super) fn link_markup(url: &str, label: Option<&str>) -> String {
    let url = link_url(url.trim());
    let label = label
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|l| !l.is_empty());
    match label {
        Some(label) => format!("<{url}|{}>", escape_text(&label)),
        None => format!("<{url}>"),
    }
}

/// `code` as an inline code span the scanner treats as code.
pub(super) fn code_span(code: &str) -> String {
    let fence = "`".repeat(longest_run(code, '`') + 1);
    let pad = if code.starts_with('`') || code.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{code}{pad}{fence}")
}

/// The longest run of `c` in `s`.
fn longest_run(s: &str, c: char) -> usize {
    let mut longest = 0;
    let mut run = 0;
    for ch in s.chars() {
        if ch == c {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    longest
}

/// Mrkdwn as a person reads it: links `<url|label>` kept as written; mentions, channels,
/// user groups, broadcasts and dates replaced by what Slack shows for them (`@ada`,
/// `#general`, `@here`, the date's fallback text); Slack's entities decoded once
/// everywhere else. A `<` with no `>` on its line is text.
pub fn readable_mrkdwn(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(open) = rest.find('<') {
        out.push_str(&decode_entities(&rest[..open]));
        let after = &rest[open + 1..];
        let close = after
            .find(['>', '<', '\n'])
            .filter(|&i| after.as_bytes()[i] == b'>');
        match close {
            Some(close) => {
                let content = &after[..close];
                match angle(content) {
                    Angle::Link { .. } => {
                        out.push('<');
                        out.push_str(content);
                        out.push('>');
                    }
                    other => {
                        let shown = other.shown().unwrap_or_default();
                        out.push_str(&decode_entities(&shown));
                    }
                }
                rest = &after[close + 1..];
            }
            None => {
                out.push('<');
                rest = after;
            }
        }
    }
    out.push_str(&decode_entities(rest));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collect::scan::scan;

    #[test]
    fn mrkdwn_reads_as_shown() {
        assert_eq!(
            readable_mrkdwn("Hi <@U1|ada> in <#C1|general>, <!here>: a &lt; b &amp;&amp; c &gt; d"),
            "Hi @ada in #general, @here: a < b && c > d"
        );
        assert_eq!(
            readable_mrkdwn("See <https://a.com/?x=1&amp;y=2|A &amp; B> and <mailto:x@y.z|mail>."),
            "See <https://a.com/?x=1&amp;y=2|A &amp; B> and <mailto:x@y.z|mail>."
        );
        assert_eq!(readable_mrkdwn("a < b\n<c"), "a < b\n<c");
        assert_eq!(
            readable_mrkdwn("<!date^1392734382^{date}|Feb 18, 2014> <!subteam^S1|@ops>"),
            "Feb 18, 2014 @ops"
        );
    }

    #[test]
    fn link_markup_reads_back_exactly() {
        for (url, label) in [
            ("https://a.com/x?q=1&r=<2>|3", Some("A & <B> | C\nD")),
            ("https://a.com/a b", None),
            ("https://a.com/&amp;", Some("&amp;")),
        ] {
            let markup = link_markup(url, label);
            let found = scan(&markup);
            assert_eq!(found.links.len(), 1, "{markup}");
            let link = &found.links[0];
            assert_eq!(link.span.len(), markup.len(), "{markup}");
            let expected_label = label.map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "));
            assert_eq!(link.label, expected_label, "{markup}");
            assert_eq!(
                link.url,
                url.replace('|', "%7C")
                    .replace('<', "%3C")
                    .replace('>', "%3E")
                    .replace(' ', "%20"),
                "{markup}"
            );
        }
    }

    #[test]
    fn code_is_fenced_so_links_inside_are_code() {
        for code in [
            "see `https://a.com`",
            "https://a.com/``x``",
            "plain https://a.com",
        ] {
            let span = code_span(code);
            let found = scan(&span);
            assert!(found.links.is_empty(), "{span}");
            assert_eq!(found.code_spans.len(), 1, "{span}");
            assert_eq!(found.code_spans[0].len(), span.len(), "{span}");
        }
        let mut doc = Doc::new(&ReadLimits::default());
        doc.plain("Before.");
        doc.code_block("curl https://a.com/x\n```\nhttps://b.com");
        doc.plain("After https://c.com");
        let found = scan(&doc.text);
        let urls: Vec<&str> = found.links.iter().map(|l| l.url.as_str()).collect();
        assert_eq!(urls, ["https://c.com"], "{}", doc.text);
    }
}
