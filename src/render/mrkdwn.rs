//! The report as one Slack mrkdwn message: a summary line, the sources as
//! `<url|title>` links grouped by kind, then dangling citations, claims that cite
//! nothing and notes. Every untrusted string goes through [`super::escape`]. The
//! line builders here are shared with the Block Kit renderer, so both show the same
//! content.
//!
//! ```text
//! *Sources* · 7 sources · ✓ 4 verified · ⚠ 1 broken · – 2 not checked
//! _Slack:_
//! • – <https://acme.slack.com/archives/C1/p1|#eng-deploys: deploy freeze> · not checked
//! _Web:_
//! • ✓ <https://example.com/a|Example A> (×3)
//! • ⚠ <https://example.com/b|Example B> · broken
//! _…and 2 more_
//! :warning: 2 claims cite nothing:
//! > “Revenue grew 45% in 2023 while costs fell by half and…”
//! :x: 1 claim is not supported by the page it cites:
//! > “The church was founded in 1909 by Beulah.” — _not in Parish history_
//! > _the page says 1910, not 1909; the page does not mention Beulah_
//! :mag: 1 claim rests on sources that do not suit it:
//! > “The usual adult dose is 500 mg twice a day.” — _health claim cited only to a forum; check it against official and scholarly sources_
//! :hourglass: 1 claim about the present cites an old page:
//! > “The current guidance is to wait six months.” — _says “current”; NHS guidance is dated 2019-03-01 (7 years old)_
//! ```

use super::escape::{clean_text, cut_chars, escape_text, is_http_url, link};
use super::evidence::missing_quote_line;
use super::fit::{poor_fits, stale_citations, ADVICE_MAX_CHARS};
use super::{
    cleaned_warnings, confidence_line, dangling_list, excerpt, kind_sections, low_credibility,
    plural, shown_class, source_count, source_title, support_counts, uncited, uncited_total,
    unsupported, verdict_summary, RenderOptions, MAX_NOTES_SHOWN,
};
use crate::model::{Claim, Report, Source, VerdictClass};

/// The line shown when the report has no sources.
pub(crate) const NO_SOURCES: &str = "_No sources were cited._";
/// Notes (warnings) are cut to this many characters.
pub(crate) const NOTE_MAX_CHARS: usize = 200;
/// The text of a link that cannot be shown as a link is cut to this many characters.
const RAW_URL_MAX_CHARS: usize = 100;

/// Renders the whole report as mrkdwn, lines joined by `\n` (no final newline).
pub fn mrkdwn(report: &Report, opts: &RenderOptions) -> String {
    let mut lines = vec![header_line(report)];
    let sections = kind_sections(report, opts);
    if sections.is_empty() {
        lines.push(NO_SOURCES.to_string());
    }
    for section in &sections {
        lines.push(heading_line(section.heading));
        lines.extend(section.shown.iter().map(|s| source_line(report, s, opts)));
        if section.more > 0 {
            lines.push(more_line(section.more));
        }
    }
    lines.extend(dangling_line(report));
    for part in quoted_parts(report, opts, opts.uncited_excerpt_chars) {
        lines.extend(part.lines());
    }
    lines.extend(note_lines(report));
    lines.join("\n")
}

/// The parts that quote claims, in the order every message shows them: the claims that
/// cite nothing, those their pages do not support, those whose sources do not suit
/// them, and those about the present citing old pages; each quote cut to
/// `excerpt_chars`.
pub(crate) fn quoted_parts(
    report: &Report,
    opts: &RenderOptions,
    excerpt_chars: usize,
) -> impl Iterator<Item = UncitedPart> {
    [
        uncited_part(report, opts, excerpt_chars),
        unsupported_part(report, opts, excerpt_chars),
        poor_fit_part(report, opts, excerpt_chars),
        stale_part(report, opts, excerpt_chars),
    ]
    .into_iter()
    .flatten()
}

/// `*Sources* · 7 sources · links not checked`.
pub(crate) fn header_line(report: &Report) -> String {
    let count = plural(source_count(report), "source", "sources");
    let header = format!("*Sources* · {count} · {}", verdict_summary(report));
    match confidence_line(report) {
        Some(confidence) => format!("{header}\n{confidence}"),
        None => header,
    }
}

/// `_Slack:_`, `_Files:_`…
pub(crate) fn heading_line(heading: &str) -> String {
    format!("_{heading}:_")
}

/// `_…and N more_`.
pub(crate) fn more_line(n: usize) -> String {
    format!("_…and {n} more_")
}

