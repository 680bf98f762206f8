//! Confluence's storage format as plain text: the XHTML-based markup (HTML plus `ac:`
//! and `ri:` elements) that Cloud's `GET /wiki/api/v2/pages/{id}?body-format=storage`
//! and Data Center's `expand=body.storage` return in `body.storage.value`.
//!
//! The body is a fragment (several top-level elements, no root) read with quick-xml as
//! a stream of events, with an explicit stack instead of recursion. HTML named entities
//! (`&nbsp;`, `&rsquo;`, `&eacute;`…) resolve through the HTML5 table; an unknown one
//! stays as written. What a reader sees is kept: headings, paragraphs, list items,
//! table rows, task bodies, macro bodies and titles, code lines, link text (else the
//! linked page's title), dates. What only configures the page is dropped: macro
//! parameters other than `title`, task ids and statuses, images, emoticons,
//! placeholders (instructional text), and the `ac:adf-fallback` copy of content that
//! `ac:adf-node` already holds. Malformed markup stops the reading; what was read
//! before the error is kept.

use super::{resolve_entity, Blocks};
use quick_xml::events::{BytesStart, Event};
use quick_xml::{Reader, XmlVersion};

/// The text of a Confluence storage-format body: blocks separated by `"\n\n"`, as
/// every converter in [`crate::products::text`] writes them. Never panics; stops at
/// the first markup error and returns what came before it.
pub fn storage_to_text(storage: &str) -> String {
    let mut reader = Reader::from_str(storage);
    let config = reader.config_mut();
    config.allow_dangling_amp = true;
    config.check_comments = false;
    config.check_end_names = true;
    config.expand_empty_elements = false;
    let mut walk = Walk::default();
    loop {
        match reader.read_event() {
            Ok(Event::Eof) | Err(_) => break,
            Ok(event) => walk.event(event),
        }
    }
    walk.blocks.finish()
}

/// What an element is to the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Starts and ends a block (`p`, `li`, `h1`, `ac:task`, `ac:rich-text-body`…).
    Block,
    /// A table row: one block.
    Row,
    /// A table cell (`td`, `th`).
    Cell,
    /// A line break or rule (`br`, `hr`): ends the block.
    Break,
    /// Preformatted text (`pre`): each line a block.
    Pre,
    /// `ac:structured-macro` (and the older `ac:macro`).
    Macro,
    /// `ac:parameter`: kept only when it is the macro's `title`.
    Parameter,
    /// `ac:plain-text-body`: a code or noformat body, each line a block.
    PlainText,
    /// `ac:link`.
    Link,
    /// `ac:plain-text-link-body`, `ac:link-body`: the link's own text.
    LinkBody,
    /// `time`: its `datetime`.
    Time,
    /// An `ri:` resource identifier: names what a link points at.
    Resource,
    /// Dropped with everything inside it.
    Skip,
    /// Everything else: its text flows into the current block.
    Inline,
}

/// What to do when an open element ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Frame {
    Block,
    Row,
    Verbatim,
    Macro,
    /// A macro's title: its own block, or inline for an inline macro (status).
    Title {
        inline: bool,
    },
    Link,
    Inline,
}

/// An open `ac:link`.
#[derive(Debug, Default)]
struct Link {
    /// Whether it has a link body (its own text).
    body: bool,
    /// What to show without a body: the page's title, the attachment's name, the URL.
    fallback: Option<String>,
}

/// The state of one reading.
#[derive(Debug, Default)]
struct Walk {
    blocks: Blocks,
    /// The open elements that matter when they end.
    frames: Vec<Frame>,
    /// Depth inside a dropped element (0: not dropping).
    skip: usize,
    /// How many open elements keep their line breaks.
    verbatim: usize,
    /// The open `ac:link` elements.
    links: Vec<Link>,
    /// For each open macro, whether it is an inline one (its title stays inline).
    macros: Vec<bool>,
}

