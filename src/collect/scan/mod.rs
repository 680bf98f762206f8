//! One pass over an answer's text that finds every way it can cite a source: Slack
//! links `<url|label>`, Markdown links and autolinks, reference definitions and numbered
//! reference lists, bare URLs, `[Source: type - title](url)`, `(via slack: #channel)`
//! notes, and `[n]` citation markers. It also records what is not prose (code, reference
//! lines) so that claims are not looked for there. Nothing here canonicalises or
//! deduplicates: this module only says what is written where.
//!
//! Code spans and fenced code blocks are opaque: a link inside them is an example, not a
//! citation. Bare URLs end before trailing punctuation, unbalanced closing brackets and
//! CJK punctuation or text (`。，）`), but keep balanced parentheses; a run of CJK text
//! right after a path separator (`/wiki/中文`) is kept as part of the path.

mod references;
mod syntax;

use crate::model::{SourceKind, Span};
use linkify::{LinkFinder, LinkKind};
use references::*;
use std::sync::OnceLock;
use syntax::*;

pub use syntax::citation_marker;

/// How a link was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkForm {
    /// Slack `<url|label>` or `<url>`.
    Slack,
    /// Markdown `[label](url)`.
    Markdown,
    /// A URL standing alone in the text.
    Bare,
}

/// A link written in the running text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InlineLink {
    /// The whole construct (`[label](url)`, `<url|label>`, or the bare URL).
    pub span: Span,
    /// The URL as written (Slack entities `&amp;` `&lt;` `&gt;` decoded).
    pub url: String,
    /// The label, when the form has one.
    pub label: Option<String>,
    /// How it was written.
    pub form: LinkForm,
    /// The kind declared by `[Source: type - title](url)`.
    pub declared_kind: Option<SourceKind>,
}

/// `(via slack: #channel)` or `(via confluence: Page Title)`: a source named without a link.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ViaNote {
    /// The whole parenthesis.
    pub span: Span,
    /// The kind named.
    pub kind: SourceKind,
    /// What follows the colon.
    pub name: String,
}

/// A citation marker such as `[1]`, `[1, 3]`, `[2-4]` or `[^5]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Marker {
    /// The bracketed marker.
    pub span: Span,
    /// The numbers it cites, ranges expanded, in the order written.
    pub numbers: Vec<u32>,
}

/// A use of a Markdown reference definition with a non-numeric id: `[label][id]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LabelUse {
    /// The whole `[label][id]`.
    pub span: Span,
    /// The id, lower-cased.
    pub id: String,
}

/// How a reference entry names itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RefId {
    /// `[3]`, `3.`, `[^3]`, `[3]:`.
    Number(u32),
    /// `[docs]: https://…` (lower-cased).
    Label(String),
}

/// One entry of a reference list or a reference definition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefEntry {
    /// The line it stands on (without the line break).
    pub span: Span,
    /// Its number or label.
    pub id: RefId,
    /// Its URL as written, if it has one.
    pub url: Option<String>,
    /// Its title, if one was given.
    pub title: Option<String>,
}

/// A link written with a scheme other than http/https (`ftp:`, `file:`, `slack:`,
/// `javascript:`…), as a Markdown or Slack link or bare with `://`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnsupportedLink {
    /// Where it stands.
    pub span: Span,
    /// The URL as written.
    pub url: String,
}

/// Everything the scan found, each list in text order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Scan {
    /// Links in the running text.
    pub links: Vec<InlineLink>,
    /// `(via …)` notes.
    pub via_notes: Vec<ViaNote>,
    /// Citation markers.
    pub markers: Vec<Marker>,
    /// `[label][id]` uses.
    pub label_uses: Vec<LabelUse>,
    /// Reference entries and definitions.
    pub refs: Vec<RefEntry>,
    /// Links with a scheme sourcebot does not check.
    pub unsupported: Vec<UnsupportedLink>,
    /// Fenced code blocks (not prose).
    pub code: Vec<Span>,
    /// Inline code spans (part of the sentence they stand in; links inside are examples).
    pub code_spans: Vec<Span>,
    /// Markup that reads as something else, in text order: what a person sees for each
    /// link, image, mention and code span (see [`Shown`]).
    pub shown: Vec<Shown>,
    /// Links found beyond [`MAX_LINKS_READ`], counted but not kept.
    pub links_not_read: usize,
    /// Markers found beyond [`MAX_MARKERS_READ`], counted but not kept.
    pub markers_not_read: usize,
}

