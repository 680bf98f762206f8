//! The word tables of the claim rules: abbreviations and sentence starters for
//! splitting, the phrases that mark non-claims (greetings, sign-offs, meta lines,
//! summing-up, stamps), and the words behind each signal (superlatives, magnitudes,
//! currencies, months, CJK words), with the regular expression built from them.

use super::*;

// ---------------------------------------------------------------------------------------
// Rule data: sentence splitting
// ---------------------------------------------------------------------------------------

/// Abbreviations (lower-case, without the final dot) after which a `.` never ends a
/// sentence.
pub(super) const ALWAYS_ABBREVIATIONS: &[&str] = &[
    "e.g", "i.e", "c", "dr", "mr", "mrs", "ms", "prof", "vs", "v", "fig", "figs", "approx", "st",
    "mt", "cf", "ca", "viz", "gen", "gov", "sen", "rep", "rev", "hon", "capt", "lt", "col", "sgt",
    "p", "pp", "vol", "ch", "sec", "eq", "ref", "refs", "dept", "est", "op",
];

/// Abbreviations after which a `.` ends a sentence only when the next word is one of
/// [`SENTENCE_STARTERS`] (or nothing follows on the line). Dotted acronyms (`U.S.`,
/// `p.m.`, `Ph.D.`) and single capital initials (`J. R. R. Tolkien`) behave the same.
pub(super) const AMBIGUOUS_ABBREVIATIONS: &[&str] = &[
    "etc", "inc", "ltd", "corp", "co", "jr", "sr", "llc", "plc", "bros", "al", "ed", "eds", "jan",
    "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
];

