//! What a page says instead of a claim's figure ("the page says 900 requests per second,
//! not 1,200 requests per second"), wherever a claim's support is shown — and who may
//! see it. A differing figure's page side is the page's own words, a quote: a channel
//! message gives it only for a page read from the web, never for an internal document
//! or a Slack message; the evidence modal gives it exactly where it gives the quote and,
//! where the quote is withheld, shows nothing that hints at it; the command line and the
//! JSON give it all. Both sides are untrusted and never become Slack markup.

use regex::Regex;
use serde_json::Value;
use sourcebot::model::{
    Answer, Claim, ClaimSupport, Differ, ReadVia, Report, Span, SupportJudge, SupportVerdict,
};
use sourcebot::render::evidence::modal::{check_view_limits, evidence_view, Audience};
use sourcebot::render::evidence::text::evidence_text;
use sourcebot::render::{self, check_limits, RenderOptions};

/// The web page's link.
const WEB: &str = "https://example.org/perf";
/// The internal document's link.
const RUNBOOK: &str = "https://acme.atlassian.net/wiki/spaces/ENG/pages/1/Runbook";
/// A figure only the runbook has: it must never reach a channel.
const SECRET: &str = "17:45 sharp per SECRETRUNBOOK";

/// A report citing a web page and a Confluence runbook, with no claims yet.
fn report() -> Report {
    let answer = Answer::from_text(format!(
        "The API serves 1,200 requests per second [1]. Deploys freeze at 17:00 [2].\n\n\
         [1] {WEB} - Performance notes\n[2] {RUNBOOK} - Runbook"
    ));
    let mut report = sourcebot::check(&answer, &Default::default());
    for source in report.groups.iter_mut().flat_map(|g| g.sources.iter_mut()) {
        source.read_via = Some(if source.kind == sourcebot::model::SourceKind::Web {
            ReadVia::Web
        } else {
            ReadVia::Product {
                product: "Confluence".into(),
            }
        });
    }
    report
}

/// The id of the source whose link is `url`.
fn id_of(report: &Report, url: &str) -> usize {
    report
        .sources()
        .find(|s| s.canonical_url.as_deref() == Some(url))
        .map(|s| s.id)
        .unwrap_or_else(|| panic!("no source {url}"))
}

/// Sets how the source with `id` was read.
fn read_via(report: &mut Report, id: usize, via: ReadVia) {
    for source in report.groups.iter_mut().flat_map(|g| g.sources.iter_mut()) {
        if source.id == id {
            source.read_via = Some(via.clone());
        }
    }
}

/// A page's judgement: not supported, with a quote, missing words and differing figures.
fn judged(
    source: usize,
    quote: Option<&str>,
    missing: &[&str],
    differs: &[(&str, &str)],
) -> ClaimSupport {
    ClaimSupport {
        source,
        score: 0.1,
        verdict: SupportVerdict::NotSupported,
        quote: quote.map(str::to_string),
        missing: missing.iter().map(|w| w.to_string()).collect(),
        differs: differs
            .iter()
            .map(|(claim, page)| Differ {
                claim: claim.to_string(),
                page: page.to_string(),
            })
            .collect(),
        reason: None,
        judge: SupportJudge::Builtin,
    }
}

/// A claim citing what `support` judges.
fn claim(text: &str, support: Vec<ClaimSupport>) -> Claim {
    Claim {
        text: text.to_string(),
        span: Span::new(0, text.len()),
        cites: support.iter().map(|s| s.source).collect(),
        signals: vec![],
        claim_type: None,
        relevance: None,
        support,
        classification: None,
        stale_sources: vec![],
    }
}

/// `report` with every differing figure taken out.
fn without_differs(report: &Report) -> Report {
    let mut report = report.clone();
    for support in report.claims.iter_mut().flat_map(|c| c.support.iter_mut()) {
        support.differs.clear();
    }
    report
}

/// The channel's renderings: mrkdwn, and every text of the Block Kit message.
fn channel(report: &Report) -> (String, String) {
    let opts = RenderOptions::default();
    let message = render::blocks(report, &opts);
    assert_eq!(check_limits(&message), Ok(()));
    let blocks = serde_json::to_string(&message.blocks).expect("blocks");
    (render::mrkdwn(report, &opts), blocks)
}

/// The modal's section texts, joined.
fn modal(report: &Report, audience: &Audience<'_>) -> String {
    let view = evidence_view(report, &RenderOptions::default(), audience);
    assert_eq!(check_view_limits(&view), Ok(()));
    view["blocks"]
        .as_array()
        .expect("blocks")
        .iter()
        .filter_map(|b| b.pointer("/text/text").and_then(Value::as_str))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A modal in a public channel of a workspace that lets internal quotes show.
const EVERYONE: Audience<'static> = Audience {
    channel: Some("C0GENERAL"),
    internal_quotes: true,
};

