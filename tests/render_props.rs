//! Property tests of the renderers over arbitrary reports: hostile titles, URLs,
//! claims, quotes, missing words, differing figures, model names and warnings (arbitrary Unicode, `<>&|`,
//! mentions, bidi and zero-width characters, 10 kB strings), 0–400 sources and random
//! options. Whatever the input, Block Kit and the evidence modal stay within Slack's
//! limits, every source is either listed or counted in an "…and N more", and no output
//! contains a mention or any `<` that does not start a link the renderer made.

use proptest::collection::vec;
use proptest::prelude::*;
use regex::Regex;
use serde_json::Value;
use sourcebot::model::{
    Claim, ClaimClassification, ClaimSignal, ClaimSupport, ClaimType, ClassificationMethod,
    DanglingCitation, Differ, FoundBy, InputShape, Metrics, Origin, ReadVia, Report, Source,
    SourceGroup, SourceKind, SourceRecommendation, Span, StaleSource, SupportJudge, SupportVerdict,
    Verdict, VerdictClass, Verification,
};
use sourcebot::render::evidence::modal::{
    check_view_limits, evidence_view, Audience, MAX_VIEW_BLOCKS,
};
use sourcebot::render::{
    self, check_limits, BlockMessage, RenderOptions, MAX_BLOCKS, MAX_CONTEXT_ELEMENTS,
    MAX_FALLBACK_TEXT, MAX_SECTION_TEXT, MAX_TOTAL_BLOCK_TEXT,
};

// ---------------------------------------------------------------------------------
// Strategies
// ---------------------------------------------------------------------------------

/// A piece of hostile text.
fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "[<>&|!@#^ a-zA-Z\\n\\t*_~`]{0,20}",
        "\\PC{0,30}",
        Just("<!channel>".to_string()),
        Just("<!here|here>".to_string()),
        Just("<@U123>".to_string()),
        Just("<#C1|x>".to_string()),
        Just("<https://evil.example/|click>".to_string()),
        Just("&amp;&lt;&gt;".to_string()),
        Just("مرحبا\u{202E}".to_string()),
        Just("\u{200B}\u{FEFF}\u{2066}".to_string()),
        Just("_…and 9 more_".to_string()),
        Just("\n• <https://x.com/|fake>\n".to_string()),
    ]
}

/// Hostile text made of a few pieces.
fn messy() -> impl Strategy<Value = String> {
    vec(piece(), 0..4).prop_map(|pieces| pieces.concat())
}

/// A title: usually messy, sometimes very long.
fn title() -> impl Strategy<Value = String> {
    prop_oneof![
        12 => messy(),
        1 => (1usize..12_000).prop_map(|n| "é<".repeat(n / 2 + 1)),
    ]
}

/// A URL: usually http(s) with hostile characters (but no `%`, so that decoding the
/// renderer's percent-encoding gives the original back), sometimes not http at all,
/// arbitrary, or 10 kB long.
fn url() -> impl Strategy<Value = Option<String>> {
    prop_oneof![
        1 => Just(None),
        8 => (
            "(http|https|HTTPS)://",
            "[a-z0-9.é-]{1,12}",
            "[a-zA-Z0-9/?#&=<>|\" \\n\\t!@.~:;é漢\\x{202E}\\x{200B}-]{0,40}",
        )
            .prop_map(|(scheme, host, path)| Some(format!("{scheme}{host}/{path}"))),
        1 => "(javascript|data|mailto|ftp):[a-z()<>!@]{0,12}".prop_map(Some),
        1 => any::<String>().prop_map(Some),
        1 => (100usize..10_000).prop_map(|n| Some(format!("https://e.com/{}", "a|".repeat(n / 2)))),
    ]
}

fn kind() -> impl Strategy<Value = SourceKind> {
    prop::sample::select(SourceKind::ALL.to_vec())
}

fn verdict_class() -> impl Strategy<Value = VerdictClass> {
    prop::sample::select(vec![
        VerdictClass::Verified,
        VerdictClass::Broken,
        VerdictClass::Restricted,
        VerdictClass::ServerError,
        VerdictClass::TimedOut,
        VerdictClass::Unreachable,
        VerdictClass::Blocked,
        VerdictClass::Invalid,
        VerdictClass::NotChecked,
    ])
}

