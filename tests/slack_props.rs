//! Properties of the Slack message reader on generated Block Kit messages: every URL a
//! message displays is found once, with one reference per place it is shown; the
//! notification fallback `text` never adds a source or a reference when the message has
//! blocks; code, images and unfurls of links already shown add nothing; and no value of
//! any shape where a block belongs makes the reader panic or lose the blocks around it.

use proptest::prelude::*;
use serde_json::{json, Value};
use sourcebot::collect::slack_message::{read_message, ReadOptions};
use sourcebot::collect::{collect, CollectOptions, Collected};
use std::collections::BTreeMap;

#[path = "support/markup.rs"]
mod markup;
use markup::has_link_markup;

/// The URLs pieces link to: distinct pages, one of them written with a tracking
/// parameter and an upper-case host in some places (the same page).
const PAGES: [&str; 5] = [
    "https://docs.example.com/deploy",
    "https://wiki.example.org/freeze?id=7",
    "https://acme.atlassian.net/wiki/spaces/ENG/pages/1/Runbook",
    "https://news.example.net/2024/q3",
    "https://blog.rust-lang.org/2015/05/15/Rust-1.0.html",
];

/// How page `page` is written in piece `variant`: as is, or with tracking noise.
fn spelled(page: usize, variant: u8) -> String {
    let url = PAGES[page];
    match variant % 3 {
        0 => url.to_string(),
        1 => {
            let joiner = if url.contains('?') { '&' } else { '?' };
            format!("{url}{joiner}utm_source=slack")
        }
        _ => url.replacen("https://", "HTTPS://", 1),
    }
}

/// One place a message can show a link.
#[derive(Debug, Clone)]
enum Piece {
    SectionText,
    SectionField,
    Accessory,
    Context,
    RichLink,
    RichList,
    MarkdownBlock,
    ActionsButton,
    TableCell,
    TaskSource,
    AttachmentTitle,
    AttachmentText,
    CardButton,
    /// Shown, but as code: not a citation.
    RichCode,
    /// An image: not a citation.
    Image,
}

fn piece() -> impl Strategy<Value = (Piece, usize, u8, String)> {
    (
        prop_oneof![
            Just(Piece::SectionText),
            Just(Piece::SectionField),
            Just(Piece::Accessory),
            Just(Piece::Context),
            Just(Piece::RichLink),
            Just(Piece::RichList),
            Just(Piece::MarkdownBlock),
            Just(Piece::ActionsButton),
            Just(Piece::TableCell),
            Just(Piece::TaskSource),
            Just(Piece::AttachmentTitle),
            Just(Piece::AttachmentText),
            Just(Piece::CardButton),
            Just(Piece::RichCode),
            Just(Piece::Image),
        ],
        0..PAGES.len(),
        any::<u8>(),
        "[a-z]{1,8}( [a-z]{1,8}){0,2}",
    )
}

/// Whether a piece shows a citation.
fn cites(piece: &Piece) -> bool {
    !matches!(piece, Piece::RichCode | Piece::Image)
}

/// The block or attachment that shows `url` with `label` as `piece`.
fn render(piece: &Piece, url: &str, label: &str) -> (Option<Value>, Option<Value>) {
    let mrkdwn = |text: String| json!({"type": "mrkdwn", "text": text});
    let plain = |text: &str| json!({"type": "plain_text", "text": text});
    let block = match piece {
        Piece::SectionText => {
            json!({"type": "section", "text": mrkdwn(format!("See <{url}|{label}> now"))})
        }
        Piece::SectionField => {
            json!({"type": "section", "fields": [mrkdwn(format!("*{label}*\n<{url}>"))]})
        }
        Piece::Accessory => json!({"type": "section", "text": mrkdwn(label.to_string()),
            "accessory": {"type": "button", "text": plain(label), "url": url, "action_id": "a"}}),
        Piece::Context => json!({"type": "context", "elements": [
            {"type": "image", "image_url": "https://img.example.com/icon.png", "alt_text": "icon"},
            mrkdwn(format!("<{url}|{label}>"))]}),
        Piece::RichLink => {
            json!({"type": "rich_text", "elements": [{"type": "rich_text_section", "elements": [
            {"type": "text", "text": format!("{label} ")}, {"type": "link", "url": url, "text": label}]}]})
        }
        Piece::RichList => {
            json!({"type": "rich_text", "elements": [{"type": "rich_text_list", "style": "bullet", "indent": 0, "elements": [
            {"type": "rich_text_section", "elements": [{"type": "link", "url": url}]}]}]})
        }
        Piece::MarkdownBlock => {
            json!({"type": "markdown", "text": format!("Read [{label}]({url}).")})
        }
        Piece::ActionsButton => json!({"type": "actions", "elements": [
            {"type": "button", "text": plain(label), "url": url, "action_id": "b"}]}),
        Piece::TableCell => json!({"type": "table", "rows": [[{"type": "raw_text", "text": label},
            {"type": "rich_text", "elements": [{"type": "rich_text_section", "elements": [{"type": "link", "url": url, "text": label}]}]}]]}),
        Piece::TaskSource => {
            json!({"type": "task_card", "task_id": "t", "title": label, "status": "complete",
            "sources": [{"type": "url", "url": url, "text": label}]})
        }
        Piece::CardButton => json!({"type": "card", "title": mrkdwn(label.to_string()),
            "actions": [{"type": "button", "text": plain(label), "url": url, "action_id": "c"}]}),
        Piece::RichCode => {
            json!({"type": "rich_text", "elements": [{"type": "rich_text_preformatted", "elements": [
            {"type": "text", "text": "curl "}, {"type": "link", "url": url}]}]})
        }
        Piece::Image => json!({"type": "image", "image_url": url, "alt_text": label}),
        Piece::AttachmentTitle => {
            return (
                None,
                Some(json!({"title": label, "title_link": url, "fallback": url})),
            )
        }
        Piece::AttachmentText => {
            return (
                None,
                Some(json!({"text": format!("<{url}|{label}>"), "fallback": url})),
            )
        }
    };
    (Some(block), None)
}

