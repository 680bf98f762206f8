//! The report as plain text for terminals (`sourcebot check`). Nothing is escaped,
//! but every untrusted string is put on one line with control, zero-width and bidi
//! characters removed, so a title cannot move the cursor, recolour the terminal or
//! reorder the line. Titles are not cut; the caps on sources per kind, quoted claims
//! and notes apply as in the Slack formats.
//!
//! ```text
//! Sources (7) — links not checked
//! Slack
//!   1. #eng-deploys: deploy freeze starts Friday  [not checked]
//!      https://acme.slack.com/archives/C1/p1
//! Dangling citations: [4], [7]
//! Claims that cite nothing (2 of 9):
//!   - Revenue grew 45% in 2023 while costs fell by half and…
//! Claims whose sources do not suit them (1):
//!   - The usual adult dose is 500 mg twice a day. — health claim cited only to a forum; check it against official and scholarly sources
//! Notes:
//!   - 1 link was longer than 8192 bytes and was skipped
//! ```

use super::escape::{clean_text, cut_chars};
use super::fit::{poor_fits, stale_citations, ADVICE_MAX_CHARS};
use super::{
    claims_total, cleaned_warnings, confidence_line, dangling_list, excerpt, kind_sections,
    low_credibility, shown_class, source_count, source_title, support_counts, uncited,
    uncited_total, unsupported, verdict_summary, KindSection, RenderOptions, MAX_NOTES_SHOWN,
};
use crate::model::{Claim, Report, Source, SupportJudge, VerdictClass};

/// Renders the report as plain text, lines joined by `\n` (no final newline).
pub fn text(report: &Report, opts: &RenderOptions) -> String {
    let mut lines = vec![format!(
        "Sources ({}) — {}",
        source_count(report),
        verdict_summary(report)
    )];
    lines.extend(confidence_line(report));
    let sections = kind_sections(report, opts);
    if sections.is_empty() {
        lines.push("No sources were cited.".to_string());
    }
    for section in &sections {
        lines.extend(section_lines(report, section));
    }
    if let Some(list) = dangling_list(report) {
        lines.push(format!("Dangling citations: {list}"));
    }
    lines.extend(uncited_lines(report, opts));
    lines.extend(unsupported_lines(report, opts));
    lines.extend(poor_fit_lines(report, opts));
    lines.extend(stale_lines(report, opts));
    lines.extend(claim_support_lines(report, opts));
    lines.extend(note_lines(report));
    lines.join("\n")
}

/// `  …and N more`.
fn more_line(n: usize) -> String {
    format!("  …and {n} more")
}

/// The heading of one kind, its sources and `  …and N more`.
fn section_lines(report: &Report, section: &KindSection<'_>) -> Vec<String> {
    let mut lines = vec![section.heading.to_string()];
    for source in &section.shown {
        lines.extend(source_lines(report, source));
    }
    if section.more > 0 {
        lines.push(more_line(section.more));
    }
    lines
}

/// What follows a title: `[verified]`, `[not checked]`, `[broken: HTTP 404]`… with the
/// verdict's reason when links were checked and it failed.
fn verdict_words(report: &Report, source: &Source) -> String {
    let class = shown_class(report, source);
    let reason = source
        .verdict
        .reason
        .as_deref()
        .map(clean_text)
        .filter(|r| !r.is_empty());
    let mut low = if low_credibility(source) {
        " · low credibility".to_string()
    } else {
        String::new()
    };
    // Search results also show their search score (domain, recency, snippet, rank).
    if let Some(search) = source.credibility.as_ref().and_then(|c| c.search.as_ref()) {
        low.push_str(&format!(" · search {:.2}", search.value));
    }
    if let Some((supports, judged)) = support_counts(report, source.id) {
        low.push_str(&format!(
            " · supports {supports} of {judged} {}",
            if judged == 1 { "claim" } else { "claims" }
        ));
    }
    match reason {
        Some(reason) if report.verification.performed && class != VerdictClass::Verified => {
            format!(
                "[{}: {}{low}]",
                class.label(),
                cut_chars(without_label(&reason, class.label()), REASON_MAX_CHARS)
            )
        }
        _ => format!("[{}{low}]", class.label()),
    }
}

