//! `sourcebot check` as people and scripts use it: every format on the bundled
//! examples, standard input, exit codes, and a one-line error naming the file and what
//! was wrong for every kind of bad input.

use sourcebot::model::{Report, VerdictClass};
use std::io::Write;
use std::process::{Command, Output, Stdio};

fn sourcebot(args: &[&str]) -> Output {
    command(args).output().expect("run sourcebot")
}

/// `sourcebot check …` with `--no-verify`: these tests are about reading and showing
/// answers, and must not reach the links in the examples. Verification has its own
/// tests against local servers (tests/verify_cli.rs).
fn command(args: &[&str]) -> Command {
    let mut cmd = command_verifying(args);
    if args.first() == Some(&"check") {
        cmd.arg("--no-verify");
    }
    cmd
}

/// `sourcebot …` as given, with no SOURCEBOT_ setting inherited.
fn command_verifying(args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_sourcebot"));
    cmd.args(args).current_dir(env!("CARGO_MANIFEST_DIR"));
    for (key, _) in std::env::vars() {
        if key.starts_with("SOURCEBOT_") {
            cmd.env_remove(key);
        }
    }
    cmd
}

fn with_stdin(args: &[&str], envs: &[(&str, &str)], input: &[u8]) -> Output {
    let mut cmd = command(args);
    cmd.envs(envs.iter().copied());
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn sourcebot");
    let mut stdin = child.stdin.take().expect("stdin");
    let input = input.to_vec();
    // sourcebot stops reading past its limit; a broken pipe here is expected then.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let output = child.wait_with_output().expect("wait");
    let _ = writer.join();
    output
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn text_format_on_the_bundled_answer() {
    let o = sourcebot(&["check", "examples/answer.md"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("links not checked"), "{out}");
    assert!(out.contains("Payments Deploy Runbook"), "{out}");
    assert!(
        !out.contains("https://example.com/not-a-citation"),
        "links in code are not sources"
    );
    assert!(
        !out.to_lowercase().contains("✓") && !out.contains("[verified]"),
        "nothing claims to be verified"
    );
}

#[test]
fn json_format_is_the_report_contract() {
    for example in [
        "examples/answer.md",
        "examples/answer.json",
        "examples/research-report.json",
        "examples/search-results.json",
        "examples/agent-results.json",
    ] {
        let o = sourcebot(&["check", example, "--format", "json"]);
        assert!(o.status.success(), "{example}: {}", stderr(&o));
        let report: Report =
            serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{example}: {e}"));
        assert!(report.metrics.unique_sources > 0, "{example}");
        assert!(!report.verification.performed);
        assert!(
            report
                .sources()
                .all(|s| s.verdict.class == VerdictClass::NotChecked),
            "{example}"
        );
    }
}

#[test]
fn bundled_answer_contents() {
    let o = sourcebot(&["check", "examples/answer.md", "--format", "json"]);
    let report: Report = serde_json::from_slice(&o.stdout).expect("json");
    let kinds: Vec<&str> = report.groups.iter().map(|g| g.kind.as_str()).collect();
    assert_eq!(kinds, ["slack", "confluence", "file", "web"]);
    assert_eq!(report.metrics.unique_sources, 8);
    let runbook = report
        .sources()
        .find(|s| s.title == "Payments Deploy Runbook")
        .expect("runbook");
    assert_eq!(
        runbook.references, 2,
        "the tracking-parameter copy is a duplicate"
    );
    assert!(report.dangling_citations.is_empty());
}

#[test]
fn mrkdwn_and_blocks_formats() {
    let o = sourcebot(&["check", "examples/answer.md", "--format", "mrkdwn"]);
    assert!(o.status.success());
    let out = stdout(&o);
    assert!(out.starts_with("*Sources*"), "{out}");
    assert!(
        out.contains(
            "<https://martinfowler.com/bliki/CanaryRelease.html|Canary Release (Martin Fowler)>"
        ),
        "{out}"
    );
    let o = sourcebot(&["check", "examples/answer.md", "--format", "blocks"]);
    assert!(o.status.success());
    let blocks: serde_json::Value = serde_json::from_slice(&o.stdout).expect("blocks json");
    assert!(blocks["blocks"].as_array().is_some_and(|b| !b.is_empty()));
    assert!(blocks["text"].as_str().is_some_and(|t| !t.is_empty()));
}

#[test]
fn max_per_kind_caps_each_group() {
    let o = sourcebot(&[
        "check",
        "examples/answer.md",
        "--format",
        "mrkdwn",
        "--max-per-kind",
        "1",
    ]);
    let out = stdout(&o);
    assert!(out.contains("…and 3 more"), "{out}");
    assert!(out.contains("…and 1 more"), "{out}");
}

#[test]
fn reads_standard_input() {
    let input = b"Rust 1.0 shipped in 2015 [1].\n\n[1] https://blog.rust-lang.org/2015/05/15/Rust-1.0.html - Announcing Rust 1.0\n";
    for args in [
        &["check", "-", "--format", "json"][..],
        &["check", "--format", "json"][..],
    ] {
        let o = with_stdin(args, &[], input);
        assert!(o.status.success(), "{}", stderr(&o));
        let report: Report = serde_json::from_slice(&o.stdout).expect("json");
        assert_eq!(report.metrics.unique_sources, 1);
        assert_eq!(report.origin, sourcebot::model::Origin::Stdin);
    }
}

#[test]
fn missing_file_is_exit_1_naming_it() {
    let o = sourcebot(&["check", "no/such/answer.md"]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains("no/such/answer.md") && err.contains("cannot open"),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
}

#[test]
fn bad_json_names_file_line_and_column() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("bad.json");
    std::fs::write(&path, "{\n  \"text\": \"a\",\n  \"sources\": [,]\n}\n").expect("write");
    let p = path.to_string_lossy();
    let o = sourcebot(&["check", &p]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains(&*p) && err.contains("line 3, column 15"),
        "{err}"
    );
}

#[test]
fn wrong_json_shape_names_the_field() {
    let o = with_stdin(
        &["check", "-"],
        &[],
        br#"{"text":"a","sources":[{"url":["x"]}]}"#,
    );
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains("standard input: $.sources[0].url: expected a string, found an array"),
        "{err}"
    );
    let o = with_stdin(&["check", "-"], &[], br#"{"hello":"world"}"#);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("unknown shape"), "{}", stderr(&o));
}

#[test]
fn non_utf8_input_is_refused_with_its_offset() {
    let o = with_stdin(&["check", "-"], &[], b"caf\xe9 https://a.com");
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("not valid UTF-8 (first bad byte at offset 3)"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn oversized_input_is_refused_without_reading_it_all() {
    let big = vec![b'a'; 50 * 1024 * 1024];
    let o = with_stdin(&["check", "-"], &[], &big);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains("larger than 10485760 bytes") && err.contains("SOURCEBOT_MAX_INPUT_BYTES"),
        "{err}"
    );
    let o = with_stdin(
        &["check", "-"],
        &[("SOURCEBOT_MAX_INPUT_BYTES", "10")],
        b"https://a.com/long",
    );
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn empty_input_is_an_error() {
    let o = with_stdin(&["check", "-"], &[], b"  \n ");
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("input is empty"), "{}", stderr(&o));
}

#[test]
fn bad_usage_is_exit_2() {
    assert_eq!(
        sourcebot(&["check", "examples/answer.md", "--format", "xml"])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        sourcebot(&["check", "--max-per-kind", "-3"]).status.code(),
        Some(2)
    );
    assert_eq!(sourcebot(&["frobnicate"]).status.code(), Some(2));
    assert_eq!(sourcebot(&[]).status.code(), Some(2));
}

#[test]
fn bad_setting_is_exit_2_naming_it() {
    let o = with_stdin(&["check", "-"], &[("SOURCEBOT_MAX_PER_KIND", "many")], b"x");
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("SOURCEBOT_MAX_PER_KIND") && err.contains("whole number"),
        "{err}"
    );
}

#[test]
fn help_explains_every_option_with_examples() {
    let o = sourcebot(&["check", "--help"]);
    assert!(o.status.success());
    let out = stdout(&o);
    for needle in [
        "--format",
        "--max-per-kind",
        "--input",
        "FILE|-",
        "Examples:",
        "sourcebot check examples/answer.md",
    ] {
        assert!(out.contains(needle), "missing {needle} in\n{out}");
    }
}

#[test]
fn input_flag_forces_text_or_json() {
    let o = with_stdin(
        &["check", "-", "--input", "text", "--format", "json"],
        &[],
        br#"{"text": "see https://a.com"}"#,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let report: Report = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(report.shape, sourcebot::model::InputShape::Text);
    let o = with_stdin(
        &["check", "-", "--input", "json"],
        &[],
        b"see https://a.com",
    );
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn scoring_settings_reach_the_report() {
    let dir = tempfile::tempdir().expect("tempdir");
    let tiers = dir.path().join("tiers.txt");
    std::fs::write(&tiers, "[low]\ngoogle.com\n").expect("write tiers");
    let tiers = tiers.to_string_lossy().into_owned();
    let output = with_stdin(
        &["check", "-", "--format", "json"],
        &[
            ("SOURCEBOT_SOURCE_RELIABILITY", "confluence=0.95"),
            ("SOURCEBOT_DOMAIN_TIERS", &tiers),
            ("SOURCEBOT_CREDIBILITY", "tiers"),
        ],
        b"Deploys follow the runbook [1] and the load test [2].\n\n\
          [1] https://acme.atlassian.net/wiki/spaces/PAY/pages/1 - Runbook\n\
          [2] https://www.google.com/search?q=load - Search\n",
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let report: Report = serde_json::from_str(&stdout(&output)).expect("report");
    let credibility = |title: &str| {
        report
            .sources()
            .find(|s| s.title == title)
            .and_then(|s| s.credibility.as_ref())
            .map(|c| c.value)
            .expect("scored source")
    };
    assert_eq!(credibility("Runbook"), 0.95);
    assert_eq!(
        credibility("Search"),
        0.2,
        "the extra tier file rates google.com low"
    );
    let output = with_stdin(
        &["check", "-"],
        &[("SOURCEBOT_SCORING_WEIGHTS", "credibility=0.9")],
        b"x",
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("SOURCEBOT_SCORING_WEIGHTS=\"credibility=0.9\" is not valid: credibility and diversity must sum to 1.0"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn search_results_show_their_search_score_in_text() {
    let output = sourcebot(&["check", "examples/search-results.json"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    let scored = text.lines().filter(|l| l.contains(" · search 0.")).count();
    assert_eq!(scored, 4, "every result shows its search score:\n{text}");
    // Answers that are not search results show none.
    let output = sourcebot(&["check", "examples/answer.md"]);
    assert!(!stdout(&output).contains(" · search "));
}

// --- sourcebot support -------------------------------------------------------

#[test]
fn support_judges_each_line_and_names_the_bad_ones() {
    let input = concat!(
        r#"{"id": "a", "claim": "Deploys are frozen on Fridays [1].", "evidence": ["[1] https://wiki.example/release\n\nRelease policy. Deploys are frozen on Fridays and during holidays."]}"#,
        "\n",
        "{not json\n",
        r#"{"claim": "The company was founded in Boston in 1998.", "evidence": "Release policy. Deploys are frozen on Fridays and during holidays."}"#,
        "\n",
        r#"{"claim": "x", "evidence": 5}"#,
        "\n"
    );
    let output = with_stdin(&["support", "-"], &[], input.as_bytes());
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let lines: Vec<serde_json::Value> = stdout(&output)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["id"], "a", "fields are kept");
    assert_eq!(lines[0]["verdict"], "supported");
    assert_eq!(lines[1]["verdict"], "not supported");
    assert!(lines[0]["support"].as_f64() > lines[1]["support"].as_f64());
    assert!(lines[0]["quote"]
        .as_str()
        .unwrap_or_default()
        .contains("frozen on Fridays"));
    let errors = stderr(&output);
    assert!(
        errors.contains("standard input: line 2: not JSON"),
        "{errors}"
    );
    assert!(
        errors.contains("line 4: \"evidence\" must be a string or a list of strings"),
        "{errors}"
    );
}

#[test]
fn support_on_a_missing_file_says_so() {
    let output = sourcebot(&["support", "no/such/claims.jsonl"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("no/such/claims.jsonl: cannot open"));
}

/// The shipped model, through the command, on ExpertQA's random split (it was fitted on
/// WiCE, never on ExpertQA): a little better than chance and the one-line rule (0.517),
/// as docs/support.md reports (0.534). ExpertQA's experts judged chosen passages, not pages, and
/// called most claims supported whatever the overlap: words tell little there.
#[test]
fn support_agrees_with_experts_on_the_held_out_split() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/corpora/expertqa_rand_val.jsonl");
    let Ok(text) = std::fs::read_to_string(&path) else {
        eprintln!("NOTICE: {} is absent: skipped", path.display());
        return;
    };
    let mut input = String::new();
    for line in text.lines() {
        let record: serde_json::Value = serde_json::from_str(line).expect("ExpertQA JSON");
        for answer in record["answers"]
            .as_object()
            .into_iter()
            .flat_map(|a| a.values())
        {
            for claim in answer["claims"].as_array().into_iter().flatten() {
                let label = claim["support"].as_str().unwrap_or("");
                let evidence = claim["evidence"].as_array().cloned().unwrap_or_default();
                if evidence.is_empty() || label.is_empty() || label == "Missing" {
                    continue;
                }
                let line = serde_json::json!({
                    "claim": claim["claim_string"],
                    "evidence": evidence,
                    "label": label,
                });
                input.push_str(&line.to_string());
                input.push('\n');
            }
        }
    }
    let output = with_stdin(&["support", "-"], &[], input.as_bytes());
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let (mut hits, mut totals) = ([0.0f64; 2], [0.0f64; 2]);
    for line in stdout(&output).lines() {
        let judged: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
        let expert = usize::from(judged["label"] == "Complete");
        let ours = usize::from(judged["verdict"] == "supported");
        totals[expert] += 1.0;
        if ours == expert {
            hits[expert] += 1.0;
        }
    }
    assert!(totals[0] > 200.0 && totals[1] > 600.0, "{totals:?}");
    let balanced = (hits[0] / totals[0] + hits[1] / totals[1]) / 2.0;
    assert!(
        balanced > 0.52,
        "balanced accuracy {balanced:.3} on the held-out split"
    );
}

/// A ratings file reaches the report: each web source carries its type and its
/// domain's rating; `SOURCEBOT_CREDIBILITY=model` moves its score by the fitted amounts,
/// the default (tiers) does not; an unreadable file or an unknown method is refused at
/// start, naming the setting.
#[test]
fn credibility_settings_reach_the_report() {
    let dir = tempfile::tempdir().expect("tempdir");
    let ratings = dir.path().join("ratings.csv");
    std::fs::write(&ratings, "domain,pc1\nreuters.com,0.95\n").expect("write ratings");
    let ratings = ratings.to_string_lossy().into_owned();
    let answer = b"Markets fell [1] and a thread agreed [2].\n\n\
          [1] https://www.reuters.com/markets/stocks/fall - Reuters\n\
          [2] https://www.reddit.com/r/stocks/comments/1 - A thread\n";
    let credibility = |env: &[(&str, &str)]| -> Vec<(String, f64, f64, Option<f64>, String)> {
        let output = with_stdin(&["check", "-", "--format", "json"], env, answer);
        assert!(output.status.success(), "{}", stderr(&output));
        let report: Report = serde_json::from_str(&stdout(&output)).expect("report");
        report
            .sources()
            .map(|s| {
                let c = s.credibility.clone().expect("scored");
                (
                    s.title.clone(),
                    c.base,
                    c.adjustment,
                    c.rating,
                    c.source_type.as_str().to_string(),
                )
            })
            .collect()
    };
    let model = credibility(&[
        ("SOURCEBOT_DOMAIN_RATINGS", &ratings),
        ("SOURCEBOT_CREDIBILITY", "model"),
    ]);
    let reuters = &model[0];
    assert_eq!(
        (reuters.0.as_str(), reuters.3, reuters.4.as_str()),
        ("Reuters", Some(0.95), "news")
    );
    let thread = &model[1];
    assert_eq!((thread.3, thread.4.as_str()), (None, "forum"));
    // The default: the tiers alone; the type and the rating are still reported.
    let tiers = credibility(&[("SOURCEBOT_DOMAIN_RATINGS", &ratings)]);
    assert_eq!(tiers[0].3, Some(0.95));
    assert_eq!(tiers[1].4, "forum");
    for ((_, model_base, adjustment, ..), (_, tier_base, tier_adjustment, ..)) in
        model.iter().zip(&tiers)
    {
        assert_eq!(*tier_adjustment, 0.0);
        assert!((model_base - (tier_base + adjustment)).abs() < 1e-12);
    }
    assert_ne!(
        model[0].2, 0.0,
        "the rating and the type move a rated news site"
    );
    for (env, named) in [
        (
            ("SOURCEBOT_DOMAIN_RATINGS", "/nonexistent/ratings.csv"),
            "SOURCEBOT_DOMAIN_RATINGS",
        ),
        (("SOURCEBOT_CREDIBILITY", "vibes"), "SOURCEBOT_CREDIBILITY"),
    ] {
        let output = with_stdin(&["check", "-", "--format", "json"], &[env], answer);
        assert!(!output.status.success());
        assert!(stderr(&output).contains(named), "{}", stderr(&output));
    }
}
