//! Tests of the renderers on hand-built reports: the exact layout of mrkdwn and plain
//! text, the options (order, caps, cuts), Block Kit limits, JSON round trips, and
//! above all escaping: every mrkdwn output is parsed back with Slack's own rule for
//! links, and hostile titles and URLs must come out as exactly one harmless link per
//! source and no other markup.

use serde_json::Value;
use sourcebot::model::{
    Claim, ClaimSignal, DanglingCitation, FoundBy, InputShape, KindCounts, Metrics, Origin, Report,
    Source, SourceGroup, SourceKind, Span, Verdict, VerdictClass, Verification,
};
use sourcebot::render::escape::{escape_text, link, link_label, link_url};
use sourcebot::render::{
    self, check_limits, BlockMessage, RenderOptions, MAX_BLOCKS, MAX_CONTEXT_ELEMENTS,
    MAX_FALLBACK_TEXT, MAX_SECTION_TEXT, MAX_TOTAL_BLOCK_TEXT,
};

// ---------------------------------------------------------------------------------
// Building reports
// ---------------------------------------------------------------------------------

/// Builds a [`Report`] source by source.
#[derive(Default)]
struct Builder {
    sources: Vec<Source>,
    claims: Vec<Claim>,
    dangling: Vec<u32>,
    warnings: Vec<String>,
    performed: bool,
}

impl Builder {
    fn new() -> Self {
        Builder::default()
    }

    /// Adds a source whose canonical and written URL are both `url`.
    fn add(mut self, kind: SourceKind, url: Option<&str>, title: &str) -> Self {
        let id = self.sources.len() + 1;
        self.sources.push(Source {
            id,
            canonical_url: url.map(String::from),
            url: url.map(String::from),
            title: title.to_string(),
            kind,
            references: 1,
            found_by: vec![FoundBy::Inline],
            citation_numbers: vec![],
            agents: vec![],
            snippet: None,
            date: None,
            position: None,
            agent_confidence: None,
            verdict: Verdict::not_checked("verification not run"),
            credibility: None,
            page: None,
            read_via: None,
        });
        self
    }

    fn web(self, url: &str, title: &str) -> Self {
        self.add(SourceKind::Web, Some(url), title)
    }

    /// Changes the last source added.
    fn with(mut self, change: impl FnOnce(&mut Source)) -> Self {
        if let Some(last) = self.sources.last_mut() {
            change(last);
        }
        self
    }

    fn claim(mut self, text: &str, cites: Vec<usize>) -> Self {
        self.claims.push(Claim {
            text: text.to_string(),
            span: Span::new(0, text.len()),
            cites,
            signals: vec![ClaimSignal::Number],
            claim_type: None,
            relevance: None,
            support: Vec::new(),
            classification: None,
            stale_sources: Vec::new(),
        });
        self
    }

    /// A sentence with nothing in it that wants a source.
    fn statement(mut self, text: &str) -> Self {
        self.claims.push(Claim {
            text: text.to_string(),
            span: Span::new(0, text.len()),
            cites: vec![],
            signals: vec![],
            claim_type: None,
            relevance: None,
            support: Vec::new(),
            classification: None,
            stale_sources: Vec::new(),
        });
        self
    }

    fn uncited(self, text: &str) -> Self {
        self.claim(text, vec![])
    }

    fn dangling(mut self, number: u32) -> Self {
        self.dangling.push(number);
        self
    }

    fn warning(mut self, text: &str) -> Self {
        self.warnings.push(text.to_string());
        self
    }

    fn checked(mut self) -> Self {
        self.performed = true;
        self
    }

    fn build(self) -> Report {
        let mut per_kind = KindCounts::default();
        for s in &self.sources {
            per_kind.add(s.kind);
        }
        let groups: Vec<SourceGroup> = SourceKind::ALL
            .iter()
            .map(|kind| SourceGroup {
                kind: *kind,
                sources: self
                    .sources
                    .iter()
                    .filter(|s| s.kind == *kind)
                    .cloned()
                    .collect(),
            })
            .filter(|g| !g.sources.is_empty())
            .collect();
        let total_references = self.sources.iter().map(|s| s.references).sum();
        let uncited = self.claims.iter().filter(|c| c.is_uncited()).count();
        let cited = self.claims.iter().filter(|c| !c.cites.is_empty()).count();
        Report {
            shape: InputShape::Text,
            origin: Origin::Unknown,
            groups,
            metrics: Metrics {
                total_references,
                unique_sources: self.sources.len(),
                duplicates_removed: total_references - self.sources.len(),
                per_kind,
                dangling_citations: self.dangling.len(),
                claims: self.claims.len(),
                cited_claims: cited,
                uncited_claims: uncited,
                failed_agent_results: 0,
                links_skipped: 0,
            },
            claims: self.claims,
            dangling_citations: self
                .dangling
                .iter()
                .map(|n| DanglingCitation {
                    number: *n,
                    span: Span::new(0, 3),
                })
                .collect(),
            verification: Verification {
                performed: self.performed,
                note: if self.performed {
                    "Links were checked.".into()
                } else {
                    "Links were not checked.".into()
                },
                ..Default::default()
            },
            warnings: self.warnings,
            confidence: None,
        }
    }
}

/// `n` web sources `https://example.com/{i}` titled `Web {i}`.
fn many_web(mut b: Builder, n: usize) -> Builder {
    for i in 1..=n {
        b = b.web(&format!("https://example.com/{i}"), &format!("Web {i}"));
    }
    b
}

fn opts() -> RenderOptions {
    RenderOptions::default()
}

// ---------------------------------------------------------------------------------
// Parsing mrkdwn back the way Slack does
// ---------------------------------------------------------------------------------

/// A link as Slack reads it: the URL up to the first `|`, the label after it.
#[derive(Debug, Clone, PartialEq)]
struct Link {
    url: String,
    label: String,
}

