//! Claims: the sentences of an answer, and why a reader would expect a source for one.
//!
//! [`split_claims`] cuts answer text into sentences and keeps the ones that state
//! something; [`claim_signals`] says what in a sentence asks for a source. Together they
//! are the product's definition of "a claim a reader would expect a source for": a
//! sentence that is not a heading, greeting, sign-off, meta line, bare summing-up,
//! question or fragment, and that carries at least one of these signals:
//!
//! - **Percentage**: a figure followed by `%`, `％`, `percent`, `per cent`, `pct`,
//!   `percentage point(s)` or `个百分点`, and the word `百分之`.
//! - **Money**: a figure next to a currency symbol (`$ € £ ¥ ₹ ₩ ￥ ₽ ₺ ₱ ฿`) or an ISO code
//!   (`USD 5`, `5 EUR`), a figure or magnitude word followed by a currency word
//!   (`5 million dollars`, `millions of euros`, `3万元`), and the words `万元`, `亿元`,
//!   `美元` wherever they stand.
//! - **Date**: a standalone year 1500–2100, a date next to a month name (`March 3`,
//!   `3 March`; month names must be capitalised, so "may 3" is not a date), ISO and slash
//!   dates (`2021-03-03`, `3/3/2021`), year ranges (`2019-2021`), decades (`1990s`,
//!   `'90s`, `90年代`), centuries (`20th century`), quarters and fiscal years (`Q3`,
//!   `FY2023`), `mid-2023`-style prefixes, and CJK `2023年`, `3月`, `3日`.
//! - **Number**: any other figure with at least one digit, except a list number at the
//!   start of the sentence, a version (`v2`, `v2.0.1`, and any figure with two or more
//!   dots), an identifier glued to letters (`MP3`, `H2O`, `4IR`, `3D`, `COVID-19`,
//!   `GPT-4`, `HTTP/2`; units such as `5km`, `10x`, `$5B` and ordinals such as `3rd` stay
//!   figures) and citation brackets such as `[1]` or `[1, 3]`. Spelled-out magnitudes
//!   count as numbers: `million(s)`, `billion(s)`, `trillion(s)`, `thousands of`,
//!   `hundreds of`, `dozens`, `half of`, `twice`, `doubled`, `tripled`, `quadrupled`,
//!   `halved`, `亿`, and a Chinese numeral followed by `万`. Small spelled-out numbers
//!   ("three") do not count.
//! - **Quotation**: text in straight or curly double quotes, `「」` or `『』` of at least
//!   three words (CJK: four characters); scare quotes of one or two words do not count.
//! - **Superlative**: the words in `SUPERLATIVE_WORDS` (`most`, `least`, `best`,
//!   `largest`, `first`, `only`, `record`, `leading`, `top`, `number one`, an explicit
//!   list of `-est` adjectives…), `#1`, and CJK `最`, `第一`, `首个`, `唯一`. Ordinary
//!   words that merely end in "-est" (interest, test, rest, forest, suggest, request) are
//!   not on the list, and neither are the time words `latest`, `newest`, `最新`, `最近`,
//!   `最后`, `最终`, `最初`. `SUPERLATIVE_EXCEPTIONS` lists the idioms where such a word is
//!   no superlative: "not only", "only if", "leading to", "on top of", "best practice",
//!   "most likely", "at first", a sentence-opening "First,", "to record"…
//!
//! Matching is case-insensitive except where noted. The rules are data (the consts
//! below) and one compiled regular expression for the word lists; figures are read by a
//! small hand-written scanner, so the whole pass runs at well over 50 MB/s of prose.
//!
//! Sentence splitting is line-aware, for Markdown, Slack mrkdwn and plain text:
//!
//! - `.`, `!`, `?`, `…` end a sentence when followed by whitespace or the end of the line
//!   (possibly after closing quotes, brackets or emphasis: `."`, `.)`, `.**`); `。！？`
//!   always do. A `.` followed by anything else never does (`3.14`, `Node.js`, `v2.0.1`),
//!   nor does one before a lower-case word; `!`/`?` before a lower-case word do not
//!   either (`"Why?" asks…`, `(waning?) dominance`). An ellipsis ends a sentence only
//!   before a capital letter, CJK text, a citation or the end of the line.
//! - After the abbreviations in `ALWAYS_ABBREVIATIONS` (`e.g.`, `Dr.`, `vs.`, `approx.`)
//!   a `.` never ends a sentence; after those in `AMBIGUOUS_ABBREVIATIONS` (`etc.`,
//!   `Inc.`, month names), dotted acronyms (`U.S.`) and single capital initials it does
//!   only before one of `SENTENCE_STARTERS` ("… in the U.S. The market …").
//! - Citation markers (`[1]`, `[1][2]`, `[1, 3]`) standing after a terminator on the same
//!   line belong to the sentence before, and so does a stray terminator after them
//!   (`… the U.S. [1] [4].`). A straight `"` after a terminator closes the sentence only
//!   if it closes a quotation opened in the same paragraph.
//! - A blank line, a list item (`- `, `* `, `+ `, `• `, `1. `, `1) `) and a line opening
//!   with a citation marker (a reference entry) start a new sentence. A line break ends
//!   one when the next line starts with anything but a lower-case letter, a digit or
//!   continuing punctuation, when the line ends in CJK text or a citation marker (CJK
//!   text is never wrapped), and after a line ending with a colon.
//! - Not claims, and skipped: `#` headings, setext headings, lines that are only bold or
//!   italic, short labels (at most `MAX_LABEL_WORDS` words, no terminal punctuation,
//!   ending with a colon or in Title Case, at the start of a block), table rows,
//!   horizontal rules, fenced code and `$$` display math.
//! - Kept out as non-claims: `SIGN_OFFS`, `GREETINGS`, `META_PREFIXES`,
//!   `CONCLUSION_PREFIXES` and `STAMP_PREFIXES` (see each list for its exact rule; a
//!   summing-up sentence that carries a figure stays a claim), questions, and fragments of fewer than
//!   `MIN_WORDS` words (CJK: `MIN_CJK_UNITS` characters and words).

use crate::model::{ClaimSignal, Span};
use memchr::memmem;
use regex::Regex;
use std::borrow::Cow;
use std::sync::LazyLock;

// ---------------------------------------------------------------------------------------
// Rule data: sentence splitting
// ---------------------------------------------------------------------------------------

/// Abbreviations (lower-case, without the final dot) after which a `.` never ends a
/// sentence.
const ALWAYS_ABBREVIATIONS: &[&str] = &[
    "e.g", "i.e", "c", "dr", "mr", "mrs", "ms", "prof", "vs", "v", "fig", "figs", "approx", "st",
    "mt", "cf", "ca", "viz", "gen", "gov", "sen", "rep", "rev", "hon", "capt", "lt", "col", "sgt",
    "p", "pp", "vol", "ch", "sec", "eq", "ref", "refs", "dept", "est", "op",
];

/// Abbreviations after which a `.` ends a sentence only when the next word is one of
/// [`SENTENCE_STARTERS`] (or nothing follows on the line). Dotted acronyms (`U.S.`,
/// `p.m.`, `Ph.D.`) and single capital initials (`J. R. R. Tolkien`) behave the same.
const AMBIGUOUS_ABBREVIATIONS: &[&str] = &[
    "etc", "inc", "ltd", "corp", "co", "jr", "sr", "llc", "plc", "bros", "al", "ed", "eds", "jan",
    "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
];

/// Words that open sentences often enough that, after an ambiguous abbreviation, they
/// mean a new sentence has begun ("… in the U.S. The market …").
const SENTENCE_STARTERS: &[&str] = &[
    "The",
    "This",
    "That",
    "These",
    "Those",
    "It",
    "Its",
    "In",
    "However",
    "But",
    "And",
    "A",
    "An",
    "As",
    "At",
    "For",
    "He",
    "She",
    "They",
    "We",
    "I",
    "If",
    "On",
    "Our",
    "There",
    "Their",
    "To",
    "When",
    "While",
    "With",
    "Since",
    "Although",
    "Moreover",
    "Additionally",
    "Furthermore",
    "Meanwhile",
    "Also",
    "Other",
    "Some",
    "Many",
    "Most",
    "One",
    "Each",
    "After",
    "Before",
    "During",
    "By",
    "According",
    "Despite",
    "Such",
    "Thus",
    "Therefore",
    "Overall",
    "Finally",
    "First",
    "Second",
    "Similarly",
    "Unlike",
    "Both",
    "His",
    "Her",
    "You",
    "Your",
    "What",
    "Why",
    "How",
    "Who",
    "Another",
    "Even",
    "Today",
    "Now",
    "Yet",
    "So",
    "Still",
    "Instead",
    "Here",
];

/// Characters that may close a sentence after its terminator: quotes, brackets and
/// Markdown emphasis (`**Done.**`).
const CLOSERS: &[char] = &[
    '"', '\'', ')', ']', '}', '”', '’', '»', '」', '』', '）', '】', '》', '〕', '*', '_', '~',
];

/// Sentence terminators.
const TERMINATORS: &[char] = &['.', '!', '?', '…', '。', '！', '？'];

/// List bullets that open a list item when followed by a space.
const BULLETS: &[char] = &['-', '*', '+', '•', '◦', '▪', '‣'];

/// Lower-case words that may stay lower-case in a Title Case heading.
const MINOR_WORDS: &[&str] = &[
    "a", "an", "the", "and", "or", "nor", "but", "of", "in", "on", "for", "to", "with", "by", "at",
    "from", "as", "vs", "via", "into", "onto", "per", "over", "under", "about",
];

/// The most words a line may have to be taken for a label or heading.
const MAX_LABEL_WORDS: usize = 8;

// ---------------------------------------------------------------------------------------
// Rule data: non-claims
// ---------------------------------------------------------------------------------------

/// Openings of sign-offs and pleasantries: a sentence that starts with one is never a
/// claim.
const SIGN_OFFS: &[&str] = &[
    "i hope this helps",
    "hope this helps",
    "i hope that helps",
    "hope that helps",
    "i hope this information",
    "i hope this answer",
    "let me know",
    "please let me know",
    "feel free to",
    "don't hesitate",
    "do not hesitate",
    "happy to help",
    "glad to help",
    "great question",
    "good question",
    "excellent question",
    "thanks for asking",
    "thank you for asking",
    "thank you for your question",
    "you're welcome",
    "if you have any other questions",
    "if you have any further questions",
    "if you have more questions",
    "if you need more",
    "if you need further",
    "good luck",
    "best of luck",
    "as an ai",
    "希望这",
    "如有其他问题",
];

/// Greeting words: a sentence that starts with one, has at most
/// [`GREETING_MAX_WORDS`] words and carries no figure is a greeting ("Hello there!",
/// "Sure, happy to explain.").
const GREETINGS: &[&str] = &[
    "hi",
    "hello",
    "hey",
    "greetings",
    "dear",
    "sure",
    "certainly",
    "of course",
    "absolutely",
    "okay",
    "ok",
    "thanks",
    "thank you",
    "good morning",
    "good afternoon",
    "good evening",
    "您好",
    "你好",
];

/// The most words a greeting sentence may have.
const GREETING_MAX_WORDS: usize = 10;

/// Openings of meta lines, where the answer talks about itself or its own research: a
/// sentence that starts with one is not a claim unless it carries a figure and does not
/// end with a colon.
const META_PREFIXES: &[&str] = &[
    "here's",
    "here is",
    "here are",
    "below is",
    "below are",
    "below, i",
    "let me",
    "let's",
    "let us",
    "now, let's",
    "now let's",
    "now, i'll",
    "now i'll",
    "i'll",
    "i will",
    "i'm going to",
    "i am going to",
    "i need to",
    "i've gathered",
    "i have gathered",
    "i found",
    "i've found",
    "i have found",
    "to answer your question",
    "to answer this question",
    "让我",
    "我将",
    "我需要",
    "我来",
    "下面是",
    "以下是",
    "接下来，我",
];

/// Openings of date stamps ("Updated 12 Jan 2025", "Last updated: 3 March 2024",
/// "Published 2024-05-01 by the platform team"): a sentence that starts with one, goes
/// on with a date (a digit or a month name, after an optional `:` or `on`) and has at
/// most [`STAMP_MAX_WORDS`] words says when the text was written, not something that
/// wants a source. "Updated guidance cuts the limit to 5" is no stamp.
const STAMP_PREFIXES: &[&str] = &[
    "updated",
    "last updated",
    "last modified",
    "last edited",
    "last reviewed",
    "edited",
    "modified",
    "reviewed",
    "published",
    "posted",
    "created",
    "generated",
    "retrieved",
    "accessed",
    "as of",
];

/// The most words a date stamp may have ("Published 2024-05-01 by the platform team").
const STAMP_MAX_WORDS: usize = 8;

/// Openings of summing-up sentences: a sentence that starts with one is a claim only if
/// it carries a figure (number, date, percentage or money).
const CONCLUSION_PREFIXES: &[&str] = &[
    "in conclusion",
    "in summary",
    "to summarize",
    "to summarise",
    "to sum up",
    "in sum,",
    "overall,",
    "all in all",
    "in short",
    "in a nutshell",
    "to conclude",
    "summing up",
    "总之",
    "综上所述",
    "综上",
    "总的来说",
    "总而言之",
    "总结来说",
];

/// A sentence with fewer words than this is a fragment, not a claim.
const MIN_WORDS: usize = 4;

/// A sentence with CJK text and fewer CJK characters plus other words than this is a
/// fragment.
const MIN_CJK_UNITS: usize = 6;

// ---------------------------------------------------------------------------------------
// Rule data: signals
// ---------------------------------------------------------------------------------------

/// Superlatives and record words (lower-case). `-est` adjectives are listed one by one.
const SUPERLATIVE_WORDS: &[&str] = &[
    "most",
    "least",
    "best",
    "worst",
    "largest",
    "biggest",
    "smallest",
    "highest",
    "lowest",
    "fastest",
    "slowest",
    "first",
    "only",
    "record",
    "leading",
    "top",
    "number one",
    "greatest",
    "strongest",
    "weakest",
    "richest",
    "poorest",
    "oldest",
    "youngest",
    "longest",
    "shortest",
    "tallest",
    "deepest",
    "cheapest",
    "earliest",
    "heaviest",
    "lightest",
    "busiest",
    "wealthiest",
    "deadliest",
    "hottest",
    "coldest",
    "warmest",
    "wettest",
    "driest",
    "safest",
    "closest",
    "farthest",
    "furthest",
    "widest",
    "broadest",
    "densest",
    "costliest",
    "priciest",
    "brightest",
    "smartest",
    "loudest",
    "quickest",
    "easiest",
    "hardest",
    "toughest",
    "finest",
    "purest",
    "rarest",
    "commonest",
    "foremost",
    "healthiest",
    "happiest",
    "steepest",
    "sharpest",
    "fiercest",
    "tiniest",
    "strictest",
    "thickest",
    "thinnest",
    "nearest",
    "simplest",
    "cleanest",
    "dirtiest",
];

/// Idioms in which a superlative word is no superlative: `(word, before, after)`, where
/// the word must be preceded by `before` (`"^"`: at the start of the sentence) and
/// followed by `after`; an empty string matches anything.
const SUPERLATIVE_EXCEPTIONS: &[(&str, &str, &str)] = &[
    ("only", "not ", ""),
    ("only", "if ", ""),
    ("only", "", " if"),
    ("only", "", " when"),
    ("leading", "", " to"),
    ("leading", "", " up"),
    ("leading", "", " into"),
    ("top", "on ", ""),
    ("best", "", " practice"),
    ("most", "", " likely"),
    ("first", "at ", ""),
    ("first", "", " of all"),
    ("first", "^", ","),
    ("first", "", "-"),
    ("first", "to ", ""),
    ("record", "^", ""),
    ("record", "to ", ""),
    ("record", "medical ", ""),
    ("record", "health ", ""),
];

/// Spelled-out magnitudes that count as numbers (lower-case).
const MAGNITUDE_WORDS: &[&str] = &[
    "million",
    "millions",
    "billion",
    "billions",
    "trillion",
    "trillions",
    "thousands of",
    "hundreds of",
    "dozens",
    "half of",
    "twice",
    "doubled",
    "tripled",
    "quadrupled",
    "halved",
];

