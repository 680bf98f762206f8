//! Turns raw input bytes into an [`Answer`]: checks size and encoding, tells JSON from
//! text, and reads the JSON shapes agents and Slack produce — an answer with sources,
//! agent results, a research report, search results, a Slack message (or a
//! `conversations.history`/`replies` response, an event, an interaction payload; read
//! by [`super::slack_message`]) — into one model. Every rejection names
//! what was wrong: the byte offset of bad UTF-8, the line and column of bad JSON, or the
//! JSON path of a field of the wrong type.

use super::slack_message;
use crate::model::{Answer, InputShape, StructuredSource};
use serde_json::{Map, Value};
use thiserror::Error;

/// Largest input accepted by default, in bytes (10 MiB). Slack messages are at most
/// 40,000 characters and research reports a few hundred kilobytes.
pub const DEFAULT_MAX_INPUT_BYTES: usize = 10 * 1024 * 1024;

/// Most structured sources read from one input; more is an error, not a silent cut.
pub const MAX_STRUCTURED_SOURCES: usize = 100_000;

/// Why input could not be read as an answer.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum InputError {
    /// The input is larger than the limit.
    #[error("input is larger than the limit of {limit} bytes")]
    TooLarge {
        /// The limit in bytes.
        limit: usize,
    },
    /// The input is not UTF-8.
    #[error("input is not valid UTF-8 (first bad byte at offset {offset})")]
    NotUtf8 {
        /// Offset of the first invalid byte.
        offset: usize,
    },
    /// The input is empty or only whitespace.
    #[error("input is empty")]
    Empty,
    /// The input looks like JSON but does not parse.
    #[error("invalid JSON at line {line}, column {column}: {message}")]
    Json {
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What serde_json said.
        message: String,
    },
    /// The JSON parses but is not a shape sourcebot reads.
    #[error("{path}: {message}")]
    Shape {
        /// JSON path of the offending value (`$`, `$.sources[3].url`).
        path: String,
        /// What was expected and found.
        message: String,
    },
}

/// Reads at most `max_bytes + 1` bytes from `reader`, so that [`parse_answer`] can
/// refuse an oversized input without it ever being loaded whole.
pub fn read_limited(reader: impl std::io::Read, max_bytes: usize) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let limit = u64::try_from(max_bytes)
        .unwrap_or(u64::MAX)
        .saturating_add(1);
    let mut bytes = Vec::new();
    reader.take(limit).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// What the caller knows about the input's format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FormatHint {
    /// Decide from the content: JSON when it starts with `{`, or with `[` followed by
    /// `{` or `]`; text otherwise.
    #[default]
    Auto,
    /// It must be JSON (a `.json` file).
    Json,
    /// It is text, even if it starts with a brace.
    Text,
    /// It is a Slack message as JSON: a message object, a `conversations.history` or
    /// `conversations.replies` response (its latest answer is read), an Events API
    /// event or callback, an interaction payload or a `chat.postMessage` response.
    SlackMessage,
}

/// Reads `bytes` as an answer, enforcing `max_bytes`.
pub fn parse_answer(
    bytes: &[u8],
    hint: FormatHint,
    max_bytes: usize,
) -> Result<Answer, InputError> {
    if bytes.len() > max_bytes {
        return Err(InputError::TooLarge { limit: max_bytes });
    }
    let text = std::str::from_utf8(bytes).map_err(|e| InputError::NotUtf8 {
        offset: e.valid_up_to(),
    })?;
    let text = without_bom(text);
    if is_json(text, hint)? {
        json_answer(text, hint)
    } else {
        Ok(Answer::from_text(text))
    }
}

/// [`parse_answer`] on bytes it may keep: a text answer becomes the answer's text
/// without being copied (a file or standard input read whole by the command line).
pub fn parse_answer_owned(
    bytes: Vec<u8>,
    hint: FormatHint,
    max_bytes: usize,
) -> Result<Answer, InputError> {
    if bytes.len() > max_bytes {
        return Err(InputError::TooLarge { limit: max_bytes });
    }
    let mut text = String::from_utf8(bytes).map_err(|e| InputError::NotUtf8 {
        offset: e.utf8_error().valid_up_to(),
    })?;
    if is_json(without_bom(&text), hint)? {
        return json_answer(without_bom(&text), hint);
    }
    if text.starts_with('\u{FEFF}') {
        text.drain(..'\u{FEFF}'.len_utf8());
    }
    Ok(Answer::from_text(text))
}

