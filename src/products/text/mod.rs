//! What products store as documents, turned into plain text for the support check.
//!
//! Each product API returns a document body in its own markup: Confluence's storage
//! format ([`storage`]), Jira Cloud's Atlassian Document Format ([`adf`]), Jira Server
//! and Data Center's wiki markup ([`wiki`]), Notion's block objects ([`notion`]) and
//! GitHub's Markdown ([`markdown`]). Every converter here is pure (no network, no
//! logging), never panics, runs in time linear in its input, recurses at most a bounded
//! depth, and writes its text through one [`Blocks`] builder, so every result has the
//! same shape: blocks separated by exactly `"\n\n"`, whitespace inside each block
//! collapsed to single spaces, no empty blocks. A heading, a paragraph, a list item, a
//! table row (cells joined with `" | "`), a line of code or a task is one block; that is
//! the shape [`crate::page::document`] expects.

pub mod adf;
pub mod markdown;
pub mod notion;
pub mod storage;
pub mod wiki;

use std::borrow::Cow;

/// What goes between the text already in the current block and the next character
/// written to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Gap {
    /// Nothing: the next character follows directly (`a<b>b</b>` is `ab`).
    #[default]
    None,
    /// One space: the words must not run together.
    Space,
    /// A table cell boundary: `" | "`.
    Cell,
}

/// Builds plain text as blocks, enforcing the converters' output convention.
///
/// Inline text is pushed into the current block with its whitespace collapsed as it
/// arrives; [`Blocks::end_block`] closes the block (an empty block is never written).
/// Inside a table row ([`Blocks::start_row`] … [`Blocks::end_row`]) the row is one
/// block: block breaks become spaces and [`Blocks::cell`] separates cells with
/// `" | "`. Separators are written lazily, only between two pieces of text, so empty
/// cells, leading breaks and trailing spaces leave nothing behind. Control characters
/// count as whitespace. Everything is linear in the text pushed.
#[derive(Debug, Default)]
pub struct Blocks {
    /// Finished blocks, separated by `"\n\n"`.
    out: String,
    /// The block being written: never starts or ends with a space.
    current: String,
    /// What to write before the next visible character of the current block.
    gap: Gap,
    /// How many table rows are open (rows nested in cells flatten into the outer row).
    rows: usize,
}

impl Blocks {
    /// An empty builder.
    pub fn new() -> Blocks {
        Blocks::default()
    }

    /// Appends inline text to the current block: runs of whitespace (and control
    /// characters) become one space, and none is kept at the block's edges.
    pub fn push(&mut self, text: &str) {
        for c in text.chars() {
            self.push_char(c);
        }
    }

    /// Appends one character of inline text, as [`Blocks::push`] does.
    pub fn push_char(&mut self, c: char) {
        if c.is_whitespace() || c.is_control() {
            self.space();
            return;
        }
        if !self.current.is_empty() {
            match self.gap {
                Gap::None => {}
                Gap::Space => self.current.push(' '),
                Gap::Cell => self.current.push_str(" | "),
            }
        }
        self.gap = Gap::None;
        self.current.push(c);
    }

    /// Appends text whose line breaks end blocks (code, preformatted text): each
    /// non-blank line becomes its own block (inside a table row, a space).
    pub fn push_lines(&mut self, text: &str) {
        for (i, line) in text.split('\n').enumerate() {
            if i > 0 {
                self.end_block();
            }
            self.push(line);
        }
    }

    /// Makes sure the next text pushed does not run into the text before it.
    pub fn space(&mut self) {
        if !self.current.is_empty() && self.gap == Gap::None {
            self.gap = Gap::Space;
        }
    }

    /// Ends the current block (inside a table row: only a space).
    pub fn end_block(&mut self) {
        if self.rows > 0 {
            self.space();
            return;
        }
        if !self.current.is_empty() {
            if !self.out.is_empty() {
                self.out.push_str("\n\n");
            }
            self.out.push_str(&self.current);
            self.current.clear();
        }
        self.gap = Gap::None;
    }

    /// Starts a table row: the row is one block until the matching
    /// [`Blocks::end_row`]. A row opened inside a row continues the outer one.
    pub fn start_row(&mut self) {
        if self.rows == 0 {
            self.end_block();
        } else {
            self.cell();
        }
        self.rows = self.rows.saturating_add(1);
    }

    /// Starts a table cell: the next text is separated from the row's text before it
    /// by `" | "`. Outside a row, only a space.
    pub fn cell(&mut self) {
        if self.rows == 0 {
            self.space();
        } else if !self.current.is_empty() {
            self.gap = Gap::Cell;
        }
    }

    /// Ends a table row (the outermost one ends the block). Without an open row, ends
    /// the block.
    pub fn end_row(&mut self) {
        match self.rows {
            0 => self.end_block(),
            1 => {
                self.rows = 0;
                self.end_block();
            }
            _ => {
                self.rows -= 1;
                self.cell();
            }
        }
    }

    /// Whether nothing has been written yet (no block, and nothing in the current one).
    pub fn is_empty(&self) -> bool {
        self.out.is_empty() && self.current.is_empty()
    }