/// What a CJK word means, checked in order against the end of the matched text.
const CJK_WORD_RULES: &[(&str, ClaimSignal)] = &[
    ("万元", ClaimSignal::Money),
    ("亿元", ClaimSignal::Money),
    ("美元", ClaimSignal::Money),
    ("百分之", ClaimSignal::Percentage),
    ("万", ClaimSignal::Number),
    ("亿", ClaimSignal::Number),
    ("最", ClaimSignal::Superlative),
    ("第一", ClaimSignal::Superlative),
    ("首个", ClaimSignal::Superlative),
    ("唯一", ClaimSignal::Superlative),
];

/// Characters after `最` that make it a time word ("最后", "最新"…), not a superlative.
const CJK_NOT_SUPERLATIVE_AFTER: &[char] = &['后', '後', '终', '終', '近', '新', '初'];

/// Chinese numerals that make a following `万` a magnitude.
const CJK_NUMERALS: &str = "一二三四五六七八九十百千两几数";

/// Currency symbols.
const CURRENCY_SYMBOLS: &[char] = &['$', '€', '£', '¥', '₹', '₩', '￥', '₽', '₺', '₱', '฿'];

/// Currency codes (upper-case only).
const CURRENCY_CODES: &[&str] = &[
    "USD", "EUR", "GBP", "JPY", "CNY", "RMB", "INR", "KRW", "CHF", "CAD", "AUD", "HKD", "SGD",
    "BRL", "RUB", "MXN", "SEK", "NOK", "DKK", "ZAR", "NZD", "TWD", "THB", "IDR", "TRY", "PLN",
    "SAR", "AED", "NGN", "EGP", "PKR", "VND", "PHP", "MYR", "ILS", "CZK", "HUF", "Rs",
];

/// Currency words after a figure or magnitude (lower-case).
const CURRENCY_WORDS: &[&str] = &[
    "dollars",
    "dollar",
    "euros",
    "euro",
    "yen",
    "yuan",
    "renminbi",
    "rupees",
    "rupee",
    "pesos",
    "francs",
    "pounds sterling",
    "usd",
    "eur",
    "gbp",
    "rmb",
];

/// CJK currency words after a figure or magnitude.
const CJK_CURRENCY_WORDS: &[&str] = &[
    "元",
    "美元",
    "欧元",
    "英镑",
    "日元",
    "港元",
    "港币",
    "人民币",
    "韩元",
    "块钱",
];

/// Magnitude words that may stand between a figure and its currency (lower-case).
const MONEY_MAGNITUDES: &[&str] = &[
    "million", "billion", "trillion", "thousand", "hundred", "bn", "mn", "m", "k", "b", "万亿",
    "百万", "千万", "万", "亿", "千", "百",
];

/// Words after a figure that make it a percentage (lower-case).
const PERCENT_WORDS: &[&str] = &["percent", "per cent", "pct", "percentage point", "个百分点"];

/// Letters glued after a figure that keep it a figure: ordinals, units and magnitudes
/// (lower-case). Other glued letters make an identifier (`4IR`, `3D`).
const UNIT_SUFFIXES: &[&str] = &[
    "st", "nd", "rd", "th", "k", "m", "b", "bn", "mn", "x", "km", "kg", "mg", "gb", "mb", "tb",
    "kb", "mw", "gw", "kw", "kwh", "mwh", "gwh", "twh", "mph", "kph", "cm", "mm", "ml", "l", "t",
    "h", "hr", "hrs", "min", "ms", "ft", "lb", "lbs", "oz", "mi", "ha", "yr", "yrs", "bps", "ppm",
    "ppb", "sq", "m2", "km2", "s",
];

/// Words before a hyphen that leave the figure after it a date or number
/// (`mid-2023`); after any other word the hyphen makes a name (`COVID-19`, `GPT-4`).
const HYPHEN_PREFIXES: &[&str] = &[
    "mid", "pre", "post", "early", "late", "circa", "around", "since", "until", "from",
];

/// The months' names, January first; in answers they must be capitalised to count.
/// The date parser of search results reads them too.
pub(crate) const MONTH_NAMES: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

/// Their abbreviations (`Sept` included), which count the same way.
const MONTH_ABBREVIATIONS: &[&str] = &[
    "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
];

/// Every signal, in the order [`claim_signals`] returns them.
const ALL_SIGNALS: [ClaimSignal; 6] = [
    ClaimSignal::Number,
    ClaimSignal::Date,
    ClaimSignal::Percentage,
    ClaimSignal::Money,
    ClaimSignal::Quotation,
    ClaimSignal::Superlative,
];

/// The regular expression for the word rules, built once from the lists above.
static WORD_RE: LazyLock<Regex> = LazyLock::new(build_word_regex);

fn build_word_regex() -> Regex {
    let ascii: Vec<String> = SUPERLATIVE_WORDS
        .iter()
        .chain(MAGNITUDE_WORDS)
        .map(|w| regex::escape(w).replace(' ', r"\s+"))
        .collect();
    let cjk: Vec<String> = CJK_WORD_RULES
        .iter()
        .filter(|(w, _)| *w != "万")
        .map(|(w, _)| regex::escape(w))
        .collect();
    let pattern = format!(
        r"(?i:(?-u:\b)(?:{})(?-u:\b))|#1(?-u:\b)|[{n}]?(?:万元|亿元)|{}|[{n}]万",
        ascii.join("|"),
        cjk.join("|"),
        n = CJK_NUMERALS,
    );
    // The pattern is built from the constants above only, never from input.
    Regex::new(&pattern).expect("the word-rule pattern is valid")
}

// ---------------------------------------------------------------------------------------
// Sentence splitting
// ---------------------------------------------------------------------------------------

/// Splits answer text into claim sentences.
///
/// - `opaque`: sorted, non-overlapping spans that must never be split inside and count as
///   part of the sentence they stand in: links, URLs, citation markers like `[1]`, `[1, 3]`.
///   A citation marker (`[…]`) that starts right after a terminator, optionally after
///   spaces on the same line, belongs to the sentence before; so does any opaque span
///   that is the last thing on its line.
/// - `excluded`: sorted, non-overlapping spans that are not prose at all (code blocks, code
///   spans, reference-list lines): no sentence includes them; a sentence may not run across
///   an excluded span (it ends before it).
///
/// Returns the spans of the sentences that are claims, in order, trimmed of surrounding
/// whitespace and list bullets/numbering (`- `, `* `, `• `, `1. `, `1) `), with headings and
/// non-claims (greetings, sign-offs, meta lines, bare summing-up, questions, fragments)
/// left out. Every span lies on char boundaries of `text`. Spans that are out of range,
/// unsorted or overlapping are repaired rather than trusted; opaque spans that overlap
/// excluded ones are ignored.
pub fn split_claims(text: &str, opaque: &[Span], excluded: &[Span]) -> Vec<Span> {
    if text.is_empty() {
        return Vec::new();
    }
    let excluded = clean_spans(text, excluded);
    let opaque = without_overlaps(clean_spans(text, opaque), &excluded);
    let mut splitter = Splitter::new(text, &opaque, &excluded);
    splitter.run();
    splitter.out
}

/// Returns `spans` if they are usable as they are, or a repaired copy: clamped to the
/// text, widened to char boundaries, sorted, overlaps merged, empty spans dropped.
fn clean_spans<'a>(text: &str, spans: &'a [Span]) -> Cow<'a, [Span]> {
    if spans_are_valid(text, spans) {
        return Cow::Borrowed(spans);
    }
    let mut fixed: Vec<Span> = spans.iter().filter_map(|s| fit_span(text, *s)).collect();
    fixed.sort_unstable();
    let mut merged: Vec<Span> = Vec::with_capacity(fixed.len());
    for span in fixed {
        match merged.last_mut() {
            Some(last) if span.start < last.end => last.end = last.end.max(span.end),
            _ => merged.push(span),
        }
    }
    Cow::Owned(merged)
}

fn spans_are_valid(text: &str, spans: &[Span]) -> bool {
    let mut prev_end = 0;
    spans.iter().all(|s| {
        let ok = s.start >= prev_end
            && s.start < s.end
            && s.end <= text.len()
            && text.is_char_boundary(s.start)
            && text.is_char_boundary(s.end);
        prev_end = s.end;
        ok
    })
}

fn fit_span(text: &str, span: Span) -> Option<Span> {
    let mut start = span.start.min(text.len());
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = span.end.min(text.len());
    while !text.is_char_boundary(end) {
        end += 1;
    }
    (start < end).then(|| Span::new(start, end))
}

/// Drops the spans of `spans` that overlap one of `other` (both sorted).
fn without_overlaps<'a>(spans: Cow<'a, [Span]>, other: &[Span]) -> Cow<'a, [Span]> {
    if other.is_empty() || !spans.iter().any(|s| overlaps_any(*s, other)) {
        return spans;
    }
    Cow::Owned(
        spans
            .iter()
            .copied()
            .filter(|s| !overlaps_any(*s, other))
            .collect(),
    )
}

fn overlaps_any(span: Span, sorted: &[Span]) -> bool {
    let k = sorted.partition_point(|s| s.end <= span.start);
    sorted.get(k).is_some_and(|s| s.start < span.end)
}

/// One line of the text, without its line break.
#[derive(Clone, Copy)]
struct Line {
    start: usize,
    end: usize,
    newline: bool,
}

fn lines_of(text: &str) -> Vec<Line> {
    let bytes = text.as_bytes();
    let mut lines = Vec::with_capacity(bytes.len() / 64 + 1);
    let mut start = 0;
    for nl in memchr::memchr_iter(b'\n', bytes) {
        let end = if nl > start && bytes[nl - 1] == b'\r' {
            nl - 1
        } else {
            nl
        };
        lines.push(Line {
            start,
            end,
            newline: true,
        });
        start = nl + 1;
    }
    if start < bytes.len() {
        lines.push(Line {
            start,
            end: bytes.len(),
            newline: false,
        });
    }
    lines
}

/// What a line is, for sentence splitting.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum LineKind {
    /// Only whitespace: ends the sentence.
    Blank,
    /// A heading, label, rule or table row: ends the sentence, is no claim.
    Skip,
    /// A list item whose text starts at the byte given: starts a new sentence.
    Item(usize),
    /// Prose whose text starts at the byte given: continues the sentence.
    Text(usize),
}

/// Bytes that may begin a terminator: `.`, `!`, `?`, and the lead bytes of `…` (E2),
/// `。` (E3) and `！？` (EF).
static TERMINATOR_BYTES: [bool; 256] = {
    let mut table = [false; 256];
    table[b'.' as usize] = true;
    table[b'!' as usize] = true;
    table[b'?' as usize] = true;
    table[0xE2] = true;
    table[0xE3] = true;
    table[0xEF] = true;
    table
};

/// The next match of a search in a text, kept until the reading position passes it, so
/// that a text is searched about once however often the reader asks.
struct NextMatch {
    /// Where the first match in a haystack starts.
    search: fn(&[u8]) -> Option<usize>,
    /// `(searched from, found at)` of the last search; "found" is the haystack's length
    /// when there was none.
    last: Option<(usize, usize)>,
}

impl NextMatch {
    fn new(search: fn(&[u8]) -> Option<usize>) -> Self {
        NextMatch { search, last: None }
    }

    /// The first match at or after `from`, or `hay.len()`.
    fn at_or_after(&mut self, hay: &[u8], from: usize) -> usize {
        match self.last {
            Some((searched, found)) if searched <= from && from <= found => found,
            _ => {
                let found = hay
                    .get(from..)
                    .and_then(self.search)
                    .map_or(hay.len(), |k| from + k);
                self.last = Some((from, found));
                found
            }
        }
    }
}

/// Finders for the wide terminators, which CJK text is full of near misses of (`，`,
/// `、`, `「`… share their first bytes), so each is looked for as a whole.
static ELLIPSIS: LazyLock<memmem::Finder<'static>> = LazyLock::new(|| memmem::Finder::new("…"));
static IDEOGRAPHIC_STOP: LazyLock<memmem::Finder<'static>> =
    LazyLock::new(|| memmem::Finder::new("。"));
static WIDE_EXCLAMATION: LazyLock<memmem::Finder<'static>> =
    LazyLock::new(|| memmem::Finder::new("！"));
static WIDE_QUESTION: LazyLock<memmem::Finder<'static>> =
    LazyLock::new(|| memmem::Finder::new("？"));

/// The searches for the bytes that may end a sentence: `.`, `!`, `?` and the wide
/// terminators (see [`TERMINATOR_BYTES`]).
fn terminator_searches() -> [NextMatch; 5] {
    [
        NextMatch::new(|h| memchr::memchr3(b'.', b'!', b'?', h)),
        NextMatch::new(|h| ELLIPSIS.find(h)),
        NextMatch::new(|h| IDEOGRAPHIC_STOP.find(h)),
        NextMatch::new(|h| WIDE_EXCLAMATION.find(h)),
        NextMatch::new(|h| WIDE_QUESTION.find(h)),
    ]
}

/// The state of one splitting pass.
struct Splitter<'t, 's> {
    text: &'t str,
    bytes: &'t [u8],
    opaque: &'s [Span],
    excluded: &'s [Span],
    out: Vec<Span>,
    /// Start of the sentence being read.
    cur: Option<usize>,
    /// End of the prose read so far for the current sentence.
    tail: usize,
    /// Everything before this byte has been read.
    pos: usize,
    /// Index of the first opaque span that ends after the reading position.
    next_opaque: usize,
    /// Index of the first excluded span that ends after the reading position.
    next_excluded: usize,
    /// Start of the current paragraph or list item, for quote pairing.
    paragraph: usize,
    /// Index of the first excluded span that ends after the start of the line being
    /// classified.
    line_excluded: usize,
    /// Index of the first opaque span that ends after the start of the last sentence
    /// emitted.
    claim_opaque: usize,
    /// The next terminator of each kind.
    terminators: [NextMatch; 5],
}

impl<'t, 's> Splitter<'t, 's> {
    fn new(text: &'t str, opaque: &'s [Span], excluded: &'s [Span]) -> Self {
        Splitter {
            text,
            bytes: text.as_bytes(),
            opaque,
            excluded,
            out: Vec::new(),
            cur: None,
            tail: 0,
            pos: 0,
            next_opaque: 0,
            next_excluded: 0,
            paragraph: 0,
            line_excluded: 0,
            claim_opaque: 0,
            terminators: terminator_searches(),
        }
    }

    fn run(&mut self) {
        let lines = lines_of(self.text);
        let mut prev = LineKind::Blank;
        let mut prev_last: Option<char> = None;
        let mut fence: Option<&str> = None;
        for i in 0..lines.len() {
            let line = lines[i];
            // Text already read, or excluded, is not classified on its own.
            let covered = line.start < self.pos || self.line_start_excluded(line.start);
            let next = lines.get(i + 1).copied();
            let mut kind = self.classify(line, next, prev, prev_last, covered);
            if let Some(marker) = self.fence_marker(line, covered) {
                fence = match fence {
                    Some(open) if open == marker => None,
                    None => Some(marker),
                    other => other,
                };
                kind = LineKind::Skip;
            } else if fence.is_some() {
                kind = LineKind::Skip;
            }
            match kind {
                LineKind::Blank | LineKind::Skip => {
                    self.flush();
                    self.paragraph = line.end;
                }
                LineKind::Item(from) => {
                    self.flush();
                    self.paragraph = from;
                    self.scan_line(from, line.end);
                }
                LineKind::Text(from) => {
                    if line.start >= self.pos && !self.joins(prev_last, from, line.end) {
                        self.flush();
                    }
                    self.scan_line(from, line.end);
                }
            }
            prev_last = self.text[line.start..line.end]
                .trim_end()
                .chars()
                .next_back();
            if matches!(prev_last, Some(':' | '：')) {
                self.flush();
            }
            prev = kind;
        }
        self.flush();
    }

    /// Whether the line starting at `start` starts inside an excluded span. Lines come in
    /// order, so a cursor replaces a search.
    fn line_start_excluded(&mut self, start: usize) -> bool {
        while self
            .excluded
            .get(self.line_excluded)
            .is_some_and(|e| e.end <= start)
        {
            self.line_excluded += 1;
        }
        self.excluded
            .get(self.line_excluded)
            .is_some_and(|e| e.start <= start)
    }

