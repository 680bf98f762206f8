//! Plain text (and Markdown, and the text a PDF yields) as paragraphs: blank lines
//! separate paragraphs, the lines of one paragraph are joined, and whitespace inside
//! each is collapsed to single spaces. Nothing else is changed.

use super::collapse_whitespace;

/// `source` as paragraphs separated by `"\n\n"`.
pub(super) fn paragraphs(source: &str) -> String {
    let mut out = String::with_capacity(source.len().min(1 << 20));
    let mut paragraph = String::new();
    let flush = |paragraph: &mut String, out: &mut String| {
        let collapsed = collapse_whitespace(paragraph);
        if !collapsed.is_empty() {
            if !out.is_empty() {
                out.push_str("\n\n");
            }
            out.push_str(&collapsed);
        }
        paragraph.clear();
    };
    // Form feeds separate PDF pages: a page break ends a paragraph too.
    for line in source.split('\n') {
        if line.contains('\x0c') {
            for (i, part) in line.split('\x0c').enumerate() {
                if i > 0 {
                    flush(&mut paragraph, &mut out);
                }
                paragraph.push_str(part);
                paragraph.push(' ');
            }
        } else if line.trim().is_empty() {
            flush(&mut paragraph, &mut out);
        } else {
            paragraph.push_str(line);
            paragraph.push(' ');
        }
    }
    flush(&mut paragraph, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blank_lines_separate_paragraphs_and_lines_join() {
        assert_eq!(
            paragraphs("First line\r\nstill first.\r\n\r\n\r\n  Second\t\tone.  \n"),
            "First line still first.\n\nSecond one."
        );
        assert_eq!(paragraphs("a\x0cb"), "a\n\nb");
        assert_eq!(paragraphs(" \n \n"), "");
        assert_eq!(paragraphs("no\u{a0}break space"), "no break space");
    }
}