/// A message showing `pieces`, with a notification fallback that mentions every page
/// (and one the blocks never show).
fn message(pieces: &[(Piece, usize, u8, String)]) -> (Value, BTreeMap<usize, usize>) {
    // A message with blocks always has one that shows no link; with `blocks: []` Slack
    // would show `text` instead.
    let mut blocks = vec![
        json!({"type": "section", "text": {"type": "mrkdwn", "text": "Here is what I found."}}),
    ];
    let mut attachments = Vec::new();
    let mut shown: BTreeMap<usize, usize> = BTreeMap::new();
    for (piece, page, variant, label) in pieces {
        let (block, attachment) = render(piece, &spelled(*page, *variant), label);
        blocks.extend(block);
        attachments.extend(attachment);
        if cites(piece) {
            *shown.entry(*page).or_default() += 1;
        }
    }
    let fallback = format!(
        "Hello! I found some results for you: {} https://fallback-only.example.com/x",
        PAGES.join(" ")
    );
    let mut message = json!({"type": "message", "ts": "1700000000.000100", "bot_id": "BAI",
        "text": fallback, "blocks": blocks});
    if !attachments.is_empty() {
        message["attachments"] = Value::Array(attachments);
    }
    (message, shown)
}

fn collected(message: &Value) -> Collected {
    let read = read_message(message, &ReadOptions::default());
    collect(&read.answer, &CollectOptions::default())
}

/// References per page, keyed by the page's index.
fn references(c: &Collected) -> BTreeMap<usize, usize> {
    let mut found = BTreeMap::new();
    for source in &c.sources {
        let url = source.canonical_url.as_deref().unwrap_or_default();
        let page = PAGES
            .iter()
            .position(|p| url == *p || url.trim_end_matches('/') == p.trim_end_matches('/'));
        let Some(page) = page else {
            panic!("a source no block shows: {url}");
        };
        assert!(
            found.insert(page, source.references).is_none(),
            "{url} found twice"
        );
    }
    found
}