/// Fails when `text` holds a `<` or `>` that is not a link the renderer made to one of
/// the report's own pages (a mrkdwn quote's leading `>` aside), or a mention.
fn assert_no_markup(text: &str) {
    let links = Regex::new(r"<(https?://[^|<>]+)\|[^<>]*>").expect("regex");
    for found in links.captures_iter(text) {
        assert!(
            [WEB, RUNBOOK].contains(&&found[1]),
            "a link the renderer did not make: {}",
            &found[0]
        );
    }
    let rest = links.replace_all(text, "");
    for line in rest.lines() {
        let body = line.trim_start_matches("> ").trim_start_matches('>');
        assert!(!body.contains('<') && !body.contains('>'), "markup: {line}");
    }
    for mention in ["<!channel", "<!here", "<@U", "<https://evil"] {
        assert!(!text.contains(mention), "{mention} in {text}");
    }
}

#[test]
fn a_web_pages_figure_is_said_in_the_channel_and_not_repeated_as_missing() {
    let mut report = report();
    let web = id_of(&report, WEB);
    report.claims = vec![claim(
        "The API serves 1,200 requests per second for Acme [1].",
        vec![judged(
            web,
            Some("The API serves 900 requests per second."),
            &["1,200 requests per second", "Acme"],
            &[("1,200 requests per second", "900 requests per second")],
        )],
    )];
    let (mrkdwn, blocks) = channel(&report);
    let line = "> _the page says 900 requests per second, not 1,200 requests per second; \
                the page does not mention Acme_";
    assert!(mrkdwn.contains(line), "{mrkdwn}");
    assert!(blocks.contains(line), "{blocks}");
    assert!(!mrkdwn.contains("mention 1,200"), "{mrkdwn}");
    // The channel quotes no passage of the page, only the figure.
    assert!(!mrkdwn.contains("The API serves 900"), "{mrkdwn}");

    // The modal, the text report and the evidence list say it too.
    let shown = modal(&report, &EVERYONE);
    assert!(
        shown.contains(
            "> The API serves 900 requests per second.\n\
             _the page says 900 requests per second, not 1,200 requests per second_\n\
             _does not mention Acme_"
        ),
        "{shown}"
    );
    let opts = RenderOptions::default();
    let evidence = evidence_text(&report, &opts);
    assert!(
        evidence.contains(
            "         the page says 900 requests per second, not 1,200 requests per second\n         \
             does not mention: Acme"
        ),
        "{evidence}"
    );
    let text = render::text(&report, &opts);
    assert!(
        text.contains("— the page says 900 requests per second, not 1,200 requests per second"),
        "{text}"
    );

    // With several pages read, the page that says it is named.
    let runbook = id_of(&report, RUNBOOK);
    report.claims[0].support.push(judged(
        runbook,
        None,
        &["1,200 requests per second", "Acme"],
        &[],
    ));
    let (mrkdwn, _) = channel(&report);
    assert!(
        mrkdwn.contains(
            "> _Performance notes says 900 requests per second, not 1,200 requests per second; \
             the pages do not mention Acme_"
        ),
        "{mrkdwn}"
    );
}

#[test]
fn an_internal_pages_figure_never_reaches_the_channel() {
    let mut report = report();
    let runbook = id_of(&report, RUNBOOK);
    report.claims = vec![claim(
        "Deploys freeze at 17:00 on Fridays [2].",
        vec![judged(
            runbook,
            Some("Deploys freeze at 17:45 sharp."),
            &["17:00"],
            &[("17:00", SECRET)],
        )],
    )];
    let private = ReadVia::Slack {
        channel: Some("G0PRIVATE".into()),
        private: true,
    };
    let public = ReadVia::Slack {
        channel: Some("C0PUBLIC".into()),
        private: false,
    };
    let confluence = ReadVia::Product {
        product: "Confluence".into(),
    };
    for via in [confluence, private, public] {
        read_via(&mut report, runbook, via.clone());
        let (mrkdwn, blocks) = channel(&report);
        for shown in [&mrkdwn, &blocks] {
            assert!(!shown.contains("SECRETRUNBOOK"), "{via:?}: {shown}");
            assert!(!shown.contains("17:45"), "{via:?}: {shown}");
            assert!(!shown.contains("says"), "{via:?}: {shown}");
        }
        // Only that the figure is missing, as without the differing figure.
        assert!(
            mrkdwn.contains("> _the page does not mention 17:00_"),
            "{mrkdwn}"
        );
        assert_eq!(
            channel(&report),
            channel(&without_differs(&report)),
            "{via:?}"
        );
    }
    // A source whose reading is not known is not taken for a web page.
    for source in report.groups.iter_mut().flat_map(|g| g.sources.iter_mut()) {
        source.read_via = None;
    }
    assert!(!channel(&report).0.contains("SECRETRUNBOOK"));
}

