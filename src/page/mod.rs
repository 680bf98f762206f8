//! What a cited page says, as plain text: the bytes a server sent (already fetched,
//! already size-capped) turned into the page's main text, or a short sentence saying
//! why they cannot be read. Pure: no network, no logging, no panics on any input.
//!
//! [`extract`] picks the reader by the `Content-Type` (or, when the type says nothing
//! useful, by the first bytes): HTML goes through `html` (html5ever, boilerplate
//! dropped, the main article kept), plain text and Markdown through `text`, CSV (and
//! TSV) through `csv`, PDF through `pdf`, Word, PowerPoint and Excel files (Office Open
//! XML: .docx, .pptx, .xlsx) through `office`. An untyped zip is read when its parts
//! show it is an Office file. Bytes are decoded from the charset the page declares (see
//! `charset`).
//! Anything else, and binary data that merely claims to be text, is
//! [`PageRead::Unreadable`]. The text is capped at [`MAX_TEXT_CHARS`].
//!
//! Every page read also carries its [`PageSignals`] (`signals`): what its markup (for
//! HTML, seen during the reader's own walk of the document) and its text show about
//! its author, dates, references, corrections, advertising and length.

mod charset;
mod csv;
mod html;
mod office;
mod pdf;
mod signals;
mod text;

pub use signals::text_signals;

use crate::model::{PageSignals, ReadVia};
use std::fmt;

/// Most characters of text kept from one page; the rest is dropped and the page is
/// marked truncated.
pub const MAX_TEXT_CHARS: usize = 200_000;

/// Most characters of a title kept.
pub const MAX_TITLE_CHARS: usize = 300;

/// The reason given for a page with nothing to read.
pub const NO_TEXT: &str = "the page has no readable text";

/// What kind of document a page was read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PageKind {
    /// An HTML (or XHTML) page.
    Html,
    /// Plain text, Markdown and other text formats, read as they are.
    Text,
    /// A PDF document.
    Pdf,
    /// A Word, PowerPoint or Excel file (Office Open XML: .docx, .pptx, .xlsx).
    Office,
}

impl PageKind {
    /// `html`, `text`, `pdf` or `office`.
    pub fn as_str(self) -> &'static str {
        match self {
            PageKind::Html => "html",
            PageKind::Text => "text",
            PageKind::Pdf => "pdf",
            PageKind::Office => "office",
        }
    }
}

impl fmt::Display for PageKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The readable text of one page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    /// Where the page was read from after redirects; `None` when the bytes did not come
    /// from the network (set by the fetcher, not by [`extract`]).
    pub final_url: Option<String>,
    /// The page's title (`<title>`, else `og:title`), whitespace collapsed.
    pub title: Option<String>,
    /// The main text: paragraphs separated by `"\n\n"`, whitespace inside each collapsed
    /// to single spaces, never empty.
    pub text: String,
    /// What the page was read from.
    pub kind: PageKind,
    /// Not all of the page is in `text`: the body passed the fetch's size cap, or the
    /// text passed [`MAX_TEXT_CHARS`].
    pub truncated: bool,
    /// What the page shows about itself (author, dates, references, corrections, ad
    /// slots, scholarly metadata, word count), from its markup and from `text`.
    pub signals: PageSignals,
    /// How it was read: from the web ([`extract`] says so), or with sourcebot's own
    /// credentials (set by the reader that used them), which limits where its words
    /// may be quoted.
    pub read_via: ReadVia,
}

/// A page read, or why it could not be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PageRead {
    /// The page's text.
    Read(Page),
    /// Why there is no text, as a short sentence for people: "the server answered
    /// 404", "can't read this kind of page (image/png)", "the page has no readable
    /// text".
    Unreadable(String),
}

impl PageRead {
    /// The page, if it was read.
    pub fn page(&self) -> Option<&Page> {
        match self {
            PageRead::Read(page) => Some(page),
            PageRead::Unreadable(_) => None,
        }
    }

