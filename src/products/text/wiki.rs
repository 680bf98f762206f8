//! Jira wiki markup as plain text: issue descriptions and comment bodies as Jira
//! Server and Data Center's REST API v2 return them (Jira's "Text formatting notation").
//!
//! Jira renders each line break as a line break, so every line is its own block: a
//! heading (`h1.`–`h6.`), a block quote (`bq.`), a list item (`*`, `#`, `-` and their
//! nestings), a table row (`||heading||` and `|cell|`, cells joined with `" | "`), a
//! paragraph line; `\\` breaks a line too. `{code}` and `{noformat}` bodies are kept
//! verbatim, a block a line, with no markup read inside them; a code or panel `title`
//! is its own block. Links give their text (`[text|url]` → text, `[url]` → url,
//! `[~user]` → user); emphasis (`*b*`, `_i_`, `-s-`, `+u+`, `^sup^`, `~sub~`,
//! `??cite??`) and `{{mono}}` give their text. Images and attachments (`!file.png!`),
//! rules (`----`), `{color}`, `{quote}`, `{panel}` and `{anchor}` tags are dropped.
//!
//! Emphasis marks are removed only where Jira's renderer sees them: opening after
//! the start of the line or a character that is not a letter or digit and before a
//! non-space, closing after a non-space and before the end or a character that is
//! not a letter or digit. So `2*3`, `file_name_here`, `a-b-c`, `-5 %` and `x^2` stay
//! as written, and so do URLs. `\` escapes the character after it. Each line is read
//! in time linear in its length (up to a logarithm).

use super::Blocks;

/// The text of a Jira wiki markup body: blocks separated by `"\n\n"`, as every
/// converter in [`crate::products::text`] writes them. Never panics.
pub fn wiki_to_text(markup: &str) -> String {
    let mut out = Blocks::new();
    let mut verbatim = None;
    for line in markup.split('\n') {
        let line = line.strip_suffix('\r').unwrap_or(line);
        read_line(line, &mut verbatim, &mut out);
    }
    out.finish()
}

/// A body kept as written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verbatim {
    Code,
    Noformat,
}

impl Verbatim {
    /// The tag that closes the body.
    fn closing_tag(self) -> &'static str {
        match self {
            Verbatim::Code => "{code}",
            Verbatim::Noformat => "{noformat}",
        }
    }
}

/// Reads one line, which may open or close (several) verbatim bodies.
fn read_line(line: &str, verbatim: &mut Option<Verbatim>, out: &mut Blocks) {
    let mut rest = line;
    let mut at_line_start = true;
    loop {
        if let Some(kind) = *verbatim {
            let Some(close) = rest.find(kind.closing_tag()) else {
                out.push(rest);
                out.end_block();
                return;
            };
            out.push(&rest[..close]);
            out.end_block();
            *verbatim = None;
            rest = &rest[close + kind.closing_tag().len()..];
        } else {
            let Some(open) = find_verbatim_open(rest) else {
                markup_line(rest, at_line_start, out);
                return;
            };
            markup_line(&rest[..open.start], at_line_start, out);
            out.end_block();
            if let Some(title) = open.title {
                out.push(title);
                out.end_block();
            }
            *verbatim = Some(open.kind);
            rest = &rest[open.end..];
        }
        at_line_start = false;
    }
}

/// A `{code…}` or `{noformat…}` tag opening a verbatim body.
struct Open<'a> {
    kind: Verbatim,
    /// Where the tag starts and where it ends (after its `}`).
    start: usize,
    end: usize,
    /// The `title=` parameter, if any.
    title: Option<&'a str>,
}