/// A piece of markup and what a person reads in its place: a link's label (or its URL
/// when it has none), an image's alt text, a mention's `@name`, a code span's code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shown {
    /// The markup in the text.
    pub span: Span,
    /// What it reads as.
    pub as_text: ShownText,
}

/// What a piece of markup reads as.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShownText {
    /// Words, as written at this span of the text (a Markdown label, an image's alt
    /// text): emphasis markers inside are still markup.
    Words(Span),
    /// Words that had to be decoded (a Slack label's entities, a mention's name).
    DecodedWords(String),
    /// Literal text at this span of the text (a code span's code, a bare URL): shown
    /// exactly, never read as markup.
    Literal(Span),
    /// Literal text that had to be decoded (a URL's entities or backslash escapes).
    DecodedLiteral(String),
}

impl Scan {
    /// Spans that are not prose: fenced code and reference lines, sorted and
    /// non-overlapping.
    pub fn non_prose(&self) -> Vec<Span> {
        let mut spans: Vec<Span> = self.code.to_vec();
        spans.extend(self.refs.iter().map(|r| r.span));
        merge_spans(spans)
    }

    /// Spans that stand for a citation inside prose: links, notes and markers, sorted
    /// and non-overlapping.
    pub fn citations(&self) -> Vec<Span> {
        let mut spans: Vec<Span> = self.links.iter().map(|l| l.span).collect();
        spans.extend(self.via_notes.iter().map(|v| v.span));
        spans.extend(self.markers.iter().map(|m| m.span));
        spans.extend(self.label_uses.iter().map(|m| m.span));
        spans.extend(self.unsupported.iter().map(|m| m.span));
        merge_spans(spans)
    }

    /// Spans a sentence is never split inside, and whose words are not read for the
    /// signals that a sentence wants a source: the [`Scan::citations`], code spans, and
    /// other markup that reads as something else (images, mentions).
    pub fn opaque(&self) -> Vec<Span> {
        let mut spans = self.citations();
        spans.extend(self.code_spans.iter().copied());
        spans.extend(self.shown.iter().map(|s| s.span));
        merge_spans(spans)
    }
}

/// Sorts spans and merges the ones that overlap or touch.
pub fn merge_spans(mut spans: Vec<Span>) -> Vec<Span> {
    spans.sort_unstable();
    let mut merged: Vec<Span> = Vec::with_capacity(spans.len());
    for span in spans {
        match merged.last_mut() {
            Some(last) if span.start <= last.end => last.end = last.end.max(span.end),
            _ => merged.push(span),
        }
    }
    merged
}

/// Most inline links kept per text; more are counted in [`Scan::links_not_read`], so
/// that a flood of links cannot grow memory far beyond the input.
pub const MAX_LINKS_READ: usize = 200_000;
/// Most citation markers kept per text; more are counted in [`Scan::markers_not_read`].
pub const MAX_MARKERS_READ: usize = 200_000;

/// Most pieces of markup whose reading is kept per text ([`Scan::shown`]); past it,
/// claims show the rest of the markup as written.
pub const MAX_SHOWN_READ: usize = 400_000;

/// Longest label, reference title or `(via …)` name read, in bytes; longer constructs
/// are not treated as links (their URL is still found as a bare URL).
const MAX_LABEL_BYTES: usize = 4 * 1024;
/// Highest citation number accepted in a marker.
const MAX_CITATION_NUMBER: u32 = 100_000;
/// Longest code span looked for, in bytes; a backtick with no closing run within it is
/// literal text.
const MAX_CODE_SPAN_BYTES: usize = 64 * 1024;
/// Widest range `[a-b]` expanded.
const MAX_MARKER_RANGE: u32 = 100;
/// Longest marker, in bytes (`[1, 2, 3, …]`).
const MAX_MARKER_BYTES: usize = 64;