/// `text` without a leading byte-order mark.
fn without_bom(text: &str) -> &str {
    text.strip_prefix('\u{FEFF}').unwrap_or(text)
}

/// Whether `text` (without its byte-order mark) is read as JSON; an error when there is
/// nothing to read.
fn is_json(text: &str, hint: FormatHint) -> Result<bool, InputError> {
    if text.trim().is_empty() {
        return Err(InputError::Empty);
    }
    Ok(match hint {
        FormatHint::Json | FormatHint::SlackMessage => true,
        FormatHint::Text => false,
        FormatHint::Auto => looks_like_json(text),
    })
}

/// The answer in `text`, JSON: a Slack message when `hint` says so, else any of the
/// answer shapes [`answer_from_json`] reads.
fn json_answer(text: &str, hint: FormatHint) -> Result<Answer, InputError> {
    // Lenient: a lone UTF-16 surrogate escape (a string cut mid-emoji) becomes U+FFFD
    // instead of losing the whole input.
    let (value, _repaired) = slack_message::lenient::parse(text).map_err(|e| InputError::Json {
        line: e.line(),
        column: e.column(),
        message: strip_position(&e.to_string()),
    })?;
    if hint == FormatHint::SlackMessage {
        return slack_answer(&value).unwrap_or_else(|| {
            Err(shape_error(
                "$",
                "expected a Slack message: a message object (type \"message\", or blocks or attachments), a conversations.history or conversations.replies response {ok, messages}, an event or event callback, an interaction payload, or a chat.postMessage response",
            ))
        });
    }
    answer_from_json(&value)
}

/// The answer a Slack JSON document holds, or `None` when it is not one: a message is
/// read as a person sees it; of a list of messages (a history or replies response), the
/// newest one worth checking is read, preferring bots' and apps' messages, else the
/// newest message.
fn slack_answer(value: &Value) -> Option<Result<Answer, InputError>> {
    use slack_message::{read_message, thread, MessageMeta, ReadOptions};
    if let Some(message) = slack_message::message_in(value) {
        return Some(Ok(read_message(message, &ReadOptions::default()).answer));
    }
    let messages = slack_message::messages_in(value)?;
    let by_a_bot = |meta: &MessageMeta| meta.bot_id.is_some();
    let nobody = |_: &MessageMeta| false;
    let query = thread::AnswerQuery {
        before_ts: None,
        exclude: &nobody,
        prefer: &by_a_bot,
    };
    let options = ReadOptions::default();
    if let Some(picked) = thread::latest_answer(
        messages,
        &query,
        &options,
        &super::CollectOptions::default(),
    ) {
        return Some(Ok(picked.read.answer));
    }
    let newest = messages
        .iter()
        .max_by_key(|m| m.get("ts").and_then(Value::as_str).and_then(thread::ts_key));
    Some(match newest {
        Some(message) => Ok(read_message(message, &options).answer),
        None => Err(shape_error("$.messages", "no messages to read")),
    })
}

/// serde_json appends " at line L column C" to its messages; the error carries those.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message.to_string(),
    }
}

fn looks_like_json(text: &str) -> bool {
    let mut chars = text.trim_start().chars().filter(|c| !c.is_whitespace());
    match chars.next() {
        Some('{') => true,
        Some('[') => matches!(chars.next(), Some('{') | Some(']')),
        _ => false,
    }
}

/// Reads an answer from parsed JSON of any supported shape.
pub fn answer_from_json(value: &Value) -> Result<Answer, InputError> {
    match value {
        Value::Array(items) if !items.is_empty() && slack_message::messages_in(value).is_some() => {
            slack_answer(value).unwrap_or_else(|| agent_results(items))
        }
        Value::Array(items) => agent_results(items),
        Value::Object(object) => {
            if object.contains_key("organic") {
                search_results(object)
            } else if object.contains_key("citations") {
                research_report(object)
            } else if !object.contains_key("sources") && is_slack_document(object) {
                slack_answer(value)
                    .unwrap_or_else(|| Err(shape_error("$", unknown_shape_message(object))))
            } else if object.contains_key("text")
                || object.contains_key("answer")
                || object.contains_key("sources")
            {
                answer_json(object, "$")
            } else {
                Err(shape_error("$", unknown_shape_message(object)))
            }
        }
        other => Err(shape_error(
            "$",
            format!(
                "expected an object or an array of agent results, found {}",
                type_name(other)
            ),
        )),
    }
}

