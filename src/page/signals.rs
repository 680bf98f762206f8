//! What a page shows about itself: the signals of care a reader looks for before
//! trusting it (who wrote it, when it was published and last updated, what it cites,
//! whether it corrects its mistakes, how much advertising it carries, whether it
//! presents itself as a scholarly article, how long it is), gathered into a
//! [`PageSignals`].
//!
//! Two things feed it. For HTML, [`Markup`] sees every node of the parsed document
//! during the one walk `html` already makes: meta tags (Open Graph, Highwire Press,
//! Dublin Core), JSON-LD, `<time>`, bylines, `rel=author`, reference lists, `<cite>`,
//! ad containers and ad-network scripts and frames. For every kind of page, [`read`]
//! then reads the main text: a byline and dated lines near the top, references
//! sections, DOIs and citation markers, correction notices, and the word count. What
//! the markup states wins over what the text suggests.
//!
//! Pure and bounded: no network, no logging, no panics; every count stops at
//! [`MAX_COUNT`], every scan is linear in its input, attributes are read only as far
//! as a date or a name can reach, and nothing of the page's words is kept but the
//! normalised dates.

mod words;

use crate::model::PageSignals;
use aho_corasick::AhoCorasick;
use ego_tree::{NodeId, NodeRef};
use regex::{Captures, Regex};
use scraper::node::Element;
use scraper::{ElementRef, Node};
use serde_json::Value;
use std::collections::{HashSet, VecDeque};
use std::sync::LazyLock;
use words::{
    AD_NETWORKS, AD_WORDS, AUTHOR_META, CORRECTION_OPENINGS, CORRECTION_PHRASES, DATE_FORMS, MONTH,
    NOT_NAMES, PUBLISHED_META, REFERENCE_HEADINGS, REFERENCE_WORDS, SCHOLARLY_META, STATE_PREFIXES,
    UPDATED_META, WEEKDAY,
};

/// Most ad slots and references counted on one page.
pub(super) const MAX_COUNT: usize = 10_000;

/// Characters at the top of the text searched for a byline and dates.
const HEAD_CHARS: usize = 2_000;

/// Characters of an attribute read for a date, a name or a link.
const ATTRIBUTE_CHARS: usize = 300;

/// JSON-LD blocks read per page, bytes read per block, and values visited per block.
const MAX_JSON_LD_BLOCKS: usize = 16;
const MAX_JSON_LD_BYTES: usize = 512 * 1024;
const MAX_JSON_LD_VALUES: usize = 10_000;

/// Byline elements looked into for a name before giving up.
const MAX_BYLINES: usize = 64;

fn regex(pattern: &str) -> Regex {
    Regex::new(pattern).expect("the signal patterns are valid")
}

/// A date written out, from the start of an attribute value.
static NAMED_DATE: LazyLock<Regex> = LazyLock::new(|| {
    regex(&format!(
        r"(?i)^{WEEKDAY}{}",
        DATE_FORMS.replace("MONTH", MONTH)
    ))
});

/// "Published May 4, 2023", "Last updated: 2023-05-04", "Posted on 4 May 2023".
static DATED_LINE: LazyLock<Regex> = LazyLock::new(|| {
    regex(&format!(
        r"(?i)\b(?P<kw>first\s+published|originally\s+published|published|posted|last\s+updated|updated|last\s+modified|modified|last\s+revised|revised)(?:\s+on)?\s*:?\s*(?:on\s+)?{WEEKDAY}{}",
        DATE_FORMS.replace("MONTH", MONTH)
    ))
});

/// A byline at the start of a paragraph: "By Jane Smith", "Written by A. Writer",
/// "Author: Ludwig van Beethoven". Two capitalised words at least.
static BYLINE: LazyLock<Regex> = LazyLock::new(|| {
    let name = r"\p{Lu}[\p{L}\p{M}'\x{2019}.\-]*";
    regex(&format!(
        r"^(?:(?:(?i:written|words|reported|story|text)\s+)?(?i:by)(?:\s*:\s*|\s+)|(?i:authors?)\s*:\s*)(?P<first>{name})(?:\s+(?i:van|von|de|der|den|da|di|du|del|della|la|le|bin|ibn|al|el)){{0,3}}\s+{name}"
    ))
});

