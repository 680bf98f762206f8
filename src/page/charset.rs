//! Bytes to text in the charset a page declares, as browsers do (the WHATWG Encoding
//! Standard, through `encoding_rs`): a byte-order mark wins; then the `Content-Type`
//! header's charset; then, for HTML, a `<meta charset>` or `http-equiv` declaration in
//! the first 1 KiB; then UTF-8. Bytes invalid in the chosen encoding become U+FFFD,
//! never an error.

use encoding_rs::{Encoding, UTF_16BE, UTF_16LE, UTF_8, WINDOWS_1252, X_USER_DEFINED};
use std::borrow::Cow;

/// How far into an HTML page a `<meta>` charset declaration is looked for.
const META_SCAN: usize = 1024;

/// An HTML page's bytes as text: BOM, else the header's `charset`, else a `<meta>`
/// declaration, else UTF-8.
pub(super) fn decode_html(bytes: &[u8], header_charset: Option<&str>) -> String {
    let declared = header_charset
        .and_then(label)
        .or_else(|| meta_charset(bytes).map(html_meta_rule));
    decode(bytes, declared)
}

/// A text page's bytes as text: BOM, else the header's `charset`, else UTF-8.
pub(super) fn decode_text(bytes: &[u8], header_charset: Option<&str>) -> String {
    decode(bytes, header_charset.and_then(label))
}

fn decode(bytes: &[u8], declared: Option<&'static Encoding>) -> String {
    let encoding = declared.unwrap_or(UTF_8);
    // `decode` sniffs a BOM first and lets it override the declared encoding.
    let (text, _, _) = encoding.decode(bytes);
    match text {
        Cow::Borrowed(text) => text.to_string(),
        Cow::Owned(text) => text,
    }
}

/// The encoding a charset label names (`utf-8`, `Shift_JIS`, `latin1`…), if any.
fn label(name: &str) -> Option<&'static Encoding> {
    Encoding::for_label(name.trim().as_bytes())
}

/// A `<meta>` declaration of UTF-16 means UTF-8 (the bytes could not have been read to
/// find it otherwise), and `x-user-defined` means windows-1252.
fn html_meta_rule(encoding: &'static Encoding) -> &'static Encoding {
    if encoding == UTF_16LE || encoding == UTF_16BE {
        UTF_8
    } else if encoding == X_USER_DEFINED {
        WINDOWS_1252
    } else {
        encoding
    }
}

/// The encoding declared by the first `<meta>` tag in the first 1 KiB that names a
/// known charset: `<meta charset="…">` or
/// `<meta http-equiv="Content-Type" content="text/html; charset=…">`.
fn meta_charset(bytes: &[u8]) -> Option<&'static Encoding> {
    let head = bytes.get(..META_SCAN).unwrap_or(bytes).to_ascii_lowercase();
    let mut rest = head.as_slice();
    while let Some(start) = find(rest, b"<meta") {
        let tag = &rest[start + 5..];
        let end = tag.iter().position(|&b| b == b'>').unwrap_or(tag.len());
        let tag = &tag[..end];
        if let Some(found) = charset_in(tag) {
            return Some(found);
        }
        rest = &rest[start + 5 + end..];
    }
    None
}

/// The encoding named after a `charset` in one tag's attributes.
fn charset_in(tag: &[u8]) -> Option<&'static Encoding> {
    let mut rest = tag;
    while let Some(at) = find(rest, b"charset") {
        rest = &rest[at + 7..];
        let value = rest.trim_ascii_start();
        let Some(value) = value.strip_prefix(b"=") else {
            continue;
        };
        let value = value.trim_ascii_start();
        let value = value
            .strip_prefix(b"\"")
            .or_else(|| value.strip_prefix(b"'"))
            .unwrap_or(value);
        let end = value
            .iter()
            .position(|&b| {
                matches!(b, b'"' | b'\'' | b';' | b'/' | b'>') || b.is_ascii_whitespace()
            })
            .unwrap_or(value.len());
        if let Some(encoding) = Encoding::for_label(&value[..end]) {
            return Some(encoding);
        }
    }
    None
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    memchr::memmem::find(haystack, needle)
}

#[cfg(test)]
mod tests {
    use super::*;
    use encoding_rs::SHIFT_JIS;

    fn sjis(text: &str) -> Vec<u8> {
        SHIFT_JIS.encode(text).0.into_owned()
    }

    #[test]
    fn meta_declarations_are_found() {
        assert_eq!(
            meta_charset(b"<meta charset=\"Shift_JIS\">"),
            Some(SHIFT_JIS)
        );
        assert_eq!(
            meta_charset(b"<META CHARSET=windows-1252>"),
            Some(WINDOWS_1252)
        );
        assert_eq!(
            meta_charset(
                b"<meta http-equiv=\"Content-Type\" content=\"text/html; charset=shift_jis\">"
            ),
            Some(SHIFT_JIS)
        );
        assert_eq!(
            meta_charset(b"<meta name=x content=y><p>charset=latin1"),
            None
        );
        assert_eq!(meta_charset(b"<meta charset=\"klingon\">"), None);
        let late = format!("{}<meta charset=\"shift_jis\">", " ".repeat(2000));
        assert_eq!(meta_charset(late.as_bytes()), None, "past the first 1 KiB");
    }

    #[test]
    fn the_header_wins_over_meta_and_a_bom_wins_over_both() {
        let mut page = b"<meta charset=\"utf-8\"><p>".to_vec();
        page.extend(sjis("日本語"));
        assert!(decode_html(&page, Some("Shift_JIS")).contains("日本語"));
        assert!(!decode_html(&page, None).contains("日本語"));
        let mut bom = b"\xef\xbb\xbf<p>".to_vec();
        bom.extend("café".as_bytes());
        assert!(decode_html(&bom, Some("windows-1252")).contains("café"));
    }

    #[test]
    fn windows_1252_and_shift_jis_declared_in_meta() {
        let page = b"<meta charset=windows-1252><p>caf\xe9 \x93quoted\x94 \x80";
        assert!(decode_html(page, None).contains("café “quoted” €"));
        let mut page =
            b"<meta http-equiv=content-type content='text/html; charset=Shift_JIS'><p>".to_vec();
        page.extend(sjis("東京都"));
        assert!(decode_html(&page, None).contains("東京都"));
    }

    #[test]
    fn utf16_in_meta_means_utf8_and_undeclared_is_utf8() {
        let page = "<meta charset=utf-16><p>naïve".as_bytes();
        assert!(decode_html(page, None).contains("naïve"));
        assert_eq!(decode_text("plain é".as_bytes(), None), "plain é");
        assert_eq!(decode_text(b"bad \xff byte", None), "bad \u{fffd} byte");
        assert_eq!(decode_text(b"caf\xe9", Some("latin1")), "café");
        assert_eq!(
            decode_text(b"caf\xe9", Some("no-such-charset")),
            "caf\u{fffd}"
        );
    }
}