/// What follows a source's title: ` · {class}` unless verified, and ` (×N)` when cited
/// more than once.
fn line_suffix(report: &Report, source: &Source) -> String {
    let class = shown_class(report, source);
    let mut suffix = String::new();
    if class != VerdictClass::Verified {
        suffix.push_str(" · ");
        suffix.push_str(class.label());
    }
    if low_credibility(source) {
        suffix.push_str(" · low credibility");
    }
    if let Some((supports, judged)) = support_counts(report, source.id) {
        suffix.push_str(&format!(
            " · supports {supports} of {judged} {}",
            if judged == 1 { "claim" } else { "claims" }
        ));
    }
    if source.references > 1 {
        suffix.push_str(&format!(" (×{})", source.references));
    }
    suffix
}

/// The URL a source links to: its canonical URL, only when it is http or https.
pub(crate) fn link_target(source: &Source) -> Option<&str> {
    source.canonical_url.as_deref().filter(|u| is_http_url(u))
}

/// The source's title cleaned, cut and escaped; `"untitled source"` when empty.
fn title_text(source: &Source, max_chars: usize) -> String {
    let title = cut_chars(&clean_text(&source.title), max_chars);
    if title.is_empty() {
        "untitled source".to_string()
    } else {
        escape_text(&title)
    }
}

/// A source with no usable link: its title, then the link as written (if any and if
/// it is not the title itself) as escaped inline code, so that Slack neither links
/// nor formats it.
fn unlinked_body(source: &Source, max_chars: usize) -> String {
    let title = title_text(source, max_chars);
    let raw = source.url.as_deref().or(source.canonical_url.as_deref());
    let raw = raw.map(clean_text).unwrap_or_default();
    if raw.is_empty() || raw == clean_text(&source.title) {
        return title;
    }
    let shown = cut_chars(&raw.replace('`', "'"), RAW_URL_MAX_CHARS);
    format!("{title} (`{}`)", escape_text(&shown))
}

/// One source: `• ✓ <url|title>`, `• ⚠ <url|title> · broken (×3)`, or the escaped title without a
/// link when the source has no http or https URL.
pub(crate) fn source_line(report: &Report, source: &Source, opts: &RenderOptions) -> String {
    let body = match link_target(source) {
        Some(url) => link(url, &source.title, opts.title_max_chars),
        None => unlinked_body(source, opts.title_max_chars),
    };
    let mark = shown_class(report, source).mark();
    format!("• {mark} {body}{}", line_suffix(report, source))
}

/// One source on a short line, without its link: used when the full line would not
/// fit in a Block Kit text. The title is cut to at most `max_chars` (and at most 200)
/// characters.
pub(crate) fn compact_source_line(report: &Report, source: &Source, max_chars: usize) -> String {
    let max_chars = if max_chars == 0 {
        200
    } else {
        max_chars.min(200)
    };
    let title = title_text(source, max_chars);
    let note = if link_target(source).is_some() {
        " (link too long to show)"
    } else {
        ""
    };
    let mark = shown_class(report, source).mark();
    format!("• {mark} {title}{note}{}", line_suffix(report, source))
}

/// `:grey_question: Citations with no reference: [4], [7]`, when there are any.
pub(crate) fn dangling_line(report: &Report) -> Option<String> {
    dangling_list(report).map(|list| format!(":grey_question: Citations with no reference: {list}"))
}

/// The claims that cite nothing: a header line, the quoted claims and how many more.
#[derive(Debug, Clone)]
pub(crate) struct UncitedPart {
    /// `:warning: 2 claims cite nothing:`.
    pub header: String,
    /// `> “…”` quotes, one a claim (a claim's quote may take two lines: the missing
    /// words go under it).
    pub quotes: Vec<String>,
    /// Claims not quoted.
    pub more: usize,
}

impl UncitedPart {
    /// The header, the quotes and `_…and N more_` when some are not quoted.
    pub fn lines(&self) -> Vec<String> {
        let mut lines = vec![self.header.clone()];
        lines.extend(self.quotes.iter().cloned());
        if self.more > 0 && !self.quotes.is_empty() {
            lines.push(more_line(self.more));
        }
        lines
    }
}

/// The uncited claims part, with claims quoted to `excerpt_chars` characters (0: whole);
/// `None` when every claim that wants a source cites one.
fn uncited_part(
    report: &Report,
    opts: &RenderOptions,
    excerpt_chars: usize,
) -> Option<UncitedPart> {
    let claims = uncited(report);
    if claims.is_empty() {
        return None;
    }
    let total = uncited_total(report, claims.len());
    let header = if total == 1 {
        ":warning: 1 claim cites nothing:".to_string()
    } else {
        format!(":warning: {total} claims cite nothing:")
    };
    let quotes: Vec<String> = claims
        .iter()
        .take(opts.max_uncited_shown)
        .map(|c| format!("> “{}”", escape_text(&excerpt(&c.text, excerpt_chars))))
        .collect();
    let more = total - quotes.len();
    Some(UncitedPart {
        header,
        quotes,
        more,
    })
}