/// Scans `text` for every citation form.
pub fn scan(text: &str) -> Scan {
    let mut scanner = Scanner::new(text);
    scanner.run();
    scanner.out
}

struct Scanner<'a> {
    text: &'a str,
    bytes: &'a [u8],
    out: Scan,
    /// Set after a "References"/"Sources" heading: `n.` lines there are references even
    /// without a URL separator.
    in_reference_section: bool,
    /// Where the paragraph the last code span was looked for in ends (a blank line).
    paragraph_end: usize,
    /// Where the next bytes that may start a citation form are.
    triggers: Triggers,
}

impl<'a> Scanner<'a> {
    fn new(text: &'a str) -> Self {
        Scanner {
            text,
            bytes: text.as_bytes(),
            out: Scan::default(),
            in_reference_section: false,
            paragraph_end: 0,
            triggers: Triggers::new(text.as_bytes()),
        }
    }

    fn run(&mut self) {
        let mut pos = 0;
        while pos < self.bytes.len() {
            let line_end = memchr::memchr(b'\n', &self.bytes[pos..])
                .map(|i| pos + i)
                .unwrap_or(self.bytes.len());
            pos = self.line(pos, line_end);
        }
    }

    /// Handles the line starting at `start`; returns where the next line starts.
    fn line(&mut self, start: usize, end: usize) -> usize {
        let line = &self.text[start..end];
        if let Some(fence) = fence_opening(line) {
            return self.fenced_block(start, end, fence);
        }
        let content = line.trim_end_matches('\r');
        if content.len() <= MAX_HEADING_BYTES {
            if let Some(heading) = heading_text(content) {
                self.in_reference_section = is_reference_heading(heading);
            } else if is_reference_heading(content) {
                self.in_reference_section = true;
            }
        }
        if let Some(entry) = parse_ref_line(
            self.text,
            start,
            start + content.len(),
            self.in_reference_section,
        ) {
            self.out.refs.push(entry);
            return end + 1;
        }
        self.inline(start, end)
    }

    /// Records a fenced code block opened on the line `start..end`; returns where the
    /// line after its closing fence starts (or the end of text when it is never closed).
    fn fenced_block(&mut self, start: usize, end: usize, fence: (u8, usize)) -> usize {
        let mut pos = end + 1;
        while pos < self.bytes.len() {
            let line_end = memchr::memchr(b'\n', &self.bytes[pos..])
                .map(|i| pos + i)
                .unwrap_or(self.bytes.len());
            if let Some(fence_len) = fence_closes(&self.text[pos..line_end], fence) {
                self.out.code.push(Span::new(start, pos + fence_len));
                // What follows a closing fence on its line (```` [21]`) is prose.
                return self.inline(pos + fence_len, line_end);
            }
            pos = line_end + 1;
        }
        self.out.code.push(Span::new(start, self.bytes.len()));
        self.bytes.len()
    }

    /// Scans running text from `start`; a code span may carry it past `line_end`.
    /// Returns where the next line starts.
    fn inline(&mut self, start: usize, line_end: usize) -> usize {
        let mut pos = start;
        let mut line_end = line_end;
        // Where the last construct ended: a URL's scheme may not start before it.
        let mut consumed = start;
        while pos < line_end {
            pos = self.triggers.next(self.bytes, pos);
            if pos >= line_end {
                break;
            }
            let next = match self.bytes[pos] {
                b'`' => self.code_span(pos),
                b'<' => self.angle(pos),
                b'[' => self.bracket(pos),
                b'!' if self.bytes.get(pos + 1) == Some(&b'[') => self.image(pos),
                b'(' => self.via_note(pos),
                b':' => match scheme_start(self.bytes, pos, consumed) {
                    Some(start) => self.bare_url(start),
                    None => other_scheme_start(self.text, pos, consumed)
                        .and_then(|start| self.bare_other_scheme(start)),
                },
                b'w' | b'W' if is_www(&self.bytes[pos..]) => self.bare_url(pos),
                _ => None,
            };
            match next {
                Some(after) => {
                    pos = after;
                    consumed = after;
                    if pos > line_end {
                        // A code span ran over line breaks: continue on the line it ends on.
                        line_end = memchr::memchr(b'\n', &self.bytes[pos..])
                            .map(|i| pos + i)
                            .unwrap_or(self.bytes.len());
                    }
                }
                // Every trigger byte is ASCII: one step is one character.
                None => pos += 1,
            }
        }
        line_end + 1
    }