/// A DOI (the Crossref pattern for modern DOIs).
static DOI: LazyLock<Regex> = LazyLock::new(|| regex(r"10\.[0-9]{4,9}/[-._;()/:A-Za-z0-9]+"));

/// A citation marker: `[12]`, `[1, 3]`, `[4–6]`.
static MARKER: LazyLock<Regex> =
    LazyLock::new(|| regex(r"\[([0-9]{1,3}(?:\s*[,\x{2013}-]\s*[0-9]{1,3}){0,20})\]"));

/// The number that opens a reference entry: `[3] ` or `3. `.
static ENTRY_NUMBER: LazyLock<Regex> =
    LazyLock::new(|| regex(r"(?:^|\s)(?:\[([0-9]{1,3})\]|([0-9]{1,3})\.)\s"));

static CORRECTIONS: LazyLock<AhoCorasick> = LazyLock::new(|| {
    AhoCorasick::builder()
        .ascii_case_insensitive(true)
        .build(CORRECTION_PHRASES)
        .expect("the correction phrases are valid")
});

/// Where a date was stated, the most explicit first: it decides between two dates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Origin {
    Meta,
    JsonLd,
    Time,
}

/// The best date found so far and where it came from.
#[derive(Debug, Default)]
struct Dated(Option<(Origin, String)>);

impl Dated {
    /// Keeps `raw` (normalised) unless a date from as good a place is already held.
    fn offer(&mut self, origin: Origin, raw: &str) {
        if self.0.as_ref().is_some_and(|(held, _)| *held <= origin) {
            return;
        }
        if let Some(date) = normalise_date(raw) {
            self.0 = Some((origin, date));
        }
    }

    fn date(&self) -> Option<String> {
        self.0.as_ref().map(|(_, date)| date.clone())
    }
}

/// What the markup of an HTML page shows, fed node by node in document order
/// ([`Markup::open`] on the way in, [`Markup::close`] on the way out).
#[derive(Debug, Default)]
pub(super) struct Markup {
    author: bool,
    published: Dated,
    updated: Dated,
    scholarly: bool,
    corrections: bool,
    ad_slots: usize,
    /// Items of reference lists.
    listed: usize,
    /// `<cite>` elements.
    cites: usize,
    /// The ad container being walked: what is inside it is the same slot.
    in_ad: Option<NodeId>,
    /// The reference list being walked.
    in_references: Option<NodeId>,
    /// The byline element being walked, waiting for a word.
    in_byline: Option<NodeId>,
    bylines: usize,
    json_ld_blocks: usize,
}

impl Markup {
    /// Sees `node` as the walk enters it.
    pub(super) fn open(&mut self, node: NodeRef<'_, Node>) {
        match node.value() {
            Node::Text(text)
                if self.in_byline.is_some() && text.chars().any(char::is_alphabetic) =>
            {
                self.author = true;
                self.in_byline = None;
            }
            Node::Element(element) => self.element(node, element),
            _ => {}
        }
    }

    /// Sees `node` as the walk leaves it.
    pub(super) fn close(&mut self, node: NodeRef<'_, Node>) {
        let id = Some(node.id());
        if self.in_ad == id {
            self.in_ad = None;
        }
        if self.in_references == id {
            self.in_references = None;
        }
        if self.in_byline == id {
            self.in_byline = None;
        }
    }

    fn element(&mut self, node: NodeRef<'_, Node>, element: &Element) {
        let name = element.name();
        match name {
            "meta" => self.meta(element),
            "script" if is_json_ld(element) => self.json_ld(node),
            "time" => self.time(element),
            "cite" => self.cites = (self.cites + 1).min(MAX_COUNT),
            "li" if self.in_references.is_some() => self.listed = (self.listed + 1).min(MAX_COUNT),
            "a" | "link" => self.link(element),
            _ => {}
        }
        if self.in_ad.is_none() && self.ad_slots < MAX_COUNT && is_ad(element) {
            self.ad_slots += 1;
            self.in_ad = Some(node.id());
        }
        if self.in_references.is_none()
            && matches!(name, "ol" | "ul" | "div" | "section")
            && names_any(element, &REFERENCE_WORDS)
        {
            self.in_references = Some(node.id());
        }
        if !self.author
            && self.in_byline.is_none()
            && self.bylines < MAX_BYLINES
            && is_byline(element)
        {
            self.bylines += 1;
            self.in_byline = Some(node.id());
        }
    }

