//! The words and signs that make a number a figure of some kind: currencies (signs,
//! codes, words), sizes in bytes, time zones, the hours' `am`/`pm`, and the words that
//! make a rate (`per second`, `a year`, `/s`). Lookups only; reading is in `parse`.

/// Currency signs written before an amount, and the currency they mean.
const SIGNS: [(char, &str); 7] = [
    ('$', "USD"),
    ('€', "EUR"),
    ('£', "GBP"),
    ('¥', "JPY"),
    ('₹', "INR"),
    ('₩', "KRW"),
    ('₽', "RUB"),
];

/// Letters glued before `$` that name another dollar (`C$`, `A$`; `US$` is the US one).
const DOLLAR_PREFIXES: [(&str, &str); 9] = [
    ("US", "USD"),
    ("U.S.", "USD"),
    ("C", "CAD"),
    ("CA", "CAD"),
    ("A", "AUD"),
    ("AU", "AUD"),
    ("NZ", "NZD"),
    ("HK", "HKD"),
    ("S", "SGD"),
];

/// ISO codes read as currencies when written beside an amount (`USD 4.5 million`,
/// `30 EUR`).
const CODES: [&str; 14] = [
    "USD", "EUR", "GBP", "JPY", "CNY", "RMB", "INR", "CHF", "CAD", "AUD", "NZD", "HKD", "SGD",
    "KRW",
];

/// Currency words written after an amount (`30 euros`, `4.5 million dollars`).
const WORDS: [(&str, &str); 11] = [
    ("dollar", "USD"),
    ("dollars", "USD"),
    ("euro", "EUR"),
    ("euros", "EUR"),
    ("yen", "JPY"),
    ("yuan", "CNY"),
    ("renminbi", "CNY"),
    ("rupee", "INR"),
    ("rupees", "INR"),
    ("francs", "CHF"),
    ("sterling", "GBP"),
];

/// A country's adjective before `dollars` (`Canadian dollars`).
const DOLLAR_ADJECTIVES: [(&str, &str); 7] = [
    ("us", "USD"),
    ("american", "USD"),
    ("canadian", "CAD"),
    ("australian", "AUD"),
    ("singapore", "SGD"),
    ("hong", "HKD"),
    ("zealand", "NZD"),
];

/// The currency a sign before an amount means.
pub(super) fn sign(c: char) -> Option<&'static str> {
    SIGNS.iter().find(|(s, _)| *s == c).map(|(_, code)| *code)
}

/// The dollar that letters glued before `$` name.
pub(super) fn dollar_prefix(letters: &str) -> Option<&'static str> {
    DOLLAR_PREFIXES
        .iter()
        .find(|(p, _)| *p == letters)
        .map(|(_, code)| *code)
}

/// The currency an ISO code names (written in capitals).
pub(super) fn code(word: &str) -> Option<&'static str> {
    let found = CODES.iter().find(|c| **c == word)?;
    Some(if *found == "RMB" { "CNY" } else { found })
}

/// The currency a word after an amount names (lower case).
pub(super) fn word(folded: &str) -> Option<&'static str> {
    WORDS.iter().find(|(w, _)| *w == folded).map(|(_, c)| *c)
}

/// The dollar a country's adjective before `dollars` names (lower case).
pub(super) fn dollar_adjective(folded: &str) -> Option<&'static str> {
    DOLLAR_ADJECTIVES
        .iter()
        .find(|(w, _)| *w == folded)
        .map(|(_, c)| *c)
}

/// Units of size and how many bytes each is.
const SIZES: [(&str, f64); 22] = [
    ("b", 1.0),
    ("byte", 1.0),
    ("bytes", 1.0),
    ("kb", 1e3),
    ("kilobyte", 1e3),
    ("kilobytes", 1e3),
    ("mb", 1e6),
    ("megabyte", 1e6),
    ("megabytes", 1e6),
    ("gb", 1e9),
    ("gigabyte", 1e9),
    ("gigabytes", 1e9),
    ("tb", 1e12),
    ("terabyte", 1e12),
    ("terabytes", 1e12),
    ("pb", 1e15),
    ("petabyte", 1e15),
    ("petabytes", 1e15),
    ("kib", 1024.0),
    ("mib", 1_048_576.0),
    ("gib", 1_073_741_824.0),
    ("tib", 1_099_511_627_776.0),
];

/// How many bytes a unit of size is (`GB`, `gigabytes`, `KiB`; any case, but a lone
/// `b` only in capitals, and `Gb`-style bits are not bytes).
pub(super) fn size(unit: &str) -> Option<f64> {
    if unit == "b" {
        return None;
    }
    let bits = unit.len() == 2 && unit.ends_with('b') && unit.starts_with(char::is_uppercase);
    if bits {
        return None;
    }
    let folded = unit.to_ascii_lowercase();
    if folded == "pib" {
        return Some(1_125_899_906_842_624.0);
    }
    SIZES.iter().find(|(u, _)| *u == folded).map(|(_, n)| *n)
}

/// Time zones written after a time of day (in capitals).
const ZONES: [&str; 29] = [
    "UTC", "GMT", "ET", "EST", "EDT", "CT", "CST", "CDT", "MT", "MST", "MDT", "PT", "PST", "PDT",
    "AKST", "HST", "BST", "IST", "CET", "CEST", "EET", "EEST", "WET", "WEST", "JST", "KST", "AEST",
    "AEDT", "SGT",
];

/// Whether `word` is a time zone written after a time (`UTC`, `ET`, `CEST`).
pub(super) fn zone(word: &str) -> bool {
    ZONES.contains(&word)
}

/// Words of time and what they mean in a rate (`per second`, `a year`, `/s`, `annually`).
const RATE_WORDS: [(&str, &str); 24] = [
    ("s", "second"),
    ("sec", "second"),
    ("second", "second"),
    ("min", "minute"),
    ("minute", "minute"),
    ("h", "hour"),
    ("hr", "hour"),
    ("hour", "hour"),
    ("d", "day"),
    ("day", "day"),
    ("wk", "week"),
    ("week", "week"),
    ("mo", "month"),
    ("month", "month"),
    ("yr", "year"),
    ("year", "year"),
    ("annum", "year"),
    ("ms", "millisecond"),
    ("millisecond", "millisecond"),
    ("night", "night"),
    ("person", "person"),
    ("capita", "person"),
    ("head", "person"),
    ("user", "user"),
];

/// What a word after `per`, `a` or `/` means in a rate, when it is a unit of time (or of
/// people: `per capita`); `None` for other words (`a year` is a rate, `a dog` is not).
pub(super) fn rate_word(folded: &str) -> Option<&'static str> {
    let singular = folded.strip_suffix('s').filter(|s| s.len() > 1);
    RATE_WORDS
        .iter()
        .find(|(w, _)| *w == folded || Some(*w) == singular)
        .map(|(_, unit)| *unit)
}

/// Words that say a rate by themselves (`annually`, `yearly`).
pub(super) fn rate_adverb(folded: &str) -> Option<&'static str> {
    match folded {
        "annually" | "yearly" => Some("year"),
        "monthly" => Some("month"),
        "weekly" => Some("week"),
        "daily" => Some("day"),
        "hourly" => Some("hour"),
        _ => None,
    }
}
