//! GitHub-flavoured Markdown as plain text: files and READMEs read through GitHub's
//! contents API, and the bodies of issues, pull requests and their comments.
//!
//! Parsed with pulldown-cmark (tables, strikethrough, task lists, footnotes and GFM
//! alerts on). Headings, paragraphs, list items, block quotes, footnotes and table rows
//! (cells joined with `" | "`) are blocks; each line of a code block is a block;
//! inline code, link text and image alt text are kept. Link and image URLs, task
//! checkboxes, footnote markers and alert labels (`[!NOTE]`) are dropped. Raw HTML
//! keeps only its text: tags, comments (issue templates hide their instructions in
//! them) and `script`/`style` contents are dropped, entities resolved. A leading YAML
//! front matter block (`---` … `---`) is dropped before parsing.

use super::{decode_entities, Blocks};
use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

/// The text of a Markdown document: blocks separated by `"\n\n"`, as every converter
/// in [`crate::products::text`] writes them. Never panics.
pub fn markdown_to_text(markdown: &str) -> String {
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_GFM;
    let mut out = Blocks::new();
    let mut html = HtmlText::default();
    let mut in_code = false;
    for event in Parser::new_ext(strip_front_matter(markdown), options) {
        match event {
            Event::Start(tag) => match tag {
                Tag::CodeBlock(_) => {
                    out.end_block();
                    in_code = true;
                }
                Tag::TableHead | Tag::TableRow => out.start_row(),
                Tag::TableCell => out.cell(),
                Tag::Paragraph
                | Tag::Heading { .. }
                | Tag::BlockQuote(_)
                | Tag::HtmlBlock
                | Tag::List(_)
                | Tag::Item
                | Tag::FootnoteDefinition(_)
                | Tag::DefinitionList
                | Tag::DefinitionListTitle
                | Tag::DefinitionListDefinition
                | Tag::Table(_)
                | Tag::MetadataBlock(_) => out.end_block(),
                Tag::Emphasis
                | Tag::Strong
                | Tag::Strikethrough
                | Tag::Superscript
                | Tag::Subscript
                | Tag::Link { .. }
                | Tag::Image { .. } => {}
            },
            Event::End(tag) => match tag {
                TagEnd::CodeBlock => {
                    in_code = false;
                    out.end_block();
                }
                TagEnd::TableHead | TagEnd::TableRow => out.end_row(),
                TagEnd::HtmlBlock => {
                    html.finish(&mut out);
                    out.end_block();
                }
                TagEnd::Paragraph
                | TagEnd::Heading(_)
                | TagEnd::BlockQuote(_)
                | TagEnd::List(_)
                | TagEnd::Item
                | TagEnd::FootnoteDefinition
                | TagEnd::DefinitionList
                | TagEnd::DefinitionListTitle
                | TagEnd::DefinitionListDefinition
                | TagEnd::Table
                | TagEnd::MetadataBlock(_) => out.end_block(),
                TagEnd::TableCell
                | TagEnd::Emphasis
                | TagEnd::Strong
                | TagEnd::Strikethrough
                | TagEnd::Superscript
                | TagEnd::Subscript
                | TagEnd::Link
                | TagEnd::Image => {}
            },
            Event::Text(text) if in_code => out.push_lines(&text),
            Event::Text(text)
            | Event::Code(text)
            | Event::InlineMath(text)
            | Event::DisplayMath(text) => out.push(&text),
            Event::Html(chunk) => html.feed(&chunk, &mut out),
            Event::InlineHtml(tag) => {
                html.feed(&tag, &mut out);
                html.finish(&mut out);
            }
            Event::SoftBreak => out.space(),
            Event::HardBreak | Event::Rule => out.end_block(),
            Event::FootnoteReference(_) | Event::TaskListMarker(_) => {}
        }
    }
    out.finish()
}

