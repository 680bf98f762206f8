//! Unit tests of the reader on small messages in Slack's documented shapes; the corpus
//! of whole messages is in `tests/slack_messages.rs`.

use super::*;
use crate::collect::{collect, CollectOptions, Collected};
use serde_json::json;

fn read(message: Value) -> MessageRead {
    read_message(&message, &ReadOptions::default())
}

fn collected(message: Value) -> Collected {
    collect(&read(message).answer, &CollectOptions::default())
}

/// (canonical URL, title, references) of each source.
fn sources(c: &Collected) -> Vec<(String, String, usize)> {
    c.sources
        .iter()
        .map(|s| {
            (
                s.canonical_url.clone().unwrap_or_default(),
                s.title.clone(),
                s.references,
            )
        })
        .collect()
}

#[test]
fn blocks_are_read_and_the_fallback_text_is_not() {
    let message = json!({
        "type": "message", "ts": "1700000000.000100", "bot_id": "BAI",
        "text": "Hello! I found some results for you! https://fallback.example.com/only",
        "blocks": [
            {"type": "section", "text": {"type": "mrkdwn", "text": "Deploys freeze on Fridays after 3 pm [1]."}},
            {"type": "context", "elements": [
                {"type": "image", "image_url": "https://img.example.com/x.png", "alt_text": "x"},
                {"type": "mrkdwn", "text": "[1] <https://wiki.example.com/freeze|Freeze policy>"}
            ]}
        ]
    });
    let read = read(message.clone());
    assert!(!read.notes.used_fallback_text);
    assert!(
        !read.answer.text.contains("fallback"),
        "{}",
        read.answer.text
    );
    let c = collected(message);
    assert_eq!(
        sources(&c),
        [(
            "https://wiki.example.com/freeze".to_string(),
            "Freeze policy".to_string(),
            1
        )]
    );
    assert_eq!(c.metrics.cited_claims, 1, "{:?}", c.claims);
    assert_eq!(c.metrics.uncited_claims, 0);
}

#[test]
fn text_is_read_when_there_are_no_blocks() {
    let read = read(json!({
        "type": "message", "ts": "1.2",
        "text": "Ask <@U1|ada> in <#C1|ops>: the limit is 5 &lt; 6 &amp; <https://a.example.com/?x=1&amp;y=2|A &amp; B>."
    }));
    assert!(read.notes.used_fallback_text);
    assert_eq!(
        read.answer.text,
        "Ask @ada in #ops: the limit is 5 < 6 & <https://a.example.com/?x=1&amp;y=2|A &amp; B>."
    );
    let c = collect(&read.answer, &CollectOptions::default());
    assert_eq!(
        c.sources[0].canonical_url.as_deref(),
        Some("https://a.example.com/?x=1&y=2")
    );
    assert_eq!(c.sources[0].title, "A & B");
}

#[test]
fn one_url_in_a_section_and_a_context_is_one_source_with_two_references() {
    let c = collected(json!({
        "type": "message", "ts": "1.2",
        "blocks": [
            {"type": "section", "text": {"type": "mrkdwn", "text": "Use the 2024 runbook <https://wiki.example.com/runbook?utm_source=slack|runbook>."}},
            {"type": "context", "elements": [{"type": "mrkdwn", "text": "Source: <https://wiki.example.com/runbook|Deploy runbook>"}]}
        ]
    }));
    assert_eq!(
        sources(&c),
        [(
            "https://wiki.example.com/runbook".to_string(),
            "runbook".to_string(),
            2
        )]
    );
}

#[test]
fn section_fields_and_a_button_accessory_are_read() {
    let c = collected(json!({
        "type": "message", "ts": "1.2",
        "blocks": [
            {"type": "section",
             "text": {"type": "mrkdwn", "text": "Latency rose 40% last week."},
             "fields": [
                {"type": "mrkdwn", "text": "*Dashboard*\n<https://grafana.example.com/d/1|p99 latency>"},
                {"type": "plain_text", "text": "Owner: SRE"}
             ],
             "accessory": {"type": "button", "text": {"type": "plain_text", "text": "Open incident"}, "url": "https://incidents.example.com/42", "action_id": "open"}},
            {"type": "actions", "elements": [
                {"type": "button", "text": {"type": "plain_text", "text": "Postmortem"}, "url": "https://docs.example.com/pm/42"},
                {"type": "button", "text": {"type": "plain_text", "text": "Ack"}, "action_id": "ack", "value": "1"}
            ]}
        ]
    }));
    let titles: Vec<String> = c.sources.iter().map(|s| s.title.clone()).collect();
    assert_eq!(titles, ["p99 latency", "Open incident", "Postmortem"]);
}

