//! Atlassian Document Format as plain text: what Jira Cloud's REST API v3 returns for
//! an issue's `fields.description`, each comment's `body` and multi-line text fields.
//!
//! The document is walked node by node, each node's `type` deciding what it gives:
//! block nodes (paragraph, heading, list item, task and decision items, each line of a
//! code block, each table row) become blocks; inline nodes give their text (a mention
//! its display text, an emoji its character, a card its URL, a date its day as
//! `YYYY-MM-DD`, a status its label). Media, placeholders and rules give nothing.
//! Marks (bold, links, colours) are formatting and are ignored; a link's text is kept,
//! its URL is not. A node of an unknown type is walked through its `content`.
//! The walk stops [`MAX_DEPTH`] nodes deep, so hostile JSON cannot exhaust the stack.

use super::Blocks;
use crate::calendar;
use serde_json::{Map, Value};

/// Most nodes deep the walk goes; content nested deeper is ignored. Real documents
/// (a list in a table in a panel in an expand) stay well under it.
pub const MAX_DEPTH: usize = 64;

/// The text of an Atlassian Document Format value: blocks separated by `"\n\n"`, as
/// every converter in [`crate::products::text`] writes them. A string (what a field
/// holds when it is not ADF) is its own text, each line a block; `null` and other
/// non-documents give `""`. Never panics.
pub fn adf_to_text(doc: &Value) -> String {
    let mut blocks = Blocks::new();
    match doc {
        Value::String(text) => blocks.push_lines(text),
        Value::Array(nodes) => {
            for node in nodes {
                walk(node, 1, &mut blocks);
            }
        }
        node => walk(node, 0, &mut blocks),
    }
    blocks.finish()
}

/// Writes `node` (at `depth` nodes deep) into `out`.
fn walk(node: &Value, depth: usize, out: &mut Blocks) {
    if depth >= MAX_DEPTH {
        return;
    }
    let Value::Object(node) = node else {
        return;
    };
    match node.get("type").and_then(Value::as_str).unwrap_or_default() {
        "text" => {
            if let Some(text) = node.get("text").and_then(Value::as_str) {
                out.push(text);
            }
        }
        "hardBreak" | "rule" => out.end_block(),
        "doc"
        | "paragraph"
        | "heading"
        | "blockquote"
        | "panel"
        | "bulletList"
        | "orderedList"
        | "listItem"
        | "taskList"
        | "taskItem"
        | "decisionList"
        | "decisionItem"
        | "table"
        | "layoutSection"
        | "layoutColumn"
        | "bodiedExtension"
        | "extensionFrame"
        | "multiBodiedExtension" => {
            out.end_block();
            children(node, depth, out);
            out.end_block();
        }
        "expand" | "nestedExpand" => {
            out.end_block();
            if let Some(title) = attr_str(node, "title") {
                out.push(title);
                out.end_block();
            }
            children(node, depth, out);
            out.end_block();
        }
        "codeBlock" => {
            out.end_block();
            for child in content(node) {
                match child.get("text").and_then(Value::as_str) {
                    Some(text) => out.push_lines(text),
                    None => walk(child, depth + 1, out),
                }
            }
            out.end_block();
        }
        "tableRow" => {
            out.start_row();
            children(node, depth, out);
            out.end_row();
        }
        "tableHeader" | "tableCell" => {
            out.cell();
            children(node, depth, out);
        }
        "media" | "mediaSingle" | "mediaGroup" | "mediaInline" | "placeholder" => {}
        "mention" | "status" => {
            if let Some(text) = attr_str(node, "text") {
                out.push(text);
            }
        }
        "emoji" => {
            if let Some(text) = attr_str(node, "text").or_else(|| attr_str(node, "shortName")) {
                out.push(text);
            }
        }
        "inlineCard" => {
            if let Some(url) = attr_str(node, "url") {
                out.push(url);
            }
        }
        "blockCard" | "embedCard" => {
            out.end_block();
            if let Some(url) = attr_str(node, "url") {
                out.push(url);
            }
            out.end_block();
        }
        "date" => {
            if let Some(day) = node
                .get("attrs")
                .and_then(|attrs| attrs.get("timestamp"))
                .and_then(day_of)
            {
                out.push(&day);
            }
        }
        _ => children(node, depth, out),
    }
}

/// The node's `content` array (empty when it has none).
fn content(node: &Map<String, Value>) -> &[Value] {
    node.get("content")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// Walks the node's `content`, one level deeper.
fn children(node: &Map<String, Value>, depth: usize, out: &mut Blocks) {
    for child in content(node) {
        walk(child, depth + 1, out);
    }
}

/// The string attribute `name` (`attrs.name`), when it is a non-empty string.
fn attr_str<'a>(node: &'a Map<String, Value>, name: &str) -> Option<&'a str> {
    node.get("attrs")?
        .get(name)?
        .as_str()
        .filter(|value| !value.trim().is_empty())
}

