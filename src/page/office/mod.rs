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

use super::{clean_title, collapse_whitespace, MAX_TEXT_CHARS, MAX_TITLE_CHARS};
use quick_xml::escape::resolve_predefined_entity;
use quick_xml::events::{BytesStart, Event};
use quick_xml::{Reader, XmlVersion};
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Cursor, Read, Seek};
use std::panic::{catch_unwind, AssertUnwindSafe};
use zip::result::ZipError;
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
        Kind::Word => word(&mut package, &main, &mut text),
        Kind::PowerPoint => powerpoint(&mut package, &main, &mut text),
        Kind::Excel => excel(&mut package, &main, &mut text),
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

/// A zip error in people's words.
fn zip_reason(error: &ZipError) -> &'static str {
    match error {
        ZipError::UnsupportedArchive(what) if *what == ZipError::PASSWORD_REQUIRED => {
            "it is encrypted"
        }
        ZipError::UnsupportedArchive(_) => "it uses zip features sourcebot can't read",
        ZipError::CompressionMethodNotSupported(_) => {
            "it is compressed in a way sourcebot can't read"
        }
        ZipError::FileNotFound => "a part it needs is missing",
        ZipError::InvalidArchive(_) => "it is damaged, or not a zip file",
        _ => "it is damaged",
    }
}

/// The Word document's body, then its footnotes and endnotes.
fn word<R: Read + Seek>(
    package: &mut Package<R>,
    main: &str,
    text: &mut Text,
) -> Result<(), &'static str> {
    const SKIP: &[&str] = &["Fallback", "moveFrom"];
    let rels = package.relationships(main);
    package.read_required(main, SKIP, &mut Flow::new(text))?;
    for notes in ["footnotes", "endnotes"] {
        text.close_all();
        let part = rels
            .iter()
            .find(|r| r.kind == notes)
            .map_or_else(|| format!("word/{notes}.xml"), |r| r.target.clone());
        package.read_optional(&part, SKIP, &mut Flow::new(text));
    }
    Ok(())
}

/// The slides in the presentation's order, each with its speaker notes.
fn powerpoint<R: Read + Seek>(
    package: &mut Package<R>,
    main: &str,
    text: &mut Text,
) -> Result<(), &'static str> {
    const SKIP: &[&str] = &["Fallback", "fld"];
    let rels: HashMap<String, Relationship> = package
        .relationships(main)
        .into_iter()
        .map(|r| (r.id.clone(), r))
        .collect();
    let mut list = SlideList::default();
    package.read_required(main, &[], &mut list)?;
    let mut slides: Vec<String> = list
        .ids
        .iter()
        .filter_map(|id| rels.get(id))
        .filter(|r| r.kind == "slide")
        .map(|r| r.target.clone())
        .collect();
    if slides.is_empty() {
        slides = package
            .names
            .numbered("ppt/slides/slide", ".xml", MAX_SLIDES + 1);
    }
    for (i, slide) in slides.iter().enumerate() {
        if i == MAX_SLIDES {
            package.cut = true;
            break;
        }
        if text.full() || package.spent() {
            break;
        }
        package.read_optional(slide, SKIP, &mut Flow::new(text));
        text.close_all();
        let notes = package
            .relationships(slide)
            .into_iter()
            .find(|r| r.kind == "notesSlide");
        if let Some(notes) = notes {
            package.read_optional(&notes.target, SKIP, &mut Flow::new(text));
            text.close_all();
        }
    }
    Ok(())
}

/// The visible sheets in the workbook's order, a row a block.
fn excel<R: Read + Seek>(
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

/// The package's entry names, lower-cased (part names are case-insensitive), and where
/// each is.
struct Names(HashMap<String, usize>);

impl Names {
    fn of<R: Read + Seek>(zip: &ZipArchive<R>) -> Names {
        let mut names = HashMap::with_capacity(zip.len().min(MAX_ENTRIES));
        for index in 0..zip.len().min(MAX_ENTRIES) {
            if let Some(Ok(name)) = zip.name_for_index(index) {
                names.entry(name.to_ascii_lowercase()).or_insert(index);
            }
        }
        Names(names)
    }

    fn has(&self, part: &str) -> bool {
        self.0.contains_key(&part.to_ascii_lowercase())
    }

    fn index(&self, part: &str) -> Option<usize> {
        self.0.get(&part.to_ascii_lowercase()).copied()
    }

    /// The parts named `{prefix}{n}{suffix}`, by `n`, at most `most`.
    fn numbered(&self, prefix: &str, suffix: &str, most: usize) -> Vec<String> {
        let mut found: Vec<(u64, &String)> = self
            .0
            .keys()
            .filter_map(|name| {
                let n = name.strip_prefix(prefix)?.strip_suffix(suffix)?;
                Some((n.parse().ok()?, name))
            })
            .collect();
        found.sort();
        found
            .into_iter()
            .take(most)
            .map(|(_, name)| name.clone())
            .collect()
    }
}

/// An open package and what reading it has cost.
struct Package<R> {
    zip: ZipArchive<R>,
    names: Names,
    /// Bytes that may still be inflated.
    budget: u64,
    /// Some part was not read to its end (a cap, or damage).
    cut: bool,
    /// Some part's XML or compressed data was damaged.
    damaged: bool,
}

/// One relationship of a part: its id, its type's last word (`slide`,
/// `officeDocument`), and the package path it points at.
#[derive(Debug, Clone)]
struct Relationship {
    id: String,
    kind: String,
    target: String,
}

/// How the walk through a part ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Walked {
    /// At the end of the part (or of its byte cap).
    Ended,
    /// The handler had enough.
    Stopped,
    /// The XML or the compressed data is damaged.
    Failed,
}