    fn push_link(&mut self, link: InlineLink) {
        if self.out.links.len() < MAX_LINKS_READ {
            self.out.links.push(link);
        } else {
            self.out.links_not_read += 1;
        }
    }

    fn push_unsupported(&mut self, link: UnsupportedLink) {
        if self.out.unsupported.len() < MAX_LINKS_READ {
            self.out.unsupported.push(link);
        } else {
            self.out.links_not_read += 1;
        }
    }

    /// Records what the markup at `span` reads as, within [`MAX_SHOWN_READ`] (past it,
    /// claims show the markup as written).
    fn push_shown(&mut self, span: Span, as_text: ShownText) {
        if self.out.shown.len() < MAX_SHOWN_READ {
            self.out.shown.push(Shown { span, as_text });
        }
    }

    fn push_marker(&mut self, marker: Marker) {
        if self.out.markers.len() < MAX_MARKERS_READ {
            self.out.markers.push(marker);
        } else {
            self.out.markers_not_read += 1;
        }
    }

    /// A code span opened by a run of backticks at `pos`, closed by a run of the same
    /// length before the paragraph ends.
    fn code_span(&mut self, pos: usize) -> Option<usize> {
        let run = self.bytes[pos..].iter().take_while(|&&b| b == b'`').count();
        let body_start = pos + run;
        if body_start >= self.paragraph_end {
            self.paragraph_end = memchr::memmem::find(&self.bytes[body_start..], b"\n\n")
                .map(|i| body_start + i)
                .unwrap_or(self.bytes.len());
        }
        let paragraph_end = self
            .paragraph_end
            .min(body_start.saturating_add(MAX_CODE_SPAN_BYTES));
        let mut search = body_start;
        while let Some(i) = memchr::memchr(b'`', &self.bytes[search..paragraph_end]) {
            let close = search + i;
            let close_run = self.bytes[close..paragraph_end]
                .iter()
                .take_while(|&&b| b == b'`')
                .count();
            if close_run == run {
                let end = close + run;
                self.out.code_spans.push(Span::new(pos, end));
                self.push_shown(
                    Span::new(pos, end),
                    ShownText::Literal(code_span_content(self.text, body_start, close)),
                );
                return Some(end);
            }
            search = close + close_run;
        }
        // Unclosed: the backticks are literal text.
        Some(body_start)
    }

    /// `<url|label>` and `<url>` (Slack and Markdown autolinks), `<www.…|label>` (Slack
    /// makes it a link), links with other schemes (`<mailto:…|…>`, `<ftp://…>`), and
    /// Slack's mentions and commands (`<@U1|ada>`, `<#C1|general>`, `<!here>`), and
    /// labelled links whose URL cannot be read (`<https:...7.png|7.png>`).
    fn angle(&mut self, pos: usize) -> Option<usize> {
        let rest = &self.text[pos + 1..];
        if matches!(rest.as_bytes().first(), Some(b'@' | b'#' | b'!')) {
            return self.mention(pos);
        }
        self.angle_link(pos)
            .or_else(|| self.unreadable_angle_link(pos))
    }