    /// Why the page could not be read, if it could not.
    pub fn unreadable_reason(&self) -> Option<&str> {
        match self {
            PageRead::Read(_) => None,
            PageRead::Unreadable(reason) => Some(reason),
        }
    }

    /// An unreadable page, for `reason`.
    pub fn unreadable(reason: impl Into<String>) -> PageRead {
        PageRead::Unreadable(reason.into())
    }

    /// The same read, said to have been read `via` (a page's text is otherwise taken
    /// to come from the web).
    pub fn read_via(self, via: ReadVia) -> PageRead {
        match self {
            PageRead::Read(page) => PageRead::Read(Page {
                read_via: via,
                ..page
            }),
            unreadable => unreadable,
        }
    }
}

/// The reason given for a document with nothing to read.
pub const NO_DOCUMENT_TEXT: &str = "the document has no text";

/// A document whose text a product's API gave (already made plain: blocks separated by
/// `"\n\n"`), read `via` that product: capped at [`MAX_TEXT_CHARS`] like a page, with
/// the signals its text shows; [`NO_DOCUMENT_TEXT`] when there is none. `truncated`
/// says the text is only the start of the document (a paginated API stopped at its
/// cap).
pub fn document(
    text: String,
    title: Option<String>,
    truncated: bool,
    read_via: ReadVia,
) -> PageRead {
    let (text, cut) = cap_text(text);
    if text.trim().is_empty() {
        return PageRead::unreadable(NO_DOCUMENT_TEXT);
    }
    PageRead::Read(Page {
        final_url: None,
        title: title.filter(|t| !t.trim().is_empty()),
        signals: text_signals(&text),
        text,
        kind: PageKind::Text,
        truncated: truncated || cut,
        read_via,
    })
}

/// How the bytes are to be read, decided from the type and the first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Html,
    Text,
    /// Delimited records, separated by this byte.
    Csv(u8),
    Pdf,
    /// An Office package, of this kind when the type or the parts say.
    Office(Option<office::Kind>),
}

/// Reads `bytes`, served with `content_type` (the header's value, parameters
/// included), into a [`Page`]. `truncated` says the bytes are only the start of the
/// body (the fetch stopped at its size cap). Never panics.
pub fn extract(content_type: Option<&str>, bytes: &[u8], truncated: bool) -> PageRead {
    let (mime, charset) = parse_content_type(content_type.unwrap_or_default());
    let format = match format_of(&mime, bytes) {
        Ok(format) => format,
        Err(reason) => return PageRead::Unreadable(reason),
    };
    let read = match format {
        Format::Html => read_html(bytes, charset.as_deref()),
        Format::Text => read_text(bytes, charset.as_deref()),
        Format::Csv(delimiter) => read_csv(bytes, charset.as_deref(), &mime, delimiter),
        Format::Pdf => pdf::read(bytes, truncated).map(|text| Read {
            title: None,
            text,
            kind: PageKind::Pdf,
            cut_early: false,
            markup: None,
        }),
        Format::Office(kind) => office::read(bytes, truncated, kind).map(|office| Read {
            title: office.title,
            text: office.text,
            kind: PageKind::Office,
            cut_early: office.cut,
            markup: None,
        }),
    };
    let read = match read {
        Ok(read) => read,
        Err(reason) => return PageRead::Unreadable(reason),
    };
    let (text, cut) = cap_text(read.text);
    if text.is_empty() {
        return PageRead::unreadable(NO_TEXT);
    }
    let signals = signals::read(read.markup.as_ref(), &text);
    PageRead::Read(Page {
        final_url: None,
        title: read.title,
        text,
        kind: read.kind,
        truncated: truncated || cut || read.cut_early,
        signals,
        read_via: ReadVia::Web,
    })
}

/// What a reader makes of the bytes.
struct Read {
    title: Option<String>,
    text: String,
    kind: PageKind,
    /// The reader stopped before the end of the bytes.
    cut_early: bool,
    /// What the markup shows (HTML only).
    markup: Option<signals::Markup>,
}

