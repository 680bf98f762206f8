//! The evidence behind the support check, shown to people: for each claim judged
//! against the pages it cites, each page's verdict, the page's own words (the quote),
//! what the page says instead of the claim's figures ("the page says 900 requests per
//! second, not 1,200 requests per second"), and the claim's words the page never
//! mentions. Three places show it: under the quoted claims of the Slack message, one
//! line in people's words ("the page does not mention 1909, Beulah";
//! `missing_quote_line`); the **Show evidence** modal ([`modal::evidence_view`], with
//! its limit check [`modal::check_view_limits`]); and the text list of `sourcebot check
//! --evidence` ([`text::evidence_text`]). Who judged — the built-in scorer or the
//! configured language model — is counted by [`judges`] for the text report and the
//! API's response.
//!
//! What a page says instead of a figure is the page's own words, a quote: the channel's
//! line gives it only for pages read from the web (never for an internal document or a
//! Slack message, whose figure is then only said to be missing), and the modal gives it
//! exactly where it gives the quote. A figure said to differ is not repeated among the
//! words the page does not mention.
//!
//! Everything here comes from the answer or from the web: the Slack renderings escape
//! every string ([`super::escape`]), the text rendering cleans it.

pub mod modal;
pub mod text;

use serde::Serialize;

use super::escape::{clean_text, cut_chars, escape_within};
use crate::model::{
    Claim, ClaimSupport, Differ, ReadVia, Report, Source, SupportJudge, SupportVerdict,
};

/// Missing words listed in Slack before "and N more".
pub const MAX_MISSING_SHOWN: usize = 5;
/// Each missing word is cut to this many characters.
const MISSING_WORD_CHARS: usize = 40;
/// The missing-words line under a quoted claim is at most this long, escaped (room for
/// five long words: a hostile one is cut).
const MISSING_LINE_MAX: usize = 300;
/// A model's name is cut to this many characters.
const MODEL_NAME_CHARS: usize = 60;
/// Each figure of a differing pair is cut to this many characters.
const DIFFER_FIGURE_CHARS: usize = 60;
/// A page's title, naming it in the channel when a claim cites several, is cut to this
/// many characters.
const DIFFER_TITLE_CHARS: usize = 60;
/// Figures a page gives differently, said under one quoted claim in Slack at most.
pub const MAX_DIFFERS_SHOWN: usize = 2;
/// Each "… says …, not …" clause under a quoted claim is at most this long, escaped.
const DIFFER_CLAUSE_MAX: usize = 200;

/// Whether at least one claim of `report` was judged against a page that was read: the
/// report has evidence to show.
pub fn has_evidence(report: &Report) -> bool {
    report
        .claims
        .iter()
        .any(|claim| claim.support.iter().any(is_judged))
}

/// Whether a support was judged against a page's text (not "unreadable").
fn is_judged(support: &ClaimSupport) -> bool {
    support.verdict != SupportVerdict::Unreadable
}

/// One claim judged against the pages it cites, with every page tried (unreadable ones
/// too, so that a reader sees why one says nothing).
#[derive(Debug, Clone)]
pub(crate) struct CheckedClaim<'a> {
    /// The claim.
    pub claim: &'a Claim,
    /// Each page's support, with its source when the report lists it.
    pub pages: Vec<(&'a ClaimSupport, Option<&'a Source>)>,
}

/// The claims judged against at least one page that was read, in the answer's order.
pub(crate) fn checked_claims(report: &Report) -> Vec<CheckedClaim<'_>> {
    report
        .claims
        .iter()
        .filter(|claim| claim.support.iter().any(is_judged))
        .map(|claim| CheckedClaim {
            claim,
            pages: claim
                .support
                .iter()
                .map(|support| (support, report.sources().find(|s| s.id == support.source)))
                .collect(),
        })
        .collect()
}

/// `✓`, `◐`, `✗` or `–`: a support verdict at a glance.
pub(crate) fn verdict_mark(verdict: SupportVerdict) -> &'static str {
    match verdict {
        SupportVerdict::Supported => "✓",
        SupportVerdict::PartlySupported => "◐",
        SupportVerdict::NotSupported => "✗",
        SupportVerdict::Unreadable => "–",
    }
}

/// The missing words as a reader sees them: each cleaned and cut to
/// [`MISSING_WORD_CHARS`], empty ones and repeats left out, in the claim's order.
fn shown_words(words: &[String]) -> Vec<String> {
    let mut shown: Vec<String> = Vec::with_capacity(words.len());
    for word in words {
        let word = cut_chars(&clean_text(word), MISSING_WORD_CHARS);
        if !word.is_empty() && !shown.contains(&word) {
            shown.push(word);
        }
    }
    shown
}