#[test]
fn rich_text_links_lists_quotes_and_code() {
    let read = read(json!({
        "type": "message", "ts": "1.2", "user": "U1",
        "blocks": [{"type": "rich_text", "elements": [
            {"type": "rich_text_section", "elements": [
                {"type": "text", "text": "Read "},
                {"type": "link", "url": "https://docs.example.com/a", "text": "the guide"},
                {"type": "text", "text": " and "},
                {"type": "link", "url": "https://docs.example.com/b"},
                {"type": "text", "text": " with "},
                {"type": "user", "user_id": "U2"},
                {"type": "emoji", "name": "tada", "unicode": "1f389"},
                {"type": "text", "text": "\n"}
            ]},
            {"type": "rich_text_list", "style": "ordered", "indent": 0, "elements": [
                {"type": "rich_text_section", "elements": [{"type": "text", "text": "first"}]},
                {"type": "rich_text_section", "elements": [{"type": "link", "url": "https://docs.example.com/c", "text": "second"}]}
            ]},
            {"type": "rich_text_quote", "elements": [{"type": "text", "text": "quoted"}]},
            {"type": "rich_text_preformatted", "elements": [
                {"type": "text", "text": "curl "},
                {"type": "link", "url": "https://api.example.com/code-only"}
            ]},
            {"type": "rich_text_section", "elements": [
                {"type": "link", "url": "https://api.example.com/styled", "style": {"code": true}}
            ]}
        ]}]
    }));
    assert_eq!(
        read.answer.text,
        "Read <https://docs.example.com/a|the guide> and <https://docs.example.com/b> with @U2🎉\n1. first\n2. <https://docs.example.com/c|second>\n\nquoted\n\n```\ncurl https://api.example.com/code-only\n```\n\n`https://api.example.com/styled`"
    );
    let c = collect(&read.answer, &CollectOptions::default());
    let urls: Vec<&str> = c
        .sources
        .iter()
        .filter_map(|s| s.canonical_url.as_deref())
        .collect();
    assert_eq!(
        urls,
        [
            "https://docs.example.com/a",
            "https://docs.example.com/b",
            "https://docs.example.com/c"
        ]
    );
}

#[test]
fn the_markdown_block_is_standard_markdown() {
    let c = collected(json!({
        "type": "message", "ts": "1.2",
        "blocks": [{"type": "markdown", "text": "**Answer.** Rust 1.0 shipped in May 2015 [1].\n\n```\nsee https://code.example.com/not-a-source\n```\n\n[1]: https://blog.rust-lang.org/2015/05/15/Rust-1.0.html \"Announcing Rust 1.0\""}]
    }));
    assert_eq!(
        sources(&c),
        [(
            "https://blog.rust-lang.org/2015/05/15/Rust-1.0.html".to_string(),
            "Announcing Rust 1.0".to_string(),
            1
        )]
    );
    assert_eq!(c.metrics.cited_claims, 1);
}

#[test]
fn attachments_title_links_fields_and_footer() {
    let c = collected(json!({
        "type": "message", "ts": "1.2", "bot_id": "BAI", "text": "Here is what I found",
        "attachments": [{
            "fallback": "Deploy policy - https://fallback.example.com",
            "color": "#36a64f",
            "pretext": "Deploys freeze on Fridays.",
            "author_name": "Platform team", "author_link": "https://people.example.com/platform",
            "title": "Deploy policy", "title_link": "https://wiki.example.com/deploy",
            "text": "See also <https://wiki.example.com/freeze|the freeze calendar>.",
            "fields": [{"title": "Owner", "value": "<https://people.example.com/sre|SRE>", "short": true}],
            "image_url": "https://img.example.com/chart.png",
            "footer": "From <https://kb.example.com|the KB>", "ts": 123456789
        }]
    }));
    let got: Vec<(String, String)> = c
        .sources
        .iter()
        .map(|s| (s.canonical_url.clone().unwrap_or_default(), s.title.clone()))
        .collect();
    let want = [
        ("https://people.example.com/platform", "Platform team"),
        ("https://wiki.example.com/deploy", "Deploy policy"),
        ("https://wiki.example.com/freeze", "the freeze calendar"),
        ("https://people.example.com/sre", "SRE"),
        ("https://kb.example.com/", "the KB"),
    ];
    assert_eq!(got.len(), want.len(), "{got:?}");
    for ((url, title), (want_url, want_title)) in got.iter().zip(want) {
        assert_eq!((url.as_str(), title.as_str()), (want_url, want_title));
    }
}

