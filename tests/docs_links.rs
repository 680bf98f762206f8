//! Every relative link in the README and in `docs/*.md` leads somewhere: `[text](path)`,
//! `[text](path#anchor)`, `[text](#anchor)` and reference definitions `[label]: path`
//! resolve, relative to the file that holds them, to a file or folder of this
//! repository, and an anchor into a Markdown file names one of its headings (as GitHub
//! makes them: lower-cased, punctuation but hyphens and spaces removed, spaces turned
//! into hyphens, a repeated heading numbered `-1`, `-2`…). Links to `http(s)://` and
//! `mailto:` are not followed: the test never leaves the machine. Links inside code
//! (fenced blocks and `code spans`) are examples, not links.

use regex::Regex;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The Markdown files whose links are checked: the README and every page in `docs/`.
fn documents() -> Vec<PathBuf> {
    let mut files = vec![root().join("README.md")];
    let docs = root().join("docs");
    let mut pages: Vec<PathBuf> = std::fs::read_dir(&docs)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", docs.display()))
        .map(|entry| entry.expect("a docs/ entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "md"))
        .collect();
    pages.sort();
    files.extend(pages);
    files
}

/// The lines of `markdown` outside fenced code blocks, each with its number (from 1).
fn lines_outside_fences(markdown: &str) -> Vec<(usize, &str)> {
    let mut fence: Option<(char, usize)> = None;
    let mut lines = Vec::new();
    for (index, line) in markdown.lines().enumerate() {
        let trimmed = line.trim_start();
        let marker = trimmed.chars().next().filter(|c| *c == '`' || *c == '~');
        let run = marker.map_or(0, |m| trimmed.chars().take_while(|c| *c == m).count());
        match (fence, marker) {
            (None, Some(m)) if run >= 3 => fence = Some((m, run)),
            (Some((m, n)), Some(c)) if c == m && run >= n && trimmed[run..].trim().is_empty() => {
                fence = None
            }
            (Some(_), _) => {}
            (None, _) => lines.push((index + 1, line)),
        }
    }
    lines
}

/// Spaces for every character of `text`.
fn blank(text: &str) -> String {
    " ".repeat(text.chars().count())
}

/// `line` with each code span (a run of backticks up to the next run of the same
/// length) blanked out; an unmatched run is left as it is.
fn without_code_spans(line: &str) -> String {
    let chars: Vec<char> = line.chars().collect();
    let mut out = String::with_capacity(line.len());
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != '`' {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        let run = chars[i..].iter().take_while(|c| **c == '`').count();
        let mut j = i + run;
        let mut close = None;
        while j < chars.len() {
            let other = chars[j..].iter().take_while(|c| **c == '`').count();
            if other == run {
                close = Some(j);
                break;
            }
            j += other.max(1);
        }
        match close {
            Some(end) => {
                out.push_str(&blank(&chars[i..end + run].iter().collect::<String>()));
                i = end + run;
            }
            None => {
                out.extend(&chars[i..i + run]);
                i += run;
            }
        }
    }
    out
}

/// Every link target in `markdown`, with its line number: inline links and images
/// `[text](target "title")`, `[text](<target>)`, and reference definitions.
fn link_targets(markdown: &str) -> Vec<(usize, String)> {
    static INLINE: OnceLock<Regex> = OnceLock::new();
    static DEFINITION: OnceLock<Regex> = OnceLock::new();
    let inline = INLINE.get_or_init(|| {
        Regex::new(r#"\]\(\s*(<[^>\n]*>|[^)\s]+)(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)"#)
            .expect("inline link regex")
    });
    let definition = DEFINITION.get_or_init(|| {
        Regex::new(r#"^ {0,3}\[[^\]]+\]:\s+(<[^>]*>|\S+)"#).expect("definition regex")
    });
    let mut targets = Vec::new();
    for (number, line) in lines_outside_fences(markdown) {
        let line = without_code_spans(line);
        for found in inline
            .captures_iter(&line)
            .chain(definition.captures_iter(&line))
        {
            let target = found[1].trim_start_matches('<').trim_end_matches('>');
            targets.push((number, target.to_string()));
        }
    }
    targets
}

/// Whether `target` leaves the repository (a web address or an e-mail).
fn is_external(target: &str) -> bool {
    let lower = target.to_ascii_lowercase();
    lower.starts_with("http://") || lower.starts_with("https://") || lower.starts_with("mailto:")
}

/// GitHub's anchor for a heading: lower-cased, every character but letters, digits,
/// `_`, `-` and spaces removed, spaces turned into hyphens.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | ' '))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of `markdown`'s headings (ATX `#` headings outside code), numbered as
/// GitHub numbers repeated ones.
fn anchors(markdown: &str) -> HashSet<String> {
    static LINK: OnceLock<Regex> = OnceLock::new();
    let link = LINK.get_or_init(|| Regex::new(r"!?\[([^\]]*)\]\([^)]*\)").expect("link regex"));
    let mut seen = HashSet::new();
    for (_, line) in lines_outside_fences(markdown) {
        let trimmed = line.trim_start();
        let level = trimmed.chars().take_while(|c| *c == '#').count();
        if level == 0 || level > 6 || line.len() - trimmed.len() > 3 {
            continue;
        }
        let rest = &trimmed[level..];
        if !(rest.is_empty() || rest.starts_with(' ') || rest.starts_with('\t')) {
            continue;
        }
        let text = rest.trim().trim_end_matches('#').trim_end();
        let text = link.replace_all(text, "$1");
        let base = slug(&text);
        let mut anchor = base.clone();
        let mut n = 0;
        while seen.contains(&anchor) {
            n += 1;
            anchor = format!("{base}-{n}");
        }
        seen.insert(anchor);
    }
    seen
}

/// The links of `markdown` (the text of the file at `file`) that lead nowhere, each as
/// `file:line: target: why`.
fn broken_links(file: &Path, markdown: &str) -> Vec<String> {
    let dir = file.parent().expect("a file has a folder");
    let shown = file
        .strip_prefix(root())
        .unwrap_or(file)
        .display()
        .to_string();
    let mut broken = Vec::new();
    for (line, target) in link_targets(markdown) {
        if is_external(&target) {
            continue;
        }
        let (path, anchor) = match target.split_once('#') {
            Some((path, anchor)) => (path, Some(anchor)),
            None => (target.as_str(), None),
        };
        let resolved = if path.is_empty() {
            file.to_path_buf()
        } else {
            dir.join(percent_decoded(path))
        };
        let why = if !path.is_empty() && !resolved.exists() {
            Some("no such file".to_string())
        } else {
            match anchor {
                Some(anchor) if resolved.extension().is_some_and(|e| e == "md") => {
                    let text = if path.is_empty() {
                        markdown.to_string()
                    } else {
                        std::fs::read_to_string(&resolved)
                            .unwrap_or_else(|e| panic!("cannot read {}: {e}", resolved.display()))
                    };
                    (!anchors(&text).contains(&percent_decoded(anchor).to_lowercase()))
                        .then(|| format!("no heading with the anchor #{anchor}"))
                }
                _ => None,
            }
        };
        if let Some(why) = why {
            broken.push(format!("{shown}:{line}: {target}: {why}"));
        }
    }
    broken
}

/// `%20`-style escapes decoded (a link to `a%20b.md` names the file `a b.md`).
fn percent_decoded(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok());
        match (bytes[i], hex.and_then(|h| u8::from_str_radix(h, 16).ok())) {
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (byte, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[test]
fn every_relative_link_in_the_docs_resolves() {
    let files = documents();
    assert!(files.len() > 1, "no pages in docs/: {files:?}");
    let mut broken = Vec::new();
    let mut checked = 0;
    for file in &files {
        let text = std::fs::read_to_string(file)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", file.display()));
        checked += link_targets(&text)
            .iter()
            .filter(|(_, t)| !is_external(t))
            .count();
        broken.extend(broken_links(file, &text));
    }
    assert!(
        checked > 10,
        "only {checked} relative links found: is the parser blind?"
    );
    assert!(
        broken.is_empty(),
        "{} broken links:\n{}",
        broken.len(),
        broken.join("\n")
    );
}

#[test]
fn the_checker_catches_broken_links() {
    let file = root().join("docs").join("made-up.md");
    let document = "\
# A made-up page

## Settings & limits

See [the settings](settings.md), [its limits](settings.md#limits), the
[README](../README.md), [this heading](#settings--limits) and [a folder](../src/).
[Web](https://example.com/missing.md) and [mail](mailto:someone@example.com) are not followed.

Broken: [a page](no-such-page.md), [an anchor](settings.md#no-such-heading),
[a local anchor](#nowhere), [up too far](../../nothing/here.md \"a title\").

[ref]: missing-reference.md

`[in code](not-a-link.md)` is an example.

```md
[in a fence](not-a-link-either.md)
```
";
    let broken = broken_links(&file, document);
    let targets: Vec<&str> = broken
        .iter()
        .map(|b| b.split(": ").nth(1).expect("file:line: target: why"))
        .collect();
    assert_eq!(
        targets,
        [
            "no-such-page.md",
            "settings.md#no-such-heading",
            "#nowhere",
            "../../nothing/here.md",
            "missing-reference.md",
        ],
        "{broken:#?}"
    );
    assert!(broken[0].starts_with("docs/made-up.md:9: "), "{broken:#?}");
    assert!(broken[1].ends_with("no heading with the anchor #no-such-heading"));
}

#[test]
fn anchors_follow_github() {
    assert_eq!(slug("`sourcebot check`"), "sourcebot-check");
    assert_eq!(slug("Settings & limits"), "settings--limits");
    assert_eq!(
        slug("Does the source say it? `sourcebot support`"),
        "does-the-source-say-it-sourcebot-support"
    );
    assert_eq!(
        slug("Installing in workspaces (OAuth v2)"),
        "installing-in-workspaces-oauth-v2"
    );
    assert_eq!(slug("What's new in 1.2"), "whats-new-in-12");
    let found = anchors(
        "# Notes\n\n## Notes\n\n```\n# not a heading\n```\n\n### [Linked](x.md) heading ##\n",
    );
    let expected: HashSet<String> = ["notes", "notes-1", "linked-heading"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(found, expected);
}