/// `1909, Beulah`; `a, b, c, d, e and 3 more` past `max_shown` words (0: all). Plain
/// text (not escaped); `None` when no word is left after cleaning.
pub fn words_in_words(words: &[String], max_shown: usize) -> Option<String> {
    let shown = shown_words(words);
    if shown.is_empty() {
        return None;
    }
    let cap = if max_shown == 0 {
        shown.len()
    } else {
        max_shown.min(shown.len())
    };
    let mut list = shown[..cap].join(", ");
    if shown.len() > cap {
        list.push_str(&format!(" and {} more", shown.len() - cap));
    }
    Some(list)
}

/// `{who} says 900 requests per second, not 1,200 requests per second` (`who` is
/// `the page` or the page's title): the page's figure first, each figure cleaned and
/// cut to [`DIFFER_FIGURE_CHARS`]. Plain text (not escaped); `None` when a figure is
/// empty after cleaning.
pub(crate) fn differ_in_words(differ: &Differ, who: &str) -> Option<String> {
    let page = cut_chars(&clean_text(&differ.page), DIFFER_FIGURE_CHARS);
    let claim = cut_chars(&clean_text(&differ.claim), DIFFER_FIGURE_CHARS);
    (!page.is_empty() && !claim.is_empty()).then(|| format!("{who} says {page}, not {claim}"))
}

/// A page's differing figures in words (`the page says …, not …`), repeats and empty
/// ones left out, in order, each with the differ it says.
pub(crate) fn page_differs(support: &ClaimSupport) -> Vec<(String, &Differ)> {
    let mut said: Vec<(String, &Differ)> = Vec::new();
    for differ in &support.differs {
        if let Some(words) = differ_in_words(differ, "the page") {
            if !said.iter().any(|(shown, _)| *shown == words) {
                said.push((words, differ));
            }
        }
    }
    said
}

/// Whether two words are the same to a reader: cleaned, case aside.
fn same_words(a: &str, b: &str) -> bool {
    clean_text(a).to_lowercase() == clean_text(b).to_lowercase()
}

/// `missing` without the words one of `said` (differs the reader is shown) gives
/// already: "the page says 900, not 1,200" tells that 1,200 is not there, and "the page
/// says 5 directors, not 3 directors" that 3 is not.
pub(crate) fn not_differing(missing: &[String], said: &[&Differ]) -> Vec<String> {
    missing
        .iter()
        .filter(|word| !said.iter().any(|differ| words_within(word, &differ.claim)))
        .cloned()
        .collect()
}

/// Whether `word` is `phrase`, or whole words of it, to a reader (cleaned, case aside):
/// `3` is within `3 directors`, `30` is not.
fn words_within(word: &str, phrase: &str) -> bool {
    let word = clean_text(word).to_lowercase();
    !word.trim().is_empty()
        && (same_words(&word, phrase)
            || format!(" {} ", clean_text(phrase).to_lowercase())
                .contains(&format!(" {} ", word.trim())))
}

/// Whether `source`'s page was fetched from the public web, as anyone could: only such
/// a page's words may reach a channel.
fn read_from_the_web(source: Option<&Source>) -> bool {
    matches!(source.and_then(|s| s.read_via.as_ref()), Some(ReadVia::Web))
}

/// The pages read for `claim` (judged, not "unreadable"), when none supports it fully;
/// `None` when one does or none was read.
fn read_unsupported(claim: &Claim) -> Option<Vec<&ClaimSupport>> {
    let read: Vec<&ClaimSupport> = claim.support.iter().filter(|s| is_judged(s)).collect();
    (!read.is_empty() && read.iter().all(|s| s.verdict != SupportVerdict::Supported))
        .then_some(read)
}

/// What the channel may say of `claim`'s figures its pages give differently: only those
/// of pages read from the web ([`ReadVia::Web`]; an internal document's or a Slack
/// message's figure is its words, which a channel never gets), at most
/// [`MAX_DIFFERS_SHOWN`], in words — `the page says …`, or `{title} says …` when several
/// pages were read — each with the differ it says. Empty when a page supports the claim.
pub(crate) fn channel_differs<'a>(
    report: &'a Report,
    claim: &'a Claim,
) -> Vec<(String, &'a Differ)> {
    let Some(read) = read_unsupported(claim) else {
        return Vec::new();
    };
    let mut said: Vec<(String, &Differ)> = Vec::new();
    for support in &read {
        let source = report.sources().find(|s| s.id == support.source);
        if !read_from_the_web(source) {
            continue;
        }
        let who = if read.len() == 1 {
            "the page".to_string()
        } else {
            cut_chars(
                &super::source_title(report, support.source),
                DIFFER_TITLE_CHARS,
            )
        };
        for differ in &support.differs {
            if said.len() == MAX_DIFFERS_SHOWN {
                return said;
            }
            if let Some(words) = differ_in_words(differ, &who) {
                if !said.iter().any(|(shown, _)| *shown == words) {
                    said.push((words, differ));
                }
            }
        }
    }
    said
}