#[test]
fn an_unfurl_titles_the_link_and_is_no_second_citation() {
    let c = collected(json!({
        "type": "message", "ts": "1.2", "user": "U1",
        "text": "Rust 1.0 shipped in 2015: <https://blog.rust-lang.org/2015/05/15/Rust-1.0.html>",
        "attachments": [{
            "from_url": "https://blog.rust-lang.org/2015/05/15/Rust-1.0.html",
            "original_url": "https://blog.rust-lang.org/2015/05/15/Rust-1.0.html",
            "title": "Announcing Rust 1.0 | Rust Blog",
            "title_link": "https://blog.rust-lang.org/2015/05/15/Rust-1.0.html",
            "service_name": "blog.rust-lang.org",
            "text": "Today we are very proud to announce the 1.0 release of Rust.",
            "id": 1
        }]
    }));
    assert_eq!(
        sources(&c),
        [(
            "https://blog.rust-lang.org/2015/05/15/Rust-1.0.html".to_string(),
            "Announcing Rust 1.0 | Rust Blog".to_string(),
            1
        )]
    );
    // A preview of a link the message does not show is itself what cites it.
    let c = collected(json!({
        "type": "message", "ts": "1.2",
        "blocks": [{"type": "section", "text": {"type": "mrkdwn", "text": "See the preview."}}],
        "attachments": [{"original_url": "https://news.example.com/a", "title": "A story", "id": 1}]
    }));
    assert_eq!(
        sources(&c),
        [(
            "https://news.example.com/a".to_string(),
            "A story".to_string(),
            1
        )]
    );
}

#[test]
fn ai_blocks_task_cards_plans_cards_and_containers() {
    let c = collected(json!({
        "type": "message", "ts": "1.2",
        "blocks": [
            {"type": "plan", "title": "Researching", "tasks": [
                {"type": "task_card", "task_id": "t1", "title": "Search the wiki", "status": "complete",
                 "output": {"type": "rich_text", "elements": [{"type": "rich_text_section", "elements": [{"type": "text", "text": "Found the policy."}]}]},
                 "sources": [{"type": "url", "url": "https://wiki.example.com/policy", "text": "Policy"}]}
            ]},
            {"type": "carousel", "elements": [
                {"type": "card", "title": {"type": "mrkdwn", "text": "*Q3 report*"}, "body": {"type": "mrkdwn", "text": "Revenue grew 12% <https://ir.example.com/q3|(report)>"},
                 "actions": [{"type": "button", "text": {"type": "plain_text", "text": "Open"}, "url": "https://ir.example.com/q3/full"}]}
            ]},
            {"type": "container", "title": {"type": "plain_text", "text": "Details"}, "child_blocks": [
                {"type": "section", "text": {"type": "mrkdwn", "text": "<https://status.example.com|Status page>"}}
            ]},
            {"type": "alert", "level": "warning", "text": {"type": "mrkdwn", "text": "Check <https://alerts.example.com/1|alert 1>"}},
            {"type": "context_actions", "elements": [{"type": "feedback_buttons", "action_id": "fb", "positive_button": {"text": {"type": "plain_text", "text": "Good"}, "value": "up"}, "negative_button": {"text": {"type": "plain_text", "text": "Bad"}, "value": "down"}}]}
        ]
    }));
    let titles: Vec<String> = c.sources.iter().map(|s| s.title.clone()).collect();
    assert_eq!(
        titles,
        ["Policy", "(report)", "Open", "Status page", "alert 1"]
    );
}

#[test]
fn tables_are_read_cell_by_cell() {
    let read = read(json!({
        "type": "message", "ts": "1.2",
        "blocks": [{"type": "table", "rows": [
            [{"type": "raw_text", "text": "Region"}, {"type": "raw_text", "text": "Source"}],
            [{"type": "raw_text", "text": "EU"}, {"type": "rich_text", "elements": [{"type": "rich_text_section", "elements": [{"type": "link", "url": "https://eu.example.com/q3", "text": "EU report"}]}]}]
        ]}]
    }));
    assert_eq!(
        read.answer.text,
        "| Region | Source |\n| EU | <https://eu.example.com/q3|EU report> |"
    );
}

#[test]
fn unknown_blocks_and_wrong_types_are_skipped_and_noted() {
    let read = read(json!({
        "type": "message", "ts": "1.2",
        "blocks": [
            {"type": "hologram", "text": "https://hidden.example.com"},
            "not a block",
            {"type": "section", "text": 42, "fields": "nope"},
            {"type": "section", "text": {"type": "mrkdwn", "text": "Still read <https://ok.example.com|ok>"}}
        ],
        "attachments": {"not": "an array"}
    }));
    assert_eq!(read.answer.text, "Still read <https://ok.example.com|ok>");
    assert_eq!(read.notes.counts.unknown_type, 1);
    assert_eq!(read.notes.counts.wrong_type, 4);
    let paths: Vec<&str> = read.notes.skipped.iter().map(|s| s.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "$.blocks[0]",
            "$.blocks[1]",
            "$.blocks[2].text",
            "$.blocks[2].fields",
            "$.attachments"
        ]
    );
}