    fn meta(&mut self, element: &Element) {
        let Some(content) = element.attr("content") else {
            return;
        };
        let keys = ["name", "property", "itemprop"]
            .into_iter()
            .filter_map(|attribute| element.attr(attribute))
            .flat_map(|keys| keys.split_ascii_whitespace().take(4));
        for key in keys {
            let is = |table: &[&str]| table.iter().any(|k| k.eq_ignore_ascii_case(key));
            if is(&AUTHOR_META) && plausible_name(content) {
                self.author = true;
            }
            if is(&PUBLISHED_META) {
                self.published.offer(Origin::Meta, content);
            }
            if is(&UPDATED_META) {
                self.updated.offer(Origin::Meta, content);
            }
            let identifier = ["dc.identifier", "dcterms.identifier"]
                .iter()
                .any(|k| k.eq_ignore_ascii_case(key));
            if is(&SCHOLARLY_META) || (identifier && DOI.is_match(prefix(content, ATTRIBUTE_CHARS)))
            {
                self.scholarly = true;
            }
        }
    }

    fn json_ld(&mut self, node: NodeRef<'_, Node>) {
        if self.json_ld_blocks >= MAX_JSON_LD_BLOCKS {
            return;
        }
        self.json_ld_blocks += 1;
        let Some(script) = ElementRef::wrap(node) else {
            return;
        };
        let mut source = String::new();
        for piece in script.text() {
            if source.len() + piece.len() > MAX_JSON_LD_BYTES {
                return;
            }
            source.push_str(piece);
        }
        // serde_json stops at 128 levels of nesting: a hostile block is an error.
        let Ok(value) = serde_json::from_str::<Value>(&source) else {
            return;
        };
        // Breadth first, so that the page's own entity speaks before its comments.
        let mut queue = VecDeque::from([&value]);
        let mut visited = 0;
        while let Some(value) = queue.pop_front() {
            visited += 1;
            if visited > MAX_JSON_LD_VALUES {
                break;
            }
            match value {
                Value::Array(items) => queue.extend(items),
                Value::Object(object) => {
                    if object.get("author").is_some_and(names_someone) {
                        self.author = true;
                    }
                    if let Some(Value::String(date)) = object.get("datePublished") {
                        self.published.offer(Origin::JsonLd, date);
                    }
                    if let Some(Value::String(date)) = object.get("dateModified") {
                        self.updated.offer(Origin::JsonLd, date);
                    }
                    if object.get("@type").is_some_and(is_scholarly_type) {
                        self.scholarly = true;
                    }
                    queue.extend(object.values());
                }
                _ => {}
            }
        }
    }

    fn time(&mut self, element: &Element) {
        let Some(datetime) = element.attr("datetime") else {
            return;
        };
        let itemprop = element.attr("itemprop").unwrap_or_default();
        let has_prop = |prop: &str| {
            itemprop
                .split_ascii_whitespace()
                .any(|p| p.eq_ignore_ascii_case(prop))
        };
        let has_class = |names: &[&str]| {
            element
                .classes()
                .any(|c| names.iter().any(|n| n.eq_ignore_ascii_case(c)))
        };
        if has_prop("datePublished")
            || element.attr("pubdate").is_some()
            || has_class(&["published", "entry-date", "post-date", "publish-date"])
        {
            self.published.offer(Origin::Time, datetime);
        }
        if has_prop("dateModified") || has_class(&["updated", "modified", "last-updated"]) {
            self.updated.offer(Origin::Time, datetime);
        }
    }

    fn link(&mut self, element: &Element) {
        if element.attr("rel").is_some_and(|rel| {
            rel.split_ascii_whitespace()
                .any(|r| r.eq_ignore_ascii_case("author"))
        }) {
            self.author = true;
        }
        if element.name() == "a" && element.attr("href").is_some_and(is_corrections_link) {
            self.corrections = true;
        }
    }

    /// Entries of reference lists, or `<cite>` elements, whichever are more: both
    /// usually mark the same references.
    fn references(&self) -> usize {
        self.listed.max(self.cites)
    }
}