    /// `<url|label>` and `<url>` whose URL can be read (see [`Scanner::angle`]).
    fn angle_link(&mut self, pos: usize) -> Option<usize> {
        let rest = &self.text[pos + 1..];
        let http = scheme_prefix_len(rest).or_else(|| is_www(rest.as_bytes()).then_some(4));
        let scheme_len = match http {
            Some(len) => len,
            None => other_scheme_len(rest)?,
        };
        let url_len = rest
            .bytes()
            .position(|b| matches!(b, b'|' | b'>' | b'<') || b.is_ascii_whitespace())?;
        if url_len <= scheme_len {
            return None;
        }
        let url = &rest[..url_len];
        let (label, close) = match rest.as_bytes()[url_len] {
            b'>' => (None, url_len),
            b'|' => {
                let label_start = url_len + 1;
                let label_len = slack_label_len(&rest[label_start..])?;
                (
                    Some(&rest[label_start..label_start + label_len]),
                    label_start + label_len,
                )
            }
            _ => return None,
        };
        let end = pos + 1 + close + 1;
        let url = crate::mrkdwn::decode_entities(url);
        let label = label
            .map(crate::mrkdwn::decode_entities)
            .filter(|l| !l.trim().is_empty());
        let span = Span::new(pos, end);
        self.push_shown(
            span,
            match &label {
                Some(label) => ShownText::DecodedWords(label.clone()),
                None => ShownText::DecodedLiteral(url.clone()),
            },
        );
        if http.is_none() {
            if !is_ignored_scheme(&url) {
                self.push_unsupported(UnsupportedLink { span, url });
            }
            return Some(end);
        }
        self.push_link(InlineLink {
            span,
            url,
            label,
            form: LinkForm::Slack,
            declared_kind: None,
        });
        Some(end)
    }

    /// `<https:...7.png|7.png>`: a Slack link whose URL cannot be read (Slack shortened
    /// it, or it is cut) reads as its label, entity-decoded, as any Slack link does; the
    /// URL is no source. Only `<` + a scheme (`https:`, two letters or more) + a URL
    /// without spaces + `|` + a label on one line + `>` is read so: other text in angle
    /// brackets (`a <b and c> d`, `x < y`) stays as written.
    fn unreadable_angle_link(&mut self, pos: usize) -> Option<usize> {
        let rest = &self.text[pos + 1..];
        let url_len = rest
            .bytes()
            .position(|b| matches!(b, b'|' | b'>' | b'<') || b.is_ascii_whitespace())?;
        let url = &rest[..url_len];
        let scheme = url.find(':')?;
        if rest.as_bytes()[url_len] != b'|' || scheme < 2 || !has_scheme(&url[..=scheme]) {
            return None;
        }
        let label_start = url_len + 1;
        let label_len = slack_label_len(&rest[label_start..])?;
        let label = crate::mrkdwn::decode_entities(&rest[label_start..label_start + label_len]);
        if label.trim().is_empty() {
            return None;
        }
        let end = pos + 1 + label_start + label_len + 1;
        self.push_shown(Span::new(pos, end), ShownText::DecodedWords(label));
        Some(end)
    }

    /// `<@U1>`, `<@U1|ada>`, `<#C1|general>`, `<!here>`, `<!subteam^S1|@ops>`,
    /// `<!date^…|fallback>`: read as what Slack shows (`@ada`, `#general`, the date).
    /// Anything else in angle brackets that starts with `@`, `#` or `!` is text.
    fn mention(&mut self, pos: usize) -> Option<usize> {
        let rest = &self.text[pos + 1..];
        let close = rest
            .bytes()
            .take(MAX_LABEL_BYTES)
            .position(|b| matches!(b, b'>' | b'<' | b'\n'))?;
        if rest.as_bytes()[close] != b'>' {
            return None;
        }
        let content = &rest[..close];
        if !crate::mrkdwn::is_control_sequence(content) {
            return None;
        }
        let shown = crate::mrkdwn::angle(content).shown()?;
        let end = pos + 1 + close + 1;
        self.push_shown(
            Span::new(pos, end),
            ShownText::DecodedWords(crate::mrkdwn::decode_entities(&shown)),
        );
        Some(end)
    }