/// Whether an object is one of the Slack documents [`slack_answer`] reads.
fn is_slack_document(object: &Map<String, Value>) -> bool {
    let value_kind = object.get("type").and_then(Value::as_str);
    matches!(
        value_kind,
        Some("message" | "app_mention" | "event_callback" | "message_action" | "block_actions")
    ) || object.get("blocks").is_some_and(Value::is_array)
        || object.get("attachments").is_some_and(Value::is_array)
        || object.get("messages").is_some_and(Value::is_array)
        || object.get("event").is_some_and(Value::is_object)
        || (object.get("message").is_some_and(Value::is_object) && object.contains_key("ts"))
}

fn unknown_shape_message(object: &Map<String, Value>) -> String {
    let mut keys: Vec<&str> = object.keys().map(String::as_str).take(8).collect();
    keys.sort_unstable();
    format!(
        "unknown shape: expected {{text, sources}}, [{{subagent, success, data}}], {{title, phase, citations}}, {{organic}} or a Slack message; found an object with keys [{}]",
        keys.join(", ")
    )
}

fn shape_error(path: &str, message: impl Into<String>) -> InputError {
    InputError::Shape {
        path: path.to_string(),
        message: message.into(),
    }
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// `{text, sources: [...]}` (also `answer` for `text`).
fn answer_json(object: &Map<String, Value>, path: &str) -> Result<Answer, InputError> {
    let text = match object.get("text").or_else(|| object.get("answer")) {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => {
            let key = if object.contains_key("text") {
                "text"
            } else {
                "answer"
            };
            return Err(expected(&format!("{path}.{key}"), "a string", other));
        }
    };
    let sources = match object.get("sources") {
        None | Some(Value::Null) => Vec::new(),
        Some(value) => structured_sources(value, &format!("{path}.sources"), None)?,
    };
    Ok(Answer {
        text,
        sources,
        shape: InputShape::AnswerJson,
        ..Answer::default()
    })
}

fn expected(path: &str, what: &str, found: &Value) -> InputError {
    shape_error(path, format!("expected {what}, found {}", type_name(found)))
}

fn array<'v>(value: &'v Value, path: &str) -> Result<&'v Vec<Value>, InputError> {
    let items = value
        .as_array()
        .ok_or_else(|| expected(path, "an array", value))?;
    if items.len() > MAX_STRUCTURED_SOURCES {
        return Err(shape_error(
            path,
            format!(
                "{} entries; at most {MAX_STRUCTURED_SOURCES} are read",
                items.len()
            ),
        ));
    }
    Ok(items)
}

fn object<'v>(value: &'v Value, path: &str) -> Result<&'v Map<String, Value>, InputError> {
    value
        .as_object()
        .ok_or_else(|| expected(path, "an object", value))
}

/// An optional string field.
fn opt_string(
    object: &Map<String, Value>,
    key: &str,
    path: &str,
) -> Result<Option<String>, InputError> {
    match object.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(expected(&format!("{path}.{key}"), "a string", other)),
    }
}

/// An optional string field where a number is also fine and written out (ids, dates).
fn opt_id(
    object: &Map<String, Value>,
    key: &str,
    path: &str,
) -> Result<Option<String>, InputError> {
    match object.get(key) {
        Some(Value::Number(n)) => Ok(Some(n.to_string())),
        _ => opt_string(object, key, path),
    }
}