impl<R: Read + Seek> Package<R> {
    fn new(zip: ZipArchive<R>) -> Self {
        let names = Names::of(&zip);
        Package {
            zip,
            names,
            budget: MAX_TOTAL_BYTES,
            cut: false,
            damaged: false,
        }
    }

    /// Whether the inflating budget is gone.
    fn spent(&mut self) -> bool {
        if self.budget == 0 {
            self.cut = true;
        }
        self.budget == 0
    }

    /// Reads the part at `path` through `handler`; the part must be there and open.
    fn read_required(
        &mut self,
        path: &str,
        skip: &[&str],
        handler: &mut dyn Handler,
    ) -> Result<(), &'static str> {
        match self.read_part(path, skip, handler) {
            Ok(true) => Ok(()),
            Ok(false) => Err(zip_reason(&ZipError::FileNotFound)),
            Err(why) => Err(why),
        }
    }

    /// Reads the part at `path` through `handler` if it is there and opens.
    fn read_optional(&mut self, path: &str, skip: &[&str], handler: &mut dyn Handler) {
        if self.read_part(path, skip, handler).is_err() {
            self.cut = true;
        }
    }

    /// Reads the part at `path` through `handler`: `false` when there is no such part.
    /// At most [`MAX_PART_BYTES`] are inflated, and no more than the budget left.
    fn read_part(
        &mut self,
        path: &str,
        skip: &[&str],
        handler: &mut dyn Handler,
    ) -> Result<bool, &'static str> {
        let Some(index) = self.names.index(path) else {
            return Ok(false);
        };
        if self.spent() {
            return Ok(true);
        }
        let limit = MAX_PART_BYTES.min(self.budget);
        let part = self.zip.by_index(index).map_err(|e| zip_reason(&e))?;
        let mut reader = Reader::from_reader(BufReader::new(part.take(limit)));
        let config = reader.config_mut();
        config.allow_dangling_amp = true;
        config.check_end_names = false;
        config.allow_unmatched_ends = true;
        let walked = walk(&mut reader, skip, handler);
        let left = reader.into_inner().get_ref().limit();
        self.budget -= limit - left;
        if left == 0 || walked != Walked::Ended {
            self.cut = true;
        }
        // A part cut at its cap ends mid-tag: that is no damage.
        if walked == Walked::Failed && left > 0 {
            self.damaged = true;
        }
        Ok(true)
    }

    /// The relationships of the part at `path` (of the package, for `""`), targets
    /// resolved to package paths; external targets are left out.
    fn relationships(&mut self, path: &str) -> Vec<Relationship> {
        let (folder, file) = path.rsplit_once('/').unwrap_or(("", path));
        let rels = if folder.is_empty() {
            format!("_rels/{file}.rels")
        } else {
            format!("{folder}/_rels/{file}.rels")
        };
        let mut found = Relationships {
            folder: folder.to_string(),
            list: Vec::new(),
        };
        self.read_optional(&rels, &[], &mut found);
        found.list
    }
}