/// The signals of a page whose main text is `text` and, for HTML, whose markup showed
/// `markup`.
pub(super) fn read(markup: Option<&Markup>, text: &str) -> PageSignals {
    let head = prefix(text, HEAD_CHARS);
    let (published, updated) = dates_in(head);
    PageSignals {
        author: markup.is_some_and(|m| m.author) || byline_in(head),
        published: markup.and_then(|m| m.published.date()).or(published),
        updated: markup.and_then(|m| m.updated.date()).or(updated),
        references: markup
            .map_or(0, Markup::references)
            .max(references_in(text))
            .min(MAX_COUNT),
        corrections: markup.is_some_and(|m| m.corrections) || corrections_in(text),
        ad_slots: markup.map_or(0, |m| m.ad_slots),
        scholarly: markup.is_some_and(|m| m.scholarly),
        words: text.split_whitespace().count(),
    }
}

/// The signals a page's main text shows by itself (no markup): a byline and dates
/// near the top, references, corrections and the word count. For text that did not
/// come through [`extract`](super::extract), such as a chat message read as a page.
/// Pure and bounded; counts stop at 10,000.
pub fn text_signals(text: &str) -> PageSignals {
    read(None, text)
}

/// `raw` (a meta tag, a `datetime`, a JSON-LD value) as `YYYY-MM-DD`, `YYYY-MM` or
/// `YYYY`, or `None` when it is not a real date between 1900 and 2100. Accepts ISO
/// dates and timestamps, `2023/05/04`, `20230504`, and written dates (`May 4, 2023`,
/// `Thu, 04 May 2023 10:00:00 GMT`).
pub(super) fn normalise_date(raw: &str) -> Option<String> {
    let raw = prefix(raw.trim_start(), 64).trim_end();
    match numeric_date(raw) {
        Some(date) => date,
        None => NAMED_DATE.captures(raw).and_then(|c| date_of(&c)),
    }
}

/// A date that starts with digits: `Some(result)` when it is numeric at all (valid or
/// not), `None` to try the written forms.
fn numeric_date(raw: &str) -> Option<Option<String>> {
    let run_end = raw
        .find(|c: char| !(c.is_ascii_digit() || matches!(c, '-' | '/' | '.')))
        .unwrap_or(raw.len());
    let (run, rest) = raw.split_at(run_end);
    let run = run.trim_end_matches(['-', '/', '.']);
    if run.is_empty() || !run.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let parts: Vec<&str> = run.split(['-', '/', '.']).collect();
    if parts.iter().any(|part| part.is_empty()) {
        return Some(None);
    }
    let date = match parts.as_slice() {
        // 20230504, alone or before a time.
        [compact] if compact.len() == 8 && (rest.is_empty() || rest.starts_with(['T', 't'])) => {
            ymd_of(&compact[..4], Some(&compact[4..6]), Some(&compact[6..]))
        }
        [year] if year.len() == 4 && rest.is_empty() => ymd_of(year, None, None),
        [year, month] if year.len() == 4 && month.len() <= 2 => ymd_of(year, Some(month), None),
        [year, month, day] if year.len() == 4 && month.len() <= 2 && day.len() <= 2 => {
            ymd_of(year, Some(month), Some(day))
        }
        // "4 May 2023", "04.05.2023" and the like: numeric only if all digits.
        _ if rest.is_empty() => None,
        _ => return None,
    };
    Some(date)
}

/// The date in a match of [`DATE_FORMS`].
fn date_of(captures: &Captures<'_>) -> Option<String> {
    let get = |name: &str| captures.name(name).map(|m| m.as_str());
    let number = |name: &str| get(name)?.parse::<u32>().ok();
    let month = |name: &str| get(name).and_then(month_number);
    if get("y1").is_some() {
        ymd(number("y1")?, Some(number("m1")?), Some(number("d1")?))
    } else if get("y2").is_some() {
        ymd(number("y2")?, Some(month("mn2")?), Some(number("d2")?))
    } else if get("y3").is_some() {
        ymd(number("y3")?, Some(month("mn3")?), Some(number("d3")?))
    } else {
        ymd(number("y4")?, Some(month("mn4")?), None)
    }
}

/// `1` for January (any of its spellings in [`MONTH`]) to `12`.
fn month_number(name: &str) -> Option<u32> {
    let start = prefix(name, 3).to_ascii_lowercase();
    let months = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ];
    months
        .iter()
        .position(|m| *m == start)
        .and_then(|i| u32::try_from(i + 1).ok())
}