/// A source with id 0 (numbered when the report is assembled).
fn source() -> impl Strategy<Value = Source> {
    (
        kind(),
        url(),
        title(),
        1usize..6,
        verdict_class(),
        any::<bool>(),
    )
        .prop_map(
            |(kind, url, title, references, class, same_written_url)| Source {
                id: 0,
                url: if same_written_url {
                    url.clone()
                } else {
                    Some("written <!here> |x".to_string())
                },
                canonical_url: url,
                title,
                kind,
                references,
                found_by: vec![FoundBy::Inline],
                citation_numbers: vec![],
                agents: vec![],
                snippet: None,
                date: None,
                position: None,
                agent_confidence: None,
                verdict: Verdict {
                    class,
                    ..Verdict::not_checked("test")
                },
                credibility: None,
                page: None,
                // Some pages read from the web: their differing figures reach the channel.
                read_via: same_written_url.then_some(ReadVia::Web),
            },
        )
}

/// The words a page never mentions: hostile, sometimes 10 kB long, sometimes many.
fn missing_words() -> impl Strategy<Value = Vec<String>> {
    prop_oneof![
        4 => vec(messy(), 0..9),
        1 => vec(title(), 0..3),
    ]
}

fn claim() -> impl Strategy<Value = Claim> {
    (
        (messy(), any::<bool>(), any::<bool>()),
        (messy(), 0..ClaimType::ALL.len(), 0.0f64..1.0),
        (missing_words(), prop::option::of(title()), any::<bool>()),
    )
        .prop_map(
            |((text, cited, wants), (hostile, type_index, relevance), (missing, quote, partly))| {
                Claim {
                    span: Span::new(0, text.len()),
                    text,
                    cites: if cited { vec![1] } else { vec![] },
                    signals: if wants {
                        vec![ClaimSignal::Number]
                    } else {
                        vec![]
                    },
                    // Typed, and when cited, suited or not: a poorly suited one is quoted with
                    // the model's recommended (hostile) agent name.
                    claim_type: Some(ClaimType::ALL[type_index]),
                    relevance: cited.then_some(relevance),
                    classification: Some(ClaimClassification {
                        method: ClassificationMethod::Llm,
                        recommendations: vec![SourceRecommendation {
                            source: format!("agent:{hostile}"),
                            relevance: 0.9,
                            reason: hostile.clone(),
                        }],
                    }),
                    // A cited claim's page, judged: unsupported ones are quoted with the page's
                    // (untrusted) title in their own section, with the (hostile) words the page
                    // never mentions under them; the evidence shows the (hostile) quote.
                    support: if cited {
                        vec![ClaimSupport {
                            source: 1,
                            score: 0.1,
                            verdict: match (wants, partly) {
                                (true, false) => SupportVerdict::NotSupported,
                                (true, true) => SupportVerdict::PartlySupported,
                                (false, _) => SupportVerdict::Supported,
                            },
                            quote,
                            // What the page says instead of the claim's figures: hostile
                            // on both sides, shown in the channel for a web page.
                            differs: missing
                                .iter()
                                .take(2)
                                .map(|m| Differ {
                                    claim: m.clone(),
                                    page: format!("<!channel> {m}"),
                                })
                                .collect(),
                            missing,
                            reason: None,
                            judge: if partly {
                                SupportJudge::Llm
                            } else {
                                SupportJudge::Builtin
                            },
                        }]
                    } else {
                        vec![]
                    },
                    // An old page behind it, with a hostile date and words.
                    stale_sources: if cited && wants {
                        vec![StaleSource {
                            source: 1,
                            dated: hostile.clone(),
                            age_days: 3_000,
                            because: hostile,
                        }]
                    } else {
                        vec![]
                    },
                }
            },
        )
}

/// A whole report, its groups in the model's default order.
fn report() -> impl Strategy<Value = Report> {
    (
        // Mostly small reports; one in six has up to 400 sources, to push Block Kit
        // past its limits. (Generating sources dominates the run time.)
        prop_oneof![5 => vec(source(), 0..30), 1 => vec(source(), 0..400)],
        vec(claim(), 0..12),
        vec(0u32..40, 0..15),
        vec(messy(), 0..6),
        any::<bool>(),
    )
        .prop_map(|(mut sources, claims, dangling, warnings, performed)| {
            for (i, s) in sources.iter_mut().enumerate() {
                s.id = i + 1;
            }
            let groups = SourceKind::ALL
                .iter()
                .map(|k| SourceGroup {
                    kind: *k,
                    sources: sources.iter().filter(|s| s.kind == *k).cloned().collect(),
                })
                .filter(|g| !g.sources.is_empty())
                .collect();
            Report {
                shape: InputShape::Text,
                origin: Origin::Stdin,
                groups,
                claims,
                dangling_citations: dangling
                    .into_iter()
                    .map(|number| DanglingCitation {
                        number,
                        span: Span::new(0, 1),
                    })
                    .collect(),
                metrics: Metrics::default(),
                verification: Verification {
                    performed,
                    note: String::new(),
                    ..Default::default()
                },
                warnings,
                confidence: None,
            }
        })
}