    /// `![alt](src)`: an image is not a citation; skip it whole so its URL is not read
    /// as a bare link.
    fn image(&mut self, pos: usize) -> Option<usize> {
        let (_, after_label) = bracket_content(self.text, pos + 1)?;
        let (_, _, end) = link_destination(self.text, after_label)?;
        let alt = Span::new(pos + 2, after_label - 1);
        self.push_shown(Span::new(pos, end), ShownText::Words(alt));
        Some(end)
    }

    /// Everything that starts with `[`: Markdown links, markers, `[label][id]`.
    fn bracket(&mut self, pos: usize) -> Option<usize> {
        if let Some(end) = self.marker(pos) {
            return Some(end);
        }
        let (label, after_label) = bracket_content(self.text, pos)?;
        if let Some((url, _title, end)) = link_destination(self.text, after_label) {
            self.markdown_link(pos, end, label, url);
            return Some(end);
        }
        if let Some((id, end)) = bracket_content(self.text, after_label) {
            let id = id.trim();
            // `[https://a][https://b]`: two bracketed URLs side by side, not a reference.
            let urls_side_by_side = starts_with_url(label) || starts_with_url(id);
            if !id.is_empty() && parse_marker_numbers(id).is_none() && !urls_side_by_side {
                self.out.label_uses.push(LabelUse {
                    span: Span::new(pos, end),
                    id: id.to_lowercase(),
                });
                let label = Span::new(pos + 1, after_label - 1);
                self.push_shown(Span::new(pos, end), ShownText::Words(label));
                return Some(end);
            }
        }
        // Not a link: scan inside the brackets too (`[see https://x.com]`).
        None
    }

    fn markdown_link(&mut self, start: usize, end: usize, label: &str, url: &str) {
        let span = Span::new(start, end);
        let label_span = Span::new(start + 1, start + 1 + label.len());
        self.push_shown(span, ShownText::Words(label_span));
        let url = unescape_markdown(url);
        if !is_http_scheme(&url) {
            if has_scheme(&url) && !is_ignored_scheme(&url) {
                self.push_unsupported(UnsupportedLink {
                    span,
                    url: url.into_owned(),
                });
            }
            return;
        }
        let (declared_kind, label) = match source_tag(label) {
            Some((kind, title)) => (kind, title),
            None => (None, label.trim()),
        };
        self.push_link(InlineLink {
            span,
            url: url.into_owned(),
            label: Some(label.to_string()),
            form: LinkForm::Markdown,
            declared_kind,
        });
    }

    /// `[1]`, `[1][2]` (one marker each), `[1, 3]`, `[1-3]`, `[^1]` ([`citation_marker`]).
    fn marker(&mut self, pos: usize) -> Option<usize> {
        let (end, numbers) = citation_marker(self.text, pos)?;
        self.push_marker(Marker {
            span: Span::new(pos, end),
            numbers,
        });
        Some(end)
    }

    /// `(via slack: #channel)`, `(via confluence: Page Title)`.
    fn via_note(&mut self, pos: usize) -> Option<usize> {
        let rest = &self.text[pos + 1..];
        if !rest.get(..4)?.eq_ignore_ascii_case("via ") {
            return None;
        }
        let close = rest
            .bytes()
            .take(MAX_LABEL_BYTES)
            .position(|b| matches!(b, b')' | b'\n'))?;
        if rest.as_bytes()[close] != b')' {
            return None;
        }
        let body = &rest[4..close];
        let (kind_word, name) = body.split_once(':')?;
        let kind = SourceKind::parse_loose(kind_word)?;
        let name = name.trim();
        if name.is_empty() {
            return None;
        }
        let end = pos + 1 + close + 1;
        let span = Span::new(pos, end);
        if is_http_scheme(name) || is_www(name.as_bytes()) {
            self.push_link(InlineLink {
                span,
                url: name.to_string(),
                label: None,
                form: LinkForm::Bare,
                declared_kind: Some(kind),
            });
        } else {
            self.out.via_notes.push(ViaNote {
                span,
                kind,
                name: name.to_string(),
            });
        }
        Some(end)
    }