/// The first tag in `text` that opens a verbatim body: `{code}`, `{code:java}`,
/// `{code:title=Bar.java|borderStyle=solid}`, `{noformat}`… (not `{{code}}`, not
/// `\{code}`).
fn find_verbatim_open(text: &str) -> Option<Open<'_>> {
    let bytes = text.as_bytes();
    for (start, _) in text.match_indices('{') {
        if start > 0 && matches!(bytes[start - 1], b'{' | b'\\') {
            continue;
        }
        let after = &text[start + 1..];
        let (kind, name_len) = if after.starts_with("code") {
            (Verbatim::Code, 4)
        } else if after.starts_with("noformat") {
            (Verbatim::Noformat, 8)
        } else {
            continue;
        };
        let params_at = start + 1 + name_len;
        if !matches!(bytes.get(params_at), Some(b'}' | b':')) {
            continue;
        }
        // The first opening name decides: without its `}` the tag is text, and so is
        // any later one (which would need a `}` after this point too).
        let brace = params_at + text[params_at..].find('}')?;
        let params = text.get(params_at + 1..brace).unwrap_or_default();
        return Some(Open {
            kind,
            start,
            end: brace + 1,
            title: param(params, "title"),
        });
    }
    None
}

/// The value of `key=` among a macro's `|`-separated parameters, when not blank.
fn param<'a>(params: &'a str, key: &str) -> Option<&'a str> {
    params.split('|').find_map(|pair| {
        let (name, value) = pair.split_once('=')?;
        (name.trim() == key && !value.trim().is_empty()).then(|| value.trim())
    })
}

/// Reads a line (or what is left of it after a verbatim body) outside verbatim text.
fn markup_line(line: &str, at_line_start: bool, out: &mut Blocks) {
    out.end_block();
    let trimmed = line.trim_start();
    if at_line_start {
        let bare = trimmed.trim_end();
        if bare.len() >= 4 && bare.bytes().all(|b| b == b'-') {
            return;
        }
        if trimmed.starts_with('|') {
            out.start_row();
            write(&inline(trimmed, true), out);
            out.end_row();
            return;
        }
        write(&inline(strip_line_prefix(trimmed), false), out);
    } else {
        write(&inline(line, false), out);
    }
    out.end_block();
}

/// The line without its heading (`h1.`), quote (`bq.`) or list (`*`, `##`, `#*`, `-`)
/// marker.
fn strip_line_prefix(line: &str) -> &str {
    let bytes = line.as_bytes();
    let after = |n: usize| -> Option<&str> {
        let rest = line.get(n..)?;
        (rest.is_empty() || rest.starts_with(char::is_whitespace)).then(|| rest.trim_start())
    };
    if bytes.len() >= 3 && bytes[0] == b'h' && (b'1'..=b'6').contains(&bytes[1]) && bytes[2] == b'.'
    {
        if let Some(rest) = after(3) {
            return rest;
        }
    }
    if line.starts_with("bq.") {
        if let Some(rest) = after(3) {
            return rest;
        }
    }
    let markers = bytes
        .iter()
        .take_while(|b| matches!(b, b'*' | b'#'))
        .count();
    if markers > 0 {
        if let Some(rest) = after(markers) {
            return rest;
        }
    }
    if line.starts_with('-') {
        if let Some(rest) = after(1) {
            return rest;
        }
    }
    line
}

/// A piece of a line once links, images, macros and escapes are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tok {
    /// A character that may be an emphasis mark.
    Ch(char),
    /// A character that is text whatever it is (escaped, monospaced, in a URL).
    Lit(char),
    /// `??`, which may open or close a citation.
    Cite,
    /// A line break (`\\`), or the edge of a quote or panel.
    Break,
    /// A table cell boundary.
    Cell,
}

impl Tok {
    /// The character, for a character token.
    fn char(self) -> Option<char> {
        match self {
            Tok::Ch(c) | Tok::Lit(c) => Some(c),
            Tok::Cite => Some('?'),
            Tok::Break | Tok::Cell => None,
        }
    }

    /// Text that is not whitespace: what must follow an opening mark and precede a
    /// closing one.
    fn is_content(self) -> bool {
        self.char().is_some_and(|c| !c.is_whitespace())
    }

    /// What may precede an opening mark or follow a closing one: not a letter or
    /// digit (the edge of the line, a break or a cell edge included).
    fn is_boundary(self) -> bool {
        self.char().is_none_or(|c| !c.is_alphanumeric())
    }
}

