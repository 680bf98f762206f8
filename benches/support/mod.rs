//! Inputs shared by the benchmark and `examples/profile_stages.rs`: the DeepResearch
//! Bench reports from ../shared/corpora, and a synthetic answer of a chosen size and
//! link count.

use std::path::PathBuf;

/// The `article` of every DeepResearch Bench report, or `None` when the corpora are absent.
pub fn drb_articles() -> Option<Vec<String>> {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpora/drb_claude37_raw.jsonl");
    let text = std::fs::read_to_string(path).ok()?;
    Some(
        text.lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .filter_map(|v| v["article"].as_str().map(str::to_string))
            .collect(),
    )
}

/// An answer of about `target_bytes` with `links` citations spread through it: prose
/// with `[n]` markers, Slack and Markdown links, bare URLs, and a reference list. With
/// about 100 bytes per link there is no prose at all, only link lines.
pub fn synthetic_answer(target_bytes: usize, links: usize) -> String {
    let prose = "Progressive delivery catches most regressions before they reach every user, and the team measured a 42% drop in rollbacks during 2024. ";
    let mut body = String::with_capacity(target_bytes + 1024);
    let mut refs = String::new();
    let per_link = target_bytes / links.max(1);
    for i in 0..links {
        let start = body.len();
        while body.len() - start + 60 < per_link.saturating_sub(90) {
            body.push_str(prose);
        }
        match i % 4 {
            0 => body.push_str(&format!("See [{}].\n", i + 1)),
            1 => body.push_str(&format!(
                "Thread <https://acme.slack.com/archives/C{i:06}/p{i:016}|#eng thread {i}>.\n"
            )),
            2 => body.push_str(&format!(
                "Doc [Runbook {i}](https://acme.atlassian.net/wiki/spaces/ENG/pages/{i}).\n"
            )),
            _ => body.push_str(&format!(
                "More at https://docs.example{}.org/guide/{i}?utm_source=chatgpt.com.\n",
                i % 97
            )),
        }
        if i % 4 == 0 {
            refs.push_str(&format!(
                "[{}] https://www.site{}.com/articles/{i} - Article {i}\n",
                i + 1,
                i % 113
            ));
        }
    }
    body.push_str("\n\nReferences:\n");
    body.push_str(&refs);
    body
}

/// A Slack message of `blocks` blocks as an assistant posts an answer: sections of
/// prose with `[n]` markers and Slack links, context blocks of citations, a rich-text
/// list of links, a markdown block and a table, plus an attachment with a title link.
/// Links point at `link_base` (`https://docs.example.com` for reading benchmarks, a
/// loopback server for end-to-end ones), `links` distinct pages at most.
#[allow(dead_code)]
pub fn slack_answer_message(blocks: usize, link_base: &str, links: usize) -> serde_json::Value {
    use serde_json::json;
    let links = links.max(1);
    let url = |i: usize| format!("{link_base}/page/{}", i % links);
    let mut list = Vec::with_capacity(blocks);
    for i in 0..blocks {
        let block = match i % 5 {
            0 => json!({"type": "section", "text": {"type": "mrkdwn", "text": format!(
                "*Finding {i}.* Deploy freezes cut weekend incidents by 41% in 2024 [{}], and the rollback rate fell to 3 per 1,000 deploys <{}|(report {i})>. Teams that skipped the freeze saw twice as many pages.",
                i + 1, url(i + 1))}}),
            1 => json!({"type": "context", "elements": [
                {"type": "image", "image_url": "https://img.example.com/logo.png", "alt_text": "logo"},
                {"type": "mrkdwn", "text": format!("[{i}] <{}|Incident review {i}>", url(i))},
            ]}),
            2 => json!({"type": "rich_text", "elements": [
                {"type": "rich_text_section", "elements": [{"type": "text", "text": "Further reading:\n"}]},
                {"type": "rich_text_list", "style": "bullet", "indent": 0, "elements": [
                    {"type": "rich_text_section", "elements": [{"type": "link", "url": url(i + 2), "text": format!("Runbook {i}")}]},
                    {"type": "rich_text_section", "elements": [{"type": "link", "url": url(i + 3)}]},
                ]},
            ]}),
            3 => json!({"type": "markdown", "text": format!(
                "**Note {i}.** The 2023 policy allowed hotfixes on Fridays [{}]; see [the policy]({}).",
                i + 1, url(i + 4))}),
            _ => json!({"type": "table", "rows": [
                [{"type": "raw_text", "text": "Region"}, {"type": "raw_text", "text": "Incidents"}],
                [{"type": "raw_text", "text": "EU"}, {"type": "rich_text", "elements": [{"type": "rich_text_section", "elements": [{"type": "link", "url": url(i + 5), "text": "12 in Q3"}]}]}],
            ]}),
        };
        list.push(block);
    }
    json!({
        "type": "message", "ts": "1700000000.000100", "bot_id": "BAI", "app_id": "AAI",
        "text": "Hello! I found some results for you!",
        "blocks": list,
        "attachments": [{"title": "Deploy policy", "title_link": url(0), "text": "The policy page.", "fallback": "Deploy policy"}],
    })
}