#[test]
fn the_modal_shows_a_figure_exactly_where_it_shows_the_quote() {
    let mut report = report();
    let runbook = id_of(&report, RUNBOOK);
    report.claims = vec![claim(
        "Deploys freeze at 17:00 on Fridays [2].",
        vec![judged(
            runbook,
            Some("Deploys freeze at 17:45 sharp."),
            &["17:00", "Fridays"],
            &[("17:00", SECRET)],
        )],
    )];
    let quotes_off = Audience {
        internal_quotes: false,
        ..EVERYONE
    };
    let said = format!("_the page says {SECRET}, not 17:00_");

    // Confluence: shown where internal quotes are allowed, withheld where they are not.
    let shown = modal(&report, &EVERYONE);
    assert!(
        shown.contains("> Deploys freeze at 17:45 sharp."),
        "{shown}"
    );
    assert!(
        shown.contains(&format!("{said}\n_does not mention Fridays_")),
        "{shown}"
    );
    let kept_out = modal(&report, &quotes_off);
    assert!(
        !kept_out.contains("SECRETRUNBOOK") && !kept_out.contains("17:45"),
        "{kept_out}"
    );
    assert!(
        kept_out.contains("_does not mention 17:00, Fridays_"),
        "{kept_out}"
    );

    // A private conversation's message: only in a modal opened from it.
    read_via(
        &mut report,
        runbook,
        ReadVia::Slack {
            channel: Some("G0PRIVATE".into()),
            private: true,
        },
    );
    let elsewhere = modal(&report, &EVERYONE);
    assert!(!elsewhere.contains("SECRETRUNBOOK"), "{elsewhere}");
    assert!(elsewhere.contains("private conversation"), "{elsewhere}");
    let inside = Audience {
        channel: Some("G0PRIVATE"),
        ..EVERYONE
    };
    assert!(modal(&report, &inside).contains(&said));
    // Not even when the workspace allows internal quotes in general, nor a private
    // conversation whose id is unknown.
    read_via(
        &mut report,
        runbook,
        ReadVia::Slack {
            channel: None,
            private: true,
        },
    );
    assert!(!modal(&report, &inside).contains("SECRETRUNBOOK"));

    // A web page's figure shows whatever the workspace's setting.
    read_via(&mut report, runbook, ReadVia::Web);
    assert!(modal(&report, &quotes_off).contains(&said));
}

#[test]
fn a_withheld_figure_is_not_even_hinted_at() {
    let mut report = report();
    let runbook = id_of(&report, RUNBOOK);
    for quote in [Some("Deploys freeze at 17:45 sharp."), None] {
        report.claims = vec![claim(
            "Deploys freeze at 17:00 on Fridays [2].",
            vec![judged(runbook, quote, &["17:00"], &[("17:00", SECRET)])],
        )];
        let cases = [
            (
                ReadVia::Product {
                    product: "Confluence".into(),
                },
                Audience {
                    internal_quotes: false,
                    ..EVERYONE
                },
            ),
            (
                ReadVia::Slack {
                    channel: Some("G0PRIVATE".into()),
                    private: true,
                },
                EVERYONE,
            ),
        ];
        for (via, audience) in cases {
            read_via(&mut report, runbook, via);
            let opts = RenderOptions::default();
            // Withheld, the modal is the one the page would have had with no differing
            // figure: the same words, the same missing ones, no "says".
            assert_eq!(
                evidence_view(&report, &opts, &audience),
                evidence_view(&without_differs(&report), &opts, &audience),
                "{quote:?}"
            );
            assert!(!modal(&report, &audience).contains("says"));
        }
    }
}