/// Sorted positions of the characters in `chars` where `at` holds.
fn positions(chars: &[char], at: impl Fn(usize) -> bool) -> Vec<usize> {
    (0..chars.len()).filter(|&i| at(i)).collect()
}

/// The first of the sorted `positions` at or after `from`.
fn next_at(positions: &[usize], from: usize) -> Option<usize> {
    positions
        .get(positions.partition_point(|&at| at < from))
        .copied()
}

/// Whether `chars` holds `pattern` at `at`.
fn has_at(chars: &[char], at: usize, pattern: &str) -> bool {
    let mut rest = chars.get(at..).unwrap_or_default().iter();
    pattern.chars().all(|p| rest.next() == Some(&p))
}

/// Schemes that start a bare URL, whose characters are never emphasis marks.
const URL_SCHEMES: &[&str] = &["http://", "https://", "ftp://", "mailto:", "file:"];

/// A line as tokens: links, images, monospace, macro tags and escapes read, emphasis
/// marks left for [`strip_emphasis`]. In a table row, `|` and `||` are cell edges.
fn inline(line: &str, table: bool) -> Vec<Tok> {
    let chars: Vec<char> = line.chars().collect();
    let closing_brackets = positions(&chars, |i| chars[i] == ']');
    let bangs = positions(&chars, |i| chars[i] == '!');
    let braces = positions(&chars, |i| chars[i] == '}');
    let double_braces = positions(&chars, |i| {
        chars[i] == '}' && chars.get(i + 1) == Some(&'}')
    });
    let mut toks = Vec::with_capacity(chars.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let prev = i.checked_sub(1).map(|p| chars[p]);
        let next = chars.get(i + 1).copied();
        match c {
            '\\' => match next {
                Some('\\') => {
                    toks.push(Tok::Break);
                    i += 2;
                }
                Some(n) if !n.is_alphanumeric() && !n.is_whitespace() => {
                    toks.push(Tok::Lit(n));
                    i += 2;
                }
                _ => {
                    toks.push(Tok::Lit('\\'));
                    i += 1;
                }
            },
            '[' => match next_at(&closing_brackets, i + 1).filter(|&j| j > i + 1) {
                Some(j) => {
                    link(&chars[i + 1..j], &mut toks);
                    i = j + 1;
                }
                None => {
                    toks.push(Tok::Lit('['));
                    i += 1;
                }
            },
            '!' => match image_end(&chars, i, prev, &bangs) {
                Some(end) => i = end,
                None => {
                    toks.push(Tok::Ch('!'));
                    i += 1;
                }
            },
            '{' if next == Some('{') => match next_at(&double_braces, i + 2) {
                Some(j) => {
                    toks.extend(chars[i + 2..j].iter().map(|&c| Tok::Lit(c)));
                    i = j + 2;
                }
                None => {
                    toks.push(Tok::Lit('{'));
                    i += 1;
                }
            },
            '{' => match next_at(&braces, i + 1).and_then(|j| macro_tag(&chars[i + 1..j], j)) {
                Some((tag, end)) => {
                    toks.extend(tag);
                    i = end;
                }
                None => {
                    toks.push(Tok::Lit('{'));
                    i += 1;
                }
            },
            '|' if table => {
                toks.push(Tok::Cell);
                i += if next == Some('|') { 2 } else { 1 };
            }
            '?' if next == Some('?') => {
                toks.push(Tok::Cite);
                i += 2;
            }
            _ if prev.is_none_or(|p| !p.is_alphanumeric())
                && URL_SCHEMES.iter().any(|scheme| has_at(&chars, i, scheme)) =>
            {
                i = url(&chars, i, &mut toks);
            }
            _ => {
                // A run of the same mark (`--`, `---`, `C++`, `**`) is text, not
                // emphasis: Jira shows dashes there, and nobody means an empty span.
                let run = matches!(c, '*' | '_' | '-' | '+' | '^' | '~')
                    && (prev == Some(c) || next == Some(c));
                toks.push(if run { Tok::Lit(c) } else { Tok::Ch(c) });
                i += 1;
            }
        }
    }
    strip_emphasis(toks)
}