/// An optional non-negative whole number (search positions, citation numbers).
fn opt_position(
    object: &Map<String, Value>,
    key: &str,
    path: &str,
) -> Result<Option<u32>, InputError> {
    let field = format!("{path}.{key}");
    match object.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => match n.as_u64().and_then(|v| u32::try_from(v).ok()) {
            Some(v) => Ok(Some(v)),
            None => match n.as_f64() {
                Some(f) if f.fract() == 0.0 && (0.0..=f64::from(u32::MAX)).contains(&f) => {
                    Ok(Some(f as u32))
                }
                _ => Err(shape_error(
                    &field,
                    format!("expected a whole number ≥ 0, found {n}"),
                )),
            },
        },
        Some(Value::String(s)) => s.trim().parse::<u32>().map(Some).map_err(|_| {
            shape_error(
                &field,
                format!("expected a whole number ≥ 0, found \"{s}\""),
            )
        }),
        Some(other) => Err(expected(&field, "a whole number", other)),
    }
}

/// An optional confidence in 0.0–1.0.
fn opt_confidence(
    object: &Map<String, Value>,
    key: &str,
    path: &str,
) -> Result<Option<f64>, InputError> {
    let field = format!("{path}.{key}");
    match object.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => match n.as_f64() {
            Some(v) if (0.0..=1.0).contains(&v) => Ok(Some(v)),
            _ => Err(shape_error(
                &field,
                format!("expected a number from 0 to 1, found {n}"),
            )),
        },
        Some(other) => Err(expected(&field, "a number from 0 to 1", other)),
    }
}

/// `[{url?, title, type?, snippet?, date?, position?, confidence?}]`.
fn structured_sources(
    value: &Value,
    path: &str,
    subagent: Option<&str>,
) -> Result<Vec<StructuredSource>, InputError> {
    let items = array(value, path)?;
    let mut sources = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let item_path = format!("{path}[{i}]");
        sources.push(structured_source(
            object(item, &item_path)?,
            &item_path,
            subagent,
        )?);
    }
    Ok(sources)
}

fn structured_source(
    object: &Map<String, Value>,
    path: &str,
    subagent: Option<&str>,
) -> Result<StructuredSource, InputError> {
    let url = match opt_string(object, "url", path)? {
        Some(url) => Some(url),
        None => opt_string(object, "link", path)?,
    };
    let title = opt_string(object, "title", path)?;
    if url.is_none() && title.as_deref().is_none_or(|t| t.trim().is_empty()) {
        return Err(shape_error(path, "a source needs a url or a title"));
    }
    Ok(StructuredSource {
        url,
        title,
        kind: opt_string(object, "type", path)?,
        snippet: opt_string(object, "snippet", path)?,
        date: opt_id(object, "date", path)?,
        position: opt_position(object, "position", path)?,
        confidence: opt_confidence(object, "confidence", path)?,
        citation_id: opt_id(object, "id", path)?,
        subagent: subagent.map(str::to_string),
    })
}

/// `[{subagent, success, data: {sources, text?}}]`: failed results are counted, not read.
fn agent_results(items: &[Value]) -> Result<Answer, InputError> {
    let mut answer = Answer {
        shape: InputShape::AgentResults,
        ..Answer::default()
    };
    let mut texts = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let path = format!("$[{i}]");
        let result = object(item, &path)?;
        let success = match result.get("success") {
            Some(Value::Bool(b)) => *b,
            Some(other) => return Err(expected(&format!("{path}.success"), "a boolean", other)),
            None => {
                return Err(shape_error(
                    &path,
                    "an agent result needs `success` (true or false)",
                ))
            }
        };
        if !success {
            answer.failed_agent_results += 1;
            continue;
        }
        let subagent =
            opt_string(result, "subagent", &path)?.unwrap_or_else(|| format!("agent {}", i + 1));
        let data_path = format!("{path}.data");
        let data = match result.get("data") {
            None | Some(Value::Null) => continue,
            Some(data) => object(data, &data_path)?,
        };
        for key in ["text", "answer", "summary"] {
            if let Some(text) = opt_string(data, key, &data_path)? {
                texts.push(text);
                break;
            }
        }
        if let Some(sources) = data.get("sources") {
            let found =
                structured_sources(sources, &format!("{data_path}.sources"), Some(&subagent))?;
            answer.sources.extend(found);
        }
        if answer.sources.len() > MAX_STRUCTURED_SOURCES {
            return Err(shape_error(
                "$",
                format!("more than {MAX_STRUCTURED_SOURCES} sources"),
            ));
        }
    }
    answer.text = texts.join("\n\n");
    Ok(answer)
}