/// Default options, or random ones.
fn options() -> impl Strategy<Value = RenderOptions> {
    prop_oneof![
        Just(RenderOptions::default()),
        (
            vec(kind(), 0..5),
            0usize..8,
            0usize..80,
            0usize..6,
            0usize..150,
            prop::option::of(title()),
        )
            .prop_map(|(kind_order, per_kind, title, uncited, excerpt, model)| {
                RenderOptions {
                    kind_order,
                    max_per_kind: per_kind,
                    title_max_chars: title,
                    max_uncited_shown: uncited,
                    uncited_excerpt_chars: excerpt,
                    support_model: model,
                    internal_quotes: true,
                }
            }),
    ]
}

// ---------------------------------------------------------------------------------
// Reading outputs back
// ---------------------------------------------------------------------------------

/// Every text in the blocks, in order.
fn block_texts(msg: &BlockMessage) -> Vec<String> {
    let mut texts = Vec::new();
    for block in &msg.blocks {
        if let Some(t) = block.pointer("/text/text").and_then(Value::as_str) {
            texts.push(t.to_string());
        }
        if let Some(elements) = block.get("elements").and_then(Value::as_array) {
            texts.extend(
                elements
                    .iter()
                    .filter_map(|e| e.get("text").and_then(Value::as_str).map(String::from)),
            );
        }
    }
    texts
}

/// The `<…>` constructs of `s` read with Slack's rule, as raw URL parts. Fails on a
/// mention or special, a nested or unclosed `<`, a link with no label, or a URL that
/// is not http(s) or carries a character that must be encoded.
fn parse_links(s: &str) -> Result<Vec<String>, String> {
    let mut urls = Vec::new();
    let mut rest = s;
    while let Some(start) = rest.find('<') {
        let after = &rest[start + 1..];
        if after.starts_with(['!', '@', '#']) {
            return Err("mention or special".into());
        }
        let end = after.find('>').ok_or("unclosed <")?;
        let inner = &after[..end];
        if inner.contains('<') {
            return Err("nested <".into());
        }
        let (url, _label) = inner.split_once('|').ok_or("link without label")?;
        let scheme = url.chars().take(8).collect::<String>().to_ascii_lowercase();
        if !(scheme.starts_with("http://") || scheme.starts_with("https://")) {
            return Err(format!("non-http link {url:?}"));
        }
        if url
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || c == '"')
        {
            return Err(format!("unencoded character in {url:?}"));
        }
        urls.push(url.to_string());
        rest = &after[end + 1..];
    }
    Ok(urls)
}