/// The tokens of a link's inside (`text|url`, `url`, `~user`, `^attachment`,
/// `#anchor`, `mailto:address`).
fn link(inside: &[char], toks: &mut Vec<Tok>) {
    if let Some(bar) = inside.iter().position(|&c| c == '|') {
        let text = &inside[..bar];
        if text.iter().any(|c| !c.is_whitespace()) {
            toks.extend(text.iter().map(|&c| Tok::Ch(c)));
        } else {
            let target = &inside[bar + 1..];
            let end = target
                .iter()
                .position(|&c| c == '|')
                .unwrap_or(target.len());
            toks.extend(target[..end].iter().map(|&c| Tok::Lit(c)));
        }
        return;
    }
    let target = match inside.first() {
        Some('~' | '^' | '#') => &inside[1..],
        _ if has_at(inside, 0, "mailto:") => &inside[7..],
        _ => inside,
    };
    toks.extend(target.iter().map(|&c| Tok::Lit(c)));
}

/// Where an image or attachment tag that starts at `at` (`!file.png!`,
/// `!file.png|thumbnail!`, `!http://host/image.gif!`) ends, if one does: the name
/// has no spaces and looks like a file or URL, and the tag stands apart from words.
fn image_end(chars: &[char], at: usize, prev: Option<char>, bangs: &[usize]) -> Option<usize> {
    if prev.is_some_and(|p| p.is_alphanumeric() || p == '\\') {
        return None;
    }
    let first = *chars.get(at + 1)?;
    if first.is_whitespace() || first == '!' {
        return None;
    }
    let close = next_at(bangs, at + 1)?;
    if chars[close - 1].is_whitespace() || chars.get(close + 1).is_some_and(|c| c.is_alphanumeric())
    {
        return None;
    }
    let inside = &chars[at + 1..close];
    let name_end = inside
        .iter()
        .position(|&c| c == '|')
        .unwrap_or(inside.len());
    let name = &inside[..name_end];
    let looks_like_file = name.iter().any(|c| matches!(c, '.' | '/' | ':'));
    (looks_like_file && !name.iter().any(|c| c.is_whitespace())).then_some(close + 1)
}

/// The tokens a `{…}` macro tag stands for, and where it ends, when it is one Jira
/// knows: `{color:…}`, `{anchor:…}` (nothing), `{quote}` (a break), `{panel:title=…}`
/// (a break, the title, a break), a stray `{code}` or `{noformat}` (a break).
/// `close` is the position of its `}`.
fn macro_tag(inside: &[char], close: usize) -> Option<(Vec<Tok>, usize)> {
    // Known names are short: look no further, so that a line of unknown `{…` tags
    // is read once.
    let head = &inside[..inside.len().min(MACRO_NAME_MAX + 1)];
    let name_end = match head.iter().position(|&c| c == ':') {
        Some(colon) => colon,
        None if inside.len() <= MACRO_NAME_MAX => inside.len(),
        None => return None,
    };
    let name: String = inside[..name_end].iter().collect();
    let tokens = match name.as_str() {
        "color" | "anchor" => Vec::new(),
        "quote" | "code" | "noformat" => vec![Tok::Break],
        "panel" => {
            let params: String = inside
                .get(name_end + 1..)
                .unwrap_or_default()
                .iter()
                .collect();
            let mut tokens = vec![Tok::Break];
            if let Some(title) = param(&params, "title") {
                tokens.extend(title.chars().map(Tok::Lit));
                tokens.push(Tok::Break);
            }
            tokens
        }
        _ => return None,
    };
    Some((tokens, close + 1))
}

/// The longest macro name [`macro_tag`] knows (`noformat`).
const MACRO_NAME_MAX: usize = 8;