/// The claim's words that no page citing it mentions, and how many pages were read,
/// when no page supports the claim fully (every readable page says "not supported" or
/// "partly supported"). `None` when a page supports it, when none was read, or when the
/// pages mention every word between them.
pub(crate) fn unmentioned(claim: &Claim) -> Option<(Vec<String>, usize)> {
    let read = read_unsupported(claim)?;
    let (first, others) = read.split_first()?;
    let words: Vec<String> = first
        .missing
        .iter()
        .filter(|word| {
            others.iter().all(|page| {
                page.missing
                    .iter()
                    .any(|other| other.to_lowercase() == word.to_lowercase())
            })
        })
        .cloned()
        .collect();
    (!words.is_empty()).then_some((words, read.len()))
}

/// `the page does not mention 1909, Beulah` (`the pages do not mention …` when several
/// were read), at most [`MAX_MISSING_SHOWN`] words and then `and N more`, leaving out
/// the words one of `said` gives already ([`not_differing`]). Plain text.
pub(crate) fn unmentioned_in_words(claim: &Claim, said: &[&Differ]) -> Option<String> {
    let (words, pages) = unmentioned(claim)?;
    let list = words_in_words(&not_differing(&words, said), MAX_MISSING_SHOWN)?;
    Some(if pages == 1 {
        format!("the page does not mention {list}")
    } else {
        format!("the pages do not mention {list}")
    })
}

/// The line under a quoted claim in Slack: what the web pages it cites say instead of
/// its figures ([`channel_differs`]), then the words no page mentions
/// (`> _the page says 900 requests per second, not 1,200 requests per second; the page
/// does not mention Beulah_`). Every clause escaped, each differing one at most
/// [`DIFFER_CLAUSE_MAX`] characters and the missing words at most [`MISSING_LINE_MAX`];
/// `None` when there is nothing to say.
pub(crate) fn missing_quote_line(report: &Report, claim: &Claim) -> Option<String> {
    let differs = channel_differs(report, claim);
    let said: Vec<&Differ> = differs.iter().map(|(_, differ)| *differ).collect();
    let mut clauses: Vec<String> = differs
        .iter()
        .map(|(words, _)| escape_within(words, DIFFER_CLAUSE_MAX))
        .collect();
    clauses.extend(
        unmentioned_in_words(claim, &said).map(|words| escape_within(&words, MISSING_LINE_MAX)),
    );
    clauses.retain(|clause| !clause.is_empty());
    (!clauses.is_empty()).then(|| format!("> _{}_", clauses.join("; ")))
}

/// How many of a report's judgements one judge made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct JudgeCount {
    /// `builtin` or `llm`.
    pub judge: SupportJudge,
    /// Its name for people: `built-in scorer`, or the model's name (`language model`
    /// when the settings give none).
    pub name: String,
    /// How many claim–page pairs it judged (pages that could not be read left out).
    pub judged: usize,
}

/// Who judged the report's claims against their pages, the language model first, each
/// with how many judgements it made; empty when nothing was judged. `model` is the
/// language model's name ([`super::RenderOptions::support_model`]).
pub fn judges(report: &Report, model: Option<&str>) -> Vec<JudgeCount> {
    let (mut llm, mut builtin) = (0, 0);
    for support in report
        .claims
        .iter()
        .flat_map(|c| c.support.iter())
        .filter(|s| is_judged(s))
    {
        match support.judge {
            SupportJudge::Llm => llm += 1,
            SupportJudge::Builtin => builtin += 1,
        }
    }
    let mut counts = Vec::new();
    if llm > 0 {
        counts.push(JudgeCount {
            judge: SupportJudge::Llm,
            name: judge_name(SupportJudge::Llm, model),
            judged: llm,
        });
    }
    if builtin > 0 {
        counts.push(JudgeCount {
            judge: SupportJudge::Builtin,
            name: judge_name(SupportJudge::Builtin, model),
            judged: builtin,
        });
    }
    counts
}