/// Reasons are cut to this many characters: room for the longest reason sourcebot writes
/// itself (the settings that would check a Confluence link), so a setting's name is
/// never cut.
const REASON_MAX_CHARS: usize = 240;

/// `reason` without `label` repeated at its start: the product checkers' "not checked
/// (no Notion token: set …)" shows as `[not checked: no Notion token: set …]`, not
/// `[not checked: not checked (…)]`.
fn without_label<'a>(reason: &'a str, label: &str) -> &'a str {
    let Some(rest) = reason.strip_prefix(label) else {
        return reason;
    };
    if let Some(said) = rest.strip_prefix(": ") {
        return said;
    }
    match rest.strip_prefix(" (").and_then(|r| r.strip_suffix(')')) {
        Some(said) if !said.is_empty() => said,
        _ => reason,
    }
}

/// `  1. ✓ Title (×3)  [verified]` and, when the source has a link, the link on the
/// next line.
fn source_lines(report: &Report, source: &Source) -> Vec<String> {
    let mut title = clean_text(&source.title);
    if title.is_empty() {
        title = "untitled source".to_string();
    }
    if source.references > 1 {
        title.push_str(&format!(" (×{})", source.references));
    }
    let mark = shown_class(report, source).mark();
    let words = verdict_words(report, source);
    let mut lines = vec![format!("  {}. {mark} {title}  {words}", source.id)];
    let url = source.link();
    let url = url.map(clean_text).unwrap_or_default();
    if !url.is_empty() {
        lines.push(format!("     {url}"));
    }
    lines
}

/// `Claims that cite nothing (2 of 9):` and the first few, as `  - …` lines.
fn uncited_lines(report: &Report, opts: &RenderOptions) -> Vec<String> {
    let claims = uncited(report);
    if claims.is_empty() {
        return Vec::new();
    }
    let total = uncited_total(report, claims.len());
    let mut lines = vec![format!(
        "Claims that cite nothing ({total} of {}):",
        claims_total(report)
    )];
    lines.extend(
        claims
            .iter()
            .take(opts.max_uncited_shown)
            .map(|c| format!("  - {}", excerpt(&c.text, opts.uncited_excerpt_chars))),
    );
    let shown = claims.len().min(opts.max_uncited_shown);
    if shown > 0 && total > shown {
        lines.push(more_line(total - shown));
    }
    lines
}

/// `Claims their pages do not support (2):` and the first few, each with the titles of
/// the pages that do not say it.
fn unsupported_lines(report: &Report, opts: &RenderOptions) -> Vec<String> {
    let notes = unsupported(report)
        .into_iter()
        .map(|(claim, sources)| {
            let titles: Vec<String> = sources
                .iter()
                .map(|id| format!("{id}. {}", source_title(report, *id)))
                .collect();
            (claim, format!("not in {}", titles.join("; ")))
        })
        .collect();
    noted_claims("Claims their pages do not support", notes, opts)
}

/// `Claims whose sources do not suit them (2):` and the first few, each with its
/// type, what it cites and what would suit it ([`super::fit`]).
fn poor_fit_lines(report: &Report, opts: &RenderOptions) -> Vec<String> {
    let notes = poor_fits(report)
        .into_iter()
        .map(|fit| {
            (
                fit.claim,
                cut_chars(&clean_text(&fit.advice()), ADVICE_MAX_CHARS),
            )
        })
        .collect();
    noted_claims("Claims whose sources do not suit them", notes, opts)
}

/// `Claims about the present citing old pages (1):` and the first few, each with the
/// words that tie it to the present and each old page's title and date.
fn stale_lines(report: &Report, opts: &RenderOptions) -> Vec<String> {
    let notes = stale_citations(report)
        .into_iter()
        .map(|stale| (stale.claim, cut_chars(&stale.advice, ADVICE_MAX_CHARS)))
        .collect();
    noted_claims("Claims about the present citing old pages", notes, opts)
}