/// Undoes mrkdwn escaping in one pass (`&amp;lt;` becomes `&lt;`, not `<`).
fn unescape(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        let (text, len) = [("&amp;", "&"), ("&lt;", "<"), ("&gt;", ">")]
            .iter()
            .find(|(entity, _)| tail.starts_with(entity))
            .map(|(entity, text)| (*text, entity.len()))
            .unwrap_or(("&", 1));
        out.push_str(text);
        rest = &tail[len..];
    }
    out.push_str(rest);
    out
}

/// Undoes the percent-encoding the renderer introduces (`%7C`, `%3C`, `%3E`, `%20`,
/// `%22`) and `&amp;`; any other `%xx` is left alone.
fn decode_url(s: &str) -> String {
    let s = unescape(s);
    let mut out = String::new();
    let mut rest = s.as_str();
    while let Some(i) = rest.find('%') {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        let decoded = [
            ("%7C", "|"),
            ("%3C", "<"),
            ("%3E", ">"),
            ("%20", " "),
            ("%22", "\""),
        ]
        .iter()
        .find(|(code, _)| tail.starts_with(code));
        match decoded {
            Some((code, text)) => {
                out.push_str(text);
                rest = &tail[code.len()..];
            }
            None => {
                out.push('%');
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// Every `<…>` construct in `s`, read with Slack's rule. Fails on a mention or special
/// (`<!`, `<@`, `<#`), a `<` inside a link, an unclosed `<`, a link with no label, or a
/// URL that is not http(s) or contains characters that should have been encoded.
fn parse_links(s: &str) -> Result<Vec<Link>, String> {
    let mut links = Vec::new();
    let mut rest = s;
    while let Some(start) = rest.find('<') {
        let after = &rest[start + 1..];
        if after.starts_with(['!', '@', '#']) {
            return Err(format!("mention or special at {:?}", cut(after)));
        }
        let end = after
            .find('>')
            .ok_or_else(|| format!("unclosed < at {:?}", cut(after)))?;
        let inner = &after[..end];
        if inner.contains('<') {
            return Err(format!("nested < in {:?}", cut(inner)));
        }
        let (url, label) = inner
            .split_once('|')
            .ok_or_else(|| format!("link without label {:?}", cut(inner)))?;
        let scheme: String = url.chars().take(8).collect::<String>().to_ascii_lowercase();
        if !(scheme.starts_with("http://") || scheme.starts_with("https://")) {
            return Err(format!("link to a non-http URL {:?}", cut(url)));
        }
        if url
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || c == '"')
        {
            return Err(format!("unencoded character in URL {:?}", cut(url)));
        }
        links.push(Link {
            url: decode_url(url),
            label: unescape(label),
        });
        rest = &after[end + 1..];
    }
    Ok(links)
}

fn cut(s: &str) -> String {
    s.chars().take(60).collect()
}

/// The links of `s`, failing the test on anything else that looks like markup.
fn links(s: &str) -> Vec<Link> {
    match parse_links(s) {
        Ok(links) => links,
        Err(e) => panic!("{e}\n--- in ---\n{}", cut_long(s)),
    }
}

fn cut_long(s: &str) -> String {
    s.chars().take(3000).collect()
}

fn link_to(url: &str, label: &str) -> Link {
    Link {
        url: url.to_string(),
        label: label.to_string(),
    }
}

/// The texts of every block, in order.
fn block_texts(msg: &BlockMessage) -> Vec<String> {
    let mut texts = Vec::new();
    for block in &msg.blocks {
        if let Some(t) = block.pointer("/text/text").and_then(Value::as_str) {
            texts.push(t.to_string());
        }
        if let Some(elements) = block.get("elements").and_then(Value::as_array) {
            for e in elements {
                if let Some(t) = e.get("text").and_then(Value::as_str) {
                    texts.push(t.to_string());
                }
            }
        }
    }
    texts
}

/// Checks the Block Kit limits independently of [`check_limits`], counting chars.
fn assert_blocks_valid(msg: &BlockMessage) {
    assert_eq!(check_limits(msg), Ok(()));
    assert!(msg.blocks.len() <= MAX_BLOCKS);
    let mut total = 0;
    for block in &msg.blocks {
        if let Some(elements) = block.get("elements").and_then(Value::as_array) {
            assert!(!elements.is_empty() && elements.len() <= MAX_CONTEXT_ELEMENTS);
        }
    }
    for text in block_texts(msg) {
        let n = text.chars().count();
        assert!((1..=MAX_SECTION_TEXT).contains(&n), "text of {n} chars");
        total += n;
    }
    assert!(total <= MAX_TOTAL_BLOCK_TEXT, "total {total}");
    assert!(msg.text.chars().count() <= MAX_FALLBACK_TEXT);
    assert!(!msg.text.is_empty());
}

// ---------------------------------------------------------------------------------
// Layout
// ---------------------------------------------------------------------------------

const LONG_CLAIM: &str = "Revenue grew 45% in 2023 while costs fell by half and margins \
                          improved across every single region we track.";

fn example() -> Report {
    let b = Builder::new()
        .add(
            SourceKind::Slack,
            Some("https://acme.slack.com/archives/C1/p1"),
            "#eng-deploys: deploy freeze starts Friday",
        )
        .add(
            SourceKind::Confluence,
            Some("https://acme.atlassian.net/wiki/spaces/ENG/pages/1"),
            "Deploy runbook",
        )
        .with(|s| s.references = 3);
    let b = ["A", "B", "C", "D", "E", "F", "G"].iter().fold(b, |b, x| {
        b.web(&format!("https://example.com/{x}"), &format!("Example {x}"))
    });
    b.uncited(LONG_CLAIM)
        .claim("Cited 10%.", vec![1])
        .uncited("Second\nclaim   99.")
        .uncited("Third 3.")
        .uncited("Fourth 4.")
        .statement("No signal here.")
        .dangling(7)
        .dangling(4)
        .dangling(7)
        .warning("1 link was skipped")
        .build()
}

#[test]
fn mrkdwn_matches_the_spec_layout() {
    let expected = "\
*Sources* · 9 sources · links not checked
_Slack:_
• – <https://acme.slack.com/archives/C1/p1|#eng-deploys: deploy freeze starts Friday> · not checked
_Confluence:_
• – <https://acme.atlassian.net/wiki/spaces/ENG/pages/1|Deploy runbook> · not checked (×3)
_Web:_
• – <https://example.com/A|Example A> · not checked
• – <https://example.com/B|Example B> · not checked
• – <https://example.com/C|Example C> · not checked
• – <https://example.com/D|Example D> · not checked
• – <https://example.com/E|Example E> · not checked
_…and 2 more_
:grey_question: Citations with no reference: [4], [7]
:warning: 4 claims cite nothing:
> “Revenue grew 45% in 2023 while costs fell by half and margins improved across ev…”
> “Second claim 99.”
> “Third 3.”
_…and 1 more_
_Note: 1 link was skipped_";
    assert_eq!(render::mrkdwn(&example(), &opts()), expected);
}

#[test]
fn text_matches_the_spec_layout() {
    let expected = "\
Sources (9) — links not checked
Slack
  1. – #eng-deploys: deploy freeze starts Friday  [not checked]
     https://acme.slack.com/archives/C1/p1
Confluence
  2. – Deploy runbook (×3)  [not checked]
     https://acme.atlassian.net/wiki/spaces/ENG/pages/1
Web
  3. – Example A  [not checked]
     https://example.com/A
  4. – Example B  [not checked]
     https://example.com/B
  5. – Example C  [not checked]
     https://example.com/C
  6. – Example D  [not checked]
     https://example.com/D
  7. – Example E  [not checked]
     https://example.com/E
  …and 2 more
Dangling citations: [4], [7]
Claims that cite nothing (4 of 6):
  - Revenue grew 45% in 2023 while costs fell by half and margins improved across ev…
  - Second claim 99.
  - Third 3.
  …and 1 more
Notes:
  - 1 link was skipped";
    assert_eq!(render::text(&example(), &opts()), expected);
}

#[test]
fn text_does_not_cut_titles_but_cleans_them() {
    let title = format!("{}\u{1b}[31m red\u{202E} x\ny", "t".repeat(80));
    let report = Builder::new().web("https://e.com/\u{7}", &title).build();
    let out = render::text(&report, &opts());
    assert!(out.contains(&format!(
        "  1. – {}[31m red x y  [not checked]",
        "t".repeat(80)
    )));
    assert!(out.contains("     https://e.com/\n") || out.ends_with("     https://e.com/"));
    assert!(!out.chars().any(|c| c.is_control() && c != '\n'));
    assert!(!out.contains('\u{202E}'));
}

#[test]
fn text_shows_source_without_link_and_no_sources() {
    let report = Builder::new()
        .add(SourceKind::Slack, None, "(via slack: #eng)")
        .build();
    let out = render::text(&report, &opts());
    assert_eq!(
        out,
        "Sources (1) — links not checked\nSlack\n  1. – (via slack: #eng)  [not checked]"
    );
    let empty = Builder::new().build();
    assert_eq!(
        render::text(&empty, &opts()),
        "Sources (0) — links not checked\nNo sources were cited."
    );
}

#[test]
fn groups_follow_default_order_whatever_the_report_order() {
    let report = Builder::new()
        .web("https://w.com/", "W")
        .add(SourceKind::File, Some("https://drive.google.com/f"), "F")
        .add(
            SourceKind::Slack,
            Some("https://a.slack.com/archives/C/p1"),
            "S",
        )
        .add(
            SourceKind::Confluence,
            Some("https://a.atlassian.net/wiki/x"),
            "C",
        )
        .build();
    let out = render::mrkdwn(&report, &opts());
    let headings: Vec<&str> = out.lines().filter(|l| l.ends_with(":_")).collect();
    assert_eq!(
        headings,
        ["_Slack:_", "_Confluence:_", "_Files:_", "_Web:_"]
    );
    let labels: Vec<String> = links(&out).into_iter().map(|l| l.label).collect();
    assert_eq!(labels, ["S", "C", "F", "W"]);
}

#[test]
fn configurable_order_appends_missing_kinds() {
    let report = Builder::new()
        .web("https://w.com/", "W")
        .add(SourceKind::File, Some("https://drive.google.com/f"), "F")
        .add(
            SourceKind::Slack,
            Some("https://a.slack.com/archives/C/p1"),
            "S",
        )
        .add(
            SourceKind::Confluence,
            Some("https://a.atlassian.net/wiki/x"),
            "C",
        )
        .build();
    let o = RenderOptions {
        kind_order: vec![SourceKind::Web, SourceKind::File, SourceKind::Web],
        ..opts()
    };
    assert_eq!(
        o.effective_kind_order(),
        [
            SourceKind::Web,
            SourceKind::File,
            SourceKind::Slack,
            SourceKind::Confluence
        ]
    );
    let labels: Vec<String> = links(&render::mrkdwn(&report, &o))
        .into_iter()
        .map(|l| l.label)
        .collect();
    assert_eq!(labels, ["W", "F", "S", "C"]);
    let empty_order = RenderOptions {
        kind_order: vec![],
        ..opts()
    };
    let labels: Vec<String> = links(&render::mrkdwn(&report, &empty_order))
        .into_iter()
        .map(|l| l.label)
        .collect();
    assert_eq!(labels, ["S", "C", "F", "W"]);
    let text = render::text(&report, &o);
    let headings: Vec<&str> = text
        .lines()
        .filter(|l| !l.starts_with(' '))
        .skip(1)
        .collect();
    assert_eq!(headings, ["Web", "Files", "Slack", "Confluence"]);
}

#[test]
fn five_per_kind_then_and_n_more() {
    let report = many_web(Builder::new(), 5).build();
    let out = render::mrkdwn(&report, &opts());
    assert_eq!(links(&out).len(), 5);
    assert!(!out.contains("more"));

    let report = many_web(Builder::new(), 6).build();
    let out = render::mrkdwn(&report, &opts());
    assert_eq!(links(&out).len(), 5);
    assert!(out.ends_with("• – <https://example.com/5|Web 5> · not checked\n_…and 1 more_"));

    let report = many_web(Builder::new(), 12).build();
    let out = render::mrkdwn(&report, &opts());
    assert!(out.contains("_…and 7 more_"));
    let text = render::text(&report, &opts());
    assert!(text.contains("  5. – Web 5  [not checked]"));
    assert!(!text.contains("  6. Web 6"));
    assert!(text.contains("  …and 7 more"));

    let uncapped = RenderOptions {
        max_per_kind: 0,
        ..opts()
    };
    let out = render::mrkdwn(&report, &uncapped);
    assert_eq!(links(&out).len(), 12);
    assert!(!out.contains("more"));
    let two = RenderOptions {
        max_per_kind: 2,
        ..opts()
    };
    assert!(render::mrkdwn(&report, &two).ends_with("_…and 10 more_"));
}

#[test]
fn repeated_sources_show_their_count() {
    let report = Builder::new()
        .web("https://a.com/", "A")
        .with(|s| s.references = 4)
        .web("https://b.com/", "B")
        .build();
    let out = render::mrkdwn(&report, &opts());
    assert!(out.contains("• – <https://a.com/|A> · not checked (×4)\n"));
    assert!(out.ends_with("• – <https://b.com/|B> · not checked"));
    assert!(render::text(&report, &opts()).contains("  1. – A (×4)  [not checked]"));
}

#[test]
fn titles_are_cut_at_exactly_max_chars() {
    let fifty = "x".repeat(50);
    let fifty_one = "y".repeat(51);
    let accented = "é".repeat(51); // 102 bytes, 51 chars
    let report = Builder::new()
        .web("https://a.com/", &fifty)
        .web("https://b.com/", &fifty_one)
        .web("https://c.com/", &accented)
        .web("https://d.com/", &format!("{} tail", "z".repeat(49)))
        .build();
    let got = links(&render::mrkdwn(&report, &opts()));
    assert_eq!(got[0].label, fifty);
    assert_eq!(got[1].label, format!("{}…", "y".repeat(50)));
    assert_eq!(got[1].label.chars().count(), 51);
    assert_eq!(got[2].label, format!("{}…", "é".repeat(50)));
    // The space before the cut is trimmed: 49 chars, then "…".
    assert_eq!(got[3].label, format!("{}…", "z".repeat(49)));

    assert_eq!(link_label(&fifty, 50), fifty);
    assert_eq!(link_label(&fifty_one, 50).chars().count(), 51);
    assert_eq!(link_label("abc", 0), "abc");
    // The cut comes before escaping, so an entity is never split.
    assert_eq!(
        link_label(&"&".repeat(60), 50),
        format!("{}…", "&amp;".repeat(50))
    );
    let short = RenderOptions {
        title_max_chars: 3,
        ..opts()
    };
    assert_eq!(links(&render::mrkdwn(&report, &short))[0].label, "xxx…");
}

#[test]
fn no_sources_says_so() {
    let report = Builder::new().build();
    assert_eq!(
        render::mrkdwn(&report, &opts()),
        "*Sources* · 0 sources · links not checked\n_No sources were cited._"
    );
    let msg = render::blocks(&report, &opts());
    assert_blocks_valid(&msg);
    assert_eq!(
        block_texts(&msg),
        [
            "*Sources* · 0 sources · links not checked",
            "_No sources were cited._"
        ]
    );
    assert!(msg.text.starts_with("No sources were cited"));
}

#[test]
fn one_source_is_singular() {
    let report = Builder::new().web("https://a.com/", "A").build();
    assert!(
        render::mrkdwn(&report, &opts()).starts_with("*Sources* · 1 source · links not checked\n")
    );
}

#[test]
fn uncited_claims_zero_one_three_four() {
    let base = || {
        Builder::new()
            .web("https://a.com/", "A")
            .claim("Cited 5.", vec![1])
    };
    let out0 = render::mrkdwn(&base().build(), &opts());
    assert!(!out0.contains("cite"));
    assert!(!render::text(&base().build(), &opts()).contains("Claims"));

    let out1 = render::mrkdwn(&base().uncited("One 1.").build(), &opts());
    assert!(out1.ends_with(":warning: 1 claim cites nothing:\n> “One 1.”"));

    let three = base()
        .uncited("One 1.")
        .uncited("Two 2.")
        .uncited("Three 3.")
        .build();
    let out3 = render::mrkdwn(&three, &opts());
    assert!(
        out3.ends_with(":warning: 3 claims cite nothing:\n> “One 1.”\n> “Two 2.”\n> “Three 3.”")
    );

    let four = base()
        .uncited("One 1.")
        .uncited("Two 2.")
        .uncited("Three 3.")
        .uncited("Four 4.")
        .build();
    let out4 = render::mrkdwn(&four, &opts());
    assert!(out4.ends_with(
        ":warning: 4 claims cite nothing:\n> “One 1.”\n> “Two 2.”\n> “Three 3.”\n_…and 1 more_"
    ));
    assert!(!out4.contains("Four"));
    let text4 = render::text(&four, &opts());
    assert!(text4.ends_with(
        "Claims that cite nothing (4 of 5):\n  - One 1.\n  - Two 2.\n  - Three 3.\n  …and 1 more"
    ));
}

#[test]
fn uncited_claims_are_escaped_collapsed_and_cut() {
    let claim = format!("<!channel> a\n\n&b {}", "q".repeat(100));
    let report = Builder::new().uncited(&claim).build();
    let out = render::mrkdwn(&report, &opts());
    let expected_excerpt: String = format!("<!channel> a &b {}", "q".repeat(100))
        .chars()
        .take(80)
        .collect();
    assert!(out.contains(&format!("> “{}…”", escape_text(&expected_excerpt))));
    assert!(links(&out).is_empty());
    let exactly = "w".repeat(80);
    let out = render::mrkdwn(&Builder::new().uncited(&exactly).build(), &opts());
    assert!(out.contains(&format!("> “{exactly}”")));
}

#[test]
fn dangling_citations_are_deduplicated_and_capped() {
    let report = Builder::new().dangling(7).dangling(4).dangling(7).build();
    let out = render::mrkdwn(&report, &opts());
    assert!(out.contains("\n:grey_question: Citations with no reference: [4], [7]"));
    assert!(render::text(&report, &opts()).contains("\nDangling citations: [4], [7]"));

    let many = (1..=13)
        .rev()
        .fold(Builder::new(), |b, n| b.dangling(n))
        .build();
    let out = render::mrkdwn(&many, &opts());
    assert!(out.contains(
        "Citations with no reference: [1], [2], [3], [4], [5], [6], [7], [8], [9], [10] and 3 more"
    ));
    let none = render::mrkdwn(&Builder::new().build(), &opts());
    assert!(!none.contains("grey_question"));
}

#[test]
fn warnings_become_escaped_notes() {
    let report = Builder::new()
        .warning("<!here> too\nlong")
        .warning("two")
        .warning("\u{200B}")
        .warning("three")
        .warning("four")
        .warning("five")
        .build();
    let out = render::mrkdwn(&report, &opts());
    assert!(out.contains(
        "_Note: &lt;!here&gt; too long_\n_Note: two_\n_Note: three_\n_…and 2 more notes_"
    ));
    links(&out);
    let text = render::text(&report, &opts());
    assert!(text.ends_with("Notes:\n  - <!here> too long\n  - two\n  - three\n  …and 2 more"));
}

// ---------------------------------------------------------------------------------
// Verdict marks
// ---------------------------------------------------------------------------------

#[test]
fn unchecked_sources_never_say_verified() {
    // Even a verdict that claims "verified" is shown as not checked when the report
    // says links were not checked.
    let report = Builder::new()
        .web("https://a.com/", "A")
        .web("https://b.com/", "B")
        .with(|s| s.verdict.class = VerdictClass::Verified)
        .build();
    for out in [
        render::mrkdwn(&report, &opts()),
        render::text(&report, &opts()),
        render::blocks(&report, &opts()).text,
        block_texts(&render::blocks(&report, &opts())).join("\n"),
    ] {
        assert!(!out.to_lowercase().contains("verified"), "{out}");
        assert!(!out.contains(":white_check_mark:"));
        assert!(!out.contains('✓'));
        assert!(out.contains("not checked"));
    }
}

#[test]
fn checked_reports_show_each_verdict() {
    use VerdictClass::*;
    // class, its mark, the mrkdwn suffix after the link, the text words.
    let classes = [
        (Verified, "✓", "", "[verified]"),
        (Broken, "⚠", " · broken", "[broken]"),
        (Restricted, "🔒", " · restricted", "[restricted]"),
        (ServerError, "⚠", " · server error", "[server error]"),
        (TimedOut, "⚠", " · timed out", "[timed out]"),
        (Unreachable, "⚠", " · unreachable", "[unreachable]"),
        (Blocked, "⊘", " · blocked", "[blocked]"),
        (Invalid, "⊘", " · invalid", "[invalid]"),
        (NotChecked, "–", " · not checked", "[not checked]"),
    ];
    for (class, mark, suffix, words) in classes {
        let report = Builder::new()
            .web("https://a.com/", "A")
            .with(|s| {
                s.verdict.class = class;
                s.verdict.reason = None;
            })
            .checked()
            .build();
        let out = render::mrkdwn(&report, &opts());
        assert!(
            out.ends_with(&format!("• {mark} <https://a.com/|A>{suffix}")),
            "{out}"
        );
        assert!(out.starts_with(&format!(
            "*Sources* · 1 source · {mark} 1 {}\n",
            class.label()
        )));
        assert!(render::text(&report, &opts()).contains(&format!("  1. {mark} A  {words}")));
        if class != Verified {
            assert!(!out.contains("verified") && !out.contains('✓'));
        }
    }
    let mixed = Builder::new()
        .web("https://a.com/", "A")
        .with(|s| s.verdict.class = Verified)
        .web("https://b.com/", "B")
        .with(|s| {
            s.verdict.class = Broken;
            s.verdict.reason = Some("HTTP 404".into());
        })
        .web("https://c.com/", "C")
        .checked()
        .build();
    assert!(render::mrkdwn(&mixed, &opts())
        .starts_with("*Sources* · 3 sources · ✓ 1 verified · ⚠ 1 broken · – 1 not checked\n"));
    // Text shows why a link failed.
    assert!(render::text(&mixed, &opts()).contains("  2. ⚠ B  [broken: HTTP 404]"));
}

#[test]
fn a_network_down_check_says_so_first() {
    let mut report = Builder::new()
        .web("https://a.com/", "A")
        .with(|s| s.verdict.class = VerdictClass::Unreachable)
        .checked()
        .build();
    report.verification.network_down = true;
    report.verification.note = sourcebot::verify::NETWORK_DOWN_NOTE.to_string();
    let mrkdwn = render::mrkdwn(&report, &opts());
    assert!(
        mrkdwn.contains("_Note: No link could be reached: the network looks down"),
        "{mrkdwn}"
    );
    let text = render::text(&report, &opts());
    assert!(
        text.contains("  - No link could be reached: the network looks down"),
        "{text}"
    );
}

// ---------------------------------------------------------------------------------
// Escaping
// ---------------------------------------------------------------------------------

#[test]
fn escape_text_escapes_exactly_three_characters() {
    assert_eq!(escape_text("a & b < c > d"), "a &amp; b &lt; c &gt; d");
    assert_eq!(
        escape_text("it's \"quoted\" *bold* _i_ ~s~ `c` |"),
        "it's \"quoted\" *bold* _i_ ~s~ `c` |"
    );
    assert_eq!(escape_text("&amp;"), "&amp;amp;");
    assert_eq!(escape_text(""), "");
}

#[test]
fn link_url_encodes_only_what_breaks_links() {
    assert_eq!(link_url("https://e.com/a|b"), "https://e.com/a%7Cb");
    assert_eq!(link_url("https://e.com/<x>"), "https://e.com/%3Cx%3E");
    assert_eq!(link_url("https://e.com/a b\"c"), "https://e.com/a%20b%22c");
    assert_eq!(
        link_url("https://e.com/a\nb\tc\u{7}"),
        "https://e.com/a%0Ab%09c%07"
    );
    assert_eq!(
        link_url("https://e.com/\u{202E}"),
        "https://e.com/%E2%80%AE"
    );
    assert_eq!(
        link_url("https://e.com/?a=1&b=2"),
        "https://e.com/?a=1&amp;b=2"
    );
    assert_eq!(link_url("https://e.com/%20ok%7C"), "https://e.com/%20ok%7C");
    assert_eq!(
        link_url("https://例え.jp/パス?q=ü"),
        "https://例え.jp/パス?q=ü"
    );
}

#[test]
fn link_builds_one_safe_link() {
    assert_eq!(
        link("https://e.com/", "Title", 50),
        "<https://e.com/|Title>"
    );
    assert_eq!(
        link("https://e.com/x", "a | b", 50),
        "<https://e.com/x|a | b>"
    );
    assert_eq!(
        link("https://e.com/x", "\u{200B}\n ", 50),
        "<https://e.com/x|e.com>"
    );
    assert_eq!(
        link("https://u@e.com:8080/x", "", 50),
        "<https://u@e.com:8080/x|e.com:8080>"
    );
    assert_eq!(
        link("javascript:alert(1)", "<b>", 50),
        "&lt;b&gt; (javascript:alert(1))"
    );
    assert_eq!(link("https://", "x", 50), "x (https://)");
    assert_eq!(link("", "", 50), "link");
    assert_eq!(link_label("\u{FEFF}", 50), "link");
}

/// Hostile titles: each must come back as exactly one link with the expected label.
#[test]
fn adversarial_titles_stay_labels() {
    let cases: Vec<(String, String)> = vec![
        ("<!channel>".into(), "<!channel>".into()),
        ("<!here|here>".into(), "<!here|here>".into()),
        (
            "<!everyone> <!subteam^S1>".into(),
            "<!everyone> <!subteam^S1>".into(),
        ),
        ("<@U123>".into(), "<@U123>".into()),
        ("<#C1|x>".into(), "<#C1|x>".into()),
        (
            "<https://evil.com|click>".into(),
            "<https://evil.com|click>".into(),
        ),
        ("a > b".into(), "a > b".into()),
        ("a | b".into(), "a | b".into()),
        ("|leading pipe".into(), "|leading pipe".into()),
        ("&amp;".into(), "&amp;".into()),
        ("&lt;!channel&gt;".into(), "&lt;!channel&gt;".into()),
        ("x\ny".into(), "x y".into()),
        ("tab\there\r\n\n  spaces".into(), "tab here spaces".into()),
        ("A".repeat(10_000), format!("{}…", "A".repeat(50))),
        ("مرحبا\u{202E}txet".into(), "مرحباtxet".into()),
        ("\u{2066}iso\u{2069}\u{200F}".into(), "iso".into()),
        (
            "zero\u{200B}width\u{200D}\u{FEFF}".into(),
            "zerowidth".into(),
        ),
        (
            "*bold* _it_ ~s~ `code`".into(),
            "*bold* _it_ ~s~ `code`".into(),
        ),
        ("\u{0}\u{1b}[2Jctl\u{7f}".into(), "[2Jctl".into()),
        ("\u{200B}\u{202E}".into(), "e.com".into()),
    ];
    let b = cases
        .iter()
        .enumerate()
        .fold(Builder::new(), |b, (i, (title, _))| {
            b.web(&format!("https://e.com/{i}"), title)
        });
    let uncapped = RenderOptions {
        max_per_kind: 0,
        ..opts()
    };
    let report = b.build();
    let out = render::mrkdwn(&report, &uncapped);
    let got = links(&out);
    let expected: Vec<Link> = cases
        .iter()
        .enumerate()
        .map(|(i, (_, label))| link_to(&format!("https://e.com/{i}"), label))
        .collect();
    assert_eq!(got, expected);
    // One link per source line and nothing else.
    for line in out.lines() {
        let n = links(line).len();
        assert_eq!(n, usize::from(line.starts_with("• ")), "{line}");
    }
    assert!(!out.contains('\u{202E}') && !out.contains('\u{200B}'));
    // The same holds in every block text.
    let msg = render::blocks(&report, &uncapped);
    assert_blocks_valid(&msg);
    let block_links: Vec<Link> = block_texts(&msg).iter().flat_map(|t| links(t)).collect();
    assert_eq!(block_links, expected);
    assert!(links(&msg.text).is_empty());
    assert!(!msg.text.contains("<!") && !msg.text.contains('<'));
}

/// Hostile URLs: exactly one link each, pointing where the source points.
#[test]
fn adversarial_urls_stay_one_link() {
    let long = format!("https://example.com/{}", "a".repeat(10_000));
    let urls: Vec<String> = vec![
        "https://e.com/a|b".into(),
        "https://e.com/a>b".into(),
        "https://e.com/a<b".into(),
        "https://e.com/<!channel>".into(),
        "https://e.com/a b c".into(),
        "https://e.com/q?a=1&b=2&amp;c".into(),
        "https://e.com/\"quoted\"".into(),
        "https://例え.jp/パス?q=ü".into(),
        "HTTPS://E.com/Upper".into(),
        long.clone(),
    ];
    let b = urls.iter().fold(Builder::new(), |b, u| b.web(u, "T"));
    let uncapped = RenderOptions {
        max_per_kind: 0,
        ..opts()
    };
    let report = b.build();
    let out = render::mrkdwn(&report, &uncapped);
    let got = links(&out);
    let expected: Vec<Link> = urls.iter().map(|u| link_to(u, "T")).collect();
    assert_eq!(got, expected);
    assert!(out.contains("<https://e.com/a%7Cb|T>"));
    assert!(out.contains("<https://e.com/%3C!channel%3E|T>"));
    assert!(out.contains("<https://e.com/q?a=1&amp;b=2&amp;amp;c|T>"));

    // Blocks cannot carry the 10 kB URL: that source loses its link, not its place.
    let msg = render::blocks(&report, &uncapped);
    assert_blocks_valid(&msg);
    let all = block_texts(&msg).join("\n");
    let block_links = links(&all);
    assert_eq!(block_links, expected[..expected.len() - 1].to_vec());
    assert!(all.contains("• – T (link too long to show) · not checked"));
}

#[test]
fn non_http_urls_are_never_links() {
    let report = Builder::new()
        .web("javascript:alert(1)", "Click me")
        .web("data:text/html,<script>alert(1)</script>", "Data")
        .add(SourceKind::Slack, None, "(via slack: #eng)")
        .add(SourceKind::Web, None, "Named only")
        .with(|s| s.url = Some("ftp://files.example.com/<!here>".into()))
        .add(SourceKind::Web, None, "Backtick")
        .with(|s| s.url = Some("not a url `x`".into()))
        .build();
    let out = render::mrkdwn(&report, &opts());
    assert!(links(&out).is_empty(), "{out}");
    assert!(out.contains("• – Click me (`javascript:alert(1)`) · not checked"));
    assert!(out.contains(
        "• – Data (`data:text/html,&lt;script&gt;alert(1)&lt;/script&gt;`) · not checked"
    ));
    assert!(out.contains("• – (via slack: #eng) · not checked"));
    assert!(out.contains("• – Named only (`ftp://files.example.com/&lt;!here&gt;`) · not checked"));
    assert!(out.contains("• – Backtick (`not a url 'x'`) · not checked"));
    let msg = render::blocks(&report, &opts());
    assert_blocks_valid(&msg);
    assert!(links(&block_texts(&msg).join("\n")).is_empty());
}

#[test]
fn links_use_the_canonical_url() {
    let report = Builder::new()
        .web("https://e.com/a", "A")
        .with(|s| s.url = Some("https://E.com/a?utm_source=x#frag".into()))
        .build();
    assert_eq!(
        links(&render::mrkdwn(&report, &opts())),
        [link_to("https://e.com/a", "A")]
    );
}

// ---------------------------------------------------------------------------------
// Block Kit
// ---------------------------------------------------------------------------------

#[test]
fn blocks_carry_the_same_content_as_mrkdwn() {
    let report = example();
    let msg = render::blocks(&report, &opts());
    assert_blocks_valid(&msg);
    assert_eq!(
        block_texts(&msg).join("\n"),
        render::mrkdwn(&report, &opts())
    );
    let types: Vec<&str> = msg
        .blocks
        .iter()
        .filter_map(|b| b.get("type").and_then(Value::as_str))
        .collect();
    assert_eq!(
        types,
        ["section", "section", "section", "section", "divider", "context", "section", "context"]
    );
    assert_eq!(
        msg.text,
        "Sources: 9 (links not checked) — #eng-deploys: deploy freeze starts Friday, \
         Deploy runbook, Example A, Example B, Example C, Example D, Example E, Example F, \
         Example G and 0 more · 4 claims cite nothing · 2 citations with no reference"
            .replace(" and 0 more", "")
    );
    let as_json = serde_json::to_value(&msg).unwrap();
    assert!(as_json.get("text").is_some() && as_json.get("blocks").is_some());
}

#[test]
fn fallback_text_is_escaped_and_counts_the_rest() {
    let b = Builder::new().web("https://a.com/", "<!channel> & co");
    let report = many_web(b, 14).build();
    let text = render::blocks(&report, &opts()).text;
    assert!(text.starts_with("Sources: 15 (links not checked) — &lt;!channel&gt; &amp; co, Web 1,"));
    assert!(text.ends_with("Web 9 and 5 more"));
    assert!(!text.contains('<'));
}

#[test]
fn blocks_drop_whole_lines_and_count_them_when_too_big() {
    // 400 sources with 200-char titles and 300-char URLs cannot all fit.
    let mut b = Builder::new();
    for i in 0..400 {
        let kind = SourceKind::ALL[i % 4];
        let url = format!("https://example.com/{i}/{}", "p".repeat(300));
        b = b.add(kind, Some(&url), &format!("{i} {}", "t".repeat(200)));
    }
    let report = b.build();
    let uncapped = RenderOptions {
        max_per_kind: 0,
        title_max_chars: 0,
        ..opts()
    };
    let msg = render::blocks(&report, &uncapped);
    assert_blocks_valid(&msg);
    let all = block_texts(&msg).join("\n");
    let listed = all.lines().filter(|l| l.starts_with("• ")).count();
    let counted: usize = all
        .lines()
        .filter_map(|l| {
            l.strip_prefix("_…and ")?
                .strip_suffix(" more_")?
                .parse::<usize>()
                .ok()
        })
        .sum();
    assert!(listed > 0 && listed < 400);
    assert_eq!(listed + counted, 400);
    assert_eq!(links(&all).len(), listed);
    // Every kind keeps its heading and its count.
    for kind in SourceKind::ALL {
        assert!(all.contains(&format!("_{}:_", kind.heading())));
    }
}

#[test]
fn blocks_split_a_kind_over_several_sections() {
    let mut b = Builder::new();
    for i in 0..30 {
        let url = format!("https://example.com/{i}/{}", "p".repeat(250));
        b = b.web(&url, &format!("Title {i}"));
    }
    let report = b.build();
    let uncapped = RenderOptions {
        max_per_kind: 0,
        ..opts()
    };
    let msg = render::blocks(&report, &uncapped);
    assert_blocks_valid(&msg);
    assert!(msg.blocks.len() >= 4, "{}", msg.blocks.len());
    assert_eq!(links(&block_texts(&msg).join("\n")).len(), 30);
}

#[test]
fn blocks_keep_huge_footers_in_bounds() {
    let mut b = Builder::new().web("https://a.com/", "A");
    for i in 0..200 {
        b = b.uncited(&format!("{i} {}", "<&>".repeat(400)));
        b = b.warning(&"&".repeat(1000));
        b = b.dangling(i);
    }
    let report = b.build();
    let wide = RenderOptions {
        max_uncited_shown: 200,
        uncited_excerpt_chars: 0,
        ..opts()
    };
    let msg = render::blocks(&report, &wide);
    assert_blocks_valid(&msg);
    let all = block_texts(&msg).join("\n");
    assert!(all.contains(":warning: 200 claims cite nothing:"));
    assert_eq!(links(&all), [link_to("https://a.com/", "A")]);
}

#[test]
fn check_limits_rejects_invalid_messages() {
    let section =
        |t: &str| serde_json::json!({"type": "section", "text": {"type": "mrkdwn", "text": t}});
    let ok = BlockMessage {
        text: "x".into(),
        blocks: vec![section("a")],
    };
    assert_eq!(check_limits(&ok), Ok(()));
    let cases = [
        BlockMessage {
            text: "x".into(),
            blocks: vec![section("a"); 51],
        },
        BlockMessage {
            text: "x".into(),
            blocks: vec![section("")],
        },
        BlockMessage {
            text: "x".into(),
            blocks: vec![section(&"a".repeat(3001))],
        },
        BlockMessage {
            text: "x".into(),
            blocks: vec![section(&"a".repeat(3000)); 5],
        },
        BlockMessage {
            text: "x".repeat(4000),
            blocks: vec![section("a")],
        },
        BlockMessage {
            text: "x".into(),
            blocks: vec![
                serde_json::json!({"type": "context", "elements": vec![serde_json::json!({"type": "mrkdwn", "text": "a"}); 11]}),
            ],
        },
        BlockMessage {
            text: "x".into(),
            blocks: vec![serde_json::json!({"type": "header"})],
        },
    ];
    for msg in cases {
        assert!(check_limits(&msg).is_err(), "{:?}", msg.blocks.len());
    }
    let too_many = BlockMessage {
        text: "x".into(),
        blocks: vec![section("a"); 51],
    };
    assert_eq!(
        check_limits(&too_many).map_err(|e| e.to_string()),
        Err("51 blocks, more than 50".to_string())
    );
}

// ---------------------------------------------------------------------------------
// JSON
// ---------------------------------------------------------------------------------

#[test]
fn json_round_trips() {
    let mut report = example();
    if let Some(s) = report.groups[0].sources.first_mut() {
        s.snippet = Some("snippet <!here>".into());
        s.agent_confidence = Some(0.75);
        s.citation_numbers = vec![1, 2];
        s.agents = vec!["search".into()];
        s.date = Some("2024-01-01".into());
        s.position = Some(3);
        s.verdict = Verdict {
            class: VerdictClass::Broken,
            status_code: Some(404),
            final_url: Some("https://x/".into()),
            elapsed_ms: Some(12),
            reason: None,
        };
    }
    report.origin = Origin::File {
        path: "answer.md".into(),
    };
    let out = render::json(&report);
    assert!(
        out.contains("\n  \"shape\": \"text\""),
        "pretty, snake_case: {out}"
    );
    let back: Report = serde_json::from_str(&out).unwrap();
    assert_eq!(back, report);
    let empty = Builder::new().build();
    assert_eq!(
        serde_json::from_str::<Report>(&render::json(&empty)).unwrap(),
        empty
    );
}

#[test]
fn scored_reports_show_the_confidence_line_and_low_credibility() {
    use sourcebot::model::Answer;
    let answer = Answer::from_text(
        "Revenue grew 45% in 2023 [1]. Users love it [2]. Costs fell by half.\n\n\
         [1] https://www.sec.gov/report - Annual report\n\
         [2] https://www.reddit.com/r/x/comments/1 - A thread",
    );
    let mut report = sourcebot::check(&answer, &sourcebot::collect::CollectOptions::default());
    let confidence = report.confidence.as_ref().expect("scored");
    assert_eq!(confidence.sources, 2);
    assert_eq!(confidence.domains, 2);
    // Nothing was checked: the line says so instead of a confidence.
    let unchecked = render::mrkdwn(&report, &opts());
    assert!(
        unchecked.lines().nth(1).unwrap_or_default().starts_with(
            "Confidence: not checked (none of its sources could be checked or read) · 2 sources from 2 domains · "
        ),
        "{unchecked}"
    );
    // As if the filing had answered: a confidence of its own.
    report
        .groups
        .iter_mut()
        .flat_map(|g| g.sources.iter_mut())
        .for_each(|s| {
            if s.title == "Annual report" {
                s.verdict.class = sourcebot::model::VerdictClass::Verified;
            }
        });
    sourcebot::score::Scorer::default().score_report(&mut report);
    let confidence = report.confidence.as_ref().expect("scored");
    let mrkdwn = render::mrkdwn(&report, &opts());
    let second = mrkdwn.lines().nth(1).unwrap_or_default();
    assert!(
        second.starts_with(&format!(
            "Confidence {:.2} ({}) · 2 sources from 2 domains · ",
            confidence.value, confidence.label
        )),
        "{mrkdwn}"
    );
    // "Costs fell by half." names no figure or source-worthy fact, so it is no claim
    // that wants a source.
    assert!(
        second.ends_with(" · every claim cites a source"),
        "{second}"
    );
    // The forum thread is below the low-credibility mark; the filing is not.
    assert!(
        mrkdwn.contains("A thread> · not checked · low credibility"),
        "{mrkdwn}"
    );
    assert!(
        !mrkdwn.contains("Annual report> · not checked · low credibility"),
        "{mrkdwn}"
    );
    let text = render::text(&report, &opts());
    assert!(
        text.lines()
            .nth(1)
            .unwrap_or_default()
            .starts_with("Confidence "),
        "{text}"
    );
    assert!(
        text.contains("A thread  [not checked · low credibility]"),
        "{text}"
    );
    let blocks = render::blocks(&report, &opts());
    assert!(serde_json::to_string(&blocks.blocks)
        .unwrap_or_default()
        .contains("Confidence "));
}
