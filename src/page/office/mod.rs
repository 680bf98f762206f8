//! Office Open XML packages — Word (.docx), PowerPoint (.pptx), Excel (.xlsx) — as
//! plain text, through `zip` (deflate only) and `quick-xml`.
//!
//! A package is a zip of XML parts tied together by relationship parts (`_rels/*.rels`).
//! The reader opens the zip's central directory, finds the main part through
//! `_rels/.rels` (or its usual name), and walks the parts that hold text, in order:
//!
//! - Word: `word/document.xml`, then the footnotes and endnotes. Each paragraph (`w:p`)
//!   is a block, its `w:t` runs joined; `w:tab` is a space, `w:br` ends a block. A table
//!   row (`w:tr`) is one block, its cells' text joined by `" | "`. Headers and footers
//!   are left out.
//! - PowerPoint: the slides in the presentation's order (`p:sldIdLst` through
//!   `ppt/_rels/presentation.xml.rels`, else `slideN.xml` by number), each followed by
//!   its speaker notes; each `a:p` a block, tables as in Word. Fields (slide numbers,
//!   dates) are left out.
//! - Excel: the shared strings, then each visible sheet in the workbook's order
//!   (`sheets/sheet` through `xl/_rels/workbook.xml.rels`): each row a block, its
//!   non-empty cells joined by `" | "` (shared and inline strings, formula results,
//!   TRUE/FALSE, numbers as written). With more than one sheet, each sheet's rows come
//!   after its name.
//!
//! The title is the core properties' `dc:title`, when set.
//!
//! Everything in a package is untrusted: the zip's declared sizes are never believed
//! (every part is read through [`Read::take`]), and every count has a cap — entries,
//! bytes inflated from one part and from the whole package, slides, sheets, rows,
//! shared strings, text — past which reading stops and the page is marked truncated.
//! A zip bomb costs at most [`MAX_TOTAL_BYTES`] of inflating and about
//! [`MAX_PART_BYTES`] of memory. The parsers are not expected to panic, but run under
//! `catch_unwind` anyway, as `pdf` does.
//!
//! This file holds the entry points (`sniff`, `read`), the kinds and the limits;
//! `package` reads the zip and its parts within those limits, `text` builds the blocks
//! every format writes into, and `word`, `slides` and `sheets` each walk one format.

mod package;
mod sheets;
mod slides;
mod text;
mod word;

use super::{clean_title, MAX_TEXT_CHARS};
use package::{zip_reason, Names, Package, Title};
use std::io::Cursor;
use std::panic::{catch_unwind, AssertUnwindSafe};
use text::Text;
use zip::ZipArchive;

/// Most entries a package may list: a package listing more is not read. A long deck
/// with its media and notes holds a few thousand; ten thousand is far past any real
/// document that fits in a fetched body.
pub(super) const MAX_ENTRIES: usize = 10_000;

/// Most bytes inflated from one part (8 MiB): a sheet or document part this large
/// holds far more than [`MAX_TEXT_CHARS`] of text, so only markup-heavy filler or a
/// bomb reaches it. It also bounds the memory one XML event can take.
pub(super) const MAX_PART_BYTES: u64 = 8 << 20;

/// Most bytes inflated from the whole package (32 MiB), over all the parts read: the
/// most a hostile package costs in inflating and parsing (well under a second in a
/// release build).
pub(super) const MAX_TOTAL_BYTES: u64 = 32 << 20;

/// Most slides read from a presentation (each with its notes).
pub(super) const MAX_SLIDES: usize = 1_000;

/// Most sheets read from a workbook.
pub(super) const MAX_SHEETS: usize = 100;

/// Most rows read from a workbook, over all its sheets.
pub(super) const MAX_ROWS: usize = 100_000;

/// Most shared strings kept from a workbook; a cell pointing past them is skipped.
pub(super) const MAX_SHARED_STRINGS: usize = 500_000;

/// Most relationships kept from one relationship part.
pub(super) const MAX_RELATIONSHIPS: usize = MAX_ENTRIES;

/// Most bytes of text taken in before whitespace is collapsed (eight times
/// [`MAX_TEXT_CHARS`]): stops a part made of spaces, or one huge table row, from
/// growing without end before the character count sees it.
const MAX_RAW_TEXT_BYTES: usize = 8 * MAX_TEXT_CHARS;

/// The first bytes of an OLE compound file: what Office's older binary formats are, and
/// what a password-protected Office Open XML file is wrapped in.
const COMPOUND_FILE: &[u8] = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1";

