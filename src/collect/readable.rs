//! A claim's text as a person reads it. The answer's text is written in Markdown or
//! Slack mrkdwn; a claim is a span of it, and what a reader sees there is not the
//! markup: `<url|label>` and `[label](url)` read as their label, `<url>` and a bare URL
//! as the URL, an image as its alt text, `<@U1|ada>` as `@ada`, a date as the date,
//! `` `code` `` as the code, and `*bold*`, `_italic_`, `~strike~` (and their doubled
//! Markdown forms) without their markers. Citation markers (`[1]`) and `:emoji:` codes
//! are shown as written, as Slack shows them; runs of whitespace read as one space.
//!
//! The scanner ([`super::scan`]) records each piece of markup and what it reads as
//! ([`Shown`]); this module puts a span's pieces together and drops the emphasis
//! markers between them. Code and URLs are literal: nothing inside them is read as
//! emphasis. No allocation beyond the result.

use super::scan::{Shown, ShownText};
use crate::model::Span;

/// The text at `span` of `text` as a person reads it (see the module's paragraph);
/// `shown` is the scan's [`Shown`] list, sorted by position.
pub fn readable_text(text: &str, span: Span, shown: &[Shown]) -> String {
    let mut pieces = Pieces::with_capacity(span.len());
    let mut cursor = span.start;
    let first = shown.partition_point(|s| s.span.end <= span.start);
    for item in shown[first..]
        .iter()
        .take_while(|s| s.span.start < span.end)
    {
        if item.span.start < cursor || item.span.end > span.end {
            // Markup cut by the claim's edge is shown as written.
            continue;
        }
        pieces.words(&text[cursor..item.span.start]);
        match &item.as_text {
            ShownText::Words(at) => pieces.words(&text[at.start..at.end]),
            ShownText::DecodedWords(words) => pieces.words(words),
            ShownText::Literal(at) => pieces.literal(&text[at.start..at.end]),
            ShownText::DecodedLiteral(literal) => pieces.literal(literal),
        }
        cursor = item.span.end;
    }
    pieces.words(&text[cursor..span.end]);
    pieces.finish()
}

/// The text being put together, with the byte ranges that are literal (code, URLs).
struct Pieces {
    out: String,
    literal: Vec<(usize, usize)>,
}

impl Pieces {
    fn with_capacity(capacity: usize) -> Self {
        Pieces {
            out: String::with_capacity(capacity),
            literal: Vec::new(),
        }
    }

    /// Text whose emphasis markers are markup. A block quote's `>` at the start of a
    /// continued line is markup too.
    fn words(&mut self, s: &str) {
        let mut lines = s.split('\n');
        if let Some(first) = lines.next() {
            self.out.push_str(first);
        }
        for line in lines {
            self.out.push('\n');
            let body = line.trim_start_matches([' ', '\t', '>']);
            self.out.push_str(body);
        }
    }

    /// Text shown exactly.
    fn literal(&mut self, s: &str) {
        let start = self.out.len();
        self.out.push_str(s);
        self.literal.push((start, self.out.len()));
    }

    /// The text without emphasis markers, whitespace collapsed, trimmed.
    fn finish(self) -> String {
        let has_emphasis = memchr::memchr3(b'*', b'_', b'~', self.out.as_bytes()).is_some();
        if !has_emphasis && !needs_collapsing(&self.out) {
            // Nothing to drop or collapse: the common case, kept as it is.
            return self.out;
        }
        let markers = if has_emphasis {
            emphasis_markers(&self.out, &self.literal)
        } else {
            Vec::new()
        };
        let mut result = String::with_capacity(self.out.len());
        let mut markers = markers.iter().peekable();
        let mut pending_space = false;
        for (i, c) in self.out.char_indices() {
            while markers.peek().is_some_and(|m| m.1 <= i) {
                markers.next();
            }
            if markers.peek().is_some_and(|m| m.0 <= i) {
                continue;
            }
            if c.is_whitespace() {
                pending_space = !result.is_empty();
                continue;
            }
            if pending_space {
                result.push(' ');
                pending_space = false;
            }
            result.push(c);
        }
        result
    }
}