/// A date node's timestamp (milliseconds since 1970-01-01 UTC, as a string or a
/// number) as `YYYY-MM-DD`. A string that is not a number is kept as written; a day
/// outside years 0–9999 gives nothing.
fn day_of(timestamp: &Value) -> Option<String> {
    let millis = match timestamp {
        Value::String(text) => match parse_millis(text.trim()) {
            Some(millis) => millis,
            None => return Some(text.clone()).filter(|text| !text.trim().is_empty()),
        },
        Value::Number(number) => number
            .as_i64()
            .or_else(|| number.as_f64().and_then(float_millis))?,
        _ => return None,
    };
    let (year, month, day) = calendar::civil_from_days(millis.div_euclid(86_400_000));
    (0..=9999)
        .contains(&year)
        .then(|| format!("{year:04}-{month:02}-{day:02}"))
}

fn parse_millis(text: &str) -> Option<i64> {
    text.parse::<i64>()
        .ok()
        .or_else(|| text.parse::<f64>().ok().and_then(float_millis))
}

/// A float as whole milliseconds, when it is finite and within ±10¹⁶ (about
/// 300,000 years: beyond any calendar date, and far from `i64`'s edges).
fn float_millis(value: f64) -> Option<i64> {
    (value.is_finite() && value.abs() < 1e16).then(|| value.trunc() as i64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn text_of(json: &str) -> String {
        match serde_json::from_str::<Value>(json) {
            Ok(value) => adf_to_text(&value),
            Err(err) => panic!("fixture is not JSON: {err}"),
        }
    }

    // The node examples of Atlassian's ADF reference (developer.atlassian.com/cloud/
    // jira/platform/apis/document/structure and /document/nodes/*: blockquote,
    // bulletList, codeBlock, date, emoji, expand, hardBreak, heading, inlineCard,
    // listItem, media, mediaGroup, mediaSingle, mention, nestedExpand, orderedList,
    // panel, paragraph, rule, status, table, tableCell, tableHeader, tableRow, text),
    // plus taskList/decisionList/blockCard/placeholder as the ADF JSON schema defines
    // them, assembled into one document.
    #[test]
    fn atlassian_node_reference_examples() {
        let text = text_of(include_str!(
            "../../../tests/data/products/text/adf-nodes.json"
        ));
        let got: Vec<&str> = text.split("\n\n").collect();
        assert_eq!(
            got,
            vec![
                "Heading 1",
                "Hello world",
                "Hello",
                "world",
                "A quoted paragraph",
                "Bullet one",
                "Bullet one, nested",
                "Bullet two",
                "Third step",
                "Fourth step",
                "var foo = {};",
                "var bar = [];",
                "An info panel",
                "Expand title",
                "Inside the expand",
                "Nested title",
                "Inside the nested expand",
                "Name | Status",
                "Ingest | In Progress",
                "Ping @Bradley Ayers \u{1f600} about https://atlassian.com, due 2023-07-26.",
                "Draft the plan",
                "Review the plan",
                "Ship on Friday",
                "https://www.atlassian.com",
                "The end \u{2714}\u{fe0f}",
            ]
        );
        assert!(!text.contains("moon.jpeg"), "media is dropped");
        assert!(!text.contains("Type something"), "placeholders are dropped");
        assert!(!text.contains("DECIDED") && !text.contains("TODO"));
    }

    // Jira Cloud REST API v3 "Get issue" example response
    // (developer.atlassian.com/cloud/jira/platform/rest/v3/api-group-issues/
    // #api-rest-api-3-issue-issueidorkey-get): `fields.description` and each
    // `fields.comment[].body` are ADF documents.
    #[test]
    fn get_issue_example_description_and_comments() {
        let issue: Value = match serde_json::from_str(include_str!(
            "../../../tests/data/products/text/jira-get-issue-v3.json"
        )) {
            Ok(issue) => issue,
            Err(err) => panic!("fixture is not JSON: {err}"),
        };
        assert_eq!(
            adf_to_text(&issue["fields"]["description"]),
            "Main order flow broken"
        );
        let comments: Vec<String> = issue["fields"]["comment"]
            .as_array()
            .map(|comments| comments.iter().map(|c| adf_to_text(&c["body"])).collect())
            .unwrap_or_default();
        assert_eq!(
            comments,
            vec![
                "Lorem ipsum dolor sit amet, consectetur adipiscing elit. Pellentesque eget \
                 venenatis elit. Duis eu justo eget augue iaculis fermentum. Sed semper quam \
                 laoreet nisi egestas at posuere augue semper."
            ]
        );
        // A field that is absent is null: no text.
        assert_eq!(adf_to_text(&issue["fields"]["environment"]), "");
    }

    #[test]
    fn inline_text_joins_as_written_and_marks_are_ignored() {
        let doc = json!({"type": "doc", "version": 1, "content": [
            {"type": "paragraph", "content": [
                {"type": "text", "text": "Hello "},
                {"type": "text", "text": "wor", "marks": [{"type": "strong"}]},
                {"type": "text", "text": "ld", "marks": [
                    {"type": "link", "attrs": {"href": "https://example.com"}}]}
            ]},
            {"type": "paragraph", "content": []},
            {"type": "paragraph", "content": [{"type": "text", "text": "  second  "}]}
        ]});
        assert_eq!(adf_to_text(&doc), "Hello world\n\nsecond");
    }

    #[test]
    fn dates_are_days_in_utc() {
        let date = |timestamp: Value| {
            adf_to_text(&json!({"type": "date", "attrs": {"timestamp": timestamp}}))
        };
        // The adf-builder reference: "1690344879000" is 26 Jul 2023.
        assert_eq!(date(json!("1690344879000")), "2023-07-26");
        assert_eq!(date(json!(1_582_156_800_000_i64)), "2020-02-20");
        assert_eq!(date(json!("-86400000")), "1969-12-31");
        // The Jira node page's own example, "1582152559", read as the milliseconds the
        // schema says it is.
        assert_eq!(date(json!("1582152559")), "1970-01-19");
        assert_eq!(date(json!("2024-05-01")), "2024-05-01");
        assert_eq!(date(json!("9999999999999999999")), "9999999999999999999");
        assert_eq!(date(json!(1e300)), "");
        assert_eq!(date(json!("")), "");
        assert_eq!(date(json!(null)), "");
    }

    #[test]
    fn emoji_falls_back_to_its_short_name() {
        let doc = json!({"type": "paragraph", "content": [
            {"type": "emoji", "attrs": {"shortName": ":awthanks:", "id": "atlassian-awthanks"}},
            {"type": "text", "text": " thanks"}
        ]});
        assert_eq!(adf_to_text(&doc), ":awthanks: thanks");
    }

    #[test]
    fn non_documents_are_handled() {
        assert_eq!(adf_to_text(&Value::Null), "");
        assert_eq!(adf_to_text(&json!(42)), "");
        assert_eq!(
            adf_to_text(&json!("A plain\n\ndescription\nin two lines")),
            "A plain\n\ndescription\n\nin two lines"
        );
        assert_eq!(
            adf_to_text(
                &json!([{"type": "paragraph", "content": [{"type": "text", "text": "a"}]},
                                 {"type": "paragraph", "content": [{"type": "text", "text": "b"}]}])
            ),
            "a\n\nb"
        );
        // Wrong types where nodes or strings are expected are skipped, not trusted.
        assert_eq!(
            adf_to_text(&json!({"type": "doc", "content": [
                {"type": "paragraph", "content": {"type": "text", "text": "not an array"}},
                {"type": 7, "content": [{"type": "text", "text": "kept"}]},
                {"type": "text", "text": ["no"]},
                {"type": "mention", "attrs": "no"},
                "stray string",
                null
            ]})),
            "kept"
        );
    }

    #[test]
    fn unknown_nodes_are_walked_through_their_content() {
        let doc = json!({"type": "doc", "content": [
            {"type": "someFutureBlock", "attrs": {"x": 1}, "content": [
                {"type": "paragraph", "content": [{"type": "text", "text": "future text"}]}
            ]},
            {"type": "inlineExtension", "attrs": {"extensionKey": "k"}}
        ]});
        assert_eq!(adf_to_text(&doc), "future text");
    }

    /// Takes a deeply nested value apart without recursion (dropping it normally
    /// recurses once per level).
    fn dismantle(value: Value) {
        let mut stack = vec![value];
        while let Some(value) = stack.pop() {
            match value {
                Value::Array(items) => stack.extend(items),
                Value::Object(map) => stack.extend(map.into_iter().map(|(_, v)| v)),
                _ => {}
            }
        }
    }

    /// A node of type `kind` whose content is `children` (built by hand: `json!`
    /// would copy a nested value recursively).
    fn node(kind: &str, children: Vec<Value>) -> Value {
        let mut map = Map::new();
        map.insert("type".to_owned(), Value::String(kind.to_owned()));
        map.insert("content".to_owned(), Value::Array(children));
        Value::Object(map)
    }

    #[test]
    fn ten_thousand_levels_do_not_overflow_the_stack() {
        let mut deep = json!({"type": "text", "text": "too deep"});
        for _ in 0..10_000 {
            deep = node("blockquote", vec![deep]);
        }
        let shallow =
            json!({"type": "paragraph", "content": [{"type": "text", "text": "shallow"}]});
        let doc = node("doc", vec![shallow, deep]);
        assert_eq!(adf_to_text(&doc), "shallow");
        dismantle(doc);

        let mut edge = json!({"type": "text", "text": "at the edge"});
        for _ in 0..MAX_DEPTH - 2 {
            edge = node("unknownWrapper", vec![edge]);
        }
        assert_eq!(adf_to_text(&node("doc", vec![edge])), "at the edge");
    }

    #[test]
    fn huge_lines_and_non_ascii_text() {
        let long = "長い文章".repeat(100_000);
        let doc = json!({"type": "doc", "content": [
            {"type": "heading", "attrs": {"level": 2}, "content": [
                {"type": "text", "text": "Café Zürich — naïve"}]},
            {"type": "codeBlock", "content": [{"type": "text", "text": long}]}
        ]});
        let text = adf_to_text(&doc);
        assert!(text.starts_with("Café Zürich — naïve\n\n長い文章"));
        assert_eq!(
            text.chars().count(),
            "Café Zürich — naïve".chars().count() + 2 + 400_000
        );
    }
}
