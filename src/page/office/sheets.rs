//! Excel: the shared strings, then each visible sheet in the workbook's order, a row a
//! block of its non-empty cells, within [`MAX_SHEETS`], [`MAX_ROWS`] and
//! [`MAX_SHARED_STRINGS`].

use super::package::{attribute, Handler, Package, Relationship};
use super::text::Text;
use super::{MAX_PART_BYTES, MAX_ROWS, MAX_SHARED_STRINGS, MAX_SHEETS};
use crate::page::collapse_whitespace;
use quick_xml::events::BytesStart;
use std::collections::HashMap;
use std::io::{Read, Seek};

/// The visible sheets in the workbook's order, a row a block.
pub(super) fn read<R: Read + Seek>(
    package: &mut Package<R>,
    main: &str,
    text: &mut Text,
) -> Result<(), &'static str> {
    let rels: HashMap<String, Relationship> = package
        .relationships(main)
        .into_iter()
        .map(|r| (r.id.clone(), r))
        .collect();
    let mut book = Workbook::default();
    package.read_required(main, &[], &mut book)?;
    let shared = rels
        .values()
        .find(|r| r.kind == "sharedStrings")
        .map_or("xl/sharedStrings.xml", |r| r.target.as_str())
        .to_string();
    let mut strings = SharedStrings::default();
    package.read_optional(&shared, &["rPh"], &mut strings);
    package.cut |= strings.overflow;
    let mut sheets: Vec<(String, String)> = book
        .sheets
        .iter()
        .filter(|sheet| !sheet.hidden)
        .filter_map(|sheet| {
            let r = rels.get(&sheet.id)?;
            (r.kind == "worksheet").then(|| (sheet.name.clone(), r.target.clone()))
        })
        .collect();
    if book.sheets.is_empty() {
        sheets = package
            .names
            .numbered("xl/worksheets/sheet", ".xml", MAX_SHEETS + 1)
            .into_iter()
            .map(|path| (String::new(), path))
            .collect();
    }
    let named = sheets.len() > 1;
    let mut rows = 0;
    for (i, (name, path)) in sheets.iter().enumerate() {
        if i == MAX_SHEETS {
            package.cut = true;
            break;
        }
        if text.full() || rows >= MAX_ROWS || package.spent() {
            break;
        }
        let mut sheet = Sheet {
            text: &mut *text,
            strings: &strings.list,
            heading: named.then(|| name.clone()),
            rows: &mut rows,
            cell: None,
            cells: Vec::new(),
            into: Collect::Nothing,
        };
        package.read_optional(path, &["rPh"], &mut sheet);
    }
    if rows >= MAX_ROWS {
        package.cut = true;
    }
    Ok(())
}

/// One sheet a workbook lists.
struct SheetEntry {
    name: String,
    /// Its relationship id.
    id: String,
    hidden: bool,
}

/// The sheets a workbook lists (`sheets/sheet`), in its order.
#[derive(Default)]
struct Workbook {
    sheets: Vec<SheetEntry>,
}

impl Handler for Workbook {
    fn start(&mut self, element: &BytesStart<'_>, name: &str) {
        if name != "sheet" || self.sheets.len() > MAX_SHEETS {
            return;
        }
        let Some(id) = attribute(element, "id", true) else {
            return;
        };
        let state = attribute(element, "state", false).unwrap_or_default();
        self.sheets.push(SheetEntry {
            name: collapse_whitespace(&attribute(element, "name", false).unwrap_or_default()),
            id,
            hidden: state == "hidden" || state == "veryHidden",
        });
    }

    fn end(&mut self, _: &str) {}

    fn text(&mut self, _: &str) {}
}

/// A workbook's shared strings (`si`), each the text of all its `t` runs.
#[derive(Default)]
struct SharedStrings {
    list: Vec<String>,
    current: Option<String>,
    in_run: bool,
    /// There were more than [`MAX_SHARED_STRINGS`].
    overflow: bool,
}