/// `{title, phase, citations: [{id, text, url?, confidenceScore?, domain?}], generatedAt}`.
///
/// Each citation becomes a structured source numbered by its place in the list, and a
/// paragraph of the answer text `{text} [n]`, so that a citation without a URL shows
/// up as a claim whose source cannot be followed.
fn research_report(object_map: &Map<String, Value>) -> Result<Answer, InputError> {
    let items = array(
        object_map.get("citations").unwrap_or(&Value::Null),
        "$.citations",
    )?;
    let mut text = String::new();
    if let Some(title) = opt_string(object_map, "title", "$")? {
        text.push_str("# ");
        text.push_str(title.trim());
        text.push_str("\n\n");
    }
    let mut sources = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let path = format!("$.citations[{i}]");
        let citation = object(item, &path)?;
        let number = u32::try_from(i + 1).unwrap_or(u32::MAX);
        let cited_text = opt_string(citation, "text", &path)?.unwrap_or_default();
        let url = opt_string(citation, "url", &path)?.filter(|u| !u.trim().is_empty());
        let id = opt_id(citation, "id", &path)?;
        let domain = opt_string(citation, "domain", &path)?;
        if url.is_none() && cited_text.trim().is_empty() && id.is_none() {
            return Err(shape_error(
                &path,
                "a citation needs a text, an id or a url",
            ));
        }
        // The citation text is what the source is cited for, not its title: a linked
        // citation is titled from its URL and keeps the text as its snippet.
        let title = match &url {
            Some(_) => None,
            None => short_title(&cited_text)
                .or(domain)
                .or_else(|| Some(format!("citation {}", id.as_deref().unwrap_or("?")))),
        };
        let paragraph = one_line(&cited_text);
        if !paragraph.is_empty() {
            text.push_str(&paragraph);
            text.push_str(&format!(" [{number}]\n\n"));
        }
        let has_url = url.is_some();
        sources.push(StructuredSource {
            url,
            title,
            kind: None,
            snippet: (has_url || cited_text.chars().count() > SHORT_TITLE_CHARS)
                .then_some(cited_text)
                .filter(|t| !t.trim().is_empty()),
            date: None,
            position: Some(number),
            confidence: opt_confidence(citation, "confidenceScore", &path)?,
            citation_id: id,
            subagent: None,
        });
    }
    Ok(Answer {
        text,
        sources,
        shape: InputShape::ResearchReport,
        ..Answer::default()
    })
}

/// Longest citation text used as a title as it is.
const SHORT_TITLE_CHARS: usize = 120;

