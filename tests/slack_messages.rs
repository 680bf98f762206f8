//! The reader against a corpus of Slack messages (tests/data/slack): one message object a
//! file, exactly as `conversations.history` returns it, in the shapes of Slack's Block Kit
//! and attachment references and of the official SDKs' fixtures. `expected.json` says for
//! each what a person reading it in Slack would say: the sources it cites, in order, with
//! their titles and how often each is pointed at; how many statements cite something and
//! how many want a source and cite none; what is not part of what people see (the
//! notification fallback, images); whether `text` had to be read; how much was skipped.
//! `claims`, where given, is every claim's text in order, as a person reads it; no claim
//! of any fixture may hold link markup.
//! A fixture marked `known_gap` is one where the reader does not yet agree with Slack:
//! its differences are printed, not failed, and it fails once it agrees, so that the mark
//! goes. How to add a message: tests/data/README.md.

use serde_json::Value;
use sourcebot::collect::slack_message::{message_in, read_message, MessageRead, ReadOptions};
use sourcebot::collect::{collect, CollectOptions, Collected};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;

#[path = "support/markup.rs"]
mod markup;
use markup::has_link_markup;

/// The AI-answer fixture the command-line test reads (sections, `[n]` markers, context
/// references).
const CLI_FIXTURE: &str = "ai_section_context_citations";

fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/slack")
}

fn fixture_path(stem: &str) -> PathBuf {
    corpus_dir().join("messages").join(format!("{stem}.json"))
}

/// Every fixture, by file stem.
fn fixtures() -> BTreeMap<String, Value> {
    let dir = corpus_dir().join("messages");
    let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let mut out = BTreeMap::new();
    for entry in entries {
        let path = entry.expect("directory entry").path();
        if path.extension().and_then(|e| e.to_str()) != Some("json") {
            continue;
        }
        let stem = path
            .file_stem()
            .and_then(|s| s.to_str())
            .expect("a UTF-8 file name")
            .to_string();
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let message = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("{}: not JSON: {e}", path.display()));
        out.insert(stem, message);
    }
    assert!(!out.is_empty(), "no fixtures in {}", dir.display());
    out
}

/// One source as a person would list it.
#[derive(Debug, Clone, PartialEq)]
struct ExpectedSource {
    url: String,
    /// `None`: the message gives the link no title, so any title made from the URL will do.
    title: Option<String>,
    references: usize,
}

/// What `expected.json` says about one fixture.
#[derive(Debug, Clone)]
struct Expected {
    sources: Vec<ExpectedSource>,
    cited_claims: usize,
    uncited_claims: usize,
    /// Every claim's text, in order, as a person reads it (optional).
    claims: Option<Vec<String>>,
    claims_contain: Vec<String>,
    not_in_text: Vec<String>,
    used_fallback_text: bool,
    skipped: Option<usize>,
    known_gap: Option<String>,
}

const KEYS: [&str; 11] = [
    "about",
    "reference",
    "sources",
    "cited_claims",
    "uncited_claims",
    "claims",
    "claims_contain",
    "not_in_text",
    "used_fallback_text",
    "skipped",
    "known_gap",
];