impl Handler for SharedStrings {
    fn start(&mut self, _: &BytesStart<'_>, name: &str) {
        match name {
            "si" => self.current = Some(String::new()),
            "t" => self.in_run = self.current.is_some(),
            _ => {}
        }
    }

    fn end(&mut self, name: &str) {
        match name {
            "si" => {
                if let Some(string) = self.current.take() {
                    if self.list.len() < MAX_SHARED_STRINGS {
                        self.list.push(string);
                    } else {
                        self.overflow = true;
                    }
                }
            }
            "t" => self.in_run = false,
            _ => {}
        }
    }

    fn text(&mut self, text: &str) {
        if let Some(current) = self.current.as_mut().filter(|_| self.in_run) {
            current.push_str(text);
        }
    }

    fn full(&self) -> bool {
        self.overflow
    }
}

/// Where a sheet's text goes while inside a cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Collect {
    Nothing,
    /// The cell's value (`v`).
    Value,
    /// An inline string's run (`is/…/t`).
    Inline,
}

/// The cell being read: its type (`t`), value and inline string.
#[derive(Default)]
struct Cell {
    kind: String,
    value: String,
    inline: String,
    in_inline: bool,
}

/// One sheet's rows.
struct Sheet<'a> {
    text: &'a mut Text,
    strings: &'a [String],
    /// The sheet's name, shown before its first row, when the workbook has several.
    heading: Option<String>,
    /// Rows read from the workbook so far.
    rows: &'a mut usize,
    cell: Option<Cell>,
    cells: Vec<String>,
    into: Collect,
}

impl Sheet<'_> {
    /// The cell's value as Excel shows it, roughly: numbers as written.
    fn value(&self, cell: &Cell) -> String {
        let value = cell.value.trim();
        let shown = match cell.kind.as_str() {
            "s" => value
                .parse::<usize>()
                .ok()
                .and_then(|i| self.strings.get(i))
                .map_or("", String::as_str),
            "inlineStr" => &cell.inline,
            "b" => match value {
                "1" => "TRUE",
                "0" => "FALSE",
                other => other,
            },
            _ => value,
        };
        collapse_whitespace(shown)
    }
}

impl Handler for Sheet<'_> {
    fn start(&mut self, element: &BytesStart<'_>, name: &str) {
        match name {
            "row" => self.cells.clear(),
            "c" => {
                self.cell = Some(Cell {
                    kind: attribute(element, "t", false).unwrap_or_default(),
                    ..Cell::default()
                });
            }
            "v" if self.cell.is_some() => self.into = Collect::Value,
            "is" => {
                if let Some(cell) = self.cell.as_mut() {
                    cell.in_inline = true;
                }
            }
            "t" if self.cell.as_ref().is_some_and(|c| c.in_inline) => self.into = Collect::Inline,
            _ => {}
        }
    }

    fn end(&mut self, name: &str) {
        match name {
            "v" | "t" => self.into = Collect::Nothing,
            "is" => {
                if let Some(cell) = self.cell.as_mut() {
                    cell.in_inline = false;
                }
            }
            "c" => {
                if let Some(cell) = self.cell.take() {
                    let value = self.value(&cell);
                    if !value.is_empty() {
                        self.cells.push(value);
                    }
                }
                self.into = Collect::Nothing;
            }
            "row" => {
                *self.rows += 1;
                if self.cells.is_empty() {
                    return;
                }
                if let Some(heading) = self.heading.take() {
                    self.text.emit(&heading);
                }
                let cells = std::mem::take(&mut self.cells);
                self.text.row(&cells);
            }
            _ => {}
        }
    }

    fn text(&mut self, text: &str) {
        let Some(cell) = self.cell.as_mut() else {
            return;
        };
        let into = match self.into {
            Collect::Nothing => return,
            Collect::Value => &mut cell.value,
            Collect::Inline => &mut cell.inline,
        };
        if into.len() < MAX_PART_BYTES as usize {
            into.push_str(text);
        }
    }

    fn full(&self) -> bool {
        self.text.full() || *self.rows >= MAX_ROWS
    }
}