    /// The fence a line opens or closes (```` ``` ````, `~~~`, `$$`), outside excluded text
    /// and text already read (`covered`).
    fn fence_marker(&self, line: Line, covered: bool) -> Option<&'static str> {
        if covered {
            return None;
        }
        let trimmed = self.text[line.start..line.end].trim();
        if trimmed == "$$" {
            return Some("$$");
        }
        ["```", "~~~"].into_iter().find(|f| trimmed.starts_with(f))
    }

    /// Whether a line continues the sentence left open by the line before: only when it
    /// starts in lower case, with a digit or with continuing punctuation, and the line
    /// before did not end in CJK text (which is never wrapped) or a citation marker.
    fn joins(&self, prev_last: Option<char>, from: usize, to: usize) -> bool {
        if self.cur.is_none() {
            return true;
        }
        if prev_last.is_some_and(|c| is_cjk(c) || (c as u32) >= 0x3000 || c == ']') {
            return false;
        }
        let start = skip_spaces(self.text, from, to);
        match self.text[start..to].chars().next() {
            Some(c) => {
                c.is_lowercase()
                    || c.is_ascii_digit()
                    || matches!(c, '(' | ',' | ';' | '–' | '—' | '&')
            }
            None => true,
        }
    }

    /// Classifies a line from its own text (and the next line's, for setext headings).
    /// A line that starts in text already read or excluded (`covered`) is text.
    fn classify(
        &self,
        line: Line,
        next: Option<Line>,
        prev: LineKind,
        prev_last: Option<char>,
        covered: bool,
    ) -> LineKind {
        if covered {
            return LineKind::Text(line.start.max(self.pos).min(line.end));
        }
        let raw = &self.text[line.start..line.end];
        let body_start = line.start + quote_prefix_len(raw);
        let body = &self.text[body_start..line.end];
        let trimmed = body.trim();
        if trimmed.is_empty() {
            return LineKind::Blank;
        }
        if is_rule(trimmed) || is_table_row(trimmed) || is_atx_heading(trimmed) {
            return LineKind::Skip;
        }
        if let Some(offset) = list_content_offset(body) {
            let content = body[offset..].trim();
            if is_emphasis_only(content) || (line.newline && is_label(content)) {
                return LineKind::Skip;
            }
            return LineKind::Item(body_start + offset);
        }
        if is_emphasis_only(trimmed)
            || is_display_math(trimmed)
            || self.is_setext_text(trimmed, next)
        {
            return LineKind::Skip;
        }
        if starts_with_citation(trimmed) {
            return LineKind::Item(body_start + (body.len() - body.trim_start().len()));
        }
        let prev_closed =
            prev_last.is_none_or(|c| TERMINATORS.contains(&c) || c == ':' || c == '：');
        let block_start = matches!(prev, LineKind::Blank | LineKind::Skip) || prev_closed;
        if line.newline && block_start && is_label(trimmed) {
            return LineKind::Skip;
        }
        LineKind::Text(body_start)
    }

    /// Whether `trimmed` is the text of a setext heading underlined by the next line.
    fn is_setext_text(&self, trimmed: &str, next: Option<Line>) -> bool {
        let Some(next) = next else { return false };
        // Spans before the cursor end before this line, let alone the next.
        let ahead = &self.excluded[self.line_excluded.min(self.excluded.len())..];
        if ahead
            .iter()
            .find(|e| e.end > next.start)
            .is_some_and(|e| e.start <= next.start)
        {
            return false;
        }
        let under = self.text[next.start..next.end].trim();
        if under.len() < 2 {
            return false;
        }
        if under.bytes().all(|b| b == b'=') {
            return true;
        }
        under.len() >= 3 && under.bytes().all(|b| b == b'-') && !ends_with_terminator(trimmed)
    }

    /// Reads `[from, to)` of one line, skipping excluded spans (which end the sentence).
    fn scan_line(&mut self, from: usize, to: usize) {
        let mut at = from.max(self.pos);
        while at < to {
            while self
                .excluded
                .get(self.next_excluded)
                .is_some_and(|e| e.end <= at)
            {
                self.next_excluded += 1;
            }
            match self.excluded.get(self.next_excluded).copied() {
                Some(ex) if ex.start < to => {
                    if ex.start > at {
                        self.scan_piece(at, ex.start);
                    }
                    self.flush();
                    at = ex.end;
                    self.pos = self.pos.max(at);
                }
                _ => {
                    self.scan_piece(at, to);
                    at = to;
                }
            }
        }
    }

    /// Reads prose `[from, to)`, emitting sentences as terminators are found.
    fn scan_piece(&mut self, from: usize, to: usize) {
        let mut i = from.max(self.pos);
        while i < to {
            if let Some(op) = self.opaque_at(i) {
                if self.cur.is_none() {
                    self.cur = Some(i);
                }
                i = op.end;
                self.tail = self.tail.max(i);
                continue;
            }
            if self.cur.is_none() {
                match self.text[i..].chars().next() {
                    Some(c) if c.is_whitespace() => {
                        i += c.len_utf8();
                        continue;
                    }
                    _ => self.cur = Some(i),
                }
            }
            if TERMINATOR_BYTES[self.bytes[i] as usize] {
                if let Some(end) = self.terminator(i, to) {
                    self.tail = end;
                    self.emit(end);
                    i = end;
                    continue;
                }
            }
            i = self.next_candidate(i + 1, to);
        }
        self.tail = self.tail.max(to).max(i.min(self.text.len()));
        self.pos = self.pos.max(i);
    }

    /// The first byte in `[from, to)` that the reading loop of [`Self::scan_piece`] must
    /// look at while a sentence is open: a possible terminator or the start of the next
    /// opaque span. Every byte skipped would have been stepped over one at a time
    /// (continuation bytes of UTF-8 are never terminator bytes), so this only saves time.
    fn next_candidate(&mut self, from: usize, to: usize) -> usize {
        // `opaque_at` has moved `next_opaque` past every span ending before `from`, and the
        // span it points at (if any) starts after the byte just read.
        let stop = self
            .opaque
            .get(self.next_opaque)
            .map_or(to, |s| s.start.clamp(from, to));
        let bytes = self.bytes;
        self.terminators
            .iter_mut()
            .fold(stop, |next, kind| next.min(kind.at_or_after(bytes, from)))
    }

    /// The opaque span containing byte `i`, if any (`i` only moves forward).
    fn opaque_at(&mut self, i: usize) -> Option<Span> {
        while self
            .opaque
            .get(self.next_opaque)
            .is_some_and(|s| s.end <= i)
        {
            self.next_opaque += 1;
        }
        self.opaque
            .get(self.next_opaque)
            .copied()
            .filter(|s| s.start <= i)
    }

    /// The opaque span starting exactly at byte `i`.
    fn opaque_starting_at(&self, i: usize) -> Option<Span> {
        // `i` lies at or ahead of the reading position, near the reading cursor.
        let k = partition_point_near(self.opaque, self.next_opaque, |s| s.start < i);
        self.opaque.get(k).copied().filter(|s| s.start == i)
    }

    /// If the terminator candidate at `i` ends a sentence, where the sentence ends
    /// (after closing quotes and attached citation markers).
    fn terminator(&self, i: usize, limit: usize) -> Option<usize> {
        match self.bytes[i] {
            b'.' => self.period(i, limit),
            b'!' | b'?' => self.bang(i, limit),
            _ => match self.text[i..].chars().next()? {
                '…' => self.ellipsis(i + '…'.len_utf8(), limit),
                '。' | '！' | '？' => Some(self.cjk_end(i, limit)),
                _ => None,
            },
        }
    }

    fn period(&self, i: usize, limit: usize) -> Option<usize> {
        let run = i + self.bytes[i..limit]
            .iter()
            .take_while(|&&b| b == b'.')
            .count();
        if run - i >= 2 {
            return self.ellipsis(run, limit);
        }
        let after = self.skip_closers(run, limit);
        if !self.boundary_follows(after, limit)
            || self.abbreviation_continues(i, after, limit)
            || self.lowercase_follows(after, limit)
        {
            return None;
        }
        Some(self.attach(after, limit))
    }

    fn bang(&self, i: usize, limit: usize) -> Option<usize> {
        let run = i + self.bytes[i..limit]
            .iter()
            .take_while(|&&b| b == b'!' || b == b'?')
            .count();
        let after = self.skip_closers(run, limit);
        (self.boundary_follows(after, limit) && !self.lowercase_follows(after, limit))
            .then(|| self.attach(after, limit))
    }

    /// An ellipsis ends a sentence only before a capital letter, CJK text, a citation
    /// marker or the end of the line.
    fn ellipsis(&self, from: usize, limit: usize) -> Option<usize> {
        let mut q = from;
        while q < limit {
            if self.bytes[q] == b'.' {
                q += 1;
            } else if self.text[q..].starts_with('…') {
                q += '…'.len_utf8();
            } else {
                break;
            }
        }
        let after = self.skip_closers(q, limit);
        if !self.boundary_follows(after, limit) {
            return None;
        }
        let next = skip_spaces(self.text, after, limit);
        if next >= limit || self.opaque_starting_at(next).is_some() {
            return Some(self.attach(after, limit));
        }
        let c = self.text[next..].chars().next()?;
        (c.is_uppercase() || is_cjk(c)).then(|| self.attach(after, limit))
    }

    fn cjk_end(&self, i: usize, limit: usize) -> usize {
        let q = self.skip_terminators(i, limit);
        let after = self.skip_closers(q, limit);
        self.attach(after, limit)
    }

    /// Skips closing quotes, brackets and emphasis. A straight double quote closes only
    /// when the sentence has an odd number of them so far (otherwise it opens the next).
    fn skip_closers(&self, mut q: usize, limit: usize) -> usize {
        while q < limit && self.opaque_starting_at(q).is_none() {
            match self.text[q..limit].chars().next() {
                Some('"') if !self.inside_straight_quote(q) => break,
                Some(c) if CLOSERS.contains(&c) => q += c.len_utf8(),
                _ => break,
            }
        }
        q
    }

    fn inside_straight_quote(&self, q: usize) -> bool {
        let start = self.paragraph.min(q);
        memchr::memchr_iter(b'"', &self.bytes[start..q]).count() % 2 == 1
    }

    /// Whether what follows a terminator lets it end the sentence: whitespace, the end
    /// of the line, or an opaque span (`5.[1] Next`).
    fn boundary_follows(&self, at: usize, limit: usize) -> bool {
        if at >= limit {
            return true;
        }
        if self.opaque_starting_at(at).is_some() {
            return true;
        }
        self.text[at..]
            .chars()
            .next()
            .is_some_and(char::is_whitespace)
    }

    /// Whether the word before the `.` at `dot` is an abbreviation that keeps the
    /// sentence going.
    fn abbreviation_continues(&self, dot: usize, after: usize, limit: usize) -> bool {
        let word = word_before(self.text, dot);
        if word.is_empty() {
            return false;
        }
        if ALWAYS_ABBREVIATION_SET.contains_ignore_case(word) {
            return true;
        }
        let next = skip_spaces(self.text, after, limit);
        if word.eq_ignore_ascii_case("no") {
            return self.bytes.get(next).is_some_and(u8::is_ascii_digit) && next < limit;
        }
        let ambiguous = AMBIGUOUS_ABBREVIATION_SET.contains_ignore_case(word)
            || word.contains('.')
            || (word.len() == 1 && word.as_bytes()[0].is_ascii_uppercase());
        if !ambiguous || next >= limit || self.opaque_starting_at(next).is_some() {
            return false;
        }
        let next_word = ascii_word_at(self.text, next, limit);
        !SENTENCE_STARTERS.contains(&next_word)
    }

    /// Whether the next word starts with a lower-case letter ("approx. five").
    fn lowercase_follows(&self, after: usize, limit: usize) -> bool {
        let next = skip_spaces(self.text, after, limit);
        next < limit
            && self.opaque_starting_at(next).is_none()
            && self.text[next..]
                .chars()
                .next()
                .is_some_and(char::is_lowercase)
    }

    /// Extends a sentence end over citation markers that follow it on the same line, and
    /// over a stray terminator or closing quote after them (`the U.S. [1] [4].`).
    fn attach(&self, from: usize, limit: usize) -> usize {
        let mut end = from;
        loop {
            let j = skip_spaces(self.text, end, limit);
            match self.opaque_starting_at(j) {
                Some(op) if j <= limit && self.attachable(op, limit) => end = op.end,
                _ => break,
            }
        }
        if end > from && end < limit {
            let j = skip_spaces(self.text, end, limit);
            let k = self.skip_terminators(j, limit);
            let k = self.skip_closers(k, limit);
            if k > j && self.boundary_follows(k, limit) {
                end = k;
            }
        }
        end
    }

    fn skip_terminators(&self, mut q: usize, limit: usize) -> usize {
        while let Some(c) = self.text[q..limit].chars().next() {
            if !TERMINATORS.contains(&c) {
                break;
            }
            q += c.len_utf8();
        }
        q
    }

    /// Citation markers attach to the sentence before; so does any opaque span that is
    /// the last thing on its line.
    fn attachable(&self, op: Span, limit: usize) -> bool {
        let s = &self.text[op.start..op.end];
        let marker = (s.starts_with('[') && s.ends_with(']') && !s.contains("]("))
            || (s.starts_with('【') && s.ends_with('】'));
        marker || (op.end >= limit || self.text[op.end..limit].trim().is_empty())
    }

    /// Ends the current sentence at the end of the prose read so far.
    fn flush(&mut self) {
        if self.cur.is_some() {
            let end = self.tail;
            self.emit(end);
        }
    }

    /// Ends the current sentence at `end`, keeping it if it is a claim.
    fn emit(&mut self, end: usize) {
        if let Some(start) = self.cur.take() {
            if let Some(span) = trim_span(self.text, start, end) {
                // Sentences come in order: move the cursor for their opaque spans.
                while self
                    .opaque
                    .get(self.claim_opaque)
                    .is_some_and(|s| s.end <= span.start)
                {
                    self.claim_opaque += 1;
                }
                if self.is_claim(span) {
                    self.out.push(span);
                }
            }
        }
        self.pos = self.pos.max(end);
    }

    /// Whether a sentence is a claim: not a fragment, question, greeting, sign-off, meta
    /// line or bare summing-up.
    fn is_claim(&self, span: Span) -> bool {
        if self.visible_counts(span, FRAGMENT_CAP).is_fragment() || self.is_question(span) {
            return false;
        }
        let lead = lead_text(&self.text[span.start..span.end]);
        if !LEAD_FILTER.may_start(lead) {
            return true;
        }
        if starts_with_any(lead, &SIGN_OFF_PHRASES) {
            return false;
        }
        if starts_with_any(lead, &GREETING_PHRASES)
            && self.visible_counts(span, COUNT_CAP).words <= GREETING_MAX_WORDS
        {
            return !self.has_figure(span);
        }
        if starts_with_any(lead, &META_PHRASES) {
            let colon = lead.trim_end().ends_with([':', '：']);
            return !colon && self.has_figure(span);
        }
        if starts_with_any(lead, &CONCLUSION_PHRASES) {
            return self.has_figure(span);
        }
        if let Some(stamp) = STAMP_PHRASES.first_match(lead) {
            if lead.get(stamp.len()..).is_some_and(starts_with_date)
                && self.visible_counts(span, STAMP_MAX_WORDS + 1).words <= STAMP_MAX_WORDS
            {
                return false;
            }
        }
        true
    }

    /// Word and CJK character counts of a span, opaque spans left out, counted up to `cap`.
    fn visible_counts(&self, span: Span, cap: usize) -> Counts {
        let mut counts = Counts::with_cap(cap);
        let mut cursor = span.start;
        let k = partition_point_near(self.opaque, self.claim_opaque, |s| s.end <= span.start);
        for op in self.opaque[k..].iter().take_while(|s| s.start < span.end) {
            if op.start > cursor {
                counts.feed(&self.text[cursor..op.start]);
            }
            counts.separate();
            cursor = cursor.max(op.end);
        }
        if cursor < span.end {
            counts.feed(&self.text[cursor..span.end]);
        }
        counts.separate();
        counts
    }

    /// Whether the sentence ends in a question mark (before closers and markers).
    fn is_question(&self, span: Span) -> bool {
        let mut end = span.end;
        loop {
            let head = self.text[span.start..end].trim_end();
            end = span.start + head.len();
            let k = partition_point_near(self.opaque, self.claim_opaque, |s| s.end < end);
            if let Some(op) = self
                .opaque
                .get(k)
                .filter(|s| s.end == end && s.start > span.start)
            {
                end = op.start;
                continue;
            }
            match head.chars().next_back() {
                Some(c) if CLOSERS.contains(&c) => end -= c.len_utf8(),
                Some(c) => return c == '?' || c == '？',
                None => return false,
            }
        }
    }

    /// Whether the sentence carries a figure (number, date, percentage or money) outside
    /// its opaque spans.
    fn has_figure(&self, span: Span) -> bool {
        let mut blanked = self.text[span.start..span.end].to_string();
        let k = self.opaque.partition_point(|s| s.end <= span.start);
        for op in self.opaque[k..].iter().take_while(|s| s.start < span.end) {
            let a = op.start.max(span.start) - span.start;
            let b = op.end.min(span.end) - span.start;
            blanked.replace_range(a..b, &" ".repeat(b - a));
        }
        claim_signals(&blanked).iter().any(|s| {
            matches!(
                s,
                ClaimSignal::Number
                    | ClaimSignal::Date
                    | ClaimSignal::Percentage
                    | ClaimSignal::Money
            )
        })
    }
}

