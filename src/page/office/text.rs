//! The text a package becomes, built as its parts are walked ([`Text`]), and the walk
//! of paragraph text that Word and PowerPoint share ([`Flow`]).

use super::package::Handler;
use super::MAX_RAW_TEXT_BYTES;
use crate::page::{collapse_whitespace, MAX_TEXT_CHARS};
use quick_xml::events::BytesStart;

/// The text being built: blocks separated by `"\n\n"`, whitespace collapsed inside
/// each; a table row one block, its non-empty cells joined by `" | "` (a table inside
/// a cell goes into that cell).
#[derive(Default)]
pub(super) struct Text {
    pub(super) out: String,
    /// Characters in `out`.
    chars: usize,
    /// Bytes of text taken in so far.
    raw: usize,
    /// The block being built outside any table.
    line: String,
    /// The open table rows, outermost first: their finished cells.
    rows: Vec<Vec<String>>,
    /// The open table cells, outermost first: their text so far.
    cells: Vec<String>,
}

impl Text {
    /// Whether there is enough: past [`MAX_TEXT_CHARS`], or past
    /// [`MAX_RAW_TEXT_BYTES`] taken in.
    pub(super) fn full(&self) -> bool {
        self.chars > MAX_TEXT_CHARS || self.raw > MAX_RAW_TEXT_BYTES
    }

    fn push(&mut self, text: &str) {
        self.raw += text.len();
        match self.cells.last_mut() {
            Some(cell) => cell.push_str(text),
            None => self.line.push_str(text),
        }
    }

    /// A paragraph ends, or a line breaks: in a table cell a space, elsewhere the end
    /// of a block.
    fn paragraph_end(&mut self) {
        if self.cells.is_empty() {
            self.end_block();
        } else {
            self.push(" ");
        }
    }

    fn end_block(&mut self) {
        let block = collapse_whitespace(&self.line);
        self.line.clear();
        self.emit(&block);
    }

    /// `block` (already collapsed) as the next block.
    pub(super) fn emit(&mut self, block: &str) {
        if block.is_empty() {
            return;
        }
        if !self.out.is_empty() {
            self.out.push_str("\n\n");
            self.chars += 2;
        }
        self.out.push_str(block);
        self.chars += block.chars().count();
    }

    fn row_start(&mut self) {
        self.rows.push(Vec::new());
    }

    fn cell_start(&mut self) {
        self.cells.push(String::new());
    }

    fn cell_end(&mut self) {
        let Some(cell) = self.cells.pop() else {
            return;
        };
        let cell = collapse_whitespace(&cell);
        if cell.is_empty() {
            return;
        }
        match self.rows.last_mut() {
            Some(row) => row.push(cell),
            None => self.put(&cell),
        }
    }

    fn row_end(&mut self) {
        if let Some(row) = self.rows.pop() {
            self.put(&row.join(" | "));
        }
    }

    /// A finished piece of a table: into the cell that holds the table, else a block.
    fn put(&mut self, piece: &str) {
        if piece.is_empty() {
            return;
        }
        match self.cells.last_mut() {
            Some(cell) => {
                cell.push(' ');
                cell.push_str(piece);
            }
            None => {
                self.end_block();
                self.emit(piece);
            }
        }
    }

    /// A row of cells (already collapsed, empty ones left out) as one block.
    pub(super) fn row(&mut self, cells: &[String]) {
        self.raw += cells.iter().map(String::len).sum::<usize>();
        self.emit(&cells.join(" | "));
    }

    /// Ends whatever is open (at the end of a part, closed or not).
    pub(super) fn close_all(&mut self) {
        while !self.cells.is_empty() || !self.rows.is_empty() {
            if self.cells.is_empty() {
                self.row_end();
            } else {
                self.cell_end();
            }
        }
        self.end_block();
    }
}

/// Paragraph text, as Word and PowerPoint (and DrawingML) write it: `p` paragraphs of
/// `t` runs, `tab`, `br`, tables of `tr` rows and `tc` cells.
pub(super) struct Flow<'t> {
    text: &'t mut Text,
    /// Inside a `t` element.
    in_run: bool,
}

impl<'t> Flow<'t> {
    pub(super) fn new(text: &'t mut Text) -> Self {
        Flow {
            text,
            in_run: false,
        }
    }
}

impl Handler for Flow<'_> {
    fn start(&mut self, _: &BytesStart<'_>, name: &str) {
        match name {
            "t" => self.in_run = true,
            "tab" => self.text.push(" "),
            "br" | "cr" => self.text.paragraph_end(),
            "noBreakHyphen" => self.text.push("-"),
            "tr" => self.text.row_start(),
            "tc" => self.text.cell_start(),
            _ => {}
        }
    }

    fn end(&mut self, name: &str) {
        match name {
            "t" => self.in_run = false,
            "p" => self.text.paragraph_end(),
            "tr" => self.text.row_end(),
            "tc" => self.text.cell_end(),
            _ => {}
        }
    }

    fn text(&mut self, text: &str) {
        if self.in_run {
            self.text.push(text);
        }
    }

    fn full(&self) -> bool {
        self.text.full()
    }
}
