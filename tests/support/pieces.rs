//! Generated answer text for property tests: pieces that exercise every citation form
//! and its edge cases, joined at random. Shared by `tests/props.rs` and the collector's
//! unit tests (which include this file by path).

use proptest::prelude::*;

/// Pieces that exercise every citation form and its edge cases.
pub fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("https://a.com/x".to_string()),
        Just("www.b.org/y?utm_source=z".to_string()),
        Just("<https://c.io/p|label>".to_string()),
        Just("<https://c.io/p>".to_string()),
        Just("[t](https://d.net/(x))".to_string()),
        Just("[Source: confluence - Page](https://acme.atlassian.net/wiki/x)".to_string()),
        Just("(via slack: #eng)".to_string()),
        Just("[1]".to_string()),
        Just("[2, 3]".to_string()),
        Just("[1-4]".to_string()),
        Just("\n[1] https://e.com/1 - Title\n".to_string()),
        Just("\n2. Title — https://f.com/2\n".to_string()),
        Just("\n[3]: https://g.com/3 \"T\"\n".to_string()),
        Just("\n```\nhttps://code.com\n```\n".to_string()),
        Just("`https://span.com`".to_string()),
        Just("<!channel> <@U1> <#C1|x> &amp; | > <".to_string()),
        Just("。，）中文".to_string()),
        Just("\n## References\n".to_string()),
        Just("https://acme.slack.com/archives/C1/p1".to_string()),
        Just("45% in 2023, $3 million.".to_string()),
        Just(". ".to_string()),
        Just("\n\n".to_string()),
        "[ -~]{0,12}",
        "\\PC{0,6}",
        any::<String>().prop_map(|s| s.chars().take(8).collect()),
    ]
}

/// Text of up to 40 pieces.
pub fn answer_text() -> impl Strategy<Value = String> {
    prop::collection::vec(piece(), 0..40).prop_map(|pieces| pieces.concat())
}