/// Counting stops once words and CJK characters together reach this: every rule that
/// reads the counts is decided by then.
const COUNT_CAP: usize = 16;

/// A smaller cap that decides the fragment and quotation-length rules (but not the
/// greeting rule): once words and CJK characters together reach it, a sentence is no
/// fragment under either branch of [`Counts::is_fragment`] and a quotation has three
/// words or four CJK characters. The counts only grow, so stopping here gives the same
/// answers as counting on to [`COUNT_CAP`].
const FRAGMENT_CAP: usize = if MIN_CJK_UNITS > MIN_WORDS {
    MIN_CJK_UNITS
} else {
    MIN_WORDS
};

/// Word counts for the fragment and greeting rules, capped at `cap` (at most
/// [`COUNT_CAP`]).
struct Counts {
    /// Whitespace-separated tokens with a letter or digit that is not CJK.
    words: usize,
    /// CJK characters.
    cjk: usize,
    in_token: bool,
    token_counts: bool,
    cap: usize,
}

impl Counts {
    fn with_cap(cap: usize) -> Self {
        Counts {
            words: 0,
            cjk: 0,
            in_token: false,
            token_counts: false,
            cap,
        }
    }

    /// Counts the words and CJK characters of `s`. Works on bytes and decodes a char only
    /// where a non-ASCII byte starts one.
    fn feed(&mut self, s: &str) {
        let bytes = s.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            if bytes[i].is_ascii() {
                i = self.feed_ascii(bytes, i);
            }
            if i >= bytes.len() || self.words + self.cjk >= self.cap {
                return;
            }
            let Some(c) = s[i..].chars().next() else {
                return;
            };
            // (No CJK character is whitespace; the cheaper test goes first.)
            if is_cjk(c) {
                self.cjk += 1;
                self.separate();
            } else if c.is_whitespace() {
                self.separate();
            } else {
                self.in_token = true;
                self.token_counts |= c.is_alphanumeric();
            }
            i += c.len_utf8();
        }
    }

    /// [`Self::feed`] for the ASCII bytes from `i` on, up to the first non-ASCII byte or
    /// the cap; returns where it stopped (when the cap is reached: anywhere).
    ///
    /// It reads up to [`masks::BLOCK`] bytes at a time from bit masks, without a branch
    /// per byte. Byte by byte, whitespace ends a token, and the token counts as a word if
    /// it has a letter or digit: `has[p] = token[p] & (has[p - 1] | alnum[p])`. The bytes
    /// where `has` is still false are the runs of plain (non-alphanumeric) token bytes
    /// that begin a token; adding each run's first bit to the plain mask carries through
    /// the run and clears it, which picks those runs out. A word ends at each whitespace
    /// byte after a byte where `has` holds. Words only grow at whitespace, so when a
    /// block would reach the cap, counting stops just after a whitespace byte, with no
    /// token open.
    fn feed_ascii(&mut self, bytes: &[u8], mut i: usize) -> usize {
        let max_words = self.cap.saturating_sub(self.cjk);
        while i < bytes.len() && self.words < max_words {
            let non_ascii = masks::at(bytes, i, |c| !c.is_ascii());
            let n = (non_ascii.trailing_zeros() as usize).min(bytes.len() - i);
            if n == 0 {
                break;
            }
            let valid = low_bits(n);
            let space = masks::at(bytes, i, |c| c.is_ascii_whitespace()) & valid;
            let alnum = masks::at(bytes, i, |c| c.is_ascii_alphanumeric()) & valid;
            let token = !space & valid;
            let plain = token & !alnum;
            // Token starts; bit 0 continues an open token, which is a start for the
            // plain-run pick-out only if it does not count yet.
            let starts = token & !((token << 1) | u64::from(self.in_token));
            let open_plain = u64::from(self.in_token && !self.token_counts);
            let seeds = plain & (starts | open_plain);
            let not_yet = (plain.wrapping_add(seeds) ^ plain) & plain;
            let has = token & !not_yet;
            let ends = space & ((has << 1) | u64::from(self.token_counts));
            let words = self.words + ends.count_ones() as usize;
            if words >= max_words {
                (self.words, self.in_token, self.token_counts) = (max_words, false, false);
                return i + n;
            }
            self.words = words;
            self.in_token = token >> (n - 1) & 1 == 1;
            self.token_counts = has >> (n - 1) & 1 == 1;
            i += n;
        }
        i
    }

    fn separate(&mut self) {
        if self.in_token && self.token_counts {
            self.words += 1;
        }
        self.in_token = false;
        self.token_counts = false;
    }

    fn is_fragment(&self) -> bool {
        if self.cjk > 0 {
            self.cjk + self.words < MIN_CJK_UNITS
        } else {
            self.words < MIN_WORDS
        }
    }
}

/// `spans.partition_point(pred)` (`pred` holds for a prefix of `spans`), searched from
/// index `hint`: the few spans from there are looked at one by one before a binary
/// search of the rest. Right for any hint; fast when the answer lies just after it.
fn partition_point_near(spans: &[Span], hint: usize, pred: impl Fn(&Span) -> bool) -> usize {
    let mut from = hint.min(spans.len());
    if from > 0 && !pred(&spans[from - 1]) {
        from = 0;
    }
    let rest = &spans[from..];
    from + match rest.iter().take(4).position(|s| !pred(s)) {
        Some(k) => k,
        None => rest.partition_point(&pred),
    }
}

fn trim_span(text: &str, start: usize, end: usize) -> Option<Span> {
    let end = end.min(text.len());
    if start >= end || !text.is_char_boundary(start) || !text.is_char_boundary(end) {
        return None;
    }
    let s = &text[start..end];
    let lead = s.len() - s.trim_start().len();
    let kept = s.trim().len();
    (kept > 0).then(|| Span::new(start + lead, start + lead + kept))
}

/// Length of a leading block-quote prefix (`> `, `>> `) with its indentation.
fn quote_prefix_len(line: &str) -> usize {
    let mut n = 0;
    let bytes = line.as_bytes();
    loop {
        let ws = bytes[n..]
            .iter()
            .take_while(|b| **b == b' ' || **b == b'\t')
            .count();
        if bytes.get(n + ws) == Some(&b'>') {
            n += ws + 1;
        } else {
            return n;
        }
    }
}

/// Offset of a list item's text after its bullet or number, if the line is one.
fn list_content_offset(body: &str) -> Option<usize> {
    let indent = body.len() - body.trim_start().len();
    let rest = &body[indent..];
    let mut chars = rest.char_indices();
    let (_, first) = chars.next()?;
    let marker_end = if BULLETS.contains(&first) {
        first.len_utf8()
    } else {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 || digits > 3 || !matches!(rest.as_bytes().get(digits), Some(b'.' | b')')) {
            return None;
        }
        digits + 1
    };
    let after = &rest[marker_end..];
    let spaces = after.len() - after.trim_start().len();
    if spaces == 0 || after.trim().is_empty() {
        return None;
    }
    Some(indent + marker_end + spaces)
}

/// A display-math line: `$$ … $$`.
fn is_display_math(trimmed: &str) -> bool {
    trimmed.len() > 4 && trimmed.starts_with("$$") && trimmed.ends_with("$$")
}

/// A line that opens with a citation marker (`[3] …`), as reference entries do.
fn starts_with_citation(trimmed: &str) -> bool {
    let Some(rest) = trimmed.strip_prefix('[') else {
        return false;
    };
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    digits > 0 && rest[digits..].starts_with(']')
}

/// `---`, `***`, `___` (possibly spaced) and setext `===` underlines.
fn is_rule(trimmed: &str) -> bool {
    let Some(first) = trimmed.chars().next() else {
        return false;
    };
    if !matches!(first, '-' | '*' | '_' | '=') {
        return false;
    }
    let marks = trimmed.chars().filter(|&c| c == first).count();
    marks >= 3 && trimmed.chars().all(|c| c == first || c == ' ' || c == '\t')
}

/// Table rows (`| a | b |`) and separator rows (`---|---`).
fn is_table_row(trimmed: &str) -> bool {
    // The character test first: it fails at once on prose, where searching the whole
    // line for `|` would not.
    trimmed.starts_with('|')
        || (trimmed
            .bytes()
            .all(|c| matches!(c, b'|' | b'-' | b':' | b' ' | b'\t'))
            && trimmed.contains('|')
            && trimmed.contains('-'))
}

/// `# Heading` … `###### Heading`.
fn is_atx_heading(trimmed: &str) -> bool {
    let hashes = trimmed.bytes().take_while(|&b| b == b'#').count();
    (1..=6).contains(&hashes)
        && trimmed[hashes..]
            .chars()
            .next()
            .is_none_or(char::is_whitespace)
}

/// A line that is only bold or italic text (`**Summary**`, `__Key points:__`, `*Note*:`)
/// and does not read as a finished sentence.
fn is_emphasis_only(s: &str) -> bool {
    let s = s.trim_end_matches([':', '：']).trim_end();
    let marks = s.bytes().take_while(|&b| b == b'*' || b == b'_').count();
    if marks == 0 || s.len() <= 2 * marks {
        return false;
    }
    let (open, rest) = s.split_at(marks);
    let Some(inner) = rest.strip_suffix(open) else {
        return false;
    };
    let inner = inner.trim_end_matches([':', '：']).trim();
    !inner.is_empty() && !inner.contains(open) && !ends_with_terminator(inner)
}

/// A short line without terminal punctuation that ends with a colon or is in Title Case.
fn is_label(s: &str) -> bool {
    // A label of MAX_LABEL_WORDS words is never longer than this many bytes in practice.
    // The checks are ordered cheapest and most decisive first; none has side effects.
    s.len() <= MAX_LABEL_WORDS * 24
        && !ends_with_terminator(s)
        && (s.ends_with([':', '：']) || is_title_case(s))
        && label_words(s) <= MAX_LABEL_WORDS
}

fn label_words(s: &str) -> usize {
    let cjk = s.chars().filter(|&c| is_cjk(c)).count();
    let words = s
        .split_whitespace()
        .filter(|w| w.chars().any(|c| !is_cjk(c) && c.is_alphanumeric()))
        .count();
    words + cjk / 2
}

fn ends_with_terminator(s: &str) -> bool {
    s.trim_end()
        .trim_end_matches(CLOSERS)
        .chars()
        .next_back()
        .is_some_and(|c| TERMINATORS.contains(&c))
}

/// Every cased word capitalised, except minor words after the first.
fn is_title_case(s: &str) -> bool {
    // A whitespace-separated word is judged by its first letter or digit, so it is read
    // up to there (and to its end only when that is needed): a line of CJK text without
    // spaces is turned away at its first char instead of being split up first.
    let mut cased = 0;
    let mut rest = s.trim_start();
    let mut index = 0;
    while !rest.is_empty() {
        // The word's first letter or digit, if it has one before the next whitespace.
        let first = rest
            .char_indices()
            .find(|(_, c)| c.is_whitespace() || c.is_alphanumeric())
            .filter(|(_, c)| c.is_alphanumeric());
        let end = |rest: &str| rest.find(char::is_whitespace).unwrap_or(rest.len());
        match first {
            Some((_, c)) if c.is_uppercase() => cased += 1,
            Some((k, c)) if c.is_lowercase() => {
                let word = rest[k..end(rest)].trim_end_matches(|c: char| !c.is_alphanumeric());
                if index == 0 || !contains_ignore_case(MINOR_WORDS, word) {
                    return false;
                }
            }
            Some((_, c)) if !c.is_numeric() => return false,
            _ => {}
        }
        rest = rest[end(rest)..].trim_start();
        index += 1;
    }
    cased > 0
}

/// The run of ASCII letters and dots that ends at `dot` ("e.g", "U.S", "Dr").
fn word_before(text: &str, dot: usize) -> &str {
    let bytes = text.as_bytes();
    let mut start = dot;
    while start > 0
        && dot - start < 12
        && (bytes[start - 1].is_ascii_alphabetic() || bytes[start - 1] == b'.')
    {
        start -= 1;
    }
    if start > 0 && bytes[start - 1].is_ascii_digit() {
        return "";
    }
    text[start..dot].trim_start_matches('.')
}

/// The run of ASCII letters at `at`, not past `limit`.
fn ascii_word_at(text: &str, at: usize, limit: usize) -> &str {
    let bytes = text.as_bytes();
    let len = bytes[at..limit.min(bytes.len())]
        .iter()
        .take_while(|b| b.is_ascii_alphabetic())
        .count();
    &text[at..at + len]
}

/// The first byte at or after `at` that is not a space or tab (or `limit`).
fn skip_spaces(text: &str, at: usize, limit: usize) -> usize {
    let bytes = text.as_bytes();
    let mut i = at;
    while i < limit && i < bytes.len() && (bytes[i] == b' ' || bytes[i] == b'\t') {
        i += 1;
    }
    i
}

/// The sentence without leading emphasis, quotes and heading marks, for prefix rules.
fn lead_text(s: &str) -> &str {
    s.trim_start_matches(|c: char| {
        c.is_whitespace() || matches!(c, '*' | '_' | '#' | '>' | '"' | '“' | '\'' | '「' | '(')
    })
}

/// Whether `s` starts with one of the phrases (ASCII case-insensitive, `’` read as `'`),
/// ending at a word boundary when the phrase ends with a letter.
fn starts_with_any(s: &str, phrases: &Phrases) -> bool {
    phrases.first_match(s).is_some()
}

/// A phrase list for [`starts_with_any`] (at most 64 phrases), indexed by first byte:
/// bit `k` of `by_first[b]` is set when phrase `k` starts with byte `b`.
struct Phrases {
    list: &'static [&'static str],
    by_first: [u64; 256],
}

impl Phrases {
    /// The first phrase of the list (in list order) that `s` starts with, as
    /// [`starts_with_phrase`] reads it. Only the phrases that start with the right byte
    /// are tried.
    fn first_match(&self, s: &str) -> Option<&'static str> {
        let first = s.as_bytes().first()?.to_ascii_lowercase();
        self.find(first, |p| starts_with_phrase(s, p))
    }

    /// Whether `s` starts with one of the phrases, byte for byte (case-sensitive).
    fn any_exact_prefix(&self, s: &str) -> bool {
        s.as_bytes()
            .first()
            .is_some_and(|&first| self.find(first, |p| s.starts_with(p)).is_some())
    }

    /// The first phrase (in list order) starting with byte `first` that `matches`.
    fn find(&self, first: u8, matches: impl Fn(&str) -> bool) -> Option<&'static str> {
        let mut bits = self.by_first[first as usize];
        while bits != 0 {
            let k = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            if let Some(p) = self.list.get(k).filter(|p| matches(p)) {
                return Some(p);
            }
        }
        None
    }

    const fn new(list: &'static [&'static str]) -> Self {
        assert!(list.len() <= 64, "a phrase list has at most 64 phrases");
        let mut by_first = [0u64; 256];
        let mut i = 0;
        while i < list.len() {
            if let Some(b) = list[i].as_bytes().first() {
                by_first[*b as usize] |= 1 << i;
            }
            i += 1;
        }
        Phrases { list, by_first }
    }
}