/// Any JSON value, up to a few levels deep.
fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        "\\PC{0,12}".prop_map(Value::from),
        Just(json!("https://inside-junk.example.com")),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(
                prop_oneof![
                    Just("type".to_string()),
                    Just("text".to_string()),
                    Just("elements".to_string()),
                    Just("fields".to_string()),
                    Just("url".to_string()),
                    Just("rows".to_string()),
                    Just("child_blocks".to_string()),
                    "[a-z_]{1,8}"
                ],
                inner,
                0..6
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// One way a sentence can carry a link or other markup, and the words a person reads.
fn marked_up(form: u8, url: &str, label: &str) -> (String, String) {
    let host_path = url.split_once("://").map_or(url, |(_, rest)| rest);
    match form % 10 {
        0 => (format!("<{url}|{label}>"), label.to_string()),
        1 => (format!("<{url}>"), url.to_string()),
        2 => (format!("<www.{host_path}|{label}>"), label.to_string()),
        3 => (format!("*<{url}|{label}>*"), label.to_string()),
        4 => (format!("<@U07DANA001|{label}>"), format!("@{label}")),
        5 => (format!("<#C07BUILDS1|{label}>"), format!("#{label}")),
        6 => (format!("`{label}`"), label.to_string()),
        7 => (format!("_{label}_"), label.to_string()),
        8 => (
            format!("<!date^1731542400^{{date_num}}|{label}>"),
            label.to_string(),
        ),
        _ => (format!("~{label}~"), label.to_string()),
    }
}

/// Where a generated sentence is put: a section, a markdown block (its links written
/// the Markdown way), a rich-text section (links as link elements), an attachment's
/// text or one of its fields.
fn placed(place: u8, sentences: &[(String, String, String)]) -> Value {
    let mrkdwn_text: String = sentences
        .iter()
        .map(|(mrkdwn, _, _)| mrkdwn.as_str())
        .collect::<Vec<_>>()
        .join(" ");
    match place % 5 {
        0 => {
            json!({"blocks": [{"type": "section", "text": {"type": "mrkdwn", "text": mrkdwn_text}}]})
        }
        1 => {
            let markdown: String = sentences
                .iter()
                .map(|(_, markdown, _)| markdown.as_str())
                .collect::<Vec<_>>()
                .join(" ");
            json!({"blocks": [{"type": "markdown", "text": markdown}]})
        }
        2 => {
            let runs: Vec<Value> = sentences
                .iter()
                .flat_map(|(_, _, words)| {
                    vec![
                        json!({"type": "text", "text": format!("{words} in 2024 rose 12% per ")}),
                        json!({"type": "link", "url": PAGES[1], "text": "the report"}),
                        json!({"type": "text", "text": ". "}),
                    ]
                })
                .collect();
            json!({"blocks": [{"type": "rich_text", "elements": [{"type": "rich_text_section", "elements": runs}]}]})
        }
        3 => json!({"blocks": [], "attachments": [{"text": mrkdwn_text, "fallback": "x"}]}),
        _ => json!({"blocks": [], "attachments": [{"fallback": "x", "fields": [
            {"title": "Summary", "value": mrkdwn_text, "short": false}]}]}),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn no_claim_holds_link_markup(
        sentences in prop::collection::vec(
            (any::<u8>(), 0..PAGES.len(), "[a-z]{2,8}( [a-z]{2,8}){0,2}", "[A-Z][a-z]{2,8}( [a-z]{2,8}){2,5}"),
            1..6,
        ),
        place in any::<u8>(),
    ) {
        let sentences: Vec<(String, String, String)> = sentences
            .iter()
            .map(|(form, page, label, words)| {
                let url = PAGES[*page];
                let (markup, _) = marked_up(*form, url, label);
                let mrkdwn = format!("{words} grew 40% in 2023 per {markup}.");
                let markdown = format!("{words} grew 40% in 2023 per [{label}]({url}) and **{label}**.");
                (mrkdwn, markdown, words.clone())
            })
            .collect();
        let mut message = placed(place, &sentences);
        message["type"] = json!("message");
        message["ts"] = json!("1700000000.000100");
        let c = collected(&message);
        prop_assert!(!c.claims.is_empty(), "no claims in {}", message);
        for claim in &c.claims {
            prop_assert!(
                has_link_markup(&claim.text).is_none(),
                "{:?} in claim {:?} of {}",
                has_link_markup(&claim.text),
                claim.text,
                message
            );
        }
    }

    #[test]
    fn every_displayed_url_is_found_once_with_a_reference_per_place(
        pieces in prop::collection::vec(piece(), 0..24)
    ) {
        let (message, shown) = message(&pieces);
        let c = collected(&message);
        prop_assert_eq!(references(&c), shown);
    }

    #[test]
    fn the_fallback_text_adds_nothing_when_there_are_blocks(
        pieces in prop::collection::vec(piece(), 1..12)
    ) {
        let (with_fallback, _) = message(&pieces);
        let mut without = with_fallback.clone();
        without["text"] = json!("");
        let a = collected(&with_fallback);
        let b = collected(&without);
        prop_assert_eq!(references(&a), references(&b));
        prop_assert_eq!(a.metrics.total_references, b.metrics.total_references);
    }

    #[test]
    fn junk_where_blocks_belong_never_panics_nor_hides_the_rest(
        pieces in prop::collection::vec(piece(), 0..8),
        junk in prop::collection::vec((0usize..10, any_json()), 0..6),
    ) {
        let (mut message, shown) = message(&pieces);
        let blocks = message["blocks"].as_array_mut().expect("blocks");
        for (at, value) in junk {
            // Junk never takes a known citing type's shape by accident: give objects an
            // unknown type, and leave other values as they are.
            let value = match value {
                Value::Object(mut object) => {
                    object.insert("type".into(), json!("x_unknown"));
                    Value::Object(object)
                }
                other => other,
            };
            let at = at.min(blocks.len());
            blocks.insert(at, value);
        }
        let c = collected(&message);
        prop_assert_eq!(references(&c), shown);
    }

    #[test]
    fn any_value_as_a_message_reads_without_panicking(value in any_json()) {
        let read = read_message(&value, &ReadOptions::default());
        let _ = collect(&read.answer, &CollectOptions::default());
    }
}