#[test]
fn unreadable_blocks_fall_back_to_the_text() {
    let read = read(json!({
        "type": "message", "ts": "1.2", "text": "Fallback <https://a.example.com|A>",
        "blocks": [{"type": "hologram"}]
    }));
    assert!(read.notes.used_fallback_text);
    assert_eq!(read.answer.text, "Fallback <https://a.example.com|A>");
}

#[test]
fn deep_nesting_and_huge_messages_are_bounded() {
    let mut nested = json!({"type": "section", "text": {"type": "mrkdwn", "text": "deepest https://deep.example.com"}});
    for _ in 0..200 {
        nested = json!({"type": "container", "child_blocks": [nested]});
    }
    let read = read(
        json!({"type": "message", "ts": "1.2", "blocks": [nested, {"type": "section", "text": {"type": "mrkdwn", "text": "after"}}]}),
    );
    assert!(read.notes.counts.too_deep >= 1);
    assert!(read.answer.text.ends_with("after"), "{}", read.answer.text);

    let runs: Vec<Value> = (0..10_000)
        .map(|i| json!({"type": "link", "url": format!("https://e{i}.example.com/"), "text": format!("l{i}")}))
        .collect();
    let read = read_message(
        &json!({"type": "message", "ts": "1.2", "blocks": [{"type": "rich_text", "elements": [{"type": "rich_text_section", "elements": runs}]}]}),
        &ReadOptions::default(),
    );
    assert!(!read.notes.truncated);
    assert!(read
        .answer
        .text
        .contains("<https://e9999.example.com/|l9999>"));

    let limits = ReadLimits {
        max_nodes: 100,
        ..ReadLimits::default()
    };
    let many: Vec<Value> = (0..500)
        .map(|i| json!({"type": "section", "text": {"type": "mrkdwn", "text": format!("s{i}")}}))
        .collect();
    let read = read_message(
        &json!({"type": "message", "ts": "1.2", "blocks": many}),
        &ReadOptions {
            limits,
            omit_mention_of: None,
        },
    );
    assert!(read.notes.truncated);
    assert_eq!(read.notes.counts.too_many, 1);
    assert_eq!(read.notes.blocks, 100);
    assert!(read.answer.text.ends_with("s99"), "{}", read.answer.text);
}

#[test]
fn the_bots_own_mention_is_left_out() {
    let options = ReadOptions {
        omit_mention_of: Some("UBOT".into()),
        ..ReadOptions::default()
    };
    let text_only = read_message(
        &json!({"type": "app_mention", "ts": "1.2", "user": "U1", "text": "<@UBOT> sources?"}),
        &options,
    );
    assert_eq!(text_only.answer.text, "sources?");
    let rich = read_message(
        &json!({"type": "app_mention", "ts": "1.2", "user": "U1", "text": "<@UBOT> sources?",
            "blocks": [{"type": "rich_text", "elements": [{"type": "rich_text_section", "elements": [
                {"type": "user", "user_id": "UBOT"}, {"type": "text", "text": " sources? cc "}, {"type": "user", "user_id": "U2"}]}]}]}),
        &options,
    );
    assert_eq!(rich.answer.text, " sources? cc @U2");
}

#[test]
fn tombstones_and_non_objects_read_as_nothing() {
    assert_eq!(
        read(json!({"type": "message", "subtype": "tombstone", "ts": "1.2", "text": "This message was deleted.", "hidden": true}))
            .answer
            .text,
        ""
    );
    let read = read(json!("a string"));
    assert_eq!(read.answer.text, "");
    assert_eq!(read.notes.counts.wrong_type, 1);
}

#[test]
fn messages_are_found_in_the_documents_that_carry_them() {
    let message = json!({"type": "message", "ts": "1.2", "text": "hi"});
    let changed = json!({"type": "message", "subtype": "message_changed", "hidden": true, "channel": "C1", "ts": "1.3",
        "message": {"type": "message", "ts": "1.2", "text": "edited"}, "previous_message": message});
    assert_eq!(message_in(&message), Some(&message));
    assert_eq!(
        message_in(&changed).and_then(|m| m["text"].as_str()),
        Some("edited")
    );
    let callback = json!({"type": "event_callback", "event_id": "Ev1", "event": changed});
    assert_eq!(
        message_in(&callback).and_then(|m| m["text"].as_str()),
        Some("edited")
    );
    let shortcut =
        json!({"type": "message_action", "callback_id": "check_sources", "message": message});
    assert_eq!(message_in(&shortcut), Some(&message));
    let posted = json!({"ok": true, "channel": "C1", "ts": "1.2", "message": message});
    assert_eq!(message_in(&posted), Some(&message));
    assert_eq!(
        message_in(&json!({"text": "an answer", "sources": []})),
        None
    );
    let history = json!({"ok": true, "messages": [message], "has_more": false});
    assert_eq!(messages_in(&history).map(Vec::len), Some(1));
}
