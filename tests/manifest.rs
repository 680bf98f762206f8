//! The Slack app manifests (`manifest.yml` for HTTP mode, `manifest.socket.yml`
//! for Socket Mode) are valid by Slack's own app-manifest JSON schema and ask
//! for exactly what the bot uses: the bot scopes the install flow asks for, the eight bot events,
//! `/sources`, the "Check sources" message shortcut, interactivity and the App Home's
//! Home tab, with request URLs on the bot's routes in HTTP mode and none in Socket Mode. The
//! schema is vendored in `tests/data/` (see `tests/data/README.md`), so the
//! test needs no network; a negative check proves the validator really
//! rejects a broken manifest, so the positive checks cannot pass vacuously.

use std::path::PathBuf;

use serde_json::{json, Value};

/// The manifests' `_metadata.major_version`, which selects this schema in
/// Slack's version dispatcher (`manifest.schema.json` upstream).
const MAJOR_VERSION: u64 = 1;
/// Size of the vendored schema as published; a reformatted copy differs.
const SCHEMA_BYTES: usize = 35_681;

/// The scopes the install flow asks for are the manifests' scopes.
use sourcebot::install::oauth::BOT_SCOPES;
const BOT_EVENTS: [&str; 8] = [
    "app_home_opened",
    "app_mention",
    "app_uninstalled",
    "message.channels",
    "message.groups",
    "message.im",
    "message.mpim",
    "tokens_revoked",
];
const HOST: &str = "https://sourcebot.example.com";
/// The `/sources` usage hint: its subcommands, then what it checks.
const USAGE_HINT: &str =
    "[watch @assistant | unwatch @assistant | settings | help | answer text or message link]";

fn repo_file(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(rel)
}