/// Every expectation, by fixture stem.
fn expectations() -> BTreeMap<String, Expected> {
    let path = corpus_dir().join("expected.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let document: Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("expected.json: not JSON: {e}"));
    let entries = document
        .as_object()
        .expect("expected.json: an object keyed by fixture stem");
    entries
        .iter()
        .map(|(stem, entry)| (stem.clone(), expected(stem, entry)))
        .collect()
}

fn expected(stem: &str, entry: &Value) -> Expected {
    let object = entry
        .as_object()
        .unwrap_or_else(|| panic!("expected.json: {stem}: not an object"));
    for key in object.keys() {
        assert!(
            KEYS.contains(&key.as_str()),
            "expected.json: {stem}: unknown field {key:?}"
        );
    }
    for key in ["about", "reference"] {
        let text = string(stem, key, &object[key]);
        assert!(
            !text.trim().is_empty(),
            "expected.json: {stem}: {key} is empty"
        );
    }
    let sources = object["sources"]
        .as_array()
        .unwrap_or_else(|| panic!("expected.json: {stem}: sources: not an array"))
        .iter()
        .map(|s| ExpectedSource {
            url: string(stem, "sources[].url", &s["url"]),
            title: match &s["title"] {
                Value::Null => None,
                title => Some(string(stem, "sources[].title", title)),
            },
            references: count(stem, "sources[].references", &s["references"]),
        })
        .collect();
    Expected {
        sources,
        cited_claims: count(stem, "cited_claims", &object["cited_claims"]),
        uncited_claims: count(stem, "uncited_claims", &object["uncited_claims"]),
        claims: object.get("claims").map(|v| strings(stem, "claims", v)),
        claims_contain: strings(stem, "claims_contain", &object["claims_contain"]),
        not_in_text: strings(stem, "not_in_text", &object["not_in_text"]),
        used_fallback_text: object["used_fallback_text"]
            .as_bool()
            .unwrap_or_else(|| panic!("expected.json: {stem}: used_fallback_text: not a bool")),
        skipped: object.get("skipped").map(|v| count(stem, "skipped", v)),
        known_gap: object
            .get("known_gap")
            .map(|v| string(stem, "known_gap", v)),
    }
}

fn string(stem: &str, field: &str, value: &Value) -> String {
    value
        .as_str()
        .unwrap_or_else(|| panic!("expected.json: {stem}: {field}: not a string"))
        .to_string()
}

fn count(stem: &str, field: &str, value: &Value) -> usize {
    value
        .as_u64()
        .unwrap_or_else(|| panic!("expected.json: {stem}: {field}: not a count")) as usize
}

fn strings(stem: &str, field: &str, value: &Value) -> Vec<String> {
    value
        .as_array()
        .unwrap_or_else(|| panic!("expected.json: {stem}: {field}: not an array"))
        .iter()
        .map(|v| string(stem, field, v))
        .collect()
}

/// The message read and collected, as every entry point does it.
fn read_and_collect(message: &Value) -> (MessageRead, Collected) {
    let read = read_message(message, &ReadOptions::default());
    let collected = collect(&read.answer, &CollectOptions::default());
    (read, collected)
}

/// Where the reading differs from the expectation, one line a difference, each naming
/// the field.
fn differences(expected: &Expected, read: &MessageRead, collected: &Collected) -> Vec<String> {
    let mut out = Vec::new();
    let got: Vec<ExpectedSource> = collected
        .sources
        .iter()
        .map(|s| ExpectedSource {
            url: s
                .canonical_url
                .clone()
                .or_else(|| s.url.clone())
                .unwrap_or_default(),
            title: Some(s.title.clone()),
            references: s.references,
        })
        .collect();
    if got.len() != expected.sources.len() {
        out.push(format!(
            "sources: {} found, {} expected: found {:?}",
            got.len(),
            expected.sources.len(),
            got.iter().map(|s| s.url.as_str()).collect::<Vec<_>>()
        ));
    }
    for (i, (got, want)) in got.iter().zip(&expected.sources).enumerate() {
        if got.url != want.url {
            out.push(format!(
                "sources[{i}].url: {:?}, expected {:?}",
                got.url, want.url
            ));
        }
        if want.title.is_some() && got.title != want.title {
            out.push(format!(
                "sources[{i}].title: {:?}, expected {:?}",
                got.title.as_deref().unwrap_or_default(),
                want.title.as_deref().unwrap_or_default()
            ));
        }
        if got.references != want.references {
            out.push(format!(
                "sources[{i}].references: {}, expected {}",
                got.references, want.references
            ));
        }
    }
    let metrics = &collected.metrics;
    for (field, got, want) in [
        ("cited_claims", metrics.cited_claims, expected.cited_claims),
        (
            "uncited_claims",
            metrics.uncited_claims,
            expected.uncited_claims,
        ),
    ] {
        if got != want {
            out.push(format!("{field}: {got}, expected {want}"));
        }
    }
    if let Some(want) = &expected.claims {
        let got: Vec<&str> = collected.claims.iter().map(|c| c.text.as_str()).collect();
        if got != *want {
            out.push(format!("claims: {got:?}, expected {want:?}"));
        }
    }
    for claim in &collected.claims {
        if let Some(what) = has_link_markup(&claim.text) {
            out.push(format!("claims: {what} in {:?}", claim.text));
        }
    }
    for part in &expected.claims_contain {
        if !collected
            .claims
            .iter()
            .any(|c| c.text.contains(part.as_str()))
        {
            out.push(format!("claims_contain: no claim contains {part:?}"));
        }
    }
    for part in &expected.not_in_text {
        if read.answer.text.contains(part.as_str()) {
            out.push(format!("not_in_text: the text contains {part:?}"));
        }
    }
    if read.notes.used_fallback_text != expected.used_fallback_text {
        out.push(format!(
            "used_fallback_text: {}, expected {}",
            read.notes.used_fallback_text, expected.used_fallback_text
        ));
    }
    if let Some(want) = expected.skipped {
        let got = read.notes.counts.total();
        if got != want {
            out.push(format!(
                "skipped: {got}, expected {want}: {:?}",
                read.notes.skipped
            ));
        }
    }
    if !out.is_empty() {
        out.push(format!("(text read: {:?})", read.answer.text));
        let claims: Vec<(&str, usize)> = collected
            .claims
            .iter()
            .map(|c| (c.text.as_str(), c.cites.len()))
            .collect();
        out.push(format!(
            "(claims and how many sources each cites: {claims:?})"
        ));
    }
    out
}

#[test]
fn every_fixture_has_an_expectation_and_every_expectation_a_fixture() {
    let fixtures: Vec<String> = fixtures().into_keys().collect();
    let expected: Vec<String> = expectations().into_keys().collect();
    let missing: Vec<&String> = fixtures.iter().filter(|s| !expected.contains(s)).collect();
    let orphans: Vec<&String> = expected.iter().filter(|s| !fixtures.contains(s)).collect();
    assert!(
        missing.is_empty(),
        "fixtures without an entry in expected.json: {missing:?}"
    );
    assert!(
        orphans.is_empty(),
        "entries in expected.json without a fixture: {orphans:?}"
    );
}

#[test]
fn fixtures_are_bare_message_objects() {
    for (stem, message) in fixtures() {
        let object = message
            .as_object()
            .unwrap_or_else(|| panic!("{stem}: not a JSON object"));
        assert_eq!(
            object.get("type").and_then(Value::as_str),
            Some("message"),
            "{stem}: type"
        );
        assert!(
            object.get("ts").and_then(Value::as_str).is_some(),
            "{stem}: ts"
        );
        for wrapper in ["ok", "messages", "event", "message", "channel"] {
            assert!(
                !object.contains_key(wrapper),
                "{stem}: has {wrapper:?}: a fixture is the message alone, as conversations.history lists it"
            );
        }
        assert_eq!(
            message_in(&message),
            Some(&message),
            "{stem}: not read as a message"
        );
    }
}

#[test]
fn each_message_reads_as_slack_shows_it() {
    let fixtures = fixtures();
    let expectations = expectations();
    let mut failures = Vec::new();
    let mut gaps = 0;
    for (stem, message) in &fixtures {
        let Some(expected) = expectations.get(stem) else {
            continue; // reported by every_fixture_has_an_expectation…
        };
        let (read, collected) = read_and_collect(message);
        let found = differences(expected, &read, &collected);
        match (&expected.known_gap, found.is_empty()) {
            (None, true) => {}
            (None, false) => failures.extend(found.iter().map(|d| format!("{stem}: {d}"))),
            (Some(gap), false) => {
                gaps += 1;
                eprintln!("KNOWN GAP {stem}: {gap}");
                for d in &found {
                    eprintln!("    {d}");
                }
            }
            (Some(_), true) => failures.push(format!(
                "{stem}: reads as expected now: remove its known_gap from expected.json"
            )),
        }
    }
    eprintln!(
        "{} Slack messages checked, {gaps} known gap(s) skipped",
        fixtures.len()
    );
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

/// The JSON report of `sourcebot check --input slack-message --format json --no-verify`
/// on `path`, with no SOURCEBOT_ setting inherited.
fn check_slack_message_file(path: &std::path::Path) -> Value {
    let mut command = Command::new(env!("CARGO_BIN_EXE_sourcebot"));
    command
        .args([
            "check",
            "--input",
            "slack-message",
            "--format",
            "json",
            "--no-verify",
        ])
        .arg(path)
        .current_dir(env!("CARGO_MANIFEST_DIR"));
    for (key, _) in std::env::vars() {
        if key.starts_with("SOURCEBOT_") {
            command.env_remove(key);
        }
    }
    let output = command.output().expect("run sourcebot");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {stderr}"))
}

/// `sourcebot check --input slack-message --format json --no-verify` on one fixture,
/// with no SOURCEBOT_ setting inherited: the sources in its JSON (grouped by kind there)
/// are the expected ones, in id order.
#[test]
fn the_command_line_reads_an_ai_answer_fixture() {
    let report = check_slack_message_file(&fixture_path(CLI_FIXTURE));
    assert_eq!(report["shape"], "slack_message");
    let mut sources: Vec<&Value> = report["groups"]
        .as_array()
        .expect("groups")
        .iter()
        .flat_map(|g| g["sources"].as_array().expect("group sources"))
        .collect();
    sources.sort_by_key(|s| s["id"].as_u64());
    let got: Vec<ExpectedSource> = sources
        .iter()
        .map(|s| ExpectedSource {
            url: s["canonical_url"].as_str().unwrap_or_default().to_string(),
            title: s["title"].as_str().map(str::to_string),
            references: s["references"].as_u64().unwrap_or_default() as usize,
        })
        .collect();
    let expected = &expectations()[CLI_FIXTURE];
    assert!(
        expected.known_gap.is_none(),
        "pick a fixture without a known gap"
    );
    assert_eq!(got.len(), expected.sources.len(), "{got:?}");
    for (got, want) in got.iter().zip(&expected.sources) {
        assert_eq!(got.url, want.url);
        assert_eq!(got.references, want.references, "{}", want.url);
        if want.title.is_some() {
            assert_eq!(got.title, want.title, "{}", want.url);
        }
    }
    assert_eq!(
        report["metrics"]["cited_claims"].as_u64(),
        Some(expected.cited_claims as u64)
    );
}

/// A message as a Socket Mode envelope carries it (docs.slack.dev/apis/events-api/using-socket-mode:
/// `{envelope_id, type: "events_api", payload: {event: …}, accepts_response_payload}`,
/// and `type: "interactive"` with a `message_action` payload) reads as the message
/// itself, on the command line too.
#[test]
fn socket_mode_envelopes_read_as_the_message_they_carry() {
    let message = &fixtures()["claims_mrkdwn_markup"];
    let mut event = message.clone();
    event["channel"] = Value::from("C07BUILDS1");
    let events_api = serde_json::json!({
        "envelope_id": "dbdd0ef3-1543-4f94-bfb4-133d0e6c1545",
        "type": "events_api",
        "accepts_response_payload": false,
        "retry_attempt": 0,
        "retry_reason": "",
        "payload": {
            "token": "XXYYZZ",
            "team_id": "T07ACME001",
            "api_app_id": "A07SOURCE1",
            "event": event,
            "type": "event_callback",
            "event_id": "Ev07ABCDEF01",
            "event_time": 1731600000
        }
    });
    let interactive = serde_json::json!({
        "envelope_id": "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0",
        "type": "interactive",
        "accepts_response_payload": false,
        "payload": {
            "type": "message_action",
            "callback_id": "check_sources",
            "trigger_id": "13345224609.738474920.8088930838d88f008e0",
            "team": {"id": "T07ACME001", "domain": "acme"},
            "channel": {"id": "C07BUILDS1", "name": "builds"},
            "user": {"id": "U07DANA001", "name": "dana"},
            "message_ts": "1731600000.000100",
            "message": message
        }
    });
    let slash = serde_json::json!({
        "envelope_id": "1a2b", "type": "slash_commands",
        "payload": {"command": "/sources", "text": "hello"}
    });
    assert!(
        message_in(&slash).is_none(),
        "a slash command carries no message"
    );
    let (_, bare) = read_and_collect(message);
    let bare_claims: Vec<&str> = bare.claims.iter().map(|c| c.text.as_str()).collect();
    for envelope in [&events_api, &interactive] {
        let inner = message_in(envelope).expect("the envelope's message");
        let (_, collected) = read_and_collect(inner);
        let claims: Vec<&str> = collected.claims.iter().map(|c| c.text.as_str()).collect();
        assert_eq!(claims, bare_claims);
        assert_eq!(collected.sources.len(), bare.sources.len());

        let dir = tempfile::tempdir().expect("temporary directory");
        let path = dir.path().join("envelope.json");
        std::fs::write(&path, serde_json::to_vec(envelope).expect("JSON")).expect("write");
        let report = check_slack_message_file(&path);
        let texts: Vec<&str> = report["claims"]
            .as_array()
            .expect("claims")
            .iter()
            .filter_map(|c| c["text"].as_str())
            .collect();
        assert_eq!(texts, bare_claims);
    }
}
