//! `sourcebot support`: claims and their evidence in, support out, as JSON Lines. Each
//! input line is an object with `claim` (a string) and `evidence` (a string, or a list
//! of strings: the passages to judge against); each output line is that object with its
//! fields kept and `support` (0–1), `verdict` (`supported`, `partly supported`, `not
//! supported`, or `unreadable` when the evidence is empty), `quote` and `missing` (the
//! claim's numbers, dates and names the evidence never mentions) added, and `differs`
//! (`[{"claim": "1,200 requests per second", "page": "900 requests per second"}]`: the
//! claim's figures the evidence gives differently, with what it says instead) when
//! there are any. A bad line is reported by its number and skipped; the rest are still
//! scored, in order. Lines are read in batches of [`BATCH_LINES`] and scored on every
//! core, so memory stays bounded by the batch whatever the input's length.

use super::{Support, SupportScorer};
use serde_json::{Map, Value};
use std::io::{self, BufRead, Write};

/// Lines scored at once.
pub const BATCH_LINES: usize = 1024;

/// The longest line read, in bytes; a longer one is reported and skipped.
pub const MAX_LINE_BYTES: usize = 4 << 20;

/// A line that could not be scored.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {why}")]
pub struct LineError {
    /// The line's number, from 1.
    pub line: usize,
    /// What was wrong with it.
    pub why: String,
}

/// A line read: its object, or why it cannot be scored.
type Parsed = Result<Map<String, Value>, LineError>;

/// What a run did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Summary {
    /// Lines scored and written.
    pub scored: usize,
    /// Lines reported and skipped.
    pub failed: usize,
}

/// Scores every line of `input` to `output`, telling `on_error` about bad lines.
pub fn score_lines(
    scorer: &SupportScorer,
    input: &mut impl BufRead,
    output: &mut impl Write,
    on_error: &mut impl FnMut(&LineError),
) -> io::Result<Summary> {
    let mut summary = Summary::default();
    let mut number = 0;
    loop {
        let mut batch: Vec<Parsed> = Vec::new();
        while batch.len() < BATCH_LINES {
            let Some(line) = read_line(input)? else {
                break;
            };
            number += 1;
            match line {
                Line::Blank => {}
                Line::TooLong => batch.push(Err(LineError {
                    line: number,
                    why: format!("longer than {} MiB", MAX_LINE_BYTES >> 20),
                })),
                Line::Text(bytes) => batch.push(parse(number, &bytes)),
            }
        }
        if batch.is_empty() {
            break;
        }
        let scored = score_batch(scorer, batch);
        for result in scored {
            match result {
                Ok(object) => {
                    serde_json::to_writer(&mut *output, &Value::Object(object))?;
                    output.write_all(b"\n")?;
                    summary.scored += 1;
                }
                Err(error) => {
                    on_error(&error);
                    summary.failed += 1;
                }
            }
        }
    }
    output.flush()?;
    Ok(summary)
}

/// One line as read.
enum Line {
    Blank,
    TooLong,
    Text(Vec<u8>),
}

/// The next line, without its end; `None` at the end of the input.
fn read_line(input: &mut impl BufRead) -> io::Result<Option<Line>> {
    let mut bytes = Vec::new();
    let read =
        io::Read::take(&mut *input, MAX_LINE_BYTES as u64 + 1).read_until(b'\n', &mut bytes)?;
    if read == 0 {
        return Ok(None);
    }
    if bytes.last() != Some(&b'\n') && bytes.len() > MAX_LINE_BYTES {
        // Skip the rest of the long line.
        loop {
            let buffer = input.fill_buf()?;
            if buffer.is_empty() {
                break;
            }
            match buffer.iter().position(|b| *b == b'\n') {
                Some(end) => {
                    input.consume(end + 1);
                    break;
                }
                None => {
                    let all = buffer.len();
                    input.consume(all);
                }
            }
        }
        return Ok(Some(Line::TooLong));
    }
    while matches!(bytes.last(), Some(b'\n' | b'\r')) {
        bytes.pop();
    }
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(Some(Line::Blank));
    }
    Ok(Some(Line::Text(bytes)))
}

/// A line's object, checked for `claim` and `evidence`.
fn parse(line: usize, bytes: &[u8]) -> Result<Map<String, Value>, LineError> {
    let error = |why: String| LineError { line, why };
    let value: Value =
        serde_json::from_slice(bytes).map_err(|e| error(format!("not JSON ({e})")))?;
    let Value::Object(object) = value else {
        return Err(error("expected an object {\"claim\", \"evidence\"}".into()));
    };
    match object.get("claim") {
        Some(Value::String(_)) => {}
        Some(_) => return Err(error("\"claim\" must be a string".into())),
        None => return Err(error("\"claim\" is missing".into())),
    }
    match object.get("evidence") {
        Some(Value::String(_)) => {}
        Some(Value::Array(items)) if items.iter().all(Value::is_string) => {}
        Some(_) => {
            return Err(error(
                "\"evidence\" must be a string or a list of strings".into(),
            ))
        }
        None => return Err(error("\"evidence\" is missing".into())),
    }
    Ok(object)
}

/// Scores the good lines of `batch` on every core, in order.
fn score_batch(scorer: &SupportScorer, mut results: Vec<Parsed>) -> Vec<Parsed> {
    let threads = std::thread::available_parallelism()
        .map(usize::from)
        .unwrap_or(1)
        .clamp(1, 8);
    let chunk = results.len().div_ceil(threads).max(1);
    std::thread::scope(|scope| {
        for part in results.chunks_mut(chunk) {
            scope.spawn(move || {
                for object in part.iter_mut().flatten() {
                    add_support(scorer, object);
                }
            });
        }
    });
    results
}