/// `built-in scorer`, or the model's name (cleaned, cut), or `language model`.
pub(crate) fn judge_name(judge: SupportJudge, model: Option<&str>) -> String {
    match judge {
        SupportJudge::Builtin => "built-in scorer".to_string(),
        SupportJudge::Llm => model
            .map(|m| cut_chars(&clean_text(m), MODEL_NAME_CHARS))
            .filter(|m| !m.is_empty())
            .unwrap_or_else(|| "language model".to_string()),
    }
}

/// Who judged, in words: `the built-in scorer`, `the language model gpt-4o-mini`, or
/// both with their counts (`the language model gpt-4o-mini (3) and, where it gave no
/// answer, the built-in scorer (1)`). Plain text; `None` when nothing was judged.
pub fn judges_in_words(judges: &[JudgeCount]) -> Option<String> {
    let named = |count: &JudgeCount| match count.judge {
        SupportJudge::Builtin => "the built-in scorer".to_string(),
        SupportJudge::Llm if count.name == "language model" => "the language model".to_string(),
        SupportJudge::Llm => format!("the language model {}", count.name),
    };
    match judges {
        [] => None,
        [one] => Some(named(one)),
        [model, builtin, ..] => Some(format!(
            "{} ({}) and, where it gave no answer, {} ({})",
            named(model),
            model.judged,
            named(builtin),
            builtin.judged
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Span;

    pub(crate) fn support(verdict: SupportVerdict, missing: &[&str]) -> ClaimSupport {
        ClaimSupport {
            source: 1,
            score: 0.1,
            verdict,
            quote: None,
            missing: missing.iter().map(|w| w.to_string()).collect(),
            differs: Vec::new(),
            reason: None,
            judge: SupportJudge::Builtin,
        }
    }

    pub(crate) fn claim(text: &str, support: Vec<ClaimSupport>) -> Claim {
        Claim {
            text: text.to_string(),
            span: Span::new(0, text.len()),
            cites: vec![1],
            signals: vec![],
            claim_type: None,
            relevance: None,
            support,
            classification: None,
            stale_sources: vec![],
        }
    }

    #[test]
    fn the_missing_words_read_as_a_sentence() {
        let one = claim(
            "Founded in 1909 by Beulah.",
            vec![support(SupportVerdict::NotSupported, &["1909", "Beulah"])],
        );
        assert_eq!(
            unmentioned_in_words(&one, &[]).as_deref(),
            Some("the page does not mention 1909, Beulah")
        );
        let many = claim(
            "x",
            vec![support(
                SupportVerdict::PartlySupported,
                &["a", "b", "c", "d", "e", "f", "g", "a"],
            )],
        );
        assert_eq!(
            unmentioned_in_words(&many, &[]).as_deref(),
            Some("the page does not mention a, b, c, d, e and 2 more")
        );
    }

    #[test]
    fn only_claims_no_page_supports_get_the_line() {
        let supported = claim(
            "x",
            vec![
                support(SupportVerdict::Supported, &[]),
                support(SupportVerdict::NotSupported, &["1909"]),
            ],
        );
        assert_eq!(unmentioned_in_words(&supported, &[]), None);
        let nothing_missing = claim("x", vec![support(SupportVerdict::NotSupported, &[])]);
        assert_eq!(unmentioned_in_words(&nothing_missing, &[]), None);
        let unread = claim("x", vec![support(SupportVerdict::Unreadable, &["1909"])]);
        assert_eq!(unmentioned_in_words(&unread, &[]), None);
        // Two pages: the words neither mentions.
        let two = claim(
            "x",
            vec![
                support(SupportVerdict::NotSupported, &["1909", "Beulah", "Ohio"]),
                support(SupportVerdict::PartlySupported, &["beulah", "1909"]),
            ],
        );
        assert_eq!(
            unmentioned_in_words(&two, &[]).as_deref(),
            Some("the pages do not mention 1909, Beulah")
        );
    }

    #[test]
    fn a_figure_said_to_differ_is_not_listed_as_missing_too() {
        let differ = Differ {
            claim: "1,200 Requests\nper second".into(),
            page: "900 requests per second".into(),
        };
        let missing = ["1,200 requests per second".to_string(), "Acme".to_string()];
        assert_eq!(not_differing(&missing, &[&differ]), ["Acme"]);
        assert_eq!(not_differing(&missing, &[]), missing);
        // A count listed bare while its differ names the noun: said once.
        let count = Differ {
            claim: "3 directors".into(),
            page: "5 directors".into(),
        };
        let missing = ["3".to_string(), "30".to_string(), "directors".to_string()];
        assert_eq!(not_differing(&missing, &[&count]), ["30"]);
        assert_eq!(
            differ_in_words(&differ, "the page").as_deref(),
            Some("the page says 900 requests per second, not 1,200 Requests per second")
        );
        let empty = Differ {
            claim: "1909".into(),
            page: "\u{200b}\n".into(),
        };
        assert_eq!(differ_in_words(&empty, "the page"), None);
    }

    #[test]
    fn hostile_missing_words_never_become_markup() {
        let hostile = claim(
            "x",
            vec![support(
                SupportVerdict::NotSupported,
                &[
                    "<!channel>",
                    "<@U1>",
                    "<https://evil|x>",
                    "&",
                    &"<".repeat(10_000),
                    "\u{0007}\u{202e}\n\t",
                    "Beulah",
                ],
            )],
        );
        let report = crate::check(&crate::model::Answer::from_text(""), &Default::default());
        let line = missing_quote_line(&report, &hostile).expect("a line");
        let body = line.strip_prefix("> ").expect("a quote line");
        assert!(!body.contains('<') && !body.contains('>'), "{line}");
        assert!(line.contains("&lt;!channel&gt;"), "{line}");
        assert!(line.contains("&lt;@U1&gt;"), "{line}");
        assert!(line.contains(", &amp;,"), "{line}");
        assert!(line.contains("and 1 more"), "{line}");
        assert!(!line.contains('\u{0007}') && !line.contains('\u{202e}'));
        assert!(
            line.encode_utf16().count() <= MISSING_LINE_MAX + 6,
            "{}",
            line.len()
        );
        let raw = line
            .replace("&amp;", "")
            .replace("&lt;", "")
            .replace("&gt;", "");
        assert!(!raw.contains('&'), "{line}");
    }

    #[test]
    fn the_slack_message_says_what_the_page_does_not_mention_under_the_claim() {
        let answer = crate::model::Answer::from_text(
            "The church was founded in 1909 by Beulah [1].\n\n[1] https://example.org/h - Parish history",
        );
        let mut report = crate::check(&answer, &Default::default());
        report.claims = vec![claim(
            "The church was founded in 1909 by Beulah <@U1> & co.",
            vec![support(
                SupportVerdict::NotSupported,
                &["1909", "Beulah", "<@U1>"],
            )],
        )];
        let opts = crate::render::RenderOptions::default();
        let out = crate::render::mrkdwn(&report, &opts);
        assert!(
            out.contains(
                ":x: 1 claim is not supported by the page it cites:\n\
                 > “The church was founded in 1909 by Beulah &lt;@U1&gt; &amp; co.” — _not in Parish history_\n\
                 > _the page does not mention 1909, Beulah, &lt;@U1&gt;_"
            ),
            "{out}"
        );
        let message = crate::render::blocks(&report, &opts);
        assert_eq!(crate::render::check_limits(&message), Ok(()));
        let shown: String = message.blocks.iter().map(|b| b.to_string()).collect();
        assert!(
            shown.contains("\\n> _the page does not mention 1909, Beulah, &lt;@U1&gt;_"),
            "{shown}"
        );
        // Supported claims and the text format say nothing of it.
        report.claims[0].support[0].verdict = SupportVerdict::Supported;
        assert!(!crate::render::mrkdwn(&report, &opts).contains("does not mention"));
    }

    #[test]
    fn judges_are_named_and_counted() {
        let mut by_model = support(SupportVerdict::Supported, &[]);
        by_model.judge = SupportJudge::Llm;
        let report = Report {
            claims: vec![
                claim(
                    "a",
                    vec![by_model.clone(), support(SupportVerdict::NotSupported, &[])],
                ),
                claim(
                    "b",
                    vec![by_model, support(SupportVerdict::Unreadable, &[])],
                ),
            ],
            ..crate::check(&crate::model::Answer::from_text(""), &Default::default())
        };
        let counts = judges(&report, Some("gpt-4o-mini\n"));
        assert_eq!(
            counts
                .iter()
                .map(|c| (c.name.as_str(), c.judged))
                .collect::<Vec<_>>(),
            [("gpt-4o-mini", 2), ("built-in scorer", 1)]
        );
        assert_eq!(
            judges_in_words(&counts).as_deref(),
            Some("the language model gpt-4o-mini (2) and, where it gave no answer, the built-in scorer (1)")
        );
        assert_eq!(
            judges_in_words(&judges(&report, None)[..1]).as_deref(),
            Some("the language model")
        );
        assert_eq!(
            judges_in_words(&counts[1..]).as_deref(),
            Some("the built-in scorer")
        );
        assert!(judges(
            &Report {
                claims: vec![],
                ..report
            },
            None
        )
        .is_empty());
    }
}
