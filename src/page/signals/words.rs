//! The tables the page signals are read with: headings, phrases and the calendar
//! forms of dates. Kept apart from the rules so that adding a heading or a phrase is
//! a one-line change here.

/// Headings of a references section, lower-cased, numbering and colon removed.
pub(super) const REFERENCE_HEADINGS: [&str; 17] = [
    "references",
    "reference list",
    "list of references",
    "bibliography",
    "works cited",
    "literature cited",
    "cited literature",
    "sources",
    "notes",
    "notes and references",
    "references and notes",
    "sources and notes",
    "notes and sources",
    "citations",
    "footnotes",
    "endnotes",
    "further references",
];

/// First words after "By" that make a phrase, not a byline ("By clicking", "By the
/// way", "By contrast").
pub(super) const NOT_NAMES: [&str; 30] = [
    "clicking",
    "continuing",
    "using",
    "signing",
    "submitting",
    "subscribing",
    "registering",
    "accepting",
    "creating",
    "logging",
    "visiting",
    "proceeding",
    "entering",
    "browsing",
    "the",
    "this",
    "that",
    "these",
    "those",
    "then",
    "now",
    "default",
    "far",
    "contrast",
    "comparison",
    "design",
    "law",
    "appointment",
    "invitation",
    "request",
];

/// Phrases that show a corrections policy or a correction, anywhere in the text.
pub(super) const CORRECTION_PHRASES: [&str; 24] = [
    "corrections policy",
    "correction policy",
    "corrections and clarifications",
    "this article has been corrected",
    "this article was corrected",
    "this story has been corrected",
    "this story was corrected",
    "this post has been corrected",
    "this article has been updated to correct",
    "this story has been updated to correct",
    "we corrected",
    "we have corrected",
    "an earlier version of this article",
    "an earlier version of this story",
    "an earlier version of this post",
    "editor's note: an earlier version",
    "editor\u{2019}s note: an earlier version",
    "this article has been retracted",
    "this paper has been retracted",
    "retraction notice",
    "notice of retraction",
    "retraction note",
    "erratum",
    "corrigendum",
];

/// Openings of a paragraph that is a correction notice ("Correction: …",
/// "Correction (May 5, 2023): …"). Only at the start: "Department of Correction:" is
/// not one.
pub(super) const CORRECTION_OPENINGS: [&str; 5] = [
    "correction:",
    "correction (",
    "corrections:",
    "clarification:",
    "retraction:",
];

/// The calendar forms a date is written in, as regex alternatives with named groups:
/// `2023-05-04` (or `/`, `.`), `May 4, 2023`, `4 May 2023` and `May 2023`.
pub(super) const DATE_FORMS: &str = r"(?:(?P<y1>[0-9]{4})[-/.](?P<m1>[0-9]{1,2})[-/.](?P<d1>[0-9]{1,2})|(?P<mn2>MONTH)\.?\s+(?P<d2>[0-9]{1,2})(?:st|nd|rd|th)?,?\s+(?P<y2>[0-9]{4})|(?P<d3>[0-9]{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<mn3>MONTH)\.?,?\s+(?P<y3>[0-9]{4})|(?P<mn4>MONTH)\.?,?\s+(?P<y4>[0-9]{4}))\b";

/// Month names and their usual abbreviations.
pub(super) const MONTH: &str = r"jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?";

/// A weekday before a date ("Thu, 4 May 2023").
pub(super) const WEEKDAY: &str = r"(?:(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?,?\s+)?";