/// Reads a bare URL starting at `at` into `toks`; returns where it ends. Its
/// characters are literal, except trailing punctuation, which may close emphasis.
fn url(chars: &[char], at: usize, toks: &mut Vec<Tok>) -> usize {
    let end = chars[at..]
        .iter()
        .position(|&c| {
            c.is_whitespace() || matches!(c, '|' | '[' | ']' | '{' | '}' | '<' | '>' | '"')
        })
        .map_or(chars.len(), |len| at + len);
    let mut literal_end = end;
    while literal_end > at
        && matches!(
            chars[literal_end - 1],
            '*' | '_' | '-' | '+' | '^' | '~' | '?' | ')' | '!' | '.' | ',' | ';' | ':' | '\''
        )
    {
        literal_end -= 1;
    }
    toks.extend(chars[at..literal_end].iter().map(|&c| Tok::Lit(c)));
    toks.extend(chars[literal_end..end].iter().map(|&c| Tok::Ch(c)));
    end
}

/// The emphasis marks Jira renders: bold, italic, citation, deleted, inserted,
/// superscript, subscript.
const EMPHASIS: &[Tok] = &[
    Tok::Ch('*'),
    Tok::Ch('_'),
    Tok::Cite,
    Tok::Ch('-'),
    Tok::Ch('+'),
    Tok::Ch('^'),
    Tok::Ch('~'),
];

/// `toks` without the emphasis marks that open and close a span on the same line.
fn strip_emphasis(mut toks: Vec<Tok>) -> Vec<Tok> {
    for &mark in EMPHASIS {
        if toks.contains(&mark) {
            toks = strip_pairs(toks, mark);
        }
    }
    toks.into_iter()
        .flat_map(|tok| match tok {
            Tok::Cite => [Some(Tok::Lit('?')), Some(Tok::Lit('?'))],
            tok => [Some(tok), None],
        })
        .flatten()
        .collect()
}

/// `toks` without the pairs of `mark` that open and close a span: an opener follows
/// a boundary and precedes content, a closer follows content and precedes a
/// boundary, the nearest closer after an opener (with something between them and no
/// break or cell edge) closes it.
fn strip_pairs(toks: Vec<Tok>, mark: Tok) -> Vec<Tok> {
    let n = toks.len();
    let before = |k: usize| k.checked_sub(1).map(|p| toks[p]);
    let opens = |k: usize| {
        toks[k] == mark
            && before(k).is_none_or(Tok::is_boundary)
            && toks.get(k + 1).is_some_and(|t| t.is_content())
    };
    let closes = |k: usize| {
        toks[k] == mark
            && before(k).is_some_and(Tok::is_content)
            && toks.get(k + 1).is_none_or(|t| t.is_boundary())
    };
    // For each position, the first closer and the first break at or after it.
    let mut next_close = vec![n; n + 1];
    let mut next_stop = vec![n; n + 1];
    for k in (0..n).rev() {
        next_close[k] = if closes(k) { k } else { next_close[k + 1] };
        next_stop[k] = if matches!(toks[k], Tok::Break | Tok::Cell) {
            k
        } else {
            next_stop[k + 1]
        };
    }
    let mut removed = vec![false; n];
    let mut k = 0;
    while k < n {
        if opens(k) && k + 2 <= n {
            let close = next_close[k + 2];
            if close < n && close < next_stop[k + 1] {
                removed[k] = true;
                removed[close] = true;
                k = close + 1;
                continue;
            }
        }
        k += 1;
    }
    toks.into_iter()
        .zip(removed)
        .filter_map(|(tok, removed)| (!removed).then_some(tok))
        .collect()
}

