//! Words as the support scorer compares them: a claim or a passage becomes a list of
//! [`Token`]s — lower-cased, stemmed (Snowball English, so "deploys" and "deployed"
//! meet), with stop words marked, numbers normalised ("2,000" and "2000" meet; "1.5"
//! stays one number), and whether the word was capitalised mid-sentence (a name).
//! Citation markers (`[1]`, `[2][3]`, `[^4]`, read as the collector's scanner reads them)
//! are not words. Nothing here allocates per
//! character; a page of text is tokenised in one pass.

use rust_stemmers::{Algorithm, Stemmer};
use std::sync::LazyLock;

/// One word of a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    /// The stem (lower case), or the normalised number.
    pub stem: String,
    /// A stop word ("the", "of", "is"…): kept for phrases, not counted as content.
    pub stop: bool,
    /// A number ("2000", "1.5", "42").
    pub number: bool,
    /// Capitalised and not the first word of its sentence: likely part of a name.
    pub name: bool,
    /// A negation ("not", "no", "never", "without", "n't"…).
    pub negation: bool,
}

static STEMMER: LazyLock<Stemmer> = LazyLock::new(|| Stemmer::create(Algorithm::English));

/// English stop words: function words that say nothing about what a sentence claims.
const STOP_WORDS: &[&str] = &[
    "a",
    "about",
    "above",
    "after",
    "again",
    "against",
    "all",
    "also",
    "am",
    "an",
    "and",
    "any",
    "are",
    "as",
    "at",
    "be",
    "because",
    "been",
    "before",
    "being",
    "below",
    "between",
    "both",
    "but",
    "by",
    "can",
    "could",
    "did",
    "do",
    "does",
    "doing",
    "down",
    "during",
    "each",
    "few",
    "for",
    "from",
    "further",
    "had",
    "has",
    "have",
    "having",
    "he",
    "her",
    "here",
    "hers",
    "herself",
    "him",
    "himself",
    "his",
    "how",
    "however",
    "i",
    "if",
    "in",
    "into",
    "is",
    "it",
    "its",
    "itself",
    "just",
    "may",
    "me",
    "might",
    "more",
    "most",
    "must",
    "my",
    "myself",
    "of",
    "off",
    "on",
    "once",
    "only",
    "or",
    "other",
    "our",
    "ours",
    "ourselves",
    "out",
    "over",
    "own",
    "same",
    "she",
    "should",
    "so",
    "some",
    "such",
    "than",
    "that",
    "the",
    "their",
    "theirs",
    "them",
    "themselves",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "through",
    "to",
    "too",
    "under",
    "until",
    "up",
    "us",
    "very",
    "was",
    "we",
    "were",
    "what",
    "when",
    "where",
    "which",
    "while",
    "who",
    "whom",
    "why",
    "will",
    "with",
    "would",
    "you",
    "your",
    "yours",
    "yourself",
    "yourselves",
    "e.g",
    "i.e",
    "etc",
    "can",
    "cannot",
    "also",
    "thus",
    "therefore",
    "although",
    "though",
    "whether",
    "within",
    "upon",
    "via",
    "per",
    "s",
];

/// Words that turn a statement around.
const NEGATIONS: &[&str] = &[
    "not", "no", "never", "none", "nor", "neither", "without", "cannot", "nothing", "nobody",
    "nowhere", "lack", "lacks", "lacking", "fail", "fails", "failed", "unable",
];

/// Whether `word` (lower case) is a stop word.
pub fn is_stop(word: &str) -> bool {
    STOP_WORDS.contains(&word)
}

/// `word` (lower case) without a possessive `'s` or `'`.
fn without_possessive(word: &str) -> &str {
    word.strip_suffix("'s")
        .or_else(|| word.strip_suffix('\''))
        .unwrap_or(word)
}

/// The Snowball stem of a lower-case `word`, its possessive dropped: the stem every
/// comparison of words in the support check uses.
pub fn stem(word: &str) -> String {
    STEMMER.stem(without_possessive(word)).into_owned()
}