/// A quick test that says "no" only when a text starts with none of the phrases of
/// [`SIGN_OFFS`], [`GREETINGS`], [`META_PREFIXES`] and [`CONCLUSION_PREFIXES`] (as
/// [`starts_with_phrase`] reads them), from the text's first three bytes (two, for the
/// two-byte phrases) hashed into bit sets. Most sentences start with none of them.
struct LeadFilter {
    three: [u64; 64],
    two: [u64; 64],
}

impl LeadFilter {
    const fn new(lists: &[&[&str]]) -> Self {
        let mut filter = LeadFilter {
            three: [0; 64],
            two: [0; 64],
        };
        let mut l = 0;
        while l < lists.len() {
            let mut i = 0;
            while i < lists[l].len() {
                filter.add(lists[l][i].as_bytes());
                i += 1;
            }
            l += 1;
        }
        filter
    }

    const fn add(&mut self, p: &[u8]) {
        assert!(
            p.len() >= 2 && p[0] != b'\'' && (p.len() >= 3 || p[1] != b'\''),
            "lead phrases have two bytes or more, and no `'` among their first two"
        );
        if p.len() < 3 {
            set_bit(&mut self.two, lead_hash(p[0], p[1], 0));
            return;
        }
        set_bit(&mut self.three, lead_hash(p[0], p[1], p[2]));
        // In a text, `’` (0xE2 0x80 0x99) may stand for a phrase's `'`.
        if p[1] == b'\'' {
            set_bit(&mut self.three, lead_hash(p[0], 0xE2, 0x80));
        }
        if p[2] == b'\'' {
            set_bit(&mut self.three, lead_hash(p[0], p[1], 0xE2));
        }
    }

    fn may_start(&self, s: &str) -> bool {
        let low = |i: usize| s.as_bytes().get(i).map(u8::to_ascii_lowercase);
        let (Some(a), Some(b)) = (low(0), low(1)) else {
            return false;
        };
        has_bit(&self.two, lead_hash(a, b, 0))
            || low(2).is_some_and(|c| has_bit(&self.three, lead_hash(a, b, c)))
    }
}

/// A hash of three bytes into 0..4096.
const fn lead_hash(a: u8, b: u8, c: u8) -> usize {
    let key = (a as u32) << 16 | (b as u32) << 8 | c as u32;
    (key.wrapping_mul(0x9E37_79B1) >> 20) as usize
}

const fn set_bit(bits: &mut [u64; 64], k: usize) {
    bits[k / 64] |= 1 << (k % 64);
}

fn has_bit(bits: &[u64; 64], k: usize) -> bool {
    bits[k / 64] & (1 << (k % 64)) != 0
}

static LEAD_FILTER: LeadFilter = LeadFilter::new(&[
    SIGN_OFFS,
    GREETINGS,
    META_PREFIXES,
    CONCLUSION_PREFIXES,
    STAMP_PREFIXES,
]);

static SIGN_OFF_PHRASES: Phrases = Phrases::new(SIGN_OFFS);
static GREETING_PHRASES: Phrases = Phrases::new(GREETINGS);
static META_PHRASES: Phrases = Phrases::new(META_PREFIXES);
static CONCLUSION_PHRASES: Phrases = Phrases::new(CONCLUSION_PREFIXES);
static STAMP_PHRASES: Phrases = Phrases::new(STAMP_PREFIXES);
static PERCENT_PHRASES: Phrases = Phrases::new(PERCENT_WORDS);
static CURRENCY_PHRASES: Phrases = Phrases::new(CURRENCY_WORDS);
static MONEY_MAGNITUDE_PHRASES: Phrases = Phrases::new(MONEY_MAGNITUDES);
static CJK_CURRENCY_PHRASES: Phrases = Phrases::new(CJK_CURRENCY_WORDS);

fn starts_with_phrase(s: &str, phrase: &str) -> bool {
    // Byte by byte: an ASCII byte of the phrase matches the same byte of `s` in either
    // case, a byte of a non-ASCII char only itself (so whole chars match whole chars),
    // and `'` also matches all three bytes of `’`.
    let b = s.as_bytes();
    let mut i = 0;
    for &p in phrase.as_bytes() {
        if p == b'\'' && b[i..].starts_with("’".as_bytes()) {
            i += "’".len();
        } else if b.get(i).is_some_and(|c| c.to_ascii_lowercase() == p) {
            i += 1;
        } else {
            return false;
        }
    }
    let needs_boundary = phrase
        .as_bytes()
        .last()
        .is_some_and(u8::is_ascii_alphanumeric);
    !needs_boundary || !s[i..].chars().next().is_some_and(char::is_alphanumeric)
}

fn contains_ignore_case(list: &[&str], word: &str) -> bool {
    list.iter().any(|w| w.eq_ignore_ascii_case(word))
}

/// A word list with the lengths of its shortest and longest words, so that words of
/// other lengths (most words before a `.`, say) are turned away without a look at the
/// list.
struct WordSet {
    list: &'static [&'static str],
    min_len: usize,
    max_len: usize,
}

impl WordSet {
    const fn new(list: &'static [&'static str]) -> Self {
        let (mut min_len, mut max_len) = (usize::MAX, 0);
        let mut i = 0;
        while i < list.len() {
            let len = list[i].len();
            if len < min_len {
                min_len = len;
            }
            if len > max_len {
                max_len = len;
            }
            i += 1;
        }
        WordSet {
            list,
            min_len,
            max_len,
        }
    }

    fn fits(&self, word: &str) -> bool {
        (self.min_len..=self.max_len).contains(&word.len())
    }

    fn contains(&self, word: &str) -> bool {
        self.fits(word) && self.list.contains(&word)
    }

    fn contains_ignore_case(&self, word: &str) -> bool {
        self.fits(word) && contains_ignore_case(self.list, word)
    }
}

static ALWAYS_ABBREVIATION_SET: WordSet = WordSet::new(ALWAYS_ABBREVIATIONS);
static AMBIGUOUS_ABBREVIATION_SET: WordSet = WordSet::new(AMBIGUOUS_ABBREVIATIONS);
static CURRENCY_CODE_SET: WordSet = WordSet::new(CURRENCY_CODES);

/// The `n` lowest bits set (`n` <= 64).
fn low_bits(n: usize) -> u64 {
    u64::MAX.checked_shr(64 - n as u32).unwrap_or(0)
}

/// Han, kana, Hangul and CJK compatibility characters.
fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF
        | 0xAC00..=0xD7AF | 0x20000..=0x2FA1F)
}

// ---------------------------------------------------------------------------------------
// Signals
// ---------------------------------------------------------------------------------------

/// Why a reader would expect a source for this sentence. `sentence` is the claim text with
/// citations and links already replaced by spaces by the caller. Empty when nothing asks
/// for one. Sorted (in [`ClaimSignal`] order), without repeats. The rules are described in
/// the module documentation.
pub fn claim_signals(sentence: &str) -> Vec<ClaimSignal> {
    let mut found = SignalSet::default();
    scan_figures(sentence, &mut found);
    scan_words(sentence, &mut found);
    scan_quotations(sentence, &mut found);
    found.to_vec()
}

/// A set of signals as bits, in [`ALL_SIGNALS`] order.
#[derive(Default, Clone, Copy)]
struct SignalSet(u8);

impl SignalSet {
    fn add(&mut self, signal: ClaimSignal) {
        if let Some(i) = ALL_SIGNALS.iter().position(|s| *s == signal) {
            self.0 |= 1 << i;
        }
    }

    fn to_vec(self) -> Vec<ClaimSignal> {
        if self.0 == 0 {
            return Vec::new();
        }
        ALL_SIGNALS
            .iter()
            .enumerate()
            .filter(|(i, _)| self.0 & (1 << i) != 0)
            .map(|(_, s)| *s)
            .collect()
    }
}

/// Finds every figure (a run of digits with inner `.,:/-` separators) and classifies it.
fn scan_figures(s: &str, found: &mut SignalSet) {
    let b = s.as_bytes();
    let first = s.len() - s.trim_start().len();
    // The bytes that may start a bracket or a digit: `[`, an ASCII digit, or 0xEF, the
    // first byte of the full-width digits `０`–`９`.
    let mut starts = masks::Finder::new(b, |c| c == b'[' || c.wrapping_sub(b'0') < 10 || c == 0xEF);
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'[' {
            if let Some(end) = citation_bracket_end(b, i) {
                i = end;
                continue;
            }
        }
        if digit_len(b, i) == 0 {
            i = starts.next(i + 1);
            continue;
        }
        let end = figure_end(b, i);
        if let Some(signal) = classify_figure(s, i, end, first) {
            found.add(signal);
        }
        i = end;
    }
}

/// Length of the digit (ASCII or full-width) at `i`, or 0.
fn digit_len(b: &[u8], i: usize) -> usize {
    match b.get(i) {
        Some(d) if d.is_ascii_digit() => 1,
        Some(0xEF) if b.get(i + 1) == Some(&0xBC) && matches!(b.get(i + 2), Some(0x90..=0x99)) => 3,
        _ => 0,
    }
}

fn figure_end(b: &[u8], mut i: usize) -> usize {
    loop {
        let d = digit_len(b, i);
        if d > 0 {
            i += d;
            continue;
        }
        if matches!(b.get(i), Some(b'.' | b',' | b':' | b'/' | b'-')) && digit_len(b, i + 1) > 0 {
            i += 1;
            continue;
        }
        return i;
    }
}

/// A citation bracket (`[1]`, `[1, 3]`, `[2-4]`, `[^1]`) starting at `i`: its end.
fn citation_bracket_end(b: &[u8], i: usize) -> Option<usize> {
    let mut j = i + 1;
    if b.get(j) == Some(&b'^') {
        j += 1;
    }
    let mut digits = 0;
    while let Some(&c) = b.get(j) {
        match c {
            b'0'..=b'9' => digits += 1,
            b',' | b' ' | b'-' => {}
            b']' => return (digits > 0).then_some(j + 1),
            _ => return None,
        }
        j += 1;
    }
    None
}

/// What one figure `s[a..e]` signals, if anything.
fn classify_figure(s: &str, a: usize, e: usize, first: usize) -> Option<ClaimSignal> {
    let b = s.as_bytes();
    let tok = &s[a..e];
    let glued = ascii_letters_before(s, a);
    if !glued.is_empty() {
        return glued_prefix_signal(glued, tok);
    }
    match a.checked_sub(1).map(|p| b[p]) {
        Some(b'#') => {
            return Some(if tok == "1" {
                ClaimSignal::Superlative
            } else {
                ClaimSignal::Number
            })
        }
        Some(b'-' | b'/') => {
            let word = ascii_letters_before(s, a - 1);
            if !word.is_empty() && !contains_ignore_case(HYPHEN_PREFIXES, word) {
                return None;
            }
        }
        _ => {}
    }
    if a == first && is_list_number(b, tok, e) {
        return None;
    }
    if tok.bytes().filter(|&c| c == b'.').count() >= 2 {
        return None;
    }
    let suffix = ascii_letters_at(s, e);
    let rest = &s[e + suffix.len()..];
    if !suffix.is_empty() {
        return suffix_signal(s, a, tok, suffix, rest);
    }
    if currency_before(s, a) {
        return Some(ClaimSignal::Money);
    }
    if percent_after(rest) {
        return Some(ClaimSignal::Percentage);
    }
    if money_after(rest) {
        return Some(ClaimSignal::Money);
    }
    if let Some(signal) = cjk_date_after(tok, rest) {
        return Some(signal);
    }
    if is_date_shape(tok) || (is_decade(tok) && (rest.starts_with("'s") || rest.starts_with("’s")))
    {
        return Some(ClaimSignal::Date);
    }
    if decade_apostrophe(s, a, tok) || month_adjacent(s, a, e) {
        return Some(ClaimSignal::Date);
    }
    Some(ClaimSignal::Number)
}

/// `1.` or `1)` at the very start of the sentence, followed by whitespace.
fn is_list_number(b: &[u8], tok: &str, e: usize) -> bool {
    tok.bytes().all(|c| c.is_ascii_digit())
        && matches!(b.get(e), Some(b'.' | b')'))
        && b.get(e + 1).is_none_or(u8::is_ascii_whitespace)
}

/// A figure glued to letters before it: versions, identifiers, quarters, fiscal years,
/// currency codes.
fn glued_prefix_signal(letters: &str, tok: &str) -> Option<ClaimSignal> {
    if letters.eq_ignore_ascii_case("q") && matches!(tok, "1" | "2" | "3" | "4") {
        return Some(ClaimSignal::Date);
    }
    if letters.eq_ignore_ascii_case("fy") {
        return Some(ClaimSignal::Date);
    }
    if CURRENCY_CODE_SET.contains(letters) {
        return Some(ClaimSignal::Money);
    }
    None
}

/// A figure with letters glued after it: decades, ordinals, units; anything else is an
/// identifier.
fn suffix_signal(s: &str, a: usize, tok: &str, suffix: &str, rest: &str) -> Option<ClaimSignal> {
    if suffix == "s" && is_decade(tok) {
        return Some(ClaimSignal::Date);
    }
    if !contains_ignore_case(UNIT_SUFFIXES, suffix) {
        return None;
    }
    if matches!(
        suffix.to_ascii_lowercase().as_str(),
        "st" | "nd" | "rd" | "th"
    ) {
        let next = rest.trim_start();
        if starts_with_phrase(next, "century") || starts_with_phrase(next, "centuries") {
            return Some(ClaimSignal::Date);
        }
        return Some(ClaimSignal::Number);
    }
    if currency_before(s, a) || money_after(rest) {
        return Some(ClaimSignal::Money);
    }
    Some(ClaimSignal::Number)
}

fn ascii_letters_before(s: &str, a: usize) -> &str {
    let b = s.as_bytes();
    let mut start = a;
    while start > 0 && b[start - 1].is_ascii_alphabetic() {
        start -= 1;
    }
    &s[start..a]
}

fn ascii_letters_at(s: &str, e: usize) -> &str {
    let n = s.as_bytes()[e..]
        .iter()
        .take_while(|c| c.is_ascii_alphabetic())
        .count();
    &s[e..e + n]
}

/// A currency symbol or code just before the figure (one space allowed).
fn currency_before(s: &str, a: usize) -> bool {
    let head = &s[..a];
    let head = head.strip_suffix(' ').unwrap_or(head);
    if head
        .chars()
        .next_back()
        .is_some_and(|c| CURRENCY_SYMBOLS.contains(&c))
    {
        return true;
    }
    let word = ascii_letters_before(head, head.len());
    !word.is_empty() && CURRENCY_CODE_SET.contains(word)
}

fn strip_one_space(s: &str) -> &str {
    s.strip_prefix([' ', '\u{a0}', '\u{202f}', '\u{2009}'])
        .unwrap_or(s)
}

fn percent_after(rest: &str) -> bool {
    let r = strip_one_space(rest);
    r.starts_with(['%', '％']) || starts_with_any(r, &PERCENT_PHRASES)
}

fn money_after(rest: &str) -> bool {
    let mut r = strip_one_space(rest);
    if let Some(m) = MONEY_MAGNITUDE_PHRASES.first_match(r) {
        r = strip_one_space(&r[m.len()..]);
    }
    r = r.strip_prefix("of ").unwrap_or(r);
    if r.starts_with(CURRENCY_SYMBOLS) || CJK_CURRENCY_PHRASES.any_exact_prefix(r) {
        return true;
    }
    let word = ascii_letters_at(r, 0);
    CURRENCY_CODE_SET.contains(word) || starts_with_any(r, &CURRENCY_PHRASES)
}