/// Adds `support`, `verdict`, `quote`, `missing` and, when a figure differs, `differs`
/// to a checked object.
fn add_support(scorer: &SupportScorer, object: &mut Map<String, Value>) {
    let claim = object
        .get("claim")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let evidence: Vec<String> = match object.get("evidence") {
        Some(Value::String(text)) => vec![text.clone()],
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect(),
        _ => Vec::new(),
    };
    insert_support(object, judge(scorer, &claim, &evidence));
}

/// `claim` judged against `evidence` (one text or passages, each without its `[n] URL`
/// header) the way every line is: `sourcebot support` and MCP's `judge_claims` agree.
pub fn judge(scorer: &SupportScorer, claim: &str, evidence: &[String]) -> Support {
    let passages: Vec<&str> = evidence
        .iter()
        .map(|p| super::text::strip_evidence_header(p))
        .collect();
    scorer.score(claim, &passages)
}

/// Writes `support`'s fields into `object`: `differs` only when a figure differs.
fn insert_support(object: &mut Map<String, Value>, support: Support) {
    object.insert("support".into(), Value::from(support.score));
    object.insert("verdict".into(), Value::from(support.verdict.as_str()));
    object.insert(
        "quote".into(),
        support.quote.map_or(Value::Null, Value::from),
    );
    object.insert("missing".into(), Value::from(support.missing));
    if !support.differs.is_empty() {
        let differs = serde_json::to_value(&support.differs).unwrap_or(Value::Null);
        object.insert("differs".into(), differs);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(input: &str) -> (String, Vec<LineError>, Summary) {
        let scorer = SupportScorer::builtin().expect("builtin");
        let mut output = Vec::new();
        let mut errors = Vec::new();
        let summary = score_lines(
            &scorer,
            &mut io::Cursor::new(input.as_bytes()),
            &mut output,
            &mut |e| errors.push(e.clone()),
        )
        .expect("in memory");
        (String::from_utf8(output).expect("UTF-8"), errors, summary)
    }

    #[test]
    fn lines_keep_their_fields_and_gain_a_verdict() {
        let (out, errors, summary) = run(concat!(
            r#"{"id": 7, "claim": "Deploys are frozen on Fridays.", "evidence": "Deploys are frozen on Fridays by policy."}"#,
            "\n\n",
            r#"{"claim": "Paris is in Spain.", "evidence": ["[1] https://e.org/x\n\nParis is the capital of France.", "Madrid is in Spain."]}"#,
            "\n"
        ));
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(
            summary,
            Summary {
                scored: 2,
                failed: 0
            }
        );
        let lines: Vec<Value> = out
            .lines()
            .map(|l| serde_json::from_str(l).expect("JSON"))
            .collect();
        assert_eq!(lines[0]["id"], 7);
        assert_eq!(lines[0]["verdict"], "supported");
        assert_eq!(lines[0]["missing"], serde_json::json!([]));
        // "Spain" is on the page; nothing the claim names is missing there either.
        assert_eq!(lines[1]["missing"], serde_json::json!([]));
        for line in &lines {
            let support = line["support"].as_f64().unwrap_or(-1.0);
            assert!((0.0..=1.0).contains(&support), "{line}");
        }
    }

    #[test]
    fn a_figure_the_evidence_gives_differently_is_written_with_it() {
        let mut object = Map::new();
        insert_support(
            &mut object,
            Support {
                score: 0.1,
                verdict: crate::model::SupportVerdict::NotSupported,
                quote: Some("The API serves 900 requests per second.".into()),
                missing: vec!["1,200 requests per second".into()],
                differs: vec![crate::model::Differ {
                    claim: "1,200 requests per second".into(),
                    page: "900 requests per second".into(),
                }],
            },
        );
        assert_eq!(
            object["differs"],
            serde_json::json!([{"claim": "1,200 requests per second", "page": "900 requests per second"}])
        );
        // None differing: no field at all.
        let mut object = Map::new();
        insert_support(
            &mut object,
            Support {
                score: 0.9,
                verdict: crate::model::SupportVerdict::Supported,
                quote: Some("Deploys are frozen on Fridays.".into()),
                missing: Vec::new(),
                differs: Vec::new(),
            },
        );
        assert!(!object.contains_key("differs"), "{object:?}");
        assert_eq!(object["missing"], serde_json::json!([]));
    }

    #[test]
    fn bad_lines_are_named_and_the_rest_still_scored() {
        let (out, errors, summary) = run(concat!(
            "not json\n",
            r#"{"claim": 3, "evidence": "x"}"#,
            "\n",
            r#"{"claim": "x"}"#,
            "\n",
            r#"{"claim": "x", "evidence": [1]}"#,
            "\n",
            "[1, 2]\n",
            r#"{"claim": "Water boils at 100 C.", "evidence": ""}"#,
            "\n"
        ));
        let lines: Vec<usize> = errors.iter().map(|e| e.line).collect();
        assert_eq!(lines, [1, 2, 3, 4, 5]);
        assert!(errors[2].to_string().contains("\"evidence\" is missing"));
        assert_eq!(summary.scored, 1);
        assert!(out.contains("\"verdict\":\"unreadable\""));
    }

    #[test]
    fn an_overlong_line_is_skipped_whole() {
        let long = format!(
            "{{\"claim\": \"{}\", \"evidence\": \"x\"}}\n{}\n",
            "a".repeat(MAX_LINE_BYTES + 10),
            r#"{"claim": "ok", "evidence": "ok"}"#
        );
        let (out, errors, summary) = run(&long);
        assert_eq!(errors.len(), 1);
        assert!(errors[0].why.contains("MiB"));
        assert_eq!(summary.scored, 1);
        assert_eq!(out.lines().count(), 1);
    }
}
