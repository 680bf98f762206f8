//! The **Show evidence** modal: what the support check found for each checked claim —
//! the claim, each page it cites as a `<url|title>` link, the verdict, the page's own
//! words as a quote, what it says instead of the claim's figures, and the words the page
//! never mentions. One section block per claim, so a report of 50 checked claims is 52
//! blocks; past Slack's 100 blocks, or past [`MAX_VIEW_TEXT`] characters in all, the
//! rest are counted in "…and N more claims". Every string is escaped and cut to a
//! length that keeps each section within 3,000 characters by construction;
//! [`check_view_limits`] checks the result against every limit a modal has.
//!
//! What sourcebot read with its own credentials is quoted only as its [`Audience`]
//! allows: an internal document's words unless the workspace turned internal quotes
//! off, a private conversation's words only in a modal opened from that conversation.
//! What a page says instead of the claim's figures ("the page says 900 requests per
//! second, not 1,200 requests per second") is the page's words too: it is shown exactly
//! where the quote is. Where a quote is withheld, the verdict and the claim's missing
//! words (the claim's own words, the differing figures among them) are still shown, and
//! nothing the page or the model said of it is — not even a hint that a figure differs.

use serde_json::{json, Value};

use super::{checked_claims, judge_name, judges, judges_in_words, verdict_mark, CheckedClaim};
use super::{not_differing, page_differs, words_in_words, MAX_MISSING_SHOWN};
use crate::model::{ClaimSupport, Differ, ReadVia, Report, Source, SupportJudge};
use crate::render::blocks::{block_text_lengths, text_len, BlockLimitError, MAX_SECTION_TEXT};
use crate::render::escape::{escape_within, link};
use crate::render::mrkdwn::link_target;
use crate::render::{plural, RenderOptions};

/// The modal's title (plain text, at most [`MAX_VIEW_TITLE`] characters).
pub const VIEW_TITLE: &str = "Evidence";
pub use crate::render::limits::{MAX_VIEW_BLOCKS, MAX_VIEW_TEXT, MAX_VIEW_TITLE};

/// A claim is quoted to this many characters (escaped).
const CLAIM_MAX: usize = 500;
/// A page's title in its link is cut to this many characters.
const TITLE_CHARS: usize = 80;
/// A `<url|title>` link longer than this is shown as its title alone.
const LINK_MAX: usize = 700;
/// A title shown without its link, escaped, is at most this long.
const TITLE_ONLY_MAX: usize = 300;
/// A judge's name, escaped, is at most this long.
const JUDGE_MAX: usize = 80;
/// A quote, escaped, is at most this long.
const QUOTE_MAX: usize = 700;
/// The missing words, escaped, take at most this much.
const MISSING_MAX: usize = 500;
/// What the page says instead of the claim's figures and the missing words, escaped and
/// with their lines' ends, take at most this much together (the missing words' room and
/// 160 more: a claim and its first page stay within a section).
const FIGURES_MAX: usize = MISSING_MAX + 160;
/// Each "the page says …, not …" line, escaped, is at most this long.
const DIFFER_LINE_MAX: usize = 200;
/// Room always left for the missing words after the differing figures' lines.
const MISSING_ROOM: usize = 200;
/// A reason, escaped, is at most this long.
const REASON_MAX: usize = 300;
/// Room kept in a section for its "…and N more pages" line.
const SECTION_MORE_ROOM: usize = 40;
/// Room kept in the modal for its "…and N more claims" block.
const VIEW_MORE_ROOM: usize = 40;

/// Whom a modal is shown to, and so which quotes it may carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Audience<'a> {
    /// The conversation the report, and its button, are in.
    pub channel: Option<&'a str>,
    /// Whether the words of documents sourcebot read with its own credentials may be
    /// quoted (`SOURCEBOT_INTERNAL_QUOTES`, or the workspace's own setting).
    pub internal_quotes: bool,
}