/// `2023年`, `90年代`, `3月`, `3日`, `20世纪`; a duration such as `20年` is a number.
fn cjk_date_after(tok: &str, rest: &str) -> Option<ClaimSignal> {
    let value: Option<u32> = tok.parse().ok();
    if rest.starts_with("年代") || rest.starts_with("世纪") {
        return Some(ClaimSignal::Date);
    }
    if rest.starts_with('年') {
        return Some(if is_year(tok) {
            ClaimSignal::Date
        } else {
            ClaimSignal::Number
        });
    }
    if rest.starts_with('月') && value.is_some_and(|v| (1..=12).contains(&v)) {
        return Some(ClaimSignal::Date);
    }
    if rest.starts_with(['日', '号']) && value.is_some_and(|v| (1..=31).contains(&v)) {
        return Some(ClaimSignal::Date);
    }
    None
}

fn is_year(tok: &str) -> bool {
    tok.len() == 4
        && tok.bytes().all(|c| c.is_ascii_digit())
        && tok.parse::<u32>().is_ok_and(|y| (1500..=2100).contains(&y))
}

/// `1990`-style decade starts and two-digit `90`.
fn is_decade(tok: &str) -> bool {
    tok.ends_with('0')
        && (is_year(tok) || (tok.len() == 2 && tok.bytes().all(|c| c.is_ascii_digit())))
}

/// `'90s`.
fn decade_apostrophe(s: &str, a: usize, tok: &str) -> bool {
    let before = &s[..a];
    tok.len() == 2
        && tok.ends_with('0')
        && (before.ends_with('\'') || before.ends_with('’'))
        && s[a + tok.len()..].starts_with('s')
}

/// Years, ISO dates, slash dates and year ranges.
fn is_date_shape(tok: &str) -> bool {
    if is_year(tok) {
        return true;
    }
    let parts: Vec<&str> = tok.split(['-', '/']).collect();
    let lens: Vec<usize> = parts.iter().map(|p| p.len()).collect();
    let all_digits = parts.iter().all(|p| p.bytes().all(|c| c.is_ascii_digit()));
    if !all_digits || parts.len() < 2 || parts.len() > 3 {
        return false;
    }
    match lens.as_slice() {
        [4, 2, 2] => tok.contains('-') && is_year(parts[0]),
        [1 | 2, 1 | 2, 2 | 4] => tok.contains('/'),
        [4, 2 | 4] => is_year(parts[0]),
        _ => false,
    }
}

/// A capitalised month name right before or after the figure (`March 3`, `3 March`).
fn month_adjacent(s: &str, a: usize, e: usize) -> bool {
    let head = s[..a].trim_end_matches([' ', '.']);
    let before = ascii_letters_before(head, head.len());
    let tail = s[e..].trim_start_matches([' ', ',']);
    let tail = tail.strip_prefix("of ").unwrap_or(tail);
    let after = ascii_letters_at(tail, 0);
    is_month(before) || is_month(after)
}

/// Whether `rest` (what follows a stamp word) goes on with a date: after an optional
/// `:` and `on`, a digit or a capitalised month name.
fn starts_with_date(rest: &str) -> bool {
    let rest = rest.trim_start_matches([':', '：', ' ', '\t']);
    let rest = rest.strip_prefix("on ").unwrap_or(rest).trim_start();
    rest.starts_with(|c: char| c.is_ascii_digit()) || is_month(ascii_letters_at(rest, 0))
}

fn is_month(word: &str) -> bool {
    word.chars().next().is_some_and(|c| c.is_ascii_uppercase())
        && (contains_ignore_case(&MONTH_NAMES, word)
            || contains_ignore_case(MONTH_ABBREVIATIONS, word))
}

/// Applies the word rules (superlatives, magnitudes, CJK words).
///
/// A hand-written scanner finds exactly the matches of [`WORD_RE`], much faster. The one
/// thing it does not know is Unicode case folding of the two non-ASCII letters that fold
/// onto ASCII ones (`ſ` onto `s`, the Kelvin sign `K` onto `k`); for the rare text with
/// one of those it gives up and the regular expression runs instead.
fn scan_words(s: &str, found: &mut SignalSet) {
    let mut words = SignalSet::default();
    if scan_words_fast(s, &mut words) {
        found.0 |= words.0;
        return;
    }
    for m in WORD_RE.find_iter(s) {
        if let Some(signal) = word_signal(s, m.start(), m.end()) {
            found.add(signal);
        }
    }
}

/// The matches of [`WORD_RE`], leftmost first, without the regex engine: each match is
/// classified by [`word_signal`] as the regex's would be. Returns `false` (with `found`
/// incomplete) if the text has a char that folds onto an ASCII letter.
///
/// A match can only start where a run of ASCII word characters starts (the regex's
/// `\b`), at `#`, or at a non-ASCII char. The text is read in blocks of 64 bytes, each
/// turned into bit masks of those places (see [`BlockMasks`]), so that the scan visits
/// only them and, for words, checks their length and first and last letters against the
/// lists before anything else; branching byte by byte on word boundaries would cost a
/// mispredicted branch per word. A run of CJK text is read in one go by
/// [`scan_cjk_run`].
fn scan_words_fast(s: &str, found: &mut SignalSet) -> bool {
    let words = &*WORD_INDEX;
    let cjk_starts = &*CJK_WORD_STARTS;
    let b = s.as_bytes();
    // Matches found so far end here; nothing before it may start another.
    let mut resume = 0;
    // A run of CJK text read already ends here.
    let mut read: usize = 0;
    // Whether the byte before the current block is a word character.
    let mut word_before = false;
    let mut ahead = BlockMasks::at(b, 0);
    for base in (0..b.len()).step_by(masks::BLOCK) {
        // This block's masks, and the next one's, for runs that go on into it.
        let here = ahead;
        let next = base + masks::BLOCK;
        ahead = if next < b.len() {
            BlockMasks::at(b, next)
        } else {
            BlockMasks { word: 0, other: 0 }
        };
        let run_starts = here.word & !((here.word << 1) | u64::from(word_before));
        word_before = here.word >> 63 == 1;
        let mut stops = words.long_enough(run_starts, here.word) | here.other;
        // Nothing in a CJK run read already is a stop.
        stops &= !low_bits(read.saturating_sub(base).min(masks::BLOCK));
        while stops != 0 {
            let k = stops.trailing_zeros() as usize;
            stops &= stops - 1;
            let i = base + k;
            let run_start = here.word >> k & 1 == 1;
            if !run_start && b[i] >= 0x80 {
                if folds_to_ascii(&b[i..]) {
                    return false;
                }
                if is_three_byte_lead(b[i]) {
                    // CJK text: read its run of three-byte chars at once.
                    match scan_cjk_run(s, i, &mut resume, found, cjk_starts) {
                        Some(end) => read = end,
                        None => return false,
                    }
                    stops &= !low_bits((read - base).min(masks::BLOCK));
                    continue;
                }
            }
            if i < resume {
                continue;
            }
            let matched = if run_start {
                // The run ends at the first non-word byte, maybe in a later block.
                let mut run = i + (!(here.word >> k)).trailing_zeros() as usize;
                if run == next {
                    run += (!ahead.word).trailing_zeros() as usize;
                }
                if run == next + masks::BLOCK {
                    run += b[run..]
                        .iter()
                        .take_while(|&&c| is_ascii_word_byte(c))
                        .count();
                }
                words.match_at(s, i, run)
            } else if b[i] == b'#' {
                // `#1` followed by a word boundary.
                let hash_one = b.get(i + 1) == Some(&b'1')
                    && !b.get(i + 2).is_some_and(|&c| is_ascii_word_byte(c));
                hash_one.then_some(i + 2)
            } else {
                s[i..]
                    .chars()
                    .next()
                    .and_then(|c| cjk_word_match(s, i, c, cjk_starts))
            };
            if let Some(end) = matched {
                if let Some(signal) = word_signal(s, i, end) {
                    found.add(signal);
                }
                resume = end;
            }
        }
    }
    true
}

/// Reads the run of three-byte chars (CJK text is made of them) that starts at `i`, as
/// [`scan_words_fast`] would one char at a time: it matches the CJK words at every char
/// from `resume` on (moving `resume` past each match) and looks for the Kelvin sign.
/// Returns where the run ends, or `None` if it has a Kelvin sign. The chars are read
/// without decoding, and only the few that may start a CJK word are looked at further.
fn scan_cjk_run(
    s: &str,
    i: usize,
    resume: &mut usize,
    found: &mut SignalSet,
    starts: &CjkStarts,
) -> Option<usize> {
    let b = s.as_bytes();
    let mut j = i;
    while let Some(&[lead, b1, b2]) = b.get(j..j + 3) {
        if !is_three_byte_lead(lead) {
            break;
        }
        if folds_to_ascii(&b[j..]) {
            return None;
        }
        if j >= *resume && starts.any.contains_code(three_byte_code(lead, b1, b2)) {
            let matched = s[j..]
                .chars()
                .next()
                .and_then(|c| cjk_word_match(s, j, c, starts));
            if let Some(end) = matched {
                if let Some(signal) = word_signal(s, j, end) {
                    found.add(signal);
                }
                *resume = end;
            }
        }
        j += 3;
    }
    Some(j)
}

/// Whether `b` is the first byte of a three-byte UTF-8 char (U+0800 to U+FFFF).
fn is_three_byte_lead(b: u8) -> bool {
    b & 0xF0 == 0xE0
}

/// The code point of the three-byte UTF-8 char `lead b1 b2`.
fn three_byte_code(lead: u8, b1: u8, b2: u8) -> usize {
    usize::from(lead & 0x0F) << 12 | usize::from(b1 & 0x3F) << 6 | usize::from(b2 & 0x3F)
}

/// Whether `b` starts with one of the two non-ASCII chars that Unicode case folding
/// maps onto ASCII letters: `ſ` (onto `s`) and the Kelvin sign `K` (onto `k`).
fn folds_to_ascii(b: &[u8]) -> bool {
    matches!(b.first(), Some(0xC5 | 0xE2))
        && (b.starts_with("ſ".as_bytes()) || b.starts_with("\u{212A}".as_bytes()))
}

/// Bit masks over the first [`masks::BLOCK`] bytes of a text: bit `k` stands for byte
/// `k`.
#[derive(Clone, Copy)]
struct BlockMasks {
    /// ASCII word characters `[0-9A-Za-z_]`.
    word: u64,
    /// `#` and the first bytes of non-ASCII chars (0xC0 and up).
    other: u64,
}

impl BlockMasks {
    /// The masks of the block of `text` that starts at `start`.
    fn at(text: &[u8], start: usize) -> Self {
        BlockMasks {
            word: masks::at(text, start, is_ascii_word_byte),
            other: masks::at(text, start, |c| c == b'#' || c >= 0xC0),
        }
    }
}

/// Bit masks of byte classes over blocks of text, for scans that would otherwise branch
/// byte by byte. Each mask is built in two loops the compiler turns into vector
/// instructions: one sets a flag byte (0x80 or 0) per input byte, the other packs the
/// flags eight at a time into bits. A class is a plain test on one byte.
mod masks {
    /// The most bytes one mask covers.
    pub const BLOCK: usize = 64;

    /// Bit `k` set when byte `start + k` of `text` is in the class (for the bytes up to
    /// the end of the text; `start` < `text.len()`). A block that runs past the end is
    /// read as the last [`BLOCK`] bytes of the text, shifted, or, in a text shorter than
    /// a block, from a zero-padded copy (a class must leave the zero byte out).
    #[inline]
    pub fn at(text: &[u8], start: usize, class: impl Fn(u8) -> bool) -> u64 {
        if let Some(block) = text.get(start..).and_then(|rest| rest.first_chunk()) {
            return of(block, class);
        }
        let tail = text.len().saturating_sub(start);
        if let Some(last) = text.last_chunk::<BLOCK>() {
            return of(last, class) >> (BLOCK - tail);
        }
        let mut padded = [0u8; BLOCK];
        padded[..text.len()].copy_from_slice(text);
        of(&padded, class) >> start.min(BLOCK - 1)
    }

    /// Bit `k` set when byte `k` of `block` is in the class.
    #[inline]
    fn of(block: &[u8; BLOCK], class: impl Fn(u8) -> bool) -> u64 {
        let mut flags = [0u8; BLOCK];
        for (flag, &c) in flags.iter_mut().zip(block) {
            *flag = if class(c) { 0x80 } else { 0 };
        }
        let words = flags.chunks_exact(8).map(|eight| {
            let mut word = [0u8; 8];
            word.copy_from_slice(eight);
            u64::from_le_bytes(word)
        });
        // Blocks without a byte of the class are common; they skip the packing.
        if words.clone().fold(0, |any, w| any | w) == 0 {
            return 0;
        }
        words
            .enumerate()
            .fold(0, |mask, (j, w)| mask | high_bits(w) << (8 * j))
    }

    /// The high bits of the eight bytes of `x`, as bits 0 to 7. The multiplication
    /// moves the high bit of byte `k` (shifted down to bit `8k`) to bit `56 + k`, and no
    /// two partial products meet.
    fn high_bits(x: u64) -> u64 {
        ((x >> 7) & 0x0101_0101_0101_0101).wrapping_mul(0x0102_0408_1020_4080) >> 56
    }

    /// Finds the bytes of one class in a text, left to right, building the mask of each
    /// block of [`BLOCK`] bytes (at multiples of [`BLOCK`]) once.
    pub struct Finder<'t, C> {
        text: &'t [u8],
        class: C,
        /// The block last built: its start and mask.
        block: Option<(usize, u64)>,
    }

    impl<'t, C: Fn(u8) -> bool + Copy> Finder<'t, C> {
        pub fn new(text: &'t [u8], class: C) -> Self {
            Finder {
                text,
                class,
                block: None,
            }
        }

        /// The first index at or after `from` whose byte is in the class, or the
        /// length of the text.
        #[inline]
        pub fn next(&mut self, from: usize) -> usize {
            let mut pos = from;
            while pos < self.text.len() {
                let base = pos - pos % BLOCK;
                let mask = match self.block {
                    Some((start, mask)) if start == base => mask,
                    _ => {
                        let mask = at(self.text, base, self.class);
                        self.block = Some((base, mask));
                        mask
                    }
                };
                let ahead = mask >> (pos - base);
                if ahead != 0 {
                    return pos + ahead.trailing_zeros() as usize;
                }
                pos = base + BLOCK;
            }
            self.text.len()
        }
    }
}

/// `[0-9A-Za-z_]`: the word characters of the regex's ASCII word boundary `(?-u:\b)`.
fn is_ascii_word_byte(c: u8) -> bool {
    // Written as arithmetic, so that the loops of `masks` vectorise: `| 0x20` lower-cases
    // ASCII letters and maps no other byte into `a..=z`.
    (c | 0x20).wrapping_sub(b'a') < 26 || c.wrapping_sub(b'0') < 10 || c == b'_'
}

/// The phrases of the ASCII word alternatives of [`WORD_RE`], grouped by their first
/// word (in the regex's order within a group), in a small open-addressing hash table
/// keyed by the lower-cased first word packed into a `u128`. A filter on the length and
/// the first and last letters of the first words turns most words of a text away before
/// any hashing.
struct WordIndex {
    /// `(key, group)`; key 0 marks an empty slot (no word packs to 0).
    slots: Vec<(u128, usize)>,
    groups: Vec<Vec<&'static str>>,
    /// For each first letter and length, the set of last letters (bit 0: `a`).
    filter: Vec<u32>,
    /// The length of the shortest first word.
    min_len: usize,
}

/// The longest first word [`WordIndex`] can hold: the bytes of a `u128`.
const MAX_WORD_LEN: usize = 16;

/// Slots in [`WordIndex`]: a power of two, at least twice the number of words.
const WORD_SLOTS: usize = 512;

impl WordIndex {
    fn build() -> Self {
        let mut index = WordIndex {
            slots: vec![(0, 0); WORD_SLOTS],
            groups: Vec::new(),
            filter: vec![0; 26 * (MAX_WORD_LEN + 1)],
            min_len: MAX_WORD_LEN,
        };
        for phrase in SUPERLATIVE_WORDS.iter().chain(MAGNITUDE_WORDS) {
            let first = phrase.split(' ').next().unwrap_or(phrase);
            let Some(key) = word_key(first.as_bytes()) else {
                continue;
            };
            if let Some((k, bit)) = Self::filter_entry(first.as_bytes()) {
                index.filter[k] |= bit;
            }
            index.min_len = index.min_len.min(first.len());
            let slot = index.slot(key);
            if index.slots[slot].0 == key {
                index.groups[index.slots[slot].1].push(*phrase);
            } else {
                index.slots[slot] = (key, index.groups.len());
                index.groups.push(vec![*phrase]);
            }
        }
        index
    }

