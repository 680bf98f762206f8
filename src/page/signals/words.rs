//! The tables the page signals are read with: meta names, class words, ad networks,
//! headings, phrases and the calendar forms of dates. Kept apart from the rules so
//! that adding a site's meta tag or an ad network is a one-line change here.

/// Meta names (`name`, `property` or `itemprop`, lower-cased) that name an author.
pub(super) const AUTHOR_META: [&str; 9] = [
    "author",
    "article:author",
    "citation_author",
    "dc.creator",
    "dcterms.creator",
    "book:author",
    "byl",
    "parsely-author",
    "sailthru.author",
];

/// Meta names that give the publication date.
pub(super) const PUBLISHED_META: [&str; 16] = [
    "article:published_time",
    "og:published_time",
    "citation_publication_date",
    "citation_date",
    "citation_online_date",
    "dc.date",
    "dc.date.issued",
    "dc.date.created",
    "dcterms.issued",
    "dcterms.created",
    "datepublished",
    "date",
    "pubdate",
    "publish-date",
    "publication_date",
    "parsely-pub-date",
];

/// Meta names that give the date of the last update.
pub(super) const UPDATED_META: [&str; 7] = [
    "article:modified_time",
    "og:updated_time",
    "dc.date.modified",
    "dcterms.modified",
    "datemodified",
    "last-modified",
    "revised",
];

/// Meta names of scholarly metadata (Highwire Press, bepress, PRISM). Author and date
/// tags alone are not enough: blogs carry them too.
pub(super) const SCHOLARLY_META: [&str; 16] = [
    "citation_title",
    "citation_doi",
    "citation_journal_title",
    "citation_journal_abbrev",
    "citation_conference_title",
    "citation_pdf_url",
    "citation_abstract_html_url",
    "citation_fulltext_html_url",
    "citation_issn",
    "citation_isbn",
    "citation_volume",
    "citation_firstpage",
    "citation_arxiv_id",
    "citation_technical_report_number",
    "citation_dissertation_institution",
    "prism.doi",
];

/// Words of a class or id that mark an advertising container (`ad-slot`,
/// `div-gpt-ad-123`, `sidebar_ads`, `adsbygoogle`), compared whole so that `header`,
/// `shadow`, `load` and `gradient` are not ads.
pub(super) const AD_WORDS: [&str; 20] = [
    "ad",
    "ads",
    "advert",
    "adverts",
    "advertisement",
    "advertisements",
    "advertising",
    "adslot",
    "adslots",
    "adunit",
    "adunits",
    "adsense",
    "adsbygoogle",
    "adcontainer",
    "adwrapper",
    "adbox",
    "adzone",
    "dfp",
    "sponsored",
    "taboola",
];

/// Class prefixes of a state rather than a container (`has-ads`, `no-ads`).
pub(super) const STATE_PREFIXES: [&str; 7] =
    ["has-", "no-", "with-", "hide-", "show-", "is-", "without-"];

/// Ad networks: a script or frame from one of these hosts (or their subdomains) is an
/// ad slot.
pub(super) const AD_NETWORKS: [&str; 28] = [
    "googlesyndication.com",
    "doubleclick.net",
    "googletagservices.com",
    "googleadservices.com",
    "adnxs.com",
    "amazon-adsystem.com",
    "taboola.com",
    "outbrain.com",
    "criteo.com",
    "criteo.net",
    "pubmatic.com",
    "rubiconproject.com",
    "openx.net",
    "adform.net",
    "smartadserver.com",
    "media.net",
    "mgid.com",
    "revcontent.com",
    "carbonads.com",
    "carbonads.net",
    "buysellads.com",
    "adthrive.com",
    "mediavine.com",
    "ezojs.com",
    "33across.com",
    "teads.tv",
    "sharethrough.com",
    "adsrvr.org",
];

/// Words of a class or id that mark a list of references.
pub(super) const REFERENCE_WORDS: [&str; 7] = [
    "references",
    "reflist",
    "refs",
    "bibliography",
    "footnotes",
    "endnotes",
    "citation-list",
];

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