/// Writes tokens into the current block.
fn write(toks: &[Tok], out: &mut Blocks) {
    for &tok in toks {
        match tok {
            Tok::Ch(c) | Tok::Lit(c) => out.push_char(c),
            Tok::Cite => out.push("??"),
            Tok::Break => out.end_block(),
            Tok::Cell => out.cell(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocks(markup: &str) -> Vec<String> {
        let text = wiki_to_text(markup);
        if text.is_empty() {
            return Vec::new();
        }
        text.split("\n\n").map(str::to_owned).collect()
    }

    // Every example of Jira's "Text formatting notation help" page
    // (jira.atlassian.com/secure/WikiRendererHelpAction.jspa?section=all), in its
    // order: headings, text effects, text breaks, links, lists, images, attachments,
    // tables, advanced formatting (noformat, code, panel, color, quote).
    #[test]
    fn text_formatting_notation_help() {
        let text = wiki_to_text(include_str!(
            "../../../tests/data/products/text/jira-wiki-notation.txt"
        ));
        let got: Vec<&str> = text.split("\n\n").collect();
        assert_eq!(
            got,
            vec![
                "Biggest heading",
                "Bigger heading",
                "Big heading",
                "Normal heading",
                "Small heading",
                "Smallest heading",
                "strong",
                "emphasis",
                "citation",
                "deleted",
                "inserted",
                "superscript",
                "subscript",
                "monospaced",
                "Some block quoted text",
                "here is quoteable content to be quoted",
                "look ma, red text!",
                "a paragraph",
                "another paragraph",
                "a line",
                "another line",
                "text before a rule",
                "text after a rule",
                "a -- en dash and a --- em dash",
                "anchor",
                "attachment.ext",
                "http://jira.atlassian.com",
                "Atlassian",
                "legendaryservice@atlassian.com",
                "file:///c:/temp/foo.txt",
                "file:///z:/file/on/network/share.txt",
                "username",
                "some",
                "bullet",
                "indented",
                "bullets",
                "points",
                "different",
                "bullet",
                "types",
                "a",
                "numbered",
                "list",
                "a",
                "numbered",
                "with",
                "nested",
                "bullet",
                "list",
                "a",
                "bulleted",
                "with",
                "nested",
                "numbered",
                "list",
                "heading 1 | heading 2 | heading 3",
                "col A1 | col A2 | col A3",
                "col B1 | col B2 | col B3",
                "preformatted piece of text",
                "so *no* further _formatting_ is done here",
                "Some text",
                "My Title",
                "Some text with a title",
                "My Title",
                "a block of text surrounded with a panel",
                "yet another line",
                "Bar.java",
                "// Some comments here",
                "public String getFoo()",
                "{",
                "return foo;",
                "}",
                "<test>",
                "<another tag=\"attribute\"/>",
                "</test>",
            ]
        );
        assert!(!text.contains("image.gif") && !text.contains("quicktime"));
        assert!(!text.contains("borderStyle"));
    }

    #[test]
    fn prose_that_is_not_markup_survives() {
        assert_eq!(wiki_to_text("2*3 = 6 and 4*5 = 20"), "2*3 = 6 and 4*5 = 20");
        assert_eq!(
            wiki_to_text("open file_name_here now"),
            "open file_name_here now"
        );
        assert_eq!(wiki_to_text("the a-b-c of it"), "the a-b-c of it");
        assert_eq!(wiki_to_text("-5 % year on year"), "-5 % year on year");
        assert_eq!(wiki_to_text("from -5 % to -3 %"), "from -5 % to -3 %");
        assert_eq!(wiki_to_text("area is x^2 + y^2"), "area is x^2 + y^2");
        assert_eq!(wiki_to_text("C++ and C# + F#"), "C++ and C# + F#");
        assert_eq!(wiki_to_text("Wow! Great! (!) done"), "Wow! Great! (!) done");
        assert_eq!(wiki_to_text("what?? really??"), "what?? really??");
        assert_eq!(
            wiki_to_text("see https://example.com/a_b_c/-x-/*y* now"),
            "see https://example.com/a_b_c/-x-/*y* now"
        );
        assert_eq!(
            wiki_to_text("{unknown} braces {stay}"),
            "{unknown} braces {stay}"
        );
        assert_eq!(wiki_to_text("[ unclosed bracket"), "[ unclosed bracket");
    }

    #[test]
    fn emphasis_is_removed_where_jira_renders_it() {
        assert_eq!(
            wiki_to_text("a *bold* and _italic_ word."),
            "a bold and italic word."
        );
        assert_eq!(
            wiki_to_text("*_both_* and -gone- +new+"),
            "both and gone new"
        );
        assert_eq!(wiki_to_text("H~2~O and E=mc^2^"), "H~2~O and E=mc^2^");
        assert_eq!(wiki_to_text("H ~2~ O, E ^2^"), "H 2 O, E 2");
        assert_eq!(
            wiki_to_text("??Book title?? by someone"),
            "Book title by someone"
        );
        assert_eq!(
            wiki_to_text("*not closed and _neither"),
            "*not closed and _neither"
        );
        assert_eq!(wiki_to_text("* not emphasis *"), "not emphasis *");
        assert_eq!(wiki_to_text("{{file_*name*}} kept"), "file_*name* kept");
        assert_eq!(
            wiki_to_text("\\*escaped\\* and \\\\ break"),
            "*escaped* and\n\nbreak"
        );
    }

    #[test]
    fn links_and_images() {
        assert_eq!(
            wiki_to_text(
                "See [the docs|https://example.com/x_y_z] or [https://a.example/-b-] or [~jsmith]."
            ),
            "See the docs or https://a.example/-b- or jsmith."
        );
        assert_eq!(
            wiki_to_text("Logo !logo.png! and !shot.png|thumbnail! here"),
            "Logo and here"
        );
        assert_eq!(
            wiki_to_text("[|https://example.com]"),
            "https://example.com"
        );
        assert_eq!(wiki_to_text("[*Bold* link|http://x.example]"), "Bold link");
    }

    #[test]
    fn tables_keep_links_and_images_inside_cells() {
        assert_eq!(
            blocks("||Name||Link||\n|Docs|[site|https://example.com/a|b]|\n| !pic.png|thumbnail! |*x*|"),
            vec!["Name | Link", "Docs | site", "x"]
        );
        assert_eq!(blocks("|a\\\\b|c|"), vec!["a b | c"]);
    }

    #[test]
    fn verbatim_bodies_are_not_read_as_markup() {
        assert_eq!(
            blocks("before {code:java}int *p = -1;{code} after"),
            vec!["before", "int *p = -1;", "after"]
        );
        assert_eq!(
            blocks("{noformat}\n* not a list\n\n|not|a table|\n{noformat}\n* a list"),
            vec!["* not a list", "|not|a table|", "a list"]
        );
        assert_eq!(blocks("{{code}} is monospace"), vec!["code is monospace"]);
        // Never closed: the rest of the body is verbatim.
        assert_eq!(blocks("{code}\nh1. kept as is"), vec!["h1. kept as is"]);
        assert_eq!(blocks("{code:unterminated"), vec!["{code:unterminated"]);
    }

    #[test]
    fn hostile_lines_stay_linear() {
        let n = 100_000;
        for piece in [
            "[", "!a.b", "{{", "{x", "*a ", "?? ", "\\", "{code:", "-a-", "_",
        ] {
            let line = piece.repeat(n);
            let text = wiki_to_text(&line);
            assert!(text.len() <= line.len(), "{piece}");
        }
        let long = "word ".repeat(200_000);
        assert_eq!(wiki_to_text(&long).len(), long.len() - 1);
        let many_lines = "* item\n".repeat(100_000);
        assert_eq!(blocks(&many_lines).len(), 100_000);
    }

    #[test]
    fn non_ascii_text() {
        assert_eq!(
            blocks("h2. 東京の会議\n*太字* と _斜体_\nRéunion à *Zürich* — naïve café"),
            vec![
                "東京の会議",
                "太字 と 斜体",
                "Réunion à Zürich — naïve café"
            ]
        );
        // Letters of any script are word characters: no emphasis inside words.
        assert_eq!(wiki_to_text("東京*太字*です"), "東京*太字*です");
    }
}