/// What a walk through a part's XML hands on: elements by their local name (the
/// namespace prefix dropped), and text with its references resolved.
trait Handler {
    fn start(&mut self, element: &BytesStart<'_>, name: &str);
    fn end(&mut self, name: &str);
    fn text(&mut self, text: &str);
    /// Whether the handler wants nothing more.
    fn full(&self) -> bool {
        false
    }
}

/// Walks the XML from `reader` through `handler`, leaving out the elements named in
/// `skip` and all they hold. Stops at the first error.
fn walk<B: BufRead>(reader: &mut Reader<B>, skip: &[&str], handler: &mut dyn Handler) -> Walked {
    let mut buf = Vec::new();
    // How deep inside a skipped element the walk is.
    let mut skipping = 0usize;
    loop {
        if handler.full() {
            return Walked::Stopped;
        }
        buf.clear();
        let event = match reader.read_event_into(&mut buf) {
            Ok(event) => event,
            Err(_) => return Walked::Failed,
        };
        match event {
            Event::Start(element) => {
                let name = element.local_name();
                if skipping > 0 || skip.contains(&name.as_ref()) {
                    skipping += 1;
                } else {
                    handler.start(&element, name.as_ref());
                }
            }
            Event::Empty(element) => {
                let name = element.local_name();
                if skipping == 0 && !skip.contains(&name.as_ref()) {
                    handler.start(&element, name.as_ref());
                    handler.end(name.as_ref());
                }
            }
            Event::End(element) => {
                if skipping > 0 {
                    skipping -= 1;
                } else {
                    handler.end(element.local_name().as_ref());
                }
            }
            Event::Text(text) if skipping == 0 => handler.text(&text.xml10_content()),
            Event::CData(text) if skipping == 0 => handler.text(&text.xml10_content()),
            Event::GeneralRef(reference) if skipping == 0 => {
                if let Ok(Some(c)) = reference.resolve_char_ref() {
                    handler.text(c.encode_utf8(&mut [0; 4]));
                } else if let Some(text) = resolve_predefined_entity(&reference) {
                    handler.text(text);
                }
            }
            Event::Eof => return Walked::Ended,
            _ => {}
        }
    }
}

/// The value of `element`'s attribute whose local name is `name`, with (`r:id`) or
/// without (`Target`) a namespace prefix as `prefixed` says.
fn attribute(element: &BytesStart<'_>, name: &str, prefixed: bool) -> Option<String> {
    element
        .attributes()
        .with_checks(false)
        .flatten()
        .find(|a| a.key.local_name().as_ref() == name && a.key.prefix().is_some() == prefixed)
        .map(|a| match a.normalized_value(XmlVersion::Implicit1_0) {
            Ok(value) => value.into_owned(),
            Err(_) => a.value.into_owned(),
        })
}

/// `target` as a package path, relative to `folder` unless it starts with `/`.
fn resolve(folder: &str, target: &str) -> String {
    let (base, target) = match target.strip_prefix('/') {
        Some(absolute) => ("", absolute),
        None => (folder, target),
    };
    let mut path: Vec<&str> = base.split('/').filter(|s| !s.is_empty()).collect();
    for segment in target.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                path.pop();
            }
            segment => path.push(segment),
        }
    }
    path.join("/")
}

/// A relationship part's entries.
struct Relationships {
    folder: String,
    list: Vec<Relationship>,
}

impl Handler for Relationships {
    fn start(&mut self, element: &BytesStart<'_>, name: &str) {
        if name != "Relationship" || self.list.len() >= MAX_RELATIONSHIPS {
            return;
        }
        if attribute(element, "TargetMode", false).is_some_and(|m| m == "External") {
            return;
        }
        let (Some(id), Some(kind), Some(target)) = (
            attribute(element, "Id", false),
            attribute(element, "Type", false),
            attribute(element, "Target", false),
        ) else {
            return;
        };
        self.list.push(Relationship {
            id,
            kind: kind.rsplit('/').next().unwrap_or_default().to_string(),
            target: resolve(&self.folder, &target),
        });
    }

    fn end(&mut self, _: &str) {}

    fn text(&mut self, _: &str) {}

    fn full(&self) -> bool {
        self.list.len() >= MAX_RELATIONSHIPS
    }
}

/// The core properties' `dc:title`.
#[derive(Default)]
struct Title {
    inside: bool,
    text: String,
}

impl Handler for Title {
    fn start(&mut self, _: &BytesStart<'_>, name: &str) {
        self.inside = name == "title";
    }

    fn end(&mut self, _: &str) {
        self.inside = false;
    }

    fn text(&mut self, text: &str) {
        if self.inside && self.text.len() < 8 * MAX_TITLE_CHARS {
            self.text.push_str(text);
        }
    }

    fn full(&self) -> bool {
        self.text.len() >= 8 * MAX_TITLE_CHARS
    }
}