fn read_html(bytes: &[u8], charset: Option<&str>) -> Result<Read, String> {
    let source = charset::decode_html(bytes, charset);
    if looks_binary(&source) {
        return Err(binary("text/html"));
    }
    let extracted = html::extract(&source);
    if extracted.text.is_empty() {
        return Err(if extracted.scripted {
            format!("{NO_TEXT} (it may need JavaScript to show any)")
        } else {
            NO_TEXT.to_string()
        });
    }
    Ok(Read {
        title: extracted.title,
        text: extracted.text,
        kind: PageKind::Html,
        cut_early: extracted.cut,
        markup: Some(extracted.markup),
    })
}

fn read_text(bytes: &[u8], charset: Option<&str>) -> Result<Read, String> {
    let source = charset::decode_text(bytes, charset);
    if looks_binary(&source) {
        return Err(binary("text/plain"));
    }
    Ok(Read {
        title: None,
        text: text::paragraphs(&source),
        kind: PageKind::Text,
        cut_early: false,
        markup: None,
    })
}

fn read_csv(
    bytes: &[u8],
    charset: Option<&str>,
    mime: &str,
    delimiter: u8,
) -> Result<Read, String> {
    let source = charset::decode_text(bytes, charset);
    if looks_binary(&source) {
        return Err(binary(mime));
    }
    let (text, cut) = csv::read(&source, delimiter);
    Ok(Read {
        title: None,
        text,
        kind: PageKind::Text,
        cut_early: cut,
        markup: None,
    })
}

fn binary(claimed: &str) -> String {
    format!("the page is binary data, not text (served as {claimed})")
}

/// The media type, lower-cased and without parameters, and the `charset` parameter.
fn parse_content_type(value: &str) -> (String, Option<String>) {
    let mut parts = value.split(';');
    let mime = parts.next().unwrap_or_default().trim().to_ascii_lowercase();
    let charset = parts.find_map(|param| {
        let (name, value) = param.split_once('=')?;
        if !name.trim().eq_ignore_ascii_case("charset") {
            return None;
        }
        let value = value.trim().trim_matches(['"', '\'']).trim();
        (!value.is_empty()).then(|| value.to_string())
    });
    (mime, charset)
}

/// Types that say nothing about the bytes: the first bytes decide.
const UNTYPED: [&str; 4] = [
    "",
    "application/octet-stream",
    "binary/octet-stream",
    "application/unknown",
];

/// Text types that are code or markup rather than prose.
const NOT_PROSE: [&str; 6] = [
    "text/css",
    "text/javascript",
    "text/ecmascript",
    "text/xml",
    "text/xsl",
    "text/x-javascript",
];

/// Types of comma-separated values.
const CSV: [&str; 4] = [
    "text/csv",
    "application/csv",
    "text/x-csv",
    "text/comma-separated-values",
];

/// Types of a zip, read when its parts show an Office file.
const ZIP: [&str; 2] = ["application/zip", "application/x-zip-compressed"];

/// How to read `bytes` served as `mime`, or why they cannot be read. The Office types
/// (and their macro-enabled and template variants) are read as Office files; the
/// older binary formats (.doc, .ppt, .xls) are not read.
fn format_of(mime: &str, bytes: &[u8]) -> Result<Format, String> {
    let cannot = || format!("can't read this kind of page ({mime})");
    let office = office::Kind::from_mime(mime);
    match mime {
        "text/html" | "application/xhtml+xml" => Ok(Format::Html),
        "application/pdf" | "application/x-pdf" => Ok(Format::Pdf),
        "text/tab-separated-values" => Ok(Format::Csv(b'\t')),
        _ if CSV.contains(&mime) => Ok(Format::Csv(b',')),
        _ if office.is_some() => Ok(Format::Office(office)),
        _ if ZIP.contains(&mime) => match office::sniff(bytes) {
            Some(office::Sniffed::Package(kind)) => Ok(Format::Office(Some(kind))),
            _ => Err(cannot()),
        },
        _ if UNTYPED.contains(&mime) => match sniff(bytes) {
            Some(format) => Ok(format),
            None if mime.is_empty() => Err("can't read this kind of page (no type given)".into()),
            None => Err(cannot()),
        },
        _ if mime.starts_with("text/") && !NOT_PROSE.contains(&mime) => Ok(Format::Text),
        _ => Err(cannot()),
    }
}

