//! JSON from Slack and its senders, parsed so that one bad escape does not lose a whole
//! message. JavaScript cuts strings between the two halves of an emoji, and
//! `JSON.stringify` then writes the lone half as an escape (`"\ud83d"`); serde_json,
//! rightly, refuses such a string. [`parse`] replaces each lone surrogate escape with
//! U+FFFD (`\ufffd`) and parses again, so the rest of the message is still read, and
//! says it did.

use serde_json::Value;

/// Parses `text` as JSON; on failure, repairs lone UTF-16 surrogate escapes and tries
/// once more. Returns the value and whether a repair was needed.
pub fn parse(text: &str) -> Result<(Value, bool), serde_json::Error> {
    match serde_json::from_str(text) {
        Ok(value) => Ok((value, false)),
        Err(error) => match repair_lone_surrogates(text) {
            Some(repaired) => serde_json::from_str(&repaired).map(|value| (value, true)),
            None => Err(error),
        },
    }
}

/// `text` with every `\uD800`–`\uDFFF` escape that is not half of a pair (a high
/// surrogate followed by a low one) replaced by `\ufffd`; `None` when there is none.
/// Only escapes inside JSON strings are looked at; everything else is copied as is.
pub fn repair_lone_surrogates(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out: Option<String> = None;
    let mut copied = 0;
    let mut in_string = false;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                in_string = !in_string;
                i += 1;
            }
            b'\\' if in_string => {
                let Some(unit) = hex_escape(bytes, i) else {
                    i += 2;
                    continue;
                };
                let is_high = (0xD800..=0xDBFF).contains(&unit);
                let is_low = (0xDC00..=0xDFFF).contains(&unit);
                let paired = is_high
                    && hex_escape(bytes, i + 6)
                        .is_some_and(|next| (0xDC00..=0xDFFF).contains(&next));
                if paired {
                    i += 12;
                } else if is_high || is_low {
                    let repaired = out.get_or_insert_with(|| String::with_capacity(text.len()));
                    repaired.push_str(&text[copied..i]);
                    repaired.push_str("\\ufffd");
                    i += 6;
                    copied = i;
                } else {
                    i += 6;
                }
            }
            _ => i += 1,
        }
    }
    out.map(|mut repaired| {
        repaired.push_str(&text[copied.min(text.len())..]);
        repaired
    })
}

/// The code unit of a `\uXXXX` escape starting at `at`, if there is one.
fn hex_escape(bytes: &[u8], at: usize) -> Option<u32> {
    if bytes.get(at) != Some(&b'\\') || bytes.get(at + 1) != Some(&b'u') {
        return None;
    }
    let digits = bytes.get(at + 2..at + 6)?;
    let digits = std::str::from_utf8(digits).ok()?;
    u32::from_str_radix(digits, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lone_surrogates_become_replacement_characters() {
        let (value, repaired) =
            parse(r#"{"text":"cut \ud83d here","b":"low \ude00 and pair \ud83d\ude00 ok"}"#)
                .expect("parses after repair");
        assert!(repaired);
        assert_eq!(value["text"], "cut \u{FFFD} here");
        assert_eq!(value["b"], "low \u{FFFD} and pair \u{1F600} ok");
    }

    #[test]
    fn good_json_is_left_alone_and_bad_json_still_fails() {
        assert_eq!(
            parse(r#"{"a":"\ud83d\ude00 \\ud83d"}"#)
                .map(|(_, r)| r)
                .ok(),
            Some(false)
        );
        assert!(
            repair_lone_surrogates(r#"{"a":"\\ud83d"}"#).is_none(),
            "an escaped backslash"
        );
        assert!(parse(r#"{"a": "#).is_err());
        assert!(
            parse(r#"{"a":"\ud83d" "#).is_err(),
            "repaired but still not JSON"
        );
    }
}
