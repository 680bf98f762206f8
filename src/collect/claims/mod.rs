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

mod figures;
mod lines;
mod phrases;
mod spans;
mod split;
#[cfg(test)]
mod tests;
mod word_signals;
mod words;

pub use figures::claim_signals;
pub use split::split_claims;
pub(crate) use words::MONTH_NAMES;

use figures::*;
use lines::*;
use phrases::*;
use spans::*;
use word_signals::*;
use words::*;