/// What the first bytes of an untyped body look like: a PDF, HTML, an Office package
/// (a zip whose parts, or first entry, show it), or plain text (UTF-8 without control
/// characters). Anything else is not guessed at.
fn sniff(bytes: &[u8]) -> Option<Format> {
    if let Some(sniffed) = office::sniff(bytes) {
        return Some(Format::Office(match sniffed {
            office::Sniffed::Package(kind) => Some(kind),
            office::Sniffed::Unopened => None,
        }));
    }
    let start = bytes.get(..1024).unwrap_or(bytes);
    let trimmed = start
        .strip_prefix(b"\xef\xbb\xbf")
        .unwrap_or(start)
        .trim_ascii_start();
    if trimmed.starts_with(b"%PDF-") {
        return Some(Format::Pdf);
    }
    let lower = trimmed
        .get(..trimmed.len().min(64))
        .unwrap_or_default()
        .to_ascii_lowercase();
    if [b"<!doctype html".as_slice(), b"<html", b"<head", b"<body"]
        .iter()
        .any(|tag| lower.starts_with(tag))
    {
        return Some(Format::Html);
    }
    // A cut inside a multi-byte character at the end of the sample is still text.
    let valid = match std::str::from_utf8(start) {
        Ok(text) => Some(text),
        Err(error) if error.error_len().is_none() => {
            std::str::from_utf8(&start[..error.valid_up_to()]).ok()
        }
        Err(_) => None,
    };
    valid
        .filter(|text| !text.is_empty() && !looks_binary(text))
        .map(|_| Format::Text)
}

/// Whether decoded "text" is really binary: more than 2 % of its characters (in its
/// first 64 KiB) are NULs, other control characters or decoding errors (U+FFFD).
fn looks_binary(text: &str) -> bool {
    let mut total = 0usize;
    let mut bad = 0usize;
    for c in text.chars().take(64 * 1024) {
        total += 1;
        let control = c.is_control() && !matches!(c, '\t' | '\n' | '\r' | '\x0c');
        if control || c == '\u{fffd}' {
            bad += 1;
        }
    }
    bad > 8 && bad * 50 > total
}

/// `text` cut to [`MAX_TEXT_CHARS`] (at a word boundary when there is one near), and
/// whether it was cut.
fn cap_text(text: String) -> (String, bool) {
    match text.char_indices().nth(MAX_TEXT_CHARS) {
        None => (text, false),
        Some((end, _)) => {
            let head = &text[..end];
            let cut = match head.rfind(char::is_whitespace) {
                Some(space) if end - space < 200 => &head[..space],
                _ => head,
            };
            (cut.trim_end().to_string(), true)
        }
    }
}

