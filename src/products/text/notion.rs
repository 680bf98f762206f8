//! Notion block objects as plain text: the text of one block as
//! `GET /v1/blocks/{id}/children` lists it in `results`. A page's content is a tree of
//! blocks fetched level by level; the caller walks the tree (with [`has_children`] and
//! [`block_id`]) and asks [`block_text`] for each block's own text.
//!
//! Blocks with rich text (paragraphs, headings, list items, to-dos, toggles, quotes,
//! callouts) give the `plain_text` of their rich text, mentions and inline equations
//! included; a code block gives each of its lines; a table row its cells joined with
//! `" | "`; child pages and databases their title; an equation its expression; media
//! and bookmarks their caption. Layout and navigation blocks (dividers, columns,
//! breadcrumbs, tables of contents, synced blocks, the table wrapper itself) give
//! nothing, as do checkbox states, icons, colours and URLs.

use super::Blocks;
use serde_json::Value;

/// The text of one Notion block object: one string per block of text (a code block
/// gives one per line), whitespace collapsed, none empty. A block of an unknown type
/// gives its `rich_text` when it has one. Never panics; a value that is not a block
/// gives nothing.
pub fn block_text(block: &Value) -> Vec<String> {
    let Some(kind) = block.get("type").and_then(Value::as_str) else {
        return Vec::new();
    };
    let Some(body) = block.get(kind) else {
        return Vec::new();
    };
    let mut out = Blocks::new();
    match kind {
        "paragraph" | "heading_1" | "heading_2" | "heading_3" | "bulleted_list_item"
        | "numbered_list_item" | "to_do" | "toggle" | "quote" | "callout" => {
            push_rich_text(body.get("rich_text"), &mut out);
        }
        "code" => {
            out.push_lines(&rich_text_string(body.get("rich_text")));
            out.end_block();
            push_rich_text(body.get("caption"), &mut out);
        }
        "table_row" => {
            out.start_row();
            for cell in body
                .get("cells")
                .and_then(Value::as_array)
                .map_or(&[][..], Vec::as_slice)
            {
                out.cell();
                push_rich_text(Some(cell), &mut out);
            }
            out.end_row();
        }
        "child_page" | "child_database" => {
            if let Some(title) = body.get("title").and_then(Value::as_str) {
                out.push(title);
            }
        }
        "equation" => {
            if let Some(expression) = body.get("expression").and_then(Value::as_str) {
                out.push(expression);
            }
        }
        "image" | "file" | "pdf" | "video" | "audio" | "bookmark" | "embed" | "link_preview" => {
            push_rich_text(body.get("caption"), &mut out)
        }
        "divider" | "breadcrumb" | "table_of_contents" | "column_list" | "column"
        | "synced_block" | "table" | "template" | "unsupported" | "link_to_page" => {}
        _ => push_rich_text(body.get("rich_text"), &mut out),
    }
    out.into_blocks()
}

/// Whether the block has children to fetch (`has_children`); `false` when the field
/// is missing or not a boolean.
pub fn has_children(block: &Value) -> bool {
    block
        .get("has_children")
        .and_then(Value::as_bool)
        .unwrap_or(false)
}

/// The block's `id`, when it is a non-empty string.
pub fn block_id(block: &Value) -> Option<&str> {
    block
        .get("id")
        .and_then(Value::as_str)
        .filter(|id| !id.trim().is_empty())
}

/// The text of one rich text object: its `plain_text`, else (as in request bodies) its
/// `text.content` or `equation.expression`.
fn rich_text_item(item: &Value) -> Option<&str> {
    item.get("plain_text")
        .and_then(Value::as_str)
        .or_else(|| item.get("text")?.get("content")?.as_str())
        .or_else(|| item.get("equation")?.get("expression")?.as_str())
}

/// Appends a rich text array's text to the current block (nothing when it is not an
/// array).
fn push_rich_text(rich_text: Option<&Value>, out: &mut Blocks) {
    for item in rich_text
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice)
    {
        if let Some(text) = rich_text_item(item) {
            out.push(text);
        }
    }
}