fn read(rel: &str) -> String {
    let path = repo_file(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

/// A YAML manifest as the JSON value Slack validates.
fn manifest(rel: &str) -> Value {
    serde_yaml_ng::from_str(&read(rel)).unwrap_or_else(|e| panic!("{rel} is not valid YAML: {e}"))
}

fn schema() -> Value {
    serde_json::from_str(&read("tests/data/slack-manifest-schema.json"))
        .expect("vendored schema is JSON")
}

fn validator() -> jsonschema::Validator {
    jsonschema::draft7::new(&schema()).expect("vendored schema compiles")
}

/// Every schema error for `doc`, one per line, with its JSON pointer.
fn errors(validator: &jsonschema::Validator, doc: &Value) -> Vec<String> {
    validator
        .iter_errors(doc)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect()
}

fn strings(v: &Value, pointer: &str) -> Vec<String> {
    v.pointer(pointer)
        .and_then(Value::as_array)
        .unwrap_or_else(|| panic!("{pointer} is not a list"))
        .iter()
        .map(|s| s.as_str().expect("string item").to_owned())
        .collect()
}

/// Every string under a key whose name ends in `url`, anywhere in `v`.
fn urls(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(map) => {
            for (k, child) in map {
                if k.ends_with("url") {
                    if let Some(s) = child.as_str() {
                        out.push(s.to_owned());
                    }
                }
                urls(child, out);
            }
        }
        Value::Array(items) => items.iter().for_each(|c| urls(c, out)),
        _ => {}
    }
}

const FILES: [&str; 2] = ["manifest.yml", "manifest.socket.yml"];

#[test]
fn vendored_schema_is_slacks_v1_draft7_schema() {
    let text = read("tests/data/slack-manifest-schema.json");
    assert_eq!(
        text.len(),
        SCHEMA_BYTES,
        "schema edited? vendor it byte for byte"
    );
    let schema = schema();
    assert_eq!(schema["$schema"], "http://json-schema.org/draft-07/schema#");
    assert_eq!(schema["title"], "App Manifest");
    jsonschema::meta::validate(&schema).expect("schema is a valid draft-07 schema");
}

#[test]
fn both_manifests_match_slacks_schema() {
    let validator = validator();
    for file in FILES {
        let doc = manifest(file);
        assert_eq!(
            doc.pointer("/_metadata/major_version")
                .and_then(Value::as_u64),
            Some(MAJOR_VERSION),
            "{file}: _metadata.major_version"
        );
        let errs = errors(&validator, &doc);
        assert!(
            errs.is_empty(),
            "{file} fails Slack's schema:\n{}",
            errs.join("\n")
        );
    }
}

#[test]
fn both_manifests_ask_for_what_the_bot_uses() {
    for file in FILES {
        let m = manifest(file);
        assert_eq!(m["display_information"]["name"], "sourcebot", "{file}");
        assert_eq!(
            m["display_information"]["description"],
            "Shows what an AI answer rests on: its sources, checked and grouped.",
            "{file}"
        );
        assert_eq!(
            m["features"]["bot_user"]["display_name"], "sourcebot",
            "{file}"
        );

        let mut scopes = strings(&m, "/oauth_config/scopes/bot");
        scopes.sort();
        let mut want: Vec<String> = BOT_SCOPES.iter().map(|s| s.to_string()).collect();
        want.sort();
        assert_eq!(scopes, want, "{file}: bot scopes");
        assert!(
            m["oauth_config"]["scopes"].get("user").is_none(),
            "{file}: no user scopes"
        );

        let mut events = strings(&m, "/settings/event_subscriptions/bot_events");
        events.sort();
        assert_eq!(events, BOT_EVENTS, "{file}: bot events");

        let commands = m["features"]["slash_commands"]
            .as_array()
            .expect("slash_commands");
        assert_eq!(commands.len(), 1, "{file}: one slash command");
        let cmd = &commands[0];
        assert_eq!(cmd["command"], "/sources", "{file}");
        assert_eq!(cmd["usage_hint"], USAGE_HINT, "{file}");
        assert_eq!(cmd["should_escape"], false, "{file}");
        assert!(
            cmd["description"].as_str().is_some_and(|d| !d.is_empty()),
            "{file}"
        );

        let shortcuts = m["features"]["shortcuts"].as_array().expect("shortcuts");
        assert_eq!(shortcuts.len(), 1, "{file}: one shortcut");
        assert_eq!(shortcuts[0]["type"], "message", "{file}");
        assert_eq!(shortcuts[0]["name"], "Check sources", "{file}");
        assert_eq!(shortcuts[0]["callback_id"], "check_sources", "{file}");

        assert_eq!(m["settings"]["interactivity"]["is_enabled"], true, "{file}");
    }
}

#[test]
fn both_manifests_enable_the_home_tab() {
    for file in FILES {
        let m = manifest(file);
        let home = &m["features"]["app_home"];
        assert_eq!(home["home_tab_enabled"], true, "{file}: home_tab_enabled");
        // Direct messages with the bot stay as they were.
        assert_eq!(
            home["messages_tab_enabled"], true,
            "{file}: messages_tab_enabled"
        );
        assert_eq!(
            home["messages_tab_read_only_enabled"], false,
            "{file}: messages_tab_read_only_enabled"
        );
        // The Home tab is published when it is opened, and users.info (users:read)
        // tells admins from members on it.
        let events = strings(&m, "/settings/event_subscriptions/bot_events");
        assert!(events.iter().any(|e| e == "app_home_opened"), "{file}");
        let scopes = strings(&m, "/oauth_config/scopes/bot");
        assert!(scopes.iter().any(|s| s == "users:read"), "{file}");
    }
}

#[test]
fn http_manifest_points_at_the_bots_routes() {
    let m = manifest("manifest.yml");
    assert_ne!(
        m["settings"]["socket_mode_enabled"], true,
        "HTTP manifest enables Socket Mode"
    );
    assert_eq!(
        m["settings"]["event_subscriptions"]["request_url"],
        format!("{HOST}/slack/events")
    );
    assert_eq!(
        m["features"]["slash_commands"][0]["url"],
        format!("{HOST}/slack/commands")
    );
    assert_eq!(
        m["settings"]["interactivity"]["request_url"],
        format!("{HOST}/slack/interactions")
    );
    let mut all = Vec::new();
    urls(&m, &mut all);
    assert_eq!(all.len(), 3, "unexpected URL fields: {all:?}");
    assert!(read("manifest.yml").contains("sourcebot.example.com"));
}

#[test]
fn socket_manifest_enables_socket_mode_and_has_no_urls() {
    let m = manifest("manifest.socket.yml");
    assert_eq!(m["settings"]["socket_mode_enabled"], true);
    let mut all = Vec::new();
    urls(&m, &mut all);
    assert!(all.is_empty(), "Socket Mode needs no request URLs: {all:?}");
}

/// Copies of `base` with one thing broken each, named for the failure message.
fn broken(base: &Value) -> Vec<(&'static str, Value)> {
    let mut out = Vec::new();
    let mut edit = |name: &'static str, f: &dyn Fn(&mut Value)| {
        let mut v = base.clone();
        f(&mut v);
        assert_ne!(&v, base, "mutation {name} changed nothing");
        out.push((name, v));
    };
    edit("missing display_information", &|v| {
        v.as_object_mut().unwrap().remove("display_information");
    });
    edit("unknown scope type", &|v| {
        v["oauth_config"]["scopes"]["robot"] = json!(["chat:write"]);
    });
    edit("unknown settings field", &|v| {
        v["settings"]["socket_mode"] = json!(true)
    });
    edit("shortcut of unknown type", &|v| {
        v["features"]["shortcuts"][0]["type"] = json!("thread")
    });
    edit("shortcut without callback_id", &|v| {
        v["features"]["shortcuts"][0]
            .as_object_mut()
            .unwrap()
            .remove("callback_id");
    });
    edit("command without leading slash", &|v| {
        v["features"]["slash_commands"][0]["command"] = json!("sources")
    });
    edit("interactivity without is_enabled", &|v| {
        v["settings"]["interactivity"]
            .as_object_mut()
            .unwrap()
            .remove("is_enabled");
    });
    edit("request URL that is not http(s)", &|v| {
        v["settings"]["event_subscriptions"]["request_url"] =
            json!("sourcebot.example.com/slack/events")
    });
    edit("display name too long", &|v| {
        v["display_information"]["name"] = json!("x".repeat(36))
    });
    edit("home tab switch as a string", &|v| {
        v["features"]["app_home"]["home_tab_enabled"] = json!("true")
    });
    edit("bot events as a string", &|v| {
        v["settings"]["event_subscriptions"]["bot_events"] = json!("app_mention")
    });
    out
}

#[test]
fn schema_rejects_broken_manifests() {
    let validator = validator();
    for file in FILES {
        let good = manifest(file);
        assert!(
            validator.is_valid(&good),
            "{file} must be valid before it is broken"
        );
        for (name, bad) in broken(&good) {
            assert!(
                !errors(&validator, &bad).is_empty(),
                "{file} with {name} passed Slack's schema"
            );
        }
    }
}