/// Decodes `&amp;` and every `%xx` (the generated URLs contain no `%` of their own).
fn decode_url(s: &str) -> String {
    let s = s.replace("&amp;", "&");
    let mut bytes = Vec::new();
    let raw = s.as_bytes();
    let mut i = 0;
    while i < raw.len() {
        let hex = (raw[i] == b'%' && i + 2 < raw.len())
            .then(|| std::str::from_utf8(&raw[i + 1..i + 3]).ok())
            .flatten()
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match hex {
            Some(b) => {
                bytes.push(b);
                i += 3;
            }
            None => {
                bytes.push(raw[i]);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Counts, in mrkdwn (or block texts joined by newlines), the source lines listed and
/// the sources counted in "…and N more" lines before the footer.
fn mrkdwn_accounting(s: &str) -> Result<(usize, usize), String> {
    let more = Regex::new(r"^_…and (\d+) more_$").map_err(|e| e.to_string())?;
    let mut lines = s.lines();
    let header = lines.next().unwrap_or_default();
    if !header.starts_with("*Sources* · ") {
        return Err(format!("bad header {header:?}"));
    }
    let (mut listed, mut counted) = (0, 0);
    for line in lines {
        if line.starts_with(":grey_question: ")
            || line.starts_with(":warning: ")
            || line.starts_with(":x: ")
            || line.starts_with(":mag: ")
            || line.starts_with(":hourglass: ")
            || line.starts_with("_Note: ")
        {
            break;
        }
        if line.starts_with("• ") {
            listed += 1;
        } else if let Some(c) = more.captures(line) {
            counted += c[1].parse::<usize>().map_err(|e| e.to_string())?;
        } else if !([
            "_Slack:_",
            "_Confluence:_",
            "_Files:_",
            "_Web:_",
            "_No sources were cited._",
        ]
        .contains(&line))
        {
            return Err(format!("unexpected line {line:?}"));
        }
    }
    Ok((listed, counted))
}

/// The same count for the plain-text format.
fn text_accounting(s: &str) -> Result<(usize, usize), String> {
    let item = Regex::new(r"^  \d+\. ").map_err(|e| e.to_string())?;
    let more = Regex::new(r"^  …and (\d+) more$").map_err(|e| e.to_string())?;
    let (mut listed, mut counted) = (0, 0);
    for line in s.lines().skip(1) {
        if line.starts_with("Dangling citations: ")
            || line.starts_with("Claims that cite nothing (")
            || line.starts_with("Claims their pages do not support (")
            || line.starts_with("Claims whose sources do not suit them (")
            || line.starts_with("Claims about the present citing old pages (")
            || line.starts_with("Claim support (")
            || line == "Notes:"
        {
            break;
        }
        if item.is_match(line) {
            listed += 1;
        } else if let Some(c) = more.captures(line) {
            counted += c[1].parse::<usize>().map_err(|e| e.to_string())?;
        } else if !(line.starts_with("     ")
            || [
                "Slack",
                "Confluence",
                "Files",
                "Web",
                "No sources were cited.",
            ]
            .contains(&line))
        {
            return Err(format!("unexpected line {line:?}"));
        }
    }
    Ok((listed, counted))
}

/// Whether a source gets a link: an http(s) canonical URL with a host.
fn linkable(source: &Source) -> Option<&str> {
    let url = source.canonical_url.as_deref()?;
    let lower = url.chars().take(8).collect::<String>().to_ascii_lowercase();
    let rest = if lower.starts_with("https://") {
        &url[8..]
    } else if lower.starts_with("http://") {
        &url[7..]
    } else {
        return None;
    };
    let host_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let host = rest[..host_end].rsplit('@').next().unwrap_or("");
    (!host.is_empty()).then_some(url)
}

/// The sources shown by mrkdwn, in order: each kind in the effective order, capped.
fn expected_shown<'a>(report: &'a Report, opts: &RenderOptions) -> Vec<&'a Source> {
    let mut shown = Vec::new();
    for kind in opts.effective_kind_order() {
        let of_kind = report.sources().filter(|s| s.kind == kind);
        if opts.max_per_kind == 0 {
            shown.extend(of_kind);
        } else {
            shown.extend(of_kind.take(opts.max_per_kind));
        }
    }
    shown
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 256,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

// ---------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------

proptest! {
    #![proptest_config(config())]

    /// (1) and (4): Block Kit output is always within every limit, every text is
    /// non-empty, and the fallback text is under 4,000 characters.
    #[test]
    fn blocks_always_within_limits(report in report(), opts in options()) {
        let msg = render::blocks(&report, &opts);
        prop_assert_eq!(check_limits(&msg), Ok(()));
        prop_assert!(msg.blocks.len() <= MAX_BLOCKS);
        let mut total = 0;
        for block in &msg.blocks {
            let kind = block.get("type").and_then(Value::as_str).unwrap_or("");
            prop_assert!(["section", "context", "divider"].contains(&kind));
            if let Some(elements) = block.get("elements").and_then(Value::as_array) {
                prop_assert!(!elements.is_empty() && elements.len() <= MAX_CONTEXT_ELEMENTS);
            }
        }
        for text in block_texts(&msg) {
            let n = text.chars().count();
            prop_assert!((1..=MAX_SECTION_TEXT).contains(&n), "text of {} chars", n);
            prop_assert!(!text.trim().is_empty());
            total += n;
        }
        prop_assert!(total <= MAX_TOTAL_BLOCK_TEXT, "total {}", total);
        let fallback = msg.text.chars().count();
        prop_assert!(fallback > 0 && fallback <= MAX_FALLBACK_TEXT && fallback < 4000);
        prop_assert!(msg.text.encode_utf16().count() < 4000);
    }

    /// (2): every source is listed or counted, in mrkdwn, blocks and text; mrkdwn lists
    /// exactly the capped sources in display order, linked to their own URLs.
    #[test]
    fn every_source_is_accounted_for(report in report(), opts in options()) {
        let total = report.sources().count();

        let out = render::mrkdwn(&report, &opts);
        let (listed, counted) = mrkdwn_accounting(&out).map_err(TestCaseError::fail)?;
        prop_assert_eq!(listed + counted, total, "mrkdwn");
        let shown = expected_shown(&report, &opts);
        prop_assert_eq!(listed, shown.len());
        let source_lines: Vec<&str> = out.lines().filter(|l| l.starts_with("• ")).collect();
        for (line, source) in source_lines.iter().zip(&shown) {
            let urls = parse_links(line).map_err(TestCaseError::fail)?;
            match linkable(source) {
                Some(url) => {
                    prop_assert_eq!(urls.len(), 1, "{}", line);
                    if !url.contains('%') {
                        prop_assert_eq!(decode_url(&urls[0]), url);
                    }
                }
                None => prop_assert!(urls.is_empty(), "{}", line),
            }
        }

        let msg = render::blocks(&report, &opts);
        let joined = block_texts(&msg).join("\n");
        let (listed, counted) = mrkdwn_accounting(&joined).map_err(TestCaseError::fail)?;
        prop_assert_eq!(listed + counted, total, "blocks");
        for line in joined.lines().filter(|l| l.starts_with("• ")) {
            prop_assert!(
                source_lines.contains(&line) || line.contains(" (link too long to show) · ")
                    || !line.contains('<'),
                "block line not in mrkdwn: {}", line
            );
        }

        let text = render::text(&report, &opts);
        let (listed, counted) = text_accounting(&text).map_err(TestCaseError::fail)?;
        prop_assert_eq!(listed + counted, total, "text");
    }

    /// (3): no mention, no special, no `<` that does not start one of our links, and at
    /// most one link per source line and none elsewhere; the fallback has no `<` at all.
    #[test]
    fn no_markup_escapes(report in report(), opts in options()) {
        let out = render::mrkdwn(&report, &opts);
        let msg = render::blocks(&report, &opts);
        let mut texts = block_texts(&msg);
        texts.push(out);
        for text in &texts {
            prop_assert!(!text.contains("<!") && !text.contains("<@") && !text.contains("<#"));
            parse_links(text).map_err(TestCaseError::fail)?;
            for line in text.lines() {
                let n = parse_links(line).map_err(TestCaseError::fail)?.len();
                if line.starts_with("• ") {
                    prop_assert!(n <= 1, "{}", line);
                } else {
                    prop_assert_eq!(n, 0, "{}", line);
                }
                prop_assert!(
                    !line.contains('\u{202E}') && !line.contains('\u{200B}'),
                    "bidi or zero-width character in {:?}", line
                );
            }
        }
        prop_assert!(!msg.text.contains('<') && !msg.text.contains('\n'), "{}", msg.text);
    }

    /// The evidence modal is within a modal's limits whatever the claims, quotes, titles,
    /// missing words and model name, and carries no mention, no special and no link but
    /// one to each page on its `• ` line; its quotes are quote lines (`> `).
    #[test]
    fn the_evidence_modal_is_within_limits_and_inert(report in report(), opts in options()) {
        let view = evidence_view(
            &report,
            &opts,
            &Audience { channel: Some("C0GENERAL"), internal_quotes: true },
        );
        prop_assert_eq!(check_view_limits(&view), Ok(()));
        let blocks = view["blocks"].as_array().cloned().unwrap_or_default();
        prop_assert!(!blocks.is_empty() && blocks.len() <= MAX_VIEW_BLOCKS);
        for block in &blocks {
            let text = block
                .pointer("/text/text")
                .or_else(|| block.pointer("/elements/0/text"))
                .and_then(Value::as_str)
                .unwrap_or_default();
            prop_assert!(!text.contains("<!") && !text.contains("<@") && !text.contains("<#"));
            for line in text.lines() {
                let body = line.strip_prefix("> ").unwrap_or(line);
                let n = parse_links(body).map_err(TestCaseError::fail)?.len();
                if line.starts_with("• ") {
                    prop_assert!(n <= 1, "{}", line);
                } else {
                    prop_assert_eq!(n, 0, "{}", line);
                    prop_assert!(!body.contains('>'), "{}", line);
                }
                prop_assert!(
                    !line.chars().any(|c| c.is_control() || c == '\u{202E}' || c == '\u{200B}'),
                    "control, bidi or zero-width character in {:?}", line
                );
            }
        }
    }

    /// The plain-text format never carries control or bidi characters, and JSON always
    /// reads back as the same report (no NaN confidences are generated).
    #[test]
    fn text_is_clean_and_json_round_trips(report in report(), opts in options()) {
        let text = render::text(&report, &opts);
        prop_assert!(!text.chars().any(|c| (c.is_control() && c != '\n')
            || ('\u{202A}'..='\u{202E}').contains(&c)
            || ('\u{2066}'..='\u{2069}').contains(&c)), "unclean text {:?}", text);
        let back: Report = serde_json::from_str(&render::json(&report))
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(back, report);
    }
}