/// `{heading} (N):`, then `  - claim — note` for the first few and `  …and N more`;
/// nothing when there are no claims. Notes must be clean already.
fn noted_claims(heading: &str, notes: Vec<(&Claim, String)>, opts: &RenderOptions) -> Vec<String> {
    if notes.is_empty() {
        return Vec::new();
    }
    let mut lines = vec![format!("{heading} ({}):", notes.len())];
    lines.extend(
        notes
            .iter()
            .take(opts.max_uncited_shown)
            .map(|(claim, note)| {
                format!(
                    "  - {} — {note}",
                    excerpt(&claim.text, opts.uncited_excerpt_chars)
                )
            }),
    );
    let shown = notes.len().min(opts.max_uncited_shown);
    if notes.len() > shown {
        lines.push(more_line(notes.len() - shown));
    }
    lines
}

/// Claims judged against their pages shown at most in text.
const MAX_JUDGED_SHOWN: usize = 20;
/// Quotes are cut to this many characters in text.
const QUOTE_MAX_CHARS: usize = 200;

/// `Claim support (N judged):`, who judged (`  Judged by the built-in scorer.`, or the
/// language model by its name), then each judged claim and, under it, each source's
/// verdict with its quote, what it says instead of the claim's figures (`the page says
/// 900 requests per second, not 1,200 requests per second`) and the model's reason
/// when the model judged.
fn claim_support_lines(report: &Report, opts: &RenderOptions) -> Vec<String> {
    let judged: Vec<_> = report
        .claims
        .iter()
        .filter(|c| !c.support.is_empty())
        .collect();
    if judged.is_empty() {
        return Vec::new();
    }
    let mut lines = vec![format!("Claim support ({} judged):", judged.len())];
    let judges = super::evidence::judges(report, opts.support_model.as_deref());
    if let Some(who) = super::evidence::judges_in_words(&judges) {
        lines.push(format!("  Judged by {who}."));
    }
    for claim in judged.iter().take(MAX_JUDGED_SHOWN) {
        lines.push(format!(
            "  - {}",
            excerpt(&claim.text, opts.uncited_excerpt_chars)
        ));
        for support in &claim.support {
            let mut line = format!(
                "      {}. {}: {}",
                support.source,
                source_title(report, support.source),
                support.verdict.as_str()
            );
            if support.judge == SupportJudge::Llm {
                line.push_str(" (model)");
            }
            if let Some(quote) = support.quote.as_deref().map(clean_text) {
                if !quote.is_empty() {
                    line.push_str(&format!(" — \"{}\"", cut_chars(&quote, QUOTE_MAX_CHARS)));
                }
            }
            for (words, _) in super::evidence::page_differs(support) {
                line.push_str(&format!(" — {words}"));
            }
            if let Some(reason) = support.reason.as_deref().map(clean_text) {
                if !reason.is_empty() {
                    line.push_str(&format!(" ({})", cut_chars(&reason, REASON_MAX_CHARS)));
                }
            }
            lines.push(line);
        }
    }
    if judged.len() > MAX_JUDGED_SHOWN {
        lines.push(format!(
            "  …and {} more (--format json lists them all)",
            judged.len() - MAX_JUDGED_SHOWN
        ));
    }
    lines
}

/// `Notes:` and the first few warnings as `  - …` lines, then `  …and N more`.
fn note_lines(report: &Report) -> Vec<String> {
    let warnings = cleaned_warnings(report);
    if warnings.is_empty() {
        return Vec::new();
    }
    let mut lines = vec!["Notes:".to_string()];
    lines.extend(
        warnings
            .iter()
            .take(MAX_NOTES_SHOWN)
            .map(|w| format!("  - {w}")),
    );
    if warnings.len() > MAX_NOTES_SHOWN {
        lines.push(more_line(warnings.len() - MAX_NOTES_SHOWN));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::without_label;

    #[test]
    fn a_reason_does_not_repeat_its_label() {
        let label = "not checked";
        assert_eq!(
            without_label(
                "not checked (no Notion token: set SOURCEBOT_NOTION_TOKEN)",
                label
            ),
            "no Notion token: set SOURCEBOT_NOTION_TOKEN"
        );
        assert_eq!(
            without_label(
                "not checked: Slack refused the bot's token (invalid_auth)",
                label
            ),
            "Slack refused the bot's token (invalid_auth)"
        );
        for kept in [
            "no link to check",
            "not checked",
            "not checked ()",
            "not checked (unclosed",
            "not checkedness",
        ] {
            assert_eq!(without_label(kept, label), kept);
        }
    }
}