impl Walk {
    fn event(&mut self, event: Event<'_>) {
        if self.skip > 0 {
            match event {
                Event::Start(_) => self.skip += 1,
                Event::End(_) => self.skip -= 1,
                _ => {}
            }
            return;
        }
        match event {
            Event::Start(element) => self.start(&element),
            Event::End(_) => self.end(),
            Event::Empty(element) => self.empty(&element),
            Event::Text(text) => self.text(&text),
            Event::CData(data) => self.text(&data.into_inner()),
            Event::GeneralRef(reference) => match resolve_entity(&reference) {
                Some(value) => self.text(&value),
                None => {
                    let raw = format!("&{};", &*reference);
                    self.text(&raw);
                }
            },
            Event::Comment(_) | Event::Decl(_) | Event::PI(_) | Event::DocType(_) | Event::Eof => {}
        }
    }

    fn text(&mut self, text: &str) {
        if self.verbatim > 0 {
            self.blocks.push_lines(text);
        } else {
            self.blocks.push(text);
        }
    }

    fn start(&mut self, element: &BytesStart<'_>) {
        let frame = match kind(element.name().as_ref()) {
            Kind::Block => {
                self.blocks.end_block();
                Frame::Block
            }
            Kind::Row => {
                self.blocks.start_row();
                Frame::Row
            }
            Kind::Cell => {
                self.blocks.cell();
                Frame::Inline
            }
            Kind::Break => {
                self.blocks.end_block();
                Frame::Inline
            }
            Kind::Pre | Kind::PlainText => {
                self.blocks.end_block();
                self.verbatim += 1;
                Frame::Verbatim
            }
            Kind::Macro => {
                // The macro itself does not break the text: a Jira issue or anchor macro
                // sits inside a sentence. Its body and title are blocks of their own.
                let inline = attribute(element, "ac:name")
                    .is_some_and(|name| INLINE_MACROS.contains(&name.as_str()));
                self.blocks.space();
                self.macros.push(inline);
                Frame::Macro
            }
            Kind::Parameter => {
                if attribute(element, "ac:name").as_deref() != Some("title") {
                    self.skip = 1;
                    return;
                }
                let inline = self.macros.last().copied().unwrap_or(false);
                self.title_edge(inline);
                Frame::Title { inline }
            }
            Kind::Link => {
                self.links.push(Link::default());
                Frame::Link
            }
            Kind::LinkBody => {
                if let Some(link) = self.links.last_mut() {
                    link.body = true;
                }
                Frame::Inline
            }
            Kind::Time => {
                self.time(element);
                self.skip = 1;
                return;
            }
            Kind::Resource => {
                self.resource(element);
                self.skip = 1;
                return;
            }
            Kind::Skip => {
                self.skip = 1;
                return;
            }
            Kind::Inline => Frame::Inline,
        };
        self.frames.push(frame);
    }

    fn end(&mut self) {
        match self.frames.pop() {
            Some(Frame::Block) => self.blocks.end_block(),
            Some(Frame::Row) => self.blocks.end_row(),
            Some(Frame::Verbatim) => {
                self.verbatim = self.verbatim.saturating_sub(1);
                self.blocks.end_block();
            }
            Some(Frame::Macro) => {
                self.macros.pop();
            }
            Some(Frame::Title { inline }) => self.title_edge(inline),
            Some(Frame::Link) => {
                if let Some(link) = self.links.pop() {
                    if !link.body {
                        if let Some(fallback) = link.fallback {
                            self.blocks.push(&fallback);
                        }
                    }
                }
            }
            Some(Frame::Inline) | None => {}
        }
    }

    fn empty(&mut self, element: &BytesStart<'_>) {
        match kind(element.name().as_ref()) {
            Kind::Block | Kind::Break | Kind::Pre | Kind::PlainText => self.blocks.end_block(),
            Kind::Row => {
                self.blocks.start_row();
                self.blocks.end_row();
            }
            Kind::Cell => self.blocks.cell(),
            Kind::Time => self.time(element),
            Kind::Resource => self.resource(element),
            Kind::Macro
            | Kind::Parameter
            | Kind::Link
            | Kind::LinkBody
            | Kind::Skip
            | Kind::Inline => {}
        }
    }

    /// Before and after a macro's title: a block of its own, unless the macro is inline.
    fn title_edge(&mut self, inline: bool) {
        if !inline {
            self.blocks.end_block();
        }
    }

    fn time(&mut self, element: &BytesStart<'_>) {
        if let Some(datetime) = attribute(element, "datetime") {
            self.blocks.push(&datetime);
        }
    }

