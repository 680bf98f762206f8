//! The evidence behind the support check, shown to people: for each claim judged
//! against the pages it cites, each page's verdict, the page's own words (the quote),
//! and the claim's words the page never mentions. Three places show it: under the
//! quoted claims of the Slack message, one line in people's words ("the page does not
//! mention 1909, Beulah"; `missing_quote_line`); the **Show evidence** modal
//! ([`modal::evidence_view`], with its limit check [`modal::check_view_limits`]); and
//! the text list of `sourcebot check --evidence` ([`text::evidence_text`]). Who judged —
//! the built-in scorer or the configured language model — is counted by [`judges`] for
//! the text report and the API's response.
//!
//! Everything here comes from the answer or from the web: the Slack renderings escape
//! every string ([`super::escape`]), the text rendering cleans it.

pub mod modal;
pub mod text;

use serde::Serialize;

use super::escape::{clean_text, cut_chars, escape_within};
use crate::model::{Claim, ClaimSupport, Report, Source, SupportJudge, SupportVerdict};

/// Missing words listed in Slack before "and N more".
pub const MAX_MISSING_SHOWN: usize = 5;
/// Each missing word is cut to this many characters.
const MISSING_WORD_CHARS: usize = 40;
/// The missing-words line under a quoted claim is at most this long, escaped (room for
/// five long words: a hostile one is cut).
const MISSING_LINE_MAX: usize = 300;
/// A model's name is cut to this many characters.
const MODEL_NAME_CHARS: usize = 60;

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

/// The claim's words that no page citing it mentions, and how many pages were read,
/// when no page supports the claim fully (every readable page says "not supported" or
/// "partly supported"). `None` when a page supports it, when none was read, or when the
/// pages mention every word between them.
pub(crate) fn unmentioned(claim: &Claim) -> Option<(Vec<String>, usize)> {
    let read: Vec<&ClaimSupport> = claim.support.iter().filter(|s| is_judged(s)).collect();
    let (first, others) = read.split_first()?;
    if read.iter().any(|s| s.verdict == SupportVerdict::Supported) {
        return None;
    }
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
/// were read), at most [`MAX_MISSING_SHOWN`] words and then `and N more`. Plain text.
pub(crate) fn unmentioned_in_words(claim: &Claim) -> Option<String> {
    let (words, pages) = unmentioned(claim)?;
    let list = words_in_words(&words, MAX_MISSING_SHOWN)?;
    Some(if pages == 1 {
        format!("the page does not mention {list}")
    } else {
        format!("the pages do not mention {list}")
    })
}

/// The line under a quoted claim in Slack (`> _the page does not mention 1909, Beulah_`),
/// every word escaped, at most [`MISSING_LINE_MAX`] characters; `None` when there is
/// nothing to say.
pub(crate) fn missing_quote_line(claim: &Claim) -> Option<String> {
    unmentioned_in_words(claim)
        .map(|line| format!("> _{}_", escape_within(&line, MISSING_LINE_MAX)))
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
            unmentioned_in_words(&one).as_deref(),
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
            unmentioned_in_words(&many).as_deref(),
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
        assert_eq!(unmentioned_in_words(&supported), None);
        let nothing_missing = claim("x", vec![support(SupportVerdict::NotSupported, &[])]);
        assert_eq!(unmentioned_in_words(&nothing_missing), None);
        let unread = claim("x", vec![support(SupportVerdict::Unreadable, &["1909"])]);
        assert_eq!(unmentioned_in_words(&unread), None);
        // Two pages: the words neither mentions.
        let two = claim(
            "x",
            vec![
                support(SupportVerdict::NotSupported, &["1909", "Beulah", "Ohio"]),
                support(SupportVerdict::PartlySupported, &["beulah", "1909"]),
            ],
        );
        assert_eq!(
            unmentioned_in_words(&two).as_deref(),
            Some("the pages do not mention 1909, Beulah")
        );
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
        let line = missing_quote_line(&hostile).expect("a line");
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