    /// The text: every block separated by `"\n\n"` (the current block ended first, and
    /// any row still open closed).
    pub fn finish(mut self) -> String {
        self.rows = 0;
        self.end_block();
        self.out
    }

    /// The blocks, one string each (the current block ended first).
    pub fn into_blocks(self) -> Vec<String> {
        let text = self.finish();
        if text.is_empty() {
            return Vec::new();
        }
        text.split("\n\n").map(str::to_owned).collect()
    }
}

/// The text an entity reference stands for, given its name without `&` and `;`:
/// `#38` and `#x26` (character references), and every HTML5 named entity (`nbsp`,
/// `rsquo`, `mdash`, `eacute`…). `None` for a name no table knows, and for a number
/// that is not a character (or is NUL).
pub fn resolve_entity(name: &str) -> Option<Cow<'static, str>> {
    if let Some(number) = name.strip_prefix('#') {
        let code = match number.strip_prefix(['x', 'X']) {
            Some(hex) => u32::from_str_radix(hex, 16).ok()?,
            None => number.parse::<u32>().ok()?,
        };
        return char::from_u32(code)
            .filter(|c| *c != '\0')
            .map(|c| Cow::Owned(c.to_string()));
    }
    quick_xml::escape::resolve_html5_entity(name).map(Cow::Borrowed)
}

/// `text` with its entity references (`&amp;`, `&nbsp;`, `&#8217;`…) replaced by what
/// they stand for; an `&` that does not start a known reference stays as it is.
pub fn decode_entities(text: &str) -> Cow<'_, str> {
    if !text.contains('&') {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        let after = &rest[amp + 1..];
        // Entity names are short: look for the `;` only a little way ahead, so that a
        // text full of lone `&` stays linear.
        let window = after.char_indices().take(33).find(|(_, c)| *c == ';');
        let resolved =
            window.and_then(|(semi, _)| resolve_entity(&after[..semi]).map(|value| (value, semi)));
        match resolved {
            Some((value, semi)) => {
                out.push_str(&value);
                rest = &after[semi + 1..];
            }
            None => {
                out.push('&');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inline_text_collapses_and_blocks_separate() {
        let mut blocks = Blocks::new();
        blocks.push("  Hello\t\n ");
        blocks.push("world ");
        blocks.push("again");
        blocks.end_block();
        blocks.end_block();
        blocks.push("\u{a0}second\u{1}block  ");
        assert_eq!(blocks.finish(), "Hello world again\n\nsecond block");
    }

    #[test]
    fn pieces_join_as_in_the_source() {
        let mut blocks = Blocks::new();
        blocks.push("a");
        blocks.push("b");
        blocks.space();
        blocks.push("c");
        assert_eq!(blocks.finish(), "ab c");
    }

    #[test]
    fn rows_are_one_block_with_cells_separated() {
        let mut blocks = Blocks::new();
        blocks.push("before");
        blocks.start_row();
        blocks.cell();
        blocks.push("a");
        blocks.end_block();
        blocks.push("a2");
        blocks.cell();
        blocks.cell();
        blocks.push(" ");
        blocks.cell();
        blocks.push("b");
        blocks.end_row();
        blocks.push("after");
        assert_eq!(blocks.finish(), "before\n\na a2 | b\n\nafter");
    }

    #[test]
    fn nested_rows_flatten_into_the_outer_row() {
        let mut blocks = Blocks::new();
        blocks.start_row();
        blocks.cell();
        blocks.push("outer");
        blocks.cell();
        blocks.start_row();
        blocks.cell();
        blocks.push("inner");
        blocks.end_row();
        blocks.push("tail");
        blocks.end_row();
        assert_eq!(blocks.finish(), "outer | inner | tail");
    }

    #[test]
    fn lines_become_blocks_and_blank_lines_vanish() {
        let mut blocks = Blocks::new();
        blocks.push_lines("one\n\n  two  \r\n\nthree");
        assert_eq!(
            blocks.into_blocks(),
            vec!["one".to_owned(), "two".to_owned(), "three".to_owned()]
        );
        assert!(Blocks::new().into_blocks().is_empty());
        assert_eq!(Blocks::new().finish(), "");
    }

    #[test]
    fn entities_resolve_from_the_html5_table() {
        assert_eq!(resolve_entity("nbsp").as_deref(), Some("\u{a0}"));
        assert_eq!(resolve_entity("rsquo").as_deref(), Some("\u{2019}"));
        assert_eq!(resolve_entity("#233").as_deref(), Some("é"));
        assert_eq!(resolve_entity("#x4E2D").as_deref(), Some("中"));
        assert_eq!(resolve_entity("#0"), None);
        assert_eq!(resolve_entity("#xD800"), None);
        assert_eq!(resolve_entity("bogus"), None);
        assert_eq!(
            decode_entities("caf&eacute; &amp; AT&T &bogus; &#8212; &"),
            "café & AT&T &bogus; \u{2014} &"
        );
    }
}
