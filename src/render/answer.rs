//! The answer itself as Slack mrkdwn, for `POST /v1/answers` with `post_answer`: the
//! text as written, made inert (every `&`, `<`, `>` escaped, control, zero-width and
//! bidi characters removed, so nothing in it can mention anyone or form a link), with
//! the marker ` _(unverified)_` after each claim that cites no source.

use super::escape::escape_text;
use crate::model::Report;

/// What follows a claim that cites nothing.
pub const UNVERIFIED_MARKER: &str = " _(unverified)_";

/// `text` (the answer `report` was made from) as mrkdwn, each uncited claim followed by
/// [`UNVERIFIED_MARKER`].
pub fn answer_mrkdwn(text: &str, report: &Report) -> String {
    let mut ends: Vec<usize> = report
        .uncited_claims()
        .map(|claim| claim.span.end)
        .filter(|&end| end <= text.len() && text.is_char_boundary(end))
        .collect();
    ends.sort_unstable();
    ends.dedup();
    let mut out = String::with_capacity(text.len() + ends.len() * UNVERIFIED_MARKER.len());
    let mut from = 0;
    for end in ends {
        out.push_str(&inert(&text[from..end]));
        out.push_str(UNVERIFIED_MARKER);
        from = end;
    }
    out.push_str(&inert(&text[from..]));
    out
}

/// Escaped, without control characters (newlines and tabs kept), zero-width or bidi
/// characters.
fn inert(s: &str) -> String {
    let kept: String = s
        .chars()
        .filter(|&c| c == '\n' || c == '\t' || !(c.is_control() || super::escape::is_invisible(c)))
        .collect();
    escape_text(&kept)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collect::CollectOptions;
    use crate::model::Answer;

    fn render(text: &str) -> String {
        let report = crate::check(&Answer::from_text(text), &CollectOptions::default());
        answer_mrkdwn(text, &report)
    }

    #[test]
    fn uncited_claims_are_marked_and_cited_ones_are_not() {
        let text = "Revenue grew by 45% in 2024 [1]. Our churn fell to 2% last quarter. \
                    Paris is the capital of France.\n\n[1] https://www.sec.gov/x - Filing";
        let out = render(text);
        assert!(out.contains("last quarter. _(unverified)_"), "{out}");
        assert!(!out.contains("[1]. _(unverified)_"), "{out}");
        assert!(out.contains("[1] https://www.sec.gov/x - Filing"), "{out}");
    }

    #[test]
    fn nothing_in_the_answer_becomes_markup() {
        let text = "Ping <!channel> and <@U123> now <https://evil.example|click> & more.\u{202e}";
        let out = render(text);
        assert!(!out.contains('<') && !out.contains('>'), "{out}");
        assert!(out.contains("&lt;!channel&gt;"), "{out}");
        assert!(out.contains("&amp; more"), "{out}");
        assert!(!out.contains('\u{202e}'));
    }

    #[test]
    fn text_without_claims_is_kept_as_written() {
        assert_eq!(render("Hi\nthere"), "Hi\nthere");
    }
}