/// [`ymd`] of the digits of a year, month and day (`None`: the form has no month or
/// no day).
fn ymd_of(year: &str, month: Option<&str>, day: Option<&str>) -> Option<String> {
    let number = |digits: &str| digits.parse::<u32>().ok();
    let month = match month {
        Some(month) => Some(number(month)?),
        None => None,
    };
    let day = match day {
        Some(day) => Some(number(day)?),
        None => None,
    };
    ymd(number(year)?, month, day)
}

/// A checked date: the year in 1900..=2100, the month and day real ones (`None`: the
/// form has no month, or no day), as `YYYY-MM-DD`, `YYYY-MM` or `YYYY`.
fn ymd(year: u32, month: Option<u32>, day: Option<u32>) -> Option<String> {
    if !(1900..=2100).contains(&year) {
        return None;
    }
    let Some(month) = month else {
        return Some(format!("{year:04}"));
    };
    if !(1..=12).contains(&month) {
        return None;
    }
    let Some(day) = day else {
        return Some(format!("{year:04}-{month:02}"));
    };
    let leap = year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400));
    let days = match month {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    };
    (1..=days)
        .contains(&day)
        .then(|| format!("{year:04}-{month:02}-{day:02}"))
}

/// The first "Published …" and "Updated …" dates in `head`.
fn dates_in(head: &str) -> (Option<String>, Option<String>) {
    let mut published = None;
    let mut updated = None;
    for captures in DATED_LINE.captures_iter(head) {
        let keyword = captures
            .name("kw")
            .map(|m| m.as_str().to_ascii_lowercase())
            .unwrap_or_default();
        let slot = if ["updat", "modif", "revis"]
            .iter()
            .any(|k| keyword.contains(k))
        {
            &mut updated
        } else {
            &mut published
        };
        if slot.is_none() {
            *slot = date_of(&captures);
        }
        if published.is_some() && updated.is_some() {
            break;
        }
    }
    (published, updated)
}

/// Whether a paragraph of `head` (or a part of one between `|`, `·` or `•`) opens with
/// a byline naming someone.
fn byline_in(head: &str) -> bool {
    head.split("\n\n")
        .flat_map(|paragraph| paragraph.split(['|', '\u{b7}', '\u{2022}']))
        .filter_map(|part| BYLINE.captures(part.trim()))
        .any(|captures| {
            captures.name("first").is_some_and(|first| {
                let first = first.as_str().trim_end_matches('.');
                !NOT_NAMES.iter().any(|n| n.eq_ignore_ascii_case(first))
            })
        })
}

/// Whether the text carries a correction notice or mentions a corrections policy.
fn corrections_in(text: &str) -> bool {
    CORRECTIONS.is_match(text)
        || text.split("\n\n").any(|paragraph| {
            let start = paragraph.trim_start().as_bytes();
            CORRECTION_OPENINGS.iter().any(|opening| {
                start
                    .get(..opening.len())
                    .is_some_and(|s| s.eq_ignore_ascii_case(opening.as_bytes()))
            })
        })
}

/// References in the text: the entries of its references sections, the distinct
/// citation markers, or the distinct DOIs, whichever are more (they mostly count the
/// same references).
fn references_in(text: &str) -> usize {
    section_entries(text)
        .max(citation_markers(text))
        .max(distinct_dois(text))
}

/// Entries under references headings, up to the next heading.
fn section_entries(text: &str) -> usize {
    let mut inside = false;
    let mut entries = 0usize;
    for paragraph in text.split("\n\n") {
        if is_references_heading(paragraph) {
            inside = true;
        } else if inside && looks_like_heading(paragraph) {
            inside = false;
        } else if inside {
            entries += entries_in(paragraph);
            if entries >= MAX_COUNT {
                return MAX_COUNT;
            }
        }
    }
    entries
}

/// Entries in one paragraph of a references section: one, or as many as its entries
/// numbered in sequence (`[1] … [2] …`, `1. … 2. …`: lines of plain text join into
/// one paragraph).
fn entries_in(paragraph: &str) -> usize {
    let mut expected = None;
    let mut count = 0usize;
    for captures in ENTRY_NUMBER.captures_iter(paragraph) {
        let number = captures
            .get(1)
            .or_else(|| captures.get(2))
            .and_then(|m| m.as_str().parse::<usize>().ok());
        let Some(number) = number else { continue };
        if expected.is_none_or(|e| e == number) {
            count += 1;
            expected = Some(number + 1);
        }
    }
    count.max(1)
}

