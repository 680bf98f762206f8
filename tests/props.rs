//! Properties of the whole pipeline on arbitrary text: collect and render never panic,
//! every unique source is either listed or counted in "…and N more", Block Kit output
//! stays inside Slack's limits, claim spans are sound and a claim's text is its span as
//! a person reads it, and nothing a source says becomes a mention.

use proptest::prelude::*;
use sourcebot::collect::readable::readable_text;
use sourcebot::collect::scan::{scan, LinkForm};
use sourcebot::collect::CollectOptions;
use sourcebot::model::Answer;
use sourcebot::render::{self, RenderOptions};

#[path = "support/pieces.rs"]
mod pieces;
use pieces::answer_text;

/// Sources a rendering accounts for: links and link-less lines listed, plus every
/// "…and N more" count.
fn accounted_in_mrkdwn(out: &str) -> usize {
    // The sources part ends where the notes on citations, claims and warnings begin.
    let sources_part: Vec<&str> = out
        .lines()
        .take_while(|l| {
            !l.starts_with(":grey_question:")
                && !l.starts_with(":warning:")
                && !l.starts_with("_Note")
        })
        .collect();
    let sources_part = sources_part.join("\n");
    let listed = sources_part.lines().filter(|l| l.starts_with("• ")).count();
    listed + and_more_counts(&sources_part)
}

fn and_more_counts(out: &str) -> usize {
    out.match_indices("…and ")
        .filter_map(|(i, _)| {
            let rest = &out[i + "…and ".len()..];
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            let after = &rest[digits.len()..];
            after
                .starts_with(" more")
                .then(|| digits.parse::<usize>().ok())?
        })
        .sum()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn collect_and_render_never_panic_and_account_for_every_source(text in answer_text(), max_per_kind in 0usize..7) {
        let report = sourcebot::check(&Answer::from_text(text.clone()), &CollectOptions::default());
        let options = RenderOptions { max_per_kind, ..RenderOptions::default() };
        let total = report.metrics.unique_sources;
        prop_assert_eq!(report.sources().count(), total);

        // Claims: on char boundaries, ordered, inside the text.
        let mut last_end = 0;
        for claim in &report.claims {
            prop_assert!(claim.span.start >= last_end && claim.span.end <= text.len());
            prop_assert!(text.is_char_boundary(claim.span.start) && text.is_char_boundary(claim.span.end));
            // A claim's text is its span as a person reads it.
            prop_assert_eq!(
                readable_text(&text, claim.span, &scan(&text).shown),
                claim.text.as_str()
            );
            // No link the scan found is left as markup in it (where its markup is written
            // only once in the claim, so that no unread copy of it can be what is seen).
            let written = &text[claim.span.start..claim.span.end];
            for link in scan(&text).links.iter().filter(|l| {
                l.form != LinkForm::Bare && l.span.start >= claim.span.start && l.span.end <= claim.span.end
            }) {
                let markup = &text[link.span.start..link.span.end];
                if written.matches(markup).count() == 1 {
                    prop_assert!(!claim.text.contains(markup), "{:?}", claim.text);
                }
            }
            prop_assert!(claim.cites.iter().all(|id| *id >= 1 && *id <= total));
            last_end = claim.span.end;
        }

        let mrkdwn = render::mrkdwn(&report, &options);
        prop_assert_eq!(accounted_in_mrkdwn(&mrkdwn), total, "mrkdwn:\n{}", mrkdwn);
        prop_assert!(!mrkdwn.contains("<!") && !mrkdwn.contains("<@") && !mrkdwn.contains("<#"));

        let message = render::blocks(&report, &options);
        prop_assert!(render::check_limits(&message).is_ok(), "{:?}", render::check_limits(&message));
        prop_assert!(message.text.chars().count() < 4000);
        let text_out = render::text(&report, &options);
        prop_assert!(!text_out.is_empty());
        let json = render::json(&report);
        let back: sourcebot::model::Report = serde_json::from_str(&json).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(back.metrics, report.metrics);
    }

    #[test]
    fn arbitrary_bytes_are_read_or_refused_cleanly(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        match sourcebot::collect::input::parse_answer(&bytes, Default::default(), 1 << 20) {
            Ok(answer) => { let _ = sourcebot::check(&answer, &CollectOptions::default()); }
            Err(error) => prop_assert!(!error.to_string().is_empty()),
        }
    }
}