/// A rich text array's text as written, line breaks included.
fn rich_text_string(rich_text: Option<&Value>) -> String {
    rich_text
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice)
        .iter()
        .filter_map(rich_text_item)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn fixture(text: &str) -> Value {
        match serde_json::from_str(text) {
            Ok(value) => value,
            Err(err) => panic!("fixture is not JSON: {err}"),
        }
    }

    fn results(list: &Value) -> Vec<Value> {
        list["results"].as_array().cloned().unwrap_or_default()
    }

    // Notion's "Retrieve block children" reference (developers.notion.com/reference/
    // get-block-children), its 200 example response.
    #[test]
    fn retrieve_block_children_example() {
        let list = fixture(include_str!(
            "../../../tests/data/products/text/notion-block-children.json"
        ));
        let blocks = results(&list);
        let texts: Vec<Vec<String>> = blocks.iter().map(block_text).collect();
        assert_eq!(
            texts,
            vec![
                vec!["Lacinato kale".to_owned()],
                vec![
                    "Lacinato kale is a variety of kale with a long tradition in Italian \
                      cuisine, especially that of Tuscany. It is also known as Tuscan kale, \
                      Italian kale, dinosaur kale, kale, flat back kale, palm tree kale, or \
                      black Tuscan palm."
                        .to_owned()
                ],
            ]
        );
        assert_eq!(
            block_id(&blocks[0]),
            Some("c02fc1d3-db8b-45c5-a222-27595b15aea7")
        );
        assert!(!has_children(&blocks[0]));
    }

    // The examples of each block type in Notion's "Block" object reference
    // (developers.notion.com/reference/block), in the order the page lists them; most
    // are written as request bodies (rich text with `text.content`, no `plain_text`).
    #[test]
    fn block_reference_examples() {
        let list = fixture(include_str!(
            "../../../tests/data/products/text/notion-block-types.json"
        ));
        let got: Vec<(String, Vec<String>)> = results(&list)
            .iter()
            .map(|block| {
                let kind = block["type"].as_str().unwrap_or("?").to_owned();
                (kind, block_text(block))
            })
            .collect();
        let want: Vec<(&str, Vec<&str>)> = vec![
            ("bookmark", vec![]),
            ("bookmark", vec!["Company website"]),
            ("breadcrumb", vec![]),
            ("bulleted_list_item", vec!["Lacinato kale"]),
            ("callout", vec!["Lacinato kale"]),
            ("child_database", vec!["My database"]),
            ("child_page", vec!["Lacinato kale"]),
            ("code", vec!["const a = 3", "const b = a * 2;"]),
            ("column_list", vec![]),
            ("column", vec![]),
            ("divider", vec![]),
            ("embed", vec![]),
            ("equation", vec!["e=mc^2"]),
            ("file", vec!["The quarterly report"]),
            ("heading_1", vec!["Lacinato kale"]),
            ("heading_2", vec!["Lacinato kale"]),
            ("heading_3", vec!["Lacinato kale"]),
            ("image", vec![]),
            ("link_preview", vec![]),
            ("numbered_list_item", vec!["Finish reading the docs"]),
            ("paragraph", vec!["Lacinato kale"]),
            (
                "paragraph",
                vec!["Mention @Anonymous on Dec 16, 2022 and E = mc^2 inline."],
            ),
            ("pdf", vec![]),
            ("quote", vec!["To be or not to be..."]),
            ("synced_block", vec![]),
            ("table", vec![]),
            (
                "table_row",
                vec!["column 1 content | column 2 content | column 3 content"],
            ),
            ("table_of_contents", vec![]),
            ("template", vec![]),
            ("to_do", vec!["Finish Q3 goals"]),
            ("toggle", vec!["Additional project details"]),
            ("video", vec![]),
            ("unsupported", vec![]),
        ];
        let want: Vec<(String, Vec<String>)> = want
            .into_iter()
            .map(|(kind, texts)| {
                (
                    kind.to_owned(),
                    texts.into_iter().map(str::to_owned).collect(),
                )
            })
            .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn unknown_types_with_rich_text_are_read() {
        let block = json!({"object": "block", "id": "x", "type": "meeting_notes_2030",
            "meeting_notes_2030": {"rich_text": [{"plain_text": "Agenda: "}, {"plain_text": "budget"}]}});
        assert_eq!(block_text(&block), vec!["Agenda: budget"]);
        let block = json!({"type": "ai_block", "ai_block": {}});
        assert!(block_text(&block).is_empty());
    }

    #[test]
    fn not_blocks_give_nothing() {
        assert!(block_text(&Value::Null).is_empty());
        assert!(block_text(&json!("paragraph")).is_empty());
        assert!(block_text(&json!({"type": "paragraph"})).is_empty());
        assert!(block_text(&json!({"type": 3, "3": {}})).is_empty());
        assert!(
            block_text(&json!({"type": "paragraph", "paragraph": {"rich_text": "no"}})).is_empty()
        );
        assert!(
            block_text(&json!({"type": "table_row", "table_row": {"cells": [null, 4, "x"]}}))
                .is_empty()
        );
        assert!(block_text(&json!({"type": "paragraph",
            "paragraph": {"rich_text": [null, 7, {"plain_text": 3}, {"text": {"content": ["no"]}}]}})).is_empty());
        assert_eq!(block_id(&json!({"id": ""})), None);
        assert_eq!(block_id(&json!({"id": 5})), None);
        assert!(has_children(&json!({"has_children": true})));
        assert!(!has_children(&json!({"has_children": "true"})));
    }

    #[test]
    fn whitespace_collapses_and_non_ascii_survives() {
        let block = json!({"type": "paragraph", "paragraph": {"rich_text": [
            {"plain_text": "  東京\nの会議 —\t"}, {"plain_text": "Réunion à Zürich  "}
        ]}});
        assert_eq!(block_text(&block), vec!["東京 の会議 — Réunion à Zürich"]);
        let long = "x".repeat(1_000_000);
        let block = json!({"type": "code", "code": {"rich_text": [{"plain_text": long}]}});
        assert_eq!(block_text(&block)[0].len(), 1_000_000);
    }
}