/// Whether `paragraph` is the heading of a references section ("References",
/// "7. Notes", "## Bibliography", "WORKS CITED:").
fn is_references_heading(paragraph: &str) -> bool {
    let line = paragraph.trim();
    if line.len() > 60 {
        return false;
    }
    let line = line.trim_start_matches(['#', '*', '_', ' ']);
    let line = match line.split_once(' ') {
        Some((number, rest))
            if !number.is_empty()
                && number.trim_end_matches('.').chars().all(|c| {
                    c.is_ascii_digit() || matches!(c, 'I' | 'V' | 'X' | 'i' | 'v' | 'x')
                }) =>
        {
            rest
        }
        _ => line,
    };
    let line = line
        .trim_end_matches(['#', '*', '_', ':', ' '])
        .to_lowercase();
    REFERENCE_HEADINGS.contains(&line.as_str())
}

/// Whether `paragraph` looks like a section heading: a few words, no digits, no
/// sentence or citation punctuation.
fn looks_like_heading(paragraph: &str) -> bool {
    let line = paragraph.trim();
    line.chars().count() <= 40
        && line.split_whitespace().count() <= 4
        && !line.contains(|c: char| c.is_ascii_digit() || matches!(c, '.' | '[' | ',' | '('))
}

/// Distinct numbers in citation markers (`[3]`, `[1, 4]`, `[5–7]`), 1 to 999.
fn citation_markers(text: &str) -> usize {
    let mut seen = [false; 1000];
    for captures in MARKER.captures_iter(text) {
        let Some(list) = captures.get(1) else {
            continue;
        };
        for item in list.as_str().split(',') {
            let mut ends = item
                .split(['-', '\u{2013}'])
                .map(|n| n.trim().parse::<usize>());
            let (Some(Ok(first)), last) = (ends.next(), ends.next()) else {
                continue;
            };
            let last = match last {
                Some(Ok(last)) if last >= first && last - first <= 100 => last,
                _ => first,
            };
            for number in first.max(1)..=last {
                if let Some(slot) = seen.get_mut(number) {
                    *slot = true;
                }
            }
        }
    }
    seen.iter().filter(|&&s| s).count()
}

/// Distinct DOIs in the text.
fn distinct_dois(text: &str) -> usize {
    let mut dois = HashSet::new();
    for found in DOI.find_iter(text) {
        let doi = found.as_str().trim_end_matches(['.', ',', ';', ':', ')']);
        dois.insert(prefix(doi, 200).to_ascii_lowercase());
        if dois.len() >= MAX_COUNT {
            break;
        }
    }
    dois.len()
}

/// Whether a meta value or JSON-LD string is a name: some letters, at most 200
/// characters.
fn plausible_name(value: &str) -> bool {
    let value = value.trim();
    value.chars().take(201).count() <= 200 && value.chars().any(char::is_alphabetic)
}

/// Whether a JSON-LD `author` names someone: a name, a person or organisation with a
/// name (or an `@id` pointing at one), or a list holding one.
fn names_someone(value: &Value) -> bool {
    match value {
        Value::String(name) => plausible_name(name),
        Value::Object(object) => ["name", "@id"].iter().any(|key| {
            object
                .get(*key)
                .and_then(Value::as_str)
                .is_some_and(plausible_name)
        }),
        Value::Array(items) => items.iter().take(100).any(names_someone),
        _ => false,
    }
}

/// Whether a JSON-LD `@type` is a scholarly article.
fn is_scholarly_type(value: &Value) -> bool {
    let scholarly = |v: &Value| v.as_str().is_some_and(|t| t.ends_with("ScholarlyArticle"));
    match value {
        Value::Array(types) => types.iter().take(20).any(scholarly),
        other => scholarly(other),
    }
}

/// `<script type="application/ld+json">`.
fn is_json_ld(element: &Element) -> bool {
    element.attr("type").is_some_and(|t| {
        prefix(t.trim(), 40)
            .to_ascii_lowercase()
            .starts_with("application/ld+json")
    })
}