    /// A URL written without markup, starting with `http(s)://` or `www.`. Markdown's
    /// backslash escapes inside it (`…ms535874\\(v=vs.85\\).aspx`) read as the characters
    /// they escape, as Markdown renders them.
    fn bare_url(&mut self, pos: usize) -> Option<usize> {
        if pos > 0 && !can_precede_url(self.text, pos) {
            return None;
        }
        let (len, unescaped) = bare_url_at(&self.text[pos..])?;
        let end = pos + len;
        let span = Span::new(pos, end);
        let url = match unescaped {
            Some(url) => {
                self.push_shown(span, ShownText::DecodedLiteral(url.clone()));
                url
            }
            None => self.text[pos..end].to_string(),
        };
        self.push_link(InlineLink {
            span,
            url,
            label: None,
            form: LinkForm::Bare,
            declared_kind: None,
        });
        Some(end)
    }

    /// A URL with another scheme written without markup (`ftp://…`, `file:///…`,
    /// `slack://…`): not a source, named in a note.
    fn bare_other_scheme(&mut self, pos: usize) -> Option<usize> {
        if pos > 0 && !can_precede_url(self.text, pos) {
            return None;
        }
        let rest = &self.text[pos..];
        let candidate = &rest[..candidate_end(rest)];
        let url = candidate.trim_end_matches(|c: char| {
            matches!(
                c,
                '.' | ',' | ';' | ':' | '!' | '?' | ')' | ']' | '}' | '\'' | '*' | '_' | '~'
            )
        });
        let scheme_end = url.find("://")? + 3;
        if url.len() <= scheme_end {
            return None;
        }
        let end = pos + url.len();
        if !is_ignored_scheme(url) {
            self.push_unsupported(UnsupportedLink {
                span: Span::new(pos, end),
                url: url.to_string(),
            });
        }
        Some(end)
    }
}

/// The length of a Slack link's label at the start of `rest` (after its `|`): up to the
/// `>` that closes it, at most [`MAX_LABEL_BYTES`]; `None` when a `<`, a line break or
/// the end comes first.
fn slack_label_len(rest: &str) -> Option<usize> {
    let len = rest
        .bytes()
        .take(MAX_LABEL_BYTES)
        .position(|b| matches!(b, b'>' | b'<' | b'\n'))?;
    (rest.as_bytes()[len] == b'>').then_some(len)
}

/// Finds the next byte that may start a citation form — code, links, markers, images,
/// `(via …)`, the `:` of `http://`, the `w` of `www.` — with SIMD `memchr` searches over
/// three groups of bytes, each re-run only once the scan has passed its last hit.
#[derive(Debug, Clone, Copy)]
struct Triggers {
    /// Next `` ` ``, `<` or `[`.
    markup: usize,
    /// Next `(`, `:` or `!`.
    punctuation: usize,
    /// Next `w` or `W`.
    letter_w: usize,
}

impl Triggers {
    /// The first trigger of each group in `bytes`.
    fn new(bytes: &[u8]) -> Self {
        Triggers {
            markup: next_markup(bytes, 0),
            punctuation: next_punctuation(bytes, 0),
            letter_w: next_letter_w(bytes, 0),
        }
    }

    /// The first position at or after `pos` holding a trigger byte (`usize::MAX` when
    /// none). A group is searched again only when `pos` has passed its last hit.
    fn next(&mut self, bytes: &[u8], pos: usize) -> usize {
        if self.markup < pos {
            self.markup = next_markup(bytes, pos);
        }
        if self.punctuation < pos {
            self.punctuation = next_punctuation(bytes, pos);
        }
        if self.letter_w < pos {
            self.letter_w = next_letter_w(bytes, pos);
        }
        self.markup.min(self.punctuation).min(self.letter_w)
    }
}

/// Where the search for a trigger group from `pos` lands (`usize::MAX` when nowhere).
fn found_from(pos: usize, hit: Option<usize>) -> usize {
    hit.map_or(usize::MAX, |i| pos + i)
}