/// `markdown` without a leading YAML front matter block: a first line `---` up to the
/// next line that is `---` or `...`. Without that closing line nothing is removed.
fn strip_front_matter(markdown: &str) -> &str {
    let body = markdown.strip_prefix('\u{feff}').unwrap_or(markdown);
    let mut lines = body.split_inclusive('\n');
    let Some(first) = lines.next().filter(|first| first.trim_end() == "---") else {
        return body;
    };
    let mut end = first.len();
    for line in lines {
        end += line.len();
        if matches!(line.trim_end(), "---" | "...") {
            return &body[end..];
        }
    }
    body
}

/// Where the HTML reader is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum HtmlState {
    /// In text.
    #[default]
    Text,
    /// In a tag's name, just after `<` (or `</`).
    Name,
    /// In a tag, after its name (attributes), or in a `<!…>` or `<?…>` declaration.
    Tag,
    /// In a comment; the count of `-` just seen.
    Comment(u8),
}

/// The text of raw HTML, read a chunk at a time (an HTML block arrives line by line):
/// tags and comments dropped, block-level tags ending blocks, `script` and `style`
/// contents dropped, entities resolved.
#[derive(Debug, Default)]
struct HtmlText {
    state: HtmlState,
    /// The tag name being read, lower-cased (at most a few characters are kept).
    name: String,
    /// Whether the tag being read is a closing one.
    closing: bool,
    /// Inside `script` or `style`: text is dropped until its closing tag.
    raw: Option<&'static str>,
    /// Text waiting for its entities to be resolved.
    text: String,
}

impl HtmlText {
    fn feed(&mut self, chunk: &str, out: &mut Blocks) {
        let mut chars = chunk.char_indices().peekable();
        while let Some((at, c)) = chars.next() {
            match self.state {
                HtmlState::Text => {
                    if c != '<' {
                        if self.raw.is_none() {
                            self.text.push(c);
                        }
                        continue;
                    }
                    let next = chars.peek().map(|&(_, next)| next);
                    if chunk[at..].starts_with("<!--") {
                        self.flush(out);
                        self.state = HtmlState::Comment(0);
                        // Skip "!--" so that "<!-->" is not read as its own end.
                        chars.next();
                        chars.next();
                        chars.next();
                    } else if next.is_some_and(|n| n.is_ascii_alphabetic() || n == '/') {
                        self.flush(out);
                        self.state = HtmlState::Name;
                        self.name.clear();
                        self.closing = next == Some('/');
                        if self.closing {
                            chars.next();
                        }
                    } else if next.is_some_and(|n| n == '!' || n == '?') {
                        self.flush(out);
                        self.name.clear();
                        self.state = HtmlState::Tag;
                    } else if self.raw.is_none() {
                        self.text.push(c);
                    }
                }
                HtmlState::Name => {
                    if c.is_ascii_alphanumeric() || c == '-' || c == ':' {
                        if self.name.len() < 16 {
                            self.name.push(c.to_ascii_lowercase());
                        }
                    } else if c == '>' {
                        self.end_tag(out);
                    } else {
                        self.state = HtmlState::Tag;
                    }
                }
                HtmlState::Tag => {
                    if c == '>' {
                        self.end_tag(out);
                    }
                }
                HtmlState::Comment(dashes) => {
                    self.state = match c {
                        '-' => HtmlState::Comment(dashes.saturating_add(1)),
                        '>' if dashes >= 2 => HtmlState::Text,
                        _ => HtmlState::Comment(0),
                    };
                }
            }
        }
        self.flush(out);
    }

    /// At the end of a piece of HTML that stands alone (an HTML block, an inline tag):
    /// whatever was left open is closed.
    fn finish(&mut self, out: &mut Blocks) {
        self.flush(out);
        self.state = HtmlState::Text;
        self.name.clear();
    }

    fn flush(&mut self, out: &mut Blocks) {
        if !self.text.is_empty() {
            out.push(&decode_entities(&self.text));
            self.text.clear();
        }
    }