/// Whether `s` has whitespace to collapse or trim: a leading or trailing space, two
/// spaces in a row, or any whitespace other than a space (searched for with SIMD: this
/// runs over every claim).
fn needs_collapsing(s: &str) -> bool {
    let bytes = s.as_bytes();
    bytes.first() == Some(&b' ')
        || bytes.last() == Some(&b' ')
        || memchr::memchr3(b'\t', b'\n', b'\r', bytes).is_some()
        || memchr::memchr2(0x0b, 0x0c, bytes).is_some()
        || memchr::memmem::find(bytes, b"  ").is_some()
        || has_unicode_space(s)
}

/// Whether `s` holds whitespace outside ASCII (no-break and other Unicode spaces, the
/// line and paragraph separators): only characters whose UTF-8 starts with 0xC2, 0xE1,
/// 0xE2 or 0xE3 can be, so only those are decoded.
fn has_unicode_space(s: &str) -> bool {
    let bytes = s.as_bytes();
    let is_space_at = |at: usize| s[at..].chars().next().is_some_and(char::is_whitespace);
    memchr::memchr3_iter(0xC2, 0xE2, 0xE3, bytes).any(is_space_at)
        || memchr::memchr_iter(0xE1, bytes).any(is_space_at)
}

/// The characters that can mark emphasis in Markdown and mrkdwn.
const EMPHASIS: [u8; 3] = [b'*', b'_', b'~'];

/// A run of one emphasis character.
#[derive(Clone, Copy)]
struct Run {
    start: usize,
    end: usize,
    marker: u8,
    can_open: bool,
    can_close: bool,
}