    /// An `ri:` element inside a link: what the link shows when it has no body.
    fn resource(&mut self, element: &BytesStart<'_>) {
        let Some(link) = self.links.last_mut() else {
            return;
        };
        if link.fallback.is_some() {
            return;
        }
        let key = match element.name().as_ref() {
            "ri:page" | "ri:blog-post" => "ri:content-title",
            "ri:attachment" => "ri:filename",
            "ri:url" => "ri:value",
            _ => return,
        };
        link.fallback = attribute(element, key).filter(|value| !value.trim().is_empty());
    }
}

/// Macros shown inline in a sentence (a status lozenge): their title is part of the
/// sentence, not a block.
const INLINE_MACROS: &[&str] = &["status"];

fn kind(name: &str) -> Kind {
    match name {
        "p" | "div" | "h1" | "h2" | "h3" | "h4" | "h5" | "h6" | "ul" | "ol" | "li"
        | "blockquote" | "table" | "thead" | "tbody" | "tfoot" | "caption" | "section"
        | "article" | "header" | "footer" | "nav" | "aside" | "figure" | "figcaption" | "dl"
        | "dt" | "dd" | "address" | "details" | "summary" | "center" | "ac:rich-text-body"
        | "ac:task-list" | "ac:task" | "ac:layout" | "ac:layout-section" | "ac:layout-cell"
        | "ac:adf-extension" | "ac:adf-node" | "ac:adf-content" => Kind::Block,
        "tr" => Kind::Row,
        "td" | "th" => Kind::Cell,
        "br" | "hr" => Kind::Break,
        "pre" => Kind::Pre,
        "ac:structured-macro" | "ac:macro" => Kind::Macro,
        "ac:parameter" => Kind::Parameter,
        "ac:plain-text-body" => Kind::PlainText,
        "ac:link" => Kind::Link,
        "ac:plain-text-link-body" | "ac:link-body" => Kind::LinkBody,
        "time" => Kind::Time,
        "ac:task-body" => Kind::Inline,
        "ac:default-parameter"
        | "ac:image"
        | "ac:emoticon"
        | "ac:placeholder"
        | "ac:adf-attribute"
        | "ac:adf-fallback"
        | "script"
        | "style"
        | "img" => Kind::Skip,
        // ac:task-id, ac:task-uuid, ac:task-status, ac:task-assignee…
        name if name.starts_with("ac:task-") => Kind::Skip,
        name if name.starts_with("ri:") => Kind::Resource,
        _ => Kind::Inline,
    }
}