/// The claims their pages do not support, as the uncited ones are shown: a header, the
/// quoted claims each with the pages that do not say it (titles escaped, never links),
/// and how many more; `None` when there are none.
fn unsupported_part(
    report: &Report,
    opts: &RenderOptions,
    excerpt_chars: usize,
) -> Option<UncitedPart> {
    let notes = unsupported(report)
        .into_iter()
        .map(|(claim, sources)| {
            let titles: Vec<String> = sources
                .iter()
                .map(|id| cut_chars(&source_title(report, *id), 80))
                .collect();
            (claim, format!("not in {}", titles.join("; ")))
        })
        .collect();
    quoted_notes(
        report,
        notes,
        ":x: 1 claim is not supported by the page it cites:",
        ":x: {n} claims are not supported by the pages they cite:",
        opts,
        excerpt_chars,
    )
}

/// The claims whose sources do not suit them ([`super::fit`]), as the uncited ones are
/// shown: a header, each quoted claim with its type, what it cites and what would suit
/// it (all escaped), and how many more; `None` when there are none.
fn poor_fit_part(
    report: &Report,
    opts: &RenderOptions,
    excerpt_chars: usize,
) -> Option<UncitedPart> {
    let notes = poor_fits(report)
        .into_iter()
        .map(|fit| (fit.claim, cut_chars(&fit.advice(), ADVICE_MAX_CHARS)))
        .collect();
    quoted_notes(
        report,
        notes,
        ":mag: 1 claim rests on sources that do not suit it:",
        ":mag: {n} claims rest on sources that do not suit them:",
        opts,
        excerpt_chars,
    )
}

/// The claims about the present that cite old pages ([`super::fit`]), quoted like the
/// others with the words that tie them to the present and each old page's title and
/// date (escaped, never links); `None` when there are none.
fn stale_part(report: &Report, opts: &RenderOptions, excerpt_chars: usize) -> Option<UncitedPart> {
    let notes = stale_citations(report)
        .into_iter()
        .map(|stale| (stale.claim, cut_chars(&stale.advice, ADVICE_MAX_CHARS)))
        .collect();
    quoted_notes(
        report,
        notes,
        ":hourglass: 1 claim about the present cites an old page:",
        ":hourglass: {n} claims about the present cite old pages:",
        opts,
        excerpt_chars,
    )
}

/// A part quoting claims with a note after each: the header (`one`, or `many` with
/// `{n}` replaced by the count), `> “claim” — _note_` for the first few (claim and note
/// cleaned and escaped here) — each, when no page it cites supports it, with what the
/// web pages among them say instead of its figures and the words those pages never
/// mention on the next line ([`missing_quote_line`]) — and how many more; `None` when
/// there are no claims.
fn quoted_notes(
    report: &Report,
    notes: Vec<(&Claim, String)>,
    one: &str,
    many: &str,
    opts: &RenderOptions,
    excerpt_chars: usize,
) -> Option<UncitedPart> {
    if notes.is_empty() {
        return None;
    }
    let header = if notes.len() == 1 {
        one.to_string()
    } else {
        many.replace("{n}", &notes.len().to_string())
    };
    let quotes: Vec<String> = notes
        .iter()
        .take(opts.max_uncited_shown)
        .map(|(claim, note)| {
            let mut quote = format!(
                "> “{}” — _{}_",
                escape_text(&excerpt(&claim.text, excerpt_chars)),
                escape_text(&clean_text(note))
            );
            if let Some(missing) = missing_quote_line(report, claim) {
                quote.push('\n');
                quote.push_str(&missing);
            }
            quote
        })
        .collect();
    Some(UncitedPart {
        header,
        more: notes.len() - quotes.len(),
        quotes,
    })
}

/// `_Note: …_` for the first few warnings (escaped, cut), then `_…and N more notes_`.
pub(crate) fn note_lines(report: &Report) -> Vec<String> {
    let warnings = cleaned_warnings(report);
    let mut lines: Vec<String> = warnings
        .iter()
        .take(MAX_NOTES_SHOWN)
        .map(|w| format!("_Note: {}_", escape_text(&cut_chars(w, NOTE_MAX_CHARS))))
        .collect();
    if warnings.len() > MAX_NOTES_SHOWN {
        let more = plural(warnings.len() - MAX_NOTES_SHOWN, "more note", "more notes");
        lines.push(format!("_…and {more}_"));
    }
    lines
}