/// Words that open sentences often enough that, after an ambiguous abbreviation, they
/// mean a new sentence has begun ("… in the U.S. The market …").
pub(super) const SENTENCE_STARTERS: &[&str] = &[
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
pub(super) const CLOSERS: &[char] = &[
    '"', '\'', ')', ']', '}', '”', '’', '»', '」', '』', '）', '】', '》', '〕', '*', '_', '~',
];

/// Sentence terminators.
pub(super) const TERMINATORS: &[char] = &['.', '!', '?', '…', '。', '！', '？'];

/// List bullets that open a list item when followed by a space.
pub(super) const BULLETS: &[char] = &['-', '*', '+', '•', '◦', '▪', '‣'];

/// Lower-case words that may stay lower-case in a Title Case heading.
pub(super) const MINOR_WORDS: &[&str] = &[
    "a", "an", "the", "and", "or", "nor", "but", "of", "in", "on", "for", "to", "with", "by", "at",
    "from", "as", "vs", "via", "into", "onto", "per", "over", "under", "about",
];

/// The most words a line may have to be taken for a label or heading.
pub(super) const MAX_LABEL_WORDS: usize = 8;

// ---------------------------------------------------------------------------------------
// Rule data: non-claims
// ---------------------------------------------------------------------------------------

/// Openings of sign-offs and pleasantries: a sentence that starts with one is never a
/// claim.
pub(super) const SIGN_OFFS: &[&str] = &[
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
pub(super) const GREETINGS: &[&str] = &[
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
pub(super) const GREETING_MAX_WORDS: usize = 10;

/// Openings of meta lines, where the answer talks about itself or its own research: a
/// sentence that starts with one is not a claim unless it carries a figure and does not
/// end with a colon.
pub(super) const META_PREFIXES: &[&str] = &[
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
pub(super) const STAMP_PREFIXES: &[&str] = &[
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
pub(super) const STAMP_MAX_WORDS: usize = 8;

/// Openings of summing-up sentences: a sentence that starts with one is a claim only if
/// it carries a figure (number, date, percentage or money).
pub(super) const CONCLUSION_PREFIXES: &[&str] = &[
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
pub(super) const MIN_WORDS: usize = 4;

/// A sentence with CJK text and fewer CJK characters plus other words than this is a
/// fragment.
pub(super) const MIN_CJK_UNITS: usize = 6;

// ---------------------------------------------------------------------------------------
// Rule data: signals
// ---------------------------------------------------------------------------------------

/// Superlatives and record words (lower-case). `-est` adjectives are listed one by one.
pub(super) const SUPERLATIVE_WORDS: &[&str] = &[
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
pub(super) const SUPERLATIVE_EXCEPTIONS: &[(&str, &str, &str)] = &[
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
pub(super) const MAGNITUDE_WORDS: &[&str] = &[
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
pub(super) const CJK_WORD_RULES: &[(&str, ClaimSignal)] = &[
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
pub(super) const CJK_NOT_SUPERLATIVE_AFTER: &[char] = &['后', '後', '终', '終', '近', '新', '初'];

/// Chinese numerals that make a following `万` a magnitude.
pub(super) const CJK_NUMERALS: &str = "一二三四五六七八九十百千两几数";

/// Currency symbols.
pub(super) const CURRENCY_SYMBOLS: &[char] =
    &['$', '€', '£', '¥', '₹', '₩', '￥', '₽', '₺', '₱', '฿'];

/// Currency codes (upper-case only).
pub(super) const CURRENCY_CODES: &[&str] = &[
    "USD", "EUR", "GBP", "JPY", "CNY", "RMB", "INR", "KRW", "CHF", "CAD", "AUD", "HKD", "SGD",
    "BRL", "RUB", "MXN", "SEK", "NOK", "DKK", "ZAR", "NZD", "TWD", "THB", "IDR", "TRY", "PLN",
    "SAR", "AED", "NGN", "EGP", "PKR", "VND", "PHP", "MYR", "ILS", "CZK", "HUF", "Rs",
];

/// Currency words after a figure or magnitude (lower-case).
pub(super) const CURRENCY_WORDS: &[&str] = &[
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
pub(super) const CJK_CURRENCY_WORDS: &[&str] = &[
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
pub(super) const MONEY_MAGNITUDES: &[&str] = &[
    "million", "billion", "trillion", "thousand", "hundred", "bn", "mn", "m", "k", "b", "万亿",
    "百万", "千万", "万", "亿", "千", "百",
];

/// Words after a figure that make it a percentage (lower-case).
pub(super) const PERCENT_WORDS: &[&str] =
    &["percent", "per cent", "pct", "percentage point", "个百分点"];

/// Letters glued after a figure that keep it a figure: ordinals, units and magnitudes
/// (lower-case). Other glued letters make an identifier (`4IR`, `3D`).
pub(super) const UNIT_SUFFIXES: &[&str] = &[
    "st", "nd", "rd", "th", "k", "m", "b", "bn", "mn", "x", "km", "kg", "mg", "gb", "mb", "tb",
    "kb", "mw", "gw", "kw", "kwh", "mwh", "gwh", "twh", "mph", "kph", "cm", "mm", "ml", "l", "t",
    "h", "hr", "hrs", "min", "ms", "ft", "lb", "lbs", "oz", "mi", "ha", "yr", "yrs", "bps", "ppm",
    "ppb", "sq", "m2", "km2", "s",
];

/// Words before a hyphen that leave the figure after it a date or number
/// (`mid-2023`); after any other word the hyphen makes a name (`COVID-19`, `GPT-4`).
pub(super) const HYPHEN_PREFIXES: &[&str] = &[
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
pub(super) const MONTH_ABBREVIATIONS: &[&str] = &[
    "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
];

/// Every signal, in the order [`claim_signals`] returns them.
pub(super) const ALL_SIGNALS: [ClaimSignal; 6] = [
    ClaimSignal::Number,
    ClaimSignal::Date,
    ClaimSignal::Percentage,
    ClaimSignal::Money,
    ClaimSignal::Quotation,
    ClaimSignal::Superlative,
];

/// The regular expression for the word rules, built once from the lists above.
pub(super) static WORD_RE: LazyLock<Regex> = LazyLock::new(build_word_regex);

pub(super) fn build_word_regex() -> Regex {
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
