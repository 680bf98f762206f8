//! The evidence as plain text, printed under the text report by `sourcebot check
//! --evidence`: each checked claim, then each page it cites with its verdict, who
//! judged, its link, the page's own words, what it says instead of the claim's figures
//! and the words it never mentions (less those figures). The command line's caller holds
//! the credentials, so every page's words are shown. Like the rest of the text format
//! nothing is escaped, but every untrusted string is put on one line without control,
//! zero-width or bidi characters.
//!
//! ```text
//! Evidence (1 claim checked against its pages):
//!   - The company was founded in Boston in 1998 by two engineers.
//!       2. Company history — not supported (built-in scorer)
//!          https://example.com/history
//!          "The company was founded in Boston in 2001 by two engineers."
//!          the page says 2001, not 1998
//! ```

use super::{
    checked_claims, judge_name, not_differing, page_differs, words_in_words, CheckedClaim,
};
use crate::model::{ClaimSupport, Report, Source};
use crate::render::escape::{clean_text, cut_chars};
use crate::render::RenderOptions;

/// What the list says when no claim was checked against a page.
pub const NO_EVIDENCE: &str =
    "Evidence: no claim was checked against a page it cites (the pages are read only when links are checked).";
/// Claims listed at most; the rest are counted.
pub const MAX_TEXT_CLAIMS: usize = 500;
/// Missing words listed per page before "and N more" (and differing figures listed per
/// page at most).
const MAX_TEXT_MISSING: usize = 20;
/// A claim is cut to this many characters.
const CLAIM_CHARS: usize = 400;
/// A quote is cut to this many characters (quotes are at most 300 already).
const QUOTE_CHARS: usize = 400;
/// A reason is cut to this many characters.
const REASON_CHARS: usize = 240;
/// A link is cut to this many characters.
const URL_CHARS: usize = 500;

/// The evidence list, lines joined by `\n` (no final newline); one sentence saying so
/// when no claim was judged against a page that was read.
pub fn evidence_text(report: &Report, opts: &RenderOptions) -> String {
    let checked = checked_claims(report);
    if checked.is_empty() {
        return NO_EVIDENCE.to_string();
    }
    let heading = if checked.len() == 1 {
        "Evidence (1 claim checked against its pages):".to_string()
    } else {
        format!(
            "Evidence ({} claims checked against their pages):",
            checked.len()
        )
    };
    let mut lines = vec![heading];
    for claim in checked.iter().take(MAX_TEXT_CLAIMS) {
        lines.extend(claim_lines(claim, opts.support_model.as_deref()));
    }
    if checked.len() > MAX_TEXT_CLAIMS {
        lines.push(format!(
            "  …and {} more claims (--format json lists them all)",
            checked.len() - MAX_TEXT_CLAIMS
        ));
    }
    lines.join("\n")
}

/// `  - claim`, then each page's lines.
fn claim_lines(checked: &CheckedClaim<'_>, model: Option<&str>) -> Vec<String> {
    let mut lines = vec![format!(
        "  - {}",
        cut_chars(&clean_text(&checked.claim.text), CLAIM_CHARS)
    )];
    for (support, source) in &checked.pages {
        lines.extend(page_lines(support, *source, model));
    }
    lines
}

/// `      2. Title — not supported (built-in scorer)`, its link, quote, what it says
/// instead of the claim's figures, missing words and reason.
fn page_lines(support: &ClaimSupport, source: Option<&Source>, model: Option<&str>) -> Vec<String> {
    let title = source
        .map(|s| clean_text(&s.title))
        .filter(|t| !t.is_empty())
        .unwrap_or_else(|| format!("source {}", support.source));
    let mut lines = vec![format!(
        "      {}. {title} — {} ({})",
        support.source,
        support.verdict.as_str(),
        judge_name(support.judge, model)
    )];
    let url = source
        .and_then(Source::link)
        .map(clean_text)
        .unwrap_or_default();
    if !url.is_empty() {
        lines.push(format!("         {}", cut_chars(&url, URL_CHARS)));
    }
    let quote = support.quote.as_deref().map(clean_text).unwrap_or_default();
    if !quote.is_empty() {
        lines.push(format!("         \"{}\"", cut_chars(&quote, QUOTE_CHARS)));
    }
    let differs: Vec<_> = page_differs(support)
        .into_iter()
        .take(MAX_TEXT_MISSING)
        .collect();
    for (words, _) in &differs {
        lines.push(format!("         {words}"));
    }
    let said: Vec<_> = differs.iter().map(|(_, differ)| *differ).collect();
    let missing = not_differing(&support.missing, &said);
    if let Some(words) = words_in_words(&missing, MAX_TEXT_MISSING) {
        lines.push(format!("         does not mention: {words}"));
    }
    let reason = support
        .reason
        .as_deref()
        .map(clean_text)
        .unwrap_or_default();
    if !reason.is_empty() {
        lines.push(format!("         {}", cut_chars(&reason, REASON_CHARS)));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Answer, SupportJudge, SupportVerdict};

    #[test]
    fn each_checked_claim_is_listed_with_its_pages() {
        let answer = Answer::from_text(
            "Founded in 1909 [1].\n\n[1] https://example.org/history - Parish\u{202e} history",
        );
        let mut report = crate::check(&answer, &Default::default());
        let mut by_model =
            super::super::tests::support(SupportVerdict::NotSupported, &["1909", "Beulah\n"]);
        by_model.quote = Some("The hall was\nrebuilt in 1950.".into());
        by_model.judge = SupportJudge::Llm;
        by_model.reason = Some("The page gives no founding date.".into());
        let mut unread = super::super::tests::support(SupportVerdict::Unreadable, &[]);
        unread.source = 9;
        unread.reason = Some("HTTP 404".into());
        report.claims = vec![
            super::super::tests::claim("Founded in\t1909 by Beulah.", vec![by_model, unread]),
            super::super::tests::claim("Not checked.", vec![]),
        ];
        let opts = RenderOptions {
            support_model: Some("gpt-4o-mini".into()),
            ..RenderOptions::default()
        };
        assert_eq!(
            evidence_text(&report, &opts),
            "Evidence (1 claim checked against its pages):\n  \
             - Founded in 1909 by Beulah.\n      \
             1. Parish history — not supported (gpt-4o-mini)\n         \
             https://example.org/history\n         \
             \"The hall was rebuilt in 1950.\"\n         \
             does not mention: 1909, Beulah\n         \
             The page gives no founding date.\n      \
             9. source 9 — unreadable (built-in scorer)\n         \
             HTTP 404"
        );
        report.claims.truncate(0);
        assert_eq!(evidence_text(&report, &opts), NO_EVIDENCE);
    }
}