/// The tokens of `text`, in order.
pub fn tokenize(text: &str) -> Vec<Token> {
    let mut tokens = Vec::with_capacity(text.len() / 6);
    let mut sentence_start = true;
    let mut chars = text.char_indices().peekable();
    while let Some(&(start, c)) = chars.peek() {
        if c == '[' {
            // A citation marker (`[12]`, `[1, 2]`, `[1-3]`, `[^4]`), read as the scanner
            // reads it.
            if let Some((end, _)) = crate::collect::scan::citation_marker(text, start) {
                while chars.peek().is_some_and(|&(i, _)| i < end) {
                    chars.next();
                }
                continue;
            }
        }
        if c == ':' {
            // A Slack emoji code (`:rocket:`, `:+1:`): shown as a picture, not a word.
            if let Some(len) = emoji_code_len(text, start) {
                while chars.peek().is_some_and(|&(i, _)| i < start + len) {
                    chars.next();
                }
                continue;
            }
        }
        if c.is_alphanumeric() {
            let mut end = start;
            let mut number = c.is_ascii_digit();
            while let Some(&(i, d)) = chars.peek() {
                let joins = d.is_alphanumeric()
                    || ((d == '\'' || d == '’') && next_is_alpha(text, i + d.len_utf8()))
                    || (number && matches!(d, '.' | ',') && next_is_digit(text, i + 1));
                if !joins {
                    break;
                }
                end = i + d.len_utf8();
                chars.next();
            }
            let word = &text[start..end.max(start + c.len_utf8())];
            number = number
                && word
                    .chars()
                    .all(|c| c.is_ascii_digit() || c == '.' || c == ',');
            tokens.push(token(word, number, sentence_start));
            sentence_start = false;
            continue;
        }
        if matches!(c, '.' | '!' | '?' | '\n' | ':' | ';') {
            sentence_start = true;
        }
        chars.next();
    }
    tokens
}

/// Slack's emoji whose names hold no letter.
const NUMBER_EMOJI: [&str; 4] = ["+1", "-1", "100", "1234"];

/// Length of the Slack emoji code (`:name:`) starting at the `:` at `at`: a name of
/// lower-case letters, digits, `_`, `+`, `-` and `'` holding a letter (or one of
/// [`NUMBER_EMOJI`]), not glued to a
/// word before it (so `10:30:45` and `Note:x:` are not codes).
fn emoji_code_len(text: &str, at: usize) -> Option<usize> {
    if text[..at]
        .chars()
        .next_back()
        .is_some_and(char::is_alphanumeric)
    {
        return None;
    }
    let rest = &text[at + 1..];
    let close = rest.bytes().take(64).position(|b| b == b':')?;
    let name = &rest[..close];
    let valid = (name.bytes().any(|b| b.is_ascii_lowercase()) || NUMBER_EMOJI.contains(&name))
        && name.bytes().all(|b| {
            b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'_' | b'+' | b'-' | b'\'')
        });
    valid.then_some(close + 2)
}

fn next_is_alpha(text: &str, at: usize) -> bool {
    text[at..].chars().next().is_some_and(char::is_alphabetic)
}

fn next_is_digit(text: &str, at: usize) -> bool {
    text.get(at..)
        .and_then(|rest| rest.chars().next())
        .is_some_and(|c| c.is_ascii_digit())
}

fn token(word: &str, number: bool, sentence_start: bool) -> Token {
    if number {
        let normalised: String = word.chars().filter(|c| *c != ',').collect();
        let normalised = normalised.trim_end_matches('.').to_string();
        return Token {
            stem: normalised,
            stop: false,
            number: true,
            name: false,
            negation: false,
        };
    }
    let capitalised = word.chars().next().is_some_and(char::is_uppercase);
    let lower = word.to_lowercase().replace('’', "'");
    let negation = NEGATIONS.contains(&lower.as_str()) || lower.ends_with("n't");
    let base = without_possessive(&lower);
    let stop = is_stop(base) && !negation;
    Token {
        stem: STEMMER.stem(base).into_owned(),
        stop,
        number: false,
        name: capitalised && !sentence_start && !stop,
        negation,
    }
}