#[test]
fn hostile_figures_never_become_markup() {
    let mut report = report();
    let web = id_of(&report, WEB);
    let runbook = id_of(&report, RUNBOOK);
    let page = "<!channel> 900 <https://evil|x> <@U1> & <#C1> \u{202e}\u{0007}";
    let claimed = "<!here> 1,200 <https://evil.example|click>";
    let huge = format!("<!channel>{}", "<&>".repeat(5_000));
    report.claims = vec![
        claim(
            "The API serves 1,200 requests per second [1].",
            vec![judged(
                web,
                Some(page),
                &[claimed, "Acme"],
                &[(claimed, page), (&huge, &huge), ("x", &huge)],
            )],
        ),
        claim(
            "Deploys freeze at 17:00 [2].",
            vec![judged(runbook, Some(page), &[claimed], &[(claimed, page)])],
        ),
    ];
    let (mrkdwn, blocks) = channel(&report);
    assert_no_markup(&mrkdwn);
    let block_texts: Vec<String> = serde_json::from_str::<Vec<Value>>(&blocks)
        .expect("blocks")
        .iter()
        .map(|b| b.to_string())
        .collect();
    for text in &block_texts {
        assert!(
            !text.contains("<!channel") && !text.contains("<https://evil"),
            "{text}"
        );
    }
    // The web page's figure is there, escaped; the control and bidi characters are gone.
    assert!(
        mrkdwn.contains("the page says &lt;!channel&gt; 900 &lt;https://evil|x&gt; &lt;@U1&gt; &amp; &lt;#C1&gt;, not &lt;!here&gt; 1,200"),
        "{mrkdwn}"
    );
    assert!(!mrkdwn.contains('\u{202e}') && !mrkdwn.contains('\u{0007}'));
    // At most two figures under a claim, each clause cut.
    let line = mrkdwn
        .lines()
        .find(|l| l.contains("the page says"))
        .expect("the figures' line");
    assert!(line.matches(" says ").count() <= 2, "{line}");
    assert!(
        line.encode_utf16().count() <= 2 * 200 + 300 + 10,
        "{}",
        line.len()
    );

    for audience in [
        EVERYONE,
        Audience {
            internal_quotes: false,
            ..EVERYONE
        },
    ] {
        assert_no_markup(&modal(&report, &audience));
    }
    // Sixty claims with hostile figures on every page still fit in a modal.
    let many = Report {
        claims: std::iter::repeat_n(report.claims.clone(), 30)
            .flatten()
            .collect(),
        ..report.clone()
    };
    let view = evidence_view(&many, &RenderOptions::default(), &EVERYONE);
    assert_eq!(check_view_limits(&view), Ok(()));
    // The text formats clean what they print.
    let opts = RenderOptions::default();
    for text in [evidence_text(&report, &opts), render::text(&report, &opts)] {
        assert!(!text.contains('\u{202e}') && !text.contains('\u{0007}'));
    }
}

#[test]
fn a_claim_and_its_longest_page_stay_within_one_section() {
    let mut report = report();
    let web = id_of(&report, WEB);
    let long = "&".repeat(3_000);
    let words: Vec<String> = (0..6).map(|i| format!("{i}{long}")).collect();
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    let mut support = judged(
        web,
        Some(&long),
        &words,
        &[(&long, &long), (&long, "x"), ("y", &long), ("1", "2")],
    );
    support.reason = Some(long.clone());
    support.judge = SupportJudge::Llm;
    report.claims = vec![claim(&long, vec![support])];
    for source in report.groups.iter_mut().flat_map(|g| g.sources.iter_mut()) {
        source.title = long.clone();
        source.canonical_url = Some(format!("{WEB}/{}", "a".repeat(600)));
    }
    let opts = RenderOptions {
        support_model: Some(long.clone()),
        ..RenderOptions::default()
    };
    let view = evidence_view(&report, &opts, &EVERYONE);
    assert_eq!(check_view_limits(&view), Ok(()));
    let section = view["blocks"][1]["text"]["text"].as_str().expect("section");
    assert!(section.contains("says"), "{section}");
    assert!(section.contains("does not mention"), "{section}");
}

#[test]
fn the_json_carries_what_the_page_says_instead() {
    let mut report = report();
    let web = id_of(&report, WEB);
    let runbook = id_of(&report, RUNBOOK);
    report.claims = vec![claim(
        "The API serves 1,200 requests per second [1].",
        vec![
            judged(
                web,
                None,
                &["1,200 requests per second"],
                &[("1,200 requests per second", "900 requests per second")],
            ),
            judged(runbook, None, &["1,200 requests per second"], &[]),
        ],
    )];
    let json: Value = serde_json::from_str(&render::json(&report)).expect("JSON");
    let support = &json["claims"][0]["support"];
    assert_eq!(
        support[0]["differs"],
        serde_json::json!([{"claim": "1,200 requests per second", "page": "900 requests per second"}])
    );
    assert!(support[1].get("differs").is_none(), "{}", support[1]);
    // And it reads back.
    let back: Report = serde_json::from_value(json).expect("reads back");
    assert_eq!(
        back.claims[0].support[0].differs,
        report.claims[0].support[0].differs
    );
}