    /// Where a word's first letter and length sit in `filter`, and its last letter's bit.
    /// `None` for a word that is too long or does not start and end with a letter.
    fn filter_entry(word: &[u8]) -> Option<(usize, u32)> {
        // `| 0x20` lower-cases an ASCII letter; digits and `_` stay non-letters.
        let first = word.first()? | 0x20;
        let last = word.last()? | 0x20;
        let letters = first.is_ascii_lowercase() && last.is_ascii_lowercase();
        (letters && word.len() <= MAX_WORD_LEN).then(|| {
            let k = usize::from(first - b'a') * (MAX_WORD_LEN + 1) + word.len();
            (k, 1 << (last - b'a'))
        })
    }

    /// The bits of `run_starts` (starts of runs of word characters in a block, whose
    /// mask is `word`) whose runs are at least as long as the shortest first word. Bits
    /// shifted in past the block's end count as word characters: a run there may go on.
    fn long_enough(&self, run_starts: u64, word: u64) -> u64 {
        (1..self.min_len).fold(run_starts, |starts, k| {
            starts & ((word >> k) | !(u64::MAX >> k))
        })
    }

    /// Whether `word` may be the first word of a phrase (no false negatives).
    fn may_start(&self, word: &[u8]) -> bool {
        Self::filter_entry(word).is_some_and(|(k, bit)| self.filter[k] & bit != 0)
    }

    /// The slot holding `key`, or the empty slot where it would go.
    fn slot(&self, key: u128) -> usize {
        let folded = (key as u64) ^ ((key >> 64) as u64);
        let mut slot = (folded.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as usize % WORD_SLOTS;
        while self.slots[slot].0 != key && self.slots[slot].0 != 0 {
            slot = (slot + 1) % WORD_SLOTS;
        }
        slot
    }

    /// Where the ASCII word alternative of [`WORD_RE`] that matches at `start` ends, if
    /// one does; `start..run` is a maximal run of ASCII word characters.
    fn match_at(&self, s: &str, start: usize, run: usize) -> Option<usize> {
        ascii_word_match(s, start, run, self)
    }

    /// The phrases whose first word packs to `key`, in the regex's order.
    fn phrases(&self, key: u128) -> &[&'static str] {
        let (k, group) = self.slots[self.slot(key)];
        if k == key {
            &self.groups[group]
        } else {
            &[]
        }
    }
}

static WORD_INDEX: LazyLock<WordIndex> = LazyLock::new(WordIndex::build);

/// A word of ASCII letters, lower-cased and packed into a `u128` (little-endian), or
/// `None` if it has another character or more than [`MAX_WORD_LEN`] bytes.
fn word_key(word: &[u8]) -> Option<u128> {
    if word.len() > MAX_WORD_LEN {
        return None;
    }
    let mut key = 0u128;
    for (k, &c) in word.iter().enumerate() {
        if !c.is_ascii_alphabetic() {
            return None;
        }
        // `| 0x20` lower-cases an ASCII letter.
        key |= u128::from(c | 0x20) << (8 * k);
    }
    Some(key)
}

/// Where the ASCII word alternative of [`WORD_RE`] that matches at `start` ends, if one
/// does; `start..run` is a maximal run of ASCII word characters. A phrase's spaces match
/// any run of whitespace, and its last word must end at a word boundary.
fn ascii_word_match(s: &str, start: usize, run: usize, index: &WordIndex) -> Option<usize> {
    let b = s.as_bytes();
    if !index.may_start(&b[start..run]) {
        return None;
    }
    let key = word_key(&b[start..run])?;
    index.phrases(key).iter().find_map(|phrase| {
        let mut end = run;
        for part in phrase.split(' ').skip(1) {
            let gap = s[end..]
                .char_indices()
                .find(|(_, c)| !c.is_whitespace())
                .map_or(s.len() - end, |(k, _)| k);
            let next = end + gap;
            let len = b[next..]
                .iter()
                .take_while(|&&c| is_ascii_word_byte(c))
                .count();
            if gap == 0 || !b[next..next + len].eq_ignore_ascii_case(part.as_bytes()) {
                return None;
            }
            end = next + len;
        }
        Some(end)
    })
}

/// Where the CJK alternative of [`WORD_RE`] that matches at `i` (where the char `c`
/// starts) ends, if one does. In the regex's order: a numeral (optional) and `万元` or
/// `亿元`; the CJK words of [`CJK_WORD_RULES`] but `万`; a numeral and `万`.
fn cjk_word_match(s: &str, i: usize, c: char, starts: &CjkStarts) -> Option<usize> {
    if !starts.any.contains(c) {
        return None;
    }
    let after = i + c.len_utf8();
    let numeral = starts.numerals.contains(c);
    if numeral {
        if let Some(unit) = ["万元", "亿元"].iter().find(|u| s[after..].starts_with(*u)) {
            return Some(after + unit.len());
        }
    }
    let rest = &s[i..];
    if let Some(word) = starts
        .words
        .iter()
        .find(|(first, w)| *first == c && rest.starts_with(w))
    {
        return Some(i + word.1.len());
    }
    (numeral && s[after..].starts_with('万')).then(|| after + '万'.len_utf8())
}

/// What [`cjk_word_match`] looks up: the chars a match can start with, the numerals, and
/// the CJK words of [`CJK_WORD_RULES`] but `万` (in order, each with its first char).
struct CjkStarts {
    any: CharSet,
    numerals: CharSet,
    words: Vec<(char, &'static str)>,
}

impl CjkStarts {
    fn build() -> Self {
        let words: Vec<(char, &'static str)> = CJK_WORD_RULES
            .iter()
            .filter(|(w, _)| *w != "万")
            .filter_map(|(w, _)| Some((w.chars().next()?, *w)))
            .collect();
        CjkStarts {
            any: CharSet::of(CJK_NUMERALS.chars().chain(words.iter().map(|(c, _)| *c))),
            numerals: CharSet::of(CJK_NUMERALS.chars()),
            words,
        }
    }
}

/// A set of chars, as a bitmap indexed by code point.
struct CharSet(Vec<u64>);

impl CharSet {
    fn of(chars: impl Iterator<Item = char> + Clone) -> Self {
        let words = chars
            .clone()
            .map(|c| c as usize / 64 + 1)
            .max()
            .unwrap_or(0);
        let mut bits = vec![0u64; words];
        for c in chars {
            let k = c as usize;
            bits[k / 64] |= 1 << (k % 64);
        }
        CharSet(bits)
    }

    fn contains(&self, c: char) -> bool {
        self.contains_code(c as usize)
    }

