//! Page signals read from plain text and Markdown end to end through [`extract`], and
//! the pieces (dates, bylines, references, corrections) one by one.

use super::*;
use crate::page::extract;

fn signals_of(content_type: &str, body: &str) -> PageSignals {
    let read = extract(Some(content_type), body.as_bytes(), false);
    read.page()
        .unwrap_or_else(|| panic!("not read: {read:?}"))
        .signals
        .clone()
}

fn date(s: &str) -> Option<String> {
    Some(s.to_string())
}

#[test]
fn plain_text_and_markdown() {
    let text = "Tides and the Moon\n\nBy Jane Smith\n\nPublished May 4, 2023 \u{b7} Last updated: 6th May 2023\n\n\
                The Moon's gravity raises two bulges of water.\n\
                Most coasts see two high tides a day.\n";
    assert_eq!(
        signals_of("text/plain", text),
        PageSignals {
            author: true,
            published: date("2023-05-04"),
            updated: date("2023-05-06"),
            words: 33,
            ..PageSignals::default()
        }
    );
    // Markdown: the lines of a references list join into one paragraph; the entries
    // are still counted, by their numbers in sequence.
    let markdown = "# Tidal friction\n\nWritten by A. Writer\n\nFriction slows the Earth [1].\n\n\
                    ## References\n\n\
                    1. Egbert GD, Ray RD. Nature. 2000;405:775. doi:10.1038/35015531\n\
                    2. Munk W. Once again: tidal friction. Prog Oceanogr. 1997;40:7-35.\n\
                    3. Ray RD. Tidal energy dissipation. 2001.\n";
    assert_eq!(
        signals_of("text/markdown", markdown),
        PageSignals {
            author: true,
            references: 3,
            words: 39,
            ..PageSignals::default()
        }
    );
}

#[test]
fn hostile_text_reports_nothing_and_does_not_panic() {
    // Brackets, DOI prefixes and keywords without end.
    let text = format!(
        "{}\n\n{}\n\n{}\n\n{}",
        "[".repeat(100_000),
        "10.".repeat(50_000),
        "Published ".repeat(10_000),
        "By ".repeat(10_000)
    );
    let signals = text_signals(&text);
    assert_eq!(
        signals,
        PageSignals {
            words: 2 + 2 * 10_000,
            ..PageSignals::default()
        }
    );
}

#[test]
fn counts_are_capped() {
    let dois: String = (0..MAX_COUNT + 5)
        .map(|i| format!("doi:10.1000/{i} "))
        .collect();
    assert_eq!(text_signals(&dois).references, MAX_COUNT);
}

#[test]
fn dated_lines_near_the_top_are_read() {
    for (text, published, updated) in [
        ("Published May 4, 2023", Some("2023-05-04"), None),
        ("Posted on 4 May 2023 by admin", Some("2023-05-04"), None),
        (
            "First published: Thursday, 4 May 2023",
            Some("2023-05-04"),
            None,
        ),
        (
            "Updated 2023-05-06. Published 2023-05-04.",
            Some("2023-05-04"),
            Some("2023-05-06"),
        ),
        ("Last modified: March 2022", None, Some("2022-03")),
        (
            "This page was updated on 2023/07/01",
            None,
            Some("2023-07-01"),
        ),
        ("Published 2023-13-45", None, None),
        ("Published in Nature on May 4, 2023", None, None),
        ("Unpublished May 4, 2023", None, None),
        ("Published 2023", None, None),
    ] {
        let signals = text_signals(text);
        assert_eq!(signals.published.as_deref(), published, "{text}");
        assert_eq!(signals.updated.as_deref(), updated, "{text}");
    }
    // Only the top of the text is searched.
    let late = format!("{}\n\nPublished May 4, 2023", "word ".repeat(500));
    assert_eq!(text_signals(&late).published, None);
}

#[test]
fn bylines_name_someone() {
    for (text, expected) in [
        ("By Jane Smith", true),
        ("BY JANE SMITH", true),
        ("by Jane Smith and John Doe", true),
        ("Written by A. Writer", true),
        ("Author: Ludwig van Beethoven", true),
        ("By: Siobhán O\u{2019}Brien-Ng", true),
        ("Tides | By Jane Smith | 4 May 2023", true),
        ("By clicking Accept All you agree", false),
        ("By Clicking Accept you agree", false),
        ("By continuing to browse", false),
        ("By 2030 the fleet will be electric", false),
        ("By Reuters", false),
        ("By the Way, Tides Matter", false),
        ("By The Associated Press", false),
        ("Bylaws Committee Meets Today", false),
        ("Posted by admin", false),
        ("Stand By Your Man", false),
    ] {
        assert_eq!(text_signals(text).author, expected, "{text}");
    }
    // Only the top of the text is searched.
    let late = format!("{}\n\nBy Jane Smith", "word ".repeat(500));
    assert!(!text_signals(&late).author);
}

#[test]
fn references_are_counted_from_the_text() {
    for (text, expected) in [
        ("Tides [1] follow the Moon [2][3], as shown [2].", 3),
        ("See [1, 4] and [5\u{2013}9].", 7),
        ("Arrays start at [0] and years like [2019] are not markers.", 0),
        ("See doi:10.1038/35015531 and https://doi.org/10.1038/35015531.", 1),
        ("Two: 10.1000/abc, 10.1016/S0140-6736(20)30183-5.", 2),
        (
            "Body.\n\nReferences\n\nSmith J. A book. 2001.\n\nDoe K. A paper. 2002.\n\nSee also\n\nUnrelated text, with commas.",
            2,
        ),
        (
            "Body.\n\n7. Bibliography:\n\n[1] One, 2001. [2] Two, 2002. [3] Three, 2003.",
            3,
        ),
        (
            "Body.\n\nNotes\n\nFirst note, 2001.\n\nReferences\n\nFirst source, 2001.\n\nSecond source, 2002.",
            3,
        ),
        ("References are available on request.", 0),
    ] {
        assert_eq!(text_signals(text).references, expected, "{text}");
    }
}

#[test]
fn corrections_are_recognised() {
    for (text, expected) in [
        ("Correction: An earlier version misspelled her name.", true),
        ("Correction (May 5, 2023): The vote was 7-2.", true),
        (
            "This article has been corrected to show the right date.",
            true,
        ),
        ("We corrected the figure on May 5.", true),
        (
            "Editor\u{2019}s note: An earlier version of this story said otherwise.",
            true,
        ),
        ("Read our corrections policy.", true),
        ("Retraction: this paper has data problems.", true),
        ("Erratum to: Tidal dissipation in shallow seas", true),
        ("The Department of Correction: budget talks resume.", false),
        ("Error correction codes protect the data.", false),
        ("The department of corrections opened a new wing.", false),
        ("Nothing to see here.", false),
    ] {
        assert_eq!(text_signals(text).corrections, expected, "{text}");
    }
}