/// Byte ranges of `s` that are emphasis markers: runs of `*`, `_` or `~` that open
/// (before a non-space, not glued to a letter or digit before them) and are closed by a
/// run of the same character (after a non-space, not glued to one after them) later in
/// `s`, outside the `literal` ranges. `snake_case`, `2*3*4`, `5 * 3` and a lone `~/x`
/// are text. Sorted, non-overlapping.
fn emphasis_markers(s: &str, literal: &[(usize, usize)]) -> Vec<(usize, usize)> {
    let bytes = s.as_bytes();
    let is_literal = |i: usize| literal.iter().any(|&(a, b)| a <= i && i < b);
    let mut runs = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if !EMPHASIS.contains(&b) || is_literal(i) {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && bytes[i] == b && !is_literal(i) {
            i += 1;
        }
        let before = s[..start].chars().next_back();
        let after = s[i..].chars().next();
        let space_or_none = |c: Option<char>| c.is_none_or(char::is_whitespace);
        let glued = |c: Option<char>| c.is_some_and(char::is_alphanumeric);
        runs.push(Run {
            start,
            end: i,
            marker: b,
            can_open: !space_or_none(after) && !glued(before),
            can_close: !space_or_none(before) && !glued(after),
        });
    }
    let mut openers: Vec<Run> = Vec::new();
    let mut markers = Vec::new();
    for run in runs {
        if run.can_close {
            if let Some(at) = openers.iter().rposition(|o| o.marker == run.marker) {
                let opener = openers[at];
                openers.truncate(at);
                let len = (opener.end - opener.start).min(run.end - run.start);
                markers.push((opener.end - len, opener.end));
                markers.push((run.start, run.start + len));
                continue;
            }
        }
        if run.can_open {
            openers.push(run);
        }
    }
    markers.sort_unstable();
    markers
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collect::scan::scan;

    fn read(text: &str) -> String {
        let found = scan(text);
        readable_text(text, Span::new(0, text.len()), &found.shown)
    }

    #[test]
    fn links_read_as_their_labels() {
        assert_eq!(
            read("See <https://a.com/x?a=1&amp;b=2|A &amp; B> and [the guide](https://b.com/g \"G\")."),
            "See A & B and the guide."
        );
        assert_eq!(
            read("See <https://a.com/x> now."),
            "See https://a.com/x now."
        );
        assert_eq!(
            read("Docs <www.example.org/page|Example page> say so."),
            "Docs Example page say so."
        );
        assert_eq!(
            read("Bare https://a.com/x_y_z here."),
            "Bare https://a.com/x_y_z here."
        );
        assert_eq!(
            read("Old [page](./local.md), [mail](mailto:a@b.c) and [f](ftp://a.com/f)."),
            "Old page, mail and f."
        );
        assert_eq!(read("See [the docs][rust] now."), "See the docs now.");
        assert_eq!(
            read("A chart ![growth in 2023](https://a.com/c.png) here."),
            "A chart growth in 2023 here."
        );
        assert_eq!(
            read(r"Page https://learn.microsoft.com/ms535874\(v=vs.85\).aspx says so."),
            "Page https://learn.microsoft.com/ms535874(v=vs.85).aspx says so."
        );
    }

    #[test]
    fn mentions_and_dates_read_as_slack_shows_them() {
        assert_eq!(
            read("<@U0123|ada> told <#C0456|general> and <!here> on <!date^1392734382^{date_num}|Feb 18, 2014>."),
            "@ada told #general and @here on Feb 18, 2014."
        );
        assert_eq!(
            read("<@U0123> said it on <!date^1392734382^{date_num}>."),
            "@U0123 said it on 2014-02-18."
        );
        assert_eq!(
            read("Keep <!-- this --> and a < b > c."),
            "Keep <!-- this --> and a < b > c."
        );
    }

    #[test]
    fn emphasis_markers_are_dropped_and_code_is_kept() {
        assert_eq!(
            read("*Bold* and _italic_ and ~strike~ text."),
            "Bold and italic and strike text."
        );
        assert_eq!(read("**Note:** __it__ ~~was~~ fine."), "Note: it was fine.");
        assert_eq!(
            read("A *[linked](https://a.com) phrase* here."),
            "A linked phrase here."
        );
        assert_eq!(
            read("Deploys run `cargo build --features a_b_c` on every *merge*."),
            "Deploys run cargo build --features a_b_c on every merge."
        );
        assert_eq!(read("Use `` a`b `` please."), "Use a`b please.");
        for text in [
            "snake_case_name stays.",
            "2*3*4 = 24 here.",
            "5 * 3 is 15.",
            "Edit ~/.bashrc now.",
            "A * lone star.",
        ] {
            assert_eq!(read(text), text);
        }
        assert_eq!(
            read("Keep :tada: and [1] and [2, 3]."),
            "Keep :tada: and [1] and [2, 3]."
        );
    }

    #[test]
    fn unicode_spaces_are_found() {
        for spaced in [
            "a\u{a0}b",
            "a\u{2003}b",
            "a\u{3000}b",
            "a\u{1680}b",
            "a\u{2028}b",
            "a  b",
            " a",
            "a\tb",
        ] {
            assert!(needs_collapsing(spaced), "{spaced:?}");
        }
        for plain in ["a b", "中文，文本", "é è", "a—b", ""] {
            assert!(!needs_collapsing(plain), "{plain:?}");
        }
        assert_eq!(read("No\u{a0}break  here."), "No break here.");
    }

    #[test]
    fn whitespace_collapses_and_partial_markup_stays() {
        assert_eq!(read("One\nline  and\ttabs."), "One line and tabs.");
        assert_eq!(
            read("quoted and\n> continued a > b."),
            "quoted and continued a > b."
        );
        let text = "See <https://a.com|A> then.";
        let found = scan(text);
        // A span that cuts the link shows it as written.
        assert_eq!(
            readable_text(text, Span::new(0, 12), &found.shown),
            "See <https:/"
        );
        assert_eq!(
            readable_text(text, Span::new(4, text.len()), &found.shown),
            "A then."
        );
    }
}