/// The first bytes of a zip's first entry.
const ZIP_ENTRY: &[u8] = b"PK\x03\x04";

/// Which application's package.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// A Word document (.docx, .docm, .dotx, .dotm).
    Word,
    /// A PowerPoint presentation (.pptx, .pptm, .ppsx, .potx, …).
    PowerPoint,
    /// An Excel workbook (.xlsx, .xlsm, .xltx, .xltm).
    Excel,
}

impl Kind {
    const ALL: [Kind; 3] = [Kind::Word, Kind::PowerPoint, Kind::Excel];

    /// The kind of package a (lower-cased) media type names, templates and
    /// macro-enabled files included.
    pub(super) fn from_mime(mime: &str) -> Option<Kind> {
        let ooxml = mime.strip_prefix("application/vnd.openxmlformats-officedocument.");
        match ooxml {
            Some("wordprocessingml.document" | "wordprocessingml.template") => {
                return Some(Kind::Word)
            }
            Some(
                "presentationml.presentation"
                | "presentationml.slideshow"
                | "presentationml.template",
            ) => return Some(Kind::PowerPoint),
            Some("spreadsheetml.sheet" | "spreadsheetml.template") => return Some(Kind::Excel),
            _ => {}
        }
        match mime {
            "application/vnd.ms-word.document.macroenabled.12"
            | "application/vnd.ms-word.template.macroenabled.12" => Some(Kind::Word),
            "application/vnd.ms-powerpoint.presentation.macroenabled.12"
            | "application/vnd.ms-powerpoint.slideshow.macroenabled.12"
            | "application/vnd.ms-powerpoint.template.macroenabled.12" => Some(Kind::PowerPoint),
            "application/vnd.ms-excel.sheet.macroenabled.12"
            | "application/vnd.ms-excel.template.macroenabled.12" => Some(Kind::Excel),
            _ => None,
        }
    }

    /// Where the application puts the main part.
    fn main_part(self) -> &'static str {
        match self {
            Kind::Word => "word/document.xml",
            Kind::PowerPoint => "ppt/presentation.xml",
            Kind::Excel => "xl/workbook.xml",
        }
    }

    /// What the file is called in a reason: "the .docx file".
    fn file(self) -> &'static str {
        match self {
            Kind::Word => "the .docx file",
            Kind::PowerPoint => "the .pptx file",
            Kind::Excel => "the .xlsx file",
        }
    }

    /// What the package holds: "document", "presentation", "spreadsheet".
    fn noun(self) -> &'static str {
        match self {
            Kind::Word => "document",
            Kind::PowerPoint => "presentation",
            Kind::Excel => "spreadsheet",
        }
    }

    /// The older binary format of the same application.
    fn legacy(self) -> &'static str {
        match self {
            Kind::Word => ".doc",
            Kind::PowerPoint => ".ppt",
            Kind::Excel => ".xls",
        }
    }
}

/// "the .docx file", or "the Office file" when the kind is not known.
fn file_name(kind: Option<Kind>) -> &'static str {
    kind.map_or("the Office file", Kind::file)
}

/// What an untyped body that starts as a zip turns out to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Sniffed {
    /// An Office package: its main part says which.
    Package(Kind),
    /// A zip whose first entry is an Office part (`[Content_Types].xml`, `_rels/.rels`,
    /// or one in `word/`, `ppt/`, `xl/`, `docProps/`) but whose directory cannot be
    /// read: cut at the size cap, damaged, or listing too many entries.
    Unopened,
}

/// What `bytes` are if they are an Office package, by the parts the zip holds (or, when
/// its directory cannot be read, by the name of its first entry). A zip of anything else
/// is `None`.
pub(super) fn sniff(bytes: &[u8]) -> Option<Sniffed> {
    if !bytes.starts_with(ZIP_ENTRY) {
        return None;
    }
    let opened = catch_unwind(|| {
        let zip = ZipArchive::new(Cursor::new(bytes)).ok()?;
        (zip.len() <= MAX_ENTRIES).then(|| Names::of(&zip))
    });
    match opened {
        Ok(Some(names)) => Kind::ALL
            .into_iter()
            .find(|kind| names.has(kind.main_part()))
            .map(Sniffed::Package),
        _ => first_entry_is_a_part(bytes).then_some(Sniffed::Unopened),
    }
}

