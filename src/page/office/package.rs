//! The zip package, read without trusting it: its entry names, each part inflated
//! through [`Read::take`] within [`MAX_PART_BYTES`] and what is left of the package's
//! [`MAX_TOTAL_BYTES`], its XML walked event by event through a [`Handler`], the
//! relationship parts that tie the parts together, and the core properties' title.

use super::{MAX_ENTRIES, MAX_PART_BYTES, MAX_RELATIONSHIPS, MAX_TOTAL_BYTES};
use crate::page::MAX_TITLE_CHARS;
use quick_xml::escape::resolve_predefined_entity;
use quick_xml::events::{BytesStart, Event};
use quick_xml::{Reader, XmlVersion};
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Seek};
use zip::result::ZipError;
use zip::ZipArchive;

/// A zip error in people's words.
pub(super) fn zip_reason(error: &ZipError) -> &'static str {
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

/// The package's entry names, lower-cased (part names are case-insensitive), and where
/// each is.
pub(super) struct Names(HashMap<String, usize>);

impl Names {
    pub(super) fn of<R: Read + Seek>(zip: &ZipArchive<R>) -> Names {
        let mut names = HashMap::with_capacity(zip.len().min(MAX_ENTRIES));
        for index in 0..zip.len().min(MAX_ENTRIES) {
            if let Some(Ok(name)) = zip.name_for_index(index) {
                names.entry(name.to_ascii_lowercase()).or_insert(index);
            }
        }
        Names(names)
    }

    pub(super) fn has(&self, part: &str) -> bool {
        self.0.contains_key(&part.to_ascii_lowercase())
    }

    fn index(&self, part: &str) -> Option<usize> {
        self.0.get(&part.to_ascii_lowercase()).copied()
    }

    /// The parts named `{prefix}{n}{suffix}`, by `n`, at most `most`.
    pub(super) fn numbered(&self, prefix: &str, suffix: &str, most: usize) -> Vec<String> {
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
pub(super) struct Package<R> {
    zip: ZipArchive<R>,
    pub(super) names: Names,
    /// Bytes that may still be inflated.
    budget: u64,
    /// Some part was not read to its end (a cap, or damage).
    pub(super) cut: bool,
    /// Some part's XML or compressed data was damaged.
    pub(super) damaged: bool,
}

/// One relationship of a part: its id, its type's last word (`slide`,
/// `officeDocument`), and the package path it points at.
#[derive(Debug, Clone)]
pub(super) struct Relationship {
    pub(super) id: String,
    pub(super) kind: String,
    pub(super) target: String,
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
    pub(super) fn new(zip: ZipArchive<R>) -> Self {
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
    pub(super) fn spent(&mut self) -> bool {
        if self.budget == 0 {
            self.cut = true;
        }
        self.budget == 0
    }

    /// Reads the part at `path` through `handler`; the part must be there and open.
    pub(super) fn read_required(
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
    pub(super) fn read_optional(&mut self, path: &str, skip: &[&str], handler: &mut dyn Handler) {
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
    pub(super) fn relationships(&mut self, path: &str) -> Vec<Relationship> {
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
pub(super) trait Handler {
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
pub(super) fn attribute(element: &BytesStart<'_>, name: &str, prefixed: bool) -> Option<String> {
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
pub(super) fn resolve(folder: &str, target: &str) -> String {
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
pub(super) struct Title {
    inside: bool,
    pub(super) text: String,
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