/// Drops citation markers and a leading "`[n] URL`" line from an evidence passage as
/// ExpertQA and answer pipelines give them.
pub fn strip_evidence_header(passage: &str) -> &str {
    let trimmed = passage.trim_start();
    if trimmed.starts_with('[') {
        if let Some(first_break) = trimmed.find('\n') {
            let header = &trimmed[..first_break];
            if header.contains("://") {
                return trimmed[first_break..].trim_start();
            }
        }
    }
    trimmed
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stems(text: &str) -> Vec<String> {
        tokenize(text).into_iter().map(|t| t.stem).collect()
    }

    #[test]
    fn words_are_stemmed_and_markers_dropped() {
        assert_eq!(
            stems("Deploys were frozen [1][2] on Fridays."),
            ["deploy", "were", "frozen", "on", "friday"]
        );
        assert_eq!(stems("deployed"), ["deploy"]);
        let tokens = tokenize("The tube can't be placed");
        assert!(tokens[0].stop);
        assert!(tokens.iter().any(|t| t.negation));
    }

    #[test]
    fn markers_are_the_scanners_markers() {
        // The scanner's own cases (collect::scan's `markers_of_every_shape` and
        // `non_markers`): what it reads as a marker is no word, and what it does not
        // read as one is.
        let markers = "A[1]. B [1][2]. C [1, 3]. D [2-4]. E [^5]. F [3–4]";
        assert!(!crate::collect::scan::scan(markers).markers.is_empty());
        assert_eq!(stems(markers), ["a", "b", "c", "d", "e", "f"]);
        for (text, words) in [
            ("[they]", vec!["they"]),
            ("[2409.04481]", vec!["2409.04481"]),
            ("[0]", vec!["0"]),
            ("[4-2]", vec!["4", "2"]),
            ("[1-500]", vec!["1", "500"]),
            ("[1](https://a.com)", vec!["1", "https", "a", "com"]),
            ("[]", vec![]),
            ("[ ]", vec![]),
            ("[1a]", vec!["1a"]),
        ] {
            assert!(
                crate::collect::scan::scan(text).markers.is_empty(),
                "{text}"
            );
            assert_eq!(stems(text), words, "{text}");
        }
    }

    #[test]
    fn emoji_codes_are_not_words() {
        assert_eq!(
            stems("Deploys shipped :rocket: :+1::skin-tone-2: at 10:30:45, see note:x: here"),
            ["deploy", "ship", "at", "10", "30", "45", "see", "note", "x", "here"]
        );
        assert_eq!(
            stems(":NotEmoji: and :: and :12:"),
            ["notemoji", "and", "and", "12"]
        );
    }

    #[test]
    fn numbers_are_normalised() {
        let tokens = tokenize("In 2,000 insertions, 1.3 to 2.4 percent (2006).");
        let numbers: Vec<&str> = tokens
            .iter()
            .filter(|t| t.number)
            .map(|t| t.stem.as_str())
            .collect();
        assert_eq!(numbers, ["2000", "1.3", "2.4", "2006"]);
        assert_eq!(stems("1, 2 and 3"), ["1", "2", "and", "3"]);
    }

    #[test]
    fn names_are_capitalised_words_inside_a_sentence() {
        let tokens = tokenize("Rust was released by Mozilla. The NHS agreed.");
        let names: Vec<&str> = tokens
            .iter()
            .filter(|t| t.name)
            .map(|t| t.stem.as_str())
            .collect();
        assert_eq!(names, ["mozilla", "nhs"]);
    }

    #[test]
    fn evidence_headers_go() {
        assert_eq!(
            strip_evidence_header("[1] https://example.com/a\n\nTitle | Site text"),
            "Title | Site text"
        );
        assert_eq!(strip_evidence_header("Plain text"), "Plain text");
    }

    #[test]
    fn any_text_tokenises_without_panicking() {
        for text in [
            "",
            "[",
            "[]",
            "[1",
            "1.",
            "1,",
            "’s",
            "a'",
            "ﬁ ß İ",
            "[1-3] x",
            "5.,5",
        ] {
            let _ = tokenize(text);
        }
    }
}