/// An element that stands for a byline: a class, id or `itemprop` with the word
/// "author" or "byline" in it (`c-byline`, `post-author`, `authorName`), not
/// "authority" or "authorize", and not a commenter's (`comment-author`).
fn is_byline(element: &Element) -> bool {
    let bylineish = |token: &str| {
        let token = prefix(token, 64).as_bytes();
        let named = find_ignoring_case(token, b"byline").next().is_some()
            || find_ignoring_case(token, b"author")
                .any(|at| !matches!(token.get(at + 6), Some(b'i' | b'I' | b'z' | b'Z')));
        named && find_ignoring_case(token, b"comment").next().is_none()
    };
    element.classes().any(bylineish)
        || element.id().is_some_and(bylineish)
        || element
            .attr("itemprop")
            .is_some_and(|p| p.split_ascii_whitespace().take(4).any(bylineish))
}

/// Whether an element is an advertising slot: Google's `<ins class="adsbygoogle">`, an
/// `<amp-ad>`, a script or frame from an ad network, an element with a `data-ad-slot`,
/// an ad `aria-label`, or an id or class naming an ad container.
fn is_ad(element: &Element) -> bool {
    match element.name() {
        "html" | "head" | "body" | "main" | "article" => return false,
        "amp-ad" => return true,
        "script" | "iframe" if element.attr("src").is_some_and(from_ad_network) => return true,
        _ => {}
    }
    if element.attr("data-ad-slot").is_some() || element.attr("data-ad-unit").is_some() {
        return true;
    }
    if element.attr("aria-label").is_some_and(|label| {
        let label = prefix(label.trim(), 40).to_ascii_lowercase();
        matches!(
            label.as_str(),
            "advertisement" | "advertising" | "ad" | "ads" | "sponsored" | "sponsored content"
        )
    }) {
        return true;
    }
    names_any(element, &AD_WORDS)
        && !element.classes().chain(element.id()).any(|token| {
            STATE_PREFIXES.iter().any(|p| {
                token
                    .get(..p.len())
                    .is_some_and(|start| start.eq_ignore_ascii_case(p))
            })
        })
}

/// Whether the element's id or a class has one of `words` as a whole word (words are
/// split at `-`, `_` and `:`; case is ignored).
fn names_any(element: &Element, words: &[&str]) -> bool {
    let is_word = |part: &str| words.iter().any(|word| word.eq_ignore_ascii_case(part));
    let has = |token: &str| {
        let token = prefix(token, 64);
        is_word(token) || token.split(['-', '_', ':']).any(is_word)
    };
    element.id().is_some_and(has) || element.classes().any(has)
}

/// Whether `src` is served by an ad network.
fn from_ad_network(src: &str) -> bool {
    let src = prefix(src.trim(), ATTRIBUTE_CHARS).to_ascii_lowercase();
    let Some(rest) = ["https://", "http://", "//"]
        .iter()
        .find_map(|scheme| src.strip_prefix(scheme))
    else {
        return false;
    };
    let host = rest
        .split(['/', '?', '#', ':'])
        .next()
        .unwrap_or_default()
        .trim_end_matches('.');
    AD_NETWORKS.iter().any(|network| {
        host == *network
            || host
                .strip_suffix(network)
                .is_some_and(|sub| sub.ends_with('.'))
    })
}

/// Whether a link points at a corrections page or policy (`/corrections`,
/// `/corrections-and-clarifications`, `/about/correction-policy.html`), not at a
/// "department-of-corrections".
fn is_corrections_link(href: &str) -> bool {
    let href = prefix(href, ATTRIBUTE_CHARS).to_ascii_lowercase();
    href.split(['/', '?', '#', '&', '='])
        .map(|segment| {
            segment
                .trim_end_matches(".html")
                .trim_end_matches(".htm")
                .trim_end_matches(".php")
        })
        .any(|segment| {
            segment == "corrections"
                || segment.starts_with("corrections-and-clarifications")
                || ["correction-polic", "corrections-polic", "correction_polic"]
                    .iter()
                    .any(|p| segment.contains(p))
        })
}

/// Where `needle` (ASCII) starts in `hay`, case ignored.
fn find_ignoring_case<'a>(hay: &'a [u8], needle: &'a [u8]) -> impl Iterator<Item = usize> + 'a {
    hay.windows(needle.len().max(1))
        .enumerate()
        .filter(move |(_, window)| window.eq_ignore_ascii_case(needle))
        .map(|(at, _)| at)
}

/// The first `chars` characters of `s`.
fn prefix(s: &str, chars: usize) -> &str {
    match s.char_indices().nth(chars) {
        Some((end, _)) => &s[..end],
        None => s,
    }
}

#[cfg(test)]
mod tests;