    /// A tag has ended (`>`): what it means to the text around it.
    fn end_tag(&mut self, out: &mut Blocks) {
        self.state = HtmlState::Text;
        let name = self.name.as_str();
        if let Some(raw) = self.raw {
            if self.closing && name == raw {
                self.raw = None;
            }
            return;
        }
        match name {
            "script" if !self.closing => self.raw = Some("script"),
            "style" if !self.closing => self.raw = Some("style"),
            "p" | "div" | "br" | "hr" | "h1" | "h2" | "h3" | "h4" | "h5" | "h6" | "ul" | "ol"
            | "li" | "dl" | "dt" | "dd" | "table" | "thead" | "tbody" | "tfoot" | "tr"
            | "blockquote" | "pre" | "details" | "summary" | "section" | "article" | "header"
            | "footer" | "figure" | "figcaption" | "center" | "caption" => {
                out.end_block();
            }
            "td" | "th" => out.space(),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocks(markdown: &str) -> Vec<String> {
        let text = markdown_to_text(markdown);
        if text.is_empty() {
            return Vec::new();
        }
        text.split("\n\n").map(str::to_owned).collect()
    }

    // GitHub Flavored Markdown Spec (github.github.com/gfm/), the examples of its
    // extensions: tables (198, 204), task list items (279, 280), strikethrough (491).
    #[test]
    fn gfm_spec_extension_examples() {
        assert_eq!(
            blocks("| foo | bar |\n| --- | --- |\n| baz | bim |"),
            vec!["foo | bar", "baz | bim"]
        );
        assert_eq!(
            blocks("| abc | def |\n| --- | --- |\n| bar |\n| bar | baz | boo |\n"),
            vec!["abc | def", "bar", "bar | baz"]
        );
        assert_eq!(
            blocks("| f\\|oo  |\n| ------ |\n| b `\\|` az |\n| b **\\|** im |"),
            vec!["f|oo", "b | az", "b | im"]
        );
        assert_eq!(blocks("- [ ] foo\n- [x] bar"), vec!["foo", "bar"]);
        assert_eq!(
            blocks("- [x] foo\n  - [ ] bar\n  - [x] baz\n- [ ] bim"),
            vec!["foo", "bar", "baz", "bim"]
        );
        assert_eq!(
            blocks("~~Hi~~ Hello, ~there~ world!"),
            vec!["Hi Hello, there world!"]
        );
    }

    // CommonMark examples as the GFM spec numbers them: block quotes (228), lists
    // (301), fenced code (119), links (482), images (572), hard and soft line breaks
    // (633, 648), an HTML block (118) and a code span (328).
    #[test]
    fn commonmark_spec_examples() {
        assert_eq!(blocks("> # Foo\n> bar\n> baz"), vec!["Foo", "bar baz"]);
        assert_eq!(
            blocks("- foo\n  - bar\n    - baz\n\n\n      bim"),
            vec!["foo", "bar", "baz", "bim"]
        );
        assert_eq!(blocks("```\n<\n >\n```"), vec!["<", ">"]);
        assert_eq!(blocks("[link](/uri \"title\")"), vec!["link"]);
        assert_eq!(blocks("![foo *bar*](/url \"title\")"), vec!["foo bar"]);
        assert_eq!(blocks("foo  \nbar"), vec!["foo", "bar"]);
        assert_eq!(blocks("foo\nbaz"), vec!["foo baz"]);
        assert_eq!(
            blocks("<table><tr><td>\n<pre>\n**Hello**,\n\n_world_.\n</pre>\n</td></tr></table>"),
            vec!["**Hello**,", "world."]
        );
        assert_eq!(blocks("`` foo ` bar ``"), vec!["foo ` bar"]);
    }

    // A README in the shape GitHub renders (front matter, badges, an alert, a table,
    // code, footnotes and raw HTML), after the GitHub Docs page "Basic writing and
    // formatting syntax" (docs.github.com/en/get-started/writing-on-github).
    #[test]
    fn readme_fixture() {
        let text = markdown_to_text(include_str!(
            "../../../tests/data/products/text/github-readme.md"
        ));
        let got: Vec<&str> = text.split("\n\n").collect();
        assert_eq!(
            got,
            vec![
                "Octo Tools",
                "build status",
                "Octo Tools checks links in Markdown files.",
                "Useful information that users should know, even when skimming content.",
                "Installation",
                "Run cargo install octo-tools, then:",
                "octo check README.md",
                "octo check --all docs/",
                "Features",
                "Command | Description",
                "git status | List all new or modified files",
                "git diff | Show file differences that haven't been staged",
                "Fast: checks 1000 links a second.",
                "Offline mode",
                "Here is a simple footnote. With some additional text after it.",
                "My reference.",
                "Contributing",
                "Read the guide first.",
                "Press Ctrl + C to stop.",
                "Details",
                "Hidden text, shown on click.",
            ]
        );
        assert!(!text.contains("title: Octo"), "front matter is dropped");
        assert!(!text.contains("shields.io"), "URLs are dropped");
        assert!(!text.contains("template"), "HTML comments are dropped");
        assert!(!text.contains("console.log"), "scripts are dropped");
    }

    #[test]
    fn front_matter_only_at_the_start_and_only_when_closed() {
        assert_eq!(markdown_to_text("---\ntitle: x\n---\nBody"), "Body");
        assert_eq!(
            markdown_to_text("\u{feff}---\r\ntitle: x\r\n...\r\nBody"),
            "Body"
        );
        assert_eq!(markdown_to_text("---\n---\nBody"), "Body");
        // Not closed: a rule followed by text.
        assert_eq!(markdown_to_text("---\nBody"), "Body");
        // Later rules are rules.
        assert_eq!(
            markdown_to_text("Intro\n\n---\nMiddle\n\n---\nEnd"),
            "Intro\n\nMiddle\n\nEnd"
        );
    }

    #[test]
    fn issue_bodies_with_html() {
        assert_eq!(
            markdown_to_text(
                "<!-- Thanks for reporting! Please fill in the template. -->\n\
                 ### Steps\n1. Open the app\n2. Click <kbd>Save</kbd><br>It crashes &mdash; always.\n\n\
                 <details><summary>Logs</summary>\n\n```\npanic at line 3\n```\n</details>"
            ),
            "Steps\n\nOpen the app\n\nClick Save\n\nIt crashes \u{2014} always.\n\nLogs\n\npanic at line 3"
        );
        assert_eq!(markdown_to_text("a <!-- x -> still > comment --> b"), "a b");
        assert_eq!(
            markdown_to_text("1 < 2 and <3 hearts"),
            "1 < 2 and <3 hearts"
        );
        assert_eq!(markdown_to_text("<div\n"), "");
    }

    #[test]
    fn hostile_input_stays_linear_and_does_not_overflow() {
        let deep_quotes = ">".repeat(10_000) + " deep";
        assert_eq!(markdown_to_text(&deep_quotes), "deep");
        let deep_list: String = (0..2_000)
            .map(|i| format!("{}- level\n", "  ".repeat(i)))
            .collect();
        assert!(markdown_to_text(&deep_list).starts_with("level"));
        let brackets = "[".repeat(100_000) + "x" + &"]".repeat(100_000);
        assert!(markdown_to_text(&brackets).contains('x'));
        let stars = "*a ".repeat(100_000);
        assert!(markdown_to_text(&stars).starts_with("*a *a"));
        let html = "<".repeat(100_000) + &"<!--".repeat(10_000);
        let _ = markdown_to_text(&html);
        let line = "word ".repeat(200_000);
        assert_eq!(markdown_to_text(&line).len(), line.len() - 1);
    }

    #[test]
    fn non_ascii_text_survives() {
        assert_eq!(
            markdown_to_text("# 東京の会議\n\nRéunion à *Zürich* — naïve café.\n\n| 名前 | 値 |\n|---|---|\n| é | ü |"),
            "東京の会議\n\nRéunion à Zürich — naïve café.\n\n名前 | 値\n\né | ü"
        );
    }
}
