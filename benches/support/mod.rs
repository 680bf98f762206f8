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