/// The text being built: blocks separated by `"\n\n"`, whitespace collapsed inside
/// each; a table row one block, its non-empty cells joined by `" | "` (a table inside
/// a cell goes into that cell).
#[derive(Default)]
struct Text {
    out: String,
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
    fn full(&self) -> bool {
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
    fn emit(&mut self, block: &str) {
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
    fn row(&mut self, cells: &[String]) {
        self.raw += cells.iter().map(String::len).sum::<usize>();
        self.emit(&cells.join(" | "));
    }

    /// Ends whatever is open (at the end of a part, closed or not).
    fn close_all(&mut self) {
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
struct Flow<'t> {
    text: &'t mut Text,
    /// Inside a `t` element.
    in_run: bool,
}

impl<'t> Flow<'t> {
    fn new(text: &'t mut Text) -> Self {
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

/// The relationship ids of a presentation's slides, in its order (`p:sldIdLst`).
#[derive(Default)]
struct SlideList {
    inside: bool,
    ids: Vec<String>,
}

impl Handler for SlideList {
    fn start(&mut self, element: &BytesStart<'_>, name: &str) {
        match name {
            "sldIdLst" => self.inside = true,
            "sldId" if self.inside && self.ids.len() <= MAX_SLIDES => {
                self.ids.extend(attribute(element, "id", true));
            }
            _ => {}
        }
    }

    fn end(&mut self, name: &str) {
        if name == "sldIdLst" {
            self.inside = false;
        }
    }

    fn text(&mut self, _: &str) {}
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

/// The packages the tests build, shared with the integration tests.
#[cfg(test)]
#[path = "../../tests/support/office.rs"]
#[allow(dead_code)]
mod fixture;

#[cfg(test)]
mod tests {
    use super::fixture::{self, RawEntry};
    use super::*;
    use crate::page::{extract, PageKind, PageRead};
    use std::time::{Duration, Instant};

    const DOCX: &str = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";
    const PPTX: &str = "application/vnd.openxmlformats-officedocument.presentationml.presentation";
    const XLSX: &str = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";

    fn page(content_type: &str, bytes: &[u8]) -> crate::page::Page {
        match extract(Some(content_type), bytes, false) {
            PageRead::Read(page) => page,
            unreadable => panic!("{unreadable:?}"),
        }
    }

    fn reason(content_type: &str, bytes: &[u8]) -> String {
        match extract(Some(content_type), bytes, false) {
            PageRead::Unreadable(reason) => reason,
            read => panic!("read: {read:?}"),
        }
    }

    #[test]
    fn a_docx_is_read_paragraph_by_paragraph() {
        let docx = fixture::docx(&[
            "Tides follow the Moon.",
            "",
            "  Two high   tides a day & <one> \"low\".",
        ]);
        let page = page(DOCX, &docx);
        assert_eq!(page.kind, PageKind::Office);
        assert_eq!(page.kind.as_str(), "office");
        assert_eq!(
            page.text,
            "Tides follow the Moon.\n\nTwo high tides a day & <one> \"low\"."
        );
        assert_eq!(page.title, None);
        assert!(!page.truncated);
    }

    #[test]
    fn a_docx_title_comes_from_its_core_properties() {
        let docx = fixture::docx_titled(" Tidal \n friction ", &["Body text."]);
        assert_eq!(page(DOCX, &docx).title.as_deref(), Some("Tidal friction"));
    }

    #[test]
    fn docx_table_rows_are_blocks_of_cells() {
        let docx = fixture::docx_with_table(
            &["Heights by port:"],
            &[
                &["Port", "High", "Low"],
                &["Brest", "", "1.2 m"],
                &["Saint-Malo", "12.0 m"],
            ],
        );
        assert_eq!(
            page(DOCX, &docx).text,
            "Heights by port:\n\nPort | High | Low\n\nBrest | 1.2 m\n\nSaint-Malo | 12.0 m"
        );
    }

    #[test]
    fn word_runs_tabs_breaks_notes_and_nested_tables() {
        let w = r#"xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main""#;
        let document = format!(
            r#"<w:document {w}><w:body>
            <w:p><w:r><w:t>Split</w:t></w:r><w:r><w:t xml:space="preserve"> ru</w:t></w:r><w:r><w:t>n</w:t><w:tab/><w:t>tab</w:t><w:br/><w:t>next line</w:t></w:r></w:p>
            <w:p><w:r><w:delText>deleted</w:delText><w:instrText>PAGE</w:instrText><w:t>kept &amp; &#233;</w:t></w:r></w:p>
            <w:tbl><w:tr><w:tc><w:p><w:r><w:t>outer</w:t></w:r></w:p>
              <w:tbl><w:tr><w:tc><w:p><w:r><w:t>in 1</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>in 2</w:t></w:r></w:p></w:tc></w:tr></w:tbl>
            </w:tc><w:tc><w:p><w:r><w:t>right</w:t></w:r></w:p><w:p><w:r><w:t>cell</w:t></w:r></w:p></w:tc></w:tr></w:tbl>
            <w:p><mc:AlternateContent xmlns:mc="m"><mc:Choice><w:t>box</w:t></mc:Choice><mc:Fallback><w:t>box again</w:t></mc:Fallback></mc:AlternateContent></w:p>
            </w:body></w:document>"#
        );
        let footnotes = format!(
            r#"<w:footnotes {w}><w:footnote w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p></w:footnote><w:footnote w:id="1"><w:p><w:r><w:t>A footnote.</w:t></w:r></w:p></w:footnote></w:footnotes>"#
        );
        let docx = fixture::zip_parts(&[
            ("word/document.xml", document.as_bytes()),
            ("word/footnotes.xml", footnotes.as_bytes()),
        ]);
        assert_eq!(
            page("application/octet-stream", &docx).text,
            "Split run tab\n\nnext line\n\nkept & é\n\nouter in 1 | in 2 | right cell\n\nbox\n\nA footnote."
        );
    }

    #[test]
    fn a_pptx_is_read_slide_by_slide() {
        let pptx = fixture::pptx(&[
            &["Tides", "Why the sea rises & falls"],
            &[],
            &["The Moon pulls", "", "Twice a day"],
        ]);
        let page = page(PPTX, &pptx);
        assert_eq!(page.kind, PageKind::Office);
        assert_eq!(
            page.text,
            "Tides\n\nWhy the sea rises & falls\n\nThe Moon pulls\n\nTwice a day"
        );
    }

    #[test]
    fn slides_follow_the_presentation_order_and_carry_their_notes() {
        let p = r#"xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships""#;
        let rel = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
        let slide = |text: &str| {
            format!(
                r#"<p:sld {p}><p:cSld><p:spTree><p:sp><p:txBody><a:p><a:r><a:t>{text}</a:t></a:r><a:br/><a:r><a:t>more</a:t></a:r><a:fld type="slidenum"><a:t>9</a:t></a:fld></a:p></p:txBody></p:sp></p:spTree></p:cSld></p:sld>"#
            )
        };
        let presentation = format!(
            r#"<p:presentation {p}><p:sldIdLst><p:sldId id="256" r:id="rId7"/><p:sldId id="257" r:id="rId2"/></p:sldIdLst></p:presentation>"#
        );
        let rels = format!(
            r#"<Relationships xmlns="x"><Relationship Id="rId2" Type="{rel}/slide" Target="slides/slide1.xml"/><Relationship Id="rId7" Type="{rel}/slide" Target="/ppt/slides/slide2.xml"/><Relationship Id="rId9" Type="{rel}/hyperlink" Target="https://example.com/" TargetMode="External"/></Relationships>"#
        );
        let slide_rels = format!(
            r#"<Relationships xmlns="x"><Relationship Id="rId1" Type="{rel}/notesSlide" Target="../notesSlides/notesSlide4.xml"/></Relationships>"#
        );
        let notes = format!(
            r#"<p:notes {p}><p:cSld><p:spTree><p:sp><p:txBody><a:p><a:r><a:t>Say it slowly.</a:t></a:r></a:p></p:txBody></p:sp></p:spTree></p:cSld></p:notes>"#
        );
        let (first, second) = (slide("First"), slide("Second"));
        let pptx = fixture::zip_parts(&[
            ("ppt/presentation.xml", presentation.as_bytes()),
            ("ppt/_rels/presentation.xml.rels", rels.as_bytes()),
            ("ppt/slides/slide1.xml", second.as_bytes()),
            ("ppt/slides/slide2.xml", first.as_bytes()),
            ("ppt/slides/_rels/slide1.xml.rels", slide_rels.as_bytes()),
            ("ppt/notesSlides/notesSlide4.xml", notes.as_bytes()),
        ]);
        assert_eq!(
            page(PPTX, &pptx).text,
            "First\n\nmore\n\nSecond\n\nmore\n\nSay it slowly."
        );
        // Without the list, slides go by their number (10 after 9, not after 1).
        let numbered = fixture::zip_parts(&[
            (
                "ppt/presentation.xml",
                format!("<p:presentation {p}/>").as_bytes(),
            ),
            ("ppt/slides/slide10.xml", slide("Ten").as_bytes()),
            ("ppt/slides/slide9.xml", slide("Nine").as_bytes()),
            ("ppt/slides/slide1.xml", slide("One").as_bytes()),
        ]);
        assert_eq!(
            page(PPTX, &numbered).text,
            "One\n\nmore\n\nNine\n\nmore\n\nTen\n\nmore"
        );
    }

    #[test]
    fn an_xlsx_is_read_row_by_row() {
        let xlsx = fixture::xlsx(&[
            &["Port", "Height (m)", "Note"],
            &["Brest", "7.5", ""],
            &["", "", ""],
            &["Saint-Malo", "12", "Highest & <busiest>"],
            &["Brest", "-0.25"],
        ]);
        let page = page(XLSX, &xlsx);
        assert_eq!(page.kind, PageKind::Office);
        assert_eq!(
            page.text,
            "Port | Height (m) | Note\n\nBrest | 7.5\n\nSaint-Malo | 12 | Highest & <busiest>\n\nBrest | -0.25"
        );
    }

    #[test]
    fn excel_cell_types_sheets_and_order() {
        let s = r#"xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships""#;
        let rel = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
        let workbook = format!(
            r#"<workbook {s}><sheets><sheet name="Later" sheetId="1" r:id="rId1"/><sheet name="Secret" sheetId="3" state="hidden" r:id="rId3"/><sheet name="Summary" sheetId="2" r:id="rId2"/></sheets></workbook>"#
        );
        let rels = format!(
            r#"<Relationships xmlns="x"><Relationship Id="rId1" Type="{rel}/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="{rel}/worksheet" Target="worksheets/sheet2.xml"/><Relationship Id="rId3" Type="{rel}/worksheet" Target="worksheets/sheet3.xml"/><Relationship Id="rId4" Type="{rel}/sharedStrings" Target="sharedStrings.xml"/></Relationships>"#
        );
        let strings = format!(
            r#"<sst {s}><si><t>plain</t></si><si><r><t>ri</t></r><r><rPr><b/></rPr><t xml:space="preserve">ch </t></r><rPh><t>ふりがな</t></rPh></si></sst>"#
        );
        let sheet1 = format!(
            r#"<worksheet {s}><sheetData><row r="1"><c r="A1" t="s"><v>1</v></c><c r="B1" t="inlineStr"><is><t>inline</t></is></c><c r="C1" t="str"><f>A1&amp;"x"</f><v>formula result</v></c><c r="D1" t="b"><v>1</v></c><c r="E1" t="b"><v>0</v></c><c r="F1"><v>3.14</v></c><c r="G1" t="s"><v>99</v></c><c r="H1" s="1"/></row></sheetData></worksheet>"#
        );
        let sheet2 = format!(
            r#"<worksheet {s}><sheetData><row r="1"><c r="A1" t="s"><v>0</v></c></row></sheetData></worksheet>"#
        );
        let sheet3 = format!(
            r#"<worksheet {s}><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>hidden</t></is></c></row></sheetData></worksheet>"#
        );
        let xlsx = fixture::zip_parts(&[
            ("xl/workbook.xml", workbook.as_bytes()),
            ("xl/_rels/workbook.xml.rels", rels.as_bytes()),
            ("xl/sharedStrings.xml", strings.as_bytes()),
            ("xl/worksheets/sheet1.xml", sheet1.as_bytes()),
            ("xl/worksheets/sheet2.xml", sheet2.as_bytes()),
            ("xl/worksheets/sheet3.xml", sheet3.as_bytes()),
        ]);
        assert_eq!(
            page("application/octet-stream", &xlsx).text,
            "Later\n\nrich | inline | formula result | TRUE | FALSE | 3.14\n\nSummary\n\nplain"
        );
    }

    #[test]
    fn variant_types_and_untyped_packages_are_recognised() {
        let docx = fixture::docx(&["Words."]);
        for content_type in [
            "application/vnd.ms-word.document.macroEnabled.12",
            "application/vnd.openxmlformats-officedocument.wordprocessingml.template",
            "application/octet-stream",
            "binary/octet-stream",
            "application/zip",
        ] {
            assert_eq!(page(content_type, &docx).text, "Words.", "{content_type}");
        }
        assert_eq!(
            extract(None, &docx, false).page().map(|p| p.kind),
            Some(PageKind::Office)
        );
        let pptx = fixture::pptx(&[&["Slide words."]]);
        let xlsx = fixture::xlsx(&[&["Cell words."]]);
        assert_eq!(page("application/unknown", &pptx).text, "Slide words.");
        assert_eq!(page("application/octet-stream", &xlsx).text, "Cell words.");
        assert_eq!(
            page("application/vnd.ms-excel.sheet.macroEnabled.12", &xlsx).text,
            "Cell words."
        );
        // Served as the wrong Office type, the parts decide.
        assert_eq!(page(DOCX, &xlsx).text, "Cell words.");
    }

    #[test]
    fn other_zips_and_legacy_formats_are_not_read() {
        let zip = fixture::zip_parts(&[("notes.txt", b"not an office file".as_slice())]);
        assert_eq!(
            reason("application/octet-stream", &zip),
            "can't read this kind of page (application/octet-stream)"
        );
        assert_eq!(
            reason("application/zip", &zip),
            "can't read this kind of page (application/zip)"
        );
        assert_eq!(
            reason(DOCX, &zip),
            "the .docx file could not be read (it is not a Word document)"
        );
        for legacy in [
            "application/msword",
            "application/vnd.ms-excel",
            "application/vnd.ms-powerpoint",
        ] {
            let mut ole = COMPOUND_FILE.to_vec();
            ole.extend([0; 512]);
            assert_eq!(
                reason(legacy, &ole),
                format!("can't read this kind of page ({legacy})")
            );
        }
        let mut ole = COMPOUND_FILE.to_vec();
        ole.extend([0; 512]);
        assert_eq!(
            reason(XLSX, &ole),
            "the .xlsx file could not be read (it is password-protected, or in the .xls format)"
        );
        assert_eq!(
            reason(PPTX, b"<html>not a deck</html>"),
            "the .pptx file could not be read (it is not an Office Open XML file)"
        );
    }

    #[test]
    fn a_package_cut_at_the_size_cap_is_not_read() {
        let docx = fixture::docx(&["Words."]);
        let half = &docx[..docx.len() / 2];
        let typed = extract(Some(DOCX), half, true);
        assert_eq!(
            typed.unreadable_reason(),
            Some("the .docx file is larger than the size limit, and an Office file can't be read in part")
        );
        let untyped = extract(Some("application/octet-stream"), half, true);
        assert_eq!(
            untyped.unreadable_reason(),
            Some("the Office file is larger than the size limit, and an Office file can't be read in part")
        );
        let damaged = extract(Some("application/octet-stream"), half, false);
        assert_eq!(
            damaged.unreadable_reason(),
            Some("the Office file could not be read (it is damaged, or not a zip file)")
        );
    }

    #[test]
    fn packages_without_text_say_so() {
        assert_eq!(
            reason(DOCX, &fixture::docx(&[])),
            "the document has no readable text"
        );
        assert_eq!(
            reason(PPTX, &fixture::pptx(&[&[], &[""]])),
            "the presentation has no readable text"
        );
        assert_eq!(
            reason(XLSX, &fixture::xlsx(&[&["", ""]])),
            "the spreadsheet has no readable text"
        );
    }

    #[test]
    fn damaged_packages_are_unreadable_or_partial_never_a_panic() {
        let docx = fixture::docx(&["Some words here.", "And more words."]);
        // Flipped bytes all through the file.
        for step in [7, 13, 101] {
            let mut broken = docx.clone();
            for i in (0..broken.len()).step_by(step) {
                broken[i] ^= 0x5a;
            }
            let _ = extract(Some(DOCX), &broken, false);
            let _ = extract(Some("application/octet-stream"), &broken, false);
        }
        // Cut anywhere, not marked truncated.
        for end in (0..docx.len()).step_by(37) {
            let read = extract(Some(DOCX), &docx[..end], false);
            assert!(read.unreadable_reason().is_some(), "{end}: {read:?}");
        }
        // The document part's deflate data damaged in its middle.
        let text: String = (0..20_000u32)
            .map(|i| format!("w{} ", i * 7919 % 10_007))
            .collect();
        let long = fixture::docx(&[&text]);
        let data = {
            let mut zip = ZipArchive::new(Cursor::new(long.as_slice())).expect("zip");
            let part = zip.by_name("word/document.xml").expect("part");
            let start = part.data_start().expect("data start") as usize;
            start..start + part.compressed_size() as usize
        };
        let mut broken = long.clone();
        let middle = (data.start + data.end) / 2;
        for b in &mut broken[middle..middle + 64] {
            *b = !*b;
        }
        let read = extract(Some(DOCX), &broken, false);
        if let Some(page) = read.page() {
            assert!(page.truncated, "{read:?}");
        }
    }

    #[test]
    fn unclosed_and_malformed_xml_keeps_what_it_can() {
        let w = r#"xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main""#;
        let cases: [(&str, Option<&str>); 5] = [
            (
                "<w:document W><w:body><w:p><w:r><w:t>Unclosed to the end",
                Some("Unclosed to the end"),
            ),
            (
                "<w:document W><w:body><w:p><w:r><w:t>Before</w:t></w:r></w:p><w:p><w:t>bad <<<< & markup",
                Some("Before"),
            ),
            ("<w:document W><w:tbl><w:tr><w:tc><w:t>cell</w:t></w:tbl>", Some("cell")),
            ("</w:p></w:tc></w:tr><w:t>stray</w:t></w:p>", Some("stray")),
            ("\u{0}\u{1}not xml at all <<<", None),
        ];
        for (xml, want) in cases {
            let xml = xml.replace(" W>", &format!(" {w}>"));
            let docx = fixture::zip_parts(&[("word/document.xml", xml.as_bytes())]);
            let read = extract(Some(DOCX), &docx, false);
            match want {
                Some(want) => assert!(
                    read.page().is_some_and(|p| p.text.contains(want)),
                    "{xml}: {read:?}"
                ),
                None => assert!(read.unreadable_reason().is_some(), "{xml}: {read:?}"),
            }
        }
    }

    #[test]
    fn encrypted_entries_are_unreadable() {
        let xml =
            b"<w:document><w:body><w:p><w:r><w:t>secret</w:t></w:r></w:p></w:body></w:document>";
        let mut entry = RawEntry::stored("word/document.xml", xml);
        entry.flags = 1;
        let zip = fixture::raw_zip(&[entry]);
        assert_eq!(
            reason("application/octet-stream", &zip),
            "the .docx file could not be read (it is encrypted)"
        );
    }

    #[test]
    fn a_zip_bomb_is_cut_off_quickly() {
        let started = Instant::now();
        // 400 MB of empty paragraphs: no text, so only the byte caps stop it.
        let markup = fixture::docx_bomb("<w:p/>", 400 << 20);
        assert!(markup.len() < 4 << 20, "{}", markup.len());
        let built = started.elapsed();
        let read = extract(Some(DOCX), &markup, false);
        assert_eq!(
            read.unreadable_reason(),
            Some("the document has no readable text"),
            "{read:?}"
        );
        // 400 MB of words: the text cap stops it.
        let words =
            fixture::docx_bomb("<w:p><w:r><w:t>tide moon sea </w:t></w:r></w:p>", 400 << 20);
        let read = extract(Some("application/octet-stream"), &words, false);
        let page = read.page().unwrap_or_else(|| panic!("{read:?}"));
        assert!(page.truncated);
        assert!(page.text.chars().count() <= crate::page::MAX_TEXT_CHARS);
        assert!(page.text.starts_with("tide moon sea\n\ntide moon sea"));
        // One 400 MB stretch of bare text, a single XML event: the part's byte cap
        // bounds it.
        let run = fixture::docx_bomb("tide moon sea ", 400 << 20);
        let read = extract(Some(DOCX), &run, false);
        assert!(read.unreadable_reason().is_some() || read.page().is_some_and(|p| p.truncated));
        let read_time = started.elapsed() - built;
        assert!(read_time < Duration::from_secs(60), "{read_time:?}");
    }

    #[test]
    fn too_many_entries_are_refused_and_many_are_fine() {
        let docx = |extra: usize| {
            let xml = b"<w:document><w:body><w:p><w:r><w:t>Found it.</w:t></w:r></w:p></w:body></w:document>";
            let mut entries: Vec<RawEntry> = (0..extra)
                .map(|i| RawEntry::stored(&format!("word/media/image{i}.png"), b"png"))
                .collect();
            entries.push(RawEntry::stored("word/document.xml", xml));
            fixture::raw_zip(&entries)
        };
        assert_eq!(page(DOCX, &docx(5_000)).text, "Found it.");
        let started = Instant::now();
        assert_eq!(
            reason(DOCX, &docx(MAX_ENTRIES)),
            "the .docx file could not be read (it holds more than 10000 parts)"
        );
        assert!(started.elapsed() < Duration::from_secs(10));
        // Untyped, its first entry shows it for an Office file, which can't be opened.
        assert_eq!(
            reason("application/octet-stream", &docx(MAX_ENTRIES)),
            "the Office file could not be read (it holds more than 10000 parts)"
        );
    }

    #[test]
    fn slide_and_row_caps_mark_the_page_truncated() {
        let slides: Vec<[&str; 1]> = (0..MAX_SLIDES + 5).map(|_| ["Same slide."]).collect();
        let slides: Vec<&[&str]> = slides.iter().map(|s| s.as_slice()).collect();
        let page = page(PPTX, &fixture::pptx(&slides));
        assert!(page.truncated);
        assert_eq!(page.text.matches("Same slide.").count(), MAX_SLIDES);
    }

    #[test]
    fn relationship_targets_resolve_to_package_paths() {
        assert_eq!(resolve("ppt", "slides/slide1.xml"), "ppt/slides/slide1.xml");
        assert_eq!(
            resolve("ppt/slides", "../notesSlides/n.xml"),
            "ppt/notesSlides/n.xml"
        );
        assert_eq!(resolve("ppt/slides", "/ppt/media/a.png"), "ppt/media/a.png");
        assert_eq!(resolve("", "word/document.xml"), "word/document.xml");
        assert_eq!(resolve("", "../../../x.xml"), "x.xml");
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        /// Whatever a package's bytes become, reading it never panics.
        #[test]
        fn damaged_packages_never_panic(
            flips in proptest::collection::vec((0usize..4096, proptest::prelude::any::<u8>()), 1..16),
            cut in 0usize..4096,
        ) {
            let mut bytes = fixture::xlsx(&[&["a", "1"], &["b & c", "2.5"]]);
            for (at, value) in flips {
                let at = at % bytes.len();
                bytes[at] = value;
            }
            bytes.truncate(bytes.len() - cut % bytes.len());
            for content_type in [XLSX, DOCX, "application/octet-stream", "application/zip"] {
                let _ = extract(Some(content_type), &bytes, false);
                let _ = extract(Some(content_type), &bytes, true);
            }
        }
    }
}