/// Whether the zip's first local header names a part every Office package has, or one
/// in an Office application's folder.
fn first_entry_is_a_part(bytes: &[u8]) -> bool {
    let Some(header) = bytes.get(..30) else {
        return false;
    };
    let length = usize::from(u16::from_le_bytes([header[26], header[27]]));
    let Some(name) = bytes.get(30..30 + length) else {
        return false;
    };
    let name = String::from_utf8_lossy(name).to_ascii_lowercase();
    name == "[content_types].xml"
        || name == "_rels/.rels"
        || ["docprops/", "word/", "ppt/", "xl/"]
            .iter()
            .any(|folder| name.starts_with(folder))
}

/// The text of an Office package.
#[derive(Debug)]
pub(super) struct Office {
    /// The core properties' title, cleaned.
    pub(super) title: Option<String>,
    /// Blocks separated by `"\n\n"`, whitespace collapsed inside each; never empty.
    pub(super) text: String,
    /// Reading stopped before the end: a cap was reached or a part was damaged.
    pub(super) cut: bool,
}

/// The text of the Office package in `bytes` (`kind`, when the type or the sniffing
/// said which), or why it cannot be read. A package cut at the size cap is not read:
/// its directory is at the end.
pub(super) fn read(bytes: &[u8], truncated: bool, kind: Option<Kind>) -> Result<Office, String> {
    if truncated {
        return Err(format!(
            "{} is larger than the size limit, and an Office file can't be read in part",
            file_name(kind)
        ));
    }
    // AssertUnwindSafe: nothing outlives the call but its result.
    match catch_unwind(AssertUnwindSafe(|| read_package(bytes, kind))) {
        Ok(result) => result,
        Err(_) => Err(format!(
            "{} could not be read (it is damaged or unusual)",
            file_name(kind)
        )),
    }
}

fn read_package(bytes: &[u8], hint: Option<Kind>) -> Result<Office, String> {
    let could_not =
        |kind: Option<Kind>, why: &str| format!("{} could not be read ({why})", file_name(kind));
    if bytes.starts_with(COMPOUND_FILE) {
        let legacy = hint.map_or("older binary format", Kind::legacy);
        return Err(could_not(
            hint,
            &format!("it is password-protected, or in the {legacy} format"),
        ));
    }
    if !bytes.starts_with(ZIP_ENTRY) {
        return Err(could_not(hint, "it is not an Office Open XML file"));
    }
    let zip = ZipArchive::new(Cursor::new(bytes)).map_err(|e| could_not(hint, zip_reason(&e)))?;
    if zip.len() > MAX_ENTRIES {
        return Err(could_not(
            hint,
            &format!("it holds more than {MAX_ENTRIES} parts"),
        ));
    }
    let mut package = Package::new(zip);
    let found = |kind: &Kind| package.names.has(kind.main_part());
    let Some(kind) = hint
        .filter(|kind| found(kind))
        .or_else(|| Kind::ALL.into_iter().find(|kind| found(kind)))
    else {
        let why = match hint {
            Some(Kind::Word) => "it is not a Word document",
            Some(Kind::PowerPoint) => "it is not a PowerPoint presentation",
            Some(Kind::Excel) => "it is not an Excel workbook",
            None => "it is not a Word, PowerPoint or Excel file",
        };
        return Err(could_not(hint, why));
    };
    let root = package.relationships("");
    let main = root
        .iter()
        .find(|r| r.kind == "officeDocument" && package.names.has(&r.target))
        .map_or_else(|| kind.main_part().to_string(), |r| r.target.clone());
    let mut text = Text::default();
    match kind {
        Kind::Word => word::read(&mut package, &main, &mut text),
        Kind::PowerPoint => slides::read(&mut package, &main, &mut text),
        Kind::Excel => sheets::read(&mut package, &main, &mut text),
    }
    .map_err(|why| could_not(Some(kind), why))?;
    let core = root
        .iter()
        .find(|r| r.kind == "core-properties")
        .map_or("docProps/core.xml", |r| r.target.as_str());
    let mut title = Title::default();
    package.read_optional(core, &[], &mut title);
    text.close_all();
    if text.out.is_empty() {
        return Err(if package.damaged {
            could_not(Some(kind), "it is damaged")
        } else {
            format!("the {} has no readable text", kind.noun())
        });
    }
    Ok(Office {
        title: clean_title(&title.text),
        cut: package.cut || text.full(),
        text: text.out,
    })
}

/// The packages the tests build, shared with the integration tests.
#[cfg(test)]
#[path = "../../../tests/support/office.rs"]
#[allow(dead_code)]
mod fixture;

/// The unit tests, on packages built in memory.
#[cfg(test)]
mod tests;