    /// Whether the code point `k` is in the set.
    fn contains_code(&self, k: usize) -> bool {
        self.0
            .get(k / 64)
            .is_some_and(|word| word & (1 << (k % 64)) != 0)
    }
}

static CJK_WORD_STARTS: LazyLock<CjkStarts> = LazyLock::new(CjkStarts::build);

fn word_signal(s: &str, a: usize, e: usize) -> Option<ClaimSignal> {
    let word = &s[a..e];
    if word == "#1" {
        return Some(ClaimSignal::Superlative);
    }
    if !word.is_ascii() {
        return cjk_word_signal(s, word, e);
    }
    let mut buf = [0u8; 32];
    let key = normalize_key(word, &mut buf)?;
    if MAGNITUDE_WORDS.contains(&key) {
        // "5 million" is one figure, classified by the figure scanner.
        if s[..a].trim_end().ends_with(|c: char| c.is_ascii_digit()) {
            return None;
        }
        return Some(if money_after(&s[e..]) {
            ClaimSignal::Money
        } else {
            ClaimSignal::Number
        });
    }
    if SUPERLATIVE_WORDS.contains(&key) && !superlative_excepted(s, key, a, e) {
        return Some(ClaimSignal::Superlative);
    }
    None
}

/// Lower-cases a matched phrase and collapses its inner whitespace, into `buf`.
fn normalize_key<'b>(word: &str, buf: &'b mut [u8; 32]) -> Option<&'b str> {
    let mut n = 0;
    let mut space = false;
    for c in word.bytes() {
        if c.is_ascii_whitespace() {
            space = true;
            continue;
        }
        if space {
            *buf.get_mut(n)? = b' ';
            n += 1;
            space = false;
        }
        *buf.get_mut(n)? = c.to_ascii_lowercase();
        n += 1;
    }
    std::str::from_utf8(&buf[..n]).ok()
}

fn superlative_excepted(s: &str, key: &str, a: usize, e: usize) -> bool {
    SUPERLATIVE_EXCEPTIONS
        .iter()
        .filter(|(word, _, _)| *word == key)
        .any(|(_, before, after)| {
            let head = &s[..a];
            let before_ok = match *before {
                "" => true,
                "^" => head
                    .trim_matches(|c: char| c.is_whitespace() || c == '*' || c == '_')
                    .is_empty(),
                b => ends_with_ignore_case(head, b),
            };
            before_ok && starts_with_ignore_case(&s[e..], after)
        })
}

fn ends_with_ignore_case(s: &str, suffix: &str) -> bool {
    s.len() >= suffix.len()
        && s.is_char_boundary(s.len() - suffix.len())
        && s[s.len() - suffix.len()..].eq_ignore_ascii_case(suffix)
}

fn starts_with_ignore_case(s: &str, prefix: &str) -> bool {
    s.len() >= prefix.len()
        && s.is_char_boundary(prefix.len())
        && s[..prefix.len()].eq_ignore_ascii_case(prefix)
}

fn cjk_word_signal(s: &str, word: &str, e: usize) -> Option<ClaimSignal> {
    let (_, signal) = CJK_WORD_RULES.iter().find(|(w, _)| word.ends_with(w))?;
    if word == "最" && s[e..].starts_with(CJK_NOT_SUPERLATIVE_AFTER) {
        return None;
    }
    Some(*signal)
}

/// Quotations of at least three words (CJK: four characters).
fn scan_quotations(s: &str, found: &mut SignalSet) {
    let mut i = 0;
    // Every opening quote starts with `"` or the lead byte 0xE2 (`“`) or 0xE3 (`「『`), so
    // the chars between two of those bytes can be passed over unread.
    while let Some(k) = memchr::memchr3(b'"', 0xE2, 0xE3, &s.as_bytes()[i..]) {
        i += k;
        let Some(c) = s[i..].chars().next() else {
            return;
        };
        let close = match c {
            '"' => Some('"'),
            '“' => Some('”'),
            '「' => Some('」'),
            '『' => Some('』'),
            _ => None,
        };
        i += c.len_utf8();
        let Some(close) = close else { continue };
        let Some(len) = s[i..].find(close) else {
            continue;
        };
        if long_quotation(&s[i..i + len]) {
            found.add(ClaimSignal::Quotation);
            return;
        }
        i += len + close.len_utf8();
    }
}

fn long_quotation(inner: &str) -> bool {
    let mut counts = Counts::with_cap(FRAGMENT_CAP);
    counts.feed(inner);
    counts.separate();
    counts.words >= 3 || counts.cjk >= 4
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(text: &str) -> Vec<&str> {
        split_claims(text, &[], &[])
            .iter()
            .map(|s| &text[s.start..s.end])
            .collect()
    }

    fn markers(text: &str) -> Vec<Span> {
        let re = Regex::new(r"\[\d+(?:,\s*\d+)*\]|https?://[^\s)\]]*[^\s)\].,;:!?]").unwrap();
        re.find_iter(text)
            .map(|m| Span::new(m.start(), m.end()))
            .collect()
    }

    fn split_marked(text: &str) -> Vec<&str> {
        split_claims(text, &markers(text), &[])
            .iter()
            .map(|s| &text[s.start..s.end])
            .collect()
    }

    fn signals(s: &str) -> Vec<ClaimSignal> {
        claim_signals(s)
    }

    use ClaimSignal::*;

    #[test]
    fn splits_plain_sentences() {
        assert_eq!(
            split("The sky is blue today. Grass is usually green! Water is wet in most places."),
            vec![
                "The sky is blue today.",
                "Grass is usually green!",
                "Water is wet in most places."
            ]
        );
    }

    #[test]
    fn abbreviations_do_not_split() {
        let t = "Many fruits, e.g. apples and pears, are sweet. Dr. Smith met Mr. Jones at St. Mary's hospital.";
        assert_eq!(
            split(t),
            vec![
                "Many fruits, e.g. apples and pears, are sweet.",
                "Dr. Smith met Mr. Jones at St. Mary's hospital."
            ]
        );
        let t =
            "Apple Inc. announced results vs. last year, i.e. better ones. See Fig. 3 for details.";
        assert_eq!(
            split(t),
            vec![
                "Apple Inc. announced results vs. last year, i.e. better ones.",
                "See Fig. 3 for details."
            ]
        );
    }

    #[test]
    fn etc_ends_a_sentence_only_before_a_new_one() {
        let t = "They sell apples, pears, etc. and other fruit. They sell tools, nails, etc. The shop is big.";
        assert_eq!(
            split(t),
            vec![
                "They sell apples, pears, etc. and other fruit.",
                "They sell tools, nails, etc.",
                "The shop is big."
            ]
        );
    }

    #[test]
    fn dotted_acronyms_and_initials() {
        let t =
            "The U.S. Congress passed the bill in May. J. R. R. Tolkien wrote the book in England.";
        assert_eq!(
            split(t),
            vec![
                "The U.S. Congress passed the bill in May.",
                "J. R. R. Tolkien wrote the book in England."
            ]
        );
        let t = "Sales rose sharply in the U.S. The rest of the world lagged behind.";
        assert_eq!(
            split(t),
            vec![
                "Sales rose sharply in the U.S.",
                "The rest of the world lagged behind."
            ]
        );
    }

    #[test]
    fn months_titles_and_numbers_abbreviated() {
        let t = "The law took effect on Jan. 5 last year. Item No. 7 was sold for approx. five dollars.";
        assert_eq!(
            split(t),
            vec![
                "The law took effect on Jan. 5 last year.",
                "Item No. 7 was sold for approx. five dollars."
            ]
        );
    }

    #[test]
    fn decimals_versions_and_domains_do_not_split() {
        let t = "Pi is about 3.14 in value. The firm raised $1.5 billion last year. Version v2.0.1 runs on Node.js and ASP.NET well. Visit example.com for more details.";
        assert_eq!(
            split(t),
            vec![
                "Pi is about 3.14 in value.",
                "The firm raised $1.5 billion last year.",
                "Version v2.0.1 runs on Node.js and ASP.NET well.",
                "Visit example.com for more details."
            ]
        );
    }

    #[test]
    fn ellipsis_inside_does_not_split() {
        let t = "He waited... and waited for the bus. Then it came… finally at noon. It was very late… The driver apologised to everyone.";
        assert_eq!(
            split(t),
            vec![
                "He waited... and waited for the bus.",
                "Then it came… finally at noon.",
                "It was very late…",
                "The driver apologised to everyone."
            ]
        );
    }

    #[test]
    fn markers_after_terminator_attach_to_the_sentence_before() {
        assert_eq!(
            split_marked("Foo is 5 in this test.[1] Bar is 6 in that test."),
            vec!["Foo is 5 in this test.[1]", "Bar is 6 in that test."]
        );
        assert_eq!(
            split_marked("Foo is 5 in this test. [1][2] Bar is 6 in that test."),
            vec!["Foo is 5 in this test. [1][2]", "Bar is 6 in that test."]
        );
        assert_eq!(
            split_marked("Foo is 5 in this test [1]. Bar is 6 in that test [2, 3]."),
            vec![
                "Foo is 5 in this test [1].",
                "Bar is 6 in that test [2, 3]."
            ]
        );
    }

    #[test]
    fn urls_are_never_split() {
        let t = "Read the guide at https://example.com/a.b?c=d. It explains the setup in detail.";
        assert_eq!(
            split_marked(t),
            vec![
                "Read the guide at https://example.com/a.b?c=d.",
                "It explains the setup in detail."
            ]
        );
    }

    #[test]
    fn closing_quotes_and_brackets_stay_with_the_sentence() {
        let t = "He said \"the plan will work.\" Then he left the room. (This happened twice in one day.) Nobody was surprised by it.";
        assert_eq!(
            split(t),
            vec![
                "He said \"the plan will work.\"",
                "Then he left the room.",
                "(This happened twice in one day.)",
                "Nobody was surprised by it."
            ]
        );
    }

    #[test]
    fn quoted_questions_and_parentheticals_do_not_split() {
        let t = "\"Why teach word roots?\" asks Alana Domingo from the press. The term (waning?) applies to mobile gaming here.";
        assert_eq!(
            split(t),
            vec![
                "\"Why teach word roots?\" asks Alana Domingo from the press.",
                "The term (waning?) applies to mobile gaming here."
            ]
        );
    }

    #[test]
    fn multi_sentence_quotations_close_where_they_end() {
        let t = "\"The film is about three women in a city. The title reflects their struggle.\" The film is similar to others.";
        assert_eq!(
            split(t),
            vec![
                "\"The film is about three women in a city.",
                "The title reflects their struggle.\"",
                "The film is similar to others."
            ]
        );
    }

    #[test]
    fn bold_sentences_split_after_emphasis() {
        let t = "**The market grew quickly.** Prices rose across the region.";
        assert_eq!(
            split(t),
            vec![
                "**The market grew quickly.**",
                "Prices rose across the region."
            ]
        );
    }

    #[test]
    fn cjk_terminators_need_no_space() {
        let t = "中国的经济增长很快。北京是中国的首都城市！这是真的吗？上海是最大的城市。[1][2]";
        let text = t;
        let got = split_marked(text);
        assert_eq!(
            got,
            vec![
                "中国的经济增长很快。",
                "北京是中国的首都城市！",
                "上海是最大的城市。[1][2]"
            ]
        );
    }

    #[test]
    fn cjk_fragments_are_dropped() {
        assert_eq!(
            split("好的。中国人口众多而且分布不均。"),
            vec!["中国人口众多而且分布不均。"]
        );
    }

    #[test]
    fn list_items_start_new_sentences_and_lose_bullets() {
        let t = "The options are these:\n- Apples grow on trees in orchards\n* Pears are often sweeter than apples\n• Plums ripen late in the summer\n1. Cherries are small and red\n2) Grapes grow on vines in rows";
        assert_eq!(
            split(t),
            vec![
                "Apples grow on trees in orchards",
                "Pears are often sweeter than apples",
                "Plums ripen late in the summer",
                "Cherries are small and red",
                "Grapes grow on vines in rows"
            ]
        );
    }

    #[test]
    fn blank_line_ends_a_sentence() {
        let t = "This paragraph has no final stop\n\nThis one starts a new sentence";
        assert_eq!(
            split(t),
            vec![
                "This paragraph has no final stop",
                "This one starts a new sentence"
            ]
        );
    }

    #[test]
    fn wrapped_lines_join() {
        let t = "This sentence is wrapped\nacross two lines of text. Next one is here.";
        assert_eq!(
            split(t),
            vec![
                "This sentence is wrapped\nacross two lines of text.",
                "Next one is here."
            ]
        );
    }

    #[test]
    fn headings_are_not_claims() {
        let t = "# Market Overview\n## The Largest Firms In 2023\nThe market grew 5% last year.\n**Summary**\nSales rose in every single region.\n__Key points__\nKey Findings And Results\nProfits fell in the third quarter.\nWhat we learned:\nCosts rose faster than expected.";
        assert_eq!(
            split(t),
            vec![
                "The market grew 5% last year.",
                "Sales rose in every single region.",
                "Profits fell in the third quarter.",
                "Costs rose faster than expected."
            ]
        );
    }

    #[test]
    fn setext_rules_and_tables_are_skipped() {
        let t = "Market Report Title\n===================\n\nThe market grew a lot in 2020.\n\n---\n\n| Year | Sales figure here |\n|------|-------|\n| 2020 | 5 |\n\nPrices fell sharply in 2021.";
        assert_eq!(
            split(t),
            vec![
                "The market grew a lot in 2020.",
                "Prices fell sharply in 2021."
            ]
        );
    }

    #[test]
    fn bold_list_label_is_skipped_but_bold_lead_in_is_kept() {
        let t = "- **Benefits**\n- **Cost:** The plan costs less than the old one.";
        assert_eq!(
            split(t),
            vec!["**Cost:** The plan costs less than the old one."]
        );
    }

    #[test]
    fn greetings_and_sign_offs_are_dropped() {
        let t = "Hi! Hello there! Sure! Great question. The tower is 330 metres tall. I hope this helps. Let me know if you need anything else. Happy to help with more questions.";
        assert_eq!(split(t), vec!["The tower is 330 metres tall."]);
    }

    #[test]
    fn meta_lines_are_dropped() {
        let t = "Here's what I found:\nThe bridge opened to traffic in 1937.\nHere is a summary of the main points.\nLet me search for more specific information now.";
        assert_eq!(split(t), vec!["The bridge opened to traffic in 1937."]);
    }

    #[test]
    fn date_stamps_are_dropped_and_sentences_that_start_alike_are_kept() {
        let t = "Updated 12 Jan 2025\n\nLast updated: 3 March 2024\n\nPublished 2024-05-01 by the platform team\n\nAs of March 2025\n\nUpdated guidance cuts the limit to 5 requests.\n\nPublished studies found a 12% drop in 2023.\n\nUpdated 12 Jan 2025: the limit rose to 500 requests a second for every paying customer.";
        assert_eq!(
            split(t),
            vec![
                "Updated guidance cuts the limit to 5 requests.",
                "Published studies found a 12% drop in 2023.",
                "Updated 12 Jan 2025: the limit rose to 500 requests a second for every paying customer."
            ]
        );
    }

    #[test]
    fn conclusions_without_figures_are_dropped() {
        let t = "In conclusion, the policy has broad effects on people. In summary, revenue grew 12% over the decade. To summarize, it matters a great deal. Overall, the results were mixed for everyone. Overall costs rose steadily over time.";
        assert_eq!(
            split(t),
            vec![
                "In summary, revenue grew 12% over the decade.",
                "Overall costs rose steadily over time."
            ]
        );
    }

    #[test]
    fn conclusion_figure_inside_a_marker_does_not_count() {
        let t = "In conclusion, the policy has broad effects on people [5].";
        assert!(split_marked(t).is_empty());
    }

    #[test]
    fn questions_are_dropped() {
        let t = "Why does this happen so often? Because the pipes are old. Is it safe to drink? [2] The water is tested daily.";
        assert_eq!(
            split_marked(t),
            vec!["Because the pipes are old.", "The water is tested daily."]
        );
    }

    #[test]
    fn short_fragments_are_dropped() {
        assert_eq!(
            split("Yes. It works. This one has enough words."),
            vec!["This one has enough words."]
        );
    }

    #[test]
    fn excluded_spans_end_sentences_and_are_never_included() {
        let t = "Install the tool first now `cargo install x` and then run it twice today.";
        let a = t.find('`').unwrap();
        let b = t.rfind('`').unwrap() + 1;
        let got = split_claims(t, &[], &[Span::new(a, b)]);
        let texts: Vec<&str> = got.iter().map(|s| &t[s.start..s.end]).collect();
        assert_eq!(
            texts,
            vec!["Install the tool first now", "and then run it twice today."]
        );
        assert!(got.iter().all(|s| !s.overlaps(&Span::new(a, b))));
    }

    #[test]
    fn code_block_lines_are_excluded() {
        let t = "Run the following command now.\n```\nls -la. Then more code here.\n```\nThe output lists all the files.";
        let a = t.find("```").unwrap();
        let b = t.rfind("```").unwrap() + 3;
        let got = split_claims(t, &[], &[Span::new(a, b)]);
        let texts: Vec<&str> = got.iter().map(|s| &t[s.start..s.end]).collect();
        assert_eq!(
            texts,
            vec![
                "Run the following command now.",
                "The output lists all the files."
            ]
        );
    }

    #[test]
    fn invalid_spans_are_repaired() {
        let t = "Héllo wörld is a phrase. Ünïcode text is handled well here.";
        let got = split_claims(
            t,
            &[Span::new(50, 2), Span::new(2, 3), Span::new(1000, 2000)],
            &[Span::new(2, 1)],
        );
        for s in &got {
            assert!(t.is_char_boundary(s.start) && t.is_char_boundary(s.end));
        }
    }

    #[test]
    fn signal_percentage() {
        for s in [
            "Growth was 45% last quarter",
            "Growth was 45 % overall",
            "It rose 4.5 percent",
            "It rose 3 per cent",
            "增长了百分之五",
            "增长了５％",
        ] {
            assert!(signals(s).contains(&Percentage), "{s}");
        }
        assert_eq!(signals("Growth was 45% this week"), vec![Percentage]);
    }

    #[test]
    fn signal_money() {
        for s in [
            "It cost $5 to make",
            "Revenue hit €3.2bn",
            "Price is £40 now",
            "It costs ¥500",
            "Paid ₹20 each",
            "USD 5 per unit",
            "Price is 5 EUR",
            "It cost 5 million dollars",
            "millions of dollars were lost",
            "投资了3万元",
            "收入2亿元",
            "价值10美元",
            "Fees reached $5B",
        ] {
            assert!(signals(s).contains(&Money), "{s}");
        }
        assert!(!signals("It cost $5 to make").contains(&Number));
    }

    #[test]
    fn signal_date() {
        for s in [
            "It was founded in 1998",
            "On March 3, 2021 it opened",
            "Open from 3 March onwards",
            "Released 2021-03-03",
            "Results for Q3 2023",
            "2023年的数据",
            "3月的销量",
            "Popular in the 1990s",
            "Built in the 19th century",
            "Started mid-2023 only",
            "Released on 3/3/2021",
        ] {
            assert!(signals(s).contains(&Date), "{s}");
        }
        assert_eq!(signals("It was founded in 1998"), vec![Date]);
        assert!(!signals("There were 2500 people").contains(&Date));
    }

    #[test]
    fn signal_number() {
        for s in [
            "There are 12 members",
            "About 1,234 people came",
            "It weighs 5kg in total",
            "A 10x improvement",
            "Python 3 is common",
            "第1级是统治阶层",
            "过去20年增长很快",
        ] {
            assert!(signals(s).contains(&Number), "{s}");
        }
    }

    #[test]
    fn spelled_magnitudes_are_numbers() {
        for s in [
            "Three million people live there",
            "Thousands of people came",
            "Sales doubled",
            "Half of them left",
            "It is twice as fast",
            "人口达到十四亿",
            "有五万人参加",
        ] {
            assert!(signals(s).contains(&Number), "{s}");
        }
    }

    #[test]
    fn number_exclusions() {
        for s in [
            "1. Apples are good",
            "Upgrade to v2 now",
            "Release v2.0.1 is out",
            "HTTP/2 is faster",
            "GPT-4 is a model",
            "COVID-19 spread widely",
            "Water is H2O",
            "The 4IR changes work",
            "It renders in 3D",
            "Version 2.0.1 is out",
        ] {
            let got = signals(s);
            assert!(
                !got.contains(&Number) && !got.contains(&Date),
                "{s}: {got:?}"
            );
        }
        assert!(signals("It grew a lot   ").is_empty());
        assert!(signals("It grew a lot [1] and [2, 3]").is_empty());
    }

    #[test]
    fn signal_quotation() {
        assert!(signals("He said \"we will win this\" today").contains(&Quotation));
        assert!(signals("He said “we will win this” today").contains(&Quotation));
        assert!(signals("他说「我们一定会赢」").contains(&Quotation));
        assert!(!signals("The so-called \"experts\" disagree").contains(&Quotation));
        assert!(!signals("The \"middle class\" shrank").contains(&Quotation));
        assert!(!signals("所谓的\"中惨\"现象").contains(&Quotation));
    }

    #[test]
    fn signal_superlative() {
        for s in [
            "It is the largest city",
            "The best result so far",
            "She was the first woman",
            "The only option left",
            "A record high",
            "The #1 brand",
            "It is number one",
            "The leading cause of death",
            "The top seller",
            "The wealthiest family",
            "这是最大的城市",
            "排名第一",
            "首个登月的人",
            "唯一的选择",
        ] {
            assert!(signals(s).contains(&Superlative), "{s}");
        }
    }

    #[test]
    fn superlative_exclusions() {
        for s in [
            "It keeps the interest low",
            "A test of the rest",
            "The forest is quiet",
            "I suggest a request",
            "The latest version",
            "It is not only cheap",
            "This is leading to problems",
            "Use best practices",
            "It will most likely rain",
            "At first it was hard",
            "First, open the box",
            "We need to record data",
            "Record the date in the log",
            "First-line treatment works",
            "On top of that it rains",
            "最后我们回家了",
            "最新的版本",
            "最近很忙",
        ] {
            assert!(!signals(s).contains(&Superlative), "{s}");
        }
    }

    #[test]
    fn signals_are_sorted_and_unique() {
        let got = signals("In 2020 the largest firm earned $5 billion, 12% more, and \"we are very happy\" said 3 people, 5 of them.");
        assert_eq!(
            got,
            vec![Number, Date, Percentage, Money, Quotation, Superlative]
        );
        assert!(signals("The cat sat on the mat").is_empty());
    }

    #[test]
    fn case_insensitive_words() {
        assert!(signals("THE LARGEST CITY").contains(&Superlative));
        assert!(signals("Two MILLION people").contains(&Number));
    }

    #[test]
    fn random_input_never_panics() {
        let pieces = [
            "a",
            "Foo",
            " ",
            "  ",
            "\n",
            "\n\n",
            ".",
            "!",
            "?",
            "…",
            "。",
            "！",
            "？",
            "[1]",
            "e.g.",
            "U.S.",
            "中国",
            "日本語",
            "한국어",
            "é",
            "👍🏽",
            "\u{0301}",
            "- ",
            "* ",
            "1. ",
            "# ",
            "**",
            "\"",
            "“",
            "”",
            "「",
            "」",
            "$",
            "5",
            "2023",
            "%",
            "年",
            "最",
            "|",
            "---",
            "\r\n",
            "\t",
            ":",
            "：",
            "https://x.y/z.",
            "\u{a0}",
            "\u{3000}",
            "(",
            ")",
            "Mr.",
            "...",
            "'",
            "’",
            "`",
            ">",
        ];
        let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..2000 {
            let n = (next() % 40) as usize;
            let mut text = String::new();
            for _ in 0..n {
                text.push_str(pieces[(next() % pieces.len() as u64) as usize]);
            }
            let bounds: Vec<usize> = (0..=text.len())
                .filter(|&i| text.is_char_boundary(i))
                .collect();
            let mut cuts: Vec<usize> = (0..(next() % 8))
                .map(|_| bounds[(next() % bounds.len() as u64) as usize])
                .collect();
            cuts.sort_unstable();
            cuts.dedup();
            let mut opaque = Vec::new();
            let mut excluded = Vec::new();
            for (k, w) in cuts.windows(2).enumerate() {
                if k % 2 == 0 {
                    if next() % 2 == 0 {
                        opaque.push(Span::new(w[0], w[1]));
                    } else {
                        excluded.push(Span::new(w[0], w[1]));
                    }
                }
            }
            let got = split_claims(&text, &opaque, &excluded);
            let mut prev_end = 0;
            for s in &got {
                assert!(s.start < s.end && s.end <= text.len(), "{text:?} {s:?}");
                assert!(s.start >= prev_end, "{text:?} {got:?}");
                assert!(text.is_char_boundary(s.start) && text.is_char_boundary(s.end));
                assert!(
                    excluded.iter().all(|e| !e.overlaps(s)),
                    "{text:?} {s:?} {excluded:?}"
                );
                prev_end = s.end;
                let sig = claim_signals(&text[s.start..s.end]);
                assert!(sig.windows(2).all(|w| w[0] < w[1]));
            }
            claim_signals(&text);
        }
    }
}