/// Why `source`'s words are not quoted to `audience`, if they are not.
pub fn quote_withheld(source: Option<&Source>, audience: &Audience<'_>) -> Option<&'static str> {
    match source.and_then(|s| s.read_via.as_ref())? {
        ReadVia::Web => None,
        ReadVia::Slack {
            channel,
            private: true,
        } if channel.is_none() || channel.as_deref() != audience.channel => {
            Some("not quoted: it is from a private conversation")
        }
        _ if !audience.internal_quotes => {
            Some("not quoted: this workspace keeps the words of internal documents out of Slack")
        }
        _ => None,
    }
}

/// The modal view for `views.open`: the checked claims of `report` within every limit,
/// quoting what `audience` may see.
pub fn evidence_view(report: &Report, opts: &RenderOptions, audience: &Audience<'_>) -> Value {
    let model = opts.support_model.as_deref();
    let checked = checked_claims(report);
    let intro = intro_line(report, checked.len(), model);
    let mut total = text_len(&intro);
    let mut blocks = vec![context(&intro)];
    if checked.is_empty() {
        blocks.push(section("_No claim was checked against a page it cites._"));
    }
    let mut shown = 0;
    for claim in &checked {
        // One block stays free for the "…and N more claims" line.
        if blocks.len() + 1 >= MAX_VIEW_BLOCKS {
            break;
        }
        let text = claim_text(claim, model, audience);
        let len = text_len(&text);
        if total + len > MAX_VIEW_TEXT - VIEW_MORE_ROOM {
            break;
        }
        total += len;
        blocks.push(section(&text));
        shown += 1;
    }
    if shown < checked.len() {
        let more = plural(checked.len() - shown, "more claim", "more claims");
        blocks.push(context(&format!("_…and {more}_")));
    }
    json!({
        "type": "modal",
        "title": {"type": "plain_text", "text": VIEW_TITLE},
        "close": {"type": "plain_text", "text": "Close"},
        "blocks": blocks,
    })
}

/// `12 claims checked against the pages they cite · judged by the built-in scorer`,
/// escaped.
fn intro_line(report: &Report, checked: usize, model: Option<&str>) -> String {
    let claims = plural(checked, "claim", "claims");
    let mut line = format!("{claims} checked against the pages they cite");
    if let Some(judged) = judges_in_words(&judges(report, model)) {
        line.push_str(" · judged by ");
        line.push_str(&judged);
    }
    escape_within(&line, MAX_SECTION_TEXT / 2)
}

/// One claim's section: the claim quoted, then each page; pages that do not fit are
/// counted. At most [`MAX_SECTION_TEXT`] characters: the claim and its first page
/// always fit by construction.
fn claim_text(checked: &CheckedClaim<'_>, model: Option<&str>, audience: &Audience<'_>) -> String {
    let mut text = format!("“{}”", escape_within(&checked.claim.text, CLAIM_MAX));
    for (index, (support, source)) in checked.pages.iter().enumerate() {
        let page = page_text(support, *source, model, quote_withheld(*source, audience));
        if index > 0 && text_len(&text) + 1 + text_len(&page) > MAX_SECTION_TEXT - SECTION_MORE_ROOM
        {
            let more = plural(checked.pages.len() - index, "more page", "more pages");
            text.push_str(&format!("\n_…and {more}_"));
            break;
        }
        text.push('\n');
        text.push_str(&page);
    }
    text
}

/// `• ✗ *not supported* · <url|title>`, then the quote as a quote, what the page says
/// instead of the claim's figures, the missing words (less those figures) and the
/// reason, each on a line of its own when there is one. With `withheld`, that sentence
/// instead of the quote, no figure of the page's, and nothing the model said.
fn page_text(
    support: &ClaimSupport,
    source: Option<&Source>,
    model: Option<&str>,
    withheld: Option<&str>,
) -> String {
    let mut lines = vec![format!(
        "• {} *{}* · {}",
        verdict_mark(support.verdict),
        support.verdict.as_str(),
        source_link(support.source, source)
    )];
    if support.judge == SupportJudge::Llm {
        let name = escape_within(&judge_name(SupportJudge::Llm, model), JUDGE_MAX);
        lines[0].push_str(&format!(" · judged by {name}"));
    }
    match withheld {
        Some(why) if support.quote.is_some() => lines.push(format!("_{why}_")),
        Some(_) => {}
        None => {
            if let Some(quote) = support.quote.as_deref() {
                let quote = escape_within(quote, QUOTE_MAX);
                if !quote.is_empty() {
                    lines.push(format!("> {quote}"));
                }
            }
        }
    }
    // The page's figures are its words: shown only where its quote would be.
    let mut used = 0;
    let mut said: Vec<&Differ> = Vec::new();
    if withheld.is_none() {
        for (words, differ) in page_differs(support) {
            let line = format!("_{}_", escape_within(&words, DIFFER_LINE_MAX - 2));
            let len = text_len(&line) + 1;
            if used + len > FIGURES_MAX - MISSING_ROOM {
                break;
            }
            used += len;
            lines.push(line);
            said.push(differ);
        }
    }
    let missing = not_differing(&support.missing, &said);
    if let Some(words) = words_in_words(&missing, MAX_MISSING_SHOWN) {
        let room = MISSING_MAX.min(FIGURES_MAX - used - 3);
        let words = escape_within(&format!("does not mention {words}"), room);
        lines.push(format!("_{words}_"));
    }
    // The model's reason may repeat the document's words.
    let reason = support
        .reason
        .as_deref()
        .filter(|_| withheld.is_none() || support.judge != SupportJudge::Llm);
    if let Some(reason) = reason {
        let reason = escape_within(reason, REASON_MAX);
        if !reason.is_empty() {
            lines.push(format!("_{reason}_"));
        }
    }
    lines.join("\n")
}

/// The page as a safe `<url|title>` link; its escaped title alone when it has no http
/// link or the link is too long to show.
fn source_link(id: usize, source: Option<&Source>) -> String {
    let Some(source) = source else {
        return format!("source {id}");
    };
    let title = if source.title.trim().is_empty() {
        format!("source {id}")
    } else {
        source.title.clone()
    };
    if let Some(url) = link_target(source) {
        let linked = link(url, &title, TITLE_CHARS);
        if text_len(&linked) <= LINK_MAX {
            return linked;
        }
        let title = escape_within(&title, TITLE_ONLY_MAX);
        return format!("{title} (link too long to show)");
    }
    match escape_within(&title, TITLE_ONLY_MAX) {
        shown if shown.is_empty() => format!("source {id}"),
        shown => shown,
    }
}

/// `{"type":"section","text":{"type":"mrkdwn","text":…}}`.
fn section(text: &str) -> Value {
    json!({"type": "section", "text": {"type": "mrkdwn", "text": text}})
}

/// A context block with one mrkdwn element.
fn context(text: &str) -> Value {
    json!({"type": "context", "elements": [{"type": "mrkdwn", "text": text}]})
}

/// Checks a modal view against Slack's limits: `type` modal, a plain-text title (and
/// close button) of 1–[`MAX_VIEW_TITLE`] characters, 1–[`MAX_VIEW_BLOCKS`] blocks, each
/// a valid section, context, divider or actions block with texts of 1–3,000
/// characters, and at most [`MAX_VIEW_TEXT`] characters of block text in all.
pub fn check_view_limits(view: &Value) -> Result<(), BlockLimitError> {
    if view.get("type").and_then(Value::as_str) != Some("modal") {
        return Err(BlockLimitError::NotAModal);
    }
    for field in ["title", "close"] {
        let Some(text) = view.get(field) else {
            if field == "title" {
                return Err(BlockLimitError::ViewTitle(0));
            }
            continue;
        };
        if text.get("type").and_then(Value::as_str) != Some("plain_text") {
            return Err(BlockLimitError::ViewTitle(0));
        }
        let len = text.get("text").and_then(Value::as_str).map_or(0, text_len);
        if len == 0 || len > MAX_VIEW_TITLE {
            return Err(BlockLimitError::ViewTitle(len));
        }
    }
    let blocks = view
        .get("blocks")
        .and_then(Value::as_array)
        .ok_or(BlockLimitError::Malformed(0))?;
    if blocks.is_empty() || blocks.len() > MAX_VIEW_BLOCKS {
        return Err(BlockLimitError::TooManyViewBlocks(blocks.len()));
    }
    let mut total = 0;
    for (index, block) in blocks.iter().enumerate() {
        for len in block_text_lengths(index, block)? {
            if len == 0 || len > MAX_SECTION_TEXT {
                return Err(BlockLimitError::TextLength { block: index, len });
            }
            total += len;
        }
    }
    if total > MAX_VIEW_TEXT {
        return Err(BlockLimitError::ViewTooLong(total));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Answer, SupportVerdict};

    /// A report with `n` claims each citing one page, judged as given.
    fn report_with(n: usize, text: &str, title: &str, url: &str, support: ClaimSupport) -> Report {
        let answer = Answer::from_text("Intro [1].\n\n[1] https://example.org/x - X");
        let mut report = crate::check(&answer, &Default::default());
        let source = &mut report.groups[0].sources[0];
        assert_eq!(source.id, 1);
        source.title = title.to_string();
        source.canonical_url = Some(url.to_string());
        report.claims = (0..n)
            .map(|_| super::super::tests::claim(text, vec![support.clone()]))
            .collect();
        report
    }

    fn judged(verdict: SupportVerdict, quote: &str, missing: &[&str]) -> ClaimSupport {
        ClaimSupport {
            quote: Some(quote.to_string()),
            ..super::super::tests::support(verdict, missing)
        }
    }

    fn texts(view: &Value) -> String {
        view.to_string()
    }

    /// A modal in `#C0GENERAL` of a workspace that lets internal quotes show.
    const EVERYONE: Audience<'static> = Audience {
        channel: Some("C0GENERAL"),
        internal_quotes: true,
    };

    #[test]
    fn internal_words_are_quoted_only_where_they_may_be() {
        let secret = "Deploys freeze at 18:00 on Fridays, says the runbook.";
        let mut support = judged(SupportVerdict::NotSupported, secret, &["17:00"]);
        support.judge = SupportJudge::Llm;
        support.reason = Some(format!("The runbook says: {secret}"));
        let mut report = report_with(
            1,
            "Deploys freeze at 17:00 on Fridays.",
            "Runbook",
            "https://acme.atlassian.net/wiki/spaces/ENG/pages/1",
            support,
        );
        let shown = |report: &Report, audience: &Audience<'_>| {
            evidence_view(report, &RenderOptions::default(), audience)["blocks"][1]["text"]["text"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        };
        let confluence = ReadVia::Product {
            product: "Confluence".into(),
        };
        report.groups[0].sources[0].read_via = Some(confluence);
        let quoted = shown(&report, &EVERYONE);
        assert!(quoted.contains(secret), "{quoted}");
        let off = Audience {
            internal_quotes: false,
            ..EVERYONE
        };
        let kept_out = shown(&report, &off);
        assert!(!kept_out.contains("18:00"), "{kept_out}");
        assert!(
            kept_out.contains("keeps the words of internal documents out"),
            "{kept_out}"
        );
        // The verdict and the claim's own missing words still show.
        assert!(kept_out.contains("*not supported*") && kept_out.contains("17:00"));
        // A private conversation's words show only in a modal opened from it.
        report.groups[0].sources[0].read_via = Some(ReadVia::Slack {
            channel: Some("G0PRIVATE".into()),
            private: true,
        });
        let elsewhere = shown(&report, &EVERYONE);
        assert!(!elsewhere.contains("18:00"), "{elsewhere}");
        assert!(elsewhere.contains("private conversation"), "{elsewhere}");
        let there = Audience {
            channel: Some("G0PRIVATE"),
            ..EVERYONE
        };
        assert!(shown(&report, &there).contains(secret));
        // A public channel's words follow the workspace's setting.
        report.groups[0].sources[0].read_via = Some(ReadVia::Slack {
            channel: Some("C0PUBLIC".into()),
            private: false,
        });
        assert!(shown(&report, &EVERYONE).contains(secret));
        assert!(!shown(&report, &off).contains("18:00"));
        // A web page is quoted whatever the setting.
        report.groups[0].sources[0].read_via = Some(ReadVia::Web);
        assert!(shown(&report, &off).contains(secret));
    }

    #[test]
    fn each_checked_claim_shows_its_page_verdict_quote_and_missing_words() {
        let report = report_with(
            1,
            "The church was founded in 1909 by Beulah.",
            "Parish history",
            "https://example.org/history",
            judged(
                SupportVerdict::NotSupported,
                "The parish hall was rebuilt in 1950.",
                &["1909", "Beulah"],
            ),
        );
        let view = evidence_view(&report, &RenderOptions::default(), &EVERYONE);
        assert_eq!(check_view_limits(&view), Ok(()));
        let section = view["blocks"][1]["text"]["text"].as_str().expect("section");
        assert_eq!(
            section,
            "“The church was founded in 1909 by Beulah.”\n\
             • ✗ *not supported* · <https://example.org/history|Parish history>\n\
             > The parish hall was rebuilt in 1950.\n\
             _does not mention 1909, Beulah_"
        );
        let intro = view["blocks"][0]["elements"][0]["text"]
            .as_str()
            .expect("intro");
        assert_eq!(
            intro,
            "1 claim checked against the pages they cite · judged by the built-in scorer"
        );
    }

    #[test]
    fn fifty_claims_fit_and_more_are_counted() {
        let support = judged(
            SupportVerdict::PartlySupported,
            &"A sentence from the page that says part of it. ".repeat(6),
            &[
                "1909", "Beulah", "Ohio", "church", "founded", "bishop", "parish",
            ],
        );
        let text = "The church in Ohio was founded in 1909 by Beulah and a bishop of the parish.";
        let fifty = evidence_view(
            &report_with(50, text, "Parish", "https://example.org/p", support.clone()),
            &RenderOptions::default(),
            &EVERYONE,
        );
        assert_eq!(check_view_limits(&fifty), Ok(()));
        let blocks = fifty["blocks"].as_array().expect("blocks");
        assert_eq!(blocks.len(), 51, "an intro and one section a claim");
        assert!(!texts(&fifty).contains("more claims"));
        let many = evidence_view(
            &report_with(300, text, "Parish", "https://example.org/p", support),
            &RenderOptions::default(),
            &EVERYONE,
        );
        assert_eq!(check_view_limits(&many), Ok(()));
        assert!(texts(&many).contains("more claims_"), "{}", texts(&many));
    }

    #[test]
    fn hostile_text_is_escaped_and_kept_within_limits() {
        let hostile = format!(
            "<!channel> <@U1> <https://evil|x> & \u{0007}\u{202e} {}",
            "<&>".repeat(4_000)
        );
        let mut support = judged(
            SupportVerdict::NotSupported,
            &hostile,
            &["<!channel>", "<@U1>", "<https://evil|x>", "&", &hostile],
        );
        support.reason = Some(hostile.clone());
        support.judge = SupportJudge::Llm;
        let report = report_with(
            60,
            &hostile,
            &hostile,
            &format!("https://e.com/{}", "a|".repeat(5_000)),
            support,
        );
        let opts = RenderOptions {
            support_model: Some("<!here> model".into()),
            ..RenderOptions::default()
        };
        let view = evidence_view(&report, &opts, &EVERYONE);
        assert_eq!(check_view_limits(&view), Ok(()));
        for block in view["blocks"].as_array().expect("blocks") {
            let text = block
                .pointer("/text/text")
                .or_else(|| block.pointer("/elements/0/text"))
                .and_then(Value::as_str)
                .expect("text");
            for line in text.lines() {
                let body = line.strip_prefix("> ").unwrap_or(line);
                assert!(!body.contains('<') && !body.contains('>'), "{line}");
            }
            assert!(!text.contains('\u{0007}') && !text.contains('\u{202e}'));
        }
    }

    #[test]
    fn broken_views_are_refused() {
        let good = json!({"type": "modal", "title": {"type": "plain_text", "text": "Evidence"},
            "blocks": [{"type": "divider"}]});
        assert_eq!(check_view_limits(&good), Ok(()));
        let mut long_title = good.clone();
        long_title["title"]["text"] = json!("An evidence title too long");
        assert_eq!(
            check_view_limits(&long_title),
            Err(BlockLimitError::ViewTitle(26))
        );
        let mut too_many = good.clone();
        too_many["blocks"] = json!(vec![json!({"type": "divider"}); 101]);
        assert_eq!(
            check_view_limits(&too_many),
            Err(BlockLimitError::TooManyViewBlocks(101))
        );
        let mut not_modal = good;
        not_modal["type"] = json!("home");
        assert_eq!(
            check_view_limits(&not_modal),
            Err(BlockLimitError::NotAModal)
        );
    }
}