/// `text` with runs of whitespace as single spaces, trimmed.
pub(crate) fn collapse_whitespace(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for word in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// A title: whitespace collapsed, at most [`MAX_TITLE_CHARS`], `None` when empty.
fn clean_title(raw: &str) -> Option<String> {
    let title = collapse_whitespace(raw);
    if title.is_empty() {
        return None;
    }
    Some(match title.char_indices().nth(MAX_TITLE_CHARS) {
        Some((end, _)) => format!("{}…", title[..end].trim_end()),
        None => title,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(content_type: &str, bytes: &[u8]) -> PageRead {
        extract(Some(content_type), bytes, false)
    }

    fn reason(read: &PageRead) -> &str {
        read.unreadable_reason()
            .unwrap_or_else(|| panic!("read: {read:?}"))
    }

    #[test]
    fn types_pick_the_reader() {
        let html = read("text/html; charset=utf-8", b"<p>Hello <b>there</b></p>");
        assert_eq!(html.page().map(|p| p.kind), Some(PageKind::Html));
        assert_eq!(html.page().map(|p| p.text.as_str()), Some("Hello there"));
        let text = read("text/markdown", b"# Notes\n\nSome  text\nwrapped.\n");
        assert_eq!(text.page().map(|p| p.kind), Some(PageKind::Text));
        assert_eq!(
            text.page().map(|p| p.text.as_str()),
            Some("# Notes\n\nSome text wrapped.")
        );
        assert_eq!(
            reason(&read("image/png", b"\x89PNG\r\n")),
            "can't read this kind of page (image/png)"
        );
        assert_eq!(
            reason(&read("application/zip", b"PK\x03\x04")),
            "can't read this kind of page (application/zip)"
        );
        assert_eq!(
            reason(&read("text/css", b"p { color: red }")),
            "can't read this kind of page (text/css)"
        );
    }

    #[test]
    fn untyped_bodies_are_sniffed_and_binary_is_refused() {
        let html = extract(None, b"<!DOCTYPE html><title>T</title><p>Body</p>", false);
        assert_eq!(html.page().map(|p| p.kind), Some(PageKind::Html));
        let plain = extract(
            Some("application/octet-stream"),
            b"just words\n\nand more",
            false,
        );
        assert_eq!(plain.page().map(|p| p.kind), Some(PageKind::Text));
        let zip = [b'P', b'K', 3, 4, 0, 0, 0, 0, 0xff, 0xfe, 0, 0, 1, 2, 3, 4];
        let zip = zip.repeat(20);
        assert_eq!(
            reason(&read("application/octet-stream", &zip)),
            "can't read this kind of page (application/octet-stream)"
        );
        assert_eq!(
            reason(&extract(None, &zip, false)),
            "can't read this kind of page (no type given)"
        );
    }

    #[test]
    fn binary_served_as_text_is_unreadable_not_garbage() {
        let mut junk: Vec<u8> = (0..4096u32).map(|i| (i * 7919 % 251) as u8).collect();
        junk.extend_from_slice(&[0; 512]);
        for content_type in [
            "text/html",
            "text/plain; charset=utf-8",
            "text/html; charset=windows-1252",
        ] {
            let read = read(content_type, &junk);
            assert!(
                reason(&read).starts_with("the page is binary data"),
                "{content_type}: {read:?}"
            );
        }
    }

    #[test]
    fn empty_and_whitespace_pages_have_no_text() {
        assert_eq!(reason(&read("text/plain", b"  \n\n\t ")), NO_TEXT);
        assert_eq!(reason(&read("text/html", b"")), NO_TEXT);
    }

    #[test]
    fn long_text_is_capped_and_marked_truncated() {
        let long = "word ".repeat(MAX_TEXT_CHARS);
        let page = read("text/plain", long.as_bytes());
        let page = page.page().expect("page");
        assert!(page.truncated);
        assert!(page.text.chars().count() <= MAX_TEXT_CHARS);
        assert!(page.text.ends_with("word"), "cut mid-word");
        let short = read("text/plain", b"short");
        assert_eq!(short.page().map(|p| p.truncated), Some(false));
        let fetched_in_part = extract(Some("text/plain"), b"start of it", true);
        assert_eq!(fetched_in_part.page().map(|p| p.truncated), Some(true));
    }

    #[test]
    fn content_type_parameters_are_read() {
        assert_eq!(
            parse_content_type("Text/HTML ; Charset=\"Shift_JIS\""),
            ("text/html".to_string(), Some("Shift_JIS".to_string()))
        );
        assert_eq!(
            parse_content_type("text/plain;format=flowed"),
            ("text/plain".to_string(), None)
        );
        assert_eq!(parse_content_type(""), (String::new(), None));
    }

    #[test]
    fn titles_are_cleaned_and_capped() {
        assert_eq!(clean_title("  A \n title "), Some("A title".to_string()));
        assert_eq!(clean_title(" \n"), None);
        let long = clean_title(&"x".repeat(1000)).expect("title");
        assert_eq!(long.chars().count(), MAX_TITLE_CHARS + 1);
    }
}