fn short_title(text: &str) -> Option<String> {
    let text = text.trim();
    (!text.is_empty() && text.chars().count() <= SHORT_TITLE_CHARS).then(|| one_line(text))
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `{organic: [{title, link, snippet, date?, position}]}`.
fn search_results(object_map: &Map<String, Value>) -> Result<Answer, InputError> {
    let items = array(
        object_map.get("organic").unwrap_or(&Value::Null),
        "$.organic",
    )?;
    let mut sources = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let path = format!("$.organic[{i}]");
        let result = object(item, &path)?;
        let mut source = structured_source(result, &path, None)?;
        if source.url.is_none() {
            return Err(shape_error(&path, "a search result needs a `link`"));
        }
        source.kind = source.kind.or_else(|| Some("web".to_string()));
        sources.push(source);
    }
    Ok(Answer {
        text: String::new(),
        sources,
        shape: InputShape::SearchResults,
        ..Answer::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<Answer, InputError> {
        parse_answer(s.as_bytes(), FormatHint::Auto, DEFAULT_MAX_INPUT_BYTES)
    }

    #[test]
    fn text_is_text() {
        let a = parse("Rust is fast [1].\n\n[1] https://a.com").unwrap();
        assert_eq!(a.shape, InputShape::Text);
        let a = parse("[1] https://a.com starts with a bracket").unwrap();
        assert_eq!(a.shape, InputShape::Text);
        let a = parse("[Source: web - A](https://a.com)").unwrap();
        assert_eq!(a.shape, InputShape::Text);
    }

    #[test]
    fn answer_with_sources() {
        let a = parse(r#"{"text":"Hi [1]","sources":[{"url":"https://a.com","title":"A","type":"web","snippet":"s","date":"2024-01-01","position":1,"confidence":0.9}]}"#).unwrap();
        assert_eq!(a.shape, InputShape::AnswerJson);
        assert_eq!(a.text, "Hi [1]");
        assert_eq!(a.sources[0].position, Some(1));
        assert_eq!(a.sources[0].confidence, Some(0.9));
        assert_eq!(a.sources[0].kind.as_deref(), Some("web"));
    }

    #[test]
    fn agent_results_skip_failures() {
        let a = parse(r#"[{"subagent":"web","success":true,"data":{"sources":[{"url":"https://a.com","title":"A"}]}},{"subagent":"slack","success":false,"data":null}]"#).unwrap();
        assert_eq!(a.shape, InputShape::AgentResults);
        assert_eq!(a.failed_agent_results, 1);
        assert_eq!(a.sources.len(), 1);
        assert_eq!(a.sources[0].subagent.as_deref(), Some("web"));
    }

    #[test]
    fn research_report_becomes_numbered_paragraphs() {
        let a = parse(r#"{"title":"T","phase":"final","citations":[{"id":"c1","text":"Rust is fast","url":"https://a.com","confidenceScore":0.8,"domain":"a.com"},{"id":"c2","text":"No link here"}],"generatedAt":"2026-01-01"}"#).unwrap();
        assert_eq!(a.shape, InputShape::ResearchReport);
        assert!(a.text.contains("Rust is fast [1]"));
        assert!(a.text.contains("No link here [2]"));
        assert_eq!(a.sources[1].url, None);
        assert_eq!(a.sources[0].confidence, Some(0.8));
        assert_eq!(a.sources[0].citation_id.as_deref(), Some("c1"));
    }

    #[test]
    fn search_results_shape() {
        let a = parse(
            r#"{"organic":[{"title":"A","link":"https://a.com","snippet":"s","position":1}]}"#,
        )
        .unwrap();
        assert_eq!(a.shape, InputShape::SearchResults);
        assert_eq!(a.sources[0].url.as_deref(), Some("https://a.com"));
    }

    #[test]
    fn errors_name_what_is_wrong() {
        assert_eq!(parse("  \n"), Err(InputError::Empty));
        match parse("{\"text\": \"a\",\n \"sources\": [}") {
            Err(InputError::Json { line, column, .. }) => assert_eq!((line, column), (2, 14)),
            other => panic!("{other:?}"),
        }
        let e = parse(r#"{"text":"a","sources":[{"url":5}]}"#).unwrap_err();
        assert_eq!(
            e.to_string(),
            "$.sources[0].url: expected a string, found a number"
        );
        let e = parse(r#"{"text":"a","sources":[{"url":"https://a.com","confidence":7}]}"#)
            .unwrap_err();
        assert!(e
            .to_string()
            .starts_with("$.sources[0].confidence: expected a number from 0 to 1"));
        let e = parse(r#"{"foo":1}"#).unwrap_err();
        assert!(e.to_string().contains("unknown shape"), "{e}");
        let e = parse(r#"[{"subagent":"x"}]"#).unwrap_err();
        assert!(e.to_string().contains("success"), "{e}");
        let e = parse(r#"{"organic":[{"title":"A"}]}"#).unwrap_err();
        assert!(e.to_string().contains("$.organic[0]"), "{e}");
        let e = parse(r#"{"text":"a","sources":[{}]}"#).unwrap_err();
        assert!(e.to_string().contains("url or a title"), "{e}");
    }

    #[test]
    fn size_and_encoding() {
        assert_eq!(
            parse_answer(b"abcdef", FormatHint::Auto, 3),
            Err(InputError::TooLarge { limit: 3 })
        );
        assert_eq!(
            parse_answer(b"ab\xffcd", FormatHint::Auto, 100),
            Err(InputError::NotUtf8 { offset: 2 })
        );
    }

    /// The owned reader decides and errs exactly as the borrowed one, on every hint.
    #[test]
    fn owned_bytes_are_read_as_borrowed_ones() {
        let inputs: [&[u8]; 10] = [
            b"Deploys freeze on Fridays [1].\n\n[1] https://example.com/a - A",
            "\u{FEFF}With a byte-order mark [1].\n\n[1] https://example.com/b".as_bytes(),
            "\u{FEFF}{\"text\":\"a [1]\",\"sources\":[{\"url\":\"https://a.com\"}]}".as_bytes(),
            br#"{"text":"a","sources":[{"url":5}]}"#,
            b"{not json",
            b"   \n ",
            "\u{FEFF}".as_bytes(),
            b"ab\xffcd",
            b"abcdefghijklmnop",
            br#"{"type":"message","ts":"1.2","text":"hi <https://a.com|A>"}"#,
        ];
        for bytes in inputs {
            for hint in [
                FormatHint::Auto,
                FormatHint::Json,
                FormatHint::Text,
                FormatHint::SlackMessage,
            ] {
                for max in [12, 1 << 20] {
                    assert_eq!(
                        parse_answer_owned(bytes.to_vec(), hint, max),
                        parse_answer(bytes, hint, max),
                        "{hint:?}, {max}: {:?}",
                        String::from_utf8_lossy(bytes)
                    );
                }
            }
        }
        let answer = parse_answer_owned(
            "\u{FEFF}Text [1].".as_bytes().to_vec(),
            FormatHint::Auto,
            100,
        )
        .expect("text");
        assert_eq!(answer.text, "Text [1].");
    }

    #[test]
    fn hints_override_detection() {
        assert!(parse_answer(b"{not json", FormatHint::Text, 100).is_ok());
        assert!(matches!(
            parse_answer(b"hello", FormatHint::Json, 100),
            Err(InputError::Json { .. })
        ));
    }

    #[test]
    fn slack_messages_are_read_as_slack_shows_them() {
        let message = r#"{"type":"message","ts":"1700000000.000100","bot_id":"BAI","text":"Hello! I found some results for you!","blocks":[{"type":"section","text":{"type":"mrkdwn","text":"Deploys freeze on Fridays <https://wiki.example.com/freeze|Freeze policy>."}}]}"#;
        for hint in [FormatHint::Auto, FormatHint::Json, FormatHint::SlackMessage] {
            let answer = parse_answer(message.as_bytes(), hint, 1 << 20).expect("a message");
            assert_eq!(answer.shape, InputShape::SlackMessage);
            assert!(answer.text.contains("Freeze policy"), "{}", answer.text);
            assert!(!answer.text.contains("Hello!"), "{}", answer.text);
        }
        // A history response: the bot's answer, not the thanks after it.
        let history = r#"{"ok":true,"messages":[
            {"type":"message","ts":"1700000000.000300","user":"U1","text":"thanks!"},
            {"type":"message","ts":"1700000000.000200","bot_id":"BAI","text":"It shipped in 2015 <https://a.example.com|A>."},
            {"type":"message","ts":"1700000000.000100","user":"U1","text":"When did it ship?"}],"has_more":false}"#;
        let answer = parse(history).expect("history");
        assert_eq!(answer.text, "It shipped in 2015 <https://a.example.com|A>.");
        let answer = parse(
            r#"{"ok":true,"messages":[{"type":"message","ts":"1.1","user":"U1","text":"hi"}]}"#,
        )
        .expect("history");
        assert_eq!(answer.text, "hi");
        let e = parse(r#"{"ok":true,"messages":[]}"#).unwrap_err();
        assert!(e.to_string().contains("$.messages: no messages"), "{e}");
        // An {text, sources} answer stays what it is.
        assert_eq!(
            parse(r#"{"text":"a","sources":[]}"#).expect("answer").shape,
            InputShape::AnswerJson
        );
        // Told it is a Slack message when it is not: said so.
        let e = parse_answer(
            br#"{"text":"a","sources":[]}"#,
            FormatHint::SlackMessage,
            1 << 20,
        )
        .unwrap_err();
        assert!(e.to_string().contains("expected a Slack message"), "{e}");
    }

    #[test]
    fn a_lone_surrogate_escape_does_not_lose_the_input() {
        let answer =
            parse(r#"{"type":"message","ts":"1.1","text":"cut \ud83d <https://a.example.com|A>"}"#)
                .expect("repaired");
        assert_eq!(answer.text, "cut \u{FFFD} <https://a.example.com|A>");
    }
}