fn next_markup(bytes: &[u8], pos: usize) -> usize {
    found_from(
        pos,
        memchr::memchr3(b'`', b'<', b'[', bytes.get(pos..).unwrap_or_default()),
    )
}

fn next_punctuation(bytes: &[u8], pos: usize) -> usize {
    found_from(
        pos,
        memchr::memchr3(b'(', b':', b'!', bytes.get(pos..).unwrap_or_default()),
    )
}

fn next_letter_w(bytes: &[u8], pos: usize) -> usize {
    found_from(
        pos,
        memchr::memchr2(b'w', b'W', bytes.get(pos..).unwrap_or_default()),
    )
}

/// When the `:` at `colon` ends an `http` or `https` scheme followed by `//`, where the
/// scheme starts (not before `floor`).
fn scheme_start(bytes: &[u8], colon: usize, floor: usize) -> Option<usize> {
    if bytes.get(colon + 1..colon + 3) != Some(b"//") {
        return None;
    }
    let starts_scheme = |len: usize, scheme: &[u8]| {
        colon >= floor + len && bytes[colon - len..colon].eq_ignore_ascii_case(scheme)
    };
    if starts_scheme(5, b"https") {
        Some(colon - 5)
    } else if starts_scheme(4, b"http") {
        Some(colon - 4)
    } else {
        None
    }
}

/// When the `:` at `colon` ends a scheme other than `http`/`https` followed by `//`
/// (`ftp://`, `file:///`, `slack://`), where the scheme starts (not before `floor`).
/// Schemes are letters, digits, `+`, `-` and `.`, start with a letter, and are at
/// least two characters long (so a drive letter is no scheme).
fn other_scheme_start(text: &str, colon: usize, floor: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    if bytes.get(colon + 1..colon + 3) != Some(b"//") {
        return None;
    }
    let mut start = colon;
    while start > floor
        && colon - start < 32
        && (bytes[start - 1].is_ascii_alphanumeric()
            || matches!(bytes[start - 1], b'+' | b'-' | b'.'))
    {
        start -= 1;
    }
    while start < colon && !bytes[start].is_ascii_alphabetic() {
        start += 1;
    }
    let scheme = &text[start..colon];
    let http = scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https");
    (scheme.len() >= 2 && !http).then_some(start)
}

/// Whether `bytes` starts with `www.` in any case.
fn is_www(bytes: &[u8]) -> bool {
    bytes.len() > 4 && bytes[..4].eq_ignore_ascii_case(b"www.")
}

/// The fence character and run length when `line` opens a fenced code block.
fn fence_opening(line: &str) -> Option<(u8, usize)> {
    let indent = line.bytes().take_while(|&b| b == b' ').count();
    if indent > 3 {
        return None;
    }
    let body = &line.as_bytes()[indent..];
    let fence_char = *body.first()?;
    if fence_char != b'`' && fence_char != b'~' {
        return None;
    }
    let run = body.iter().take_while(|&&b| b == fence_char).count();
    if run < 3 {
        return None;
    }
    // A backtick fence's info string may not contain backticks (that is a code span).
    if fence_char == b'`' && body[run..].contains(&b'`') {
        return None;
    }
    Some((fence_char, run))
}

/// Whether `line` closes a block opened by `run` × `fence_char`; returns the length of
/// the line up to the end of the fence. CommonMark allows only spaces after a closing
/// fence; answers written by LLMs also put citation markers there (```` [21]`), so any
/// rest without letters closes too (an info string such as `python` does not).
fn fence_closes(line: &str, (fence_char, run): (u8, usize)) -> Option<usize> {
    let trimmed = line.trim_start_matches(' ');
    let indent = line.len() - trimmed.len();
    if indent > 3 {
        return None;
    }
    let closing = trimmed.bytes().take_while(|&b| b == fence_char).count();
    let rest = &trimmed[closing..];
    (closing >= run && !rest.chars().any(char::is_alphabetic)).then_some(indent + closing)
}

#[cfg(test)]
mod tests;