/// The value of the attribute `key`, entities resolved (an unknown one left as
/// written).
fn attribute(element: &BytesStart<'_>, key: &str) -> Option<String> {
    let mut attributes = element.attributes();
    attributes.with_checks(false);
    for attr in attributes {
        let Ok(attr) = attr else {
            break;
        };
        if attr.key.as_ref() != key {
            continue;
        }
        return Some(
            match attr.normalized_value_with(XmlVersion::Implicit1_0, 1, |name| {
                quick_xml::escape::resolve_html5_entity(name)
            }) {
                Ok(value) => value.into_owned(),
                Err(_) => attr.value.into_owned(),
            },
        );
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocks(storage: &str) -> Vec<String> {
        let text = storage_to_text(storage);
        if text.is_empty() {
            return Vec::new();
        }
        text.split("\n\n").map(str::to_owned).collect()
    }

    // Shapes from Atlassian's "Confluence Storage Format" page (confluence.atlassian.com
    // /doc/confluence-storage-format-790796544.html): every example of its sections
    // Headings, Text effects, Text breaks, Lists, Task lists, Links, Images, Tables,
    // Page layouts, Resource identifiers, Macros, Emoticons and Instructional text.
    #[test]
    fn atlassian_storage_format_page() {
        let text = storage_to_text(include_str!(
            "../../../tests/data/products/text/confluence-storage-format.xml"
        ));
        let got: Vec<&str> = text.split("\n\n").collect();
        assert_eq!(
            got,
            vec![
                "Heading 1",
                "Heading 2",
                "Heading 3",
                "strong text Italics Text strikethrough underline superscript subscript monospaced",
                "preformatted text",
                "block quote",
                "red text small text big text",
                "centered text",
                "right aligned text",
                "Paragraph 1",
                "Paragraph 2",
                "Line 1",
                "Line 2",
                "\u{2014} symbol",
                "\u{2013} symbol",
                "round bullet list item",
                "numbered list item",
                "task list item",
                "Link to another Confluence Page",
                "Link to a Confluence Attachment",
                "Atlassian",
                "Anchor Link",
                "Page Title",
                "Some Rich Text",
                "Link to a page in another space: Page Title",
                "Table Heading Cell 1 | Table Heading Cell 2",
                "Normal Cell 1 | Normal Cell 2",
                "Content in column 1",
                "Content in column 2",
                "Example Code",
                "<b>This is my code</b>",
                "Important",
                "This is important information.",
                "Read more",
                "Hidden until expanded.",
                "This page is about caf\u{e9}s \u{2014} it\u{2019}s short.",
                "Release date: 2021-04-21, status: In progress.",
            ]
        );
        assert!(!text.contains("FadeToGrey"), "macro parameters are dropped");
        assert!(
            !text.contains("instruction text"),
            "placeholders are dropped"
        );
        assert!(!text.contains("incomplete"), "task statuses are dropped");
        assert!(!text.contains("atlassian_logo.gif"), "images are dropped");
    }

    #[test]
    fn inline_pieces_join_as_in_the_source_and_cells_do_not() {
        assert_eq!(
            storage_to_text("<p>a<strong>b</strong></p><p>c</p>"),
            "ab\n\nc"
        );
        assert_eq!(
            storage_to_text("<table><tr><td>a</td><td>b</td></tr></table>"),
            "a | b"
        );
        // Cloud wraps each cell's text in a paragraph: the row stays one block.
        assert_eq!(
            storage_to_text(
                "<table><tbody><tr><th><p><strong>Owner</strong></p></th><th><p>Due</p></th></tr>\
                 <tr><td><p>Ana</p><p>Rui</p></td><td></td><td><p>May</p></td></tr></tbody></table>"
            ),
            "Owner | Due\n\nAna Rui | May"
        );
    }

    #[test]
    fn nested_lists_give_each_item_a_block() {
        assert_eq!(
            blocks("<ul><li>one<ul><li>one.a</li><li><p>one.b</p></li></ul></li><li>two</li></ul>"),
            vec!["one", "one.a", "one.b", "two"]
        );
    }

    // The task list shape Confluence Cloud returns: ids, uuids and statuses beside the
    // body ("Confluence Storage Format", Task lists).
    #[test]
    fn task_lists_keep_only_the_bodies() {
        let storage = "<ac:task-list><ac:task><ac:task-id>1</ac:task-id>\
            <ac:task-uuid>3f1e</ac:task-uuid><ac:task-status>complete</ac:task-status>\
            <ac:task-body><strong>Finished</strong> action</ac:task-body></ac:task>\
            <ac:task><ac:task-id>2</ac:task-id><ac:task-status>incomplete</ac:task-status>\
            <ac:task-body>Call <ac:link><ri:user ri:account-id=\"5b10\" /></ac:link> by \
            <time datetime=\"2024-05-01\" /></ac:task-body></ac:task></ac:task-list>";
        assert_eq!(
            blocks(storage),
            vec!["Finished action", "Call by 2024-05-01"]
        );
    }

    #[test]
    fn code_macro_lines_are_blocks_and_blank_lines_vanish() {
        let storage = "<p>Run:</p><ac:structured-macro ac:name=\"code\" ac:schema-version=\"1\">\
            <ac:parameter ac:name=\"language\">python</ac:parameter>\
            <ac:plain-text-body><![CDATA[def func(n: int) -> str:\n\n    return str(n)  ]]>\
            </ac:plain-text-body></ac:structured-macro><p>Done.</p>";
        assert_eq!(
            blocks(storage),
            vec!["Run:", "def func(n: int) -> str:", "return str(n)", "Done."]
        );
    }

    #[test]
    fn macros_without_a_body_do_not_break_the_sentence() {
        assert_eq!(
            storage_to_text(
                "<p>Fixed in <ac:structured-macro ac:name=\"jira\" ac:schema-version=\"1\">\
                 <ac:parameter ac:name=\"key\">ABC-123</ac:parameter></ac:structured-macro> \
                 last week.</p><ac:structured-macro ac:name=\"toc\" /><p>Next</p>"
            ),
            "Fixed in last week.\n\nNext"
        );
    }

    #[test]
    fn links_fall_back_to_what_they_point_at() {
        assert_eq!(
            storage_to_text(
                "<p>See <ac:link><ri:page ri:content-title=\"R&amp;D &ndash; plans\" />\
                 </ac:link> and <ac:link><ri:blog-post ri:content-title=\"Launch\" \
                 ri:posting-day=\"2012/01/30\" /></ac:link>.</p>"
            ),
            "See R&D \u{2013} plans and Launch."
        );
        // A body wins over the title, even when it comes first.
        assert_eq!(
            storage_to_text(
                "<p><ac:link><ac:plain-text-link-body><![CDATA[the plan]]>\
                 </ac:plain-text-link-body><ri:page ri:content-title=\"Plan 2024\" /></ac:link></p>"
            ),
            "the plan"
        );
    }

    // Confluence Cloud stores some editor nodes as `ac:adf-extension` with an HTML
    // fallback copy beside them; the text appears once.
    #[test]
    fn adf_extensions_are_read_once() {
        let storage = "<ac:adf-extension><ac:adf-node type=\"decision-list\">\
            <ac:adf-attribute key=\"local-id\">abc</ac:adf-attribute>\
            <ac:adf-node type=\"decision-item\"><ac:adf-attribute key=\"state\">DECIDED\
            </ac:adf-attribute><ac:adf-content>Ship on Friday</ac:adf-content></ac:adf-node>\
            </ac:adf-node><ac:adf-fallback><ul class=\"decision-list\"><li>Ship on Friday</li>\
            </ul></ac:adf-fallback></ac:adf-extension>";
        assert_eq!(storage_to_text(storage), "Ship on Friday");
    }

    #[test]
    fn entities_resolve_and_unknown_ones_stay() {
        assert_eq!(
            storage_to_text("<p>Caf&eacute;&nbsp;au&nbsp;lait &amp; &lt;tags&gt; &#x4E2D;&#25991; &notanentity; AT&T</p>"),
            "Caf\u{e9} au lait & <tags> \u{4e2d}\u{6587} &notanentity; AT&T"
        );
    }

    #[test]
    fn malformed_markup_keeps_what_came_before() {
        assert_eq!(
            storage_to_text("<p>first</p><p>second <strong>bold"),
            "first\n\nsecond bold"
        );
        assert_eq!(
            storage_to_text("<p>kept</p><p>mismatched</div><p>lost</p>"),
            "kept\n\nmismatched"
        );
        assert_eq!(
            storage_to_text("<p>tag never closes <a href=\"x"),
            "tag never closes"
        );
        assert_eq!(storage_to_text(""), "");
        assert_eq!(
            storage_to_text("plain words, no markup"),
            "plain words, no markup"
        );
        assert_eq!(storage_to_text("</p>stray end"), "");
        assert_eq!(storage_to_text("<![CDATA[unterminated"), "");
    }

    #[test]
    fn deep_nesting_and_huge_lines_stay_linear() {
        let depth = 10_000;
        let deep = format!(
            "{}deep{}",
            "<div><ac:structured-macro ac:name=\"expand\"><ac:rich-text-body>".repeat(depth),
            "</ac:rich-text-body></ac:structured-macro></div>".repeat(depth)
        );
        assert_eq!(storage_to_text(&deep), "deep");
        let unclosed = "<ul><li>".repeat(depth) + "never closed";
        assert_eq!(storage_to_text(&unclosed), "never closed");
        let line = "word\u{a0}".repeat(200_000);
        let text = storage_to_text(&format!("<p>{line}</p>"));
        assert_eq!(text.len(), "word ".len() * 200_000 - 1);
    }

    #[test]
    fn non_ascii_text_survives() {
        assert_eq!(
            storage_to_text("<h2>東京の会議</h2><p>Réunion à <em>Zürich</em> — naïve café</p>"),
            "東京の会議\n\nRéunion à Zürich — naïve café"
        );
    }
}
